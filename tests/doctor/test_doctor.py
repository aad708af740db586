"""`bleu-oracle doctor` as a command and a library on small files whose scores are derived by hand: the
exit codes (0 explained, 1 not, 2 bad input with one line), --json against its committed schema, --report,
signatures read back, the ranking, the nearest readings and what they would need, bounded reading.

Holds: oracle.commands.doctor, oracle.doctor.diagnosis, oracle.doctor.model, oracle.doctor.readings,
    oracle.doctor.search, oracle.doctor.signatures, oracle.doctor.render, oracle.doctor.rawtext, oracle.textio
"""

from __future__ import annotations

import io
import json
import math
import re
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path

import pytest
from jsonschema import Draft202012Validator

from oracle.cli import main
from oracle.doctor import diagnose_files, model
from oracle.doctor.readings import Reading
from oracle.doctor.search import parse_number
from oracle.doctor.signatures import parse_signature
from oracle.formulas.conventions import Smoothing
from oracle.formulas.errors import BleuValueError
from oracle.textio import LINE_LIMIT

#: "the cat sat on the mat" against "the cat is on the mat": matches 5/6, 3/5, 1/4, 0/3, c = r = 6. Unsmoothed
#: BLEU-4 is 0; with sacrebleu's exp smoothing the 4-gram precision is 1/(2*3), so BLEU = (5/6 * 3/5 * 1/4 *
#: 1/6)^(1/4) = (1/48)^(1/4) = 0.379917842...
SMOOTHED = (1 / 48) ** 0.25


def _files(tmp_path: Path, hyp: list, *refs: list) -> list:
    paths = []
    for name, lines in (("hyp.txt", hyp), *((f"ref{k}.txt", r) for k, r in enumerate(refs))):
        (tmp_path / name).write_text("".join(line + "\n" for line in lines), encoding="utf-8")
        paths.append(str(tmp_path / name))
    return paths


def _run(argv: list) -> tuple:
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        code = main(argv)
    return code, out.getvalue(), err.getvalue()


@pytest.fixture
def cat(tmp_path):
    return _files(tmp_path, ["the cat sat on the mat"], ["the cat is on the mat"])


def test_the_committed_schema_is_the_generated_one():
    assert model.SCHEMA_PATH.read_text(encoding="utf-8") == model.render_schema(), "run `python -m oracle.doctor.model`"
    Draft202012Validator.check_schema(model.json_schema())


def test_a_number_derived_by_hand_is_explained_and_exits_0(cat):
    code, out, _ = _run(["doctor", "--hyp", cat[0], "--ref", cat[1], "--number", f"{SMOOTHED * 100:.2f}", "--json"])
    report = json.loads(out)
    Draft202012Validator(model.json_schema()).validate(report)
    assert code == 0 and report["exit_code"] == 0
    number = report["numbers"][0]
    assert number["given"] == "37.99" and number["half_unit"] == pytest.approx(0.005)
    best = number["explanations"][0]
    # a named profile as it stands comes first, and its own tokenizer before another
    assert (best["profile"], best["tokenize"], best["lowercase"], best["conventions"]) == (
        "sacrebleu",
        "13a",
        False,
        {},
    )
    assert abs(best["score"] - SMOOTHED * 100) <= 1e-12
    # most plausible first: departures from a tool's defaults (its tokenizer, its case, each convention changed)
    # never decrease down the list
    departures = [e["departures"] for e in number["explanations"]]
    assert departures == sorted(departures) and departures[0] == 0
    for e in number["explanations"]:  # (the profiles' tokenizers, as `bleu-oracle profiles` documents them)
        tokenizer = "13a" if e["profile"] in ("sacrebleu", "mteval", "multi-bleu-detok") else "none"
        other_tokenizer, other_case = e["tokenize"] != tokenizer, e["lowercase"]
        # a word split goes with another tokenizer, a case folding with lowercasing: one departure each
        changes = [name for name in e["conventions"]
                   if not ((name == "token_split" and other_tokenizer) or (name == "case_fold" and other_case))]
        assert e["departures"] == len(changes) + other_tokenizer + other_case, e
    # the readings table: every profile x tokenizer x case, both scales, each with a signature
    assert len(report["readings"]) == 9 * 4 * 2  # 9 profiles, 4 tokenizers, case kept or folded
    papineni = next(
        r for r in report["readings"] if (r["profile"], r["tokenize"], r["lowercase"]) == ("papineni", "none", False)
    )
    assert papineni["score"] == 0 and papineni["signature"].startswith("profile:papineni|nrefs:1|case:mixed|tok:none|")
    assert all(abs(r["score_100"] - 100 * r["score"]) <= 1e-12 for r in report["readings"])


def test_a_number_no_reading_gives_exits_1_with_the_nearest_and_what_they_would_need(tmp_path):
    """'a b c d e f' against 'a b c d e f g h': every precision 1, c = 6, r = 8, BLEU = e^(1 - 8/6) = 0.7165 under
    every reading. 84.65 is e^(1 - 7/6): a reference length of 7 would give it."""
    paths = _files(tmp_path, ["a b c d e f"], ["a b c d e f g h"])
    code, out, _ = _run(["doctor", "--hyp", paths[0], "--ref", paths[1], "--number", "84.65", "--json"])
    assert code == 1
    number = json.loads(out)["numbers"][0]
    assert not number["explained"] and number["explanations"] == []
    plain = next(n for n in number["nearest"] if not n["conventions"])
    assert abs(plain["score"] - 100 * math.exp(1 - 8 / 6)) <= 1e-9
    need = next(n for n in plain["needs"] if n["statistic"] == "ref_len")
    assert (need["current"], need["needed"], need["reproduces"]) == (8, 7, True)


@pytest.mark.parametrize("argv, words", [
    (["--number", "abc"], "--number abc"),
    (["--number", "120"], "between 0 and 1"),
    (["--number", "nan"], "finite"),
    (["--signature", "nrefs:1|tok:zh|smooth:exp"], "tokenizer `zh`"),
    (["--signature", "nonsense"], "NAME:VALUE"),
    (["--signature", "profile:nope|tok:13a"], "profile `nope`"),
])
def test_bad_arguments_exit_2_with_one_line(cat, argv, words):
    code, out, err = _run(["doctor", "--hyp", cat[0], "--ref", cat[1], *argv])
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and words in err and "Traceback" not in err


def test_unreadable_input_exits_2_naming_the_file(tmp_path, cat):
    for hyp, words in ((str(tmp_path / "missing.txt"), "missing.txt: cannot read it"),
                       (str(tmp_path), "a directory"),
                       ("-", "not standard input")):
        code, _, err = _run(["doctor", "--hyp", hyp, "--ref", cat[1]])
        assert code == 2 and err.count("\n") == 1 and words in err, err


def test_a_line_past_the_limit_is_refused_not_read_whole(tmp_path, cat):
    huge = tmp_path / "huge.txt"
    with open(huge, "wb") as out:
        out.write(b"ok\n")
        out.write(b"x" * (LINE_LIMIT + 10) + b"\n")
    code, _, err = _run(["doctor", "--hyp", str(huge), "--ref", cat[1]])
    assert code == 2 and f"huge.txt:2: a line longer than {LINE_LIMIT} bytes" in err


def test_report_writes_doctor_md_and_doctor_json(tmp_path, cat):
    target = tmp_path / "out"
    target.mkdir()
    (target / "notes.txt").write_text("mine", encoding="utf-8")  # a file of the user's: left alone
    code, out, _ = _run(["doctor", "--hyp", cat[0], "--ref", cat[1], "--number", "37.99", "--number", "0",
                         "--report", str(target)])
    assert (target / "notes.txt").read_text(encoding="utf-8") == "mine"
    assert code == 0 and "Readings: BLEU on the 0-100 scale" in out and "Difference 37.99 -> 0" in out
    written = json.loads((target / "doctor.json").read_text(encoding="utf-8"))
    Draft202012Validator(model.json_schema()).validate(written)
    assert [n["given"] for n in written["numbers"]] == ["37.99", "0"]
    markdown = (target / "doctor.md").read_text(encoding="utf-8")
    assert "## Readings (BLEU, 0-100)" in markdown and "## Difference 37.99 -> 0" in markdown


def test_two_numbers_are_joined_by_a_waterfall_that_adds_up(cat):
    """37.99 (sacrebleu, smoothed) and 0 (papineni: no 4-gram matches): the smoothing step does it all."""
    report = diagnose_files(cat[0], [cat[1]], numbers=["37.99", "0"])
    difference = report.differences[0]
    assert [s.step for s in difference.steps if s.delta] == ["smoothing"]
    assert abs(sum(s.delta for s in difference.steps) - difference.computed) <= 1e-12
    assert abs(difference.computed + SMOOTHED * 100) <= 1e-9
    assert difference.steps[[s.step for s in difference.steps].index("smoothing")].share == pytest.approx(1.0)


def test_parse_number_keeps_the_printed_digits():
    assert str(parse_number("26.65").half_unit) == "0.005" and str(parse_number("0.2665").half_unit) == "0.00005"
    assert float(parse_number("27").half_unit) == 0.5
    assert parse_number("0.2665").scales == ("0-1", "0-100") and parse_number("26.65").scales == ("0-100",)
    with pytest.raises(BleuValueError, match="--number -1"):
        parse_number("-1")


@pytest.mark.parametrize("text, reading, references", [
    ("nrefs:1|case:mixed|eff:no|tok:13a|smooth:exp|version:2.6.0", Reading("sacrebleu", "13a", False), 1),
    ("#:2|c:lc|e:yes|tok:intl|s:floor[0.10]|v:2.6.0",
     Reading("sacrebleu", "intl", True, (("smoothing", Smoothing("floor", value="0.1")), ("empty_order", "skip"))), 2),
    ("BLEU+case.mixed+numrefs.1+smooth.none+tok.char+version.1.4.14",
     Reading("sacrebleu", "char", False, (("smoothing", Smoothing("none")),)), 1),
    ("BLEU|nrefs:1|case:mixed|eff:no|tok:none|smooth:add-k[1.00]|version:2.6.0",
     Reading("sacrebleu", "none", False, (("smoothing", Smoothing("add-k", k=1)),)), 1),
    ("profile:mteval|nrefs:1|case:lc-ascii|tok:13a|split:white-space|smooth:exp|weights:0.25,0.25,0.25,0.25|"
     "version:bleu-oracle-0.1.0", Reading("mteval", "13a", True), 1),
])
def test_signatures_name_their_reading(text, reading, references):
    parsed = parse_signature(text)
    assert parsed.reading == reading and parsed.references == references


def test_a_readings_own_signature_reads_back_as_itself():
    reading = Reading("nltk", "intl", True, (("case_fold", "ascii"), ("smoothing", Smoothing("chen-cherry-1")),
                                             ("segment_totals_floor", 1), ("aggregation", "sentence-mean")))
    assert parse_signature(reading.signature(3)).reading == reading
    assert parse_signature(reading.signature(3)).references == 3


def test_a_signature_with_another_nrefs_says_so(cat):
    report = diagnose_files(cat[0], [cat[1]], signatures=["nrefs:4|case:mixed|eff:no|tok:13a|smooth:exp|version:2.6.0"])
    signature = report.signatures[0]
    assert abs(signature.reading.score - SMOOTHED * 100) <= 1e-9
    assert any("nrefs:4" in note for note in signature.notes)


def test_sentence_level_readings_are_left_out_past_the_limit(tmp_path):
    paths = _files(tmp_path, ["a b c d", "e f g h", "a b"], ["a b c d", "e f g x", "a b"])
    report = diagnose_files(paths[0], paths[1:], numbers=["50"], sentence_limit=2)
    assert any("sentence" in note for note in report.notes)
    explained = [e for n in report.numbers for e in n.explanations + n.nearest]
    assert all(e.aggregation == "corpus" for e in explained)


def test_a_report_path_that_is_a_file_exits_2_before_reading(tmp_path, cat):
    blocker = tmp_path / "out"
    blocker.write_text("not a directory", encoding="utf-8")
    code, out, err = _run(["doctor", "--hyp", cat[0], "--ref", cat[1], "--report", str(blocker)])
    assert code == 2 and out == "" and "a file is in the way" in err and err.count("\n") == 1
    assert blocker.read_text(encoding="utf-8") == "not a directory"


def test_files_with_nothing_to_score_still_give_a_valid_report(tmp_path):
    """Empty lines only: papineni's BLEU is undefined (0/0, NaN: null in JSON), nltk's is 0; the number is
    explained, and the empty lines are an error-level finding (exit 1 under the default --fail-on error). An empty
    file: no segment at all, the number unexplained (exit 1)."""
    paths = _files(tmp_path, ["", ""], ["", ""])
    code, out, _ = _run(["doctor", "--hyp", paths[0], "--ref", paths[1], "--number", "0", "--json"])
    report = json.loads(out)
    Draft202012Validator(model.json_schema()).validate(report)
    scores = {(r["profile"], r["tokenize"], r["lowercase"]): r["score"] for r in report["readings"]}
    assert scores[("papineni", "none", False)] is None and scores[("nltk", "none", False)] == 0
    assert code == 1 and report["numbers"][0]["explained"] and {f["kind"] for f in report["layout"]} == {"empty-lines"}
    (tmp_path / "empty.txt").write_bytes(b"")
    code, out, _ = _run(["doctor", "--hyp", str(tmp_path / "empty.txt"), "--ref", paths[1], "--number", "0", "--json"])
    report = json.loads(out)
    Draft202012Validator(model.json_schema()).validate(report)
    assert code == 1 and report["segments"] == 0 and report["notes"] and report["readings"] == []


def _findings_files(tmp_path: Path, kind: str) -> list:
    """Files whose only layout finding is of one severity: line counts that differ (error), a reference given
    twice (warning), CR LF line ends (note)."""
    if kind == "error":
        return _files(tmp_path, ["a b c d e", "f g h i j"], ["a b c d e", "f g h i j", "k l m"])
    if kind == "warning":
        return _files(tmp_path, ["a b c d e"], ["a b c d e"], ["a b c d e"])
    (tmp_path / "hyp.txt").write_bytes(b"a b c d e\r\n")
    (tmp_path / "ref0.txt").write_bytes(b"a b c d e\r\n")
    return [str(tmp_path / "hyp.txt"), str(tmp_path / "ref0.txt")]


@pytest.mark.parametrize("severity, expected", [
    # --fail-on:  (default, error, warning, never)
    ("error", (1, 1, 1, 0)),
    ("warning", (0, 0, 1, 0)),
    ("note", (0, 0, 0, 0)),
])
def test_fail_on_makes_the_exit_code_follow_the_file_findings(tmp_path, severity, expected):
    """An error-level finding exits 1 by default (CI can gate on linting its files), a warning under
    --fail-on warning, nothing under --fail-on never; a note never does."""
    paths = _findings_files(tmp_path, severity)
    refs = [arg for path in paths[1:] for arg in ("--ref", path)]
    for fail_on, want in zip((None, "error", "warning", "never"), expected, strict=True):
        option = [] if fail_on is None else ["--fail-on", fail_on]
        code, out, _ = _run(["doctor", "--hyp", paths[0], *refs, "-q", "--json", *option])
        report = json.loads(out)
        assert {f["severity"] for f in report["layout"]} == {severity}, report["layout"]
        assert (code, report["exit_code"], report["fail_on"]) == (want, want, fail_on or "error"), fail_on
        code, out, _ = _run(["doctor", "--hyp", paths[0], *refs, "-q", *option])
        assert code == want and ("Exit 1: 1 layout finding at --fail-on" in out) == bool(want), out


def test_fail_on_never_leaves_an_unexplained_number_failing(tmp_path):
    paths = _findings_files(tmp_path, "error")
    code, _, _ = _run(["doctor", "--hyp", paths[0], "--ref", paths[1], "--number", "12.34", "--fail-on", "never"])
    assert code == 1
    err = io.StringIO()
    with redirect_stderr(err), pytest.raises(SystemExit) as stopped:
        main(["doctor", "--hyp", paths[0], "--ref", paths[1], "--fail-on", "sometimes"])
    assert stopped.value.code == 2 and err.getvalue().count("\n") == 1 and "--fail-on" in err.getvalue()


def test_the_count_of_readings_adds_up_to_what_is_listed_and_what_is_not(cat):
    """'0' on the cat files: every reading without smoothing gives 0 (540 readings, more than the 50 listed).
    The lines shown, those -v adds and those not listed add up to the count the header gives."""
    report = json.loads(_run(["doctor", "--hyp", cat[0], "--ref", cat[1], "--number", "0", "--json"])[1])
    number = report["numbers"][0]
    total, listed = number["explanation_count"], len(number["explanations"])
    assert total > listed == 50
    for verbose in ([], ["-v"]):
        _, out, _ = _run(["doctor", "--hyp", cat[0], "--ref", cat[1], "--number", "0", "-q", *verbose])
        lines = out.splitlines()
        head = next(i for i, line in enumerate(lines) if line.startswith("Number 0 "))
        assert f": {total} readings reproduce it" in lines[head]
        rows = [line for line in lines[head + 1:] if re.match(r"\s+\d+\. ", line)]
        # a line holds one reading, or the profiles that compute it alike: "(k readings)"
        on_rows = sum(int(m.group(1)) if (m := re.search(r"\((\d+) readings\)", row)) else 1 for row in rows)
        counts = re.search(r"(\d+) of the (\d+) readings are on these (\d+) lines?(?:; (\d+) more on (\d+) more lines? "
                           r"with -v)?(?:; (\d+) more are not listed)?", out)
        assert counts, out
        on_lines, of, line_count, more, more_lines, unlisted = (int(g or 0) for g in counts.groups())
        assert (on_lines, of, line_count) == (on_rows, total, len(rows))
        assert on_lines + more + unlisted == total and on_lines + more == listed
        assert bool(verbose) == (more == 0)


def _columns(line: str) -> list:
    """The (start, end) of each cell of a table line: cells are runs of text without two spaces in a row."""
    return [(m.start(), m.end()) for m in re.finditer(r"\S+(?: \S+)*", line)]


def test_the_readings_table_lines_up_whatever_the_longest_profile_name(cat):
    """multi-bleu-detok (16 characters) overflowed the 15 the name column had: each column's width comes from its
    cells, names left-aligned, numbers right-aligned under their headers."""
    _, out, _ = _run(["doctor", "--hyp", cat[0], "--ref", cat[1]])
    lines = out.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("Readings:")) + 1
    table = lines[start:start + 1 + 9]
    assert table[-1].split()[0] == "tensorflow-nmt" and any(line.split()[0] == "multi-bleu-detok" for line in table)
    header, rows = _columns(table[0]), [_columns(line) for line in table[1:]]
    assert len(header) == 8 and all(len(row) == 9 for row in rows), table
    names = {row[0][0] for row in rows}
    ends = {tuple(end for _, end in row[1:]) for row in rows}
    assert names == {2} and ends == {tuple(end for _, end in header)}, table
    # each column's box starts where its widest cell does: the two spaces before it, the separator, are at the
    # same offsets on every line (the header's too)
    cells = [header, *(row[1:] for row in rows)]
    for k in range(8):
        box = min(line_cells[k][0] for line_cells in cells)
        assert all(line[box - 2:box] == "  " for line in table), (k, table)


def test_explanation_lines_say_in_words_how_a_reading_gives_the_number(cat):
    _, out, _ = _run(["doctor", "--hyp", cat[0], "--ref", cat[1], "--number", "37.99", "-q"])
    assert "37.9918  on 0-100, rounds to 37.99  sacrebleu = mteval (2 readings): tok 13a, mixed case" in out
    assert " digits " not in out


def test_the_curated_departures_are_the_ones_score_looks_for():
    from oracle.doctor import shipped

    found = shipped.curated_departures()
    assert set(found) == shipped.DEPARTING
    assert [(d.discrepancy, d.change) for d in found["nltk"]] == [("nltk-segment-totals-floor",
                                                                    "segment_totals_floor=1")]
