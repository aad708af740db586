#!/usr/bin/env python3
"""Fifth held-out real-bug BLEU: bugs read from peers' own fix commits, planted in realbleu.py's library and wrapper.

Issue 36, fifth held-out set: the first four held-out sets (`realbleu_heldout.py` .. `realbleu_heldout4.py`) came
from issue and pull-request threads, and the stored threads are now mostly cited, so this set draws on another
source: the peers' own fix commits and changelogs (`git log --all -i --grep=bleu` of their repositories, each fix read
in its diff). A bug counts when the diff shows the wrong code and its fix; `url` is the pull request the fix was
merged in, or the commit itself where it was pushed without one. Nothing in the project cited any of them when they
were gathered (`oracle/`, `docs/`, `tests/`, `benchmarks/`, `cases/`, `baselines/`, `reports/`, README, CHANGELOG;
searched by URL, by `owner/name#N`, by the repository's short name with the number, and by the commit's hash prefix),
and none is one of the bugs of the earlier collections. `planted_twin` names the few whose *mechanism* is planted in
a fake under another citation (controls, at most 3). Each bug's `fits`, the cause names that would count as naming its
mechanism (a catalogue name where the diff's mechanism has one, else the name an ideal cause would have), were judged
from the diff alone and committed before any run of `check` on this fake.

    python tests/fakes/realbleu_heldout5.py clean            # the control: correct under papineni
    python tests/fakes/realbleu_heldout5.py BUG              # one held-out bug (names in HELDOUT5_BUGS)
    python tests/fakes/realbleu_heldout5.py clean --no-stats # no statistics in the replies

Written without `oracle` (stdlib only). The library, the wrapper and the protocol loop are realbleu.py's (imported,
not copied): `Heldout5Library` and `Heldout5Wrapper` switch on one bug each and otherwise defer to them, so the
clean twin is realbleu.py's clean twin. Each plant is the diff's wrong code alone: the peers' other conventions (their
tokenizers, case folding, smoothing defaults) are not planted beside it.
"""

from __future__ import annotations

import math
import re

if __package__:  # imported as fakes.realbleu_heldout5 (the tests)
    from .realbleu import KINDS, Library, RealBug, Wrapper, answer
    from .realbleu import main as serve
else:  # run as a script: its directory is on sys.path
    from realbleu import KINDS, Library, RealBug, Wrapper, answer
    from realbleu import main as serve

__all__ = ["HELDOUT5_BUGS", "KINDS", "Heldout5Library", "Heldout5Wrapper", "answer", "main"]

HELDOUT5_BUGS: dict[str, RealBug] = {
    # -- input structure -----------------------------------------------------------------------------------
    "empty-hypothesis-replaced-by-first-reference": RealBug(
        url="https://github.com/mjpost/sacrebleu/pull/134",
        where="mjpost/sacrebleu sacrebleu/metrics/bleu.py BLEU.corpus_score before this PR: `fhs = [sys_stream] + "
              "ref_streams; for lines in zip(*fhs): lines = [x for x in lines if x is not None and x != \"\"]; if "
              "len(lines) < 2: raise EOFError(\"No valid references for a sentence!\")`, then `output, *refs = "
              "lines`; the fix keeps the hypothesis out of the filter (`for output, *refs in zip(sys_stream, "
              "*ref_streams)`)",
        symptom="BLEU variable references: fix for empty hypotheses ... remove undefined/empty references ... but "
                "keep empty hypothesis (it's always defined thanks to the sanity check above)",
        mechanism="an empty hypothesis is filtered out with the empty references, so the segment's first non-empty "
                  "reference is scored as its hypothesis against the non-empty references after it; where fewer "
                  "than two non-empty references remain (one reference, the common case), EOFError is raised. "
                  "Segments with a non-empty hypothesis are scored as sent",
        kind="structure", stage="wrapper",
        fits=("empty-hypothesis-replaced-by-first-reference", "first-reference-as-hypothesis-when-hypothesis-empty",
              "error-when-hypothesis-empty", "error-when-hypothesis-empty-and-references-one")),
    "lines-split-at-unicode-line-breaks": RealBug(
        url="https://github.com/tensorflow/tensor2tensor/commit/a4b148fd2fb10473ac2454e902f8ac960c75160f",
        where="tensorflow/tensor2tensor tensor2tensor/utils/bleu_hook.py bleu_wrapper: the reference and hypothesis "
              "files read with `.read()).splitlines()`, `assert len(ref_lines) == len(hyp_lines)`, then one "
              "reference line per hypothesis line; the fix reads them with `.split(\"\\n\")`",
        symptom="Make t2t_bleu / bleu_hook robust to unexpected unicode line breaks.",
        mechanism="each side's segments are written one a line and read back with str.splitlines, which also ends a "
                  "line at \\r, \\x0b, \\x0c, \\x1c-\\x1e, \\x85, U+2028 and U+2029: a token holding one of them "
                  "cuts its segment into two lines (the piece before it ends one line, the piece after starts the "
                  "next); when the two sides then have different line counts an AssertionError is raised, and "
                  "when they have the same the i-th hypothesis line is scored against the i-th reference line "
                  "(planted on requests whose segments all have the same number of references, one file per "
                  "reference, as t2t-bleu takes them; '\\n' itself splits before and after the fix and is not "
                  "planted)",
        kind="structure", stage="wrapper",
        fits=("lines-split-at-unicode-line-breaks", "segments-split-at-line-breaks", "error-when-text-line-break")),
    "reference-lines-split-at-carriage-return": RealBug(
        url="https://github.com/awslabs/sockeye/commit/db51054c2e4b3a73316fa6ac5f693f2a4371ebde",
        where="awslabs/sockeye sockeye_contrib/sacrebleu/sacrebleu.py smart_open: `open(file, mode=mode, "
              "encoding=encoding)` (universal newlines) for the reference files, then `for lines in "
              "zip_longest(*fhs): if None in lines: raise EOFError(...)`; the fix opens with `newline='\\n'`",
        symptom="A reference file if not managed properly (imported from windows system) can trigger ctrl+M "
                "characters. A file with ctrl+M characters is read as new line in sacreBleu script.",
        mechanism="a reference read back from its file with universal newlines is cut at every carriage return not "
                  "followed by a line feed, so its reference stream has more lines than the hypotheses and "
                  "zip_longest raises EOFError ('Source and reference streams have different lengths!'); references "
                  "without a lone '\\r' are scored as sent",
        kind="errors", stage="wrapper",
        fits=("error-when-text-line-break", "error-when-reference-carriage-return",
              "reference-lines-split-at-carriage-return")),
    # -- errors --------------------------------------------------------------------------------------------
    "closest-length-tie-stores-len-builtin": RealBug(
        url="https://github.com/mjpost/sacrebleu/commit/e9d1f83c3945fa767b8f480a4d1ec9b6d9775045",
        where="mjpost/sacrebleu sacrebleu.py ref_stats (1.0.x; the changelog of 1.0.3: 'Bugfix in handling reference "
              "length with multiple refs'): `elif diff == closest_diff: if reflen < closest_len: closest_len = len`, "
              "then corpus_bleu's `ref_len += closest_len`; the fix assigns `reflen`",
        symptom="Fix closest_len = len issue.",
        mechanism="walking a segment's references in order, a reference as close to the hypothesis length as the "
                  "closest so far but shorter stores the built-in function `len` as the closest length; the next "
                  "equally close reference compares an int with it and the corpus sum adds it (TypeError either "
                  "way) unless a strictly closer reference comes later and replaces it",
        kind="errors", stage="lengths",
        fits=("error-when-closest-references-tie", "error-when-reference-lengths-tie",
              "error-when-references-equally-close-shorter-later")),
    "single-segment-batch-squeezed": RealBug(
        url="https://github.com/tensorflow/tensor2tensor/commit/92101af0f2fbc4e16557fd688bde9cd9cc33a452",
        where="tensorflow/tensor2tensor tensor2tensor/utils/bleu_hook.py bleu_score: `outputs = tf.squeeze(outputs)`, "
              "`labels = tf.squeeze(labels)` before `tf.py_func(compute_bleu, (labels, outputs), tf.float32)`; the "
              "fix squeezes only `axis=[-1, -2]`",
        symptom="Bug fix, specify axis for squeeze when computing BLEU score",
        mechanism="the [batch, length, 1, 1] id tensors are squeezed on every axis of size 1: a batch of one segment, "
                  "or a batch whose padded length is one token (every hypothesis and reference at most one token "
                  "long), loses that axis, so compute_bleu iterates token ids (or batch entries) as segments and "
                  "`len()` of an integer raises TypeError; other batches are scored as sent (t2t's other departures, "
                  "padding counted and zero precisions skipped, are not planted)",
        kind="errors", stage="wrapper",
        fits=("error-when-segments-one", "error-when-segment-one-or-every-text-one-token",
              "error-when-batch-axis-squeezed")),
    # -- controls: a mechanism planted elsewhere under another citation ------------------------------------
    "reference-lists-as-streams-zip-longest": RealBug(
        url="https://github.com/huggingface/datasets/pull/520",
        where="huggingface/datasets metrics/sacrebleu/sacrebleu.py (carried into huggingface/evaluate's history as "
              "dbf4665): `scb.corpus_bleu(sys_stream=predictions, ref_streams=references, ...)` with references "
              "grouped per prediction; the fix transposes them into streams and raises ValueError for varying "
              "reference counts",
        symptom="Transform references for sacrebleu ... Raise error for varying number of sacrebleu references",
        mechanism="the per-segment reference lists are passed as sacrebleu's reference streams: sacrebleu 1.4 "
                  "zips the hypotheses with them by zip_longest, so EOFError is raised unless every segment has as "
                  "many references as there are segments, and then segment i is scored against the i-th reference "
                  "of every segment",
        kind="structure", stage="wrapper",
        fits=("references-transposed",),
        planted_twin="real:references-transposed"),
    "chen-cherry-4-precedence-nltk-3-5": RealBug(
        url="https://github.com/nltk/nltk/pull/2681",
        where="nltk/nltk nltk/translate/bleu_score.py SmoothingFunction.method4 (nltk 3.5): `if p_i.numerator == 0 "
              "and hyp_len != 0: incvnt = i + 1 * self.k / math.log(hyp_len); p_n[i] = incvnt / "
              "p_i.denominator`, hyp_len the corpus's hypothesis length; the fix computes 1 / (2^j K / ln(hyp_len)) "
              "with j counting the unmatched orders, and guards `hyp_len > 1`",
        symptom="fix bug in calculating BLEU using smoothing 4 ... fix ZeroDivisionError",
        mechanism="chen-cherry-4's smoothed count of an unmatched order (with n-grams) is i + K/ln(c), i the order's "
                  "0-based index and c the corpus's hypothesis length, over the order's total; a corpus of one "
                  "hypothesis token with an unmatched order divides by ln(1) = 0 (ZeroDivisionError)",
        kind="smoothing", stage="smoothing",
        fits=("chen-cherry-4-precedence",
              "error-when-hypothesis-one-token-and-smoothing-chen-cherry-4-and-precision-zero"),
        planted_twin="real:chen-cherry-4-precedence"),
    "sentence-level-several-references-eoferror": RealBug(
        url="https://github.com/mjpost/sacrebleu/pull/51",
        where="mjpost/sacrebleu sacrebleu.py main, --sentence-level (1.4.1): `sentence_bleu(output, [references], "
              "...)`, the segment's references as one stream of several lines against a one-line system stream, "
              "which corpus_bleu's `zip_longest(*fhs)` rejects; the fix passes `[[x] for x in references]`",
        symptom="bugfix in passing multiple refs to sentence_bleu",
        mechanism="sentence-level scoring of a segment with two or more references raises EOFError ('Source and "
                  "reference streams have different lengths!'); one reference, or corpus-level requests, are scored "
                  "as sent",
        kind="errors", stage="wrapper",
        fits=("error-when-level-sentence-and-references-several", "error-when-references-several-and-level-sentence",
              "error-when-references-several"),
        planted_twin="real:error-on-several-references"),
}


# -- the library: lengths and smoothing ------------------------------------------------------------------------


class Heldout5Library(Library):
    """realbleu.py's library with one held-out bug of lengths or smoothing switched on."""

    def closest_ref_length(self, references, c):
        if self.bug == "closest-length-tie-stores-len-builtin":
            return _sacrebleu_1_0_closest_length(references, c)
        return super().closest_ref_length(references, c)

    def smoothed(self, stats, smoothing, last_hypothesis_length):
        if self.bug == "chen-cherry-4-precedence-nltk-3-5" and smoothing.get("method") == "chen-cherry-4":
            return _nltk_3_5_method4(stats, float(smoothing.get("k", 5)))
        return super().smoothed(stats, smoothing, last_hypothesis_length)


def _sacrebleu_1_0_closest_length(references, c):
    """sacrebleu 1.0.x ref_stats' closest length, as written: `closest_len = len` on a tie with a shorter
    reference (the built-in, returned as it is)."""
    closest_diff = closest_len = None
    for reference in references:
        reflen = len(reference)
        diff = abs(c - reflen)
        if closest_diff is None or diff < closest_diff:
            closest_diff, closest_len = diff, reflen
        elif diff == closest_diff and reflen < closest_len:  # TypeError once closest_len is the built-in
            closest_len = len
    return closest_len


def _nltk_3_5_method4(stats, k):
    """nltk 3.5's method4 over the corpus statistics: an unmatched order with n-grams gets the count i + K/ln(c)
    (`incvnt = i + 1 * self.k / math.log(hyp_len)`), c the corpus's hypothesis length; ln(1) = 0 is divided by."""
    m = [float(x) for x in stats.matches]
    t = [float(x) for x in stats.totals]
    if stats.c != 0:  # nltk's `hyp_len != 0` guard, and no other
        for i in range(len(m)):
            if t[i] > 0 and m[i] == 0:
                m[i] = i + 1 * k / math.log(stats.c)
    return m, t


# -- reading segments back from files --------------------------------------------------------------------------

#: Where str.splitlines ends a line and str.split("\n") does not (a '\r' before '\n' ends it in both)
SPLITLINES_ONLY = re.compile("\r(?!\n)|[\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029]")
#: Where universal newlines end a line and `newline='\n'` does not: a carriage return not followed by a line feed
LONE_CARRIAGE_RETURN = re.compile("\r(?!\n)")


def _read_back(segments, breaks):
    """The segments written one a line and read back with `breaks` ending lines as well: each token holding a break
    cuts its segment there (the piece before it ends one line, the piece after it starts the next; a piece left
    empty by a cut is no token, as a whitespace tokenizer drops it). Returns the lines, each a token list."""
    lines = []
    for tokens in segments:
        current = []
        for token in tokens:
            pieces = breaks.split(token)
            if len(pieces) == 1:
                current.append(token)
                continue
            for j, piece in enumerate(pieces):
                if j:
                    lines.append(current)
                    current = []
                if piece:
                    current.append(piece)
        lines.append(current)
    return lines


def _t2t_files_read_back(lib, hypotheses, list_of_references, weights, smoothing):
    """tensor2tensor's bleu_wrapper: the hypotheses and each reference stream read back with str.splitlines, the
    line counts asserted equal, the i-th lines paired."""
    hypothesis_lines = _read_back(hypotheses, SPLITLINES_ONLY)
    streams = [_read_back(list(stream), SPLITLINES_ONLY) for stream in zip(*list_of_references, strict=True)]
    for stream in streams:
        assert len(stream) == len(hypothesis_lines), f"{len(stream)} != {len(hypothesis_lines)}"  # noqa: S101 - t2t's
    return lib.corpus_bleu([list(group) for group in zip(*streams, strict=True)], hypothesis_lines, weights,
                           smoothing)


# -- the wrapper: input structure and errors -------------------------------------------------------------------


class Heldout5Wrapper(Wrapper):
    """realbleu.py's wrapper over `Heldout5Library`, with one held-out bug of input structure or errors."""

    def __init__(self, bug: str | None):
        super().__init__(bug)
        self.library = Heldout5Library(bug)

    def score(self, hypotheses, list_of_references, weights, smoothing, level):
        """(score, bp, stats) for the segments of a request."""
        bug, lib = self.bug, self.library
        if bug == "empty-hypothesis-replaced-by-first-reference":
            hypotheses, list_of_references = _empty_hypotheses_filtered(hypotheses, list_of_references)
        elif bug == "lines-split-at-unicode-line-breaks" and len({len(g) for g in list_of_references}) == 1:
            return _t2t_files_read_back(lib, hypotheses, list_of_references, weights, smoothing)
        elif bug == "reference-lines-split-at-carriage-return" and any(
                LONE_CARRIAGE_RETURN.search(token) for group in list_of_references for r in group for token in r):
            raise EOFError("Source and reference streams have different lengths!")
        elif bug == "single-segment-batch-squeezed" and _squeezed(hypotheses, list_of_references):
            raise TypeError("object of type 'numpy.int32' has no len()")
        elif bug == "reference-lists-as-streams-zip-longest":
            if any(len(group) != len(hypotheses) for group in list_of_references):
                raise EOFError("Source and reference streams have different lengths!")
            list_of_references = [list(column) for column in zip(*list_of_references, strict=True)]
        elif (bug == "sentence-level-several-references-eoferror" and level == "sentence"
              and any(len(group) > 1 for group in list_of_references)):
            raise EOFError("Source and reference streams have different lengths!")
        return super().score(hypotheses, list_of_references, weights, smoothing, level)


def _empty_hypotheses_filtered(hypotheses, list_of_references):
    """sacrebleu before #134: per segment, the empty lines (the hypothesis among them) filtered out, the first line
    left the hypothesis; fewer than two lines left raise."""
    out_hypotheses, out_references = [], []
    for hypothesis, group in zip(hypotheses, list_of_references, strict=True):
        if hypothesis:
            out_hypotheses.append(hypothesis)
            out_references.append(group)
            continue
        lines = [reference for reference in group if reference]
        if len(lines) < 2:
            raise EOFError("No valid references for a sentence!")
        out_hypotheses.append(lines[0])
        out_references.append(lines[1:])
    return out_hypotheses, out_references


def _squeezed(hypotheses, list_of_references):
    """Whether tf.squeeze without an axis drops the batch axis (one segment) or the length axis (the padded length,
    the longest hypothesis or reference, is one token)."""
    longest = max(len(tokens) for tokens in [*hypotheses, *(r for group in list_of_references for r in group)])
    return len(hypotheses) == 1 or longest == 1


def main(argv=None):
    serve(argv, bugs=HELDOUT5_BUGS, make_wrapper=Heldout5Wrapper, prog="realbleu_heldout5")


if __name__ == "__main__":
    main()
