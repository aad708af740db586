"""torcheval's `BLEUScore` (torcheval.metrics) behind protocol v1.

Thin: tokens joined with single spaces (torcheval splits with `str.split()`),
references per segment, `n_gram` = number of weights (torcheval documents
"Can be 1, 2, 3, or 4"), `weights` as given (passed as a float64 tensor so the
request's weights are not rounded on the way in). No smoothing, no case folding.

Profile "papineni": torcheval's documentation links the BLEU article and
documents no convention of its own. Sentence level is a one-segment corpus.
torcheval raises ValueError ("the input is too short to find all n-gram
matches") when an order has no hypothesis n-grams in the whole corpus; the
adapter passes that on as a rejection. The metric's state is reported as
statistics (no BP).
"""

from __future__ import annotations

from oracle.models.protocol import ScoreRequest

from .base import (
    TEXT_LIMITS,
    Implementation,
    ScoreAnswer,
    Unsupported,
    as_count,
    declare_capabilities,
    join_tokens,
    rejecting,
    require_library,
    require_one_segment,
    without_smoothing,
)

SMOOTHING = without_smoothing("torcheval")


class TorchevalImplementation(Implementation):
    name = "torcheval"
    language = "python"
    profile = "papineni"
    capabilities = declare_capabilities(statistics=True, **TEXT_LIMITS)

    def __init__(self):
        self._torch, torcheval, self._BLEUScore = require_library(
            "torcheval", "torch", "torcheval", "torcheval.metrics:BLEUScore"
        )
        self.version = torcheval.__version__

    def score(self, request: ScoreRequest) -> ScoreAnswer:
        if request.lowercase:
            raise Unsupported("torcheval's BLEUScore has no case folding")
        SMOOTHING.setting(request.smoothing)  # Unsupported unless "none"
        n = len(request.weights)
        if not 1 <= n <= 4:
            raise Unsupported(f"torcheval takes n_gram 1, 2, 3 or 4 (got {n} weights)")
        require_one_segment(request)
        torch = self._torch
        candidates = [join_tokens(s.hypothesis) for s in request.segments]
        references = [[join_tokens(r) for r in s.references] for s in request.segments]
        weights = torch.tensor([float(w) for w in request.weights], dtype=torch.float64)
        with rejecting("torcheval", ValueError):  # its argument checks
            metric = self._BLEUScore(n_gram=n, weights=weights)
            metric.update(candidates, references)
            value = float(metric.compute())
        statistics = {
            "hyp_len": as_count(metric.input_len),
            "ref_len": as_count(metric.target_len),
            "matches": [as_count(x) for x in metric.matches_by_order.tolist()],
            "totals": [as_count(x) for x in metric.possible_matches_by_order.tolist()],
        }
        return ScoreAnswer(value, statistics)
