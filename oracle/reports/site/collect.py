"""`bleu-oracle report`'s observations: every column (the oracle under each profile, each installed
implementation) run through the harness's session, one `results.jsonl` each, and the WMT17 real data.

A column's run is a `check` run made in process (`oracle.harness.inprocess`; a library outside this Python
through its driver's process, as `check` drives it): the same requests, the same judge
(`oracle.diagnose.judge`), the same root-cause attribution (`oracle.diagnose.attribute`), written as the
same event stream under `data/runs/<column>/results.jsonl` (`oracle.reports.site.data`). It holds:

- every edge case of `oracle.suite.edge_cases` (the matrix, kind "edge-case");
- the implementation's curated discrepancy examples re-run now (kind "discrepancy": does each class still
  reproduce with the installed version?);
- `--examples` random inputs from `oracle.harness.generate` (kind "example", the inputs `check --seed S`
  sends), each judged against the oracle under the declared profile and each disagreement attributed to
  its root cause, first among the implementation's curated classes
  (`oracle/diagnose/data/discrepancies.yaml`), then among every explanation;
- every implementation on WMT17 newstest2017 English-German (kind "real-data": 16 systems; corpus level;
  whitespace tokens; BLEU-4, uniform weights, no smoothing), with 1 reference and with 4 (see
  `extra_reference_systems`), judged against the oracle column of its profile.

Runs are written without clock readings and without shrinking, so the same versions and seed give the
same bytes. `observe` returns run.json's settings and implementations.jsonl's lines (the registry: installed,
not installed with the install hint, broken with the error, or not selected; and the oracle's profiles).
"""

from __future__ import annotations

import contextlib
import datetime
import os
import platform
import signal
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from oracle import __version__
from oracle.adapters import registry
from oracle.adapters.base import AdapterUnavailable, Declared
from oracle.adapters.lifetimes import set_own_death_signal
from oracle.diagnose.discrepancies import models as discrepancy_models
from oracle.diagnose.judge import DEFAULT_ABS, DEFAULT_REL
from oracle.escaping import shown
from oracle.formulas.errors import BleuValueError
from oracle.formulas.profiles import PROFILES
from oracle.harness.events import RESULTS_FILE, read_results
from oracle.harness.gate import BaselineTracker
from oracle.harness.inprocess import transport_for
from oracle.harness.requests import request_from_json
from oracle.harness.session import Session, SessionSettings, run_session
from oracle.harness.stages import Attribution, Item
from oracle.models.outcomes import Expected, Outcome
from oracle.models.protocol import ScoreRequest, Segment
from oracle.signals import INTERRUPTED_CODES, Interrupted, raise_if_stopped, signals_deferred
from oracle.suite.edge_cases import EDGE_CASES
from oracle.textio import read_lines

from .data import (
    DATA_DIR,
    DISCREPANCY,
    EDGE_CASE,
    REAL_DATA,
    REAL_DATA_CLASSIFIED,
    SCHEMA,
    Contract,
    ImplementationEntry,
    ProfileEntry,
    RealDataSource,
    RunInfo,
    message,
    run_directory,
)

#: A function of one line of text, for progress (stderr).
Progress = Callable[[str], None]

DEFAULT_SEED = 0
DEFAULT_EXAMPLES = 200
#: Seconds one implementation may spend on the real data; over it (projected from the first
#: system), the remaining systems are skipped with the reason in the table. Well above what the
#: slowest installed library needs (torchmetrics: about 3.5 s a system, 55 s in all, twice that
#: on a busy machine), so that the decision, and with it the report, does not depend on the
#: machine's speed in practice; `--real-data-budget 60` is the strict setting.
DEFAULT_REAL_DATA_BUDGET = 300.0
REAL_DATA_SUBDIR = "wmt17-en-de"
REAL_DATA_PREFIX = "newstest2017."
REAL_DATA_SUFFIX = ".en-de.txt.gz"
REAL_DATA_REFERENCE = "reference"
#: Real-data differences classified per implementation and setting (the first ones, in system
#: order); classify recomputes the whole corpus per alternative, seconds each for some classes.
#: How many system outputs join the official reference in the multi-reference setting.
EXTRA_REFERENCES = 3
BLEU4 = (0.25, 0.25, 0.25, 0.25)
NO_SMOOTHING = {"method": "none"}
#: A column's working folder, beside its own, while its stream is written: `data/runs/.COLUMN.partial/`.
PARTIAL_SUFFIX = ".partial"


#: The project root (the directory holding pyproject.toml and oracle/): this file is oracle/reports/site/collect.py.
PROJECT_ROOT = Path(__file__).resolve().parents[3]


def default_real_data_dir() -> Path:
    """`../shared/data/wmt17-en-de` from the project root (absent on a fresh clone)."""
    return PROJECT_ROOT.parent / "shared" / "data" / REAL_DATA_SUBDIR


@dataclass
class Settings:
    out: Path = Path("reports")
    seed: int = DEFAULT_SEED
    examples: int = DEFAULT_EXAMPLES
    #: registry names to run (None: all); "oracle" is always in (under every profile)
    implementations: tuple[str, ...] | None = None
    #: the wmt17-en-de folder; None: no real data
    real_data: Path | None = field(default_factory=default_real_data_dir)
    #: why there is no real data (when real_data is None)
    real_data_skipped: str = ""
    #: score only the first N systems (alphabetical); None: all 16
    real_data_systems: int | None = None
    real_data_budget: float = DEFAULT_REAL_DATA_BUDGET
    #: a function of one line of text, for progress (stderr); None: silent
    progress: Progress | None = None
    #: columns run at once, in forked processes (each writes its own results.jsonl: the same bytes as one)
    jobs: int = 1
    #: write into a folder that holds files which are not a report's (they are left alone)
    report_force: bool = False


# -- the implementations ------------------------------------------------------


@dataclass
class Column:
    """An implementation (or the oracle under a profile) as a column of the report."""

    key: str  # "oracle/<profile>" or the registry name
    implementation: Declared  # an adapter, or a library's declaration (its driver runs as a process)
    profile: str
    kind: str  # "oracle" | "implementation"


def load_implementations(selected: set[str] | None = None) -> tuple[list[ImplementationEntry], list[Column]]:
    """(the lines of implementations.jsonl, [Column] of the installed ones, in registry order)."""
    records, columns = [], []
    for entry in registry.ENTRIES:
        name, spec = entry.name, entry.adapter
        if name == "oracle":
            continue
        if selected is not None and name not in selected:
            records.append(_entry(name, spec, status="not-selected", reason="not selected (--impl)"))
            continue
        try:
            implementation = entry.load()()
        except (KeyboardInterrupt, Interrupted):
            raise
        except (AdapterUnavailable, ImportError) as exc:
            records.append(_entry(name, spec, status="not-installed", reason=message(str(exc))))
            continue
        except BaseException as exc:  # noqa: BLE001 - a broken install must not end the report
            records.append(_entry(name, spec, status="broken", reason=message(f"{type(exc).__name__}: {exc}")))
            continue
        records.append(
            _entry(
                name,
                spec,
                status="installed",
                display_name=implementation.name,
                version=str(implementation.version),
                language=implementation.language,
                profile=implementation.profile,
                capabilities=dict(implementation.capabilities),
            )
        )
        columns.append(Column(name, implementation, implementation.profile, "implementation"))
    return records, columns


def oracle_columns() -> list[Column]:
    from oracle.adapters.oracle_adapter import OracleImplementation

    return [Column(f"oracle/{name}", OracleImplementation(profile=name), name, "oracle") for name in PROFILES]


def _entry(name: str, adapter: str, **fields: Any) -> ImplementationEntry:
    """A registry entry's line (only the fields given are written)."""
    return ImplementationEntry(type="implementation", name=name, adapter=adapter, **fields)


def profile_records() -> list[ProfileEntry]:
    return [
        ProfileEntry(
            type="profile",
            name=p.name,
            summary=p.summary,
            citations=[tuple(c) for c in p.citations],
            options=p.options.to_json(),
        )
        for p in PROFILES.values()
    ]


# -- a column's run ------------------------------------------------------------


def curated_examples(key: str) -> list[tuple[str, ScoreRequest]]:
    """(id, request) of the curated discrepancies re-run through implementation `key` (an alias such as
    ignite-micro re-runs the entries of the library it shares code with): those observed through the
    adapter, not by calling the library directly."""
    documented_as = registry.documented_as(key)
    # `observed: library` examples come from calling the library directly; the adapter deliberately
    # does not pass that behaviour on, so re-running through it proves nothing
    return [
        (entry.id, request_from_json(entry.example.request))
        for entry in discrepancy_models()
        if entry.implementation == documented_as and entry.observed != "library"
    ]


def run_column(
    column: Column,
    *,
    data_dir: Path,
    seed: int,
    examples: int,
    logs: Path,
    progress: Callable[[str], None] | None = None,
    real: Any = None,
    real_budget: float | None = None,
) -> Path:
    """Drive one column through a session in process; returns its results.jsonl path. `real` (the report's
    RealData): the WMT17 requests to score too; an implementation column is judged on them against the
    oracle column of its profile, already run, and gives up after the first system when the rest would
    take longer than `real_budget` seconds. A driver's stderr goes to a log in the folder `logs`.

    The stream is written into a working folder beside the column's (`data/runs/.COLUMN.partial/`) and renamed
    into place once its footer is written: `data/runs/COLUMN/results.jsonl` is whole or absent, whenever the
    column is stopped (SIGTERM, ^C, its process killed), and another column reading it (the oracle column an
    implementation is judged against on the real data) never reads a cut one."""
    directory = run_directory(data_dir, column.key)
    working = directory.with_name(f".{directory.name}{PARTIAL_SUFFIX}")
    oracle_column = column.kind == "oracle"
    settings = SessionSettings(
        impl=column.key,
        profile=column.profile,
        seed=seed,
        examples=0 if oracle_column else examples,
        shrink_budget=0,
        report=str(directory),
        quiet=True,
        timings=False,
    )
    discrepancies = [] if oracle_column else curated_examples(column.key)
    expectations = {} if real is None or oracle_column else oracle_expectations(data_dir, column.profile)

    def work(session: Session) -> None:
        for case in EDGE_CASES:
            session.evaluate(Item(case.id, EDGE_CASE, case.request, title=case.title))
        for identifier, request in discrepancies:  # curated on this adapter, even where its capabilities cannot say so
            session.evaluate(Item(identifier, DISCREPANCY, request, within_capabilities=True))
        session.run_examples()
        if real is not None:
            score_real_data(session, column, real, expectations, real_budget, progress)

    if progress is not None:
        what = (
            "the edge cases"
            if oracle_column
            else f"the edge cases, {len(discrepancies)} curated examples and {examples} random inputs (seed {seed})"
        )
        if real is not None:
            what += f", {len(real.items)} real-data corpora"
        progress(f"{column.key}: {what}, judged under profile {column.profile}")
    total = len(EDGE_CASES) + len(discrepancies) + settings.examples + (len(real.items) if real else 0)
    log = logs / f"{directory.name}.stderr"
    code, _ = run_session(
        settings,
        [],
        verb="report",
        settings_record={"seed": seed, "examples": settings.examples, "column": column.key},
        tracker=BaselineTracker(None, check_stale=False),
        total=total,
        work=work,
        report_dir=working,
        transport=transport_for(column.implementation, stderr_log=log),
    )
    _say_where_the_driver_wrote(column, log, progress)
    if code in INTERRUPTED_CODES:  # the session stopped on ^C or SIGTERM: so does the report (its stream stays aside)
        raise Interrupted(code)
    os.replace(working, directory)  # the footer is written: the stream takes its place whole
    return directory / RESULTS_FILE


def _say_where_the_driver_wrote(column: Column, log: Path, progress: Progress | None) -> None:
    """A driver's stderr (its library's tracebacks and warnings) went to `log`, not over the progress lines:
    one line says where, or the empty log goes (its folder, shared by the columns, goes at the end: `driver_logs`)."""
    written = log.read_bytes().count(b"\n") if log.is_file() else 0
    if written and progress is not None:
        progress(f"{column.key}: its driver wrote {written:,} lines on stderr (the library's tracebacks and "
                 f"warnings): {log}")
    elif not written:
        log.unlink(missing_ok=True)


@contextlib.contextmanager
def driver_logs(progress: Progress | None) -> Iterator[Path]:
    """The folder the columns' drivers write their stderr logs into (`bleu-oracle-report-XXXX` in the temporary
    directory), made by the report's own process: a column process killed when the report is stopped cannot
    clean up after itself, the report does. When the columns are done or stopped, the empty logs go, and the
    folder with them unless it keeps a log (named by its column's progress line; a stopped column's in one
    line here)."""
    folder = Path(tempfile.mkdtemp(prefix="bleu-oracle-report-"))
    try:
        yield folder
    except BaseException as stopping:
        with signals_deferred(stopping=stopping):
            kept = _without_empty_logs(folder)
        if kept and progress is not None:
            progress(f"the stopped columns' drivers wrote on stderr: {', '.join(path.name for path in kept)} "
                     f"kept in {folder}")
        raise
    _without_empty_logs(folder)


def _without_empty_logs(folder: Path) -> list[Path]:
    """Remove the empty logs of `folder`, and `folder` when nothing is left in it; the logs kept."""
    kept = []
    for log in sorted(folder.glob("*")):
        if log.is_file() and log.stat().st_size == 0:
            log.unlink(missing_ok=True)
        else:
            kept.append(log)
    if not kept:
        with contextlib.suppress(OSError):
            folder.rmdir()
    return kept


def oracle_expectations(data_dir: Path, profile: str) -> dict[str, Expected]:
    """id -> the oracle's Expected for each real-data corpus, from the oracle column of `profile`."""
    path = run_directory(data_dir, f"oracle/{profile}") / RESULTS_FILE
    if not path.is_file():
        return {}
    return {r.id: r.expected for r in read_results(path).records if r.kind == REAL_DATA and r.expected is not None}


def score_real_data(
    session: Session,
    column: Column,
    real: RealData,
    expectations: dict[str, Expected],
    budget: float | None,
    progress: Progress | None,
) -> None:
    """Each real-data corpus through the session: the oracle column records its own value; an implementation
    is judged against it. Differences are attributed among the implementation's curated classes only, the
    first REAL_DATA_CLASSIFIED of each setting (every explanation would recompute the corpus many times)."""
    classified: dict[int, int] = {}
    spent, skipped = 0.0, None
    first_system = real.items[0][1]
    for identifier, system, references, request in real.items:
        summary = {
            "corpus": identifier.split("/")[0],
            "system": system,
            "references": references,
            "segments": len(request.segments),
        }
        if skipped:
            session.evaluate(Item(identifier, REAL_DATA, request, invalid=skipped, summary=summary))
            continue
        count = len(references)
        attribution: Attribution = "documented" if classified.get(count, 0) < REAL_DATA_CLASSIFIED else "none"
        started = time.perf_counter()
        record = session.evaluate(Item(
            identifier,
            REAL_DATA,
            request,
            summary=summary,
            attribution=attribution,
            expected=expectations.get(identifier) if column.kind == "implementation" else None,
        ))
        spent += time.perf_counter() - started
        if record.outcome == Outcome.FAIL:
            classified[count] = classified.get(count, 0) + 1
        systems = len({item[1] for item in real.items})
        if (
            column.kind == "implementation"
            and system == first_system
            and count != 1
            and systems > 1
            and budget is not None
            and spent * systems > budget
        ):
            skipped = (
                f"time-boxed: scored on the first system only; all {systems} would take longer than the "
                f"{budget:g} s budget (--real-data-budget)"
            )
            if progress is not None:
                progress(f"{column.key}: {skipped}")


# -- observations: the real data -----------------------------------------------


def real_data_systems(folder: Path) -> list[str]:
    """The system names of the folder (every newstest2017.*.en-de.txt.gz but the reference), sorted."""
    names = []
    for path in sorted(Path(folder).glob(f"{REAL_DATA_PREFIX}*{REAL_DATA_SUFFIX}")):
        system = path.name[len(REAL_DATA_PREFIX) : -len(REAL_DATA_SUFFIX)]
        if system != REAL_DATA_REFERENCE:
            names.append(system)
    return sorted(names)


def extra_reference_systems(system: str, systems: list[str]) -> list[str]:
    """The extra (pseudo-)references of `system` in the multi-reference setting: the
    EXTRA_REFERENCES alphabetically first systems (Python's str order) other than `system`."""
    return [s for s in sorted(systems) if s != system][:EXTRA_REFERENCES]


def _read_tokens(folder: Path, name: str) -> list[tuple[str, ...]]:
    return [tuple(line.split()) for line in read_lines(Path(folder) / f"{REAL_DATA_PREFIX}{name}{REAL_DATA_SUFFIX}")]


@dataclass
class RealData:
    """The WMT17 requests the report scores: (id, system, reference files, request) per system and setting,
    and the description run.json records."""

    items: list[tuple[str, str, list[str], ScoreRequest]]
    source: RealDataSource


def load_real_data(folder: Path, settings: Settings, progress: Progress | None) -> RealData | str:
    """The real-data requests of `folder` (RealData), or a reason why there are none (str)."""
    all_systems = real_data_systems(folder)
    if not all_systems:
        return f"no newstest2017 system outputs in {folder}"
    systems = all_systems[: settings.real_data_systems] if settings.real_data_systems else all_systems
    needed = sorted(set(systems) | {s for x in systems for s in extra_reference_systems(x, all_systems)})
    say(progress, f"real data: reading the reference and {len(needed)} system outputs from {folder}")
    text = {name: _read_tokens(folder, name) for name in [REAL_DATA_REFERENCE, *needed]}
    lengths = {name: len(lines) for name, lines in text.items()}
    if len(set(lengths.values())) != 1:
        raise BleuValueError(f"the newstest2017 files in {folder} have different numbers of lines: {lengths}")
    items = []
    for system in systems:
        for count in (1, 1 + EXTRA_REFERENCES):
            references = [REAL_DATA_REFERENCE, *extra_reference_systems(system, all_systems)[: count - 1]]
            segments = tuple(
                Segment(hypothesis=h, references=tuple(refs))
                for h, *refs in zip(text[system], *(text[name] for name in references), strict=True)
            )
            request = ScoreRequest(
                seq=0,
                level="corpus",
                segments=segments,
                weights=BLEU4,
                smoothing="none",
                lowercase=False,
                tokenize=None,
            )
            items.append((f"{REAL_DATA_SUBDIR}/{system}/{count}", system, references, request))
    source = RealDataSource(
        folder=REAL_DATA_SUBDIR,
        systems=systems,
        all_systems=all_systems,
        segments=lengths[REAL_DATA_REFERENCE],
        reference=f"{REAL_DATA_PREFIX}{REAL_DATA_REFERENCE}{REAL_DATA_SUFFIX}",
        extra_references=EXTRA_REFERENCES,
        classified=REAL_DATA_CLASSIFIED,
        extra_reference_rule=(
            f"the {EXTRA_REFERENCES} alphabetically first systems (Python str order) other than the "
            "hypothesis system, drawn from all systems in the folder"
        ),
        tokens='str.split() of each line; lines split on "\\n" only',
        request={"level": "corpus", "weights": list(BLEU4), "smoothing": NO_SMOOTHING, "lowercase": False},
    )
    return RealData(items, source)


# -- the whole run -------------------------------------------------------------


def say(progress: Progress | None, text: str) -> None:
    if progress is not None:
        progress(text)


@dataclass(frozen=True)
class Observed:
    """What a report's run observed besides the columns' streams: run.json and implementations.jsonl."""

    run: RunInfo
    entries: list[ProfileEntry | ImplementationEntry]


def observe(settings: Settings) -> Observed:
    """Run every column (each writes its results.jsonl); return the settings and the registry's lines."""
    progress = settings.progress
    selected = None
    if settings.implementations is not None:
        selected = {name for name in settings.implementations if name != "oracle"}
        registry.require_registered(sorted(selected))  # UnknownImplementation: a usage error
    date = observation_day()
    pin_threads()
    say(progress, "loading the implementations")
    started = time.perf_counter()
    implementation_records, columns = load_implementations(selected)
    raise_if_stopped()  # (importing a library may have swallowed a stop signal's exception)
    pin_threads()
    say(progress, f"loaded {len(columns)} implementations in {time.perf_counter() - started:.1f} s")
    oracle_cols = oracle_columns()
    real = None
    if settings.real_data is None:
        real_source = RealDataSource(skipped=settings.real_data_skipped or "real data not requested (--no-real-data)")
    elif not Path(settings.real_data).is_dir():
        real_source = RealDataSource(
            skipped=f"the real data is absent ({REAL_DATA_SUBDIR} not found at ../shared/data)"
        )
        say(progress, f"real data skipped: {real_source.skipped}")
    else:
        started = time.perf_counter()
        real = load_real_data(Path(settings.real_data), settings, progress)
        say(progress, f"real data read in {time.perf_counter() - started:.1f} s")
        real_source = RealDataSource(skipped=real) if isinstance(real, str) else real.source
        real = None if isinstance(real, str) else real
    # The oracle under the implementations' profiles (and the paper's) scores the real data: each
    # implementation is judged against its profile's column on it.
    real_profiles = {c.profile for c in columns} | {"papineni"}
    data_dir = Path(settings.out) / DATA_DIR
    # each column's own results.jsonl, through the harness's session: the oracle's first (an implementation
    # is judged on the real data against the oracle column of its profile), then the implementations
    with driver_logs(progress) as logs:
        _FORKED.update(
            columns={c.key: c for c in oracle_cols + columns},
            settings=settings,
            real=real,
            real_profiles=real_profiles,
            data_dir=data_dir,
            logs=logs,
        )
        try:
            for phase in (oracle_cols, columns):
                _run_columns([c.key for c in phase], settings.jobs, progress)
        finally:
            _FORKED.clear()
    run = RunInfo(
        schema_=SCHEMA,
        suite_version=__version__,
        python=platform.python_version(),
        seed=settings.seed,
        examples=settings.examples,
        selected=None if selected is None else sorted(selected),
        contract=Contract(abs=DEFAULT_ABS, rel=DEFAULT_REL),
        edge_cases=len(EDGE_CASES),
        profiles=list(PROFILES),
        real_data=real_source,
        command=_command(settings),
        date=date,
    )
    return Observed(run, [*profile_records(), *implementation_records])


#: The reproducible-builds convention: a build (here a report) dated by this variable instead of the clock.
SOURCE_DATE_EPOCH = "SOURCE_DATE_EPOCH"


def observation_day() -> str:
    """The day a report observes its columns (UTC, YYYY-MM-DD), shown as when the site was made: SOURCE_DATE_EPOCH's
    day when it is set (so that a rebuild on another day gives the same bytes), else today's. Read before anything
    runs: a malformed SOURCE_DATE_EPOCH is a usage error, not a failure after every column has run."""
    epoch = os.environ.get(SOURCE_DATE_EPOCH)
    if epoch is None:
        return datetime.datetime.now(datetime.UTC).date().isoformat()
    try:
        return datetime.datetime.fromtimestamp(int(epoch), datetime.UTC).date().isoformat()
    except (ValueError, OverflowError, OSError):
        raise BleuValueError(f"{SOURCE_DATE_EPOCH}='{shown(epoch)}' is not a number of seconds since 1970-01-01 "
                             "(the reproducible-builds convention); unset it to date the report today") from None


#: What a forked column process reads (set before the pool forks, so nothing large is pickled).
_FORKED: dict[str, Any] = {}


def pin_threads() -> None:
    """One thread for torch (and anything OpenMP): a parallel reduction's order changes the last digits of a
    float32 sum, and reruns of the report must give the same bytes."""
    os.environ.setdefault("OMP_NUM_THREADS", "1")  # read when torch is imported
    torch = sys.modules.get("torch")
    if torch is not None:
        torch.set_num_threads(1)


def _run_one_column(key: str) -> tuple[str, float]:
    """Run column `key` (in this process or a forked one); returns (key, seconds)."""
    pin_threads()
    started = time.perf_counter()
    column, settings, real = _FORKED["columns"][key], _FORKED["settings"], _FORKED["real"]
    scores_real = real is not None and (column.kind == "implementation" or column.profile in _FORKED["real_profiles"])
    run_column(
        column,
        data_dir=_FORKED["data_dir"],
        seed=settings.seed,
        examples=settings.examples,
        logs=_FORKED["logs"],
        progress=settings.progress,
        real=real if scores_real else None,
        real_budget=settings.real_data_budget,
    )
    return key, time.perf_counter() - started


def _run_columns(keys: list[str], jobs: int, progress: Progress | None) -> None:
    """Run the columns `keys`, `jobs` at a time in forked processes. An exception here (^C, SIGTERM's
    `Interrupted`, a column's failure) stops every column process at once, whatever it was running,
    before it goes on: nothing is left computing for a report that will not be written."""
    if jobs <= 1 or len(keys) <= 1:
        for key in keys:
            raise_if_stopped()  # a stop signal whose exception a library swallowed (some catch BaseException)
            say(progress, "{}: done in {:.1f} s".format(*_run_one_column(key)))
        return
    import concurrent.futures
    import multiprocessing

    context = multiprocessing.get_context("fork")  # the columns and the real data are inherited, not pickled
    pool = concurrent.futures.ProcessPoolExecutor(
        max_workers=jobs, mp_context=context, initializer=_column_process_started
    )
    try:
        for future in concurrent.futures.as_completed([pool.submit(_run_one_column, key) for key in keys]):
            say(progress, "{}: done in {:.1f} s".format(*future.result()))
    except BaseException as stopping:
        with signals_deferred(stopping=stopping):  # a second ^C or SIGTERM must not leave some columns running
            _stop_column_processes(pool)
        raise
    pool.shutdown(wait=True)


def _column_process_started() -> None:
    """In a forked column process: a process group of its own (so that stopping it stops what it runs,
    and a terminal's ^C goes to the report alone, which stops the columns), the default SIGTERM (the
    report's handler is inherited by the fork), and the kernel's SIGKILL if the report dies."""
    os.setpgrp()
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    set_own_death_signal(signal.SIGKILL, parent=os.getppid())


def _stop_column_processes(pool: Any) -> None:
    """Kill every column process's group and wait for them; drop the columns not started."""
    processes = list((getattr(pool, "_processes", None) or {}).values())  # (no public way before Python 3.14)
    for process in processes:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(process.pid, signal.SIGKILL)
    for process in processes:
        process.join(timeout=5)
    # waited for: the pool's manager thread sees its processes gone and ends now, not while the
    # interpreter exits (where its clean-up races concurrent.futures' own: "Bad file descriptor")
    pool.shutdown(wait=True, cancel_futures=True)


def _command(settings: Settings) -> str:
    parts = ["bleu-oracle", "report"]
    if settings.seed != DEFAULT_SEED:
        parts += ["--seed", str(settings.seed)]
    if settings.examples != DEFAULT_EXAMPLES:
        parts += ["--examples", str(settings.examples)]
    if settings.implementations is not None:
        parts += ["--impl", *settings.implementations]
    if settings.real_data is None:
        parts.append("--no-real-data")
    elif settings.real_data_systems:
        parts += ["--real-data-systems", str(settings.real_data_systems)]
    return " ".join(parts)


def stderr_progress(text: str) -> None:
    print(shown(f"bleu-oracle report: {text}"), file=sys.stderr, flush=True)
