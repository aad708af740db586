"""What `check` and `fuzz` print when a run is over, read from the run's report like summary.md (and `merge`, for
the whole run its shards made: the same lines, its verdict said by `merge`).

Both listings come from the tally summary.md and junit.xml are derived from (`summaries.SummaryTally`, built
from results.jsonl as the report is published and handed on by `summaries.publishing`): the root causes are
the groups of summary.md's root-cause section, named as it names them; `check`'s deviations are grouped by
baseline status, outcome and the run's cause as summary.md's deviation section counts them; the counts, the
verdict and the baseline's statuses are the stream's footer. Nothing here reads the session: the console says
what the report says.

Everything an implementation or a user supplied (its name, answers and messages, the inputs' tokens, ids, the
command) is outside text: each line is shown escaped (`oracle.escaping.shown`).
"""

from __future__ import annotations

from pathlib import Path
from typing import IO, Any

from oracle.diagnose.classify import describe_as
from oracle.escaping import shown
from oracle.exitcodes import EXIT_DEVIATIONS, EXIT_OK
from oracle.harness.events import RESULTS_FILE, RootCauseGroup
from oracle.models.results import GateSummary, Record, cause_name

from .inputs import INPUT_PRINTED_CHARACTERS, INPUT_SHOWN_CHARACTERS, InputShown, input_shown
from .summaries import DerivedReports, DeviationGroup, clock_stopped_words, divergence_said

#: Distinct inputs `check` prints at the end of a run without -v (every deviation is in results.jsonl and
#: summary.md).
PRINTED_DEVIATIONS = 20
#: Distinct inputs printed per group without -v.
INPUTS_PER_GROUP = 3
#: Characters of an input that shrinking did not reduce printed without -v (`inputs.INPUT_PRINTED_CHARACTERS`); with
#: -v, and for a shrunk input, up to `inputs.INPUT_SHOWN_CHARACTERS`, as summary.md and junit.xml show it.
INPUT_SHOWN = INPUT_PRINTED_CHARACTERS


def gone(baseline: GateSummary | None) -> tuple[int, int] | None:
    """(known deviations that pass now, entries no record of the run has) when these alone fail the gate: the
    implementation improved, or the suite moved on, and the baseline has to follow; else None."""
    if baseline is None or baseline.new or baseline.changed:
        return None
    stale = len(baseline.stale)
    return (baseline.fixed, stale) if baseline.fixed or stale else None


def gone_in_words(fixed: int, stale: int) -> str:
    """'the gate fails: 21 known deviations no longer occur (the implementation improved; nothing new deviates)'."""
    parts = []
    if fixed:
        parts.append(f"{fixed} known deviation{'s no longer occur' if fixed > 1 else ' no longer occurs'}")
    if stale:
        parts.append(f"{stale} baseline entr{'ies name' if stale > 1 else 'y names'} no record of this run")
    return ("the gate fails: " + " and ".join(parts)
            + (" (the implementation improved; nothing new deviates)" if fixed else " (nothing new deviates)"))


def _counts(derived: DerivedReports) -> dict[str, int]:
    """Outcome -> records of the run: the footer's, else (a run cut short) the records read."""
    footer = derived.results.footer if derived.results is not None else None
    if footer is not None:
        return dict(footer.counts)
    return dict(derived.summary.counts) if derived.summary is not None else {}


def _tally(counts: dict[str, int]) -> str:
    return ", ".join(f"{v} {k}" for k, v in counts.items() if v)


def _input_line(shown_input: InputShown, *, more: bool = False) -> str:
    """'input: {...}', or for an excerpt 'input (cut at ...; the whole input: ...): {... …}' (`inputs.InputShown`);
    `more`: -v prints more of it."""
    note = shown_input.note()
    if note is not None and more:
        note += "; -v prints more"
    return f"input{f' ({note})' if note else ''}: {shown_input.text}"


# -- check ---------------------------------------------------------------------------------------


def print_check(out: IO[str], derived: DerivedReports, *, report_dir: Path, junit: Path,
                verbose: bool = False, said_by: str = "bleu-oracle check") -> None:
    """What gates the run, grouped by root cause (summary.md's deviation groups, largest first): each group once,
    with its distinct minimal inputs (the same shrunk input is printed once, however many records reached it);
    the stale baseline entries; the run's root causes (summary.md's); the verdict (`said_by`: ...) and where the
    reports are."""
    results, summary = derived.results, derived.summary
    if results is None or summary is None:
        return
    footer = results.footer
    baseline = footer.baseline if footer is not None else None
    code = footer.exit_code if footer is not None else None
    groups = sorted(summary.deviation_groups(), key=lambda group: -group.count)
    printed = 0
    for group in groups:
        if printed >= PRINTED_DEVIATIONS and not verbose:
            break
        if group.records:
            printed += _print_group(out, group, verbose=verbose)
    if printed >= PRINTED_DEVIATIONS and not verbose:
        out.write(shown(f"... more (-v prints them all) in {report_dir / 'summary.md'}") + "\n")
    for entry in baseline.stale if baseline is not None else ():
        out.write(shown(f"STALE baseline entry {entry}: no record with this id in the run") + "\n")
    causes = summary.root_causes.groups()
    if causes:
        out.write(shown("root causes: " + ", ".join(
            f"{g.name}" + (f" or {' or '.join(g.alternatives)}" if g.alternatives else "") + f" x{g.count}"
            + (f" ({', '.join(g.documented)})" if g.documented else "") for g in causes)) + "\n")
    clock = clock_stopped_words(summary)
    if clock is not None:
        out.write(shown(clock) + "\n")
    verdict = {0: "conforming", 1: "deviations found"}.get(code, f"exit {code}") if code is not None \
        else "incomplete (no footer)"
    left = gone(baseline) if code == 1 else None
    if left is not None:  # nothing deviates but what the baseline lists: "deviations found" would mislead
        verdict = gone_in_words(*left)
    known = baseline.known if baseline is not None else 0
    out.write(f"{said_by}: {verdict}: {_tally(_counts(derived)) or 'nothing run'}"
              + (f" ({known} known deviations from the baseline)" if known else "") + "\n")
    out.write(shown(f"reports: {report_dir / RESULTS_FILE}, {report_dir / 'summary.md'}, {junit}") + "\n")


def _root_cause(record: Record, run_cause: tuple[str, ...] | None) -> str:
    """One line naming a failing record's root cause: the run's cause for it (`run_cause`, one of the
    explanations that fit it), else its classification's own; its own first name, where the run names it by
    another, as what its input fits as well (as summary.md and junit.xml say it), never as a cause."""
    classification = record.classification
    if classification is None or not classification.name:
        return ""
    parts = run_cause or classification.parts
    description = describe_as(classification, parts)
    name = cause_name(parts)
    fits = f" (this input fits {classification.name} as well)" if parts != classification.parts else ""
    known = f" [documented: {', '.join(classification.documented)}]" if classification.documented else ""
    return f"root cause: {name}{fits}{known}: {description}"


def _print_group(out: IO[str], group: DeviationGroup, *, verbose: bool) -> int:
    """One group: its head line, its root cause, and its distinct minimal inputs (INPUTS_PER_GROUP unless
    `verbose`), each with where it diverges and how to reproduce it. Returns how many inputs it printed."""
    members = group.records
    first = members[0].record
    status = group.status or "new"
    was = first.baseline.was if first.baseline is not None else None
    head = {"new": first.outcome.value.upper(), "fixed": "EXPECTED FAILURE PASSED",
            "changed": f"CHANGED (was {was})"}.get(status, first.outcome.value.upper())
    ids = ", ".join(group.ids) + (f", ... ({group.count} in all)" if group.count > len(group.ids) else "")
    out.write(shown(f"{head} x{group.count}: {ids}") + "\n")
    cause = _root_cause(first, group.cause_parts or None)
    if cause:
        out.write(shown(f"  {cause}") + "\n")
    seen: set[bytes] = set()
    for kept in members:
        if kept.key in seen or (len(seen) >= INPUTS_PER_GROUP and not verbose):
            continue
        seen.add(kept.key)
        brief = kept.brief if not verbose else None
        _print_input(out, kept.record, brief or kept.input, more=brief is not None)
    return len(seen)


def _print_input(out: IO[str], record: Record, text: InputShown | None, *, more: bool) -> None:
    layer, order, message = record.layer, record.order, record.message
    if record.shrunk is not None:  # what the minimal input shows: its layer, order and message together
        layer, order, message = record.shrunk.layer or layer, record.shrunk.order, record.shrunk.message or message
    where = f" at {layer}" + (f" (order {order})" if order else "") if layer else ""
    # the implementation's message, the ids and the command are outside text: shown escaped, one line each
    out.write(shown(f"  {record.id}{where}" + (f": {message.strip()}" if message.strip() else "")) + "\n")
    if text is not None:
        out.write(shown(f"    {_input_line(text, more=more)}") + "\n")
    if record.reproduce:
        out.write(shown(f"    reproduce: {record.reproduce}") + "\n")


# -- fuzz ----------------------------------------------------------------------------------------


def print_fuzz(out: IO[str], derived: DerivedReports, written: list[Any], *, report_dir: Path,
               verbose: bool = False, said_by: str = "bleu-oracle fuzz") -> None:
    """The run's root causes (summary.md's root-cause section, largest first), each with its smallest example,
    both values, where it diverges first, a reproduction and the case `--write-cases` wrote for it (`written`);
    then the verdict (`said_by`: ...) and where the reports are."""
    results, summary = derived.results, derived.summary
    if results is None or summary is None:
        return
    header, footer = results.header, results.footer
    implementation = header.implementation
    name = f"{implementation.name} {implementation.version}".strip() if implementation is not None else "?"
    profile = header.judged_profile or "?"
    counts = _counts(derived)
    groups = summary.root_causes.groups()
    if groups:
        out.write(shown(f"{len(groups)} root cause(s) for {sum(g.count for g in groups)} disagreeing example(s) of "
                        f"{sum(counts.values())}, {name} judged under profile {profile}:") + "\n")
    status = {w.name: w for w in written}
    for group in groups:
        # the implementation's name, answers and messages and the inputs' tokens are outside text: shown escaped
        for line in _group_lines(group, name, profile, status, verbose=verbose):
            out.write(shown(line) + "\n")
    code = footer.exit_code if footer is not None else None
    verdict = {EXIT_OK: "no disagreement", EXIT_DEVIATIONS: "disagreements found"}.get(code, f"exit {code}") \
        if code is not None else "incomplete (no footer)"
    out.write(f"\n{said_by}: {verdict}: {_tally(counts) or 'nothing run'}\n")
    out.write(shown(f"reports: {report_dir / RESULTS_FILE}, {report_dir / 'summary.md'}") + "\n")


def _value(value: object) -> str:
    if isinstance(value, float):
        return repr(value)
    return "none" if value is None else str(value)


def _group_lines(group: RootCauseGroup, name: str, profile: str, status: dict[str, Any], *,
                 verbose: bool) -> list[str]:
    """One root cause's lines: its name, description, smallest example and first divergence, input, reproduction
    and the case written for it."""
    record = group.smallest
    documented = f" [documented: {', '.join(group.documented)}]" if group.documented else ""
    lines = ["", f"{group.name}  x{group.count}{documented}"]
    if group.description:
        lines.append(f"  {group.description}")
    classification = record.classification
    # the explanation's value where the smallest record's own first name is the group's (as summary.md gives it):
    # another name's value is not this cause's
    explained = classification.value if classification is not None and classification.name == group.name else None
    lines.append(f"  smallest ({record.id}): {name} answers {_value(record.answer())}, the oracle ({profile}) says "
                 f"{_value(record.oracle_answer())}"
                 + (f", under this explanation {_value(explained)}" if explained is not None else ""))
    layer, order, message = record.divergence
    if layer:  # where it diverges first: a score may agree where the statistics do not
        said = divergence_said(layer, message)
        lines.append(f"  first divergence at {layer}" + (f" (order {order})" if order else "")
                     + (f": {said}" if said else ""))
    payload = record.reported_input
    if payload is not None:  # (the smallest example: shrunk, or as short as the group's inputs get)
        brief = not verbose and record.shrunk is None
        text = input_shown(payload, record_id=record.id, reproduce=record.reproduce, compact=True,
                           limit=INPUT_PRINTED_CHARACTERS if brief else INPUT_SHOWN_CHARACTERS)
        lines.append(f"  {_input_line(text, more=brief)}")
    if record.reproduce:
        lines.append(f"  reproduce: {record.reproduce}")
    if group.name in status:
        entry = status[group.name]
        lines.append(f"  case: {entry.case_id + ' ' if entry.case_id else ''}({entry.status})")
    return lines
