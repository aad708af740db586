"""doctor names each character other than "\\n" at which `str.splitlines()` ends a line, found inside a line: its
file, line and column, its name (never the raw character), how many lines such a reader reads, and the score that
reader gets, measured. Expected values: the names from Python's documentation of str.splitlines and Unicode's
NameAliases.txt, the line counts from Python's own splitlines on the file's text, the scores from sacrebleu.

Holds: oracle.doctor.layout, oracle.doctor.effects, oracle.doctor.rawtext
"""

from __future__ import annotations

import io
import json
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path

import pytest

from oracle.cli import main
from oracle.doctor import diagnose_files

#: The line boundaries besides "\n" that Python's documentation of str.splitlines lists ("\r\n" aside), named as
#: Unicode names them (the controls by their NameAliases.txt alias and abbreviation).
DOCUMENTED = {
    "\r": "U+000D CARRIAGE RETURN (CR)",
    "\x0b": "U+000B LINE TABULATION (VT)",
    "\x0c": "U+000C FORM FEED (FF)",
    "\x1c": "U+001C FILE SEPARATOR (FS)",
    "\x1d": "U+001D GROUP SEPARATOR (GS)",
    "\x1e": "U+001E RECORD SEPARATOR (RS)",
    "\x85": "U+0085 NEXT LINE (NEL)",
    "\u2028": "U+2028 LINE SEPARATOR",
    "\u2029": "U+2029 PARAGRAPH SEPARATOR",
}
HYP = ["the quick brown fox jumps over the lazy dog today", "a small dog ran quickly in the green park",
       "it rained all day long in the city", "the children played in the garden all afternoon"]
REF = ["the quick brown fox jumped over the lazy dog today", "a small dog ran fast in the green park",
       "it rained all day in the city", "the children played in the garden all afternoon"]
#: Line 2 of HYP with `character` in place of the space after "a small dog" (11 characters): at column 12.
LINE, COLUMN = 2, 12


def _with(character: str) -> list:
    lines = list(HYP)
    lines[LINE - 1] = lines[LINE - 1][: COLUMN - 1] + character + lines[LINE - 1][COLUMN:]
    return lines


def _write(path: Path, lines: list, end: str = "\n") -> str:
    path.write_bytes("".join(line + end for line in lines).encode("utf-8"))  # bytes: no newline translation
    return str(path)


def _lines_read_by_splitlines(path: str) -> list:
    with open(path, encoding="utf-8", newline="") as handle:
        return handle.read().splitlines()


def _separator_findings(report) -> list:
    return [f for f in report.layout if f.kind == "line-separator"]


def test_a_line_separator_inside_line_2_is_named_with_its_file_line_and_column(tmp_path):
    hyp = _write(tmp_path / "hyp.txt", _with("\u2028"))
    ref = _write(tmp_path / "ref.txt", REF)
    read_by_splitlines = _lines_read_by_splitlines(hyp)
    assert len(read_by_splitlines) == len(HYP) + 1
    (finding,) = _separator_findings(diagnose_files(hyp, [ref]))
    assert [(w.file, w.line, w.column) for w in finding.where] == [(hyp, LINE, COLUMN)]
    assert finding.severity == "warning" and finding.count == 1
    assert "U+2028 LINE SEPARATOR" in finding.message and f"line {LINE}, column {COLUMN}" in finding.message
    assert f"reads {hyp} as {len(read_by_splitlines)} lines, not {len(HYP)}" in finding.message
    # the effect: the files as sacrebleu reads them ("\n" only), then as a str.splitlines() reader pairs them
    sacrebleu = pytest.importorskip("sacrebleu")
    assert finding.effect is not None and finding.effect.reading.startswith("sacrebleu, tok 13a, mixed case")
    as_here = sacrebleu.corpus_bleu(_with("\u2028"), [REF]).score
    as_split = sacrebleu.corpus_bleu(read_by_splitlines[: len(REF)], [REF]).score
    assert abs(finding.effect.before - as_here) <= 1e-9 and abs(finding.effect.after - as_split) <= 1e-9
    assert finding.effect.after < finding.effect.before - 10  # the lines after it paired with other references


def test_the_output_names_the_place_and_never_prints_the_character(tmp_path):
    hyp = _write(tmp_path / "hyp.txt", _with("\u2028"))
    ref = _write(tmp_path / "ref.txt", REF)
    for more in ([], ["--json"]):
        out, err = io.StringIO(), io.StringIO()
        with redirect_stdout(out), redirect_stderr(err):
            assert main(["doctor", "--hyp", hyp, "--ref", ref, "-q", *more]) == 0
        text = out.getvalue()
        assert "\u2028" not in text and "U+2028 LINE SEPARATOR" in text
        if more:
            (finding,) = [f for f in json.loads(text)["layout"] if f["kind"] == "line-separator"]
            assert finding["where"] == [{"file": hyp, "line": LINE, "column": COLUMN}]
        else:
            assert f"{hyp}:{LINE}:{COLUMN}" in text


@pytest.mark.parametrize("character", list(DOCUMENTED), ids=[name.split()[0] for name in DOCUMENTED.values()])
def test_each_character_splitlines_ends_a_line_at_is_named(tmp_path, character):
    hyp = _write(tmp_path / "hyp.txt", _with(character))
    assert len(_lines_read_by_splitlines(hyp)) == len(HYP) + 1  # Python agrees with its documentation
    (finding,) = _separator_findings(diagnose_files(hyp, [_write(tmp_path / "ref.txt", REF)]))
    assert DOCUMENTED[character] in finding.message
    assert [(w.line, w.column) for w in finding.where] == [(LINE, COLUMN)]
    assert f"as {len(HYP) + 1} lines, not {len(HYP)}" in finding.message
    assert finding.effect is not None


def test_several_separators_count_every_line_they_add(tmp_path):
    lines = _with("\x0c")
    lines[3] = lines[3].replace(" ", "\x0c", 2)  # two more on line 4, at columns 4 and 13
    hyp = _write(tmp_path / "hyp.txt", lines, end="\r\n")  # CR LF line ends: their CRs end no line
    read = len(_lines_read_by_splitlines(hyp))
    assert read == len(HYP) + 3
    (finding,) = _separator_findings(diagnose_files(hyp, [_write(tmp_path / "ref.txt", REF)]))
    assert [(w.line, w.column) for w in finding.where] == [(2, COLUMN), (4, 4)]
    assert finding.count == 2 and "(3 in all;" in finding.message and f"as {read} lines" in finding.message


def test_clean_files_crlf_and_a_separator_ending_the_file_have_no_such_finding(tmp_path):
    ref = _write(tmp_path / "ref.txt", REF)
    assert diagnose_files(_write(tmp_path / "hyp.txt", HYP), [ref]).layout == []
    crlf = diagnose_files(_write(tmp_path / "crlf.txt", HYP, end="\r\n"), [ref])
    assert [f.kind for f in crlf.layout] == ["crlf"]
    # the last line ended by U+2028 instead of "\n": str.splitlines() reads as many lines as there are
    ended = tmp_path / "ended.txt"
    ended.write_bytes(("\n".join(HYP) + "\u2028").encode("utf-8"))
    assert len(_lines_read_by_splitlines(str(ended))) == len(HYP)
    assert _separator_findings(diagnose_files(str(ended), [ref])) == []
