"""The oracle itself as an implementation, under any profile (`serve --impl oracle --profile P`).

It declares honest capabilities: both levels; any weights unless the profile only
means uniform ones; every smoothing method; statistics; case folding. The request's
`lowercase` and `smoothing` override the profile's; everything else follows the profile.
Input the oracle refuses (BleuValueError / BleuTypeError) is answered `rejected`.
"""

from __future__ import annotations

import math

from .. import __version__
from ..bleu import corpus_bleu, sentence_bleu
from ..conventions import SMOOTHING_METHODS
from ..errors import BleuTypeError, BleuValueError
from ..profiles import get_profile
from .base import Implementation, Rejected, ScoreAnswer, ScoreRequest

#: The largest order declared; the oracle itself has no limit, this is what it promises.
MAX_ORDER = 10


class OracleImplementation(Implementation):
    name = "bleu-oracle"
    version = __version__
    language = "python"

    def __init__(self, profile="papineni"):
        self._profile = get_profile(profile)
        self.profile = self._profile.name
        options = self._profile.options
        self.capabilities = {
            "levels": ["corpus", "sentence"],
            "weights": "uniform" if options.uniform_weights_only else "any",
            "max_order": MAX_ORDER,
            "smoothing": list(SMOOTHING_METHODS),
            "statistics": True,
            "lowercase": True,
        }

    def score(self, request: ScoreRequest) -> ScoreAnswer:
        try:
            result = self._score(request)
        except (BleuValueError, BleuTypeError) as exc:
            raise Rejected(str(exc)) from None
        stats = result.statistics
        order = len(result.weights)  # chen-cherry-5/-7 count one order further; report 1..N
        return ScoreAnswer(
            score=_float(result.score),
            statistics={
                "hyp_len": stats.hyp_len,
                "ref_len": stats.ref_len,
                "matches": list(stats.matches[:order]),
                "totals": list(stats.totals[:order]),
                "bp": _float(result.bp),
            },
        )

    def _score(self, request):
        options = self._profile.options.with_changes(lowercase=request.lowercase)
        segments = list(request.segments)
        if request.level == "corpus":
            return corpus_bleu(
                [s.hypothesis for s in segments], [s.references for s in segments],
                weights=request.weights, options=options, smoothing=request.smoothing,
            )
        if request.level == "sentence":
            if len(segments) != 1:
                raise BleuValueError(f"sentence level takes exactly one segment (got {len(segments)})")
            return sentence_bleu(
                segments[0].hypothesis, segments[0].references,
                weights=request.weights, options=options, smoothing=request.smoothing,
            )
        raise BleuValueError(f"`level` must be 'corpus' or 'sentence' (got {request.level!r})")


def _float(number):
    value = float(number)
    return math.nan if math.isnan(value) else value
