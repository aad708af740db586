"""`bleu-oracle report`: data files first, pages rendered from them, byte-identical runs.

Expected values are derived by hand (or come from the MATLAB page), never from
the oracle's own output.

Holds: oracle.commands.report, oracle.reports.site.build, oracle.reports.site.collect, oracle.reports.site.view,
    oracle.reports.site.pages, oracle.suite.edge_cases
"""

from __future__ import annotations

import json
import math
import re
import shutil
from collections import Counter
from pathlib import Path

import pytest

from oracle.adapters import registry
from oracle.cli import main
from oracle.formulas.profiles import PROFILES
from oracle.reports.site.collect import extra_reference_systems, load_implementations
from oracle.reports.site.data import DATA_DIR, DATA_FILES, read_data
from oracle.reports.site.pages import PAGES
from oracle.suite.edge_cases import EDGE_CASES

REAL_DATA = Path(__file__).resolve().parents[2].parent / "shared" / "data" / "wmt17-en-de"
TOLERANCE = 1e-15


def _report(out, *extra):
    return main(["report", "--report", str(out), "--impl", "oracle", "nltk", "--examples", "10", "--no-real-data",
                 "--quiet", *extra])


def _files(folder):
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in sorted(Path(folder).rglob("*")) if p.is_file()}


#: The day the reports of these tests are dated by (SOURCE_DATE_EPOCH): 86400 s after 1970-01-01 00:00 UTC. Two runs
#: give the same bytes on one day; dated so, also on either side of a midnight.
EPOCH, EPOCH_DAY = "86400", "1970-01-02"


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    pytest.importorskip("nltk")
    first, second = tmp_path_factory.mktemp("first"), tmp_path_factory.mktemp("second")
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("SOURCE_DATE_EPOCH", EPOCH)
        assert _report(first) == 0
        assert _report(second) == 0
    return first, second


@pytest.fixture(scope="module")
def cells(runs):
    data = read_data(runs[0])
    return {(c.case, c.column): c for c in data.cells}


def test_the_data_files_and_the_pages_exist(runs):
    out = runs[0]
    for name in DATA_FILES:
        assert (out / DATA_DIR / name).is_file(), name
    for page in PAGES:
        assert (out / page).is_file(), page
    assert (out / "implementations" / "nltk.md").is_file() and (out / "implementations" / "nltk.html").is_file()
    assert not (out / "implementations" / "sacrebleu.md").exists()  # not selected
    assert (out / "cases" / "both-empty.html").is_file()


def test_two_runs_are_byte_identical(runs):
    first, second = runs
    a, b = _files(first), _files(second)
    assert sorted(a) == sorted(b)
    different = [name for name in a if a[name] != b[name]]
    assert not different, f"files differ between two runs with the same seed: {different}"


def test_the_report_is_dated_by_the_day_it_observed(runs):
    """run.json records the day (SOURCE_DATE_EPOCH's here), and the site's first sentence says it (issue 37: "when")."""
    assert json.loads((runs[0] / DATA_DIR / "run.json").read_text(encoding="utf-8"))["date"] == EPOCH_DAY
    assert f"against its exact BLEU oracle on {EPOCH_DAY}:" in (runs[0] / "index.html").read_text(encoding="utf-8")


def test_the_report_records_the_cpu_it_ran_on_and_the_run_line_says_it(runs):
    """run.json names the CPU (a float32 kernel's last bit differs by it: the trophy case's torchtext-float32), and
    the settings line in README.md says it; a second run on this machine writes the same words."""
    from oracle.commands.report_columns import cpu_description

    cpu = json.loads((runs[0] / DATA_DIR / "run.json").read_text(encoding="utf-8"))["cpu"]
    assert cpu and cpu == cpu_description()
    assert f"Python {read_data(runs[0]).run.python}, on {cpu};" in (runs[0] / "README.md").read_text(encoding="utf-8")


@pytest.mark.parametrize(("machine", "cpuinfo", "expected"), [
    # x86: the first processor's model name and the widest vector extension of its flags
    ("x86_64", "processor\t: 0\nmodel name\t: Intel(R) Xeon(R) Processor\nflags\t\t: fpu sse2 avx avx2 avx512f "
     "avx512bw\n\nprocessor\t: 1\nmodel name\t: Intel(R) Xeon(R) Processor\n",
     "x86_64, Intel(R) Xeon(R) Processor, AVX-512"),
    ("x86_64", "model name\t: AMD EPYC 7R13 Processor\nflags\t\t: fpu sse2 avx avx2 fma\n",
     "x86_64, AMD EPYC 7R13 Processor, AVX2"),
    ("x86_64", "model name\t: QEMU Virtual CPU version 2.5+\nflags\t\t: fpu sse2\n",
     "x86_64, QEMU Virtual CPU version 2.5+"),
    ("aarch64", "processor\t: 0\nBogoMIPS\t: 50.00\nFeatures\t: fp asimd\nCPU implementer\t: 0x41\n", "aarch64"),
    ("arm64", "", "arm64"),  # no /proc/cpuinfo (macOS)
    ("", "", ""),
])
def test_the_cpu_is_described_by_architecture_model_and_widest_vector_extension(machine, cpuinfo, expected):
    from oracle.commands.report_columns import describe_cpu

    assert describe_cpu(machine, cpuinfo) == expected


def test_without_source_date_epoch_the_report_is_dated_today(monkeypatch):
    import datetime

    from oracle.reports.site.collect import observation_day

    monkeypatch.delenv("SOURCE_DATE_EPOCH", raising=False)
    before = datetime.datetime.now(datetime.UTC).date().isoformat()
    day = observation_day()
    assert before <= day <= datetime.datetime.now(datetime.UTC).date().isoformat()


def test_a_malformed_source_date_epoch_is_a_usage_error_before_anything_runs(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "yesterday")
    assert _report(tmp_path / "r") == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "SOURCE_DATE_EPOCH='yesterday' is not a number of seconds" in err[0], err
    assert not (tmp_path / "r" / DATA_DIR).exists()


def test_render_only_rebuilds_the_same_pages_from_the_data_alone(runs, tmp_path):
    first = runs[0]
    copy = tmp_path / "copy"
    shutil.copytree(first / DATA_DIR, copy / DATA_DIR)  # the data files and the runs' results.jsonl streams
    assert main(["report", "--report", str(copy), "--render-only", "--quiet"]) == 0
    assert _files(copy) == _files(first)


def test_render_only_without_data_is_a_usage_error(tmp_path, capsys):
    assert main(["report", "--report", str(tmp_path / "empty"), "--render-only", "--quiet"]) == 2
    assert "run `bleu-oracle report` first" in capsys.readouterr().err


def test_the_data_is_deterministic_json(runs):
    for name in DATA_FILES:
        text = (runs[0] / DATA_DIR / name).read_text(encoding="utf-8")
        for key in ("started", "finished", "duration", "wall"):
            assert f'"{key}"' not in text, (name, key)
        if name.endswith(".jsonl"):
            for line in text.splitlines():
                obj = json.loads(line)
                assert line == json.dumps(obj, sort_keys=True, ensure_ascii=False, allow_nan=False)


def test_the_matrix_has_every_edge_case_and_every_profile(runs, cells):
    columns = [f"oracle/{p}" for p in PROFILES] + ["nltk"]
    for case in EDGE_CASES:
        for column in columns:
            assert (case.id, column) in cells, (case.id, column)
    text = (runs[0] / "matrix.md").read_text(encoding="utf-8")
    header = next(line for line in text.splitlines() if line.startswith("| edge case |"))
    for profile in PROFILES:
        assert f"oracle: {profile}" in header
    assert "nltk 3." in header
    for case in EDGE_CASES:
        assert f"(`{case.id}`)" in text


def test_length_tie_under_papineni(cells):
    # c = 5 between references of 6 and 4 tokens: the tie goes to the shorter, r = 4 < c, BP = 1;
    # p1 = 3/5 (love, can, always), p2 = 1/2 (love can, can always), p3 = 1/3 (love can always).
    cell = cells[("length-tie", "oracle/papineni")]
    assert cell.answer.outcome == "score"
    assert abs(cell.answer.score - (3 / 5 * 1 / 2 * 1 / 3) ** (1 / 3)) <= TOLERANCE
    assert abs(cell.answer.score - 0.4641588833612779) <= TOLERANCE


def test_both_empty_is_nan_under_matlab(cells):
    # MATLAB bleuEvaluationScore: "If candidate and references are both empty documents, then score is NaN".
    assert cells[("both-empty", "oracle/matlab")].answer.score == "NaN"
    assert cells[("both-empty", "oracle/nltk")].answer.score == 0.0  # NLTK: no overlap, "BLEU returns the value 0"


def test_shortest_reference_under_mlpack_and_closest_under_papineni(cells):
    # c = 6, references of 3 and 7 tokens, every n-gram of the hypothesis is in the longer one: p_n = 1.
    assert cells[("shortest-not-closest", "oracle/mlpack")].answer.score == 1.0  # r = 3 < c: BP = 1
    assert abs(cells[("shortest-not-closest", "oracle/papineni")].answer.score - math.exp(1 - 7 / 6)) <= TOLERANCE


def test_nltk_floors_segment_totals_and_the_cell_says_why(cells):
    # nltk counts max(1, 0) 3- and 4-grams for "the cat": p3 = 7/8, p4 = 6/7 instead of 7/7, 6/6.
    cell = cells[("short-segment-in-corpus", "nltk")]
    assert cell.answer.outcome == "score" and not cell.verdict.agrees
    assert abs(cell.answer.score - (7 / 8 * 6 / 7) ** 0.25) <= 1e-12
    assert cell.expected.score == 1.0
    assert cell.verdict.classification == "segment_totals_floor=1"
    assert "nltk-segment-totals-floor" in cell.verdict.documented
    assert cells[("length-tie", "nltk")].verdict.agrees


def test_pages_show_the_findings(runs):
    out = runs[0]
    matrix = (out / "matrix.md").read_text(encoding="utf-8")
    assert "**nltk** on `short-segment-in-corpus`" in matrix and "`segment_totals_floor=1`" in matrix
    page = (out / "implementations" / "nltk.md").read_text(encoding="utf-8")
    assert page.startswith("# nltk 3.")
    assert "judged against | profile **nltk**" in page
    for needle in ("`nltk-segment-totals-floor`", "**minimal example**", "**values, observed now**",
                   "**root cause**", "**contradicts**", "reproduced ✓"):
        assert needle in page, needle
    index = (out / "README.md").read_text(encoding="utf-8")
    assert "[nltk](implementations/nltk.md)" in index
    assert "| sacrebleu | — | — | — | not selected (--impl) |" in index
    assert "Not run: not requested (--no-real-data)." in (out / "real-data.md").read_text(encoding="utf-8")


def test_the_trophy_case_lists_every_curated_discrepancy_with_its_upstream_status(runs):
    from oracle.diagnose.discrepancies import models

    page = (runs[0] / "trophies.md").read_text(encoding="utf-8")
    entries = models()
    assert page.startswith("# Trophy case") and f"{len(entries)} curated discrepancies" in page
    for entry in entries:
        assert f"[`{entry.id}`](#{entry.id})" in page and f"## {entry.id}\n" in page
    # nltk was run: its classes are re-run now; the others are not installed in this report
    assert "reproduced with 3." in page and "not re-run (not installed here)" in page
    # each entry is listed under its furthest stage upstream, read from the structured status
    assert "| nltk-method6-last-hypothesis-length" not in page  # ids are links, not bare cells
    row = next(line for line in page.splitlines() if "`torcheval-shortest-reference`" in line)
    assert row.endswith("| reported |")
    row = next(line for line in page.splitlines() if "`nltk-method0-tiny`" in line)
    assert row.endswith("| deliberate |")
    row = next(line for line in page.splitlines() if "`nltk-zero-precision-dropped`" in line)
    assert row.endswith("| found |")
    # the counts separate the stages and add up to the entries; "found" counts only what no thread reports
    stages = Counter(e.upstream.stage for e in entries)
    for stage in ("found", "reported", "acknowledged", "fixed", "deliberate"):
        assert f"| [{stage}](#{stage}) | {stages[stage]} |" in page and f"\n### {stage}\n" in page
    found = [e for e in entries if e.upstream.stage == "found"]
    unrelated = sum(1 for e in found if not e.upstream.related)
    assert f"{len(found)} found by this suite and not found in the library's tracker: {unrelated} with no" in page
    section = page.split("\n### found\n")[1].split("\n### ")[0]
    assert "`nltk-zero-precision-dropped`" in section and "`torcheval-shortest-reference`" not in section
    html = (runs[0] / "index.html").read_text(encoding="utf-8")
    assert '<h2 id="trophies">Trophy case</h2>' in html and "<code>torcheval-shortest-reference</code>" in html


def test_the_html_page_is_self_contained(runs):
    text = (runs[0] / "index.html").read_text(encoding="utf-8")
    assert text.startswith("<!DOCTYPE html>") and "<style>" in text
    assert text.count("<svg ") >= 1  # the deviation plot (no real data here)
    assert "<script" not in text.lower()
    stripped = text.replace('xmlns="http://www.w3.org/2000/svg"', "")
    # nothing is fetched: no source, stylesheet or link points outside (upstream reports are shown as text)
    assert not re.search(r'(src|href)\s*=\s*"?(https?:)?//', stripped)
    matrix = text[text.index('<table class="matrix">'):]
    for case in EDGE_CASES:  # a column each, headed by its title, linked to its page (which names its id)
        assert f'<a href="cases/{case.id}.html">' in matrix and f'title="{case.id}: ' in matrix


def test_missing_libraries_are_listed_as_not_installed(monkeypatch):
    monkeypatch.delenv("BLEU_ORACLE_MULTI_BLEU", raising=False)
    absent = registry.Registered("absent-lib", "in-process", "bleu_oracle_no_such_module:Nothing")
    monkeypatch.setattr(registry, "ENTRIES", (*registry.ENTRIES, absent))
    records, columns = load_implementations({"multi-bleu", "absent-lib"})
    by_name = {r.name: r for r in records}
    assert by_name["multi-bleu"].status == "not-installed"
    assert "BLEU_ORACLE_MULTI_BLEU" in by_name["multi-bleu"].reason
    assert by_name["absent-lib"].status == "not-installed"
    assert by_name["nltk"].status == "not-selected"
    assert columns == []


def test_extra_references_are_the_alphabetically_first_other_systems():
    systems = ["online-A.0", "C-3MA.4959", "FBK.4870", "KIT.4950", "LIUM-NMT.4900"]
    assert extra_reference_systems("xmu.4910", systems) == ["C-3MA.4959", "FBK.4870", "KIT.4950"]
    assert extra_reference_systems("FBK.4870", systems) == ["C-3MA.4959", "KIT.4950", "LIUM-NMT.4900"]


def test_unknown_implementations_are_a_usage_error(tmp_path, capsys):
    assert main(["report", "--report", str(tmp_path), "--impl", "no-such-bleu", "nltk", "nor-this", "--quiet"]) == 2
    err = capsys.readouterr().err
    assert "unknown implementations 'no-such-bleu', 'nor-this'; known: oracle, nltk," in err and err.count("\n") == 1


@pytest.mark.slow
@pytest.mark.heavy  # two whole WMT17 systems through every library: 18 s (CI runs it)
def test_real_data_table_on_two_systems(tmp_path):
    if not REAL_DATA.is_dir():
        pytest.skip(f"the WMT17 data is not available ({REAL_DATA} is absent)")
    pytest.importorskip("nltk")
    pytest.importorskip("sacrebleu")
    out = tmp_path / "reports"
    assert main(["report", "--report", str(out), "--impl", "nltk", "sacrebleu", "--examples", "0",
                 "--real-data", str(REAL_DATA), "--real-data-systems", "2", "--quiet"]) == 0
    records = read_data(out).real
    systems = sorted({r.system for r in records})
    assert systems == ["C-3MA.4959", "FBK.4870"]
    assert sorted({r.references for r in records}) == [1, 4]
    by_key = {(r.system, r.references, r.column): r for r in records}
    for system in systems:
        for count in (1, 4):
            oracle_value = by_key[(system, count, "oracle/sacrebleu")].answer.score
            sacrebleu = by_key[(system, count, "sacrebleu")]
            # an independent implementation: sacrebleu agrees with the oracle within the numeric contract
            assert sacrebleu.answer.outcome == "score" and sacrebleu.verdict.agrees
            assert abs(sacrebleu.answer.score - oracle_value) <= 1e-12 + 1e-9 * oracle_value
            assert 0.05 < oracle_value < 0.9
            nltk = by_key[(system, count, "nltk")]
            assert nltk.expected == by_key[(system, count, "oracle/nltk")].answer.score
            assert nltk.difference == nltk.answer.score - nltk.expected
    four = by_key[("C-3MA.4959", 4, "sacrebleu")]
    assert four.reference_files == ("reference", "FBK.4870", "KIT.4950", "LIUM-NMT.4900")
    text = (out / "real-data.md").read_text(encoding="utf-8")
    assert "## 1 reference" in text and "## 4 references" in text
    assert "| C-3MA.4959 |" in text and "sacrebleu 2." in text
    assert (out / "index.html").read_text(encoding="utf-8").count("<svg ") >= 3


def test_check_and_report_judge_every_input_the_same_way(runs, tmp_path):
    # the report's nltk column ran 10 random inputs (seed 0) in process; check drives nltk as a process
    from oracle.harness.events import read_results
    from oracle.reports.site.data import run_directory

    report = read_results(run_directory(runs[0] / DATA_DIR, "nltk") / "results.jsonl")
    checked = tmp_path / "check"
    code = main(["check", "--impl", "nltk", "--no-cases", "--examples", "10", "--seed", "0", "--shrink-budget", "0",
                 "--report", str(checked), "--quiet"])
    assert code in (0, 1)
    check = read_results(checked / "results.jsonl")

    def judged(results):
        return {r.id: (r.outcome, r.layer, r.cause, r.request.with_seq(0))  # seq counts the run's requests
                for r in results.records if r.kind == "example"}

    # 10 examples, example 2's brackets companion and example 4's line-ends companion (a series, at 5, is of kind
    # "series"; nltk has no tokenizer)
    assert len(judged(report)) == 12 and {"random-0-2~brackets", "random-0-4~line-ends"} <= set(judged(report))
    assert judged(report) == judged(check)


def _tree(directory):
    return {str(p.relative_to(directory)): p.read_bytes() for p in sorted(Path(directory).rglob("*")) if p.is_file()}


def test_two_runs_and_jobs_give_the_same_bytes(tmp_path, monkeypatch):
    """torch on one thread: two runs give byte-identical reports, and --jobs 2 the bytes of one process
    (torchmetrics' float32 sums were the files that differed between runs)."""
    from conftest import load

    load("torchmetrics")  # skips with the reason where torch is not installed
    argv = ["report", "--impl", "nltk", "torchmetrics", "--examples", "30", "--no-real-data", "--quiet"]
    monkeypatch.setenv("SOURCE_DATE_EPOCH", EPOCH)  # (the same day for all three runs)
    runs = {}
    for name, extra in (("first", []), ("second", []), ("jobs", ["--jobs", "2"])):
        assert main([*argv, *extra, "--report", str(tmp_path / name)]) == 0
        runs[name] = _tree(tmp_path / name)
    assert any(name.startswith("data/runs/torchmetrics") for name in runs["first"])
    assert runs["first"] == runs["second"]
    assert runs["jobs"] == runs["first"]


def test_report_says_on_stderr_when_the_real_data_is_absent(tmp_path, capsys):
    assert main(["report", "--impl", "nltk", "--examples", "0", "--real-data", str(tmp_path / "nowhere"),
                 "--report", str(tmp_path / "r")]) == 0
    err = capsys.readouterr().err
    assert "real data skipped" in err and " s" in err.split("done in", 1)[1][:10]


def test_a_statistics_only_disagreement_is_not_drawn_as_rounding():
    """A random input whose score agrees while ref_len does not goes to its own band ("stats≠") with the
    diverging layer in its tooltip, not to the log axis' floor beside float rounding."""
    from oracle.reports.site.data import (
        Answer,
        Contract,
        ImplementationEntry,
        RealDataSource,
        ReportData,
        RunInfo,
        SearchEntry,
        Verdict,
    )
    from oracle.reports.site.svg import deviation_plot
    from oracle.reports.site.view import ReportView

    def example(index, layer, score, expected):
        return SearchEntry("x", "papineni", index, f"random-0-{index}", Answer("score", score, None, ""),
                           Verdict(False, "reference_length=closest-longer", (), "d"), expected=expected,
                           expected_rejected=False, size=3, layer=layer)

    run = RunInfo(schema="bleu-oracle-report/1", suite_version="1", python="3", seed=0, examples=2, contract=Contract(
        abs=1e-12, rel=1e-9), edge_cases=0, profiles=[], real_data=RealDataSource(skipped="no"), command="c")
    data = ReportData(run=run, profiles=[], implementations=[ImplementationEntry(
        name="x", adapter="m:x", status="installed", version="1")], cases=[], cells=[], reruns={}, discrepancies=[],
        search=[example(0, "ref_len", 0.5, 0.5), example(1, "score", 0.5, 0.5 + 1e-6)])
    svg = deviation_plot(ReportView(data))
    assert "stats≠" in svg
    assert "first divergence: ref_len" in svg and "first divergence: score" in svg
    import re

    x = {m[1]: float(m[0]) for m in re.findall(r'<circle cx="([\d.]+)"[^>]*><title>(random-0-\d)', svg)}
    band = re.search(r'<rect x="([\d.]+)" y="[\d.]+" width="([\d.]+)"[^>]*/>\s*<text[^>]*>stats≠', svg)
    left, right = float(band[1]), float(band[1]) + float(band[2])
    assert left <= x["random-0-0"] <= right  # the ref_len disagreement, in its band
    assert x["random-0-1"] < left  # a 1e-6 score difference, on the log axis
