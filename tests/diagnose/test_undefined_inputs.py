"""Inputs the documents leave undefined (PROTOCOL.md, "Inputs the documents leave undefined"): an empty corpus and
every weight zero. Refusing them is recommended; a named convention's value is `acceptable` (reported, counted,
never a failure of the gate); `--strict`, or `strict: true` in a baseline's header, requires the refusal; any other
answer fails as on every input the oracle refuses.

The fakes (tests/fakes/fakebleu.py) restate the formulas without importing `oracle`; every expected value below is
derived by hand in its comment.
"""

from __future__ import annotations

import math
import xml.etree.ElementTree as ET

import pytest
from fakes.harness import check, deviations, fake, results, run_cli

from oracle.diagnose.expect import oracle_expected
from oracle.diagnose.judge import Contract, judge
from oracle.harness.transport import Reply
from oracle.models.outcomes import Outcome
from oracle.models.protocol import ScoreReply, ScoreRequest

#: Examples 35 and 47 of seed 0 bring the refused companions all-zero weights and an empty corpus to an
#: implementation that takes any weights, scores corpora and has a smoothing method with a parameter (the kinds come
#: in turn every twelfth example); the tests find them by what their requests are, not by their ids.
EXAMPLES = 48

#: "the cat sat the mat" against "the cat sat on the mat": c = 5, r = 6.
THE_CAT = {"hypothesis": ["the", "cat", "sat", "the", "mat"], "references": [["the", "cat", "sat", "on", "the", "mat"]]}


def request(**fields):
    base = {"cmd": "score", "seq": 1, "level": "corpus", "segments": [THE_CAT], "weights": [0.0] * 4,
            "smoothing": {"method": "none"}, "lowercase": False}
    return ScoreRequest.model_validate({**base, **fields})


def score_reply(score):
    return Reply("score", ScoreReply.from_json({"seq": 1, "score": "NaN" if math.isnan(score) else score}))


def is_empty_corpus(record):
    return isinstance(record.request, ScoreRequest) and record.request.level == "corpus" and not record.request.segments


def is_zero_weights(record):
    return isinstance(record.request, ScoreRequest) and bool(record.request.weights) and not any(record.request.weights)


def brevity_penalty_by_hand(request):
    """BP of a token request, restated: c the hypothesis tokens, r each segment's closest reference length (ties to
    the shorter), summed; 1 if c > r, else e^(1 - r/c) (Papineni et al. 2002, 2.2.2 and 2.3)."""
    c = sum(len(s.hypothesis) for s in request.segments)
    r = sum(min((len(ref) for ref in s.references), key=lambda n: (abs(n - len(s.hypothesis)), n))
            for s in request.segments)
    return 1.0 if c > r else math.exp(1 - r / c)


def undefined_records(report):
    records = results(report).records
    return [r for r in records if is_empty_corpus(r)], [r for r in records if is_zero_weights(r)]


def test_an_implementation_written_from_the_formulas_conforms_with_acceptable_records(tmp_path):
    report = tmp_path / "report"
    assert check(report, fake("undefined_by_formula"), examples=EXAMPLES) == 0
    assert not deviations(report)
    empty, zero = undefined_records(report)
    assert empty and zero
    for record in empty:  # its sums are all 0: nothing matches, so the fake answers 0 (convention empty-corpus-zero)
        assert record.outcome is Outcome.ACCEPTABLE and record.convention == "empty-corpus-zero"
        assert record.actual.score == 0.0
    for record in zero:  # exp(sum of 0 * log p_n) = exp(0) = 1, so BLEU = BP (convention zero-weights-bp)
        assert record.outcome is Outcome.ACCEPTABLE and record.convention == "zero-weights-bp"
        assert math.isclose(record.actual.score, brevity_penalty_by_hand(record.request), rel_tol=1e-12)
    run = results(report)
    acceptable = [r.id for r in run.records if r.outcome is Outcome.ACCEPTABLE]
    assert run.footer.counts["acceptable"] == len(acceptable) == len(empty) + len(zero)
    assert run.footer.gate == "pass" and run.footer.exit_code == 0
    summary = (report / "summary.md").read_text(encoding="utf-8")
    assert "## Acceptable answers" in summary and "`empty-corpus-zero`" in summary and "`zero-weights-bp`" in summary
    assert "| acceptable | 0 | " in summary  # the outcome table counts them, apart from pass and rejected
    suites = ET.parse(report / "junit.xml").getroot()
    assert suites.get("failures") == "0" and suites.get("errors") == "0"
    for case in suites.iter("testcase"):
        if case.get("name") in acceptable:  # passed, with the convention as a property and a note
            assert case.find("failure") is None and case.find("skipped") is None
            assert case.find("properties/property").get("name") == "convention"
            assert case.find("properties/property").get("value") in ("empty-corpus-zero", "zero-weights-bp")
            assert "acceptable" in case.find("system-out").text


def test_the_clean_fake_which_refuses_them_still_conforms(tmp_path):
    """The control: the recommended refusal passes (it did before, and must still)."""
    report = tmp_path / "report"
    assert check(report, fake("clean"), examples=EXAMPLES) == 0
    empty, zero = undefined_records(report)
    assert empty and zero and all(r.outcome is Outcome.REJECTED for r in empty + zero)


def test_strict_requires_the_refusal(tmp_path):
    report = tmp_path / "report"
    assert check(report, fake("undefined_by_formula"), "--strict", examples=EXAMPLES) == 1
    empty, zero = undefined_records(report)
    failing = deviations(report)
    assert {r.id for r in failing} == {r.id for r in empty + zero}
    for record in failing:  # the same answers as without --strict, now failures naming the convention they follow
        assert (record.outcome, record.layer) == (Outcome.FAIL, "rejection")
        assert record.convention in ("empty-corpus-zero", "zero-weights-bp")
        assert record.classification.name == "scores-invalid-input"
        assert "--strict" in record.reproduce
    assert results(report).header.settings.strict is True
    assert "- strict: inputs the documents leave undefined must be refused" in (report / "summary.md").read_text()


def test_a_baseline_whose_header_says_strict_gates_strictly_and_is_written_so(tmp_path):
    baseline = tmp_path / "strict.yaml"
    baseline.write_text("strict: true\nentries: []\n", encoding="utf-8")
    report = tmp_path / "report"
    assert check(report, fake("undefined_by_formula"), "--baseline", baseline, examples=EXAMPLES) == 1
    assert results(report).header.settings.strict is True
    assert {r.layer for r in deviations(report)} == {"rejection"}
    written = tmp_path / "written.yaml"
    assert run_cli("baseline", "write", "--from", report / "results.jsonl", "--out", written) == 0
    assert "\nstrict: true\n" in written.read_text(encoding="utf-8")


def test_a_strict_baseline_is_not_updated_from_a_run_that_was_not_strict(tmp_path, capsys):
    """Such a run judged the convention values acceptable: an update would drop the entries that list them."""
    report = tmp_path / "report"
    assert check(report, fake("undefined_by_formula"), examples=EXAMPLES) == 0
    baseline = tmp_path / "strict.yaml"
    text = "strict: true\nentries:\n- id: cause:scores-invalid-input\n  outcome: fail\n  reason: reviewed\n"
    baseline.write_text(text, encoding="utf-8")
    assert run_cli("baseline", "update", "--from", report, "--baseline", baseline) == 2
    assert "strict: true" in capsys.readouterr().err
    assert baseline.read_text(encoding="utf-8") == text


def test_a_value_no_convention_gives_still_fails(tmp_path):
    report = tmp_path / "report"
    assert check(report, fake("undefined_empty_corpus_half"), examples=EXAMPLES) == 1
    empty, _ = undefined_records(report)
    assert empty and {r.id for r in deviations(report)} == {r.id for r in empty}
    for record in empty:  # 0.5 is neither 0 (empty-corpus-zero) nor NaN (empty-corpus-nan)
        assert (record.outcome, record.layer, record.convention) == (Outcome.FAIL, "rejection", None)
        assert record.classification.name == "scores-invalid-input"


def test_each_conventions_value_comes_from_the_formulas():
    # every weight zero, "the cat sat the mat" against "the cat sat on the mat": c = 5, r = 6, BP = e^(1 - 6/5)
    # = e^-0.2 = 0.8187307530779818. Neither 4-gram of the hypothesis ("the cat sat the", "cat sat the mat") is in
    # the reference: p_4 = 0/2, so the orders "counted" give 0 and IEEE's 0 * log 0 gives NaN.
    expected = oracle_expected(request(), "papineni")
    assert expected.rejected
    values = {a.convention: a.score for a in expected.acceptable}
    assert set(values) == {"zero-weights-bp", "zero-weights-counted", "zero-weights-nan"}
    assert math.isclose(values["zero-weights-bp"], math.exp(-0.2), rel_tol=1e-15)
    assert values["zero-weights-counted"] == 0.0 and math.isnan(values["zero-weights-nan"])
    # two orders: p_1 = 5/5 ("the" twice, clipped to the reference's two), p_2 = 3/4 (all bigrams but "sat the"):
    # no order without a match, so all three conventions give BP
    two = {a.convention: a.score for a in oracle_expected(request(weights=[0, 0]), "papineni").acceptable}
    assert all(math.isclose(v, math.exp(-0.2), rel_tol=1e-15) for v in two.values()) and len(two) == 3
    # an empty corpus: 0, or NaN (c = r = 0, every p_n 0/0)
    empty = {a.convention: a.score for a in oracle_expected(request(segments=[], weights=[0.5, 0.5]),
                                                             "papineni").acceptable}
    assert empty["empty-corpus-zero"] == 0.0 and math.isnan(empty["empty-corpus-nan"]) and len(empty) == 2
    # the invalid inputs, and an undefined one with something invalid besides: a refusal is the only right answer
    for invalid in (request(weights=[0.5, -0.5]), request(segments=[{**THE_CAT, "references": []}], weights=[1]),
                    request(weights=[1], smoothing={"method": "floor", "value": -0.1}),
                    request(segments=[], weights=[1, -1]), request(segments=[])):
        refused = oracle_expected(invalid, "papineni")
        assert refused.rejected and refused.acceptable is None


@pytest.mark.parametrize(("answer", "outcome", "convention"), [
    (0.0, "acceptable", "empty-corpus-zero"),
    (math.nan, "acceptable", "empty-corpus-nan"),
    (1e-13, "fail", None),  # the zero rule: 1e-13 is within the tolerance of 0, but is not 0
    (0.5, "fail", None),
])
def test_the_judge_holds_a_convention_to_the_contract_and_the_zero_rule(answer, outcome, convention):
    expected = oracle_expected(request(segments=[], weights=[0.5, 0.5]), "papineni")
    verdict = judge(expected, score_reply(answer))
    assert (verdict.outcome.value, verdict.convention) == (outcome, convention)
    strict = judge(expected, score_reply(answer), Contract(strict=True))
    assert (strict.outcome, strict.layer, strict.convention) == (Outcome.FAIL, "rejection", convention)
    assert judge(expected, Reply("rejected", message="no segments")).outcome is Outcome.REJECTED
    assert judge(expected, Reply("error", message="IndexError")).outcome is Outcome.ERROR


def test_the_vectors_say_which_inputs_are_refused_and_which_are_undefined():
    from oracle.reports.export import build
    from oracle.suite.cases import load_cases

    vectors = {v.id: v for v in build(load_cases(), "papineni").vectors if v.origin == "protocol"}
    for kind in ("no-references", "negative-weight", "negative-smoothing"):
        assert vectors[f"protocol-{kind}"].result == "rejected" and not vectors[f"protocol-{kind}"].answers
    for kind, values in (("empty-corpus", {"empty-corpus-zero": 0.0, "empty-corpus-nan": "NaN"}),
                         # the request of test_each_conventions_value_comes_from_the_formulas: BP e^-0.2, p_4 = 0
                         ("zero-weights", {"zero-weights-bp": math.exp(-0.2), "zero-weights-counted": 0.0,
                                           "zero-weights-nan": "NaN"})):
        vector = vectors[f"protocol-{kind}"]
        assert vector.result == "acceptable" and vector.expected.rejected and "undefined-input" in vector.flags
        refusal, *conventions = vector.answers
        assert refusal.rejected and refusal.convention is None and "papineni" in refusal.profiles
        got = {a.convention: a.score for a in conventions}
        assert set(got) == set(values)
        for name, value in values.items():
            assert got[name] == value if isinstance(value, str) else math.isclose(got[name], value, rel_tol=1e-15)


CASE_FILE = """\
document: "test"
cases:
  - id: test-zero-weights
    title: every weight zero
    source: {document: "PROTOCOL.md", section: "Inputs the documents leave undefined", quote: "every weight zero"}
    profiles: [papineni]
    kind: statement
    input:
      level: sentence
      segments:
        - hypothesis: [the, cat, sat]
          references:
            - [the, cat, sat, "on", the, mat]
    options:
      weights: [0, 0]
    expect:
      rejected: true
    note: Undefined; the function answers BP, the value of convention zero-weights-bp.
"""


@pytest.mark.parametrize("strict", [False, True])
def test_the_pytest_plugin_judges_an_undefined_input_as_check_does(tmp_path, strict):
    from oracle.harness.pytest_plugin import _Item, conformance
    from oracle.suite.cases import load_cases

    (tmp_path / "undefined.yaml").write_text(CASE_FILE, encoding="utf-8")
    [case] = load_cases(tmp_path / "undefined.yaml")

    def formulas(request):  # c = 3, r = 6: BP = e^(1 - 6/3) = e^-1 = 0.36787944117144233; exp(0) = 1 for zero weights
        return math.exp(1 - 6 / 3)

    test = conformance(formulas, profile="papineni", capabilities={"weights": "any", "max_order": 4}, cases=False,
                       examples=0, strict=strict)
    item = _Item(test.bleu_oracle, "case:test-zero-weights", case=case)
    if not strict:
        item.run()  # acceptable: the test passes
        return
    with pytest.raises(pytest.fail.Exception, match="fail at rejection"):
        item.run()


def test_the_site_shows_an_acceptable_answer_as_agreeing_and_names_its_convention():
    from oracle.models.results import Record
    from oracle.reports.site.data import StreamColumn, _cell, verdict
    from oracle.reports.site.view import ReportView, category

    record = Record.model_validate({
        "type": "record", "id": "empty-corpus", "kind": "edge-case", "outcome": "acceptable",
        "convention": "empty-corpus-zero", "actual": {"seq": 1, "score": 0.0},
        "expected": {"rejected": True, "reason": "`hypotheses` must hold at least one segment (got 0)"}})
    assert verdict(record).agrees and verdict(record).classification == "acceptable: empty-corpus-zero"
    cell = _cell(record, StreamColumn("some-library", "implementation", "papineni", "1.0"))
    assert category(cell) == "agrees" and not ReportView.differs(cell)  # not a difference from the oracle
    assert ReportView.edge_verdict(cell) == "acceptable: empty-corpus-zero"
