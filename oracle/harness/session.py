"""One run against an implementation process, shared by `check` and `fuzz`.

A `Session` owns the machinery both verbs drive: it sends each input (a case,
a random example or a replayed input) to the implementation, judges the reply
against the oracle (`oracle.models.outcomes.judge`), has a failure diagnosed (`oracle.harness.diagnosis`:
sent once more, a random example shrunk, the root cause named, first among the implementation's documented
discrepancy classes in `oracle/diagnose/data/discrepancies.yaml`, then among all explanations), and
writes one record per input to the event stream (`oracle.harness.events`).

`run_session` is the lifecycle around it: start the process and read the
handshake (exit code 3 when it cannot be driven), write the header, let the
verb do its work, stop the process, write the footer. The reports derived from
`results.jsonl` (summary.md, junit.xml) are the verb's to write, from the
stream alone (`oracle.reports.summaries.write_derived_reports`).
"""

from __future__ import annotations

import contextlib
import functools
import os
import shlex
import sys
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, fields
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from oracle import __version__
from oracle.diagnose import discrepancies
from oracle.diagnose.attribute import SearchClass, hinted_classes
from oracle.diagnose.expect import case_expected
from oracle.diagnose.judge import DEFAULT_ABS, DEFAULT_REL, Contract
from oracle.escaping import close_name, shown
from oracle.exitcodes import (
    EXIT_DEVIATIONS,
    EXIT_OK,
    EXIT_UNDRIVABLE,
    EXIT_USAGE,
)
from oracle.formulas.errors import BleuOracleError, BleuValueError
from oracle.formulas.profiles import PROFILES
from oracle.models.baseline import CAUSE_PREFIX
from oracle.models.outcomes import (
    GOOD_OUTCOMES,
    RIDING_KINDS,
    Outcome,
)
from oracle.models.protocol import Handshake
from oracle.models.results import (
    Footer,
    Header,
    Record,
    RunCause,
    RunSettings,
)
from oracle.signals import Interrupted, exit_code_of, raise_if_stopped, stopped_by_signals  # noqa: F401 (re-exported)
from oracle.suite import SUITE_VERSION

from .budget import DEFAULT_SHRINK_FIRST
from .channel import Channel
from .coverage import Coverage
from .diagnosis import (  # noqa: F401 (NOTHING_BEFORE, names_a_mechanism, search_among_all re-exported)
    NOTHING_BEFORE,
    DiagnosisContext,
    diagnose,
    names_a_mechanism,
    search_among_all,
)
from .events import RESULTS_FILE, FailureCause, ResultsWriter, RootCauseTally, count_outcomes
from .gate import BaselineTracker, Finding
from .generate import DEFAULT_SERIES_LENGTH, example_id, example_request
from .judging import judge_item
from .progress import Progress
from .reproduction import REPLAY_REPORT, Reproduction  # noqa: F401 (REPLAY_REPORT re-exported)
from .requests import not_applicable_reason
from .searchcache import (
    ExampleEntry,
    SearchCache,
    cache_root,
    run_key,
)
from .shards import ExampleShare, Shard
from .shrink import DEFAULT_BUDGET, DEFAULT_SHRINK_SECONDS
from .stages import (
    NOT_DIAGNOSED,
    RECORD_TOKEN_LIMIT,
    Diagnosis,
    Item,
    Judgement,
    Timing,
    built_record,
    judged_record,
    recorded_request,
    selected,  # noqa: F401 (re-exported: commands/check.py)
)
from .transport import (
    DEFAULT_MAX_RESTARTS,
    DEFAULT_TIMEOUT,
    HandshakeError,
    ImplementationProcess,
    RestartBudget,
    Transport,
)
from .work.cases import run_cases, run_replay
from .work.examples import ExampleInputs, judge_example

#: Random examples a `check` or `fuzz` run draws unless told otherwise.
DEFAULT_EXAMPLES = 200


def run_causes(tally: RootCauseTally) -> tuple[RunCause, ...] | None:
    """The footer's root causes, from the session's tally (None when nothing failed)."""
    return tuple(tally.run_causes()) or None


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
    #: seconds one failing example may spend shrinking: a safety limit, the query budget decides first
    #: (`shrink.DEFAULT_SHRINK_SECONDS`; a record the clock stopped says so)
    shrink_seconds: float = DEFAULT_SHRINK_SECONDS
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
    #: requests in each series of short requests to one process (`oracle.harness.work.series`; 0: no series)
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
        from oracle.adapters import registry
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


def now():
    return datetime.now(UTC).isoformat(timespec="seconds")


def _documented_as(impl: str | None) -> str | None:
    """The name `--impl NAME`'s curated classes are filed under (`registry.documented_as`); None for `--command`.
    The registry (every adapter's entry and the library drivers' table) is imported only here and in
    `implementation_argv`: a run against `--command`, and each of its `--jobs` workers, never needs it."""
    if not impl:
        return None
    from oracle.adapters import registry

    return registry.documented_as(impl)


# -- the session ------------------------------------------------------------------------------


class Session:
    """One run: drives the implementation, judges, has failures diagnosed (`oracle.harness.diagnosis`), records.

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
        #: over the whole run: the root causes of the failing records (`FailureCause`s counted), for the footer;
        #: memory does not grow with --examples however many fail (the console reads the report)
        self.root_causes = RootCauseTally(profile=profile)
        #: where the report ends up (named in reproduction lines), and where this run writes it meanwhile
        self.report_dir = Path(settings.report)
        self.work_dir = Path(work_dir) if work_dir is not None else self.report_dir
        #: how a failing record is reproduced (`oracle.harness.reproduction`), and its case id -> the file it came
        #: from, when not the bundled suite (a reproduction line names it)
        self.reproduction = Reproduction(settings, profile, self.report_dir, self.work_dir)
        self.case_files = self.reproduction.case_files
        #: the names the implementation's curated classes are filed under (`documented`)
        self.documented_as = (_documented_as(settings.impl), process.handshake.implementation.name)
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

    @functools.cached_property
    def documented(self):
        """The curated classes filed under the implementation, then the root causes the baseline lists
        (`hinted_classes`), searched first; built when a failure is first classified, so that a `--jobs` worker that
        classifies none never reads discrepancies.yaml (about 60 ms of its CPU; its parent read it at the start)."""
        return [*map(SearchClass.curated, discrepancies.models_for(*self.documented_as)),
                *hinted_classes(entry.cause_parts for entry in self.tracker.baseline.entries
                                if entry.id.startswith(CAUSE_PREFIX) and entry.outcome == Outcome.FAIL)]

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
        return recorded_request(request, lambda: self.reproduction.regenerate(item_id), digest)

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
        """Count what `request` exercised on the current channel (`Channel.cover`)."""
        self.channel.cover(request, expected, prepared)

    # -- one item --

    def expected_for(self, request, *, overrides=None, document=None, profiles=()):
        return case_expected(request, self.profile, overrides=overrides, document=document, profiles=profiles)

    def inapplicable(self, item: Item) -> str | None:
        """Why `item` is not judged (not applicable: its input cannot be expressed in protocol v1, or lies outside
        the implementation's declared capabilities), or None."""
        if item.invalid or item.request is None:
            return item.invalid or "the input cannot be expressed in protocol v1"
        if item.within_capabilities:
            return None
        prepared = item.prepared
        if prepared is None:
            return not_applicable_reason(item.request, self.capabilities)
        # a random example's input: asked once, and kept with it in the search cache, whose run key holds the
        # capabilities (`searchcache.run_key`)
        if prepared.inapplicable is None:
            reason = not_applicable_reason(prepared.request, self.capabilities)
            prepared.inapplicable, prepared.fresh = reason or "", True
        return prepared.inapplicable or None

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
        reply, verdict = judgement.reply, judgement.verdict
        diagnosis = NOT_DIAGNOSED if verdict.outcome in GOOD_OUTCOMES \
            else self.diagnose(item, judgement, item.prepared)
        record = judged_record(
            item,
            judgement,
            request=item.summary if item.summary is not None
            else self.recorded(judgement.sent, item.id, item.prepared),
            message="; ".join(filter(None, [verdict.message, *(f"runner: {note}" for note in reply.notes)])),
            diagnosis=diagnosis,
            timing=self.timing(reply.duration, started),
            gate=self.tracker.gate,
        )
        return self.finish(record), judgement

    def _not_applicable(self, item: Item, reason: str) -> Record:
        """The record of an input not judged (`inapplicable`): what it was, and why."""
        request = item.request
        recorded = (
            item.summary
            if item.summary is not None
            else (None if request is None
                  else recorded_request(request.with_seq(0), lambda: self.reproduction.regenerate(item.id)))
        )
        return built_record(Finding(item.id, item.kind, Outcome.NOT_APPLICABLE, message=reason), self.tracker.gate,
                            title=item.title, request=recorded, label="not-applicable",
                            timing=self.timing(0.0))

    def judge(self, item: Item) -> Judgement:
        """Send an applicable item's request on the current channel and judge its reply (`judging.judge_item`)."""
        return judge_item(item, self.channel, self.contract, self.profile)

    def diagnose(self, item: Item, judgement: Judgement, prepared=None) -> Diagnosis:
        """A failing item's diagnosis on the current channel (`oracle.harness.diagnosis.diagnose`)."""
        return diagnose(item, judgement, self.diagnosis_context(), prepared)

    def diagnosis_context(self) -> DiagnosisContext:
        """What the diagnosis of a failure on the current channel reads and asks (`oracle.harness.diagnosis`)."""
        settings = self.settings
        return DiagnosisContext(profile=self.profile, capabilities=self.capabilities, contract=self.contract,
                                documented=self.documented, budget=self.budget, channel=self.channel,
                                reproduction=self.reproduction, shrink_budget=settings.shrink_budget,
                                shrink_seconds=settings.shrink_seconds, shrink_first=settings.shrink_first)

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

    def account(self, record, *, progress=True, written=None):
        """Write a record built whole (gated by the baseline as it was built: `stages.built_record`), and count it
        (`progress`: on the progress line too; a worker's records were counted there as they came, and are copied
        as the worker `written` them: `ResultsWriter.write`)."""
        self.writer.write(record, written=written)
        outcome = record.outcome.value
        self.counts[outcome] = self.counts.get(outcome, 0) + 1
        cause = FailureCause.of(record)
        if cause is not None:
            self.root_causes.add_cause(cause)
        else:  # a bounded sample of the passing requests, read where names tie (`RootCauseTally.add_passing`)
            self.root_causes.add_passing(record)
        if progress and record.kind not in RIDING_KINDS and "~" not in record.id:  # cases and examples
            self.progress.update(outcome)
        elif progress:  # a companion's or a relation's record: in the tally, not an input of its own
            self.progress.tally(outcome)
        return record

    # -- the kinds of work --

    def run_cases(self, cases):
        """The cases `only` selects and this run's shard owns, in their order (`oracle.harness.work.cases`)."""
        run_cases(self, cases)

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
        return SearchCache(cache_root(), key, warn=self.warn)

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

    def run_replay(self, inputs):
        """Each (label, request) of `inputs` judged as a "replay" record (`oracle.harness.work.cases`)."""
        run_replay(self, inputs)


# -- the lifecycle --------------------------------------------------------------------------------


def _refusal(profile: str, implementation: str, tracker: BaselineTracker) -> str | None:
    """Why a run must stop right after the handshake (a usage error): a profile the oracle does not have, or a
    baseline written for another implementation or profile."""
    if profile not in PROFILES:
        meant = close_name(profile, PROFILES)
        guess = f" (did you mean {meant!r}?)" if meant else ""
        return (f"the implementation declares profile {profile!r} in its handshake, which is not one of "
                f"{sorted(PROFILES)}{guess}; correct the handshake's `profile`, or give --profile NAME to judge it "
                "under one")
    return tracker.another(implementation, profile)


@dataclass
class _Run:
    """What one run carries through its phases, from the handshake to the footer (`run_session`'s: one object
    carries everything the run is, its methods are the phases): the settings and the implementation's command, what
    the header records of them, the implementation's transport, the results' writer, the baseline's tracker, where
    the report goes, and the run's clock (none in the stream where `settings.timings` is False: an empty time, 0 s)."""

    settings: SessionSettings
    argv: Sequence[str]
    recorded: RunSettings
    process: Transport
    writer: ResultsWriter
    tracker: BaselineTracker
    report_dir: str | os.PathLike[str]
    started: float

    def __post_init__(self) -> None:
        #: the header's fields known before the handshake
        self.header = {"suite_version": SUITE_VERSION, "oracle_version": __version__, "settings": self.recorded,
                       "started": self.now()}

    def now(self) -> str:
        return now() if self.settings.timings else ""

    def elapsed(self) -> float:
        return round(time.perf_counter() - self.started, 3) if self.settings.timings else 0.0

    def stopped(self, code: int, **fields: Any) -> Footer:
        """The footer of a run stopped before any input was judged."""
        return Footer(
            counts=count_outcomes(),
            baseline=self.tracker.summary(),
            gate="fail",
            exit_code=code,
            restarts=0,
            duration=self.elapsed(),
            finished=self.now(),
            **fields,
        )

    def undrivable(self, exc: HandshakeError) -> None:
        """The header and footer of a run whose implementation could not be driven, and why, on stderr."""
        self.writer.write(Header(**self.header, judged_profile=self.settings.profile, handshake_error=str(exc),
                                 handshake_stderr=exc.stderr))
        self.writer.write(self.stopped(EXIT_UNDRIVABLE))
        print(shown(f"bleu-oracle {self.recorded.verb}: the implementation could not be driven: {exc}"),
              file=sys.stderr)
        if exc.stderr.strip():
            print("its stderr:\n" + shown(exc.stderr.rstrip()[-2000:], lines=True), file=sys.stderr)

    def begun(self, handshake: Handshake, total: int) -> Session:
        """After the handshake: the header written and the session made (the caller stops the process if this
        raises, and only the caller). A profile the run refuses to judge under is a usage error, its stop line
        written first."""
        profile = self.settings.profile or handshake.profile
        self.writer.write(
            Header(
                **self.header,
                implementation=handshake.implementation,
                profile=handshake.profile,
                judged_profile=profile,
                capabilities=handshake.capabilities,
                handshake_stderr=self.process.take_stderr(),
            )
        )
        refusal = _refusal(profile, handshake.implementation.name, self.tracker)
        if refusal is not None:
            self.writer.write(self.stopped(EXIT_USAGE, error=refusal))
            raise BleuValueError(refusal)
        progress = Progress(total, enabled=not self.settings.quiet, label=self.recorded.verb)
        return Session(self.settings, self.argv, profile, self.process, self.writer, self.tracker, progress,
                       work_dir=self.report_dir)

    def worked(self, session: Session, work: Callable[[Session], object],
               require_judged: bool) -> tuple[BleuOracleError | None, int | None]:
        """Run `work(session)`, then stop the process: (the BleuOracleError it raised or None, the exit code of a
        stop signal or None). `require_judged`: a run that judged nothing is such an error too."""
        error: BleuOracleError | None = None
        interrupted: int | None = None
        try:
            work(session)
        except BleuOracleError as exc:
            error = exc
        except (KeyboardInterrupt, Interrupted) as exc:  # ^C or SIGTERM: stop, and say so in the footer
            interrupted = exit_code_of(exc)
        finally:
            self.process.stop()
            session.progress.finish()
        if require_judged and error is None and interrupted is None and not session.judged():
            error = BleuValueError(session.nothing_judged())
        return error, interrupted

    def footer(self, session: Session, error: BleuOracleError | None, interrupted: int | None) -> tuple[int, Footer]:
        """(the exit code, the footer) of a run that judged its inputs: counts, gate, restarts, coverage, causes."""
        gate_failed = self.tracker.gate_failed()
        code = interrupted or (EXIT_USAGE if error else (EXIT_DEVIATIONS if gate_failed else EXIT_OK))
        coverage = session.coverage.table(
            session.capabilities, uniform_only=PROFILES[session.profile].options.uniform_weights_only
        )
        return code, Footer(
            counts=dict(session.counts),
            baseline=self.tracker.summary(),
            gate="fail" if gate_failed or error or interrupted else "pass",
            exit_code=code,
            restarts=self.process.restarts + session.worker_restarts,
            duration=self.elapsed(),
            finished=self.now(),
            error=str(error) if error else None,
            interrupted=True if interrupted else None,
            examples=session.examples_run,
            time_budget_spent=session.budget_spent,
            coverage=coverage,
            causes=run_causes(session.root_causes),
        )


def run_session(
    settings, argv, *, recorded, tracker, total, work, report_dir, transport=None, require_judged=False,
    check_discrepancies=True,
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
    `check_discrepancies`: read discrepancies.yaml before anything starts, so that an unreadable one is a
    configuration error then (False in a `--jobs` worker: its parent read it already, and the worker reads it only
    when it classifies a failure; reading it costs a worker about 60 ms of CPU).
    """
    started = time.perf_counter()
    if check_discrepancies:
        discrepancies.check()  # an unreadable discrepancies.yaml is a configuration error before anything starts
    process = transport or ImplementationProcess(argv, timeout=settings.timeout, max_restarts=settings.max_restarts)
    with ResultsWriter(Path(report_dir) / RESULTS_FILE) as writer:
        run = _Run(settings, argv, recorded, process, writer, tracker, report_dir, started)
        try:
            handshake = process.start()
        except HandshakeError as exc:
            run.undrivable(exc)
            return EXIT_UNDRIVABLE, None
        try:  # (from here `worked` stops the process; until then, whatever ends the run stops it here)
            session = run.begun(handshake, total)
        except BaseException:
            process.stop()
            raise
        error, interrupted = run.worked(session, work, require_judged)
        code, footer = run.footer(session, error, interrupted)
        writer.write(footer)
    if error:
        raise error
    return code, session
