"""oracle.diagnose.classify on hand-built answers: each value below is derived by hand (or is what a
library was observed to return), never taken from the oracle.

Holds: oracle.diagnose.classify, oracle.diagnose.computations, oracle.diagnose.counting,
    oracle.diagnose.textrules, oracle.diagnose.accumulation
"""

from __future__ import annotations

import math
import struct
import sys

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from oracle.adapters.base import ScoreAnswer
from oracle.diagnose.classify import (
    AGREES,
    COMPUTATIONS,
    SMOOTHED_COUNTS,
    UNEXPLAINED,
    Explanation,
    classify,
    explained_value,
    is_partial,
    within_contract,
)
from oracle.diagnose.computations import context_for, matches_moved_by_spaces_score, result_under
from oracle.diagnose.counting import (
    fold_of,
    joined_key_matches,
    matches_moved_by_spaces,
    nul_padded_array_counts,
    strict_clip_matches,
)
from oracle.diagnose.judge import judge
from oracle.formulas.profiles import get_profile
from oracle.models.outcomes import ZERO_LAYER, Expected, Outcome
from oracle.models.protocol import ScoreRequest, Segment
from oracle.models.results import parse_cause


def request(level, segments, weights=(0.25,) * 4, smoothing=None, lowercase=False):
    segs = tuple(
        Segment(hypothesis=tuple(h.split()), references=tuple(tuple(r.split()) for r in refs)) for h, refs in segments
    )
    return ScoreRequest(
        seq=0,
        level=level,
        segments=segs,
        weights=tuple(weights),
        smoothing=smoothing or {"method": "none"},
        lowercase=lowercase,
    )


def f32(x):
    return struct.unpack("f", struct.pack("f", x))[0]


# hyp 'a b c d' against 'a b' (2) and 'a b c d e' (5): unigram precision 4/4.
SHORTEST = request("corpus", [("a b c d", ["a b", "a b c d e"])], weights=(1.0,))
BP_CLOSEST = math.exp(1 - 5 / 4)  # closest reference: 5 tokens


def test_agrees():
    e = classify(SHORTEST, BP_CLOSEST, "papineni")
    assert e.name == AGREES and e.explained and e.change == ()


def test_reference_length_shortest():
    e = classify(SHORTEST, 1.0, "papineni")  # r = 2 < c: BP = 1
    assert e.name == "reference_length=shortest"
    assert e.change == (("reference_length", "shortest"),)
    assert e.value == 1.0 and e.expected == pytest.approx(BP_CLOSEST, rel=1e-15)


def test_nltk_segment_floor():
    # ((6-3)/(6-1)) ** (1/4): nltk's floor adds one phantom trigram and 4-gram
    r = request("corpus", [("a b", ["a b"]), ("c d e f g h", ["c d e f g h"])])
    assert classify(r, (3 / 5) ** 0.25, "nltk").name == "segment_totals_floor=1"


def test_tiny_instead_of_zero():
    r = request("sentence", [("a b", ["b a"])], weights=(0.5, 0.01))  # p1 = 1, p2 = 0/1
    assert classify(r, sys.float_info.min ** 0.01, "nltk").name == "tiny-instead-of-zero"


def test_no_match_zero_with_smoothing():
    r = request("corpus", [("a b c d", ["e f g h"])], smoothing={"method": "exp"})
    assert classify(r, 0.0, "mteval").name == "no-match-zero"
    # sacrebleu documents the early 0 (CHANGELOG 2.0.0, #141): its profile's own convention
    assert classify(r, 0.0, "sacrebleu").name == "agrees"


def test_mean_of_sentence_scores():
    # segment 1: BLEU-2 = 1; segment 2: p2 = 0, BLEU-2 = 0; the mean is 1/2
    r = request("corpus", [("a b", ["a b"]), ("a c", ["a d"])], weights=(0.5, 0.5))
    e = classify(r, 0.5, "papineni")
    assert e.name == "mean-of-sentence-scores" and e.change == (("computation", "mean-of-sentence-scores"),)


def test_weights_normalised():
    # p1 = 2/3, p2 = 1/2: as given (1, 1) -> 1/3; normalised (1/2, 1/2) -> sqrt(1/3)
    r = request("corpus", [("a b c", ["a b d"])], weights=(1.0, 1.0))
    assert classify(r, 1 / 3, "papineni").name == AGREES
    assert classify(r, math.sqrt(1 / 3), "papineni").name == "weights=normalise"


def test_empty_order_skip():
    r = request("sentence", [("a b", ["a b"])])  # BLEU-4 of a two-token match: orders 3, 4 are 0/0
    assert classify(r, 0.0, "papineni").name == AGREES
    assert classify(r, 1.0, "papineni").name == "empty_order=skip"


def test_percent_scale():
    r = request("corpus", [("a b c d", ["a b c d"])])
    assert classify(r, 100.0, "papineni").name == "percent-scale"


def test_float32():
    r = request("corpus", [("a b c d", ["a b c d e"])])  # BP = exp(-1/4), all p_n = 1
    e = classify(r, f32(math.exp(-0.25)), "papineni")
    assert e.name == "float32"
    assert within_contract(e.value, math.exp(-0.25))


def test_an_answer_exactly_a_bound_is_no_float32_residue():
    # stage-mutants' return:stage_scale:205:4:1 (the score returned as 1 everywhere) on a request of weight 1e-6:
    # hyp 'a b c z' against 'a b c d e f', p1 = 3/4, c = 4 < r = 6, BP = e^(1 - 6/4). Without the brevity penalty the
    # score is (3/4)^(1e-6) = 1 - 2.877e-7, within float32's 2e-6 of the answer 1.0: every reading that drops BP fits
    # "+ float32" there, a coincidence of the tiny weight (issue 36), so no float32 name, alone or as a part
    r = request("sentence", [("a b c z", ["a b c d e f"])], weights=(1e-6,))
    without_bp = math.exp(1e-6 * math.log(3 / 4))
    assert 0 < 1.0 - without_bp < 2e-6 * without_bp
    e = classify(r, 1.0, "papineni")
    assert not any("float32" in part for parts in (e.parts, *e.fitting) for part in parts), (e.name, e.fitting)
    # the same reading with a residue in its last digits (1e-7 below it) still names float32 as a part
    e = classify(r, without_bp - 1e-7, "papineni")
    assert "float32" in e.parts
    assert ("no-brevity-penalty", "float32") in (e.parts, *e.fitting)


def test_convention_with_float32():
    # torchmetrics: hyp 6 tokens, references 8 (listed first) and 4: r = 8 (first of the tied), float32 BP
    r = request("corpus", [("a b c d e f", ["a b c d e f g h", "a b c d"])], weights=(0.5, 0.5))
    e = classify(r, f32(math.exp(1 - 8 / 6)), "papineni", among=["reference_length=closest-first", "float32"])
    assert e.name == "reference_length=closest-first + float32"
    assert e.parts == ("reference_length=closest-first", "float32")


def test_both_empty_depends_on_among():
    r = request("corpus", [("", [""])])  # c = r = 0: NaN under papineni
    assert classify(r, math.nan, "papineni").name == AGREES
    assert classify(r, 0.0, "papineni").name == "no-match-zero"  # the early-return reading comes first
    assert classify(r, 0.0, "papineni", among=["both_empty=zero"]).name == "both_empty=zero"


def test_among_restricts_the_search():
    assert classify(SHORTEST, 1.0, "papineni", among=["float32"]).name == UNEXPLAINED


def test_statistics_report_smoothed_counts():
    # sacrebleu add-k (k = 1): the score is right, counts/totals carry +1 for n > 1
    r = request("corpus", [("a b c", ["a b d"])], smoothing={"method": "add-k", "k": 1.0})
    score = (2 / 3 * 2 / 3 * 1 / 2 * 1 / 1) ** 0.25  # (m+1)/(l+1) for n > 1
    answer = ScoreAnswer(score, {"hyp_len": 3, "ref_len": 3, "matches": [2, 2, 1, 1], "totals": [3, 3, 2, 1]})
    assert classify(r, answer, "sacrebleu").name == SMOOTHED_COUNTS
    raw = ScoreAnswer(score, {"hyp_len": 3, "ref_len": 3, "matches": [2, 1, 0, 0], "totals": [3, 2, 1, 0]})
    assert classify(r, raw, "sacrebleu").name == AGREES


def test_statistics_reveal_the_convention_when_the_score_agrees():
    # hyp 4 tokens, references 5 and 3 tokens: closest is 3 (tie 1 vs 1 -> shorter), BP = 1 either way
    # with shortest too; a reported ref_len of 5 can only be the longer of the tied
    r = request("corpus", [("a b c d", ["a b c d e", "a b c"])], weights=(1.0,))
    answer = ScoreAnswer(math.exp(1 - 5 / 4), {"hyp_len": 4, "ref_len": 5, "matches": [4], "totals": [4]})
    assert classify(r, answer, "papineni").name == "reference_length=closest-longer"
    answer = ScoreAnswer(1.0, {"hyp_len": 4, "ref_len": 3, "matches": [4], "totals": [4]})
    assert classify(r, answer, "papineni").name == AGREES


def test_unexplained():
    e = classify(SHORTEST, 0.123, "papineni")
    assert e.name == UNEXPLAINED and not e.explained and e.value is None


def test_answer_forms():
    assert classify(SHORTEST, {"score": 1.0}, "papineni").name == "reference_length=shortest"
    assert classify(SHORTEST, ScoreAnswer(1.0), "papineni").name == "reference_length=shortest"
    assert classify(request("corpus", [("", [""])]), {"score": "NaN"}, "papineni").name == AGREES


def test_explanation_is_frozen_and_serialisable():
    e = classify(SHORTEST, 1.0, "papineni")
    with pytest.raises(AttributeError):
        e.name = "x"  # type: ignore[misc]
    data = e.classification().model_dump(mode="json")
    assert data["name"] == "reference_length=shortest" and data["change"] == [["reference_length", "shortest"]]
    assert Explanation((UNEXPLAINED,), "").classification().value is None


def test_an_explanation_holds_its_parts_and_writes_them_joined():
    # docs/mechanisms.md: a combined name is its mechanisms' names joined by " + " in the order applied; a written
    # name is read back into them at the boundary (parse_cause) only
    e = Explanation(("reference_length=closest-first", "float32"), "", fitting=(("float32",),))
    assert e.name == "reference_length=closest-first + float32" and e.fits == ("float32",)
    assert e.classification().name == e.name and e.classification().fits == ("float32",)
    assert parse_cause(e.name) == e.parts and e.classification().parts == e.parts and parse_cause("") == ()
    # a written name passed where parts belong would be read letter by letter ("f + l + o + ..."): refused
    with pytest.raises(TypeError):
        Explanation("float32", "")  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        is_partial("other-combination")


def test_within_contract():
    assert within_contract(1.0, 1.0 + 1e-10)
    assert not within_contract(1.0, 1.0 + 1e-8)
    assert within_contract(1e-13, 1e-14) and not within_contract(1e-11, 1e-14)
    assert not within_contract(1e-13, 0.0)  # the zero rule: a tiny number for an exact 0, whatever the tolerance
    assert not within_contract(0.0, 1e-20) and within_contract(0.0, 0.0)
    assert within_contract(math.nan, math.nan) and not within_contract(0.0, math.nan)


def test_the_judge_fails_a_zero_for_an_exact_normal_score_and_passes_it_for_a_subnormal_one():
    """The zero rule (`oracle.diagnose.judge`): 0 where the exact score is a normal float is a fail whatever the
    tolerance (each score here is within the absolute 1e-12 of 0); the smallest normal float is 2**-1022, about
    2.2250738585e-308, so an exact 2.3e-308 is normal and an exact 2.2e-308 or 1e-310 is not."""

    class Zero:
        kind, message, score, statistics = "score", "", 0.0, None

    for exact in ("1E-300", "2.3E-308"):
        normal = judge(Expected(score=float(exact), score_exact=exact), Zero())
        assert normal.outcome == Outcome.FAIL and normal.layer == ZERO_LAYER, (exact, normal)
        assert f"got 0 where the exact value is {float(exact)!r}" in normal.message
    for exact in ("2.2E-308", "1E-310"):
        assert judge(Expected(score=float(exact), score_exact=exact), Zero()).outcome == Outcome.PASS, exact


def test_computation_names_are_unique_and_documented():
    names = [name for name, _ in COMPUTATIONS]
    assert len(names) == len(set(names))
    assert all(function.__doc__ for _, function in COMPUTATIONS)


def test_classify_is_deterministic():
    r = request("corpus", [("a b", ["a b"]), ("c d e f g h", ["c d e f g h"])])
    assert classify(r, 0.88, "nltk") == classify(r, 0.88, "nltk")


# -- the computations of the npm, torchtext and venv libraries (values derived by hand) ----------------


def test_best_single_reference_clipping():
    # 'a' matches only the first reference, 'b' only the second: clipped against all references p1 = 2/2;
    # against the one best reference p1 = 1/2 (both lengths 2 = c: BP 1)
    r = request("corpus", [("a b", ["a c", "d b"])], weights=(1.0,))
    assert classify(r, 1.0, "papineni").name == AGREES
    assert classify(r, 0.5, "papineni").name == "best-single-reference-clipping"


def test_epsilon_instead_of_zero():
    # p1 = 1/2, p2 = 0/1: the formulas give 0; with 1e-7 for p2, sqrt(1/2 * 1e-7)
    r = request("corpus", [("a b", ["a c"])], weights=(0.5, 0.5))
    assert classify(r, math.sqrt(0.5e-7), "papineni").name == "epsilon-instead-of-zero"


def test_best_single_reference_with_epsilon_folds_case_first():
    # folded, 'the' matches the first reference: p1 = 1/2; 'the cat' matches nothing: p2 -> 1e-7.
    # Unfolded p1 would be 0 too (1e-7 * 1e-7 under the square root): the folding is what explains it
    r = request("sentence", [("The cat", ["the dog", "a dog"])], weights=(0.5, 0.5))
    assert classify(r, math.sqrt(0.5 * 1e-7), "papineni").name == "best-single-reference-with-epsilon"
    assert classify(r, 1e-7, "papineni").name == "epsilon-instead-of-zero"


def test_case_folded_though_the_request_keeps_case():
    # 'A' does not match 'a' unless folded: p1 = 1/2 as asked, 2/2 folded
    r = request("corpus", [("A b", ["a b"])], weights=(1.0,))
    assert classify(r, 0.5, "papineni").name == AGREES
    assert classify(r, 1.0, "papineni").name == "case-folded-unasked"


def test_object_prototype_key_nan():
    r = request("sentence", [("constructor", ["constructor"])], weights=(1.0,))
    assert classify(r, math.nan, "papineni").name == "object-prototype-key-nan"
    assert (
        classify(request("sentence", [("a", ["a"])], weights=(1.0,)), math.nan, "papineni").name
        != "object-prototype-key-nan"
    )


def test_empty_text_one_token():
    # no tokens on either side: undefined; as "".split(" ") = [""] on both, one matching token: 1
    r = request("sentence", [("", [""])], weights=(1.0,))
    assert classify(r, 1.0, "papineni").name == "empty-text-one-token"


def test_a_reading_of_tokens_not_modelled_is_checked_on_the_lengths_only():
    """empty-text-one-token's counts are not modelled (`Mechanism.counts_modelled` is False): its one empty token
    matching itself gives matches [1] of totals [1] where the oracle counts [0] of [0] (no tokens); the returned c and
    r (0 and 0, the oracle's: the empty token is not counted in the length here) are what is compared. Compared on
    every count, the returned matches would rule it out."""
    r = request("sentence", [("", [""])], weights=(1.0,))
    answer = {"score": 1.0, "statistics": {"hyp_len": 0, "ref_len": 0, "matches": [1], "totals": [1]}}
    assert classify(r, answer, "papineni").name == "empty-text-one-token"


def test_ratio_zero_when_the_shortest_reference_is_empty():
    # c = 1; the references' lengths 1 and 0: the closest gives r = 1 and 1.0; the shortest r = 0, and
    # c/r taken as 0 makes BP = exp(1 - 1/0) = 0
    r = request("corpus", [("a", ["a", ""])], weights=(1.0,))
    assert classify(r, 1.0, "papineni").name == AGREES
    assert classify(r, 0.0, "papineni").name == "reference_length=shortest + ratio-zero-when-r-zero"


def test_a_batch_of_empty_references_counts_no_hypothesis_ngram():
    # 'a b c d' against itself and 'x' against an empty reference, BLEU-4 unsmoothed: in one batch p1 = 4/5 (c = 5
    # > r = 4), (4/5)^(1/4); with 'x' in a batch of its own whose references are all empty, tfma counts its length
    # and none of its n-grams: every precision 1, score 1
    segments = [Segment(hypothesis=tuple("abcd"), references=(tuple("abcd"),)), Segment(hypothesis=("x",),
                                                                                      references=((),))]
    r = ScoreRequest(level="corpus", segments=segments, weights=[0.25] * 4, smoothing="none",
                     stateful={"shards": [[1, 1]]})
    assert classify(r, 0.8 ** 0.25, "sacrebleu").name == AGREES
    assert classify(r, 1.0, "sacrebleu").name == "empty-reference-batch-uncounted"


def test_no_match_conventions_are_alternatives():
    # nothing matches at any order; add-one on every order (lin-2004) gives p1 = 1/4, p2 = 1/3, BP 1
    # (c = r = 3): sqrt(1/12). sacrebleu returns 0 before smoothing; keras-hub's answer is the smoothed one
    r = request("corpus", [("a b c", ["d e f"])], weights=(0.5, 0.5), smoothing={"method": "lin-2004"})
    assert classify(r, math.sqrt(1 / 12), "papineni").name == AGREES
    assert classify(r, math.sqrt(1 / 12), "sacrebleu").name == "no_match=smoothed"
    assert classify(r, 0.0, "papineni").name == "no-match-zero"  # the computation named before the convention


# -- reasoning from the returned statistics (issue 24); every count below is by hand --------------------


def test_returned_matches_rule_out_an_explanation_the_score_alone_fits():
    # 'a' against 'A', case kept: 0 matches, p_1 = 0, score 0. An implementation that folds case unasked
    # answers 1 with 1 match; dropping the zero precision (leaving no order: exp(0) = 1) also gives 1 by the
    # score alone, but needs 0 matches, which the implementation did not return.
    r = request("sentence", [("a", ["A"])], weights=(1.0,))
    e = classify(r, ScoreAnswer(1.0, {"hyp_len": 1, "ref_len": 1, "matches": [1], "totals": [1]}), "papineni")
    assert e.name == "case-folded-unasked" and "zero-precision-dropped" not in e.fits
    alone = classify(r, ScoreAnswer(1.0), "papineni")  # no statistics: both fit, and the run must choose
    assert {alone.name, *alone.fits} >= {"case-folded-unasked", "zero-precision-dropped"}


def test_returned_counts_name_the_counting_mechanism_exactly():
    # 'a a' against 'a' and 'a b': Max_Ref_Count('a') = 1, so 1 clipped match of 2 (score 1/2, BP 1: c = r = 2).
    r = request("sentence", [("a a", ["a", "a b"])], weights=(1.0,))
    unclipped = ScoreAnswer(1.0, {"hyp_len": 2, "ref_len": 2, "matches": [2], "totals": [2]})  # 2 of 2: no clipping
    e = classify(r, unclipped, "papineni")
    assert e.name == "unclipped-matches"
    assert "clipped-to-reference-sum" in e.fits  # 'a' occurs once in each reference: the sum is 2 as well
    one_short = ScoreAnswer(0.5, {"hyp_len": 2, "ref_len": 2, "matches": [1], "totals": [1]})  # len - n = 1
    assert classify(r, one_short, "papineni").name == "totals-one-short"


def test_returned_counts_of_fewer_orders_than_the_request_are_no_counting_alternatives():
    # 'a a' against 'a b' under two orders (weights 1/2, 1/2); the answer's statistics cover one order only (an
    # earlier answer of a one-order request, kept): c = r = 2, 2 unigram matches of 2. The formulas refuse to score
    # them with two weights, and no counting of two orders gives counts of one: classify names what is known. It
    # raised ValueError before (the counting alternatives zipped one order against two, strictly); read as order 1
    # alone, the counts would be unclipped-matches' ('a' counted twice against one 'a').
    r = request("sentence", [("a a", ["a b"])], weights=(0.5, 0.5))
    e = classify(r, ScoreAnswer(1.0, {"hyp_len": 2, "ref_len": 2, "matches": [2], "totals": [2]}), "papineni")
    assert "unclipped-matches" not in (e.name, *e.fits)
    assert e.name.startswith("other-counting-of-matches")


def test_an_explanation_whose_counts_contradict_the_returned_ones_is_never_chosen():
    # c = 2 against references of 1 and 2 tokens: every reference-length rule gives r = 1 or 2, BP 1, score 1/2.
    # An answer of 1/2 reporting ref_len 3 (no reference has 3 tokens) fits no convention and no counting
    # mechanism: whatever gives 1/2 by the score alone is contradicted by the returned r.
    r = request("sentence", [("a a", ["a", "a b"])], weights=(1.0,))
    e = classify(r, ScoreAnswer(0.5, {"hyp_len": 2, "ref_len": 3, "matches": [1], "totals": [2]}), "papineni")
    assert e.name == "other-counting-of-ref_len" or not e.explained


def test_a_run_is_named_by_the_fewest_explanations_that_cover_it():
    from oracle.diagnose.cover import minimal_cover

    # 78 records fit both longest and closest-longer (a tie), 26 fit longest only: one name covers all 104.
    # (each record's causes as their parts: `Classification.signature_parts`)
    causes = minimal_cover({(("reference_length=closest-longer",), ("reference_length=longest",)): 78,
                            (("reference_length=longest",),): 26})
    assert [(c.name, c.records) for c in causes] == [("reference_length=longest", 104)]
    tied = minimal_cover({(("a",), ("b",)): 5})
    assert [(c.name, c.records, c.alternatives) for c in tied] == [("a", 5, ("b",))]
    two = minimal_cover({(("x",),): 2, (("y",),): 1})
    assert [c.name for c in two] == ["x", "y"]


def test_the_classification_budget_is_deterministic_and_says_it_was_spent():
    r = request("corpus", [("a b c d", ["a b", "a b c d e"])] * 50, weights=(1.0,))
    e = classify(r, 0.123, "papineni", budget=10)
    assert e.name == UNEXPLAINED and "budget" in e.description
    assert classify(r, 0.123, "papineni", budget=10).description == e.description


def test_a_search_that_spends_its_budget_still_names_what_is_known():
    """50 segments "a b c d" against "a b" and "a b c d e", BLEU-1: each segment c = 4, the closest reference 5
    (|5 - 4| = 1 < |2 - 4| = 2), all 4 unigrams matched; summed c = 200, r = 250, matches 200 of 200, so BLEU =
    e^(1 - 250/200) = e^-0.25. An answer that counted one match fewer (199, as a counter that wraps or drops one) and
    scored its own counts, e^-0.25 x 199/200: its counts differ first at the matches, and its score follows from
    them. A budget of 10 token computations is spent on the first candidate (550 tokens); the record is still
    named by its layer, as the full search names it (`other-counting-of-matches`), never a bare `unexplained` and
    never the combination as well (the score does follow from the returned counts)."""
    import math

    r = request("corpus", [("a b c d", ["a b", "a b c d e"])] * 50, weights=(1.0,))
    answer = {"score": math.exp(-0.25) * 199 / 200,
              "statistics": {"hyp_len": 200, "ref_len": 250, "matches": [199], "totals": [200]}}
    cut = classify(r, answer, "papineni", budget=10)
    assert cut.name == "other-counting-of-matches", cut.name
    assert "budget (10 token computations) was spent" in cut.description
    assert classify(r, answer, "papineni").name == "other-counting-of-matches"
    # an answer that does not follow from its counts keeps the combination as what is known of its score
    other = {**answer, "score": 0.5}
    assert classify(r, other, "papineni", budget=10).name.startswith("other-counting-of-matches + ")


def test_a_search_given_a_shared_meter_spends_at_most_what_is_left_and_says_whose_budget_ran_out():
    """`TokenMeter`: one segment of 3 hypothesis tokens and 5 reference tokens, so that each candidate costs 8 token
    computations. With nothing left the search is cut at its first candidate (spent 8, past the 0 left); with 20 left
    it is cut at its third (8 + 8 + 8 = 24 > 20); each time the meter says it was cut and the description says
    whose budget ran out. What is known of an answer of 0 is never refused: with nothing left it is what it is
    without a meter, and adds what it spent (candidates of 8 each)."""
    from oracle.diagnose.classify import TokenMeter, what_is_known

    r = request("corpus", [("a b c", ["a b c d e"])], weights=(1.0,))
    nothing = TokenMeter(0, words="the shared budget")
    e = classify(r, 0.123, "papineni", meter=nothing)
    assert (e.name, nothing.spent, nothing.cut) == (UNEXPLAINED, 8, True)
    assert e.description.startswith("the shared budget (0 token computations left for this search) was spent after 1")
    twenty = TokenMeter(20)
    classify(r, 0.123, "papineni", meter=twenty)
    assert (twenty.spent, twenty.cut, twenty.left()) == (24, True, 0)
    known = TokenMeter(0)
    assert what_is_known(r, 0.0, "papineni", meter=known) == what_is_known(r, 0.0, "papineni")
    assert known.spent > 0 and known.spent % 8 == 0 and not known.cut


def test_what_is_known_without_the_zero_variants_names_the_same_and_tries_none_of_them():
    """One segment "a b c" against "a b c d e", BLEU-1: c = 3, r = 5, the 3 unigrams matched (3 of 3), so BLEU =
    e^(1 - 5/3) = e^(-2/3), about 0.513, not 0. An answer of 0 with those statistics: the counts are the oracle's and
    the score is not, so what is known of it is the score stage. With `zero_variants` (a record a search was run
    for) every combination computation is tried for its other fits, each charged as a candidate (8 token
    computations here); without them (a record whose run cut or did not run its search: cost-bound) the record has
    the same name, no candidate is charged for them, and its description says they were not tried. An answer other
    than 0 is untouched (no variant is tried for it either way). By hand: with 4 orders of weight 1/4
    (`order-fixed-at-4`, the weights passed on ignored) "a b c" has no 4-gram, p_4 = 0 of 0 counted as 0 under the
    profile's empty-order rule, so that variant gives 0 and is among the fits where the variants are tried; without
    them what is known computes the oracle's result once, which no search charges, and charges no candidate."""
    from oracle.diagnose.classify import ZERO_VARIANTS_NOT_TRIED, TokenMeter, what_is_known

    r = request("corpus", [("a b c", ["a b c d e"])], weights=(1.0,))
    zero = {"score": 0.0, "statistics": {"hyp_len": 3, "ref_len": 5, "matches": [3], "totals": [3]}}
    tried, untried = TokenMeter(10**9), TokenMeter(10**9)
    full = what_is_known(r, zero, "papineni", meter=tried)
    cut = what_is_known(r, zero, "papineni", meter=untried, zero_variants=False)
    assert cut.name == full.name != UNEXPLAINED
    assert untried.spent == 0 and tried.spent > 0 and tried.spent % 8 == 0
    assert cut.description == f"{full.description}; {ZERO_VARIANTS_NOT_TRIED}"
    assert ("order-fixed-at-4",) in full.fitting and cut.fitting == ()
    other = {**zero, "score": 0.25}
    kept, left = TokenMeter(10**9), TokenMeter(10**9)
    assert what_is_known(r, other, "papineni", meter=kept) == what_is_known(r, other, "papineni", meter=left,
                                                                             zero_variants=False)
    assert kept.spent == left.spent


def test_a_per_segment_candidate_is_charged_each_segment_it_scores_alone_as_a_candidate_on_that_segment():
    """Three segments of one hypothesis token and one reference token ("a"/"a", "b"/"c", "d"/"d"), BLEU-1: 6 tokens,
    so that with a shared meter's floor of 100 (`SEARCH_CANDIDATE_FLOOR`) a candidate on the input costs 100. By hand:
    the corpus matches 2 of 3 unigrams, BP 1 (c = r = 3), BLEU = 2/3; the segments' own scores are 1, 0 and 1, their
    mean 2/3; batches of 2 ("a b" against "a c", then "d" against "d") score 1/2 and 1, their mean 3/4. An answer of
    0.5 fits neither, so each is tried once. `mean-of-sentence-scores` scores each of the 3 segments alone: 3
    candidates of 2 tokens each, at the floor 100 each, 300, of which its own charge (one candidate on the input, 100)
    is part: 300 spent, where it was charged 100 as one candidate on the corpus. The batch mean after it scores the
    batch of the first two (a candidate at the floor, covered by its own charge) and the third segment alone, which the
    mean had scored already under the same options (not charged twice): 100 more, 400. Without a shared meter (floor
    1) the segments' pieces cost their 6 tokens, which the candidate's own charge (the input's 6 tokens) covers: 6, as
    before."""
    from oracle.diagnose.classify import SEARCH_CANDIDATE_FLOOR, TokenMeter

    assert SEARCH_CANDIDATE_FLOOR == 100
    r = request("corpus", [("a", ["a"]), ("b", ["c"]), ("d", ["d"])], weights=(1.0,))
    mean = TokenMeter(10**6, floor=SEARCH_CANDIDATE_FLOOR)
    assert classify(r, 0.5, "papineni", among=("mean-of-sentence-scores",), meter=mean).name == UNEXPLAINED
    assert mean.spent == 300
    both = TokenMeter(10**6, floor=SEARCH_CANDIDATE_FLOOR)
    among = ("mean-of-sentence-scores", "mean-of-scores-of-batches-of-2")
    assert classify(r, 0.5, "papineni", among=among, meter=both).name == UNEXPLAINED
    assert both.spent == 400
    unfloored = TokenMeter(10**6)
    classify(r, 0.5, "papineni", among=("mean-of-sentence-scores",), meter=unfloored)
    assert unfloored.spent == 6
    # a meter that cannot pay for the three segments stops the search before it scores them all
    short = TokenMeter(250, floor=SEARCH_CANDIDATE_FLOOR)
    assert classify(r, 0.5, "papineni", among=("mean-of-sentence-scores",), meter=short).name == UNEXPLAINED
    assert short.cut and short.spent == 200


def test_a_structural_candidate_is_charged_by_the_request_it_reshapes_before_it_is_computed():
    """`SWAPPED` (`mechanisms.structure`) on one segment of 3 hypothesis tokens and one 5-token reference: the
    reshaped request has the 5 tokens as its hypothesis and the 3 as its one reference, 8 tokens and 1 reference,
    which cost 8 + 1 = 9 (`structured_size`: each reference once more, for its table of n-grams) where a candidate
    on the input costs 8. An answer it does not give (0.5; the swapped score is a 3/5 precision times a brevity
    penalty of 1) tries it once: 9 spent. With 8 left the reshaped request is not computed at all (its 9 cannot be
    paid)."""
    from oracle.diagnose import computations
    from oracle.diagnose.classify import TokenMeter
    from oracle.diagnose.mechanisms.structure import SWAPPED

    r = request("corpus", [("a b c", ["a b c d e"])], weights=(1.0,))
    meter = TokenMeter(10**6)
    assert classify(r, 0.5, "papineni", among=(SWAPPED,), meter=meter).name == UNEXPLAINED
    assert meter.spent == 9
    computed = []
    real = computations.result_under

    def counted(ctx, **kwargs):
        computed.append(kwargs.get("request"))
        return real(ctx, **kwargs)

    import pytest as _pytest

    with _pytest.MonkeyPatch.context() as patch:
        patch.setattr(computations, "result_under", counted)
        short = TokenMeter(8)
        classify(r, 0.5, "papineni", among=(SWAPPED,), meter=short)
    assert short.cut and all(request is None for request in computed)


#: Values each option takes somewhere (a profile, a case's override), so that every option is varied.
OPTION_ALTERNATIVES = {
    "segment_totals_floor": (0, 1),
    "lowercase": (False, True),
    "case_fold": ("unicode", "ascii"),
    "reference_length": ("closest", "shortest", "longest", "closest-longer"),
}


@pytest.mark.parametrize("level", ["corpus", "sentence"])
def test_counts_shared_between_conventions_give_what_counting_afresh_gives(level):
    """The classifier counts a request once per way of counting (`COUNTING_OPTIONS`) and scores every
    convention from those counts. Under each profile's options, and under each with one option changed to
    each value it takes (profiles' values and OPTION_ALTERNATIVES), the result through one shared `counted`
    must equal the result counted afresh: were an option that changes the counts left out of
    COUNTING_OPTIONS, its variant would reuse the unchanged options' counts and differ."""
    from dataclasses import fields

    from oracle.diagnose.expect import oracle_result
    from oracle.formulas.errors import BleuOracleError
    from oracle.formulas.profiles import PROFILES

    pairs = [("The cat sat on the ÉTÉ mat", ["the cat sat on a mat été", "The cat is on the mat today ok"])]
    if level == "corpus":
        pairs += [("a", ["A b c"]), ("x y z w", ["x y", "q x y z w v"])]
    req = request(level, pairs, weights=(0.25,) * 4, smoothing={"method": "add-k", "k": 1})
    text = req.model_copy(update={  # text with a no-break space: the token split rules read it differently
        "tokenize": "none",
        "segments": tuple(
            Segment(hypothesis=h.replace(" ", "\u00a0", 1), references=tuple(refs)) for h, refs in pairs
        ),
    })
    names = [f.name for f in fields(next(iter(PROFILES.values())).options)]
    values = {name: {getattr(p.options, name) for p in PROFILES.values()} for name in names}
    for name, alternatives in OPTION_ALTERNATIVES.items():
        values[name] |= set(alternatives)
    tried = 0
    bases = [p.options.with_changes(lowercase=folded) for p in PROFILES.values() for folded in (False, True)]
    for base, asked in ((base, asked) for base in bases for asked in (req, text)):
        counted: dict = {}
        oracle_result(asked, base, counted=counted)  # the unchanged options' counts come first
        for name in names:
            for value in sorted(values[name], key=repr):
                try:
                    options = base.with_changes(**{name: value})
                    fresh = oracle_result(asked, options)
                except BleuOracleError:
                    continue
                shared = oracle_result(asked, options, counted=counted)
                assert (shared.score, shared.statistics, shared.bp) == (fresh.score, fresh.statistics, fresh.bp), name
                tried += 1
    assert tried > len(bases) * len(names)


def test_epsilon_also_for_an_order_without_ngrams():
    """"a b" against "a c", uniform weights up to 4: matches (1, 0, 0, 0) of totals (2, 1, 0, 0). An
    implementation that reads 0/0 as 0 and then every zero precision as 1e-7 gives, by hand,
    exp(0.25 ln 0.5 + 0.75 ln 1e-7) = 0.5^0.25 * 1e-7^0.75 = 0.8408964 * 5.6234133e-6 = 4.7287080e-6
    (the planted bug `epsilon-zero-precision`, modelled on promptfoo's `p === 0 ? 1e-7 : p`)."""
    req = request("corpus", [("a b", ["a c"])])
    answer = 0.5 ** 0.25 * 1e-7 ** 0.75
    assert answer == pytest.approx(4.7287080e-6, rel=1e-7)
    explanation = classify(req, ScoreAnswer(answer), "papineni")
    assert explanation.name == "epsilon-for-every-zero-or-empty-order"


def test_a_tiny_precision_with_an_order_without_ngrams_is_classified_not_crashed():
    """"a b" against "a c" with weights (0.5, 0.25, 0.25): p1 = 1/2, p2 = 0/1, order 3 has no n-gram. NLTK's
    method0 divides by max(1, count), so p3 = 0 too, and both zeros become sys.float_info.min: by hand
    exp(0.5 ln 0.5 + 0.5 ln 2.2250738585072014e-308) = 0.7071068 * 1.4916681e-154 = 1.0547686e-154.
    (The classification failed on this before, reading the 0/0 order's precision as a number.)"""
    req = request("corpus", [("a b", ["a c"])], weights=(0.5, 0.25, 0.25))
    answer = math.exp(0.5 * math.log(0.5) + 0.5 * math.log(sys.float_info.min))
    assert answer == pytest.approx(1.0547686e-154, rel=1e-6)
    assert classify(req, ScoreAnswer(answer), "papineni").name == "tiny-instead-of-zero"


def test_a_hypothesis_cut_to_its_first_256_tokens_is_named_by_its_counts():
    """A 300-token hypothesis "a b a b ..." against a 300-token reference "a b a b ... c c ... c" (260 of
    "a b", then 40 "c"). Cut to 256 tokens each, both are the same "a b" run: by hand c = r = 256, matches =
    totals = (256, 255, 254, 253), score 1 (SensAI-PT/LLaMa2lang issue #66: `s[:max_length]` before scoring).
    Counted whole, the oracle has c = r = 300 and 260 unigram matches, so the counts say what was done."""
    hypothesis = " ".join(["a", "b"] * 150)
    reference = " ".join(["a", "b"] * 130 + ["c"] * 40)
    req = request("corpus", [(hypothesis, [reference])])
    stats = {"hyp_len": 256, "ref_len": 256, "matches": [256, 255, 254, 253], "totals": [256, 255, 254, 253],
             "bp": 1.0}
    explanation = classify(req, ScoreAnswer(1.0, stats), "papineni")
    assert explanation.name == "truncated-to-256-tokens"


@pytest.mark.parametrize("hypothesis, reference, name", [
    (["a b", "c"], ["a", "b c"], "ngram-keys-joined-by-space"),
    (["ab", "c"], ["a", "bc"], "ngram-keys-concatenated"),
])
def test_ngrams_keyed_by_joined_text_are_named_by_their_counts(hypothesis, reference, name):
    """Two tokens against two others, weights (0.5, 0.5). By the formulas no unigram and no bigram matches:
    matches (0, 0). Keyed by the tokens joined (promptfoo's `words.slice(i, i + n).join(' ')`), the bigram's
    key is the same text on both sides: matches (0, 1) of totals (2, 1), and the score 0 (p1 = 0)."""
    req = ScoreRequest(seq=0, level="sentence", segments=(Segment(hypothesis=tuple(hypothesis),
                       references=(tuple(reference),)),), weights=(0.5, 0.5), smoothing={"method": "none"})
    stats = {"hyp_len": 2, "ref_len": 2, "matches": [0, 1], "totals": [2, 1], "bp": 1.0}
    assert classify(req, ScoreAnswer(0.0, stats), "papineni").name == name


def test_ngram_counts_kept_in_8_bits_are_named_by_their_counts():
    """300 "a" against 300 "a": each order's one n-gram occurs 300 - n + 1 times on both sides. Kept in 8 bits
    (StringDistances.jl issue #12's UInt8), 300 wraps to 44, 299 to 43, 298 to 42, 297 to 41: by hand
    matches (44, 43, 42, 41) of totals (300, 299, 298, 297), and the score exp(sum of ln(m/t) / 4)."""
    req = request("corpus", [(" ".join(["a"] * 300), [" ".join(["a"] * 300)])])
    matches, totals = [44, 43, 42, 41], [300, 299, 298, 297]
    score = math.exp(sum(math.log(m / t) for m, t in zip(matches, totals, strict=True)) / 4)
    stats = {"hyp_len": 300, "ref_len": 300, "matches": matches, "totals": totals, "bp": 1.0}
    assert classify(req, ScoreAnswer(score, stats), "papineni").name == "ngram-counts-wrapped-at-8-bits"


@pytest.mark.parametrize("pairs, weights, stats, name", [
    # nltk issue #922: r = min(|len(ref) - c|): "a b c" against references of 5 and 2 tokens; the closest is 2
    # tokens away by 1, so r = 1, not 2 (both under c = 3: BP 1, the score 1 either way)
    ([("a b c", ["a b c d e", "a b"])], (1 / 3,) * 3,
     {"hyp_len": 3, "ref_len": 1, "matches": [3, 2, 1], "totals": [3, 2, 1]}, "reference-length-is-the-distance"),
    # a zip over lists of different lengths: the last segment ("c" against "d") is not counted, 2 of 2 match
    ([("a b", ["a b"]), ("c", ["d"])], (1.0,),
     {"hyp_len": 2, "ref_len": 2, "matches": [2], "totals": [2]}, "last-segment-dropped"),
    # sacrebleu PR #132's filter: the empty hypothesis's segment goes, with its 3-token reference
    ([("", ["c d e"]), ("a b", ["a b"])], (1.0,),
     {"hyp_len": 2, "ref_len": 2, "matches": [2], "totals": [2]}, "empty-hypotheses-dropped"),
    # a wrapper's `if not prediction or not reference: continue`: "c d" against an empty reference goes too (its 2
    # hypothesis tokens, matching nothing, with it), and so does the empty hypothesis's segment: "a b" alone, 2 of 2
    # (dropping only the empty hypothesis leaves c = 4, m = 2 of 4)
    ([("", ["c d e"]), ("c d", [""]), ("a b", ["a b"])], (1.0,),
     {"hyp_len": 2, "ref_len": 2, "matches": [2], "totals": [2]}, "segments-with-empty-text-dropped"),
])
def test_segments_and_lengths_counted_otherwise_are_named_by_their_counts(pairs, weights, stats, name):
    """Hand-derived counts of four mechanisms; each answer is the formulas' score of those counts: 1."""
    req = request("corpus", pairs, weights=weights)
    assert classify(req, ScoreAnswer(1.0, {**stats, "bp": 1.0}), "papineni").name == name


def test_an_empty_reference_split_into_one_empty_token_is_named_by_its_counts():
    """Tokens "a" and "" against an empty reference, BLEU-1. The formulas: r = 0, nothing matches, the score 0. The
    reference split into one empty token (`''.split(' ')`): r = 1, and the hypothesis's "" matches it: m1 = 1 of 2,
    c = 2 > r = 1 (BP 1), the score 1/2. An end token for the empty reference gives r = 1 but matches nothing."""
    req = ScoreRequest(seq=0, level="sentence", weights=(1.0,), smoothing={"method": "none"},
                       segments=(Segment(hypothesis=("a", ""), references=((),)),))
    stats = {"hyp_len": 2, "ref_len": 1, "matches": [1], "totals": [2], "bp": 1.0}
    assert classify(req, ScoreAnswer(0.5, stats), "papineni").name == "empty-reference-one-token"
    # a hypothesis empty beside it: the reference's one token alone, c = 0 (an end token would make c = 1); "c d"
    # against the empty reference, matching nothing: c = 2, r = 1 + 1 ("" and "e"), m1 = 0 of 2, the score 0
    req = request("corpus", [("c d", [""]), ("", ["e"])], weights=(1.0,))
    stats = {"hyp_len": 2, "ref_len": 2, "matches": [0], "totals": [2], "bp": 1.0}
    assert classify(req, ScoreAnswer(0.0, stats), "papineni").name == "empty-reference-one-token"


def assert_the_run_named_by(tmp_path, fake_name, cause):
    """`check` on the fake `fake_name` (60 examples) fails, every failing record has `cause` as its name or among its
    fits, and summary.md names the run by it alone, once per failing record."""
    from fakes.harness import check, deviations, fake

    report = tmp_path / "report"
    assert check(report, fake(fake_name), examples=60) == 1
    failing = [r for r in deviations(report) if r.outcome == "fail"]
    assert failing
    assert all(cause in (r.classification.name, *r.classification.fits) for r in failing), \
        {(r.classification.name, r.classification.fits) for r in failing}
    assert f"By root cause: {cause} x{len(failing)}." in (report / "summary.md").read_text()


def test_check_names_an_empty_reference_split_into_one_token_as_the_runs_cause(tmp_path):
    """A fake that splits an empty reference into one empty token (tests/fakes/mutant_empty_reference_split.py):
    every failing record, and the run, is named by it (not by the end token, whose counts are the same unless a
    hypothesis is empty too)."""
    assert_the_run_named_by(tmp_path, "mutant_empty_reference_split", "empty-reference-one-token")


def test_precision_fractions_normalised_per_segment_are_named_by_their_counts():
    """"a b" against "a b" and "c d" against "c e", BLEU-2. The formulas sum (3, 1) of (4, 2). Each segment's
    fraction normalised first: 2/2 and 1/1 become 1/1 and 1/1; 1/2 stays, 0/1 stays (gcd(0, 1) = 1): the sums
    (1 + 1, 1 + 0) of (1 + 2, 1 + 1) = (2, 1) of (3, 2). c = r = 4, BP 1: the score (2/3 x 1/2)^(1/2)."""
    req = request("corpus", [("a b", ["a b"]), ("c d", ["c e"])], weights=(0.5, 0.5))
    stats = {"hyp_len": 4, "ref_len": 4, "matches": [2, 1], "totals": [3, 2], "bp": 1.0}
    explanation = classify(req, ScoreAnswer(math.sqrt(2 / 3 * 1 / 2), stats), "papineni")
    assert explanation.name == "precision-fractions-normalised", explanation


def test_check_names_precision_fractions_normalised_as_the_runs_cause(tmp_path):
    """A fake that reduces each segment's (matches, total) before summing (tests/fakes/mutant_fractions_normalised.py):
    the run and its failing records are named by it."""
    assert_the_run_named_by(tmp_path, "mutant_fractions_normalised", "precision-fractions-normalised")


def test_ngram_recall_for_precision_is_named_by_its_counts():
    """"a b a" against "a b" and "b a c", BLEU-2. Precision (the formulas): unigrams a, b, a clipped to the most
    any one reference holds (a once, b once): 2 of 3; bigrams "a b", "b a" both in some reference: 2 of 2. Recall:
    "a b" has a (min(1, 2) = 1) and b (1): 2, "b a c" has b, a (1 each) and c (0): 2, so 4 of the references'
    2 + 3 = 5 unigrams; bigrams "a b" (1) and "b a" (1), "a c" (0): 2 of 1 + 2 = 3. c = 3, r = 3 (the closer
    reference), BP = 1: the score of those counts is (4/5 x 2/3)^(1/2)."""
    req = request("corpus", [("a b a", ["a b", "b a c"])], weights=(0.5, 0.5))
    stats = {"hyp_len": 3, "ref_len": 3, "matches": [4, 2], "totals": [5, 3], "bp": 1.0}
    explanation = classify(req, ScoreAnswer(math.sqrt(4 / 5 * 2 / 3), stats), "papineni")
    assert explanation.name == "recall-instead-of-precision", explanation


def test_check_names_ngram_recall_as_the_runs_cause(tmp_path):
    """A fake that counts n-gram recall for precision (tests/fakes/mutant_ngram_recall.py): the run is named by it
    (a record whose recall equals its precision but for a floor may be named by that floor; recall is among its
    fits)."""
    assert_the_run_named_by(tmp_path, "mutant_ngram_recall", "recall-instead-of-precision")


def test_check_names_segments_with_empty_text_dropped_as_the_runs_cause(tmp_path):
    """A fake that leaves out a segment whose hypothesis or first reference is empty
    (tests/fakes/mutant_empty_pairs_dropped.py): records with an empty hypothesis alone fit dropping empty
    hypotheses as well, those with an empty reference beside a non-empty hypothesis only the pairs' filter, so the
    run is named by the one that covers every record."""
    from fakes.harness import check, deviations, fake

    report = tmp_path / "report"
    assert check(report, fake("mutant_empty_pairs_dropped"), examples=60) == 1
    failing = [r for r in deviations(report) if r.classification is not None and r.classification.name
               and r.outcome == "fail"]
    assert failing
    # (a record whose answer is an early 0 is named by what gives 0, the filter among its fits)
    assert all("segments-with-empty-text-dropped" in (r.classification.name, *r.classification.fits)
               for r in failing), \
        {(r.classification.name, r.classification.fits) for r in failing}
    summary = (report / "summary.md").read_text()
    assert "By root cause: segments-with-empty-text-dropped x" in summary, summary


def _text_request(level, pairs, weights, smoothing=None):
    return ScoreRequest.model_validate({
        "cmd": "score", "seq": 0, "level": level, "tokenize": "13a", "weights": list(weights),
        "smoothing": smoothing or {"method": "none"},
        "segments": [{"hypothesis": h, "references": list(refs)} for h, refs in pairs]})


def test_a_text_split_into_words_on_ascii_whitespace_only_is_named_by_the_splitting_rule():
    """13a under sacrebleu splits words with str.split(), so "a\\u00a0b c" is a, b, c: BLEU-1 of it against
    "a b c" is 1. Split on ASCII whitespace only (Perl's split on bytes, C's isspace, TensorFlow's
    tf.strings.split), the no-break space stays inside a word: a\\u00a0b, c; one of the two matches (p1 = 1/2),
    c = 2 < r = 3 (BP = exp(1 - 3/2)): BLEU-1 = exp(-0.5) / 2. Unicode's White_Space (Perl's \\s on characters)
    splits U+00A0 as str.split() does, so only the ASCII rule gives that value."""
    req = _text_request("corpus", [("a\u00a0b c", ["a b c"])], [1.0])
    explanation = classify(req, ScoreAnswer(math.exp(-0.5) / 2), "sacrebleu")
    assert explanation.name == "token_split=ascii", explanation
    assert classify(req, ScoreAnswer(1.0), "sacrebleu").name == AGREES


def test_a_smoothed_sentence_with_orders_without_ngrams_is_classified_not_crashed():
    """keras-hub's answer to ",b" against "cat x.y" (13a: `, b` and `cat x.y`, no match; BLEU-8 with add-one
    smoothing on every order) once crashed classification (a computation read the precision of an order the
    conventions leave out as a number). Whatever explains the value, classifying it completes."""
    req = _text_request("sentence", [(",b", ["cat x.y"])], [0.125] * 8, {"method": "lin-2004"})
    explanation = classify(req, ScoreAnswer(0.29406043887138367), "sacrebleu")
    assert isinstance(explanation, Explanation)


def test_a_13a_line_not_padded_with_spaces_is_named_by_the_padding_rule():
    """mteval-v13a.pl pads the line (`$norm_text = " $norm_text ";`), so in "in 1995." the final "." has a space
    after it and `s/([\\.,])([^0-9])/ $1 $2/g` splits it off: in, 1995, . -- the reference's tokens; BLEU-1 = 1.
    Without the padding (keras-hub's port; torchmetrics #1776) nothing follows the "." and "1995." stays one token:
    in, 1995. against in, 1995, .: p1 = 1/2, c = 2 < r = 3, BLEU-1 = exp(-0.5) / 2."""
    from oracle.formulas.tokenizers import tokenize

    assert tokenize("in 1995.", "13a") == ("in", "1995", ".")
    assert tokenize("in 1995.", "13a", padding="none") == ("in", "1995.")
    req = _text_request("corpus", [("in 1995.", ["in 1995 ."])], [1.0])
    assert classify(req, ScoreAnswer(math.exp(-0.5) / 2), "sacrebleu").name == "line_padding=none"


def _tokens_request(pairs, lowercase=False):
    return ScoreRequest(seq=0, level="corpus", weights=(1.0,), smoothing={"method": "none"}, lowercase=lowercase,
                        segments=tuple(Segment(hypothesis=h, references=tuple(refs)) for h, refs in pairs))


@pytest.mark.parametrize("pairs, stats, name", [
    # fairseq's bleu_ltrim/bleu_rtrim: <pad> a b </s> against a b </s> is a b against a b: 2 of 2, c = r = 2
    ([(("<pad>", "a", "b", "</s>"), [("a", "b", "</s>")])], (2, 2, 2, 2), "pad-and-eos-trimmed"),
    # --remove-bpe: new@@ s paper is news paper, the reference's two tokens: 2 of 2
    ([(("new@@", "s", "paper"), [("news", "paper")])], (2, 2, 2, 2), "bpe-marks-merged"),
    # joined and split again: "a b", c is a, b, c: 3 of 3 against a b c
    ([(("a b", "c"), [("a", "b", "c")])], (3, 3, 3, 3), "tokens-resplit-on-whitespace"),
    # the empty token filtered out (a token holding a space kept: splitting again would give 3 tokens): 2 of 2
    ([(("a", "", "b c"), [("a", "b c")])], (2, 2, 2, 2), "empty-tokens-dropped"),
    # a per-token trim: " a", "b c " are a, "b c" (split again on whitespace they would be 3 tokens): 2 of 2
    ([((" a", "b c "), [("a", "b c")])], (2, 2, 2, 2), "tokens-stripped"),
    # NFKC: the ligature fi and the superscript two become f i and 2: fix x2 against fix x2, 2 of 2
    ([(("\ufb01x", "x\u00b2"), [("fix", "x2")])], (2, 2, 2, 2), "tokens-nfkc-normalised"),
    # a transcript normaliser deletes "(...)" spans, then splits on whitespace: "the (laughs) cat" against "the cat
    # (applause)" is "the cat" against "the cat": 2 of 2, c = r = 2 (the formulas: c = r = 3, 2 of 3)
    ([(("the", "(laughs)", "cat"), [("the", "cat", "(applause)")])], (2, 2, 2, 2), "text-between-parentheses-removed"),
    # a span crossing tokens goes whole, and "()" stays (nothing between): "(a", "b)", "()" against "()": 1 of 1
    ([(("(a", "b)", "()"), [("()",)])], (1, 1, 1, 1), "text-between-parentheses-removed"),
    # a reference cut at its first line break: "a b\nc d" keeps "a b"; "a", "b\nc", "d" against it is 2 of 3 (a, b),
    # c = 3, r = 2 (the formulas: r = 3, a and d match)
    ([(("a", "b", "d"), [("a", "b\nc", "d")])], (3, 2, 2, 3), "references-cut-at-first-line-break"),
    # the hypothesis cut: "a", "b\nx", "c" keeps a, b: 2 of 2 against a b, c = r = 2 (the formulas: 1 of 3, c = 3)
    ([(("a", "b\nx", "c"), [("a", "b")])], (2, 2, 2, 2), "hypotheses-cut-at-first-line-break"),
    # a token with nothing before its break goes, and every token after it: the reference "\nb", "a" keeps nothing;
    # "a", "b" against it is 0 of 2, c = 2, r = 0 (the formulas: a matches, r = 2)
    ([(("a", "b"), [("\nb", "a")])], (2, 0, 0, 2), "references-cut-at-first-line-break"),
    # both cut: "a\n", "b" is "a" on each side: 1 of 1, c = r = 1 (one side cut alone: 1 of 2, or 1 of 1 with r = 2)
    ([(("a\n", "b"), [("a\n", "c")])], (1, 1, 1, 1), "text-cut-at-first-line-break"),
    # fairseq's Scorer.add masks the reference's <unk>: of a <unk> against a <unk> only a matches, 1 of 2
    ([(("a", "<unk>"), [("a", "<unk>")])], (2, 2, 1, 2), "reference-unk-never-matches"),
    # a JavaScript `{}` of n-gram counts: "constructor" reads the inherited member, 1 of 2
    ([(("constructor", "a"), [("constructor", "a")])], (2, 2, 1, 2), "object-member-unigrams-never-match"),
])
def test_tokens_changed_before_counting_are_named_by_their_counts(pairs, stats, name):
    """Hand-derived BLEU-1 counts (c, r, matches, total) of each mechanism; the answer is their score,
    BP * m / t (BP 1: c = r in each)."""
    c, r, m, t = stats
    answer = ScoreAnswer(m / t, {"hyp_len": c, "ref_len": r, "matches": [m], "totals": [t], "bp": 1.0})
    assert classify(_tokens_request(pairs), answer, "papineni").name == name


def test_case_folded_on_ascii_letters_only_is_named_by_the_folding_rule():
    """lowercase asked: É A against é a. Folded as str.lower() both match (BLEU-1 = 1); A-Z only (Perl's lc on
    bytes, tf.strings.lower), A becomes a and É stays: 1 of 2, 0.5; with case ignored altogether neither would
    match (0), so only the ASCII rule gives 0.5."""
    req = _tokens_request([(("\u00c9", "A"), [("\u00e9", "a")])], lowercase=True)
    answer = ScoreAnswer(0.5, {"hyp_len": 2, "ref_len": 2, "matches": [1], "totals": [2], "bp": 1.0})
    assert classify(req, answer, "papineni").name == "case_fold=ascii"


@pytest.mark.parametrize("k, score, name", [
    # "a b" against "a c", BLEU-2: m = (1, 0), l = (2, 1), c = r = 2. k = 0.5 on every order, unigrams too:
    # p1 = 1.5 / 2.5 = 0.6, p2 = 0.5 / 1.5 = 1/3, BLEU = sqrt(0.6 / 3) = sqrt(0.2) (from order 2 on, as
    # documented: p1 = 1/2, sqrt(1/6))
    (0.5, math.sqrt(0.2), "add-k-on-every-order"),
    # k = 1.5 read as 1: p1 = 1/2, p2 = (0 + 1) / (1 + 1) = 1/2, BLEU = 1/2 (as documented p2 = 1.5 / 2.5: sqrt(0.3))
    (1.5, 0.5, "add-k-truncated-to-an-integer"),
])
def test_add_k_applied_otherwise_is_named_by_the_mechanism(k, score, name):
    req = request("corpus", [("a b", ["a c"])], weights=(0.5, 0.5), smoothing={"method": "add-k", "k": k})
    explanation = classify(req, ScoreAnswer(score), "sacrebleu")
    assert name in (explanation.name, *explanation.fits), explanation


def test_an_ngram_order_read_back_from_its_spaces_is_named_by_its_counts():
    """One map for every order keyed by " ".join (ketranm/tardis BLEU.lua): "a b", c against the same tokens.
    The unigram "a b" is keyed "a b", one space, so it counts as a bigram; the bigram ("a b", "c") is keyed
    "a b c", two spaces: a trigram, out of range for BLEU-2. Unigrams: c only (1 of 1); bigrams: "a b" (1 of 1).
    c = r = 2, every precision 1: BLEU 1 (the formulas count unigrams 2 of 2 and bigrams 1 of 1: also 1, but
    with other statistics)."""
    req = ScoreRequest(seq=0, level="corpus", weights=(0.5, 0.5), smoothing={"method": "none"},
                       segments=(Segment(hypothesis=("a b", "c"), references=(("a b", "c"),)),))
    answer = ScoreAnswer(1.0, {"hyp_len": 2, "ref_len": 2, "matches": [1, 1], "totals": [1, 1], "bp": 1.0})
    assert classify(req, answer, "papineni").name == "order-read-from-spaces"


_MOVED_BY_SPACES = ScoreRequest(seq=0, level="corpus", weights=(0.5, 0.5), smoothing={"method": "none"},
                                segments=(Segment(hypothesis=("a b", "c", "d"), references=(("c", "a", "b"),)),))


def test_a_match_moved_to_the_order_of_its_spaces_is_named_from_the_score_alone():
    """torchtext's `_compute_ngram_counter` keys n-grams by `tuple(" ".join(ngram).split(" "))` and adds each clipped
    count to `clipped_counts[len(key) - 1]`, its totals `len - i` (pytorch/text#2095). "a b", c, d against c, a, b,
    BLEU-2. By hand: hypothesis keys "a b" (a unigram, re-split to 2 tokens), "c", "d", "a b c", "c d"; reference
    keys c, a, b, "c a", "a b", "c a b". Clipped: "a b" 1 (order 2), "c" 1 (order 1): matches [1, 1] of totals
    [3, 2]; c = r = 3. BLEU = sqrt(1/3 * 1/2) = sqrt(1/6). The formulas count unigrams 1 (c) and bigrams 0: BLEU 0.
    torchtext 0.18.0 itself answers 0.40824827551841736 (sqrt(1/6) in float32; run on 2026-11-29)."""
    explanation = classify(_MOVED_BY_SPACES, ScoreAnswer(math.sqrt(1 / 6)), "papineni")
    assert explanation.name == "matches-moved-by-spaces", explanation
    explanation = classify(_MOVED_BY_SPACES, ScoreAnswer(0.40824827551841736), "papineni")
    assert explanation.name == "matches-moved-by-spaces + float32", explanation


def test_a_match_moved_to_the_order_of_its_spaces_is_named_by_its_counts():
    """The same counts returned (see above): matches [1, 1], totals [3, 2] (the ketranm/tardis reading, totals
    moved too, would count totals [2, 2]: "a b" a bigram, "a b c" out of range)."""
    answer = ScoreAnswer(math.sqrt(1 / 6), {"hyp_len": 3, "ref_len": 3, "matches": [1, 1], "totals": [3, 2],
                                            "bp": 1.0})
    assert classify(_MOVED_BY_SPACES, answer, "papineni").name == "matches-moved-by-spaces"


def _nul_corpus(references_of_first):
    return ScoreRequest(seq=0, level="corpus", weights=(0.5, 0.5), smoothing={"method": "none"}, segments=(
        Segment(hypothesis=("a", "b"), references=references_of_first),
        Segment(hypothesis=("c", "d"), references=(("c", "d"), ("x",))),
    ))


def test_trailing_nuls_dropped_from_a_fixed_width_array_are_named_by_the_counts():
    """tfma 0.52.0 (its Bleu combiner fed as the tfma adapter feeds it, run on 2026-11-29) on "a b" against
    "a b\\x00" and "y", then "c d" against "c d" and "x": hyp_len 4, ref_len 4, matches [4, 2], totals [4, 2]. By
    hand: "a b\\x00" loses its NUL (numpy reads a fixed-width string's trailing NULs as padding), so both segments
    match whole; the formulas match a and nothing of b\\x00: matches [3, 1]. BLEU-2 of the returned counts is 1."""
    req = _nul_corpus((("a", "b\x00"), ("y",)))
    answer = ScoreAnswer(1.0, {"hyp_len": 4, "ref_len": 4, "matches": [4, 2], "totals": [4, 2], "bp": 1.0})
    assert classify(req, answer, "sacrebleu").name == "trailing-nuls-dropped"


def test_trailing_nuls_kept_in_a_reference_stream_with_a_gap():
    """The same library on "a b" against "a b\\x00" alone, then "c d" against "c d" and "x": matches [3, 1] of
    [4, 2], the oracle's (a reference stream holding None for the missing reference is an object array, whose
    strings keep their NULs): the mechanism's counts here are the stripped ones, [4, 2], which that answer is not."""
    req = _nul_corpus((("a", "b\x00"),))
    stripped = nul_padded_array_counts(req.segments, 2, get_profile("sacrebleu").options)
    assert stripped is None  # no hypothesis ends in NUL, and the references are kept whole
    hypothesis_nul = ScoreRequest(seq=0, level="corpus", weights=(0.5, 0.5), smoothing={"method": "none"},
                                  segments=(Segment(hypothesis=("a", "b\x00"), references=(("a", "b"),)),))
    # tfma on "a b\\x00" against "a b": hyp_len 2, ref_len 2, matches [2, 1], totals [2, 1] (the hypothesis stripped)
    assert nul_padded_array_counts(hypothesis_nul.segments, 2, get_profile("sacrebleu").options) == {
        "hyp_len": 2, "ref_len": 2, "matches": (2, 1), "totals": (2, 1)}


def test_a_counting_alternative_is_paired_with_a_convention_where_the_counts_need_both():
    """"a b\\x00" against "a b c" and "x" (BLEU-2). NULs dropped: the hypothesis is a, b: matches [2, 1] of [2, 1].
    c = 2 lies as near 1 as 3; the first listed of the closest is 3, the shorter 1 (sacrebleu's rule). tfma 0.52.0
    (run on 2026-11-29) returns hyp_len 2, ref_len 3, matches [2, 1]: neither the NULs (r would be 1) nor the tie
    rule (matches would be [1, 0]) alone gives these counts. BLEU = exp(1 - 3/2) * 1."""
    req = ScoreRequest(seq=0, level="corpus", weights=(0.5, 0.5), smoothing={"method": "none"},
                       segments=(Segment(hypothesis=("a", "b\x00"), references=(("a", "b", "c"), ("x",))),))
    answer = ScoreAnswer(math.exp(-0.5), {"hyp_len": 2, "ref_len": 3, "matches": [2, 1], "totals": [2, 1],
                                          "bp": math.exp(-0.5)})
    explanation = classify(req, answer, "sacrebleu")
    named = (explanation.name, *explanation.fits)
    assert "reference_length=closest-first + trailing-nuls-dropped" in named, explanation


#: keras-hub 0.32.0's documented classes (oracle/diagnose/data/discrepancies.yaml), as its run searches them first.
_KERAS_HUB_CLASSES = ("both_empty=nan", "empty_order=zero", "float32", "line_padding=none", "no_match=smoothed",
                      "reference_length=shortest", "token_split=ascii")


def test_three_conventions_are_tried_among_given_names():
    """keras-hub's 13a: words split on ASCII whitespace only (U+3000 keeps "a\u3000b" one word), the line not padded
    (a final "1995." stays one token) and the shortest reference's length. "a\u3000b c 1995." against itself and
    "a\u3000b c", then "c" against "c d e f g", BLEU-3. keras-hub: 3 + 1 = 4 hypothesis tokens, r = 2 (shortest) +
    5 = 7, every precision 1 (the first hypothesis is its first reference; "c" matches): exp(1 - 7/4) = exp(-0.75).
    The formulas: 5 + 1 tokens, r = 5 + 5: exp(1 - 10/6); no pair of the three gives 4 and 7. keras-hub 0.32.0
    itself (run on 2026-11-29) answers 0.472366601228714, exp(-0.75) in float32."""
    req = ScoreRequest(seq=0, level="corpus", weights=(1 / 3,) * 3, smoothing={"method": "none"}, tokenize="13a",
                       segments=(Segment(hypothesis="a\u3000b c 1995.", references=("a\u3000b c 1995.", "a\u3000b c")),
                                 Segment(hypothesis="c", references=("c d e f g",))))
    explanation = classify(req, ScoreAnswer(0.472366601228714), "sacrebleu", among=_KERAS_HUB_CLASSES)
    assert explanation.name == ("token_split=ascii + line_padding=none + reference_length=shortest + float32"), \
        explanation


_STRIPPED_AND_CUT = ScoreRequest(seq=0, level="corpus", weights=(0.25,) * 4, smoothing={"method": "exp"},
                                 tokenize="13a", segments=(
                                     Segment(hypothesis="a b c d re-\n", references=("a b c d re", "a b c d re-")),
                                     Segment(hypothesis="b", references=("b",))))
#: lm-eval 0.4 on `_STRIPPED_AND_CUT` (its adapter, run on 2026-11-29).
_LM_EVAL_ANSWER = 0.6756000774035174


def test_a_departure_and_a_computation_both_given_are_tried_together():
    """lm-eval cuts every segment to the fewest references (zip) and scores through sacrebleu, which strips the line
    before 13a ("re-\\n" stays "re-", where mteval-v13a.pl's s/-\\n//g joins "re"). By hand, both: the first segment
    keeps "a b c d re" only, against a b c d re-: 4/5, 3/4, 2/3, 1/2 of its n-grams match, "b" 1/1; c = r = 6,
    BLEU = (5/6 * 3/4 * 2/3 * 1/2) ** (1/4) = (5/24) ** (1/4). Either alone scores 1 (the stripped hypothesis is the
    second reference; the joined one is the first). lm-eval answers `_LM_EVAL_ANSWER`."""
    assert _LM_EVAL_ANSWER == pytest.approx((5 / 24) ** 0.25, rel=1e-12)
    given = ("references-cut-to-fewest", "13a-line-stripped-first")
    explanation = classify(_STRIPPED_AND_CUT, ScoreAnswer(_LM_EVAL_ANSWER), "sacrebleu", among=given)
    assert explanation.name == "13a-line-stripped-first + references-cut-to-fewest", explanation
    assert explained_value(_STRIPPED_AND_CUT, "sacrebleu", explanation.change) == pytest.approx(_LM_EVAL_ANSWER,
                                                                                                 rel=1e-12)


def test_a_departure_and_a_computation_are_not_paired_in_the_search_among_every_explanation():
    """The same answer without given names: the pair is not tried (two mechanisms nobody named before, a
    coincidence as likely as a bug), so neither it nor either part alone (each scores 1) names it."""
    explanation = classify(_STRIPPED_AND_CUT, ScoreAnswer(_LM_EVAL_ANSWER), "sacrebleu")
    assert "13a-line-stripped-first + references-cut-to-fewest" not in (explanation.name, *explanation.fits)


def test_an_epsilon_for_what_smoothing_leaves_zero_or_undefined_is_named_on_the_smoothed_precisions():
    """"a" against "b", weights (1, 0.75, 0.5, 0.1), exp smoothing, sentence level: unigrams match 0 of 1, which
    exp smoothing makes 1/2; orders 2 to 4 have no n-grams (0/0), which promptfoo's `p === 0 ? 1e-7 : p` makes
    1e-7 each: BLEU = 1 * exp(ln(1/2) + (0.75 + 0.5 + 0.1) ln(1e-7)) = 0.5 * 1e-7 ** 1.35 (about 1.774e-10)."""
    req = request("sentence", [("a", ["b"])], weights=(1.0, 0.75, 0.5, 0.1), smoothing={"method": "exp"})
    explanation = classify(req, ScoreAnswer(0.5 * 1e-7 ** 1.35), "papineni")
    assert explanation.name == "epsilon-for-every-zero-or-empty-order", explanation


def test_a_corpus_whose_every_hypothesis_is_empty_dropped_whole_is_named_by_its_counts():
    """"" against "a": 0 either way (c = 0), but an implementation that drops segments with an empty hypothesis
    (sacrebleu PR #132's filter) drops the whole corpus: r = 0, where the formulas count r = 1."""
    req = request("corpus", [("", ["a"])], weights=(1.0,))
    answer = ScoreAnswer(0.0, {"hyp_len": 0, "ref_len": 0, "matches": [0], "totals": [0], "bp": 0.0})
    assert classify(req, answer, "papineni").name == "empty-hypotheses-dropped"
def test_references_cut_to_fewest():
    # lm-eval's zip keeps one reference a segment: 'a b' against 'x y' alone matches nothing: p1 = 2/4 (the
    # second segment's 'a b' matches); with both references p1 = 4/4. c = 4, r = 2 + 2: BP 1
    r = request("corpus", [("a b", ["x y", "a b"]), ("a b", ["a b"])], weights=(1.0,))
    assert classify(r, 1.0, "sacrebleu").name == AGREES
    assert classify(r, 0.5, "sacrebleu").name == "references-cut-to-fewest"


def test_first_piece_only():
    # "a b . c d" splits on ". " into "a b " and "c d": only 'a b' is scored, against 'a b' and 'x y'; p1 = 2/2,
    # c = 2 = r: 1.0, where the whole sentence scores 3/5 against 'a b . x y'
    r = request("sentence", [("a b . c d", ["a b . x y"])], weights=(1.0,))
    assert classify(r, 0.6, "sacrebleu").name == AGREES
    assert classify(r, 1.0, "sacrebleu").name == "first-piece-only"


def test_a_line_folded_before_the_tokenizer_is_named_by_the_fold_stage():
    """Hypothesis "İ" against reference "i\\u0307", char tokenizer, lowercase, BLEU-2. Folded before tokenizing
    (sacrebleu's order), the hypothesis is the reference's two characters: p1 = p2 = 1, c = r, BLEU-2 = 1.
    Folded after (the papineni profile), its one token "i\\u0307" matches nothing: 0. A 1.0 under papineni is
    the fold's stage."""
    req = ScoreRequest.model_validate({
        "cmd": "score", "seq": 0, "level": "corpus", "tokenize": "char", "lowercase": True, "weights": [0.5, 0.5],
        "smoothing": {"method": "none"}, "segments": [{"hypothesis": "İ", "references": ["i\u0307"]}]})
    explanation = classify(req, ScoreAnswer(1.0, {"hyp_len": 2, "ref_len": 2, "matches": [2, 1], "totals": [2, 1]}),
                           "papineni")
    assert explanation.name == "fold_stage=line", explanation
    assert classify(req, ScoreAnswer(0.0), "papineni").name == AGREES



def _tokenized_request(tokenizer, pairs, weights):
    return ScoreRequest.model_validate({
        "cmd": "score", "seq": 0, "level": "corpus", "tokenize": tokenizer, "weights": list(weights),
        "smoothing": {"method": "none"},
        "segments": [{"hypothesis": h, "references": list(refs)} for h, refs in pairs]})


@pytest.mark.parametrize("tokenizer, pairs, weights, score, stats, name", [
    # 13a's entities unescaped in the hypothesis only: a " b against a & quot ; b (& and ; split off as
    # punctuation): a and b match, 2 of 3; c = 3 < r = 5: BLEU-1 = 2/3 exp(1 - 5/3)
    ("13a", [("a &quot; b", ["a &quot; b"])], [1.0], 2 / 3 * math.exp(1 - 5 / 3), (3, 5, (2,), (3,)),
     "13a-entities-left-out-in-references"),
    # <skipped> kept on both sides: a < skipped > b against a b < skipped >: every unigram matches (5 of 5),
    # bigrams "< skipped" and "skipped >" of the four: BLEU-2 = sqrt(1/2); the script's a b against a b is 1
    ("13a", [("a<skipped> b", ["a b<skipped>"])], [0.5, 0.5], math.sqrt(0.5), (5, 5, (5, 2), (5, 4)),
     "13a-skipped-tags-left-out"),
    # "-\n" not removed: the reference's "well-\nknown" is well- known (its line break a space), the
    # hypothesis's tokens: 2 of 2, c = r: 1; the script joins it to wellknown, which nothing matches
    # (the hypothesis holds no "-\n": the rule left out on the references only gives the same tokens, and fits too)
    ("13a", [("well- known", ["well-\nknown"])], [1.0], 1.0, (2, 2, (2,), (2,)), "13a-end-of-line-hyphens-left-out"),
    # intl with decimal digits only: ½ is no number, so the "." after it is split off: x½ . as the
    # hypothesis, 2 of 2: 1; mteval-v14's \p{N} keeps x½. one token, which matches nothing
    ("intl", [("x½ .", ["x½."])], [1.0], 1.0, (2, 2, (2,), (2,)), "intl-numbers-as-decimal-digits"),
    # U+1F600 as two UTF-16 code units on both sides: 2 unigrams and the bigram match: BLEU-2 = 1; one
    # character has no bigram, so the formulas give 0 (empty_order zero)
    ("char", [("\U0001F600", ["\U0001F600"])], [0.5, 0.5], 1.0, (2, 2, (2, 1), (2, 1)), "char-as-utf16-code-units"),
])
def test_a_tokenizer_rule_departed_from_is_named_by_the_rule(tokenizer, pairs, weights, score, stats, name):
    req = _tokenized_request(tokenizer, pairs, weights)
    hyp_len, ref_len, matches, totals = stats
    answer = ScoreAnswer(score, {"hyp_len": hyp_len, "ref_len": ref_len, "matches": list(matches),
                                 "totals": list(totals)})
    explanation = classify(req, answer, "papineni")
    assert explanation.name == name, explanation
    # (there, "well- known" and "well-\nknown" split on whitespace are 13a's tokens of the hypothesis and the rule
    # left out: the tokenizer run on the hypotheses only, or on neither side, gives the same counts and fits too)
    # (there, one character on each side: a token added to both, "\U0001F600 </s>" against itself or its mirror with
    # "<s>" first, gives c 2, r 2, matches (2, 1), totals (2, 1) too, the same counts, so those fit as well; and the
    # end token with each side's own pads after it, which on one segment of one reference adds no pad: the end token's
    # reshaping, tried after it, a fit and never the name)
    expected_fits = {"13a-end-of-line-hyphens-left-out": ("13a-end-of-line-hyphens-left-out-in-references",
                                                          "tokenizer-on-hypotheses-only", "tokenizer-skipped"),
                     "char-as-utf16-code-units": ("end-token-on-both-sides", "start-token-on-both-sides",
                                                  "end-token-and-padding-on-both-sides")}
    assert explanation.fits == expected_fits.get(name, ())


#: A hypothesis whose line break after a hyphen ends it, against a reference whose line break is inside it.
HYPHEN_AT_THE_END = ("well-\nknown re-\n", ["well-\nknown re-"])


def test_a_line_stripped_before_13a_is_named_by_it():
    """sacrebleu tokenizes sent.rstrip(): the hypothesis's final line break is gone before 13a's rule joining `-\n`
    can read it. mteval-v13a.pl (run 2026-11-28 through its XML reader, which keeps a segment's text as written;
    tests/adapters/test_reference_scripts.py runs it again where it is installed) joins both line breaks: wellknown re
    against wellknown re-, 1 of 2 unigrams, c = r = 2: BLEU-1 0.5, the oracle's value. sacrebleu 2.6.0 answers
    100.0 with counts [2], totals [2] (wellknown re- against wellknown re-). The rule left out on the hypotheses
    gives well- known re- instead, 1 of 3 unigrams: not it."""
    from oracle.diagnose.expect import oracle_expected

    req = _tokenized_request("13a", [HYPHEN_AT_THE_END], [1.0])
    assert oracle_expected(req, "sacrebleu").score == 0.5
    explanation = classify(req, ScoreAnswer(1.0, {"hyp_len": 2, "ref_len": 2, "matches": [2], "totals": [2]}),
                           "sacrebleu")
    assert explanation.name == "13a-line-stripped-first", explanation
    assert explanation.fits == ()


def test_a_departure_applies_only_to_text_holding_what_its_rule_reads():
    """"a b" against "a b": no 13a rule's literal occurs, so no departure changes a token; a wrong answer is
    named by something else or not at all, never by a departure."""
    from oracle.diagnose.mechanisms.text import departure_named

    req = _tokenized_request("13a", [("a b", ["a b"])], [1.0])
    assert classify(req, ScoreAnswer(1.0), "papineni").name == AGREES
    assert departure_named(classify(req, ScoreAnswer(0.5), "papineni").name) is None


def test_a_corpus_emptied_by_dropping_its_empty_hypotheses_is_among_the_fits_of_a_zero():
    """One segment, an empty hypothesis against an empty reference and "a": c = 0, r = 0 (the closest length),
    so the papineni profile's score is NaN (both empty). An implementation dropping segments with an empty
    hypothesis is left with no segment, which the formulas do not score; its 0 there fits the dropping (so a
    run whose other records are named by it gets one name), as it fits an early 0. A 0.5 does not."""
    req = ScoreRequest(seq=0, level="corpus", weights=(1.0,), smoothing={"method": "none"}, lowercase=False,
                       segments=(Segment(hypothesis=(), references=((), ("a",))),))
    zeros = {"hyp_len": 0, "ref_len": 0, "matches": [0], "totals": [0]}
    explanation = classify(req, ScoreAnswer(0.0, zeros), "papineni")
    assert "empty-hypotheses-dropped" in (explanation.name, *explanation.fits), explanation
    half = classify(req, ScoreAnswer(0.5, zeros), "papineni")
    assert "empty-hypotheses-dropped" not in (half.name, *half.fits)


def test_weights_under_a_threshold_taken_as_zero_are_named_and_replayed():
    """a b c d against a b c e: p1 = 3/4, p2 = 2/3, p3 = 1/2, c = r = 4 (BP = 1). With weights 0.5, 0.495 and
    0.005, the formulas give (3/4)^0.5 (2/3)^0.495 (1/2)^0.005; the weight 0.005 taken as 0 leaves
    (3/4)^0.5 (2/3)^0.495 -- no order has p_n = 0, so leaving out a zero precision cannot give it."""
    from oracle.diagnose.classify import explained_value

    req = ScoreRequest(seq=0, level="corpus", weights=(0.5, 0.495, 0.005), smoothing={"method": "none"},
                       lowercase=False, segments=(Segment(hypothesis=("a", "b", "c", "d"),
                                                          references=(("a", "b", "c", "e"),)),))
    answer = 0.75 ** 0.5 * (2 / 3) ** 0.495
    explanation = classify(req, ScoreAnswer(answer), "papineni")
    assert explanation.name == "small-weights-taken-as-zero", explanation
    assert abs(explained_value(req, "papineni", explanation.change) - answer) <= 1e-12
    assert classify(req, ScoreAnswer(answer * 0.5 ** 0.005), "papineni").name == AGREES



def _planned(pairs, plan, weights=(1.0,)):
    return ScoreRequest.model_validate({
        "cmd": "score", "seq": 0, "level": "corpus", "weights": list(weights), "smoothing": {"method": "none"},
        "lowercase": False, "stateful": plan,
        "segments": [{"hypothesis": list(h), "references": [list(r) for r in refs]} for h, refs in pairs]})


@pytest.mark.parametrize("pairs, plan, score, stats, name", [
    # one shard, two batches: (a b | a b) then (c | c d). Added, c = 3, r = 4, p1 = 1: exp(1 - 4/3). The
    # second update assigning its lengths leaves c = 1, r = 2: exp(1 - 2) with the same 3 of 3 unigrams
    ([("ab", ["ab"]), ("c", ["cd"])], {"shards": [[1, 1]]}, math.exp(-1), (1, 2, (3,), (3,)),
     "lengths-assigned-by-update"),
    # two shards, shard 1's state absorbing shard 0's: a merge assigning the merged-in lengths keeps shard 0's,
    # c = r = 2: BP = 1, so BLEU-1 = 1
    ([("ab", ["ab"]), ("c", ["cd"])], {"shards": [[1], [1]], "merge": [1, 0]}, 1.0, (2, 2, (3,), (3,)),
     "lengths-assigned-by-merge"),
    # a previous corpus (x | x y: c = 1, r = 2) scored and reset first, the reset keeping c and r: c = 3 + 1,
    # r = 4 + 2, BP = exp(1 - 6/4)
    ([("ab", ["ab"]), ("c", ["cd"])],
     {"shards": [[2]], "previous": [[{"hypothesis": ["x"], "references": [["x", "y"]]}]]}, math.exp(-0.5),
     (4, 6, (3,), (3,)), "lengths-kept-by-reset"),
    # shard 0: a b c d against itself, p1 = 4/4; shard 1: e against f, p1 = 0/1. Added, p1 = 4/5; averaged,
    # (1 + 0) / 2 = 1/2; c = r = 5
    ([("abcd", ["abcd"]), ("e", ["f"])], {"shards": [[1], [1]], "merge": [0, 1]}, 0.5, (5, 5, (4,), (5,)),
     "precisions-averaged-by-merge"),
    # tfma's combiner: the second batch's references are all empty, so its three n-grams are not counted:
    # totals 3 (the first segment's) where they are 6, p1 = 3/3 (c = 6 > r = 3: BP = 1); one n-gram short
    # per segment would leave 2 + 2
    ([("ade", ["ade"]), ("bcf", [""])], {"shards": [[1, 1]]}, 1.0, (6, 3, (3,), (3,)),
     "empty-reference-batch-uncounted"),
    # each update truncated to its batch but the last segment (a zip): batch (a | a, b | c) keeps a | a, batch
    # (d | d) is one segment and stays: c = r = 2, 2 of 2 (the whole corpus: c = r = 3, 2 of 3); dropping the
    # corpus's last segment instead would leave a and b: 1 of 2
    ([("a", ["a"]), ("b", ["c"]), ("d", ["d"])], {"shards": [[2, 1]]}, 1.0, (2, 2, (2,), (2,)),
     "last-segment-dropped"),
])
def test_a_metric_state_that_keeps_a_field_otherwise_is_named_by_it(pairs, plan, score, stats, name):
    req = _planned(pairs, plan)
    hyp_len, ref_len, matches, totals = stats
    answer = ScoreAnswer(score, {"hyp_len": hyp_len, "ref_len": ref_len, "matches": list(matches),
                                 "totals": list(totals)})
    assert classify(req, answer, "papineni").name == name
    if name != "last-segment-dropped":  # (named from the returned counts only: scores alone fit many readings)
        assert classify(req, ScoreAnswer(score), "papineni").name == name  # without statistics too


def test_a_corpus_a_dropping_empties_has_no_value_to_replay():
    """Every hypothesis empty: dropping them leaves no segment, which the formulas do not score, so the
    explanation predicts nothing there (it fits an answer of 0 or NaN: see the test above), and no related input
    can rule it out by a value it never had."""
    from oracle.diagnose.classify import explained_value

    req = ScoreRequest(seq=0, level="corpus", weights=(1.0,), smoothing={"method": "none"}, lowercase=False,
                       segments=(Segment(hypothesis=(), references=((), ("a",))),))
    assert explained_value(req, "papineni", (("computation", "empty-hypotheses-dropped"),)) is None


#: Tokens that hold a space or end in NUL, and plain ones: what the two mechanisms of issue 36's re-run read.
_ODD_TOKENS = st.sampled_from(["a", "b", "a b", "b a", "a\x00", "\x00", "b"])
_ODD_SEGMENTS = st.builds(
    lambda hypothesis, references: Segment(hypothesis=tuple(hypothesis), references=tuple(map(tuple, references))),
    st.lists(_ODD_TOKENS, min_size=1, max_size=6),
    st.lists(st.lists(_ODD_TOKENS, min_size=1, max_size=6), min_size=1, max_size=3))


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(segments=st.lists(_ODD_SEGMENTS, min_size=1, max_size=3))
def test_the_new_mechanisms_never_fit_the_oracles_own_answer(segments):
    """Neither mechanism is tried where it changes nothing: the moved matches' score only where they differ from the
    oracle's matches, NUL-dropped counts only where a line it reads ends in NUL. And the oracle's own answer, score
    and statistics, is named by neither (it agrees)."""
    req = ScoreRequest(seq=0, level="corpus", weights=(0.5, 0.5), smoothing={"method": "none"},
                       segments=tuple(segments))
    ctx = context_for(req, "papineni", None)
    result = result_under(ctx)
    if matches_moved_by_spaces_score(ctx, result) is not None:
        assert matches_moved_by_spaces(req.segments, 2, fold=fold_of(ctx.options)) != tuple(result.statistics.matches)
    same_count = len({len(s.references) for s in segments}) == 1
    reads_a_nul = any(s.hypothesis[-1].endswith("\x00") for s in segments) or same_count and any(
        r and r[-1].endswith("\x00") for s in segments for r in s.references)
    assert (nul_padded_array_counts(req.segments, 2, ctx.options) is not None) == reads_a_nul
    s = result.statistics
    own = ScoreAnswer(float(result.score), {"hyp_len": s.hyp_len, "ref_len": s.ref_len, "matches": list(s.matches),
                                            "totals": list(s.totals), "bp": float(result.bp)})
    assert classify(req, own, "papineni").name == AGREES


def test_the_counting_variants_clip_to_a_gram_s_largest_count_in_one_reference_not_the_sum_over_references():
    """Every counting variant that clips keeps the paper's limit (section 2.1: "the maximum number of times a word
    occurs in any single reference translation"): with two references each holding `x` once, a hypothesis `x x`
    is clipped to 1, not 2 (the sum). By hand, order 2:
    - strict clipping (`<` for `<=`): unigram `x` k=2 >= m=1 counts m - 1 = 0; bigram `x x` m=0: 0 -> (0, 0) (with the
      sum, m=2: k=2 >= 2 counts 1).
    - keys joined with " ": unigram key `x` min(2, 1) = 1; bigram key `x x` absent from both -> (1, 0).
    - one map split on spaces (torchtext#2095): tokens `p q`, `p q`; the key `p q` (a unigram holding a space,
      read back as order 2) min(2, 1) = 1; the bigram key `p q p q` absent -> (0, 1)."""
    twice = [Segment(hypothesis=("x", "x"), references=(("x",), ("x",)))]
    assert strict_clip_matches(twice, 2, fold=None) == (0, 0)
    assert joined_key_matches(" ")(twice, 2, fold=None) == (1, 0)
    spaced = [Segment(hypothesis=("p q", "p q"), references=(("p q",), ("p q",)))]
    assert matches_moved_by_spaces(spaced, 2, fold=None) == (0, 1)


def test_an_empty_hypothesis_scored_one_is_named_by_it():
    """An empty hypothesis against "a", BLEU-1: c = 0, r = 1, no unigram (0 of 0); the formulas give 0 (BP's limit as
    c -> 0). Answered 1 with those counts and BP 1: a perfect score where there is nothing to count. Against an
    empty reference too (c = r = 0, undefined: NaN under papineni), answered 1."""
    req = request("corpus", [("", ["a"])], weights=(1.0,))
    stats = {"hyp_len": 0, "ref_len": 1, "matches": [0], "totals": [0], "bp": 1.0}
    assert classify(req, ScoreAnswer(1.0, stats), "papineni").name == "empty-hypothesis-scores-one"
    req = request("corpus", [("", [""])], weights=(1.0,))
    stats = {"hyp_len": 0, "ref_len": 0, "matches": [0], "totals": [0], "bp": 1.0}
    assert classify(req, ScoreAnswer(1.0, stats), "papineni").name == "empty-hypothesis-scores-one"
    # a hypothesis of one token scored 1 against "b" (m_1 = 0 of 1, the formulas' 0) is not its case: c = 1
    req = request("corpus", [("a", ["b"])], weights=(1.0,))
    stats = {"hyp_len": 1, "ref_len": 1, "matches": [0], "totals": [1], "bp": 1.0}
    assert classify(req, ScoreAnswer(1.0, stats), "papineni").name != "empty-hypothesis-scores-one"


def test_check_names_an_empty_hypothesis_scored_one_as_the_runs_cause(tmp_path):
    """A fake that scores a corpus with no hypothesis token 1 (tests/fakes/mutant_empty_hypothesis_one.py): every
    failing record, and the run, is named by it."""
    assert_the_run_named_by(tmp_path, "mutant_empty_hypothesis_one", "empty-hypothesis-scores-one")


def test_a_number_where_the_score_is_undefined_is_named_by_what_is_known():
    """An empty hypothesis against an empty reference: c = r = 0, every p_n 0/0, undefined (NaN under papineni).
    Answered 0.7 with the oracle's own counts: no convention or computation gives 0.7, but the counts are right, so
    the record is named by the stage that differs (the combination), not bare `unexplained`."""
    req = request("corpus", [("", [""])], weights=(1.0,))
    stats = {"hyp_len": 0, "ref_len": 0, "matches": [0], "totals": [0], "bp": 1.0}
    explanation = classify(req, ScoreAnswer(0.7, stats), "papineni")
    assert explanation.name == "other-combination", explanation
    assert "the statistics are the oracle's" in explanation.description
    assert "leave the score undefined (NaN: c = r = 0)" in explanation.description
    # without statistics nothing says which stage differs: `unexplained` still
    assert classify(req, ScoreAnswer(0.7), "papineni").name == UNEXPLAINED


def test_the_last_character_of_the_last_hypothesis_line_chopped_is_named_by_its_counts():
    """"a b" against "a b" and "c dd" against "c dd", BLEU-2. The last hypothesis line "c dd" loses its last
    character: "c d", whose "d" matches nothing (unigrams 1 of 2, the bigram "c d" 0 of 1); the first segment keeps
    its 2 of 2 and 1 of 1. c = 2 + 2 = 4 = r, BP 1: matches (3, 1) of (4, 2), the score (3/4 x 1/2)^(1/2)."""
    req = request("corpus", [("a b", ["a b"]), ("c dd", ["c dd"])], weights=(0.5, 0.5))
    stats = {"hyp_len": 4, "ref_len": 4, "matches": [3, 1], "totals": [4, 2], "bp": 1.0}
    explanation = classify(req, ScoreAnswer(math.sqrt(3 / 4 * 1 / 2), stats), "papineni")
    assert explanation.name == "last-character-of-last-hypothesis-chopped", explanation


def test_a_last_token_of_one_character_chopped_disappears():
    """"a b" against "a b" and "c d" against "c d", BLEU-2: the last line "c d" chopped is "c " and its tokens "c":
    c = 2 + 1 = 3 (r = 2 + 2 = 4, the reference closest to 1 token being the only one), matches (2 + 1, 1 + 0) of
    (2 + 1, 1 + 0) = (3, 1) of (3, 1), BP e^(1 - 4/3): the score e^(-1/3)."""
    req = request("corpus", [("a b", ["a b"]), ("c d", ["c d"])], weights=(0.5, 0.5))
    stats = {"hyp_len": 3, "ref_len": 4, "matches": [3, 1], "totals": [3, 1], "bp": math.exp(-1 / 3)}
    explanation = classify(req, ScoreAnswer(math.exp(-1 / 3), stats), "papineni")
    assert explanation.name == "last-character-of-last-hypothesis-chopped", explanation


# "a b c" against "a b c" and "d" against "d", BLEU-1: the formulas' c = r = 3 + 1 = 4 and 4 of 4 unigrams match.
#   c the first segment's (3): BP e^(1 - 4/3) = e^(-1/3); c the last's (1): e^(1 - 4/1) = e^(-3)
#   r the first segment's (3) or the last's (1), c = 4 > r: BP 1, the score 1
@pytest.mark.parametrize("hyp_len, ref_len, score, name", [
    (3, 4, math.exp(-1 / 3), "hypothesis-length-of-first-segment-only"),
    (1, 4, math.exp(-3), "hypothesis-length-of-last-segment-only"),
    (4, 3, 1.0, "reference-length-of-first-segment-only"),
    (4, 1, 1.0, "reference-length-of-last-segment-only"),
])
def test_a_corpus_length_taken_from_one_segment_is_named_by_its_counts(hyp_len, ref_len, score, name):
    req = request("corpus", [("a b c", ["a b c"]), ("d", ["d"])], weights=(1.0,))
    stats = {"hyp_len": hyp_len, "ref_len": ref_len, "matches": [4], "totals": [4], "bp": min(1.0, score)}
    explanation = classify(req, ScoreAnswer(score, stats), "papineni")
    assert explanation.name == name, explanation


def test_check_names_the_last_hypothesis_line_chopped_as_the_runs_cause(tmp_path):
    """A fake whose last hypothesis loses its last character (tests/fakes/mutant_last_line_chopped.py): the run and
    its failing records are named by it."""
    assert_the_run_named_by(tmp_path, "mutant_last_line_chopped", "last-character-of-last-hypothesis-chopped")


def test_check_names_the_first_segments_hypothesis_length_as_the_runs_cause(tmp_path):
    """A fake whose corpus hypothesis length is the first segment's (tests/fakes/mutant_first_hypothesis_length.py):
    the run and its failing records are named by it."""
    assert_the_run_named_by(tmp_path, "mutant_first_hypothesis_length", "hypothesis-length-of-first-segment-only")


# One side cut to a maximum length, the cap found from the returned counts (any cap, not one of a list):
#   "aa bb cc" against "aa bb cc", BLEU-2, the reference cut to 2 tokens: c = 3, r = 2 (c > r: BP 1); unigrams aa, bb
#   of 3 match, bigram "aa bb" of 2: the score (2/3 x 1/2)^(1/2). Only a cap of 2 makes r = 2 (a cap of 1 makes it 1).
#   "aa bb cc dd ee" against "aa bb cc dd ee ff", BLEU-1, the reference cut to 3: c = 5, r = 3, 3 of 5 match: 3/5.
#   "aa bb cc dd" against "aa bb cc dd", BLEU-1, the hypothesis cut to 2: c = 2, r = 4, 2 of 2 match, BP e^(1 - 4/2).
@pytest.mark.parametrize("hypothesis, reference, weights, stats, score, name", [
    ("aa bb cc", "aa bb cc", (0.5, 0.5), (3, 2, [2, 1], [3, 2], 1.0), math.sqrt(2 / 3 * 1 / 2),
     "references-truncated-to-2-tokens"),
    ("aa bb cc dd ee", "aa bb cc dd ee ff", (1.0,), (5, 3, [3], [5], 1.0), 3 / 5, "references-truncated-to-3-tokens"),
    ("aa bb cc dd", "aa bb cc dd", (1.0,), (2, 4, [2], [2], math.exp(-1)), math.exp(-1),
     "hypotheses-truncated-to-2-tokens"),
])
def test_one_side_cut_to_a_maximum_length_is_named_with_the_cap_its_counts_give(hypothesis, reference, weights,
                                                                               stats, score, name):
    hyp_len, ref_len, matches, totals, bp = stats
    req = request("corpus", [(hypothesis, [reference])], weights=weights)
    answer = ScoreAnswer(score, {"hyp_len": hyp_len, "ref_len": ref_len, "matches": matches, "totals": totals,
                                 "bp": bp})
    explanation = classify(req, answer, "papineni")
    assert explanation.name == name, explanation
    # the cap read back from the name gives the same score (as `cases validate` and the separating probes replay it)
    assert explained_value(req, "papineni", (("computation", name),)) == pytest.approx(score, rel=1e-12)


def test_a_cap_needs_evidence_and_a_record_many_caps_fit_is_named_by_none():
    """A cap is searched for, so one record can fit one by the choice of cap: it names a run's records only with a
    pattern (`needs_evidence`), and a record whose counts any of many caps give names none. "x" against "y" and a
    40-token reference ending in "x", BLEU-1: the formulas match x (1 of 1), r = 1 (the closest, "y"); the long
    reference cut to any of 1 to 39 tokens loses its "x" and keeps r = 1: 39 caps give (c 1, r 1, 0 of 1)."""
    from oracle.diagnose.mechanisms import needs_evidence

    assert needs_evidence(("references-truncated-to-8-tokens",))
    assert needs_evidence(("hypotheses-truncated-to-3-tokens",))
    assert not needs_evidence(("truncated-to-64-tokens",))
    long_reference = " ".join([*(f"t{i}" for i in range(39)), "x"])
    req = request("corpus", [("x", ["y", long_reference])], weights=(1.0,))
    answer = ScoreAnswer(0.0, {"hyp_len": 1, "ref_len": 1, "matches": [0], "totals": [1], "bp": 1.0})
    explanation = classify(req, answer, "papineni")
    assert not any(name.startswith("references-truncated-to-") for name in (explanation.name, *explanation.fits)), \
        explanation


def test_check_names_references_cut_to_a_maximum_length_as_the_runs_cause(tmp_path):
    """A fake that cuts every reference to its first 5 tokens (tests/fakes/mutant_references_capped.py): the run and
    its failing records are named by the cap of 5, found from their counts."""
    assert_the_run_named_by(tmp_path, "mutant_references_capped", "references-truncated-to-5-tokens")


def test_a_small_change_of_one_length_is_never_paired_with_a_convention():
    """"a b" against "a b c" and "a", and "d" against "d e f g", BLEU-1: r = 1 (closest to c = 2, the tie to the
    shorter) + 4 = 5. An answer r = 6 (c = 3, 3 of 3 matched, BP e^(1 - 6/3)) is the first (or longer) closest (3) with
    the last reference's last one-character token chopped (3): a pair that fits one number by chance (a subword
    segmenter's r was named so), so neither the chop nor a length from one segment nor a cap is tried beside a
    convention; no single explanation gives r = 6 (the chop alone 4, the first closest alone 7, caps of 1 to 3 give 2,
    4 and 4), and the record is named by what is known."""
    req = request("corpus", [("a b", ["a b c", "a"]), ("d", ["d e f g"])], weights=(1.0,))
    answer = ScoreAnswer(math.exp(-1), {"hyp_len": 3, "ref_len": 6, "matches": [3], "totals": [3], "bp": math.exp(-1)})
    explanation = classify(req, answer, "papineni")
    assert explanation.name == "other-counting-of-ref_len", explanation


def test_a_cap_is_fitted_and_charged_only_where_its_family_is_permitted():
    """A search among given names (a baseline's causes, a block's cause tried on a cut record with a candidate's worth
    of budget) fits no cap unless one of those names is a cap's: fitting one is charged, and a cut record whose block
    cause was reference-tokens-as-references was left named by what is known where the cap's charges spent its trial.
    "aa bb cc" against "aa bb cc", BLEU-2, the reference cut to 2: (3, 2, [2, 1], [3, 2]) as in the test above."""
    from oracle.diagnose.mechanisms.counting import matching_alternatives
    from oracle.formulas import bleu
    from oracle.formulas.conventions import Options

    req = request("corpus", [("aa bb cc", ["aa bb cc"])], weights=(0.5, 0.5))
    oracle = bleu.sum_statistics([(s.hypothesis, s.references) for s in req.segments], max_order=2)
    reported = type("Reported", (), {"hyp_len": 3, "ref_len": 2, "matches": (2, 1), "totals": (3, 2)})()
    charges = []
    every = matching_alternatives(req.segments, 2, Options(), reported, oracle, charge=lambda: charges.append(1))
    assert "references-truncated-to-2-tokens" in every and charges
    charges.clear()
    none = matching_alternatives(req.segments, 2, Options(), reported, oracle, permitted=lambda name: False,
                                 charge=lambda: charges.append(1), family_permitted=lambda stem: False)
    assert none == [] and charges == []



def test_a_corpus_length_taken_from_one_segment_needs_evidence():
    """One segment's length is one number, which another bug's length can equal by chance (a reference length of 2 a
    segment is 4 over two segments, and the last segment's own closest reference can be 4): it names a run's records
    only with a pattern, as float32 does."""
    from oracle.diagnose.mechanisms import needs_evidence

    assert all(needs_evidence((f"{length}-of-{which}-segment-only",)) for length in ("hypothesis-length",
                                                                                     "reference-length")
               for which in ("first", "last"))


def test_counts_found_exactly_stand_when_the_budget_runs_out_after_them():
    """planted:uint16-counts' witness (8,200 "on" against 65,600: the reference's count wraps to 64) was given its
    counts exactly by `ngram-counts-wrapped-at-16-bits`, then the alternatives after it spent the budget and the fit
    was lost with them ("what is known ... spent after 51 alternatives"). Here two alternatives, the first giving the
    returned counts and the second never reached: the charge before it raises. By hand, "a" x 3 against "a" x 3:
    the formulas count 3 unigram matches; the first alternative says 1, and 1 is what was returned."""
    from oracle.diagnose.counting import MATCHES, matching_alternatives
    from oracle.formulas import bleu
    from oracle.formulas.conventions import Options
    from oracle.models.protocol import Statistics

    class Spent(Exception):
        pass

    charged = []

    def charge():
        charged.append(1)
        if len(charged) > 1:
            raise Spent

    segments = [Segment(hypothesis=("a",) * 3, references=(("a",) * 3,))]
    oracle = bleu.sum_statistics([(s.hypothesis, s.references) for s in segments], max_order=1, options=Options())
    reported = Statistics(hyp_len=3, ref_len=3, matches=(1,), totals=(3,))
    alternatives = [("gives-one", MATCHES, lambda segments, n, options: {"matches": (1,)}),
                    ("never-reached", MATCHES, lambda segments, n, options: {"matches": (2,)})]
    assert matching_alternatives(segments, 1, Options(), reported, oracle, alternatives, [], charge=charge,
                                 spent=(Spent,)) == ["gives-one"]
    charged.clear()
    with pytest.raises(Spent):  # nothing found before the budget ran out: the search's own exception goes on
        matching_alternatives(segments, 1, Options(), reported, oracle, alternatives[::-1], [], charge=charge,
                              spent=(Spent,))


def test_each_reference_scored_alone_and_the_best_kept_is_named_from_the_score():
    """BLEU-1, two segments, the statistics right. By hand:
    - "a b" against "a x" and "y b": alone, each reference matches one of two tokens (1/2); both together, 2 of 2.
    - "c d e" against "c d q" and "c r s": alone 2/3 and 1/3, the best 2/3; together 2 of 3.
    Every reference as long as its hypothesis: BP 1. The best single-reference scores' mean is (1/2 + 2/3) / 2 = 7/12;
    the formulas give 4/5, the mean of the segments' own scores (1 + 2/3) / 2 = 5/6, the first reference only 3/5,
    the last only 2/5."""
    req = _tokens_request([(("a", "b"), [("a", "x"), ("y", "b")]),
                           (("c", "d", "e"), [("c", "d", "q"), ("c", "r", "s")])])
    statistics = {"hyp_len": 5, "ref_len": 5, "matches": [4], "totals": [5], "bp": 1.0}
    assert classify(req, ScoreAnswer(7 / 12), "papineni").name == "max-over-single-reference-scores"
    assert classify(req, ScoreAnswer(7 / 12, statistics), "papineni").name == "max-over-single-reference-scores"
    assert classify(req, ScoreAnswer(4 / 5, statistics), "papineni").name == AGREES


def test_a_sentence_scored_against_each_reference_alone_keeps_the_best():
    """A sentence-level request, BLEU-2: "a b c d" against "d c b a", "a b c x" and "x y z w" (every length 4: BP 1).
    Alone: against the first, p1 = 4/4 and p2 = 0/3 (no bigram in common): 0; against the second, p1 = 3/4, p2 = 2/3
    ("a b", "b c"): sqrt(1/2); against the third, 0. The best: sqrt(1/2). The formulas clip against all three: p1 =
    4/4, p2 = 2/3, sqrt(2/3); the first or the last reference alone gives 0."""
    references = (("d", "c", "b", "a"), ("a", "b", "c", "x"), ("x", "y", "z", "w"))
    req = ScoreRequest(seq=0, level="sentence", weights=(0.5, 0.5), smoothing={"method": "none"},
                       segments=(Segment(hypothesis=("a", "b", "c", "d"), references=references),))
    assert classify(req, ScoreAnswer(math.sqrt(1 / 2)), "papineni").name == "max-over-single-reference-scores"
    assert classify(req, ScoreAnswer(math.sqrt(2 / 3)), "papineni").name == AGREES


def _refusing(exc):
    def refuse(*args, **kwargs):
        raise exc
    return refuse


#: Calls the diagnosis guards with `ORACLE_REFUSALS` (module, the callee patched to raise, the guarded call, what it
#: gives for a refusal): one per module holding such a guard.
_GUARDED = (
    ("oracle.diagnose.expect", "oracle_expected", lambda m, r: m.scored_expectation(r, "papineni"), None),
    ("oracle.diagnose.stale", "oracle_expected", lambda m, r: m._expected_or_none(r, "papineni"), None),
    ("oracle.diagnose.attribute", "classify",
     lambda m, r: m._explains(r, ScoreAnswer(0.5), "papineni", None, ("strict-clipping",)), False),
    ("oracle.harness.separate", "classify",
     lambda m, r: m._explains(r, ScoreAnswer(0.5), "papineni", ("strict-clipping",), None), False),
)


@pytest.mark.parametrize(("module", "callee", "call", "refused"), _GUARDED, ids=[g[0] for g in _GUARDED])
def test_the_oracle_refusing_is_caught_and_a_bug_of_the_diagnosis_propagates(monkeypatch, module, callee, call,
                                                                             refused):
    # the oracle's refusal (a BleuOracleError) and exact arithmetic with no value (an ArithmeticError) are what the
    # guard is for; a TypeError or a plain ValueError is a bug of the diagnosis and must not read as "no fit"
    import importlib

    from oracle.formulas.errors import BleuValueError

    target = importlib.import_module(module)
    r = request("sentence", [("a a", ["a b"])], weights=(1.0,))
    for refusal in (BleuValueError("refused"), ZeroDivisionError("0 / 0"), OverflowError("too large")):
        monkeypatch.setattr(target, callee, _refusing(refusal))
        assert call(target, r) is refused
    for bug in (TypeError("a bug"), ValueError("a bug")):
        monkeypatch.setattr(target, callee, _refusing(bug))
        with pytest.raises(type(bug)):
            call(target, r)
