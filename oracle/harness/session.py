"""One run against an implementation process, shared by `check` and `fuzz`.

A `Session` owns the machinery both verbs drive: it sends each input (a case,
a random example or a replayed input) to the implementation, judges the reply
against the oracle (`oracle.models.outcomes.judge`), shrinks a failing random example
(`oracle.harness.shrink`), names the root cause of every failing record
(`oracle.diagnose.classify`, first among the implementation's documented discrepancy
classes in `oracle/diagnose/data/discrepancies.yaml`, then among all explanations), and
writes one record per input to the event stream (`oracle.harness.events`).

`run_session` is the lifecycle around it: start the process and read the
handshake (exit code 3 when it cannot be driven), write the header, let the
verb do its work, stop the process, write the footer. The reports derived from
`results.jsonl` (summary.md, junit.xml) are the verb's to write, from the
stream alone (`oracle.reports.summaries.write_derived_reports`).
"""

from __future__ import annotations

import contextlib
import shlex
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass, fields, replace
from datetime import UTC, datetime
from pathlib import Path

from oracle import __version__
from oracle.adapters import registry
from oracle.diagnose import discrepancies, errorcauses, repeat
from oracle.diagnose.attribute import attribute, attribute_shrunk, hinted_entries, search_classes
from oracle.diagnose.classify import UNEXPLAINED, is_partial, what_is_known
from oracle.diagnose.expect import case_expected, oracle_expected
from oracle.diagnose.judge import DEFAULT_ABS, DEFAULT_REL, Contract, judge, token_count_layers
from oracle.diagnose.mechanisms.counting import OTHER_COUNTING
from oracle.diagnose.stale import (
    EARLIER_ANSWER,
    PROBES_NEEDED,
    Before,
    answered_right_before,
    confirmed,
    earlier_match,
    probes,
    stale_answer,
    with_stale,
)
from oracle.escaping import json_shown, shown
from oracle.exitcodes import (
    EXIT_DEVIATIONS,
    EXIT_OK,
    EXIT_UNDRIVABLE,
    EXIT_USAGE,
)
from oracle.files import write_atomically
from oracle.formulas.errors import BleuOracleError, BleuValueError
from oracle.formulas.profiles import PROFILES
from oracle.models.baseline import CAUSE_PREFIX
from oracle.models.outcomes import (
    GOOD_OUTCOMES,
    RIDING_KINDS,
    Outcome,
)
from oracle.models.protocol import encode
from oracle.models.results import (
    CorpusSummary,
    Footer,
    Header,
    Record,
    RunCause,
    RunSettings,
    Shrunk,
    parse_cause,
)
from oracle.signals import Interrupted, exit_code_of, raise_if_stopped, stopped_by_signals  # noqa: F401 (re-exported)
from oracle.suite import SUITE_VERSION

from . import crashcauses, stateful
from .budget import DEFAULT_SHRINK_FIRST, NONDETERMINISTIC_KIND, SHRINK_BLOCK, failure_kind
from .channel import Channel
from .coverage import Coverage, features
from .events import RESULTS_FILE, ResultsWriter, RootCauseTally, count_outcomes
from .gate import BaselineTracker, baseline_key
from .generate import example_id, example_request
from .progress import Progress
from .requests import case_to_request, not_applicable_reason
from .searchcache import (
    ExampleEntry,
    SearchCache,
    cache_root,
    run_key,
)
from .separate import SEPARATING_REQUESTS, told_apart
from .series import DEFAULT_SERIES_LENGTH
from .shards import ExampleShare, Shard
from .shrink import DEFAULT_BUDGET, SameFailure, shrink
from .stages import (
    NOT_DIAGNOSED,
    RECORD_TOKEN_LIMIT,
    Diagnosis,
    Item,
    Judgement,
    Timing,
    judged_record,
    recorded_request,
    selected,
)
from .transport import DEFAULT_MAX_RESTARTS, DEFAULT_TIMEOUT, HandshakeError, ImplementationProcess, RestartBudget
from .work.examples import ExampleInputs, judge_example

INLINE_REPLAY_LIMIT = 400
#: What a process had answered before its first request.
NOTHING_BEFORE = Before()

#: Random examples a `check` or `fuzz` run draws unless told otherwise.
DEFAULT_EXAMPLES = 200


def run_causes(tally):
    """The footer's root causes, from the session's tally (None when nothing failed)."""
    groups = tally.groups()
    return (
        tuple(
            RunCause(name=g.name, records=g.count, alternatives=g.alternatives, documented=tuple(g.documented))
            for g in groups
        )
        or None
    )


def search_among_all(hints: tuple[str, ...]) -> bool:
    """Whether a failure not shrunk is searched among every explanation after its `hints` (the root causes of its
    kind's shrunk failures in its block of examples: `budget.shrink_hints`): not where every one stayed
    unexplained. The bug is then most likely one no explanation names, and the search among every explanation
    would spend up to its whole budget (`classify.ATTRIBUTION_BUDGET`) on every record to name nothing again: a
    run up to some thirty times as long as the same implementation fixed. Such a failure is searched among its
    implementation's documented classes only, and its record says so. Decided by the examples alone (their
    order within the block), as the shrinking is, never by the clock or by --jobs. A name that states only what is
    known (`other-counting-of-<layer>`, the score stages of `combination.PARTIAL_NAMES`) names no mechanism: it
    counts as unexplained here, else a partial name would send every later record of its kind to the full search."""
    return any(names_a_mechanism(hint) for hint in hints)


def names_a_mechanism(name: str) -> bool:
    """Whether a root cause's name names a mechanism: not `unexplained`, and not only what is known of the
    difference (every part `other-counting-of-...` or a partial explanation)."""
    if name == UNEXPLAINED:
        return False
    return not all(part.startswith(OTHER_COUNTING) or is_partial((part,)) for part in parse_cause(name))


def kept_for_console(record: Record) -> Record:
    """What a session keeps of a failing record for its root causes (the footer's; the console reads the
    report): the record without its request, its relation's input and its stderr (memory flat in --examples)."""
    return record.model_copy(update={"request": None, "related": None, "stderr": ""})


def nothing_judged(counts: dict[str, int], examples_run: int, time_budget: float | None, budget_spent: bool) -> str:
    """Why a run judged nothing, in the user's words (its outcome counts, the random examples it ran, whether
    the time budget stopped it)."""
    skipped = counts.get(Outcome.NOT_APPLICABLE.value, 0)
    parts = [f"{skipped} input(s) not applicable to the implementation's declared capabilities"] if skipped else []
    parts.append(
        f"{examples_run} random example(s) run"
        + (f" before the time budget ({time_budget:g} s) ran out" if budget_spent and time_budget else "")
    )
    return (
        "nothing was judged (" + ", ".join(parts) + "): a run that judges nothing is not a pass; "
        "pass --allow-empty to accept it"
    )


@dataclass(frozen=True)
class SessionSettings:
    """Everything a run reads: which implementation, the judged profile, the search, the numeric
    contract, the process limits, where the report goes. A Python user builds one directly::

        settings = SessionSettings(impl="nltk", examples=50, report="out")
        argv = implementation_argv(settings)
        code, session = run_session(settings, argv, recorded=settings.run_settings("check", argv),
                                    tracker=BaselineTracker(), total=50, work=lambda s: s.run_examples(),
                                    report_dir="out")

    `check` and `fuzz` build one from their command line (`from_args`); what the header of results.jsonl records
    of them is `run_settings`."""

    impl: str | None = None
    command: str | None = None
    profile: str | None = None
    seed: int = 0
    examples: int = DEFAULT_EXAMPLES
    only: tuple = ()
    rel: float = DEFAULT_REL
    abs: float = DEFAULT_ABS
    #: inputs the documents leave undefined must be refused: a named convention's value fails (`--strict`)
    strict: bool = False
    timeout: float = DEFAULT_TIMEOUT
    max_restarts: int = DEFAULT_MAX_RESTARTS
    shrink_budget: int = DEFAULT_BUDGET
    #: failing examples shrunk per kind of failure (outcome, layer, order) in each block of examples
    shrink_first: int = DEFAULT_SHRINK_FIRST
    #: seconds one failing example may spend shrinking (a 300-token input against a slow implementation)
    shrink_seconds: float = 10.0
    #: stop drawing random examples after this many seconds of the search (None: `examples` decides alone)
    time_budget: float | None = None
    #: check a metamorphic relation on every RELATION_EVERY-th passing example (0: never)
    relation_every: int = 3
    report: str = "bleu-oracle-report"
    replay: str | None = None
    quiet: bool = True
    #: False: no clock readings in the stream (durations 0, no timestamps), so the same run writes the
    #: same bytes (`bleu-oracle report` commits its streams)
    timings: bool = True
    #: N: the search runs in N worker processes, each with its own implementation process, and the
    #: records are merged in example order: the same stream as one process gives (`--jobs`)
    jobs: int = 1
    #: (k, N): this process runs only the cases at positions k modulo N among those selected, and draws only
    #: the examples of the blocks k modulo N (`--shard K/N` is (K - 1, N): `oracle.harness.shards`)
    shard: tuple = (0, 1)
    #: (j, J): a worker of `--jobs J` draws, of its shard's examples, those whose index is j modulo J
    worker: tuple = (0, 1)
    #: requests in each series of short requests to one process (`oracle.harness.series`; 0: no series)
    series_length: int = DEFAULT_SERIES_LENGTH
    #: keep what each example's inputs are and what the oracle says of them across runs
    #: (`oracle.harness.searchcache`); False: `--no-search-cache`
    search_cache: bool = True
    #: the baseline file the run is gated by (`--baseline`; the tracker applies it): recorded in the header
    baseline: str | None = None
    #: `--shard` was given, 1/1 too: the header names the shard, and `bleu-oracle merge` takes the report
    shard_given: bool = False

    @classmethod
    def from_args(cls, args):
        """The settings of a parsed `check` or `fuzz` command line."""
        names = [f.name for f in fields(cls)]
        values = {name: getattr(args, name) for name in names if getattr(args, name, None) is not None}
        values["only"] = tuple(values.get("only") or ())
        if isinstance(values.get("shard"), Shard):
            values["shard"], values["shard_given"] = values["shard"].share, True
        return cls(**values)

    def run_settings(self, verb: str, argv: list[str], **verb_own) -> RunSettings:
        """What the header of results.jsonl records of these settings (`RunSettings`): what the run judged and
        how, not where its report went or how many processes ran it. `argv` starts the implementation
        (`implementation_argv`); `verb_own` adds what only the verb knows (where `check`'s cases came from,
        `fuzz --write-cases`), or leaves a setting out with None."""
        share = f"{self.shard[0] + 1}/{self.shard[1]}" if self.shard_given or self.shard != (0, 1) else None
        recorded = {
            "seed": self.seed,
            "examples": 0 if self.replay else self.examples,  # a replay draws no random example
            "rel": self.rel,
            "abs": self.abs,
            "timeout": self.timeout,
            "max_restarts": self.max_restarts,
            "shrink_budget": self.shrink_budget,
            "shrink_first": self.shrink_first,
            "command": shlex.join(argv),
            "impl": self.impl,
            "baseline": self.baseline,
            "replay": self.replay,
            "only": tuple(self.only) or None,
            "time_budget": self.time_budget,
            "shard": share,
            "series_length": self.series_length,
            "strict": True if self.strict else None,
        }
        return RunSettings(verb=verb, **{**recorded, **verb_own})


def implementation_argv(settings):
    """The argv that starts the implementation: `--impl NAME` (a built-in adapter behind `serve`, or the
    driver of a library outside this Python, which speaks protocol v1 itself) or `--command`. Builds
    nothing: preparing a library's environment is the verb's own step before this
    (`oracle.adapters.environments.ready`)."""
    if settings.impl:
        from oracle.adapters.driven import driver_command

        if ":" not in settings.impl:
            registry.resolve(settings.impl, own_class=True)  # UnknownImplementation: a usage error
        driver = driver_command(settings.impl)
        if driver is not None:
            return driver
        argv = [sys.executable, "-m", "oracle", "serve", "--impl", settings.impl]
        if settings.impl == "oracle" and settings.profile:
            argv += ["--profile", settings.profile]
        return argv
    try:
        argv = shlex.split(settings.command)
    except ValueError as exc:
        raise BleuValueError(f"`--command` cannot be split: {exc}") from None
    if not argv:
        raise BleuValueError("`--command` is empty")
    return argv


#: Where a reproduction line writes its report: never over the run's own report.
REPLAY_REPORT = "bleu-oracle-replay"


def _bundled(path):
    """A case file of the suite bundled with bleu-oracle (reproduced without --cases)."""
    from oracle.suite.cases import DEFAULT_CASES_DIR

    try:
        Path(path).resolve().relative_to(Path(DEFAULT_CASES_DIR).resolve())
    except ValueError:
        return False
    return True


def now():
    return datetime.now(UTC).isoformat(timespec="seconds")


# -- the session ------------------------------------------------------------------------------


class Session:
    """One run: drives the implementation, judges, shrinks, classifies, records.

    `settings` is a `SessionSettings`.
    """

    def __init__(self, settings, argv, profile, process, writer, tracker, progress, work_dir=None):
        self.settings, self.argv, self.profile = settings, argv, profile
        self.writer, self.tracker, self.progress = writer, tracker, progress
        #: the implementation process judged on, and what it kept (`Channel`; `on` judges on another meanwhile)
        self.channel = Channel(process, profile)
        self.contract = Contract(rel=settings.rel, abs=settings.abs, strict=settings.strict)
        self.capabilities = process.handshake.capabilities
        #: outcome -> number of records, over the whole run
        self.counts = count_outcomes()
        #: over the whole run: the root causes of the failing records (count, smallest input), for the footer;
        #: memory does not grow with --examples however many fail (the console reads the report)
        self.root_causes = RootCauseTally()
        #: where the report ends up (named in reproduction lines), and where this run writes it meanwhile
        self.report_dir = Path(settings.report)
        self.work_dir = Path(work_dir) if work_dir is not None else self.report_dir
        #: case id -> the file it came from, when not the bundled suite (a reproduction line names it)
        self.case_files = {}
        name = process.handshake.implementation.name
        # the curated classes, then the root causes the baseline lists (`hinted_entries`), searched first
        self.documented = [*discrepancies.entries_for(registry.documented_as(settings.impl) if settings.impl else None,
                                                      name),
                           *hinted_entries(entry.id.removeprefix(CAUSE_PREFIX) for entry in tracker.baseline.entries
                                           if entry.id.startswith(CAUSE_PREFIX) and entry.outcome == Outcome.FAIL)]
        #: random examples drawn, and whether the time budget stopped the search early
        self.examples_run = 0
        self.worker_restarts = 0
        #: the restart budget the search charges by example (`RestartBudget`; one per run, shared by --jobs workers)
        self.budget = getattr(process, "budget", None) or RestartBudget(settings.max_restarts)
        self.budget.shrink_first = settings.shrink_first
        self.budget_spent = False
        #: the search cache of this run's key (`searchcache`; None: not used)
        self.search_cache: SearchCache | None = None
        #: whether the run has warned the user already (`warn`: one line per run)
        self.warned = False

    def judged(self):
        """How many records were judged (any outcome but not-applicable)."""
        return sum(n for outcome, n in self.counts.items() if outcome != Outcome.NOT_APPLICABLE.value)

    def nothing_judged(self):
        """Why a run judged nothing, in the user's words."""
        return nothing_judged(self.counts, self.examples_run, self.settings.time_budget, self.budget_spent)

    @property
    def process(self):
        """The transport of the channel judged on (`Channel.transport`)."""
        return self.channel.transport

    @property
    def coverage(self) -> Coverage:
        """What the inputs judged on the current channel exercised (`oracle.harness.coverage`), for the footer."""
        return self.channel.coverage

    @contextlib.contextmanager
    def on(self, channel: Channel) -> Iterator[None]:
        """Judge on `channel` meanwhile (its transport, history and coverage), then on the session's own again."""
        own, self.channel = self.channel, channel
        try:
            yield
        finally:
            self.channel = own

    def recorded(self, request, item_id, prepared=None):
        """What record `item_id` keeps of `request` as sent (`recorded_request`: beyond the record limit, its digest,
        from `prepared` when the request is one of the example's inputs)."""
        digest = prepared.record_digest() if prepared is not None and request.token_count > RECORD_TOKEN_LIMIT \
            else None
        return recorded_request(request, lambda: self._regenerate(item_id), digest)

    def send(self, request):
        """Send `request` on the channel and wait for its reply (`Channel.send`)."""
        return self.channel.send(request)

    def submit(self, request, prepared=None):
        """Send `request` on the channel with its next seq (`Channel.submit`)."""
        return self.channel.submit(request, prepared)

    def collect(self, request, pending, *, kept=True):
        """The reply to `request`, kept in the channel's history unless `kept` is False (`Channel.collect`)."""
        return self.channel.collect(request, pending, kept=kept)

    def warn(self, text):
        """One warning line for the user, the first of the run only (a worker's goes through its parent)."""
        if self.warned:
            return
        self.warned = True
        self.budget.warn(text)

    def cover(self, request, expected, prepared=None):
        """Count what `request` exercised (its features: `prepared`'s, computed once)."""
        statistics = None if expected.rejected else expected.statistics
        if prepared is None:
            self.coverage.add(request, statistics)
            return
        if prepared.features is None:
            prepared.features, prepared.fresh = tuple(sorted(features(request, statistics))), True
        self.coverage.add_features(prepared.features)

    # -- reproduction --

    def reproduce(self, record_id, request=None):
        parts = ["bleu-oracle", "check"]
        parts += ["--impl", self.settings.impl] if self.settings.impl else ["--command", self.settings.command]
        parts += ["--profile", self.profile]
        if self.settings.rel != DEFAULT_REL:
            parts += ["--rel", repr(self.settings.rel)]
        if self.settings.abs != DEFAULT_ABS:
            parts += ["--abs", repr(self.settings.abs)]
        if self.settings.strict:
            parts.append("--strict")
        if request is None:  # a case: re-run it by id, from its own file when it is not a bundled one
            source = self.case_files.get(record_id)
            parts += ["--cases", str(source)] if source is not None else []
            parts += ["--examples", "0", "--id", record_id, "--report", REPLAY_REPORT]
            return shlex.join(parts)
        # its JSON with every character that is not printable as its \u escape: the same input, safe to print
        payload = json_shown(encode(request.replay_payload(), ensure_ascii=False))
        if len(payload) > INLINE_REPLAY_LIMIT and self.settings.timings:  # a deterministic stream keeps it inline
            path = write_atomically(self.work_dir / "replay" / f"{record_id}.json", payload + "\n")
            payload = str(self.report_dir / "replay" / path.name)
        return shlex.join(parts + ["--replay", payload])

    # -- one item --

    def expected_for(self, request, *, overrides=None, document=None, profiles=()):
        return case_expected(request, self.profile, overrides=overrides, document=document, profiles=profiles)

    def inapplicable(self, item: Item) -> str | None:
        """Why `item` is not judged (not applicable: its input cannot be expressed in protocol v1, or lies outside
        the implementation's declared capabilities), or None."""
        if item.invalid or item.request is None:
            return item.invalid or "the input cannot be expressed in protocol v1"
        return None if item.within_capabilities else not_applicable_reason(item.request, self.capabilities)

    def evaluate(self, item: Item) -> Record:
        """Judge one input (an `Item`: what it is, its case context, its large-input policy) and write its
        record."""
        return self.assess(item)[0]

    def assess(self, item: Item) -> tuple[Record, Judgement | None]:
        """Judge one input (`judge`), diagnose a failure (sent once more, then shrunk and classified), and write its
        record: (the record, the judgement; None where the input was not applicable and nothing was sent)."""
        started = time.perf_counter()
        reason = self.inapplicable(item)
        if reason is not None:
            return self.finish(self._not_applicable(item, reason)), None  # (no clock reading: nothing was sent)
        judgement = self.judge(item)
        request, reply, verdict, expected = judgement.parts
        diagnosis = NOT_DIAGNOSED
        if verdict.outcome not in GOOD_OUTCOMES:
            before = self.channel.before()  # (taken before the request is sent again)
            waived = self.resend_waived(item.kind, verdict)
            again = None if waived else self.answered_again(request, reply, verdict, item.prepared, before=before,
                                                            expected=expected)
            diagnosis = self.nondeterministic(item, request, reply, again, expected) if again is not None \
                else self.diagnose(item, judgement, before=before)
            if waived:
                diagnosis = replace(diagnosis, note="; ".join(filter(None, [diagnosis.note,
                                                                           self.not_sent_again(verdict)])))
        record = judged_record(
            item,
            judgement,
            request=CorpusSummary(**item.summary) if item.summary is not None
            else self.recorded(judgement.sent, item.id, item.prepared),
            message="; ".join(filter(None, [verdict.message, *(f"runner: {note}" for note in reply.notes)])),
            diagnosis=diagnosis,
            timing=self.timing(reply.duration, started),
        )
        return self.finish(record), judgement

    def _not_applicable(self, item: Item, reason: str) -> Record:
        """The record of an input not judged (`inapplicable`): what it was, and why."""
        request = item.request
        recorded = (
            CorpusSummary(**item.summary)
            if item.summary is not None
            else (None if request is None else recorded_request(request.with_seq(0), lambda: self._regenerate(item.id)))
        )
        timing = self.timing(0.0)
        return Record(id=item.id, kind=item.kind, title=item.title, request=recorded, outcome=Outcome.NOT_APPLICABLE,
                      message=reason, label="not-applicable", duration=timing.duration, wall=timing.wall)

    def judge(self, item: Item) -> Judgement:
        """Send an applicable item's request and judge the reply against the oracle's expectation (computed while
        the implementation answers: an example's from its `Prepared`, a large input's when the item carries it, a
        case's under its context). A failure never rests on an expectation from the search cache alone
        (`confirmed_expectation`)."""
        request, prepared = item.request, item.prepared
        if request is None:  # (`inapplicable` says why: not sent)
            raise BleuValueError(f"{item.id}: no request to judge")
        sent, pending = self.submit(request, prepared)  # the implementation answers while the oracle computes
        inputs = item.inputs
        if inputs is not None:
            expected = inputs.expected_of(request, prepared)
        elif item.expected is not None:
            expected = item.expected
        else:
            expected = self.expected_for(request, overrides=item.overrides, document=item.document,
                                         profiles=item.profiles)
        self.cover(request, expected, prepared)
        reply = self.collect(sent, pending)
        verdict = self._verdict(request, reply, expected)
        if verdict.outcome not in GOOD_OUTCOMES and inputs is not None:  # never a failure on a cached value alone
            confirmed_expected = inputs.confirmed_expectation(request, prepared, expected)
            if confirmed_expected is not expected:
                expected, verdict = confirmed_expected, self._verdict(request, reply, confirmed_expected)
        if verdict.outcome == Outcome.REJECTED:
            self.coverage.add_refused(request)
        return Judgement(request=request, sent=sent, reply=reply, expected=expected, verdict=verdict)

    def _verdict(self, request, reply, expected):
        """The judge's verdict on `reply` to `request` (a plan of metric states is judged as a plan)."""
        if request.stateful is not None:
            return stateful.judge_plan(expected, reply, request, self.contract)
        return judge(expected, reply, self.contract, max_order=request.max_order,
                     token_counts=token_count_layers(request))

    def answered_again(self, request, reply, verdict, prepared=None, *, before=None, expected=None):
        """Before a failure (a fail or an error) is reported, its request is sent once more: the answer then, when
        it differs from `reply` (`repeat.answered_otherwise`): the implementation is nondeterministic there; else
        None. Kept out of the process's history, as a probe is. `before` and `expected` (the process's history
        before `reply`, and the oracle's expectation): an answer that state an earlier request left explains
        (`oracle.diagnose.stale`: a counter never reset answers each time otherwise) is that state's, not
        nondeterminism."""
        if verdict.outcome not in (Outcome.FAIL, Outcome.ERROR) or self.process.given_up:
            return None
        sent, pending = self.submit(request, prepared)
        again = self.collect(sent, pending, kept=False)
        if not repeat.answered_otherwise(reply, again, self.contract):
            return None
        if before is not None and expected is not None and (before.earlier or before.halvings) \
                and stale_answer(request, reply, before, self.profile, expected=expected, contract=self.contract):
            return None
        return again

    def resend_waived(self, kind, verdict):
        """Is this failing example's (or series step's) request reported without being sent once more
        (`budget.resend_waived`: the first failures of its kind in its block of examples were answered alike when
        sent again)? Never a case's, a relation's or a plan's, nor where nothing is shrunk (`--shrink-budget 0`:
        no kind is charged, every failure is sent again)."""
        if kind not in ("example", "series") or verdict.outcome not in (Outcome.FAIL, Outcome.ERROR) \
                or self.settings.shrink_budget <= 0 or self.budget.example < 0 or self.process.given_up:
            return False
        return self.budget.waives_resend(failure_kind(kind, verdict.outcome.value, verdict.layer, verdict.order))

    def not_sent_again(self, verdict):
        """What the message of a failure not sent again (`resend_waived`) adds, saying so."""
        return (f"not sent again: the first failure(s) of its kind ({self._kind_words(verdict)}) in "
                f"{self._block_words()} were answered alike when sent again")

    def nondeterministic(self, item: Item, request, reply, again, expected) -> Diagnosis:
        """The diagnosis of a failing record whose request was answered two ways: the root cause `nondeterministic`,
        both answers in its message, and a reproduction line that says it may pass. Not shrunk, not classified
        further: neither can be trusted on an implementation that answers one request two ways (and both cost tens
        of requests, or seconds of search, per record)."""
        if self.budget.example >= 0:  # the later failures of its block are classified cheaply (`cheaply_classified`)
            self.budget.may_shrink(NONDETERMINISTIC_KIND)
        classification = repeat.nondeterministic(reply, again, None if expected is None or expected.rejected
                                                 else expected.score)
        note = repeat.described(reply, again)
        if item.summary is not None:  # (a summary: too large to replay from a record)
            return Diagnosis(classification=classification, note=note)
        replay, line = self._reproduction(item.id, item.kind, request, request)
        return Diagnosis(classification=classification, replay=replay,
                         reproduce=line + repeat.reproduction_note(reply, again), note=note)

    def _reproduction(self, item_id, kind, request, reported):
        """(the replay input, the reproduction line) of a failing record: a case by its id, a series or a relation
        whole again (the state, or the other input, is the point), anything else by the input `reported` (its shrunk
        input, or `request` itself)."""
        if kind == "case" and not self.settings.replay:
            return request, self.reproduce(item_id)
        if kind in ("series", "metamorphic"):
            return reported, self._regenerate(item_id)
        return reported, self.reproduce(item_id, reported)

    def diagnose(self, item: Item, judgement: Judgement, *, before: Before = NOTHING_BEFORE) -> Diagnosis:
        """The diagnosis of a failing record: the shrunk input (a random example's, or a series step's), the root cause,
        the replay and the reproduction line. `before`: what the process had answered before this request, where the
        state an earlier request left is looked for (`oracle.diagnose.stale`)."""
        item_id, kind, overrides, summary = item.id, item.kind, item.overrides, item.summary
        request, reply, verdict, expected = judgement.parts
        search_all = item.attribution == "full"
        reported, judged, shrunk = request, judgement, None
        to_shrink, hints = self.shrink_decision(kind, verdict)
        if repeat.NONDETERMINISTIC in hints:
            return self.cheaply_classified(item, judgement)
        if to_shrink:
            shrunk, last = self.shrink(request, verdict, reply, expected)
            reported = shrunk.request
            if last is not None:
                judged = last
        classification = None
        if item.attribution != "none" and hints:
            classification = self._attribute_by_hints(
                judged.parts, hints, overrides, search_all=search_all,
                kind=failure_kind(kind, verdict.outcome.value, verdict.layer, verdict.order))
        elif item.attribution != "none" and judged is not judgement:
            classification = attribute_shrunk(
                judged.parts,
                judgement.parts,
                self.profile,
                entries=self.documented,
                overrides=overrides,
                search_all=search_all,
            )
        elif item.attribution != "none":
            classification = attribute(
                *judged.parts, self.profile, entries=self.documented, overrides=overrides, search_all=search_all
            )
        if to_shrink and classification is not None and classification.fits and judged is not judgement \
                and search_all:
            classification = self._told_apart(judged.parts, classification, overrides)
        if classification is not None and verdict.outcome == Outcome.ERROR and kind in ("example", "series"):
            classification = self._error_cause(judged.parts, request, classification, hints)
        if classification is not None and verdict.outcome in (Outcome.CRASH, Outcome.TIMEOUT) and kind == "example" \
                and reply.message != self.process.given_up:
            classification, shrunk = self._death_cause(request, verdict, classification)
            reported = shrunk.request if shrunk is not None else request
        if to_shrink and classification is not None:
            self.budget.classified((classification.name, *classification.fits))
        if classification is not None and (before.earlier or before.halvings):
            classification = with_stale(classification, self._stale(request, reply, before, expected, classification),
                                        request_alone_refuted=answered_right_before(request, before, expected,
                                                                                    self.contract))
        if summary is not None:  # (a summary: too large to replay from a record)
            return Diagnosis(classification=classification, shrunk=shrunk)
        replay, line = self._reproduction(item_id, kind, request, reported)
        return Diagnosis(classification=classification, shrunk=shrunk, replay=replay, reproduce=line)

    def cheaply_classified(self, item: Item, judgement: Judgement) -> Diagnosis:
        """A failing record answered alike when sent once more, after an earlier example of its block was answered
        two ways (`budget.nondeterministic_before`): not shrunk, and classified among the implementation's
        documented classes only, without the search among every explanation or the history's probes: a cause
        found on an implementation that answers requests two ways cannot be trusted, and the search costs seconds
        per record (its run stays within a few times a conforming run's cost)."""
        classification = attribute(*judgement.parts, self.profile, entries=self.documented,
                                   overrides=item.overrides, search_all=False)
        if classification.name == UNEXPLAINED:
            classification = classification.model_copy(update={"description": (
                "not searched among every explanation: an earlier example of this block had a request answered "
                "two ways (nondeterministic), and no cause found on this implementation can be trusted")})
        if item.summary is not None:
            return Diagnosis(classification=classification)
        replay, line = self._reproduction(item.id, item.kind, judgement.request, judgement.request)
        return Diagnosis(classification=classification, replay=replay, reproduce=line)

    def _told_apart(self, judged, classification, overrides):
        """A shrunk record's classification after one related input, sent to tell its fitting explanations apart
        (`oracle.harness.separate`): those the answer rules out leave its fits."""
        if self.process.given_up:
            return classification
        names = (classification.name, *classification.fits)

        def ask(variant):
            _, answer = self.send(variant)
            return answer.score if answer.kind == "score" else None

        kept = names
        for _ in range(SEPARATING_REQUESTS):  # each request may rule out some: the rest are tried again
            found = told_apart(judged[0], judged[1], self.profile, kept, self.capabilities, ask, overrides=overrides)
            if found is None or len(found[0]) == len(kept):
                break
            kept = found[0]
            if len(kept) == 1 or self.process.given_up:
                break
        if len(kept) == len(names):
            return classification
        if classification.name not in kept:
            renamed = attribute(*judged, self.profile, entries=self.documented, overrides=overrides,
                                among=parse_cause(kept[0]))
            classification = renamed if renamed.name == kept[0] else classification
        return classification.model_copy(update={
            "fits": tuple(name for name in kept if name != classification.name),
            "ruled_out": tuple(name for name in names if name not in kept)})

    def _error_cause(self, judged, original, classification, hints):
        """An error record's cause (`oracle.diagnose.errorcauses`): the first cause its kind's shrunk errors were
        given that its input holds; else the features of its (shrunk) input that neighbours asked now confirm
        (kept out of the history). Its `error` classification where none is confirmed."""
        failing, verdict = judged[0], judged[2]
        name = errorcauses.hinted(failing, hints)
        if name is not None:
            description = f"{errorcauses.describe(name)}, as in a shrunk error of its kind"
        elif self.process.given_up:
            return classification
        else:
            cause = errorcauses.error_cause(failing, self._errs, also_failing=(original,),
                                            methods=self.capabilities.smoothing)
            if cause is None:
                return classification
            name, description = cause.name, cause.description
        return classification.model_copy(update={"name": name, "description": f"{description} ({verdict.message})"})

    def _death_cause(self, request, verdict, classification):
        """A crash's or a timeout's cause (`oracle.harness.crashcauses`), and the Shrunk part of its record (None when
        not probed): probed in processes of their own for the first death of its kind in its block of examples
        (the shrink allowance), else named by a probed cause of its kind that it has. Its classification as it
        was where nothing is known."""
        outcome = verdict.outcome.value
        died_after = self.channel.died_after
        if self.settings.shrink_budget <= 0 or not isinstance(self.process, ImplementationProcess):
            return classification, None
        probe, hints = self.budget.may_shrink(failure_kind("example", outcome, None, None))
        if not probe:
            name = crashcauses.hinted(request, died_after, hints)
            if name is None:
                return classification, None
            known = errorcauses.describe(name) if errorcauses.parts(name) else (
                f"the process {'dies' if outcome == 'crash' else 'hangs'} on its request {died_after + 1} whatever "
                f"it is (this one did so on its request {died_after + 1})" if died_after is not None else name)
            return classification.model_copy(update={"name": name, "description": (
                f"{known}, as in a probed {outcome} of its kind ({verdict.message})")}), None
        prober = crashcauses.ProcessProber(self.process, self.capabilities,
                                           max_deaths=crashcauses.TIMEOUT_HANGS if outcome == "timeout" else None)
        queries = {"shrink": 0, "steps": 0}

        def shrunk(failing, still_fails):
            rejected = oracle_expected(failing, self.profile).rejected

            def still(candidate):
                return oracle_expected(candidate, self.profile).rejected == rejected and still_fails(candidate)
            result = shrink(failing, still, capabilities=self.capabilities, budget=self.settings.shrink_budget,
                            deadline=time.perf_counter() + self.settings.shrink_seconds)
            queries.update(shrink=result.queries, steps=result.steps)
            return result.request
        try:
            cause = crashcauses.crash_cause(request, prober, outcome=outcome, methods=self.capabilities.smoothing,
                                            shrink=shrunk)
        finally:
            prober.close()
        name = cause.name if cause is not None else classification.name
        self.budget.classified((name,))
        if cause is None:
            return classification, None
        part = Shrunk(request=cause.shrunk or request, steps=queries["steps"] if cause.shrunk else 0,
                      queries=queries["shrink"], message=verdict.message,
                      note=f"probed in {prober.starts} process(es) of their own")
        return classification.model_copy(update={"name": name, "description": (
            f"{cause.description} ({verdict.message})")}), part

    def _errs(self, probe):
        """Whether the implementation answers `probe` with an error (`errorcauses.Ask`): None where it cannot be
        asked (outside its capabilities, the process given up) or the answer is neither (a crash, a timeout)."""
        if self.process.given_up or not_applicable_reason(probe, self.capabilities) is not None:
            return None
        sent, pending = self.submit(probe)
        return {"error": True, "unsupported": True, "score": False, "rejected": False}.get(
            self.collect(sent, pending, kept=False).kind)

    def _stale(self, request, reply, before, expected, classification):
        """The state an earlier request left that explains a failing answer (`oracle.diagnose.stale`), or None.
        Where a mechanism of the request alone explains it too, an earlier answer from another case or example
        counts only when probes confirm it: the request with a part the two differ in changed once more, two ways,
        sent now, each answered the same (a cache keyed without that part), and wrongly. The probes are kept out of
        the history, and a stateless implementation answers them alike however the run is split."""
        explained = (classification.name != UNEXPLAINED and not is_partial(classification.parts)
                     and bool(classification.change))
        stale = stale_answer(request, reply, before, self.profile, expected=expected, contract=self.contract,
                             explained=explained)
        if stale is not None or not explained or self.process.given_up:
            return stale
        outside = stale_answer(request, reply, before, self.profile, expected=expected, contract=self.contract)
        match = earlier_match(request, reply, before.earlier, self.profile, contract=self.contract)
        if outside is None or outside.name != EARLIER_ANSWER or match is None:
            return None
        _, parts, exchange = match
        applicable = [(part, probe) for part, probe in probes(request, exchange.request, parts,
                                                              self.capabilities.smoothing)
                      if not_applicable_reason(probe, self.capabilities) is None][:PROBES_NEEDED]
        if len(applicable) < PROBES_NEEDED:
            return None
        answered = []
        for part, probe in applicable:
            sent, pending = self.submit(probe)
            answered.append((part, probe, self.collect(sent, pending, kept=False)))
        return confirmed(outside, answered, reply, self.profile, self.contract)

    def shrink_decision(self, kind, verdict):
        """Shrink this failing example? Only the first `shrink_first` of each kind of failure in its block
        of examples (`budget.shrink_allowed`): each shrink costs tens of requests. If not, the root
        causes of its kind's shrunk examples, to test first: (shrink, hints)."""
        failed = verdict.outcome in (Outcome.FAIL, Outcome.ERROR)
        if kind not in ("example", "series") or not failed or self.settings.shrink_budget <= 0:
            return False, ()
        return self.budget.may_shrink(failure_kind(kind, verdict.outcome.value, verdict.layer, verdict.order))

    def _attribute_by_hints(self, judged, hints, overrides, *, search_all, kind):
        """An example not shrunk: classified among `hints` (its kind's shrunk examples' root causes and what
        else fitted them) first, so every one of them that explains it is kept; else as any record is, within its
        kind's allowance of searches among every explanation in its block (`budget.full_search_allowed`, `kind`: its
        failure kind), the mechanisms such a search names joining the hints of its kind's later failures. Where
        every shrunk example of its kind in its block stayed unexplained after the full search (`search_among_all`),
        or the allowance is spent, among the documented classes only and named by what is known
        (`_named_without_full_search`): the search among every explanation would most likely name nothing again, or
        a coincidence again, at up to some ten seconds per record."""
        if not search_among_all(hints):
            return self._named_without_full_search(judged, overrides, search_all, self._unexplained_kind(judged[2]))
        among = tuple(dict.fromkeys(part for hint in hints for part in parse_cause(hint)))
        named = attribute(*judged, self.profile, entries=self.documented, overrides=overrides, among=among)
        if named.change:
            return named
        if not search_all:
            return attribute(*judged, self.profile, entries=self.documented, overrides=overrides, search_all=False)
        if not self.budget.may_search_all(kind):
            return self._named_without_full_search(judged, overrides, search_all, self._searches_spent(judged[2]))
        named = attribute(*judged, self.profile, entries=self.documented, overrides=overrides)
        if named.change and names_a_mechanism(named.name):  # its kind's later failures are tested against it too
            self.budget.searched_named(kind, tuple(filter(names_a_mechanism, (named.name, *named.fits))))
        return named

    def _named_without_full_search(self, judged, overrides, search_all, why):
        """A failure not searched among every explanation (`why`, in words): among its implementation's documented
        classes alone (none: no explanation, which still tells a score that agrees), else named by what is known of
        the difference (its layer and the score stage its numbers are consistent with), its description saying
        that the search was not run and why."""
        classes = tuple(search_classes(self.documented))
        named = attribute(*judged, self.profile, entries=self.documented, overrides=overrides, among=classes)
        if named.name != UNEXPLAINED or not search_all:
            return named
        documented = "no documented class of this implementation explains it, and " if classes else ""
        cut = f"{documented}the search among every explanation was not run: {why}"
        # what is known costs the oracle once and a few exact tests: a cut record is still named by its layer and
        # the score stage its numbers are consistent with, never a bare `unexplained` where they tell
        request, reply, _verdict, _expected = judged
        known = what_is_known(request, reply, self.profile, overrides=overrides)
        if known.name != UNEXPLAINED:
            named = known.classification(scope="all")
            return named.model_copy(update={"description": f"{known.description}; {cut}"})
        return named.model_copy(update={"description": cut})

    def _block_words(self):
        """The block of examples the example being judged is in, in words."""
        if self.budget.example < 0:
            return "its block"
        first = self.budget.example // SHRINK_BLOCK * SHRINK_BLOCK
        return f"examples {first}-{first + SHRINK_BLOCK - 1}"

    @staticmethod
    def _kind_words(verdict):
        """A failure's kind (`budget.failure_kind`), in words."""
        first = f"first differing at {verdict.layer}" if verdict.layer else "of its outcome"
        return f"{verdict.outcome.value}, {first}"

    def _unexplained_kind(self, verdict):
        """Why a failure was not searched among every explanation (`search_among_all`): its kind, and the block of
        examples it was judged in."""
        return (f"the shrunk failure of its kind ({self._kind_words(verdict)}) in {self._block_words()} stayed "
                "unexplained after it (most likely a bug no explanation names)")

    def _searches_spent(self, verdict):
        """Why a failure was not searched among every explanation (`budget.full_search_allowed`): its kind's
        allowance of such searches in its block was spent."""
        allowance = max(self.settings.shrink_first, 1)
        return (f"the root causes of its kind's shrunk failure(s) ({self._kind_words(verdict)}) in "
                f"{self._block_words()} do not explain it, and the {allowance} search(es) among every explanation "
                "its kind is allowed in a block (--shrink-first) went to earlier failures (the bug may take more "
                "than one name, or the shrunk failure's was a coincidence)")

    def shrink(self, request, verdict, reply=None, expected=None):
        """Shrink a failing example: (the Shrunk part of its record, the last failing judgement or None)."""
        still_fails = SameFailure(
            request,
            verdict,
            reply,
            profile=self.profile,
            capabilities=self.capabilities,
            send=self.send,
            contract=self.contract,
            given_up=lambda: self.process.given_up,
            expected=expected,
        )
        outcome = shrink(
            request,
            still_fails,
            capabilities=self.capabilities,
            budget=self.settings.shrink_budget,
            deadline=time.perf_counter() + self.settings.shrink_seconds,
        )
        last = still_fails.last  # (set by every step: a step is a candidate that failed the same way)
        if not outcome.steps or last is None:
            return Shrunk(
                request=request,
                steps=0,
                queries=outcome.queries,
                exhausted=outcome.exhausted,
                message=verdict.message,
                layer=verdict.layer,
                order=verdict.order,
                note="no simpler input fails the same way",
            ), None
        final = last.verdict
        return Shrunk(
            request=outcome.request,
            expected=last.expected,
            actual=last.reply.recorded(),
            layer=final.layer,
            order=final.order,
            message=final.message,
            steps=outcome.steps,
            queries=outcome.queries,
            exhausted=outcome.exhausted,
        ), last

    def timing(self, duration: float, started: float | None = None) -> Timing:
        """A record's clock readings: `duration`, the implementation's seconds, and the wall time since `started`
        (None: not measured); both 0 where the stream keeps no clock readings (`SessionSettings.timings`)."""
        if not self.settings.timings:
            return Timing(0.0, 0.0)
        if started is None:
            return Timing(duration, None)
        return Timing(round(max(duration, 0.0), 6), round(time.perf_counter() - started, 6))

    def finish(self, record):
        """Account for a record built whole (`account`; on the progress line where the channel says so), then stop
        here if a stop signal came meanwhile."""
        record = self.account(record, progress=self.channel.progress)
        raise_if_stopped()  # a stop signal whose exception something swallowed stops the run here
        return record

    def account(self, record, *, progress=True):
        """Gate a finished record by the baseline, write it, and count it (`progress`: on the progress
        line too; a worker's records were counted there as they came)."""
        record = record.model_copy(
            update={"baseline_key": baseline_key(record), "baseline": self.tracker.status(record)}
        )
        self.writer.write(record)
        outcome = record.outcome.value
        self.counts[outcome] = self.counts.get(outcome, 0) + 1
        if not record.good:
            self.root_causes.add(kept_for_console(record))
        if progress and record.kind not in RIDING_KINDS and "~" not in record.id:  # cases and examples
            self.progress.update(outcome)
        return record

    # -- the kinds of work --

    def run_cases(self, cases):
        """The cases `only` selects and this run's shard owns (`oracle.harness.shards`), in their order."""
        shard = Shard(self.settings.shard[0] + 1, self.settings.shard[1])
        position = -1
        for case in cases:
            try:
                item = case_to_request(case, seq=0, profile=self.profile)
            except BleuOracleError as exc:
                raise BleuValueError(f"case {getattr(case, 'id', '?')}: {exc}") from None
            if not selected(item.case_id, self.settings.only):
                continue
            position += 1
            if not shard.owns(position):
                continue
            if not _bundled(case.path):
                self.case_files[item.case_id] = case.path
            self.channel.start_unit()
            self.evaluate(Item.of_case(item))

    def run_examples(self):
        """The differential search: `examples` random inputs (fewer if `time_budget` runs out first),
        and on every `relation_every`-th passing one, one metamorphic relation. The restart budget
        hears where each example starts and ends (it is charged by example: `RestartBudget`)."""
        deadline = None if self.settings.time_budget is None else time.perf_counter() + self.settings.time_budget
        # with the budget spent on the cases, every example is "not attempted" at once: no workers for that
        if self.settings.jobs > 1 and self.budget.may_restart():
            return self.run_examples_in_workers()
        share = ExampleShare(*self.settings.shard, *self.settings.worker)
        self.search_cache = self.open_search_cache()
        try:
            for index in range(self.settings.examples):
                if not share.owns(index):
                    continue
                if deadline is not None and time.perf_counter() > deadline:
                    self.budget_spent = True
                    self.progress.note(f"time budget of {self.settings.time_budget:g} s spent after {index} examples")
                    break
                self.budget.example_started(index)
                self.judge_cached_example(index)
                self.budget.example_finished(index)
        finally:
            if self.search_cache is not None:
                self.search_cache.close()

    def open_search_cache(self):
        """This run's search cache (`searchcache`), or None with `--no-search-cache`."""
        if not self.settings.search_cache:
            return None
        key = run_key(self.settings.seed, self.capabilities, self.profile, self.settings.series_length)
        return SearchCache(cache_root(), key)

    def judge_cached_example(self, index):
        """`judge_example` (`oracle.harness.work.examples`), its inputs read from the search cache and what was
        computed afresh written back."""
        cache = self.search_cache
        entry = None if cache is None else cache.load(index)
        try:
            judge_example(self, index, self.example_inputs(index, entry))
        finally:
            if cache is not None and entry is not None:
                cache.store(entry)

    def example_inputs(self, index: int, entry: ExampleEntry | None = None) -> ExampleInputs:
        """The inputs of example `index`, from its search cache `entry` (None: drawn now, nothing kept)."""
        return ExampleInputs(example_id(self.settings.seed, index), self.expected_for, self.warn, entry,
                             self.search_cache if entry is not None else None)

    def example_request(self, index):
        """Random example `index` of this run's seed, for the implementation's capabilities and the profile."""
        options = PROFILES[self.profile].options
        return example_request(
            self.settings.seed,
            index,
            self.capabilities,
            uniform_only=options.uniform_weights_only,
            profile_smoothing=options.smoothing.to_json(),
        )

    def run_examples_in_workers(self):
        """The search in `jobs` worker processes (`oracle.harness.worker.search`): the stream one
        process writes, restarts and "not attempted" included (durations and seq numbers aside)."""
        from . import worker

        worker.search(self)

    def _regenerate(self, record_id):
        """The command that sends a record's input again (a random example: its seed and id)."""
        if not record_id.startswith("random-"):
            return "the input is not kept: it is larger than the record limit"
        parts = ["bleu-oracle", "check"]
        parts += ["--impl", self.settings.impl] if self.settings.impl else ["--command", self.settings.command]
        index = int(record_id.split("~")[0].rsplit("-", 1)[1])
        return shlex.join(
            parts
            + [
                "--profile",
                self.profile,
                "--seed",
                str(self.settings.seed),
                "--no-cases",
                "--examples",
                str(index + 1),
                "--id",
                record_id,
            ]
            + (
                ["--series-length", str(self.settings.series_length)]
                if self.settings.series_length != DEFAULT_SERIES_LENGTH and "~series" in record_id
                else []
            )
        )

    def run_replay(self, inputs):
        for label, request in inputs:
            self.evaluate(Item(label, "replay", request))


# -- the lifecycle --------------------------------------------------------------------------------


def _refusal(profile: str, implementation: str, tracker: BaselineTracker) -> str | None:
    """Why a run must stop right after the handshake (a usage error): a profile the oracle does not have, or a
    baseline written for another implementation or profile."""
    if profile not in PROFILES:
        return (f"the implementation declares profile {profile!r}, which is not one of {sorted(PROFILES)}; "
                "give --profile")
    return tracker.another(implementation, profile)


@dataclass(frozen=True)
class _Clock:
    """A run's clock readings for its header and footer: none (an empty time, 0 s) where the stream keeps none."""

    started: float
    timings: bool

    def now(self) -> str:
        return now() if self.timings else ""

    def elapsed(self) -> float:
        return round(time.perf_counter() - self.started, 3) if self.timings else 0.0


def _stopped(clock: _Clock, tracker: BaselineTracker, code: int, **fields) -> Footer:
    """The footer of a run stopped before any input was judged."""
    return Footer(
        counts=count_outcomes(),
        baseline=tracker.summary(),
        gate="fail",
        exit_code=code,
        restarts=0,
        duration=clock.elapsed(),
        finished=clock.now(),
        **fields,
    )


def _undrivable(writer, header, settings, verb, exc, clock, tracker):
    """The header and footer of a run whose implementation could not be driven, and why, on stderr."""
    writer.write(
        Header(**header, judged_profile=settings.profile, handshake_error=str(exc), handshake_stderr=exc.stderr)
    )
    writer.write(_stopped(clock, tracker, EXIT_UNDRIVABLE))
    print(shown(f"bleu-oracle {verb}: the implementation could not be driven: {exc}"), file=sys.stderr)
    if exc.stderr.strip():
        print("its stderr:\n" + shown(exc.stderr.rstrip()[-2000:], lines=True), file=sys.stderr)


def _worked(session, process, work, require_judged):
    """Run `work(session)`, then stop the process: (the BleuOracleError it raised or None, the exit code of a stop
    signal or None). `require_judged`: a run that judged nothing is such an error too."""
    error = interrupted = None
    try:
        work(session)
    except BleuOracleError as exc:
        error = exc
    except (KeyboardInterrupt, Interrupted) as exc:  # ^C or SIGTERM: stop, and say so in the footer
        interrupted = exit_code_of(exc)
    finally:
        process.stop()
        session.progress.finish()
    if require_judged and error is None and interrupted is None and not session.judged():
        error = BleuValueError(session.nothing_judged())
    return error, interrupted


def _footer(session, process, tracker, clock, error, interrupted):
    """(the exit code, the footer) of a run that judged its inputs: counts, gate, restarts, coverage, causes."""
    gate_failed = tracker.gate_failed()
    code = interrupted or (EXIT_USAGE if error else (EXIT_DEVIATIONS if gate_failed else EXIT_OK))
    coverage = session.coverage.table(
        session.capabilities, uniform_only=PROFILES[session.profile].options.uniform_weights_only
    )
    return code, Footer(
        counts=dict(session.counts),
        baseline=tracker.summary(),
        gate="fail" if gate_failed or error or interrupted else "pass",
        exit_code=code,
        restarts=process.restarts + session.worker_restarts,
        duration=clock.elapsed(),
        finished=clock.now(),
        error=str(error) if error else None,
        interrupted=True if interrupted else None,
        examples=session.examples_run,
        time_budget_spent=session.budget_spent,
        coverage=coverage,
        causes=run_causes(session.root_causes),
    )


def run_session(
    settings, argv, *, recorded, tracker, total, work, report_dir, transport=None, require_judged=False
):
    """Start the implementation, write the header, run `work(session)`, write the footer.

    `transport` drives the implementation (default: an `ImplementationProcess` running `argv`; an
    `oracle.harness.inprocess.InProcessImplementation` runs a built-in adapter in this process).
    `recorded` is what the header records of the settings, the verb's name with them (a `RunSettings`:
    `SessionSettings.run_settings` for check and fuzz).

    Returns (exit code, session); the session is None when the implementation could not be
    driven (exit code 3, reported on stderr). Raises BleuValueError when the declared profile is
    unknown, and re-raises a BleuOracleError from `work` after the footer is written.
    `require_judged`: a run that judged nothing (every input not applicable, nothing selected) is such an
    error too (exit 2), never a green gate.
    """
    clock = _Clock(time.perf_counter(), settings.timings)
    discrepancies.load()  # an unreadable discrepancies.yaml is a configuration error before anything starts
    process = transport or ImplementationProcess(argv, timeout=settings.timeout, max_restarts=settings.max_restarts)
    verb = recorded.verb
    with ResultsWriter(Path(report_dir) / RESULTS_FILE) as writer:
        header = {
            "suite_version": SUITE_VERSION,
            "oracle_version": __version__,
            "settings": recorded,
            "started": clock.now(),
        }
        try:
            handshake = process.start()
        except HandshakeError as exc:
            _undrivable(writer, header, settings, verb, exc, clock, tracker)
            return EXIT_UNDRIVABLE, None
        profile = settings.profile or handshake.profile
        writer.write(
            Header(
                **header,
                implementation=handshake.implementation,
                profile=handshake.profile,
                judged_profile=profile,
                capabilities=handshake.capabilities,
                handshake_stderr=process.take_stderr(),
            )
        )
        refusal = _refusal(profile, handshake.implementation.name, tracker)
        if refusal is not None:
            process.stop()
            writer.write(_stopped(clock, tracker, EXIT_USAGE, error=refusal))
            raise BleuValueError(refusal)
        progress = Progress(total, enabled=not settings.quiet, label=verb)
        session = Session(settings, argv, profile, process, writer, tracker, progress, work_dir=report_dir)
        error, interrupted = _worked(session, process, work, require_judged)
        code, footer = _footer(session, process, tracker, clock, error, interrupted)
        writer.write(footer)
    if error:
        raise error
    return code, session
