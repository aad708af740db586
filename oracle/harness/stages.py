"""The typed values the judging stages hand on: what is judged (`Item`) and how it was judged (`Judgement`).

A session judges one input at a time: `Session.judge(item)` sends the item's request, computes the oracle's
expectation meanwhile, and returns a `Judgement`; the diagnosis (shrinking, classification) and the record
start from that value, never from state the judging left on the session; a record is built once, from those values
and what the baseline says of them (`built_record`). The shrinkers
(`oracle.harness.shrink.SameFailure`, `oracle.harness.stateful.PlanShrinker`) keep their last failing
candidate as a `Judgement` too.
"""

from __future__ import annotations

import fnmatch
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal, Protocol

from oracle.models.outcomes import Expected, Verdict
from oracle.models.protocol import ScoreReply, ScoreRequest
from oracle.models.results import (
    Classification,
    CorpusSummary,
    Omitted,
    OmittedRequest,
    Record,
    RecordedRequest,
    Shrunk,
    Unanswered,
)

from .gate import Finding, Gate
from .replies import Reply
from .searchcache import Prepared, request_digest

if TYPE_CHECKING:  # an annotation only: a search's processes never import the case model
    from oracle.models.case import CaseRequest

#: A record keeps a request (or a relation's input) of at most this many tokens whole; a larger one (a
#: 65,600-token run, a corpus of 2,000 segments) is kept as its shape and digest, and the record says how
#: to regenerate it, so that results.jsonl does not grow by megabytes per input. A metamorphic relation is
#: checked only on an input within this limit: its record shows both inputs whole, and a relation on a
#: 300,000-token input would cost the run several copies of it at once.
RECORD_TOKEN_LIMIT = 20_000


def recorded_request(request: ScoreRequest, regenerate: Callable[[], str],
                     digest: str | None = None) -> ScoreRequest | OmittedRequest:
    """What a record keeps of a request sent: the command itself, or, beyond RECORD_TOKEN_LIMIT tokens, its shape
    and digest with the command that regenerates it (`regenerate()`); `digest`: its digest, when at hand
    (`searchcache.request_digest`)."""
    if request.token_count <= RECORD_TOKEN_LIMIT:
        return request
    return OmittedRequest(
        **request.model_dump(mode="json", exclude={"segments"}, exclude_none=True),
        omitted=Omitted(
            segments=len(request.segments),
            tokens=request.token_count,
            sha256=digest or request_digest(request),
            regenerate=regenerate(),
        ),
    )


def selected(identifier: str, patterns: Sequence[str]) -> bool:
    """Whether an item's id is among those `patterns` select (`--id`, fnmatch patterns; none: every id)."""
    return not patterns or any(fnmatch.fnmatchcase(identifier, p) for p in patterns)


#: How a failing record is searched for its root cause: "full" (the implementation's documented classes, then
#: every explanation), "documented" (the documented classes only: every explanation recomputes a large input many
#: times) or "none".
Attribution = Literal["full", "documented", "none"]


class ExampleExpectations(Protocol):
    """Where the oracle's expectations of a random example's inputs come from: computed once, or read from the
    search cache and confirmed before a failure rests on them (`oracle.harness.work.examples.ExampleInputs`)."""

    def expected_of(self, request: ScoreRequest, prepared: Prepared | None) -> Expected: ...

    def confirmed_expectation(self, request: ScoreRequest, prepared: Prepared | None,
                              expected: Expected) -> Expected: ...


@dataclass(frozen=True)
class Item:
    """One input to judge, and everything the session needs to judge and record it.

    `request` is None (and `invalid` says why) for a case whose input protocol v1 cannot carry: it is not
    applicable. A case carries its context: the convention `overrides` its options set, the `document`'s
    printed expectation, the `profiles` it is documented under. `within_capabilities`: the caller knows the
    implementation computes this request (a curated example of its own) though its declared capabilities cannot
    say so; it is sent all the same. A large input (a real corpus) carries its policy: `expected`, the oracle's
    expectation when the caller has it already; `summary`, a short description recorded in place of the request
    (and no replay line); `attribution` (`Attribution`). `prepared`: a random example's input as the search
    cache gives it (its wire line, expectation and features, computed once across runs), one of that example's
    `inputs` (`ExampleExpectations`: the oracle's expectation of it comes from there)."""

    id: str
    kind: str
    request: ScoreRequest | None
    title: str = ""
    overrides: Mapping[str, Any] | None = None
    document: Mapping[str, Any] | None = None
    profiles: tuple[str, ...] = ()
    invalid: str | None = None
    within_capabilities: bool = False
    expected: Expected | None = None
    summary: CorpusSummary | None = None
    attribution: Attribution = "full"
    prepared: Prepared | None = None
    inputs: ExampleExpectations | None = None

    @classmethod
    def of_case(cls, case: CaseRequest) -> Item:
        """A case (`Case.request_under`: its request under the judged profile, with its context) to judge."""
        return cls(case.case_id, "case", case.request, title=case.title, overrides=case.overrides,
                   document=case.document, profiles=case.profiles, invalid=case.invalid)


@dataclass(frozen=True)
class Judgement:
    """One request judged: the request as built (`request`, numbered 0) and as sent (`sent`, with its seq), the
    implementation's `reply`, the oracle's `expected` value, and the judge's `verdict` on the two."""

    request: ScoreRequest
    sent: ScoreRequest
    reply: Reply
    expected: Expected
    verdict: Verdict

    @property
    def parts(self) -> tuple[ScoreRequest, Reply, Verdict, Expected]:
        """(request, reply, verdict, expected): the arguments `oracle.diagnose.attribute` takes."""
        return self.request, self.reply, self.verdict, self.expected


@dataclass(frozen=True)
class Diagnosis:
    """What the diagnosis of a record that is not good found: its root cause (`classification`), the smaller input
    that fails the same way (`shrunk`), the input to replay and the line that reproduces it, a `note` said after
    the verdict's message (both answers of a request answered two ways; the layer a plan's failure stays in), and
    `moved`: the verdict of the plan that uses less where a stateful failure stays (its layer is the record's)."""

    classification: Classification | None = None
    shrunk: Shrunk | None = None
    replay: ScoreRequest | None = None
    reproduce: str | None = None
    note: str = ""
    moved: Verdict | None = None


#: A good record's diagnosis: nothing to add.
NOT_DIAGNOSED = Diagnosis()


@dataclass(frozen=True)
class Timing:
    """A record's clock readings: the seconds the implementation took to answer (`duration`), and those
    including judging and shrinking (`wall`; None where not measured). Both 0 in a stream that keeps no clock
    readings."""

    duration: float = 0.0
    wall: float | None = None


#: The clock readings of a record that has none (an input not sent).
UNTIMED = Timing()


def built_record(finding: Finding, gate: Gate, *, title: str = "", request: RecordedRequest | None = None,
                 order: int | None = None, label: str | None = None, convention: str | None = None,
                 expected: Expected | None = None, actual: ScoreReply | Unanswered | None = None, stderr: str = "",
                 timing: Timing = UNTIMED, shrunk: Shrunk | None = None, replay: ScoreRequest | None = None,
                 reproduce: str | None = None, related: ScoreRequest | OmittedRequest | None = None) -> Record:
    """The one way a record is built: from its `finding` (what it is and what became of it: its id, kind, outcome,
    layer, root cause and message), gated by the baseline as it is built (`gate`: `BaselineTracker.gate`, which
    counts it), and the rest of what it reports (the request kept, the answer, the clock, the diagnosis's input and
    reproduction line, a relation's original input)."""
    gating = gate(finding)
    return Record(
        id=finding.id,
        kind=finding.kind,
        title=title,
        request=request,
        outcome=finding.outcome,
        layer=finding.layer,
        order=order,
        label=label,
        convention=convention,
        classification=finding.classification,
        baseline_key=gating.key,
        expected=expected,
        actual=actual,
        message=finding.message,
        stderr=stderr,
        duration=timing.duration,
        wall=timing.wall,
        baseline=gating.status,
        shrunk=shrunk,
        replay=replay,
        reproduce=reproduce,
        related=related,
    )


def judged_record(item: Item, judgement: Judgement, *, request: RecordedRequest | None, message: str,
                  diagnosis: Diagnosis = NOT_DIAGNOSED, timing: Timing, gate: Gate) -> Record:
    """The record of a judged item, built once from the stages' results (`built_record`): the judgement's verdict and
    answer, the diagnosis, the clock, what the baseline says (`gate`). `request`: what the record keeps of the request
    sent (`recorded_request`, or a large input's summary); `message`: the verdict's, with what the runner said besides
    (the note of `diagnosis` follows it)."""
    verdict, reply = judgement.verdict, judgement.reply
    where = diagnosis.moved or verdict
    finding = Finding(item.id, item.kind, verdict.outcome, where.layer, diagnosis.classification,
                      "; ".join(filter(None, [message, diagnosis.note])))
    return built_record(
        finding,
        gate,
        title=item.title,
        request=request,
        order=verdict.order,
        label=where.classification,
        convention=verdict.convention,
        expected=judgement.expected,
        actual=reply.recorded(),
        stderr=reply.stderr,
        timing=timing,
        shrunk=diagnosis.shrunk,
        replay=diagnosis.replay,
        reproduce=diagnosis.reproduce,
    )
