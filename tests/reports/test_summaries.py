"""results.jsonl is the one record; summary.md and junit.xml are derived from it and can be regenerated.

Holds: oracle.reports.summaries, oracle.harness.events, oracle.models.jsonvalues
"""

from __future__ import annotations

import json
import math
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
import yaml
from fakes.harness import check, fake, results

from oracle.harness.events import (
    SCHEMA,
    ResultsFormatError,
    ResultsWriter,
    read_results,
)
from oracle.models.jsonvalues import json_safe
from oracle.models.results import Header, Record
from oracle.reports.summaries import junit_xml, markdown_summary, write_reports
from oracle.textio import read_lines

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def mixed_report(tmp_path_factory):
    """A run with passes, fails, crashes and not-applicable records, and a baseline."""
    base = tmp_path_factory.mktemp("mixed")
    check(base / "first", fake("mutant_ties_longer"), examples=30)
    first = results(base / "first").records
    failing = next(r.id for r in first if r.outcome == "fail")
    passing = next(r.id for r in first if r.outcome == "pass")
    baseline = base / "baseline.yaml"
    baseline.write_text(yaml.safe_dump({"entries": [
        {"id": failing, "outcome": "fail", "reason": "ties are known to go to the longer"},
        {"id": passing, "outcome": "fail", "reason": "was failing once"},
        {"id": "gone-case", "outcome": "fail", "reason": "stale"},
    ]}))
    report = base / "report"
    code = check(report, fake("mutant_ties_longer"), "--baseline", baseline, "--junit", base / "out" / "junit.xml",
                 examples=30)
    return report, base / "out" / "junit.xml", code


def test_results_jsonl_has_a_header_records_and_a_footer(mixed_report):
    report, _, code = mixed_report
    assert code == 1
    lines = [json.loads(line) for line in read_lines(report / "results.jsonl")]
    assert lines[0]["type"] == "header" and lines[-1]["type"] == "footer"
    assert all(line["type"] == "record" for line in lines[1:-1])
    header = lines[0]
    assert header["schema"] == SCHEMA
    assert header["implementation"]["name"] == "fakebleu+ties-longer"
    assert header["capabilities"]["max_order"] == 6
    for key in ("seed", "examples", "rel", "abs", "timeout", "command", "verb"):
        assert key in header["settings"]
    data = results(report)  # what is unset is left out of a line and reads back as its default
    for record in data.records:
        assert record.id and record.kind and record.outcome
        if record.outcome != "not-applicable":
            assert record.request is not None and record.actual is not None
            assert record.expected is not None or record.kind == "metamorphic"  # a relation compares two answers
        if record.outcome == "fail":
            assert record.layer and record.message
    footer = data.footer
    assert sum(footer.counts.values()) == len(lines) - 2
    assert footer.exit_code == 1 and footer.baseline.stale == ("gone-case",)
    assert footer.baseline.known == 1 and footer.baseline.fixed == 1


def test_the_summary_tells_the_story(mixed_report):
    report, _, _ = mixed_report
    text = (report / "summary.md").read_text()
    assert text.startswith("# bleu-oracle check: `fakebleu+ties-longer 0.0` (`python`)")  # outside text: code spans
    assert "**deviations found** (exit 1)" in text
    assert "| fail |" in text and "fail:ref_len" in text
    assert "reproduce:" in text and "bleu-oracle check --command" in text
    assert "stale entry `gone-case`" in text
    assert "## Known deviations (baseline)" in text and "ties are known to go to the longer" in text
    assert "[baseline: fixed]" in text


def test_junit_maps_outcomes(mixed_report):
    report, junit, _ = mixed_report
    root = ET.parse(junit).getroot()
    cases = root.findall(".//testcase")
    data = results(report)
    assert len([c for c in cases if c.get("classname") != "bleu-oracle.harness.gate"]) == len(data.records)
    by_name = {c.get("name"): c for c in cases}
    for record in data.records:
        case = by_name[record.id]
        status = record.baseline.status if record.baseline else None
        if status == "known":
            assert case.find("skipped").get("message").startswith("known deviation")
        elif status == "fixed":
            assert case.find("failure").get("type") == "expected-failure-passed"
        elif record.outcome == "fail":
            assert case.find("failure").get("type") == f"fail:{record.layer}"
        elif record.outcome == "pass":
            assert list(case) == [] or [child.tag for child in case] == ["system-err"]
    stale = by_name["gone-case"]
    assert stale.get("classname") == "bleu-oracle.harness.gate" and stale.find("failure") is not None
    assert int(root.get("tests")) == len(cases)
    assert int(root.get("failures")) == sum(1 for c in cases if c.find("failure") is not None)


def test_reports_regenerate_identically_from_results_jsonl(mixed_report, tmp_path):
    report, junit, _ = mixed_report
    done = subprocess.run([sys.executable, "-m", "oracle.reports.summaries", str(report / "results.jsonl"),
                           "--markdown", str(tmp_path / "s.md"), "--junit", str(tmp_path / "j.xml")],
                          cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "s.md").read_text() == (report / "summary.md").read_text()
    assert (tmp_path / "j.xml").read_text() == junit.read_text()


def test_crash_timeout_and_protocol_errors_are_junit_errors(tmp_path):
    for name, outcome, timeout in (
        ("crash_third", "crash", 5),
        ("hang_seq2", "timeout", 1),
        ("garbage", "protocol-error", 5),
    ):
        report = tmp_path / name
        assert check(report, fake(name), examples=6, timeout=timeout) == 1
        root = ET.parse(report / "junit.xml").getroot()
        types = {e.get("type") for e in root.iter("error")}
        assert outcome in types
        assert int(root.get("errors")) == sum(1 for r in results(report).records if r.outcome == outcome)


def test_not_applicable_is_skipped_in_junit(tmp_path):
    records = [Record(id="c1", kind="case", outcome="not-applicable", message="smoothing 'x' is not among ...")]
    data = _results(records)
    root = ET.fromstring(junit_xml(data))
    assert root.find(".//skipped").get("message").startswith("not applicable")
    assert "## Not applicable" in markdown_summary(data)


def _results(records, footer=None):
    from oracle.harness.events import Results

    return Results(header=Header(suite_version="1", oracle_version="0", settings={"verb": "check"}, started="",
                                 implementation={"name": "x", "version": "1", "language": "c"}),
                   records=records, footer=footer)


def test_junit_shows_an_input_past_its_bound_as_an_excerpt_that_says_so():
    """A failure's input is written into its JUnit text as replayable JSON up to 2,000 characters, a longer one as an
    excerpt saying what it leaves out and where the whole input is (it was the whole JSON up to RECORD_TOKEN_LIMIT,
    20,000 tokens, and past it the size alone: the page took seconds to write; tests/reports/test_inputs.py has the
    excerpt's text)."""
    from oracle.models.protocol import ScoreRequest, Segment

    def failing(name, hypothesis, reference):
        replay = ScoreRequest(level="sentence", weights=(1.0,),
                              segments=(Segment(hypothesis=hypothesis, references=(reference,)),))
        return Record(id=name, kind="example", outcome="fail", message="score differs", replay=replay, duration=0.1)

    # 10,000 hypothesis tokens and 10,001 reference tokens: 20,001 tokens, one past the limit
    records = [failing("short", ("a", "b"), ("a", "c")), failing("long", ("x",) * 10_000, ("x",) * 10_001)]
    root = ET.fromstring(junit_xml(_results(records)).split("\n", 1)[1])
    texts = {case.get("name"): case.find("failure").text for case in root.iter("testcase")}
    assert '"hypothesis": ["a", "b"]' in texts["short"]
    assert ("input (cut at 2,000 characters: 375 of its 20,001 tokens shown (1 segment), 19,626 left out; the whole "
            "input: results.jsonl (record long)): ") in texts["long"]
    assert len(texts["long"]) < 2000 + 300


def test_control_characters_are_escaped_in_junit():
    records = [Record(id="random-0-0", kind="example", outcome="crash", message="bad \x00 byte \x1f",
                      stderr="trace \x1c\x1d\x1e back \ud7ff", duration=0.1)]
    text = junit_xml(_results(records))
    root = ET.fromstring(text.split("\n", 1)[1])
    error = root.find(".//error")
    assert "\\x00" in error.get("message") and "\\x1f" in error.get("message")
    assert "\\x1c" in root.find(".//system-err").text


def test_a_run_cut_short_is_still_readable(tmp_path):
    path = tmp_path / "results.jsonl"
    with ResultsWriter(path) as writer:
        writer.write(Header(suite_version="1", oracle_version="0", settings={"verb": "check"},
                            implementation={"name": "x", "version": "", "language": ""},
                            started="2026-01-01T00:00:00+00:00"))
        writer.write(Record(id="a", kind="case", outcome="pass"))
    data = read_results(path)
    assert data.footer is None and len(data.records) == 1
    assert "incomplete" in markdown_summary(data)
    write_reports(data, markdown=tmp_path / "s.md", junit=tmp_path / "j.xml")
    assert ET.parse(tmp_path / "j.xml").getroot().get("tests") == "1"


def test_read_results_rejects_what_it_cannot_trust(tmp_path):
    path = tmp_path / "results.jsonl"
    path.write_text('{"type": "record", "id": "a", "kind": "case", "outcome": "pass"}\n')
    with pytest.raises(ResultsFormatError, match="no header"):
        read_results(path)
    path.write_text('{"type": "record", "id": "a"}\n')  # every line is checked against its model
    with pytest.raises(ResultsFormatError, match=r"results.jsonl:1: a record line's `kind`: Field required"):
        read_results(path)
    path.write_text('{"type": "header", "schema": "other/9"}\n')
    with pytest.raises(ResultsFormatError, match="schema"):
        read_results(path)
    path.write_text("not json\n")
    with pytest.raises(ResultsFormatError, match="not a JSON line"):
        read_results(path)


def test_json_safe_writes_the_protocols_nan():
    assert json_safe({"a": (1, math.nan, math.inf, -math.inf)}) == {"a": [1, "NaN", "Infinity", "-Infinity"]}
    json.dumps(json_safe({"x": [math.nan]}), allow_nan=False)


def test_the_junit_default_lives_in_the_report_directory(tmp_path):
    report = tmp_path / "report"
    assert check(report, fake("clean"), examples=3) == 0
    root = ET.parse(report / "junit.xml").getroot()
    # 3 examples, a metamorphic relation on the third, then the third's brackets companion (random-0-2~brackets)
    records = results(report).records
    assert [r.kind for r in records] == ["example", "example", "example", "metamorphic", "example"]
    assert records[-1].id == "random-0-2~brackets"
    assert root.get("tests") == "5" and root.get("failures") == "0" and root.get("errors") == "0"
    assert "**conforming** (exit 0)" in (report / "summary.md").read_text()


def test_the_derived_reports_are_the_same_from_a_light_read(tmp_path):
    """check reads results.jsonl light (good records without their inputs) to bound its memory; what it
    derives must be what a full read derives."""
    from oracle.harness.events import read_results
    from oracle.reports.summaries import junit_xml, markdown_summary

    report = tmp_path / "report"
    assert check(report, fake("mutant_ties_longer"), examples=60) == 1
    full, light = read_results(report), read_results(report, light=True)
    assert markdown_summary(full) == markdown_summary(light) and junit_xml(full) == junit_xml(light)
    assert any(r.request is not None for r in full.records if r.outcome == "pass")
    assert not any(r.request is not None for r in light.records if r.outcome == "pass")
    assert [r.id for r in full.records] == [r.id for r in light.records]


def test_the_streamed_reports_equal_those_of_a_whole_read(mixed_report, tmp_path):
    """check derives summary.md and junit.xml streaming results.jsonl (two passes, a record at a time);
    an independent derivation, from every record read into memory, must give the same bytes. The run
    has known, new, fixed and stale baseline entries, fails, passes and not-applicable records."""
    from oracle.reports.summaries import write_derived_reports

    report, _, _ = mixed_report
    streamed = tmp_path / "streamed"
    streamed.mkdir()
    (streamed / "results.jsonl").write_bytes((report / "results.jsonl").read_bytes())
    write_derived_reports(streamed)
    whole = read_results(report)
    assert {r.baseline.status for r in whole.records if r.baseline} >= {"known", "fixed"}
    assert (whole.footer.baseline.stale)
    assert (streamed / "summary.md").read_text() == markdown_summary(whole)
    assert (streamed / "junit.xml").read_text() == junit_xml(whole)
    ET.fromstring((streamed / "junit.xml").read_text())


def test_the_console_counts_do_not_depend_on_how_many_deviations_the_report_keeps(tmp_path, monkeypatch, capsys):
    """The report's tally keeps the first DEVIATIONS_KEPT deviations (and GROUP_INPUTS_KEPT of each group) for the
    console and counts the rest: the counts printed with caps of 2 and 1 are those printed with no cap in effect."""
    from oracle.cli import main
    from oracle.reports import summaries

    def run(name):
        code = main(["check", "--command", f"{sys.executable} {ROOT / 'tests' / 'fakes' / 'mutant_ties_longer.py'}",
                     "--examples", "40", "--report", str(tmp_path / name), "-v"])  # (-v: every input kept)
        lines = capsys.readouterr().out.splitlines()
        inputs = sum(1 for line in lines if line.strip().startswith("input: "))
        counted = [line for line in lines if line.startswith(("FAIL x", "root causes:", "bleu-oracle check:"))]
        return code, inputs, counted

    uncapped = run("uncapped")
    monkeypatch.setattr(summaries, "DEVIATIONS_KEPT", 2)
    monkeypatch.setattr(summaries, "GROUP_INPUTS_KEPT", 1)
    capped = run("capped")
    assert uncapped[0] == capped[0] == 1
    assert any(line.startswith("FAIL x") and line not in ("FAIL x1", "FAIL x2") for line in uncapped[2])
    assert uncapped[1] > capped[1]  # the caps held: fewer inputs kept to print
    assert capped[2] == uncapped[2]


def test_the_narrow_read_and_the_spooled_causes_give_the_reports_of_the_whole_records(tmp_path):
    """reports-cost: a run's reports read each record without the fields no report reads (a metamorphic record's
    original input, and the request of a record that reports a shrunk or replayable input: `for_reports`) and spool
    a classified record's <testcase> without its cause's line, completed once the run's causes are known. The same
    bytes as the reports of the records read whole and kept in memory (`markdown_summary`, `junit_xml`). The record
    with neither a shrunk nor a replayable input is reported by its request, the largest input here: read without
    it, it would be the smallest example of strict-clipping in summary.md (a size of 0); the cause's description
    holds what XML escapes and a line break, and the message a control character."""
    from oracle.escaping import xml_text
    from oracle.models.outcomes import Outcome
    from oracle.models.protocol import ScoreRequest, Segment
    from oracle.models.results import Classification
    from oracle.reports.summaries import _detail, tally, write_derived_reports

    def request(*tokens):
        return ScoreRequest(level="sentence", weights=(1.0,),
                            segments=(Segment(hypothesis=tokens, references=(tokens[:1],)),))

    def failing(name, kind="example", *, cause="strict-clipping", fits=(), **fields):
        classification = Classification(name=cause, fits=fits, description="counts <clipped> & \"strict\"\nby order")
        return Record(id=name, kind=kind, outcome=Outcome.FAIL, layer="score", message=f"{name} \x1b differs <&>",
                      classification=classification, reproduce=f"bleu-oracle check --replay {name}", **fields)

    records = [failing("random-0-0", request=request(*"abcdefghij")),
               failing("random-0-1", cause="case-not-folded", fits=("strict-clipping",), replay=request("a", "b", "c")),
               Record(id="random-0-2", kind="example", outcome=Outcome.PASS, request=request("x")),
               failing("random-0-2~swap", "metamorphic", related=request(*"xyz"), replay=request("z", "y", "x")),
               failing("random-0-3", replay=request("a", "b", "c", "d"))]
    with ResultsWriter(tmp_path / "results.jsonl") as writer:
        writer.write(_results([]).header)
        for one in records:
            writer.write(one)
    write_derived_reports(tmp_path)
    whole = read_results(tmp_path / "results.jsonl")
    assert whole.records == records
    assert (tmp_path / "summary.md").read_text() == markdown_summary(whole)
    assert (tmp_path / "junit.xml").read_text() == junit_xml(whole)
    # each failure's text as the whole record gives it, the run's causes known (`_detail`: no spool)
    run_names = tally(whole.records).root_causes.run_names()
    failures = {case.get("name"): case.find("failure")
                for case in ET.parse(tmp_path / "junit.xml").getroot().iter("testcase")}
    assert {name: element.text for name, element in failures.items() if element is not None} == {
        record.id: xml_text(_detail(record, run_names)) for record in records if not record.good}
    assert "(this input fits case-not-folded as well)" in failures["random-0-1"].text
    assert "- smallest example `random-0-0`" not in markdown_summary(whole)  # (its request: 11 tokens, the others 4)


def test_derived_reports_read_the_stream_once_and_name_each_failure_by_the_whole_runs_cause(tmp_path, monkeypatch):
    """Issue 39: summary.md and junit.xml came from two reads of results.jsonl; now one, each record tallied and its
    <testcase> spooled in the same pass (a classified record's line read again when its suite is written). A
    failure's text names its run-wide root cause, known only after the last record: the first failure below names
    itself case-not-folded and fits strict-clipping as well; the three after it fit strict-clipping alone, so
    strict-clipping explains all four and is the run's one cause (the minimal cover rule,
    tests/diagnose/test_cover.py): its <failure> says "root cause: strict-clipping (this input fits case-not-folded
    as well)", though when it was read no record had named strict-clipping yet."""
    from oracle.harness import events
    from oracle.models.outcomes import Outcome
    from oracle.models.results import Classification
    from oracle.reports.summaries import write_derived_reports

    def failing(index, name, *fits):
        return Record(id=f"random-0-{index}", kind="example", outcome=Outcome.FAIL, layer="score",
                      message=f"failure {index}", classification=Classification(name=name, fits=fits))

    records = [failing(0, "case-not-folded", "strict-clipping"),
               Record(id="random-0-0~swap", kind="metamorphic", outcome=Outcome.PASS),
               Record(id="random-0-1", kind="example", outcome=Outcome.PASS),
               *(failing(index, "strict-clipping") for index in (2, 3, 4))]
    with ResultsWriter(tmp_path / "results.jsonl") as writer:
        writer.write(_results([]).header)
        for one in records:
            writer.write(one)
    from oracle.reports import summaries

    lines = []
    read = events.json_value
    monkeypatch.setattr(events, "json_value", lambda text: lines.append(text) or read(text))
    monkeypatch.setattr(summaries, "json_value", lambda text: lines.append(text) or read(text), raising=False)
    write_derived_reports(tmp_path)
    # the header and each record once: the 4 classified records' <testcase>s were spooled without their cause's line,
    # completed when the suite is written (reports-cost; they were read again before)
    assert len(lines) == 1 + len(records)
    suites = ET.parse(tmp_path / "junit.xml").getroot().findall("testsuite")
    assert [s.get("name") for s in suites] == ["bleu-oracle.examples", "bleu-oracle.metamorphics"]
    cases = suites[0].findall("testcase")
    assert [c.get("name") for c in cases] == ["random-0-0", "random-0-1", "random-0-2", "random-0-3", "random-0-4"]
    first = cases[0].find("failure").text
    assert "root cause: strict-clipping (this input fits case-not-folded as well): " in first
    assert "root cause: strict-clipping: " in cases[2].find("failure").text
    assert cases[1].find("failure") is None and suites[1].find("testcase").get("name") == "random-0-0~swap"
    assert junit_xml(read_results(tmp_path / "results.jsonl")) == (tmp_path / "junit.xml").read_text()
