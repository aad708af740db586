"""What `check` and `fuzz` print when a run is over is read from the run's report, grouped and named as summary.md
groups and names it.

Holds: oracle.reports.console
"""

from __future__ import annotations

import io

from oracle.harness.events import ResultsWriter
from oracle.models.results import Classification, Footer, Header, Record
from oracle.reports.console import print_check, print_fuzz
from oracle.reports.summaries import DerivedReports, write_derived_reports

_INPUT = {"seq": 0, "level": "sentence", "segments": [{"hypothesis": ["a"], "references": [["a"]]}],
          "weights": [1.0], "smoothing": {"method": "none"}, "lowercase": False}


def _failing(index, name, fits, value):
    """A failing random example classified `name` (its own first name), fitting `fits` as well; it answered
    `value` where the oracle says 0.25, and `value` is what its own explanation gives."""
    return Record(id=f"random-0-{index}", kind="example", outcome="fail", layer="score", replay=_INPUT,
                  classification=Classification(name=name, fits=fits, value=value),
                  actual={"seq": 0, "score": value}, expected={"score": 0.25}, baseline={"status": "new"})


def _derived(tmp_path, verb, records):
    """The reports of a run that wrote `records` (all new failures), and what they were derived from."""
    with ResultsWriter(tmp_path / "results.jsonl") as writer:
        writer.write(Header(suite_version="1", oracle_version="0", settings={"verb": verb}, started="",
                            judged_profile="papineni", implementation={"name": "x", "version": "1", "language": "c"}))
        for record in records:
            writer.write(record)
        writer.write(Footer(counts={"fail": len(records)}, baseline={"new": len(records)}, gate="fail", exit_code=1,
                            restarts=0, duration=0.0, finished=""))
    derived = DerivedReports()
    write_derived_reports(tmp_path, into=derived)
    return derived, (tmp_path / "summary.md").read_text()


# Two records whose own first names differ (empty_order=one, reference_length=closest-longer), each fitting
# weights=as-given as well: the fewest explanations that account for both is weights=as-given alone, so the run
# names one cause, weights=as-given x2, that neither record names first (oracle.diagnose.cover).
RECORDS = [_failing(1, "empty_order=one", ("weights=as-given",), 0.5),
           _failing(2, "reference_length=closest-longer", ("weights=as-given",), 0.75)]


def test_check_prints_the_deviation_groups_and_causes_summary_md_counts(tmp_path):
    derived, summary = _derived(tmp_path, "check", RECORDS)
    out = io.StringIO()
    print_check(out, derived, report_dir=tmp_path, junit=tmp_path / "junit.xml")
    lines = out.getvalue().splitlines()
    assert "By root cause: weights=as-given x2." in summary
    assert [line for line in lines if line.startswith("FAIL x")] == ["FAIL x2: random-0-1, random-0-2"]
    # the group's first record names the run's cause, and its own first name only as what its input fits as well
    assert lines[1].startswith("  root cause: weights=as-given (this input fits empty_order=one as well)")
    assert "root causes: weights=as-given x2" in lines
    assert "bleu-oracle check: deviations found: 2 fail" in lines


def test_fuzz_gives_an_explanations_value_only_under_the_groups_own_name(tmp_path):
    """The smallest example of weights=as-given is random-0-1 (the inputs are alike: the first in the run), whose
    classification's value (0.5) is what empty_order=one gives: not this cause's value, so neither summary.md nor
    the console gives it as "under this explanation"."""
    derived, summary = _derived(tmp_path, "fuzz", RECORDS)
    out = io.StringIO()
    print_fuzz(out, derived, [], report_dir=tmp_path)
    text = out.getvalue()
    assert "\nweights=as-given  x2\n" in text
    assert "smallest (random-0-1): x 1 answers 0.5, the oracle (papineni) says 0.25\n" in text
    assert "under this explanation" not in text and "under this explanation" not in summary
    # where the smallest example's own first name is the group's, its value is given
    alone, summary = _derived(tmp_path, "fuzz", [_failing(3, "weights=as-given", (), 0.5)])
    out = io.StringIO()
    print_fuzz(out, alone, [], report_dir=tmp_path)
    assert "says 0.25, under this explanation 0.5\n" in out.getvalue()
    assert "under this explanation the oracle gives 0.5" in summary


def test_fuzz_says_where_it_cuts_an_input_too_long_to_print(tmp_path):
    """An input shrinking did not reduce is printed cut without -v, and the cut says so (it was cut silently at
    600 characters, a line that looked like whole but invalid JSON); -v prints up to 2,000 characters, as summary.md
    shows it (this one, some 3,300 characters, cut there too: tests/reports/test_inputs.py has the excerpt)."""
    long_input = {**_INPUT, "segments": [{"hypothesis": ["w"] * 400, "references": [["w"] * 400]}]}
    record = Record(id="random-0-4", kind="example", outcome="fail", layer="score", replay=long_input,
                    classification=Classification(name="weights=as-given", value=0.5), actual={"seq": 0, "score": 0.5},
                    expected={"score": 0.25}, baseline={"status": "new"})
    derived, _ = _derived(tmp_path, "fuzz", [record])
    short, whole = io.StringIO(), io.StringIO()
    print_fuzz(short, derived, [], report_dir=tmp_path)
    print_fuzz(whole, derived, [], report_dir=tmp_path, verbose=True)
    cut_line = next(line for line in short.getvalue().splitlines() if line.startswith("  input"))
    longer_line = next(line for line in whole.getvalue().splitlines() if line.startswith("  input"))
    # 400 tokens on each side, 800 in all: (`,"w"`, 4 characters a token: some 3,300 characters)
    assert cut_line.startswith("  input (cut at 600 characters: ")
    assert "of its 800 tokens shown (1 segment)" in cut_line and cut_line.endswith(' …,"weights":[1.0],'
                                                                                  '"smoothing":{"method":"none"},'
                                                                                  '"lowercase":false}')
    assert "the whole input: results.jsonl (record random-0-4); -v prints more): " in cut_line
    assert longer_line.startswith("  input (cut at 2,000 characters: ") and "-v prints more" not in longer_line
    assert len(cut_line.partition("): ")[2]) <= 600 < len(longer_line.partition("): ")[2]) <= 2000
