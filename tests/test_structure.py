"""The request's structure as alternatives (issue 36): the classifier names a caller that mis-shapes what it passes
(hypotheses and references swapped, reference lists transposed, pooled or misaligned, strings where token lists are
expected, the tokenizer on one side) by the mechanism, not by `other-counting-of-hyp_len`. Every value is derived by
hand below, under papineni: unigram weights [1] (so the score is BP * m / t), r the closest reference length (ties
to the shorter) summed over segments, BP = 1 if c > r else e^(1 - r/c).

Holds: oracle.diagnose.structure
"""

from __future__ import annotations

import math

import pytest
from fakes.harness import check, deviations, fake

from oracle.diagnose import structure
from oracle.diagnose.classify import AGREES, classify, explained_value
from oracle.diagnose.computations import context_for, result_under, structured_result
from oracle.models.protocol import ScoreRequest, Segment


def request(*segments, level="corpus", tokenize=None):
    """A request of (hypothesis, references) pairs: token requests take space-separated words."""
    def tokens(text):
        return text if tokenize is not None else tuple(text.split(" "))

    return ScoreRequest(level=level, weights=[1.0], tokenize=tokenize,
                        segments=[Segment(hypothesis=tokens(h), references=[tokens(r) for r in refs])
                                  for h, refs in segments])


def answer(score, c, r, m, t):
    return {"score": score, "statistics": {"hyp_len": c, "ref_len": r, "matches": [m], "totals": [t]}}


# two segments, one reference each: ("a b" | "a c"), ("d e" | "b f")
TWO = request(("a b", ["a c"]), ("d e", ["b f"]))
# three segments whose references are one line late: ("a b" | "x y z"), ("c d" | "a b"), ("e f" | "c d")
LATE = request(("a b", ["x y z"]), ("c d", ["a b"]), ("e f", ["c d"]))
# three segments whose references are one line early: ("p q" | "a b"), ("a b" | "c d"), ("c d" | "e f")
EARLY = request(("p q", ["a b"]), ("a b", ["c d"]), ("c d", ["e f"]))

CASES = [
    # oracle: c 2, r 3, m 2/2, BP e^(1 - 3/2) = 0.6065. Swapped: "a b c" against "a b": c 3, r 2, m 2/3, BP 1 -> 2/3
    pytest.param(request(("a b", ["a b c"]), level="sentence"), answer(2 / 3, 3, 2, 2, 3), structure.SWAPPED,
                 id="swapped"),
    # oracle: m 1 + 0 of 4, c = r = 4 -> 1/4. Transposed (zip stops at one reference): one segment, "a b" against
    # "a c" and "b f": m 2/2, c 2, r 2 -> 1 (the last segment dropped gives 1/2; pooled gives 2/4 over c 4)
    pytest.param(TWO, answer(1.0, 2, 2, 2, 2), structure.TRANSPOSED, id="transposed"),
    # pooled: "a b" against "a c", "b f": m 2; "d e" against both: m 0; c 4, r 2 + 2 = 4 -> 2/4
    pytest.param(TWO, answer(0.5, 4, 4, 2, 4), structure.POOLED, id="pooled"),
    # oracle: m 0 (score 0). Next references: "a b" | "a b", "c d" | "c d": c 4, r 4, m 4/4 -> 1 (transposed gives
    # 1 too, on c 2: "a b" against every reference)
    pytest.param(LATE, answer(1.0, 4, 4, 4, 4), structure.NEXT_REFERENCES, id="next-references"),
    # previous references: "a b" | "a b", "c d" | "c d": c 4, r 4, m 4/4 -> 1 (next: "p q" | "c d", "a b" | "e f": 0)
    pytest.param(EARLY, answer(1.0, 4, 4, 4, 4), structure.PREVIOUS_REFERENCES, id="previous-references"),
    # oracle: "a b" against "a b", "c d e": c 2, r 2, m 2/2 -> 1. Each reference its own segment: ("a b" | "a b"),
    # ("a b" | "c d e"): c 4, r 2 + 3 = 5, m 2/4, BP e^(1 - 5/4) -> 0.5 e^-0.25
    pytest.param(request(("a b", ["a b", "c d e"]), level="sentence"), answer(0.5 * math.exp(-0.25), 4, 5, 2, 4),
                 structure.EACH_REFERENCE, id="each-reference"),
    # oracle: "ab" against "a b": c 1, r 2, m 0 -> 0. Hypothesis as characters: "a", "b" against "a b": c 2, r 2,
    # m 2/2 -> 1
    pytest.param(request(("ab", ["a b"]), level="sentence"), answer(1.0, 2, 2, 2, 2), structure.HYPOTHESIS_CHARACTERS,
                 id="hypothesis-characters"),
    # oracle: "a b c" against "abc": m 0 -> 0. References as characters: "a b c" against "a", "b", "c": c 3, r 3,
    # m 3/3 -> 1 (both as characters: "a", " ", "b", " ", "c" against "a", "b", "c": m 3/5)
    pytest.param(request(("a b c", ["abc"]), level="sentence"), answer(1.0, 3, 3, 3, 3),
                 structure.REFERENCE_CHARACTERS, id="reference-characters"),
    # oracle: "ab c" against "ab d": c 2, r 2, m 1/2 -> 1/2. Every string as characters: "a", "b", " ", "c" against
    # "a", "b", " ", "d": c 4, r 4, m 3/4 -> 3/4
    pytest.param(request(("ab c", ["ab d"]), level="sentence"), answer(0.75, 4, 4, 3, 4), structure.ALL_CHARACTERS,
                 id="all-characters"),
    # 13a splits a comma after a letter off: "a,b" and "a, b" are both "a , b" (the oracle: 1). Tokenizer on the
    # hypotheses only: "a , b" against "a," "b" (whitespace): c 3, r 2, m 1/3 ("b"), BP 1 -> 1/3
    pytest.param(request(("a,b", ["a, b"]), level="sentence", tokenize="13a"), answer(1 / 3, 3, 2, 1, 3),
                 structure.TOKENIZER_ON_HYPOTHESES, id="tokenizer-on-hypotheses"),
    # tokenizer on the references only: "a," "b" (whitespace) against "a , b": c 2, r 3, m 1/2, BP e^(1 - 3/2)
    pytest.param(request(("a, b", ["a,b"]), level="sentence", tokenize="13a"), answer(0.5 * math.exp(-0.5), 2, 3, 1, 2),
                 structure.TOKENIZER_ON_REFERENCES, id="tokenizer-on-references"),
    # oracle: "a , b" against "a , c": m 2/3. Tokenizer skipped: "a," "b" against "a," "c": c 2, r 2, m 1/2 -> 1/2
    pytest.param(request(("a, b", ["a, c"]), level="sentence", tokenize="13a"), answer(0.5, 2, 2, 1, 2),
                 structure.TOKENIZER_SKIPPED, id="tokenizer-skipped"),
]


def test_every_mechanism_has_a_hand_derived_case():
    assert {case.values[2] for case in CASES} == set(structure.STRUCTURES)


@pytest.mark.parametrize("scored, reply, name", CASES)
def test_each_mechanism_is_named_by_the_returned_statistics(scored, reply, name):
    explanation = classify(scored, reply, "papineni")
    assert explanation.name == name, (explanation.name, explanation.fits)
    # the explanation's value recomputed from its name alone (as `cases validate` does), the text re-tokenized there
    assert explained_value(scored, "papineni", (("computation", name),)) == pytest.approx(reply["score"], rel=1e-12)


@pytest.mark.parametrize("scored, reply, name", CASES)
def test_the_correct_answer_is_never_named_by_a_mechanism(scored, reply, name):
    base = result_under(context_for(scored.tokenized_as(context_for(scored, "papineni", None).options), "papineni",
                                    None, text=scored if scored.is_text else None))
    s = base.statistics
    correct = answer(float(base.score), s.hyp_len, s.ref_len, s.matches[0], s.totals[0])
    assert classify(scored, correct, "papineni").name == AGREES
    assert classify(scored, float(base.score), "papineni").name == AGREES


def test_the_swap_is_named_from_the_score_alone():
    """Without statistics the score 2/3 fits the swap and the hypothesis read as characters ("a", " ", "b" against
    "a b c": c 3, r 3, m 2/3): both are kept, the swap first."""
    explanation = classify(CASES[0].values[0], 2 / 3, "papineni")
    assert explanation.name == structure.SWAPPED
    assert structure.HYPOTHESIS_CHARACTERS in explanation.fits


def _context(scored):
    return context_for(scored, "papineni", None)


@pytest.mark.parametrize("scored, name", [
    (request(("a b", ["a b"]), level="sentence"), structure.SWAPPED),  # identical sides: the swap is the request
    (request(("a b", ["a c"]), level="sentence"), structure.TRANSPOSED),  # one segment, one reference
    (request(("a b", ["a c"]), level="sentence"), structure.NEXT_REFERENCES),  # one segment: nothing to shift
    (request(("a b", ["a c"]), level="sentence"), structure.PREVIOUS_REFERENCES),
    (request(("a b", ["a c"]), level="sentence"), structure.POOLED),
    (request(("a b", ["a c"]), level="sentence"), structure.EACH_REFERENCE),  # one reference
    (request(("a", ["b"]), level="sentence"), structure.ALL_CHARACTERS),  # one-character tokens are their characters
    (request(("a b", ["a c"]), level="sentence"), structure.TOKENIZER_SKIPPED),  # a token request has no tokenizer
    (request(("a b", ["a c"]), level="sentence", tokenize="13a"), structure.TOKENIZER_SKIPPED),  # 13a splits alike
    # one segment, two references: transposed keeps the first only, whose counts are the oracle's here
    (request(("a b", ["a b", "a c"]), level="sentence"), structure.TRANSPOSED),
])
def test_a_mechanism_that_changes_nothing_is_not_tried(scored, name):
    assert structured_result(_context(scored), name) is None


def test_too_large_a_corpus_is_not_pooled():
    many = request(*((f"w{i}", [f"w{i + 1}"]) for i in range(structure.MAX_POOLED_SEGMENTS + 1)))
    assert structured_result(_context(many), structure.POOLED) is None


# -- end to end: a planted caller bug, run through check ------------------------------------------------------------


@pytest.mark.parametrize("bug, cause", [("swap-hypothesis-references", structure.SWAPPED),
                                        ("references-as-streams", structure.TRANSPOSED)])
def test_a_planted_caller_bug_is_the_runs_main_cause(tmp_path, bug, cause):
    """tests/fakes/plantedbleu.py's structure switches (each cites its real thread there): every failing record the
    run names is named by the structural mechanism (on main: other-counting-of-hyp_len, -ref_len and more)."""
    report = tmp_path / "report"
    assert check(report, fake("plantedbleu", bug), examples=40) == 1
    failing = [r for r in deviations(report) if r.classification is not None and r.classification.name]
    named = [r for r in failing if r.classification.name != "unexplained"]
    assert named and all(cause in r.classification.signature for r in named)
    summary = (report / "summary.md").read_text()
    line = next(text for text in summary.splitlines() if text.startswith("By root cause: "))
    assert line.startswith(f"By root cause: {cause} x")
    assert "other-counting-of" not in summary


def test_a_transposed_corpus_may_hold_more_references_than_the_protocol_carries():
    """1,500 segments of one reference each ("a wI" | "a vI"), transposed: one segment, "a w0" against all 1,500
    references (more than a request may carry): "a" matches, m 1/2, c 2, r 2 -> 1/2 (the oracle: 1,500/3,000 too,
    on c 3,000: the counts differ, so the mechanism is tried)."""
    big = request(*((f"a w{i}", [f"a v{i}"]) for i in range(1500)))
    result = structured_result(_context(big), structure.TRANSPOSED)
    assert (result.statistics.hyp_len, result.statistics.ref_len) == (2, 2)
    assert float(result.score) == pytest.approx(0.5, rel=1e-12)
