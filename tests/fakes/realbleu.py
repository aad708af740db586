#!/usr/bin/env python3
"""Real-bug BLEU: a wrapper around a small BLEU library, speaking protocol v1, with bugs from public trackers.

Issue 36 (bleu-oracle): do the root causes `check` names generalise to BLEU bugs the project has never seen?
Each bug in `REAL_BUGS` was reported in a public issue or pull request (its `url`); none is one of the bugs cited
in `plantedbleu.py` or the `mutant_*.py` fakes (`planted_twin` names the few whose *mechanism* is planted there
under another citation, kept as controls). Its `fits` are the cause names that would count as naming the real
mechanism, judged before any run: names `check` can give today, and the name an ideal cause would have.

    python tests/fakes/realbleu.py clean            # the control: correct under papineni
    python tests/fakes/realbleu.py BUG              # one real bug (names in REAL_BUGS)
    python tests/fakes/realbleu.py clean --no-stats # no statistics in the replies

The code is shaped the way such bugs arise: a library with the usual API (`corpus_bleu(list_of_references,
hypotheses, weights, smoothing)`, `sentence_bleu`, a sacrebleu-style `corpus_score_streams(hypotheses,
reference_streams)`), and a wrapper (`Wrapper.score`) that turns a protocol request into library calls. Bugs of
input structure live in the wrapper's call; bugs of counting, lengths, smoothing and combination live in the
library. Written without `oracle` (stdlib only). The clean computation is the papineni profile: tokens opaque;
clipping to the largest count in any one reference; statistics summed over segments before dividing; r the
closest reference length, ties to the shorter; BP = 1 if c > r else e^(1 - r/c); c = 0 scores 0 (c = r = 0:
NaN); an order without hypothesis n-grams counts as p_n = 0; weights as given, a zero weight switches its order
off; smoothing none / floor / add-k / exp / chen-cherry-4 as PROTOCOL.md states them.
"""

from __future__ import annotations

import json
import math
import sys
import traceback
from collections import Counter
from dataclasses import dataclass, field
from fractions import Fraction
from functools import reduce


@dataclass(frozen=True)
class RealBug:
    """One bug from a public tracker, planted here."""

    url: str  #: the thread (as the search tool returned it)
    where: str  #: the project and the code the thread is about
    symptom: str  #: a short quote of what the reporter saw
    mechanism: str  #: what the code did, in our words
    kind: str  #: structure, combination, counting, text, conventions, smoothing, state, errors
    stage: str  #: where in this fake it lives: wrapper, tokens, counting, lengths, smoothing, combination, output
    fits: tuple[str, ...]  #: cause names that would count as naming the mechanism (existing or ideal)
    planted_twin: str | None = field(default=None)  #: a planted/mutant bug with the same mechanism, if any


KINDS = ("structure", "combination", "counting", "text", "conventions", "smoothing", "state", "errors")

REAL_BUGS: dict[str, RealBug] = {
    # -- input structure: which argument is which, how references are grouped, what a token is ----------------
    "references-transposed": RealBug(
        url="https://github.com/huggingface/lighteval/pull/1234",
        where="huggingface/lighteval CorpusLevelTranslationMetric.compute_corpus -> sacrebleu corpus_score",
        symptom="References were collected as `[sent_id][ref_id]`, but sacrebleu's `corpus_score` expects "
                "`[ref_id][sent_id]` ... only the **first hypothesis** was ever scored",
        mechanism="per-segment reference lists are passed where reference streams are expected; zip(*streams) "
                  "gives segment i the i-th reference of every segment, truncated to the fewest references",
        kind="structure", stage="wrapper",
        fits=("references-transposed",)),
    "reference-streams-of-characters": RealBug(
        url="https://github.com/mjpost/sacrebleu/issues/272",
        where="user code calling sacrebleu.corpus_bleu(decoded_cands, decoded_refs)",
        symptom="the order of the sentences make the BLEU score change ... you should use "
                "`corpus_bleu(decoded_cands, [decoded_refs])`",
        mechanism="a flat list of reference strings is passed as the reference streams: each string is a "
                  "stream, so segment i's references are the i-th characters of every reference string "
                  "(and the corpus is cut to the shortest string)",
        kind="structure", stage="wrapper",
        fits=("references-as-character-streams", "references-transposed")),
    "strings-iterated": RealBug(
        url="https://github.com/lisjin/hct/issues/1",
        where="lisjin/hct score.py calling nltk corpus_bleu with strings",
        symptom="to calculate the corpus_bleu score, reference and hypothesis sentences need to be as lists "
                "instead of strings",
        mechanism="strings are passed where token lists are expected: the hypothesis is iterated as characters "
                  "and each character of the reference string becomes a one-token reference",
        kind="structure", stage="wrapper",
        fits=("strings-iterated-as-characters", "characters-as-tokens")),
    "characters-as-tokens": RealBug(
        url="https://github.com/Jielin-Qiu/Transfer_Knowledge_from_Language_to_ECG/pull/4",
        where="Jielin-Qiu/Transfer_Knowledge_from_Language_to_ECG BLEU evaluation",
        symptom="predictions and labels were incorrectly treated as strings, leading to BLEU scores being "
                "computed over character-level n-grams",
        mechanism="hypothesis and references are passed as strings, so every character (spaces included) is a "
                  "token",
        kind="text", stage="wrapper",
        fits=("characters-as-tokens",)),
    "reference-string-as-references": RealBug(
        url="https://github.com/mjpost/sacrebleu/pull/99",
        where="sacrebleu sentence_score(hypothesis, references) given one string (issue #98)",
        symptom="If a single string is provided it is split into characters and each character is treated as "
                "one reference",
        mechanism="one reference string is passed where a list of references is expected: each of its "
                  "characters is a reference of one token (whitespace an empty reference)",
        kind="structure", stage="wrapper",
        fits=("reference-characters-as-references",)),
    "reference-tokens-as-references": RealBug(
        url="https://github.com/datawhalechina/llm-universe/pull/209",
        where="datawhalechina/llm-universe notebook: sentence_bleu(true_answers, generate_answers)",
        symptom="`sentence_bleu(true_answers, generate_answers)` ... should be "
                "`sentence_bleu([true_answers], generate_answers)`; an answer identical to the reference scored "
                "close to 0",
        mechanism="the reference's token list is passed as the list of references: each token is a reference, "
                  "read as the sequence of its characters",
        kind="structure", stage="wrapper",
        fits=("reference-tokens-as-references",)),
    "hypothesis-reference-swapped": RealBug(
        url="https://github.com/d2l-ai/d2l-en/issues/1780",
        where="d2l-ai/d2l-en TensorFlow chapters: d2l.bleu(fra, translation, k=2)",
        symptom="are there any specific reasons why we switch `translation` and `fra` when invoking `d2l.bleu`",
        mechanism="the reference is passed as the prediction and the prediction as the reference",
        kind="structure", stage="wrapper",
        fits=("hypothesis-and-reference-swapped",)),
    "last-reference-only": RealBug(
        url="https://github.com/gomate-community/rageval/pull/80",
        where="gomate-community/rageval _answer_bleu.py _compute_single",
        symptom="move the claim of reference[] outside the circle (review of PR #74: 'reference initialization "
                "should be outside the for loop')",
        mechanism="the reference list is re-created inside the loop over references, so only the last "
                  "reference survives",
        kind="structure", stage="wrapper",
        fits=("last-reference-only",)),
    "duplicate-padding-samples": RealBug(
        url="https://github.com/mosaicml/composer/pull/2218",
        where="mosaicml/composer evaluation with a DistributedSampler",
        symptom="Distributed samplers pad batches with duplicate samples in order to ensure all ranks have the "
                "same number of samples",
        mechanism="the corpus is padded to a multiple of the world size (4) by repeating segments from its "
                  "start, and the repeats are counted",
        kind="structure", stage="wrapper",
        fits=("segments-duplicated-to-fill-ranks",)),
    # -- tokens changed before counting --------------------------------------------------------------------
    "padding-counted": RealBug(
        url="https://github.com/IBM/pytorchpipe/pull/32",
        where="IBM/pytorchpipe BLEU over padded batches",
        symptom="TARGET: ['viens', 'ici', 'immediatement', '.', '<EOS>', '<PAD>', ...] PREDICTION: ['.', "
                "'<PAD>', ...] BLEU: 0.4111336169005197",
        mechanism="sequences are padded to the batch's longest length (references with an end symbol first) "
                  "and the pad symbols are counted as tokens",
        kind="text", stage="tokens",
        fits=("padding-counted",)),
    "end-token-in-hypothesis": RealBug(
        url="https://github.com/PacktPublishing/Deep-Reinforcement-Learning-Hands-On/pull/89",
        where="Deep-Reinforcement-Learning-Hands-On Chapter 12 decoding",
        symptom="the model included the end token when returning the resulting sequence ... this messes up the "
                "BLEU score as well",
        mechanism="every hypothesis carries an extra end token that the references do not have",
        kind="text", stage="tokens",
        fits=("end-token-appended-to-hypothesis",)),
    "subword-segmented": RealBug(
        url="https://github.com/aub-mind/Arabic-Empathetic-Chatbot/issues/4",
        where="aub-mind/Arabic-Empathetic-Chatbot compute_metrics",
        symptom="you calculate the bleu score on the **segmented text (with farasa segment)**. This roughly "
                "gives a BLUE score which is x2.5 times larger",
        mechanism="words are scored in their morpheme-segmented form: each token of four or more characters is "
                  "split into a marked prefix and the rest",
        kind="text", stage="tokens",
        fits=("tokens-segmented-into-subwords",)),
    # -- counting ----------------------------------------------------------------------------------------
    "cosine-ngram-equality": RealBug(
        url="https://github.com/Shark-NLP/CoNT/issues/4",
        where="Shark-NLP/CoNT model.model.CoNTGenerator.torch_bleu",
        symptom="there is an severe mistake which results in wrong BLEU scores, certainly when `n_gram == 1` "
                "and possibly when `n_gram >= 2` (rare case where token indices are propotional",
        mechanism="n-grams are compared by the cosine similarity of their token-id vectors (>= 1.0): every "
                  "unigram equals every other, and n-grams with proportional ids are equal",
        kind="counting", stage="counting",
        fits=("ngrams-equal-when-proportional", "unigrams-always-match")),
    "whitespace-token-order": RealBug(
        url="https://github.com/pytorch/text/issues/2095",
        where="torchtext.data.metrics.bleu_score (_compute_ngram_counter)",
        symptom="when the predicted text contains space and is at least a length of 4, it throws an "
                "out-of-bound error ... IndexError: index 4 is out of bounds",
        mechanism="n-grams are keyed by ' '.join and split back with split(' '): a token holding a space "
                  "lengthens its n-gram, which is counted in a higher order or indexes past the last one",
        kind="counting", stage="counting",
        fits=("order-read-from-spaces", "error-when-token-with-whitespace"),
        planted_twin="order-from-separator"),
    # -- lengths -------------------------------------------------------------------------------------------
    "ties-first-listed": RealBug(
        url="https://github.com/ucam-smt/ucam-smt/pull/41",
        where="ucam-smt BLEU (C++)",
        symptom="BLEU should use the shortest reference length when tied for distance",
        mechanism="the closest reference length is searched with a strict comparison: a tie keeps the first "
                  "listed reference, not the shorter",
        kind="conventions", stage="lengths",
        fits=("reference_length=closest-first",),
        planted_twin="ties-first"),
    # -- combination: correct statistics, wrong score ------------------------------------------------------
    "weights-not-passed-on": RealBug(
        url="https://github.com/obss/jury/pull/59",
        where="obss/jury bleu_n (issue #58: 'why are all bleu(n) scores identical?')",
        symptom="Bug fix: bleu returning same score with different max_order is fixed.",
        mechanism="the requested order (and weights) is not passed to the scorer, which always uses its "
                  "default: BLEU-4 with uniform weights",
        kind="combination", stage="combination",
        fits=("weights-not-passed-on", "default-weights-used")),
    "max-order-constant-4": RealBug(
        url="https://github.com/mjpost/sacrebleu/pull/174",
        where="sacrebleu 2.0.0 BLEU.corpus_score / compute_bleu (issue #173)",
        symptom="BLEU with max_ngram_order gives IndexError ... Bugfix: BLEU.corpus_score() now using "
                "max_ngram_order",
        mechanism="the statistics follow the requested order but the combination loops over the default 4 "
                  "orders: an IndexError below 4, orders past 4 left out",
        kind="combination", stage="combination",
        fits=("max-order-constant-4", "orders-beyond-4-left-out", "error-when-order-below-4")),
    "mean-of-smoothed-sentence-bleu": RealBug(
        url="https://github.com/NVIDIA-NeMo/Skills/issues/1408",
        where="NVIDIA-NeMo/Skills nemo_skills/evaluation/metrics/audio_metrics.py",
        symptom="Sentence-level BLEU was aggregated here and used as corpus-level BLEU ... sentence-level BLEU "
                "is calculated with aggressive smoothing",
        mechanism="the corpus score is the mean of sentence BLEU scores, each with sacrebleu's sentence "
                  "defaults (exp smoothing, effective order)",
        kind="combination", stage="combination",
        fits=("mean-of-sentence-bleu", "mean-of-sentence-scores")),
    "mean-of-pair-corpus-bleu": RealBug(
        url="https://github.com/lizekang/DSTC10-MOD/issues/3",
        where="lizekang/DSTC10-MOD task1_score.py",
        symptom="they computed corpus BLEU (corpus bleu from NLTK) on a single pair (inference, hypothesis), "
                "and then they averaged them over the corpus",
        mechanism="each segment is scored alone as a one-segment corpus and the scores are averaged",
        kind="combination", stage="combination",
        fits=("mean-of-sentence-scores", "mean-of-sentence-bleu")),
    "mean-of-batch-bleu": RealBug(
        url="https://github.com/huggingface/transformers/issues/9161",
        where="huggingface/transformers seq2seq finetune script",
        symptom="the seq2seq finetune script calculates the final metrics (bleu or rouge) per batch, and then "
                "simply averages these numbers across batches",
        mechanism="corpus BLEU of each batch of 4 segments, averaged over batches (the last, smaller batch "
                  "weighted as much as the others)",
        kind="combination", stage="combination",
        fits=("mean-of-batch-scores",)),
    "bleu-1-reported": RealBug(
        url="https://github.com/AIChallenger/AI_Challenger_2017/issues/31",
        where="AI Challenger 2017 caption leaderboard",
        symptom="Our BLEU_4 score (0.73298) on the LB is approximately equal to the BLEU_1 score (0.73563) we "
                "measured offline",
        mechanism="of the list of cumulative scores BLEU-1..BLEU-N, the first element is reported",
        kind="combination", stage="output",
        fits=("first-order-score-reported", "bleu-1-reported")),
    "percent-scale": RealBug(
        url="https://github.com/Marker-Inc-Korea/AutoRAG/issues/418",
        where="Marker-Inc-Korea/AutoRAG bleu metric over sacrebleu",
        symptom="Resolve errors with BLEU Score values greater than 1 ... in sacrebleu precision calculation, "
                "multiply it by 100",
        mechanism="sacrebleu's 0-100 score is returned where 0-1 is meant",
        kind="conventions", stage="output",
        fits=("percent-scale",)),
    "fixed-brevity-penalty": RealBug(
        url="https://github.com/karpathy/neuraltalk/pull/5",
        where="karpathy/neuraltalk multi-bleu.perl",
        symptom="The current implementation of multibleu used in this project uses a fixed brevity penalty, "
                "which will give undue credit to overly short descriptions",
        mechanism="no brevity penalty: BP = 1 whatever the lengths",
        kind="combination", stage="combination",
        fits=("no-brevity-penalty",),
        planted_twin="mutant_bp_missing"),
    # -- smoothing -----------------------------------------------------------------------------------------
    "chen-cherry-4-precedence": RealBug(
        url="https://github.com/nltk/nltk/issues/2341",
        where="nltk.translate.bleu_score SmoothingFunction.method4",
        symptom="`incvnt = i + 1 * self.k / math.log(hyp_len)` ... It's quite strange why they can have same "
                "smoothing 4-gram precision",
        mechanism="operator precedence: an unmatched order's count becomes i + k/ln(c) (i its 0-based index), "
                  "not ln(c)/(k 2^j)",
        kind="smoothing", stage="smoothing",
        fits=("chen-cherry-4-precedence", "smoothing=chen-cherry-4-misread")),
    "chen-cherry-4-last-hypothesis": RealBug(
        url="https://github.com/nltk/nltk/issues/2083",
        where="nltk.translate.bleu_score corpus_bleu (smoothing call)",
        symptom="Here should be `hyp_lengths` rather than `hyp_len`.",
        mechanism="the smoothing gets the length of the last hypothesis (the loop variable) where the corpus "
                  "length is meant: chen-cherry-4's ln(c) uses the last segment's c",
        kind="smoothing", stage="smoothing",
        fits=("chen-cherry-4-last-hypothesis", "smoothing-gets-last-hypothesis-length")),
    "add-one-and-epsilon": RealBug(
        url="https://github.com/future-agi/future-agi/pull/1346",
        where="future-agi bleu_score eval",
        symptom="substituted `1e-9` for orders the hypothesis was too short to form ... instead of the "
                "previous add-1 inflation",
        mechanism="its own smoothing regardless of the request: (m+1)/(l+1) for every order with n-grams, "
                  "unigrams included, and 1e-9 for an order without n-grams",
        kind="smoothing", stage="smoothing",
        fits=("add-one-every-order-epsilon-for-empty", "smoothing=lin-2004")),
    # -- errors --------------------------------------------------------------------------------------------
    "fraction-zero-denominator": RealBug(
        url="https://github.com/nltk/nltk/issues/1458",
        where="nltk.translate.bleu_score modified_precision (nltk 3.2)",
        symptom="if there are no ngrams in the hypothesis, a zero division exception is thrown ... "
                "ZeroDivisionError('Fraction(%s, 0)' % numerator)",
        mechanism="each order's precision is built as Fraction(matches, total): an order without hypothesis "
                  "n-grams raises ZeroDivisionError",
        kind="errors", stage="counting",
        fits=("error-when-hypothesis-shorter-than-order", "error-when-hypothesis-empty")),
    "bp-divides-by-c": RealBug(
        url="https://github.com/PaddlePaddle/PaddleNLP/issues/8761",
        where="paddlenlp.metrics BLEU.accumulate",
        symptom="bp = math.exp(min(1 - self.bp_r / float(self.bp_c), 0)) ZeroDivisionError: float division by "
                "zero",
        mechanism="r/c is computed without a guard: a corpus whose hypotheses are all empty raises",
        kind="errors", stage="combination",
        fits=("error-when-hypothesis-empty",)),
    "error-on-several-references": RealBug(
        url="https://github.com/facebookresearch/vizseq/issues/16",
        where="facebookresearch/vizseq BLEU scorer (fixed by PR #17, 'Fix multi ref for bleu, bp and rouge')",
        symptom="When having multiple references ..., I cannot configure metric BLEU ... I get a 500 internal "
                "server error. This does not happen with a single reference",
        mechanism="the scorer takes each segment's references as exactly one: a segment with several raises",
        kind="errors", stage="wrapper",
        fits=("error-when-references-several",)),
    "chen-cherry-4-log-one": RealBug(
        url="https://github.com/nltk/nltk/issues/2204",
        where="nltk.translate.bleu_score SmoothingFunction.method4",
        symptom="incvnt = i+1 * self.k / math.log(hyp_len) ZeroDivisionError: float division by zero ... "
                "hyp = ['a']",
        mechanism="chen-cherry-4 divides by ln(c), guarded against c = 0 only: a one-token hypothesis with an "
                  "unmatched order raises",
        kind="errors", stage="smoothing",
        fits=("error-when-smoothing-chen-cherry-4", "error-when-smoothing-chen-cherry-4-and-hypothesis-one-token",
              "error-when-smoothing-chen-cherry-4-and-hypothesis-shorter-than-order")),
}


# -- the library ----------------------------------------------------------------------------------------------


@dataclass
class Stats:
    """Corpus statistics: c, r, and per order the clipped matches and the totals."""

    c: int
    r: int
    matches: list[int]
    totals: list[int]

    def __add__(self, other: Stats) -> Stats:
        return Stats(self.c + other.c, self.r + other.r,
                     [a + b for a, b in zip(self.matches, other.matches, strict=True)],
                     [a + b for a, b in zip(self.totals, other.totals, strict=True)])


class Library:
    """A BLEU library. `bug` switches on a bug of the library's own code (counting, lengths, smoothing)."""

    def __init__(self, bug: str | None = None):
        self.bug = bug

    # counting
    def ngram_counts(self, tokens, n):
        if self.bug == "whitespace-token-order":
            # torchtext: Counter(tuple(x.split(' ')) for x in ngrams_iterator(tokens, max_n)), all orders in one
            # counter; the order is read back from the key's length
            return Counter(tuple(" ".join(tokens[i:i + n]).split(" ")) for i in range(len(tokens) - n + 1))
        return Counter(tuple(tokens[i:i + n]) for i in range(len(tokens) - n + 1))

    def modified_precision(self, references, hypothesis, n):
        """(clipped matches, total) of order n."""
        counts = self.ngram_counts(hypothesis, n)
        limit: Counter = Counter()
        for reference in references:
            for gram, k in self.ngram_counts(reference, n).items():
                limit[gram] = max(limit[gram], k)
        return sum(min(k, limit[gram]) for gram, k in counts.items()), sum(counts.values())

    def closest_ref_length(self, references, c):
        lengths = [len(r) for r in references]
        if self.bug == "ties-first-listed":
            best = lengths[0]
            for x in lengths[1:]:
                if abs(x - c) < abs(best - c):
                    best = x
            return best
        return min(lengths, key=lambda x: (abs(x - c), x))

    def segment_stats(self, references, hypothesis, order) -> Stats:
        if self.bug == "whitespace-token-order":
            return self._segment_stats_one_counter(references, hypothesis, order)
        if self.bug == "cosine-ngram-equality":
            references, hypothesis = _as_id_vectors(references, hypothesis)
        matches, totals = [], []
        for n in range(1, order + 1):
            m, t = self.modified_precision(references, hypothesis, n)
            matches.append(m)
            totals.append(t)
        c = len(hypothesis)
        return Stats(c, self.closest_ref_length(references, c), matches, totals)

    def _segment_stats_one_counter(self, references, hypothesis, order):
        def every_order(tokens):
            counts: Counter = Counter()
            for n in range(1, order + 1):
                counts.update(self.ngram_counts(tokens, n))
            return counts

        limit: Counter = Counter()
        for reference in references:
            for gram, k in every_order(reference).items():
                limit[gram] = max(limit[gram], k)
        matches, totals = [0] * order, [0] * order
        for gram, k in every_order(hypothesis).items():
            matches[len(gram) - 1] += min(k, limit[gram])  # IndexError past the last order, as in torchtext
            totals[len(gram) - 1] += k
        c = len(hypothesis)
        return Stats(c, self.closest_ref_length(references, c), matches, totals)

    def corpus_stats(self, list_of_references, hypotheses, order) -> Stats:
        total = Stats(0, 0, [0] * order, [0] * order)
        for references, hypothesis in zip(list_of_references, hypotheses, strict=False):
            total = total + self.segment_stats(references, hypothesis, order)
        return total

    # numbers
    def brevity_penalty(self, c, r):
        if self.bug == "bp-divides-by-c":
            return math.exp(min(1 - r / float(c), 0))  # paddlenlp: no guard for c = 0
        if c > r:
            return 1.0
        return 0.0 if c == 0 else math.exp(1 - r / c)

    def smoothed(self, stats: Stats, smoothing, last_hypothesis_length):
        """(matches, totals) as floats after the requested smoothing."""
        m = [float(x) for x in stats.matches]
        t = [float(x) for x in stats.totals]
        method = smoothing.get("method", "none")
        if self.bug == "add-one-and-epsilon":
            return m, t  # its own smoothing is applied in `combine`
        if method == "floor":
            for i in range(len(m)):
                if t[i] > 0 and m[i] == 0:
                    m[i] = float(smoothing.get("value", 0.1))
        elif method == "add-k":
            for i in range(1, len(m)):
                m[i] += float(smoothing.get("k", 1.0))
                t[i] += float(smoothing.get("k", 1.0))
        elif method == "exp":
            j = 0
            for i in range(len(m)):
                if t[i] > 0 and m[i] == 0:
                    j += 1
                    m[i] = 1.0 / 2 ** j
        elif method == "chen-cherry-4":
            self._chen_cherry_4(m, t, float(smoothing.get("k", 5)), stats.c, last_hypothesis_length)
        return m, t

    def _chen_cherry_4(self, m, t, k, c, last_hypothesis_length):
        length = last_hypothesis_length if self.bug == "chen-cherry-4-last-hypothesis" else c
        if self.bug == "chen-cherry-4-log-one":
            if length == 0:  # nltk's `hyp_len != 0` guard, and no other
                return
        elif length <= 1:
            return
        j = 0
        for i in range(len(m)):
            if t[i] > 0 and m[i] == 0:
                j += 1
                if self.bug == "chen-cherry-4-precedence":
                    m[i] = i + 1 * k / math.log(length)  # nltk: `incvnt = i + 1 * self.k / math.log(hyp_len)`
                elif self.bug == "chen-cherry-4-log-one":
                    # nltk's docstring: "dividing by 1/ln(len(T))", written as a division by ln(T): the same
                    # number for T > 1, ZeroDivisionError for T = 1 (its guard is `hyp_len != 0` only)
                    m[i] = 1 / (k * 2 ** j / math.log(length))
                else:
                    m[i] = math.log(length) / (k * 2 ** j)

    def combine(self, m, t, weights):
        """exp(sum of w_n log p_n) over the orders in force; 0 when a counted order has p_n = 0."""
        orders = len(weights)
        if self.bug == "max-order-constant-4":
            orders = 4  # sacrebleu 2.0.0: compute_bleu(..., max_ngram_order=NGRAM_ORDER)
        s = 0.0
        for n in range(orders):
            w = weights[n]
            if self.bug == "add-one-and-epsilon":
                p = (m[n] + 1) / (t[n] + 1) if t[n] else 1e-9
            else:
                p = m[n] / t[n] if t[n] else 0.0
            if w == 0:
                continue
            if p == 0:
                return 0.0
            s += w * math.log(p)
        return math.exp(s)

    def bleu_from_stats(self, stats: Stats, weights, smoothing, last_hypothesis_length=0):
        """(score, bp)."""
        if self.bug == "fraction-zero-denominator":
            for matched, total in zip(stats.matches, stats.totals, strict=False):
                Fraction(matched, total)  # nltk 3.2 modified_precision: ZeroDivisionError for a total of 0
        if stats.c == 0 and stats.r == 0 and self.bug != "bp-divides-by-c":
            return math.nan, math.nan
        bp = self.brevity_penalty(stats.c, stats.r)
        if stats.c == 0:
            return 0.0, bp
        m, t = self.smoothed(stats, smoothing, last_hypothesis_length)
        return bp * self.combine(m, t, weights), bp

    # the public API
    def corpus_bleu(self, list_of_references, hypotheses, weights, smoothing):
        """(score, bp, stats) of a corpus: statistics summed over the segments, then one score."""
        stats = self.corpus_stats(list_of_references, hypotheses, len(weights))
        last = len(hypotheses[-1]) if hypotheses else 0
        score, bp = self.bleu_from_stats(stats, weights, smoothing, last)
        return score, bp, stats

    def sentence_bleu(self, references, hypothesis, weights, smoothing):
        return self.corpus_bleu([references], [hypothesis], weights, smoothing)

    def corpus_score_streams(self, hypotheses, reference_streams, weights, smoothing, tokenize):
        """sacrebleu's shape: references as streams (one list per reference, each one segment a line)."""
        list_of_references = [[tokenize(r) for r in group] for group in zip(*reference_streams, strict=False)]
        pairs = list(zip(hypotheses, list_of_references, strict=False))
        return self.corpus_bleu([refs for _, refs in pairs], [hyp for hyp, _ in pairs], weights, smoothing)


def _as_id_vectors(references, hypothesis):
    """CoNT compares n-grams of token ids by cosine similarity: an n-gram is equal to every n-gram whose id
    vector points the same way. Ids are given by first appearance (from 1); an n-gram is then keyed by its
    direction (the id vector divided by the gcd of its ids)."""
    ids: dict = {}
    for token in [*hypothesis, *(t for r in references for t in r)]:
        ids.setdefault(token, len(ids) + 1)
    return [[ids[t] for t in r] for r in references], [ids[t] for t in hypothesis]


def _direction(gram):
    g = reduce(math.gcd, gram)
    return tuple(x // g for x in gram)


class CosineLibrary(Library):
    """The library of CoNT's torch_bleu: n-grams of ids compared by direction."""

    def ngram_counts(self, tokens, n):
        return Counter(_direction(tuple(tokens[i:i + n])) for i in range(len(tokens) - n + 1))


# -- the wrapper --------------------------------------------------------------------------------------------


def _string(tokens):
    return " ".join(tokens)


def _pad_batch(hypotheses, list_of_references):
    """IBM/pytorchpipe's tensors: references end in <EOS>; every row padded with <PAD> to the longest."""
    refs = [[[*r, "<EOS>"] for r in group] for group in list_of_references]
    width = max([len(h) for h in hypotheses] + [len(r) for group in refs for r in group])
    return ([[*h, *["<PAD>"] * (width - len(h))] for h in hypotheses],
            [[[*r, *["<PAD>"] * (width - len(r))] for r in group] for group in refs])


def _farasa(tokens):
    out = []
    for token in tokens:
        out.extend([token[:2] + "+", token[2:]] if len(token) >= 4 else [token])
    return out


class Wrapper:
    """An evaluation tool's BLEU: turns a protocol request into library calls (where structure bugs live)."""

    BATCH = 4
    WORLD_SIZE = 4

    def __init__(self, bug: str | None):
        self.bug = bug
        self.library = CosineLibrary(bug) if bug == "cosine-ngram-equality" else Library(bug)

    def score(self, hypotheses, list_of_references, weights, smoothing, level):
        """(score, bp, stats) for the segments of a request."""
        bug, lib = self.bug, self.library
        if bug == "error-on-several-references":
            list_of_references = [[reference] for (reference,) in list_of_references]  # ValueError for 2 or more
        if bug == "references-transposed":
            return lib.corpus_score_streams(hypotheses, list_of_references, weights, smoothing, lambda r: r)
        if bug == "reference-streams-of-characters":
            flat = [_string(group[0]) for group in list_of_references]
            return lib.corpus_score_streams(hypotheses, flat, weights, smoothing, str.split)
        if bug == "strings-iterated":
            return lib.corpus_bleu([list(_string(g[0])) for g in list_of_references],
                                   [list(_string(h)) for h in hypotheses], weights, smoothing)
        if bug == "characters-as-tokens":
            return lib.corpus_bleu([[list(_string(r)) for r in g] for g in list_of_references],
                                   [list(_string(h)) for h in hypotheses], weights, smoothing)
        if bug == "reference-string-as-references":
            return lib.corpus_bleu([[ch.split() for ch in _string(g[0])] for g in list_of_references],
                                   hypotheses, weights, smoothing)
        if bug == "reference-tokens-as-references":
            return lib.corpus_bleu([[list(token) for token in g[0]] for g in list_of_references], hypotheses,
                                   weights, smoothing)
        if bug == "hypothesis-reference-swapped":
            return lib.corpus_bleu([[h] for h in hypotheses], [g[0] for g in list_of_references], weights,
                                   smoothing)
        if bug == "last-reference-only":
            return lib.corpus_bleu([g[-1:] for g in list_of_references], hypotheses, weights, smoothing)
        if bug == "duplicate-padding-samples" and len(hypotheses) % self.WORLD_SIZE:
            extra = self.WORLD_SIZE - len(hypotheses) % self.WORLD_SIZE
            indices = [i % len(hypotheses) for i in range(extra)]
            return lib.corpus_bleu(list_of_references + [list_of_references[i] for i in indices],
                                   hypotheses + [hypotheses[i] for i in indices], weights, smoothing)
        if bug == "padding-counted":
            padded_hyps, padded_refs = _pad_batch(hypotheses, list_of_references)
            return lib.corpus_bleu(padded_refs, padded_hyps, weights, smoothing)
        if bug == "end-token-in-hypothesis":
            return lib.corpus_bleu(list_of_references, [[*h, "<end>"] for h in hypotheses], weights, smoothing)
        if bug == "subword-segmented":
            return lib.corpus_bleu([[_farasa(r) for r in g] for g in list_of_references],
                                   [_farasa(h) for h in hypotheses], weights, smoothing)
        if bug in COMBINATION_BUGS:
            return self._wrong_combination(hypotheses, list_of_references, weights, smoothing)
        return lib.corpus_bleu(list_of_references, hypotheses, weights, smoothing)

    def _wrong_combination(self, hypotheses, list_of_references, weights, smoothing):
        """Correct corpus statistics (reported as they are), combined into a wrong score."""
        bug, lib = self.bug, self.library
        _, bp, stats = lib.corpus_bleu(list_of_references, hypotheses, weights, smoothing)
        if stats.c == 0 and stats.r == 0:
            return math.nan, bp, stats
        if bug == "weights-not-passed-on":
            score, bp, _ = lib.corpus_bleu(list_of_references, hypotheses, [0.25] * 4, smoothing)
        elif bug == "mean-of-smoothed-sentence-bleu":
            score = _mean(_sacrebleu_sentence(lib, refs, hyp, weights)
                          for refs, hyp in zip(list_of_references, hypotheses, strict=False))
        elif bug == "mean-of-pair-corpus-bleu":
            score = _mean(lib.sentence_bleu(refs, hyp, weights, smoothing)[0]
                          for refs, hyp in zip(list_of_references, hypotheses, strict=False))
        elif bug == "mean-of-batch-bleu":
            score = _mean(lib.corpus_bleu(list_of_references[i:i + self.BATCH], hypotheses[i:i + self.BATCH],
                                          weights, smoothing)[0]
                          for i in range(0, len(hypotheses), self.BATCH))
        elif bug == "bleu-1-reported":
            m, t = lib.smoothed(stats, smoothing, len(hypotheses[-1]))
            cumulative = [bp * lib.combine(m, t, [1.0 / n] * n) if stats.c else 0.0
                          for n in range(1, len(weights) + 1)]
            score = cumulative[0]
        elif bug == "percent-scale":
            score = 100 * lib.bleu_from_stats(stats, weights, smoothing, len(hypotheses[-1]))[0]
        else:  # fixed-brevity-penalty
            m, t = lib.smoothed(stats, smoothing, len(hypotheses[-1]))
            score, bp = (lib.combine(m, t, weights) if stats.c else 0.0), 1.0
        return score, bp, stats


COMBINATION_BUGS = ("weights-not-passed-on", "mean-of-smoothed-sentence-bleu", "mean-of-pair-corpus-bleu",
                    "mean-of-batch-bleu", "bleu-1-reported", "percent-scale", "fixed-brevity-penalty")


def _mean(values):
    values = list(values)
    return math.fsum(values) / len(values)


def _sacrebleu_sentence(lib, references, hypothesis, weights):
    """sacrebleu.sentence_bleu's defaults: exp smoothing and the effective order (orders without hypothesis
    n-grams left out, the remaining weights renormalised)."""
    stats = lib.segment_stats(references, hypothesis, len(weights))
    if stats.c == 0:
        return 0.0
    m, t = lib.smoothed(stats, {"method": "exp"}, stats.c)
    kept = [(w, mi / ti) for w, mi, ti in zip(weights, m, t, strict=False) if ti > 0 and w > 0]
    total = sum(w for w, _ in kept)
    if not kept or any(p == 0 for _, p in kept):
        return 0.0
    return lib.brevity_penalty(stats.c, stats.r) * math.exp(sum(w / total * math.log(p) for w, p in kept))


# -- the protocol loop ----------------------------------------------------------------------------------------

SMOOTHING = ("none", "floor", "add-k", "exp", "chen-cherry-4")


def invalid(request):
    """Why the papineni profile rejects this input, or None."""
    weights = request["weights"]
    if any(w < 0 for w in weights):
        return f"weights must be non-negative (got {weights})"
    if not any(weights):
        return f"weights must not be all zero (got {weights})"
    if not request["segments"]:
        return "at least one segment is needed"
    if any(not s["references"] for s in request["segments"]):
        return "a segment has no references"
    for name, value in request["smoothing"].items():
        if name != "method" and value < 0:
            return f"smoothing parameter {name} must be non-negative (got {value})"
    return None


def answer(request, wrapper, with_stats):
    seq = request["seq"]
    problem = invalid(request)
    if problem:
        return {"seq": seq, "rejected": problem}
    if request["smoothing"].get("method", "none") not in SMOOTHING:
        return {"seq": seq, "unsupported": f"smoothing {request['smoothing']['method']!r} is not implemented"}
    fold = (lambda tokens: [t.lower() for t in tokens]) if request.get("lowercase") else list
    hypotheses = [fold(s["hypothesis"]) for s in request["segments"]]
    references = [[fold(r) for r in s["references"]] for s in request["segments"]]
    score, bp, stats = wrapper.score(hypotheses, references, request["weights"], request["smoothing"],
                                     request["level"])
    out = {"seq": seq, "score": "NaN" if math.isnan(score) else score}
    if with_stats:
        order = len(request["weights"])
        out["statistics"] = {"hyp_len": stats.c, "ref_len": stats.r, "matches": stats.matches[:order],
                             "totals": stats.totals[:order], "bp": "NaN" if math.isnan(bp) else bp}
    return out


def _write(obj):
    sys.stdout.write(json.dumps(obj, ensure_ascii=False) + "\n")
    sys.stdout.flush()


def parse_argv(argv, bugs=None, prog="realbleu"):
    """(bug or None, with_stats); an unknown name exits with an error. `bugs`: the collection (`REAL_BUGS`)."""
    bugs = REAL_BUGS if bugs is None else bugs
    names = [a for a in argv if not a.startswith("--")]
    options = [a for a in argv if a.startswith("--")]
    if [o for o in options if o != "--no-stats"] or len(names) != 1:
        raise SystemExit(f"usage: {prog}.py clean | BUG [--no-stats]; bugs: " + ", ".join(bugs))
    if names[0] != "clean" and names[0] not in bugs:
        raise SystemExit(f"{prog}: unknown bug {names[0]!r}; known: {', '.join(bugs)}")
    return (None if names[0] == "clean" else names[0]), "--no-stats" not in options


def main(argv=None, bugs=None, make_wrapper=None, prog="realbleu"):
    """The protocol loop. Another collection (tests/fakes/realbleu_heldout.py) passes its own `bugs`, the wrapper
    class that plants them (`make_wrapper(bug)`) and its name."""
    bug, with_stats = parse_argv(sys.argv[1:] if argv is None else argv, bugs, prog)
    wrapper = (make_wrapper or Wrapper)(bug)
    capabilities = {"levels": ["corpus", "sentence"], "weights": "any", "max_order": 12,
                    "smoothing": list(SMOOTHING), "statistics": with_stats, "lowercase": True}
    name = f"{prog}+" + (bug or "clean")
    for line in sys.stdin:
        if not line.strip():
            continue
        try:
            command = json.loads(line)
        except ValueError as exc:
            _write({"error": f"not JSON: {exc}"})
            continue
        cmd = command.get("cmd")
        if cmd == "start":
            if command.get("protocol") != 1:
                _write({"error": f"unsupported protocol version {command.get('protocol')}"})
                continue
            _write({"protocol": 1, "implementation": {"name": name, "version": "0.0", "language": "python"},
                    "profile": "papineni", "capabilities": capabilities})
        elif cmd == "stop":
            return
        elif cmd == "score":
            try:
                reply = answer(command, wrapper, with_stats)
            except Exception as exc:  # noqa: BLE001 - any failure is an `error` reply, the loop goes on
                traceback.print_exc(file=sys.stderr)
                reply = {"seq": command.get("seq"), "error": f"{type(exc).__name__}: {exc}"}
            _write(reply)
        else:
            _write({"seq": command.get("seq"), "error": f"unknown command {cmd!r}"})


if __name__ == "__main__":
    main()
