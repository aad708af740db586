"""Fitted counting (issue 36, counting-fit: `oracle.diagnose.countfit`): a counting field's arithmetic fitted to the
returned integers where no named counting variant gives them. Each row's counts are derived by hand in its comment (the
formulas' section 2.1 counts beside them); the record is named by the grammar's smallest expression that gives them,
what is known (`other-counting-of-<layer>`) among its fits; a fit on one record is no run's cause.

Holds: oracle.diagnose.countfit, oracle.diagnose.cover
"""

from __future__ import annotations

from types import SimpleNamespace

import pytest
from test_counting_kinds import by_hand, request  # (the same request builder and score written out)

from oracle.diagnose import countfit, mechanisms
from oracle.diagnose.classify import classify, explained_value, names_a_mechanism, what_is_known
from oracle.diagnose.countfit import GRAMMAR, fit, fitted_counts
from oracle.diagnose.cover import minimal_cover, states_what_is_known
from oracle.formulas.bleu import Options


def answer(c, r, matches, totals):
    return {"score": by_hand(c, r, matches, totals), "statistics": {"hyp_len": c, "ref_len": r,
                                                                    "matches": list(matches), "totals": list(totals)}}


# Two references each way round, BLEU-2. Segment 1 "a a b z" / "a b y", "a a b y": the formulas clip a (2) to its
# largest reference count 2, b to 1: 3; (a a) to 1, (a b) to 1, (b z) 0: 2. Clipped to the smallest count instead: a
# min(2, min(1, 2)) = 1, b 1: 2; (a a) min(1, min(0, 1)) = 0, (a b) 1: 1. Segment 2 (the references swapped) the same;
# segment 3 "c c d x" / "c d w", "c c d w" as segment 1: 3, 2 and 2, 1. Segment 4 "e f g" / "e f g", "e f": the
# formulas 3, 2; the smallest count: e 1, f 1, g min(1, 0) = 0: 2; (e f) 1, (f g) 0: 1. Totals 4 + 4 + 4 + 3 = 15 and
# 3 + 3 + 3 + 2 = 11; c 15; r 4 + 4 + 4 + 3 = 15 (each closest reference). The formulas: (12, 8) of (15, 11); the
# smallest count: (2 + 2 + 2 + 2, 1 + 1 + 1 + 1) = (8, 4). (The first reference's count gives segment 2 and 4 3, 2:
# (10, 6); the last's segment 1 and 3 3, 2: (10, 6); so only the smallest count is (8, 4) at width n.)
SMALLEST = [("a a b z", ["a b y", "a a b y"]), ("a a b z", ["a a b y", "a b y"]), ("c c d x", ["c d w", "c c d w"]),
            ("e f g", ["e f g", "e f"])]
ROWS = [
    # "a b c" / "a b c", BLEU-2: the formulas (3, 2) of (3, 2); every order's total the hypothesis's length, 3 (the
    # windows of width 1 at every order), the matches the formulas'
    ([("a b c", ["a b c"])], (3, 3, (3, 2), (3, 3)), "totals-fitted-as-windows-of-width-1-at-every-order"),
    # "a b c" / "a b c", "a b c d" and "d e f" / "d e f", "d e", BLEU-2: r = 3 + 3 = 6 by the formulas (each segment's
    # closest reference has 3 tokens); r = 1 a segment, 2 (the number of references is 4, each reference length 2 or
    # more); c 6, every n-gram matched: (6, 4) of (6, 4)
    ([("a b c", ["a b c", "a b c d"]), ("d e f", ["d e f", "d e"])], (6, 2, (6, 4), (6, 4)),
     "ref_len-fitted-as-1-per-segment"),
    # "a b c" / "a b c" and "d e f g" / "d e f g", BLEU-2: c = 3 + 4 = 7 by the formulas; each hypothesis length less 1:
    # 2 + 3 = 5; r 7; every n-gram matched: (7, 5) of (7, 5)
    ([("a b c", ["a b c"]), ("d e f g", ["d e f g"])], (5, 7, (7, 5), (7, 5)),
     "hyp_len-fitted-as-hypothesis-length-minus-1"),
    (SMALLEST, (15, 15, (8, 4), (15, 11)), "matches-fitted-as-clipped-to-smallest-reference-count-windows-of-width-n"),
]


@pytest.mark.parametrize("corpus, counts, name", ROWS)
def test_the_grammar_counts_what_the_hand_gives(corpus, counts, name):
    field = GRAMMAR[name].field
    c, r, matches, totals = counts
    wanted = {"hyp_len": c, "ref_len": r, "matches": matches, "totals": totals}[field]
    assert fitted_counts(name)(request(corpus, 2).segments, 2, Options()) == {field: wanted}


@pytest.mark.parametrize("corpus, counts, name", ROWS)
def test_a_record_only_a_fit_gives_keeps_what_is_known_the_smallest_fit_first_beside_it(corpus, counts, name):
    """No named variant gives these counts (each row checked to be `other-counting-of-<layer>` before the fit was
    built): the record keeps what is known of its layer as its name (every step of the harness reads it as before),
    and the grammar's smallest expression is its first fit (a fitted name needs evidence: the run decides)."""
    explanation = classify(request(corpus, 2), answer(*counts), "papineni")
    assert explanation.name == f"other-counting-of-{GRAMMAR[name].field}", explanation
    assert explanation.fits[0] == name, explanation
    assert mechanisms.needs_evidence((name,))
    assert "a fit of the returned integers" in mechanisms.describe(name)


@pytest.mark.parametrize("corpus, counts, name", ROWS)
def test_a_fit_read_back_from_its_name_gives_the_score_of_its_counts(corpus, counts, name):
    """The fit's counts, computed from the request alone and scored by the formulas (as `cases validate` replays a
    name), give the score written out by hand from the counts."""
    value = explained_value(request(corpus, 2), "papineni", (("computation", name),))
    assert value == pytest.approx(by_hand(*counts), rel=1e-12)


def test_a_named_variant_keeps_its_counts_and_counts_no_expression_gives_stay_what_is_known():
    """"a b c" / "a b d", BLEU-2 (the formulas (2, 1) of (3, 2)): totals (2, 1), the n-gram loop one short, are the
    windows of width n + 1 too, and `totals-one-short`, tried first, names them, no fit among the fits; totals (2, 3)
    grow with the order, which no window count, constant or offset of the grammar does: what is known."""
    req = request([("a b c", ["a b d"])], 2)
    named = classify(req, answer(3, 3, (2, 1), (2, 1)), "papineni")
    assert named.name == "totals-one-short", named
    assert not [fit for fit in named.fits if fit in GRAMMAR]  # (the grammar is read beside a name for c and r only)
    unknown = classify(req, answer(3, 3, (2, 1), (2, 3)), "papineni")
    assert unknown.name == "other-counting-of-totals" and not unknown.fits, unknown


def test_a_record_a_named_variant_explains_carries_the_fits_of_its_counts_too():
    """"a b" / "a b", BLEU-2, r returned as 0 (the formulas' c = r = 2, (2, 1) of (2, 1), BP 1 either way: the score
    agrees): the distance |2 - 2| = 0 to the closest reference (`reference-length-is-the-distance`, a named length
    reading) names it, as on main, and a constant 0 a segment, the grammar's, gives r as well: among its fits, so that a
    run whose other records that fit names covers this one by it (the shrinker drives c and r together, where the
    distance is 0). And "a b" / "a b", "a b c d", BLEU-2, r returned as 4 (the formulas' r = 2, the closest; c = 2, so
    BP = e^(1 - 4/2) and the score differs): the longest and the last reference are 4 tokens, named by the named
    readings (`reference_length=longest`, `reference-length-of-last-reference`), and beside them the grammar's fits of
    r = 4 that say something else (c + 2), never the grammar's own longest or last reference, which compute what those
    names do (`countfit.SAME_AS_NAMED`)."""
    distance = classify(request([("a b", ["a b"])], 2), answer(2, 0, (2, 1), (2, 1)), "papineni")
    assert distance.name == "reference-length-is-the-distance", distance
    assert "ref_len-fitted-as-0-per-segment" in distance.fits, distance
    longer = classify(request([("a b", ["a b", "a b c d"])], 2), answer(2, 4, (2, 1), (2, 1)), "papineni")
    said = {longer.name, *longer.fits}
    assert {"reference_length=longest", "reference-length-of-last-reference"} <= said, longer
    assert "ref_len-fitted-as-hypothesis-length-plus-2" in said, longer
    assert not {"ref_len-fitted-as-longest-reference", "ref_len-fitted-as-last-reference"} & said, longer


def test_a_fit_that_computes_a_named_readings_arithmetic_never_outgrows_it():
    """planted:r-first-reference (r read from each segment's first reference): 191 records named by
    `reference-length-of-first-reference`, 2 records its run did not search (`what_is_known`: what is known, the
    grammar's first reference among their fits). Were the grammar's first reference beside the 191 as well, it would
    reach 193 and name the run in the named reading's place (it did, once); it computes what the named reading does, so
    it is not put there, and the named reading names the run."""
    req = request([("a b", ["a b c d", "a b"])], 2)  # r by hand: the first reference, 4 (the formulas' closest: 2)
    first = classify(req, answer(2, 4, (2, 1), (2, 1)), "papineni")
    said = {first.name, *first.fits}
    assert "reference-length-of-first-reference" in said and "ref_len-fitted-as-first-reference" not in said, first
    named, fit = ("reference-length-of-first-reference",), ("ref_len-fitted-as-first-reference",)
    causes = minimal_cover({tuple((name,) for name in (first.name, *first.fits)): 191, (KNOWN, fit): 2})
    assert causes[0].records == 191 and named in (causes[0].parts, *causes[0].alternative_parts), causes


def test_a_fit_that_reaches_a_named_records_too_covers_them():
    """Two records named by a named reading that a fit gives as well, five named what is known with that fit: the fit
    reaches all seven, more than what is known (five), so it names the run, the named reading no cause of its own."""
    distance = ("reference-length-is-the-distance",)
    fit = ("ref_len-fitted-as-0-per-segment",)
    causes = minimal_cover({(distance, fit): 2, (("other-counting-of-ref_len",), fit): 5})
    assert [(c.name, c.records) for c in causes] == [("ref_len-fitted-as-0-per-segment", 7)]


FIT = ("ref_len-fitted-as-1-per-segment",)
OTHER = ("ref_len-fitted-as-longest-reference",)
KNOWN = ("other-counting-of-ref_len",)


def test_a_fit_on_one_record_is_not_a_runs_cause():
    """One record's small integers can fit an expression by chance: a fit on one record of a run names nothing,
    the record is named what is known; so is a fit on two records of ten (no majority of the layer's records)."""
    assert [(c.name, c.records) for c in minimal_cover({(KNOWN, FIT): 1})] == [("other-counting-of-ref_len", 1)]
    assert [(c.name, c.records) for c in minimal_cover({(KNOWN, FIT): 1, (KNOWN, OTHER): 1, (KNOWN,): 3})] == [
        ("other-counting-of-ref_len", 5)]
    assert [(c.name, c.records) for c in minimal_cover({(KNOWN, FIT): 2, (KNOWN,): 8})] == [
        ("other-counting-of-ref_len", 10)]


def test_a_fit_most_of_a_layers_records_share_is_the_runs_cause_the_rest_what_is_known():
    """The pattern across records: a fit that more than half the records what is known reaches share (two at least)
    names them; the others keep what is known, a cause of their own."""
    causes = minimal_cover({(KNOWN, FIT, OTHER): 3, (KNOWN, FIT): 4, (KNOWN, OTHER): 1, (KNOWN,): 2})
    assert [(c.name, c.records) for c in causes] == [("ref_len-fitted-as-1-per-segment", 7),
                                                      ("other-counting-of-ref_len", 3)]


def test_a_fit_chosen_over_what_is_known_stays_chosen_where_the_passing_requests_are_read():
    """A run reading its ties on its passing requests (`among_equals`, passing-tie) keeps the fit the majority rule
    chose over what is known, which rides along in the tie: with both merged, set A's
    return:stage_closest_ref_length:110:4:0 footer said other-counting-of-ref_len (fits: ref_len-fitted-as-0-per-
    segment) x192, the tie re-chosen by the records' own names (what is known, each fitted record's name)."""
    signatures = {(KNOWN, FIT, OTHER): 3, (KNOWN, FIT): 4, (KNOWN, OTHER): 1, (KNOWN,): 2}
    keep_all = lambda tie, taken: list(tie)  # noqa: E731 (nothing contradicted on the passing requests)
    causes = minimal_cover(signatures, among_equals=keep_all)
    assert [(c.name, c.records) for c in causes] == [("ref_len-fitted-as-1-per-segment", 7),
                                                      ("other-counting-of-ref_len", 3)]


def test_the_grammar_leaves_out_what_a_named_variant_computes():
    """r = c, each segment's hypothesis length, is `reference-length-read-from-hypothesis-length` (a stage kind, which
    `classify._score_agrees` does not try): the grammar holds no expression of it, so a fit never names, where the score
    agrees, what a named variant computes (stage-mutants' `offbyone:stage_corpus:129:20:1` was named so before it was
    left out). The other offsets from c remain."""
    assert "ref_len-fitted-as-hypothesis-length" not in GRAMMAR
    assert "ref_len-fitted-as-hypothesis-length-plus-1" in GRAMMAR


def test_a_fit_is_no_mechanism_a_kinds_later_failures_are_searched_among():
    """A fit of the returned integers says what is known of them more narrowly, not what code does: like
    `other-counting-of-<layer>` it names no mechanism (`names_a_mechanism`), so the harness never searches a kind's
    later failures among it in place of the full search that names them on main."""
    assert not names_a_mechanism(FIT) and not names_a_mechanism((*FIT, "totals-fitted-as-1-per-segment"))
    assert names_a_mechanism(("totals-one-short",)) and not names_a_mechanism(KNOWN)
    # nor is it a mechanism's alternative ("fits: A or B") nor a candidate a state is told apart from
    # (`cover.states_what_is_known`, read by `oracle.harness.separate`)
    assert states_what_is_known(FIT) and not states_what_is_known(("totals-one-short",))


def test_a_record_not_searched_has_the_named_reading_beside_a_fit_that_computes_it():
    """A record its run does not search (`what_is_known`) is never offered the named readings: "a b" / "a b c d",
    "a b" with r returned as 4 (by hand the first reference's length; the formulas' closest is 2) is named what is
    known, the grammar's first reference among its fits, and `reference-length-of-first-reference`, whose arithmetic
    that fit is, beside it; so a run whose searched records that reading names covers this one by it (planted:r-first-
    reference: x191 by the reading and x2 by the fit before)."""
    known = what_is_known(request([("a b", ["a b c d", "a b"])], 2), answer(2, 4, (2, 1), (2, 1)), "papineni")
    assert known.name == "other-counting-of-ref_len", known
    assert {"ref_len-fitted-as-first-reference", "reference-length-of-first-reference"} <= set(known.fits), known
    named = ("reference-length-of-first-reference",)
    signature = tuple((name,) for name in (known.name, *known.fits))
    causes = minimal_cover({(named, ("reference_length=longest",)): 191, signature: 2})
    assert [(c.parts, c.records) for c in causes] == [(named, 193)], causes


@pytest.mark.parametrize("corpus, counts, name", ROWS)
def test_what_is_known_of_a_record_not_searched_carries_its_fits(corpus, counts, name):
    """A record its run does not search (`what_is_known`: a kind's later failures) is named what is known of its layer
    and carries the same fits as a searched one, so that a run's pattern is read across all its records."""
    known = what_is_known(request(corpus, 2), answer(*counts), "papineni")
    assert known.name == f"other-counting-of-{GRAMMAR[name].field}", known
    assert known.fits[0] == name, known


# A request fitted again (`countfit.fit`'s `kept`, the request's own dict): what its earlier fits computed is read, and
# charged as if computed again. The charges by hand, from the fit's stated cost: one pass for the lengths and totals
# (the tables), and one a window width the matches read. At BLEU-2 the matches' expressions read widths n + k (k in
# -2..2: widths 1..4, a width below 1 read by none, which does not apply) and the widths 1..4 at every order: 4 widths,
# so 1 + 4 = 5 charges where the matches differ. SMALLEST's counts (the formulas' (12, 8) of (15, 11), c 15, r 15, by
# hand above) with the matches of the smallest count, (8, 4).
SMALLEST_FORMULAS = SimpleNamespace(hyp_len=15, ref_len=15, matches=(12, 8), totals=(15, 11))
SMALLEST_RETURNED = SimpleNamespace(hyp_len=15, ref_len=15, matches=(8, 4), totals=(15, 11))
SMALLEST_FIT = "matches-fitted-as-clipped-to-smallest-reference-count-windows-of-width-n"


def _fit_counting(kept, *, permitted=lambda name: True, limit=None):
    """The fits of SMALLEST's returned counts, and how many charges the fit made (the budget spent at the `limit`-th:
    a charge past it raises, as a search's spent budget does)."""
    charges = []

    def charge():
        charges.append(1)
        if limit is not None and len(charges) > limit:
            raise OverflowError

    fits = fit(request(SMALLEST, 2).segments, 2, Options(), SMALLEST_RETURNED, SMALLEST_FORMULAS, permitted=permitted,
               charge=charge, spent=(OverflowError,), kept=kept)
    return fits, len(charges)


def test_a_request_fitted_again_is_charged_as_the_first_fit_and_gets_the_same_fits():
    kept: dict = {}
    first = _fit_counting(kept)
    # (the hand's fit, and 1 + 4 + 3 charges: the tables, the window widths 1 to 4, and the stage 2 expressions'
    # windows of orders 1 and 2 and the segments read as one stream, fit-aggregation)
    assert first[0][0] == (SMALLEST_FIT,) and first[1] == 8
    assert _fit_counting(kept) == first  # (a hit: every value read from `kept`)
    assert _fit_counting(None) == first  # (nothing kept: every value computed)


def test_a_request_fitted_again_among_fewer_expressions_is_charged_for_the_widths_they_read():
    # the one expression permitted, each order n's windows of width n + 1: widths 2 and 3 at BLEU-2, 1 + 2 charges;
    # (by hand: segment 1 "a a b z" against "a b y" and "a a b y", bigram (a a) 1 in the second, (a b) 1, (b z) 0: 2;
    # trigrams (a a b) 1, (a b z) 0: 1. Segment 2 the same, segment 3 as 1, segment 4 "e f g" against "e f g": (e f),
    # (f g) 2 and (e f g) 1: (2 + 2 + 2 + 2, 1 + 1 + 1 + 1) = (8, 4), the returned counts again)
    name = "matches-fitted-as-clipped-windows-of-width-n+1"
    kept: dict = {}
    assert _fit_counting(kept, permitted=lambda part: part == name) == ([(name,)], 3)  # (nothing kept yet)
    _fit_counting(kept)  # (every width kept)
    assert _fit_counting(kept, permitted=lambda part: part == name) == ([(name,)], 3)


@pytest.mark.parametrize("limit", range(5))
def test_a_budget_spent_during_a_fit_again_is_spent_at_the_same_charge(limit):
    """A budget spent at any of the 5 charges: nothing fitted (the record keeps what is known), after the same charges
    whether the request's values were kept from an earlier fit or not."""
    kept: dict = {}
    _fit_counting(kept)
    assert _fit_counting(kept, limit=limit) == _fit_counting(None, limit=limit) == ([], limit + 1)


def test_a_long_sentence_of_runs_is_counted_as_its_windows_are():
    """A sentence of long runs of one token (counted run by run, `runs.count_by_runs`, past `runs.SHORTEST` tokens)
    gives each clip the windows' counts by hand: hypothesis 300 a then 300 b against 400 a and 100 b. Width 1: a 300
    (400 and 0 in the references), b 300 (0 and 100). Width 2: (a a) 299 (399 and 0), (a b) 1 (0, 0), (b b) 299 (0, 99).
    Clipped to the largest count: 300 + 100 = 400 and 299 + 99 = 398; to the sum the same; to the smallest 0 and 0; to
    the first 300 and 299; to the last 100 and 99; unclipped 600 and 598; distinct 2 and 2."""
    hypothesis, first, last = ("a",) * 300 + ("b",) * 300, ("a",) * 400, ("b",) * 100
    assert countfit._windows(hypothesis, 2) == {("a", "a"): 299, ("a", "b"): 1, ("b", "b"): 299}
    clips = ("clipped", "clipped-to-reference-sum", "clipped-to-smallest-reference-count", "clipped-to-first-reference",
             "clipped-to-last-reference", "unclipped", "distinct")
    by_hand = {1: (400, 400, 0, 300, 100, 600, 2), 2: (398, 398, 0, 299, 99, 598, 2)}
    for width, sums in by_hand.items():
        counted = countfit._clip_sums([hypothesis], [[first, last]], width)
        assert {clip: counted[clip] for clip in clips} == dict(zip(clips, sums, strict=True))


def test_what_another_request_kept_is_never_read():
    """A dict kept with one request and passed with another (never so in `classify`, where it is the request's own):
    the second request's fits are its own. ROWS' first row by hand: "a b c" / "a b c", BLEU-2, totals (3, 3) returned
    against the formulas' (3, 2): every order's total the hypothesis's length, the windows of width 1."""
    kept: dict = {}
    _fit_counting(kept)
    fits = fit(request([("a b c", ["a b c"])], 2).segments, 2, Options(),
               SimpleNamespace(hyp_len=3, ref_len=3, matches=(3, 2), totals=(3, 3)),
               SimpleNamespace(hyp_len=3, ref_len=3, matches=(3, 2), totals=(3, 2)), kept=kept)
    assert fits[0] == ("totals-fitted-as-windows-of-width-1-at-every-order",)


# What a fit computes (fit-cost2): each sequence's windows of a width counted once, for every reading of them, and a
# stage 2 extractor's matches no further than the first order that differs from the returned ones. SMALLEST at BLEU-2:
# 4 segments, each a hypothesis and 2 references, so 12 sequences of at most 4 tokens; the matches' expressions read
# widths 1 to 4 (the charges above), the stage 2 and 5 expressions the formulas' windows of orders 1 and 2, the same
# windows of widths 1 and 2 again.


def test_each_sequences_windows_of_a_width_are_counted_once_in_a_fit(monkeypatch):
    counted = []
    windows = countfit._windows

    def counting(tokens, width):
        if len(tokens) <= 4:  # (one segment's sequence; the segments read as one stream, 15 tokens, are counted apart)
            counted.append(width)
        return windows(tokens, width)

    monkeypatch.setattr(countfit, "_windows", counting)
    assert _fit_counting(None)[0][0] == (SMALLEST_FIT,)
    assert {width: counted.count(width) for width in set(counted)} == {1: 12, 2: 12, 3: 12, 4: 12}


def test_an_extractors_matches_are_computed_no_further_than_the_first_order_that_differs(monkeypatch):
    """The four extractors that change a few of the formulas' windows, against SMALLEST's returned matches (8, 4), by
    hand. Every window but the last, order 1: "a a b" against "a b" and "a a b", a 2 and b 1, 3; segment 2 the same;
    segment 3 "c c d" as segment 1, 3; segment 4 "e f" against "e f" and "e", 2: 11, not 8, so order 2 is not computed.
    Every window but the first: "a b z" against "b y" and "a b y", 2; 2; "c d x" against "d w" and "c d w", 2; "f g"
    against "f g" and "f", 2: 8, then order 2 ((a b), (b z) against (b y) and (a b), (b y): 1, and 1, 1, 1) is. One
    past the end adds the empty window to every sequence at order 1 (the formulas' 12, and 1 a segment: 16), and a
    window at every position adds none at order 1 (the formulas' 12): order 1 alone. The charges stay every order's
    (8, the test above)."""
    orders: dict = {}
    changed = countfit._changed_matches

    def recording(windows, hypotheses, references, n, change):
        extractor = next(name for name, function in countfit._CHANGED.items() if function is change)
        orders.setdefault(extractor, []).append(n)
        return changed(windows, hypotheses, references, n, change)

    monkeypatch.setattr(countfit, "_changed_matches", recording)
    fits, charges = _fit_counting(None)
    assert fits[0] == (SMALLEST_FIT,) and charges == 8
    assert ("matches-fitted-as-clipped-windows-but-the-first",) in fits  # (8, 4), by hand above
    assert orders == {"windows-but-the-last": [1], "windows-but-the-first": [1, 2], "windows-one-past-the-end": [1],
                      "windows-at-every-position": [1]}
