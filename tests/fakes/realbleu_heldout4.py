#!/usr/bin/env python3
"""Fourth held-out real-bug BLEU: more bugs from public trackers, planted in realbleu.py's library and wrapper.

Issue 36, fourth held-out set: the first three held-out sets (`realbleu_heldout.py`, `realbleu_heldout2.py`,
`realbleu_heldout3.py`) have been measured and are being spent on mechanisms, so the next blind measure of whether
root-cause names generalise needs bugs nobody in the project has seen. The bugs in `HELDOUT4_BUGS` were gathered from
public issue and pull-request threads (`url`) that nothing in the project cited when they were gathered (`oracle/`,
`docs/`, `tests/`, `benchmarks/`, `cases/`, `baselines/`, `reports/`, README, CHANGELOG; searched by URL, by
`owner/name#N` and by the repository's short name with the number), and none is one of the bugs of the earlier
collections. `planted_twin` names the few whose *mechanism* is planted in a fake under another citation (controls, at
most 3). Each bug's `fits`, the cause names that would count as naming its mechanism (a catalogue name where the
thread's mechanism has one, else the name an ideal cause would have), were judged from the thread alone and committed
before any run of `check` on this fake.

    python tests/fakes/realbleu_heldout4.py clean            # the control: correct under papineni
    python tests/fakes/realbleu_heldout4.py BUG              # one held-out bug (names in HELDOUT4_BUGS)
    python tests/fakes/realbleu_heldout4.py clean --no-stats # no statistics in the replies

Written without `oracle` (stdlib only). The library, the wrapper and the protocol loop are realbleu.py's (imported,
not copied): `Heldout4Library` and `Heldout4Wrapper` switch on one bug each and otherwise defer to them, so the
clean twin is realbleu.py's clean twin.
"""

from __future__ import annotations

import math
import sys

if __package__:  # imported as fakes.realbleu_heldout4 (the tests)
    from .realbleu import KINDS, Library, RealBug, Stats, Wrapper, answer
    from .realbleu import main as serve
else:  # run as a script: its directory is on sys.path
    from realbleu import KINDS, Library, RealBug, Stats, Wrapper, answer
    from realbleu import main as serve

__all__ = ["HELDOUT4_BUGS", "KINDS", "Heldout4Library", "Heldout4Wrapper", "answer", "main"]

HELDOUT4_BUGS: dict[str, RealBug] = {
    # -- input structure -----------------------------------------------------------------------------------
    "texts-split-into-sentences-and-paired": RealBug(
        url="https://github.com/vibrantlabsai/ragas/pull/1744",
        where="vibrantlabsai/ragas BleuScore (NLTK era, replaced by this PR): the response and the reference are each "
              "split into sentences by a segmenter, and `corpus_bleu([[ref_sentence] ...], [response_sentence ...])` "
              "pairs the i-th response sentence with the i-th reference sentence; ragas averages the samples' scores",
        symptom="only 20% of my attempts to compute BLEU return a score because the number of candidate and reference "
                "sentences are not the same, a requirement of NLTK's implementation",
        mechanism="each hypothesis and each reference is cut into sentences (after every token ending in '.', '!' or "
                  "'?'); the hypothesis's i-th sentence is scored against the references' i-th sentences as one "
                  "corpus, a ValueError is raised when a reference has another number of sentences than the "
                  "hypothesis, and the request's score is the mean of its segments' scores (weights and smoothing "
                  "as sent)",
        kind="structure", stage="wrapper",
        fits=("texts-split-into-sentences-and-paired", "sentences-paired-by-position",
              "error-when-sentence-counts-differ")),
    # -- combination: how the precisions become a score ----------------------------------------------------
    "weights-by-hypothesis-length": RealBug(
        url="https://github.com/jina-ai/jina-hub/pull/462",
        where="jina-ai/jina-hub evaluators/text/BleuEvaluator as merged (the PR's last commit; the review thread "
              "shows an earlier version choosing them by the number of overlapping n-grams): `get_score("
              "actual_list, [desired_list], len(actual_list))`, nltk sentence_bleu with weights and smoothing chosen "
              "by that length, and no weights parameter; Jina averages the documents' scores",
        symptom="#Check the n-gram and reset the weights accordingly ... weights = (0, 0, 1, 0), "
                "smoothing_function=SmoothingFunction().method4) ... #otherwise use standard weights (0.25, 0.25, "
                "0.25, 0.25) and no Smoothin function ... is there any reference that explains this logic here?",
        mechanism="the weights sent are never used: a hypothesis of 1 token is scored with weights (1, 0, 0, 0) and "
                  "nltk's method1 (0.1 for an unmatched order), 2 tokens with (0.5, 0.5, 0, 0) and method2 (1 added "
                  "to the matches and totals of every order), 3 tokens with (0.33, 0.33, 0.33, 0) and method3 (1/2^k "
                  "for the k-th unmatched order), 4 or more with (0.25, 0.25, 0.25, 0.25) and no smoothing; no "
                  "unigram match scores 0; the request's score is the mean of its segments' sentence scores",
        kind="combination", stage="combination",
        fits=("weights-chosen-by-hypothesis-length", "weights-not-passed-on", "order-fixed-at-4")),
    "last-segment-sentence-bleu-reported": RealBug(
        url="https://github.com/sillsdev/silnlp/issues/842",
        where="sillsdev/silnlp silnlp/nmt/test.py score_pair: `bleu_score = sacrebleu.corpus_bleu(...)`, then the "
              "m-BLEU loop assigns `bleu_score = sentence_bleu(sentence, references, ...)` for every sentence, and "
              "the reported BLEU is read from `bleu_score` after it",
        symptom="Support for the m-BLEU score is overwriting the BLEU score. Both scoring calculations are storing "
                "their result in the bleu_score variable. Since m-BLEU is calculated after BLEU in the score_pair "
                "method, the BLEU score is being overwritten",
        mechanism="the corpus BLEU reported (score and statistics) is the last segment's sentence BLEU: sacrebleu's "
                  "sentence_bleu, exp smoothing (1/2^k over the order's total for the k-th unmatched order) and the "
                  "effective order (orders from the first one without hypothesis n-grams left out, the weights of "
                  "the others renormalised)",
        kind="combination", stage="output",
        fits=("last-segment-score-reported", "last-segment-sentence-bleu-reported")),
    # -- tokens --------------------------------------------------------------------------------------------
    "characters-in-sentence-bleu": RealBug(
        url="https://github.com/hiyouga/LlamaFactory/pull/4877",
        where="hiyouga/LlamaFactory src/llamafactory/train/sft/metric.py ComputeSimilarity: `sentence_bleu("
              "[list(label)], list(pred), smoothing_function=SmoothingFunction().method3)` per sample, averaged",
        symptom="The current argument passed to `sentence_bleu` is a list of individual Chinese characters ... For "
                "English data ... the current argument passed to `sentence_bleu` is a list of English letters instead "
                "of words",
        mechanism="each hypothesis and reference text (its tokens joined by spaces) is passed as a string, so every "
                  "character, spaces included, is a token; each segment is scored by sentence BLEU with nltk's "
                  "method3 (1/2^k over the order's total for the k-th unmatched order, an order without n-grams "
                  "included), and the request's score is the mean of the segments' scores (planted with the weights "
                  "sent where the code keeps nltk's default four quarters, and without its x100 and rounding to 4 "
                  "decimals: the thread is about the tokens)",
        kind="text", stage="tokens",
        fits=("text-read-as-characters", "characters-as-tokens")),
    # -- controls: a mechanism planted elsewhere under another citation ------------------------------------
    "reference-tokens-as-reference-list": RealBug(
        url="https://github.com/obss/jury/pull/74",
        where="obss/jury BleuForLanguageGeneration._compute_single_pred_single_ref: the tokenized references passed "
              "as they are to tensorflow/nmt's compute_bleu (this PR adds `references = [[r] for r in references]`); "
              "the multi-reference path was shaped right",
        symptom="The wrapped function expects a slightly different reference structure than the one we give in "
                "the Single Ref-Pred method. A small structure change fixes the issue.",
        mechanism="when every segment has one reference, that reference's token list is passed as the segment's "
                  "list of references: each token is a reference, read as the sequence of its characters; requests "
                  "with several references on a segment are scored right",
        kind="structure", stage="wrapper",
        fits=("reference-tokens-as-references",),
        planted_twin="reference-tokens-as-references"),
    "weighted-ngram-recall": RealBug(
        url="https://github.com/microsoft/CodeXGLUE/issues/191",
        where="microsoft/CodeXGLUE CodeBLEU weighted_ngram_match.py modified_recall (for a snippet without keywords "
              "every weight is 1)",
        symptom="it looks like that weighted n-gram match uses n-gram recall in its calculations while regular BLEU "
                "uses precision",
        mechanism="per order, each reference's n-grams are clipped by their count in the hypothesis and summed over "
                  "the references, over the references' own n-gram counts (each at least 1) summed: recall, not "
                  "precision",
        kind="counting", stage="counting",
        fits=("recall-instead-of-precision", "reference-ngram-counts-as-totals"),
        planted_twin="mutant_ngram_recall"),
    "one-token-corpus-chen-cherry-4-crash": RealBug(
        url="https://github.com/thu-coai/cotk/pull/72",
        where="thu-coai/cotk BleuCorpusMetric over nltk's corpus_bleu with a smoothing function built on method4, "
              "whose `incvnt = i + 1 * self.k / math.log(hyp_len)` takes hyp_len, the corpus's hypothesis length",
        symptom="Bleu will bugged when there is only one sample and its length is 1 (Reference Issues: #41: "
                "BleuMetric will crashed when len(hypothesis) == 1? possible because of smoothingFunction?)",
        mechanism="chen-cherry-4 divides by ln(c), c the corpus's hypothesis length, guarded against c = 0 only: a "
                  "corpus of one token with an unmatched order raises ZeroDivisionError",
        kind="errors", stage="smoothing",
        fits=("error-when-smoothing-chen-cherry-4-and-hypothesis-one-token",
              "error-when-hypothesis-one-token-and-smoothing-chen-cherry-4", "error-when-smoothing-chen-cherry-4"),
        planted_twin="realbleu:chen-cherry-4-log-one"),
}


# -- the library: counting ---------------------------------------------------------------------------------------


class Heldout4Library(Library):
    """realbleu.py's library with one held-out bug of counting or smoothing switched on."""

    def smoothed(self, stats, smoothing, last_hypothesis_length):
        if (self.bug == "one-token-corpus-chen-cherry-4-crash" and smoothing.get("method") == "chen-cherry-4"
                and stats.c == 1 and not all(stats.matches)):
            # nltk 3.4 method4: `if p_i.numerator == 0 and hyp_len != 0: incvnt = i + 1 * self.k /
            # math.log(hyp_len)`, an order without n-grams counted 0/1 as well: ln(1) = 0 is divided by
            raise ZeroDivisionError("float division by zero")
        return super().smoothed(stats, smoothing, last_hypothesis_length)

    def modified_precision(self, references, hypothesis, n):
        if self.bug == "weighted-ngram-recall":
            return self._reference_recall(references, hypothesis, n)
        return super().modified_precision(references, hypothesis, n)

    def _reference_recall(self, references, hypothesis, n):
        """CodeBLEU's modified_recall: each reference's n-grams clipped by the hypothesis's counts, over the
        reference's own n-gram count (at least 1), both summed over the references."""
        counts = self.ngram_counts(hypothesis, n)
        matched = total = 0
        for reference in references:
            own = self.ngram_counts(reference, n)
            matched += sum(min(k, counts[gram]) for gram, k in own.items())
            total += max(1, sum(own.values()))
        return matched, total


# -- sentence scores of the wrappers ---------------------------------------------------------------------------

#: nltk 3.5's method1 epsilon
METHOD1_EPSILON = 0.1
#: jina's BleuEvaluator: (weights, smoothing) by the hypothesis's length in tokens; 4 or more: the last entry
JINA_WEIGHTS = {1: ((1.0, 0.0, 0.0, 0.0), "method1"), 2: ((0.5, 0.5, 0.0, 0.0), "method2"),
                3: ((0.33, 0.33, 0.33, 0.0), "method3"), 4: ((0.25, 0.25, 0.25, 0.25), "method0")}


def _smoothed_precisions(matches, totals, method):
    """nltk 3.5's smoothing functions over the precisions m/max(1, t) of every order (an order without n-grams has
    the precision 0/1, as nltk's `Fraction(numerator, max(1, denominator))`)."""
    denominators = [max(1, t) for t in totals]
    if method == "method2":  # 1 added to the numerator and the denominator of every order, unigrams included
        return [(m + 1) / (d + 1) for m, d in zip(matches, denominators, strict=True)]
    precisions, k = [], 0
    for m, d in zip(matches, denominators, strict=True):
        if m:
            precisions.append(m / d)
        elif method == "method1":
            precisions.append(METHOD1_EPSILON / d)
        elif method == "method3":
            k += 1
            precisions.append(1 / (2 ** k * d))
        else:  # method0: nltk 3.5 keeps a zero precision out of the logarithm as the smallest float
            precisions.append(sys.float_info.min)
    return precisions


def _nltk_sentence_bleu(lib, references, hypothesis, weights, method):
    """nltk 3.5's sentence_bleu with these weights and smoothing: 0 without a unigram match, else BP times the
    weighted geometric mean of the smoothed precisions (a zero weight adds nothing)."""
    stats = lib.segment_stats(references, hypothesis, len(weights))
    if not stats.matches[0]:
        return 0.0  # corpus_bleu: `if p_numerators[1] == 0: return 0`
    precisions = _smoothed_precisions(stats.matches, stats.totals, method)
    log_mean = math.fsum(w * math.log(p) for w, p in zip(weights, precisions, strict=True) if w)
    return lib.brevity_penalty(stats.c, stats.r) * math.exp(log_mean)


def _jina_score(lib, references, hypothesis):
    """jina's BleuEvaluator.get_score: weights and smoothing chosen by the hypothesis's length."""
    weights, method = JINA_WEIGHTS.get(len(hypothesis), JINA_WEIGHTS[4])  # `else:` the standard weights
    return _nltk_sentence_bleu(lib, references, hypothesis, weights, method)


def _sacrebleu_sentence_score(lib, references, hypothesis, weights):
    """(score, stats) of sacrebleu's sentence_bleu: exp smoothing and the effective order. sacrebleu's uniform
    weights are the request's here, scaled by (sum of all) / (sum of those kept) where the effective order drops
    orders, as 1/N becomes 1/N_kept; nothing changes where every order is kept (0 where no weight is kept)."""
    stats = lib.segment_stats(references, hypothesis, len(weights))
    if not stats.c:
        return 0.0, stats
    logs, kept_weight, k = [], 0.0, 0
    for w, m, t in zip(weights, stats.matches, stats.totals, strict=True):
        if not t:
            break  # sacrebleu: the effective order ends at the first order without hypothesis n-grams
        if m:
            p = m / t
        else:
            k += 1
            p = 1 / (2 ** k * t)
        logs.append(w * math.log(p))
        kept_weight += w
    if not kept_weight:
        return 0.0, stats
    scale = math.fsum(weights) / kept_weight
    return lib.brevity_penalty(stats.c, stats.r) * math.exp(math.fsum(logs) * scale), stats


#: sentence ends, as a segmenter sees them in a token's last character
SENTENCE_ENDS = (".", "!", "?")


def _sentences(tokens):
    """The token list cut after every token ending a sentence; a text without tokens is one empty sentence."""
    sentences, current = [], []
    for token in tokens:
        current.append(token)
        if token.endswith(SENTENCE_ENDS):
            sentences.append(current)
            current = []
    if current or not sentences:
        sentences.append(current)
    return sentences


def _characters(tokens):
    """The text the tokens make, joined by spaces, as the list of its characters."""
    return list(" ".join(tokens))


def _mean(values):
    values = list(values)
    return math.fsum(values) / len(values)


# -- the wrapper: tokens, input structure and combination ------------------------------------------------------


class Heldout4Wrapper(Wrapper):
    """realbleu.py's wrapper over `Heldout4Library`, with one held-out bug of tokens, input structure or
    combination."""

    def __init__(self, bug: str | None):
        super().__init__(bug)
        self.library = Heldout4Library(bug)

    def score(self, hypotheses, list_of_references, weights, smoothing, level):
        """(score, bp, stats) for the segments of a request."""
        bug, lib = self.bug, self.library
        if bug == "reference-tokens-as-reference-list" and all(len(group) == 1 for group in list_of_references):
            return lib.corpus_bleu([[list(token) for token in group[0]] for group in list_of_references],
                                   hypotheses, weights, smoothing)
        if bug == "texts-split-into-sentences-and-paired":
            return self._sentences_paired(hypotheses, list_of_references, weights, smoothing)
        if bug == "characters-in-sentence-bleu":
            return self._characters_in_sentence_bleu(hypotheses, list_of_references, weights)
        if bug == "weights-by-hypothesis-length":
            _, bp, stats = lib.corpus_bleu(list_of_references, hypotheses, weights, smoothing)
            if stats.c == 0 and stats.r == 0:
                return math.nan, bp, stats
            return _mean(_jina_score(lib, group, h) for h, group in zip(hypotheses, list_of_references,
                                                                         strict=True)), bp, stats
        if bug == "last-segment-sentence-bleu-reported":
            score, stats = _sacrebleu_sentence_score(lib, list_of_references[-1], hypotheses[-1], weights)
            return score, lib.brevity_penalty(stats.c, stats.r), stats
        return super().score(hypotheses, list_of_references, weights, smoothing, level)

    def _sentences_paired(self, hypotheses, list_of_references, weights, smoothing):
        """ragas: per segment, the i-th hypothesis sentence against the references' i-th sentences, one corpus;
        the segments' scores averaged, their statistics summed."""
        lib, order = self.library, len(weights)
        scores, total = [], Stats(0, 0, [0] * order, [0] * order)
        for hypothesis, group in zip(hypotheses, list_of_references, strict=True):
            pieces = _sentences(hypothesis)
            reference_pieces = [_sentences(reference) for reference in group]
            if any(len(p) != len(pieces) for p in reference_pieces):
                raise ValueError("The number of hypotheses and their reference(s) should be the same ")
            score, _, stats = lib.corpus_bleu([list(column) for column in zip(*reference_pieces, strict=True)],
                                              pieces, weights, smoothing)
            scores.append(score)
            total = total + stats
        return _mean(scores), lib.brevity_penalty(total.c, total.r), total

    def _characters_in_sentence_bleu(self, hypotheses, list_of_references, weights):
        """LlamaFactory: each segment's texts as characters, sentence BLEU with nltk's method3, averaged; the
        statistics are the characters' over the request."""
        lib = self.library
        characters = [_characters(h) for h in hypotheses]
        references = [[_characters(r) for r in group] for group in list_of_references]
        stats = lib.corpus_stats(references, characters, len(weights))
        if stats.c == 0 and stats.r == 0:
            return math.nan, math.nan, stats
        score = _mean(_nltk_sentence_bleu(lib, group, h, weights, "method3")
                      for h, group in zip(characters, references, strict=True))
        return score, lib.brevity_penalty(stats.c, stats.r), stats


def main(argv=None):
    serve(argv, bugs=HELDOUT4_BUGS, make_wrapper=Heldout4Wrapper, prog="realbleu_heldout4")


if __name__ == "__main__":
    main()
