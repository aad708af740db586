#!/usr/bin/env python3
"""Third held-out real-bug BLEU: more bugs from public trackers, planted in realbleu.py's library and wrapper.

Issue 36, third held-out set: the first two held-out sets (`realbleu_heldout.py`, `realbleu_heldout2.py`) are spent,
so the next blind measure of whether root-cause names generalise needs bugs nobody in the project has seen. The bugs
in `HELDOUT3_BUGS` were gathered from public issue and pull-request threads (`url`) that nothing in the project cited
when they were gathered (`oracle/`, `docs/`, `tests/`, `benchmarks/`, `cases/`, `baselines/`, README, CHANGELOG),
and none is one of the bugs of `realbleu.py`, `realbleu_heldout.py` and `realbleu_heldout2.py`. `planted_twin`
names the few whose *mechanism* is planted in a fake under another citation (controls, at most 3). Each bug's
`fits`, the cause names that would count as naming its mechanism (a catalogue name where the thread's mechanism has
one, else the name an ideal cause would have), were judged from the thread alone and committed before any run of
`check` on this fake.

    python tests/fakes/realbleu_heldout3.py clean            # the control: correct under papineni
    python tests/fakes/realbleu_heldout3.py BUG              # one held-out bug (names in HELDOUT3_BUGS)
    python tests/fakes/realbleu_heldout3.py clean --no-stats # no statistics in the replies

Written without `oracle` (stdlib only). The library, the wrapper and the protocol loop are realbleu.py's (imported,
not copied): `Heldout3Library` and `Heldout3Wrapper` switch on one bug each and otherwise defer to them, so the
clean twin is realbleu.py's clean twin.
"""

from __future__ import annotations

import math
import re

if __package__:  # imported as fakes.realbleu_heldout3 (the tests)
    from .realbleu import KINDS, Library, RealBug, Wrapper, answer
    from .realbleu import main as serve
else:  # run as a script: its directory is on sys.path
    from realbleu import KINDS, Library, RealBug, Wrapper, answer
    from realbleu import main as serve

__all__ = ["HELDOUT3_BUGS", "KINDS", "Heldout3Library", "Heldout3Wrapper", "answer", "main"]

HELDOUT3_BUGS: dict[str, RealBug] = {
    # -- combination: how the precisions become a score ----------------------------------------------------
    "max-over-single-references": RealBug(
        url="https://github.com/voidful/BDG/issues/12",
        where="voidful/BDG distractor-generation evaluation (as the maintainer describes it in the thread)",
        symptom="We will calculate score for each generated distractor: ... —> he had paid Peter all the money / his "
                "wife didn't let him do so / he did not want to pay back the money ... For each data, we will get "
                "the highest score as this distractor score",
        mechanism="each hypothesis is scored against each of its references alone (sentence BLEU, one reference), "
                  "the highest of those scores is its score, and the corpus score is the mean of the segments' "
                  "scores (the statistics returned are the corpus's, right)",
        kind="structure", stage="combination",
        fits=("max-over-single-reference-scores", "best-single-reference-score")),
    # -- tokens changed before counting --------------------------------------------------------------------
    "references-cut-at-line-break": RealBug(
        url="https://github.com/AhmedSSoliman/MarianCG-NL-to-Code/issues/1",
        where="AhmedSSoliman/MarianCG-NL-to-Code: references.txt written one reference a line for the BLEU script",
        symptom="It seems to me that you've truncated references unintentionally in CoNaLa test ... few code "
                "snippets with line feed was truncated (for example, `for fn in os.listdir('.'):`)",
        mechanism="each reference is cut at its first line break: the token holding it keeps only the part before "
                  "it (and goes if that part is empty) and every later token of that reference is lost; the "
                  "hypotheses are kept whole",
        kind="text", stage="tokens",
        fits=("references-cut-at-first-line-break", "references-truncated-at-line-break")),
    # -- lengths -------------------------------------------------------------------------------------------
    "reference-length-of-last-segment": RealBug(
        url="https://github.com/pytorch/text/pull/627",
        where="pytorch/text torchtext/data/metrics.py bleu_score as reviewed in the PR (the diff in the review thread: "
              "`refs_len = min(...)` inside the loop over segments, beside `candidate_len += len(candidate)`)",
        symptom="candidate_len += len(candidate) ... # Get the length of the reference that's closest in length to the "
                "candidate ... refs_len = min(refs_len_list, key=lambda x: abs(len(candidate) - x))",
        mechanism="r is assigned, not added, in the loop over the segments: the corpus r is the last segment's closest "
                  "reference length, while c and the n-gram counts are summed over every segment",
        kind="counting", stage="lengths",
        fits=("reference-length-of-last-segment-only", "ref_len-not-summed-over-segments")),
    # -- tokens changed before counting (2) --------------------------------------------------------------
    "parenthesised-text-removed": RealBug(
        url="https://github.com/espnet/espnet/issues/2363",
        where="espnet/espnet utils/score_bleu.sh: the sed removing the utterance ids `(...)` from the hypothesis and "
              "reference lines before BLEU",
        symptom="tokens such as `(_Gelächter_)` and `(_Applaus_)` are removed from both the reference and the "
                "hypothesis ... (they seem to remove everything between parentheses)",
        mechanism="on every hypothesis and reference line, each span from '(' to the next ')' with at least one "
                  "character between is deleted (the utterance-id removal applied anywhere in the line, not only at "
                  "its end), and the line is split on whitespace again",
        kind="text", stage="tokens",
        fits=("parenthesised-text-removed", "text-between-parentheses-removed")),
    "padding-counted-in-hypotheses": RealBug(
        url="https://github.com/joeynmt/joeynmt/issues/95",
        where="joeynmt/joeynmt: decoded hypotheses turned back into words with the padding after them kept",
        symptom="there are <pad> at the end of some generated sentences ... but/and horses then- redup- tell s.o. - "
                "<pad> <pad><pad> ... if your model for some reason does not generate EOS, then the padding will be "
                "visible",
        mechanism="every hypothesis is padded with <pad> to the longest hypothesis of the batch (the request) and the "
                  "pads are counted as tokens; the references are untouched",
        kind="text", stage="tokens",
        fits=("padding-counted-in-hypotheses",)),
    # -- controls: a mechanism planted elsewhere under another citation ------------------------------------
    "add-one-on-unigrams-too": RealBug(
        url="https://github.com/nltk/nltk/issues/2571",
        where="nltk.translate.bleu_score SmoothingFunction.method2",
        symptom="second smoothing function should add 1 to both numerator & denominator of precision score for all "
                "n-grams where n >= 2. However, we can see from the code that it adds 1 to precision score "
                "corresponding to every n-gram including unigrams.",
        mechanism="add-k smoothing adds k to the matches and the total of every order, unigrams included",
        kind="smoothing", stage="smoothing",
        fits=("add-k-on-every-order",),
        planted_twin="add-k-unigrams"),
    "sacrebleu-arguments-swapped": RealBug(
        url="https://github.com/hemingkx/ChineseNMT/issues/2",
        where="hemingkx/ChineseNMT train.py: `res = [res]; bleu = sacrebleu.corpus_bleu(trg, res, tokenize='zh')`",
        symptom="instead of: res = [res] bleu = sacrebleu.corpus_bleu(trg, res, tokenize='zh') I changed it to: "
                "trg = [trg] bleu = sacrebleu.corpus_bleu(res, trg, tokenize='zh')",
        mechanism="the references are passed as the hypotheses and the model's outputs as the (one) reference "
                  "stream: each segment's first reference is scored against its hypothesis",
        kind="structure", stage="wrapper",
        fits=("hypothesis-and-references-swapped",),
        planted_twin="swap-hypothesis-references"),
    "zero-precision-orders-dropped": RealBug(
        url="https://github.com/nltk/nltk/issues/1984",
        where="nltk.translate.bleu_score 3.2.5: SmoothingFunction.method0 keeps only the precisions with a non-zero "
              "numerator, and corpus_bleu returns 0 where no unigram matches",
        symptom="sentence_bleu([['how', 'are', 'you', '??']], ['aaa', 'bbb', 'ccc', '??'], weights=(0,1)) 1.0 ... "
                "weights=(0.5,0.5)) 0.5 ... It seems that there are bugs when using n-th order BLEU scores with no "
                "n-gram overlaps.",
        mechanism="without smoothing, every order with no match (an order without n-grams too) is dropped from the "
                  "precisions, which are then zipped with the weights from the first (the orders dropped are always "
                  "the highest, so each precision left keeps its own weight); a corpus with no unigram match scores 0",
        kind="combination", stage="combination",
        fits=("zero-precision-dropped",),
        planted_twin="zero-match-orders-skipped"),
}


# -- the library: combination bugs -------------------------------------------------------------------------------


class Heldout3Library(Library):
    """realbleu.py's library with one held-out bug of smoothing or combination switched on."""

    def corpus_stats(self, list_of_references, hypotheses, order):
        stats = super().corpus_stats(list_of_references, hypotheses, order)
        if self.bug == "reference-length-of-last-segment" and hypotheses:
            # torchtext (as reviewed): refs_len = min(refs_len_list, key=...) inside the loop: the last segment's
            stats.r = self.closest_ref_length(list_of_references[-1], len(hypotheses[-1]))
        return stats

    def smoothed(self, stats, smoothing, last_hypothesis_length):
        m, t = super().smoothed(stats, smoothing, last_hypothesis_length)
        if self.bug == "add-one-on-unigrams-too" and smoothing.get("method", "none") == "add-k" and m:
            k = float(smoothing.get("k", 1.0))
            m[0] += k  # nltk method2: Fraction(p_i.numerator + 1, p_i.denominator + 1) for every p_i, p_1 as well
            t[0] += k
        return m, t

    def bleu_from_stats(self, stats, weights, smoothing, last_hypothesis_length=0):
        score, bp = super().bleu_from_stats(stats, weights, smoothing, last_hypothesis_length)
        if stats.c == 0 or math.isnan(score) or smoothing.get("method", "none") != "none":
            return score, bp
        precisions = [(m / t if t else 0.0) for m, t in zip(stats.matches, stats.totals, strict=True)]
        if all(precisions):  # no order to leave out: the clean computation, to the last bit
            return score, bp
        if self.bug == "zero-precision-orders-dropped":
            if not stats.matches[0]:
                return 0.0, bp  # nltk 3.2.5: `if p_numerators[1] == 0: return 0`
            kept = [p for p in precisions if p]  # method0: p_n_new.append(p_i) only where p_i.numerator != 0
            # corpus_bleu: s = (w * math.log(p_i) for i, (w, p_i) in enumerate(zip(weights, p_n))): zip stops at kept
            return bp * math.exp(math.fsum(w * math.log(p) for w, p in zip(weights, kept, strict=False))), bp
        return score, bp


# -- the wrapper: tokens and input structure ---------------------------------------------------------------------


def _cut_at_line_break(reference):
    """A reference written as one line and read back: only what precedes its first line break is kept."""
    kept = []
    for token in reference:
        if "\n" in token:
            head = token.split("\n", 1)[0]
            return kept + ([head] if head else [])
        kept.append(token)
    return kept


#: joeynmt's padding symbol, as the thread shows it
PAD = "<pad>"
#: score_bleu.sh's utterance-id removal: every `(...)` span with at least one character between, anywhere in the line
PARENTHESISED = re.compile(r"\([^)]+\)")


def _without_parenthesised(tokens):
    """The line (tokens joined by spaces) with its parenthesised spans deleted, split on whitespace again; a line
    without one is left as it is."""
    line = " ".join(tokens)
    cleaned = PARENTHESISED.sub("", line)
    return tokens if cleaned == line else cleaned.split()


class Heldout3Wrapper(Wrapper):
    """realbleu.py's wrapper over `Heldout3Library`, with one held-out bug of tokens or input structure."""

    def __init__(self, bug: str | None):
        super().__init__(bug)
        self.library = Heldout3Library(bug)

    def score(self, hypotheses, list_of_references, weights, smoothing, level):
        """(score, bp, stats) for the segments of a request."""
        bug, lib = self.bug, self.library
        if bug == "parenthesised-text-removed":
            hypotheses = [_without_parenthesised(h) for h in hypotheses]
            list_of_references = [[_without_parenthesised(r) for r in group] for group in list_of_references]
        elif bug == "padding-counted-in-hypotheses":
            width = max(len(h) for h in hypotheses)
            hypotheses = [[*h, *[PAD] * (width - len(h))] for h in hypotheses]
        elif bug == "references-cut-at-line-break":
            list_of_references = [[_cut_at_line_break(r) for r in group] for group in list_of_references]
        elif bug == "sacrebleu-arguments-swapped":
            # corpus_bleu(trg, [res]): the references' first stream as the system output, the outputs as references
            return lib.corpus_bleu([[h] for h in hypotheses], [group[0] for group in list_of_references], weights,
                                   smoothing)
        elif bug == "max-over-single-references":
            _, bp, stats = lib.corpus_bleu(list_of_references, hypotheses, weights, smoothing)
            if stats.c == 0 and stats.r == 0:
                return math.nan, bp, stats
            best = [max(_zero_for_nan(lib.sentence_bleu([r], h, weights, smoothing)[0]) for r in group)
                    for h, group in zip(hypotheses, list_of_references, strict=True)]
            return math.fsum(best) / len(best), bp, stats
        return super().score(hypotheses, list_of_references, weights, smoothing, level)


def _zero_for_nan(score):
    """A pair with no tokens on either side (NaN under papineni) counted 0, as a distractor that scores nothing."""
    return 0.0 if math.isnan(score) else score


def main(argv=None):
    serve(argv, bugs=HELDOUT3_BUGS, make_wrapper=Heldout3Wrapper, prog="realbleu_heldout3")


if __name__ == "__main__":
    main()
