"""Outside text shown escaped in every output (issue 35, round three; the site part of issue 37).

An implementation's handshake, error messages, answers and stderr, and the tokens of its minimal examples, reach
the console, summary.md, junit.xml and the report site; none of them may carry a raw control character there (a
terminal obeys ESC sequences: clear screen, a window title, an OSC-8 hyperlink whose visible text lies; U+202E
reverses what follows; XML 1.0 cannot hold most C0 controls, so a CI's JUnit reader rejects the whole file).
tests/fakes/hostile_text.py answers with every C0 and C1 control, those sequences, U+202E, U+2028/U+2029 and a
lone surrogate. Expected escapes are written by hand from the rule in oracle/escaping.py's docstring (Python's
own `\\x1b` spelling for controls, `U+202E` for other non-printing code points) and XML 1.0's Char production
(https://www.w3.org/TR/xml/#charsets); the XML reader is the standard library's (expat), which refuses an
ill-formed document.
"""

from __future__ import annotations

import io
import json
import sys
import xml.dom.minidom
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from fakes.harness import fake, run_cli
from hypothesis import given, settings
from hypothesis import strategies as st
from markupsafe import Markup

from oracle.escaping import (
    escape_character,
    html_text,
    json_shown,
    markdown_block,
    markdown_code,
    printable,
    shown,
    xml_text,
)
from oracle.models.protocol import MAX_HANDSHAKE_TEXT, ImplementationInfo
from oracle.models.wire import ProtocolError
from oracle.reports.site.formatting import compact_json, md, sentence_text, visible_token
from oracle.reports.site.pages import environment, escape_html

ROOT = Path(__file__).resolve().parents[2]
#: Every character a test text must not carry raw: those Python does not call printable, but line feed and tab.
ALLOWED_RAW = "\n\t"

C0 = "".join(chr(c) for c in range(0x20)) + "\x7f"
C1 = "".join(chr(c) for c in range(0x80, 0xA0))
ESCAPE_SEQUENCES = "\x1b[2J\x1b]0;title\x07\x1b]8;;https://evil.example/\x1b\\click\x1b]8;;\x1b\\"


def raw_controls(text: str) -> list[str]:
    """The characters of `text` that are not printable (line feed and tab aside), each once, in order."""
    return list(dict.fromkeys(ch for ch in text if not ch.isprintable() and ch not in ALLOWED_RAW))


# -- the functions, one per output --------------------------------------------------------------------------------


def test_the_console_shows_every_control_as_its_escape():
    assert shown("a\x1b[2Jb") == "a\\x1b[2Jb"
    assert shown("\x00\x07\x7f\x85\x9f") == "\\x00\\x07\\x7f\\x85\\x9f"
    assert shown("tab\tline\ncr\r") == "tab\\tline\\ncr\\r"
    assert shown("\u202eevil\u202c \u2028\u2029\u200b\ufeff") == "U+202EevilU+202C U+2028U+2029U+200BU+FEFF"
    assert shown("half \ud800") == "half \\ud800"  # a lone surrogate, as Python's backslashreplace writes it
    assert shown("\U000e0001") == "U+E0001"  # a format character past the BMP (LANGUAGE TAG)
    assert shown("plain é 日本 😀 \\x1b") == "plain é 日本 😀 \\x1b"  # printable text (and a backslash) as it is
    assert shown("one\ntwo\tthree\r", lines=True) == "one\ntwo\tthree\\r"
    assert not raw_controls(shown(C0 + C1 + ESCAPE_SEQUENCES + "\u2028\u2029\u202e\ud800"))


@settings(max_examples=300, deadline=None)
@given(st.lists(st.one_of(st.sampled_from("\n\t\r \x1b\x85\u2028\u202e\ud800"), st.characters()), max_size=60))
def test_a_multi_line_text_keeps_its_line_breaks_and_tabs_and_escapes_every_other_control(characters):
    # the rule of the module's docstring, character by character: printable, or a line break or tab of a multi-line
    # text, shown as it is; anything else as its escape (a text with nothing else to escape comes back unchanged)
    text = "".join(characters)
    by_hand = "".join(ch if ch.isprintable() or ch in "\n\t" else escape_character(ch) for ch in text)
    assert shown(text, lines=True) == by_hand
    assert xml_text(text) == by_hand


def test_printable_is_true_only_for_text_shown_as_it_is():
    assert printable("fakebleu 1.0 (python)") and printable("é 日本")
    assert not printable("a\x1b") and not printable("a\u202e") and not printable("a\u00a0b") and not printable("\n")


def test_json_shown_is_the_same_json_value_with_no_control():
    value = {"tokens": ["a\x7f", "\x85", "\u2028", "\u202e", "\U000e0001", "ok é"], "n": 1}
    text = json_shown(json.dumps(value, ensure_ascii=False))
    assert json.loads(text) == value and not raw_controls(text)
    assert text == ('{"tokens": ["a\\u007f", "\\u0085", "\\u2028", "\\u202e", "\\udb40\\udc01", "ok é"], "n": 1}')
    assert json_shown('["\ud800"]') == '["\\ud800"]'


def test_markdown_code_is_one_code_span_whatever_the_text():
    assert markdown_code("plain") == "`plain`"
    assert markdown_code("a `b` c") == "``a `b` c``"  # a longer fence than any run of backticks inside
    assert markdown_code("`x") == "`` `x ``"  # a backtick at an end: padded, as CommonMark strips one space each side
    assert markdown_code("a\nb\x1b") == "`a\\nb\\x1b`"  # one line: nothing starts a new block
    assert markdown_code("a|b", in_table=True) == "`a\\|b`"  # GFM ends a cell at `|` even inside a code span
    assert markdown_code("") == "` `"


def test_markdown_block_cannot_be_closed_from_inside():
    assert markdown_block("x\n```\n# heading", "sh", indent="  ") == ["  ````sh", "  x", "  ```", "  # heading",
                                                                       "  ````"]
    assert markdown_block("\x1b[2J\r") == ["```", "\\x1b[2J\\r", "```"]


def test_xml_text_is_what_xml_1_0_can_hold_and_a_strict_reader_reads_back():
    hostile = C0 + C1 + ESCAPE_SEQUENCES + "\u2028\u202e\ud800\ufffe\uffff <&>\""
    element = ET.Element("testcase", name=xml_text(hostile))
    element.text = xml_text(hostile)
    document = ET.tostring(element, encoding="unicode")
    parsed = ET.fromstring(document)  # expat: raises on any character XML 1.0 cannot hold
    assert parsed.text == xml_text(hostile) and not raw_controls(parsed.text)
    assert "\\x1b[2J" in parsed.text and "U+FFFE" in parsed.text and "<&>" in parsed.text


def test_html_text_escapes_markup_and_controls():
    assert html_text("<b a='1'>\x1b[2J & \u202e</b>\nnext") == (
        "&lt;b a=&#x27;1&#x27;&gt;\\x1b[2J &amp; U+202E&lt;/b&gt;\nnext")


# -- the handshake, validated at the door -------------------------------------------------------------------------


@pytest.mark.parametrize("field", ["name", "version", "language"])
@pytest.mark.parametrize(("value", "says"), [
    ("x\x1b]0;pwned\x07", "character 2 is \\x1b"),
    ("1.0 \u202egnp.exe", "character 5 is U+202E"),
    ("a\u2028b", "character 2 is U+2028"),
    ("a\x85", "character 2 is \\x85"),
    ("x" * (MAX_HANDSHAKE_TEXT + 1), f"must be at most {MAX_HANDSHAKE_TEXT} characters (got 201)"),
])
def test_a_handshake_text_that_is_not_printable_or_too_long_is_refused(field, value, says):
    info = {"name": "n", "version": "1", "language": "py", field: value}
    with pytest.raises(ProtocolError) as refused:
        ImplementationInfo.from_json(info)
    message = str(refused.value)
    assert f"`{field}`" in message and says in message and not raw_controls(message), message


def test_a_printable_handshake_text_of_the_longest_length_is_accepted_and_one_character_more_is_not():
    longest = "ß日本 é" + "x" * (MAX_HANDSHAKE_TEXT - 5)
    info = ImplementationInfo.from_json({"name": longest, "version": "", "language": "C++ (g++ 13)"})
    assert len(info.name) == MAX_HANDSHAKE_TEXT
    with pytest.raises(ProtocolError, match=f"`name` must be at most {MAX_HANDSHAKE_TEXT} characters"):
        ImplementationInfo.from_json({"name": longest + "x", "version": "", "language": "C++ (g++ 13)"})


@pytest.mark.parametrize(("where", "says"), [
    ("name", "`implementation.name` must be printable text: character 8 is \\x1b"),
    ("version", "`implementation.version` must be printable text: character 5 is U+202E"),
])
def test_a_handshake_with_a_control_character_cannot_be_driven_and_every_report_is_clean(tmp_path, capsys, where,
                                                                                        says):
    report = tmp_path / "report"
    code = run_cli("check", "--command", fake("hostile_text", where), "--no-cases", "--examples", "2",
                   "--report", report)
    out, err = capsys.readouterr()
    refused = [line for line in err.splitlines() if "could not be driven" in line]
    assert code == 3 and len(refused) == 1 and says in refused[0], err
    for name, text in (("stdout", out), ("stderr", err), *_report_texts(report)):
        assert not raw_controls(text), (name, raw_controls(text))
    xml.dom.minidom.parse(str(report / "junit.xml"))


# -- check and fuzz: the console, summary.md and junit.xml --------------------------------------------------------


def _report_texts(report: Path) -> list[tuple[str, str]]:
    return [(name, (report / name).read_text(encoding="utf-8")) for name in ("summary.md", "junit.xml")]


@pytest.fixture(scope="module")
def hostile_check(tmp_path_factory):
    """`check` (cases and random examples, its console not quiet) of the hostile fake, in process."""
    report = tmp_path_factory.mktemp("hostile") / "report"
    capture = pytest.MonkeyPatch()
    out, err = io.StringIO(), io.StringIO()
    capture.setattr(sys, "stdout", out)
    capture.setattr(sys, "stderr", err)
    try:
        code = run_cli("check", "--command", fake("hostile_text"), "--examples", "24", "--report", report)
    finally:
        capture.undo()
    return code, out.getvalue(), err.getvalue(), report


def test_check_of_a_hostile_implementation_prints_no_control_character(hostile_check):
    code, out, err, _ = hostile_check
    assert code == 1, err[-2000:]
    for name, text in (("stdout", out), ("stderr", err)):
        assert not raw_controls(text), (name, raw_controls(text))
    # shown, not dropped: the messages' escape sequences, the override and a minimal example's tokens
    assert "\\x1b[2J\\x1b[Hboom\\x1b]0;pwned\\x07" in out and "U+202Eevil" in out and "\\x9f" in out
    assert '"\\u007f"' in out or '"a\\u0000"' in out, out[-3000:]


def test_check_of_a_hostile_implementation_writes_clean_reports_a_strict_xml_reader_reads(hostile_check):
    _, _, _, report = hostile_check
    for name, text in _report_texts(report):
        assert not raw_controls(text), (name, raw_controls(text))
    summary = (report / "summary.md").read_text(encoding="utf-8")
    assert "\\x1b]8;;https://evil.example/\\x1b\\harmless text" in summary and "U+2028" in summary
    root = ET.parse(report / "junit.xml").getroot()  # expat refuses an ill-formed file
    xml.dom.minidom.parse(str(report / "junit.xml"))
    messages = " ".join(e.get("message", "") + (e.text or "") for e in root.iter() if e.tag in ("failure", "error"))
    assert "\\x1b[2J" in messages and "U+202E" in messages


def test_summary_md_keeps_outside_text_in_code(hostile_check):
    """Each message line of a deviation is one code span, so a `[text](url)` or `<img>` an implementation sends
    does not render."""
    _, _, _, report = hostile_check
    text = (report / "summary.md").read_text(encoding="utf-8")
    lines = text[text.index("## Deviations"):].splitlines()
    messages = [lines[i + 2] for i, line in enumerate(lines) if line.startswith("### ")]  # each after its heading
    assert len(messages) > 10 and all(m.startswith("- `") and m.endswith("`") for m in messages), messages[:3]
    answers = [line for line in text.splitlines() if line.startswith("- smallest example")]
    assert answers and all(line.split(" answers ", 1)[1].startswith("`") for line in answers), answers[:3]


def test_fuzz_of_a_hostile_implementation_prints_no_control_character(tmp_path, capsys):
    report = tmp_path / "fuzz"
    code = run_cli("fuzz", "--command", fake("hostile_text"), "--examples", "16", "--report", report)
    out, err = capsys.readouterr()
    assert code == 1, err[-2000:]
    for name, text in (("stdout", out), ("stderr", err), *_report_texts(report)):
        assert not raw_controls(text), (name, raw_controls(text))
    xml.dom.minidom.parse(str(report / "junit.xml"))


# -- the report site ----------------------------------------------------------------------------------------------


def test_the_site_shows_controls_in_tokens_json_and_text_as_escapes():
    assert visible_token("\x00") == "\\x00" and visible_token("a\u202eb") == "aU+202Eb"
    assert visible_token("a\u3000b") == "a⟨U+3000⟩b" and visible_token("a b") == "a␣b"  # whitespace as before
    assert sentence_text("a \x1b[2J\u2028b") == "a \\x1b[2J⟨U+2028⟩b"
    assert compact_json(["\x7f", "\u2028"]) == '["\\u007f", "\\u2028"]'
    assert md("a|b\x00\nc") == "a\\|b\\\\x00 c"
    assert escape_html("<\x1b>") == Markup("&lt;\\x1b&gt;")
    page = environment().from_string("<p>{{ text }}</p>{{ text|h }}").render(text="<i>\x1b]0;t\x07\u202e")
    assert page == "<p>&lt;i&gt;\\x1b]0;t\\x07U+202E</p>&lt;i&gt;\\x1b]0;t\\x07U+202E"


def test_no_committed_report_page_holds_a_raw_control_character():
    """reports/'s pages (its data files are JSON, whose escapes are the data's own business) and the pages the
    page tests expect."""
    pages = [p for folder in (ROOT / "reports", ROOT / "tests" / "report_data" / "expected") for p in folder.rglob("*")
             if p.is_file() and p.suffix in (".md", ".html") and "data" not in p.relative_to(folder).parts]
    assert len(pages) > 40
    dirty = {str(p.relative_to(ROOT)): raw_controls(p.read_text(encoding="utf-8")) for p in pages}
    assert not {page: found for page, found in dirty.items() if found}


# -- doctor: the user's file names ----------------------------------------------------------------------------------


def test_doctor_shows_a_control_in_a_file_name_as_its_escape(tmp_path, capsys):
    from oracle.cli import main

    hypothesis = tmp_path / "out\x1b]0;title\x07.txt"
    hypothesis.write_text("a b c d\n", encoding="utf-8")
    (tmp_path / "ref.txt").write_text("a b c d\n", encoding="utf-8")
    code = main(["doctor", "--hyp", str(hypothesis), "--ref", str(tmp_path / "ref.txt"), "--report",
                 str(tmp_path / "doctor")])
    out, err = capsys.readouterr()
    assert code == 0 and "out\\x1b]0;title\\x07.txt" in out, out
    for name, text in (("stdout", out), ("stderr", err),
                       ("doctor.md", (tmp_path / "doctor" / "doctor.md").read_text(encoding="utf-8"))):
        assert not raw_controls(text), (name, raw_controls(text))
