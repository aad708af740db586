#!/usr/bin/env python3
"""Eighth held-out real-bug BLEU: bugs from new sources, planted in realbleu.py's library and wrapper.

Issue 36, eighth held-out set: realbleu.py and the first seven held-out sets (`realbleu_heldout.py` ..
`realbleu_heldout7.py`) cite the repositories listed in benchmarks/README.md ("Eighth held-out set, blind"); this set
draws on BLEU written in other languages and in NMT tooling, in repositories none of them cites: a Julia metrics
package (AdarshKumar712/Metrics.jl), a TypeScript npm package (MENNA123MAHMOUD/bleu-score), a C++ evaluation tool
(odashi/mteval; the first held-out set cites another repository of the same author, odashi/nmtkit, not this one), an
NMT toolkit's evaluator (ufal/neuralmonkey) and a model zoo's accuracy checker (openvinotoolkit/open_model_zoo). A bug
counts when a diff shows the wrong code and its fix; `url` is the pull request that fixes it (Metrics.jl's is open:
the wrong code still stands on its default branch) or the fix commit where it was pushed without one. No thread here
is cited anywhere in the project (`oracle/`, `docs/`, `tests/`, `benchmarks/`, `cases/`, `baselines/`, `reports/`,
README, CHANGELOG; searched by URL, owner, repository name and the commit's hash prefix), with two things to know:
bleu-score is one of the project's peers (an npm adapter, `reports/implementations/bleu-score.md`, two curated
classes of its version 1.0.4), so its current code had been read; the bug here is version 1.0.1's, fixed in 1.0.3,
code that no longer stands. And neuralmonkey's multi-reference pull request (another thread) is cited in
oracle/diagnose/structure.py, so its evaluator had been read: this was missed when the first four bugs were
gathered (the docstring of the first pre-registration said no repository was cited) and found after their blind
run; neuralmonkey's bug here is a control, a 2016 fix of code that no longer stands, and no fit was changed.
`tokens-paired-into-character-segments` was gathered after the first blind run (of the first four bugs) and its
fits committed in a second pre-registration before its own run. `planted_twin` labels the two controls, before the
run: neuralmonkey's order without n-grams is realbleu.py's `fraction-zero-denominator` (`real:`), and mteval's zero
check before smoothing is a computation the catalogue names (`catalogue:any-order-unmatched-zero`, from a peer's
curated class) that no fake plants.
Each bug's `fits`, the cause names that would count as naming its mechanism (a catalogue name where the diff's
mechanism has one, else the name an ideal cause would have; a mechanism with two faces is fitted by both named
together or by one name for the whole, never by one face alone), were judged from the diff alone and committed
before any run of `check` on this fake.

Gathered and left out (read in their diffs; never by a guess at what the tool would name): neuralmonkey's
`true_positives += reference_counts[ngram]`, each distinct hypothesis n-gram credited with its reference count
unclipped (never fixed: no diff); neuralmonkey's earlier `minimum_reference_length` that never updates its infinite
start (`len(reference) > shortest_length`), so r is infinite and every score 0 (the protocol's statistics cannot
carry an infinite r), its `bp = min(1 - r/c, 0)` dividing by c = 0 (a third control, the error family's), its
multi-reference split appending each reference once per token (aliases of the same lists: no score changes) and its
self-critical sentence BLEU (arguments swapped and add-one on unigrams, two catalogue names at once); mteval's first
BLEU+k, the smoothing constant stored in an int array for every order (truncated, unigrams included: two catalogue
names, a third control); RaST-plus' strings passed to nltk's corpus_bleu (its issue is cited in
oracle/diagnose/structure.py: not held out); ketranm/tardis' BLEU.lua dividing the log sum by 4 over min(4, |ref|)
orders (tardis is cited in plantedbleu.py, and the fix's own rule, an effective order from the reference's length,
is itself a convention no clean twin has); e2e-metrics' mteval change that skips empty references in the closest
length (the clean twin's own convention is the pre-fix behaviour: no wrong score); VLMEvalKit's caption scorer
reporting `[x * 100 for x in scores]`, lists repeated a hundred times (no number to plant); fixes that change an
interface or an API call, not a score (Shoonya-Backend's sacrebleu call, the image-captioning tutorial's
`emulate_multibleu` argument, bigcode's CodeXGLUE port, continuous-eval's renaming); PaddleOCR's BLEU repair (the
repository is over the size that can be fetched here, its diff unread).

    python tests/fakes/realbleu_heldout8.py clean            # the control: correct under papineni
    python tests/fakes/realbleu_heldout8.py BUG              # one held-out bug (names in HELDOUT8_BUGS)
    python tests/fakes/realbleu_heldout8.py clean --no-stats # no statistics in the replies

Written without `oracle` (stdlib only). The library, the wrapper and the protocol loop are realbleu.py's (imported,
not copied): `Heldout8Library` switches on one bug each and otherwise defers to realbleu.py's library, so the clean
twin is realbleu.py's clean twin. Each plant is the diff's wrong code alone: the sources' other conventions
(Metrics.jl's shortest reference length and its optional add-one smoothing of every order; bleu-score's split on
" " that makes an empty text one empty token, its one reference, its uniform weights and its sentence level only;
mteval's one reference and its orders cut at the hypothesis's length; neuralmonkey's always-on halving smoothing of
a zero precision, its unclipped reference counts and its closest reference's tie kept on the first listed) are not
planted beside it; the clean twin's conventions (closest reference length, ties to the shorter, the request's
weights and smoothing, statistics summed over the corpus) stand for them. The mteval plant acts under add-k only,
the one smoothing its code had.
"""

from __future__ import annotations

import math

if __package__:  # imported as fakes.realbleu_heldout8 (the tests)
    from .realbleu import KINDS, Library, RealBug, Stats, Wrapper, answer
    from .realbleu import main as serve
else:  # run as a script: its directory is on sys.path
    from realbleu import KINDS, Library, RealBug, Stats, Wrapper, answer
    from realbleu import main as serve

__all__ = ["HELDOUT8_BUGS", "KINDS", "Heldout8Library", "Heldout8Wrapper", "answer", "main"]

HELDOUT8_BUGS: dict[str, RealBug] = {
    # -- counting ------------------------------------------------------------------------------------------
    "reference-counts-overwritten-and-missing-ngram-raises": RealBug(
        url="https://github.com/AdarshKumar712/Metrics.jl/pull/6",
        where="AdarshKumar712/Metrics.jl src/NLP_Metrics/bleu.jl bleu_score (Julia, a port of tensorflow/nmt's "
              "bleu.py): merging the references' n-gram counts, `for key in keys_union` (the union of the merged "
              "keys and this reference's) `try (b[key])` ... `catch error merged_ref_ngram_counts[key] = "
              "ref_ngrams[key] end`: `b` is defined nowhere, so every key takes the catch branch, which reads "
              "this reference's count unguarded; the pull request's diff replaces the loop by `get(merged, k, 0)` "
              "and a max",
        symptom="BLEU: added token and character based implementations of ngram.",
        mechanism="the references' n-gram counts (every order in one dictionary) are merged by overwriting: each "
                  "reference in turn sets every n-gram's count to its own, so clipping uses the last reference's "
                  "counts; and an n-gram of an earlier reference that a later reference lacks raises KeyError "
                  "(the catch branch indexes the later reference's counts). One-reference segments are right; "
                  "several references answer only where each one's n-grams are all in the next",
        kind="counting", stage="counting",
        fits=("reference-counts-overwritten-and-missing-ngram-raises",
              "reference-counts-overwritten-by-each-reference",
              "clipped-to-last-reference + error-when-an-earlier-reference-ngram-is-missing-from-a-later",
              "error-when-an-earlier-reference-ngram-is-missing-from-a-later + clipped-to-last-reference")),
    # -- combination ---------------------------------------------------------------------------------------
    "empty-order-precision-nan": RealBug(
        url="https://github.com/MENNA123MAHMOUD/bleu-score/commit/57bbea4eed20e68023c8892b2fda4f825d7a226e",
        where="MENNA123MAHMOUD/bleu-score ts/bleu.tsx bleu (TypeScript, the npm package bleu-score 1.0.1): "
              "`let totalPredictedNgrams = (candidateTokens.length - n + 1); precision[n - 1] = "
              "totalNgramMatches / totalPredictedNgrams;` then `Math.pow(precision.reduce((acc, p) => acc * p, "
              "1), 1 / maxN)`; the fix ('handle n-grams more than tokens') takes `totalPredictedNgrams > 0 ? "
              "totalNgramMatches / totalPredictedNgrams : 0`",
        symptom="handle n-grams more than tokens",
        mechanism="an order with no hypothesis n-grams (a hypothesis shorter than the order) has precision 0 / 0, "
                  "NaN in JavaScript, and the product of the precisions, so the score, is NaN where it is 0; "
                  "orders with n-grams are right",
        kind="combination", stage="combination",
        fits=("empty-order-precision-nan", "nan-when-an-order-has-no-ngrams", "zero-over-zero-precision-nan",
              "nan-when-hypothesis-shorter-than-order")),
    # -- structure (the second pre-registration: added after the first blind run, its fits committed before its own)
    "tokens-paired-into-character-segments": RealBug(
        url="https://github.com/openvinotoolkit/open_model_zoo/pull/1552",
        where="openvinotoolkit/open_model_zoo tools/accuracy_checker/accuracy_checker/metrics/machine_translation.py "
              "BilingualEvaluationUnderstudy.update (a t2t-style BLEU): `for (references, translation) in "
              "zip(reference_corpus, translation_corpus)` over `annotation.reference` and `prediction.translation`, "
              "each one sentence's token list (the WMT converter's `reference.split(\" \")`, the adapter's "
              "`_clean(...)`), so each pair is a reference token and a hypothesis token: `min(len(r) for r in "
              "references)` over the reference token's characters, `len(translation)` its characters, `_get_ngrams` "
              "the characters' n-grams; the pull request ('AC: change BLEU metric realisation') rewrites update to "
              "join each side's tokens and count the sentence's n-grams",
        symptom="AC: change BLEU metric realisation",
        mechanism="each segment's hypothesis tokens and (first) reference tokens are paired by position, up to the "
                  "shorter, and each pair is scored as a segment of characters: character n-grams of the "
                  "hypothesis token clipped by the reference token's, c the hypothesis token's characters, r 1 a "
                  "pair (the shortest 'reference', one character; an empty reference token raises ValueError)",
        kind="structure", stage="wrapper",
        fits=("tokens-paired-into-character-segments", "tokens-paired-by-position-as-character-segments",
              "hypothesis-and-reference-tokens-zipped-as-segments")),
    # -- controls: a mechanism the catalogue names or a fake plants under another citation --------------------
    "order-without-ngrams-returns-a-bare-number": RealBug(
        url="https://github.com/ufal/neuralmonkey/commit/4bc1f215c55f91aa5fb70803271119c169ac77b3",
        where="ufal/neuralmonkey neuralmonkey/evaluators/bleu.py BLEUEvaluator.modified_ngram_precision: `if "
              "corpus_generated_length == 0: return 1` where the other path returns `corpus_true_positives / "
              "corpus_generated_length, corpus_generated_length`, unpacked by `bleu` as `prec, gen_len = ...`; the "
              "fix ('bleu fix') returns `1, 0`",
        symptom="bleu fix",
        mechanism="an order for which no hypothesis of the corpus has an n-gram returns one number where a pair is "
                  "unpacked: TypeError (every order 1..N is computed, whatever its weight)",
        kind="errors", stage="combination",
        fits=("error-when-hypothesis-shorter-than-order", "error-when-hypothesis-empty"),
        planted_twin="real:fraction-zero-denominator"),
    "zero-match-check-before-add-k": RealBug(
        url="https://github.com/odashi/mteval/commit/138d2ea767f8cc905177220173d8a149702b743a",
        where="odashi/mteval src/lib/BLEUEvaluator.cc getCumulative (C++): `if (numerators_[n] == 0) return 0.0;` "
              "on the raw count, before `nn += smooth_; dd += smooth_;` (BLEU+k, orders 2 and up); the fix ('fix "
              "BLEU smoothing bug') tests `nn == 0.0` after the smoothing",
        symptom="fix BLEU smoothing bug",
        mechanism="under add-k smoothing, an order without any raw match makes the score 0, the check for a zero "
                  "numerator made before k is added (every order 1..N is checked, whatever its weight)",
        kind="smoothing", stage="smoothing",
        fits=("any-order-unmatched-zero",),
        planted_twin="catalogue:any-order-unmatched-zero"),
}


# -- the library: counting, smoothing and combination --------------------------------------------------------------


class Heldout8Library(Library):
    """realbleu.py's library with one held-out bug of counting, smoothing or combination switched on."""

    def _all_orders(self, tokens, order):
        """Metrics.jl's `get_ngrams`: the n-grams of every order 1..order in one dictionary."""
        counts: dict = {}
        for n in range(1, order + 1):
            counts.update(self.ngram_counts(tokens, n))
        return counts

    def segment_stats(self, references, hypothesis, order) -> Stats:
        stats = super().segment_stats(references, hypothesis, order)
        if self.bug != "reference-counts-overwritten-and-missing-ngram-raises":
            return stats
        # Metrics.jl before PR 6: each reference overwrites the merged counts; a key it lacks raises KeyError
        merged: dict = {}
        for reference in references:
            own = self._all_orders(reference, order)
            for key in [*merged, *own]:
                merged[key] = own[key]  # KeyError for an n-gram of an earlier reference missing from this one
        matches = [0] * order
        for key, k in self._all_orders(hypothesis, order).items():
            matches[len(key) - 1] += min(k, merged.get(key, 0))
        return Stats(stats.c, stats.r, matches, stats.totals)

    def bleu_from_stats(self, stats: Stats, weights, smoothing, last_hypothesis_length=0):
        order = len(weights)
        if self.bug == "order-without-ngrams-returns-a-bare-number" and 0 in stats.totals[:order]:
            # neuralmonkey before 4bc1f21: `return 1`, then `prec, gen_len = ...`
            raise TypeError("cannot unpack non-iterable int object")
        if (self.bug == "zero-match-check-before-add-k" and smoothing.get("method", "none") == "add-k"
                and 0 in stats.matches[:order]):
            # mteval before 138d2ea: `if (numerators_[n] == 0) return 0.0;` before the smoothing
            return 0.0, self.brevity_penalty(stats.c, stats.r)
        score, bp = super().bleu_from_stats(stats, weights, smoothing, last_hypothesis_length)
        if self.bug != "empty-order-precision-nan" or math.isnan(score):
            return score, bp
        # bleu-score 1.0.1: `totalNgramMatches / totalPredictedNgrams` with no n-grams is 0 / 0, NaN, and the
        # product of the precisions is NaN (an order of weight 0 is not in force under the request's weights)
        _, t = self.smoothed(stats, smoothing, last_hypothesis_length)
        if any(w != 0 and total == 0 for w, total in zip(weights, t, strict=False)):
            return math.nan, bp
        return score, bp


class Heldout8Wrapper(Wrapper):
    """realbleu.py's wrapper over `Heldout8Library`."""

    def __init__(self, bug: str | None):
        super().__init__(bug)
        self.library = Heldout8Library(bug)

    def score(self, hypotheses, list_of_references, weights, smoothing, level):
        if self.bug != "tokens-paired-into-character-segments":
            return super().score(hypotheses, list_of_references, weights, smoothing, level)
        # open_model_zoo's accuracy checker before PR 1552: `zip(reference_corpus, translation_corpus)` over one
        # sentence's tokens; the tool took one reference, the first of several here
        lib, order = self.library, len(weights)
        total = Stats(0, 0, [0] * order, [0] * order)
        for hypothesis, references in zip(hypotheses, list_of_references, strict=True):
            for reference_token, hypothesis_token in zip(references[0], hypothesis, strict=False):
                r = min(len(character) for character in reference_token)  # 1; ValueError for ""
                pair = lib.segment_stats([list(reference_token)], list(hypothesis_token), order)
                total = total + Stats(len(hypothesis_token), r, pair.matches, pair.totals)
        score, bp = lib.bleu_from_stats(total, weights, smoothing)
        return score, bp, total


def main(argv=None):
    serve(argv, bugs=HELDOUT8_BUGS, make_wrapper=Heldout8Wrapper, prog="realbleu_heldout8")


if __name__ == "__main__":
    main()
