"""Baselines of known deviations and the gate: strict for ids, by class for random examples.

Holds: oracle.harness.gate, oracle.models.baseline, oracle.commands.baseline
"""

from __future__ import annotations

import json
import re

import pytest
import yaml
from fakes.harness import check, deviations, fake, results, run_cli

from oracle.formulas.errors import BleuValueError
from oracle.harness.gate import BaselineTracker, load_baseline
from oracle.models.results import Record


def write(path, entries):
    path.write_text(yaml.safe_dump({"entries": entries}))
    return path


def baseline_from(tmp_path, report, name="baseline.yaml", *more, review=True):
    """`baseline write`, then (unless `review` is False) the review a human does: every TODO a reason."""
    out = tmp_path / name
    assert run_cli("baseline", "write", "--from", report / "results.jsonl", "--out", out, *more) == 0
    if review:
        text = out.read_text().replace("reason: TODO", "reason: reviewed by the test")
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
    reviewed for it."""
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
    assert results(tmp_path / "other").footer.gate == "fail"
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
        update={"name": "error-when-smoothing-chen-cherry-6-and-order-below-3"})})
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
