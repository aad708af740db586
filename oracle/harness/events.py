"""The event stream of a `check` or `fuzz` run: `results.jsonl`, the one canonical record.

One JSON object per line, written (and flushed) as the run goes:

1. a header: ``{"type": "header", "schema": SCHEMA, "suite_version", "oracle_version",
   "implementation": {"name", "version", "language"}, "profile" (declared), "judged_profile",
   "capabilities", "handshake_error" (when it could not be driven), "settings": {"seed", "examples",
   "rel", "abs", "timeout", "max_restarts", "shrink_budget", "cases", "command", "baseline",
   "replay", "only", "verb" ("check" or "fuzz")}, "started"}``;
2. one record per case, random example or replayed input: ``{"type": "record", "id", "kind"
   ("case" | "example" | "replay"), "title", "request" (the protocol score command), "outcome"
   (an `Outcome` value), "layer" (first diverging layer or null), "order" (1-based n for
   matches/totals), "label" ("fail:ref_len", "crash", ...), "convention" (on an input the documents leave
   undefined: the named convention whose value was answered), "classification" (for a record that
   is not good: its root cause, `oracle.diagnose.classify.Explanation.to_json()` -- {"name", "description",
   "change", "value", "expected"} -- plus "documented" (curated discrepancy ids) and "scope"; on the
   shrunk input for a random example; null otherwise), "baseline_key", "expected"
   (`Expected.to_json()`), "actual" (the reply object or null), "message", "stderr" (captured
   during this request), "duration" (seconds the implementation took to answer), "wall" (seconds
   including judging and shrinking), "baseline" ({"status", "reason"} or null), "shrunk"
   (the minimal failing input: {"request", "expected", "actual", "layer", "order", "message",
   "steps", "queries"} or null), "replay" (the replay JSON of the input reported), "reproduce" (a
   one-line command)}``;
3. a footer: ``{"type": "footer", "counts": {outcome: n}, "baseline": {"known", "new", "fixed",
   "changed", "stale": [ids], "unused": [ids]}, "gate": "pass" | "fail", "exit_code", "restarts",
   "duration", "finished"}``.

Everything else (summary.md, junit.xml) is derived from this file by
`oracle.reports.summaries`, so reports can be regenerated from it alone. A run cut
short (killed) leaves a file without a footer; `read_results` accepts it.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

from pydantic_core import PydanticSerializationError

from oracle.diagnose import mechanisms
from oracle.diagnose.cover import PATTERN_RECORDS, UNEXPLAINED, Cause, Signature, minimal_cover, needs_evidence
from oracle.diagnose.cover import RunCause as CoveredCause
from oracle.diagnose.equals import PASSING_SAMPLE, Passing, not_contradicted
from oracle.diagnose.stale import CONFIRMED_BY
from oracle.formulas.errors import FileWriteError, os_reason
from oracle.models.outcomes import GOOD_OUTCOMES, OUTCOME_ORDER, Outcome
from oracle.models.protocol import ScoreReply, ScoreRequest
from oracle.models.results import (
    SCHEMA,
    Footer,
    Header,
    Record,
    ResultsFormatError,
    RunCause,
    cause_name,
    parse_line,
)
from oracle.models.wire import json_value, without_lone_surrogates

RESULTS_FILE = "results.jsonl"

T = TypeVar("T")


class ResultsWriter:
    """Writes results.jsonl line by line, flushing each so a killed run still leaves its records. Every line is
    a model (`oracle.models.results`): validated when it was built, written as its JSON."""

    def __init__(self, path):
        self.path = Path(path)
        #: lines written whole; after a failed write (a full disk) the stream is cut and nothing more is written
        self.lines = 0
        self.failure: FileWriteError | None = None
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self._handle = open(self.path, "wb")  # (UTF-8 bytes as pydantic makes them: no decode, no encode)
        except OSError as exc:
            raise FileWriteError(self.path, os_reason(exc)) from None

    def write(self, line: Header | Record | Footer, *, written: bytes | None = None) -> None:
        """Write `line`; `written`: its JSON as another writer of this class already wrote it (a `--jobs` worker's
        line, without its newline), copied rather than built again from the model it was read into."""
        text = self.text(line) if written is None else written
        if self.failure is not None:  # a later line after a lost one would make a stream that lies
            raise self.failure
        try:
            self._handle.write(text + b"\n")
            self._handle.flush()
        except OSError as exc:
            self.failure = FileWriteError(self.path, f"{os_reason(exc)}, after {self.lines:,} lines")
            raise self.failure from None
        self.lines += 1

    @staticmethod
    def text(line: Header | Record | Footer) -> bytes:
        """`line`'s JSON, built whole before any of it is written: a failed write leaves nothing behind."""
        try:  # (`model_dump_json` is this, decoded to a str, which the file then encoded back: a tenth of the write)
            return line.__pydantic_serializer__.to_json(line, exclude_none=True, by_alias=True)
        except (
            PydanticSerializationError
        ):  # a lone surrogate (one in a command-line argument): kept as the text of its escape
            data = without_lone_surrogates(line.model_dump(mode="json", exclude_none=True, by_alias=True))
            return json.dumps(data, ensure_ascii=False, allow_nan=False).encode("utf-8")

    def close(self):
        try:
            self._handle.close()
        except OSError as exc:  # the buffer of a failed write, flushed once more
            if self.failure is None:
                self.failure = FileWriteError(self.path, os_reason(exc))
                raise self.failure from None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


@dataclass
class Results:
    """A results.jsonl read back: its header, its records (unless they were handed to a function as read), its
    footer (None when the run was cut short) and where it was read from."""

    header: Header
    records: list[Record] = field(default_factory=list)
    footer: Footer | None = None
    path: Path | None = None


#: What `read_results(..., light=True)` keeps of a good record: enough to count it and list it in JUnit.
LIGHT_FIELDS = ("type", "id", "kind", "title", "outcome", "layer", "label", "convention", "message", "duration",
                "wall", "baseline", "baseline_key")
_GOOD_VALUES = frozenset(o.value for o in GOOD_OUTCOMES)


@dataclass
class RootCauseGroup:
    """The failing records one root cause explains: how many, the smallest input among them, and
    (from `root_cause_groups`, not from a streamed summary) the records themselves."""

    name: str
    description: str
    documented: list[str]
    count: int
    smallest: Record
    records: list[Record]
    #: explanations that fit every record of the group as well ("fits: A or B")
    alternatives: tuple[str, ...] = ()
    #: their parts, in the same order
    alternative_parts: tuple[tuple[str, ...], ...] = ()


def input_size(record: Record) -> tuple[int, int, int, int]:
    """(tokens, segments, references, orders) of the input a record reports (the shrunk one when shrunk)."""
    payload = record.reported_input
    if payload is None and isinstance(record.request, ScoreRequest):
        payload = record.request
    if payload is None:
        return 0, 0, 0, 0
    return payload.token_count, len(payload.segments), payload.reference_count, len(payload.weights)


@dataclass(frozen=True)
class FailureCause:
    """What the grouping of root causes reads of one failing record to name and count the run's causes (the footer's:
    `RootCauseTally.run_causes`): the explanations that fit it, its own name first (`Classification.signature`),
    the curated discrepancy ids it matched, and whether its probes confirmed its name (evidence without a second
    record: `oracle.diagnose.stale.confirmed`). A session keeps this of a failing record, not the record (its
    memory stays flat in --examples however many fail)."""

    signature: Signature
    documented: tuple[str, ...] = ()
    confirmed: bool = False
    #: the smoothing method of the input it reports (None where it reports no score request): the scope of the
    #: passing requests a tie among its names is read on (`oracle.diagnose.equals`)
    smoothing: str | None = None

    @classmethod
    def of(cls, record: Record) -> FailureCause | None:
        """A failing record's cause, or None where it has none to group (a good record, one not classified)."""
        classification = record.classification
        if record.good or classification is None or not classification.name:
            return None
        return cls(classification.signature_parts, tuple(classification.documented),
                   any(key == CONFIRMED_BY for key, _ in classification.change), smoothing_of(record))


def smoothing_of(record: Record) -> str | None:
    """The smoothing method of the input a record reports (the shrunk one when shrunk, as `input_size`)."""
    payload = record.reported_input
    if payload is None and isinstance(record.request, ScoreRequest):
        payload = record.request
    return None if payload is None else payload.smoothing.method


def passing_of(record: Record) -> Passing | None:
    """A passing random example's request and the score answered: a request judged against the oracle's expectation
    under the run's profile alone (an example, or one of the inputs it brings along judged the same way: its text,
    brackets, line-ends companions, kind "example" too). None for any other record: a case (its expectation may come
    with the case's own conventions, which the record does not carry), a metamorphic or series record (a relation
    that held says two answers agree, not that either is right), one without its request or a score."""
    request, actual = record.request, record.actual
    if record.outcome is not Outcome.PASS or record.kind != "example":
        return None
    if not isinstance(request, ScoreRequest) or not request.segments:
        return None
    score = actual.score if isinstance(actual, ScoreReply) else None
    return None if score is None else Passing(request, float(score))


class RootCauseTally:
    """Failing records grouped by root cause, one at a time, and named run-wide: each record brings the
    explanations that fit it (its classification's name and `fits`); `groups` names the fewest
    explanations that together account for every record (`oracle.diagnose.cover`), so that one bug gets
    one name. Per group the count, the documented classes and the smallest input (fewest tokens, then
    segments, references, orders; then the first in the run), whose words stand for the group's unless its records'
    words for what is known of their counts differ (`mechanisms.described_together`). Memory holds one entry per
    distinct set of fitting names, however many records (and the distinct words of those named only by what is known
    of their counts); `keep_records` also keeps the records (for a console listing). A run's footer needs only the
    names and counts (`run_causes`): a session adds each failing record's `FailureCause` (`add_cause`), and keeps
    no record."""

    def __init__(self, *, keep_records=False, profile: str | None = None):
        self.keep_records = keep_records
        self._signatures: dict[Signature, dict] = {}
        self._position = 0
        #: names a record's probes confirmed (`oracle.diagnose.stale.confirmed`): evidence without a second record
        self._confirmed: set[Cause] = set()
        #: the judged profile, under which a tie's names are read on the passing requests (None: not read)
        self.profile = profile
        #: smoothing method -> the first PASSING_SAMPLE requests of that method answered right (`add_passing`)
        self._passing: dict[str, list[Passing]] = {}
        #: the names each tie kept, as a run's footer gave them (`settle_as`): where no passing request was kept
        self._settled: frozenset[Cause] | None = None
        self._read: dict[tuple[Cause, str | None], bool] = {}

    def add(self, record: Record) -> None:
        """Count a record (a good one counts nothing but its passing request: `add_passing`), keeping it where it is
        its group's smallest so far."""
        position, self._position = self._position, self._position + 1
        cause = FailureCause.of(record)
        if cause is None:
            self.add_passing(record)
            return
        entry = self._counted(cause)
        size = (input_size(record), position)
        if entry["smallest"] is None or size < entry["smallest"][0]:
            entry["smallest"] = (size, record)
        classification = record.classification  # (a record with a cause has one)
        if classification is not None and mechanisms.counts_known_only(cause.signature[0]):  # words `groups` reads
            entry["said"].add(classification.description)
        if self.keep_records:
            entry["records"].append(record)

    def add_cause(self, cause: FailureCause) -> None:
        """Count a failing record by its cause alone: enough for `run_causes`, not for `groups`."""
        self._counted(cause)

    def add_passing(self, record: Record) -> None:
        """Keep a passing record's request and answer, where fewer than PASSING_SAMPLE of its smoothing method are
        kept (the first ones: memory bounded whatever the run's length); any other record keeps nothing."""
        passing = passing_of(record) if self.profile is not None else None
        if passing is None:
            return
        kept = self._passing.setdefault(passing.request.smoothing.method, [])
        if len(kept) < PASSING_SAMPLE:
            kept.append(passing)
            self._read.clear()  # (a name read before on fewer requests is read again)

    def passing_kept(self) -> dict[str, int]:
        """Smoothing method -> passing requests kept (each at most PASSING_SAMPLE)."""
        return {method: len(kept) for method, kept in self._passing.items()}

    def settle_as(self, causes: tuple[RunCause, ...] | None) -> None:
        """Read a tie as the run did, where this tally kept no passing request (a report read from results.jsonl,
        whose passing records are read without their requests): a tie keeps the names the run's footer `causes` give
        (as causes or alternatives), all of them where it gives none of them."""
        self._settled = frozenset(parts for cause in causes or () for parts in (cause.parts, *cause.alternative_parts))

    def _among_equals(self, tied: tuple[Cause, ...], taken: tuple[Signature, ...]) -> tuple[Cause, ...]:
        """The names of a tie not ruled out: by the passing requests of the scope its records share
        (`oracle.diagnose.equals`), or as the run's footer settled it (`settle_as`)."""
        if self._settled is not None and not self._passing:
            return tuple(parts for parts in tied if parts in self._settled)
        if self.profile is None or not self._passing:
            return tied
        methods = set().union(*(self._signatures[s]["smoothing"] for s in taken))
        scope = next(iter(methods)) if len(methods) == 1 else None
        return tuple(parts for parts in tied if not self._contradicted(parts, scope))

    def _contradicted(self, parts: Cause, scope: str | None) -> bool:
        """Whether a passing request of smoothing method `scope` (None: of any) contradicts the name `parts`."""
        key = (parts, scope)
        if key not in self._read:
            passing = [p for method in sorted(self._passing) if scope in (None, method) for p in self._passing[method]]
            self._read[key] = not not_contradicted((parts,), passing, str(self.profile))
        return self._read[key]

    def _counted(self, cause: FailureCause) -> dict:
        if cause.confirmed:
            self._confirmed.add(cause.signature[0])
        entry = self._signatures.get(cause.signature)
        if entry is None:
            entry = self._signatures[cause.signature] = {"count": 0, "smallest": None, "documented": set(),
                                                         "records": [], "said": set(), "smoothing": set()}
        entry["count"] += 1
        entry["documented"].update(cause.documented)
        entry["smoothing"].add(cause.smoothing)  # (a few methods at most, and None)
        return entry

    def _cover(self) -> list[CoveredCause]:
        return minimal_cover(self._counts(), frozenset(self._confirmed), self._among_equals)

    def run_names(self) -> list[Cause]:
        """The run's causes (their parts), largest first: what records are named by run-wide (`run_name_of`)."""
        return [cause.parts for cause in self._cover()]

    def _counts(self) -> dict[Signature, int]:
        return {signature: entry["count"] for signature, entry in self._signatures.items()}

    def _covers(self) -> list[tuple[CoveredCause, list[dict], list[str]]]:
        """(the run cause, its signatures' entries, the documented classes of them all), largest first (then by
        name)."""
        out = []
        for cause in self._cover():
            entries = [self._signatures[s] for s in cause.signatures]
            out.append((cause, entries, sorted(set().union(*(e["documented"] for e in entries)))))
        out.sort(key=lambda covered: (-covered[0].records, covered[0].name))
        return out

    def run_causes(self) -> list[RunCause]:
        """The run's root causes as its footer names them, largest first (then by name)."""
        return [RunCause(parts=cause.parts, records=cause.records, alternative_parts=cause.alternative_parts,
                         documented=tuple(documented))
                for cause, _, documented in self._covers()]

    def groups(self) -> list[RootCauseGroup]:
        """The run's root causes, largest first (then by name), each with its smallest record (of records `add`ed)."""
        out = []
        for cause, entries, documented in self._covers():
            # the smallest record whose own first name is this cause, else the smallest it accounts for
            named_entries = [e for s, e in zip(cause.signatures, entries, strict=False) if s[0] == cause.parts]
            named = [e["smallest"] for e in named_entries]
            smallest = min(named or [e["smallest"] for e in entries], key=lambda pair: pair[0])[1]
            # the smallest record's words, unless its records' words for what is known of their counts differ
            said = [smallest.classification.description, *set().union(*(e["said"] for e in named_entries))]
            description = mechanisms.described_together(cause.parts, said) if named else _described(cause)
            records = [r for e in entries for r in e["records"]]
            out.append(RootCauseGroup(cause.name, description, documented, cause.records, smallest, records,
                                      cause.alternatives, cause.alternative_parts))
        return out


def _described(cause):
    """A run cause's description where no record gave it as its first name: its explanation in words, or, for
    records whose every name needed evidence the run did not give (`oracle.diagnose.cover`), what fit them."""
    if cause.name != UNEXPLAINED:
        return mechanisms.describe_parts(cause.parts)
    fitted = sorted({cause_name(parts) for signature in cause.signatures for parts in signature
                     if needs_evidence(parts)})
    return (f"no explanation with evidence: {', '.join(fitted)} fit the numbers of fewer than {PATTERN_RECORDS} "
            "records and no probe confirmed it, which a numeric coincidence also gives; the record's layer says "
            "where the answer first differs")


def results_path(path):
    """A results.jsonl, or the report directory holding one."""
    path = Path(path)
    return path / RESULTS_FILE if path.is_dir() else path


def iter_results(path, *, light=False, narrow=None):
    """The lines of a results.jsonl (a file, or a report directory holding one) as models, one at a time: the
    Header, the Records, the Footer (when the run wrote one). `light`: a good record (pass, rejected,
    not-applicable) that no baseline entry speaks for keeps only LIGHT_FIELDS (its request, expectation and
    answer are dropped). `narrow`: a function given each record's plain JSON (after `light`) that returns the
    fields its model is built of (a reader that needs fewer). Raises ResultsFormatError naming file:line."""
    path = results_path(path)
    with open(path, "rb") as handle:  # (lines split on "\n" alone, as written; each decoded where it is named)
        for number, raw in enumerate(handle, 1):
            if not raw.strip():
                continue
            try:
                obj = json_value(raw.decode("utf-8"))
            except UnicodeDecodeError as exc:
                raise ResultsFormatError(f"{path}:{number}: not UTF-8 text (byte {exc.start + 1})") from None
            except ValueError as exc:
                raise ResultsFormatError(f"{path}:{number}: not a JSON line ({exc})") from None
            kind = obj.get("type") if isinstance(obj, dict) else None
            if kind == "header" and obj.get("schema") != SCHEMA:
                raise ResultsFormatError(f"{path}:{number}: schema {obj.get('schema')!r}, expected {SCHEMA!r}")
            if kind == "record" and light:
                obj = lightened(obj)
            if kind == "record" and narrow is not None:
                obj = narrow(obj)
            yield parse_line(obj, where=f"{path}:{number}")


def lightened(record: dict[str, Any]) -> dict[str, Any]:
    """A record line (plain JSON, as read) cut to LIGHT_FIELDS when it is good (pass, rejected, not-applicable) and
    no baseline entry speaks for it: its request, expectation and answer dropped before its model is built (less
    to walk). Nothing a run counts of such a record (outcome, kind, id, label, layer) is dropped; a failing or
    gated record is left whole."""
    if record.get("outcome") in _GOOD_VALUES and not record.get("baseline"):
        return {name: record[name] for name in LIGHT_FIELDS if name in record}
    return record


def read_results(path, *, light=False, narrow=None, on_record=None) -> Results:
    """Read a results.jsonl (a file, or a report directory holding one) into a Results. `light`, `narrow`: see
    `iter_results`. `on_record`: a function given each record instead of keeping it (`records`
    stays empty), so that a run of any length is read in bounded memory."""
    path = results_path(path)
    header, footer, records = None, None, []
    for line in iter_results(path, light=light, narrow=narrow):
        if isinstance(line, Header):
            header = line
        elif isinstance(line, Record):
            if on_record is None:
                records.append(line)
            else:
                on_record(line)
        else:
            footer = line
    if header is None:
        raise ResultsFormatError(f"{path}: no header record")
    return Results(header=header, records=records, footer=footer, path=path)


def example_index(record: Record) -> int:
    """The index I of a random example's record (id random-S-I, or random-S-I~RELATION for its relation)."""
    return int(record.id.split("~", 1)[0].rsplit("-", 1)[1])


def in_example_order(streams: list[Iterator[T]], index_of: Callable[[Any], int] = example_index) -> Iterator[T]:
    """The records of several streams of random examples, each in example order and none sharing an example
    (`--jobs` workers, `--shard` runs), as one stream in example order: an example's relation record right
    after it. `index_of`: a stream item's example index (items other than records: a record with its line)."""
    heads = [next(stream, None) for stream in streams]
    while True:
        # the smallest example index among the streams' next records (the first stream's on a tie)
        live = [(index_of(head), k) for k, head in enumerate(heads) if head is not None]
        if not live:
            return
        index, k = min(live)
        head = heads[k]
        while head is not None and index_of(head) == index:
            yield head
            head = heads[k] = next(streams[k], None)


def count_outcomes(records=()) -> dict[str, int]:
    """outcome -> number of records, every outcome present (in display order)."""
    counts = {o.value: 0 for o in OUTCOME_ORDER}
    for record in records:
        counts[record.outcome.value] = counts.get(record.outcome.value, 0) + 1
    return counts
