"""torchmetrics' `BLEUScore` (torchmetrics.text) behind protocol v1.

Thin: tokens joined with single spaces (torchmetrics splits with `str.split()`),
references per segment as torchmetrics takes them, `n_gram` = number of
weights, `weights` as given, `smooth=True` for the one smoothing it has
("Whether or not to apply smoothing, see Machine Translation Evolution", i.e.
Lin and Och 2004: add 1 to numerator and denominator of orders n > 1, which
is the oracle's chen-cherry-2, equivalently add-k with k = 1).

Profile "papineni": torchmetrics' documentation cites Papineni et al. 2002 and
documents no convention of its own (reference length rule, empty orders).
Sentence level is a one-segment corpus (torchmetrics has no sentence
function; under papineni the two are the same formula). The metric's state
(preds_len, target_len, numerator, denominator) is reported as statistics; it
does not expose BP. The computation runs in torch's default dtype, float32.

Stateful: a request's plan runs on the metric's own `update`, `merge_state` and `reset`
(`StatefulImplementation`); a plain request is one metric, one update, as a user's single call.
"""

from __future__ import annotations

from collections.abc import Sequence

from oracle.models.protocol import ScoreRequest, Segment

from .base import (
    TEXT_LIMITS,
    ScoreAnswer,
    SmoothingRow,
    SmoothingTable,
    StatefulImplementation,
    Unsupported,
    as_count,
    declare_capabilities,
    join_tokens,
    require_library,
)
from .registry import Registered

#: This module's implementations, as every verb knows them (docs/extending.md, "An implementation"): the
#: registry reads this statement from the source, without importing the module, so it holds plain data only.
IMPLEMENTATIONS = (
    Registered("torchmetrics", "in-process", "oracle.adapters.torchmetrics_adapter:TorchmetricsImplementation",
               extra="torchmetrics", listed=4),
    # SacreBLEUScore subclasses BLEUScore (torchmetrics/text/sacre_bleu.py: `class SacreBLEUScore(BLEUScore)`): its
    # update calls the same _bleu_score_update and its compute is BLEUScore's, so torchmetrics' curated classes are
    # its own (their three examples answer alike through both adapters)
    Registered("torchmetrics-sacrebleu", "in-process",
               "oracle.adapters.torchmetrics_adapter:TorchmetricsSacreBleuImplementation", extra="torchmetrics",
               documented_as="torchmetrics", listed=5),
)


#: `smooth`: add 1 to the matches and totals of orders n > 1 (chen-cherry-2, which is add-k with k = 1)
SMOOTHING = SmoothingTable("torchmetrics' only smoothing adds 1 to orders n > 1 (chen-cherry-2)", (
    SmoothingRow("none", False), SmoothingRow("chen-cherry-2", True), SmoothingRow("add-k", True, fixed={"k": 1.0})))


def _statistics(metric):
    """The metric's state (preds_len, target_len, numerator, denominator) as protocol v1 statistics."""
    return {
        "hyp_len": as_count(metric.preds_len),
        "ref_len": as_count(metric.target_len),
        "matches": [as_count(x) for x in metric.numerator.tolist()],
        "totals": [as_count(x) for x in metric.denominator.tolist()],
    }


#: What a torchmetrics BLEU state does: `update` over batches and `reset`. Not `merge_state`: BLEUScore sets
#: `full_state_update = True`, and `Metric.merge_state` raises for such a metric ("``merge_state`` is not
#: supported for metrics with ``full_state_update=True``"); its states merge only in its distributed sync,
#: which needs a process group.
STATEFUL = ["accumulate", "reset"]


class TorchmetricsImplementation(StatefulImplementation):
    name = "torchmetrics"
    language = "python"
    profile = "papineni"
    library = "torchmetrics"
    # "n_gram: Gram value ranged from 1 to 4" (max_order)
    capabilities = declare_capabilities(smoothing=SMOOTHING.declared, statistics=True, stateful=STATEFUL,
                                        **TEXT_LIMITS)

    def __init__(self):
        torchmetrics, self._BLEUScore = require_library("torchmetrics", "torchmetrics", "torchmetrics.text:BLEUScore")
        self.version = torchmetrics.__version__

    def prepare(self, request: ScoreRequest) -> None:
        if request.lowercase:
            raise Unsupported("torchmetrics' BLEUScore has no case folding")
        _order(request)
        SMOOTHING.setting(request.smoothing)

    def new_state(self, request: ScoreRequest):
        return self._BLEUScore(n_gram=_order(request), smooth=SMOOTHING.setting(request.smoothing),
                               weights=[float(w) for w in request.weights])

    def update(self, state, request: ScoreRequest, segments: Sequence[Segment]) -> None:
        text = request.is_text
        state.update([s.hypothesis if text else join_tokens(s.hypothesis) for s in segments],
                     [[r if text else join_tokens(r) for r in s.references] for s in segments])

    def reset(self, state) -> None:
        state.reset()

    def answer(self, state) -> ScoreAnswer:
        return ScoreAnswer(float(state.compute()), _statistics(state))


def _order(request: ScoreRequest) -> int:
    n = len(request.weights)
    if not 1 <= n <= 4:
        raise Unsupported(f"torchmetrics documents n_gram from 1 to 4 (got {n} weights)")
    return n


class TorchmetricsSacreBleuImplementation(TorchmetricsImplementation):
    """torchmetrics' `SacreBLEUScore`: the same computation as `BLEUScore` on text its own re-implementation
    of sacrebleu's tokenizers splits ("tokenize: Tokenization technique to be used. Supported tokenization:
    ['none', '13a', 'zh', 'intl', 'char', 'ja-mecab', 'ko-mecab', 'flores101', 'flores200']"), with
    `lowercase`. Token requests go as text joined by spaces with `tokenize="none"`; text requests as they
    are, with the tokenizer named: where its tokenizers drift from the literal ones (torchmetrics issue
    1776), the record fails in the tokenization layer."""

    name = "torchmetrics-sacrebleu"
    capabilities = declare_capabilities(smoothing=SMOOTHING.declared, statistics=True, lowercase=True,
                                        tokenizers=["none", "13a", "intl", "char"], stateful=STATEFUL, **TEXT_LIMITS)

    def __init__(self):
        torchmetrics, self._SacreBLEUScore = require_library("torchmetrics", "torchmetrics",
                                                             "torchmetrics.text:SacreBLEUScore")
        self.version = torchmetrics.__version__

    def prepare(self, request: ScoreRequest) -> None:
        _order(request)
        SMOOTHING.setting(request.smoothing)

    def new_state(self, request: ScoreRequest):
        return self._SacreBLEUScore(n_gram=_order(request), smooth=SMOOTHING.setting(request.smoothing),
                                    weights=[float(w) for w in request.weights],
                                    tokenize=request.tokenize or "none", lowercase=bool(request.lowercase))
