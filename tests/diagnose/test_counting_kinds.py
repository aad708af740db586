"""The counting stages' variants by kind (issue 36, counting-kinds: `oracle.diagnose.mechanisms.counting.STAGE_KINDS`):
each one's prediction on a hand-derived request (the n-grams counted by hand in the comments), the record named by it
where an implementation returns those counts, a nearby input it must not name, and a fake with the bug
(tests/fakes/stagedbleu.py's mutants) whose records it names."""

from __future__ import annotations

import math

import pytest

from oracle.adapters.base import ScoreAnswer
from oracle.diagnose.classify import classify, explained_value
from oracle.diagnose.mechanisms.counting import STAGE_KINDS
from oracle.formulas.bleu import Options
from oracle.models.protocol import ScoreRequest, Segment


def request(segments, n):
    return ScoreRequest(seq=0, level="corpus", weights=(1 / n,) * n, smoothing={"method": "none"}, lowercase=False,
                        segments=tuple(Segment(hypothesis=tuple(h.split()), references=tuple(tuple(r.split())
                                                                                             for r in refs))
                                       for h, refs in segments))


def by_hand(c, r, matches, totals):
    """Papineni's score of the counts, written out: BP = 1 if c > r else e^(1 - r/c), times the geometric mean of the
    precisions m/t with uniform weights (each m/t as it comes, above 1 too; 0 where a precision is)."""
    bp = 1.0 if c > r else math.exp(1 - r / c)
    if 0 in matches:  # a precision 0: the geometric mean is 0 (no smoothing)
        return 0.0
    return bp * math.exp(sum(math.log(m / t) for m, t in zip(matches, totals, strict=True)) / len(matches))


def answer(c, r, matches, totals):
    return ScoreAnswer(by_hand(c, r, matches, totals), {"hyp_len": c, "ref_len": r, "matches": list(matches),
                                                        "totals": list(totals), "bp": min(1.0, by_hand(c, r, (1,),
                                                                                                      (1,)))})


# Each row: the variant, one segment (hypothesis, reference), BLEU-2, and the counts it gives (matches, totals),
# counted by hand; the formulas' (section 2.1) are in the comment. c and r are the token counts, unchanged.
WINDOWS = [
    # "a" / "a": range(len) = range(1) at both orders. Order 1: ("a",) against ("a",): 1 of 1. Order 2: the short
    # window tokens[0:2] = ("a",) against ("a",): 1 of 1 (the formulas: 1 of 1, 0 of 0)
    ("ngram-windows-at-every-position", "a", "a", (1, 1), (1, 1)),
    # "a a" / "b a": range(len - n + 2). Order 1: a, a, () against b, a, (): a once (clipped to 1) and (): 2 of 3.
    # Order 2: (a a), (a,) against (b a), (a,): (a,) 1 of 2 (the formulas: 1 of 2, 0 of 1)
    ("ngram-loop-one-long", "a a", "b a", (2, 1), (3, 2)),
    # "a a b" / "a c a b": tokens[i:i + n + 1] over range(len - n + 1). Order 1: (a a), (a b), (b,) against (a c),
    # (c a), (a b), (b,): (a b) and (b,): 2 of 3. Order 2: (a a b), (a b) against (a c a), (c a b), (a b): 1 of 2 (the
    # formulas: 3 of 3, 1 of 2)
    ("ngram-width-one-more", "a a b", "a c a b", (2, 1), (3, 2)),
    # "a a" / "a b": tokens[i:i + n - 1]. Order 1: two () against two (): 2 of 2. Order 2: tokens[0:1] = (a,) against
    # (a,): 1 of 1 (the formulas: 1 of 2, 0 of 1)
    ("ngram-width-one-less", "a a", "a b", (2, 1), (2, 1)),
    # "a a" / "b a": tokens[i + 1:i + n]. Order 1: two () against two (): 2 of 2. Order 2: tokens[1:2] = (a,) against
    # (a,): 1 of 1 (the formulas: 1 of 2, 0 of 1)
    ("ngram-window-starts-one-late", "a a", "b a", (2, 1), (2, 1)),
    # "a" / "a b": order k counts the formulas' order k - 1. Order 1: range(len + 1) empty windows, 2 in the
    # hypothesis against 3 in the reference: 2 of 2. Order 2: the unigrams a against a, b: 1 of 1 (the formulas: 1 of
    # 1, 0 of 0)
    ("orders-counted-from-zero", "a", "a b", (2, 1), (2, 1)),
    # "a a" / "a b": tokens[i:i + 1] over range(len - n + 1). Order 1: a, a against a, b: 1 of 2. Order 2: (a,)
    # against (a,): 1 of 1 (the formulas: 1 of 2, 0 of 1)
    ("unigrams-counted-at-every-order", "a a", "a b", (1, 1), (2, 1)),
    # "a a" / "b c": every key (). Order 1: 2 against 2: 2 of 2. Order 2: 1 against 1: 1 of 1 (the formulas: 0 of 2,
    # 0 of 1)
    ("ngrams-always-match", "a a", "b c", (2, 1), (2, 1)),
    # "a a" / "a": max(h, limit). Order 1: max(2, 1) = 2 of 2. Order 2: (a a) max(1, 0) = 1 of 1 (the formulas: 1 of
    # 2, 0 of 1)
    ("clipped-with-max-for-min", "a a", "a", (2, 1), (2, 1)),
    # "a b" / "a b": no match at all: 0 of 2, 0 of 1 (the formulas: 2 of 2, 1 of 1)
    ("no-ngram-ever-matches", "a b", "a b", (0, 0), (2, 1)),
]


@pytest.mark.parametrize("name, hypothesis, reference, matches, totals", WINDOWS)
def test_each_window_and_clip_variant_counts_what_the_hand_gives(name, hypothesis, reference, matches, totals):
    segments = request([(hypothesis, [reference])], 2).segments
    counts = STAGE_KINDS[name][2](segments, 2, Options())
    assert counts["matches"] == matches
    assert counts.get("totals", totals) == totals


@pytest.mark.parametrize("name, hypothesis, reference, matches, totals",
                         [row for row in WINDOWS if row[0] != "no-ngram-ever-matches"])
def test_a_record_with_a_variants_counts_is_named_by_it(name, hypothesis, reference, matches, totals):
    """Each request above was chosen so that no reading tried before the variant gives its counts (where a later
    variant of the kind gives them too, it is among the record's fits): the record is named by the variant."""
    req = request([(hypothesis, [reference])], 2)
    c, r = len(hypothesis.split()), len(reference.split())
    assert classify(req, answer(c, r, matches, totals), "papineni").name == name


# Two segments, BLEU-2: "a b c" / "a a b c" (c 3, r 4: unigrams a (min(1, 2)), b, c: 3 of 3; bigrams (a b), (b c)
# against (a a), (a b), (b c): 2 of 2) and "f d e x" / "d e g hh" (c 4, r 4: unigrams d, e: 2 of 4; bigrams (d e) of
# (f d), (d e), (e x): 1 of 3). The formulas: c 7, r 8, matches (5, 3) of (7, 5). (No cap on the references gives r = 7:
# their lengths 4 and 4 cut give 2, 4, 6 or 8.)
CORPUS = [("a b c", ["a a b c"]), ("f d e x", ["d e g hh"])]
SEGMENT_ROWS = [
    ("matches-of-first-segment-only", (7, 8, (3, 2), (7, 5))),
    ("matches-of-last-segment-only", (7, 8, (2, 1), (7, 5))),
    ("totals-of-first-segment-only", (7, 8, (5, 3), (3, 2))),   # matches above totals, as the code returns them
    ("totals-of-last-segment-only", (7, 8, (5, 3), (4, 3))),
    ("hypothesis-length-read-from-reference-length", (8, 8, (5, 3), (7, 5))),
    ("reference-length-read-from-hypothesis-length", (7, 7, (5, 3), (7, 5))),
    ("matches-read-from-totals", (7, 8, (7, 5), (7, 5))),
    ("totals-read-from-matches", (7, 8, (5, 3), (5, 3))),
]


@pytest.mark.parametrize("name, counts", SEGMENT_ROWS)
def test_each_corpus_variant_counts_what_the_hand_gives(name, counts):
    segments = request(CORPUS, 2).segments
    c, r, matches, totals = counts
    given = STAGE_KINDS[name][2](segments, 2, Options())
    assert {**{"hyp_len": 7, "ref_len": 8, "matches": (5, 3), "totals": (7, 5)}, **given} == {
        "hyp_len": c, "ref_len": r, "matches": matches, "totals": totals}


# Where every hypothesis n-gram matches some way, m = t is what the always-equal key gives too (named first), and t = m
# with the totals one short where the loop's bound gives them; a corpus where neither does, BLEU-2: "a b c d" / "b c"
# (unigrams b, c: 2 of 4; (b c) of (a b), (b c), (c d): 1 of 3) and "d b d c" / "c b a a c" (unigrams b, c: 2 of 4;
# (d b), (b d), (d c): 0 of 3). The formulas: c 8, r 2 + 5 = 7, matches (4, 1) of (8, 6).
FIELD_CORPUS = [("a b c d", ["b c"]), ("d b d c", ["c b a a c"])]
NAMED_ROWS = [*[(CORPUS, name, counts) for name, counts in SEGMENT_ROWS
                if name not in ("matches-read-from-totals", "totals-read-from-matches")],
              (FIELD_CORPUS, "matches-read-from-totals", (8, 7, (8, 6), (8, 6))),
              (FIELD_CORPUS, "totals-read-from-matches", (8, 7, (4, 1), (4, 1)))]


@pytest.mark.parametrize("corpus, name, counts", NAMED_ROWS)
def test_a_corpus_record_with_a_variants_counts_is_named_by_it(corpus, name, counts):
    """No reading tried before the variant gives its counts here: the record is named by it."""
    explanation = classify(request(corpus, 2), answer(*counts), "papineni")
    assert explanation.name == name, explanation


def test_the_clean_counts_and_an_earlier_readings_counts_are_not_named_by_a_variant():
    """Nearby inputs none of them may name: the formulas' own counts (agrees); and the loop one short on every side
    (`last-ngram-dropped`, "a b c" / "a b d", BLEU-2: a, b of a, b; (a b) of (a b): (2, 1) of (2, 1)), which a
    variant tried after it must not take (the totals one short names it first)."""
    req = request([("a b c", ["a b d"])], 2)
    assert classify(req, answer(3, 3, (2, 1), (3, 2)), "papineni").name == "agrees"
    named = classify(req, answer(3, 3, (2, 1), (2, 1)), "papineni")
    assert named.name == "totals-one-short", named  # (an earlier reading: its counts are last-ngram-dropped's too)
    # counts no variant gives: what is known, not a variant (totals (2, 2) of "a b c" at BLEU-2 fit no window); since
    # counting-fit the grammar's fit beside it, the windows of width 2 at every order (3 - 2 + 1 = 2 at both)
    other = classify(req, answer(3, 3, (2, 1), (2, 2)), "papineni")
    assert other.name.startswith("other-counting-of-"), other
    assert other.fits[0] == "totals-fitted-as-windows-of-width-2-at-every-order", other


# A fake with each bug: tests/fakes/stagedbleu.py's mutant of the stage, run by `check` (60 examples): failing records
# are named by the variant (or have it among their fits), and the run's causes include it (the orders from 0: a group
# of its own beside what is known of the records whose score agrees, a path these variants are not tried on).
FAKES = [
    ("constant:stage_ngrams:87:33", "ngram-windows-at-every-position"),
    ("swap:stage_clip:99:18", "clipped-with-max-for-min"),
    ("offbyone:stage_segment:117:19:1", "orders-counted-from-zero"),
    ("offbyone:stage_corpus:131:26:1", "totals-read-from-matches"),
]


@pytest.mark.slow
@pytest.mark.parametrize("mutant, name", FAKES)
def test_check_names_a_mutant_fake_by_its_variant(tmp_path, mutant, name):
    from fakes.harness import check, deviations, fake

    report = tmp_path / "report"
    assert check(report, fake("stagedbleu", "--mutant", mutant), examples=60) == 1
    failing = [r for r in deviations(report) if r.outcome == "fail"]
    named = [r for r in failing if name in (r.classification.name, *r.classification.fits)]
    assert named, {(r.classification.name, r.classification.fits) for r in failing}
    by_cause = [line for line in (report / "summary.md").read_text().split("\n") if line.startswith("By root cause:")]
    assert by_cause and f" {name} x" in by_cause[0], by_cause


@pytest.mark.parametrize("corpus, name, counts", [*NAMED_ROWS, *((
    [(hypothesis, [reference])], name, (len(hypothesis.split()), len(reference.split()), matches, totals))
    for name, hypothesis, reference, matches, totals in WINDOWS)])
def test_a_variant_read_back_from_its_name_gives_the_score_of_its_counts(corpus, name, counts):
    """The variant's counts, computed from the request alone and scored by the formulas (as `cases validate` and the
    separating probes replay a name), give the score written out by hand from its counts: matches above the totals
    (the max clip, one segment's totals) read as they come."""
    value = explained_value(request(corpus, 2), "papineni", (("computation", name),))
    assert value == pytest.approx(by_hand(*counts), rel=1e-12)


def test_the_max_clip_reads_matches_above_the_totals_as_they_come():
    """"a b" / "a a b b", BLEU-2: order 1, a max(1, 2) = 2 and b max(1, 2) = 2: 4 of 2; order 2, (a b) max(1, 1): 1 of
    1. c 2, r 4: BP e^(1 - 2); the precisions 2 and 1."""
    req = request([("a b", ["a a b b"])], 2)
    assert STAGE_KINDS["clipped-with-max-for-min"][2](req.segments, 2, Options()) == {"matches": (4, 1)}
    value = explained_value(req, "papineni", (("computation", "clipped-with-max-for-min"),))
    assert value == pytest.approx(math.exp(1 - 2) * math.sqrt(2 * 1), rel=1e-12)
    # (a record with these counts is named `matches-credited-with-reference-counts`, tried first: each distinct n-gram
    # credited with its reference count gives 2 + 2 and 1 as well; the max clip differs where the hypothesis has an
    # n-gram more often than the reference, as "a a" / "a" above)
    assert classify(req, answer(2, 4, (4, 1), (2, 1)), "papineni").name == "matches-credited-with-reference-counts"
