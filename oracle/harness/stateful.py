"""Stateful checks: a passing corpus example sent again through an implementation's metric state.

torchmetrics, torcheval and ignite are used through `update()` over batches, `compute()` at the end,
`merge_state()` across workers and `reset()` between corpora; the bugs users hit live there (a state
not reset, a merge that averages instead of adding, a reduction that depends on shard order). An
implementation that declares `capabilities.stateful` gets, for each passing corpus example of two or
more segments, the same request again carrying a `stateful` plan (PROTOCOL.md, "Stateful
implementations"): batches, shards merged in some order, or corpora scored and reset before it. The
plans take turns over the declared abilities, and a corpus of 100 segments or more goes one update
per segment (a chained run of hundreds of updates). The oracle's answer is the one-shot corpus score,
so a difference fails in the plan's own layer (`reset`, `merge`, `accumulation`), and the plan and the
corpus are shrunk to the smallest that still fail that way while the one-shot answer stays right (then the
corpus's references and tokens, under the plan found).
"""

from __future__ import annotations

import math
import random
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass

from oracle.diagnose.expect import oracle_expected
from oracle.diagnose.judge import Contract, judge, token_count_layers
from oracle.models.outcomes import (
    ACCUMULATION_LAYER,
    GOOD_OUTCOMES,
    MERGE_LAYER,
    RESET_LAYER,
    Expected,
    Outcome,
    Verdict,
)
from oracle.models.protocol import Capabilities, ProtocolError, ScoreRequest, Segment, StatefulPlan
from oracle.models.results import STOPPED_CLOCK, STOPPED_GAVE_UP, STOPPED_MINIMAL, STOPPED_QUERIES

from .requests import not_applicable_reason
from .shrink import shrink
from .stages import Judgement
from .transport import Reply

#: A corpus this large is accumulated one update per segment: a chained run.
CHAINED_FROM = 100
#: The previous corpora a reset plan scores first take at most this many of the corpus's segments.
PREVIOUS_SEGMENTS = 50


def abilities(capabilities: Capabilities) -> tuple[str, ...]:
    return tuple(capabilities.stateful or ())


def applies(request: ScoreRequest, capabilities: Capabilities) -> bool:
    """A stateful check says something about `request`: a stateful implementation, a corpus of 2+ segments."""
    return bool(abilities(capabilities)) and request.level == "corpus" and len(request.segments) >= 2


def layer_of(plan: StatefulPlan) -> str:
    """The layer a plan's failure is in: what it uses beyond one state taking batches."""
    if plan.previous:
        return RESET_LAYER
    return MERGE_LAYER if len(plan.shards) > 1 else ACCUMULATION_LAYER


def describe(plan: StatefulPlan) -> str:
    """The plan in words: "batches [2, 1] | [3], merged in order 1, 0, after 2 corpora scored and reset"."""
    text = "batches " + " | ".join(str(list(batches)) for batches in plan.shards)
    if plan.merge is not None:
        text += ", merged in order " + ", ".join(map(str, plan.merge))
    if plan.previous:
        text += f", after {len(plan.previous)} other corpus(es) scored and reset"
    return text


# -- drawing a plan ---------------------------------------------------------------------------------


def _batches(rng: random.Random, count: int, accumulate: bool) -> tuple[int, ...]:
    """`count` segments in batches: one batch without accumulation; one per segment in a chained run."""
    if not accumulate or count == 1:
        return (count,)
    if count >= CHAINED_FROM:
        return (1,) * count
    cuts = sorted(rng.sample(range(1, count), rng.randint(1, count - 1)))
    return tuple(b - a for a, b in zip([0, *cuts], [*cuts, count], strict=True))


def _previous(segments: tuple[Segment, ...], corpora: int) -> tuple[tuple[Segment, ...], ...]:
    """Other corpora to score and reset first: the segments with their first reference as hypothesis (a
    perfect corpus, whose statistics change the answer wherever they leak), then every second one too."""
    head = segments[:PREVIOUS_SEGMENTS]
    perfect = tuple(Segment(hypothesis=s.references[0], references=s.references) for s in head)
    return tuple(perfect[k % 2 :: 1 + k % 2] for k in range(corpora))


def draw_plan(request: ScoreRequest, capabilities: Capabilities, rng: random.Random, turn: int) -> StatefulPlan:
    """A plan for `request` using the declared ability whose turn it is (and accumulation alongside)."""
    declared = abilities(capabilities)
    kind, accumulate = declared[turn % len(declared)], "accumulate" in declared
    count = len(request.segments)
    if kind == "merge":
        shards = rng.randint(2, min(count, 4))
        cuts = sorted(rng.sample(range(1, count), shards - 1))
        sizes = [b - a for a, b in zip([0, *cuts], [*cuts, count], strict=True)]
        order = list(range(shards))
        rng.shuffle(order)
        return StatefulPlan(shards=tuple(_batches(rng, size, accumulate) for size in sizes), merge=tuple(order))
    previous = _previous(request.segments, rng.randint(1, 3)) if kind == "reset" else ()
    return StatefulPlan(shards=(_batches(rng, count, accumulate),), previous=previous)


# -- judging ----------------------------------------------------------------------------------------


def judge_plan(expected: Expected, reply: Reply, request: ScoreRequest, contract: Contract) -> Verdict:
    """The answer to a planned request against the one-shot expectation; a fail is in the plan's layer."""
    plan = request.stateful
    verdict = judge(expected, reply, contract, max_order=request.max_order, token_counts=token_count_layers(request))
    if plan is None or verdict.outcome in GOOD_OUTCOMES:
        return verdict
    where = f"{describe(plan)}: "
    if verdict.outcome != Outcome.FAIL:
        return Verdict(verdict.outcome, verdict.layer, verdict.order, where + verdict.message)
    return Verdict(Outcome.FAIL, layer_of(plan), verdict.order, where + verdict.message)


# -- shrinking --------------------------------------------------------------------------------------


def _kept_plan(plan: StatefulPlan, keep: Callable[[int], bool]) -> StatefulPlan | None:
    """The plan with only the segments `keep(index)` accepts: emptied batches and shards left out, the
    merge order renumbered; None when no segment is left."""
    shards, kept_indices, at = [], [], 0
    for index, batches in enumerate(plan.shards):
        sizes = []
        for size in batches:
            left = sum(1 for i in range(at, at + size) if keep(i))
            at += size
            if left:
                sizes.append(left)
        if sizes:
            shards.append(tuple(sizes))
            kept_indices.append(index)
    if not shards:
        return None
    merge = None
    if len(shards) > 1 and plan.merge is not None:
        renumber = {old: new for new, old in enumerate(kept_indices)}
        merge = tuple(renumber[i] for i in plan.merge if i in renumber)
    return StatefulPlan(shards=tuple(shards), merge=merge, previous=plan.previous)


def _ranges(count: int) -> Iterator[tuple[int, int]]:
    """Ranges to drop from `count` items: halves first, then quarters, ... then single items."""
    size = max(count // 2, 1)
    while True:
        for start in range(0, count, size):
            yield start, min(start + size, count)
        if size == 1:
            return
        size = max(size // 2, 1)


def _without_segments(request: ScoreRequest, start: int, stop: int) -> ScoreRequest | None:
    plan = request.stateful
    if plan is None:
        return None
    kept = _kept_plan(plan, lambda i: not start <= i < stop)
    if kept is None:
        return None
    segments = request.segments[:start] + request.segments[stop:]
    return request.model_copy(update={"segments": segments, "stateful": kept})


def _joined(shards: tuple[tuple[int, ...], ...], i: int) -> tuple[tuple[int, ...], ...]:
    """Shard i and i + 1 as one shard."""
    return (*shards[:i], shards[i] + shards[i + 1], *shards[i + 2 :])


def _simpler_plans(plan: StatefulPlan) -> Iterator[StatefulPlan]:
    """Plans that do less: fewer previous corpora (or shorter ones), fewer shards, fewer batches, merge in order."""
    for k in range(len(plan.previous)):
        yield plan.model_copy(update={"previous": plan.previous[:k] + plan.previous[k + 1 :]})
        corpus = plan.previous[k]
        for start, stop in _ranges(len(corpus)):
            if stop - start < len(corpus):
                shorter = corpus[:start] + corpus[stop:]
                yield plan.model_copy(update={"previous": (*plan.previous[:k], shorter, *plan.previous[k + 1 :])})
    for i in range(len(plan.shards) - 1):
        shards = _joined(plan.shards, i)
        merge = None
        if len(shards) > 1 and plan.merge is not None:
            merge = tuple(j - (j > i) for j in plan.merge if j != i + 1)
        yield StatefulPlan(shards=shards, merge=merge, previous=plan.previous)
    for s, batches in enumerate(plan.shards):
        for b in range(len(batches) - 1):
            joined = (*batches[:b], batches[b] + batches[b + 1], *batches[b + 2 :])
            yield plan.model_copy(update={"shards": (*plan.shards[:s], joined, *plan.shards[s + 1 :])})
    if plan.merge is not None and list(plan.merge) != sorted(plan.merge):
        yield plan.model_copy(update={"merge": tuple(sorted(plan.merge))})


def lower_plans(request: ScoreRequest) -> Iterator[ScoreRequest]:
    """The request with a plan that uses less: without its previous corpora (no reset), then its shards as
    one state taking every batch in order (no merge). A failure that stays is in the lower layer."""
    plan = request.stateful
    if plan is None:
        return
    if plan.previous:
        plan = plan.model_copy(update={"previous": ()})
        yield request.model_copy(update={"stateful": plan})
    if len(plan.shards) > 1:
        batches = tuple(size for shard in plan.shards for size in shard)
        yield request.model_copy(update={"stateful": StatefulPlan(shards=(batches,), previous=plan.previous)})


def candidates(request: ScoreRequest) -> Iterator[ScoreRequest]:
    """Simpler requests than `request`: a simpler plan, then fewer segments of the corpus."""
    plan = request.stateful
    if plan is None:
        return
    for simpler in _simpler_plans(plan):
        yield request.model_copy(update={"stateful": simpler})
    for start, stop in _ranges(len(request.segments)):
        candidate = _without_segments(request, start, stop)
        if candidate is not None:
            yield candidate


@dataclass
class PlanShrinker:
    """Greedy shrinking of a failing planned request; `still_fails` sends a candidate (and its one-shot
    form) and says whether it fails the same way, keeping the last failing `Judgement` in `last`."""

    profile: str
    capabilities: Capabilities
    contract: Contract
    send: Callable[[ScoreRequest], tuple[ScoreRequest, Reply]]
    given_up: Callable[[], bool]
    budget: int
    #: a `time.perf_counter()` value past which no candidate is sent (None: the query budget alone decides)
    deadline: float | None = None

    def __post_init__(self) -> None:
        self.queries, self.steps = 0, 0
        self.last: Judgement | None = None

    def spent(self) -> str | None:
        """Why no more candidate may be sent (one of `shrink.STOPPED_REASONS`), None while one may."""
        if self.queries >= self.budget:
            return STOPPED_QUERIES
        if self.given_up():
            return STOPPED_GAVE_UP
        if self.deadline is not None and time.perf_counter() > self.deadline:
            return STOPPED_CLOCK
        return None

    def still_fails(self, candidate: ScoreRequest, target: tuple) -> bool:
        expected = oracle_expected(candidate, self.profile)
        if expected.rejected or (expected.score is not None and math.isnan(expected.score)):
            return False
        if not_applicable_reason(candidate, self.capabilities) is not None:
            return False
        self.queries += 2
        try:
            _, whole = self.send(candidate.model_copy(update={"stateful": None}))
            if judge(expected, whole, self.contract, max_order=candidate.max_order).outcome not in GOOD_OUTCOMES:
                return False  # the one-shot answer is wrong too: not a stateful failure any more
            sent, answer = self.send(candidate)
        except ProtocolError:
            return False
        verdict = judge_plan(expected, answer, candidate, self.contract)
        if (verdict.outcome, verdict.layer) != target:
            return False
        self.last = Judgement(request=sent, sent=sent, reply=answer, expected=expected, verdict=verdict)
        return True

    def lowest(self, request: ScoreRequest, verdict: Verdict) -> tuple[ScoreRequest, Verdict]:
        """The failing request with the plan that uses least (`lower_plans`) and its verdict: a reset plan
        whose failure stays without the previous corpora is an accumulation or merge failure."""
        for candidate in lower_plans(request):
            plan = candidate.stateful
            if plan is not None and not self.spent() and self.still_fails(candidate, (Outcome.FAIL, layer_of(plan))) \
                    and self.last is not None:
                request, verdict = candidate, self.last.verdict
                self.steps += 1
        return request, verdict

    def run(self, request: ScoreRequest, verdict: Verdict) -> tuple[ScoreRequest, str]:
        """(the smallest request found, why it stopped: `shrink.STOPPED_REASONS`): first the lowest layer that
        fails (`lowest`), then a simpler plan and fewer segments, failing in that layer."""
        request, verdict = self.lowest(request, verdict)
        target, current, progress = (verdict.outcome, verdict.layer), request, True
        while progress:
            progress = False
            for candidate in candidates(current):
                stopped = self.spent()
                if stopped is not None:
                    return current, stopped
                if self.still_fails(candidate, target):
                    current, progress = candidate, True
                    self.steps += 1
                    break
        return self.tokens(current, target)

    def tokens(self, request: ScoreRequest, target: tuple) -> tuple[ScoreRequest, str]:
        """The plan kept, the corpus shrunk as any failing input is (`oracle.harness.shrink`: references,
        tokens, weights, smoothing, names), so long as it still fails the same way under that plan."""
        plan = request.stateful
        stopped = self.spent()
        if plan is None or stopped is not None:
            return request, stopped or STOPPED_MINIMAL

        def still_fails(candidate: ScoreRequest) -> bool:
            if len(candidate.segments) != plan.segment_count:  # the plan's batches are the corpus's
                return False
            return self.still_fails(candidate.model_copy(update={"stateful": plan}), target)

        outcome = shrink(request.model_copy(update={"stateful": None}), still_fails,
                         budget=max(self.budget - self.queries, 0), deadline=self.deadline)
        self.steps += outcome.steps
        stopped = STOPPED_GAVE_UP if outcome.exhausted and self.given_up() else outcome.stopped
        return outcome.request.model_copy(update={"stateful": plan}), stopped
