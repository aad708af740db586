"""What a search keeps of the oracle's work on one request: each segment counted once (`segment_alone_result`,
`segments_result`), however many per-segment variants (means of sentence scores, batch means, a segment's own
score) score it, and each computation's value on a candidate computed once, however many tiers try it. Keeping
them must change no number: each kept value is held here against the oracle computed afresh on the request it
stands for (`oracle_result` on the request holding those segments alone), or against a hand derivation, and the
computations made are counted.

Holds: oracle.diagnose.expect
"""

from __future__ import annotations

from dataclasses import replace
from unittest import mock

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from strategies import requests

from oracle.diagnose import classify as classify_module
from oracle.diagnose.classify import classify
from oracle.diagnose.computations import (
    APPLIES,
    Context,
    context_for,
    max_over_single_reference_scores,
    references_cut_to_fewest,
)
from oracle.diagnose.expect import oracle_options, oracle_result, segment_alone_result, segments_result
from oracle.formulas.errors import BleuOracleError
from oracle.models.protocol import ScoreRequest, Segment

SMOOTHINGS = ("none", "floor", "add-k", "exp", "chen-cherry-4")


def _fresh(request, indices, options, smoothing=None, level=None):
    """The oracle on the request holding the segments at `indices` alone, counted afresh (or its refusal)."""
    update = {"segments": tuple(request.segments[i] for i in indices)}
    if level is not None:
        update["level"] = level
    try:
        return oracle_result(request.model_copy(update=update), options, smoothing)
    except BleuOracleError as exc:
        return type(exc)


def _kept(function, *args, **kwargs):
    try:
        return function(*args, **kwargs)
    except BleuOracleError as exc:
        return type(exc)


def _same(kept, fresh):
    if isinstance(kept, type) or isinstance(fresh, type):
        return kept is fresh
    return kept.statistics == fresh.statistics and kept.score.compare_total(fresh.score) == 0 and \
        kept.notes == fresh.notes


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(requests(levels=("corpus",), methods=SMOOTHINGS, lowercase=(False, True), max_segments=7),
       st.data())
def test_batches_and_single_segments_are_scored_as_the_oracle_scores_them_afresh(request, data):
    # one `counted` dict for every call, as a search keeps it: batches of every size and offset, single segments at
    # either level and under other smoothings, in the order drawn; each the oracle's own result on the request of
    # those segments alone
    options = oracle_options("papineni", lowercase=request.lowercase)
    counted: dict = {}
    count = len(request.segments)
    for _ in range(data.draw(st.integers(1, 6))):
        start = data.draw(st.integers(0, count - 1))
        stop = data.draw(st.integers(start + 1, count))
        smoothing = data.draw(st.sampled_from((None, *SMOOTHINGS)))
        indices = range(start, stop)
        assert _same(_kept(segments_result, request, indices, options, smoothing, counted=counted),
                     _fresh(request, indices, options, smoothing))
        level = data.draw(st.sampled_from(("sentence", "corpus")))
        assert _same(_kept(segment_alone_result, request, start, options, smoothing, level=level, counted=counted),
                     _fresh(request, (start,), options, smoothing, level=level))
        assert _same(_kept(segment_alone_result, request, -1, options, smoothing, level=level, counted=counted),
                     _fresh(request, (count - 1,), options, smoothing, level=level))


def test_a_batch_sums_its_own_segments_counts():
    # by hand, BLEU-1 under papineni: segments "a b" vs "a b" (2 of 2 unigrams), "c d" vs "c x" (1 of 2), "e" vs "y"
    # (0 of 1). The batch of the last two: 1 match of 3 unigrams, c = 3, r = 3 (BP 1): BLEU-1 = 1/3. The first two:
    # 3 of 4, 3/4. Counted once for the first batch, the second segment's counts serve the second.
    segments = tuple(Segment(hypothesis=tuple(h.split()), references=(tuple(r.split()),))
                     for h, r in (("a b", "a b"), ("c d", "c x"), ("e", "y")))
    request = ScoreRequest(seq=0, level="corpus", segments=segments, weights=(1.0,), smoothing={"method": "none"})
    options = oracle_options("papineni")
    counted: dict = {}
    first = segments_result(request, range(0, 2), options, counted=counted)
    second = segments_result(request, range(1, 3), options, counted=counted)
    assert (first.statistics.matches[0], first.statistics.totals[0], float(first.score)) == (3, 4, 0.75)
    assert (second.statistics.matches[0], second.statistics.totals[0]) == (1, 3)
    assert abs(float(second.score) - 1 / 3) <= 1e-15


def test_a_segment_alone_is_scored_at_the_level_asked_whatever_was_kept():
    # by hand, under sacrebleu's conventions (an order without n-grams: skipped at sentence level, effective order;
    # 0 at corpus level): "a" against "a", BLEU-2. The 2-gram order is empty: the sentence scores p1 = 1 with its
    # weight renormalised, BP 1 (c = r = 1), so 1; the corpus of that one segment scores 0. Asked at one level, then
    # at the other, with the same `counted`
    request = ScoreRequest(seq=0, level="corpus", segments=(Segment(hypothesis=("a",), references=(("a",),)),
                                                            Segment(hypothesis=("b",), references=(("b",),))),
                           weights=(0.5, 0.5), smoothing={"method": "none"})
    options = oracle_options("sacrebleu")
    counted: dict = {}
    for _ in range(2):
        assert float(segment_alone_result(request, 0, options, level="corpus", counted=counted).score) == 0.0
        assert float(segment_alone_result(request, 0, options, level="sentence", counted=counted).score) == 1.0


def test_a_computation_is_computed_once_per_candidate_in_a_search():
    # the score of a corpus as the mean of its segments' own scores, BLEU-1: "a b" vs "a b" scores 2/2 = 1, "c d e f"
    # vs "c x y z" 1/4 (c = r, BP 1), their mean 0.625 where the corpus scores 3/6 = 0.5. The search finds
    # `mean-of-sentence-scores` in a tier, then tries it again among every simple fit (`_with_every_simple_fit`);
    # its value on the request's own conventions is computed once
    segments = tuple(Segment(hypothesis=tuple(h.split()), references=(tuple(r.split()),))
                     for h, r in (("a b", "a b"), ("c d e f", "c x y z")))
    request = ScoreRequest(seq=0, level="corpus", segments=segments, weights=(1.0,), smoothing={"method": "none"})
    calls = []
    computations = dict(classify_module.GENERIC_COMPUTATIONS)
    original = computations["mean-of-sentence-scores"]

    def counting(ctx, result):
        calls.append(ctx.options)
        return original(ctx, result)

    patched = tuple((name, counting if name == "mean-of-sentence-scores" else function)
                    for name, function in classify_module.GENERIC_COMPUTATIONS)
    with mock.patch.object(classify_module, "GENERIC_COMPUTATIONS", patched):
        named = classify(request, 0.625, "papineni", among=("mean-of-sentence-scores",))
    assert named.name == "mean-of-sentence-scores"
    assert calls.count(oracle_options("papineni", lowercase=False)) == 1


#: Options a search scores one request under, one after another: the profile's own, and conventions that change only
#: the scoring (the counts kept are shared) or the counting too (counted apart)
_CANDIDATE_CHANGES = ({}, {"empty_order": "one"}, {"no_match": "zero"}, {"reference_length": "shortest"},
                      {"lowercase": True}, {"empty_order": "zero", "lowercase": True})


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(requests(methods=SMOOTHINGS, lowercase=(False, True), max_segments=5), st.data())
def test_a_result_kept_for_one_options_is_the_oracles_afresh_under_any_other(request, data):
    # one `counted` dict for the request, as a search keeps it: under each convention in the order drawn, with the
    # request's weights or other ones (the score stage's variants reweight the request in the same dict), each kept
    # result is the oracle's own on the request, computed afresh
    options = oracle_options("papineni", lowercase=request.lowercase)
    counted: dict = {}
    for _ in range(data.draw(st.integers(1, 8))):
        changes = data.draw(st.sampled_from(_CANDIDATE_CHANGES))
        changed = options.with_changes(**changes) if changes else options
        smoothing = data.draw(st.sampled_from((None, *SMOOTHINGS)))
        asked = request
        if data.draw(st.booleans()):
            asked = request.model_copy(update={"weights": (1.0,) * data.draw(st.integers(1, 4))})
        assert _same(_kept(oracle_result, asked, changed, smoothing, counted=counted),
                     _kept(oracle_result, asked, changed, smoothing))


def _corpus(*segments):
    """A corpus request, BLEU-1 unsmoothed, of (hypothesis, references) texts split on spaces."""
    made = tuple(Segment(hypothesis=tuple(h.split()), references=tuple(tuple(r.split()) for r in refs))
                 for h, refs in segments)
    return ScoreRequest(seq=0, level="corpus", weights=(1.0,), smoothing={"method": "none"}, segments=made)


def test_a_derived_request_is_scored_under_each_candidates_options_as_it_was_built():
    # references cut to the fewest a segment has (one: each segment keeps its first), BLEU-1, under two candidates'
    # options in one context: "A b" vs "a x" matches 0 of 2 as sent and 1 of 2 folded, "c d" vs "c d" 2 of 2;
    # c = r = 4 (BP 1), so 2/4 as sent and 3/4 folded: the counts kept for one must not serve the other
    request = _corpus(("A b", ("a x", "b y")), ("c d", ("c d",)))
    options = oracle_options("papineni")
    ctx = context_for(request, "papineni", None)
    as_sent = references_cut_to_fewest(ctx, None)
    folded_ctx = Context(request, options.with_changes(lowercase=True), ctx.smoothing, ctx.weights, ctx.counted)
    folded = references_cut_to_fewest(folded_ctx, None)
    assert abs(as_sent - 2 / 4) <= 1e-15
    assert abs(folded - 3 / 4) <= 1e-15
    assert references_cut_to_fewest(ctx, None) == as_sent  # (asked again after the folded one)


def test_the_best_single_reference_score_reads_each_reference_alone_under_each_candidates_options():
    # the best of each segment's one-reference scores, BLEU-1, their mean: "A a" against "a a" scores 2/2 folded and
    # 1/2 as sent ("A" is not "a"; c = r = 2, BP 1), against "b b" 0; "c d" against "c z" or "q d" 1/2. The mean:
    # (1 + 1/2) / 2 folded, (1/2 + 1/2) / 2 as sent. Two candidates' options in one context: folded, as sent, folded
    request = _corpus(("A a", ("a a", "b b")), ("c d", ("c z", "q d")))
    options = oracle_options("papineni")
    ctx = context_for(request, "papineni", None)
    folded_ctx = Context(request, options.with_changes(lowercase=True), ctx.smoothing, ctx.weights, ctx.counted)
    assert abs(max_over_single_reference_scores(folded_ctx, None) - (1 + 1 / 2) / 2) <= 1e-15
    assert abs(max_over_single_reference_scores(ctx, None) - (1 / 2 + 1 / 2) / 2) <= 1e-15
    assert abs(max_over_single_reference_scores(folded_ctx, None) - (1 + 1 / 2) / 2) <= 1e-15


def test_changed_options_are_kept_and_a_refusal_is_raised_every_time():
    options = oracle_options("papineni")
    changed = options.with_changes(empty_order="one", lowercase=True)
    assert changed == replace(options, empty_order="one", lowercase=True)
    assert options.with_changes(lowercase=True, empty_order="one") is changed  # (the same changes in any order)
    for _ in range(2):
        with pytest.raises(BleuOracleError):
            options.with_changes(empty_order="sometimes")
        with pytest.raises(BleuOracleError):
            options.with_changes(no_such_option=1)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(requests(levels=("corpus",), methods=(*SMOOTHINGS, "chen-cherry-5"), lowercase=(False, True),
                max_segments=7), st.data())
def test_a_corpus_counted_first_keeps_each_segments_counts_as_counted_alone(request, data):
    # (cost-3x) counting a corpus keeps each segment's own statistics where a segment alone looks them up: the corpus
    # first, under a candidate's options, then every segment alone at either level, in one `counted` dict as a search
    # keeps it; each result the oracle's own afresh on the request of that segment alone (chen-cherry-5 counts one
    # order further: the counts kept for one number of orders must not serve another)
    options = oracle_options("papineni", lowercase=request.lowercase)
    counted: dict = {}
    for _ in range(data.draw(st.integers(1, 3))):
        changes = data.draw(st.sampled_from(_CANDIDATE_CHANGES))
        changed = options.with_changes(**changes) if changes else options
        smoothing = data.draw(st.sampled_from((None, *SMOOTHINGS, "chen-cherry-5")))
        assert _same(_kept(oracle_result, request, changed, smoothing, counted=counted),
                     _kept(oracle_result, request, changed, smoothing))
        level = data.draw(st.sampled_from(("sentence", "corpus")))
        for index in range(len(request.segments)):
            assert _same(_kept(segment_alone_result, request, index, changed, smoothing, level=level,
                               counted=counted),
                         _fresh(request, (index,), changed, smoothing, level=level))


def test_a_corpus_counted_segment_by_segment_is_refused_as_the_formulas_refuse_it():
    # a token that is not a string in the second segment: `bleu.sum_statistics` names the segment ("segment 1: ...");
    # counted segment by segment for a search, the refusal is the same, word for word
    segments = (Segment(hypothesis=("a",), references=(("a",),)),
                Segment.model_construct(hypothesis=("b", 7), references=(("b",),)))
    request = _corpus(("a", ("a",))).model_copy(update={"segments": segments})  # (not validated: 7 stays an int)
    options = oracle_options("papineni")
    with pytest.raises(BleuOracleError) as fresh:
        oracle_result(request, options)
    with pytest.raises(BleuOracleError) as kept:
        oracle_result(request, options, counted={})
    assert str(fresh.value).startswith("segment 1: ")
    assert (type(kept.value), str(kept.value)) == (type(fresh.value), str(fresh.value))


#: The conventions a search computes the per-segment means under: the profile's own, the empty-order rules (the
#: sentence level's apart from the corpus level's: `mean-of-sentence-bleu` applies only where they differ), folding.
_APPLIES_CHANGES = ({}, {"empty_order": "one"}, {"sentence_empty_order": "skip"}, {"lowercase": True},
                    {"empty_order": "zero", "sentence_empty_order": "one"})


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(requests(methods=SMOOTHINGS, lowercase=(False, True), max_segments=5), st.data())
def test_each_computation_ruled_out_by_its_counts_applies_exactly_where_its_function_gives_a_value(request, data):
    # a computation ruled out by its counts is not computed, and charged where it applies (`APPLIES`): each test is its
    # function's returning a value, on any request and under any candidate's options, so that the charges are what
    # they were when it was computed
    options = oracle_options("papineni", lowercase=request.lowercase)
    changes = data.draw(st.sampled_from(_APPLIES_CHANGES))
    try:
        changed = options.with_changes(**changes) if changes else options
        ctx = context_for(request, "papineni", None)
        ctx = Context(ctx.request, changed, ctx.smoothing, ctx.weights, ctx.counted)
        result = oracle_result(ctx.request, changed, ctx.smoothing)
    except BleuOracleError:
        return
    functions = dict(classify_module.COMPUTATIONS)
    for name, applies in APPLIES.items():
        assert applies(ctx, result) == (functions[name](ctx, result) is not None), name


def test_a_computation_ruled_out_by_its_counts_is_charged_as_computed_and_never_computed():
    # "a b" / "a b" and "c d e f" / "c x y z" (BLEU-1): the oracle's counts are c = 6, m1 = 3; returned counts of
    # m1 = 4 contradict them, so the mean of the segments' scores (0.625 by hand, as above) cannot name the answer
    # 0.625 whatever its value, and is not computed; it is charged as the search charged it when it was (one
    # candidate: the request's 10 tokens, at the floor of 1), the same number of alternatives tried either way
    segments = tuple(Segment(hypothesis=tuple(h.split()), references=(tuple(r.split()),))
                     for h, r in (("a b", "a b"), ("c d e f", "c x y z")))
    request = ScoreRequest(seq=0, level="corpus", segments=segments, weights=(1.0,), smoothing={"method": "none"})
    answer = {"score": 0.625, "statistics": {"hyp_len": 6, "ref_len": 6, "matches": [4], "totals": [6]}}
    calls = []
    original = dict(classify_module.GENERIC_COMPUTATIONS)["mean-of-sentence-scores"]

    def counting(ctx, result):
        calls.append(ctx.options)
        return original(ctx, result)

    patched = tuple((name, counting if name == "mean-of-sentence-scores" else function)
                    for name, function in classify_module.GENERIC_COMPUTATIONS)
    spent = []
    for applies in (APPLIES, {}):  # ruled out by its counts, then computed as before this rule
        with mock.patch.object(classify_module, "GENERIC_COMPUTATIONS", patched), \
                mock.patch.object(classify_module, "APPLIES", applies):
            meter = classify_module.TokenMeter(10**6)
            named = classify(request, answer, "papineni", among=("mean-of-sentence-scores",), meter=meter)
        assert named.name != "mean-of-sentence-scores"
        spent.append(meter.spent)
    assert calls == [oracle_options("papineni", lowercase=False)]  # computed by the second search only
    assert spent[0] == spent[1] > 0
