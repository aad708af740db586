"""Reports derived from results.jsonl (of `check` or `fuzz`): a Markdown summary and JUnit XML.

The summary counts outcomes, groups the failing records by root cause (their
"classification": name, description, count, the smallest example with the
implementation's and the oracle's values, a reproduction; `root_cause_groups`
is shared with `fuzz`'s console summary) and lists each deviation with its
root cause.

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
import json
import sys
import xml.etree.ElementTree as ET
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

from oracle.harness.coverage import ALL_FEATURES as FEATURES_IN_ORDER
from oracle.harness.coverage import FEATURES
from oracle.harness.events import count_outcomes, read_results

from .staging import write_atomically

DEVIATIONS_SHOWN = 50
_ERROR_OUTCOMES = ("error", "crash", "timeout", "protocol-error")
_GOOD = ("pass", "rejected", "not-applicable")


def _verdict(results):
    footer = results.footer
    if footer is None:
        return "incomplete (no footer: the run was cut short)", None
    code = footer.get("exit_code")
    if footer.get("interrupted"):
        return f"interrupted (exit {code}): the records below are those judged before the run was stopped", code
    text = {0: "conforming", 1: "deviations found", 2: "usage or configuration error",
            3: "the implementation could not be driven"}.get(code, f"exit {code}")
    return text, code


def _layer(record):
    if not record.get("layer"):
        return ""
    order = f" (order {record['order']})" if record.get("order") else ""
    return f"{record['layer']}{order}"


def _label(record):
    """ "fail:ref_len", "crash", ...: the outcome and the first diverging layer."""
    return f"{record['outcome']}:{record['layer']}" if record.get("layer") else record["outcome"]


@dataclass
class RootCauseGroup:
    """The failing records one root cause explains, with the smallest input among them."""

    name: str
    description: str
    documented: list
    records: list
    smallest: dict


def input_size(record):
    """(tokens, segments, references) of the input a record reports (the shrunk one when shrunk)."""
    payload = (record.get("shrunk") or {}).get("request") or record.get("replay") or record.get("request") or {}
    segments = payload.get("segments") or []
    tokens = sum(len(s.get("hypothesis") or []) + sum(len(r) for r in s.get("references") or []) for s in segments)
    references = sum(len(s.get("references") or []) for s in segments)
    return tokens, len(segments), references, len(payload.get("weights") or [])


def root_cause_groups(records):
    """Failing records grouped by the name of their root cause ("classification"), largest group
    first; each with its smallest input (fewest tokens, then segments, references, orders; then
    the first in the run)."""
    groups = {}
    for position, record in enumerate(records):
        classification = record.get("classification")
        if record["outcome"] in _GOOD or not isinstance(classification, dict) or not classification.get("name"):
            continue
        group = groups.setdefault(classification["name"], [])
        group.append((input_size(record), position, record))
    out = []
    for name, members in groups.items():
        smallest = min(members, key=lambda m: (m[0], m[1]))[2]
        documented = sorted({d for _, _, r in members for d in (r["classification"].get("documented") or [])})
        out.append(RootCauseGroup(name, smallest["classification"].get("description") or "", documented,
                                  [r for _, _, r in members], smallest))
    out.sort(key=lambda g: (-len(g.records), g.name))
    return out


def _show_value(value):
    if value is None:
        return "none"
    if isinstance(value, float):
        return repr(value)
    return str(value)


def answer_value(record):
    """The implementation's answer in the reported (shrunk) input: a score, or what it said instead."""
    actual = (record.get("shrunk") or {}).get("actual") or record.get("actual") or {}
    for key in ("score", "rejected", "unsupported", "error"):
        if key in actual:
            return actual[key] if key == "score" else f"{key}: {actual[key]}"
    return actual.get("kind") or record["outcome"]


def oracle_value(record):
    expected = (record.get("shrunk") or {}).get("expected") or record.get("expected") or {}
    if expected.get("rejected"):
        return "rejected"
    return expected.get("score")


def root_cause_section(records):
    """Markdown lines: one subsection per root cause with its count, description and smallest example."""
    groups = root_cause_groups(records)
    if not groups:
        return []
    out = ["", "## Root causes", "",
           "Every failing record is classified by `oracle.diagnose.classify` (on the shrunk input for a random "
           "example): the first alternative convention or computation under which the oracle gives the "
           "implementation's answer, first among the implementation's documented classes "
           "(oracle/diagnose/data/discrepancies.yaml).", "",
           "| root cause | records | documented as |", "|---|---:|---|"]
    for group in groups:
        out.append(f"| `{group.name}` | {len(group.records)} | {', '.join(group.documented) or '-'} |")
    for group in groups:
        record = group.smallest
        classification = record["classification"]
        out += ["", f"### `{group.name}` ({len(group.records)})", "", group.description or "", "",
                f"- smallest example `{record['id']}`: the implementation answers "
                f"{_show_value(answer_value(record))}; the oracle says {_show_value(oracle_value(record))}"
                + (f"; under this explanation the oracle gives {_show_value(classification.get('value'))}"
                   if classification.get("value") is not None else "")]
        payload = (record.get("shrunk") or {}).get("request") or record.get("replay")
        if payload:
            out += ["- input:", "", "  ```json", "  " + json.dumps(payload, ensure_ascii=False), "  ```"]
        if record.get("reproduce"):
            out += ["- reproduce:", "", "  ```sh", "  " + record["reproduce"], "  ```"]
    return out


def _is_reported(record):
    baseline = record.get("baseline") or {}
    return record["outcome"] not in _GOOD or baseline.get("status") in ("fixed", "changed")


def markdown_summary(results):
    header, records = results.header, results.records
    impl = header.get("implementation") or {}
    settings = header.get("settings") or {}
    footer = results.footer or {}
    verdict, code = _verdict(results)
    verb = settings.get("verb") or "check"
    out = [f"# bleu-oracle {verb}: {impl.get('name', '?')} {impl.get('version', '')} ({impl.get('language', '?')})", ""]
    declared = header.get("profile")
    judged = header.get("judged_profile")
    profile_text = f"profile **{judged}**" + (f" (declared: {declared})" if declared and declared != judged else "")
    out.append(f"Judged against {profile_text}. Verdict: **{verdict}**" + (f" (exit {code})." if code is not None else "."))
    if header.get("handshake_error"):
        out += ["", f"The implementation could not be driven: {header['handshake_error']}"]
        if header.get("handshake_stderr"):
            out += ["", "```", header["handshake_stderr"].rstrip()[-2000:], "```"]
    out += ["", f"- suite {header.get('suite_version')}, oracle {header.get('oracle_version')}",
            f"- command: `{settings.get('command')}`",
            f"- seed {settings.get('seed')}, {settings.get('examples')} random examples, cases: {settings.get('cases')}",
            f"- numeric contract: |actual - expected| <= {settings.get('abs')} + {settings.get('rel')} * |expected|; "
            f"timeout {settings.get('timeout')} s",
            f"- capabilities: `{json.dumps(header.get('capabilities'))}`"]
    if footer.get("restarts"):
        out.append(f"- the implementation was restarted {footer['restarts']} time(s)")
    if footer.get("time_budget_spent"):
        out.append(f"- the time budget ({settings.get('time_budget')} s) stopped the search after "
                   f"{footer.get('examples')} examples")
    counts = count_outcomes(records)
    out += ["", "| outcome | cases | examples | metamorphic | total |", "|---|---:|---:|---:|---:|"]
    by_kind = Counter((r.get("kind"), r["outcome"]) for r in records)
    for outcome, total in counts.items():
        if total or outcome in ("pass", "fail"):
            out.append(f"| {outcome} | {by_kind[('case', outcome)]} | {by_kind[('example', outcome)]} "
                       f"| {by_kind[('metamorphic', outcome)]} | {total} |")
    baseline = footer.get("baseline") or {}
    if baseline.get("file"):
        out += ["", f"Baseline `{baseline['file']}` ({baseline.get('entries', 0)} entries): "
                f"{baseline.get('known', 0)} known, {baseline.get('new', 0)} new, {baseline.get('fixed', 0)} "
                f"expected failures passed, {baseline.get('changed', 0)} changed, {len(baseline.get('stale', []))} stale, "
                f"{len(baseline.get('unused', []))} unused class entries."]
        for entry in baseline.get("stale", []):
            out.append(f"- stale entry `{entry}`: no record with this id in the run")
        for entry in baseline.get("unused", []):
            out.append(f"- unused class entry `{entry}` (not a failure: random inputs vary with the seed)")
    reported = [r for r in records if _is_reported(r)]
    known = [r for r in reported if (r.get("baseline") or {}).get("status") == "known"]
    deviations = [r for r in reported if (r.get("baseline") or {}).get("status") != "known"]
    out += root_cause_section(reported)
    if deviations:
        out += ["", "## Deviations", ""]
        classes = Counter(_label(r) for r in deviations)
        out.append("By first diverging layer: " + ", ".join(f"{k} x{v}" for k, v in classes.most_common()) + ".")
        causes = Counter((r.get("classification") or {}).get("name") for r in deviations
                         if isinstance(r.get("classification"), dict))
        if causes:
            out.append("By root cause: " + ", ".join(f"{k} x{v}" for k, v in causes.most_common()) + ".")
        for record in deviations[:DEVIATIONS_SHOWN]:
            out += [""] + _record_section(record, show_status=bool(baseline.get("file")))
        if len(deviations) > DEVIATIONS_SHOWN:
            out += ["", f"... and {len(deviations) - DEVIATIONS_SHOWN} more deviations in results.jsonl."]
    if known:
        out += ["", "## Known deviations (baseline)", ""]
        by_entry = {}
        for record in known:
            by_entry.setdefault((record.get("baseline") or {}).get("entry") or record["id"], []).append(record)
        for entry, matched in list(by_entry.items())[:DEVIATIONS_SHOWN]:
            first = matched[0]
            reason = (first.get("baseline") or {}).get("reason") or "no reason given"
            if entry == first["id"] and len(matched) == 1:
                out.append(f"- `{entry}`: {first['outcome']} {_layer(first)} -- {reason}")
            else:
                shown = ", ".join(f"`{r['id']}`" for r in matched[:3]) + (", ..." if len(matched) > 3 else "")
                out.append(f"- `{entry}`: {len(matched)} random example(s) ({shown}) -- {reason}")
        if len(by_entry) > DEVIATIONS_SHOWN:
            out.append(f"- ... and {len(by_entry) - DEVIATIONS_SHOWN} more entries")
    not_applicable = Counter(r.get("message", "") for r in records if r["outcome"] == "not-applicable")
    if not_applicable:
        out += ["", "## Not applicable", ""]
        for reason, n in not_applicable.most_common():
            out.append(f"- {n} x {reason}")
    if footer.get("coverage"):
        out += ["", "## Coverage", ""] + coverage_table(footer["coverage"])
    return "\n".join(out) + "\n"


def coverage_table(coverage):
    """Markdown lines of the coverage table, from a footer's "coverage" value."""
    counts, unreachable = coverage.get("features") or {}, coverage.get("unreachable") or {}
    lines = [f"{coverage.get('inputs', 0)} judged inputs; each row counts those that exercised the feature.", "",
             "| dimension | feature | inputs | |", "|---|---|---:|---|"]
    for dimension, group in FEATURES.items():
        for name, meaning in group.items():
            count = counts.get(name, 0)
            note = (f"outside its capabilities: {unreachable[name]}" if name in unreachable
                    else meaning if count else f"**not exercised**: {meaning}")
            lines.append(f"| {dimension} | {name} | {count} | {note} |")
    missed = [name for name in FEATURES_IN_ORDER if not counts.get(name) and name not in unreachable]
    lines += ["", f"Not exercised within the capabilities: {', '.join(missed)}." if missed
              else "Every feature within the implementation's capabilities was exercised."]
    return lines


def _record_section(record, show_status=True):
    title = f" ({record['title']})" if record.get("title") else ""
    status = (record.get("baseline") or {}).get("status")
    status_text = f" [baseline: {status}]" if status and show_status else ""
    lines = [f"### `{record['id']}`{title}: {record['outcome']} {_layer(record)}{status_text}", "",
             f"- {record.get('message') or ''}".rstrip()]
    shrunk = record.get("shrunk")
    if shrunk:
        lines.append(f"- shrunk in {shrunk.get('steps')} steps ({shrunk.get('queries')} queries): "
                     f"{shrunk.get('message', '')}")
    classification = record.get("classification")
    if isinstance(classification, dict) and classification.get("name"):
        documented = classification.get("documented") or []
        lines.append(f"- root cause: `{classification['name']}`"
                     + (f" (documented: {', '.join(documented)})" if documented else "")
                     + f": {classification.get('description') or ''}".rstrip())
    if record.get("replay"):
        lines += ["- input" + (" (minimal)" if shrunk else "") + ":", "", "  ```json",
                  "  " + json.dumps(record["replay"], ensure_ascii=False), "  ```"]
    if record.get("reproduce"):
        lines += ["- reproduce:", "", "  ```sh", "  " + record["reproduce"], "  ```"]
    stderr = (record.get("stderr") or "").strip()
    if stderr:
        tail = stderr[-1500:]
        lines += ["- stderr:", "", "  ```", *("  " + line for line in tail.splitlines()), "  ```"]
    return lines


# -- JUnit -------------------------------------------------------------------------


def _xml_text(text):
    """XML 1.0 allows only some characters: replace the rest (\\x00-\\x08, \\x1c-\\x1f ...) visibly."""
    text = "" if text is None else str(text)
    return "".join(
        ch if ch in "\t\n\r" or (0x20 <= ord(ch) <= 0xD7FF) or (0xE000 <= ord(ch) <= 0xFFFD) or ord(ch) >= 0x10000
        else f"\\x{ord(ch):02x}" for ch in text
    )


def _detail(record):
    parts = [record.get("message") or ""]
    classification = record.get("classification")
    if isinstance(classification, dict) and classification.get("name"):
        parts.append(f"root cause: {classification['name']}: {classification.get('description') or ''}")
    if record.get("reproduce"):
        parts.append(f"reproduce: {record['reproduce']}")
    if record.get("replay"):
        parts.append("input: " + json.dumps(record["replay"], ensure_ascii=False))
    return "\n".join(p for p in parts if p)


def junit_xml(results):
    records = results.records
    footer = results.footer or {}
    impl = (results.header or {}).get("implementation") or {}
    root = ET.Element("testsuites", name=f"bleu-oracle check {impl.get('name', '')}".strip())
    suites = {}
    totals = Counter()
    for record in records:
        kind = record.get("kind", "case")
        suite = suites.get(kind)
        if suite is None:
            suite = suites[kind] = ET.SubElement(root, "testsuite", name=f"bleu-oracle.{kind}s")
        case = ET.SubElement(suite, "testcase", classname=f"bleu-oracle.{kind}s", name=_xml_text(record["id"]),
                             time=f"{float(record.get('duration') or 0):.6f}")
        outcome = record["outcome"]
        status = (record.get("baseline") or {}).get("status")
        reason = (record.get("baseline") or {}).get("reason") or ""
        layer = _layer(record)
        label = f"{outcome}{' at ' + layer if layer else ''}"
        if status == "known":
            ET.SubElement(case, "skipped", message=_xml_text(f"known deviation ({label}): {reason}"))
            totals[(kind, "skipped")] += 1
        elif status == "fixed":
            el = ET.SubElement(case, "failure", type="expected-failure-passed",
                               message=_xml_text(f"expected failure passed (baseline: {reason}); remove the entry"))
            el.text = _xml_text(_detail(record))
            totals[(kind, "failures")] += 1
        elif status == "changed":
            el = ET.SubElement(case, "failure", type="baseline-changed",
                               message=_xml_text(f"known deviation changed: now {label}"))
            el.text = _xml_text(_detail(record))
            totals[(kind, "failures")] += 1
        elif outcome == "fail":
            el = ET.SubElement(case, "failure", type=f"fail:{record.get('layer') or 'score'}",
                               message=_xml_text((record.get("message") or "")[:500]))
            el.text = _xml_text(_detail(record))
            totals[(kind, "failures")] += 1
        elif outcome in _ERROR_OUTCOMES:
            el = ET.SubElement(case, "error", type=outcome, message=_xml_text((record.get("message") or "")[:500]))
            el.text = _xml_text(_detail(record))
            totals[(kind, "errors")] += 1
        elif outcome == "not-applicable":
            ET.SubElement(case, "skipped", message=_xml_text(f"not applicable: {record.get('message', '')}"))
            totals[(kind, "skipped")] += 1
        if record.get("stderr"):
            ET.SubElement(case, "system-err").text = _xml_text(record["stderr"][-20000:])
        totals[(kind, "tests")] += 1
    stale = (footer.get("baseline") or {}).get("stale") or []
    if stale:
        suite = suites["baseline"] = ET.SubElement(root, "testsuite", name="bleu-oracle.harness.gate")
        for entry in stale:
            case = ET.SubElement(suite, "testcase", classname="bleu-oracle.harness.gate", name=_xml_text(entry), time="0")
            ET.SubElement(case, "failure", type="stale-baseline-entry",
                          message=_xml_text(f"baseline entry {entry!r} matches no record of this run"))
            totals[("baseline", "failures")] += 1
            totals[("baseline", "tests")] += 1
    for kind, suite in suites.items():
        for name in ("tests", "failures", "errors", "skipped"):
            suite.set(name, str(totals[(kind, name)]))
    for name in ("tests", "failures", "errors", "skipped"):
        root.set(name, str(sum(v for (k, n), v in totals.items() if n == name)))
    ET.indent(root)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(root, encoding="unicode") + "\n"


def badge(results):
    """A shields.io endpoint object (https://shields.io/badges/endpoint-badge) for the run: the judged
    profile and the verdict, green when the gate passed, red when it did not."""
    footer = results.footer or {}
    profile = results.header.get("judged_profile") or "?"
    counts = footer.get("counts") or {}
    deviations = sum(v for k, v in counts.items() if k not in ("pass", "rejected", "not-applicable"))
    known = (footer.get("baseline") or {}).get("known", 0)
    if footer.get("gate") == "pass":
        message = f"conforming ({profile})" + (f", {known} known deviations" if known else "")
        color = "brightgreen" if not known else "green"
    else:
        verdict, _ = _verdict(results)
        message = f"{deviations} deviations ({profile})" if footer.get("exit_code") == 1 else verdict
        color = "red"
    return {"schemaVersion": 1, "label": "BLEU conformance", "message": message, "color": color}


def write_reports(results, *, markdown=None, junit=None, badge_file=None):
    """Write summary.md, junit.xml and a badge (each when given a path) derived from `results` (an events.Results)."""
    written = []
    if markdown is not None:
        written.append(write_atomically(markdown, markdown_summary(results)))
    if junit is not None:
        written.append(write_atomically(junit, junit_xml(results)))
    if badge_file is not None:
        written.append(write_atomically(badge_file, json.dumps(badge(results)) + "\n"))
    return written


def write_derived_reports(report_dir, junit=None, badge_file=None):
    """summary.md (and junit.xml, default DIR/junit.xml, and a badge when asked) from DIR/results.jsonl, when
    the run got as far as writing one; returns the paths written."""
    results_path = Path(report_dir) / "results.jsonl"
    if not results_path.is_file():
        return []
    junit = Path(junit) if junit is not None else Path(report_dir) / "junit.xml"
    return write_reports(read_results(results_path, light=True), markdown=Path(report_dir) / "summary.md", junit=junit,
                         badge_file=badge_file)


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python -m oracle.reports.summaries",
                                     description="Regenerate summary.md and junit.xml from a results.jsonl.")
    parser.add_argument("results", help="a results.jsonl, or the report directory holding one")
    parser.add_argument("--markdown", metavar="FILE", help="default: summary.md next to results.jsonl")
    parser.add_argument("--junit", metavar="FILE", help="default: junit.xml next to results.jsonl")
    args = parser.parse_args(argv)
    results = read_results(args.results)
    directory = results.path.parent
    for path in write_reports(results, markdown=args.markdown or directory / "summary.md",
                              junit=args.junit or directory / "junit.xml"):
        print(path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
