#!/usr/bin/env python3
"""Sixth held-out real-bug BLEU: bugs from new sources, planted in realbleu.py's library and wrapper.

Issue 36, sixth held-out set: the first five held-out sets (`realbleu_heldout.py` .. `realbleu_heldout5.py`) came
from issue threads of the big peers and from the fix commits of sacrebleu, nltk, torchmetrics, evaluate and the
other toolkits listed in benchmarks/README.md ("Fifth held-out set, blind"). This set draws on sources none of them
used: BLEU code in other languages (a Rust crate, a Java MERT scorer, Moses' bootstrap script), smaller Python
frameworks (ParlAI, TextBox), and a wrong call of a peer's API in a tutorial repository. A bug counts when the diff
shows the wrong code (or the wrong call) and its fix; `url` is the pull request the fix was merged in, or the commit
itself where it was pushed without one. Nothing in the project cited any of them when they were gathered (`oracle/`,
`docs/`, `tests/`, `benchmarks/`, `cases/`, `baselines/`, `reports/`, README, CHANGELOG; searched by URL, by
`owner/name#N`, by the repository's short name and by the commit's hash prefix). `planted_twin` names the three whose
*mechanism* is planted in an earlier collection or a one-bug fake (the controls): two labelled before the run, and
`reference-counts-summed-across-references`, labelled after it, when the README's claim that its mechanism was new was
checked and `mutant_max_ref_sum.py` found to plant it (its citation, kind, stage and fits unchanged). Each bug's
`fits`, the cause names that would count as naming its mechanism (a catalogue name where the diff's mechanism has one,
else the name an ideal cause would have), were judged from the diff alone and committed before any run of `check` on
this fake. `empty-text-split-into-one-empty-token` is half planted elsewhere: its reference side is
`mutant_empty_reference_split.py`'s (and the first held-out set's `blank-reference-one-token`), its hypothesis side
(an empty hypothesis counted as one token) no fake's; it is not labelled a control.

Gathered and left out: ignite's `nltk_smooth2` adding one to the unigram order (pytorch/ignite#1911), a third
duplicate of a mechanism an earlier set holds (realbleu_heldout3's add-one-on-unigrams-too), beyond the two controls
labelled before the run; fix commits that only restore an API (fairseq's scorer config, TextBox's sacrebleu call that
raised on every input), and fixes whose wrong code is this fake's clean convention (multi-bleu.perl's empty references
in the closest length).

    python tests/fakes/realbleu_heldout6.py clean            # the control: correct under papineni
    python tests/fakes/realbleu_heldout6.py BUG              # one held-out bug (names in HELDOUT6_BUGS)
    python tests/fakes/realbleu_heldout6.py clean --no-stats # no statistics in the replies

Written without `oracle` (stdlib only). The library, the wrapper and the protocol loop are realbleu.py's (imported,
not copied): `Heldout6Library` and `Heldout6Wrapper` switch on one bug each and otherwise defer to them, so the
clean twin is realbleu.py's clean twin. Each plant is the diff's wrong code alone: the sources' other conventions
(their tokenizers, shortest reference lengths, sentence averaging, smoothing) are not planted beside it.
"""

from __future__ import annotations

import math
from collections import Counter

if __package__:  # imported as fakes.realbleu_heldout6 (the tests)
    from .realbleu import KINDS, Library, RealBug, Stats, Wrapper, answer
    from .realbleu import main as serve
else:  # run as a script: its directory is on sys.path
    from realbleu import KINDS, Library, RealBug, Stats, Wrapper, answer
    from realbleu import main as serve

__all__ = ["HELDOUT6_BUGS", "KINDS", "Heldout6Library", "Heldout6Wrapper", "answer", "main"]

HELDOUT6_BUGS: dict[str, RealBug] = {
    # -- counting ------------------------------------------------------------------------------------------
    "reference-counts-summed-across-references": RealBug(
        url="https://github.com/shenxiangzhuang/bleuscore/pull/109",
        where="shenxiangzhuang/bleuscore (Rust crate) crates/bleuscore/src/bleu.rs compute_score: the references' "
              "n-gram counts merged with `merged_ref_ngram_counts.entry(key).and_modify(|v| *v += value)"
              ".or_insert(value)`; the fix keeps `*v = max(*v, value)`",
        symptom="fix: use max instead of sum for multi-reference n-gram counts ... Ref 1: \"a\" Ref 2: \"a\" Pred: "
                "\"a a\" Max ref count for \"a\" is 1 ... Precision should be 0.5",
        mechanism="each hypothesis n-gram is clipped to the sum of its counts over the segment's references, not to "
                  "its largest count in any one reference; one-reference segments are counted as sent",
        kind="counting", stage="counting",
        fits=("clipped-to-reference-sum",),
        planted_twin="mutant_max_ref_sum"),  # labelled after the blind run (see the module docstring)
    "totals-from-corpus-length-unclamped": RealBug(
        url="https://github.com/moses-smt/mosesdecoder/commit/08138b44a7ddcab141530496899e334a5d500110",
        where="moses-smt/mosesdecoder scripts/generic/bsbleu.py BleuScore.score (bootstrap BLEU): `self.prec = "
              "[float(hits[n]) / (self.hyplen - n * len(sample)) for n in xrange(self.max_n)]`, n from 0; the fix "
              "sums `max(len(self.hyp.snt[i]) - n, 0)` per segment",
        symptom="Bug fix in scripts/generic/bsbleu.py. (the same diff pushed on another branch as 'Bug fixes in "
                "scripts/generic/bsbleu.py (=> These changes affect the reported BLEU score!)' ... 'correct "
                "computation of total number of ngrams in hypothesis')",
        mechanism="each order's total is the corpus hypothesis length minus (n - 1) per segment, c - (n - 1) x S, "
                  "without clamping a segment shorter than n at zero: segments shorter than n - 1 tokens take "
                  "n-grams away from the others' totals (a total of zero or below divides by zero or takes the log "
                  "of a negative precision); the matches are counted as sent",
        kind="counting", stage="counting",
        fits=("totals-from-corpus-length-unclamped", "totals-not-clamped-at-zero",
              "totals-c-minus-order-per-segment")),
    # -- text: what a token is -----------------------------------------------------------------------------
    "empty-text-split-into-one-empty-token": RealBug(
        url="https://github.com/apache/joshua/commit/aba6062bee95f5dd599bd0f87a7e287d0cf56056",
        where="apache/joshua src/joshua/zmert/BLEU.java (Z-MERT's BLEU, Java): `String[] words = "
              "cand_str.split(\"\\\\s+\")` for the candidate, `wordCount(cand_str)` = `cand_str.split(\"\\\\s+\")"
              ".length` for the references and `getNgramCountsArray(cand_str.split(\"\\\\s+\"))`; in Java "
              "\"\".split(...) is [\"\"], and the fix tests `!cand_str.equals(\"\")` and uses no words and a "
              "length of 0",
        symptom="Fixed a couple of bugs in BLEU.java related to short sentences (< 4 words).",
        mechanism="an empty hypothesis or reference is split into one empty token: its length is 1, not 0, and its "
                  "one unigram is the empty token (so an empty hypothesis against an empty reference matches 1 of "
                  "1); texts with tokens are counted as sent",
        kind="text", stage="tokens",
        fits=("empty-text-one-token",)),
    # -- input structure -----------------------------------------------------------------------------------
    "hypothesis-first-token-sliced-off": RealBug(
        url="https://github.com/facebookresearch/ParlAI/pull/3518",
        where="facebookresearch/ParlAI parlai/core/torch_generator_agent.py (fairseq BLEU of each prediction, fixed "
              "in the PR's commit 'fairseqbleu fix'): `FairseqBleuMetric.compute_many(t[1:], "
              "label_vec[i].unsqueeze(0), ...)` for each prediction t; the fix passes `t`",
        symptom="fairseqbleu fix",
        mechanism="every hypothesis loses its first token before scoring (a start token assumed where there is "
                  "none); the references are scored as sent",
        kind="structure", stage="wrapper",
        fits=("first-token-dropped-in-hypotheses",)),
    # -- combination ---------------------------------------------------------------------------------------
    "individual-bleu-scores-averaged-over-four": RealBug(
        url="https://github.com/RUCAIBox/TextBox/pull/66",
        where="RUCAIBox/TextBox textbox/evaluator/translation_evaluator.py: `bleu_sum += tp_val` over the "
              "individual BLEU-n (fast_bleu with weight 1 on order n alone), then `avg_bleu = bleu_sum / 4.0` "
              "reported as 'avg-bleu'; the fix scores avg-bleu with weights (0.25, 0.25, 0.25, 0.25)",
        symptom="FIX: AVG-Bleu in translation task",
        mechanism="the score is the sum over the requested orders of the individual BLEU-n (BP x p_n) divided by 4 "
                  "whatever the number of orders: the arithmetic mean of the precisions times BP for four orders, "
                  "in place of their weighted geometric mean; the statistics are right",
        kind="combination", stage="combination",
        fits=("arithmetic-mean-of-precisions", "individual-bleu-scores-averaged-over-four",
              "sum-of-individual-bleu-over-4")),
    # -- controls: a mechanism planted elsewhere under another citation ------------------------------------
    "corpus-bleu-references-not-wrapped": RealBug(
        url="https://github.com/kubeflow/examples/pull/51",
        where="kubeflow/examples github_issue_summarization/notebooks/seq2seq_utils.py evaluate_model: nltk's "
              "`corpus_bleu(actual, predicted)` with `actual` a list of token lists (one reference title each); "
              "the fix calls `corpus_bleu([[a] for a in actual], predicted)` ('expects List[List[List[str]]] for "
              "ground truth, using List[List[str]] will give you erroneous results')",
        symptom="Found a mistake with calculation of BLEU Score ... Previous version resulted in the metric being "
                "calculated incorrectly (much, much worse than reality!)",
        mechanism="each segment's reference token list is passed as its list of references: every reference token "
                  "is a reference of its own, read as a sequence of characters (its length the token's length)",
        kind="structure", stage="wrapper",
        fits=("reference-tokens-as-references",),
        planted_twin="real:reference-tokens-as-references"),
    "ngram-keys-joined-without-separator-rust": RealBug(
        url="https://github.com/shenxiangzhuang/bleuscore/pull/13",
        where="shenxiangzhuang/bleuscore (Rust crate) src/ngram.rs get_token_ngram_counter: `let ngram = "
              "tokens[start_index..(start_index + order)].join(\"\")`; the fix joins with \" \" ('can not join "
              "with \"\", which will make 2-gram ('000', '00') = ('0000', '0')')",
        symptom="Adjusted ngram generation logic to ensure correct grouping and counting",
        mechanism="an n-gram is keyed by its tokens joined with no separator, so ('ab', 'c') counts as ('a', 'bc')",
        kind="counting", stage="counting",
        fits=("ngram-keys-concatenated",),
        planted_twin="heldout:ngram-keys-concatenated"),
}


# -- the library: counting -------------------------------------------------------------------------------------


class Heldout6Library(Library):
    """realbleu.py's library with one held-out bug of counting switched on."""

    def ngram_counts(self, tokens, n):
        if self.bug == "ngram-keys-joined-without-separator-rust":
            return Counter("".join(tokens[i:i + n]) for i in range(len(tokens) - n + 1))
        return super().ngram_counts(tokens, n)

    def modified_precision(self, references, hypothesis, n):
        if self.bug != "reference-counts-summed-across-references":
            return super().modified_precision(references, hypothesis, n)
        counts = self.ngram_counts(hypothesis, n)
        merged: Counter = Counter()
        for reference in references:
            merged.update(self.ngram_counts(reference, n))  # bleuscore before #109: `*v += value`
        return sum(min(k, merged[gram]) for gram, k in counts.items()), sum(counts.values())

    def corpus_stats(self, list_of_references, hypotheses, order) -> Stats:
        stats = super().corpus_stats(list_of_references, hypotheses, order)
        if self.bug == "totals-from-corpus-length-unclamped":
            # bsbleu.py: `self.hyplen - n * len(sample)`, n counted from 0, no per-segment clamp at zero
            segments = min(len(list_of_references), len(hypotheses))
            stats = Stats(stats.c, stats.r, stats.matches, [stats.c - n * segments for n in range(order)])
        return stats


# -- the wrapper: text, input structure and combination --------------------------------------------------------


class Heldout6Wrapper(Wrapper):
    """realbleu.py's wrapper over `Heldout6Library`, with one held-out bug of text, structure or combination."""

    def __init__(self, bug: str | None):
        super().__init__(bug)
        self.library = Heldout6Library(bug)

    def score(self, hypotheses, list_of_references, weights, smoothing, level):
        """(score, bp, stats) for the segments of a request."""
        bug, lib = self.bug, self.library
        if bug == "empty-text-split-into-one-empty-token":
            hypotheses = [tokens or [""] for tokens in hypotheses]  # Java: "".split("\\s+") is [""]
            list_of_references = [[tokens or [""] for tokens in group] for group in list_of_references]
        elif bug == "hypothesis-first-token-sliced-off":
            hypotheses = [tokens[1:] for tokens in hypotheses]
        elif bug == "corpus-bleu-references-not-wrapped":
            # corpus_bleu(actual, predicted): each reference token string is a reference, iterated as characters
            list_of_references = [[list(token) for token in group[0]] for group in list_of_references]
        elif bug == "individual-bleu-scores-averaged-over-four":
            return _textbox_average_of_four(lib, hypotheses, list_of_references, weights, smoothing)
        return super().score(hypotheses, list_of_references, weights, smoothing, level)


def _textbox_average_of_four(lib, hypotheses, list_of_references, weights, smoothing):
    """TextBox's 'avg-bleu' before #66: the individual BLEU-n of each requested order (BP x p_n, weight 1 on order n
    alone) summed and divided by 4.0. The statistics are the library's, reported as they are."""
    score, bp, stats = lib.corpus_bleu(list_of_references, hypotheses, weights, smoothing)
    if stats.c == 0:  # the library's own answer for an empty corpus (0, or NaN when r = 0 as well)
        return score, bp, stats
    individual = [bp * (m / t if t else 0.0)
                  for m, t, w in zip(stats.matches, stats.totals, weights, strict=True) if w > 0]
    return math.fsum(individual) / 4.0, bp, stats


def main(argv=None):
    serve(argv, bugs=HELDOUT6_BUGS, make_wrapper=Heldout6Wrapper, prog="realbleu_heldout6")


if __name__ == "__main__":
    main()
