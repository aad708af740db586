"""The smoothing's mechanisms, declared here: other readings of the requested smoothing method's documentation,
named `smoothing=<method(parameters)>` (`Smoothing.describe()`: a family, one name per smoothing an implementation may
apply instead), and the requested smoothing computed wrongly (`SMOOTHING_VARIANTS`, in the order the search tries
them; their functions, and the threads each comes from, in `oracle.diagnose.smoothingstage`; each is described by its
docstring)."""

from __future__ import annotations

from collections.abc import Callable
from fractions import Fraction
from typing import Any, NamedTuple

from oracle.diagnose.smoothingstage import (
    add_one_every_order_epsilon_for_empty,
    chen_cherry_4_first_hypothesis,
    chen_cherry_4_last_hypothesis,
    chen_cherry_4_precedence,
    chen_cherry_4_ratio_inverted,
    epsilon_added_to_every_order,
    mean_of_exp_smoothed_sentence_bleu,
    smoothed_value_as_precision,
    smoothing_counter_from_zero,
    smoothing_counter_is_order_index,
    smoothing_per_segment_summed,
)
from oracle.formulas.conventions import Smoothing

from .model import RECOMPUTE, SCORE, SMOOTHING, Mechanism, Route, docstring_words

#: Every smoothing reading's name starts so.
STEM = "smoothing="
#: The words of a reading of a request for no smoothing as a method (`UNREQUESTED`).
UNREQUESTED_WORDS = "a smoothing applied where none was requested"
#: The methods tried where the request asks for no smoothing, each at its documented defaults: one of each rule
#: (chen-cherry-1 at epsilon 0.1 is floor at 0.1, chen-cherry-2 is add-k at k = 1, chen-cherry-3 is exp).
UNREQUESTED = (Smoothing("exp"), Smoothing("floor"), Smoothing("add-k"), Smoothing("lin-2004"),
               Smoothing("chen-cherry-4"), Smoothing("chen-cherry-5"), Smoothing("chen-cherry-6"),
               Smoothing("chen-cherry-7"))


class Reading(NamedTuple):
    """One other reading of the requested smoothing: the smoothing applied, its words, and when the classifier tries
    it (`oracle.diagnose.classify._tiers`), declared here with the reading rather than listed there."""

    smoothing: Smoothing
    words: str
    #: the reading says the implementation ignored the request (none applied, the profile's default, a method where
    #: none was asked): tried after the specific and generic computations, not before
    ignores_request: bool = False
    #: tried with a convention or two as well as alone (`Mechanism.pairs_with_conventions`); a method applied where
    #: none was requested is not: eight more readings in every pair made a run whose bug no mechanism names cost 47
    #: times its fixed twin (quadratic in the conventions), and such readings (add-one on orders n > 1 above all)
    #: reach simple numbers a variant of the right counts names
    pairs_with_conventions: bool = True


def readings(smoothing: Smoothing, profile_options: Any) -> list[Reading]:
    """Other readings of the requested smoothing method's documentation: (the smoothing applied, its words, flags)."""
    method = smoothing.method
    found: list[Reading] = []
    if method == "chen-cherry-2" or (method == "add-k" and smoothing.k == 1):
        found.append(
            Reading(
                Smoothing("lin-2004"),
                "add 1 to matches and totals of every order, unigrams included "
                "(NLTK's page: 'Add 1 to both numerator and denominator')",
            )
        )
    if method == "lin-2004":
        found.append(Reading(Smoothing("chen-cherry-2"), "add 1 to matches and totals of orders n > 1 only"))
    if method == "chen-cherry-7":
        found.append(Reading(Smoothing("chen-cherry-4", k=smoothing.k), "method 4 only"))
        found.append(Reading(Smoothing("chen-cherry-5"), "method 5 only"))
    if method == "floor":
        found.append(
            Reading(Smoothing("floor", value=Fraction(1, 10)), "the documented default value 0.1, not the given one")
        )
    if method == "exp":  # azure-ai-evaluation's "NIST Smoothing" is NLTK's method4
        found.append(Reading(Smoothing("chen-cherry-4"), "NLTK's method4 (k = 5) where NIST's geometric smoothing "
                                                         "is named"))
    if method == "chen-cherry-1" and smoothing.epsilon != Fraction(1, 10):
        found.append(Reading(Smoothing("chen-cherry-1"), "the documented default epsilon 0.1, not the given one"))
    if method != "none":
        found.append(Reading(Smoothing("none"), "the requested smoothing is not applied", ignores_request=True))
    default = profile_options.smoothing
    if default.method != method and default.method != "none":
        found.append(Reading(default, f"the profile's default smoothing {default.describe()} instead of the requested "
                                      "one", ignores_request=True))
    if method == "none":  # an implementation that smooths whatever it is asked (a hard-coded method)
        found.extend(Reading(s, f"{UNREQUESTED_WORDS}: {s.describe()}", ignores_request=True,
                             pairs_with_conventions=False) for s in UNREQUESTED if s != default)
    return [reading for reading in found if reading.smoothing != smoothing]


#: What the family says where no reading is named.
_FAMILY_WORDS = "another smoothing applied in place of the requested one (another reading of its documentation, or " \
                "the request ignored)"


def _words_of(name: str) -> str:
    return f"the smoothing {name.removeprefix(STEM)} applied in place of the requested one (another reading of its " \
           "documentation, or the request ignored)"


#: The smoothing stage's variants, the requested smoothing computed wrongly, in the order the classifier tries them:
#: (name, function of (context, result)), tried in the score stage's tier
#: (`mechanisms.computations.COMBINATION_COMPUTATIONS`).
SMOOTHING_VARIANTS: tuple[tuple[str, Callable], ...] = (
    ("chen-cherry-4-last-hypothesis", chen_cherry_4_last_hypothesis),
    ("chen-cherry-4-first-hypothesis", chen_cherry_4_first_hypothesis),
    ("chen-cherry-4-precedence", chen_cherry_4_precedence),
    ("chen-cherry-4-ratio-inverted", chen_cherry_4_ratio_inverted),
    ("smoothing-counter-from-zero", smoothing_counter_from_zero),
    ("smoothing-counter-is-order-index", smoothing_counter_is_order_index),
    ("smoothed-value-as-precision", smoothed_value_as_precision),
    ("epsilon-added-to-every-order", epsilon_added_to_every_order),
    ("add-one-every-order-epsilon-for-empty", add_one_every_order_epsilon_for_empty),
    ("smoothing-per-segment-summed", smoothing_per_segment_summed),
    ("mean-of-exp-smoothed-sentence-bleu", mean_of_exp_smoothed_sentence_bleu),
)

MECHANISMS = [
    Mechanism(STEM, SMOOTHING, _FAMILY_WORDS, SCORE | {"matches", "totals"}, RECOMPUTE,
              (Route("smoothing", readings, _FAMILY_WORDS),), family=True, words_of=_words_of),
    # each also tried as a computation in the score stage's tier, which adds its route; never with a convention, as
    # the score stage's variants are not
    *(Mechanism(name, SMOOTHING, docstring_words(function), SCORE, RECOMPUTE, pairs_with_conventions=False)
      for name, function in SMOOTHING_VARIANTS),
]

__all__ = ["MECHANISMS", "SMOOTHING_VARIANTS", "STEM", "UNREQUESTED", "UNREQUESTED_WORDS", "Reading", "readings"]
