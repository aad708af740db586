"""Metamorphic relations: pairs of inputs that must score the same under every convention.

Corpus BLEU sums statistics over segments and takes, per segment, the maximum
count over references and a reference length by length alone; so, whatever a
profile says:

- `segments-permuted`: the segments in reverse order score the same;
- `references-permuted`: each segment's references in reverse order score the
  same (not under the `closest-first` reference-length rule, which breaks ties
  by position: the relation is left out there);
- `reference-duplicated`: each segment's first reference repeated scores the same;
- `shards-summed`: the statistics of the two halves of a corpus add up to the
  whole's (for an implementation that returns statistics).

The session checks one relation on some passing examples, comparing the
implementation with itself, so a bug shows even where the oracle's profile is
not the implementation's, or where the difference is within the tolerance.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from oracle.models.protocol import ScoreRequest, Segment, Statistics

RELATIONS = {
    "segments-permuted": "the corpus's segments in reverse order",
    "references-permuted": "every segment's references in reverse order",
    "reference-duplicated": "every segment's first reference given twice",
    "shards-summed": "the corpus in two halves, their statistics added",
}


def applicable(request: ScoreRequest, *, reference_length: str = "closest", statistics: bool = False) -> list[str]:
    """The relations that say something about `request` (names from RELATIONS, in order)."""
    corpus = request.level == "corpus" and len(request.segments) >= 2
    out = []
    if corpus and len(set(request.segments)) > 1:
        out.append("segments-permuted")
    if reference_length != "closest-first" and any(len(set(s.references)) > 1 for s in request.segments):
        out.append("references-permuted")
    out.append("reference-duplicated")  # every segment gains one: the same number in each stays the same
    if corpus and statistics:
        out.append("shards-summed")
    return out


def transformed(request: ScoreRequest, relation: str) -> tuple[ScoreRequest, ...]:
    """The related input(s) of `request` under `relation`: a tuple of requests."""
    segments = request.segments
    if relation == "segments-permuted":
        return (request.model_copy(update={"segments": tuple(reversed(segments))}),)
    if relation == "references-permuted":
        return (_map_segments(request, lambda s: Segment(hypothesis=s.hypothesis,
                                                         references=tuple(reversed(s.references)))),)
    if relation == "reference-duplicated":
        return (_map_segments(request, lambda s: Segment(hypothesis=s.hypothesis,
                                                         references=(s.references[0], *s.references))),)
    if relation == "shards-summed":
        half = len(segments) // 2
        return (request.model_copy(update={"segments": segments[:half]}),
                request.model_copy(update={"segments": segments[half:]}))
    raise KeyError(relation)


def _map_segments(request: ScoreRequest, change: Callable[[Segment], Segment]) -> ScoreRequest:
    return request.model_copy(update={"segments": tuple(change(s) for s in request.segments)})


def summed_statistics(parts: Sequence[Statistics | None]) -> Statistics | None:
    """The sum of the parts' statistics (hyp_len, ref_len, matches, totals; no BP), or None if one has none.
    (Not validated again: two counts within the bound may add up past it, and the sum is only compared.)"""
    present = [p for p in parts if p is not None]
    if not parts or len(present) != len(parts):
        return None
    return Statistics.model_construct(
        hyp_len=sum(p.hyp_len for p in present), ref_len=sum(p.ref_len for p in present),
        matches=tuple(sum(col) for col in zip(*(p.matches for p in present), strict=False)),
        totals=tuple(sum(col) for col in zip(*(p.totals for p in present), strict=False)), bp=None)
