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

A record's names are its causes' parts (`Classification.parts` and `fit_parts`), as the models read them; a run
cause's `name` and `alternatives` are their written forms, joined where they are written (and, where two causes
tie, compared as written: the order the run's names were always given in).

    >>> [(c.name, c.records) for c in minimal_cover({(("float32",),): 1, (("strict-clipping",),): 3})]
    [('strict-clipping', 3), ('unexplained', 1)]
    >>> [(c.name, c.records) for c in minimal_cover({(("float32",),): 2})]
    [('float32', 2)]

    >>> [(c.name, c.records, c.alternatives) for c in minimal_cover({(("longest",), ("closest-longer",)): 78,
    ...                                                             (("closest-longer",), ("longest",)): 20,
    ...                                                             (("longest",),): 6})]
    [('longest', 104, ())]
    >>> [(c.name, c.alternatives) for c in minimal_cover({(("a", "float32"), ("b",)): 3})]
    [('a + float32', ('b',))]
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from oracle.models.outcomes import Outcome
from oracle.models.results import WithAlternatives, cause_name

from .countfit import FITTED, is_fitted
from .mechanisms import needs_evidence
from .mechanisms.combination import is_partial
from .mechanisms.counting import OTHER_COUNTING, covers_its_parts

#: Where a record's every name needs evidence it does not have (the classifier's own word).
UNEXPLAINED = "unexplained"
#: The cause of such a record, as its parts.
UNEXPLAINED_CAUSE = (UNEXPLAINED,)
#: A protocol error's pseudo-class: what is known of a record whose reply broke protocol v1 (its fits beside it, where
#: its counts were written as numbers: `classify.numeric_fits`).
PROTOCOL_ERROR = Outcome.PROTOCOL_ERROR.value
#: The records an explanation needing evidence must account for in a run without a confirming probe.
PATTERN_RECORDS = 2

#: A cause: the mechanisms its name joins (`Classification.parts`).
Cause = tuple[str, ...]
#: A record's fitting causes, its own first (`Classification.signature_parts`).
Signature = tuple[Cause, ...]
#: Among equals: given a tie's causes (the one chosen first, then those that fit its records as well) and the
#: signatures of the records they all fit, the causes not ruled out, in the order given (`oracle.diagnose.equals`).
AmongEquals = Callable[[tuple[Cause, ...], tuple[Signature, ...]], tuple[Cause, ...]]


@dataclass(frozen=True)
class RunCause(WithAlternatives):
    """One explanation of a run: the records it accounts for and the signatures (fitting causes) they had."""

    parts: Cause
    records: int
    #: explanations that fit every record of this group as well (the inputs could not tell them apart)
    alternative_parts: tuple[Cause, ...]
    #: the signatures (primary cause first, then the others that fit) of the records it accounts for
    signatures: tuple[Signature, ...]


def _signature_order(signature: Signature) -> tuple[str, ...]:
    return tuple(map(cause_name, signature))


def unsupported(signatures: Mapping[Signature, int], confirmed: frozenset[Cause] = frozenset()) -> set[Cause]:
    """The causes needing evidence that have none in this run: fewer than PATTERN_RECORDS records fit them, and no
    record's probe confirmed them."""
    reach: Counter[Cause] = Counter()
    for signature, count in signatures.items():
        for cause in set(signature):
            reach[cause] += count
    return {cause for cause in reach
            if needs_evidence(cause) and cause not in confirmed and reach[cause] < PATTERN_RECORDS}


def states_what_is_known(parts: Cause) -> bool:
    """Whether a cause (its parts) says only what is known of a difference (every part `other-counting-of-<layer>`
    or a partial stage, or a fitted counting, `oracle.diagnose.countfit`: what is known of the counts, more narrowly):
    true of every input whose numbers it describes, so no alternative to a mechanism's name ("fits: A or B" asks for an
    input that tells two mechanisms apart)."""
    return all(part.startswith(OTHER_COUNTING) or is_partial((part,)) or is_fitted(part) for part in parts)


def with_evidence(signature: Sequence[Cause], left_out: set[Cause]) -> Signature:
    """`signature` without the causes of `left_out` (`unsupported`); (UNEXPLAINED_CAUSE,) where that leaves none."""
    kept = tuple(cause for cause in signature if cause not in left_out)
    return kept or ((UNEXPLAINED_CAUSE,) if signature else ())


def joined_pairs(kept: Mapping[Signature, Signature], counts: Mapping[Signature, int]) -> set[Cause]:
    """The pairs of two stages (`mechanisms.counting.covers_its_parts`: a length reading with a clipping) that at least
    PATTERN_RECORDS of the run's records fit as pairs: such a pair accounts for the records either of its parts
    names alone as well (one implementation with both stages wrong shows one of them where the other changes nothing
    on a record), and only with records of its own, both stages seen at once."""
    reach: Counter[Cause] = Counter()
    for signature, causes in kept.items():
        for cause in set(causes):
            if covers_its_parts(cause):
                reach[cause] += counts[signature]
    return {cause for cause, records in reach.items() if records >= PATTERN_RECORDS}


def reachable(causes: Sequence[Cause], pairs: set[Cause]) -> set[Cause]:
    """A record's causes, with the `joined_pairs` one of whose parts is among them alone."""
    singles = {cause[0] for cause in causes if len(cause) == 1}
    return set(causes) | {pair for pair in pairs if singles.intersection(pair)}


def minimal_cover(signatures: Mapping[Signature, int], confirmed: frozenset[Cause] = frozenset(),
                  among_equals: AmongEquals | None = None) -> list[RunCause]:
    """The run's causes: `signatures` maps each record's fitting causes (its primary cause first) to the number
    of records with exactly those; the result covers every record, largest group first. A cause needing evidence
    (`needs_evidence`) that fewer than PATTERN_RECORDS records fit and no probe confirmed (`confirmed`) names no
    cause: its records are covered by their other causes, or by UNEXPLAINED. That evidence is counted among the
    records no larger cause already accounts for: a cause the main cause's records fit as well needs a pattern of its
    own to name the others. Each cause's `signatures` are the records' own (as given). `among_equals`: where causes
    tie (the chosen one has alternatives), those it rules out are dropped from the tie and the first left is chosen
    (every cause of a tie fits exactly the same records, so no record moves to another group); it never leaves
    none (`settled`)."""
    remaining = {signature: count for signature, count in signatures.items() if signature and count > 0}
    everywhere = unsupported(remaining, confirmed)
    primary: Counter[Cause] = Counter()
    for signature, count in remaining.items():
        primary[with_evidence(signature, everywhere)[0]] += count
    causes = []
    while remaining:
        left_out = unsupported(remaining, confirmed)  # the evidence of the records not yet accounted for
        kept = {signature: with_evidence(signature, left_out) for signature in remaining}
        pairs = joined_pairs(kept, remaining)
        fitting = {signature: reachable(kept[signature], pairs) for signature in remaining}
        reach: Counter[Cause] = Counter()
        for signature, count in remaining.items():
            for cause in fitting[signature]:
                reach[cause] += count
        chosen = min(reach, key=lambda c: (-reach[c], -primary[c], cause_name(c)))
        chosen = _fitted_over_known(chosen, reach, primary)
        taken = tuple(sorted((s for s in remaining if chosen in fitting[s]), key=_signature_order))
        records = sum(remaining.pop(s) for s in taken)
        common = set.intersection(*(fitting[s] for s in taken)) - {chosen}
        if not states_what_is_known(chosen):
            common = {other for other in common if not states_what_is_known(other)}
        alternatives = tuple(sorted(common, key=cause_name))
        if alternatives and among_equals is not None:
            tie = settled((chosen, *alternatives), among_equals((chosen, *alternatives), taken))
            if chosen not in tie:  # (the one chosen stays, where it is kept: a fit chosen over what is known too)
                chosen = min(tie, key=lambda c: (-primary[c], cause_name(c)))
            alternatives = tuple(sorted((other for other in tie if other != chosen
                                         and (states_what_is_known(chosen) or not states_what_is_known(other))),
                                        key=cause_name))
        causes.append(RunCause(chosen, records, alternatives, taken))
    causes.sort(key=lambda c: (-c.records, c.name))
    return causes


def settled(tied: tuple[Cause, ...], kept: Sequence[Cause]) -> tuple[Cause, ...]:
    """A tie's causes after `among_equals` kept `kept` of them: those kept, in the tie's order (the one chosen
    first); the whole tie where it kept none (a tie is never left without a name).

    >>> settled((("a",), ("b",), ("c",)), [("c",), ("b",)])
    (('b',), ('c',))
    >>> settled((("a",), ("b",)), [])
    (('a',), ('b',))
    """
    survivors = tuple(cause for cause in tied if cause in set(kept))
    return survivors or tied


def _fitted_over_known(chosen: Cause, reach: Mapping[Cause, int], primary: Mapping[Cause, int]) -> Cause:
    """`chosen`, or where it is what is known of one layer's counts (`other-counting-of-<layer>`), the fitted counting
    of that layer (`oracle.diagnose.countfit`: an expression of the counting grammar, exact on every field that
    differs) that more than half the records it reaches fit, PATTERN_RECORDS at least (`reach`, counted among the
    records no larger cause accounts for, the unsupported left out): the pattern across records a fitted name needs.
    What is known covers every record a fit covers (it is a fitted record's own name, the fits beside it: `classify
    ._with_what_is_known`), so the greedy reach alone never names a fit; the records the fit leaves keep what is known,
    a cause of their own. A run without a fitted record is covered as before."""
    if chosen == (PROTOCOL_ERROR,):  # (its fits: counts written as numbers, fitted by true divisions)
        stem = ""
    elif len(chosen) == 1 and chosen[0].startswith(OTHER_COUNTING):
        stem = f"{chosen[0].removeprefix(OTHER_COUNTING)}{FITTED}"
    else:
        return chosen
    fitted = [cause for cause in reach if all(map(is_fitted, cause)) and any(part.startswith(stem) for part in cause)
              and reach[cause] >= PATTERN_RECORDS and 2 * reach[cause] > reach[chosen]]
    return min(fitted, key=lambda c: (-reach[c], -primary[c], cause_name(c)), default=chosen)


def run_name_of(signature: Sequence[Cause], run_causes: Sequence[Cause]) -> Cause:
    """The run's cause for a record whose fitting causes are `signature` (its own first, a record's
    `Classification.signature_parts`): the first of the run's causes among them (one bug, one name), else its own;
    UNEXPLAINED_CAUSE where each of them needs evidence the run did not give it (`minimal_cover` left them out)."""
    named = next((cause for cause in run_causes
                  if cause in signature or covers_its_parts(cause) and any((part,) in signature for part in cause)),
                 None)
    if named is not None:
        return named
    if UNEXPLAINED_CAUSE in run_causes and signature and all(map(needs_evidence, signature)):
        return UNEXPLAINED_CAUSE
    return signature[0]


__all__ = ["PATTERN_RECORDS", "UNEXPLAINED_CAUSE", "AmongEquals", "Cause", "RunCause", "Signature", "joined_pairs",
           "minimal_cover", "needs_evidence", "reachable", "run_name_of", "settled", "states_what_is_known",
           "unsupported", "with_evidence"]
