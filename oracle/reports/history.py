"""Bisecting a library's versions (`bleu-oracle history`) and the history page (reports/history.md).

Each measured version's results.jsonl gives, per input (a case, or a curated discrepancy's minimal
example, id `discrepancy-ID`), what that version answered: `pass` (or another good outcome), else the
outcome with the score and the root cause. An input is kept when some version deviates on it; for each:
the versions showing the behaviour (a case deviating; a discrepancy's example classified as that very
discrepancy), the first and last of them, and every pair of consecutive versions between which the answer
changed. The page puts versions on one axis and the groups (discrepancy classes, case files) on the other.
"""

from __future__ import annotations

import json
import math
import os
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path

from oracle.files import write_atomically
from oracle.harness.events import iter_results
from oracle.models.history import Behaviour, Change, Citation, LibraryHistory, VersionRun
from oracle.models.results import Record

#: Where `bleu-oracle history` writes NAME.json inside the report directory (reports/history/).
HISTORY_DIR = "history"
#: The record id of a curated discrepancy's minimal example.
DISCREPANCY_PREFIX = "discrepancy-"
#: Good outcomes: the input does not deviate.
GOOD = ("pass", "rejected", "not-applicable")


@dataclass(frozen=True)
class InputInfo:
    """What the page needs of an input besides its answers: its group, and for a discrepancy its kind."""

    group: str
    discrepancy_kind: str | None = None  # "score", "rejection", ...: a discrepancy of this library
    kind: str = "case"  # case, discrepancy (this library's), example (another library's discrepancy)


def answer_of(record: Record) -> str:
    """What one version answered, as compared across versions: the good outcome itself, else the outcome with
    the score (10 significant digits) and the root cause's name."""
    outcome = record.outcome.value
    if outcome in GOOD:
        return outcome
    score = getattr(record.actual, "score", None)
    shown = outcome
    if isinstance(score, float) and not math.isnan(score):
        shown += f" {score:.10g}"
    elif score is not None:
        shown += f" {score}"
    if record.classification is not None and record.classification.name != outcome:
        shown += f" ({record.classification.name})"
    elif record.message:  # an error's own words, less the runner's prefix
        shown += f": {record.message.removeprefix('answered error: ')[:80]}"
    return shown


def shows(record: Record, info: InputInfo) -> bool:
    """Whether this version shows the behaviour: a case that deviates; a discrepancy's example classified as
    that discrepancy (a rejection-kind discrepancy: refused or crashed, which is the behaviour)."""
    if record.outcome.value in GOOD:
        return False
    if info.discrepancy_kind is None:
        return True
    own = record.id[len(DISCREPANCY_PREFIX):]
    documented = record.classification.documented if record.classification is not None else ()
    return own in documented or (info.discrepancy_kind == "rejection" and record.outcome.value != "fail")


def version_answers(results: str | os.PathLike) -> dict[str, Record]:
    """id -> record of one version's run (read a record at a time; good records light)."""
    return {line.id: line for line in iter_results(results, light=True) if isinstance(line, Record)}


def bisect(library: str, profile: str, runs: Iterable[VersionRun], answers: Mapping[str, Mapping[str, Record]],
           inputs: Mapping[str, InputInfo], upstream: Mapping[str, str] | None = None,
           citations: Iterable[Citation] = ()) -> LibraryHistory:
    """The library's history from each measured version's records (`answers`: version -> id -> record), in
    the order of `runs` (oldest first)."""
    runs = tuple(runs)
    measured = [run.version for run in runs if run.status == "measured"]
    ids = sorted({identifier for version in measured for identifier in answers[version]})
    behaviours, passing = [], 0
    for identifier in ids:
        info = inputs.get(identifier, InputInfo("other"))
        records = {version: answers[version][identifier] for version in measured if identifier in answers[version]}
        shown = tuple(version for version, record in records.items() if shows(record, info))
        seen = {version: answer_of(record) for version, record in records.items()}
        if not shown and all(answer in GOOD for answer in seen.values()):
            passing += any(answer == "pass" for answer in seen.values())
            continue
        behaviours.append(Behaviour(
            id=identifier, kind=info.kind, group=info.group,
            answers=seen, shows=shown, first=shown[0] if shown else None, last=shown[-1] if shown else None,
            changes=tuple(changes(seen)), upstream=(upstream or {}).get(identifier)))
    changed = {(c.before, c.after) for behaviour in behaviours for c in behaviour.changes}
    return LibraryHistory(library=library, profile=profile, versions=runs, behaviours=tuple(behaviours),
                          passing_everywhere=passing,
                          citations=tuple(c for c in citations if (c.before, c.after) in changed))


def changes(seen: Mapping[str, str]) -> Iterable[Change]:
    """Each pair of consecutive versions (of those answering) between which the answer changed."""
    versions = list(seen)
    for before, after in zip(versions, versions[1:], strict=False):
        if seen[before] != seen[after]:
            yield Change(before=before, after=after, was=seen[before], became=seen[after])


def write_json(history: LibraryHistory, path: Path) -> None:
    """The library's history as JSON, written atomically."""
    write_atomically(path, json.dumps(history.model_dump(mode="json"), indent=1) + "\n")


def write_markdown(histories: Iterable[LibraryHistory], path: Path) -> None:
    write_atomically(path, render_markdown(histories))


def read_histories(directory: Path) -> list[LibraryHistory]:
    """Every library's history in `directory` (NAME.json), by name."""
    return [LibraryHistory.model_validate_json(path.read_text(encoding="utf-8"))
            for path in sorted(Path(directory).glob("*.json"))]


def grid(history: LibraryHistory) -> list[tuple[str, list[int]]]:
    """(group, inputs of that group showing the behaviour in each measured version) for the page's table."""
    measured = history.measured()
    groups: dict[str, list[int]] = {}
    for behaviour in history.behaviours:
        row = groups.setdefault(f"{behaviour.kind}: {behaviour.group}", [0] * len(measured))
        for index, version in enumerate(measured):
            row[index] += version in behaviour.shows
    return sorted(groups.items())


def render_markdown(histories: Iterable[LibraryHistory]) -> str:
    """reports/history.md: per library, versions across, groups down; then each discrepancy's range."""
    out = ["# BLEU across released versions", "",
           "Generated by `bleu-oracle history NAME` (each version installed from its registry into an environment "
           "of its own, then `check` with the cases and every curated discrepancy's minimal example). A cell counts "
           "the inputs of that group showing a deviation in that version (`.`: none).", ""]
    for history in histories:
        out += library_section(history)
    return "\n".join(out) + "\n"


def library_section(history: LibraryHistory) -> list[str]:
    measured = history.measured()
    out = [f"## {history.library} (judged as profile `{history.profile}`)", ""]
    if measured:
        out += ["| group | " + " | ".join(measured) + " |", "| --- |" + " --- |" * len(measured)]
        out += [f"| {group} | " + " | ".join(str(n) if n else "." for n in row) + " |" for group, row in grid(history)]
        out += ["", f"{history.passing_everywhere} inputs pass in every measured version.", ""]
    discrepancies = [b for b in history.behaviours if b.kind == "discrepancy"]
    if discrepancies:
        out += ["| curated discrepancy | first | last | changed between |", "| --- | --- | --- | --- |"]
        for behaviour in discrepancies:
            between = "; ".join(f"{c.before} -> {c.after}: `{c.was}` -> `{c.became}`" for c in behaviour.changes)
            cited = f" ({behaviour.upstream})" if behaviour.upstream else ""
            out.append(f"| {behaviour.id[len(DISCREPANCY_PREFIX):]} | {behaviour.first or 'never'} | "
                       f"{behaviour.last or 'never'} | {between or 'no change'}{cited} |")
        out.append("")
    if history.citations:
        out += ["Upstream changes released between two versions whose answers differ (the library's own records):", ""]
        out += [f"- {c.before} -> {c.after}: {c.text}" for c in history.citations] + [""]
    return out + [version_line(run) for run in history.versions] + [""]


def version_line(run: VersionRun) -> str:
    """"- 3.2: measured under Python 3.6, 18.9 s", or why a version was not measured."""
    runtime = "" if not run.python else " under node" if run.python == "node" else f" under Python {run.python}"
    took = f", {run.seconds:.1f} s" if run.seconds is not None else ""
    return f"- {run.version}: {run.status}{runtime}{took}" + (f": {run.reason}" if run.reason else "")
