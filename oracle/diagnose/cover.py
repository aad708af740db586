"""One bug, one name: the fewest explanations that together account for every failing record of a run.

Each failing record comes with the explanations that fit it (`Classification.name` and `.fits`: every
explanation of the first tier the classifier reached). One record's input often fits several (a tie
between two references fits both "the longer" and "the first listed"); a run's records together rarely
do. The run's causes are the smallest set of explanations such that every record is explained by one of
them, chosen greedily (an explanation that fits more of the records not yet explained first; on a tie,
the one records named first more often, then by name: deterministic). An explanation that fits exactly
the records its group holds as well as the chosen one is reported beside it ("fits: A or B"): the inputs
could not tell them apart, and the search should generate one that does.

    >>> [(c.name, c.records, c.alternatives) for c in minimal_cover({("longest", "closest-longer"): 78,
    ...                                                             ("closest-longer", "longest"): 20,
    ...                                                             ("longest",): 6})]
    [('longest', 104, ())]
    >>> [(c.name, c.alternatives) for c in minimal_cover({("a", "b"): 3})]
    [('a', ('b',))]
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass


@dataclass(frozen=True)
class RunCause:
    """One explanation of a run: the records it accounts for and the signatures (fitting names) they had."""

    name: str
    records: int
    #: explanations that fit every record of this group as well (the inputs could not tell them apart)
    alternatives: tuple[str, ...]
    #: the signatures (primary name first, then the others that fit) of the records it accounts for
    signatures: tuple[tuple[str, ...], ...]


def minimal_cover(signatures: Mapping[tuple[str, ...], int]) -> list[RunCause]:
    """The run's causes: `signatures` maps each record's fitting names (its primary name first) to the number
    of records with exactly those; the result covers every record, largest group first."""
    uncovered = {signature: count for signature, count in signatures.items() if signature and count > 0}
    primary: Counter[str] = Counter()
    for signature, count in uncovered.items():
        primary[signature[0]] += count
    causes = []
    while uncovered:
        reach: Counter[str] = Counter()
        for signature, count in uncovered.items():
            for name in set(signature):
                reach[name] += count
        name = min(reach, key=lambda n: (-reach[n], -primary[n], n))
        taken = tuple(sorted(s for s in uncovered if name in s))
        records = sum(uncovered.pop(s) for s in taken)
        common = set.intersection(*(set(s) for s in taken)) - {name}
        causes.append(RunCause(name, records, tuple(sorted(common)), taken))
    causes.sort(key=lambda c: (-c.records, c.name))
    return causes


__all__ = ["RunCause", "minimal_cover"]
