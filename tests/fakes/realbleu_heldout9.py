#!/usr/bin/env python3
"""Ninth held-out real-bug BLEU: bugs from new sources, planted in realbleu.py's library and wrapper.

Issue 36, ninth held-out set: realbleu.py and the first eight held-out sets (`realbleu_heldout.py` ..
`realbleu_heldout8.py`) cite the repositories listed in benchmarks/README.md ("Ninth held-out set, blind"), and the
earlier sets' sections list the repositories they read and rejected; this set draws on none of them: a C++ MT
toolkit's evaluation measure (neubig/travatar), a training library's corpus BLEU metric (fastai/fastai2, the
repository fastai v2 was developed in; the eighth set read and rejected fastai1, another repository), a dialogue
benchmark's evaluator (google/airdialogue) and a JAX framework's WMT example (google/flax; the project names flax only
as a pinned dependency of the metrax peer's environment, never its BLEU code; that code derives from tensor2tensor's
`bleu_hook`, a cited repository, but the bug is the example's own refactoring). A bug counts when a diff shows the
wrong code and its fix; `url` is the pull request that merged the fix, or the fix commit where it was pushed without
one (flax's). No thread here, and no repository, is cited anywhere in the project (`oracle/`, `docs/`, `tests/`,
`benchmarks/`, `cases/`, `baselines/`, `reports/`, README, CHANGELOG; searched by URL, owner, repository name and the
fix commits' hash prefixes before each pre-registration). One bug is a control, labelled before its run
(`planted_twin`): NVIDIA/NeMo's speech-LLM metrics passing each segment's one-reference list where sacrebleu takes
reference streams, realbleu.py's `references-transposed` (the project cites a BLEU bug of another repository of the
same organisation, NVIDIA-NeMo/Skills, never NVIDIA/NeMo). None of the four other mechanisms is
planted by a fake or named by the catalogue as the diff states it (the closest neighbours, read before the
pre-registrations: `individual-bleu-scores-averaged-over-four` and `order-fixed-at-4` for travatar's root,
`longest-text-one-token` as the negation of fastai's trigger, `last-character-chopped` and the special-token probe
beside airdialogue's line end, `error-when-hypothesis-empty` (any one hypothesis empty) beside flax's every
hypothesis empty; each is another computation or a broader trigger, said at each bug).
Gathered in three batches, each pre-registered before its own run: the first three (552a2e3, whose message says fewer
than five were found "by 09:35": it was written at 08:30, a misreading of the clock; the first batch was run at once,
08:31-08:33 UTC), `geo-mean-unbound-when-every-hypothesis-empty`, gathered after that run, its fits committed in
the second pre-registration before its own run (08:34-08:36 UTC), and the control `reference-lists-passed-as-streams`,
gathered after the second run, labelled and its fits committed in a third pre-registration before its own run; no
earlier fit changed.
Each bug's `fits`, the cause names that would count as naming its mechanism (a catalogue name where the diff's
mechanism has one, else the name an ideal cause would have; a mechanism with two faces is fitted by both named
together or by one name for the whole, never by one face alone), were judged from the diff alone and committed
before any run of `check` on this fake.

Gathered and left out (read in their diffs; never by a guess at what the tool would name): airdialogue's earlier
`b = 100 * compute_bleu(...)`, a tuple repeated a hundred times whose first element, the score on a 0-1 scale, was
reported where a percentage was meant (the protocol's scale is the clean twin's: no wrong number to plant, as the
eighth set found for VLMEvalKit's lists times 100); travatar's arithmetic-mean option `log(sum/4)` fixed in the same
diff (an option, not the default, and the sixth set's `individual-bleu-scores-averaged-over-four` mechanism: a third
control) and its expected-BLEU tuning fixes (not BLEU); NVIDIA/OpenSeq2Seq's `emulate_multibleu` toggles and
pytorch/translate's sacrebleu version fixes (interfaces, not scores); M4t1ss/SoftAlignments and
Striveworks/valor (nltk called, no fix of a score); trustyai-explainability's Java BLEU, daormar/thot's C++ BLEU,
jonasknobloch/jinn's Go BLEU, bytedance/neurst, plexusone/opik-go and hyunwoongko/transformer (no fix commit of their
BLEU: a wrong line without a diff is no bug here); NeuralCodeSum, im2markup and nmt-keras (no BLEU fix in their
history).

    python tests/fakes/realbleu_heldout9.py clean            # the control: correct under papineni
    python tests/fakes/realbleu_heldout9.py BUG              # one held-out bug (names in HELDOUT9_BUGS)
    python tests/fakes/realbleu_heldout9.py clean --no-stats # no statistics in the replies

Written without `oracle` (stdlib only). The library, the wrapper and the protocol loop are realbleu.py's (imported,
not copied): `Heldout9Library` and `Heldout9Wrapper` switch on one bug each and otherwise defer to realbleu.py's, so
the clean twin is realbleu.py's clean twin. Each plant is the diff's wrong code alone: the sources' other conventions
(travatar's uniform weights 1/N and its add-k smoothing of orders 2 and up; NeMo's sacrebleu (13a tokens, exp
smoothing, one reference a segment) and its whisper text normaliser; fastai2's four orders whatever is asked,
one target per prediction, token ids; airdialogue's tensorflow/nmt `compute_bleu`, the shortest reference's length,
and its files' split on " "; flax's example's always-on smoothing of an unmatched order, 1 / (2^k t), its
case folding and its 13a-style tokenizer) are not planted beside it; the clean twin's conventions (the request's
orders, weights and smoothing, closest reference length with ties to the shorter, tokens as sent) stand for them.
Flax's trigger is the one its code had: under its own always-on smoothing every precision is 0 only where no order has
a hypothesis n-gram, that is where the corpus's hypotheses are all empty, and the plant raises there and only there
(under the clean twin's unsmoothed precisions the same `if` would also fail on inputs without any match, which the
real code never did).
"""

from __future__ import annotations

import math

if __package__:  # imported as fakes.realbleu_heldout9 (the tests)
    from .realbleu import KINDS, Library, RealBug, Wrapper, answer
    from .realbleu import main as serve
else:  # run as a script: its directory is on sys.path
    from realbleu import KINDS, Library, RealBug, Wrapper, answer
    from realbleu import main as serve

__all__ = ["HELDOUT9_BUGS", "KINDS", "Heldout9Library", "Heldout9Wrapper", "answer", "main"]

HELDOUT9_BUGS: dict[str, RealBug] = {
    # -- combination ---------------------------------------------------------------------------------------
    "geometric-mean-root-fixed-at-4": RealBug(
        url="https://github.com/neubig/travatar/pull/16",
        where="neubig/travatar src/lib/eval-measure-bleu.cc EvalStatsBleu::CalcBleuReport (C++): the precisions "
              "of orders 1..ngram_order are multiplied into `log_bleu` (`log_bleu *= fmeas`), then `log_bleu = "
              "log(log_bleu)/4;` whatever `bleu:order=N` was configured; the fix (a892b46, 'Fixed bug for BLEU "
              "always calculate BLEU-4', merged in the pull request) divides by `ngram_order` and adds a test of "
              "`bleu:order=1` expecting 3/5",
        symptom="Some minor bug fixed in BLEU such as denominator that always be 4 in BLEU calculation",
        mechanism="the log of the product of the N precisions in force is divided by 4 whatever the order N: "
                  "BP x (p_1 ... p_N)^(1/4), each order weighted 1/4 where its weight is 1/N (the tool's weights "
                  "were uniform; under the request's weights each is scaled by N/4). Four orders are right; "
                  "BLEU-1 is p_1^(1/4), BLEU-5 and up are below the score",
        kind="combination", stage="combination",
        fits=("geometric-mean-root-fixed-at-4", "log-precisions-divided-by-four",
              "precision-product-root-4-whatever-order", "weights-scaled-by-order-over-four")),
    # -- errors --------------------------------------------------------------------------------------------
    "ngram-class-unqualified-raises": RealBug(
        url="https://github.com/fastai/fastai2/pull/410",
        where="fastai/fastai2 fastai2/metrics.py CorpusBLEUMetric.get_grams: `return x if n==1 else "
              "[NGram(x[i:i+n], max_n=max_n) for i in range(len(x)-n+1)]`, where `NGram` is a class nested in "
              "CorpusBLEUMetric, so the bare name is undefined; `get_correct_ngrams` calls it on the prediction and "
              "then the target for n = 1..4; the fix (ded770f, 'fixes CorpusBLEU bug') writes `self.NGram`",
        symptom="CorpusBLEU was missing a self. when NGRAM was being called",
        mechanism="building an n-gram of order 2 or more raises NameError, so every input where some hypothesis "
                  "or reference has two tokens or more, at an order of 2 or more, fails; unigrams alone, and texts "
                  "of at most one token, answer (an empty list comprehension never names the class)",
        kind="errors", stage="counting",
        fits=("error-when-a-text-has-two-tokens", "error-when-longest-text-longer-than-one-token",
              "error-when-a-bigram-is-formed", "error-when-text-two-tokens-and-order-above-one")),
    # -- errors (the second pre-registration: gathered after the first three's run, its fits committed before its own)
    "geo-mean-unbound-when-every-hypothesis-empty": RealBug(
        url="https://github.com/google/flax/commit/5f4b50801712bc6aa8660566ccea4e2a419d28fb",
        where="google/flax examples/wmt/bleu.py complete_bleu (the JAX WMT example's BLEU, split from tensor2tensor's "
              "compute_bleu into compute_bleu_matches and complete_bleu, the `geo_mean = 0` initialisation left in "
              "the first): `if max(precisions) > 0: p_log_sum = ...; geo_mean = math.exp(p_log_sum / max_order)` "
              "then `bleu = geo_mean * bp`; the fix ('[jax wmt example] fix indent of bleu code.', pushed without "
              "a pull request) adds `geo_mean = 0.0` before the loop",
        symptom="[jax wmt example] fix indent of bleu code.",
        mechanism="the geometric mean is bound only where some precision is positive; with the example's always-on "
                  "smoothing of unmatched orders that fails only where no order has a hypothesis n-gram, so a corpus "
                  "whose hypotheses are all empty (c = 0) raises UnboundLocalError where it scores 0; one non-empty "
                  "hypothesis anywhere in the corpus answers",
        kind="errors", stage="combination",
        fits=("error-when-hypotheses-all-empty", "error-when-every-hypothesis-empty",
              "error-when-corpus-hypothesis-length-zero")),
    # -- a control (the third pre-registration: gathered after the second run, labelled before its own) ----------
    "reference-lists-passed-as-streams": RealBug(
        url="https://github.com/NVIDIA/NeMo/pull/13762",
        where="NVIDIA/NeMo nemo/collections/speechlm2/parts/metrics/bleu.py (and asr_bleu.py) BLEU.update / compute: "
              "`self._refs[name].append([self.normalizer(ref)])` per segment, then `sacrebleu.corpus_bleu("
              "self._hyps[name], self._refs[name])`, the segments' one-reference lists where sacrebleu takes "
              "reference streams; the pull request ('Rectify speechlm2 BLEU evaluation') appends the reference "
              "itself and passes `[self._refs[name]]`",
        symptom="The previous implementation had an incorrect input format for sacrebleu, leading to incorrect "
                "(possibly inflated) results.",
        mechanism="per-segment reference lists are passed where reference streams are expected: zip(hypotheses, "
                  "*streams) keeps as many segments as the shortest stream (one, each segment holding one "
                  "reference), the first hypothesis scored against every segment's reference",
        kind="structure", stage="wrapper",
        fits=("references-transposed",),
        planted_twin="real:references-transposed"),
    # -- text ----------------------------------------------------------------------------------------------
    "hypothesis-line-end-kept-on-last-token": RealBug(
        url="https://github.com/google/airdialogue/pull/16",
        where="google/airdialogue airdialogue/evaluator/infer_utils.py _bleu: `for line in fh: "
              "translations.append(line.split(\" \"))` over the prediction file, where each reference line goes "
              "through `process_dialogue_infer`, `file_line.split(\"|\")[1][0:-1]` ('get ride of the end token'); "
              "the fix (a1238f7, in the pull request: 'Fixed a bug in evaluating the BLEU scores. The current "
              "version gives higher BLEU scores.') reads `line.rstrip().split(\" \")` and strips the references",
        symptom="Fixed a bug in evaluating the BLEU scores. The current version gives higher BLEU scores.",
        mechanism="each hypothesis is read from its line without stripping the line end: its last token carries "
                  "'\\n' and matches nothing (every n-gram ending with it is unmatched), c unchanged; an empty "
                  "hypothesis is the one token '\\n' (c = 1). References are read stripped",
        kind="text", stage="tokens",
        fits=("hypothesis-line-end-kept-on-last-token", "line-end-kept-on-last-hypothesis-token",
              "newline-appended-to-last-hypothesis-token", "hypothesis-lines-not-stripped")),
}


# -- the library: combination and counting -------------------------------------------------------------------------


class Heldout9Library(Library):
    """realbleu.py's library with one held-out bug of counting or combination (or an error of either) switched on."""

    def ngram_counts(self, tokens, n):
        if self.bug == "ngram-class-unqualified-raises" and n >= 2 and len(tokens) >= n:
            # fastai2 before PR 410: `[NGram(x[i:i+n], ...) for i in range(len(x)-n+1)]`, NGram unbound
            raise NameError("name 'NGram' is not defined")
        return super().ngram_counts(tokens, n)

    def bleu_from_stats(self, stats, weights, smoothing, last_hypothesis_length=0):
        if self.bug == "geo-mean-unbound-when-every-hypothesis-empty" and stats.c == 0:
            # flax before 5f4b508: `geo_mean` assigned under `if max(precisions) > 0` only, read by `geo_mean * bp`
            raise UnboundLocalError("cannot access local variable 'geo_mean' where it is not associated with a value")
        return super().bleu_from_stats(stats, weights, smoothing, last_hypothesis_length)

    def combine(self, m, t, weights):
        if self.bug != "geometric-mean-root-fixed-at-4":
            return super().combine(m, t, weights)
        # travatar before PR 16: `log_bleu = log(log_bleu)/4` over the product of the N precisions: each weight
        # scaled by N/4 (uniform weights 1/N become 1/4); an order of weight 0 stays off, p_n = 0 in force scores 0
        scale = len(weights) / 4
        s = 0.0
        for n, w in enumerate(weights):
            p = m[n] / t[n] if t[n] else 0.0
            if w == 0:
                continue
            if p == 0:
                return 0.0
            s += w * scale * math.log(p)
        return math.exp(s)


class Heldout9Wrapper(Wrapper):
    """realbleu.py's wrapper over `Heldout9Library`."""

    def __init__(self, bug: str | None):
        super().__init__(bug)
        self.library = Heldout9Library(bug)

    def score(self, hypotheses, list_of_references, weights, smoothing, level):
        if self.bug == "reference-lists-passed-as-streams":
            # NeMo speechlm2 before PR 13762: `corpus_bleu(hyps, [[ref_1], [ref_2], ...])`, the lists read as streams
            return self.library.corpus_score_streams(hypotheses, list_of_references, weights, smoothing, lambda r: r)
        if self.bug == "hypothesis-line-end-kept-on-last-token":
            # airdialogue before PR 16: `line.split(" ")` of "tokens...\n": the line end stays on the last token,
            # and the empty line "\n" is one token
            hypotheses = [[*h[:-1], h[-1] + "\n"] if h else ["\n"] for h in hypotheses]
        return super().score(hypotheses, list_of_references, weights, smoothing, level)


def main(argv=None):
    serve(argv, bugs=HELDOUT9_BUGS, make_wrapper=Heldout9Wrapper, prog="realbleu_heldout9")


if __name__ == "__main__":
    main()
