"""The oracle itself as an implementation, under any profile (`serve --impl oracle --profile P`).

It declares honest capabilities: both levels; any weights unless the profile only
means uniform ones; every smoothing method; statistics; case folding; every rule of
every convention a request may carry. The request's `lowercase`, `smoothing` and
`conventions` override the profile's; everything else follows the profile.
Input the oracle refuses (BleuValueError / BleuTypeError) is answered `rejected`.
"""

from __future__ import annotations

from oracle import __version__
from oracle.diagnose.expect import oracle_result, statistics_of
from oracle.formulas.conventions import REQUEST_CONVENTIONS, SMOOTHING_METHODS
from oracle.formulas.errors import BleuTypeError, BleuValueError
from oracle.formulas.profiles import get_profile
from oracle.models.protocol import ScoreRequest

from .base import Implementation, Rejected, ScoreAnswer
from .registry import Registered

#: This module's implementations, as every verb knows them (docs/extending.md, "An implementation"): the
#: registry reads this statement from the source, without importing the module, so it holds plain data only.
IMPLEMENTATIONS = (
    Registered("oracle", "in-process", "oracle.adapters.oracle_adapter:OracleImplementation", listed=1),
)


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
            "conventions": {name: list(rules) for name, rules in REQUEST_CONVENTIONS.items()},
        }

    def score(self, request: ScoreRequest) -> ScoreAnswer:
        try:
            options = self._profile.options.with_changes(lowercase=request.lowercase)
            result = oracle_result(request, options.switched(request.chosen_conventions))
        except (BleuValueError, BleuTypeError) as exc:
            raise Rejected(str(exc)) from None
        # chen-cherry-5/-7 count one order further; the statistics are orders 1..N
        return ScoreAnswer(float(result.score), statistics_of(result, len(request.weights)).to_json())
