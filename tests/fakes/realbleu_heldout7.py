#!/usr/bin/env python3
"""Seventh held-out real-bug BLEU: bugs from new sources, planted in realbleu.py's library and wrapper.

Issue 36, seventh held-out set: realbleu.py and the first six held-out sets (`realbleu_heldout.py` ..
`realbleu_heldout6.py`) cite the repositories listed in benchmarks/README.md ("Seventh held-out set, blind"); this
set draws on repositories none of them cites: an MT evaluation tool's own BLEU (MT-ComparEval, in Perl), a Java
BLEU (MultEval's jBLEU), an NMT toolkit's BLEU scripts (Nematus, RETURNN) and a training framework's metric
(fastNLP). A bug counts when the diff shows the wrong code and its fix; `url` is the pull request the fix was merged
in, or the commit itself where it was pushed without one (all seven here). Nothing in the project cited any of them
when they were gathered (`oracle/`, `docs/`, `tests/`, `benchmarks/`, `cases/`, `baselines/`, `reports/`, README,
CHANGELOG; searched by URL, by `owner/name#N`, by the repository's short name and by the commit's hash prefix), with
one thing to know: the catalogue cites another MultEval thread (an issue about its fixed order 4), so its current
jBLEU code had been read; the two jBLEU commits here are 2011 and 2012 fixes of code that no longer stands.
`planted_twin` names the two whose *mechanism* is planted in a one-bug fake (the controls), labelled before the run.
Each bug's `fits`, the cause names that would count as naming its mechanism (a catalogue name where the diff's
mechanism has one, else the name an ideal cause would have; a diff that fixes two things at once is fitted by both
named together, never by one of them alone), were judged from the diff alone and committed before any run of `check`
on this fake.

Gathered and left out (read in their diffs, never by a guess at what the tool would name): a PyTorch metrics
library's shortest reference length (its pull request is cited in the catalogue's curated classes); xnmt's BLEU
breaking out of the order loop at the first order without matches and its closest-reference tie kept on the first
listed (xnmt is cited in the catalogue, and both are mechanisms planted elsewhere); xnmt's C++ sentence BLEU, whose
one fix diff holds several bugs at once (n-grams of the highest order only, counts never incremented); MultEval's
matched and attempted counts read from each other's slots (`precision-inverted`, a third control); Nematus' totals
not clamped at zero for a short hypothesis (the sixth set's mechanism, a third control); PaddlePaddle/models' BLEU
before its fix (a string iterated as characters, from PaddleNLP's code, which an earlier set cites); pycocoevalcap's
fixes (tylin/coco-caption's history, cited); lingvo's segmented hypotheses scored against unsegmented targets (the
plant would have to invent a segmentation); gluon-nlp's, compare-mt's, OpenNMT-py's, lm-evaluation-harness's,
PyTorch-NLP's and speechbrain's "fix bleu" commits (interface changes, no wrong score in the diff).

    python tests/fakes/realbleu_heldout7.py clean            # the control: correct under papineni
    python tests/fakes/realbleu_heldout7.py BUG              # one held-out bug (names in HELDOUT7_BUGS)
    python tests/fakes/realbleu_heldout7.py clean --no-stats # no statistics in the replies

Written without `oracle` (stdlib only). The library, the wrapper and the protocol loop are realbleu.py's (imported,
not copied): `Heldout7Library` switches on one bug each and otherwise defers to realbleu.py's library, so the clean
twin is realbleu.py's clean twin. Each plant is the diff's wrong code alone: the sources' other conventions (their
tokenizers, their fixed order 4 and weights 1/4, their always-on smoothing, their one reference, a score
thresholded at 1) are not planted beside it.
"""

from __future__ import annotations

import math
from collections import Counter

if __package__:  # imported as fakes.realbleu_heldout7 (the tests)
    from .realbleu import KINDS, Library, RealBug, Stats, Wrapper, answer
    from .realbleu import main as serve
else:  # run as a script: its directory is on sys.path
    from realbleu import KINDS, Library, RealBug, Stats, Wrapper, answer
    from realbleu import main as serve

__all__ = ["HELDOUT7_BUGS", "KINDS", "Heldout7Library", "Heldout7Wrapper", "answer", "main"]

HELDOUT7_BUGS: dict[str, RealBug] = {
    # -- lengths -------------------------------------------------------------------------------------------
    "lengths-counted-in-characters": RealBug(
        url="https://github.com/ondrejklejch/MT-ComparEval/commit/234cbfffccb415d54fddfd2c3c17c9cfebd6dd99",
        where="ondrejklejch/MT-ComparEval lib/NGram.pm add_sentence (the tool's Perl BLEU): "
              "`$self->_add_reference_length( $reference )` and `_add_machine_length( $machine )` adding "
              "`length( $reference )`, the line's length in characters, while `_count_ngrams` splits the line on "
              "' '; the fix adds the token counts (its first Bleu.php had `strlen( $referenceTranslation )` alike)",
        symptom="Lengths bug fixed",
        mechanism="the hypothesis and reference lengths of the brevity penalty are the texts' lengths in characters "
                  "(tokens joined by single spaces), not their token counts; the n-grams are counted over the "
                  "tokens as sent, and the closest reference is chosen among those character lengths",
        kind="counting", stage="lengths",
        fits=("lengths-counted-in-characters", "lengths-in-characters", "text-lengths-in-characters")),
    "closest-reference-to-running-hypothesis-length": RealBug(
        url="https://github.com/fastnlp/fastNLP/commit/77c255adc3ecb464d2e08b0ace8f30a3aa611461",
        where="fastnlp/fastNLP fastNLP/core/metrics/bleu.py BLEU.update: `self.pred_len += len(prediction)` then "
              "`self.references_len += len(min(references, key=lambda x: abs(len(x) - self.pred_len)))`, "
              "self.pred_len the metric's running sum; the fix takes `abs(len(x) - len(prediction))`",
        symptom="Fixed the bug of Bleu",
        mechanism="each segment's reference length is that of the reference closest to the running sum of the "
                  "hypothesis lengths so far (this segment's included), not to this hypothesis's length; ties go "
                  "to the reference listed first (Python's min); the first segment's is right, one-reference "
                  "segments are unaffected",
        kind="counting", stage="lengths",
        fits=("closest-reference-to-running-hypothesis-length", "reference-length-closest-to-cumulative-length",
              "reference-length-closest-to-corpus-length-so-far")),
    # -- counting and lengths at once ----------------------------------------------------------------------
    "first-reference-length-and-pooled-reference-ngrams": RealBug(
        url="https://github.com/jhclark/multeval/commit/0b3197d37039497b202614570e11ea82ad3f2281",
        where="jhclark/multeval src/jbleu/JBLEU.java (jBLEU, Java): `pickReference` starts from `selectedRef = 0` "
              "and, in its loop, updates `selectedRefLen` but never `selectedRef`, so `stats` takes "
              "`refs.get(selectedRef).size()` of the first reference; and every reference's n-grams go into one "
              "`HashMultiset refNgrams` that each hypothesis n-gram `remove`s from; the fix ('Bug fixes for "
              "jBLEU') sets the index and keeps per n-gram `Math.max` of the references' counts",
        symptom="Bug fixes for jBLEU. Regression test harnesses for travis-ci.",
        mechanism="two mistakes in one diff: the reference length is always the first reference's, whatever the "
                  "closest; and hypothesis n-grams are matched against one bag of every reference's n-grams, so "
                  "each is clipped to its count summed over the references; one-reference segments are right",
        kind="counting", stage="counting",
        fits=("reference-length-of-first-reference + clipped-to-reference-sum",
              "clipped-to-reference-sum + reference-length-of-first-reference",
              "first-reference-length-and-summed-reference-counts")),
    # -- combination and smoothing -------------------------------------------------------------------------
    "brevity-penalty-at-least-one": RealBug(
        url="https://github.com/jhclark/multeval/commit/94c531c905c30ae224f9524f7161895059df01a1",
        where="jhclark/multeval src/jbleu/JBLEU.java score: `double brevityPenalty = Math.max(1.0, "
              "Math.exp(1.0 - getRefWords(suffStats) / getAttemptedNgrams(suffStats, 0)))`, and for an order "
              "without matches `smooth *= 2; iscore = Math.log(1.0 / (smooth / attemptedNgramsJ))`; the fix "
              "('More readable code and smoothing fix') takes exp(1 - r/c) where c < r, else 1, and "
              "`1.0 / (smooth * attemptedNgramsJ)`",
        symptom="More readable code and smoothing fix",
        mechanism="the brevity penalty is max(1, e^(1 - r/c)): 1 for a hypothesis shorter than its reference (no "
                  "penalty) and above 1 for a longer one; and, where exp smoothing is requested, an unmatched "
                  "order's precision is its total over 2^k, l_n / 2^k, in place of 1 / (2^k l_n)",
        kind="combination", stage="combination",
        fits=("brevity-penalty-at-least-one", "brevity-penalty-floored-at-one",
              "no-brevity-penalty + brevity-penalty-when-longer",
              "brevity-penalty-when-longer + no-brevity-penalty")),
    "python2-integer-division": RealBug(
        url="https://github.com/rwth-i6/returnn/commit/6bbd563fe59039c58454cce3bfeb79f988be6d5e",
        where="rwth-i6/returnn Util.py compute_bleu (adapted from tensor2tensor) without `from __future__ import "
              "division` under Python 2: `precisions[i] = matches_by_order[i] / possible_matches_by_order[i]` and "
              "`ratio = translation_length / reference_length`, both ints, then `bp = math.exp(1 - 1. / ratio) if "
              "ratio < 1.0 else 1.0`; the fix ('small Python 2 fix for BLEU score') adds the import",
        symptom="small Python 2 fix for BLEU score",
        mechanism="integer (floor) division where true division was meant: each order's precision m // t is 0 "
                  "unless every n-gram matched (1 then), and the length ratio c // r is 0 for a hypothesis shorter "
                  "than its reference, so the brevity penalty's 1 / ratio raises ZeroDivisionError (as does "
                  "c // r for r = 0); orders whose counts the requested smoothing changed are floats and divide "
                  "truly",
        kind="combination", stage="combination",
        fits=("python2-integer-division", "precisions-integer-division", "precision-floored-to-integer",
              "integer-division-of-precisions", "length-ratio-floored")),
    # -- controls: a mechanism planted elsewhere under another citation ------------------------------------
    "precision-over-reference-ngram-count": RealBug(
        url="https://github.com/ondrejklejch/MT-ComparEval/commit/3a972909795350e7ff7ee5c129714bd34d391473",
        where="ondrejklejch/MT-ComparEval lib/NGram.pm add_sentence: `$self->_add_reference_ngrams( "
              "\\@reference_ngrams )`, so that `_count_geometric_average` divides the common n-grams (min of the "
              "two counts) by `$reference_ngrams_count`, the reference's n-grams; the fix passes "
              "`\\@machine_ngrams`",
        symptom="Bleu computation bug fixed",
        mechanism="each order's precision is the common n-grams (clipped, as counted) over the reference's number "
                  "of n-grams of that order, not the hypothesis's: recall in place of precision (one reference, "
                  "the tool's input; with several, the first reference's n-grams are the totals)",
        kind="counting", stage="counting",
        fits=("recall-instead-of-precision",),
        planted_twin="mutant_ngram_recall"),
    "overlap-counts-every-hypothesis-ngram": RealBug(
        url="https://github.com/EdinburghNLP/nematus/commit/9ba9c9c916cb349e3dafd47c4f42564793fbce93",
        where="EdinburghNLP/nematus nematus/metrics/sentence_bleu.py SentenceBleuReference.score (the sentence "
              "BLEU of its minimum risk training): `overlap = len([ngram for ngram in hyp_ngrams[n] if ngram in "
              "ref_ngrams[n]])` over the hypothesis's n-gram list; the fix ('fix BLEU: add clipping') sums "
              "`min(ref_ngram_count, hyp_ngrams[n-1][ref_ngram])`",
        symptom="fix BLEU: add clipping",
        mechanism="matches are not clipped: every hypothesis n-gram occurrence found in a reference counts, "
                  "however often it occurs there",
        kind="counting", stage="counting",
        fits=("unclipped-matches",),
        planted_twin="mutant_no_clipping"),
}


# -- the library: lengths, counting, combination ---------------------------------------------------------------


def _closest_first(lengths, target):
    """The first length closest to `target` (Python's `min` with a distance key keeps the first on a tie)."""
    return min(lengths, key=lambda x: abs(x - target))


class Heldout7Library(Library):
    """realbleu.py's library with one held-out bug of lengths, counting or combination switched on."""

    def segment_stats(self, references, hypothesis, order) -> Stats:
        stats = super().segment_stats(references, hypothesis, order)
        bug = self.bug
        if bug == "lengths-counted-in-characters":
            # MT-ComparEval before 234cbff: `length( $machine )`, the line's characters (tokens joined by spaces)
            c = len(" ".join(hypothesis))
            r = min((len(" ".join(reference)) for reference in references), key=lambda x: (abs(x - c), x))
            return Stats(c, r, stats.matches, stats.totals)
        if bug == "first-reference-length-and-pooled-reference-ngrams":
            # jBLEU before 0b3197d: `refs.get(0).size()`, and one multiset of every reference's n-grams
            matches = []
            for n in range(1, order + 1):
                pooled: Counter = Counter()
                for reference in references:
                    pooled.update(self.ngram_counts(reference, n))
                matches.append(sum(min(k, pooled[gram]) for gram, k in self.ngram_counts(hypothesis, n).items()))
            return Stats(stats.c, len(references[0]), matches, stats.totals)
        if bug == "precision-over-reference-ngram-count":
            # MT-ComparEval before 3a97290: the reference's n-grams as each order's total
            totals = [max(len(references[0]) - n + 1, 0) for n in range(1, order + 1)]
            return Stats(stats.c, stats.r, stats.matches, totals)
        if bug == "overlap-counts-every-hypothesis-ngram":
            # nematus before 9ba9c9c: `len([ngram for ngram in hyp_ngrams[n] if ngram in ref_ngrams[n]])`
            matches = []
            for n in range(1, order + 1):
                found = set()
                for reference in references:
                    found.update(self.ngram_counts(reference, n))
                matches.append(sum(k for gram, k in self.ngram_counts(hypothesis, n).items() if gram in found))
            return Stats(stats.c, stats.r, matches, stats.totals)
        return stats

    def corpus_stats(self, list_of_references, hypotheses, order) -> Stats:
        if self.bug != "closest-reference-to-running-hypothesis-length":
            return super().corpus_stats(list_of_references, hypotheses, order)
        # fastNLP before 77c255ad: the reference closest to `self.pred_len`, the running sum of hypothesis lengths
        total = Stats(0, 0, [0] * order, [0] * order)
        running = 0
        for references, hypothesis in zip(list_of_references, hypotheses, strict=False):
            stats = self.segment_stats(references, hypothesis, order)
            running += len(hypothesis)
            r = _closest_first([len(reference) for reference in references], running)
            total = total + Stats(stats.c, r, stats.matches, stats.totals)
        return total

    def brevity_penalty(self, c, r):
        if self.bug == "brevity-penalty-at-least-one":
            # jBLEU before 94c531c: Math.max(1.0, Math.exp(1.0 - r / c)); r / 0.0 is Infinity in Java
            return max(1.0, math.exp(1 - r / c)) if c else 1.0
        return super().brevity_penalty(c, r)

    def smoothed(self, stats: Stats, smoothing, last_hypothesis_length):
        m, t = super().smoothed(stats, smoothing, last_hypothesis_length)
        if self.bug == "brevity-penalty-at-least-one" and smoothing.get("method", "none") == "exp":
            # jBLEU before 94c531c: log(1.0 / (smooth / attempted)), the precision l_n / 2^k
            k = 0
            for i, (matched, total) in enumerate(zip(stats.matches, stats.totals, strict=True)):
                if total > 0 and matched == 0:
                    k += 1
                    m[i] = t[i] * t[i] / 2 ** k
        return m, t

    def bleu_from_stats(self, stats: Stats, weights, smoothing, last_hypothesis_length=0):
        if self.bug != "python2-integer-division":
            return super().bleu_from_stats(stats, weights, smoothing, last_hypothesis_length)
        # returnn before 6bbd563: `ratio = translation_length / reference_length` on ints under Python 2
        ratio = stats.c // stats.r  # ZeroDivisionError for r = 0, as Python 2's int division
        if ratio < 1:
            raise ZeroDivisionError("float division by zero")  # `1. / ratio` with ratio == 0
        m, t = self.smoothed(stats, smoothing, last_hypothesis_length)
        for i, (matched, total) in enumerate(zip(stats.matches, stats.totals, strict=True)):
            if total > 0 and (m[i], t[i]) == (float(matched), float(total)):  # ints the smoothing left alone
                m[i], t[i] = float(matched // total), 1.0
        return self.combine(m, t, weights), 1.0


class Heldout7Wrapper(Wrapper):
    """realbleu.py's wrapper over `Heldout7Library`."""

    def __init__(self, bug: str | None):
        super().__init__(bug)
        self.library = Heldout7Library(bug)


def main(argv=None):
    serve(argv, bugs=HELDOUT7_BUGS, make_wrapper=Heldout7Wrapper, prog="realbleu_heldout7")


if __name__ == "__main__":
    main()
