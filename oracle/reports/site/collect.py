"""`bleu-oracle report`: every column run through the harness, then the pages rendered from the data alone.

The columns are the oracle under each profile and each installed implementation (its adapter, driven
in process by `oracle.harness.inprocess`; a library outside this Python, its driver as a process).
Under `<out>/data/`:

- ``runs/<column>/results.jsonl``: the column's event stream, written by the harness's session
  exactly as `check` writes one (`oracle.reports.runs`): every edge case of
  `oracle.suite.edge_cases` (the matrix), the implementation's curated discrepancy examples
  re-run now (does each class still reproduce with the installed version?), and `--examples`
  random inputs from `oracle.harness.generate` (the inputs `check --seed S` sends), each judged
  against the oracle under the declared profile and each disagreement attributed to its root
  cause, first among the implementation's curated classes
  (`oracle/diagnose/data/discrepancies.yaml`), then among every explanation;
- ``implementations.jsonl``: one line per registry entry (`oracle.adapters.base.REGISTRY`):
  installed (name, version, language, declared profile, capabilities), not installed (the
  install hint), broken (the error), or not selected (`--impl`); plus one line per oracle
  profile (its summary and citations);
- ``real_data.jsonl``: every implementation on WMT17 newstest2017 English-German (16 systems;
  corpus level; whitespace tokens; BLEU-4, uniform weights, no smoothing), with 1 reference and
  with 4 (see `extra_reference_systems`), next to the oracle under each declared profile;
- ``run.json``: the settings (seed, examples, versions, real-data source).

Everything is deterministic: no clock readings, keys sorted, floats as Python's shortest repr
(NaN and infinities as the protocol's strings). The same versions and seed give byte-identical
data, and so byte-identical pages. `oracle.reports.render` reads only these files
(`report --render-only`).
"""

from __future__ import annotations

import contextlib
import importlib
import io
import json
import os
import platform
import re
import signal
import sys
import time
import warnings
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from oracle import __version__
from oracle.adapters.base import REGISTRY, AdapterUnavailable, Declared
from oracle.adapters.base import call as adapter_call
from oracle.adapters.lifetimes import set_own_death_signal
from oracle.diagnose.discrepancies import load as load_discrepancies
from oracle.diagnose.expect import oracle_expected
from oracle.diagnose.judge import DEFAULT_ABS, DEFAULT_REL
from oracle.formulas.errors import BleuValueError
from oracle.formulas.profiles import PROFILES
from oracle.models.jsonvalues import json_safe
from oracle.models.protocol import ScoreRequest, Segment
from oracle.suite.edge_cases import EDGE_CASES
from oracle.signals import Interrupted, raise_if_stopped
from oracle.textio import read_lines

from .data import run_column, tables

SCHEMA = "bleu-oracle-report/1"
DATA_DIR = "data"
RUN_FILE = "run.json"
IMPLEMENTATIONS_FILE = "implementations.jsonl"
#: The data files besides the runs' streams (data/runs/<column>/results.jsonl).
DATA_FILES = (RUN_FILE, IMPLEMENTATIONS_FILE)

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
REAL_DATA_CLASSIFIED = 4
#: How many system outputs join the official reference in the multi-reference setting.
EXTRA_REFERENCES = 3
BLEU4 = (0.25, 0.25, 0.25, 0.25)
NO_SMOOTHING = {"method": "none"}
MESSAGE_LIMIT = 400


def default_real_data_dir():
    """`../shared/data/wmt17-en-de` next to the project root (absent on a fresh clone)."""
    return Path(__file__).resolve().parents[3] / "shared" / "data" / REAL_DATA_SUBDIR


@dataclass
class Settings:
    out: Path = Path("reports")
    seed: int = DEFAULT_SEED
    examples: int = DEFAULT_EXAMPLES
    #: registry names to run (None: all); "oracle" is always in (under every profile)
    implementations: tuple | None = None
    #: the wmt17-en-de folder; None: no real data
    real_data: Path | None = field(default_factory=default_real_data_dir)
    #: why there is no real data (when real_data is None)
    real_data_skipped: str = ""
    #: score only the first N systems (alphabetical); None: all 16
    real_data_systems: int | None = None
    real_data_budget: float = DEFAULT_REAL_DATA_BUDGET
    #: a function of one line of text, for progress (stderr); None: silent
    progress: object = None
    #: columns run at once, in forked processes (each writes its own results.jsonl: the same bytes as one)
    jobs: int = 1
    #: write into a folder that holds files which are not a report's (they are left alone)
    report_force: bool = False


# -- JSON ----------------------------------------------------------------------


def dumps(obj):
    """One deterministic JSON line: sorted keys, shortest-repr floats, non-ASCII kept. Not the protocol's
    encoder (`oracle.models.protocol.encode`) on purpose: sorted keys make the data files, and so the reports,
    byte-identical across runs, and the committed files are written with these separators."""
    return json.dumps(json_safe(obj), sort_keys=True, ensure_ascii=False, allow_nan=False)


def write_jsonl(path, records):
    with open(path, "w", encoding="utf-8", newline="\n") as handle:
        for record in records:
            handle.write(dumps(record) + "\n")


def read_jsonl(path):
    records = []
    with open(path, encoding="utf-8", newline="\n") as handle:
        for number_, line in enumerate(handle, 1):
            if line.strip():
                try:
                    records.append(json.loads(line))
                except ValueError as exc:
                    raise BleuValueError(f"{path}:{number_}: not a JSON line ({exc})") from None
    return records


def read_data(out):
    """What the pages show, from the report directory's data alone: {"run", "implementations", "matrix",
    "search", "discrepancies", "real_data"}; the matrix, the random search and the discrepancy re-runs
    come from the columns' results.jsonl streams (`oracle.reports.runs.tables`)."""
    data_dir = Path(out) / DATA_DIR
    missing = [name for name in DATA_FILES if not (data_dir / name).is_file()]
    if missing:
        raise BleuValueError(f"{data_dir} lacks {', '.join(missing)}: run `bleu-oracle report` first "
                             "(without --render-only)")
    with open(data_dir / RUN_FILE, encoding="utf-8") as handle:
        run = json.load(handle)
    if run.get("schema") != SCHEMA:
        raise BleuValueError(f"{data_dir / RUN_FILE}: schema {run.get('schema')!r}, expected {SCHEMA!r}")
    implementations = read_jsonl(data_dir / IMPLEMENTATIONS_FILE)
    columns = [(f"oracle/{name}", "oracle", name, None) for name in run.get("profiles", [])]
    columns += [(r["name"], "implementation", r["profile"], r.get("version")) for r in implementations
                if r.get("type") == "implementation" and r.get("status") == "installed"]
    cells, search, reruns, real = tables(data_dir, columns)
    cases = [{"type": "case", "id": case.id, "title": case.title, "why": case.why,
              "request": case.request.replay_payload()} for case in EDGE_CASES]
    discrepancies = [{"type": "discrepancy", **entry, "rerun": reruns.get(entry["id"], [])}
                     for entry in load_discrepancies()]
    return {"run": run, "implementations": implementations, "matrix": cases + cells, "search": search,
            "discrepancies": discrepancies, "real_data": real}


# -- calling an implementation --------------------------------------------------

_ADDRESS = re.compile(r" at 0x[0-9a-fA-F]+")


def _message(text):
    """An error message fit for a deterministic report: no memory addresses, bounded length."""
    text = _ADDRESS.sub("", " ".join(str(text).split()))
    return text if len(text) <= MESSAGE_LIMIT else text[: MESSAGE_LIMIT - 3] + "..."


def call(implementation, request):
    """The implementation's answer to one request as a record: {"outcome": "score" | "rejected" |
    "unsupported" | "error", "score", "statistics", "message"}, as `oracle.adapters.base.call` maps
    exceptions (a panic in a native extension is an error). Never raises, but for ^C and SystemExit."""
    with warnings.catch_warnings(), contextlib.redirect_stdout(io.StringIO()):
        warnings.simplefilter("ignore")
        outcome, answer = adapter_call(implementation, request)
    if outcome != "score":
        return {"outcome": outcome, "score": None, "statistics": None, "message": _message(answer)}
    try:
        score = float(answer.score)
    except (TypeError, ValueError) as exc:
        return {"outcome": "error", "score": None, "statistics": None,
                "message": _message(f"the answer's score is not a number: {answer.score!r} ({exc})")}
    statistics = None
    if answer.statistics:
        statistics = {k: v for k, v in dict(answer.statistics).items() if v is not None}
    return {"outcome": "score", "score": score, "statistics": statistics, "message": None}


def expectation(request, profile):
    """The oracle's answer under `profile` as a record {"rejected", "score", "score_exact", "reason"}."""
    expected = oracle_expected(request, profile)
    if expected.rejected:
        return {"rejected": True, "score": None, "score_exact": None, "reason": _message(expected.reason)}
    return {"rejected": False, "score": expected.score, "score_exact": expected.score_exact, "reason": None}


# -- the implementations ------------------------------------------------------


@dataclass
class Column:
    """An implementation (or the oracle under a profile) as a column of the report."""

    key: str  # "oracle/<profile>" or the registry name
    implementation: Declared  # an adapter, or a library's declaration (its driver runs as a process)
    profile: str
    kind: str  # "oracle" | "implementation"


def load_implementations(selected=None):
    """(records for implementations.jsonl, [Column] of the installed ones, in registry order)."""
    records, columns = [], []
    for name, spec in REGISTRY.items():
        if name == "oracle":
            continue
        record = {"type": "implementation", "name": name, "adapter": spec}
        if selected is not None and name not in selected:
            record.update(status="not-selected", reason="not selected (--impl)")
            records.append(record)
            continue
        module, _, attribute = spec.partition(":")
        try:
            implementation = getattr(importlib.import_module(module), attribute)()
        except (KeyboardInterrupt, Interrupted):
            raise
        except (AdapterUnavailable, ImportError) as exc:
            record.update(status="not-installed", reason=_message(exc))
            records.append(record)
            continue
        except BaseException as exc:  # noqa: BLE001 - a broken install must not end the report
            record.update(status="broken", reason=_message(f"{type(exc).__name__}: {exc}"))
            records.append(record)
            continue
        record.update(status="installed", display_name=implementation.name, version=str(implementation.version),
                      language=implementation.language, profile=implementation.profile,
                      capabilities=dict(implementation.capabilities))
        records.append(record)
        columns.append(Column(name, implementation, implementation.profile, "implementation"))
    return records, columns


def oracle_columns():
    from oracle.adapters.oracle_adapter import OracleImplementation

    return [Column(f"oracle/{name}", OracleImplementation(profile=name), name, "oracle") for name in PROFILES]


def profile_records():
    return [{"type": "profile", "name": p.name, "summary": p.summary,
             "citations": [list(c) for c in p.citations], "options": p.options.to_json()}
            for p in PROFILES.values()]


# -- observations: the real data -----------------------------------------------


def real_data_systems(folder):
    """The system names of the folder (every newstest2017.*.en-de.txt.gz but the reference), sorted."""
    names = []
    for path in sorted(Path(folder).glob(f"{REAL_DATA_PREFIX}*{REAL_DATA_SUFFIX}")):
        system = path.name[len(REAL_DATA_PREFIX): -len(REAL_DATA_SUFFIX)]
        if system != REAL_DATA_REFERENCE:
            names.append(system)
    return sorted(names)


def extra_reference_systems(system, systems):
    """The extra (pseudo-)references of `system` in the multi-reference setting: the
    EXTRA_REFERENCES alphabetically first systems (Python's str order) other than `system`."""
    return [s for s in sorted(systems) if s != system][:EXTRA_REFERENCES]


def _read_tokens(folder, name):
    return [tuple(line.split()) for line in read_lines(Path(folder) / f"{REAL_DATA_PREFIX}{name}{REAL_DATA_SUFFIX}")]


@dataclass
class RealData:
    """The WMT17 requests the report scores: (id, system, reference files, request) per system and setting,
    and the description run.json records."""

    items: list
    source: dict


def load_real_data(settings, progress):
    """The real-data requests (RealData), or a reason why there are none (str)."""
    folder = settings.real_data
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
            segments = [Segment(hypothesis=h, references=refs) for h, *refs in
                        zip(text[system], *(text[name] for name in references))]
            request = ScoreRequest(level="corpus", segments=segments, weights=BLEU4, smoothing="none")
            items.append((f"{REAL_DATA_SUBDIR}/{system}/{count}", system, references, request))
    source = {"folder": REAL_DATA_SUBDIR, "systems": systems, "all_systems": all_systems,
              "segments": lengths[REAL_DATA_REFERENCE], "reference": f"{REAL_DATA_PREFIX}{REAL_DATA_REFERENCE}{REAL_DATA_SUFFIX}",
              "extra_references": EXTRA_REFERENCES, "classified": REAL_DATA_CLASSIFIED,
              "extra_reference_rule": (f"the {EXTRA_REFERENCES} alphabetically first systems (Python str order) "
                                       "other than the hypothesis system, drawn from all systems in the folder"),
              "tokens": "str.split() of each line; lines split on \"\\n\" only",
              "request": {"level": "corpus", "weights": list(BLEU4), "smoothing": NO_SMOOTHING, "lowercase": False}}
    return RealData(items, source)


# -- the whole run -------------------------------------------------------------


def say(progress, text):
    if progress is not None:
        progress(text)


def observe(settings):
    """Run everything; return the data (as `read_data` would read it back)."""
    progress = settings.progress
    selected = None
    if settings.implementations is not None:
        selected = {name for name in settings.implementations if name != "oracle"}
        unknown = sorted(selected - set(REGISTRY))
        if unknown:
            raise BleuValueError(f"unknown implementation(s) {unknown}; known: {sorted(REGISTRY)}")
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
        real_source = {"skipped": settings.real_data_skipped or "real data not requested (--no-real-data)"}
    elif not Path(settings.real_data).is_dir():
        real_source = {"skipped": f"the real data is absent ({REAL_DATA_SUBDIR} not found at ../shared/data)"}
        say(progress, f"real data skipped: {real_source['skipped']}")
    else:
        started = time.perf_counter()
        real = load_real_data(settings, progress)
        say(progress, f"real data read in {time.perf_counter() - started:.1f} s")
        real_source = {"skipped": real} if isinstance(real, str) else real.source
        real = None if isinstance(real, str) else real
    # The oracle under the implementations' profiles (and the paper's) scores the real data: each
    # implementation is judged against its profile's column on it.
    real_profiles = {c.profile for c in columns} | {"papineni"}
    data_dir = Path(settings.out) / DATA_DIR
    # each column's own results.jsonl, through the harness's session: the oracle's first (an implementation
    # is judged on the real data against the oracle column of its profile), then the implementations
    _FORKED.update(columns={c.key: c for c in oracle_cols + columns}, settings=settings, real=real,
                   real_profiles=real_profiles, data_dir=data_dir)
    try:
        for phase in (oracle_cols, columns):
            _run_columns([c.key for c in phase], settings.jobs, progress)
    finally:
        _FORKED.clear()
    run = {
        "schema": SCHEMA,
        "suite_version": __version__,
        "python": platform.python_version(),
        "seed": settings.seed,
        "examples": settings.examples,
        "selected": None if selected is None else sorted(selected),
        "contract": {"abs": DEFAULT_ABS, "rel": DEFAULT_REL},
        "edge_cases": len(EDGE_CASES),
        "profiles": list(PROFILES),
        "real_data": real_source,
        "command": _command(settings),
    }
    return {"run": run, "implementations": profile_records() + implementation_records}


#: What a forked column process reads (set before the pool forks, so nothing large is pickled).
_FORKED: dict[str, Any] = {}


def pin_threads():
    """One thread for torch (and anything OpenMP): a parallel reduction's order changes the last digits of a
    float32 sum, and reruns of the report must give the same bytes."""
    os.environ.setdefault("OMP_NUM_THREADS", "1")  # read when torch is imported
    torch = sys.modules.get("torch")
    if torch is not None:
        torch.set_num_threads(1)


def _run_one_column(key):
    """Run column `key` (in this process or a forked one); returns (key, seconds)."""
    pin_threads()
    started = time.perf_counter()
    column, settings, real = _FORKED["columns"][key], _FORKED["settings"], _FORKED["real"]
    scores_real = real is not None and (column.kind == "implementation" or column.profile in _FORKED["real_profiles"])
    run_column(column, data_dir=_FORKED["data_dir"], seed=settings.seed, examples=settings.examples,
               progress=settings.progress, real=real if scores_real else None, real_budget=settings.real_data_budget)
    return key, time.perf_counter() - started


def _run_columns(keys, jobs, progress):
    """Run the columns `keys`, `jobs` at a time in forked processes. An exception here (^C, SIGTERM's
    `Interrupted`, a column's failure) stops every column process at once, whatever it was running,
    before it goes on: nothing is left computing for a report that will not be written."""
    if jobs <= 1 or len(keys) <= 1:
        for key in keys:
            raise_if_stopped()  # a stop signal whose exception a library swallowed (some catch BaseException)
            say(progress, "%s: done in %.1f s" % _run_one_column(key))
        return
    import concurrent.futures
    import multiprocessing

    context = multiprocessing.get_context("fork")  # the columns and the real data are inherited, not pickled
    pool = concurrent.futures.ProcessPoolExecutor(max_workers=jobs, mp_context=context,
                                                  initializer=_column_process_started)
    try:
        for future in concurrent.futures.as_completed([pool.submit(_run_one_column, key) for key in keys]):
            say(progress, "%s: done in %.1f s" % future.result())
    except BaseException:
        _stop_column_processes(pool)
        raise
    pool.shutdown(wait=True)


def _column_process_started():
    """In a forked column process: a process group of its own (so that stopping it stops what it runs,
    and a terminal's ^C goes to the report alone, which stops the columns), the default SIGTERM (the
    report's handler is inherited by the fork), and the kernel's SIGKILL if the report dies."""
    os.setpgrp()
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    set_own_death_signal(signal.SIGKILL, parent=os.getppid())


def _stop_column_processes(pool):
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


def _command(settings):
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


def write_data(out, data):
    data_dir = Path(out) / DATA_DIR
    data_dir.mkdir(parents=True, exist_ok=True)
    with open(data_dir / RUN_FILE, "w", encoding="utf-8", newline="\n") as handle:
        handle.write(json.dumps(json_safe(data["run"]), sort_keys=True, ensure_ascii=False, allow_nan=False,
                                indent=2) + "\n")
    write_jsonl(data_dir / IMPLEMENTATIONS_FILE, data["implementations"])
    return data_dir


def stderr_progress(text):
    print(f"bleu-oracle report: {text}", file=sys.stderr, flush=True)


__all__ = ["DATA_FILES", "SCHEMA", "Settings", "call", "default_real_data_dir", "dumps", "extra_reference_systems",
           "observe", "read_data", "real_data_systems", "write_data"]
