"""The catalogue of mechanisms: every root cause the diagnosis can name, with its kind, description, layers, cost
and routes, declared once (`CATALOGUE`) and looked up by name (`lookup`, `describe`, `describe_parts`,
`described_together`, `known_names`).

Each kind has its module, where its mechanisms are declared and the search reads them, in the order it tries them
(the modules whose functions compute them hold the how, and never import the catalogue): `conventions` (the rule
tables, and `alternatives`, the one generator of the conventions' other rules), `smoothing`, `counting` (the
counting alternatives and capped families), `text` (the tokenizer departures), `structure` (the request's structure
mis-shaped, a text transformation on one side only), `state` (a metric state's departures, a process's history),
`combination` (the score stage's variants and partial names), `computations` (every computation the search tries,
in its tiers, whatever module defines its function) and `errors`. A name belongs to one kind: where several of the
search's lists hold it (a tokenizer departure or a stage's variant is also tried as a computation), the kind module
that declares it claims it and the others add their routes. docs/mechanisms.md says how a mechanism is added.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import replace

from oracle.diagnose.countfit import is_fitted as is_fitted_counting

from . import combination, computations, conventions, counting, errors, smoothing, state, structure, text
from .computations import COMPUTATIONS
from .counting import OTHER_COUNTING
from .model import COMPUTATION, KINDS, STATE, STRUCTURE, Mechanism, Route

#: The kind modules, the more specific first: a name several of the search's lists hold is claimed by the first
#: that declares it.
_DECLARING = (conventions, smoothing, text, state, structure, counting, errors, combination, computations)


class CatalogueError(ValueError):
    """The catalogue's declarations contradict each other (a bug in a kind module, found when it is imported)."""


def _build() -> dict[str, Mechanism]:
    catalogue: dict[str, Mechanism] = {}
    for module in _DECLARING:
        for mechanism in module.MECHANISMS:
            if mechanism.name in catalogue:
                raise CatalogueError(f"mechanism {mechanism.name!r} is declared as {catalogue[mechanism.name].kind} "
                                     f"and as {mechanism.kind}: a name has one kind")
            catalogue[mechanism.name] = mechanism
    for name, function in COMPUTATIONS:
        if name not in catalogue:  # a computation no other kind claims: described by its docstring
            catalogue[name] = computations.computation_mechanism(name, function)
    routes = [*((name, computations.computation_route(name, function)) for name, function in COMPUTATIONS),
              *state.ROUTES, *computations.ROUTES]
    for name, route in routes:
        mechanism = catalogue[name]
        if mechanism.route(route.via) is None:
            catalogue[name] = replace(mechanism, routes=(*mechanism.routes, route))
    # a mechanism that is also a computation is described as the computation (its docstring), as reports showed it
    return {name: replace(m, description=m.words("computation")) if m.route("computation") else m
            for name, m in catalogue.items()}


#: name -> Mechanism: every name the diagnosis gives (a family by its stem).
CATALOGUE = _build()
_FAMILIES = tuple(m for m in CATALOGUE.values() if m.family)


def lookup(name: str) -> Mechanism | None:
    """The mechanism `name` names (a single name, not 'a + b'): its own entry, or its family's; None if none."""
    found = CATALOGUE.get(name)
    if found is not None and not found.family:
        return found
    return next((family for family in _FAMILIES if name.startswith(family.name) and name != family.name), None)


def describe(name: str) -> str | None:
    """What a single mechanism's name means in words (None for a name the catalogue does not hold)."""
    mechanism = lookup(name)
    return None if mechanism is None else mechanism.describe(name)


def describe_parts(parts: Iterable[str]) -> str:
    """What an explanation made of `parts` (its mechanisms' names, in order) means in words: each part's description
    (`describe`: a computation's docstring, a counting alternative's words, a convention's rule, an error cause's input
    features), else the part itself, joined by '; and '."""
    return "; and ".join(describe(part) or part for part in parts)


def described_together(parts: tuple[str, ...], descriptions: Sequence[str]) -> str:
    """What a group of records one cause (`parts`) names says of them all, from the words each record named first by
    it gave it (`descriptions`, the smallest's first): the smallest's, as for every cause, but for what is known of
    the counts alone (every part `other-counting-of-<layer>`), whose records' words differ in what they say of the
    score (the returned counts, scored, give the answer, `classify._from_returned_counts`; the score agrees beside
    them, `classify._counts_differ_known`; the judged formulas have no score for them, `classify._what_is_known`):
    where they differ, the catalogue's words (`describe_parts`), which say that the counts differ and nothing of the
    score, so that no record of the group is told more than is known of it."""
    first, *rest = descriptions
    if counts_known_only(parts) and any(other != first for other in rest):
        return describe_parts(parts)
    return first


def counts_known_only(parts: Iterable[str]) -> bool:
    """Whether a cause says only what is known of the counts (every part `other-counting-of-<layer>`): the causes
    whose records' own words `described_together` reads."""
    return all(part.startswith(OTHER_COUNTING) for part in parts)


def of_kind(*kinds: str) -> tuple[Mechanism, ...]:
    """The catalogue's mechanisms of `kinds`, in declaration order."""
    unknown = set(kinds) - set(KINDS)
    if unknown:
        raise CatalogueError(f"unknown kind(s) {sorted(unknown)}; kinds are {KINDS}")
    return tuple(m for m in CATALOGUE.values() if m.kind in kinds)


def known_names() -> tuple[str, ...]:
    """Every single name the classifier gives as a ("computation", name) change: the declared computations, float32,
    smoothed counts, small weights and the counting alternatives (conventions are `field=value` option changes, the
    smoothing readings `smoothing=...`, a process's history and error causes no change the oracle replays).

    Kept per catalogue (the catalogue and the computations as they are: their objects and sizes, so a catalogue
    replaced or grown is read afresh): every replay of an explanation checks its computations' names here (1.5 ms a
    reading of the catalogue, of 274 mechanisms when it was measured; 130 in one failing run's probes, told apart:
    benchmarks/README.md, shrink-cost)."""
    key = (id(CATALOGUE), len(CATALOGUE), id(COMPUTATIONS), len(COMPUTATIONS))
    kept = _KNOWN_NAMES.get(key)
    if kept is None:
        _KNOWN_NAMES.clear()
        kept = _KNOWN_NAMES[key] = known_names_afresh()
    return kept


def known_names_afresh() -> tuple[str, ...]:
    """`known_names` read from the catalogue now (what the kept names are held equal to)."""
    return tuple(dict.fromkeys((*(name for name, _ in COMPUTATIONS),
                                *(m.name for m in CATALOGUE.values() if _replayed(m)))))


_KNOWN_NAMES: dict[tuple[int, int, int, int], tuple[str, ...]] = {}


def _replayed(mechanism: Mechanism) -> bool:
    if mechanism.name in combination.WHAT_IS_KNOWN:  # a stage the answer is consistent with: no value to replay
        return False
    return not mechanism.family and (mechanism.kind == COMPUTATION or mechanism.route("counting") is not None)


def needs_evidence(parts: tuple[str, ...]) -> bool:
    """Whether a root cause (its parts: any of them) is a mechanism that names a run's records only
    with evidence, a pattern across records or a confirming probe (`Mechanism.needs_evidence`, read by
    `oracle.diagnose.cover`): a state carried from an earlier request or float32 precision, which one wrong number can
    fit by chance; a batch mean's size, a cap on one side's lengths, searched for, which one record can fit by the
    choice; one segment's length for the corpus's. A family's member counts only where well formed (a cap is a
    positive integer: `mechanisms.counting.parse_capped`; a fitted parameter's name is read back by
    `mechanisms.combination.is_fitted`; a fitted counting is one of the grammar's expressions:
    `oracle.diagnose.countfit.is_fitted`). And a structure read as what is known
    (`_structure_as_what_is_known`)."""
    return any(_needs_evidence(part) for part in parts) or _structure_as_what_is_known(parts)


def _structure_as_what_is_known(parts: tuple[str, ...]) -> bool:
    """Whether `parts` are a structural mechanism with a partial stage (`<structure> + <stage>`: a record nothing
    reproduces whose returned counts are exactly the request as that structure shapes it,
    `classify._structure_of_returned_counts`). One record's counts can equal any shape the search computed by
    chance, and the score follows from none: the shape names a run's records only with a pattern across them (issue
    36: never a coincidental fit on one record); each such record keeps the layer's reading among its fits."""
    return combination.is_partial(parts) and any(
        (mechanism := lookup(part)) is not None and mechanism.kind == STRUCTURE for part in parts)


def _needs_evidence(part: str) -> bool:
    mechanism = lookup(part)
    if mechanism is None or not mechanism.needs_evidence:
        return False
    return not mechanism.family or counting.parse_capped(part) is not None or combination.is_fitted(part) \
        or is_fitted_counting(part)


def process_state_names() -> tuple[str, ...]:
    """The names of a process's state between requests: the `state` mechanisms found in the process's history (route
    `state.HISTORY`), not a metric's state over one planned request. Each is named only where the order of two
    requests changed an answer (`oracle.diagnose.stale.ORDER_PROBED`, which has one entry for each of these)."""
    return tuple(m.name for m in of_kind(STATE) if m.route(state.HISTORY) is not None)


def names(mechanisms: Iterable[Mechanism]) -> tuple[str, ...]:
    return tuple(m.name for m in mechanisms)


__all__ = ["CATALOGUE", "CatalogueError", "Mechanism", "Route", "describe", "describe_parts", "described_together",
           "counts_known_only", "known_names", "lookup", "names", "needs_evidence", "of_kind", "process_state_names"]
