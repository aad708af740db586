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
statistics (no BP). A request's stateful plan runs on the metric's own `update`, `merge_state` and
`reset` (`StatefulImplementation`).
"""

from __future__ import annotations

from collections.abc import Sequence

from oracle.models.protocol import ScoreRequest, Segment

from .base import (
    TEXT_LIMITS,
    ScoreAnswer,
    StatefulImplementation,
    Unsupported,
    as_count,
    declare_capabilities,
    join_tokens,
    require_library,
    without_smoothing,
)
from .registry import Registered

#: This module's implementations, as every verb knows them (docs/extending.md, "An implementation"): the
#: registry reads this statement from the source, without importing the module, so it holds plain data only.
IMPLEMENTATIONS = (
    Registered("torcheval", "in-process", "oracle.adapters.torcheval_adapter:TorchevalImplementation",
               extra="torcheval", listed=6),
)


SMOOTHING = without_smoothing("torcheval")


class TorchevalImplementation(StatefulImplementation):
    name = "torcheval"
    language = "python"
    profile = "papineni"
    library = "torcheval"
    # torcheval's metrics: `update`, `merge_state(metrics)` (the toolkit's sync merges states so), `reset`
    capabilities = declare_capabilities(statistics=True, stateful=["accumulate", "merge", "reset"], **TEXT_LIMITS)

    def __init__(self):
        self._torch, torcheval, self._BLEUScore = require_library(
            "torcheval", "torch", "torcheval", "torcheval.metrics:BLEUScore"
        )
        self.version = torcheval.__version__

    def prepare(self, request: ScoreRequest) -> None:
        if request.lowercase:
            raise Unsupported("torcheval's BLEUScore has no case folding")
        SMOOTHING.setting(request.smoothing)  # Unsupported unless "none"
        n = len(request.weights)
        if not 1 <= n <= 4:
            raise Unsupported(f"torcheval takes n_gram 1, 2, 3 or 4 (got {n} weights)")

    def new_state(self, request: ScoreRequest):
        torch = self._torch
        weights = torch.tensor([float(w) for w in request.weights], dtype=torch.float64)
        return self._BLEUScore(n_gram=len(request.weights), weights=weights)

    def update(self, state, request: ScoreRequest, segments: Sequence[Segment]) -> None:
        state.update([join_tokens(s.hypothesis) for s in segments],
                     [[join_tokens(r) for r in s.references] for s in segments])

    def merge(self, state, others: list) -> None:
        state.merge_state(others)  # "merge_state(metrics: Iterable)": every other state at once

    def reset(self, state) -> None:
        state.reset()

    def answer(self, state) -> ScoreAnswer:
        value = float(state.compute())
        statistics = {
            "hyp_len": as_count(state.input_len),
            "ref_len": as_count(state.target_len),
            "matches": [as_count(x) for x in state.matches_by_order.tolist()],
            "totals": [as_count(x) for x in state.possible_matches_by_order.tolist()],
        }
        return ScoreAnswer(value, statistics)
