"""pytorch-ignite's `Bleu` (ignite.metrics.nlp) behind protocol v1.

Thin: token lists go to `Bleu.update(([hypothesis], [references]))` one segment
at a time, `ngram` = number of weights (ignite's weights are 1/ngram, so only
uniform weights can be asked for), smoothing mapped to ignite's names:
  none          -> "no_smooth"
  chen-cherry-1 -> "smooth1" (epsilon 0.1 only: ignite fixes it)
  chen-cherry-2 -> "smooth2" (add 1 to numerator and denominator of orders n > 1)
("nltk_smooth2" has no oracle counterpart). No case folding, no statistics.

`average` is ignite's documented option, "macro" by default: the corpus score is
the mean of the sentence scores. `IgniteImplementation` uses the default, as a
user who does not set it gets; `IgniteMicroImplementation` asks for "micro"
(the statistics summed over the corpus, as in Papineni et al.).

A request without a stateful plan goes in one `update` of the whole corpus (a batch); a plan runs
on the metric's own `update` and `reset` (`StatefulImplementation`). ignite has no merge.

Profile "papineni": ignite's docstring gives Papineni's formula ("w_n are
positive weights summing to one", "More details can be found in Papineni et
al. 2002").
"""

from __future__ import annotations

from collections.abc import Sequence

from oracle.models.protocol import ScoreRequest, Segment

from .base import (
    ScoreAnswer,
    SmoothingRow,
    SmoothingTable,
    StatefulImplementation,
    Unsupported,
    declare_capabilities,
    require_library,
    require_uniform,
)
from .registry import Registered

#: This module's implementations, as every verb knows them (docs/extending.md, "An implementation"): the
#: registry reads this statement from the source, without importing the module, so it holds plain data only.
IMPLEMENTATIONS = (
    Registered("ignite", "in-process", "oracle.adapters.ignite_adapter:IgniteImplementation", extra="ignite",
               listed=7),
    # the same library code as ignite, its micro average: ignite's discrepancies are its own
    Registered("ignite-micro", "in-process", "oracle.adapters.ignite_adapter:IgniteMicroImplementation",
               extra="ignite", documented_as="ignite", listed=8),
)


SMOOTHING = SmoothingTable("ignite smooths with no_smooth, smooth1 (epsilon 0.1) or smooth2 only", (
    SmoothingRow("none", "no_smooth"), SmoothingRow("chen-cherry-2", "smooth2"),
    SmoothingRow("chen-cherry-1", "smooth1", fixed={"epsilon": 0.1})))


class IgniteImplementation(StatefulImplementation):
    name = "pytorch-ignite"
    language = "python"
    profile = "papineni"
    library = "ignite"
    average = "macro"
    # ignite's metrics: `update` per batch, `reset`; no merge (its distributed sync all-reduces inside compute)
    capabilities = declare_capabilities(weights="uniform", max_order=16, smoothing=SMOOTHING.declared,
                                        stateful=["accumulate", "reset"])

    def __init__(self):
        ignite, self._Bleu, self._NotComputableError = require_library(
            "ignite",
            "ignite",
            "ignite.metrics.nlp:Bleu",
            "ignite.exceptions:NotComputableError",
            library="pytorch-ignite",
        )
        self.version = ignite.__version__
        # ValueError for arguments it refuses; NotComputableError: "must have at least one example"
        self.refusals = (ValueError, self._NotComputableError)

    def prepare(self, request: ScoreRequest) -> None:
        if request.lowercase:
            raise Unsupported("ignite's Bleu has no case folding")
        require_uniform(request.weights, "ignite's Bleu weighs each of ngram orders 1/ngram")
        SMOOTHING.setting(request.smoothing)

    def new_state(self, request: ScoreRequest):
        return self._Bleu(ngram=len(request.weights), smooth=SMOOTHING.setting(request.smoothing),
                          average=self.average)

    def update(self, state, request: ScoreRequest, segments: Sequence[Segment]) -> None:
        # one batch: (hypotheses, their references), token lists as they are
        state.update(([list(s.hypothesis) for s in segments], [[list(r) for r in s.references] for s in segments]))

    def reset(self, state) -> None:
        state.reset()

    def answer(self, state) -> ScoreAnswer:
        return ScoreAnswer(float(state.compute()))


class IgniteMicroImplementation(IgniteImplementation):
    name = "pytorch-ignite-micro"
    average = "micro"
