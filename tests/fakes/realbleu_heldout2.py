#!/usr/bin/env python3
"""Second held-out real-bug BLEU: more bugs from public trackers, planted in realbleu.py's library and wrapper.

Issue 36, second held-out set: the first held-out set (`realbleu_heldout.py`) is being spent (mechanisms are being
written for its misses), so the next blind measure of whether root-cause names generalise needs bugs nobody in the
project has seen. The bugs in `HELDOUT2_BUGS` were gathered from public issue and pull-request threads (`url`) that
nothing in the project cited when they were gathered (`oracle/`, `docs/`, `tests/`, `benchmarks/`, `cases/`,
`baselines/`, README, CHANGELOG), and none is one of the 45 bugs of `realbleu.py` and `realbleu_heldout.py`.
`planted_twin` names the few whose *mechanism* is planted in a fake under another citation (controls, at most 3).
Each bug's `fits`, the cause names that would count as naming its mechanism (a catalogue name where the thread's
mechanism has one, else the name an ideal cause would have), were judged from the thread alone and committed before
any run of `check` on this fake.

    python tests/fakes/realbleu_heldout2.py clean            # the control: correct under papineni
    python tests/fakes/realbleu_heldout2.py BUG              # one held-out bug (names in HELDOUT2_BUGS)
    python tests/fakes/realbleu_heldout2.py clean --no-stats # no statistics in the replies

Written without `oracle` (stdlib only). The library, the wrapper and the protocol loop are realbleu.py's (imported,
not copied): `Heldout2Library` and `Heldout2Wrapper` switch on one bug each and otherwise defer to them, so the
clean twin is realbleu.py's clean twin.
"""

from __future__ import annotations

if __package__:  # imported as fakes.realbleu_heldout2 (the tests)
    from .realbleu import KINDS, Library, RealBug, Stats, Wrapper, answer
    from .realbleu import main as serve
else:  # run as a script: its directory is on sys.path
    from realbleu import KINDS, Library, RealBug, Stats, Wrapper, answer
    from realbleu import main as serve

__all__ = ["HELDOUT2_BUGS", "KINDS", "Heldout2Library", "Heldout2Wrapper", "answer", "main"]

HELDOUT2_BUGS: dict[str, RealBug] = {
    # -- tokens changed before counting --------------------------------------------------------------------
    "hypotheses-lowercased-always": RealBug(
        url="https://github.com/facebookresearch/multiloko/pull/9",
        where="facebookresearch/multiloko eval.py normalisation before exact match and BLEU",
        symptom="LLM outputs are lowercased as part of the normalization, but gold answers are not. This hurts "
                "string-based case-sensitive scores where gold answers are capitalized (e.g. exact match and BLEU).",
        mechanism="every hypothesis token is lowercased whatever the request asks, the references never are (the "
                  "mutant hypothesis-lowercased-only folds one side only where the request asks for folding: "
                  "the same one-sided fold, another trigger)",
        kind="text", stage="tokens",
        fits=("case-folded-hypothesis-only", "hypotheses-lowercased-regardless-of-request")),
    "last-character-chopped": RealBug(
        url="https://github.com/moses-smt/mosesdecoder/pull/201",
        where="moses-smt/mosesdecoder scripts/generic/multi-bleu.perl reading its input with `chop`",
        symptom="multi-bleu.perl uses the chop function to remove the trailing newline character. If one of these "
                "files happens to not end with a newline, then chop will remove the last character of the last line",
        mechanism="the hypotheses reach the script as lines without a final newline (written with '\\n'.join), so "
                  "the last character of the last hypothesis is removed: its last token loses its last character, "
                  "and a last token of one character disappears (the reference files end in a newline)",
        kind="text", stage="tokens",
        fits=("last-character-of-last-hypothesis-chopped", "last-line-chopped")),
    # -- input structure --------------------------------------------------------------------------------------
    "references-truncated-to-8-tokens": RealBug(
        url="https://github.com/mead-ml/mead-baseline/pull/318",
        where="mead-ml/mead-baseline GOVectorizer (targets vectorised with the source's mxlen) and the training BLEU",
        symptom="when a src input is the max length two tokens in the output will be cut off to make room for "
                "`<GO>` and `<EOS>` ... the bleu reported during training (where the targets are the truncated "
                "translations) ... 34% of examples are of length 9 or 10 and therefore get cut off",
        mechanism="the references (targets) are cut to their first mxlen - 2 = 8 tokens (mxlen 10, two places taken "
                  "by <GO> and <EOS>); the hypotheses are not",
        kind="structure", stage="wrapper",
        fits=("references-truncated", "references-truncated-to-8-tokens",
              "references-truncated-to-a-maximum-length")),
    "reference-lists-as-streams-asserted": RealBug(
        url="https://github.com/Maluuba/nlg-eval/issues/135",
        where="Maluuba/nlg-eval NLGEval.compute_metrics(ref_list, hyp_list): `ref_list = [... for refs in "
              "zip(*ref_list)]` then `assert len(refs) == len(hyps)`",
        symptom="I have to have a list of hypotheses and a list of list of references, like hyps=['aaa', 'bbb'] "
                "and refs=[['aa', 'aaa', 'aaaa'], ['bb', 'bbb']] ... I am getting an error indicating that the "
                "length of my `hyp` and `refs` are not equal ... assert len(refs) == len(",
        mechanism="each segment's reference list is passed where nlg-eval expects reference streams: zip(*) "
                  "transposes them (segment i gets the i-th reference of every segment, cut to the fewest "
                  "references), and an AssertionError is raised unless that leaves as many reference groups as "
                  "there are hypotheses (realbleu's references-transposed transposes the same way, silently)",
        kind="structure", stage="wrapper",
        fits=("references-transposed", "references-as-streams",
              "error-when-reference-count-differs-from-segment-count")),
    # -- counting and lengths ------------------------------------------------------------------------------
    "first-hypothesis-length-only": RealBug(
        url="https://github.com/mjpost/sacrebleu/issues/280",
        where="sacrebleu 2.5.1 corpus_bleu (as reported; the thread shows the symptom, not the line)",
        symptom="the returned `sys_len` in the result object only reflects the length of the *first* hypothesis "
                "sentence. The lengths of subsequent hypothesis sentences are not added to `sys_len` ... The "
                "`ref_len` appears to aggregate correctly",
        mechanism="c, the corpus hypothesis length, is the first segment's hypothesis length, not the sum over the "
                  "segments; r and the n-gram counts are summed as they should be",
        kind="counting", stage="lengths",
        fits=("hypothesis-length-of-first-segment-only", "hyp_len-not-summed-over-segments")),
    # -- conventions and combination -------------------------------------------------------------------
    "empty-hypothesis-scores-one": RealBug(
        url="https://github.com/browsermt/students/issues/10",
        where="browsermt/students bestbleu.py compute_bleu (n-best selection by sentence BLEU)",
        symptom="it prefers empty hypothesis ... BLEU of empty line is returning 1 ... "
                "compute_bleu(\"this is what you want\", \" \") 1.0",
        mechanism="a hypothesis with no tokens scores 1 (a perfect score) instead of 0; here: wherever the corpus "
                  "hypothesis length c is 0 the score is 1 (and BP is reported as 1)",
        kind="conventions", stage="combination",
        fits=("empty-hypothesis-scores-one", "empty-hypothesis-perfect-score")),
    # -- smoothing -----------------------------------------------------------------------------------------
    "exp-smoothing-sets-the-precision": RealBug(
        url="https://github.com/nltk/nltk/pull/1300",
        where="nltk.translate.bleu_score SmoothingFunction.method3 (before February 2016)",
        symptom="The smooth should only affect the precision count not the ngram precision itself, so the "
                "`p_i.denominator` needs to be considered, i.e.`(1/2**k) / p_i.denominator`",
        mechanism="exp smoothing (mteval's, nltk method3) gives an unmatched order the precision 1/2^k itself "
                  "instead of the count 1/2^k over the order's total",
        kind="smoothing", stage="smoothing",
        fits=("smoothed-value-as-precision", "exp-smoothing-not-divided-by-total")),
    # -- errors --------------------------------------------------------------------------------------------
    "empty-references-dropped": RealBug(
        url="https://github.com/mjpost/sacrebleu/issues/161",
        where="sacrebleu 2.0 metrics/base.py _cache_references (the code shown in PR #175, which fixes #161)",
        symptom="Sacrebleu 2.0 dies when encountering an empty reference line (PR #175: `lines = [x for x in refs "
                "if x is not None and x != \"\"]` ... `raise RuntimeError(\"Empty or `None` reference sentence "
                "found.\")`)",
        mechanism="a segment's empty references are dropped (a variable number of references), and a segment "
                  "left with none raises RuntimeError",
        kind="errors", stage="wrapper",
        fits=("error-when-reference-empty", "error-when-references-all-empty", "empty-references-dropped")),
    "error-on-one-reference": RealBug(
        url="https://github.com/tylin/coco-caption/issues/4",
        where="tylin/coco-caption pycocoevalcap/bleu/bleu.py Bleu.compute_score sanity check",
        symptom="I notice that coco-caption/pycocoevalcap/bleu/bleu.py has a line 'assert(len(ref)) > 1', which in "
                "my case, I have only one ref per image",
        mechanism="every segment must have more than one reference: a segment with exactly one raises "
                  "AssertionError",
        kind="errors", stage="wrapper",
        fits=("error-when-reference-single", "error-when-references-one", "error-when-one-reference")),
    # -- state ---------------------------------------------------------------------------------------------
    "references-cached-from-first-request": RealBug(
        url="https://github.com/geek-ai/Texygen/issues/27",
        where="geek-ai/Texygen utils/metrics (Self)Bleu: get_reference() reads the reference set once (is_first)",
        symptom="Only in the first time of evaluation that the reference and hypothesis come from the same “test "
                "data”. After that, the hypothesis keeps updated but the reference remains unchanged (due to "
                "“is_first=False”)",
        mechanism="the references of the first request are kept and reused for every later request: segment i "
                  "of a later request is scored against the first request's segment i references (zip stopping "
                  "at the shorter)",
        kind="state", stage="wrapper",
        fits=("references-cached-from-first-request", "earlier-request-references-reused")),
    # -- controls: a mechanism planted elsewhere under another citation ------------------------------------
    "shortest-reference-length-min": RealBug(
        url="https://github.com/tensorflow/nmt/issues/244",
        where="tensorflow/nmt nmt/scripts/bleu.py compute_bleu",
        symptom="In the paper about bleu (Papineni et al., 2002),“We call the closest reference sentence length "
                "the “best match length.”” but in the code of this program,\"best match length\" is the minimum "
                "value of all references",
        mechanism="r is the length of each segment's shortest reference, not of the closest one",
        kind="conventions", stage="lengths",
        fits=("reference_length=shortest",),
        planted_twin="ref-len-shortest"),
    "floor-value-left-at-zero": RealBug(
        url="https://github.com/mjpost/sacrebleu/issues/129",
        where="sacrebleu metrics/bleu.py (floor smoothing default 0.0) called through the compat API",
        symptom="The default value for `floor` smoothing of counts for BLEU is `0.0` ... the precision for a "
                "particular ngram order is still `0.0` after smoothing. Users of the compat API are currently "
                "getting those defaults",
        mechanism="floor smoothing runs with its default value 0.0 instead of the value sent: an unmatched order "
                  "stays at 0",
        kind="smoothing", stage="smoothing",
        fits=("smoothing=none", "floor-value-not-passed-on", "floor-smoothing-value-ignored"),
        planted_twin="floor-ignored"),
    "reference-unk-escaped": RealBug(
        url="https://github.com/facebookresearch/fairseq/issues/423",
        where="facebookresearch/fairseq generate.py (the reference string printed with escape_unk)",
        symptom="if it involves unknown words, it appears to be <unk> in the generated translation, while <<unk>> "
                "in the reference ... so that <unk> and <<unk>> will NOT contribute to BLEU score?",
        mechanism="a reference token <unk> is written <<unk>>, so a hypothesis <unk> never matches it",
        kind="text", stage="tokens",
        fits=("unk-never-matches", "reference-unk-never-matches"),
        planted_twin="unk-never-matches"),
}


# -- the library: counting, lengths, smoothing and combination bugs ------------------------------------------------

#: mead-baseline's mxlen in the thread's data (examples "of length 9 or 10 ... get cut off") less <GO> and <EOS>
MAX_REFERENCE_TOKENS = 8
#: sacrebleu's message when a segment is left without references (PR #175's diff of metrics/base.py)
NO_REFERENCE_MESSAGE = "Empty or `None` reference sentence found."


class Heldout2Library(Library):
    """realbleu.py's library with one held-out bug of lengths, smoothing or combination switched on."""

    def closest_ref_length(self, references, c):
        if self.bug == "shortest-reference-length-min":
            return min(len(reference) for reference in references)  # tensorflow/nmt: min(len(r) for r in references)
        return super().closest_ref_length(references, c)

    def corpus_stats(self, list_of_references, hypotheses, order) -> Stats:
        stats = super().corpus_stats(list_of_references, hypotheses, order)
        if self.bug == "first-hypothesis-length-only" and hypotheses:
            stats.c = len(hypotheses[0])  # sacrebleu#280: sys_len reflects the first hypothesis only
        return stats

    def smoothed(self, stats: Stats, smoothing, last_hypothesis_length):
        method = smoothing.get("method", "none")
        if self.bug == "floor-value-left-at-zero" and method == "floor":
            smoothing = {**smoothing, "value": 0.0}  # the compat API's default, the value sent not passed on
        if self.bug == "exp-smoothing-sets-the-precision" and method == "exp":
            m = [float(x) for x in stats.matches]
            t = [float(x) for x in stats.totals]
            k = 0
            for i in range(len(m)):
                if t[i] > 0 and m[i] == 0:
                    k += 1
                    m[i] = t[i] / 2 ** k  # nltk method3 before #1300: p_n[i] = 1 / (2**incvnt), the precision
            return m, t
        return super().smoothed(stats, smoothing, last_hypothesis_length)

    def bleu_from_stats(self, stats, weights, smoothing, last_hypothesis_length=0):
        if self.bug == "empty-hypothesis-scores-one" and stats.c == 0:
            return 1.0, 1.0  # bestbleu.py: compute_bleu("this is what you want", " ") is 1.0
        return super().bleu_from_stats(stats, weights, smoothing, last_hypothesis_length)


# -- the wrapper: tokens, input structure, errors and state -------------------------------------------------------


def _chop_last_character(hypotheses):
    """multi-bleu.perl's `chop` on a last line without its newline: the last hypothesis loses its last character
    (a last token of one character disappears); the other tokens are kept as they are."""
    if not hypotheses or not hypotheses[-1]:
        return hypotheses
    *head, last = hypotheses[-1]
    return [*hypotheses[:-1], head + ([last[:-1]] if last[:-1] else [])]


class Heldout2Wrapper(Wrapper):
    """realbleu.py's wrapper over `Heldout2Library`, with one held-out bug of tokens, structure, errors or state."""

    def __init__(self, bug: str | None):
        super().__init__(bug)
        self.library = Heldout2Library(bug)
        self.cached_references = None  # references-cached-from-first-request: Texygen's self.reference

    def score(self, hypotheses, list_of_references, weights, smoothing, level):
        """(score, bp, stats) for the segments of a request."""
        bug = self.bug
        if bug == "error-on-one-reference" and any(len(group) <= 1 for group in list_of_references):
            raise AssertionError("assert(len(ref)) > 1")  # pycocoevalcap/bleu/bleu.py
        if bug == "empty-references-dropped":
            list_of_references = [[r for r in group if r] for group in list_of_references]
            if any(not group for group in list_of_references):
                raise RuntimeError(NO_REFERENCE_MESSAGE)
        elif bug == "reference-lists-as-streams-asserted":
            # nlg-eval: ref_list = [... for refs in zip(*ref_list)], zip stopping at the fewest references
            list_of_references = [list(group) for group in zip(*list_of_references, strict=False)]
            if len(list_of_references) != len(hypotheses):
                raise AssertionError("assert len(refs) == len(hyps)")
        elif bug == "references-cached-from-first-request":
            if self.cached_references is None:
                self.cached_references = list_of_references
            list_of_references = self.cached_references
        elif bug == "references-truncated-to-8-tokens":
            list_of_references = [[r[:MAX_REFERENCE_TOKENS] for r in group] for group in list_of_references]
        elif bug == "hypotheses-lowercased-always":
            hypotheses = [[token.lower() for token in h] for h in hypotheses]
        elif bug == "last-character-chopped":
            hypotheses = _chop_last_character(hypotheses)
        elif bug == "reference-unk-escaped":
            list_of_references = [[["<<unk>>" if t == "<unk>" else t for t in r] for r in group]
                                  for group in list_of_references]
        return super().score(hypotheses, list_of_references, weights, smoothing, level)


def main(argv=None):
    serve(argv, bugs=HELDOUT2_BUGS, make_wrapper=Heldout2Wrapper, prog="realbleu_heldout2")


if __name__ == "__main__":
    main()
