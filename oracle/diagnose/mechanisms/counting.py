"""Counting alternatives (`oracle.diagnose.counting.COUNTING_ALTERNATIVES`): other ways of counting c, r, matches and
totals, recognised by statistics an implementation returns exactly; and `other-counting-of-<layer>`, the family
named where the implementation's own counts, scored by the formulas, give its answer and no alternative gives them."""

from __future__ import annotations

from collections.abc import Callable

from oracle.diagnose.counting import CAPPED_SIDES, COUNTING_ALTERNATIVES
from oracle.models.results import NEEDS_EVIDENCE

from .model import COUNT_LAYERS, COUNTING, RECOMPUTE, SCORE, Mechanism, Route

#: Every name of counting the classifier has no model of starts so, the layer that differs after it.
OTHER_COUNTING = "other-counting-of-"


def other_counting_words(layer: str) -> str:
    """What `other-counting-of-<layer>` says (a record's own words: `classify._from_returned_counts`)."""
    return (f"the implementation's own statistics, scored by the judged profile's formulas, give its answer: it "
            f"counts {layer} differently from section 2.1, in a way no known counting alternative reproduces")


def capped_words(stem: str, words: str) -> Callable[[str], str]:
    """The words of a capped family's member: its family's, the cap read from the name."""
    return lambda name: words.format(cap=name.removeprefix(stem).removesuffix("-tokens"))


MECHANISMS = [
    *(Mechanism(name, COUNTING, description, layers | SCORE, RECOMPUTE, (Route("counting", count, description),),
                needs_evidence=name in NEEDS_EVIDENCE)
      for name, (description, layers, count) in COUNTING_ALTERNATIVES.items()),
    # a cap found from the returned counts: one record can fit one cap by the choice of cap (`needs_evidence`)
    *(Mechanism(stem, COUNTING, words.format(cap="<N>"), COUNT_LAYERS | SCORE, RECOMPUTE,
                (Route("counting", None, words.format(cap="<N>")),), family=True, needs_evidence=True,
                words_of=capped_words(stem, words))
      for stem, (_, words) in CAPPED_SIDES.items()),
    Mechanism(OTHER_COUNTING, COUNTING, other_counting_words("<layer>"), COUNT_LAYERS | SCORE, RECOMPUTE,
              (Route("statistics", None, other_counting_words("<layer>")),), family=True,
              words_of=lambda name: other_counting_words(name.removeprefix(OTHER_COUNTING))),
]

__all__ = ["MECHANISMS", "OTHER_COUNTING", "capped_words", "other_counting_words"]
