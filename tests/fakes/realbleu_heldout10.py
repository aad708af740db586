#!/usr/bin/env python3
"""Tenth held-out real-bug BLEU: bugs from new sources, planted in realbleu.py's library and wrapper.

Issue 36, tenth held-out set: realbleu.py and the first nine held-out sets (`realbleu_heldout.py` ..
`realbleu_heldout9.py`) cite the repositories listed in benchmarks/README.md ("Tenth held-out set, blind"), and the
earlier sets' sections list the repositories they read and rejected; this set draws on none of them: a C# sequence-to-
sequence toolkit's BLEU metric (zhongkaifu/Seq2SeqSharp), a dialogue framework's metrics (deeppavlov/DeepPavlov, the
framework repository; the seventh set read deeppavlov/expected_bleu, another repository of the same organisation,
which no set cites) and a model hub's text-generation metric (modelscope/modelscope, the library repository; the
project cites modelscope/ms-swift and the seventh set read modelscope/evalscope, other repositories of the same
organisation, never this one) and, in a second batch, a Scala NMT toolkit's TensorFlow BLEU metric
(eaplatanios/symphony-mt). A bug counts when a diff shows the wrong code and its fix; `url` is the fix commit
(each was pushed without a pull request that the history names). No repository here, and no fix commit, is cited
anywhere in the project (`oracle/`, `docs/`, `tests/`, `benchmarks/`, `cases/`, `baselines/`, `reports/`, README,
CHANGELOG; searched by owner, repository name and the fix commits' hash prefixes before the pre-registration).

The first batch, three bugs, was pre-registered at 11:27 UTC so that it could be run blind while the search went
on (the ninth set's way: each later batch pre-registered before its own run, no earlier fit changed): one new
mechanism and two controls, labelled before the run (`planted_twin`): DeepPavlov's corpus BLEU called with the
predictions as references and the targets as translations (realbleu.py's `hypothesis-reference-swapped`, the
catalogue's `hypothesis-and-references-swapped`) and modelscope's corpus BLEU as the mean of unsmoothed sentence BLEU
(realbleu.py's `mean-of-pair-corpus-bleu`, the catalogue's `mean-of-sentence-bleu`). The new mechanism,
`statistics-accumulated-across-requests` (a metric object's corpus counts never cleared between evaluations), is
planted by no fake and named by no catalogue mechanism as the diff states it (the closest neighbours, read before the
pre-registration: `lengths-kept-by-reset`, lengths kept over a metric's reset within one planned request;
`exp-halvings-carried-over`, a smoothing counter carried between requests; `references-kept-from-first-request`, the
first request's references reused; `earlier-answer-returned`, a cache: each is another state or another part of it).
Each bug's `fits`, the cause names that would count as naming its mechanism (a catalogue name where the diff's
mechanism has one, else the name an ideal cause would have), were judged from the diff alone and committed before any
run of `check` on this fake's buggy modes.

Gathered and left out before this pre-registration (read in their diffs; never by a guess at what the tool would
name): DeepPavlov's other BLEU fixes (its per-item metrics flattening nested targets, an interface; `bleu_advanced`
dividing by a brevity penalty of 0 under its `penalty=False` option, a score without the penalty, not BLEU; its mean of
sentence BLEU replaced by corpus BLEU, modelscope's mechanism again); openai/evals' audio translation task passing each
expected text as its own reference stream (`references-transposed`, the ninth set's control: a third control),
facebookresearch/SimulEval's `sentence_bleu(prediction, reference)` with a string where a list of references is taken
(realbleu.py's `reference-string-as-references`: a third control) and its ASR scorer's tokenizer fixed at 13a (text
the protocol's tokens never reach), sbintuitions/flexeval's per-instance sentence BLEU zipped with the reference
streams (on one segment, the first reference only: a third control) and its score no longer divided by 100 (a scale
chosen, not a bug); louissmit/SSLP's course BLEU (its repository is cited in the catalogue,
oracle/diagnose/mechanisms/counting.py); the BLEU of PaddlePaddle/PaddleSpeech (corpus BLEU over per-segment reference
lists, and times 100 on a percentage) and of google-research/text-to-text-transfer-transformer (per-target lists
passed as streams), both still in the code: no fix, no bug here; RUCAIBox/LLMBox (a corpus score added beside the mean,
no fix), hiyouga/ChatGLM-Efficient-Tuning (a decoding refactor), facebookresearch/fairseq2 (a memory leak), ludwig
(devices and try/except), ConvLab-3 and EuroEval (moves to sacrebleu, formatting); jojonki/BLEU and
Chefslayer/Translator (a day's or a course's development history, no fix of released code), desilinguist/ibleu
(JavaScript globals and whitespace, no score changed); dynamiq's, intel/neural-compressor's, OpenBMB/UltraEval's,
microsoft/promptflow's, baidu/DuReader's, PaddlePaddle/ERNIE's, Knover's, alibaba/EasyNLP's, hpcaitech/ColossalAI's,
kolena's, facebookresearch/stopes', pcyin/tranX's and microsoft/ProphetNet's BLEU histories (additions and refactors,
no fix of a score); mindspore's BleuScore (one stored version, no diff); PaddleOCR's "repair bleu score computation"
pull request (its diff not readable here: the repository is over the size that can be fetched, as the eighth set
found); mlpack's BLEU (cited in the project's suite data). modelscope's fix also strips each text before
`split(' ')`; the plant is the mean alone (the commit names the algorithm, and the strip changes nothing on texts
without surrounding whitespace, which the protocol's tokens joined by single spaces never have).
Read after the first pre-registration and its first run (11:28-11:38 UTC), none added to it:
microsoft/promptbench's BLEU divided by 100 and then, refactored into a static method, a NameError on every call,
both removed by one fix (the scale is the catalogue's `other-scale-of-score`, a third control; the error has no
trigger to name); Aleph-Alpha-Research/eval-framework's line-wise BLEU, `max` of an empty list when every line is
empty (a maximum over lines, not BLEU; its BLEU, the maximum over single references, was removed, never fixed);
facebookresearch/seamless_communication's Chinese conversion (text); and histories without a fix of a score
(ludwig, kolena, flexeval, ConvLab-3, stopes, LLM-Blender, EuroEval, R2Gen,
lca-baselines, commit_message_generation, mozilla/translations, argos-train, Giskard, sacrebleu-rs, crystalbleu).
This docstring's one correction after the pre-registration: evalscope was read by the seventh set, not the ninth.

The second pre-registration (one bug, read after the first batch's runs, its fits committed before its own run; no
earlier fit changed): `decoder-end-token-and-target-start-token-kept`, symphony-mt's TensorFlow BLEU metric scoring
each decoded sequence with its end token "</s>" and each target input with its start token "<s>" (the fix drops the
hypotheses' last token and the references' first). Its two faces are each a catalogue name (`end-token-on-hypotheses`,
`start-token-on-references`, and `special-token-on-*` before the probe refines them); the mechanism is fitted only by
both named together (`+`-joined, in either order) or by one name for the whole, never by one face alone. The tool
scored token ids; the plant's tokens are the vocabulary's strings for them (symphony-mt's `Vocabulary`: "<s>", "</s>"),
and every reference of a segment is marked (the tool had one). Also read in symphony-mt and left out: its "NIST"
smoothing giving an unmatched order `factor * 0 / t`, 0, until a later fix (exp smoothing with no effect, an unmatched
order zeroing the score: the catalogue's `any-order-unmatched-zero`, a third control), its score put on the percent
scale (a scale chosen) and an Int/Long cast fixed (an error on every call, no trigger to name).

    python tests/fakes/realbleu_heldout10.py clean            # the control: correct under papineni
    python tests/fakes/realbleu_heldout10.py BUG              # one held-out bug (names in HELDOUT10_BUGS)
    python tests/fakes/realbleu_heldout10.py clean --no-stats # no statistics in the replies

Written without `oracle` (stdlib only). The library, the wrapper and the protocol loop are realbleu.py's (imported,
not copied): `Heldout10Wrapper` switches on one bug each and otherwise defers to realbleu.py's, so the clean twin is
realbleu.py's clean twin. Each plant is the diff's wrong code alone: the sources' other conventions (Seq2SeqSharp's
case folding, its 0.001 added to each order's total, its closest reference with ties to the first listed, its fixed
order of 4 set at construction; DeepPavlov's tensorflow/nmt `compute_bleu`, the shortest reference's length, no
smoothing, four orders, the first target only; modelscope's nltk `sentence_bleu`, its `split(' ')` and its
`sys.float_info.min` for an unmatched order; symphony-mt's shortest reference length, four orders, no smoothing and
token ids) are not planted beside it; the clean twin's conventions (the request's
orders, weights and smoothing, closest reference length with ties to the shorter, tokens as sent) stand for them.
Seq2SeqSharp's metric held one order, fixed when the metric was built; the plant keeps one running total per number of
orders asked (one metric object per configuration), so that a request of another order neither reads nor changes it.
"""

from __future__ import annotations

import math

if __package__:  # imported as fakes.realbleu_heldout10 (the tests)
    from .realbleu import KINDS, RealBug, Stats, Wrapper, answer
    from .realbleu import main as serve
else:  # run as a script: its directory is on sys.path
    from realbleu import KINDS, RealBug, Stats, Wrapper, answer
    from realbleu import main as serve

__all__ = ["HELDOUT10_BUGS", "KINDS", "Heldout10Wrapper", "answer", "main"]

HELDOUT10_BUGS: dict[str, RealBug] = {
    # -- state ---------------------------------------------------------------------------------------------
    "statistics-accumulated-across-requests": RealBug(
        url="https://github.com/zhongkaifu/Seq2SeqSharp/commit/8042ded85bea0b2216c814c78e96658aa36b9e85",
        where="zhongkaifu/Seq2SeqSharp Seq2SeqSharp/Metrics/BleuMetric.cs (C#): `m_counts = new double[1 + 2 * "
              "m_ngramOrder]` only in the constructor, `Evaluate` adding each sentence's reference length, totals and "
              "clipped matches into `m_counts` (`+=`), `GetScore` combining them; Tools/BaseSeq2SeqFramework.cs "
              "built the metrics once and ran validation with them again and again; the fix ('Reset metric objects "
              "before run valid every time.') adds `ClearStatus()` (a new `m_counts`) and calls it on every metric "
              "before each validation run",
        symptom="Reset metric objects before run valid every time.",
        mechanism="the metric's corpus statistics (c, r, the clipped matches and the totals of every order) are "
                  "added to across every evaluation the object serves and never cleared: each answer is the corpus "
                  "score of the request's segments together with every earlier request's, the first request alone "
                  "being right",
        kind="state", stage="wrapper",
        fits=("statistics-accumulated-across-requests", "statistics-carried-over-between-requests",
              "corpus-statistics-never-reset", "metric-state-never-reset", "earlier-requests-statistics-added")),
    # -- structure (the second pre-registration: read after the first batch's run, its fits committed before its own)
    "decoder-end-token-and-target-start-token-kept": RealBug(
        url="https://github.com/eaplatanios/symphony-mt/commit/a984c661d7bc65ca4db02467e49dae9f65aba2b3",
        where="eaplatanios/symphony-mt mt/src/main/scala/org/platanios/symphony/mt/metrics/BLEU.scala (Scala) "
              "BLEUTensorFlow.counts: `hypSeq` took `s(0 :: len)` of each decoded sequence, whose length counts the "
              "decoder's end token, and `refSeq` took `s(0 :: len)` of each target input, which data/Datasets.scala "
              "builds as `concatenate(tgtBosId, target)` (\"<s>\" then the words, its length counting it); the fix "
              "('Minor fix for the BLEU TF metric.') takes `s(0 :: len - 1)` of the hypotheses and `s(1 :: len)` of "
              "the references",
        symptom="Minor fix for the BLEU TF metric.",
        mechanism="each hypothesis keeps the decoder's end token \"</s>\" as its last token and each reference the "
                  "target input's start token \"<s>\" as its first: both match nothing, c and r each grow by one a "
                  "segment, and each order's total by one a hypothesis long enough for it, the matches unchanged; an "
                  "empty hypothesis is the one token \"</s>\", an empty reference the one token \"<s>\"",
        kind="structure", stage="wrapper",
        fits=("end-token-on-hypotheses + start-token-on-references",
              "start-token-on-references + end-token-on-hypotheses",
              "special-token-on-hypotheses + special-token-on-references",
              "special-token-on-references + special-token-on-hypotheses",
              "end-token-on-hypotheses-and-start-token-on-references",
              "decoder-end-token-and-target-start-token-kept")),
    # -- controls (labelled before the run) -------------------------------------------------------------------
    "corpus-bleu-predictions-as-references": RealBug(
        url="https://github.com/deeppavlov/DeepPavlov/commit/38abbb6a213d26da1b5aca1ecab433f23afadc41",
        where="deeppavlov/DeepPavlov deeppavlov/metrics/bleu.py google_bleu: `compute_bleu(([y.lower().split()] for "
              "y in y_predicted), (y.lower().split() for y in y_true))[0]`, where google_bleu.py's `compute_bleu("
              "reference_corpus, translation_corpus, ...)` (tensorflow/nmt's) takes the references first; the fix "
              "('fix: bleu: ref as y_true, transl as y_pred') passes `[y_t...] for y_t in y_true` as the references "
              "and the predictions as the translations (the same commit swaps `sentence_bleu`'s arguments in the "
              "sentence-mean metrics beside it)",
        symptom="fix: bleu: ref as y_true, transl as y_pred",
        mechanism="the prediction is passed as the (one) reference and the target as the translation scored; with "
                  "several targets, the first (the metric took `y[0]`)",
        kind="structure", stage="wrapper",
        fits=("hypothesis-and-references-swapped", "hypothesis-and-reference-swapped"),
        planted_twin="real:hypothesis-reference-swapped"),
    "mean-of-unsmoothed-sentence-bleu": RealBug(
        url="https://github.com/modelscope/modelscope/commit/53e9f02561081648ead120ca719d0b9c191c781b",
        where="modelscope/modelscope modelscope/metrics/text_generation_metric.py TextGenerationMetric.evaluate: "
              "`bleu_4 = mean(sentence_bleu([tgt], pred) for pred, tgt in zip(pred_split, tgt_split))` (and BLEU-1 "
              "with weights (1, 0, 0, 0)); the fix ('Fix bug for bleu in text generation metrics', 'the BLEU-4 value "
              "was computed too small by a wrong algorithm') calls `corpus_bleu(tgt_list, pred_list, ..., "
              "smoothing_function=SmoothingFunction().method3)`",
        symptom="修复了使用错误算法导致 BLEU-4 值计算结果偏小的问题",
        mechanism="the corpus score is the mean of the segments' sentence BLEU scores, each scored alone with the "
                  "corpus's weights and smoothing, where the corpus's summed statistics make one score",
        kind="combination", stage="combination",
        fits=("mean-of-sentence-bleu", "mean-of-sentence-scores"),
        planted_twin="real:mean-of-pair-corpus-bleu"),
}


class Heldout10Wrapper(Wrapper):
    """realbleu.py's wrapper with one held-out bug switched on; the running totals live here (one per process)."""

    def __init__(self, bug: str | None):
        super().__init__(bug)
        self.running: dict[int, Stats] = {}  #: Seq2SeqSharp's `m_counts`, one per number of orders asked

    def score(self, hypotheses, list_of_references, weights, smoothing, level):
        lib = self.library
        if self.bug == "statistics-accumulated-across-requests":
            # Seq2SeqSharp before 8042ded: `m_counts[...] += ...` in Evaluate, no reset between validation runs
            order = len(weights)
            stats = lib.corpus_stats(list_of_references, hypotheses, order)
            if order in self.running:
                stats = self.running[order] + stats
            self.running[order] = stats
            last = len(hypotheses[-1]) if hypotheses else 0
            score, bp = lib.bleu_from_stats(stats, weights, smoothing, last)
            return score, bp, stats
        if self.bug == "decoder-end-token-and-target-start-token-kept":
            # symphony-mt before a984c66: the decoded sequence to its length (its "</s>" included), the target input
            # to its length ("<s>" first); the tool had one reference a segment, the plant marks every reference
            hypotheses = [[*h, "</s>"] for h in hypotheses]
            list_of_references = [[["<s>", *r] for r in group] for group in list_of_references]
            return super().score(hypotheses, list_of_references, weights, smoothing, level)
        if self.bug == "corpus-bleu-predictions-as-references":
            # DeepPavlov before 38abbb6: compute_bleu(reference_corpus=[[prediction]], translation_corpus=[target])
            return lib.corpus_bleu([[h] for h in hypotheses], [group[0] for group in list_of_references], weights,
                                   smoothing)
        if self.bug == "mean-of-unsmoothed-sentence-bleu":
            # modelscope before 53e9f02: mean(sentence_bleu([tgt], pred) ...); the corpus's statistics reported
            _, bp, stats = lib.corpus_bleu(list_of_references, hypotheses, weights, smoothing)
            if stats.c == 0 and stats.r == 0:
                return math.nan, bp, stats
            scores = [lib.sentence_bleu(refs, hyp, weights, smoothing)[0]
                      for refs, hyp in zip(list_of_references, hypotheses, strict=False)]
            return math.fsum(scores) / len(scores), bp, stats
        return super().score(hypotheses, list_of_references, weights, smoothing, level)


def main(argv=None):
    serve(argv, bugs=HELDOUT10_BUGS, make_wrapper=Heldout10Wrapper, prog="realbleu_heldout10")


if __name__ == "__main__":
    main()
