#!/usr/bin/env python3
"""Eleventh held-out real-bug BLEU: bugs from new sources, planted in realbleu.py's library and wrapper.

Issue 36, eleventh held-out set: realbleu.py and the first ten held-out sets (`realbleu_heldout.py` ..
`realbleu_heldout10.py`) cite the repositories listed in benchmarks/README.md ("Eleventh held-out set, blind"), and
the earlier sets' sections list the repositories they read and rejected; this set draws on none of them: an LLM
family's fine-tuning demo (zai-org/GLM-4, formerly THUDM/GLM-4, the GLM-4 repository; the ninth set read THUDM's
ChatGLM-6B and fetched ChatGLM3, other repositories of the same organisation, and the tenth read
hiyouga/ChatGLM-Efficient-Tuning, another project) and a data-to-text NLG toolkit's BLEU measure (UFAL-DSG/tgen; the
project cites ufal/neuralmonkey and the eighth set read tuetschek/e2e-metrics, other repositories of the same
institute and author, never this one). A bug counts when a diff shows the wrong code and its fix; `url` is the fix
commit (each was pushed without a pull request that the history names). No repository here, and no fix commit, is
cited anywhere in the project (`oracle/`, `docs/`, `tests/`, `benchmarks/`, `cases/`, `baselines/`, `reports/`,
README, CHANGELOG; searched by owner, repository name and the fix commits' hash prefixes before the pre-registration).

The first batch, two bugs, is pre-registered so that it can be run blind while the search goes on (the ninth and
tenth sets' way: each later batch pre-registered before its own run, no earlier fit changed): one new mechanism and
one control, labelled before the run (`planted_twin`): tgen's brevity penalty dividing by the corpus's hypothesis
length, which raises where every output is empty (realbleu.py's `bp-divides-by-c`, the catalogue's
`error-when-hypotheses-all-empty`). The new mechanism, `end-and-pad-tokens-decoded-on-both-sides` (GLM-4's
fine-tuning demo decoding its predictions and its labels without `skip_special_tokens`, once the labels' -100 had
been replaced by the pad id: every prediction keeps the end token it stopped at and the pads after it, every label
its appended end token and the pads after it, each side padded to its own longest), is planted by no fake as the diff
states it, and named by no one catalogue mechanism: its neighbours, read before the pre-registration, each hold one
face of it or another combination (`end-token-on-both-sides`, the end token with no padding;
`padding-counted-on-both-sides`, the pads with no end token; `end-token-on-references-and-padding-on-both-sides`, the
end token on the references only, realbleu.py's `padding-counted` with padding to a common width), so the mechanism
is fitted only by its two faces named together (`+`-joined, in either order) or by one name for the whole, never by
one face alone (heldout10's rule for symphony-mt's two tokens). Each bug's `fits`, the cause names that would count
as naming its mechanism (a catalogue name where the diff's mechanism has one, else the name an ideal cause would
have), were judged from the diff alone and committed before any run of `check` on this fake's buggy modes.

Gathered and left out before this pre-registration (read in their diffs; never by a guess at what the tool would
name): agentclash's Go BLEU (method-1 smoothing applied to the unigrams too, fixed by a review commit inside the pull
request that added it: never released code); cshanbo/Smooth_BLEU (a division by an empty translation's length in
its segment-level printout, fixed a day after the script was written: a day's development history) and
sotabench-eval's first machine-translation metric (the mean of nltk's sentence BLEU over strings, replaced by
sacrebleu the next day: the same, and the fourth set's characters mechanism); TextGAN-PyTorch's BLEU (a
GAN-evaluation BLEU against the whole real corpus, its first reference cache removed by a commit that names no bug);
tgen's other BLEU commits (its own copy of mteval ignoring empty references for the brevity penalty, a departure from
mteval and not a bug under it; 1e-5 for an order without n-grams instead of a division by zero, fixed the day the
measure was written; its totals `len(hypothesis) - i`, never clamped at zero, still in the code: no fix) and its
multi-reference data conversion (a plain dict reordering grouped instances: data, not BLEU); TellinaTool/nl2bash's
BLEU (an old nltk copy removed with several bugs at once, one of them hash-order dependent; then nltk's sentence BLEU
over command strings, characters, which the authors kept as a named character-level metric beside a token-level one:
a variant chosen, not a fix); the NVIDIA DeepLearningExamples Transformer's hypotheses given a second line end
(sacrebleu strips it: no score changed); chainer's seq2seq example (`bleu *= 100` removed: a scale chosen);
OpenPrompt's sentence BLEU (an exception caught and scored 0: a workaround of nltk's own error); sumeval, easse,
mindnlp, mateo-demo, nlg-metricverse, SummerTime, LogicNLG, Locomotive, NJUNMT-pytorch, eole, Playinf/nmt, pytext,
bert4keras, CLGE, DualRL, Mem2Seq, RNNLG, NNDIAL, dart, WebNLG GenerationEval, AudioBench, FlashRAG and
minhnguyent546/nmt-en-vi (BLEU histories of additions, refactors, options, scales, tokenizer choices, or a day's
development: no fix of a released score).
Read after the pre-registration and its first run (14:32-14:33 UTC), none added (no second batch was pre-registered):
Kyubyong/transformer's old evaluation (segments whose reference or hypothesis has 3 tokens or fewer left out of the
corpus, and the last partial batch never decoded: two things at once, the first a deliberate filter, both gone with a
rewrite that names no bug); huggingface/notebooks (generated from transformers' docs, a cited repository) and
huggingface/course; allenai/allennlp-models (its BLEU history is allennlp's, a cited repository); lium-lst/nmtpy (its
BLEU fixes are coco-caption's, a cited repository's code); opea-project/GenAIEval (read by the ninth set); and BLEU
histories of additions, options, tokenizer choices or scales, no fix of a score (pcyin/pytorch_basic_nmt, peft,
AI4Bharat's indicTrans and IndicTrans2, masakhane-mt, the DSTC9, DSTC10 and DSTC11 track repositories of alexa,
dl4mt-nonauto, nonauto-nmt, libai, FasterTransformer, lightseq, torsh, neccam/slt).

    python tests/fakes/realbleu_heldout11.py clean            # the control: correct under papineni
    python tests/fakes/realbleu_heldout11.py BUG              # one held-out bug (names in HELDOUT11_BUGS)
    python tests/fakes/realbleu_heldout11.py clean --no-stats # no statistics in the replies

Written without `oracle` (stdlib only). The library, the wrapper and the protocol loop are realbleu.py's (imported,
not copied): `Heldout11Wrapper` switches on one bug each and otherwise defers to realbleu.py's, so the clean twin is
realbleu.py's clean twin. Each plant is the diff's wrong code alone: the sources' other conventions (GLM-4's mean of
nltk sentence BLEU with Chen and Cherry's method 3, over jieba's segmentation of the decoded text, which cuts the
special tokens' strings into pieces; tgen's corpus counts with totals `len(hypothesis) - i` never clamped at zero,
its 1e-5 for an unmatched order, its four orders and its closest reference with ties to the first listed) are not
planted beside it; the clean twin's conventions (the request's orders, weights and smoothing, closest reference
length with ties to the shorter, tokens as sent) stand for them. GLM-4's decoded special tokens are planted as one
token each, spelled as its tokenizer spells them ("<|user|>", the end token its labels carry and its fine-tuned
model stops at; "<|endoftext|>", its pad), and its one label per sample as every reference of a segment.
"""

from __future__ import annotations

import math

if __package__:  # imported as fakes.realbleu_heldout11 (the tests)
    from .realbleu import KINDS, RealBug, Wrapper, answer
    from .realbleu import main as serve
else:  # run as a script: its directory is on sys.path
    from realbleu import KINDS, RealBug, Wrapper, answer
    from realbleu import main as serve

__all__ = ["END", "HELDOUT11_BUGS", "KINDS", "PAD", "Heldout11Wrapper", "answer", "main"]

#: GLM-4's end token (151336, appended to every label by its data processing) and its pad (151329), as decoded
END, PAD = "<|user|>", "<|endoftext|>"

HELDOUT11_BUGS: dict[str, RealBug] = {
    # -- structure ----------------------------------------------------------------------------------------------
    "end-and-pad-tokens-decoded-on-both-sides": RealBug(
        url="https://github.com/zai-org/GLM-4/commit/7a14e5d352ecf45b848cacafe0de414011930c8b",
        where="zai-org/GLM-4 (formerly THUDM/GLM-4) finetune_demo/finetune.py (and finetune_vision.py) "
              "compute_metrics: after a7dbfa5 ('process eval issue') set `batched_pred_ids[batched_pred_ids==-100] "
              "= tokenizer.pad_token_id` and the same for the labels, `pred_txt = tokenizer.decode(pred_ids).strip()` "
              "and `label_txt = tokenizer.decode(label_ids).strip()` kept the special tokens: process_batch_eval "
              "appends 151336 ('<|user|>') to every label's output_ids, the data collator pads them with the pad id "
              "to the batch's longest, generate() pads the finished predictions (which end in the end token they "
              "stopped at) with the pad id, and the trainer pads both across batches with -100; then `jieba.cut` of "
              "each text and `sentence_bleu([label_tokens], pred_tokens, smoothing_function=SmoothingFunction()."
              "method3)` averaged; the fix ('correct compute_metrics function') decodes both with "
              "`skip_special_tokens=True`",
        symptom="correct compute_metrics function",
        mechanism="each prediction is scored with the end token it stopped at and the pad tokens after it, up to the "
                  "longest prediction, and each label with its end token '<|user|>' and the pads after it, up to the "
                  "longest label, each side padded to its own width: every hypothesis gains '<|user|>' then pads to "
                  "the longest hypothesis plus one, every reference '<|user|>' then pads to the longest reference "
                  "plus one; end tokens and pads are counted and match each other across the sides",
        kind="structure", stage="wrapper",
        fits=("end-token-on-both-sides + padding-counted-on-both-sides",
              "padding-counted-on-both-sides + end-token-on-both-sides",
              "end-token-on-both-sides-and-padding-on-both-sides",
              "end-token-and-padding-on-both-sides",
              "end-and-pad-tokens-decoded-on-both-sides")),
    # -- a control (labelled before the run) ----------------------------------------------------------------------
    "brevity-penalty-divides-by-empty-output": RealBug(
        url="https://github.com/UFAL-DSG/tgen/commit/dbcb7aee69720b350d799943edac54fcbfd866fb",
        where="UFAL-DSG/tgen tgen/bleu.py BLEUMeasure.bleu (the accumulator tgen's validation and evaluation score "
              "with): `bp = 1.0; if (self.cand_lens[0] <= self.ref_len): bp = math.exp(1.0 - self.ref_len / "
              "float(self.cand_lens[0]))`, where `cand_lens[0]` is the corpus's summed hypothesis length; the fix "
              "('Bugfix for empty generated sentences') divides by 1e-5 where it is 0",
        symptom="Bugfix for empty generated sentences",
        mechanism="the brevity penalty divides r by the corpus's hypothesis length c without a guard; c = 0 always "
                  "takes the c <= r branch, so a corpus whose hypotheses are all empty raises ZeroDivisionError "
                  "(whatever r, 0 included); one non-empty hypothesis anywhere in the corpus answers",
        kind="errors", stage="combination",
        fits=("error-when-hypotheses-all-empty", "error-when-every-hypothesis-empty",
              "error-when-corpus-hypothesis-length-zero"),
        planted_twin="real:bp-divides-by-c"),
}


def _padded(sequence: list[str], width: int) -> list[str]:
    return [*sequence, *[PAD] * (width - len(sequence))]


class Heldout11Wrapper(Wrapper):
    """realbleu.py's wrapper with one held-out bug switched on."""

    def score(self, hypotheses, list_of_references, weights, smoothing, level):
        lib = self.library
        if self.bug == "end-and-pad-tokens-decoded-on-both-sides":
            # GLM-4 between a7dbfa5 and 7a14e5d: decode(ids) with the special tokens kept. Predictions end in the end
            # token they stopped at, then pads to the longest; labels carry the appended end token, then pads to the
            # longest label; each side its own tensor, so its own width
            hypotheses = [[*h, END] for h in hypotheses]
            list_of_references = [[[*r, END] for r in group] for group in list_of_references]
            hypothesis_width = max(len(h) for h in hypotheses)
            reference_width = max(len(r) for group in list_of_references for r in group)
            hypotheses = [_padded(h, hypothesis_width) for h in hypotheses]
            list_of_references = [[_padded(r, reference_width) for r in group] for group in list_of_references]
            return super().score(hypotheses, list_of_references, weights, smoothing, level)
        if self.bug == "brevity-penalty-divides-by-empty-output":
            # tgen before dbcb7ae: `math.exp(1.0 - self.ref_len / float(self.cand_lens[0]))` whenever c <= r
            stats = lib.corpus_stats(list_of_references, hypotheses, len(weights))
            if stats.c <= stats.r:
                _ = math.exp(1.0 - stats.r / float(stats.c))  # ZeroDivisionError where c = 0; else the clean BP
        return super().score(hypotheses, list_of_references, weights, smoothing, level)


def main(argv=None):
    serve(argv, bugs=HELDOUT11_BUGS, make_wrapper=Heldout11Wrapper, prog="realbleu_heldout11")


if __name__ == "__main__":
    main()
