"""A free parameter of the score fitted from one record (oracle/diagnose/scorefit.py; issue 36, score-fit).

Every expected value here is derived by hand from the formulas (Papineni et al. 2002: p_n = m_n / l_n, BP = e^(1 -
r/c) where c <= r, score = BP x exp(sum w_n log p_n)) with one parameter set to a known wrong value; the expected name
is the one the naming scheme documented in scorefit's docstring gives that parameter and value.
"""

from __future__ import annotations

import math

import pytest

from oracle.adapters.base import ScoreAnswer
from oracle.diagnose import mechanisms
from oracle.diagnose.classify import classify, explained_value
from oracle.diagnose.cover import minimal_cover
from oracle.diagnose.scorefit import PARAMETERS, Terms, fits, parse, replayed
from oracle.models.protocol import ScoreRequest, Segment


def _request(pairs, weights, level="sentence"):
    segments = tuple(Segment(hypothesis=tuple(h.split()), references=tuple(tuple(r.split()) for r in refs))
                     for h, refs in pairs)
    return ScoreRequest(seq=0, level=level, segments=segments, weights=tuple(weights), smoothing={"method": "none"},
                        lowercase=False)


# 'a b c d e' (c = 5) against 'a b c d f g' (r = 6), three orders of weight 1/3. By hand: unigrams a b c d match, 4 of
# 5; bigrams ab bc cd, 3 of 4; trigrams abc bcd, 2 of 3. c < r: BP = e^(1 - 6/5) = e^(-1/5). The geometric mean
# G = (4/5 x 3/4 x 2/3)^(1/3) = (2/5)^(1/3).
SHORT3 = _request([("a b c d e", ["a b c d f g"])], (1 / 3, 1 / 3, 1 / 3))
SHORT3_STATISTICS = {"hyp_len": 5, "ref_len": 6, "matches": [4, 3, 2], "totals": [5, 4, 3]}
BP = math.exp(-1 / 5)
G = (2 / 5) ** (1 / 3)

# (the expected name, the answer by hand with that parameter at that value)
FITTED = [
    # the mean raised to 1/2: e^(-1/5) x ((2/5)^(1/3))^(1/2) = e^(-1/5) x (2/5)^(1/6)
    ("mean-raised-to-1/2", BP * (2 / 5) ** (1 / 6)),
    # the penalty raised to 3: (e^(-1/5))^3 x G = e^(-3/5) x (2/5)^(1/3)
    ("brevity-penalty-raised-to-3", math.exp(-3 / 5) * G),
    # the score halved
    ("score-scaled-by-1/2", BP * G / 2),
    # order 2's weight 0, the others 1/3 and not renormalised: e^(-1/5) x (4/5 x 2/3)^(1/3) = e^(-1/5) x (8/15)^(1/3)
    ("weight-of-order-2-as-0", BP * (8 / 15) ** (1 / 3)),
    # uniform over the first 2 orders: e^(-1/5) x (4/5 x 3/4)^(1/2) = e^(-1/5) x (3/5)^(1/2)
    ("weights-as-uniform-over-2-orders", BP * (3 / 5) ** (1 / 2)),
    # c read as 1 in the penalty: e^(1 - 6/1) = e^(-5), times G (as BP^25, or r read as 30: neither simple)
    ("brevity-penalty-with-c-as-1", math.exp(-5) * G),
]


@pytest.mark.parametrize(("name", "answer"), FITTED, ids=[name for name, _ in FITTED])
def test_a_wrong_parameter_is_fitted_and_named_by_its_simple_value(name, answer):
    found = classify(SHORT3, ScoreAnswer(answer, SHORT3_STATISTICS), "papineni")
    assert found.name == name
    # what is known stays among its fits: the record is named by it where the run has no second record for the fit
    assert ("other-combination",) in found.fitting or ("other-weighting-of-precisions",) in found.fitting or (
        "other-brevity-penalty",) in found.fitting


@pytest.mark.parametrize(("name", "answer"), FITTED, ids=[name for name, _ in FITTED])
def test_a_fitted_name_replays_its_hand_derived_value(name, answer):
    assert math.isclose(explained_value(SHORT3, "papineni", (("computation", name),)), answer, rel_tol=1e-12)


def test_the_reference_length_read_as_1_fits_beside_the_penalty_to_a_power():
    # r read as 1: e^(1 - 1/5) x G = e^(4/5) x G, which is also (e^(-1/5))^(-4) x G: one record cannot tell the two
    # apart (both are fitted; the run's other records decide, `cover`)
    found = classify(SHORT3, ScoreAnswer(math.exp(4 / 5) * G, SHORT3_STATISTICS), "papineni")
    names = {found.parts, *found.fitting}
    assert ("brevity-penalty-with-r-as-1",) in names and ("brevity-penalty-raised-to-minus-4",) in names


def test_a_value_the_request_carries_is_named_beside_the_rational():
    # three segments, two orders of weight 1/2. By hand: 'a b c d e' | 'a b c d f g' (c 5, r 6; 4 of 5, 3 of 4),
    # 'a b' | 'a b' (c 2, r 2; 2 of 2, 1 of 1), 'a b c' | 'a b c' (c 3, r 3; 3 of 3, 2 of 2): c = 10, r = 11,
    # 9 of 10 unigrams, 6 of 7 bigrams; BP = e^(1 - 11/10) = e^(-1/10), G = (9/10 x 6/7)^(1/2) = (27/35)^(1/2).
    # The score multiplied by the segment count, 3
    request = _request([("a b c d e", ["a b c d f g"]), ("a b", ["a b"]), ("a b c", ["a b c"])], (0.5, 0.5),
                       level="corpus")
    statistics = {"hyp_len": 10, "ref_len": 11, "matches": [9, 6], "totals": [10, 7]}
    found = classify(request, ScoreAnswer(3 * math.exp(-1 / 10) * (27 / 35) ** 0.5, statistics), "papineni")
    assert found.name == "score-scaled-by-3"
    assert ("score-scaled-by-the-segment-count",) in found.fitting
    assert ("score-scaled-by-the-order",) not in found.fitting  # N = 2 here


def test_a_power_that_is_no_simple_number_is_only_what_is_known():
    # the mean raised to 0.73: solved, but 0.73 is no p/q with q <= 4 and no value the request carries
    found = classify(SHORT3, ScoreAnswer(BP * G ** 0.73, SHORT3_STATISTICS), "papineni")
    assert mechanisms.combination.is_partial(found.parts)
    assert not any(parse(part) for parts in (found.parts, *found.fitting) for part in parts)


def test_an_existing_name_is_tried_first_and_no_fit_joins_it():
    # the penalty squared: `brevity-penalty-applied-twice` computes it; the fit (beta = 2) is never tried
    found = classify(SHORT3, ScoreAnswer(math.exp(-2 / 5) * G, SHORT3_STATISTICS), "papineni")
    assert found.name == "brevity-penalty-applied-twice"
    assert not any(parse(part) for parts in found.fitting for part in parts)


def test_no_fit_against_the_returned_statistics():
    # the mean raised to 1/2's answer, but one returned count differs from the formulas' (3 of 5 unigrams): the
    # counting differs, and the score stage is not fitted
    statistics = dict(SHORT3_STATISTICS, matches=[3, 3, 2])
    found = classify(SHORT3, ScoreAnswer(BP * (2 / 5) ** (1 / 6), statistics), "papineni")
    assert not any(parse(part) for parts in (found.parts, *found.fitting) for part in parts)


def test_a_returned_penalty_must_be_the_fitted_one():
    # c read as 1 gives the penalty e^(-5); an implementation that returned the formulas' e^(-1/5) beside it did not
    # compute that penalty: no length fit (the mean's and other parameters' fits need the returned penalty right)
    terms = Terms(BP, BP * G, ((4 / 5, 1 / 3), (3 / 4, 1 / 3), (2 / 3, 1 / 3)), 5, 6, 1)
    answer = math.exp(-5) * G
    assert "brevity-penalty-with-c-as-1" in dict(fits(terms, answer, returned_bp=math.exp(-5)))
    assert "brevity-penalty-with-c-as-1" not in dict(fits(terms, answer, returned_bp=BP))
    # the mean's power with a penalty returned otherwise than the formulas': not fitted
    assert "mean-raised-to-1/2" in dict(fits(terms, BP * (2 / 5) ** (1 / 6), returned_bp=BP))
    assert "mean-raised-to-1/2" not in dict(fits(terms, BP * (2 / 5) ** (1 / 6), returned_bp=0.5))


def test_each_parameter_tried_is_charged():
    terms = Terms(BP, BP * G, ((4 / 5, 1 / 3), (3 / 4, 1 / 3), (2 / 3, 1 / 3)), 5, 6, 1)
    charged = []
    list(fits(terms, 0.4321, charge=lambda: charged.append(1)))
    # mean power, penalty power, scale, three orders' weights, r, c, and k = 2 of the uniform weights
    assert len(charged) == 9


def test_a_one_record_coincidence_is_not_a_runs_main_cause():
    # one record of four fits the mean raised to 1/2 (by chance: the others are what is known alone); the fitted name
    # needs a pattern across records, so the run names what is known, and the record is covered by it
    causes = minimal_cover({(("mean-raised-to-1/2",), ("other-combination",)): 1, (("other-combination",),): 3})
    assert [(c.name, c.records) for c in causes] == [("other-combination", 4)]
    # two records fitting the same name are a pattern: it names them (what is known of them reaches no more records:
    # a third record is another stage's)
    causes = minimal_cover({(("mean-raised-to-1/2",), ("other-combination",)): 2,
                            (("other-weighting-of-precisions",),): 1})
    assert [(c.name, c.records) for c in causes] == [("mean-raised-to-1/2", 2), ("other-weighting-of-precisions", 1)]


def test_a_fitted_name_alone_without_a_second_record_is_unexplained_not_named():
    causes = minimal_cover({(("brevity-penalty-with-r-as-1",),): 1})
    assert [c.name for c in causes] == ["unexplained"]


def test_names_read_back():
    for name in ("mean-raised-to-1/2", "brevity-penalty-raised-to-minus-4", "score-scaled-by-the-segment-count",
                 "weight-of-order-2-as-0", "weights-as-uniform-over-3-orders", "brevity-penalty-with-r-as-1"):
        assert parse(name) is not None, name
        assert mechanisms.needs_evidence((name,)), name
        assert mechanisms.describe(name).startswith("fitted from the score"), name
    assert parse("mean-raised-to-0.73") is None and not mechanisms.needs_evidence(("mean-raised-to-0.73",))


def test_a_power_of_ten_stays_another_scale_even_where_the_request_carries_it():
    # ten segments 'a b' against 'a b c': c = 20, r = 30, every unigram and bigram matched (G = 1), BP = e^(1 - 30/20)
    # = e^(-1/2). The answer 10 x e^(-1/2) is the score times the segment count, and a power of ten: the stage test
    # decides `other-scale-of-score` (its records do not move), and no fit is named
    request = _request([("a b", ["a b c"])] * 10, (0.5, 0.5), level="corpus")
    statistics = {"hyp_len": 20, "ref_len": 30, "matches": [20, 10], "totals": [20, 10]}
    found = classify(request, ScoreAnswer(10 * math.exp(-1 / 2), statistics), "papineni")
    assert found.name == "other-scale-of-score"
    assert not any(parse(part) for parts in found.fitting for part in parts)


def test_the_solved_value_lies_within_its_stated_bound():
    # the mean's power solved from e^(-1/5) x (2/5)^(1/6): 1/2, within a bound of the contract's 1e-9 relative on the
    # answer over |log G| = |ln(2/5)| / 3 (about 3e-9), so the simple value is found by the bound, not by luck
    terms = Terms(BP, BP * G, ((4 / 5, 1 / 3), (3 / 4, 1 / 3), (2 / 3, 1 / 3)), 5, 6, 1)
    fit = PARAMETERS[0].solve(terms, BP * (2 / 5) ** (1 / 6), 0)
    assert abs(fit.value - 0.5) <= fit.bound < 1e-8
    assert fit.bound > 1e-9  # the contract's share: an answer 1e-9 off still solves within it
    off = PARAMETERS[0].solve(terms, BP * (2 / 5) ** (1 / 6) * (1 + 5e-10), 0)
    assert abs(off.value - 0.5) <= off.bound


def test_what_is_known_stays_among_the_fits_of_a_search_among_given_names():
    # a later record searched among an earlier record's fitted name first (the harness's hints): named by it, and what
    # is known of its numbers (the mean's power is a weighting: answer / BP between the least and greatest precision)
    # is among its fits, as where every name is permitted
    found = classify(SHORT3, ScoreAnswer(BP * (2 / 5) ** (1 / 6), SHORT3_STATISTICS), "papineni",
                     among=("mean-raised-to-1/2",))
    assert found.name == "mean-raised-to-1/2"
    assert found.fitting and all(mechanisms.combination.is_partial(parts) for parts in found.fitting)


def test_no_parameter_is_solved_from_an_answer_of_exactly_1():
    # 'a b' against 'a c' (by hand: c = r = 2, BP 1, p_1 = 1/2): the score 1/2. An answer of exactly 1 is the score
    # times 2, but 1 is what any stage returning a constant or cutting a term gives: no fit is read from it
    terms = Terms(1.0, 0.5, ((0.5, 1.0),), 2, 2, 1)
    assert list(fits(terms, 1.0)) == []
    assert dict(fits(terms, 1.5)) == {"score-scaled-by-3": 1.5}  # (the same arithmetic on another answer: 1/2 x 3)


def test_an_earlier_records_fitted_name_is_replayed_on_an_answer_of_0():
    # c = r = 800, every precision 1 (BP 1, G 1): c read as 1 gives e^(1 - 800) x 1, which underflows to 0.0 in
    # floats, the answer and the returned BP. No solve reads a 0 (no logarithm), but among given names the earlier
    # records' fitted name is replayed, and its 0 has their evidence (as a score variant's 0 has among given names)
    terms = Terms(1.0, 1.0, ((1.0, 1.0),), 800, 800, 1)
    assert list(fits(terms, 0.0, returned_bp=0.0)) == []
    assert dict(replayed(terms, 0.0, ["brevity-penalty-with-c-as-1"], returned_bp=0.0)) == {
        "brevity-penalty-with-c-as-1": 0.0}
    # a returned penalty of 1 (the formulas') is not the fitted one: not replayed
    assert list(replayed(terms, 0.0, ["brevity-penalty-with-c-as-1"], returned_bp=1.0)) == []
