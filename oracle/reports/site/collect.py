"""`bleu-oracle report`'s observations, read: the columns (the oracle under each profile, each installed
implementation), what each column's run holds, and the WMT17 real data. The columns are run by the command
(`oracle.commands.report_columns`: each a session of the harness, one `results.jsonl` each); everything here
reads (the registry, the curated discrepancies, the real data's files, the oracle column's stream).

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
same bytes. The running (`report_columns.observe`) returns run.json's settings and implementations.jsonl's
lines (the registry: installed, not installed with the install hint, broken with the error, or not selected;
and the oracle's profiles).
"""

from __future__ import annotations

import datetime
import os
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from oracle.adapters import registry
from oracle.adapters.base import AdapterUnavailable, Declared
from oracle.diagnose.discrepancies import models as discrepancy_models
from oracle.escaping import shown
from oracle.formulas.errors import BleuValueError
from oracle.formulas.profiles import PROFILES
from oracle.harness.events import RESULTS_FILE, read_results
from oracle.harness.requests import request_from_json
from oracle.models.outcomes import Expected
from oracle.models.protocol import ScoreRequest, Segment
from oracle.signals import Interrupted
from oracle.textio import read_lines

from .data import (
    REAL_DATA,
    REAL_DATA_CLASSIFIED,
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


def oracle_expectations(data_dir: Path, profile: str) -> dict[str, Expected]:
    """id -> the oracle's Expected for each real-data corpus, from the oracle column of `profile`."""
    path = run_directory(data_dir, f"oracle/{profile}") / RESULTS_FILE
    if not path.is_file():
        return {}
    return {r.id: r.expected for r in read_results(path).records if r.kind == REAL_DATA and r.expected is not None}


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


def report_command(settings: Settings) -> str:
    """The `bleu-oracle report` command line run.json records (the options that differ from the defaults)."""
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
