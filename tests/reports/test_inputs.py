"""A failing record's input in summary.md, junit.xml and the console: whole up to INPUT_SHOWN_CHARACTERS (2,000)
characters of its JSON, past them an excerpt whose marker says how many tokens it shows of how many and where the whole
input is. The expected texts are written here by hand from the JSON layout (`json.dumps`' separators), never taken
from the code's own output.

Holds: oracle.reports.inputs
"""

from __future__ import annotations

import io
import json
import xml.etree.ElementTree as ET

import pytest

from oracle.escaping import json_shown
from oracle.harness.events import Results, ResultsWriter
from oracle.models.protocol import ScoreRequest, Segment
from oracle.models.results import Footer, Header, Record
from oracle.reports.console import print_check
from oracle.reports.inputs import INPUT_PRINTED_CHARACTERS, INPUT_SHOWN_CHARACTERS, input_shown
from oracle.reports.summaries import DerivedReports, junit_xml, markdown_summary, write_derived_reports

# An input of one sentence, its hypothesis `tokens` and one reference ["x"], as summary.md and junit.xml write it
# (json.dumps' default separators ", " and ": "; the request's fields in its model's order).
HEAD = '{"level": "sentence", "segments": '
TAIL = ', "weights": [1.0], "smoothing": {"method": "none"}, "lowercase": false}'
REPLAY_LINE = "bleu-oracle check --command ./bleu --profile papineni --replay /r/replay/random-0-7.json"


def _request(tokens, reference=("x",)):
    return ScoreRequest(level="sentence", weights=(1.0,), segments=(Segment(hypothesis=tuple(tokens),
                                                                            references=(tuple(reference),)),))


def _compact(text):
    """The protocol's separators (`,`, `:`: the console) in place of json.dumps' defaults (no token here holds one)."""
    return text.replace(", ", ",").replace(": ", ":")


def _whole(tokens):
    """The input's JSON, by hand."""
    return HEAD + '[{"hypothesis": [' + ", ".join(f'"{t}"' for t in tokens) + '], "references": [["x"]]}]' + TAIL


def test_the_bound_is_2000_characters_of_the_json_shown():
    assert INPUT_SHOWN_CHARACTERS == 2000 and INPUT_PRINTED_CHARACTERS == 600
    # "x" tokens, as many as fit (5 characters each after the first: `, "x"`), then one "xy" for an "x" at a time
    # (a character more each) to exactly the bound, then one past it
    tokens = ["x"]
    while len(_whole([*tokens, "x"])) <= INPUT_SHOWN_CHARACTERS:
        tokens.append("x")
    while len(_whole(tokens)) < INPUT_SHOWN_CHARACTERS:
        tokens[tokens.index("x")] = "xy"
    assert len(_whole(tokens)) == INPUT_SHOWN_CHARACTERS
    at_bound = input_shown(_request(tokens), record_id="random-0-7", reproduce=REPLAY_LINE)
    assert at_bound.text == _whole(tokens) and not at_bound.cut and at_bound.note() is None
    tokens[tokens.index("x")] = "xy"
    past = input_shown(_request(tokens), record_id="random-0-7", reproduce=REPLAY_LINE)
    assert past.cut and past.text != _whole(tokens) and len(past.text) <= INPUT_SHOWN_CHARACTERS


def test_an_input_past_the_bound_is_an_excerpt_its_marker_says_what_is_left_out_and_where_the_whole_is():
    """20,001 tokens: the excerpt is the JSON's beginning up to the last whole token that fits in 2,000 characters
    with the request's other fields after " …"; worked out by hand: the head (34 characters), the tail (72), " …"
    (2), then `[{"hypothesis": [` (17) and `"x"` (3), each further token `, "x"` (5)."""
    tokens = ["x"] * 10_000
    request = _request(tokens, ["x"] * 10_001)
    shown = input_shown(request, record_id="random-0-7", reproduce=REPLAY_LINE)
    assert (len(HEAD), len(TAIL)) == (34, 72)
    room = INPUT_SHOWN_CHARACTERS - 34 - 72 - 2
    count = (room - 17 - 3) // 5 + 1  # 375
    assert count == 375
    assert shown.text == HEAD + '[{"hypothesis": [' + ", ".join(['"x"'] * count) + " …" + TAIL
    assert len(shown.text) <= INPUT_SHOWN_CHARACTERS
    assert shown.note() == ("cut at 2,000 characters: 375 of its 20,001 tokens shown (1 segment), 19,626 left out; "
                            "the whole input: /r/replay/random-0-7.json (the reproduction line replays it) and "
                            "results.jsonl (record random-0-7)")
    # the console's compact form (`,` and `:`): `"x"` then `,"x"` (4) each
    compact = input_shown(request, record_id="random-0-7", reproduce=REPLAY_LINE, compact=True)
    head, tail = _compact(HEAD), _compact(TAIL)
    count = (INPUT_SHOWN_CHARACTERS - len(head) - len(tail) - 2 - len('[{"hypothesis":[') - 3) // 4 + 1
    assert compact.text == head + '[{"hypothesis":[' + ",".join(['"x"'] * count) + " …" + tail


def test_the_marker_names_where_the_reproduction_line_reads_the_input():
    request = _request(["x"] * 3000)
    inline = "bleu-oracle check --command ./bleu --profile papineni --replay '{\"level\":\"sentence\"}'"
    said = {line: input_shown(request, record_id="c-1", reproduce=line).note()
            for line in (REPLAY_LINE, inline, "bleu-oracle check --command ./bleu --examples 0 --id c-1", None)}
    assert said[REPLAY_LINE].endswith("the whole input: /r/replay/random-0-7.json (the reproduction line replays it) "
                                      "and results.jsonl (record c-1)")
    assert said[inline].endswith("the whole input: the reproduction line and results.jsonl (record c-1)")
    assert said["bleu-oracle check --command ./bleu --examples 0 --id c-1"].endswith(
        "the whole input: results.jsonl (record c-1)")
    assert said[None].endswith("the whole input: results.jsonl (record c-1)")


@pytest.mark.parametrize("compact", [False, True])
def test_an_excerpt_is_the_beginning_and_the_end_of_the_json_shown(compact):
    """Whatever the input (several segments and references, control characters, U+2028, a text request), the
    excerpt is the beginning of the JSON as json.dumps writes it (each character that is not printable escaped),
    cut after a whole token, then " …", then the end of the JSON after the segments; and it is within the bound."""
    separators = (",", ":") if compact else (", ", ": ")
    odd = ["a\x1bb", "c\u2028", "日本", '"q"', "\\", "é"]
    requests = [
        ScoreRequest(level="corpus", weights=(0.5, 0.5), segments=tuple(
            Segment(hypothesis=tuple(odd * (i + 1)), references=(tuple(odd), tuple(odd * 40))) for i in range(30))),
        ScoreRequest(level="corpus", weights=(1.0,), tokenize="13a", segments=(
            Segment(hypothesis="one two\x07 " * 400, references=("one two " * 300,)),)),
        ScoreRequest(level="sentence", weights=(1.0,), segments=(Segment(hypothesis=("w" * 5000,),
                                                                         references=(("w",),)),)),
    ]
    for request in requests:
        whole = json_shown(json.dumps(request.replay_form(), ensure_ascii=False, separators=separators))
        shown = input_shown(request, record_id="r", reproduce=None, compact=compact)
        assert shown.cut and len(whole) > INPUT_SHOWN_CHARACTERS
        before, cut, after = shown.text.rpartition(" …")
        assert cut and whole.startswith(before) and whole.endswith(after) and after.startswith(separators[0])
        assert len(shown.text) <= INPUT_SHOWN_CHARACTERS


def _failing(record_id, request, reproduce=REPLAY_LINE):
    return Record(id=record_id, kind="example", outcome="fail", layer="score", message="score differs",
                  replay=request, reproduce=reproduce, duration=0.1, baseline={"status": "new"})


def _results(records):
    return Results(header=Header(suite_version="1", oracle_version="0", settings={"verb": "check"}, started="",
                                 implementation={"name": "x", "version": "1", "language": "c"}), records=records)


def test_summary_md_and_junit_xml_show_a_long_input_cut_with_its_marker_and_a_short_one_whole():
    short, long = _request(["a", "b"]), _request(["x"] * 10_000, ["x"] * 10_001)
    records = [_failing("random-0-1", short), _failing("random-0-7", long)]
    summary = markdown_summary(_results(records))
    marker = ("cut at 2,000 characters: 375 of its 20,001 tokens shown (1 segment), 19,626 left out; the whole "
              "input: `/r/replay/random-0-7.json` (the reproduction line replays it) and results.jsonl (record "
              "`random-0-7`)")
    lines = summary.splitlines()
    at = lines.index(f"- input ({marker}):")
    assert lines[at + 2] == "  ```json"
    assert lines[at + 3].startswith("  " + HEAD) and lines[at + 3].endswith(" …" + TAIL)
    assert "  " + _whole(["a", "b"]) in lines
    assert len(max(lines, key=len)) < INPUT_SHOWN_CHARACTERS + 400
    root = ET.fromstring(junit_xml(_results(records)).split("\n", 1)[1])  # valid XML
    texts = {case.get("name"): case.find("failure").text for case in root.iter("testcase")}
    assert f"input: {_whole(['a', 'b'])}" in texts["random-0-1"]
    assert f"input ({marker.replace('`', '')}): {HEAD}" in texts["random-0-7"]
    assert texts["random-0-7"].endswith(" …" + TAIL) and len(texts["random-0-7"]) < INPUT_SHOWN_CHARACTERS + 600


def test_the_console_prints_600_characters_of_an_unshrunk_input_and_2000_with_v(tmp_path):
    records = [_failing("random-0-7", _request(["x"] * 10_000, ["x"] * 10_001))]
    with ResultsWriter(tmp_path / "results.jsonl") as writer:
        writer.write(Header(suite_version="1", oracle_version="0", settings={"verb": "check"}, started="",
                            judged_profile="papineni", implementation={"name": "x", "version": "1", "language": "c"}))
        for record in records:
            writer.write(record)
        writer.write(Footer(counts={"fail": 1}, baseline={"new": 1}, gate="fail", exit_code=1, restarts=0,
                            duration=0.0, finished=""))
    derived = DerivedReports()
    write_derived_reports(tmp_path, into=derived)
    printed = {}
    for verbose in (False, True):
        out = io.StringIO()
        print_check(out, derived, report_dir=tmp_path, junit=tmp_path / "junit.xml", verbose=verbose)
        printed[verbose] = next(line for line in out.getvalue().splitlines() if line.startswith("    input"))
    head, tail = _compact(HEAD), _compact(TAIL)
    for verbose, bound in ((False, 600), (True, 2000)):
        note, _, text = printed[verbose].partition("): ")
        count = (bound - len(head) - len(tail) - 2 - len('[{"hypothesis":[') - 3) // 4 + 1
        assert text == head + '[{"hypothesis":[' + ",".join(['"x"'] * count) + " …" + tail
        assert note == (f"    input (cut at {bound:,} characters: {count} of its 20,001 tokens shown (1 segment), "
                        f"{20_001 - count:,} left out; the whole input: /r/replay/random-0-7.json (the reproduction "
                        "line replays it) and results.jsonl (record random-0-7)"
                        + ("" if verbose else "; -v prints more"))


def test_where_the_other_fields_alone_pass_half_the_bound_the_text_is_cut_by_characters_and_says_so():
    """At a bound of 100 characters the fields around the segments (106 of them) leave no room for a token: the JSON
    is cut by characters, and the marker counts characters."""
    request = _request(["a", "b"])
    whole = _whole(["a", "b"])
    shown = input_shown(request, record_id="random-0-1", reproduce=None, limit=100)
    assert shown.text == whole[:98] + " …"
    assert shown.note() == (f"cut at 100 characters: the first 98 of its {len(whole)} characters shown; the whole "
                            "input: results.jsonl (record random-0-1)")


def test_two_long_inputs_alike_in_their_excerpts_are_told_apart_and_both_printed(tmp_path):
    """The console prints each distinct input once; two inputs cut alike (the same first 2,000 characters, the same
    size) that differ past the cut are two inputs, not one (their excerpts alone cannot tell them apart)."""
    first, second = _request(["x"] * 10_000, ["x"] * 10_001), _request(["x"] * 10_000, ["x"] * 10_000 + ["y"])
    with ResultsWriter(tmp_path / "results.jsonl") as writer:
        writer.write(Header(suite_version="1", oracle_version="0", settings={"verb": "check"}, started="",
                            judged_profile="papineni", implementation={"name": "x", "version": "1", "language": "c"}))
        writer.write(_failing("random-0-7", first))
        writer.write(_failing("random-0-8", second))
        writer.write(_failing("random-0-9", first))
        writer.write(Footer(counts={"fail": 3}, baseline={"new": 3}, gate="fail", exit_code=1, restarts=0,
                            duration=0.0, finished=""))
    derived = DerivedReports()
    write_derived_reports(tmp_path, into=derived)
    out = io.StringIO()
    print_check(out, derived, report_dir=tmp_path, junit=tmp_path / "junit.xml", verbose=True)
    printed = [line for line in out.getvalue().splitlines() if line.startswith("    input")]
    assert len(printed) == 2 and printed[0].partition("): ")[2] == printed[1].partition("): ")[2]
    assert "(record random-0-7)" in printed[0] and "(record random-0-8)" in printed[1]
