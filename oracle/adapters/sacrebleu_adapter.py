"""sacrebleu's `BLEU` behind protocol v1.

Thin: tokens are joined with single spaces (the adapter declares TEXT_LIMITS, so
no token holds whitespace and `tokenize="none"`, whose n-gram extraction is
`str.split()`, gives the tokens back); a text request's strings go to sacrebleu
as they are, with its own tokenizer named (`tokenize=`: 13a, intl, char, none),
`force=True` silences the tokenized-input warning,
`max_ngram_order` is the number of weights (sacrebleu's geometric mean is
uniform, so the weights must be 1/N each), smoothing maps one to one
(none/floor/add-k/exp with `smooth_value`), `lowercase` is sacrebleu's own.

Corpus level is `BLEU(...).corpus_score` (what `sacrebleu.corpus_bleu` calls,
`use_effective_order=False`); sentence level is `BLEU(...,
effective_order=True).sentence_score` (what `sacrebleu.sentence_bleu` calls,
`use_effective_order=True`). A request asking for an `empty_order` rule switches
`effective_order=` at either level: `skip` is True (`compute_bleu` takes the
geometric mean over the orders up to the last one with n-grams), `zero` is False
(an order without n-grams keeps precision 0, and the score is 0). `BLEU()` has no
other switch a request may carry (its arguments are lowercase, tokenize,
smooth_method, smooth_value, max_ngram_order, effective_order, trg_lang and
references): its reference length is always the closest, ties to the shorter, and
its early 0 when nothing matches (#141) is not optional. References travel as streams: stream k holds the
k-th reference of every segment; a segment with fewer references is padded
with `None`, which `Metric._cache_references` documents as a missing reference
("A particular reference segment can be '' or `None` to allow the use of
variable number of references per segment"; the code drops only `None`, and
keeps '' as an empty reference, which is what an empty reference here is).

Statistics are BLEUScore's own (counts, totals, sys_len, ref_len, bp); scores
are divided by 100. One exception: with `add-k`, `BLEU.compute_bleu` adds k to
its `correct` and `total` lists in place (`correct[n - 1] += smooth_value`) and
the BLEUScore it returns holds those very lists, so its counts are the smoothed
ones (fractional for k = 0.5), while protocol v1 asks for the raw counts. The
adapter then reports the score and no statistics (it does not recompute them).
(The library's behaviour is recorded in oracle/diagnose/data/discrepancies.yaml as
sacrebleu-add-k-counts.)
"""

from __future__ import annotations

import logging

from oracle.models.protocol import ScoreRequest

from .base import (
    TEXT_LIMITS,
    Implementation,
    Rejected,
    ScoreAnswer,
    SmoothingSpec,
    SmoothingTable,
    as_count,
    declare_capabilities,
    rejecting,
    require_library,
    require_one_segment,
    require_uniform,
)
from .drivers.libraries import sacrebleu as sacrebleu_library
from .registry import Registered

#: This module's implementations, as every verb knows them (docs/extending.md, "An implementation"): the
#: registry reads this statement from the source, without importing the module, so it holds plain data only.
IMPLEMENTATIONS = (
    Registered("sacrebleu", "in-process", "oracle.adapters.sacrebleu_adapter:SacrebleuImplementation",
               extra="sacrebleu", listed=3),
)


#: smooth_method, and its smooth_value from the request's parameter (stated in the driver's sacrebleu module, which
#: `history` and tfma drive with it)
SMOOTHING = SmoothingTable.from_data(sacrebleu_library.SMOOTHING)



#: sacrebleu's tokenizers that are the oracle's literal ones (`oracle.formulas.tokenizers`)
TOKENIZERS = ("none", "13a", "intl", "char")


#: the empty-order rule -> sacrebleu's `effective_order`
EFFECTIVE_ORDER = {"zero": False, "skip": True}


def effective_order(request: ScoreRequest) -> bool:
    """`effective_order=` for `request`: the rule it asks for, else sacrebleu's own default at its level (on
    for `sentence_bleu`, off for `corpus_bleu`). The runner sends no other rule (capabilities.conventions)."""
    rule = request.chosen_conventions.get("empty_order")
    return request.level == "sentence" if rule is None else EFFECTIVE_ORDER[rule]


def join(tokens):
    """A token list as the line sacrebleu splits again; a text request's string as it is."""
    return tokens if isinstance(tokens, str) else " ".join(tokens)


def smoothing_arguments(smoothing: SmoothingSpec) -> tuple[str, float | None]:
    """(smooth_method, smooth_value) for a request's smoothing, or Unsupported."""
    method, arguments = SMOOTHING.arguments(smoothing)
    return method, arguments.get("smooth_value")


def reference_streams(segments):
    """Transpose per-segment references into sacrebleu's streams, padding with None."""
    width = max(len(s.references) for s in segments)
    return [
        [join(s.references[k]) if k < len(s.references) else None for s in segments]
        for k in range(width)
    ]


class SacrebleuImplementation(Implementation):
    name = "sacrebleu"
    language = "python"
    profile = "sacrebleu"
    capabilities = declare_capabilities(weights="uniform", max_order=16, smoothing=SMOOTHING.declared, statistics=True,
                                        lowercase=True, tokenizers=list(TOKENIZERS),
                                        conventions={"empty_order": list(EFFECTIVE_ORDER)}, **TEXT_LIMITS)

    def __init__(self):
        sacrebleu, self._BLEU = require_library("sacrebleu", "sacrebleu", "sacrebleu.metrics.bleu:BLEU")
        self.version = sacrebleu.__version__

    def score(self, request: ScoreRequest) -> ScoreAnswer:
        order = require_uniform(request.weights, "sacrebleu takes max_ngram_order only (weights 1/N each)")
        method, value = smoothing_arguments(request.smoothing)
        if not request.segments:
            raise Rejected("no segments")
        if any(not s.references for s in request.segments):
            raise Rejected("every segment needs at least one reference")
        require_one_segment(request)
        logger = logging.getLogger("sacrebleu")
        previous = logger.level
        logger.setLevel(logging.ERROR)
        try:
            with rejecting("sacrebleu", ValueError, TypeError, AssertionError):  # its argument checks
                result = self._run(request, method, value, order, effective_order(request))
        finally:
            logger.setLevel(previous)
        if method == "add-k":
            # add-k adds k to BLEUScore.counts/.totals in place (discrepancy sacrebleu-add-k-counts):
            # they are no longer the sufficient statistics, and a thin adapter does not recompute them.
            return ScoreAnswer(float(result.score) / 100.0, None)
        statistics = {
            "hyp_len": int(result.sys_len),
            "ref_len": int(result.ref_len),
            "matches": [as_count(x) for x in result.counts],
            "totals": [as_count(x) for x in result.totals],
            "bp": float(result.bp),
        }
        return ScoreAnswer(float(result.score) / 100.0, statistics)

    def _run(self, request, method, value, order, effective):
        metric = self._BLEU(
            lowercase=bool(request.lowercase), force=True, tokenize=request.tokenize or "none",
            smooth_method=method, smooth_value=value, max_ngram_order=order,
            effective_order=effective,
        )
        if request.level == "sentence":
            segment = request.segments[0]
            return metric.sentence_score(join(segment.hypothesis), [join(r) for r in segment.references])
        return metric.corpus_score([join(s.hypothesis) for s in request.segments],
                                   reference_streams(request.segments))
