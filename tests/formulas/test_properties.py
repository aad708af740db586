"""Metamorphic properties of the oracle: transformations of the input that must not change
(or must change in a known way) the statistics and the score. Every property holds for
exact arithmetic, so results are compared for equality, not with a tolerance.

Holds: oracle.formulas.bleu
"""

from __future__ import annotations

from fractions import Fraction

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from strategies import corpora, segments, smoothings, to_lists, weights

from oracle.formulas import bleu
from oracle.formulas.conventions import Options
from oracle.formulas.profiles import PROFILES
from oracle.models.protocol import Segment

SETTINGS = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])

#: Profiles whose reference-length rule ignores the order of the references (all but closest-first).
ORDER_FREE = sorted(name for name, p in PROFILES.items() if p.options.reference_length != "closest-first")
#: Profiles that take any weights (the uniform-only ones reject non-uniform weights).
ANY_WEIGHTS = sorted(name for name, p in PROFILES.items() if not p.options.uniform_weights_only)
#: Smoothing methods that never raise a precision above 1 (for the [0, 1] range property):
#: floor/chen-cherry-1 with values <= 1, add-k, the geometric 1/2^k, add-one. chen-cherry-4 (ln T / K
#: can exceed the total), -5, -6 (the prior p_{n-1}^2 / p_{n-2} can exceed 1) and -7 are excluded.
BOUNDED_SMOOTHING = ("none", "floor", "add-k", "exp", "chen-cherry-1", "chen-cherry-2", "chen-cherry-3", "lin-2004")


def options_of(name, **changes):
    options = PROFILES[name].options
    return options.with_changes(**changes) if changes else options


def corpus(segs, w, options, smoothing=None):
    hyps, refs = to_lists(segs)
    return bleu.corpus_bleu(hyps, refs, weights=list(w), options=options, smoothing=smoothing)


def same(a, b):
    """Two BleuResults are the same: equal statistics, and equal scores (NaN equal to NaN)."""
    if a.statistics != b.statistics:
        return False
    if a.score.is_nan() or b.score.is_nan():
        return a.score.is_nan() and b.score.is_nan()
    return a.score == b.score


@SETTINGS
@given(segs=corpora(), w=weights(), profile=st.sampled_from(ORDER_FREE), data=st.data())
def test_reference_order_does_not_matter(segs, w, profile, data):
    options = options_of(profile, uniform_weights_only=False)
    shuffled = tuple(
        Segment(hypothesis=s.hypothesis, references=tuple(data.draw(st.permutations(s.references)))) for s in segs
    )
    assert same(corpus(segs, w, options), corpus(shuffled, w, options))


@SETTINGS
@given(segs=corpora(min_segments=2), w=weights(), profile=st.sampled_from(sorted(PROFILES)), data=st.data())
def test_segment_order_does_not_matter(segs, w, profile, data):
    options = options_of(profile, uniform_weights_only=False)
    shuffled = tuple(data.draw(st.permutations(segs)))
    assert same(corpus(segs, w, options), corpus(shuffled, w, options))


@SETTINGS
@given(segs=corpora(), w=weights(), profile=st.sampled_from(sorted(PROFILES)), data=st.data())
def test_duplicating_a_reference_changes_nothing(segs, w, profile, data):
    """Max_Ref_Count is a maximum, r is chosen among the same lengths; closest-first included
    (a duplicate appended after the original is never the first of a tie)."""
    options = options_of(profile, uniform_weights_only=False)
    i = data.draw(st.integers(0, len(segs) - 1))
    j = data.draw(st.integers(0, len(segs[i].references) - 1))
    doubled = list(segs)
    doubled[i] = Segment(hypothesis=segs[i].hypothesis, references=segs[i].references + (segs[i].references[j],))
    assert same(corpus(segs, w, options), corpus(tuple(doubled), w, options))


@SETTINGS
@given(seg=segments(), w=weights(), data=st.data())
def test_hypothesis_equal_to_a_reference_scores_one(seg, w, data):
    """Under papineni (closest reference) a hypothesis equal to one of its references has r = c
    (that reference is at distance 0, so no other length is chosen), BP = 1, and every p_n = 1
    for n <= len: BLEU = 1 whatever the positive weights. (Under a shortest or longest rule r
    could differ from c.)"""
    reference = data.draw(st.sampled_from(seg.references))
    assume(len(reference) >= len(w))
    result = bleu.sentence_bleu(reference, seg.references, weights=list(w), options=PROFILES["papineni"].options)
    assert result.score == 1
    assert result.statistics.ref_len == result.statistics.hyp_len == len(reference)


@SETTINGS
@given(segs=corpora(), w=weights(), profile=st.sampled_from(ANY_WEIGHTS), smoothing=smoothings(BOUNDED_SMOOTHING))
def test_score_is_in_the_unit_interval_or_nan(segs, w, profile, smoothing):
    result = corpus(segs, w, options_of(profile), smoothing)
    assert result.score.is_nan() or 0 <= result.score <= 1
    assert result.bp.is_nan() or 0 <= result.bp <= 1


@SETTINGS
@given(seg=segments(), w=weights(), smoothing=smoothings(),
       profile=st.sampled_from(sorted(n for n, p in PROFILES.items() if p.options.sentence_empty_order is None)))
def test_sentence_bleu_is_corpus_bleu_of_one_segment(seg, w, smoothing, profile):
    options = options_of(profile, uniform_weights_only=False)
    one = corpus((seg,), w, options, smoothing)
    sentence = bleu.sentence_bleu(seg.hypothesis, seg.references, weights=list(w), options=options, smoothing=smoothing)
    assert same(one, sentence)


@SETTINGS
@given(segs=corpora(), max_order=st.integers(1, 6), floor=st.sampled_from((0, 1)),
       rule=st.sampled_from(("closest", "closest-longer", "closest-first", "shortest", "longest")))
def test_statistics_are_additive_over_segments(segs, max_order, floor, rule):
    options = Options(segment_totals_floor=floor, reference_length=rule)
    hyps, refs = to_lists(segs)
    total = bleu.corpus_statistics(hyps, refs, max_order=max_order, options=options)
    parts = [
        bleu.segment_statistics(h, r, max_order=max_order, options=options) for h, r in zip(hyps, refs, strict=True)
    ]
    assert total.hyp_len == sum(p.hyp_len for p in parts)
    assert total.ref_len == sum(p.ref_len for p in parts)
    for n in range(max_order):
        assert total.matches[n] == sum(p.matches[n] for p in parts)
        assert total.totals[n] == sum(p.totals[n] for p in parts)
    assert total.segments == len(parts)


@SETTINGS
@given(segs=corpora(), w=weights(), profile=st.sampled_from(ANY_WEIGHTS))
def test_lowercasing_is_idempotent(segs, w, profile):
    """Folding case twice is folding it once: lowercase=True on inputs already lowercased (by
    str.lower, the oracle's folding) gives what it gives on the original inputs."""
    lowered = tuple(
        Segment(
            hypothesis=tuple(t.lower() for t in s.hypothesis),
            references=tuple(tuple(t.lower() for t in r) for r in s.references),
        )
        for s in segs
    )
    options = options_of(profile, lowercase=True)
    assert same(corpus(segs, w, options), corpus(lowered, w, options))
    assert same(corpus(lowered, w, options), corpus(lowered, w, options_of(profile, lowercase=False)))


@SETTINGS
@given(segs=corpora(), w=weights(), factor=st.sampled_from((Fraction(1, 3), Fraction(2), Fraction(7, 5))))
def test_normalised_weights_ignore_scale(segs, w, factor):
    options = options_of("matlab")  # weights="normalise"
    scaled = [Fraction(x) * factor for x in w]
    assert same(corpus(segs, w, options), corpus(segs, scaled, options))


@SETTINGS
@given(segs=corpora(), w=weights(), profile=st.sampled_from(["papineni", "nltk"]),
       smoothing=smoothings(("none", "floor", "add-k", "exp", "chen-cherry-1", "chen-cherry-2")))
def test_a_zero_weight_order_changes_nothing(segs, w, profile, smoothing):
    """An extra order with weight 0 contributes nothing (0 * log p_n is taken as 0), also when it
    has no n-grams; smoothing methods that only look at orders up to n are unaffected."""
    options = options_of(profile)
    a = corpus(segs, w, options, smoothing)
    b = corpus(segs, tuple(w) + (0.0,), options, smoothing)
    assert (a.score.is_nan() and b.score.is_nan()) or a.score == b.score


@SETTINGS
@given(segs=corpora(), w=weights(), profile=st.sampled_from(ANY_WEIGHTS), smoothing=smoothings())
def test_renaming_tokens_changes_nothing(segs, w, profile, smoothing):
    """BLEU sees only equality of tokens: an injective renaming keeps every count."""
    rename = lambda t: f"<{t}>"  # noqa: E731 - injective, and case folding commutes with it
    renamed = tuple(
        Segment(
            hypothesis=tuple(map(rename, s.hypothesis)), references=tuple(tuple(map(rename, r)) for r in s.references)
        )
        for s in segs
    )
    options = options_of(profile)
    assert same(corpus(segs, w, options, smoothing), corpus(renamed, w, options, smoothing))


@SETTINGS
@given(segs=corpora(), w=weights(uniform=True))
def test_brevity_penalty_is_one_when_the_hypotheses_are_longer(segs, w):
    result = corpus(segs, w, options_of("papineni"))
    c, r = result.statistics.hyp_len, result.statistics.ref_len
    if c > r:
        assert result.bp == 1
    elif c > 0:
        assert result.bp < 1 or c == r


def test_strategy_tokens_survive_joining():
    """Joining tokens with single spaces and splitting again is lossless for every strategy token."""
    from strategies import TOKENS

    assert " ".join(TOKENS).split() == list(TOKENS)
    for token in TOKENS:
        assert not any(ch.isspace() for ch in token)


@pytest.mark.slow
@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(segs=corpora(max_segments=6), w=weights(), profile=st.sampled_from(ANY_WEIGHTS),
       smoothing=smoothings(BOUNDED_SMOOTHING))
def test_score_range_many_examples(segs, w, profile, smoothing):
    result = corpus(segs, w, options_of(profile), smoothing)
    assert result.score.is_nan() or 0 <= result.score <= 1
