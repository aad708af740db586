"""Baselines of known deviations and the gate: strict for ids, by class for random examples; a baseline's life
(write, review, gate, fix, update).

Holds: oracle.harness.gate, oracle.models.baseline, oracle.commands.baseline, oracle.harness.baseline_file
"""

from __future__ import annotations

import json
import os
import re
import shlex

import pytest
import yaml
from fakes.harness import check, deviations, fake, results, run_cli

from oracle.formulas.errors import BleuValueError
from oracle.harness.gate import BaselineTracker, load_baseline
from oracle.models.results import Record
from oracle.textio import read_lines


def write(path, entries):
    path.write_text(yaml.safe_dump({"entries": entries}))
    return path


def reviewed_as(text, reason):
    """A reviewer's edit of a written baseline: the TODO line replaced by `reason`, each of its lines indented as
    TODO is (an editor keeps the indentation)."""
    return re.sub(r"(?m)^( +)TODO$", lambda m: "\n".join(m[1] + line for line in reason.split("\n")), text)


def baseline_from(tmp_path, report, name="baseline.yaml", *more, review=True):
    """`baseline write`, then (unless `review` is False) the review a human does: every TODO a reason."""
    out = tmp_path / name
    assert run_cli("baseline", "write", "--from", report / "results.jsonl", "--out", out, *more) == 0
    if review:
        text = reviewed_as(out.read_text(), "reviewed by the test")  # YAML: the TODO line of each literal block
        out.write_text(text.replace('"reason": "TODO"', '"reason": "reviewed by the test"'))
    return out


def for_the_next_version(baseline, fake_name):
    """The baseline as a later version of the library would be gated by: the fakes stand for one library whose
    bugs come and go, but each names itself after its bug (fakebleu+ties-longer), so the header is renamed."""
    name = "fakebleu+" + fake_name.removeprefix("mutant_").replace("_", "-")
    text = re.sub(r"(?m)^(  name: ).*$", rf"\g<1>{name}", baseline.read_text(), count=1)
    baseline.write_text(text)
    return baseline


def test_a_baseline_of_another_implementation_or_profile_does_not_gate(tmp_path, capsys):
    """A reviewed baseline forgives the deviations of the implementation (and profile) it was written for: given
    to another, its `cause:` and `random:` entries would make that one's gate green on deviations nobody
    reviewed for it. The refusal comes after the handshake: its stop line (the footer) is written, and the
    implementation it started is stopped (its process is gone when `check` returns)."""
    first = tmp_path / "first"
    check(first, fake("mutant_ties_longer"), examples=20)
    baseline = baseline_from(tmp_path, first)
    capsys.readouterr()
    marker = tmp_path / "judged"
    assert check(tmp_path / "other", fake("mutant_ties_longer", "--name", "otherbleu") + f" --touch {marker}",
                 "--baseline", baseline, examples=20) == 2
    err = capsys.readouterr().err
    assert "was written for implementation 'fakebleu+ties-longer', not 'otherbleu'" in err, err
    assert len(err.strip().splitlines()) == 1
    footer = results(tmp_path / "other").footer
    assert footer.gate == "fail" and footer.exit_code == 2 and "not 'otherbleu'" in footer.error, footer
    with pytest.raises(ProcessLookupError):  # stopped and waited for: not even a zombie is left
        os.kill(int(marker.read_text()), 0)
    assert check(tmp_path / "profile", fake("mutant_ties_longer"), "--profile", "nltk", "--baseline", baseline,
                 examples=20) == 2
    assert "profile 'papineni', not 'nltk'" in capsys.readouterr().err
    assert check(tmp_path / "same", fake("mutant_ties_longer"), "--baseline", baseline, examples=20) == 0


def test_an_unreviewed_baseline_is_refused_unless_allowed(tmp_path, capsys):
    first = tmp_path / "first"
    assert check(first, fake("mutant_ties_longer"), examples=40) == 1
    baseline = baseline_from(tmp_path, first, "baseline.yaml", review=False)
    assert check(tmp_path / "second", fake("mutant_ties_longer"), "--baseline", baseline, examples=40) == 2
    err = capsys.readouterr().err
    assert "no reviewed reason" in err and "'TODO'" in err and "--allow-unreviewed" in err
    assert check(tmp_path / "third", fake("mutant_ties_longer"), "--baseline", baseline, "--allow-unreviewed",
                 examples=40) == 0


def statuses(report):
    return [r.baseline.status if r.baseline else None for r in results(report).records]


def test_a_written_baseline_makes_the_same_deviations_known(tmp_path):
    first = tmp_path / "first"
    assert check(first, fake("mutant_ties_longer"), examples=40) == 1
    baseline = baseline_from(tmp_path, first, "baseline.yaml", "--examples-as", "classes")
    data = yaml.safe_load(baseline.read_text())
    assert data["entries"] == [{"id": "random:fail:ref_len", "outcome": "fail", "reason": "reviewed by the test",
                                "count": len(deviations(first)), "example": deviations(first)[0].id,
                                "message": data["entries"][0]["message"]}]
    second = tmp_path / "second"
    assert check(second, fake("mutant_ties_longer"), "--baseline", baseline, examples=40) == 0
    assert "known" in statuses(second) and "new" not in statuses(second)
    footer = results(second).footer
    assert footer.gate == "pass" and footer.baseline.known == len(deviations(first))


def test_class_entries_hold_across_seeds(tmp_path):
    first = tmp_path / "first"
    check(first, fake("mutant_ties_longer"), examples=40)
    baseline = baseline_from(tmp_path, first, "baseline.yaml", "--examples-as", "classes")
    assert check(tmp_path / "other", fake("mutant_ties_longer"), "--seed", 99, "--baseline", baseline, examples=40) == 0


def test_an_unexpected_outcome_fails_the_gate(tmp_path):
    first = tmp_path / "first"
    check(first, fake("mutant_ties_longer"), examples=40)
    baseline = baseline_from(tmp_path, first, "baseline.yaml", "--examples-as", "classes")
    # another bug, at another layer: not covered by random:fail:ref_len
    second = tmp_path / "second"
    for_the_next_version(baseline, "mutant_bp_missing")
    assert check(second, fake("mutant_bp_missing"), "--baseline", baseline, examples=40) == 1
    assert "new" in statuses(second)
    assert results(second).footer.baseline.unused == ("random:fail:ref_len",)


def test_unused_class_entries_do_not_fail_the_gate(tmp_path):
    first = tmp_path / "first"
    check(first, fake("mutant_ties_longer"), examples=40)
    baseline = baseline_from(tmp_path, first, "baseline.yaml", "--examples-as", "classes")
    clean = tmp_path / "clean"
    for_the_next_version(baseline, "clean")
    assert check(clean, fake("clean"), "--baseline", baseline, examples=40) == 0
    assert results(clean).footer.baseline.unused == ("random:fail:ref_len",)
    assert "unused class entry" in (clean / "summary.md").read_text()


def test_by_default_random_examples_are_keyed_by_their_root_cause(tmp_path):
    first = tmp_path / "first"
    assert check(first, fake("mutant_ties_longer"), examples=40) == 1
    data = yaml.safe_load(baseline_from(tmp_path, first).read_text())
    # The mutant breaks length ties towards the longer reference: classify names that convention.
    assert [e["id"] for e in data["entries"]] == ["cause:reference_length=closest-longer"]
    baseline = tmp_path / "baseline.yaml"
    assert check(tmp_path / "again", fake("mutant_ties_longer"), "--seed", 99, "--baseline", baseline, examples=40) == 0


def test_a_root_cause_entry_does_not_cover_another_cause(tmp_path):
    first = tmp_path / "first"
    check(first, fake("mutant_ties_longer"), examples=40)
    baseline = baseline_from(tmp_path, first)
    second = tmp_path / "second"
    for_the_next_version(baseline, "mutant_mean_sentence")
    assert check(second, fake("mutant_mean_sentence"), "--baseline", baseline, examples=40) == 1
    assert "new" in statuses(second) and "known" not in statuses(second)
    assert results(second).footer.baseline.unused == ("cause:reference_length=closest-longer",)


def test_a_known_deviation_that_now_passes_fails_the_gate(tmp_path):
    first = tmp_path / "first"
    check(first, fake("mutant_ties_longer"), examples=40)
    baseline = baseline_from(tmp_path, first, "ids.yaml", "--examples-as", "ids")
    ids = [e["id"] for e in yaml.safe_load(baseline.read_text())["entries"]]
    assert ids == [r.id for r in deviations(first)]
    assert check(tmp_path / "again", fake("mutant_ties_longer"), "--baseline", baseline, examples=40) == 0
    fixed = tmp_path / "fixed"
    for_the_next_version(baseline, "clean")
    assert check(fixed, fake("clean"), "--baseline", baseline, examples=40) == 1
    assert statuses(fixed).count("fixed") == len(ids)
    assert "[baseline: fixed]" in (fixed / "summary.md").read_text()


def test_a_stale_entry_fails_the_gate(tmp_path):
    baseline = write(tmp_path / "b.yaml", [{"id": "no-such-case", "outcome": "fail", "reason": "gone"}])
    report = tmp_path / "report"
    assert check(report, fake("clean"), "--baseline", baseline, examples=10) == 1
    assert results(report).footer.baseline.stale == ("no-such-case",)
    junit = (report / "junit.xml").read_text()
    assert "stale-baseline-entry" in junit and "no-such-case" in junit


def test_exact_example_ids_are_stale_under_another_seed(tmp_path):
    first = tmp_path / "first"
    check(first, fake("mutant_ties_longer"), examples=40)
    baseline = baseline_from(tmp_path, first, "ids.yaml", "--examples-as", "ids")
    assert check(tmp_path / "other", fake("mutant_ties_longer"), "--seed", 1, "--baseline", baseline, examples=40) == 1


def test_stale_is_judged_within_only(tmp_path):
    baseline = write(tmp_path / "b.yaml", [{"id": "some-case", "outcome": "fail", "reason": "r"}])
    assert check(tmp_path / "r", fake("clean"), "--baseline", baseline, "--id", "random-0-1", examples=10) == 0
    assert check(tmp_path / "s", fake("clean"), "--baseline", baseline, "--id", "some-*", "--id", "random-0-1",
                 examples=10) == 1


def test_a_changed_outcome_fails_the_gate(tmp_path):
    baseline = write(tmp_path / "b.yaml", [{"id": "random-0-1", "outcome": "fail", "reason": "known tie bug"}])
    report = tmp_path / "report"
    assert check(report, fake("hang_seq2"), "--baseline", baseline, examples=3, timeout=1) == 1
    record = next(r for r in results(report).records if r.id == "random-0-1")
    assert record.outcome == "timeout" and record.baseline.status == "changed"


def test_a_layer_in_an_entry_must_match(tmp_path):
    first = tmp_path / "first"
    check(first, fake("mutant_ties_longer"), examples=40)
    bad = deviations(first)[0].id
    baseline = write(tmp_path / "b.yaml", [{"id": r.id, "outcome": "fail", "reason": "x", "layer": "ref_len"}
                                           for r in deviations(first)])
    assert check(tmp_path / "ok", fake("mutant_ties_longer"), "--baseline", baseline, examples=40) == 0
    baseline = write(tmp_path / "c.yaml", [{"id": r.id, "outcome": "fail", "reason": "x",
                                            "layer": "bp" if r.id == bad else "ref_len"} for r in deviations(first)])
    assert check(tmp_path / "no", fake("mutant_ties_longer"), "--baseline", baseline, examples=40) == 1


def test_json_baselines_and_case_ids(tmp_path):
    report = tmp_path / "report"
    check(report, fake("wrong_seq"), examples=5)
    out = baseline_from(tmp_path, report, "b.json", "--examples-as", "classes")
    data = json.loads(out.read_text())
    assert [e["id"] for e in data["entries"]] == ["random:protocol-error"]
    assert check(tmp_path / "again", fake("wrong_seq"), "--baseline", out, examples=5) == 0


@pytest.mark.parametrize("entries, message", [
    ([{"id": "x", "outcome": "boom", "reason": ""}], "outcome"),
    ([{"id": "x", "outcome": "pass", "reason": ""}], "not a deviation"),
    ([{"id": "x", "outcome": "fail"}, {"id": "x", "outcome": "crash"}], "duplicate"),
    ([{"id": "random:crash", "outcome": "fail"}], "differs"),
    ([{"id": "random:fail:ref len", "outcome": "fail"}], "class key"),
    ([{"outcome": "fail"}], "id"),
    (["just-a-string"], "entry"),
    ([{"id": "some-case", "outcome": "fail", "cases": ["other-case"]}], "only a root-cause entry"),
    ([{"id": "cause:a", "outcome": "fail", "cases": ["x"]}, {"id": "x", "outcome": "fail"}],
     "case 'x' is an entry of its own and listed under cause:a's cases"),
    ([{"id": "cause:a", "outcome": "fail", "cases": ["x"]}, {"id": "cause:b", "outcome": "fail", "cases": ["x"]}],
     "case 'x' is listed under cause:a and under cause:b"),
    ([{"id": "cause:a", "outcome": "fail", "cases": ["cause:b"]}], "`cases` lists case ids"),
])
def test_invalid_baselines_are_configuration_errors(tmp_path, entries, message):
    path = write(tmp_path / "b.yaml", entries)
    with pytest.raises(BleuValueError, match=message):
        load_baseline(path)
    assert check(tmp_path / "r", fake("clean"), "--baseline", path, examples=1) == 2


def test_empty_and_list_baselines(tmp_path):
    empty = tmp_path / "empty.yaml"
    empty.write_text("")
    assert len(load_baseline(empty)) == 0
    listed = tmp_path / "list.yaml"
    listed.write_text(yaml.safe_dump([{"id": "a", "outcome": "crash", "reason": "r"}]))
    assert load_baseline(listed).by_id["a"].reason == "r"
    bad = tmp_path / "bad.yaml"
    bad.write_text("foo: 1\n")
    with pytest.raises(BleuValueError, match="entries"):
        load_baseline(bad)


@pytest.mark.parametrize("text,message", [
    ("entries:\n- &e {id: a, outcome: fail}\n- *e\n", r"b.yaml:3: YAML aliases"),
    ("entries: " + "[" * 100 + "]" * 100 + "\n", "nesting deeper than"),
    ("entries: [\n", "not valid YAML"),
])
def test_a_baseline_refuses_aliases_deep_nesting_and_broken_yaml(tmp_path, text, message):
    path = tmp_path / "b.yaml"
    path.write_text(text)
    with pytest.raises(BleuValueError, match=message):
        load_baseline(path)


def test_tracker_statuses():
    from oracle.models.baseline import Baseline, BaselineEntry

    baseline = Baseline(entries=[
        BaselineEntry(id="case-a", outcome="fail", reason="known"),
        BaselineEntry(id="case-b", outcome="fail", reason="fixed upstream"),
        BaselineEntry(id="random:crash", outcome="crash", reason="flaky"),
        BaselineEntry(id="gone", outcome="error", reason="old"),
    ])
    tracker = BaselineTracker(baseline)
    def record(i, outcome, kind="case", layer=None):
        return Record(id=i, kind=kind, outcome=outcome, layer=layer)

    assert tracker.status(record("case-a", "fail", layer="score")).status == "known"
    assert tracker.status(record("case-b", "pass")).status == "fixed"
    assert tracker.status(record("case-c", "fail", layer="bp")).status == "new"
    assert tracker.status(record("case-d", "pass")) is None
    assert tracker.status(record("case-e", "not-applicable")) is None
    assert tracker.status(record("random-0-1", "crash", "example")).status == "known"
    assert tracker.status(record("random-0-2", "fail", "example", "bp")).status == "new"
    assert tracker.stale() == ["gone"]
    assert tracker.unused() == []
    assert tracker.gate_failed()


def test_a_tracker_that_hears_records_gated_elsewhere_by_the_same_baseline_counts_as_the_gating_one():
    """`--jobs`: a worker gates its records (`BaselineTracker.gate`), the parent hears them (`heard`). By hand, under
    the entries below: case-a known, case-b fixed, case-c new, random-0-1 known by the class entry (so it is used);
    `gone` and `random-0-9` were met by no record (stale), `random:fail:bp` by none (unused)."""
    from oracle.harness.gate import Finding, Gating
    from oracle.models.baseline import Baseline, BaselineEntry
    from oracle.models.outcomes import Outcome
    from oracle.models.results import BaselineStatus

    baseline = Baseline(entries=[
        BaselineEntry(id="case-a", outcome="fail", reason="known"),
        BaselineEntry(id="case-b", outcome="fail", reason="fixed upstream"),
        BaselineEntry(id="random:crash", outcome="crash", reason="flaky"),
        BaselineEntry(id="random:fail:bp", outcome="fail", reason="never met"),
        BaselineEntry(id="gone", outcome="error", reason="old"),
        BaselineEntry(id="random-0-9", outcome="fail", reason="an example not drawn"),
    ])
    worker, parent = BaselineTracker(baseline, check_stale=False), BaselineTracker(baseline)
    findings = [Finding("case-a", "case", Outcome.FAIL, "score"), Finding("case-b", "case", Outcome.PASS),
                Finding("case-c", "case", Outcome.FAIL, "bp"), Finding("case-d", "case", Outcome.PASS),
                Finding("random-0-1", "example", Outcome.CRASH)]
    for finding in findings:
        gating = worker.gate(finding)
        parent.heard(Record(id=finding.id, kind=finding.kind, outcome=finding.outcome, layer=finding.layer,
                            baseline_key=gating.key, baseline=gating.status))
    assert worker.gate(Finding("random-0-1", "example", Outcome.CRASH)) == \
        Gating("random:crash", BaselineStatus(status="known", reason="flaky", entry="random:crash"))
    summary = parent.summary()
    assert (summary.known, summary.fixed, summary.new, summary.changed) == (2, 1, 1, 0)
    assert tuple(summary.stale) == ("gone", "random-0-9") and tuple(summary.unused) == ("random:fail:bp",)
    assert parent.gate_failed()


def test_a_tracker_keeps_only_the_record_ids_a_stale_entry_can_name():
    """Memory that does not grow with the run (issue 39: `check`'s peak memory at 20,000 examples): the ids of the
    records gated or heard are kept only where an exact-id entry or a case listed under a cause entry has them;
    stale entries are found as before (by hand: `gone` and `listed-case` met no record, `case-a` did)."""
    from oracle.models.baseline import Baseline, BaselineEntry

    baseline = Baseline(entries=[
        BaselineEntry(id="case-a", outcome="fail", reason="known"),
        BaselineEntry(id="gone", outcome="error", reason="old"),
        BaselineEntry(id="cause:x", outcome="fail", reason="by cause", cases=["listed-case"]),
    ])
    tracker = BaselineTracker(baseline)
    for index in range(500):
        tracker.status(Record(id=f"random-0-{index}", kind="example", outcome="pass"))
        tracker.heard(Record(id=f"random-0-{index}~text", kind="example", outcome="pass"))
    tracker.status(Record(id="case-a", kind="case", outcome="fail", layer="score"))
    assert tracker.seen_ids == {"case-a"}
    assert tracker.stale() == ["gone", "listed-case"]
    tracker.heard(Record(id="listed-case", kind="case", outcome="fail"))
    assert tracker.stale() == ["gone"]

def test_the_committed_baseline_schema_is_generated_and_the_reviewed_baselines_validate(repo_root):
    import json

    from jsonschema import Draft202012Validator

    from oracle.models import baseline as model
    from oracle.suite.safeyaml import load_yaml

    assert model.SCHEMA_PATH.read_text(encoding="utf-8") == model.render_schema(), (
        "run `python -m oracle.models.baseline`"
    )
    validator = Draft202012Validator(json.loads(model.render_schema()))
    for path in sorted((repo_root / "baselines").glob("*.yaml")):
        document = load_yaml(path.read_text(encoding="utf-8"), name=str(path))
        assert validator.is_valid(document), (path, list(validator.iter_errors(document))[:1])
        assert len(load_baseline(path)) == len(document["entries"])


def test_replaying_a_run_passes_the_baseline_written_from_it(tmp_path):
    first = tmp_path / "first"
    assert check(first, fake("mutant_ties_longer"), examples=40) == 1
    baseline = baseline_from(tmp_path, first, "baseline.yaml")  # random examples keyed by cause
    assert any(e["id"].startswith("cause:") for e in yaml.safe_load(baseline.read_text())["entries"])
    replayed = tmp_path / "replayed"
    code = run_cli("check", "--command", fake("mutant_ties_longer"), "--replay", first / "results.jsonl",
                   "--baseline", baseline, "--report", replayed, "--quiet")
    assert code == 0
    assert {r.baseline.status for r in results(replayed).records if r.outcome == "fail"} == {"known"}


def test_an_error_entry_names_its_kind():
    from oracle.harness.gate import cause_key

    def record(message):
        return Record(kind="example", id="random-0-1", outcome="error", message=message,
                      classification={"name": "error"})

    assert cause_key(record("answered error: IndexError: list index out of range")) == "cause:error:IndexError"
    assert cause_key(record("answered unsupported: no smoothing here")) == "cause:error:unsupported"
    assert cause_key(record("answered error: something broke")) == "cause:error:error"


def test_an_error_is_keyed_by_its_trigger_and_still_by_its_kind():
    """An error named by the input feature that triggers it (`oracle.diagnose.errorcauses`) is keyed by that cause
    first, and by its kind too, which baselines written before errors had causes list; a series step's message
    says which step before the answer (nltk seed 2, random-2-175~series), and its kind is read all the same."""
    from oracle.harness.gate import cause_keys, error_kind

    series = Record(kind="series", id="random-2-175~series", outcome="error",
                    message="series step 2 of 36 (base input B, again); answered error: IndexError: list index out of "
                            "range", classification={"name": "error"})
    assert error_kind(series) == "IndexError"
    assert cause_keys(series) == ["cause:error:IndexError"]
    named = series.model_copy(update={"classification": series.classification.model_copy(
        update={"parts": ("error-when-smoothing-chen-cherry-6-and-order-below-3",)})})
    assert cause_keys(named) == ["cause:error-when-smoothing-chen-cherry-6-and-order-below-3",
                                 "cause:error:IndexError"]


@pytest.mark.parametrize(("reason", "says"), [
    ("todo", "no reviewed reason"), ("TODO.", "no reviewed reason"), (" Todo! ", "no reviewed reason"),
    (123, "a reason is text saying why the deviation is acceptable (got 123)"),
    (["a"], "a reason is text"), (float("nan"), "a reason is text"),
])
def test_a_reason_nobody_wrote_is_not_a_reviewed_reason(tmp_path, reason, says):
    """`baseline write` leaves TODO: however it is spelt, it is no review; a number or a list is no reason."""
    path = tmp_path / "b.json"
    path.write_text(json.dumps({"entries": [{"id": "some-case", "outcome": "fail", "reason": reason}]}))
    with pytest.raises(BleuValueError, match=re.escape(says)):
        load_baseline(path)


def test_merge_refuses_a_baseline_of_another_implementation(tmp_path, capsys):
    shards = [tmp_path / "s1", tmp_path / "s2"]
    for number, shard in enumerate(shards, 1):
        check(shard, fake("mutant_ties_longer", "--name", "otherbleu"), "--shard", f"{number}/2", examples=10)
    first = tmp_path / "first"
    check(first, fake("mutant_ties_longer"), examples=20)
    baseline = baseline_from(tmp_path, first)
    capsys.readouterr()
    assert run_cli("merge", *shards, "--report", tmp_path / "all", "--baseline", baseline) == 2
    assert "was written for implementation 'fakebleu+ties-longer', not 'otherbleu'" in capsys.readouterr().err
    assert not (tmp_path / "all" / "results.jsonl").exists()


def test_unreadable_inputs_are_named_in_words(tmp_path, capsys):
    """Never a bare `[Errno 21]` or a model's words: what was given, and what it should have been."""
    empty = tmp_path / "empty"
    empty.mkdir()
    assert run_cli("baseline", "write", "--from", empty, "--out", tmp_path / "b.yaml") == 2
    assert (f"cannot read {empty}: no results.jsonl there (give a `check` run's report directory or its "
            "results.jsonl)") in capsys.readouterr().err
    assert check(tmp_path / "r", fake("clean"), "--baseline", empty, examples=1) == 2
    err = capsys.readouterr().err
    assert f"cannot read baseline {empty} (Is a directory)" in err and "Errno" not in err
    stream = tmp_path / "strings.jsonl"
    stream.write_text('"just a string"\n')
    assert run_cli("baseline", "write", "--from", stream, "--out", tmp_path / "b.yaml") == 2
    assert f"{stream}:1: not a header, record or footer of a results.jsonl (a JSON str)" in capsys.readouterr().err


def test_a_baseline_written_from_a_run_cut_short_says_so(tmp_path, capsys):
    first = tmp_path / "first"
    check(first, fake("mutant_ties_longer"), examples=20)
    stream = first / "results.jsonl"
    lines = stream.read_text().split("\n")
    stream.write_text("\n".join(lines[:-2]) + "\n")  # the footer gone: as a run killed before its end leaves it
    capsys.readouterr()
    assert run_cli("baseline", "write", "--from", first, "--out", tmp_path / "b.yaml") == 0
    assert "is of a run cut short (no footer: interrupted or killed)" in capsys.readouterr().err


# -- a baseline's life: write, review, gate green, fix, gate fails, update, gate green ---------------------

#: The fakes stand for one library whose bug is fixed in its next version: both name themselves the same.
LIBRARY = "mybleu"


def whole_check(report, name, *more, examples=20, quiet=True):
    """`check` as a user runs it: the bundled cases and random examples, of `tests/fakes/<name>.py` as LIBRARY."""
    return run_cli("check", "--command", fake(name, "--name", LIBRARY), "--examples", examples, "--timeout", 5,
                   "--report", report, *(["--quiet"] if quiet else []), *more)


@pytest.fixture(scope="module")
def buggy_run(tmp_path_factory):
    """A whole run of a library whose one bug is clipping left out (documented cases and random examples fail)."""
    report = tmp_path_factory.mktemp("buggy") / "report"
    assert whole_check(report, "mutant_no_clipping") == 1
    return report


@pytest.fixture(scope="module")
def random_only_run(tmp_path_factory):
    """The same library's run without cases: a cheap run to update from."""
    report = tmp_path_factory.mktemp("random-only") / "report"
    assert check(report, fake("mutant_no_clipping", "--name", LIBRARY), examples=30) == 1
    return report


def failing_cases(report):
    return [r.id for r in deviations(report) if r.kind == "case"]


def test_baseline_write_makes_one_entry_per_run_cause_listing_its_cases(tmp_path, buggy_run):
    """One bug, one reason to write: before, each documented case it made fail was an entry of its own (a reason
    per case) next to the one entry of the random examples that failed for the same cause."""
    causes = [cause.name for cause in results(buggy_run).footer.causes]
    assert causes == ["unclipped-matches"]  # the fake has one bug, and the run names it once
    cases = failing_cases(buggy_run)
    examples = [r for r in deviations(buggy_run) if r.kind != "case"]
    assert len(cases) > 1 and examples
    data = yaml.safe_load(baseline_from(tmp_path, buggy_run, review=False).read_text())
    assert [(e["id"], e["reason"], e["cases"], e["count"]) for e in data["entries"]] == [
        ("cause:unclipped-matches", "TODO", cases, len(examples))]
    # --cases-as ids: a case an entry of its own, as before
    data = yaml.safe_load(baseline_from(tmp_path, buggy_run, "ids.yaml", "--cases-as", "ids", review=False).read_text())
    assert [e["id"] for e in data["entries"]] == [*cases, "cause:unclipped-matches"]


def test_a_baseline_s_life(tmp_path, buggy_run, capsys):
    """write, review, gate green on the buggy library; the bug fixed, the gate fails saying the implementation
    improved and naming the command; `baseline update` removes the entry, printing it; gate green on the fixed
    library. Before, the fixed run said "deviations found" and told the user to write a baseline, and nothing
    removed the entries but an edit by hand."""
    baseline = baseline_from(tmp_path, buggy_run)  # written, then every TODO given a reason
    listed = yaml.safe_load(baseline.read_text())["entries"][0]["cases"]
    assert whole_check(tmp_path / "gated", "mutant_no_clipping", "--baseline", baseline) == 0
    fixed = tmp_path / "fixed"
    capsys.readouterr()
    # an expected failure that passes fails the gate (docs/checking.md: exit 1), in the words of what happened
    assert whole_check(fixed, "clean", "--baseline", baseline, quiet=False) == 1
    out = capsys.readouterr().out
    assert (f"bleu-oracle check: the gate fails: {len(listed)} known deviations no longer occur (the implementation "
            "improved; nothing new deviates): ") in out
    assert "deviations found" not in out
    update = f"bleu-oracle baseline update --from {shlex.quote(str(fixed))} --baseline {shlex.quote(str(baseline))}"
    assert f"next: the baseline lists deviations this run no longer has: `{update}` removes them" in out
    assert run_cli(*shlex.split(update)[1:]) == 0
    assert capsys.readouterr().out.splitlines() == [
        f"removed cause:unclipped-matches (no record of this run deviates by it; its cases: {len(listed)} pass now); "
        "its reason was: 'reviewed by the test'",
        f"{baseline}: removed 1 entry, added 0 entries, kept 0 entries as written"]
    assert len(load_baseline(baseline)) == 0
    assert whole_check(tmp_path / "green", "clean", "--baseline", baseline) == 0


def test_update_keeps_what_still_matches_byte_for_byte_and_removes_only_what_is_gone(tmp_path, buggy_run, capsys):
    """A case listed by hand that passes and an entry for a case the suite no longer has go, each printed; the
    reviewed entry, its other cases and the user's comments stay as written."""
    baseline = baseline_from(tmp_path, buggy_run)
    passing = next(r.id for r in results(buggy_run).records if r.kind == "case" and r.outcome == "pass")
    reviewed = baseline.read_text().replace("entries:\n", "# upstream issue 123: clipping\nentries:\n")
    edited = reviewed.replace("  cases:\n", f"  cases:\n  - {passing}  # added by hand\n")
    baseline.write_text(edited + "- id: a-case-the-suite-dropped\n  outcome: fail\n  reason: it was wrong\n")
    capsys.readouterr()
    assert run_cli("baseline", "update", "--from", buggy_run, "--baseline", baseline) == 0
    assert capsys.readouterr().out.splitlines()[:2] == [
        f"removed {passing} from the cases of cause:unclipped-matches (pass now)",
        "removed a-case-the-suite-dropped (no record in this run); its reason was: 'it was wrong'"]
    assert baseline.read_text() == reviewed
    assert whole_check(tmp_path / "gated", "mutant_no_clipping", "--baseline", baseline) == 0


def test_update_removes_a_fixed_bug_and_adds_the_new_one_for_review(tmp_path, random_only_run, capsys):
    baseline = baseline_from(tmp_path, random_only_run)
    later = tmp_path / "later"
    assert check(later, fake("mutant_ties_longer", "--name", LIBRARY), examples=30) == 1
    [cause] = [cause.name for cause in results(later).footer.causes]
    capsys.readouterr()
    assert run_cli("baseline", "update", "--from", later, "--baseline", baseline) == 0
    assert capsys.readouterr().out.splitlines() == [
        "removed cause:unclipped-matches (no record of this run deviates by it); its reason was: "
        "'reviewed by the test'",
        f"added cause:{cause} (fail, {len(deviations(later))} random example(s)): reason TODO",
        f"{baseline}: removed 1 entry, added 1 entry, kept 0 entries as written; review the TODO reasons before the "
        f"next gate: `bleu-oracle check ... --baseline {baseline}`"]
    entries = yaml.safe_load(baseline.read_text())["entries"]
    assert [(e["id"], e["reason"]) for e in entries] == [(f"cause:{cause}", "TODO")]
    assert check(tmp_path / "unreviewed", fake("mutant_ties_longer", "--name", LIBRARY), "--baseline", baseline,
                 examples=30) == 2  # a reason nobody wrote gates nothing
    assert run_cli("baseline", "update", "--from", later, "--baseline", baseline) == 0
    assert "nothing to update" in capsys.readouterr().out


def _cut_short(report, whole):
    """A whole run's stream without its footer, as a run killed before its end leaves it."""
    lines = list(read_lines(whole / "results.jsonl"))
    report.mkdir()
    (report / "results.jsonl").write_text("\n".join(lines[:-1]) + "\n")


def _interrupted(report, whole):
    """A whole run's stream whose footer says it was interrupted, as ^C leaves it."""
    lines = list(read_lines(whole / "results.jsonl"))
    footer = json.loads(lines[-1])
    footer["interrupted"] = True
    report.mkdir()
    (report / "results.jsonl").write_text("\n".join([*lines[:-1], json.dumps(footer)]) + "\n")


@pytest.mark.parametrize("run, says", [
    (_cut_short, "it was cut short (no footer: interrupted or killed)"),
    (_interrupted, "it was interrupted (^C or SIGTERM) before its end"),
    (lambda report, _: check(report, fake("mutant_no_clipping", "--name", LIBRARY), "--id", "random-0-1*",
                          examples=30), "it ran only what --id random-0-1* selects"),
    (lambda report, _: check(report, fake("mutant_no_clipping", "--name", LIBRARY), "--shard", "1/2", examples=30),
     "it is shard 1/2 of a run (update from the report `bleu-oracle merge` writes of all the shards)"),
    (lambda report, _: check(report, fake("crash_third", "--name", LIBRARY), "--max-restarts", 0, examples=10),
     "of its records were not attempted (the implementation crashed more often than --max-restarts allows)"),
    (lambda report, _: check(report, fake("mutant_no_clipping", "--name", "otherbleu"), examples=30),
     "the baseline was written for implementation 'mybleu', not 'otherbleu' (the run's)"),
])
def test_update_refuses_a_run_that_cannot_say_what_is_gone(tmp_path, random_only_run, capsys, run, says):
    """Each would remove the entries of what it never judged (or another library's): exit 2, one line, the
    baseline as it was."""
    baseline = baseline_from(tmp_path, random_only_run)
    before = baseline.read_text()
    report = tmp_path / "report"
    run(report, random_only_run)
    capsys.readouterr()
    assert run_cli("baseline", "update", "--from", report, "--baseline", baseline) == 2
    err = capsys.readouterr().err
    assert says in err and len(err.strip().splitlines()) == 1, err
    assert baseline.read_text() == before


def test_update_writes_through_a_link_keeping_the_file_s_permissions(tmp_path, random_only_run):
    target = tmp_path / "kept" / "baseline.yaml"
    target.parent.mkdir()
    baseline_from(tmp_path, random_only_run).rename(target)
    target.write_text(target.read_text() + "- id: cause:gone-bug\n  outcome: fail\n  reason: fixed since\n")
    target.chmod(0o640)
    link = tmp_path / "baseline.yaml"
    link.symlink_to(target)
    assert run_cli("baseline", "update", "--from", random_only_run, "--baseline", link, "--quiet") == 0
    assert link.is_symlink() and "gone-bug" not in target.read_text()
    assert os.stat(target).st_mode & 0o777 == 0o640


def test_update_prints_what_it_removes_on_one_line_each_escaped(tmp_path, random_only_run, capsys):
    """An id and a reason are the user's text: a line break or an escape sequence in one is shown, not acted on."""
    baseline = baseline_from(tmp_path, random_only_run)
    baseline.write_text(baseline.read_text() + '- id: "cause:gone-\\e[31mred"\n  outcome: fail\n'
                        '  reason: "first\\nsecond\\u202e"\n')
    capsys.readouterr()
    assert run_cli("baseline", "update", "--from", random_only_run, "--baseline", baseline) == 0
    assert capsys.readouterr().out.splitlines()[0] == ("removed cause:gone-\\x1b[31mred (no record of this run "
                                                       "deviates by it); its reason was: 'first\\nsecond\\u202e'")


def test_write_adds_to_a_baseline_whose_entries_list_cases(tmp_path, buggy_run, capsys):
    """A cause entry's `cases:` is a list inside the list of entries: what is added goes after the last entry, at
    the entries' indentation, every byte before kept."""
    baseline = baseline_from(tmp_path, buggy_run)
    reviewed = baseline.read_text()
    assert "  cases:\n  - " in reviewed
    later = tmp_path / "later"
    check(later, fake("mutant_ties_longer", "--name", LIBRARY), examples=30)
    assert run_cli("baseline", "write", "--from", later, "--out", baseline) == 0
    text = baseline.read_text()
    assert text.startswith(reviewed)
    entries = yaml.safe_load(text)["entries"]
    assert [e["reason"] for e in entries] == ["reviewed by the test", "TODO"]
    assert "baseline update --from" in capsys.readouterr().err  # not observed: the command that removes it


def test_a_case_listed_under_a_cause_is_as_strict_as_an_entry_of_its_own():
    from oracle.models.baseline import Baseline, BaselineEntry

    cases = ("case-a", "case-b", "case-c", "case-d")
    tracker = BaselineTracker(Baseline(entries=[
        BaselineEntry(id="cause:unclipped-matches", outcome="fail", reason="known", cases=cases)]))

    def record(i, outcome, cause=None):
        return Record(id=i, kind="case", outcome=outcome, layer="matches",
                      classification={"name": cause} if cause else None)

    assert tracker.status(record("case-a", "fail", "unclipped-matches")).status == "known"
    assert tracker.status(record("case-b", "pass")).status == "fixed"
    changed = tracker.status(record("case-c", "fail", "no-brevity-penalty"))
    assert (changed.status, changed.was) == ("changed", "fail by cause:unclipped-matches")
    assert tracker.status(record("case-e", "fail", "unclipped-matches")).status == "new"  # listed nowhere: unreviewed
    assert tracker.stale() == ["case-d"]


def test_a_gate_failed_only_by_entries_gone_says_so_and_names_the_update(tmp_path, capsys):
    baseline = write(tmp_path / "b.yaml", [{"id": "no-such-case", "outcome": "fail", "reason": "gone"}])
    report = tmp_path / "report"
    assert run_cli("check", "--command", fake("clean"), "--no-cases", "--examples", 10, "--report", report,
                   "--baseline", baseline) == 1
    out = capsys.readouterr().out
    assert "bleu-oracle check: the gate fails: 1 baseline entry names no record of this run (nothing new deviates)" \
        in out
    assert f"`bleu-oracle baseline update --from {report} --baseline {baseline}` removes them" in out
    # a new deviation besides: deviations found, and the update adds it for review
    assert run_cli("check", "--command", fake("mutant_ties_longer"), "--no-cases", "--examples", 30, "--report",
                   report, "--baseline", baseline, "--allow-unreviewed") == 1
    out = capsys.readouterr().out
    assert "bleu-oracle check: deviations found: " in out
    assert f"`bleu-oracle baseline update --from {report} --baseline {baseline}` adds the new deviations" in out


# -- reasons a reviewer writes: any text ----------------------------------------------------------------------

#: Reasons whose text YAML would read otherwise in a plain scalar (`reason: TODO` edited in place): a mapping's
#: ": ", a comment's "#", a sequence's leading "-", quotes of both kinds, a regex's backslashes, lines.
HOSTILE_REASONS = [
    "the script: prints BLEU to 4 decimals",
    "# upstream says wontfix",
    "- a leading dash, as in a list",
    "it's the script's \"printf\" of 'BLEU'",
    "the tokenizer's s/-\\n//g, then s/[\\s]+/ /g",
    "ends with a colon:",
    "{not: a map} [nor, a list] &no *alias !no %tag @x ? key | > TODO: later",
    "first line: why\n- second line # not a comment\n  indented third: 'quoted'",
]


@pytest.mark.parametrize("reason", HOSTILE_REASONS)
def test_a_reviewer_can_replace_todo_with_any_reason(tmp_path, random_only_run, reason):
    """Before, `baseline write` left `reason: TODO` a plain scalar: replacing TODO with "the script: prints" broke
    the file, with "# why" made the reason empty, with "{...}" a map. It now writes a literal block."""
    baseline = baseline_from(tmp_path, random_only_run, review=False)
    baseline.write_text(reviewed_as(baseline.read_text(), reason))
    assert [entry.reason for entry in load_baseline(baseline).entries] == [reason]


def test_a_reviewed_hostile_reason_gates_and_survives_an_update_byte_for_byte(tmp_path, random_only_run, capsys):
    baseline = baseline_from(tmp_path, random_only_run, review=False)
    baseline.write_text(reviewed_as(baseline.read_text(), HOSTILE_REASONS[-1]))
    reviewed = baseline.read_text()
    assert check(tmp_path / "gated", fake("mutant_no_clipping", "--name", LIBRARY), "--baseline", baseline,
                 examples=30) == 0
    gone = f"- id: cause:gone-bug\n  outcome: fail\n  reason: |-\n    {HOSTILE_REASONS[0]}\n"
    baseline.write_text(reviewed + gone)
    assert run_cli("baseline", "update", "--from", random_only_run, "--baseline", baseline, "--quiet") == 0
    assert baseline.read_text() == reviewed  # the gone entry's lines removed, the reviewed one as written


def test_reasons_written_by_write_and_update_read_back_as_they_were():
    """Every reason `_dump_yaml` writes (new entries' TODO; every entry when --force rewrites a file) reads back
    equal: in a literal block, or double-quoted where one would not (a tab, NEL, U+2028, ...); so does every
    other string (safe_dump wrote a NEL raw inside single quotes, which reads back as a space)."""
    from oracle.harness.baseline_file import _dump_yaml

    reasons = [*HOSTILE_REASONS, "TODO", "", "  leading spaces", "trailing space ", "a final line break\n",
               "tab\there", "NEL\x85here", "line\u2028separator", "C1 \x9b and DEL \x7f"]
    entries = [{"id": f"case-{i}", "outcome": "fail", "reason": reason, "message": reason}
               for i, reason in enumerate(reasons)]
    text = _dump_yaml({"entries": entries})
    assert yaml.safe_load(text) == {"entries": entries}
    assert "  reason: |-\n    the script: prints BLEU to 4 decimals\n" in text


# -- update removes only what its run could have met ---------------------------------------------------------


def test_update_from_a_smaller_run_removes_only_what_that_run_could_have_met(tmp_path, buggy_run, capsys):
    """The bug fixed, a quick run (`--no-cases --examples 5`) meets neither the cause entry's cases nor, with 5
    random examples where the baseline's run drew 20, enough of the search to say the cause is gone: before,
    `update` removed the entry (and an exact example of another seed) all the same. Now it keeps each, printed
    "unmet"; a run with the cases removes the cases that pass and keeps the entry for its random examples; a run as
    large as the baseline's removes it; a baseline whose header does not say how large its run was keeps it."""
    baseline = baseline_from(tmp_path, buggy_run)
    assert yaml.safe_load(baseline.read_text())["examples"] == 20  # the buggy run drew 20
    reviewed = baseline.read_text() + "- id: random-7-3\n  outcome: fail\n  reason: seen under seed 7\n"
    baseline.write_text(reviewed)
    listed = yaml.safe_load(reviewed)["entries"][0]["cases"]

    quick = tmp_path / "quick"
    assert check(quick, fake("clean", "--name", LIBRARY), examples=5) == 0
    capsys.readouterr()
    assert run_cli("baseline", "update", "--from", quick, "--baseline", baseline) == 0
    out = capsys.readouterr().out.splitlines()
    assert baseline.read_text() == reviewed  # nothing the quick run could not have met is gone
    assert "kept cause:unclipped-matches, unmet: not met by this run's 5 random examples, fewer than the 20 of the " \
           "run that wrote the baseline" in out
    assert "kept random-7-3, unmet: not judged by this run (seed 0, the example is of seed 7)" in out
    assert f"kept {listed[0]} in the cases of cause:unclipped-matches, unmet: not judged by this run (it did not run " \
           "the bundled suite of documented cases)" in out
    assert out[-1].endswith("nothing to update")

    with_cases = tmp_path / "with-cases"
    assert whole_check(with_cases, "clean", examples=5) == 0
    capsys.readouterr()
    assert run_cli("baseline", "update", "--from", with_cases, "--baseline", baseline) == 0
    out = capsys.readouterr().out.splitlines()
    assert [line for line in out if line.startswith("removed ")] == [
        f"removed {case} from the cases of cause:unclipped-matches (pass now)" for case in listed]
    [entry, example] = load_baseline(baseline).entries
    assert (entry.id, entry.cases, example.id) == ("cause:unclipped-matches", (), "random-7-3")

    whole = tmp_path / "whole"
    assert whole_check(whole, "clean") == 0
    undated = tmp_path / "undated.yaml"
    undated.write_text(re.sub(r"(?m)^examples: 20\n", "", baseline.read_text()))
    capsys.readouterr()
    assert run_cli("baseline", "update", "--from", whole, "--baseline", undated) == 0
    assert "kept cause:unclipped-matches, unmet: not met by this run's 20 random examples, and the baseline does not " \
           "say how many its own run drew" in capsys.readouterr().out
    assert run_cli("baseline", "update", "--from", whole, "--baseline", baseline) == 0
    assert capsys.readouterr().out.splitlines()[0].startswith(
        "removed cause:unclipped-matches (no record of this run deviates by it)")
    assert [e.id for e in load_baseline(baseline).entries] == ["random-7-3"]
