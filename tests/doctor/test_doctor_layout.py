"""The layout lint on layouts broken on purpose, built from real WMT17 lines (online-B and the reference,
the first 200 segments) in temporary files: each problem is named with its file and line, and its effect on
the score measured; clean files give no finding.

Holds: oracle.doctor.layout, oracle.doctor.effects
"""

from __future__ import annotations

import gzip
import random
from pathlib import Path

import pytest

from oracle.doctor import diagnose_files

DATA = Path(__file__).resolve().parents[3] / "shared" / "data" / "wmt17-en-de"
SEGMENTS = 200

pytestmark = pytest.mark.skipif(not DATA.is_dir(), reason=f"the WMT17 files are not available ({DATA} is absent)")


def _lines(name: str, count: int = SEGMENTS) -> list:
    with gzip.open(DATA / name, "rt", encoding="utf-8", newline="\n") as handle:
        return [next(handle)[:-1] for _ in range(count)]


@pytest.fixture(scope="module")
def wmt():
    return {"hyp": _lines("newstest2017.online-B.0.en-de.txt.gz"), "ref": _lines("newstest2017.reference.en-de.txt.gz"),
            "other": _lines("newstest2017.uedin-nmt.4722.en-de.txt.gz"),
            "third": _lines("newstest2017.KIT.4950.en-de.txt.gz")}


def _write(path: Path, lines: list) -> Path:
    path.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
    return path


def _finding(report, kind: str):
    found = [f for f in report.layout if f.kind == kind]
    assert found, (kind, [(f.kind, f.message) for f in report.layout])
    return found[0]


def _places(finding) -> set:
    return {(Path(w.file).name, w.line) for w in finding.where}


def test_clean_files_have_no_finding(tmp_path, wmt):
    for name in ("newstest2017.online-B.0.en-de.txt.gz", "newstest2017.uedin-nmt.4722.en-de.txt.gz",
                 "newstest2017.PROMT-Rule-based.4735.en-de.txt.gz", "newstest2017.LIUM-NMT.4900.en-de.txt.gz"):
        hyp = _write(tmp_path / "hyp.txt", _lines(name))
        report = diagnose_files(hyp, [_write(tmp_path / "ref.txt", wmt["ref"])])
        assert report.layout == [], (name, [(f.kind, f.message) for f in report.layout])


def test_a_reference_missing_a_line_is_a_shift_named_where_it_starts(tmp_path, wmt):
    hyp = _write(tmp_path / "hyp.txt", wmt["hyp"])
    ref = _write(tmp_path / "ref.txt", wmt["ref"][:59] + wmt["ref"][60:])  # line 60 lost
    report = diagnose_files(hyp, [ref])
    shift = _finding(report, "shifted-reference")
    # hypothesis line 61 now meets reference line 60 (the original 61): the shift starts there
    assert _places(shift) == {("hyp.txt", 61), ("ref.txt", 60)}
    assert "i-1" in shift.message and shift.severity == "error"
    assert shift.effect is not None and shift.effect.after > shift.effect.before + 10
    assert _places(_finding(report, "line-count")) == {("hyp.txt", 200)}


def test_a_reference_with_an_extra_line_is_a_shift_the_other_way(tmp_path, wmt):
    hyp = _write(tmp_path / "hyp.txt", wmt["hyp"])
    ref = _write(tmp_path / "ref.txt", wmt["ref"][:79] + ["Eine Zeile zu viel."] + wmt["ref"][79:])
    shift = _finding(diagnose_files(hyp, [ref]), "shifted-reference")
    assert _places(shift) == {("hyp.txt", 80), ("ref.txt", 81)} and "i+1" in shift.message
    # re-aligned, the extra line left out: the score of the files before the line was added
    clean = diagnose_files(hyp, [_write(tmp_path / "clean.txt", wmt["ref"])])
    sacrebleu = next(r for r in clean.readings if (r.profile, r.tokenize, r.lowercase) == ("sacrebleu", "13a", False))
    assert abs(shift.effect.after - sacrebleu.score_100) <= 1e-9


def test_a_reference_in_another_order_is_misaligned(tmp_path, wmt):
    shuffled = list(wmt["ref"])
    random.Random(17).shuffle(shuffled)
    report = diagnose_files(_write(tmp_path / "hyp.txt", wmt["hyp"]), [_write(tmp_path / "ref.txt", shuffled)])
    finding = _finding(report, "misaligned-reference")
    assert _places(finding) == {("ref.txt", 1)} and finding.effect is None and finding.no_effect_reason


def test_swapped_arguments_by_name_and_by_content(tmp_path, wmt):
    reference = _write(tmp_path / "newstest2017.reference.en-de.txt", wmt["ref"])
    system = _write(tmp_path / "newstest2017.online-B.0.en-de.txt", wmt["hyp"])
    swapped = _finding(diagnose_files(reference, [system]), "swapped-arguments")
    assert _places(swapped) == {("newstest2017.reference.en-de.txt", 1), ("newstest2017.online-B.0.en-de.txt", 1)}
    assert "named like a reference" in swapped.message
    assert swapped.effect is not None and swapped.effect.delta != 0  # BLEU is not symmetric: BP and clipping
    # the reference given as the hypothesis too (one of two references is the "hypothesis")
    same = _finding(diagnose_files(_write(tmp_path / "out.txt", wmt["ref"]), [reference, system]), "swapped-arguments")
    assert "identical to" in same.message and ("newstest2017.reference.en-de.txt", 1) in _places(same)


def test_a_hypothesis_far_longer_than_every_reference_is_named(tmp_path, wmt):
    """Three system lines joined on each hypothesis line (what a reference given as the hypothesis looks like
    against short references, or output that was never split into segments)."""
    joined = [" ".join(wmt["hyp"][i:i + 3]) for i in range(SEGMENTS)]
    finding = _finding(diagnose_files(_write(tmp_path / "out.txt", joined), [_write(tmp_path / "ref.txt", wmt["ref"])]),
                       "swapped-arguments")
    assert "times as long as every reference" in finding.message and ("out.txt", 1) in _places(finding)


def test_a_transposed_reference_list_is_named(tmp_path, wmt):
    """40 segments with 3 references each, written one file per segment (3 lines each) instead of one file per
    reference (40 lines each): the classic transposition of a list of reference lists."""
    count = 40
    hyp = _write(tmp_path / "hyp.txt", wmt["hyp"][:count])
    per_segment = [_write(tmp_path / f"seg{i:02d}.txt", [wmt["ref"][i], wmt["other"][i], wmt["third"][i]])
                   for i in range(count)]
    finding = _finding(diagnose_files(hyp, per_segment), "transposed-references")
    assert _places(finding) == {("seg00.txt", 1)} and "transposed" in finding.message
    right = diagnose_files(hyp, [_write(tmp_path / f"r{k}.txt", [wmt[s][i] for i in range(count)])
                                 for k, s in enumerate(("ref", "other", "third"))])
    sacrebleu = next(r for r in right.readings if (r.profile, r.tokenize, r.lowercase) == ("sacrebleu", "13a", False))
    assert abs(finding.effect.after - sacrebleu.score_100) <= 1e-9  # transposed back: the right layout's score


def test_encoding_problems_are_named_with_their_lines(tmp_path, wmt):
    lines = [line.encode("utf-8") for line in wmt["hyp"]]
    lines[0] = b"\xef\xbb\xbf" + lines[0]  # a byte-order mark
    lines[4] = lines[4].replace(b" ", b"\x00", 1)  # NUL on line 5
    lines[6] = lines[6][:3] + b"\xff" + lines[6][3:]  # not UTF-8 on line 7, byte 3
    lines[49] = b"\xef\xbb\xbf" + lines[49]  # a mark starting line 50: files concatenated
    hyp = tmp_path / "hyp.txt"
    hyp.write_bytes(b"".join(line + b"\r\n" for line in lines))  # CR LF everywhere
    report = diagnose_files(hyp, [_write(tmp_path / "ref.txt", wmt["ref"])])
    assert _places(_finding(report, "byte-order-mark")) == {("hyp.txt", 1)}
    assert _places(_finding(report, "byte-order-mark-inside")) == {("hyp.txt", 50)}
    assert _places(_finding(report, "nul")) == {("hyp.txt", 5)}
    invalid = _finding(report, "invalid-utf8")
    assert _places(invalid) == {("hyp.txt", 7)} and "line 7 byte 3" in invalid.message
    crlf = _finding(report, "crlf")
    assert crlf.count == SEGMENTS and ("hyp.txt", 1) in _places(crlf)
    assert crlf.effect.delta == 0  # every tokenizer takes CR for whitespace
    for kind in ("byte-order-mark", "nul", "invalid-utf8", "byte-order-mark-inside"):
        assert _finding(report, kind).effect is not None, kind


def test_empty_lines_on_either_side(tmp_path, wmt):
    hyp = list(wmt["hyp"])
    hyp[9] = hyp[10] = ""
    ref = list(wmt["ref"])
    ref[19] = "   "
    report = diagnose_files(_write(tmp_path / "hyp.txt", hyp), [_write(tmp_path / "ref.txt", ref)])
    by_file = {Path(f.where[0].file).name: f for f in report.layout if f.kind == "empty-lines"}
    assert (
        _places(by_file["hyp.txt"]) == {("hyp.txt", 10), ("hyp.txt", 11)} and by_file["hyp.txt"].severity == "warning"
    )
    assert _places(by_file["ref.txt"]) == {("ref.txt", 20)} and by_file["ref.txt"].severity == "error"
    assert by_file["ref.txt"].effect is not None


def test_one_side_lowercased(tmp_path, wmt):
    report = diagnose_files(_write(tmp_path / "hyp.txt", [line.lower() for line in wmt["hyp"]]),
                            [_write(tmp_path / "ref.txt", wmt["ref"])])
    finding = _finding(report, "lowercased-one-side")
    assert _places(finding) == {("hyp.txt", 1)}
    assert finding.effect.after > finding.effect.before  # lowercasing both sides recovers the capitalised words


def test_a_duplicated_reference_changes_nothing_but_is_named(tmp_path, wmt):
    ref = _write(tmp_path / "ref.txt", wmt["ref"])
    report = diagnose_files(_write(tmp_path / "hyp.txt", wmt["hyp"]), [ref, _write(tmp_path / "copy.txt", wmt["ref"])])
    finding = _finding(report, "duplicated-reference")
    assert _places(finding) == {("ref.txt", 1), ("copy.txt", 1)}
    assert finding.effect.delta == 0  # exactly: a second copy changes no count and no length rule


def test_many_copies_of_a_reference_are_named_once_each_and_measured_a_few_times(tmp_path, wmt):
    """30 copies of one reference: each copy repeats the first (29 findings, where every pair was one before:
    435), and only the first 4 fixes re-score the files (each one re-scores all 31; 50 copies took minutes)."""
    ref = _write(tmp_path / "ref.txt", wmt["ref"])
    copies = [_write(tmp_path / f"copy{i}.txt", wmt["ref"]) for i in range(29)]
    report = diagnose_files(_write(tmp_path / "hyp.txt", wmt["hyp"]), [ref, *copies])
    found = [f for f in report.layout if f.kind == "duplicated-reference"]
    assert sorted(_places(f) for f in found) == sorted({("ref.txt", 1), (f"copy{i}.txt", 1)} for i in range(29))
    assert [f.effect.delta for f in found[:4]] == [0, 0, 0, 0]
    unmeasured = "only the first 4 findings of each kind are measured"
    assert all(f.effect is None and f.no_effect_reason.startswith(unmeasured) for f in found[4:])


def test_tokenized_against_detokenized(tmp_path, wmt):
    tokenizer = pytest.importorskip("sacrebleu.tokenizers.tokenizer_13a").Tokenizer13a()
    tokenized = [tokenizer(line) for line in wmt["hyp"]]  # sacrebleu's own 13a tokenizer, a real tool
    report = diagnose_files(_write(tmp_path / "hyp.tok", tokenized), [_write(tmp_path / "ref.txt", wmt["ref"])])
    finding = _finding(report, "tokenization-mismatch")
    assert _places(finding) == {("hyp.tok", 1), ("ref.txt", 1)} and "tokenized" in finding.message
    assert finding.effect is not None
