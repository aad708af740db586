"""Each profile's documented choices, each shown on a small input whose value is derived by hand.

Holds: oracle.formulas.profiles, oracle.formulas.conventions, oracle.commands.profiles
"""

from __future__ import annotations

import math
from dataclasses import fields
from decimal import Context, Decimal
from fractions import Fraction

import pytest

import oracle
from oracle.formulas.conventions import Options, Smoothing
from oracle.formulas.errors import BleuValueError
from oracle.formulas.profiles import PROFILES, get_profile

EXACT = Decimal("1e-45")
FLOAT = 1e-15

# A 5-token hypothesis; references of 6 and 4 tokens are equally close (1 away).
TIE_HYP = ["a", "b", "c", "d", "e"]
TIE_REFS = [["a", "b", "c", "d", "e", "f"], ["a", "b", "c", "d"]]
# "a b c" vs "a b d": p1 = 2/3, p2 = 1/2, c = r = 3.
SMALL_HYP, SMALL_REFS = ["a", "b", "c"], [["a", "b", "d"]]
# "a b c d" vs "a b x y": m = (2, 1, 0, 0), l = (4, 3, 2, 1), c = r = 4.
ZERO_HYP, ZERO_REFS = ["a", "b", "c", "d"], [["a", "b", "x", "y"]]


def exactly(actual, expected):
    expected = Fraction(expected)
    wide = Context(prec=80)  # the default context's 28 digits would round 1/3 too early
    return abs(wide.subtract(actual, wide.divide(Decimal(expected.numerator), Decimal(expected.denominator)))) <= EXACT


def score(hyp, refs, profile, level="sentence", **kwargs):
    if level == "corpus":
        return oracle.score([hyp], [refs], level="corpus", profile=profile, **kwargs)
    return oracle.score(hyp, refs, level="sentence", profile=profile, **kwargs)


def test_the_profiles():
    assert set(PROFILES) == {
        "papineni",
        "nltk",
        "sacrebleu",
        "mteval",
        "multi-bleu",
        "multi-bleu-detok",
        "matlab",
        "mlpack",
        "tensorflow-nmt",
    }
    assert get_profile("nltk") is PROFILES["nltk"] and get_profile(PROFILES["nltk"]) is PROFILES["nltk"]


@pytest.mark.parametrize("name", sorted(PROFILES))
def test_every_choice_that_departs_from_the_defaults_is_cited(name):
    profile = PROFILES[name]
    default = Options()
    changed = [f.name for f in fields(Options) if getattr(profile.options, f.name) != getattr(default, f.name)]
    uncited = [option for option in changed if not profile.citation(option)]
    assert not uncited, f"{name}: {uncited} differ from the defaults without a citation"


# -- reference length ------------------------------------------------------------------


@pytest.mark.parametrize("name", ["papineni", "nltk", "sacrebleu", "mteval", "multi-bleu", "matlab"])
def test_closest_reference_ties_go_to_the_shorter(name):
    # c = 5; 6 and 4 tie; the shorter: r = 4 < c, BP = 1
    result = score(TIE_HYP, TIE_REFS, name, weights=[1])
    assert result.statistics.ref_len == 4 and result.bp == 1


def test_closest_reference_without_a_tie():
    # c = 12; 13 and 2: closest 13 > c, BP = e^(1 - 13/12) = e^(-1/12) (NLTK's 0.9200...)
    result = score(["a"] * 12, [["a"] * 13, ["a"] * 2], "nltk")
    assert result.statistics.ref_len == 13 and abs(float(result.bp) - math.exp(-1 / 12)) <= FLOAT


def test_mlpack_uses_the_shortest_reference():
    # c = 9 (a prefix of a 10-token reference); the other reference has 4 tokens.
    # shortest: r = 4 < 9, BP = 1, every p_n = 1, BLEU = 1.
    ten = [f"t{i}" for i in range(10)]
    refs = [ten, ["x", "y", "z", "w"]]
    mlpack = score(ten[:9], refs, "mlpack", level="corpus")
    assert mlpack.statistics.ref_len == 4 and exactly(mlpack.score, 1)
    # closest (papineni): r = 10 > 9, BP = e^(1 - 10/9) = e^(-1/9)
    papineni = score(ten[:9], refs, "papineni", level="corpus")
    assert papineni.statistics.ref_len == 10 and abs(float(papineni.score) - math.exp(-1 / 9)) <= FLOAT


def test_reference_length_override_changes_the_tie_rule():
    # closest-longer: r = 6 > 5, BP = e^(1 - 6/5) = e^(-1/5); p1 = 1 so BLEU = BP
    result = score(TIE_HYP, TIE_REFS, "papineni", weights=[1], reference_length="closest-longer")
    assert result.statistics.ref_len == 6 and abs(float(result.score) - math.exp(-0.2)) <= FLOAT


# -- weights ------------------------------------------------------------------------------


@pytest.mark.parametrize("name", ["papineni", "nltk"])
def test_weights_are_used_as_given(name):
    # [1, 1]: exp(ln(2/3) + ln(1/2)) = 2/3 * 1/2 = 1/3
    assert exactly(score(SMALL_HYP, SMALL_REFS, name, weights=[1, 1]).score, Fraction(1, 3))


def test_matlab_normalises_weights():
    # [1, 1] -> [1/2, 1/2]: sqrt(2/3 * 1/2) = sqrt(1/3)
    result = score(SMALL_HYP, SMALL_REFS, "matlab", weights=[1, 1])
    assert result.weights == (Fraction(1, 2), Fraction(1, 2))
    assert abs(float(result.score) - math.sqrt(1 / 3)) <= FLOAT
    # [3, 1] -> [3/4, 1/4]: (2/3)^(3/4) * (1/2)^(1/4)
    result = score(SMALL_HYP, SMALL_REFS, "matlab", weights=[3, 1])
    assert abs(float(result.score) - (2 / 3) ** 0.75 * 0.5 ** 0.25) <= FLOAT


@pytest.mark.parametrize("name", ["sacrebleu", "mteval", "multi-bleu", "mlpack"])
def test_uniform_weights_only(name):
    with pytest.raises(BleuValueError, match=r"`weights` must be uniform under these options \(got \['3/4', '1/4'\]\)"):
        score(SMALL_HYP, SMALL_REFS, name, weights=[0.75, 0.25])
    # uniform weights are fine: [1/2, 1/2] gives sqrt(2/3 * 1/2) = sqrt(1/3)
    assert abs(float(score(SMALL_HYP, SMALL_REFS, name, weights=["1/2", "1/2"]).score) - math.sqrt(1 / 3)) <= FLOAT


# -- empty inputs and empty orders -----------------------------------------------------------


@pytest.mark.parametrize("name, nan", [("papineni", True), ("matlab", True), ("mlpack", True),
                                       ("nltk", False), ("sacrebleu", False), ("mteval", False), ("multi-bleu", False)])
def test_both_empty(name, nan):
    result = score([], [[]], name)
    assert result.score.is_nan() if nan else result.score == 0


@pytest.mark.parametrize("name", sorted(set(PROFILES) - {"mteval"}))
def test_an_order_without_ngrams_counts_zero_at_corpus_level(name):
    # "a b" vs "a b", BLEU-4: p3 = p4 = 0/0 -> 0 at corpus level under every profile but mteval's
    assert score(["a", "b"], [["a", "b"]], name, level="corpus").score == 0


def test_mteval_counts_an_order_without_ngrams_as_one():
    # mteval-v13a.pl bleu_score: `if ( $tst_ngrams->[ $j ] == 0 ) { $iscore = 0; }`, log p_n = 0.
    # "a b" vs "a c": p1 = 1/2; p2 = 0/1, exp-smoothed to (1/2)/1; p3, p4 have no n-grams: 1.
    # BLEU = 1 * exp((ln 1/2 + ln 1/2 + 0 + 0) / 4) = (1/4) ** (1/4) = 0.70710678... (the script prints 0.7071)
    result = score(["a", "b"], [["a", "c"]], "mteval", level="corpus")
    assert abs(float(result.score) - 0.25 ** 0.25) < 1e-15
    assert score(["a", "b"], [["a", "b"]], "mteval", level="corpus").score == 1


def test_sacrebleu_sentence_level_uses_the_effective_order():
    # "a b" vs "a b c": orders 3 and 4 have no n-grams and are left out; p1 = p2 = 1;
    # BP = e^(1 - 3/2) = e^(-1/2) = 0.60653...
    result = score(["a", "b"], [["a", "b", "c"]], "sacrebleu")
    assert result.precisions == (1, 1, None, None)
    assert result.weights == (Fraction(1, 2), Fraction(1, 2), 0, 0)
    assert abs(float(result.score) - math.exp(-0.5)) <= FLOAT
    # the same at corpus level: p3 = 0/0 counted 0, score 0
    assert score(["a", "b"], [["a", "b", "c"]], "sacrebleu", level="corpus").score == 0
    # other profiles at sentence level: 0
    assert score(["a", "b"], [["a", "b", "c"]], "nltk").score == 0


def test_sacrebleu_effective_order_agrees_with_sacrebleu():
    sacrebleu = pytest.importorskip("sacrebleu", reason="sacrebleu is not installed")
    ours = score(["a", "b"], [["a", "b", "c"]], "sacrebleu")
    theirs = sacrebleu.metrics.BLEU(tokenize="none", effective_order=True).sentence_score("a b", ["a b c"])
    assert abs(float(ours.score) * 100 - theirs.score) <= 1e-9


# -- smoothing ----------------------------------------------------------------------------------


@pytest.mark.parametrize("name", ["papineni", "nltk", "multi-bleu", "matlab", "mlpack"])
def test_no_smoothing_by_default(name):
    # m = (2, 1, 0, 0): p3 = 0 -> BLEU 0
    assert PROFILES[name].options.smoothing == Smoothing("none")
    assert score(ZERO_HYP, ZERO_REFS, name).score == 0


@pytest.mark.parametrize("name", ["sacrebleu", "mteval"])
def test_sacrebleu_smooths_with_exp_by_default(name):
    # sacrebleu's default, and mteval-v13a's (sacrebleu: "NIST smoothing method i.e. in use with mteval-v13a.pl").
    # exp: the zero orders get 1/2 and 1/4: p = 2/4, 1/3, 1/4, 1/4; BLEU = (1/96)^(1/4) = 0.3194715...
    result = score(ZERO_HYP, ZERO_REFS, name, level="corpus")
    assert result.precisions == (Fraction(1, 2), Fraction(1, 3), Fraction(1, 4), Fraction(1, 4))
    assert abs(float(result.score) - (1 / 96) ** 0.25) <= FLOAT
    # an explicit smoothing replaces the profile's: floor 0 -> 0
    assert score(ZERO_HYP, ZERO_REFS, "sacrebleu", level="corpus", smoothing={"method": "floor", "value": 0}).score == 0


def test_sacrebleu_exp_agrees_with_sacrebleu():
    sacrebleu = pytest.importorskip("sacrebleu", reason="sacrebleu is not installed")
    theirs = sacrebleu.metrics.BLEU(tokenize="none").corpus_score(["a b c d"], [["a b x y"]])
    assert abs(float(score(ZERO_HYP, ZERO_REFS, "sacrebleu", level="corpus").score) * 100 - theirs.score) <= 1e-9


def test_mlpack_smooth_is_lin_2004_add_one_everywhere():
    # +1 to every order: p = 3/5, 2/4, 1/3, 1/2; BLEU = (3/5 * 1/2 * 1/3 * 1/2)^(1/4) = (1/20)^(1/4)
    result = score(ZERO_HYP, ZERO_REFS, "mlpack", level="corpus", smoothing="lin-2004")
    assert result.precisions == (Fraction(3, 5), Fraction(1, 2), Fraction(1, 3), Fraction(1, 2))
    assert abs(float(result.score) - 0.05 ** 0.25) <= FLOAT


def test_lowercase_is_off_by_default_everywhere():
    for name, profile in PROFILES.items():
        assert profile.options.lowercase is False, name
    # "The" vs "the": no match unless lowercase; with it, identical: 1
    assert score(["The", "cat"], [["the", "cat"]], "matlab", weights=[1]).precisions[0] == Fraction(1, 2)
    assert exactly(score(["The", "cat"], [["the", "cat"]], "matlab", weights=[1], lowercase=True).score, 1)


def test_profiles_are_not_mutated_by_overrides():
    before = PROFILES["papineni"].options
    oracle.resolve_options(profile="papineni", reference_length="shortest", lowercase=True)
    assert PROFILES["papineni"].options == before and before.reference_length == "closest"


def test_sacrebleu_returns_zero_before_smoothing_when_nothing_matches():
    # sacrebleu CHANGELOG 2.0.0: "In case of no n-gram matches at all, skip smoothing and return 0.0 BLEU (#141)".
    # 'a b c d' against 'e f g h': every order has n-grams and no match.
    assert score(["a", "b", "c", "d"], [["e", "f", "g", "h"]], "sacrebleu", level="corpus").score == 0
    # mteval-v13a.pl smooths the same input: p_n = (1/2^n)/l_n with l = 4, 3, 2, 1, so
    # BLEU = (1/8 * 1/12 * 1/16 * 1/16) ** (1/4) = 0.0798678880307840... (the discrepancy file's oracle value)
    mteval = score(["a", "b", "c", "d"], [["e", "f", "g", "h"]], "mteval", level="corpus")
    assert abs(float(mteval.score) - (1 / 8 * 1 / 12 * 1 / 16 * 1 / 16) ** 0.25) < 1e-15
    # one matching unigram is enough for smoothing to apply under sacrebleu too
    assert score(["a", "b", "c", "d"], [["a", "f", "g", "h"]], "sacrebleu", level="corpus").score > 0


# -- the conventions a request may carry ------------------------------------------------------------


def test_the_empty_order_rule_in_force_follows_level_and_smoothing():
    """sacrebleu: effective order at sentence level only; mteval: p_n = 1 smoothed, 0 with --no-smoothing."""
    sacrebleu, mteval = PROFILES["sacrebleu"].options, PROFILES["mteval"].options
    assert sacrebleu.in_force("sentence")["empty_order"] == "skip"
    assert sacrebleu.in_force("corpus")["empty_order"] == "zero"
    assert mteval.in_force("corpus", Smoothing("exp"))["empty_order"] == "one"
    assert mteval.in_force("corpus", Smoothing("none"))["empty_order"] == "zero"


def test_a_switched_empty_order_holds_at_every_level_and_smoothing():
    switched = PROFILES["mteval"].options.switched({"empty_order": "skip", "reference_length": "shortest"})
    for level in ("corpus", "sentence"):
        for smoothing in (Smoothing("none"), Smoothing("exp")):
            assert switched.in_force(level, smoothing)["empty_order"] == "skip"
    assert switched.reference_length == "shortest"
    with pytest.raises(BleuValueError, match="segment_totals_floor"):
        PROFILES["nltk"].options.switched({"segment_totals_floor": 1})
