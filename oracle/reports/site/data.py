"""The report's data files, read into typed models and written back: the only place that touches their JSON.

Under `<out>/data/`:

- ``run.json``: the settings (`RunInfo`);
- ``implementations.jsonl``: the oracle's profiles (`ProfileEntry`) and the registry's entries
  (`ImplementationEntry`: installed with name, version, language, profile and capabilities; or why not);
- ``runs/<column>/results.jsonl``: each column's event stream (`oracle.harness.events`), read back as
  the rows the pages show: matrix cells (`Cell`), random inputs (`SearchEntry`), re-runs of the curated
  discrepancies (`Rerun`) and real-data results (`RealRow`).

`read_data` returns all of it as one `ReportData`; the pages (`oracle.reports.site.view`) read attributes only.
Everything written is deterministic: sorted keys, shortest-repr floats, no clock readings but the day the columns
were observed (`RunInfo.date`, which SOURCE_DATE_EPOCH sets).
"""

from __future__ import annotations

import dataclasses
import json
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final, Literal, TextIO

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from oracle.diagnose.classify import describe_as
from oracle.diagnose.cover import run_name_of
from oracle.diagnose.discrepancies import models as discrepancy_models
from oracle.diagnose.discrepancies import reproduces
from oracle.files import write_atomically
from oracle.formulas.errors import BleuValueError
from oracle.harness.events import RESULTS_FILE, read_results
from oracle.models.discrepancy import Discrepancy
from oracle.models.jsonvalues import json_safe
from oracle.models.outcomes import Outcome, parse_number
from oracle.models.protocol import ScoreReply, ScoreRequest
from oracle.models.results import CorpusSummary, OmittedRequest, Record, cause_name
from oracle.models.wire import json_value
from oracle.suite.edge_cases import EDGE_CASES

SCHEMA: Final = "bleu-oracle-report/1"
DATA_DIR = "data"
RUN_FILE = "run.json"
IMPLEMENTATIONS_FILE = "implementations.jsonl"
#: The data files besides the runs' streams (data/runs/<column>/results.jsonl).
DATA_FILES = (RUN_FILE, IMPLEMENTATIONS_FILE)
RUNS_DIR = "runs"
#: The kinds of record a column's stream holds.
EDGE_CASE, DISCREPANCY, EXAMPLE, REAL_DATA = "edge-case", "discrepancy", "example", "real-data"
#: What a record a random input brought along holds in its id, before its kind: `random-S-I~KIND` (a companion,
#: `oracle.harness.generate.COMPANIONS`; a metamorphic relation; a stateful plan).
COMPANION_MARK = "~"
MESSAGE_LIMIT = 400
#: Real-data differences attributed per implementation and setting (the first ones, in system order): an
#: attribution recomputes the whole corpus per alternative, seconds each for some classes.
REAL_DATA_CLASSIFIED = 4
_ADDRESS = re.compile(r" at 0x[0-9a-fA-F]+")

#: A score as the stream has it: a number, or "NaN" / "Infinity" / "-Infinity" (the protocol's strings).
Score = float | str | None


# -- the files' models ---------------------------------------------------------------------------------


class _File(BaseModel):
    """A part of a data file: frozen; unknown fields kept (an older renderer can read a newer file)."""

    model_config = ConfigDict(extra="allow", frozen=True, populate_by_name=True)


class Contract(_File):
    abs: float = Field(description="The absolute tolerance of the numeric contract.")
    rel: float = Field(description="The relative tolerance of the numeric contract.")


class RealDataSource(_File):
    """What the real data was (or why there is none)."""

    skipped: str | None = Field(default=None, description="Why there is no real data; absent when there is.")
    folder: str | None = Field(default=None, description="The folder under ../shared/data.")
    systems: list[str] = Field(default_factory=list, description="The systems scored (alphabetical).")
    all_systems: list[str] = Field(default_factory=list, description="Every system in the folder.")
    segments: int | None = Field(default=None, description="Segments per system.")
    reference: str | None = Field(default=None, description="The official reference's file name.")
    extra_references: int = Field(
        default=3, description="How many system outputs join the reference in the multi-reference setting."
    )
    classified: int = Field(default=4, description="Differences attributed per implementation and setting.")
    extra_reference_rule: str | None = Field(default=None, description="How the extra references are chosen, in words.")
    tokens: str | None = Field(default=None, description="How lines become tokens, in words.")
    request: dict[str, Any] | None = Field(
        default=None, description="The request's settings (level, weights, smoothing)."
    )


class RunInfo(_File):
    """`run.json`: the settings and versions of the report's run."""

    schema_: Literal["bleu-oracle-report/1"] = Field(alias="schema", description="The data files' format.")
    suite_version: str = Field(description="bleu-oracle's version.")
    python: str = Field(description="The Python version.")
    seed: int = Field(description="The random search's seed.")
    examples: int = Field(description="Random inputs per implementation.")
    selected: list[str] | None = Field(default=None, description="The implementations selected (--impl); null: all.")
    contract: Contract
    edge_cases: int = Field(description="How many edge cases the matrix has.")
    profiles: list[str] = Field(description="The oracle's profiles, one column each.")
    real_data: RealDataSource
    command: str = Field(description="The command that regenerates the report.")
    date: str | None = Field(
        default=None, pattern=r"^\d{4}-\d{2}-\d{2}$",
        description="The day the columns were observed (UTC, YYYY-MM-DD; SOURCE_DATE_EPOCH's day when set); "
        "absent in data written before it was recorded.")
    cpu: str | None = Field(
        default=None,
        description="The CPU the columns ran on: architecture, model and widest x86 vector extension (a float32 "
        "kernel's last bit can differ by it); absent in data written before it was recorded.")


class ProfileEntry(_File):
    """A line of implementations.jsonl: one of the oracle's profiles."""

    type: Literal["profile"] = "profile"
    name: str
    summary: str
    citations: list[tuple[str, str]] = Field(description="(convention, where it is documented).")
    options: dict[str, Any] = Field(description="The profile's options, as `bleu-oracle profiles` prints them.")


class ImplementationEntry(_File):
    """A line of implementations.jsonl: a registry entry, installed or not."""

    type: Literal["implementation"] = "implementation"
    name: str = Field(description="The registry name (`--impl`).")
    adapter: str = Field(description="module:attribute of its adapter.")
    status: Literal["installed", "not-installed", "broken", "not-selected"]
    reason: str | None = Field(default=None, description="Why it is not installed (or not selected).")
    display_name: str | None = Field(default=None, description="The library's own name.")
    version: str | None = None
    language: str | None = None
    profile: str | None = Field(default=None, description="The profile it declares (and is judged against).")
    capabilities: dict[str, Any] | None = Field(
        default=None, description="What it declares it takes, as its handshake says."
    )

    @property
    def installed(self) -> bool:
        return self.status == "installed"


# -- the rows the pages show, from the columns' streams ---------------------------------------------

#: A verdict's classification for an acceptable answer: this, then the convention's name.
ACCEPTABLE_PREFIX = "acceptable: "


@dataclass(frozen=True)
class Answer:
    """What a column answered to one input, as the pages show it."""

    outcome: str  # "score" | "rejected" | "unsupported" | "error"
    score: Score = None  # as the stream has it (a number or "NaN")
    statistics: dict[str, Any] | None = None  # the reported statistics, as the stream has them
    message: str | None = None  # the rejection or error, bounded and without memory addresses


@dataclass(frozen=True)
class Expectation:
    """The oracle's expectation for one input under the judged profile."""

    rejected: bool
    score: Score = None
    score_exact: str | None = None
    reason: str | None = None


@dataclass(frozen=True)
class Verdict:
    """The session's judgement of one input and its root cause."""

    agrees: bool = False  # within the numeric contract, rejected as expected, or acceptable (a convention's value)
    classification: str | None = None  # the root cause's name; "unsupported"; None when not attributed
    documented: tuple[str, ...] = ()  # the curated discrepancy ids the root cause matches
    description: str | None = None  # the root cause in words
    parts: tuple[str, ...] = ()  # the root cause's mechanisms (`classification` is their written name)


@dataclass(frozen=True)
class EdgeCaseRow:
    """A row of the matrix: an edge case of `oracle.suite.edge_cases`."""

    id: str
    title: str
    why: str
    request: dict[str, Any]  # its replayable protocol-v1 payload


@dataclass(frozen=True)
class Cell:
    """A cell of the matrix: one column's answer to one edge case (judged, for an implementation)."""

    case: str
    column: str  # "oracle/<profile>" or the registry name
    kind: str  # "oracle" | "implementation"
    profile: str
    answer: Answer
    verdict: Verdict = Verdict()
    expected: Expectation | None = None  # (implementation columns)
    score_exact: str | None = None  # the oracle's exact value (oracle columns)
    not_applicable: str | None = None  # why the input is outside the implementation's capabilities


@dataclass(frozen=True)
class SearchEntry:
    """One random input of an implementation's search, judged."""

    implementation: str
    profile: str
    index: int  # random-<seed>-<index>
    id: str
    answer: Answer
    verdict: Verdict
    expected: Score  # the oracle's score
    expected_rejected: bool
    size: int  # tokens
    layer: str | None  # the first diverging layer
    request: dict[str, Any] | None = None  # kept for a finding no curated class explains
    #: a companion's or a relation's kind (the id's part after "~": "line-ends", "series", "references-permuted",
    #: "stateful", ...); None for the random input itself
    companion: str | None = None
    message: str | None = None  # the stream's words for a companion's deviation (bounded)


@dataclass(frozen=True)
class Rerun:
    """A curated discrepancy's minimal example, re-run through an implementation now."""

    implementation: str
    version: str | None
    profile: str
    answer: Answer
    expected: Expectation | None
    verdict: Verdict
    #: the root cause found now is the curated one (the answer aside: `reproduces` asks both)
    class_found: bool

    def answers_otherwise(self, entry: Discrepancy) -> bool:
        """Whether this re-run answers a score other than the one curated entry `entry` recorded: beyond the numeric
        contract, or beyond the entry's own `reproduced_within` where it states one (`discrepancies.reproduces`).
        An entry that records no score (a rejection, statistics), or a re-run that answers none, is judged by its
        class alone."""
        if "score" not in entry.example.implementation or self.answer.outcome != "score":
            return False
        return not reproduces(entry, self.answer.score)

    def reproduces(self, entry: Discrepancy) -> bool:
        """Whether this re-run reproduces curated entry `entry`: its class found again and its recorded answer given
        again (within the numeric contract or the entry's own tolerance). The one definition the pages and the
        trophy case count by."""
        return self.class_found and not self.answers_otherwise(entry)


@dataclass(frozen=True)
class RealRow:
    """A cell of the real-data tables: one system, one setting, one column."""

    system: str | None
    references: int
    reference_files: tuple[str, ...] | None
    column: str
    kind: str
    profile: str
    answer: Answer  # its outcome is "skipped" where the column could not take the input
    verdict: Verdict = Verdict()
    expected: float | None = None  # the oracle's value under the column's profile (implementation columns)
    difference: float | None = None  # answer - expected


@dataclass(frozen=True)
class ReportData:
    """Everything the pages show, read from the data files (and the curated discrepancies, the edge cases)."""

    run: RunInfo
    profiles: list[ProfileEntry]
    implementations: list[ImplementationEntry]
    cases: list[EdgeCaseRow]
    cells: list[Cell]
    search: list[SearchEntry]
    reruns: dict[str, list[Rerun]]  # discrepancy id -> its re-runs
    discrepancies: list[Discrepancy]
    real: list[RealRow] = field(default_factory=list)
    #: the records the random inputs brought along (ids `random-S-I~KIND`: companions, relations, stateful plans)
    companions: list[SearchEntry] = field(default_factory=list)


# -- JSON ----------------------------------------------------------------------------------------------


def dumps(obj: Any) -> str:
    """One deterministic JSON line: sorted keys, shortest-repr floats, non-ASCII kept. Not the protocol's
    encoder (`oracle.models.protocol.encode`) on purpose: sorted keys make the data files, and so the reports,
    byte-identical across runs, and the committed files are written with these separators."""
    return json.dumps(json_safe(obj), sort_keys=True, ensure_ascii=False, allow_nan=False)


def write_jsonl(path: Path, records: Iterable[Any]) -> None:
    """One `dumps` line per record, the file written whole or not at all (FileWriteError names it)."""

    def lines(handle: TextIO) -> None:
        for record in records:
            handle.write(dumps(record) + "\n")

    write_atomically(path, lines)


def read_jsonl(path: Path) -> list[tuple[int, Any]]:
    """(line number, value) of each non-blank line; a line that is not JSON is a BleuValueError naming it."""
    records = []
    with open(path, "rb") as handle:
        for number, raw in enumerate(handle, 1):
            if raw.strip():
                try:
                    records.append((number, json_value(raw.decode("utf-8"))))
                except UnicodeDecodeError as exc:
                    raise BleuValueError(f"{path}:{number}: not UTF-8 text (byte {exc.start + 1})") from None
                except ValueError as exc:
                    raise BleuValueError(f"{path}:{number}: not a JSON line ({exc})") from None
    return records


def write_data(out: Path, run: RunInfo, entries: Iterable[ProfileEntry | ImplementationEntry]) -> Path:
    """Write run.json and implementations.jsonl under `out/data/`; returns that folder. Only the fields set are
    written (a registry entry that is not installed has no version)."""
    data_dir = Path(out) / DATA_DIR
    data_dir.mkdir(parents=True, exist_ok=True)
    write_atomically(
        data_dir / RUN_FILE,
        json.dumps(json_safe(_dumped(run)), sort_keys=True, ensure_ascii=False, allow_nan=False, indent=2) + "\n",
    )
    write_jsonl(data_dir / IMPLEMENTATIONS_FILE, [_dumped(entry) for entry in entries])
    return data_dir


def _dumped(model: BaseModel) -> Any:
    return model.model_dump(mode="json", by_alias=True, exclude_unset=True)


def run_directory(data_dir: Path, key: str) -> Path:
    """Where column `key` ("oracle/nltk", "torchmetrics") writes its results.jsonl."""
    return Path(data_dir) / RUNS_DIR / key.replace("/", "-")


def _validated(model: type[BaseModel], value: Any, where: str) -> Any:
    try:
        return model.model_validate(value)
    except ValidationError as exc:
        error = exc.errors()[0]
        location = ".".join(str(part) for part in error["loc"]) or "the line"
        raise BleuValueError(f"{where}: {location}: {error['msg']}") from None


def read_run(data_dir: Path) -> RunInfo:
    path = data_dir / RUN_FILE
    try:
        run = json_value(path.read_bytes().decode("utf-8"))
    except UnicodeDecodeError as exc:
        raise BleuValueError(f"{path}: not UTF-8 text (byte {exc.start + 1})") from None
    except ValueError as exc:
        raise BleuValueError(f"{path}: not JSON ({exc})") from None
    schema = run.get("schema") if isinstance(run, dict) else None
    if schema != SCHEMA:
        raise BleuValueError(f"{path}: schema {schema!r}, expected {SCHEMA!r}")
    return _validated(RunInfo, run, str(path))


def read_entries(data_dir: Path) -> tuple[list[ProfileEntry], list[ImplementationEntry]]:
    path = data_dir / IMPLEMENTATIONS_FILE
    profiles, implementations = [], []
    for number, line in read_jsonl(path):
        kind = line.get("type") if isinstance(line, dict) else None
        if kind == "profile":
            profiles.append(_validated(ProfileEntry, line, f"{path}:{number}"))
        elif kind == "implementation":
            implementations.append(_validated(ImplementationEntry, line, f"{path}:{number}"))
        else:
            raise BleuValueError(f"{path}:{number}: type {kind!r}, expected 'profile' or 'implementation'")
    return profiles, implementations


def read_data(out: Path) -> ReportData:
    """What the pages show, from the report directory's data alone (and the curated discrepancies and edge cases
    of this bleu-oracle); the matrix, the random search and the re-runs come from the columns' streams."""
    data_dir = Path(out) / DATA_DIR
    missing = [name for name in DATA_FILES if not (data_dir / name).is_file()]
    if missing:
        raise BleuValueError(
            f"{data_dir} lacks {', '.join(missing)}: run `bleu-oracle report` first (without --render-only)"
        )
    run = read_run(data_dir)
    profiles, implementations = read_entries(data_dir)
    columns = [StreamColumn(f"oracle/{name}", "oracle", name, None) for name in run.profiles]
    columns += [
        StreamColumn(entry.name, "implementation", entry.profile or "", entry.version)
        for entry in implementations
        if entry.installed
    ]
    rows = Rows()
    for column in columns:
        path = run_directory(data_dir, column.key) / RESULTS_FILE
        if path.is_file():
            results = read_results(path)
            causes = results.footer.causes if results.footer is not None else ()
            named = dataclasses.replace(column, run_names=tuple(cause.parts for cause in causes or ()))
            for record in results.records:
                rows.add(record, named)
    cases = [EdgeCaseRow(case.id, case.title, case.why, case.request.replay_payload()) for case in EDGE_CASES]
    return ReportData(
        run=run,
        profiles=profiles,
        implementations=implementations,
        cases=cases,
        cells=rows.cells,
        search=rows.search,
        reruns=rows.reruns,
        discrepancies=discrepancy_models(),
        real=rows.real,
        companions=rows.companions,
    )


# -- a stream's records as rows ------------------------------------------------------------------------


@dataclass(frozen=True)
class StreamColumn:
    """A column as its stream is read back."""

    key: str
    kind: str  # "oracle" | "implementation"
    profile: str
    version: str | None
    #: the run's causes (its footer's, their parts), by which the edge cases and random inputs are named: one bug,
    #: one name
    run_names: tuple[tuple[str, ...], ...] = ()


def message(text: str | None) -> str | None:
    """A message fit for a deterministic report: no memory addresses, bounded length."""
    if text is None:
        return None
    text = _ADDRESS.sub("", " ".join(str(text).split()))
    return text if len(text) <= MESSAGE_LIMIT else text[: MESSAGE_LIMIT - 3] + "..."


def answer(record: Record) -> Answer:
    """What the implementation answered, as the pages show it."""
    if record.outcome == Outcome.NOT_APPLICABLE:
        return Answer("unsupported", message=message(record.message))
    if not isinstance(record.actual, ScoreReply):  # crash, timeout, protocol error
        return Answer("error", message=message(record.message))
    reply = record.actual.to_json()  # as the stream has it: "NaN" a string
    kind = record.actual.outcome
    if kind == "score":
        statistics = reply["statistics"] if record.actual.statistics is not None else None
        return Answer("score", score=reply["score"], statistics=statistics)
    return Answer(kind, message=message(reply[kind]))


def expectation(record: Record) -> Expectation | None:
    """The oracle's expectation as the pages show it (None where the input was not applicable)."""
    expected = record.expected
    if expected is None:
        return None
    if expected.rejected:
        return Expectation(True, reason=message(expected.reason))
    return Expectation(False, score=json_safe(expected.score), score_exact=expected.score_exact)


def verdict(record: Record, run_names: tuple[tuple[str, ...], ...] = ()) -> Verdict:
    """The session's judgement and root cause; with the run's causes (`run_names`), the record is named by the
    first of them that fits it. Its curated classes are those its own name matched: the behaviour they document
    is the record's, whichever of the names that fit it the run gives."""
    if record.outcome == Outcome.PASS:
        return Verdict(True, "agrees")
    if record.outcome == Outcome.REJECTED:
        return Verdict(True, "rejected-as-expected")
    if record.outcome == Outcome.ACCEPTABLE:  # an undefined input scored with a named convention's value
        return Verdict(True, f"{ACCEPTABLE_PREFIX}{record.convention}")
    if record.outcome == Outcome.NOT_APPLICABLE:
        return Verdict(False, "unsupported")
    cause = record.classification
    if cause is None:
        return Verdict()
    parts = run_name_of(cause.signature_parts, run_names)
    return Verdict(False, cause_name(parts), tuple(cause.documented), message(describe_as(cause, parts)), parts)


def _size(request: Any) -> int:
    if isinstance(request, OmittedRequest):  # a large input, kept as its shape (session.RECORD_TOKEN_LIMIT)
        return request.omitted.tokens
    return request.token_count if isinstance(request, ScoreRequest) else 0


def _request_json(request: Any) -> dict[str, Any] | None:
    """A recorded input as the pages show it: the replayable form, or (too large to keep) its shape."""
    if isinstance(request, ScoreRequest):
        return request.replay_payload() if request.seq == 0 else request.to_json()
    return None if request is None else request.model_dump(mode="json", exclude_none=True)


@dataclass
class Rows:
    """The rows of every column's stream, in stream order."""

    cells: list[Cell] = field(default_factory=list)
    search: list[SearchEntry] = field(default_factory=list)
    reruns: dict[str, list[Rerun]] = field(default_factory=dict)
    real: list[RealRow] = field(default_factory=list)
    companions: list[SearchEntry] = field(default_factory=list)

    def add(self, record: Record, column: StreamColumn) -> None:
        if record.kind == EDGE_CASE:
            self.cells.append(_cell(record, column))
        elif record.kind == DISCREPANCY:
            judged = verdict(record)
            self.reruns.setdefault(record.id, []).append(
                Rerun(
                    column.key,
                    column.version,
                    column.profile,
                    answer(record),
                    expectation(record),
                    judged,
                    class_found=record.id in judged.documented,
                )
            )
        elif record.kind == REAL_DATA:
            self.real.append(_real_row(record, column))
        elif COMPANION_MARK in record.id:  # a companion's, a relation's or a stateful plan's record
            self.companions.append(_search_entry(record, column))
        elif record.kind == EXAMPLE:
            self.search.append(_search_entry(record, column))


def _cell(record: Record, column: StreamColumn) -> Cell:
    shown = answer(record)
    if column.kind == "oracle":
        exact = record.expected.score_exact if record.expected is not None else None
        return Cell(record.id, column.key, column.kind, column.profile, shown, score_exact=exact)
    not_applicable = message(record.message) if record.outcome == Outcome.NOT_APPLICABLE else None
    return Cell(
        record.id,
        column.key,
        column.kind,
        column.profile,
        shown,
        verdict(record, column.run_names),
        expectation(record),
        not_applicable=not_applicable,
    )


def _search_entry(record: Record, column: StreamColumn) -> SearchEntry:
    """A random input, or a record it brought along (`companion`: its kind; `message`: the stream's words for
    its deviation)."""
    base, _, companion = record.id.partition(COMPANION_MARK)
    judged = verdict(record, column.run_names)
    expected = expectation(record)
    shown = answer(record)
    request = None
    if judged.documented or judged.agrees:
        judged = Verdict(judged.agrees, judged.classification, judged.documented, None)  # the curated class says it
    else:  # a finding no curated class explains: keep the input itself
        request = _request_json(record.replay or record.request)
    return SearchEntry(
        column.key,
        column.profile,
        int(base.rsplit("-", 1)[1]),
        record.id,
        shown,
        judged,
        expected=expected.score if expected is not None else None,
        expected_rejected=expected is not None and expected.rejected,
        size=_size(record.request),
        layer=record.layer,
        request=request,
        companion=companion or None,
        message=message(record.message) if companion and not judged.agrees else None,
    )


def _real_row(record: Record, column: StreamColumn) -> RealRow:
    summary = record.request if isinstance(record.request, CorpusSummary) else None
    references = tuple(summary.references) if summary is not None else None
    shown = answer(record)
    row = RealRow(
        summary.system if summary is not None else None,
        len(references or ()),
        references,
        column.key,
        column.kind,
        column.profile,
        shown,
    )
    if column.kind == "oracle":
        return row
    if record.outcome == Outcome.NOT_APPLICABLE:
        return RealRow(
            row.system,
            row.references,
            row.reference_files,
            row.column,
            row.kind,
            row.profile,
            Answer("skipped", shown.score, shown.statistics, message(record.message)),
        )
    expected = record.expected.score if record.expected is not None else None
    score = parse_number(shown.score)
    judged = verdict(record)
    if record.outcome == Outcome.FAIL and record.classification is None:
        judged = Verdict(judged.agrees, "not-classified", judged.documented, judged.description)
    difference = score - expected if score is not None and expected is not None else None
    return RealRow(
        row.system,
        row.references,
        row.reference_files,
        row.column,
        row.kind,
        row.profile,
        shown,
        judged,
        expected,
        difference,
    )
