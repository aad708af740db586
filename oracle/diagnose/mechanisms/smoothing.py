"""Other readings of the requested smoothing method's documentation, named `smoothing=<method(parameters)>`
(`Smoothing.describe()`): a family, one name per smoothing an implementation may apply instead."""

from __future__ import annotations

from fractions import Fraction
from typing import Any

from oracle.formulas.conventions import Smoothing

from .model import RECOMPUTE, SCORE, SMOOTHING, Mechanism, Route

#: Every smoothing reading's name starts so.
STEM = "smoothing="
#: The words of a reading that says "the implementation ignored the request" (tried after the specific computations).
#: The words of a reading of a request for no smoothing as a method (`UNREQUESTED`): ignored as well, tried last.
UNREQUESTED_WORDS = "a smoothing applied where none was requested"
IGNORED = ("the requested smoothing", "the profile's default", UNREQUESTED_WORDS)
#: The methods tried where the request asks for no smoothing, each at its documented defaults: one of each rule
#: (chen-cherry-1 at epsilon 0.1 is floor at 0.1, chen-cherry-2 is add-k at k = 1, chen-cherry-3 is exp).
UNREQUESTED = (Smoothing("exp"), Smoothing("floor"), Smoothing("add-k"), Smoothing("lin-2004"),
               Smoothing("chen-cherry-4"), Smoothing("chen-cherry-5"), Smoothing("chen-cherry-6"),
               Smoothing("chen-cherry-7"))


def readings(smoothing: Smoothing, profile_options: Any) -> list[tuple[Smoothing, str]]:
    """Other readings of the requested smoothing method's documentation: (the smoothing applied, its words)."""
    method = smoothing.method
    found = []
    if method == "chen-cherry-2" or (method == "add-k" and smoothing.k == 1):
        found.append(
            (
                Smoothing("lin-2004"),
                "add 1 to matches and totals of every order, unigrams included "
                "(NLTK's page: 'Add 1 to both numerator and denominator')",
            )
        )
    if method == "lin-2004":
        found.append((Smoothing("chen-cherry-2"), "add 1 to matches and totals of orders n > 1 only"))
    if method == "chen-cherry-7":
        found.append((Smoothing("chen-cherry-4", k=smoothing.k), "method 4 only"))
        found.append((Smoothing("chen-cherry-5"), "method 5 only"))
    if method == "floor":
        found.append(
            (Smoothing("floor", value=Fraction(1, 10)), "the documented default value 0.1, not the given one")
        )
    if method == "exp":  # azure-ai-evaluation's "NIST Smoothing" is NLTK's method4
        found.append((Smoothing("chen-cherry-4"), "NLTK's method4 (k = 5) where NIST's geometric smoothing is "
                                                  "named"))
    if method == "chen-cherry-1" and smoothing.epsilon != Fraction(1, 10):
        found.append((Smoothing("chen-cherry-1"), "the documented default epsilon 0.1, not the given one"))
    if method != "none":
        found.append((Smoothing("none"), "the requested smoothing is not applied"))
    default = profile_options.smoothing
    if default.method != method and default.method != "none":
        found.append((default, f"the profile's default smoothing {default.describe()} instead of the requested one"))
    if method == "none":  # an implementation that smooths whatever it is asked (a hard-coded method)
        found.extend((s, f"{UNREQUESTED_WORDS}: {s.describe()}") for s in UNREQUESTED if s != default)
    return [(s, d) for s, d in found if s != smoothing]


#: What the family says where no reading is named.
_FAMILY_WORDS = "another smoothing applied in place of the requested one (another reading of its documentation, or " \
                "the request ignored)"


def _words_of(name: str) -> str:
    return f"the smoothing {name.removeprefix(STEM)} applied in place of the requested one (another reading of its " \
           "documentation, or the request ignored)"


MECHANISMS = [Mechanism(STEM, SMOOTHING, _FAMILY_WORDS, SCORE | {"matches", "totals"}, RECOMPUTE,
                        (Route("smoothing", readings, _FAMILY_WORDS),), family=True, words_of=_words_of)]

__all__ = ["IGNORED", "MECHANISMS", "STEM", "UNREQUESTED", "UNREQUESTED_WORDS", "readings"]
