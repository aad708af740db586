#!/usr/bin/env python3
"""Held-out real-bug BLEU: more bugs from public trackers, planted in realbleu.py's library and wrapper, protocol v1.

Issue 36, held-out set: the 30 bugs of `realbleu.py` have been seen by the people who write mechanisms, so they no
longer measure whether root-cause names generalise. The bugs in `HELDOUT_BUGS` were gathered afterwards from other
public issue and pull-request threads (`url`), none of them a thread cited in `realbleu.py`, `plantedbleu.py`, the
`mutant_*.py` fakes, nor anywhere in `oracle/`, `docs/` or `benchmarks/` when they were gathered; `planted_twin`
names the few whose *mechanism* is planted in a fake under another citation (controls). Each bug's `fits`, the
cause names that would count as naming its mechanism (a catalogue name where one exists, else the name an ideal
cause would have), were judged and committed before any run of `check` on this fake.

    python tests/fakes/realbleu_heldout.py clean            # the control: correct under papineni
    python tests/fakes/realbleu_heldout.py BUG              # one held-out bug (names in HELDOUT_BUGS)
    python tests/fakes/realbleu_heldout.py clean --no-stats # no statistics in the replies

Written without `oracle` (stdlib only). The library, the wrapper and the protocol loop are realbleu.py's (imported,
not copied): `HeldoutLibrary` and `HeldoutWrapper` switch on one held-out bug each and otherwise defer to them, so
the clean twin is realbleu.py's clean twin.
"""

from __future__ import annotations

import math
import random
from collections import Counter
from math import gcd

if __package__:  # imported as fakes.realbleu_heldout (the tests)
    from .realbleu import KINDS, Library, RealBug, Wrapper, answer
    from .realbleu import main as serve
else:  # run as a script: its directory is on sys.path
    from realbleu import KINDS, Library, RealBug, Wrapper, answer
    from realbleu import main as serve

__all__ = ["HELDOUT_BUGS", "KINDS", "HeldoutLibrary", "HeldoutWrapper", "answer", "main"]

HELDOUT_BUGS: dict[str, RealBug] = {
    # -- tokens changed before counting --------------------------------------------------------------------
    "oov-tokens-as-unk": RealBug(
        url="https://github.com/odashi/nmtkit/issues/3",
        where="odashi/nmtkit train.cc evaluateBLEU (BLEU on word IDs during training)",
        symptom="just compare hypothesis and target word IDs, which are including <unk> ... if I set the source "
                "and target vocabulary size to 4, I can get really high BLEU score because almost all of the "
                "words are <unk>",
        mechanism="BLEU is computed on vocabulary ids: every token outside a small vocabulary (here the 4 most "
                  "frequent reference tokens of the request) becomes <unk> on both sides, and <unk> matches <unk>",
        kind="text", stage="tokens",
        fits=("tokens-outside-vocabulary-as-unk", "out-of-vocabulary-as-unk")),
    "bpe-kept-on-hypotheses": RealBug(
        url="https://github.com/yandexdataschool/nlp_course/pull/68",
        where="yandexdataschool/nlp_course week04 seq2seq notebook: compute_bleu on the model's translations",
        symptom="remove BPE symbol when computing BLUE score ... missed this procedure for actual translations",
        mechanism="the hypotheses are scored in their BPE-segmented form (subword-nmt's '@@ ' marks kept) against "
                  "references in words: here every hypothesis token of four or more characters is split into its "
                  "first two characters marked with @@ and the rest",
        kind="text", stage="tokens",
        fits=("hypotheses-bpe-segmented", "bpe-marks-kept-on-hypotheses")),
    "blank-reference-one-token": RealBug(
        url="https://github.com/promptfoo/promptfoo/pull/10411",
        where="promptfoo src/assertions/bleu.ts calculateBleuScore",
        symptom="an array that *contains* an empty string passes the guard. `tokenize('')` then yields `['']` ... "
                "The reference side never got the same treatment",
        mechanism="a blank reference is split into one empty token (''.split(' ') is ['']): its length is 1, not 0, "
                  "and its one n-gram is the empty token (the hypothesis side is guarded)",
        kind="text", stage="tokens",
        fits=("empty-text-one-token", "empty-reference-one-token")),
    # -- input structure --------------------------------------------------------------------------------------
    "hypotheses-shuffled": RealBug(
        url="https://github.com/asyml/texar-pytorch/issues/155",
        where="asyml/texar-pytorch examples/transformer test decoding (dataset hparams shuffle=True)",
        symptom="During testing, reference file follows original order, but model's output has been shuffled. "
                "(got a blue score 0.53)",
        mechanism="the hypotheses come out of a shuffled data loader and are scored against the references in "
                  "their original order (here a fixed permutation seeded by the corpus size)",
        kind="structure", stage="wrapper",
        fits=("hypotheses-shuffled", "hypotheses-misaligned-with-references")),
    "empty-samples-skipped": RealBug(
        url="https://github.com/modelscope/ms-swift/pull/9962",
        where="modelscope/ms-swift swift/metrics/nlg.py compute_rouge_bleu",
        symptom="`compute_rouge_bleu` currently skips a sample whenever either its prediction or reference is "
                "empty ... removes the failed generation from the metric denominator and inflates the aggregate",
        mechanism="a segment whose hypothesis or (first) reference is empty is left out of the corpus (ms-swift "
                  "averages per-sample scores; the fake keeps corpus statistics, so only the skipping is planted)",
        kind="structure", stage="wrapper",
        fits=("empty-hypotheses-dropped", "segments-with-empty-text-dropped"),
        planted_twin="drop-empty-hypotheses"),
    # -- counting ----------------------------------------------------------------------------------------
    "ngram-keys-concatenated": RealBug(
        url="https://github.com/d2l-ai/d2l-en/pull/1981",
        where="d2l-ai/d2l-en d2l.bleu (label_subs[''.join(label_tokens[i: i + n])])",
        symptom="BLEU Calculation was buggy before. The match should be made after joining with spaces.",
        mechanism="an n-gram is keyed by its tokens joined with no separator, so ('ab', 'c') matches ('a', 'bc')",
        kind="counting", stage="counting",
        fits=("ngram-keys-concatenated",),
        planted_twin="join-concat"),
    "reference-ngram-recall": RealBug(
        url="https://github.com/k4black/codebleu/issues/85",
        where="k4black/codebleu weighted_ngram_match.py modified_recall",
        symptom="it looks like that weighted n-gram match uses n-gram recall in its calculations while regular "
                "BLEU uses precision",
        mechanism="per order, the clipped counts are summed over every reference (min of reference and hypothesis "
                  "count per reference n-gram) and divided by the references' n-gram counts (each at least 1), "
                  "summed over the references: recall against each reference, not precision",
        kind="counting", stage="counting",
        fits=("recall-instead-of-precision", "reference-ngram-counts-as-totals")),
    "fraction-normalised": RealBug(
        url="https://github.com/nltk/nltk/pull/1319",
        where="nltk.translate.bleu_score _modified_precision / corpus_bleu (2016)",
        symptom="Fixed the issue of the denominator always being 1 if the numerator is 0, as Python normalizes "
                "fractions by default. This affects smoothing methods 3 and 4.",
        mechanism="each segment's (matches, total) is a normalised Fraction: reduced by their gcd, 0/l becoming 0/1, "
                  "before the corpus sums; so a smoothed count of an unmatched order is divided by 1, not by its "
                  "total, and summed counts are of reduced fractions",
        kind="counting", stage="counting",
        fits=("smoothed-value-as-precision", "precision-fractions-normalised", "counts-reduced-by-their-gcd")),
    # -- lengths -------------------------------------------------------------------------------------------
    "reference-length-of-pair": RealBug(
        url="https://github.com/k4black/codebleu/issues/52",
        where="k4black/codebleu weighted_ngram_match.py corpus_bleu -> closest_ref_length",
        symptom="Your 'references' object in the weighted ngram match score includes a list of references and a "
                "list of weights. As you pass this wholecloth into the closest_ref_length function ... the brevity "
                "penalty degenerates.",
        mechanism="each reference is a [tokens, keyword-weights] pair and its length is taken with len(): every "
                  "reference length is 2, so r is 2 per segment",
        kind="structure", stage="lengths",
        fits=("reference-length-of-a-pair", "reference-length-constant-2")),
    "shortest-reference-length": RealBug(
        url="https://github.com/shenxiangzhuang/bleuscore/pull/125",
        where="shenxiangzhuang/bleuscore compute_score (issue #30: 'Different results with sacrebleu')",
        symptom="The difference comes from how each library selects the reference length for brevity penalty "
                "calculation: HuggingFace: uses the shortest reference length; SacreBLEU: uses the closest",
        mechanism="r is the length of each segment's shortest reference, not of the one closest to the hypothesis "
                  "(huggingface evaluate's and tensorflow/nmt's compute_bleu, which bleuscore had followed)",
        kind="conventions", stage="lengths",
        fits=("reference_length=shortest",),
        planted_twin="ref-len-shortest"),
    # -- combination: how the precisions become a score ----------------------------------------------------
    "empty-order-skipped": RealBug(
        url="https://github.com/tracel-ai/burn/pull/4937",
        where="tracel-ai/burn crates/burn-train/src/metric/bleu.rs corpus_bleu (review of the PR's first version)",
        symptom="if total == 0 { // No n-grams of this order in candidate (sequence too short). // Skip this order "
                "entirely instead of returning 0. continue; } ... Hmm wouldn't this inflate the scores?",
        mechanism="an order without hypothesis n-grams is left out and the geometric mean is taken over the orders "
                  "counted (the remaining weights renormalised)",
        kind="conventions", stage="combination",
        fits=("empty_order=skip",)),
    "zero-precision-terms-skipped": RealBug(
        url="https://github.com/UCSD-AI4H/PathVQA/issues/3",
        where="UCSD-AI4H/PathVQA Evaluation script/evaluation_script.py calculate_bleu",
        symptom="if pn[i] != 0: sum_wlogp += float(weights[i]) * math.log(pn[i]) ... We evaluate the score when the "
                "modified precision is not zero. It's meaningless to calculate the zero stuation.",
        mechanism="an order whose precision is 0 adds nothing to the weighted log sum (weights unchanged), so it "
                  "raises the score instead of zeroing it; with every precision 0 the score is BP",
        kind="combination", stage="combination",
        fits=("zero-precision-dropped",),
        planted_twin="zero-match-orders-skipped"),
    "brevity-penalty-applied-twice": RealBug(
        url="https://github.com/nyu-dl/dl4mt-simul-trans/issues/1",
        where="nyu-dl/dl4mt-simul-trans bleu.py corpus_bleu (bleup = bleu * bp; return bleu, bp * bleup)",
        symptom="Why are you multiplying BP twice here?",
        mechanism="the score is BP x BP x the geometric mean: the brevity penalty is applied twice",
        kind="combination", stage="combination",
        fits=("brevity-penalty-squared", "brevity-penalty-applied-twice"),
        planted_twin="mutant_bp_applied_twice"),
    # -- errors --------------------------------------------------------------------------------------------
    "empty-hypothesis-raises": RealBug(
        url="https://github.com/promptfoo/promptfoo/pull/9841",
        where="promptfoo src/assertions/bleu.ts calculateBleuScore guard",
        symptom="`if (!candidate || references.length === 0 || weights.length !== 4) { throw new Error('Invalid "
                "inputs'); }` treats `\"\"` as invalid because empty string is falsy in JavaScript",
        mechanism="an empty hypothesis is refused with an exception ('Invalid inputs') instead of being scored",
        kind="errors", stage="wrapper",
        fits=("error-when-hypothesis-empty",)),
    "log-of-zero-precision-raises": RealBug(
        url="https://github.com/nltk/nltk/issues/1241",
        where="nltk.align.bleu_score bleu (January 2016)",
        symptom="the summation of BLEU gives `ValueError` because of `log(0)`",
        mechanism="w_n log p_n is summed over every order, weight 0 included, without a guard: any order whose "
                  "precision is 0 (no match, or no n-grams) raises ValueError (math domain error)",
        kind="errors", stage="combination",
        fits=("error-when-precision-zero", "error-when-an-order-unmatched", "log-of-zero-precision-raises")),
}


# -- the library: counting, lengths and combination bugs -------------------------------------------------------

#: Bugs of the score stage (`HeldoutLibrary.combine`): the statistics are right, the precisions combine otherwise.
COMBINE_BUGS = ("empty-order-skipped", "zero-precision-terms-skipped", "log-of-zero-precision-raises")


class HeldoutLibrary(Library):
    """realbleu.py's library with one held-out bug of counting, lengths or combination switched on."""

    def ngram_counts(self, tokens, n):
        if self.bug == "ngram-keys-concatenated":
            # d2l: label_subs[''.join(label_tokens[i: i + n])]
            return Counter("".join(tokens[i:i + n]) for i in range(len(tokens) - n + 1))
        return super().ngram_counts(tokens, n)

    def modified_precision(self, references, hypothesis, n):
        if self.bug == "reference-ngram-recall":
            return self._recall(references, hypothesis, n)
        matched, total = super().modified_precision(references, hypothesis, n)
        if self.bug == "fraction-normalised" and total:
            # nltk 2016: Fraction(numerator, denominator) without _normalize=False, then .numerator and
            # .denominator summed over the corpus: 0/l is 0/1, 2/4 is 1/2
            divisor = gcd(matched, total)
            return matched // divisor, total // divisor
        return matched, total

    def _recall(self, references, hypothesis, n):
        """codebleu's modified_recall: per reference, its n-grams clipped by the hypothesis's counts, over the
        reference's own n-gram count (at least 1); both summed over the references."""
        counts = self.ngram_counts(hypothesis, n)
        numerator = denominator = 0
        for reference in references:
            reference_counts = self.ngram_counts(reference, n)
            numerator += sum(min(k, counts[gram]) for gram, k in reference_counts.items())
            denominator += max(1, sum(reference_counts.values()))
        return numerator, denominator

    def closest_ref_length(self, references, c):
        if self.bug == "reference-length-of-pair":
            return min(len([reference, {}]) for reference in references)  # len([tokens, weights]) is 2
        if self.bug == "shortest-reference-length":
            return min(len(reference) for reference in references)
        return super().closest_ref_length(references, c)

    def combine(self, m, t, weights):
        if self.bug not in COMBINE_BUGS:
            return super().combine(m, t, weights)
        precisions = [m[n] / t[n] if t[n] else 0.0 for n in range(len(weights))]
        if self.bug == "log-of-zero-precision-raises":
            # nltk.align.bleu_score (Jan 2016): math.fsum(w * math.log(p_n) for w, p_n in zip(weights, p_ns))
            return math.exp(math.fsum(w * math.log(p) for w, p in zip(weights, precisions, strict=True)))
        if self.bug == "zero-precision-terms-skipped":
            # PathVQA: if pn[i] != 0: sum_wlogp += float(weights[i]) * math.log(pn[i])
            return math.exp(math.fsum(w * math.log(p) for w, p in zip(weights, precisions, strict=True) if p))
        # empty-order-skipped -- burn's first version: an order without n-grams is `continue`d and the mean of the
        # logs taken over the orders counted (its weights are uniform); with the request's weights, those of the
        # orders counted are scaled up to the weights' total, so that nothing changes where no order is left out
        kept = [(w, p) for w, p, total in zip(weights, precisions, t, strict=True) if total and w]
        if not kept or any(p == 0 for _, p in kept):
            return 0.0
        scale = math.fsum(weights) / math.fsum(w for w, _ in kept)
        return math.exp(math.fsum(w * scale * math.log(p) for w, p in kept))

    def bleu_from_stats(self, stats, weights, smoothing, last_hypothesis_length=0):
        score, bp = super().bleu_from_stats(stats, weights, smoothing, last_hypothesis_length)
        if self.bug == "brevity-penalty-applied-twice":
            return score * bp, bp  # dl4mt-simul-trans: bleup = bleu * bp; return bleu, bp * bleup
        return score, bp


# -- the wrapper: tokens and input structure ---------------------------------------------------------------------

#: nmtkit's vocabulary size in the issue's example ("if I set the source and target vocabulary size to 4")
VOCABULARY_SIZE = 4


def _as_vocabulary_ids(hypotheses, list_of_references):
    """Every token outside the vocabulary (the VOCABULARY_SIZE most frequent reference tokens of the request,
    ties to the first seen) read as <unk>, on both sides: ids compared, not words."""
    frequency = Counter(token for group in list_of_references for reference in group for token in reference)
    vocabulary = {token for token, _ in frequency.most_common(VOCABULARY_SIZE)}

    def ids(tokens):
        return [token if token in vocabulary else "<unk>" for token in tokens]

    return [ids(h) for h in hypotheses], [[ids(r) for r in group] for group in list_of_references]


def _bpe(tokens):
    """subword-nmt's form: a token of four or more characters split into its first two characters marked @@ and
    the rest (the notebook's BPE codes are not known; any segmentation with marks left on shows the bug)."""
    out = []
    for token in tokens:
        out.extend([token[:2] + "@@", token[2:]] if len(token) >= 4 else [token])
    return out


class HeldoutWrapper(Wrapper):
    """realbleu.py's wrapper over `HeldoutLibrary`, with one held-out bug of tokens or input structure switched on."""

    def __init__(self, bug: str | None):
        super().__init__(bug)
        self.library = HeldoutLibrary(bug)

    def score(self, hypotheses, list_of_references, weights, smoothing, level):
        """(score, bp, stats) for the segments of a request."""
        bug = self.bug
        if bug == "empty-hypothesis-raises" and any(not h for h in hypotheses):
            raise ValueError("Invalid inputs")  # promptfoo: `if (!candidate || ...) throw new Error('Invalid inputs')`
        if bug == "oov-tokens-as-unk":
            hypotheses, list_of_references = _as_vocabulary_ids(hypotheses, list_of_references)
        elif bug == "bpe-kept-on-hypotheses":
            hypotheses = [_bpe(h) for h in hypotheses]
        elif bug == "blank-reference-one-token":
            list_of_references = [[r or [""] for r in group] for group in list_of_references]
        elif bug == "hypotheses-shuffled":
            order = list(range(len(hypotheses)))
            random.Random(len(order)).shuffle(order)
            hypotheses = [hypotheses[i] for i in order]
        elif bug == "empty-samples-skipped":
            kept = [i for i, (h, group) in enumerate(zip(hypotheses, list_of_references, strict=True))
                    if h and group[0]]  # ms-swift: `if not pred or not label: continue`
            hypotheses, list_of_references = [hypotheses[i] for i in kept], [list_of_references[i] for i in kept]
        return super().score(hypotheses, list_of_references, weights, smoothing, level)


def main(argv=None):
    serve(argv, bugs=HELDOUT_BUGS, make_wrapper=HeldoutWrapper, prog="realbleu_heldout")


if __name__ == "__main__":
    main()
