"""Long sessions and state: the "series" companion of the differential search.

A series is many short requests to the same implementation process, one after another: two short
base inputs, each sent again and again with exactly one part changed (its references, its weights,
`lowercase`, its level, its smoothing) and sent again unchanged, the two interleaved, so that
levels and options alternate from one request to the next. A cache keyed too coarsely (on the
hypothesis only, or without `lowercase`) answers a changed input with the old answer; a counter or
an accumulator never reset answers a repeated input differently; a process that degrades over time
fails somewhere in the long run of requests a run of the default size sends (at least 1,000 with
the default `--series-length`).

Each step is judged against the oracle as any input is; a series makes one record (id
`random-S-I~series`): its first failing step, named with the step before it, or its last step when
all pass. Replaying the failing step alone may not fail (the state is the point): the record's
reproduction line runs the whole series again.
"""

from __future__ import annotations

import random
import time
from dataclasses import dataclass

from oracle.diagnose.judge import judge, token_count_layers
from oracle.models.outcomes import GOOD_OUTCOMES
from oracle.models.protocol import Capabilities, ScoreRequest, Segment, SmoothingSpec

from ..generate import DEFAULT_SERIES_LENGTH, PARTS, generate_request
from ..stages import NOT_DIAGNOSED, ExampleExpectations, Item, Judgement, judged_record


@dataclass(frozen=True)
class Step:
    """One request of a series: `changed`, the part changed from base input `base` ("" when it is the base
    input itself, sent again)."""

    request: ScoreRequest
    base: int
    changed: str


def series_steps(rng: random.Random, capabilities: Capabilities, *, length: int = DEFAULT_SERIES_LENGTH,
                 uniform_only: bool = False, profile_smoothing: dict | None = None) -> list[Step]:
    """The `length` steps of a series for these capabilities (deterministic in `rng`)."""
    bases = [
        generate_request(rng, capabilities, uniform_only=uniform_only, profile_smoothing=profile_smoothing,
                         focus=focus)
        for focus in ("case-folding", "plain")
    ]
    steps, turn = [], [0, 0]
    for k in range(length):
        which = k % 2
        base = bases[which]
        if k < 2 or k % 6 in (2, 3):  # the base itself, first and then again: a repeat answers alike
            steps.append(Step(base, which, ""))
            continue
        for _ in PARTS:  # the next part that this base can change within the capabilities
            part = PARTS[turn[which] % len(PARTS)]
            turn[which] += 1
            changed = changed_part(rng, base, part, capabilities, uniform_only=uniform_only)
            if changed is not None:
                steps.append(Step(changed, which, part))
                break
        else:
            steps.append(Step(base, which, ""))
    return steps


def changed_part(rng: random.Random, request: ScoreRequest, part: str, capabilities: Capabilities, *,
                 uniform_only: bool = False) -> ScoreRequest | None:
    """`request` with exactly `part` changed (one of PARTS), within the capabilities; None when it cannot be."""
    if part == "references":
        return _other_references(request)
    if part == "weights":
        return _other_weights(rng, request, capabilities, uniform_only)
    if part == "lowercase":
        return request.model_copy(update={"lowercase": not request.lowercase}) if capabilities.lowercase else None
    if part == "level":
        if len(request.segments) != 1 or len(capabilities.levels) < 2:
            return None
        return request.model_copy(update={"level": "sentence" if request.level == "corpus" else "corpus"})
    methods = [m for m in capabilities.smoothing if m != request.smoothing.method]
    if not methods:
        return None
    return request.model_copy(update={"smoothing": SmoothingSpec.of(rng.choice(methods))})


def _other_references(request: ScoreRequest) -> ScoreRequest:
    """The first segment's first reference replaced: by its hypothesis, or (if it is that) by the hypothesis
    shortened by one token, or a token of no hypothesis."""
    first = request.segments[0]
    hypothesis = tuple(first.hypothesis)
    replacement = hypothesis if first.references and first.references[0] != hypothesis else hypothesis[:-1]
    if first.references and replacement == first.references[0]:
        replacement = (*hypothesis, "⟂")
    references = (replacement, *first.references[1:])
    segment = Segment(hypothesis=first.hypothesis, references=references)
    return request.model_copy(update={"segments": (segment, *request.segments[1:])})


def _other_weights(rng: random.Random, request: ScoreRequest, capabilities: Capabilities,
                   uniform_only: bool) -> ScoreRequest | None:
    weights = list(request.weights)
    if capabilities.weights == "any" and not uniform_only and len(weights) > 1:
        i = rng.randrange(len(weights))
        weights[i] = weights[i] * 2 if weights[i] else 0.5
        return request.model_copy(update={"weights": tuple(weights)})
    orders = [n for n in (capabilities.orders or range(1, min(capabilities.max_order, 6) + 1)) if n != len(weights)]
    if not orders:
        return None
    n = rng.choice(orders)
    return request.model_copy(update={"weights": (1.0 / n,) * n})


# -- judging a series ---------------------------------------------------------------------------


def judge_series(session, item_id: str, steps: list[Step], inputs: ExampleExpectations,
                 prepared: list | None = None):
    """Send `steps` one after another to `session`'s implementation, judge each against the oracle, and write
    one record (kind "series"): the first failing step, or the last step when all pass. `inputs`: the example's
    (`oracle.harness.work.examples.ExampleInputs`); `prepared`: each step's `searchcache.Prepared` (its wire line,
    expectation and features, cached across runs)."""
    started = time.perf_counter()
    duration, sent_steps = 0.0, 0
    prepared = prepared or [None] * len(steps)
    for k, step in enumerate(steps):
        sent, pending = session.submit(step.request, prepared[k])
        expected = inputs.expected_of(step.request, prepared[k])
        session.cover(step.request, expected, prepared[k])
        reply = session.collect(sent, pending)
        duration += reply.duration
        sent_steps += 1
        verdict = judge(expected, reply, session.contract, max_order=step.request.max_order,
                        token_counts=token_count_layers(step.request))
        if verdict.outcome not in GOOD_OUTCOMES:  # never a failure on an expectation from the search cache alone
            confirmed = inputs.confirmed_expectation(step.request, prepared[k], expected)
            if confirmed is not expected:
                expected, verdict = confirmed, judge(confirmed, reply, session.contract,
                                                     max_order=step.request.max_order,
                                                     token_counts=token_count_layers(step.request))
        failed = verdict.outcome not in GOOD_OUTCOMES
        if failed or k == len(steps) - 1:
            break
    session.coverage.add_series(steps[:sent_steps])
    item = Item(item_id, "series", step.request, title=_title(steps, k))
    judgement = Judgement(request=step.request, sent=sent, reply=reply, expected=expected, verdict=verdict)
    diagnosis = NOT_DIAGNOSED
    if failed:  # shrunk and classified as a random example is (a state bug may not shrink: it says so), unless the
        # failing step, sent once more, is answered otherwise (not sent again where its kind's first failures in the
        # block were answered alike: `Session.diagnose`, `oracle.harness.diagnosis.diagnose`)
        diagnosis = session.diagnose(item, judgement, prepared[k])
    message = f"series step {k + 1} of {len(steps)}" + (f" ({_describe(steps, k)})" if failed else "")
    # the record of the step recorded, built as every judged item's is (its convention too, on an input the documents
    # leave undefined)
    return session.finish(judged_record(
        item, judgement, request=session.recorded(sent, item.id, prepared[k]), diagnosis=diagnosis,
        message="; ".join(filter(None, [message, verdict.message, *(f"runner: {n}" for n in reply.notes)])),
        timing=session.timing(duration, started), gate=session.tracker.gate))


def _title(steps: list[Step], k: int) -> str:
    return f"a series of {len(steps)} short requests to one process (step {k + 1})"


def _describe(steps: list[Step], k: int) -> str:
    """What step `k` is: its base input, what changed, and the step before it that sent that base input."""
    step = steps[k]
    earlier = next((j for j in range(k - 1, -1, -1) if steps[j].base == step.base), None)
    what = f"base input {'AB'[step.base]}" + (f" with its {step.changed} changed" if step.changed else ", again")
    return what + (f"; step {earlier + 1} sent base input {'AB'[step.base]}"
                   + (f" with its {steps[earlier].changed} changed" if steps[earlier].changed else "")
                   if earlier is not None else "")
