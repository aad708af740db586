"""One bug, one name: the fewest explanations that together account for every failing record of a run.

Each failing record comes with the explanations that fit it (`Classification.name` and `.fits`: every
explanation of the first tier the classifier reached). One record's input often fits several (a tie
between two references fits both "the longer" and "the first listed"); a run's records together rarely
do. The run's causes are the smallest set of explanations such that every record is explained by one of
them, chosen greedily (an explanation that fits more of the records not yet explained first; on a tie,
the one records named first more often, then by name: deterministic). An explanation that fits exactly
the records its group holds as well as the chosen one is reported beside it ("fits: A or B"): the inputs
could not tell them apart, and the search should generate one that does.

Some explanations are a numeric coincidence on one record more often than a bug: a state carried from an earlier
request (`earlier-answer-returned`, `exp-halvings-carried-over`) or float32 precision, each of which one number can
fit by chance (a stateless float64 implementation's wrong answer that equals another request's, or lies within
float32's precision, 2e-6 relative, of the oracle's). They name a run's records only with evidence: a pattern across
at least two records of the run, or a confirming probe (`confirmed`: the names a record carries with its probes'
confirmation). Without it they are left out of that record's signature, which keeps its next-best name, or, where it
has none, `unexplained`. The pattern is counted among the records no larger cause already accounts for: a name that
the main cause's records fit as well has no evidence from them for the others (a reference length of 2 reads as the
references cut to 2 tokens wherever the cut tokens matched nothing). Where only such names reproduce a record's
counts, what is known of them (`other-counting-of-<layer>`) stays among its fits (`oracle.diagnose.classify`), so
that a run whose other records it names covers that record by it, the narrower name shown as what the input fits
as well.

    >>> [(c.name, c.records) for c in minimal_cover({("float32",): 1, ("strict-clipping",): 3})]
    [('strict-clipping', 3), ('unexplained', 1)]
    >>> [(c.name, c.records) for c in minimal_cover({("float32",): 2})]
    [('float32', 2)]

    >>> [(c.name, c.records, c.alternatives) for c in minimal_cover({("longest", "closest-longer"): 78,
    ...                                                             ("closest-longer", "longest"): 20,
    ...                                                             ("longest",): 6})]
    [('longest', 104, ())]
    >>> [(c.name, c.alternatives) for c in minimal_cover({("a", "b"): 3})]
    [('a', ('b',))]
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from oracle.models.results import parse_cause

from .mechanisms import needs_evidence
from .mechanisms.combination import is_partial
from .mechanisms.counting import OTHER_COUNTING

#: Where a record's every name needs evidence it does not have (the classifier's own word).
UNEXPLAINED = "unexplained"
#: The records an explanation needing evidence must account for in a run without a confirming probe.
PATTERN_RECORDS = 2


@dataclass(frozen=True)
class RunCause:
    """One explanation of a run: the records it accounts for and the signatures (fitting names) they had."""

    name: str
    records: int
    #: explanations that fit every record of this group as well (the inputs could not tell them apart)
    alternatives: tuple[str, ...]
    #: the signatures (primary name first, then the others that fit) of the records it accounts for
    signatures: tuple[tuple[str, ...], ...]


def unsupported(signatures: Mapping[tuple[str, ...], int], confirmed: frozenset[str] = frozenset()) -> set[str]:
    """The names needing evidence that have none in this run: fewer than PATTERN_RECORDS records fit them, and no
    record's probe confirmed them."""
    reach: Counter[str] = Counter()
    for signature, count in signatures.items():
        for name in set(signature):
            reach[name] += count
    return {name for name in reach if needs_evidence(name) and name not in confirmed and reach[name] < PATTERN_RECORDS}


def states_what_is_known(name: str) -> bool:
    """Whether `name` says only what is known of a difference (every part `other-counting-of-<layer>` or a partial
    stage): true of every input whose numbers it describes, so no alternative to a mechanism's name ("fits: A or
    B" asks for an input that tells two mechanisms apart)."""
    return all(part.startswith(OTHER_COUNTING) or is_partial((part,)) for part in parse_cause(name))


def with_evidence(signature: Sequence[str], left_out: set[str]) -> tuple[str, ...]:
    """`signature` without the names of `left_out` (`unsupported`); (UNEXPLAINED,) where that leaves none."""
    kept = tuple(name for name in signature if name not in left_out)
    return kept or ((UNEXPLAINED,) if signature else ())


def minimal_cover(signatures: Mapping[tuple[str, ...], int], confirmed: frozenset[str] = frozenset()) -> list[RunCause]:
    """The run's causes: `signatures` maps each record's fitting names (its primary name first) to the number
    of records with exactly those; the result covers every record, largest group first. A name needing evidence
    (`needs_evidence`) that fewer than PATTERN_RECORDS records fit and no probe confirmed (`confirmed`) names no
    cause: its records are covered by their other names, or by UNEXPLAINED. That evidence is counted among the
    records no larger cause already accounts for: a name the main cause's records fit as well needs a pattern of its
    own to name the others. Each cause's `signatures` are the records' own (as given)."""
    remaining = {signature: count for signature, count in signatures.items() if signature and count > 0}
    everywhere = unsupported(remaining, confirmed)
    primary: Counter[str] = Counter()
    for signature, count in remaining.items():
        primary[with_evidence(signature, everywhere)[0]] += count
    causes = []
    while remaining:
        left_out = unsupported(remaining, confirmed)  # the evidence of the records not yet accounted for
        kept = {signature: with_evidence(signature, left_out) for signature in remaining}
        reach: Counter[str] = Counter()
        for signature, count in remaining.items():
            for name in set(kept[signature]):
                reach[name] += count
        name = min(reach, key=lambda n: (-reach[n], -primary[n], n))
        taken = tuple(sorted(s for s in remaining if name in kept[s]))
        records = sum(remaining.pop(s) for s in taken)
        common = set.intersection(*(set(kept[s]) for s in taken)) - {name}
        if not states_what_is_known(name):
            common = {other for other in common if not states_what_is_known(other)}
        causes.append(RunCause(name, records, tuple(sorted(common)), taken))
    causes.sort(key=lambda c: (-c.records, c.name))
    return causes


def run_name_of(signature: Sequence[str], run_names: Sequence[str]) -> str:
    """The run's name for a record whose fitting explanations are `signature` (its own name first, a record's
    `Classification.signature`): the first of the run's causes among them (one bug, one name), else its own name;
    UNEXPLAINED where each of its names needs evidence the run did not give it (`minimal_cover` left them out)."""
    named = next((name for name in run_names if name in signature), None)
    if named is not None:
        return named
    if UNEXPLAINED in run_names and signature and all(map(needs_evidence, signature)):
        return UNEXPLAINED
    return signature[0]


__all__ = ["PATTERN_RECORDS", "RunCause", "minimal_cover", "needs_evidence", "run_name_of", "states_what_is_known",
           "unsupported", "with_evidence"]
