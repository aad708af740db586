"""The request's structure mis-shaped by its caller, and a text transformation applied to one side only: the
mechanisms of the `structure` kind, declared here in the order the search tries them (the order decides which
names a record where two fit), each computed from the request alone.

- `ONE_SIDE_FOLDS`: case folded in the references only or the hypothesis only, whatever the request asks (the
  folding, the how: `oracle.diagnose.oneside`). Found by the returned matches, as counting alternatives
  (`ONE_SIDE_COUNTINGS`, which `mechanisms.counting.COUNTING_ALTERNATIVES` takes whole after the case mechanisms),
  and by the score, as computations (`mechanisms.computations.GENERIC_COMPUTATIONS`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from oracle.diagnose.counting import MATCHES
from oracle.diagnose.oneside import one_side_folded_counts

from .model import RECOMPUTE, SCORE, STRUCTURE, Mechanism, Route

REFERENCES_ONLY = "case-folded-references-only"
HYPOTHESIS_ONLY = "case-folded-hypothesis-only"

#: name -> (what the code does, the side it folds: "references" or "hypothesis"), in the order they are tried
ONE_SIDE_FOLDS: dict[str, tuple[str, str]] = {
    REFERENCES_ONLY: (
        "case folded in the references only, whether the request folds both sides or neither: the hypothesis keeps "
        "its case, so a hypothesis token with a capital letter never matches",
        "references",
    ),
    HYPOTHESIS_ONLY: (
        "case folded in the hypothesis only, whether the request folds both sides or neither: the references keep "
        "their case, so a reference token with a capital letter is never matched",
        "hypothesis",
    ),
}

#: The one-side folds as counting alternatives, name -> (words, the layers they change, the counting), the shape of
#: `mechanisms.counting.COUNTING_ALTERNATIVES`' entries: folding one side changes the matches only.
Counting = Callable[[Sequence[Any], int, Any], dict[str, Any] | None]
ONE_SIDE_COUNTINGS: dict[str, tuple[str, frozenset[str], Counting]] = {
    name: (words, MATCHES, one_side_folded_counts(side)) for name, (words, side) in ONE_SIDE_FOLDS.items()
}

MECHANISMS = [
    *(Mechanism(name, STRUCTURE, words, layers | SCORE, RECOMPUTE, (Route("counting", count, words),))
      for name, (words, layers, count) in ONE_SIDE_COUNTINGS.items()),
]

__all__ = ["HYPOTHESIS_ONLY", "MECHANISMS", "ONE_SIDE_COUNTINGS", "ONE_SIDE_FOLDS", "REFERENCES_ONLY"]
