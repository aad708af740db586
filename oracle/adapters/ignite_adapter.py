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

Profile "papineni": ignite's docstring gives Papineni's formula ("w_n are
positive weights summing to one", "More details can be found in Papineni et
al. 2002").
"""

from __future__ import annotations

from oracle.models.protocol import ScoreRequest

from .base import (
    Implementation,
    ScoreAnswer,
    SmoothingRow,
    SmoothingTable,
    Unsupported,
    declare_capabilities,
    rejecting,
    require_library,
    require_one_segment,
    require_uniform,
)

SMOOTHING = SmoothingTable("ignite smooths with no_smooth, smooth1 (epsilon 0.1) or smooth2 only", (
    SmoothingRow("none", "no_smooth"), SmoothingRow("chen-cherry-2", "smooth2"),
    SmoothingRow("chen-cherry-1", "smooth1", fixed={"epsilon": 0.1})))


class IgniteImplementation(Implementation):
    name = "pytorch-ignite"
    language = "python"
    profile = "papineni"
    average = "macro"
    capabilities = declare_capabilities(weights="uniform", max_order=16, smoothing=SMOOTHING.declared)

    def __init__(self):
        ignite, self._Bleu, self._NotComputableError = require_library(
            "ignite",
            "ignite",
            "ignite.metrics.nlp:Bleu",
            "ignite.exceptions:NotComputableError",
            library="pytorch-ignite",
        )
        self.version = ignite.__version__

    def score(self, request: ScoreRequest) -> ScoreAnswer:
        if request.lowercase:
            raise Unsupported("ignite's Bleu has no case folding")
        n = require_uniform(request.weights, "ignite's Bleu weighs each of ngram orders 1/ngram")
        smooth = SMOOTHING.setting(request.smoothing)
        require_one_segment(request)
        # ValueError for arguments it refuses; NotComputableError: "must have at least one example"
        with rejecting("ignite", ValueError, self._NotComputableError):
            metric = self._Bleu(ngram=n, smooth=smooth, average=self.average)
            for s in request.segments:
                metric.update(([list(s.hypothesis)], [[list(r) for r in s.references]]))
            value = float(metric.compute())
        return ScoreAnswer(value)


class IgniteMicroImplementation(IgniteImplementation):
    name = "pytorch-ignite-micro"
    average = "micro"
