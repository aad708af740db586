"""Reports derived from results.jsonl (of `check` or `fuzz`): a Markdown summary and JUnit XML.

The summary counts outcomes, groups the failing records by root cause (their
"classification": name, description, count, the smallest example with the
implementation's and the oracle's values, a reproduction) and lists each
deviation with its root cause. The tally it is derived from (`SummaryTally`)
is also what `check` and `fuzz` print when a run is over (`oracle.reports.console`):
`publishing` hands it on, so the console and summary.md group and name the
same records the same way.

Everything an implementation or a user supplied (the handshake, messages, answers, stderr, the inputs' tokens,
ids, titles and reasons from case files and baselines, the command) is outside text: summary.md shows it in
code spans and fenced blocks (`oracle.escaping.markdown_code`, `markdown_block`), junit.xml through
`oracle.escaping.xml_text`, so no control character reaches either and nothing renders as markup.

Nothing here talks to an implementation or the oracle: every line is computed
from the event stream (`oracle.harness.events`), so reports can be regenerated from a
results file alone:

    python -m oracle.reports.summaries bleu-oracle-report/results.jsonl [--markdown FILE] [--junit FILE]

JUnit mapping, one <testcase> per record (classname bleu-oracle.<kind>s):
pass and rejected-as-expected: passed; fail: <failure>; error, crash, timeout,
protocol-error: <error type="...">; not-applicable: <skipped>; a known
deviation from the baseline: <skipped message="known deviation: ...">; an
"expected failure passed" or changed known deviation: <failure>; each stale
baseline entry: a failing <testcase> in the suite bleu-oracle.harness.gate.
"""

from __future__ import annotations

import argparse
import contextlib
import hashlib
import io
import json
import sys
import tempfile
import xml.etree.ElementTree as ET
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO

from oracle.diagnose.classify import describe_as
from oracle.diagnose.cover import run_name_of
from oracle.escaping import markdown_block, markdown_code, xml_text
from oracle.formulas.errors import FileWriteError
from oracle.harness.coverage import ALL_FEATURES as FEATURES_IN_ORDER
from oracle.harness.coverage import FEATURES, TEXT_RULE_FEATURES
from oracle.harness.events import (
    Results,
    RootCauseTally,
    count_outcomes,
    read_results,
    results_path,
)
from oracle.models.outcomes import GOOD_OUTCOMES
from oracle.models.results import STOPPED_CLOCK, Record, cause_name
from oracle.signals import signals_deferred

from .inputs import INPUT_PRINTED_CHARACTERS, InputShown, input_shown
from .staging import ReportDirectory, write_atomically

DEVIATIONS_SHOWN = 50
_ERROR_OUTCOMES = ("error", "crash", "timeout", "protocol-error")
_GOOD = frozenset(outcome.value for outcome in GOOD_OUTCOMES)
#: Acceptable records listed by id under each convention in summary.md (all are counted).
ACCEPTABLE_SHOWN = 5
#: Deviations kept, one per distinct input of their group, for the console's listing (`reports.console`; -v
#: prints each): the first DEVIATIONS_KEPT of the run, and the first GROUP_INPUTS_KEPT of every group whenever
#: they come; memory grows with the number of groups, never with the run's length (the rest are counted).
DEVIATIONS_KEPT = 500
GROUP_INPUTS_KEPT = 3
#: Ids kept per group of deviations: the first, which the console names.
IDS_KEPT = 4


def _verdict(results):
    footer = results.footer
    if footer is None:
        return "incomplete (no footer: the run was cut short)", None
    code = footer.exit_code
    if footer.interrupted:
        return f"interrupted (exit {code}): the records below are those judged before the run was stopped", code
    text = {
        0: "conforming",
        1: "deviations found",
        2: "usage or configuration error",
        3: "the implementation could not be driven",
    }.get(code, f"exit {code}")
    if footer.error:
        text += f": {footer.error}"
    return text, code


def _layer(record):
    if not record.layer:
        return ""
    order = f" (order {record.order})" if record.order else ""
    return f"{record.layer}{order}"


def _label(record):
    """ "fail:ref_len", "crash", ...: the outcome and the first diverging layer."""
    return f"{record.outcome.value}:{record.layer}" if record.layer else record.outcome.value


def root_cause_groups(records):
    """Failing records grouped by root cause, largest group first, each with its records and its
    smallest input (see `RootCauseTally`): the groups summary.md's tally makes of the same records, with every
    record kept (for a test or a caller holding a few records; a run's reports keep none)."""
    tally = RootCauseTally(keep_records=True)
    for record in records:
        tally.add(record)
    return tally.groups()


def _show_value(value):
    if value is None:
        return "none"
    if isinstance(value, float):
        return repr(value)
    return str(value)


def root_cause_section(groups):
    """Markdown lines: one subsection per root cause (a `RootCauseGroup`) with its count, description
    and smallest example."""
    if not groups:
        return []
    out = [
        "",
        "## Root causes",
        "",
        "Every failing record is classified by `oracle.diagnose.classify` (on the shrunk input for a random "
        "example): the alternative conventions or computations under which the oracle gives the "
        "implementation's answer and its statistics, first among the implementation's documented classes "
        "(oracle/diagnose/data/discrepancies.yaml); the run is then named by the fewest explanations that "
        "account for every failing record (`oracle.diagnose.cover`).",
        "",
        "| root cause | records | documented as |",
        "|---|---:|---|",
    ]
    for group in groups:
        fits = "".join(f" or `{name}`" for name in group.alternatives)
        out.append(f"| `{group.name}`{fits} | {group.count} | {', '.join(group.documented) or '-'} |")
    for group in groups:
        record = group.smallest
        value = record.classification.value
        out += ["", f"### {markdown_code(group.name)} ({group.count})", "",
                markdown_code(group.description) if group.description else "", ""]
        if group.alternatives:
            out += [
                f"These inputs fit {', '.join(f'`{a}`' for a in group.alternatives)} as well: they cannot tell "
                "the explanations apart.",
                "",
                # each in its words, as the run's cause is: a bare name is a claim nobody can check
                *(f"- {markdown_code(name)}: {markdown_code(_alternative_words(record, parts))}"
                  for name, parts in zip(group.alternatives, group.alternative_parts, strict=True)),
                "",
            ]
        if record.classification.name != group.name:  # its own first name is another that fits it too
            value = None
        out += [
            f"- smallest example {markdown_code(record.id)}: the implementation answers "
            f"{markdown_code(_show_value(record.answer()))}; the oracle says {_show_value(record.oracle_answer())}"
            + (f"; under this explanation the oracle gives {_show_value(value)}" if value is not None else "")
        ]
        layer, order, message = record.divergence
        if layer:  # where it diverges first: the scores may agree where the statistics do not (as the console says)
            said = divergence_said(layer, message)
            out.append(f"- first divergence at {markdown_code(layer)}" + (f" (order {order})" if order else "")
                       + (f": {markdown_code(said)}" if said else ""))
        payload = record.reported_input
        if payload is not None:
            out += _input_lines(record, payload)
        if record.reproduce:
            out += ["- reproduce:", "", *markdown_block(record.reproduce, "sh", indent="  ")]
    return out


def divergence_said(layer, message):
    """A record's message after "first divergence at LAYER": without the judge's own "first divergence: LAYER: "
    before it ("expected 0, got 2", not "first divergence: ref_len: expected 0, got 2" again)."""
    said = message or ""
    for prefix in ("first divergence: ", f"{layer}: "):
        said = said.removeprefix(prefix)
    return said


def _alternative_words(record, parts):
    """What an explanation that fits a root cause's records as well (its `parts`) claims: in the words the smallest
    record gave it, else the catalogue's (`classify.describe_as`)."""
    classification = record.classification
    if classification is not None:
        return describe_as(classification, parts)
    from oracle.diagnose import mechanisms  # (a record without a classification: the catalogue read only then)

    return mechanisms.describe_parts(parts)


def _input_lines(record, request, minimal=False):
    """summary.md's lines of a record's input (its shrunk one, `minimal`, or its replayable one): one line of JSON
    (what `check --replay` takes) in a block, every character that is not printable as its \\u escape (the same
    input), whole up to INPUT_SHOWN_CHARACTERS; past them an excerpt, its marker on the line before it
    (`oracle.reports.inputs`)."""
    shown = input_shown(request, record_id=record.id, reproduce=record.reproduce)
    note = shown.note(markdown_code)
    said = "; ".join(([] if not minimal else ["minimal"]) + ([note] if note else []))
    return [f"- input{f' ({said})' if said else ''}:", "", *markdown_block(shown.text, "json", indent="  ")]


def _is_reported(record):
    return not record.good or (record.baseline is not None and record.baseline.status in ("fixed", "changed"))


@dataclass(frozen=True)
class KeptDeviation:
    """A deviation kept for the console: the record without its request, relation, stderr and replayable input,
    and that input (the shrunk one when shrinking found one) as one line of JSON, every character that is not
    printable as its escape, as the console shows it: whole up to INPUT_SHOWN_CHARACTERS, else an excerpt that says
    so (`oracle.reports.inputs`), and `brief`, cut at INPUT_PRINTED_CHARACTERS, where the console's listing without
    -v prints less of an input shrinking did not reduce (None: `input` is whole within it, or the record has no
    input). Its text, not its model: an unshrunk input can hold thousands of tokens, each a string of its own once
    read back. `key` tells distinct inputs apart (the record's id where it has none)."""

    record: Record
    input: InputShown | None
    key: bytes = b""
    brief: InputShown | None = None


@dataclass
class DeviationGroup:
    """Deviations of one baseline status (None where no baseline spoke), one outcome and one root cause as the run
    names it (None: records without one): how many, the first ids (`ids`) and the first record of each distinct
    input (`records`), in the order of the run."""

    status: str | None
    outcome: str
    cause: str | None
    count: int = 0
    first_ids: list[tuple[int, str]] = field(default_factory=list)
    kept: list[tuple[int, KeptDeviation]] = field(default_factory=list)
    #: the parts of `cause` (() for none)
    cause_parts: tuple[str, ...] = ()

    @property
    def ids(self) -> list[str]:
        return [record_id for _, record_id in self.first_ids]

    @property
    def records(self) -> list[KeptDeviation]:
        return [kept for _, kept in self.kept]


class _KeptDeviations:
    """What a tally keeps of the deviations of one (baseline status, outcome, fitting explanations): their count,
    the first IDS_KEPT ids, and the first record of each distinct input it is given room for (without its request,
    relation and stderr: what the console prints is the reported input), each with its place among the run's
    deviations."""

    def __init__(self) -> None:
        self.count = 0
        self.ids: list[tuple[int, str]] = []
        self.records: list[tuple[int, KeptDeviation]] = []
        #: a digest of each kept input's text (an unshrunk input's text can be large: not kept twice)
        self._inputs: set[bytes] = set()

    def add(self, position: int, record: Record, *, room: bool) -> bool:
        """Count a deviation, and keep it when its input is new and there is `room` (or fewer than
        GROUP_INPUTS_KEPT are kept); returns whether it was kept."""
        self.count += 1
        if len(self.ids) < IDS_KEPT:
            self.ids.append((position, record.id))
        if not room and len(self.records) >= GROUP_INPUTS_KEPT:
            return False
        payload = record.reported_input
        shown = brief = None
        if payload is not None:
            shown = input_shown(payload, record_id=record.id, reproduce=record.reproduce, compact=True)
            if record.shrunk is None and len(shown.text) > INPUT_PRINTED_CHARACTERS:
                brief = input_shown(payload, record_id=record.id, reproduce=record.reproduce, compact=True,
                                    limit=INPUT_PRINTED_CHARACTERS)
        digest = _input_key(record, payload, shown)
        if digest in self._inputs:
            return False
        self._inputs.add(digest)
        slim = record.model_copy(update={"request": None, "related": None, "stderr": "", "replay": None})
        self.records.append((position, KeptDeviation(slim, shown, digest, brief)))
        return True


def _input_key(record: Record, payload, shown: InputShown | None) -> bytes:
    """What tells a kept deviation's input from another's: a digest of its text where it is shown whole; of its
    excerpt, its size and the hash of its segments' token sequences where it is cut (the whole text of a long input
    is never made: `oracle.reports.inputs`); of the record's id where it has no input."""
    if shown is None:
        key = f"id:{record.id}"
    elif not shown.cut:
        key = shown.text
    else:
        segments = hash(tuple((segment.hypothesis, segment.references) for segment in payload.segments))
        key = f"{shown.text}\x00{payload.token_count}\x00{len(payload.segments)}\x00{segments}"
    return hashlib.blake2b(key.encode("utf-8", "surrogatepass"), digest_size=16).digest()


class SummaryTally:
    """What summary.md and junit.xml need of a run's records, gathered one record at a time so that a
    run of any length is summarised in bounded memory: outcome counts by kind, the first
    DEVIATIONS_SHOWN deviations with the counts by layer and root cause, the root-cause groups (each
    with its smallest input), the known deviations per baseline entry (the first records of each)
    and the not-applicable reasons, and each JUnit suite's totals."""

    def __init__(self):
        self.counts = count_outcomes(())
        self.by_kind = Counter()
        self.deviations = []
        self.deviation_count = 0
        self.deviation_labels = Counter()
        #: (baseline status, outcome, fitting explanations: `Classification.signature_parts`, () for none) -> the
        #: deviations with these, named run-wide by `deviation_groups` once every record is in
        self._deviation_keys: dict[tuple, _KeptDeviations] = {}
        self._deviations_kept = 0
        self.root_causes = RootCauseTally()
        self.known = {}
        self.not_applicable = Counter()
        self.junit = Counter()
        self.kinds = []
        #: convention -> (records answering its value on an undefined input, the first ids)
        self.acceptable = {}
        #: records whose shrink the wall clock (`--shrink-seconds`) stopped: their shrunk input, and what follows
        #: from it, depend on the machine (`Shrunk.stopped_by`), with the first ids
        self.clock_stopped = 0
        self.clock_stopped_ids: list[str] = []

    def add(self, record):
        outcome, kind = record.outcome.value, record.kind
        self.counts[outcome] = self.counts.get(outcome, 0) + 1
        self.by_kind[(kind, outcome)] += 1
        if kind not in self.kinds:
            self.kinds.append(kind)
        self.junit[(kind, "tests")] += 1
        category = _junit_category(record)
        if category:
            self.junit[(kind, category)] += 1
        if outcome == "not-applicable":
            self.not_applicable[record.message] += 1
        if outcome == "acceptable":
            count, ids = self.acceptable.get(record.convention or "?", (0, ()))
            self.acceptable[record.convention or "?"] = (count + 1, ids if len(ids) >= ACCEPTABLE_SHOWN
                                                         else (*ids, record.id))
        if record.shrunk is not None and record.shrunk.stopped_by == STOPPED_CLOCK:
            self.clock_stopped += 1
            if len(self.clock_stopped_ids) < IDS_KEPT:
                self.clock_stopped_ids.append(record.id)
        if not _is_reported(record):
            return
        self.root_causes.add(record)
        baseline = record.baseline
        if baseline is not None and baseline.status == "known":
            entry = self.known.setdefault(baseline.entry or record.id, {"first": record, "ids": [], "count": 0})
            entry["count"] += 1
            if len(entry["ids"]) < 4:
                entry["ids"].append(record.id)
            return
        position = self.deviation_count
        self.deviation_count += 1
        self.deviation_labels[_label(record)] += 1
        classification = record.classification
        signature = classification.signature_parts if classification is not None and classification.name else ()
        key = (baseline.status if baseline is not None else None, outcome, signature)
        kept = self._deviation_keys.setdefault(key, _KeptDeviations())
        self._deviations_kept += kept.add(position, record, room=self._deviations_kept < DEVIATIONS_KEPT)
        if len(self.deviations) < DEVIATIONS_SHOWN:
            self.deviations.append(record)

    def deviation_groups(self) -> list[DeviationGroup]:
        """The deviations (the records the gate fails on) grouped by baseline status, outcome and the run's name
        for their root cause (`run_name_of` over the causes of the root-cause section: one bug, one group, whatever
        else its records fit), in the order each group's first record came."""
        run_names = self.root_causes.run_names()
        groups: dict[tuple, DeviationGroup] = {}
        for (status, outcome, signature), kept in self._deviation_keys.items():
            parts = run_name_of(signature, run_names) if signature else None
            cause = cause_name(parts) if parts is not None else None
            group = groups.setdefault((status, outcome, cause),
                                      DeviationGroup(status, outcome, cause, cause_parts=parts or ()))
            group.count += kept.count
            group.first_ids = sorted(group.first_ids + kept.ids)[:IDS_KEPT]
            group.kept = sorted(group.kept + kept.records, key=lambda pair: pair[0])
        return list(groups.values())


def tally(records):
    """A SummaryTally of `records` (any iterable: a list, or records streamed from results.jsonl)."""
    out = SummaryTally()
    for record in records:
        out.add(record)
    return out


def markdown_summary(results, summary=None):
    """summary.md of a run: `results` (an events.Results) gives the header and footer, and the records
    unless `summary` (their SummaryTally, when they were streamed) is given."""
    footer = results.footer
    summary = summary if summary is not None else tally(results.records)
    baseline = footer.baseline if footer is not None else None
    out = _heading(results) + _settings(results, summary) + _outcome_table(summary) + _baseline_lines(baseline)
    out += root_cause_section(summary.root_causes.groups())
    out += _deviations(summary, show_status=baseline is not None and bool(baseline.file))
    out += _acceptable(summary) + _known(summary) + _not_applicable(summary) + _clock_stopped(summary)
    if footer is not None and footer.coverage is not None:
        out += ["", "## Coverage", ""] + coverage_table(footer.coverage)
    return "\n".join(out) + "\n"


def _heading(results):
    """The title, the judged profile and the verdict; why the implementation could not be driven."""
    header = results.header
    impl, settings = header.implementation, header.settings
    verdict, code = _verdict(results)
    who = "? (?)"
    if impl is not None:
        who = f"{markdown_code(f'{impl.name} {impl.version or str()}'.strip())} ({markdown_code(impl.language or '?')})"
    out = [f"# bleu-oracle {settings.verb}: {who}", ""]
    declared, judged = header.profile, header.judged_profile
    profile_text = f"profile **{judged}**" + (f" (declared: {declared})" if declared and declared != judged else "")
    out.append(
        f"Judged against {profile_text}. Verdict: **{verdict}**" + (f" (exit {code})." if code is not None else ".")
    )
    if header.handshake_error:
        out += ["", f"The implementation could not be driven: {markdown_code(header.handshake_error)}"]
        if header.handshake_stderr:
            out += ["", *markdown_block(header.handshake_stderr.rstrip()[-2000:])]
    return out


#: The longest --replay argument (a JSON input, or a file's path) summary.md shows whole.
_REPLAY_SHOWN = 300


def _what_ran(results, summary):
    """'- seed 0, 200 random examples, cases: ...', or for a --replay run what it replayed (it drew no example and
    ran no case; `summary` counts its records)."""
    settings = results.header.settings
    if not settings.replay:
        return f"- seed {settings.seed}, {settings.examples} random examples, cases: {settings.cases or 'none'}"
    count = sum(count for (kind, _outcome), count in summary.by_kind.items() if kind == "replay")
    given = settings.replay if len(settings.replay) <= _REPLAY_SHOWN else settings.replay[:_REPLAY_SHOWN] + "..."
    return f"- replayed (--replay): {count} input{'s' if count != 1 else ''}, {markdown_code(given)}"


def _settings(results, summary):
    """The run's versions, command, search (or what it replayed: `summary` counts the records) and contract, and
    what the footer says of restarts and time."""
    header, footer = results.header, results.footer
    settings = header.settings
    capabilities = header.capabilities.to_json() if header.capabilities is not None else None
    out = [
        "",
        f"- suite {header.suite_version}, oracle {header.oracle_version}",
        f"- command: {markdown_code(settings.command)}",
        _what_ran(results, summary),
        f"- numeric contract: |actual - expected| <= {settings.abs} + {settings.rel} * |expected|; "
        f"timeout {settings.timeout} s",
        f"- capabilities: {markdown_code(json.dumps(capabilities))}",
    ]
    if settings.strict:
        out.append("- strict: inputs the documents leave undefined must be refused (a named convention's value "
                   "fails)")
    if settings.shard:
        out.append(f"- shard {settings.shard} of a run: this report covers its share of the cases and examples; "
                   "`bleu-oracle merge` writes the whole run's report and gate")
    if footer is not None and footer.restarts:
        out.append(f"- the implementation was restarted {footer.restarts} time(s)")
    if footer is not None and footer.time_budget_spent:
        out.append(f"- the time budget ({settings.time_budget} s) stopped the search after {footer.examples} examples")
    return out


#: The outcome table's columns: (kind of record, its heading). cases, examples and metamorphic relations always;
#: the others where the run has such records (a column for every kind, so that each row adds up to its total).
_KIND_COLUMNS = (("case", "cases"), ("example", "examples"), ("metamorphic", "metamorphic"), ("series", "series"),
                 ("stateful", "stateful"), ("replay", "replayed"))
_ALWAYS_SHOWN = 3


def _outcome_table(summary):
    by_kind = summary.by_kind
    named = dict(_KIND_COLUMNS)
    columns = [*_KIND_COLUMNS[:_ALWAYS_SHOWN],
               *((kind, heading) for kind, heading in _KIND_COLUMNS[_ALWAYS_SHOWN:] if kind in summary.kinds),
               *((kind, kind) for kind in summary.kinds if kind not in named)]  # (a report's own kinds of input)
    out = ["", "| outcome | " + " | ".join(heading for _kind, heading in columns) + " | total |",
           "|---|" + "---:|" * (len(columns) + 1)]
    for outcome, total in summary.counts.items():
        if total or outcome in ("pass", "fail"):
            out.append(f"| {outcome} | " + " | ".join(str(by_kind[(kind, outcome)]) for kind, _heading in columns)
                       + f" | {total} |")
    return out


def _acceptable(summary):
    """The answers that are a named convention's value on an input the documents leave undefined: not failures,
    not the recommended refusal either (PROTOCOL.md); counted by convention."""
    if not summary.acceptable:
        return []
    out = ["", "## Acceptable answers", "",
           "Inputs the documents leave undefined (PROTOCOL.md), scored with a named convention's value where refusing "
           "is recommended: not a failure (`--strict` makes each one).", "",
           "| convention | records | first |", "|---|---:|---|"]
    for convention, (count, ids) in sorted(summary.acceptable.items()):
        out.append(f"| {markdown_code(convention)} | {count} | {', '.join(markdown_code(i) for i in ids)} |")
    return out


def _baseline_lines(baseline):
    if baseline is None or not baseline.file:
        return []
    out = [
        "",
        f"Baseline {markdown_code(baseline.file)} ({baseline.entries} entries): {baseline.known} known, {baseline.new} "
        f"new, {baseline.fixed} expected failures passed, {baseline.changed} changed, {len(baseline.stale)} "
        f"stale, {len(baseline.unused)} unused class entries.",
    ]
    for entry in baseline.stale:
        out.append(f"- stale entry {markdown_code(entry)}: no record with this id in the run")
    for entry in baseline.unused:
        out.append(f"- unused class entry {markdown_code(entry)} (not a failure: random inputs vary with the seed)")
    return out


def _deviations(summary, *, show_status):
    if not summary.deviation_count:
        return []
    out = ["", "## Deviations", ""]
    out.append(
        "By first diverging layer: "
        + ", ".join(f"{k} x{v}" for k, v in summary.deviation_labels.most_common())
        + "."
    )
    run_names = summary.root_causes.run_names()
    causes = Counter()
    for group in summary.deviation_groups():
        if group.cause is not None:
            causes[group.cause] += group.count
    if causes:
        out.append("By root cause: " + ", ".join(f"{k} x{v}" for k, v in causes.most_common()) + ".")
    for record in summary.deviations:
        out += [""] + _record_section(record, show_status=show_status, run_names=run_names)
    if summary.deviation_count > DEVIATIONS_SHOWN:
        out += ["", f"... and {summary.deviation_count - DEVIATIONS_SHOWN} more deviations in results.jsonl."]
    return out


def _known(summary):
    if not summary.known:
        return []
    out = ["", "## Known deviations (baseline)", ""]
    for entry, matched in list(summary.known.items())[:DEVIATIONS_SHOWN]:
        first = matched["first"]
        reason = first.baseline.reason or "no reason given"
        if entry == first.id and matched["count"] == 1:
            out.append(f"- {markdown_code(entry)}: {first.outcome.value} {_layer(first)} -- {markdown_code(reason)}")
        else:
            ids = ", ".join(markdown_code(i) for i in matched["ids"][:3]) + (", ..." if matched["count"] > 3 else "")
            out.append(f"- {markdown_code(entry)}: {matched['count']} random example(s) ({ids}) -- "
                       f"{markdown_code(reason)}")
    if len(summary.known) > DEVIATIONS_SHOWN:
        out.append(f"- ... and {len(summary.known) - DEVIATIONS_SHOWN} more entries")
    return out


def clock_stopped_words(summary) -> str | None:
    """The line the console and summary.md give the records whose shrink the clock stopped (None: none did)."""
    if not summary.clock_stopped:
        return None
    ids = ", ".join(summary.clock_stopped_ids) + (", ..." if summary.clock_stopped > len(summary.clock_stopped_ids)
                                                  else "")
    return (f"{summary.clock_stopped} shrink(s) stopped by the --shrink-seconds clock before the query budget "
            f"({ids}): those records depend on this machine's speed and load")


def _clock_stopped(summary):
    words = clock_stopped_words(summary)
    return [] if words is None else ["", "## Shrinking stopped by the clock", "", markdown_code(words)]


def _not_applicable(summary):
    if not summary.not_applicable:
        return []
    out = ["", "## Not applicable", ""]
    for reason, n in summary.not_applicable.most_common():
        out.append(f"- {n} x {markdown_code(reason)}")
    return out


def coverage_table(coverage):
    """Markdown lines of the coverage table, from a footer's coverage table."""
    counts, unreachable = coverage.features, coverage.unreachable
    lines = [
        f"{coverage.inputs} judged inputs; each row counts those that exercised the feature.",
        "",
        "| dimension | feature | inputs | |",
        "|---|---|---:|---|",
    ]
    for dimension, group in FEATURES.items():
        for name, meaning in group.items():
            count = counts.get(name, 0)
            note = (
                f"outside its capabilities: {unreachable[name]}"
                if name in unreachable
                else meaning
                if count
                else f"**not exercised**: {meaning}"
            )
            lines.append(f"| {dimension} | {name} | {count} | {note} |")
    lines += _text_rule_lines(counts, unreachable) + _state_lines(coverage)
    missed = [name for name in FEATURES_IN_ORDER if not counts.get(name) and name not in unreachable]
    lines += [
        "",
        f"Not exercised within the capabilities: {', '.join(missed)}."
        if missed
        else "Every feature within the implementation's capabilities was exercised.",
    ]
    return lines


def _text_rule_lines(counts, unreachable):
    """One line per tokenizer: which of its rules (`oracle.harness.textgen`) the text requests exercised."""
    lines = ["", "Text rules exercised, per tokenizer:", ""]
    for tokenizer, rules in TEXT_RULE_FEATURES.items():
        if f"text-{tokenizer}" in unreachable:
            continue
        hit = [name.split(":", 1)[1] for name in rules if counts.get(name)]
        missed = [name.split(":", 1)[1] for name in rules if not counts.get(name)]
        lines.append(f"- {tokenizer}: {len(hit)} of {len(rules)} rules" + (f"; not exercised: {', '.join(missed)}"
                                                                            if missed else ""))
    return lines if len(lines) > 3 else []


def _state_lines(coverage):
    """Refused inputs sent and refused; the series of short requests and their repeats."""
    counts = coverage.features
    sent = sum(n for name, n in counts.items() if name.startswith("refused-") and name != "refused-refused")
    repeats = {name[len("repeat-"):]: n for name, n in counts.items() if name.startswith("repeat-") and n}
    return ["", f"Inputs that must be refused: {sent} sent, {counts.get('refused-refused', 0)} refused.",
            f"Series: {counts.get('series', 0)} series of {counts.get('series-request', 0)} requests (the longest "
            f"{coverage.longest_series}); repeats: " + (", ".join(f"{k} {n}" for k, n in repeats.items()) or "none")
            + "."]


def _root_cause_text(classification, run_names):
    """A record's root cause as the run names it (one bug, one name: `run_name_of`), its description,
    and the record's own first name when that is another explanation its input fits as well."""
    parts = run_name_of(classification.signature_parts, run_names)
    name, own = cause_name(parts), classification.name
    if parts == classification.parts:
        return markdown_code(name), describe_as(classification, parts)
    return f"{markdown_code(name)} (this input fits {markdown_code(own)} as well)", describe_as(classification, parts)


def _record_section(record, show_status=True, run_names=()):
    title = f" ({markdown_code(record.title)})" if record.title else ""
    status = record.baseline.status if record.baseline is not None else None
    status_text = f" [baseline: {status}]" if status and show_status else ""
    lines = [
        f"### {markdown_code(record.id)}{title}: {record.outcome.value} {_layer(record)}{status_text}",
        "",
        f"- {markdown_code(record.message)}" if record.message.strip() else "-",
    ]
    shrunk = record.shrunk
    if shrunk is not None:
        lines.append(f"- shrunk in {shrunk.steps} steps ({shrunk.queries} queries): {markdown_code(shrunk.message)}")
    classification = record.classification
    if classification is not None and classification.name:
        name, description = _root_cause_text(classification, run_names)
        documented = classification.documented  # (the record's behaviour, whichever fitting name the run gives)
        lines.append(
            f"- root cause: {name}"
            + (f" (documented: {', '.join(documented)})" if documented else "")
            + (f": {markdown_code(description)}" if description else "")
        )
    if record.replay is not None:
        lines += _input_lines(record, record.replay, minimal=shrunk is not None)
    if record.reproduce:
        lines += ["- reproduce:", "", *markdown_block(record.reproduce, "sh", indent="  ")]
    stderr = record.stderr.strip()
    if stderr:
        lines += ["- stderr:", "", *markdown_block(stderr[-1500:], indent="  ")]
    return lines


# -- JUnit -------------------------------------------------------------------------


def _detail(record, run_names=()):
    before, after = _detail_around_cause(record)
    cause = _cause_line(_CauseOf.of(record.classification), run_names)
    return before + (cause if cause is not None else "") + after


def _detail_around_cause(record):
    """(what a <failure>'s text holds before its "root cause: ..." line, what it holds after it): the message and
    a line break before it when there is a message, a line break and the reproduction and the input after it. Joined
    around the cause line (or around nothing, for a record without one), they are `_detail`'s text."""
    head = [record.message] if record.message else []
    tail = []
    if record.reproduce:
        tail.append(f"reproduce: {record.reproduce}")
    if record.replay is not None:
        shown = input_shown(record.replay, record_id=record.id, reproduce=record.reproduce)
        note = shown.note()
        tail.append(f"input{f' ({note})' if note else ''}: {shown.text}")
    if _CauseOf.of(record.classification) is None:
        return "\n".join(head + tail), ""
    return "".join(f"{part}\n" for part in head), "".join(f"\n{part}" for part in tail)


@dataclass(frozen=True)
class _CauseOf:
    """What a classified record's "root cause: ..." line in junit.xml reads of its classification (`_cause_line`):
    kept, a few names and a description, in place of the record until the run's causes are known (`JunitCases`)."""

    signature_parts: tuple[tuple[str, ...], ...]
    parts: tuple[str, ...]
    name: str
    description: str

    @classmethod
    def of(cls, classification):
        """None for a record without a named classification (its failure text names no cause)."""
        if classification is None or not classification.name:
            return None
        return cls(classification.signature_parts, classification.parts, classification.name,
                   classification.description)

    def to_json(self) -> str:
        return json.dumps([self.signature_parts, self.parts, self.name, self.description])

    @classmethod
    def from_json(cls, text: str):
        signature, parts, name, description = json.loads(text)
        return cls(tuple(tuple(cause) for cause in signature), tuple(parts), name, description)


def _cause_line(cause_of, run_names):
    """The "root cause: ..." line of a classified record's failure text (None: it has no named classification)."""
    if cause_of is None:
        return None
    cause, own = run_name_of(cause_of.signature_parts, run_names), cause_of.name
    fits = "" if cause == cause_of.parts else f" (this input fits {own} as well)"
    return f"root cause: {cause_name(cause)}{fits}: {describe_as(cause_of, cause)}"


def _junit_category(record):
    """Which JUnit total a record counts in besides "tests": "failures", "errors", "skipped" or None."""
    status = record.baseline.status if record.baseline is not None else None
    outcome = record.outcome.value
    if status == "known":
        return "skipped"
    if status in ("fixed", "changed") or outcome == "fail":
        return "failures"
    if outcome in _ERROR_OUTCOMES:
        return "errors"
    if outcome == "not-applicable":
        return "skipped"
    return None


def _testcase(record, run_names=(), *, cause_at=None):
    """One record's <testcase> element (classname bleu-oracle.<kind>s). `cause_at`: a text put where a classified
    record's failure text names its root cause, in place of the cause (`JunitCases`: the run's causes are not known
    yet); unused for a record whose <testcase> has no failure text or that names no cause."""
    case = ET.Element(
        "testcase", classname=f"bleu-oracle.{record.kind}s", name=xml_text(record.id), time=f"{record.duration:.6f}"
    )
    outcome = record.outcome.value
    status = record.baseline.status if record.baseline is not None else None
    reason = record.baseline.reason if record.baseline is not None else ""
    layer = _layer(record)
    label = f"{outcome}{' at ' + layer if layer else ''}"
    element = None
    if status == "known":
        ET.SubElement(case, "skipped", message=xml_text(f"known deviation ({label}): {reason}"))
    elif status == "fixed":
        element = ET.SubElement(
            case,
            "failure",
            type="expected-failure-passed",
            message=xml_text(f"expected failure passed (baseline: {reason}); remove the entry"),
        )
    elif status == "changed":
        element = ET.SubElement(
            case, "failure", type="baseline-changed", message=xml_text(f"known deviation changed: now {label}")
        )
    elif outcome == "fail":
        element = ET.SubElement(
            case, "failure", type=f"fail:{record.layer or 'score'}", message=xml_text(record.message[:500])
        )
    elif outcome in _ERROR_OUTCOMES:
        element = ET.SubElement(case, "error", type=outcome, message=xml_text(record.message[:500]))
    elif outcome == "not-applicable":
        ET.SubElement(case, "skipped", message=xml_text(f"not applicable: {record.message}"))
    elif outcome == "acceptable":  # passed: a named convention's value where the documents define none
        properties = ET.SubElement(case, "properties")
        ET.SubElement(properties, "property", name="convention", value=xml_text(record.convention or ""))
        ET.SubElement(case, "system-out").text = xml_text(record.message)
    if element is not None and cause_at is not None and _CauseOf.of(record.classification) is not None:
        before, after = _detail_around_cause(record)
        element.text = xml_text(before) + cause_at + xml_text(after)  # (`shown`: character by character)
    elif element is not None:
        element.text = xml_text(_detail(record, run_names))
    if record.stderr:
        ET.SubElement(case, "system-err").text = xml_text(record.stderr[-20000:])
    return case


def _element_text(element, level):
    """An element serialised at indentation `level` (two spaces a level), ending in a newline."""
    ET.indent(element, level=level)
    return "  " * level + ET.tostring(element, encoding="unicode") + "\n"


def _start_tag(tag, **attributes):
    """The start tag of an element with these attributes, escaped as ElementTree escapes them."""
    empty = ET.tostring(ET.Element(tag, attributes), encoding="unicode")  # '<tag a="1" />'
    return empty[: -len(" />")] + ">"


#: Where a classified record's failure text names its root cause, in its spooled <testcase> (`JunitCases`): a character
#: `xml_text` never lets through, so no other text of a <testcase> holds it.
_CAUSE_HERE = "\x00"
#: The start of a spooled line that stands for a classified record's <testcase>, its text around the cause and the
#: classification's names (JSON, one line): no line of a <testcase> starts so.
_DEFERRED = "\x00"


class JunitCases:
    """Each record's <testcase>, spooled per kind as the records go by (`add`), so that the pass that tallies a
    run's records (`SummaryTally`) also makes junit.xml's test cases and results.jsonl is read once. A classified
    record's failure text names the run's root causes, known only once every record is tallied: its <testcase> is
    spooled without that line, beside the few names of its classification the line is made of (`_CauseOf`), and
    completed when the suite is written (`write`). Memory holds one record at a time (the records are not read
    again)."""

    def __init__(self, stack: contextlib.ExitStack):
        self._stack = stack
        self._spools: dict[str, IO[str]] = {}

    def add(self, record):
        kind = record.kind
        if kind not in self._spools:
            self._spools[kind] = self._stack.enter_context(tempfile.TemporaryFile("w+", encoding="utf-8"))
        cause_of = _CauseOf.of(record.classification)
        if cause_of is None:  # (its text does not depend on the other records)
            self._spools[kind].write(_element_text(_testcase(record), 2))
            return
        text = _element_text(_testcase(record, cause_at=_CAUSE_HERE), 2)
        if _CAUSE_HERE not in text:  # (no failure text: a known deviation)
            self._spools[kind].write(text)
            return
        if text.count(_CAUSE_HERE) != 1:  # (a NUL in the kind, which is not escaped: the record spooled whole)
            self._spools[kind].write(_DEFERRED + json.dumps(["", None, record.model_dump_json()]) + "\n")
            return
        head, _, tail = text.partition(_CAUSE_HERE)
        self._spools[kind].write(_DEFERRED + json.dumps([head, cause_of.to_json(), tail]) + "\n")

    def write(self, kind, out, run_names):
        """The suite `kind`'s test cases, in the order of the run, to `out`."""
        spool = self._spools.get(kind)
        if spool is None:
            return
        spool.seek(0)
        for line in spool:
            if not line.startswith(_DEFERRED):
                out.write(line)
                continue
            head, cause_of, tail = json.loads(line[len(_DEFERRED):])
            if cause_of is None:  # (the rare record spooled whole: its <testcase> built again)
                out.write(_element_text(_testcase(Record.model_validate_json(tail), run_names), 2))
                continue
            out.write(head + _text_escaped(xml_text(_cause_line(_CauseOf.from_json(cause_of), run_names))) + tail)


def _text_escaped(text):
    """`text` as ElementTree writes an element's text (`&`, `<`, `>` escaped)."""
    if not text:
        return ""
    return ET.tostring(_text_element(text), encoding="unicode")[len("<x>"):-len("</x>")]


def _text_element(text):
    element = ET.Element("x")
    element.text = text
    return element


def write_junit(out, results, records, summary, cases=None):
    """Write junit.xml to the text stream `out`: one <testsuite> per kind of record, in the order the kinds
    first appear, each <testcase> in the order of the run. `records` is iterated once (or `cases`, their
    `JunitCases` spooled already, is given instead); each suite's test cases are spooled to a temporary file until
    the totals (from `summary`, the records' SummaryTally) open the document, so memory holds one record at a
    time."""
    footer, impl = results.footer, results.header.implementation
    totals = Counter(summary.junit)
    stale = footer.baseline.stale if footer is not None else ()
    for _ in stale:
        totals[("baseline", "failures")] += 1
        totals[("baseline", "tests")] += 1
    names = ("tests", "failures", "errors", "skipped")
    root = {"name": xml_text(f"bleu-oracle check {impl.name if impl is not None else ''}".strip())}
    root.update({name: str(sum(v for (k, n), v in totals.items() if n == name)) for name in names})
    kinds = list(summary.kinds)
    if not kinds and not stale:
        out.write(
            '<?xml version="1.0" encoding="UTF-8"?>\n'
            + ET.tostring(ET.Element("testsuites", root), encoding="unicode")
            + "\n"
        )
        return
    with contextlib.ExitStack() as stack:
        if cases is None:
            cases = JunitCases(stack)
            for record in records:
                cases.add(record)
        run_names = summary.root_causes.run_names()
        out.write('<?xml version="1.0" encoding="UTF-8"?>\n' + _start_tag("testsuites", **root) + "\n")
        for kind in kinds:
            suite = {"name": f"bleu-oracle.{kind}s", **{name: str(totals[(kind, name)]) for name in names}}
            out.write("  " + _start_tag("testsuite", **suite) + "\n")
            cases.write(kind, out, run_names)
            out.write("  </testsuite>\n")
        if stale:
            suite = {"name": "bleu-oracle.harness.gate", **{name: str(totals[("baseline", name)]) for name in names}}
            out.write("  " + _start_tag("testsuite", **suite) + "\n")
            for entry in stale:
                case = ET.Element("testcase", classname="bleu-oracle.harness.gate", name=xml_text(entry), time="0")
                ET.SubElement(
                    case,
                    "failure",
                    type="stale-baseline-entry",
                    message=xml_text(f"baseline entry {entry!r} matches no record of this run"),
                )
                out.write(_element_text(case, 2))
            out.write("  </testsuite>\n")
        out.write("</testsuites>\n")


def junit_xml(results):
    """junit.xml of a run, as a string (see `write_junit`)."""
    out = io.StringIO()
    write_junit(out, results, results.records, tally(results.records))
    return out.getvalue()


def badge(results):
    """A shields.io endpoint object (https://shields.io/badges/endpoint-badge) for the run: the judged
    profile and the verdict, green when the gate passed, red when it did not."""
    footer = results.footer
    profile = results.header.judged_profile or "?"
    counts = footer.counts if footer is not None else {}
    deviations = sum(v for k, v in counts.items() if k not in _GOOD)
    known = footer.baseline.known if footer is not None else 0
    if footer is not None and footer.gate == "pass":
        message = f"conforming ({profile})" + (f", {known} known deviations" if known else "")
        color = "brightgreen" if not known else "green"
    else:
        verdict, _ = _verdict(results)
        message = f"{deviations} deviations ({profile})" if footer is not None and footer.exit_code == 1 else verdict
        color = "red"
    return {"schemaVersion": 1, "label": "BLEU conformance", "message": message, "color": color}


def write_reports(results, *, markdown=None, junit=None, badge_file=None, summary=None, records=None, cases=None):
    """Write summary.md, junit.xml and a badge (each when given a path) derived from `results` (an
    events.Results). For a streamed run, `summary` is the records' SummaryTally and either `cases` their
    `JunitCases`, spooled in the same pass, or `records` a function that iterates them again (for junit.xml);
    otherwise both come from `results.records`."""
    if summary is None:
        summary = tally(results.records)
    if results.footer is not None:  # a tie among names as the run settled it on its passing requests
        summary.root_causes.settle_as(results.footer.causes)
    written = []
    if markdown is not None:
        written.append(write_atomically(markdown, markdown_summary(results, summary)))
    if junit is not None:
        again = records or (lambda: results.records)
        written.append(write_atomically(
            junit, lambda out: write_junit(out, results, () if cases is not None else again(), summary, cases)))
    if badge_file is not None:
        written.append(write_atomically(badge_file, json.dumps(badge(results)) + "\n"))
    return written


@dataclass
class DerivedReports:
    """What a run's reports were derived from: its header and footer (`results`, whose records are not kept)
    and the tally of its records (`summary`), with the paths written; both None until the reports are written
    (and when the run wrote no results.jsonl). The console reads the run from here (`oracle.reports.console`)."""

    results: Results | None = None
    summary: SummaryTally | None = None
    written: list[Path] = field(default_factory=list)


def write_derived_reports(report_dir, junit=None, badge_file=None, *, into: DerivedReports | None = None):
    """summary.md (and junit.xml, default DIR/junit.xml, and a badge when asked) from DIR/results.jsonl, when
    the run got as far as writing one; returns the paths written, and leaves what they were derived from in
    `into` when given. The file is read once, a record at a time, each record tallied for the summary and its
    junit.xml test case spooled (`JunitCases`; a classified record's line is read again): memory does not grow with
    the run."""
    derived = into if into is not None else DerivedReports()
    path = Path(report_dir) / "results.jsonl"
    if not path.is_file():
        return []
    junit = Path(junit) if junit is not None else Path(report_dir) / "junit.xml"
    derived.results, derived.summary, derived.written = _derive(path, Path(report_dir) / "summary.md", junit,
                                                                badge_file)
    return derived.written


#: The fields of a record line no report reads (summary.md, junit.xml, the console: `SummaryTally`, `JunitCases`):
#: a metamorphic record's original input (`related`) always, and the request sent (as large as the replayable
#: input) where the record reports another input (its shrunk or replayable one: `events.input_size` reads the
#: request only of a record without either).
_UNREPORTED = ("related",)


def for_reports(line: dict) -> dict:
    """A record's line (plain JSON, as read) without the fields no report reads (`_UNREPORTED`, and the request of
    a record that reports another input): less to validate, the same reports (tests/reports/test_summaries.py)."""
    if line.get("shrunk") is None and line.get("replay") is None:
        return {name: value for name, value in line.items() if name not in _UNREPORTED}
    return {name: value for name, value in line.items() if name not in _UNREPORTED and name != "request"}


def _derive(path, markdown, junit, badge_file=None):
    """(the run's Results without its records, their SummaryTally, the paths written): the reports of the
    results.jsonl `path`, from one pass over it (`write_derived_reports`)."""
    summary = SummaryTally()
    with contextlib.ExitStack() as stack:
        cases = JunitCases(stack)

        def add(record):
            summary.add(record)
            cases.add(record)

        results = read_results(path, light=True, narrow=for_reports, on_record=add)
        written = write_reports(results, markdown=markdown, junit=junit, badge_file=badge_file, summary=summary,
                                cases=cases)
    return results, summary, written


@contextlib.contextmanager
def publishing(report: ReportDirectory, *, junit=None, badge_file=None) -> Iterator[DerivedReports]:
    """Around a `check` or `fuzz` run writing into `report.staging`: when the run is over (also when it failed or
    was interrupted: its records are the evidence), summary.md and junit.xml (and a badge) are derived from the
    staged results.jsonl and the report is published into its directory. A report one of whose files could not
    be written (a full disk) is never published: the directory keeps the report it had, and FileWriteError says
    so. A SIGTERM or ^C while the report is finished waits until it is done, then `Interrupted` carries its exit
    code. Yields a `DerivedReports`, filled once the reports are written: what the verb's console prints."""
    derived = DerivedReports()
    try:
        yield derived
    except FileWriteError as failure:
        raise report.unwritten(failure) from None
    except BaseException:
        _finish_run_report(report, junit, badge_file, derived)
        raise
    _finish_run_report(report, junit, badge_file, derived)


def _finish_run_report(report: ReportDirectory, junit, badge_file, derived: DerivedReports) -> None:
    """Derive the summary (and junit.xml, and a badge) from the staged stream, then publish the report (also
    when the derivation fails on a bug: the stream is the record); never a report cut by a failed write."""
    with signals_deferred():
        try:
            write_derived_reports(report.staging, junit, badge_file=badge_file, into=derived)
        except FileWriteError as failure:
            raise report.unwritten(failure) from None
        except BaseException:
            report.publish()
            raise
        report.publish()


def main(argv=None):
    parser = argparse.ArgumentParser(
        prog="python -m oracle.reports.summaries",
        description="Regenerate summary.md and junit.xml from a results.jsonl.",
    )
    parser.add_argument("results", help="a results.jsonl, or the report directory holding one")
    parser.add_argument("--markdown", metavar="FILE", help="default: summary.md next to results.jsonl")
    parser.add_argument("--junit", metavar="FILE", help="default: junit.xml next to results.jsonl")
    args = parser.parse_args(argv)
    path = results_path(args.results)
    _, _, written = _derive(path, args.markdown or path.parent / "summary.md", args.junit or path.parent / "junit.xml")
    for written_path in written:
        print(written_path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
