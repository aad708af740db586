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

import fnmatch
import hashlib
import shlex
import sys
import time
from collections import Counter
from dataclasses import dataclass, fields
from datetime import UTC, datetime
from pathlib import Path

from oracle import __version__
from oracle.diagnose import discrepancies
from oracle.diagnose.attribute import attribute, attribute_shrunk
from oracle.diagnose.expect import case_expected, oracle_expected
from oracle.diagnose.judge import DEFAULT_ABS, DEFAULT_REL, Contract, judge, token_count_layers
from oracle.exitcodes import (
    EXIT_DEVIATIONS,
    EXIT_OK,
    EXIT_UNDRIVABLE,
    EXIT_USAGE,
)
from oracle.formulas.errors import BleuOracleError, BleuValueError
from oracle.formulas.profiles import PROFILES
from oracle.models.outcomes import (
    GOOD_OUTCOMES,
    METAMORPHIC_LAYER,
    Outcome,
    Verdict,
)
from oracle.models.protocol import encode
from oracle.models.results import (
    CorpusSummary,
    Footer,
    Header,
    Omitted,
    OmittedRequest,
    Record,
    RunCause,
    RunSettings,
    Shrunk,
)
from oracle.signals import Interrupted, exit_code_of, raise_if_stopped, stopped_by_signals  # noqa: F401 (re-exported)
from oracle.suite import SUITE_VERSION

from . import relations
from .coverage import Coverage
from .events import RESULTS_FILE, ResultsWriter, RootCauseTally, count_outcomes
from .gate import baseline_key
from .generate import REFUSED_EVERY, companion_rng, companions, example_id, example_request, text_request
from .progress import Progress
from .refused import refused_request
from .requests import case_to_request, not_applicable_reason
from .series import DEFAULT_SERIES_LENGTH, judge_series, series_steps
from .shrink import DEFAULT_BUDGET, failure_predicate, shrink
from .transport import (
    DEFAULT_MAX_RESTARTS,
    DEFAULT_TIMEOUT,
    HandshakeError,
    ImplementationProcess,
    RestartBudget,
)

INLINE_REPLAY_LIMIT = 400
#: A record keeps a request (or a relation's input) of at most this many tokens whole; a larger one (a
#: 65,600-token run, a corpus of 2,000 segments) is kept as its shape and digest, and the record says how
#: to regenerate it, so that results.jsonl does not grow by megabytes per input. A metamorphic relation is
#: checked only on an input within this limit: its record shows both inputs whole, and a relation on a
#: 300,000-token input would cost the run several copies of it at once.
RECORD_TOKEN_LIMIT = 20_000


def _recorded(request, regenerate, wire=None):
    """What a record keeps of a request sent: the command itself, or, beyond RECORD_TOKEN_LIMIT tokens, its shape
    and digest with the command that regenerates it (`regenerate()`); `wire`: its wire form, when at hand."""
    if request.token_count <= RECORD_TOKEN_LIMIT:
        return request
    wire = wire if wire is not None else request.to_json()
    whole = encode({k: v for k, v in wire.items() if k != "seq"}, ensure_ascii=False)
    return OmittedRequest(
        **{k: v for k, v in wire.items() if k != "segments"},
        omitted=Omitted(
            segments=len(request.segments),
            tokens=request.token_count,
            sha256=hashlib.sha256(whole.encode("utf-8")).hexdigest(),
            regenerate=regenerate(),
        ),
    )


#: Random examples a `check` or `fuzz` run draws unless told otherwise.
DEFAULT_EXAMPLES = 200
#: How many notable records a session keeps whole for its verb's console output (the rest are counted).
NOTABLE_KEPT = 500


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


def notable_key(record):
    """(baseline status, outcome, the root cause's name and the other explanations that fit it) of a notable
    record: how the console groups it once the run's causes are known (`run_cause_of`)."""
    classification = record.classification
    signature = (classification.name, *classification.fits) if classification is not None else ("-",)
    return (record.baseline.status if record.baseline else None, record.outcome.value, signature)


def run_cause_of(signature, run_names):
    """The run's name for a record whose fitting explanations are `signature`: the first of the run's causes
    among them (one bug, one name), else its own first name."""
    return next((name for name in run_names if name in signature), signature[0])


@dataclass(frozen=True)
class SessionSettings:
    """Everything a run reads: which implementation, the judged profile, the search, the numeric
    contract, the process limits, where the report goes. A Python user builds one directly::

        settings = SessionSettings(impl="nltk", examples=50, report="out")
        code, session = run_session(settings, implementation_argv(settings), verb="check", settings_record={},
                                    tracker=BaselineTracker(), total=50, work=lambda s: s.run_examples(),
                                    report_dir="out")

    `check` and `fuzz` build one from their command line (`from_args`)."""

    impl: str | None = None
    command: str | None = None
    profile: str | None = None
    seed: int = 0
    examples: int = DEFAULT_EXAMPLES
    only: tuple = ()
    rel: float = DEFAULT_REL
    abs: float = DEFAULT_ABS
    timeout: float = DEFAULT_TIMEOUT
    max_restarts: int = DEFAULT_MAX_RESTARTS
    shrink_budget: int = DEFAULT_BUDGET
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
    #: (k, N): this process draws only the examples whose index is k modulo N (a worker of `jobs`)
    shard: tuple = (0, 1)
    #: requests in each series of short requests to one process (`oracle.harness.series`; 0: no series)
    series_length: int = DEFAULT_SERIES_LENGTH

    @classmethod
    def from_args(cls, args):
        """The settings of a parsed `check` or `fuzz` command line."""
        names = [f.name for f in fields(cls)]
        values = {name: getattr(args, name) for name in names if getattr(args, name, None) is not None}
        values["only"] = tuple(values.get("only") or ())
        return cls(**values)


def implementation_argv(settings):
    """The argv that starts the implementation: `--impl NAME` (a built-in adapter behind `serve`, or the
    driver of a library outside this Python, which speaks protocol v1 itself) or `--command`. Builds
    nothing: preparing a library's environment is the verb's own step before this
    (`oracle.adapters.environments.ready`)."""
    if settings.impl:
        from oracle.adapters.base import REGISTRY
        from oracle.adapters.driven import driver_command

        if ":" not in settings.impl and settings.impl not in REGISTRY:
            raise BleuValueError(f"`--impl` must be one of {sorted(REGISTRY)} or MODULE:CLASS (got {settings.impl!r})")
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


def selected(identifier, patterns):
    return not patterns or any(fnmatch.fnmatchcase(identifier, p) for p in patterns)


def now():
    return datetime.now(UTC).isoformat(timespec="seconds")


# -- the session ------------------------------------------------------------------------------


class Session:
    """One run: drives the implementation, judges, shrinks, classifies, records.

    `settings` is a `SessionSettings`.
    """

    def __init__(self, settings, argv, profile, process, writer, tracker, progress, work_dir=None):
        self.settings, self.argv, self.profile = settings, argv, profile
        self.process, self.writer, self.tracker, self.progress = process, writer, tracker, progress
        self.contract = Contract(rel=settings.rel, abs=settings.abs)
        self.capabilities = process.handshake.capabilities
        self.seq = 0
        #: outcome -> number of records, over the whole run
        self.counts = count_outcomes()
        #: the first NOTABLE_KEPT records a verb reports on (not good, or given a status by the baseline),
        #: without their request and stderr; every record is in the stream, and memory does not grow
        #: with --examples however many fail
        self.notable = []
        #: over the whole run: the root causes of the failing records (count, smallest input) ...
        self.root_causes = RootCauseTally()
        #: ... and the notable records by (baseline status, outcome, root cause)
        self.notable_counts = Counter()
        #: where the report ends up (named in reproduction lines), and where this run writes it meanwhile
        self.report_dir = Path(settings.report)
        self.work_dir = Path(work_dir) if work_dir is not None else self.report_dir
        #: case id -> the file it came from, when not the bundled suite (a reproduction line names it)
        self.case_files = {}
        name = process.handshake.implementation.name
        self.documented = discrepancies.entries_for(settings.impl, name)
        #: what the judged inputs exercised (`oracle.harness.coverage`), for the footer
        self.coverage = Coverage()
        #: random examples drawn, and whether the time budget stopped the search early
        self.examples_run = 0
        self.worker_restarts = 0
        #: the restart budget the search charges by example (`RestartBudget`; one per run, shared by --jobs workers)
        self.budget = getattr(process, "budget", None) or RestartBudget(settings.max_restarts)
        self.budget_spent = False
        self.last_reply = None

    def judged(self):
        """How many records were judged (any outcome but not-applicable)."""
        return sum(n for outcome, n in self.counts.items() if outcome != Outcome.NOT_APPLICABLE.value)

    def nothing_judged(self):
        """Why a run judged nothing, in the user's words."""
        skipped = self.counts.get(Outcome.NOT_APPLICABLE.value, 0)
        parts = [f"{skipped} input(s) not applicable to the implementation's declared capabilities"] if skipped else []
        parts.append(
            f"{self.examples_run} random example(s) run"
            + (f" before the time budget ({self.settings.time_budget:g} s) ran out" if self.budget_spent else "")
        )
        return (
            "nothing was judged (" + ", ".join(parts) + "): a run that judges nothing is not a pass; "
            "pass --allow-empty to accept it"
        )

    def next_seq(self):
        self.seq += 1
        return self.seq

    def send(self, request):
        request, _, pending = self.submit(request)
        return request, self.process.collect(pending)

    def submit(self, request):
        """Send `request` with the next seq: (the request as sent, its wire form, a pending reply for
        `process.collect`). The wire form is what the record keeps: built once."""
        request = request.with_seq(self.next_seq())
        return request, (wire := request.to_json()), self.process.submit(wire)

    # -- reproduction --

    def reproduce(self, record_id, request=None):
        parts = ["bleu-oracle", "check"]
        parts += ["--impl", self.settings.impl] if self.settings.impl else ["--command", self.settings.command]
        parts += ["--profile", self.profile]
        if self.settings.rel != DEFAULT_REL:
            parts += ["--rel", repr(self.settings.rel)]
        if self.settings.abs != DEFAULT_ABS:
            parts += ["--abs", repr(self.settings.abs)]
        if request is None:  # a case: re-run it by id, from its own file when it is not a bundled one
            source = self.case_files.get(record_id)
            parts += ["--cases", str(source)] if source is not None else []
            parts += ["--examples", "0", "--id", record_id, "--report", REPLAY_REPORT]
            return shlex.join(parts)
        payload = encode(request.replay_payload(), ensure_ascii=False)
        if len(payload) > INLINE_REPLAY_LIMIT and self.settings.timings:  # a deterministic stream keeps it inline
            path = self.work_dir / "replay" / f"{record_id}.json"
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(payload + "\n", encoding="utf-8")
            payload = str(self.report_dir / "replay" / path.name)
        return shlex.join(parts + ["--replay", payload])

    # -- one item --

    def expected_for(self, request, *, overrides=None, document=None, profiles=()):
        return case_expected(request, self.profile, overrides=overrides, document=document, profiles=profiles)

    def evaluate(
        self,
        item_id,
        kind,
        request,
        *,
        title="",
        overrides=None,
        document=None,
        profiles=(),
        invalid=None,
        within_capabilities=False,
        expected=None,
        summary=None,
        attribution="full",
    ):
        """Judge one input. `request` is None (and `invalid` says why) for a case whose input
        protocol v1 cannot carry: it is not applicable. `within_capabilities`: the caller knows the
        implementation computes this request (a curated example of its own) though its declared
        capabilities cannot say so; it is sent all the same. For a large input (a real corpus):
        `expected`, the oracle's expectation when the caller has it already; `summary`, a short
        description recorded in place of the request (and no replay line); `attribution`, "full"
        (the documented classes, then every explanation), "documented" (the documented classes
        only: every explanation recomputes the corpus many times) or "none"."""
        started = time.perf_counter()
        reason = invalid or (None if within_capabilities else not_applicable_reason(request, self.capabilities))
        if reason is not None:
            recorded = (
                CorpusSummary(**summary)
                if summary is not None
                else (None if request is None else _recorded(request.with_seq(0), lambda: self._regenerate(item_id)))
            )
            return self.finish(
                Record(
                    id=item_id,
                    kind=kind,
                    title=title,
                    request=recorded,
                    outcome=Outcome.NOT_APPLICABLE,
                    message=reason,
                    label="not-applicable",
                )
            )
        sent, wire, pending = self.submit(request)  # the implementation answers while the oracle computes
        if expected is None:
            expected = self.expected_for(request, overrides=overrides, document=document, profiles=profiles)
        self.coverage.add(request, None if expected.rejected else expected.statistics)
        reply = self.process.collect(pending)
        self.last_reply = reply  # a passing example's reply, for a metamorphic relation on it
        verdict = judge(
            expected, reply, self.contract, max_order=request.max_order, token_counts=token_count_layers(request)
        )
        if verdict.outcome == Outcome.REJECTED:
            self.coverage.add_refused(request)
        notes = [f"runner: {note}" for note in reply.notes]
        record = Record(
            id=item_id,
            kind=kind,
            title=title,
            request=CorpusSummary(**summary)
            if summary is not None
            else _recorded(sent, lambda: self._regenerate(item_id), wire),
            outcome=verdict.outcome,
            layer=verdict.layer,
            order=verdict.order,
            label=verdict.classification,
            expected=expected,
            actual=reply.recorded(),
            message="; ".join(filter(None, [verdict.message, *notes])),
            stderr=reply.stderr,
            duration=reply.duration,
        )
        if verdict.outcome in GOOD_OUTCOMES:
            return self.finish(record, started)
        update = self.failure_update(item_id, kind, request, reply, verdict, expected, overrides=overrides,
                                     attribution=attribution, summary=summary)
        return self.finish(record.model_copy(update=update), started)

    def failure_update(self, item_id, kind, request, reply, verdict, expected, *, overrides=None, attribution="full",
                       summary=None):
        """What a failing record adds: the shrunk input (a random example's, or a series step's), the root cause,
        the replay and the reproduction line."""
        reported, judged, shrunk = request, (request, reply, verdict, expected), None
        shrinkable = kind in ("example", "series")
        if shrinkable and verdict.outcome in (Outcome.FAIL, Outcome.ERROR) and self.settings.shrink_budget > 0:
            shrunk, last = self.shrink(request, verdict, reply, expected)
            reported = shrunk.request
            if last is not None:
                judged = (last["request"], last["reply"], last["verdict"], last["expected"])
        classification = None
        if attribution != "none" and judged[0] is not request:
            classification = attribute_shrunk(
                judged,
                (request, reply, verdict, expected),
                self.profile,
                entries=self.documented,
                overrides=overrides,
                search_all=attribution == "full",
            )
        elif attribution != "none":
            classification = attribute(
                *judged, self.profile, entries=self.documented, overrides=overrides, search_all=attribution == "full"
            )
        update = {"shrunk": shrunk, "classification": classification}
        if summary is not None:
            pass  # too large to replay from a record
        elif kind == "case" and not self.settings.replay:
            update.update(reproduce=self.reproduce(item_id), replay=request)
        elif kind == "series":  # the state is the point: the whole series again
            update.update(replay=reported, reproduce=self._regenerate(item_id))
        else:
            update.update(replay=reported, reproduce=self.reproduce(item_id, reported))
        return update

    def shrink(self, request, verdict, reply=None, expected=None):
        """Shrink a failing example: (the Shrunk part of its record, the last failing judgement or None)."""
        still_fails, last = failure_predicate(
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
        if not outcome.steps:
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
        final = last["verdict"]
        return Shrunk(
            request=outcome.request,
            expected=last["expected"],
            actual=last["reply"].recorded(),
            layer=final.layer,
            order=final.order,
            message=final.message,
            steps=outcome.steps,
            queries=outcome.queries,
            exhausted=outcome.exhausted,
        ), dict(last)

    def finish(self, record, started=None):
        """Time a judged record (unless the stream keeps no clock readings) and account for it."""
        if not self.settings.timings:
            record = record.model_copy(update={"duration": 0.0, "wall": 0.0})
        elif started is not None:
            record = record.model_copy(
                update={
                    "duration": round(max(record.duration, 0.0), 6),
                    "wall": round(time.perf_counter() - started, 6),
                }
            )
        record = self.account(record)
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
        if not record.good or record.baseline is not None:
            kept = record.model_copy(update={"request": None, "related": None, "stderr": ""})
            self.root_causes.add(kept)
            self.notable_counts[notable_key(kept)] += 1
            if len(self.notable) < NOTABLE_KEPT:
                self.notable.append(kept)
        if progress and record.kind != "metamorphic" and "~" not in record.id:  # it counts cases and examples
            self.progress.update(outcome)
        return record

    # -- the kinds of work --

    def run_cases(self, cases):
        for case in cases:
            try:
                item = case_to_request(case, seq=0, profile=self.profile)
            except BleuOracleError as exc:
                raise BleuValueError(f"case {getattr(case, 'id', '?')}: {exc}") from None
            if not selected(item.case_id, self.settings.only):
                continue
            if not _bundled(case.path):
                self.case_files[item.case_id] = case.path
            self.evaluate(
                item.case_id,
                "case",
                item.request,
                title=item.title,
                overrides=item.overrides,
                document=item.document,
                profiles=item.profiles,
                invalid=item.invalid,
            )

    def run_examples(self):
        """The differential search: `examples` random inputs (fewer if `time_budget` runs out first),
        and on every `relation_every`-th passing one, one metamorphic relation. The restart budget
        hears where each example starts and ends (it is charged by example: `RestartBudget`)."""
        deadline = None if self.settings.time_budget is None else time.perf_counter() + self.settings.time_budget
        # with the budget spent on the cases, every example is "not attempted" at once: no workers for that
        if self.settings.jobs > 1 and self.settings.shard == (0, 1) and self.budget.may_restart():
            return self.run_examples_in_workers()
        mine, shards = self.settings.shard
        for index in range(self.settings.examples):
            if index % shards != mine:
                continue
            if deadline is not None and time.perf_counter() > deadline:
                self.budget_spent = True
                self.progress.note(f"time budget of {self.settings.time_budget:g} s spent after {index} examples")
                break
            self.budget.example_started(index)
            self.judge_example(index)
            self.budget.example_finished(index)

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

    def judge_example(self, index):
        """Random example `index` (if `only` selects it), and a relation on it if it passes."""
        options = PROFILES[self.profile].options
        identifier = example_id(self.settings.seed, index)
        patterns = self.settings.only
        relation_only = patterns and any(p.startswith(identifier + "~") for p in patterns)
        if not selected(identifier, patterns) and not relation_only:
            return
        request = self.example_request(index)
        self.examples_run += 1
        record = self.evaluate(identifier, "example", request)
        every = self.settings.relation_every
        reply = self.last_reply
        if (
            every
            and index % every == every - 1
            and record.outcome == Outcome.PASS
            and reply is not None
            and reply.kind == "score"
            and request.token_count <= RECORD_TOKEN_LIMIT
        ):
            names = relations.applicable(
                request, reference_length=options.reference_length, statistics=self.capabilities.statistics
            )
            # a related input the capabilities rule out (a duplicated reference past max_references) is not sent
            related = {name: relations.transformed(request, name) for name in names}
            names = [
                name
                for name in names
                if all(not_applicable_reason(variant, self.capabilities) is None for variant in related[name])
            ]
            if names:
                name = names[(index // every) % len(names)]
                if selected(f"{identifier}~{name}", patterns):
                    self.check_relation(identifier, request, reply, name, related[name])
        self.judge_companions(index)

    def judge_companions(self, index):
        """The inputs example `index` brings along (`generate.companions`): a text request, an input that must
        be refused, a series of short requests to the same process; each selected by its own id."""
        options = PROFILES[self.profile].options
        identifier = example_id(self.settings.seed, index)
        draw = {"uniform_only": options.uniform_weights_only, "profile_smoothing": options.smoothing.to_json()}
        for kind in companions(index, self.capabilities):
            item_id = f"{identifier}~{kind}"
            if not selected(item_id, self.settings.only):
                continue
            rng = companion_rng(self.settings.seed, index, kind)
            if kind == "series":
                if self.settings.series_length:
                    steps = series_steps(rng, self.capabilities, length=self.settings.series_length, **draw)
                    judge_series(self, item_id, steps, _recorded)
                continue
            if kind == "text":
                request = text_request(rng, self.capabilities, **draw)
            else:
                request = refused_request(rng, self.capabilities, turn=index // REFUSED_EVERY, **draw)
            self.evaluate(item_id, "example", request)

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

    def check_relation(self, identifier, request, reply, relation, variants):
        """One metamorphic relation on a passing example: the implementation against itself, on
        `variants` (`relations.transformed(request, relation)`)."""
        started = time.perf_counter()
        sent, replies = [], []
        for variant in variants:
            one, answer = self.send(variant)
            sent.append(one)
            replies.append(answer)
        item_id = f"{identifier}~{relation}"
        verdict = self._relation_verdict(request, reply, variants, replies, relation)
        record = Record(
            id=item_id,
            kind="metamorphic",
            title=relations.RELATIONS[relation],
            request=_recorded(sent[0], lambda: self._regenerate(item_id)),
            outcome=verdict.outcome,
            layer=verdict.layer,
            label=verdict.classification,
            message=verdict.message,
            actual=replies[0].recorded(),
            stderr=replies[0].stderr,
            duration=sum(r.duration for r in replies),
            related=request,
        )
        if verdict.outcome not in GOOD_OUTCOMES:
            classification = self._related_cause(variants, replies) or attribute(
                request, reply, verdict, oracle_expected(request, self.profile), self.profile, entries=self.documented
            )
            record = record.model_copy(
                update={"classification": classification, "replay": variants[0], "reproduce": self._regenerate(item_id)}
            )
        return self.finish(record, started)

    def _related_cause(self, variants, replies):
        """A broken relation's root cause, where the implementation's answer on a related input is itself
        wrong and explained: the mechanism, not "relation-broken" (one bug, one name). None otherwise."""
        for variant, answer in zip(variants, replies, strict=True):
            expected = oracle_expected(variant, self.profile)
            verdict = judge(
                expected, answer, self.contract, max_order=variant.max_order, token_counts=token_count_layers(variant)
            )
            if verdict.outcome in GOOD_OUTCOMES:
                continue
            classification = attribute(variant, answer, verdict, expected, self.profile, entries=self.documented)
            if classification.change:
                return classification
        return None

    def _relation_verdict(self, request, reply, variants, replies, relation):
        bad = next((r for r in replies if r.kind != "score"), None)
        if bad is not None:  # the related input was not scored: judged as any input is
            expected = oracle_expected(variants[replies.index(bad)], self.profile)
            verdict = judge(expected, bad, self.contract, max_order=len(request.weights))
            if verdict.outcome in GOOD_OUTCOMES:
                return verdict
            return Verdict(
                verdict.outcome,
                verdict.layer,
                verdict.order,
                f"{relation}: the related input was not scored: {verdict.message}",
            )
        if relation == "shards-summed":
            whole = reply.statistics
            summed = relations.summed_statistics([r.statistics for r in replies])
            if summed is None or whole is None:
                return Verdict(Outcome.PASS, message="statistics missing: nothing to compare")
            for name in ("hyp_len", "ref_len", "matches", "totals"):
                if getattr(whole, name) != getattr(summed, name):
                    return Verdict(
                        Outcome.FAIL,
                        METAMORPHIC_LAYER,
                        None,
                        f"{relation}: {name} of the whole corpus is {whole.to_json()[name]}, "
                        f"the halves' add up to {summed.to_json()[name]}",
                    )
            return Verdict(Outcome.PASS)
        original, related = reply.score, replies[0].score
        if not self.contract.close(related, original):
            return Verdict(
                Outcome.FAIL,
                METAMORPHIC_LAYER,
                None,
                f"{relation}: score {original!r} for the input, {related!r} for "
                f"{relations.RELATIONS[relation]} (they must be equal; contract {self.contract.describe()})",
            )
        return Verdict(Outcome.PASS)

    def run_replay(self, inputs):
        for label, request in inputs:
            self.evaluate(label, "replay", request)


# -- the lifecycle --------------------------------------------------------------------------------


def run_session(
    settings, argv, *, verb, settings_record, tracker, total, work, report_dir, transport=None, require_judged=False
):
    """Start the implementation, write the header, run `work(session)`, write the footer.

    `transport` drives the implementation (default: an `ImplementationProcess` running `argv`; an
    `oracle.harness.inprocess.InProcessImplementation` runs a built-in adapter in this process).
    `settings_record` is what the header records of the settings (with "verb").

    Returns (exit code, session); the session is None when the implementation could not be
    driven (exit code 3, reported on stderr). Raises BleuValueError when the declared profile is
    unknown, and re-raises a BleuOracleError from `work` after the footer is written.
    `require_judged`: a run that judged nothing (every input not applicable, nothing selected) is such an
    error too (exit 2), never a green gate.
    """
    started = time.perf_counter()
    timings = settings.timings

    def clock():
        return now() if timings else ""

    def elapsed():
        return round(time.perf_counter() - started, 3) if timings else 0.0

    discrepancies.load()  # an unreadable discrepancies.yaml is a configuration error before anything starts
    process = transport or ImplementationProcess(argv, timeout=settings.timeout, max_restarts=settings.max_restarts)
    run_settings = RunSettings(verb=verb, **settings_record)
    with ResultsWriter(Path(report_dir) / RESULTS_FILE) as writer:
        header = {
            "suite_version": SUITE_VERSION,
            "oracle_version": __version__,
            "settings": run_settings,
            "started": clock(),
        }

        def stopped(code, **fields):
            writer.write(
                Footer(
                    counts=count_outcomes(),
                    baseline=tracker.summary(),
                    gate="fail",
                    exit_code=code,
                    restarts=0,
                    duration=elapsed(),
                    finished=clock(),
                    **fields,
                )
            )

        try:
            handshake = process.start()
        except HandshakeError as exc:
            writer.write(
                Header(**header, judged_profile=settings.profile, handshake_error=str(exc), handshake_stderr=exc.stderr)
            )
            stopped(EXIT_UNDRIVABLE)
            print(f"bleu-oracle {verb}: the implementation could not be driven: {exc}", file=sys.stderr)
            if exc.stderr.strip():
                print("its stderr:\n" + exc.stderr.rstrip()[-2000:], file=sys.stderr)
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
        if profile not in PROFILES:
            process.stop()
            message = (
                f"the implementation declares profile {profile!r}, which is not one of {sorted(PROFILES)}; "
                "give --profile"
            )
            stopped(EXIT_USAGE, error=message)
            raise BleuValueError(message)
        progress = Progress(total, enabled=not settings.quiet, label=verb)
        session = Session(settings, argv, profile, process, writer, tracker, progress, work_dir=report_dir)
        error = interrupted = None
        try:
            work(session)
        except BleuOracleError as exc:
            error = exc
        except (KeyboardInterrupt, Interrupted) as exc:  # ^C or SIGTERM: stop, and say so in the footer
            interrupted = exit_code_of(exc)
        finally:
            process.stop()
            progress.finish()
        if require_judged and error is None and interrupted is None and not session.judged():
            error = BleuValueError(session.nothing_judged())
        gate_failed = tracker.gate_failed()
        code = interrupted or (EXIT_USAGE if error else (EXIT_DEVIATIONS if gate_failed else EXIT_OK))
        coverage = session.coverage.table(
            session.capabilities, uniform_only=PROFILES[profile].options.uniform_weights_only
        )
        writer.write(
            Footer(
                counts=dict(session.counts),
                baseline=tracker.summary(),
                gate="fail" if gate_failed or error or interrupted else "pass",
                exit_code=code,
                restarts=process.restarts + session.worker_restarts,
                duration=elapsed(),
                finished=clock(),
                error=str(error) if error else None,
                interrupted=True if interrupted else None,
                examples=session.examples_run,
                time_budget_spent=session.budget_spent,
                coverage=coverage,
                causes=run_causes(session.root_causes),
            )
        )
    if error:
        raise error
    return code, session
