"""A gate never goes green on nothing, and never loses reviewed work (issue: verdicts a gate can trust).

- an --id glob that matches nothing is an error before anything runs, as it is for `cases list`;
- a run that judges nothing (every input not applicable, nothing drawn) is an error unless --allow-empty, for
  `check`, `fuzz` and the merge of either's shards;
- a `cases/` folder in the working directory does not replace the bundled suite: only --cases replaces it and
  --add-cases adds to it, and the summary says which, with counts;
- a case's reproduction line writes its own report, never over the run's;
- `baseline write` onto an existing baseline keeps every reviewed reason and everything else the file holds.

Holds: oracle.commands.check, oracle.commands.baseline, oracle.commands.fuzz
"""

from __future__ import annotations

import json

import pytest
import yaml
from fakes.harness import fake, results, run_cli

from oracle.suite.cases import DEFAULT_CASES_DIR, load_cases

MINE = """document: "https://example.org/my-bleu-notes"
cases:
  - id: my-exact-match
    title: an exact match scores 1
    source: {document: "https://example.org/my-bleu-notes", section: "2", quote: "scores 1"}
    profiles: [papineni]
    kind: value
    input: {level: corpus, segments: [{hypothesis: [a, b, c, d], references: [[a, b, c, d]]}]}
    expect: {score: "1", exact: true}
"""


def _bundled_count():
    return len(load_cases(DEFAULT_CASES_DIR))


def test_an_id_glob_matching_nothing_is_an_error_before_anything_runs(tmp_path, capsys):
    marker = tmp_path / "started"
    code = run_cli("check", "--command", fake("clean") + f" --touch {marker}", "--id", "nomatch*",
                   "--report", tmp_path / "report", "--quiet")
    err = capsys.readouterr().err
    assert code == 2 and "nomatch*" in err and "matches none" in err and len(err.strip().splitlines()) == 1
    assert not marker.exists()
    assert run_cli("cases", "list", "--id", "nomatch*") == 2  # the same glob, the same answer


def test_an_id_glob_for_examples_when_none_are_drawn_says_so(tmp_path, capsys):
    assert run_cli("check", "--command", fake("clean"), "--examples", 0, "--id", "random-*",
                   "--report", tmp_path / "r") == 2
    assert "matches none of the" in (err := capsys.readouterr().err) and "no random example (--examples 0)" in err
    assert "random-0-0 .. random-0-0" not in err


def test_an_id_of_a_relation_is_a_selection(tmp_path):
    """`--id random-0-2~NAME` selects that example's relation: not "nothing selected"."""
    code = run_cli("check", "--command", fake("clean"), "--no-cases", "--examples", 3, "--id", "random-0-2~*",
                   "--report", tmp_path / "report", "--quiet", "--allow-empty")
    assert code == 0


def test_a_run_that_judges_nothing_is_an_error_unless_allowed(tmp_path, capsys):
    report = tmp_path / "report"
    code = run_cli("check", "--command", fake("clean"), "--no-cases", "--examples", 0, "--report", report, "--quiet")
    err = capsys.readouterr().err
    assert code == 2 and "nothing was judged" in err and "--allow-empty" in err
    footer = results(report).footer
    assert footer.exit_code == 2 and footer.gate == "fail"
    assert "nothing was judged" in (report / "summary.md").read_text()
    code = run_cli("check", "--command", fake("clean"), "--no-cases", "--examples", 0, "--report", report, "--quiet",
                   "--allow-empty")
    assert code == 0


def test_a_search_that_judges_nothing_is_an_error_unless_allowed_and_so_is_its_merge(tmp_path, capsys):
    """`fuzz --examples 0` said "conforming" with exit 0; two shards of it merged did too, though `merge --help`
    says a run that judged nothing is an error."""
    def fuzz(report, *more):
        return run_cli("fuzz", "--command", fake("clean"), "--examples", 0, "--report", tmp_path / report, "--quiet",
                       *more)

    assert fuzz("alone") == 2
    assert "nothing was judged" in capsys.readouterr().err
    assert results(tmp_path / "alone").footer.gate == "fail"
    assert fuzz("allowed", "--allow-empty") == 0
    assert [fuzz(f"shard{k}", "--shard", f"{k}/2") for k in (1, 2)] == [0, 0]  # a shard may own nothing
    capsys.readouterr()
    assert run_cli("merge", tmp_path / "shard1", tmp_path / "shard2", "--report", tmp_path / "all", "--quiet") == 2
    assert "nothing was judged" in capsys.readouterr().err
    assert run_cli("merge", tmp_path / "shard1", tmp_path / "shard2", "--report", tmp_path / "all2", "--quiet",
                   "--allow-empty") == 0


def test_every_case_not_applicable_is_nothing_judged(tmp_path, capsys):
    """The clean fake declares orders up to 6 only when asked for "uniform": a case file whose only case needs
    other weights is not applicable, and with no examples nothing is judged."""
    mine = tmp_path / "mine.yaml"
    mine.write_text(MINE.replace("input: {level: corpus,", "options: {weights: [0.5, 0.25, 0.25]}\n"
                                 "    input: {level: corpus,").replace('score: "1"', 'score: "1"'))
    code = run_cli("check", "--command", fake("clean", "--uniform"), "--cases", mine, "--examples", 0,
                   "--report", tmp_path / "report", "--quiet")
    assert code == 2 and "not applicable" in capsys.readouterr().err


def test_a_cases_folder_in_the_working_directory_does_not_replace_the_bundled_suite(tmp_path, monkeypatch):
    (tmp_path / "cases").mkdir()
    (tmp_path / "cases" / "mine.yaml").write_text(MINE)
    monkeypatch.chdir(tmp_path)
    assert run_cli("check", "--command", fake("clean"), "--examples", 0, "--report", "report", "--quiet") in (0, 1)
    run = results(tmp_path / "report")
    ids = {r.id for r in run.records}
    assert "my-exact-match" not in ids and len(ids) == _bundled_count()
    assert "the bundled suite" in run.header.settings.cases


def test_add_cases_adds_to_the_bundled_suite_and_the_summary_says_so(tmp_path):
    mine = tmp_path / "mine.yaml"
    mine.write_text(MINE)
    report = tmp_path / "report"
    run_cli("check", "--command", fake("clean"), "--add-cases", mine, "--examples", 0, "--report", report, "--quiet")
    ids = {r.id for r in results(report).records}
    assert "my-exact-match" in ids and len(ids) == _bundled_count() + 1
    summary = (report / "summary.md").read_text()
    assert f"{_bundled_count()} from the bundled suite, 1 from {mine}" in summary


def test_an_added_case_whose_id_is_already_in_the_suite_is_an_error(tmp_path, capsys):
    taken = load_cases(DEFAULT_CASES_DIR)[0].id
    mine = tmp_path / "mine.yaml"
    mine.write_text(MINE.replace("my-exact-match", taken))
    code = run_cli("check", "--command", fake("clean"), "--add-cases", mine, "--examples", 0,
                   "--report", tmp_path / "report", "--quiet")
    err = capsys.readouterr().err
    assert code == 2 and taken in err and str(mine) in err


def test_a_case_reproduction_line_writes_its_own_report_and_names_its_file(tmp_path):
    mine = tmp_path / "mine.yaml"
    mine.write_text(MINE.replace('score: "1"', 'score: "1/2"'))
    report = tmp_path / "report"
    assert run_cli("check", "--command", fake("clean"), "--cases", mine, "--examples", 0, "--report", report,
                   "--quiet") == 1
    record = next(r for r in results(report).records if r.id == "my-exact-match")
    assert f"--cases {mine}" in record.reproduce and "--report bleu-oracle-replay" in record.reproduce


# -- baseline write onto an existing baseline -----------------------------------------------------------


def _failing_run(tmp_path, name="mutant_no_clipping"):
    """A failing run of one implementation, `mybleu`, with the bug of fake `name` (the same library before and after
    a change: `baseline write` adds to a baseline only a run of the implementation its header names)."""
    report = tmp_path / "report"
    assert run_cli("check", "--command", fake(name, "--name", "mybleu"), "--no-cases", "--examples", 30, "--report",
                   report, "--quiet") == 1
    return report / "results.jsonl"


@pytest.fixture(scope="module")
def no_clipping_run(tmp_path_factory):
    """One failing run (mutant_no_clipping), made once: the tests below only read it (`baseline write --from`)."""
    return _failing_run(tmp_path_factory.mktemp("no-clipping"))


def test_baseline_write_onto_a_reviewed_baseline_keeps_every_reason_and_comment(tmp_path, capsys, no_clipping_run):
    run = no_clipping_run
    out = tmp_path / "baseline.yaml"
    assert run_cli("baseline", "write", "--from", run, "--out", out) == 0
    reviewed = out.read_text().replace("reason: |-\n    TODO", "reason: reviewed, clipping is known to be off")
    reviewed = reviewed.replace("entries:", "# my note: upstream issue 123\nentries:")
    reviewed += "- id: some-case-of-mine\n  outcome: fail\n  reason: kept on purpose\n"
    out.write_text(reviewed)
    capsys.readouterr()
    assert run_cli("baseline", "write", "--from", run, "--out", out) == 0
    err = capsys.readouterr().err
    text = out.read_text()
    assert text.startswith(reviewed)  # every byte the user wrote is still there
    entries = yaml.safe_load(text)["entries"]
    assert all(e["reason"] != "TODO" for e in entries)  # nothing new in this run: nothing added
    assert "some-case-of-mine" in err and "not observed" in err  # stale: reported, kept


def test_baseline_write_adds_new_deviations_as_todo_after_the_reviewed_ones(tmp_path, capsys, no_clipping_run):
    out = tmp_path / "baseline.yaml"
    assert run_cli("baseline", "write", "--from", no_clipping_run, "--out", out) == 0
    reviewed = out.read_text().replace("reason: |-\n    TODO", "reason: reviewed")
    out.write_text(reviewed)
    other = tmp_path / "other"
    other.mkdir()
    assert run_cli("baseline", "write", "--from", _failing_run(other, "mutant_ties_longer"), "--out", out) == 0
    text = out.read_text()
    assert text.startswith(reviewed)
    entries = yaml.safe_load(text)["entries"]
    reasons = [e["reason"] for e in entries]
    assert "reviewed" in reasons and "TODO" in reasons
    assert "added" in capsys.readouterr().err


def test_baseline_write_merges_a_json_baseline_keeping_reasons(tmp_path, no_clipping_run):
    run = no_clipping_run
    out = tmp_path / "baseline.json"
    assert run_cli("baseline", "write", "--from", run, "--out", out) == 0
    document = json.loads(out.read_text())
    for entry in document["entries"]:
        entry["reason"] = "reviewed"
    out.write_text(json.dumps(document))
    assert run_cli("baseline", "write", "--from", run, "--out", out) == 0
    assert all(e["reason"] == "reviewed" for e in json.loads(out.read_text())["entries"])


def test_baseline_write_refuses_a_file_it_cannot_add_to_without_rewriting(tmp_path, capsys, no_clipping_run):
    out = tmp_path / "baseline.yaml"
    out.write_text("# mine\nentries: [{id: x, outcome: fail, reason: kept}]\n")
    before = out.read_text()
    assert run_cli("baseline", "write", "--from", no_clipping_run, "--out", out) == 2
    assert "--force" in capsys.readouterr().err
    assert out.read_text() == before
    assert run_cli("baseline", "write", "--from", no_clipping_run, "--out", out, "--force") == 0
    entries = yaml.safe_load(out.read_text())["entries"]
    assert entries[0] == {"id": "x", "outcome": "fail", "reason": "kept"} and len(entries) > 1
