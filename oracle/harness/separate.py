"""Telling apart explanations that fit the same shrunk input: a related input on which they predict different
answers, sent to the implementation once.

A shrunk input is small by construction, and a small input often fits several explanations (a tie between
two references fits "the first listed" and "the longer"; a hypothesis holding no entity fits an entity rule
left out on every line and on the references only). Issue 24: one bug gets one name, and where the inputs
cannot tell two apart the search generates one that does. The variants here are small, deterministic edits
of the shrunk input (a token repeated or added, a reference added or reordered, a segment repeated, case
changed); the first on which the candidates' values (`oracle.diagnose.classify.explained_value`) differ
beyond the contract is sent, and the candidates that do not explain the answer are ruled out. At most
`MAX_VARIANTS` variants are tried for each of at most `SEPARATING_REQUESTS` requests: a bounded,
deterministic cost.

A metric state's name (`STATE_NAMES`: lengths an update, a merge or a reset keeps otherwise) is a claim that the
implementation carries state from one step of a plan to the next. Where a stateless explanation fits the same
record's numbers (a shrunk input whose hypotheses are all empty fits "the last segment dropped" and "each update
assigns its lengths" alike), the record is no evidence of the state: `state_told_apart` sends a related input on
which the state predicts an answer no fitting stateless explanation gives, and the state stays among the record's
fits only where the implementation answers as it predicts (issue 36: no state accusation on a stateless
implementation).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

from oracle.diagnose.classify import (
    classify,
    explained_value,
    state_answer,
    value_read_as_the_oracle,
    within_contract,
)
from oracle.diagnose.cover import states_what_is_known
from oracle.diagnose.expect import ORACLE_REFUSALS
from oracle.diagnose.mechanisms.state import LENGTH_DEPARTURES
from oracle.models.protocol import Capabilities, ScoreRequest, Segment

from .requests import not_applicable_reason

#: Variants of a shrunk input tried for one that tells its explanations apart (each costs the oracle only).
MAX_VARIANTS = 24
#: Related inputs sent for one shrunk record at most (each tells some of its explanations apart).
SEPARATING_REQUESTS = 3
#: A token no generated input holds, for a variant that adds one.
NEW_TOKEN = "zq"


def _segments(request: ScoreRequest, index: int, segment: Segment) -> tuple[Segment, ...]:
    segments = list(request.segments)
    segments[index] = segment
    return tuple(segments)


def _token_edits(tokens: Any) -> Iterator[Any]:
    """A sequence with its first token repeated, a new token added, and its first token left out."""
    if isinstance(tokens, str):  # raw text: the same edits on its words
        words = tokens.split(" ")
        for edited in _token_edits(tuple(words)):
            yield " ".join(edited)
        return
    tokens = tuple(tokens)
    if tokens:
        yield (tokens[0], *tokens)
    yield (*tokens, NEW_TOKEN)
    if tokens:
        yield tokens[1:]


def variants(request: ScoreRequest) -> Iterator[ScoreRequest]:
    """Small edits of `request`, in a fixed order."""
    if request.level == "corpus" and request.segments:
        yield request.model_copy(update={"segments": (*request.segments, request.segments[0])})
    for index, segment in enumerate(request.segments):
        for hypothesis in _token_edits(segment.hypothesis):
            yield request.model_copy(update={"segments": _segments(
                request, index, Segment(hypothesis=hypothesis, references=segment.references))})
        for position, reference in enumerate(segment.references):
            for edited in _token_edits(reference):
                references = list(segment.references)
                references[position] = edited
                yield request.model_copy(update={"segments": _segments(
                    request, index, Segment(hypothesis=segment.hypothesis, references=tuple(references)))})
        added = (*segment.references, segment.hypothesis)
        yield request.model_copy(update={"segments": _segments(
            request, index, Segment(hypothesis=segment.hypothesis, references=added))})
        if len(segment.references) > 1:
            yield request.model_copy(update={"segments": _segments(
                request, index, Segment(hypothesis=segment.hypothesis, references=segment.references[::-1]))})
    yield request.model_copy(update={"lowercase": not request.lowercase})


#: A candidate explanation: its mechanisms (`Classification.parts`, `fit_parts`).
Candidate = tuple[str, ...]


def _changes(request: ScoreRequest, answer: Any, profile: str, candidates: tuple[Candidate, ...],
             overrides: Any) -> dict[Candidate, Any]:
    """Each candidate's explanation change on the shrunk input (those classify still finds there)."""
    out = {}
    for parts in candidates:
        explanation = classify(request, answer, profile, overrides=overrides, among=parts)
        if explanation.parts == parts:
            out[parts] = explanation.change
    return out


def _predictions(variant: ScoreRequest, profile: str, changes: dict[Candidate, Any],
                 overrides: Any) -> dict[Candidate, float]:
    out = {}
    for parts, change in changes.items():
        try:
            value = explained_value(variant, profile, change, overrides=overrides)
            if value is None:  # a structural mechanism reading the variant as the oracle does predicts its answer
                value = value_read_as_the_oracle(variant, profile, parts, overrides=overrides)
        except ORACLE_REFUSALS:
            continue
        if value is not None:
            out[parts] = value
    return out


def _splits(predictions: dict[Candidate, float]) -> bool:
    values = list(predictions.values())
    return len(values) > 1 and any(not within_contract(v, values[0]) for v in values[1:])


def separating_variant(request: ScoreRequest, answer: Any, profile: str, candidates: tuple[Candidate, ...],
                       capabilities: Capabilities, *, overrides: Any = None
                       ) -> tuple[ScoreRequest, dict[Candidate, float]] | None:
    """The first variant of `request` the implementation can be asked (`capabilities`) on which the `candidates`
    (each fitting `answer` on `request`) predict different values, with their predictions; None."""
    changes = _changes(request, answer, profile, candidates, overrides)
    if len(changes) < 2:
        return None
    for tried, variant in enumerate(variants(request)):
        if tried >= MAX_VARIANTS:
            return None
        if not_applicable_reason(variant, capabilities) is not None:
            continue
        predictions = _predictions(variant, profile, changes, overrides)
        if len(predictions) == len(changes) and _splits(predictions):
            return variant, predictions
    return None


def told_apart(request: ScoreRequest, answer: Any, profile: str, candidates: tuple[Candidate, ...],
               capabilities: Capabilities, ask: Callable[[ScoreRequest], Any], *, overrides: Any = None
               ) -> tuple[tuple[Candidate, ...], ScoreRequest] | None:
    """The `candidates` that explain the implementation's answer (`ask(variant)`: its score, or None)
    to a variant on which they differ, with that variant; None where no variant tells them apart or the
    answer fits none of them (another mechanism then: the candidates stand as they are)."""
    found = separating_variant(request, answer, profile, candidates, capabilities, overrides=overrides)
    if found is None:
        return None
    variant, predictions = found
    score = ask(variant)
    if score is None:
        return None
    kept = tuple(parts for parts in candidates
                 if parts in predictions and within_contract(score, predictions[parts]))
    return (kept, variant) if kept else None


#: Metric-state mechanisms a record's returned statistics can fit (`classify._by_state`) that claim the
#: implementation carries state between a plan's steps (`state_told_apart`).
STATE_NAMES = frozenset(LENGTH_DEPARTURES)


def is_state(parts: Candidate) -> bool:
    """Whether an explanation (its parts) is one metric state alone (`STATE_NAMES`)."""
    return len(parts) == 1 and parts[0] in STATE_NAMES


def _with_token(tokens: Any) -> Any:
    """`tokens` with NEW_TOKEN appended (raw text: as a last word)."""
    if isinstance(tokens, str):
        return f"{tokens} {NEW_TOKEN}" if tokens else NEW_TOKEN
    return (*tokens, NEW_TOKEN)


def _matched(request: ScoreRequest) -> Iterator[ScoreRequest]:
    """`request` with one segment, each in turn, given a matching token: NEW_TOKEN appended to its hypothesis and
    to each of its references (a segment emptied by shrinking then counts, in its batch, with a match)."""
    for index, segment in enumerate(request.segments):
        yield request.model_copy(update={"segments": _segments(request, index, Segment(
            hypothesis=_with_token(segment.hypothesis),
            references=tuple(_with_token(reference) for reference in segment.references)))})


def _replanned(request: ScoreRequest) -> Iterator[ScoreRequest]:
    """`request` under other plans of the same shards: every batch one segment, then each shard's batches in the
    reverse order (a stateless explanation reads the segments alike under any plan; a state does not)."""
    plan = request.stateful
    if plan is None:
        return
    singles = tuple((1,) * sum(batches) for batches in plan.shards)
    for shards in dict.fromkeys((singles, tuple(batches[::-1] for batches in plan.shards))):
        if shards != plan.shards:
            yield request.model_copy(update={"stateful": plan.model_copy(update={"shards": shards})})


def state_variants(request: ScoreRequest) -> Iterator[ScoreRequest]:
    """The related inputs tried to tell a metric state from stateless explanations, in a fixed order: a matching
    token in each segment under the request's plan, then under each other plan (`_replanned`), then those plans."""
    plans = [request, *_replanned(request)]
    for planned in plans:
        yield from _matched(planned)
    yield from plans[1:]


def _explains(variant: ScoreRequest, answer: Any, profile: str, parts: Candidate, overrides: Any) -> bool:
    """Whether the explanation `parts` explains `answer` to `variant` (the classifier, among its parts only)."""
    try:
        return classify(variant, answer, profile, overrides=overrides, among=parts).parts == parts
    except ORACLE_REFUSALS:
        return False


def _separating_state(request: ScoreRequest, profile: str, state: Candidate, others: tuple[Candidate, ...],
                      capabilities: Capabilities, overrides: Any) -> ScoreRequest | None:
    """The first of `state_variants` the implementation can be asked on which the `state` predicts an answer
    other than the oracle's that none of `others` explains; None within MAX_VARIANTS."""
    for tried, variant in enumerate(state_variants(request)):
        if tried >= MAX_VARIANTS:
            return None
        if not_applicable_reason(variant, capabilities) is not None:
            continue
        try:
            predicted = state_answer(variant, profile, state[0], overrides=overrides)
        except ORACLE_REFUSALS:
            continue
        if predicted is not None and not any(_explains(variant, predicted, profile, other, overrides)
                                             for other in others):
            return variant
    return None


def state_told_apart(request: ScoreRequest, answer: Any, profile: str, candidates: tuple[Candidate, ...],
                     capabilities: Capabilities, ask: Callable[[ScoreRequest], Any], *, overrides: Any = None
                     ) -> tuple[tuple[Candidate, ...], tuple[Candidate, ...]]:
    """(kept, refuted) of the explanations `candidates` (each its parts) fitting `answer` to `request`: each metric
    state among them (`STATE_NAMES`, alone) that a stateless explanation of the record (one not merely stating what
    is known) fits as well is kept only where the implementation's answer (`ask(variant)`: its answer, or None) to a
    related input on which the state alone predicts that answer is that answer. A state the answer contradicts is
    `refuted`; one no related input tells apart (or whose input was not answered) is left out as well: nothing
    separates it from the stateless reading. `candidates` as they are where no state needs telling apart (nothing
    is sent)."""
    states = tuple(parts for parts in candidates if is_state(parts))
    others = tuple(parts for parts in candidates if not is_state(parts) and not states_what_is_known(parts))
    if not states or not others:
        return candidates, ()
    left_out: list[Candidate] = []
    refuted: list[Candidate] = []
    for state in states:
        variant = _separating_state(request, profile, state, others, capabilities, overrides)
        reply = None if variant is None else ask(variant)
        if variant is None or reply is None:
            left_out.append(state)
        elif not _explains(variant, reply, profile, state, overrides):
            refuted.append(state)
    return tuple(parts for parts in candidates if parts not in left_out and parts not in refuted), tuple(refuted)
