"""`bleu-oracle report`'s columns run: every column (the oracle under each profile, each installed
implementation) a session of the harness, as `check` runs one, `--jobs` columns at a time in forked processes.

A column's run is a `check` run made in process (`oracle.harness.inprocess`; a library outside this Python
through its driver's process, as `check` drives it): the same requests, the same judge, the same root-cause
attribution, written as the same event stream under `data/runs/<column>/results.jsonl`. What a column holds,
and the implementations and real data it is run on, are read by `oracle.reports.site.collect`; this module is
the running: the report's pages are then rendered from the streams alone (`oracle.reports.site.build`), and
nothing under `oracle/reports/` starts a session or a process.
"""

from __future__ import annotations

import contextlib
import os
import platform
import signal
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from oracle import __version__
from oracle.adapters import registry
from oracle.adapters.lifetimes import set_own_death_signal
from oracle.diagnose.judge import DEFAULT_ABS, DEFAULT_REL
from oracle.formulas.profiles import PROFILES
from oracle.harness.events import RESULTS_FILE
from oracle.harness.gate import BaselineTracker
from oracle.harness.inprocess import transport_for
from oracle.harness.session import Session, SessionSettings, run_session
from oracle.harness.stages import Attribution, Item
from oracle.models.outcomes import Expected, Outcome
from oracle.models.results import CorpusSummary, RunSettings
from oracle.reports.site.collect import (
    REAL_DATA_SUBDIR,
    Column,
    Observed,
    Progress,
    RealData,
    Settings,
    curated_examples,
    load_implementations,
    load_real_data,
    observation_day,
    oracle_columns,
    oracle_expectations,
    profile_records,
    report_command,
    say,
)
from oracle.reports.site.data import (
    DATA_DIR,
    DISCREPANCY,
    EDGE_CASE,
    REAL_DATA,
    REAL_DATA_CLASSIFIED,
    SCHEMA,
    Contract,
    RealDataSource,
    RunInfo,
    run_directory,
)
from oracle.signals import INTERRUPTED_CODES, Interrupted, raise_if_stopped, signals_deferred
from oracle.suite.edge_cases import EDGE_CASES

#: A column's working folder, beside its own, while its stream is written: `data/runs/.COLUMN.partial/`.
PARTIAL_SUFFIX = ".partial"


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
    take longer than `real_budget` seconds. A driver's stderr, and what a library run in process writes on the stderr
    descriptor itself, goes to a log in the folder `logs`.

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
        recorded=RunSettings(verb="report", seed=seed, examples=settings.examples, column=column.key),
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
    """A driver's stderr (its library's tracebacks and warnings), or what a library run in this process wrote on
    the stderr descriptor itself (a compiled library's panic messages), went to `log`, not over the progress lines:
    one line says where, or the empty log goes (its folder, shared by the columns, goes at the end: `driver_logs`)."""
    written = log.read_bytes().count(b"\n") if log.is_file() else 0
    if written and progress is not None:
        progress(f"{column.key}: its library wrote {written:,} lines on stderr (its tracebacks, warnings and "
                 f"panics, kept off the records and off these lines): {log}")
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
        summary = CorpusSummary(corpus=identifier.split("/")[0], system=system, references=tuple(references),
                                segments=len(request.segments))
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
        command=report_command(settings),
        date=date,
        cpu=cpu_description(),
    )
    return Observed(run, [*profile_records(), *implementation_records])


#: The x86 vector extensions that choose a float32 kernel (torch dispatches its vectorised log and exp on them),
#: widest first: (/proc/cpuinfo's flag, its name).
_VECTOR_EXTENSIONS = (("avx512f", "AVX-512"), ("avx2", "AVX2"))


def describe_cpu(machine: str, cpuinfo: str) -> str:
    """The CPU in a few words (run.json's "cpu"): the architecture `machine`, the first processor's model name and
    the widest x86 vector extension it has, from `cpuinfo`, the text of /proc/cpuinfo ("" where there is none)."""
    fields: dict[str, str] = {}
    for line in cpuinfo.split("\n"):
        key, colon, value = line.partition(":")
        if colon:
            fields.setdefault(key.strip(), value.strip())
    flags = fields.get("flags", "").split()
    vector = next((name for flag, name in _VECTOR_EXTENSIONS if flag in flags), "")
    return ", ".join(part for part in (machine, fields.get("model name", ""), vector) if part)


def cpu_description() -> str | None:
    """This machine's CPU as `describe_cpu` gives it (None where nothing names it)."""
    try:
        cpuinfo = Path("/proc/cpuinfo").read_text(encoding="utf-8", errors="replace")
    except OSError:
        cpuinfo = ""
    return describe_cpu(platform.machine() or platform.processor(), cpuinfo) or None


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
