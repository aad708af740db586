"""`bleu-oracle fuzz`: finds disagreements, shrinks them, names their root cause, writes regression cases.

The expected root causes follow from how each fake is built (tests/fakes/fakebleu.py) and, for
nltk, from its code as recorded in oracle/diagnose/data/discrepancies.yaml -- never from the oracle's output.

Holds: oracle.commands.fuzz, oracle.reports.foundcases, oracle.suite.foundcases
"""

from __future__ import annotations

import contextlib
import io
import json
import math
import re
from pathlib import Path

import pytest
from fakes.harness import fake, results, run_cli

from oracle.diagnose import discrepancies
from oracle.diagnose.casecheck import check_case, check_cases
from oracle.diagnose.classify import (
    classify,
    explained_value,
    smoothing_from_description,
)
from oracle.formulas.conventions import Smoothing
from oracle.formulas.errors import BleuValueError, CaseFileError
from oracle.harness.requests import request_from_json
from oracle.models.protocol import ScoreRequest, Segment
from oracle.reports.foundcases import tolerance_for
from oracle.suite import cases as casefiles
from oracle.suite.foundcases import case_id, input_hash

DISCREPANCIES = discrepancies.load()


def fuzz(report, *more, target=None, examples=30):
    target = target or ["--command", fake("clean")]
    return run_cli("fuzz", *target, "--examples", examples, "--timeout", 10, "--report", report, *more)


@pytest.fixture(scope="module")
def ties_longer_fuzz(tmp_path_factory):
    """`fuzz` of mutant_ties_longer with 40 examples, run once: (exit code, report folder, what it printed). The
    tests that use it read its results and its output; none writes to its report."""
    report = tmp_path_factory.mktemp("ties-longer") / "report"
    with contextlib.redirect_stdout(io.StringIO()) as out:
        code = fuzz(report, target=["--command", fake("mutant_ties_longer")], examples=40)
    return code, report, out.getvalue()


def classes(report):
    return {r.classification.name for r in results(report).records if r.classification}


# -- finding and naming -----------------------------------------------------------------------


@pytest.mark.parametrize("mutant, name", [
    # ties go to the longer reference; its run is the module's (`ties_longer_fuzz`: in the module's xdist_group)
    pytest.param("mutant_ties_longer", "reference_length=closest-longer",
                 marks=pytest.mark.xdist_group("tests/commands/test_fuzz.py")),
    ("mutant_mean_sentence", "mean-of-sentence-scores"),  # corpus score = mean of sentence scores
    ("mutant_normalise_weights", "weights=normalise"),  # divides the weights by their sum
])
def test_fuzz_names_the_root_cause_of_a_mutant(request, tmp_path, capsys, mutant, name):
    if mutant == "mutant_ties_longer":  # the run other tests read too
        code, report, out = request.getfixturevalue("ties_longer_fuzz")
    else:
        report = tmp_path / "report"
        code = fuzz(report, target=["--command", fake(mutant)], examples=40)
        out = capsys.readouterr().out
    assert code == 1
    assert classes(report) == {name}
    assert f"\n{name}  x" in out
    # (a series' smallest reproduces by its id: the state is the point, the whole series again)
    assert "smallest (random-0-" in out and "reproduce: bleu-oracle check --command" in out
    assert "--replay" in out or "--id 'random-0-" in out
    header = results(report).header
    assert header.settings.verb == "fuzz"
    records = [r for r in results(report).records if "~" not in r.id]  # relations: test_check.py; companions aside
    assert all(r.kind == "example" for r in records) and len(records) == 40
    companions = {r.id.split("~")[1] for r in results(report).records if r.kind != "metamorphic" and "~" in r.id}
    assert companions == {"refused", "series", "brackets", "line-ends"}  # (no text: the mutants declare no tokenizer)
    failing = [r for r in records if r.outcome == "fail"]
    assert all(r.classification.name == name for r in failing)
    assert failing[0].shrunk is not None  # the first of its kind
    summary = (report / "summary.md").read_text()
    assert summary.startswith("# bleu-oracle fuzz:") and "## Root causes" in summary and f"`{name}`" in summary


def test_the_smallest_example_reproduces_with_check(tmp_path, ties_longer_fuzz):
    code, report, _ = ties_longer_fuzz
    assert code == 1
    from oracle.reports.summaries import root_cause_groups

    [group] = root_cause_groups(results(report).records)
    replay = group.smallest.reported_input
    # a tie needs at least one token and two references (lengths c - d and c + d)
    assert replay.reference_count >= 2
    again = tmp_path / "again"
    code = run_cli("check", "--command", fake("mutant_ties_longer"), "--replay", json.dumps(replay.replay_payload()),
                   "--report", again, "--quiet")
    assert code == 1
    [record] = results(again).records
    assert record.classification.name == "reference_length=closest-longer"


def test_fuzz_finds_nltks_segment_totals_floor(tmp_path, capsys):
    """nltk's corpus_bleu floors every segment's n-gram total at 1 (a perfect corpus scores 0.88 when one
    segment has two tokens): documented as nltk-segment-totals-floor, classified segment_totals_floor=1."""
    pytest.importorskip("nltk")
    report = tmp_path / "report"
    assert fuzz(report, target=["--impl", "nltk"], examples=20) == 1
    records = results(report).records
    floor = [r for r in records if r.cause == "segment_totals_floor=1"]
    assert floor and all("nltk-segment-totals-floor" in r.classification.documented for r in floor)
    assert all(r.classification.scope == "documented" for r in floor)
    out = capsys.readouterr().out
    assert "segment_totals_floor=1  x" in out and "[documented: nltk-segment-totals-floor]" in out


def test_check_explains_nltks_floor_too(tmp_path, capsys):
    pytest.importorskip("nltk")
    report = tmp_path / "report"
    assert run_cli("check", "--impl", "nltk", "--no-cases", "--examples", 20, "--report", report) == 1
    out = capsys.readouterr().out
    assert "root cause: segment_totals_floor=1 [documented: nltk-segment-totals-floor]" in out
    assert "segment_totals_floor=1 x" in out.split("root causes: ")[1]


def test_the_documented_nltk_example_is_classified_as_the_floor():
    """The discrepancy file's example: [a b] / [c d e f g h], both perfect; nltk answered 0.8801..."""
    entry = next(d for d in DISCREPANCIES if d["id"] == "nltk-segment-totals-floor")
    request = request_from_json(entry["example"]["request"])
    explanation = classify(request, entry["example"]["implementation"]["score"], "nltk")
    assert explanation.name == "segment_totals_floor=1"
    # hand derivation (tests/diagnose/test_differential.py): (4/5 * 3/4) ** (1/4)
    assert explained_value(request, "nltk", explanation.change) == pytest.approx((3 / 5) ** 0.25, rel=1e-12)


# -- exit codes -------------------------------------------------------------------------------


def test_a_conforming_implementation_exits_0(tmp_path, capsys):
    report = tmp_path / "report"
    assert fuzz(report, examples=30) == 0
    assert classes(report) == set()
    assert "no disagreement" in capsys.readouterr().out


def test_an_implementation_that_cannot_be_driven_exits_3(tmp_path):
    assert fuzz(tmp_path / "r", "--quiet", "--timeout", 1, target=["--command", fake("no_handshake")], examples=3) == 3
    assert results(tmp_path / "r").header.handshake_error


@pytest.mark.parametrize("argv", [
    ["fuzz", "--examples", "3"],  # no implementation
    ["fuzz", "--impl", "no-such-adapter"],
    ["fuzz", "--command", "x", "--impl", "y"],
    ["fuzz", "--command", "x", "--profile", "no-such-profile"],
    ["fuzz", "--command", "x", "--examples", "-1"],
])
def test_usage_errors_exit_2(argv):
    assert run_cli(*argv) == 2


def test_a_documented_case_file_is_not_a_write_cases_target(tmp_path):
    target = tmp_path / "documented.yaml"
    target.write_text((Path(casefiles.DEFAULT_CASES_DIR) / "matlab.yaml").read_text(encoding="utf-8"))
    before = target.read_text()
    assert fuzz(tmp_path / "r", "--quiet", "--write-cases", target, target=["--command", fake("mutant_ties_longer")],
                examples=5) == 2
    assert target.read_text() == before


# -- --write-cases -----------------------------------------------------------------------------


def test_written_cases_load_validate_and_are_not_written_twice(tmp_path, capsys):
    found = tmp_path / "found"
    target = found / "fake.yaml"
    assert fuzz(tmp_path / "r", "--write-cases", target, target=["--command", fake("mutant_mean_sentence")],
                examples=40) == 1
    out = capsys.readouterr().out
    assert f"(written to {target})" in out
    [case] = casefiles.load_case_file(target)
    assert case.found_by == "fuzz" and case.source.seed is None
    # the fake's handshake name is "fakebleu+mean-sentence"
    assert case.id.startswith("fuzz-fakebleu-mean-sentence-mean-of-sentence-scores-")
    assert casefiles.ID_PATTERN.match(case.id)
    assert case.kind == "value" and case.profiles == ("papineni",)
    assert case.explained_by.name == "mean-of-sentence-scores"
    assert case.explained_by.change == (("computation", "mean-of-sentence-scores"),)
    assert case.source.document.startswith("bleu-oracle fuzz against fakebleu")
    # `cases validate` passes: the oracle under the explanation gives the implementation's value
    assert casefiles.validate(found) == []
    assert all(o.passed for o in check_cases(casefiles.load_cases(found)))
    assert run_cli_cases("validate", "--cases", found) == 0
    # the expected value is what the implementation answered on the smallest example
    from oracle.reports.summaries import root_cause_groups

    [group] = root_cause_groups(results(tmp_path / "r").records)
    assert str(group.smallest.answer()) in (str(case.expect.score), repr(float(case.expect.score)))
    # the same search again: the same id, already recorded, not appended
    text = target.read_text()
    assert fuzz(tmp_path / "r2", "--write-cases", target, target=["--command", fake("mutant_mean_sentence")],
                examples=40) == 1
    assert "already recorded" in capsys.readouterr().out
    assert target.read_text() == text
    # another class appends to the same file
    assert fuzz(tmp_path / "r3", "--quiet", "--write-cases", target,
                target=["--command", fake("mutant_ties_longer")], examples=40) == 1
    loaded = casefiles.load_case_file(target)
    assert [c.explained_by.name for c in loaded] == ["mean-of-sentence-scores", "reference_length=closest-longer"]
    assert loaded[1].explained_by.change == (("reference_length", "closest-longer"),)
    assert casefiles.validate(found) == []
    assert all(o.passed for o in check_cases(loaded))


def run_cli_cases(*argv):
    from oracle.cli import main

    return main(["cases", *[str(a) for a in argv]])


def test_written_cases_validate_against_the_schema(tmp_path):
    jsonschema = pytest.importorskip("jsonschema", reason="jsonschema is not installed")
    target = tmp_path / "found" / "fake.yaml"
    assert fuzz(tmp_path / "r", "--quiet", "--write-cases", target, target=["--command", fake("mutant_ties_longer")],
                examples=40) == 1
    schema = json.loads((Path(casefiles.__file__).parents[1] / "models" / "schemas" / "case.schema.json").read_text())
    errors = list(jsonschema.Draft202012Validator(schema).iter_errors(casefiles.read_plain(target)))
    assert not errors, [e.message for e in errors]
    data = casefiles.read_plain(target)
    data["seed"] = "000_57c522b03cf4596a.txt"  # both provenances: refused
    assert list(jsonschema.Draft202012Validator(schema).iter_errors(data))


def test_validate_fails_when_the_recorded_value_is_not_what_the_explanation_gives(tmp_path):
    target = tmp_path / "found" / "fake.yaml"
    assert fuzz(tmp_path / "r", "--quiet", "--write-cases", target, target=["--command", fake("mutant_ties_longer")],
                examples=40) == 1
    [case] = casefiles.load_case_file(target)
    text = target.read_text()
    observed = repr(float(case.expect.score))
    # another value than the recorded one (a shrunk input may well score 0, so not half of it)
    target.write_text(text.replace(f"score: {observed}", f"score: {float(case.expect.score) + 0.25!r}", 1))
    [changed] = casefiles.load_case_file(target)
    [outcome] = check_cases([changed])
    assert not outcome.passed and "score: expected" in outcome.failures[0]
    # without the explanation, the oracle's own value is not the implementation's either
    target.write_text(text)
    [case] = casefiles.load_case_file(target)
    float32 = case.explained_by.model_copy(update={"change": (("computation", "float32"),)})
    assert not check_case(case.model_copy(update={"explained_by": float32}), "papineni").passed


def test_check_judges_a_found_case_against_the_oracle_only(tmp_path):
    found = tmp_path / "found"
    assert fuzz(tmp_path / "r", "--quiet", "--write-cases", found / "fake.yaml",
                target=["--command", fake("mutant_ties_longer")], examples=40) == 1
    [case] = casefiles.load_case_file(found / "fake.yaml")
    # the mutant still disagrees with the oracle on the found input: a fail, with the same root cause
    report = tmp_path / "c1"
    assert run_cli("check", "--command", fake("mutant_ties_longer"), "--cases", found, "--examples", 0,
                   "--report", report, "--quiet") == 1
    [record] = results(report).records
    assert record.id == case.id and record.outcome == "fail"
    assert record.classification.name == "reference_length=closest-longer"
    assert "document" not in record.expected  # the observed value is not a documented one
    # a correct implementation passes it
    report = tmp_path / "c2"
    assert run_cli("check", "--command", fake("clean"), "--cases", found, "--examples", 0,
                   "--report", report, "--quiet") == 0


# -- the pieces ---------------------------------------------------------------------------------


def test_case_ids_are_stable_and_never_reuse_a_taken_id():
    payload = {"level": "corpus", "segments": [{"hypothesis": ["a"], "references": [["a"]]}],
               "weights": [1.0], "smoothing": {"method": "none"}, "lowercase": False}
    first = case_id("nltk", "segment_totals_floor=1", payload, set())
    assert first == f"fuzz-nltk-segment-totals-floor-1-{input_hash(payload)[:8]}"
    assert case_id("nltk", "segment_totals_floor=1", payload, set()) == first
    longer = case_id("nltk", "segment_totals_floor=1", payload, {first})
    assert longer != first and longer.startswith(first) and casefiles.ID_PATTERN.match(longer)
    assert casefiles.ID_PATTERN.match(case_id("MyModule:Impl", "a + b + float32", payload, set()))


def test_a_retired_or_existing_id_is_not_reused(tmp_path):
    from oracle.suite.foundcases import existing_ids

    cases_dir = tmp_path / "cases"
    cases_dir.mkdir()
    (cases_dir / "retired.yaml").write_text("retired:\n  - {id: fuzz-old-one, reason: gone}\n")
    (cases_dir / "matlab.yaml").write_text((Path(casefiles.DEFAULT_CASES_DIR) / "matlab.yaml").read_text())
    taken = existing_ids(cases_dir)
    assert "fuzz-old-one" in taken and "matlab-summary-bleu4" in taken


def test_tolerance_is_the_contract_rounded_up():
    assert tolerance_for(0.88, 0.88, ("segment_totals_floor=1",)) == pytest.approx(8.9e-10)
    assert tolerance_for(0.0, 0.0, ("no-match-zero",)) == pytest.approx(1e-12)
    # float32's contract: 1e-12 + 2e-6 * 0.5 = 1.000001e-6, rounded up to two significant digits
    assert tolerance_for(0.5, 0.5, ("reference_length=closest-first", "float32")) == pytest.approx(1.1e-6)


def test_smoothing_descriptions_read_back():
    for smoothing in (Smoothing("none"), Smoothing("floor", value=0.1), Smoothing("chen-cherry-4", k=5),
                      Smoothing("add-k", k=0.5), Smoothing("chen-cherry-6", alpha=1)):
        assert smoothing_from_description(smoothing.describe()) == smoothing
    with pytest.raises(BleuValueError):
        smoothing_from_description("floor(value)")


@pytest.mark.parametrize("entry", [d for d in DISCREPANCIES if d.get("classify") and d.get("observed") != "library"],
                         ids=lambda d: d["id"])
def test_explained_value_replays_what_classify_matched(entry):
    """For every recorded observation, the explanation's change alone recomputes the value classify matched."""
    request = request_from_json(entry["example"]["request"])
    answer = entry["example"]["implementation"]
    explanation = classify(request, answer, entry["profile"])
    assert explanation.explained
    value = explained_value(request, entry["profile"], explanation.change)
    assert value == pytest.approx(explanation.value, rel=1e-12, nan_ok=True)
    as_json = explained_value(request, entry["profile"], explanation.classification().change)
    assert as_json == pytest.approx(explanation.value, rel=1e-12, nan_ok=True)


# -- the case loader's `found_by` provenance -----------------------------------------------------

FOUND = """\
document: "bleu-oracle fuzz against somebleu 1.0"
found_by: fuzz
cases:
  - id: fuzz-somebleu-ties-abc
    title: somebleu answers 1.0
    source: {document: bleu-oracle fuzz against somebleu 1.0, section: reference_length=closest-longer, quote: q}
    profiles: [papineni]
    kind: value
    input:
      level: sentence
      segments:
        - hypothesis: [a, b, c]
          references: [[a, b], [a, b, c, d]]
    options: {weights: [1.0]}
    expect: {score: 0.7165313105737893, tolerance: 1.0e-9}
    explained_by: {name: reference_length=closest-longer, change: [[reference_length, closest-longer]]}
"""


def test_the_loader_reads_found_cases(tmp_path):
    """'a b c' against 'a b' and 'a b c d': a tie at distance 1; ties to the longer give r = 4,
    BP = e^(1 - 4/3), p1 = 3/3: 0.71653..."""
    path = tmp_path / "found.yaml"
    path.write_text(FOUND)
    [case] = casefiles.load_case_file(path)
    assert math.isclose(math.exp(1 - 4 / 3), 0.7165313105737893, rel_tol=1e-15)
    assert check_case(case, "papineni").passed
    assert casefiles.quote_problems([case], tmp_path) == []  # no seed to quote from


@pytest.mark.parametrize("edit, message", [
    # without `found_by` the file is a documented one of one's own (no seed needed), where explained_by has no place
    (lambda t: t.replace("found_by: fuzz\n", ""), "`explained_by` belongs to cases found by `bleu-oracle fuzz`"),
    (lambda t: t.replace("found_by: fuzz\n", "found_by: fuzz\nseed: \"s.txt\"\n"), "either `seed`"),
    (lambda t: t.replace("found_by: fuzz", "found_by: hand"), "`found_by` must be 'fuzz' (got 'hand')"),
    (lambda t: t.replace("    explained_by: {name: reference_length=closest-longer, change: [[reference_length, "
                         "closest-longer]]}\n", ""), "`explained_by` is required in a case found by fuzzing"),
    (lambda t: t.replace("[[reference_length, closest-longer]]", "[[reference_length, nearest]]"), "reference_length"),
    (lambda t: t.replace("[[reference_length, closest-longer]]", "[[colour, blue]]"), "neither a convention"),
    (lambda t: t.replace("quote: q}", "quote: q, seed: \"s.txt\"}"), "`source.seed`"),
])
def test_the_loader_checks_found_cases(tmp_path, edit, message):
    path = tmp_path / "found.yaml"
    path.write_text(edit(FOUND))
    with pytest.raises(CaseFileError, match=None) as info:
        casefiles.load_case_file(path)
    assert message in str(info.value)


def test_an_unknown_computation_loads_but_fails_validation(tmp_path):
    # the loader (suite) checks the shape; whether the classifier knows the name is diagnose's to say
    path = tmp_path / "found.yaml"
    path.write_text(FOUND.replace("[[reference_length, closest-longer]]", "[[computation, magic]]"))
    [case] = casefiles.load_case_file(path)
    outcome = check_case(case, "papineni")
    assert not outcome.passed and "unknown computation 'magic'" in outcome.failures[0]


def test_explained_by_is_refused_in_a_documented_file(tmp_path):
    text = FOUND.replace("found_by: fuzz", 'seed: "000_57c522b03cf4596a.txt"')
    path = tmp_path / "doc.yaml"
    path.write_text(text)
    with pytest.raises(CaseFileError, match="`explained_by` belongs to cases found by"):
        casefiles.load_case_file(path)


def test_a_smoothing_reading_round_trips_through_a_case(tmp_path):
    """An explanation that is another reading of the smoothing (floor with the documented default 0.1)."""
    request = ScoreRequest(
        seq=0,
        level="sentence",
        segments=(Segment(hypothesis=("a", "b"), references=(("a", "c"),)),),
        weights=(0.5, 0.5),
        smoothing={"method": "floor", "value": 0.5},
    )
    # the 'implementation' smooths with 0.1 instead of 0.5: p2 = 0.1 / 1, BLEU = sqrt(1/2 * 1/10) -- by hand
    explanation = classify(request, math.sqrt(0.5 * 0.1), "sacrebleu")
    assert explanation.name.startswith("smoothing=floor(value=1/10)")
    text = FOUND.replace("[a, b, c]", "[a, b]").replace("[[a, b], [a, b, c, d]]", "[[a, c]]")
    text = text.replace("{weights: [1.0]}", "{weights: [0.5, 0.5], smoothing: {method: floor, value: 0.5}}")
    text = text.replace("profiles: [papineni]", "profiles: [sacrebleu]")
    text = text.replace("0.7165313105737893", repr(math.sqrt(0.5 * 0.1)))
    text = text.replace("{name: reference_length=closest-longer, change: [[reference_length, closest-longer]]}",
                        "{name: 'smoothing=floor(value=1/10)', change: [[smoothing, {method: floor, value: 1/10}]]}")
    path = tmp_path / "found.yaml"
    path.write_text(text)
    [case] = casefiles.load_case_file(path)
    assert check_case(case, "sacrebleu").passed


def test_fuzz_records_the_length_of_the_series_it_ran(ties_longer_fuzz):
    """fuzz's header says how long its series were, as check's does: the length its series records count their
    steps out of ("series step K of N"). It recorded none, while fuzz ran series of the default length."""
    _, report, _ = ties_longer_fuzz
    run = results(report)
    lengths = {int(re.search(r"series step \d+ of (\d+)", r.message).group(1))
               for r in run.records if r.kind == "series"}
    assert len(lengths) == 1 and run.header.settings.series_length in lengths


def test_fuzz_names_the_layer_that_diverges_first(ties_longer_fuzz):
    # ties-longer: the score may even agree (no match at all); the layer says where it goes wrong
    code, _, out = ties_longer_fuzz
    assert code == 1
    assert "first divergence at ref_len: " in out
