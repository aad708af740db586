"""`bleu-oracle merge`: the streams of a run's shards (`--shard K/N`) put back together into the whole run's.

Each shard's report directory holds its results.jsonl; `read_shards` reads their headers and footers and
refuses, naming the directory, a set that is not the N shards of one run: a stream that is no shard's, a run
that did not complete, another seed, profile, implementation, suite or setting, a shard missing or given
twice. `merge_streams` then writes the one stream an unsharded run writes: its header (the shard's setting
left out, the baseline merge gates with), its records in the unsharded order (cases one from each shard in
turn, as `oracle.harness.shards` dealt them; then random examples by index), each gated again by the
baseline, and a footer derived as a run derives its own: counts, the gate, the root causes named over the
whole run, coverage, examples and restarts summed. Only what a clock or a process decides differs from an
unsharded run's stream: durations, timestamps and the protocol's seq numbers.

Each shard has its own implementation process and so its own restart budget (`--max-restarts`): a shard
whose implementation crashes past it records "not attempted" for the rest of its share, where one process
would have stopped at the same point of the whole run. The merge says so when it happens.
"""

from __future__ import annotations

import shlex
import shutil
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from oracle.diagnose.repeat import without_note
from oracle.exitcodes import EXIT_DEVIATIONS, EXIT_OK, EXIT_USAGE
from oracle.formulas.errors import BleuValueError
from oracle.formulas.profiles import PROFILES
from oracle.models.baseline import Baseline
from oracle.models.outcomes import Outcome
from oracle.models.results import Footer, Header, Record

from .coverage import Coverage
from .events import (
    RESULTS_FILE,
    FailureCause,
    ResultsWriter,
    RootCauseTally,
    count_outcomes,
    example_index,
    in_example_order,
    iter_results,
    read_results,
    results_path,
)
from .gate import BaselineTracker, Finding
from .session import nothing_judged, run_causes
from .shards import Shard, parse_shard
from .stages import Timing, built_record

#: The settings every shard of one run shares (everything but the shard itself and the baseline, which the
#: merge applies again), with the words a refusal uses for each.
SHARED_SETTINGS = (
    ("verb", "verb"), ("seed", "seed"), ("examples", "--examples"), ("rel", "--rel"), ("abs", "--abs"),
    ("timeout", "--timeout"), ("max_restarts", "--max-restarts"), ("shrink_budget", "--shrink-budget"),
    ("cases", "cases"), ("impl", "--impl"), ("only", "--id"), ("time_budget", "--time-budget"),
    ("strict", "--strict"), ("series_length", "--series-length"),
)
#: The verbs whose runs shard.
SHARDED_VERBS = ("check", "fuzz")


@dataclass(frozen=True)
class ShardStream:
    """One shard's report: where it is, which shard it is, and its header and footer."""

    directory: Path
    shard: Shard
    header: Header
    footer: Footer
    #: its implementation crashed past --max-restarts: the rest of its share was not attempted
    spent_restarts: bool = False

    @property
    def results(self) -> Path:
        return self.directory / RESULTS_FILE

    def records(self) -> Iterator[Record]:
        return (line for line in iter_results(self.results) if isinstance(line, Record))


@dataclass(frozen=True)
class Merged:
    """What `merge_streams` wrote: the exit code the whole run gets, its footer, and notes for stderr."""

    code: int
    footer: Footer
    notes: tuple[str, ...] = ()


def read_shard(directory: str | Path) -> ShardStream:
    """One shard's report directory (or its results.jsonl), checked to be a shard's complete run."""
    path = results_path(directory)
    where = Path(directory)
    if not path.is_file():
        raise BleuValueError(f"{where}: no {RESULTS_FILE} (give the report directory of each shard's run)")
    given_up: list[str] = []

    def look(record: Record) -> None:
        if record.outcome == Outcome.CRASH and record.message.startswith("not attempted: ") and not given_up:
            given_up.append(record.id)

    results = read_results(path, light=True, on_record=look)
    header, footer = results.header, results.footer
    if header.settings.shard is None:
        raise BleuValueError(f"{where}: not a shard's run (it was run without --shard K/N)")
    if header.settings.verb not in SHARDED_VERBS:
        raise BleuValueError(f"{where}: a `{header.settings.verb}` run; merge combines shards of check or fuzz")
    if header.handshake_error:
        raise BleuValueError(f"{where}: the implementation could not be driven in this shard "
                             f"({header.handshake_error[:200]}); run the shard again")
    if footer is None or footer.interrupted or footer.error or footer.exit_code not in (EXIT_OK, EXIT_DEVIATIONS):
        why = ("it has no footer (cut short)" if footer is None else "it was interrupted" if footer.interrupted
               else f"it ended with exit {footer.exit_code}" + (f": {footer.error[:200]}" if footer.error else ""))
        raise BleuValueError(f"{where}: the shard's run did not complete ({why}); run the shard again")
    try:
        shard = parse_shard(header.settings.shard)
    except BleuValueError:
        raise BleuValueError(f"{where}: its header names shard {header.settings.shard[:40]!r}, not K/N") from None
    return ShardStream(path.parent, shard, header, footer, spent_restarts=bool(given_up))


def _identity(header: Header) -> dict[str, object]:
    """What must be equal in every shard of one run, by the words a refusal uses."""
    settings = header.settings
    implementation = header.implementation
    out: dict[str, object] = {
        "suite version": header.suite_version,
        "bleu-oracle version": header.oracle_version,
        "implementation": f"{implementation.name} {implementation.version}" if implementation else None,
        "judged profile": header.judged_profile,
        "capabilities": header.capabilities.model_dump(mode="json") if header.capabilities else None,
    }
    out.update({words: getattr(settings, name) for name, words in SHARED_SETTINGS})
    if settings.impl is None:  # a built-in's command names this machine's Python: --impl is compared instead
        out["--command"] = settings.command
    return out


def _setting(value: object) -> str:
    """A run setting as it was given on the command line: `'matlab-*'` for an --id, "none" when not given."""
    if value is None or value == ():
        return "none"
    if isinstance(value, (tuple, list)):
        return " ".join(repr(item) for item in value)
    return repr(value)


def read_shards(directories: list[str | Path]) -> list[ShardStream]:
    """The N shards of one run, in shard order; raises BleuValueError naming the directory that does not fit."""
    if not directories:
        raise BleuValueError("give the report directory of every shard of the run")
    shards = [read_shard(directory) for directory in directories]
    first = shards[0]
    expected = _identity(first.header)
    for stream in shards[1:]:
        for words, value in _identity(stream.header).items():
            if value != expected[words]:
                shown = "different capabilities" if words == "capabilities" else f"{words} {_setting(value)}"
                raise BleuValueError(f"{stream.directory} was run with {shown}, {first.directory} with "
                                     + ("others" if words == "capabilities" else _setting(expected[words]))
                                     + ": the shards of one run share everything but --shard")
        if stream.shard.count != first.shard.count:
            raise BleuValueError(f"{stream.directory} is shard {stream.shard}, {first.directory} shard {first.shard}: "
                                 "the shards of one run split it the same number of ways")
    by_number: dict[int, ShardStream] = {}
    for stream in shards:
        if stream.shard.number in by_number:
            raise BleuValueError(f"{stream.directory} and {by_number[stream.shard.number].directory} are both shard "
                                 f"{stream.shard}: give each shard once")
        by_number[stream.shard.number] = stream
    missing = [f"{k}/{first.shard.count}" for k in range(1, first.shard.count + 1) if k not in by_number]
    if missing:
        raise BleuValueError(f"shard {', '.join(missing[:5])}{', ...' if len(missing) > 5 else ''} missing (given: "
                             + ", ".join(f"{s.directory} ({s.shard})" for s in shards[:5])
                             + (", ..." if len(shards) > 5 else "") + ")")
    return [by_number[k] for k in sorted(by_number)]


def _cases_in_turn(shards: list[ShardStream], streams: list[Iterator[Record]],
                   heads: list[Record | None]) -> Iterator[Record]:
    """The case records of every shard in the unsharded order: one from each shard in turn (`Shard.owns`). A
    shard out of cases before its turn ends them; one holding more after that is refused."""
    turn = 0
    while True:
        k = turn % len(shards)
        head = heads[k]
        if head is None or head.kind != "case":
            break
        yield head
        heads[k] = next(streams[k], None)
        turn += 1
    for stream, head in zip(shards, heads, strict=True):
        if head is not None and head.kind == "case":
            raise BleuValueError(f"{stream.directory}: case {head.id} comes after another shard ran out of cases; "
                                 "the shards ran different case lists")


def merged_records(shards: list[ShardStream]) -> Iterator[Record]:
    """Every shard's records in the order one unsharded run writes them."""
    streams = [stream.records() for stream in shards]
    heads = [next(stream, None) for stream in streams]
    yield from _cases_in_turn(shards, streams, heads)

    def rest(k: int) -> Iterator[Record]:
        head = heads[k]
        if head is not None:
            yield head
        yield from streams[k]

    def owned(k: int) -> Iterator[Record]:
        for record in rest(k):
            if record.kind == "case" or not shards[k].shard.owns_example(example_index(record)):
                raise BleuValueError(f"{shards[k].directory}: {record.id} is not where shard {shards[k].shard} "
                                     "runs it (the shards ran different selections)")
            yield record

    yield from in_example_order([owned(k) for k in range(len(shards))])


def _reproduce(record: Record, report: str) -> str | None:
    """A record's reproduction line, its replay file (an input too long for a command line, kept in the shard's
    report's replay/) named in the merged report instead."""
    line = record.reproduce
    if not line:
        return line
    command, note = without_note(line)  # (a nondeterministic record's line ends in a shell comment)
    parts = shlex.split(command)
    name = f"{record.id}.json"
    if len(parts) > 1 and parts[-2] == "--replay" and Path(parts[-1]).name == name \
            and Path(parts[-1]).parent.name == "replay":
        return shlex.join([*parts[:-1], str(Path(report) / "replay" / name)]) + note
    return line


def copy_replays(shards: list[ShardStream], staging: Path) -> None:
    """The shards' replay files (inputs too long for a reproduction line) into the merged report."""
    for stream in shards:
        folder = stream.directory / "replay"
        if folder.is_dir():
            target = staging / "replay"
            target.mkdir(parents=True, exist_ok=True)
            for path in sorted(folder.glob("*.json")):
                shutil.copyfile(path, target / path.name)


@dataclass
class _Tally:
    """What a run counts as its records go by, for the footer."""

    counts: dict[str, int]
    causes: RootCauseTally

    def add(self, record: Record) -> None:
        self.counts[record.outcome.value] = self.counts.get(record.outcome.value, 0) + 1
        cause = FailureCause.of(record)
        if cause is not None:
            self.causes.add_cause(cause)
        else:
            self.causes.add_passing(record)


def _merged(record: Record, tracker: BaselineTracker, report: str) -> Record:
    """A shard's record as the whole run's: a record of its own, built as a session builds one
    (`stages.built_record`) from the shard's finding gated by the merge's baseline, and the rest the shard's record
    reports, its reproduction line naming the merged report (`_reproduce`)."""
    return built_record(Finding.of(record), tracker.gate, title=record.title, request=record.request,
                        order=record.order, label=record.label, convention=record.convention,
                        expected=record.expected, actual=record.actual, stderr=record.stderr,
                        timing=Timing(record.duration, record.wall), shrunk=record.shrunk, replay=record.replay,
                        reproduce=_reproduce(record, report), related=record.related)


def merge_streams(shards: list[ShardStream], out: Path, *, baseline: Baseline | None, baseline_name: str | None,
                  report: str, allow_empty: bool = False) -> Merged:
    """Write the whole run's results.jsonl to `out` from `shards` (`read_shards`), every record gated again by
    `baseline` (`baseline_name`: what the header records of it; `report`: the report directory as the user
    named it, for reproduction lines)."""
    first = shards[0].header
    settings = first.settings.model_copy(update={"shard": None, "baseline": baseline_name})
    verb = settings.verb
    tracker = BaselineTracker(baseline, only=settings.only, check_stale=verb == "check")
    implementation = first.implementation.name if first.implementation is not None else None
    refusal = tracker.another(implementation, first.judged_profile)
    if refusal is not None:  # before a line is written
        raise BleuValueError(refusal)
    tally = _Tally(count_outcomes(), RootCauseTally(profile=first.judged_profile))
    with ResultsWriter(out) as writer:
        writer.write(first.model_copy(update={"settings": settings,
                                              "started": min(s.header.started for s in shards)}))
        for shard_record in merged_records(shards):
            record = _merged(shard_record, tracker, report)
            writer.write(record)
            tally.add(record)
        footer = _footer(shards, tally, tracker, require_judged=not allow_empty)
        writer.write(footer)
    notes = tuple(f"{stream.directory}: the shard spent its restart budget (--max-restarts {settings.max_restarts}, "
                  "each shard's own): the rest of its share is \"not attempted\", where one process would have "
                  "stopped at another point of the run" for stream in shards if stream.spent_restarts)
    return Merged(footer.exit_code, footer, notes)


def _footer(shards: list[ShardStream], tally: _Tally, tracker: BaselineTracker, *, require_judged: bool) -> Footer:
    """The whole run's footer, derived as `run_session` derives a run's."""
    footers = [stream.footer for stream in shards]
    header = shards[0].header
    coverage = Coverage()
    for footer in footers:
        if footer.coverage is not None:
            coverage.merge(footer.coverage)
    examples = sum(footer.examples or 0 for footer in footers)
    budget_spent = any(footer.time_budget_spent for footer in footers)
    judged = sum(n for outcome, n in tally.counts.items() if outcome != Outcome.NOT_APPLICABLE.value)
    error = None
    if require_judged and not judged:
        error = nothing_judged(tally.counts, examples, header.settings.time_budget, budget_spent)
    gate_failed = tracker.gate_failed()
    code = EXIT_USAGE if error else (EXIT_DEVIATIONS if gate_failed else EXIT_OK)
    profile = header.judged_profile or ""
    table = None
    if header.capabilities is not None and profile in PROFILES:
        table = coverage.table(header.capabilities, uniform_only=PROFILES[profile].options.uniform_weights_only)
    return Footer(
        counts=dict(tally.counts),
        baseline=tracker.summary(),
        gate="fail" if gate_failed or error else "pass",
        exit_code=code,
        restarts=sum(footer.restarts for footer in footers),
        duration=max(footer.duration for footer in footers),
        finished=max(footer.finished for footer in footers),
        error=error,
        examples=examples,
        time_budget_spent=budget_spent,
        coverage=table,
        causes=run_causes(tally.causes),
    )
