"""pycocoevalcap's `Bleu` (the COCO caption evaluation scorer) behind protocol v1.

Thin: tokens joined with single spaces (BleuScorer splits with `str.split()`),
`Bleu(n=N).compute_score(gts, res, verbose=0)` with gts = {i: [references]}
and res = {i: [hypothesis]}, the answer is the BLEU-N entry of the returned
list (BLEU-1..N are cumulative with uniform weights, so only 1/N weights can
be asked for). No smoothing, no case folding, no statistics (BleuScorer keeps
them in a local variable it prints only when verbose).

Bleu.compute_score uses option="closest" (ties to the shorter reference).
Profile "papineni": pycocoevalcap documents nothing beyond "Wrapper for BLEU
scorer"; its BleuScorer adds 1e-15 to matches and 1e-9 to totals and lengths
"so that if guess is 0 still return 0" (the code's comment), which is the
discrepancy class coco-epsilon.
"""

from __future__ import annotations

import contextlib
import io

from oracle.models.protocol import ScoreRequest

from .base import (
    TEXT_LIMITS,
    Implementation,
    ScoreAnswer,
    Unsupported,
    declare_capabilities,
    join_tokens,
    rejecting,
    require_library,
    require_one_segment,
    require_uniform,
    without_smoothing,
)
from .registry import Registered

#: This module's implementations, as every verb knows them (docs/extending.md, "An implementation"): the
#: registry reads this statement from the source, without importing the module, so it holds plain data only.
IMPLEMENTATIONS = (
    Registered("pycocoevalcap", "in-process", "oracle.adapters.pycocoevalcap_adapter:PycocoevalcapImplementation",
               extra="pycocoevalcap", listed=9),
)


SMOOTHING = without_smoothing("pycocoevalcap's Bleu")


class PycocoevalcapImplementation(Implementation):
    name = "pycocoevalcap"
    language = "python"
    profile = "papineni"
    capabilities = declare_capabilities(weights="uniform", **TEXT_LIMITS)

    def __init__(self):
        self.version, self._Bleu = require_library(
            "pycocoevalcap", "version:pycocoevalcap", "pycocoevalcap.bleu.bleu:Bleu"
        )  # the package has no __version__: its distribution's version

    def score(self, request: ScoreRequest) -> ScoreAnswer:
        if request.lowercase:
            raise Unsupported("pycocoevalcap's Bleu has no case folding")
        SMOOTHING.setting(request.smoothing)  # Unsupported unless "none"
        n = require_uniform(request.weights, "pycocoevalcap's BLEU-N weighs each order 1/N")
        if n > 4:
            # Bleu(n) passes n to BleuScorer, but cook_refs/cook_test count n-grams to their default
            # n=4 only, so compute_score indexes past the end of the counts (IndexError) for n > 4.
            raise Unsupported(f"pycocoevalcap's BleuScorer counts n-grams up to order 4 only (got {n} weights)")
        require_one_segment(request)
        gts = {i: [join_tokens(r) for r in s.references] for i, s in enumerate(request.segments)}
        res = {i: [join_tokens(s.hypothesis)] for i, s in enumerate(request.segments)}
        # BleuScorer validates with asserts
        with contextlib.redirect_stdout(io.StringIO()), rejecting("pycocoevalcap", AssertionError):
            scores, _ = self._Bleu(n).compute_score(gts, res, verbose=0)
        return ScoreAnswer(float(scores[n - 1]))
