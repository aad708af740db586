#!/usr/bin/env python3
"""Planted-bug BLEU: an independent papineni BLEU speaking protocol v1, with real bugs to switch on.

Self-tests for the differential search of `bleu-oracle check`: each bug below is
modelled on a bug a real BLEU implementation has had (the comment next to its
switch names the repository and the issue, pull request or file); `check`, with
its defaults, should find every one of them.

    python tests/fakes/plantedbleu.py clean            # the control: correct under papineni
    python tests/fakes/plantedbleu.py BUG [BUG ...]    # one or more planted bugs (names in BUGS)
    python tests/fakes/plantedbleu.py clean --no-stats # no statistics in the replies

The clean computation is the papineni profile, restated without importing
`oracle`: tokens are opaque strings (n-grams are tuples of them); counts are
clipped against the maximum count over the references; corpus statistics are
summed over segments before dividing; r is, per segment, the reference length
closest to the hypothesis length, ties to the shorter, summed; BP = 1 if c > r
else e^(1 - r/c); c = 0 scores 0 (c = r = 0 is NaN); an order without hypothesis
n-grams counts as p_n = 0; weights are used as given, a zero weight switches its
order off; `lowercase` is `str.lower()` on every token; smoothing none / floor /
add-k / exp as `oracle/formulas/smoothing.py` states them. Plain float64.

Switches live where the bug would: `prepare_tokens` (tokens), `ngram_counts`
(n-gram keys, count sizes), `clipped_matches` (clipping), `reference_length`,
`shape_segments` (what the caller passes), `select_segments` (corpus sizes),
`brevity_penalty`, `smooth` and `combine` (numbers).
"""

import json
import math
import os
import re
import struct
import sys
import traceback
import unicodedata
from collections import Counter

#: name -> what the planted bug does (the citation is next to its switch).
BUGS = {
    # -- tokens --------------------------------------------------------------------------------
    "join-concat": "n-gram keys are the tokens concatenated with no separator: ('ab','c') == ('a','bc')",
    "join-space": "n-gram keys are the tokens joined by ' ': ('a b','c') == ('a','b c')",
    "order-from-separator": "one map for all orders keyed by ' '.join; an n-gram's order is read back as count(' ') + "
                            "1",
    "resplit-whitespace": "tokens are joined by spaces and re-split on whitespace (str.split()) before counting",
    "drop-empty-tokens": "empty tokens are filtered out before counting",
    "strip-tokens": "every token is str.strip()ped before counting",
    "nfkc": "tokens are NFKC-normalised before counting",
    "casefold": "lowercase=true folds with str.casefold() instead of str.lower()",
    "ascii-lower": "lowercase=true folds A-Z only (non-ASCII letters keep their case)",
    "unk-never-matches": "a reference '<unk>' never matches (n-grams containing it cannot be matched)",
    "trim-pad-eos": "leading '<pad>' and trailing '</s>'/'<pad>' tokens are trimmed from every sequence",
    "bpe-merge": "BPE continuation marks are undone: a token ending in '@@' is glued to the next one",
    "proto-keys": "unigrams named like Object.prototype members (__proto__, constructor, ...) never match",
    # -- structure (what the caller passes) ------------------------------------------------------
    "swap-hypothesis-references": "the hypotheses and the references are passed in each other's place (each segment's "
                                  "first reference scored against its hypothesis)",
    "references-as-streams": "each segment's reference list is read as a reference stream: segment i is scored "
                             "against the i-th reference of every segment, zip stopping at the shortest",
    "reference-tokens-as-references": "the first reference's token list is passed as the list of references: each "
                                      "token is a reference, read as its characters",
    "eos-on-hypotheses": "every hypothesis keeps an end-of-sentence token <eos> that the references do not have",
    # -- sizes ---------------------------------------------------------------------------------
    "ngram-loop-one-short": "the n-gram extractor loops range(len - n): every sequence loses its last n-gram of "
                            "every order, hypothesis and references alike (totals are the n-grams extracted)",
    "ngrams-as-sets": "n-grams are counted as sets: a total is the number of distinct hypothesis n-grams, the matches "
                      "those of them found in some reference",
    "uint8-counts": "per-n-gram counts are kept in 8 bits (wrap modulo 256)",
    "uint16-counts": "per-n-gram counts are kept in 16 bits (wrap modulo 65,536)",
    "truncate-256": "hypotheses and references are truncated to their first 256 tokens",
    "order-cap-4": "orders beyond 4 are silently left out of the geometric mean",
    "first-reference-only": "only the first reference of each segment is used (clipping and length)",
    "drop-last-segment": "the last segment of a corpus of two or more segments is dropped",
    "drop-empty-hypotheses": "segments whose hypothesis is empty are dropped from the corpus",
    "ref-len-shortest": "r is the shortest reference length, not the closest",
    # -- numbers -------------------------------------------------------------------------------
    "tiny-weight-zero": "weights below 0.01 are treated as 0",
    "epsilon-zero-precision": "a precision of 0 is replaced by 1e-7 before the logarithm",
    "zero-weight-nan": "w_n * log(p_n) is summed for every order, so weight 0 with p_n = 0 gives NaN",
    "weights-float32": "the weights are held in single precision",
    "add-k-int": "the add-k parameter is truncated to an integer (k = 0.5 adds 0)",
    "floor-ignored": "the floor smoothing value is ignored (floor 0: the order stays at 0)",
    "add-k-from-trigrams": "add-k adds k for n > 2 only (an off-by-one on the order index)",
    "add-k-unigrams": "add-k adds k to unigrams as well (every order)",
    "exp-counter-starts-at-one": "exp smoothing's halving counter starts at 1, not 0, on every request (stateless): "
                                 "the k-th order without a match gets 1/2^(k+1) matches",
    # -- the score stage's cells of docs/stages.md's matrix (mutation operators) ----------------
    "avg-bleu-over-four": "the individual BLEU-n (BP x p_n) of the orders in force are summed and divided by 4 "
                          "whatever the number of orders",
    "weights-int-division": "uniform weights are computed as 1 // N in integers (0 for N > 1): every order switched "
                            "off, the score BP alone",
    "truncate-percent": "the score is truncated to a whole percent: int(100 * score) / 100",
    "percent-int": "the score is reported on the 0-100 scale truncated to an integer: int(100 * score)",
    "precision-over-c": "every order's precision is divided by c, the hypothesis length, in place of its own total",
    "precision-no-denominator": "each precision is its matches alone, the denominator left out (p_n = m_n)",
    "macro-precision": "each order's precision is the mean of the segments' own precisions (a macro average)",
    "segment-bp-mean": "the brevity penalty is the mean of the segments' own penalties",
    # -- boundaries ----------------------------------------------------------------------------
    "ties-first": "a reference-length tie goes to the first listed reference, not the shorter",
    "r-is-distance": "r is the distance |len(ref) - c| of the closest reference, not its length",
    "bp-ratio-division": "BP from ratio = c / r: division by zero (an error) when r = 0 or c = 0",
    "bp-inverted": "BP = e^(1 - c/r) instead of e^(1 - r/c)",
    "clip-lt": "clipping compares with < where <= is meant: a count exactly at the reference maximum loses one",
    "zero-match-orders-skipped": "orders whose precision is 0 are left out of the product (unless all are 0)",
    "per-reference-clip": "clipped counts are computed per reference and the best reference's total is taken",
    # -- text (text requests: raw text tokenized here) -------------------------------------------
    "hyphen-join-skipped": "13a: '-\\n' is not removed before newlines become spaces (lines not joined)",
    "skipped-kept": "13a: '<skipped>' is not removed",
    "entity-hypothesis-only": "13a: SGML entities are unescaped in the hypothesis only, not in the references",
    "no-line-padding": "13a: the line is not padded with spaces, so a digit followed by '.' at its end stays one token",
    "text-lowercase-ignored": "lowercase=true is ignored on text requests",
    "lowercase-before-tokenizing": "the raw text is lowercased before it is tokenized (İ becomes two characters)",
    "char-utf16": "char: a character beyond U+FFFF becomes two tokens (its UTF-16 code units)",
    "intl-decimal-only": "intl: only decimal digits count as numbers (½ and ² do not)",
    # -- inputs that must be refused -------------------------------------------------------------
    "no-references-skipped": "a segment without references is skipped instead of refused",
    "negative-weights-accepted": "negative weights are accepted",
    "zero-weights-accepted": "all-zero weights are accepted",
    "empty-corpus-accepted": "a corpus with no segments scores 0 instead of being refused",
    "negative-smoothing-accepted": "a negative smoothing parameter is accepted",
    # -- state across requests -------------------------------------------------------------------
    "memo-hypothesis-only": "answers are memoised by the hypotheses alone",
    "memo-ignores-lowercase": "answers are memoised by everything but lowercase",
    "memo-ignores-weights": "answers are memoised by everything but the weights",
    "references-read-once": "the references of the process's first request are kept, and every later request's "
                            "hypotheses are scored against them (segment i against its segment i, zip stopping at "
                            "the shorter)",
    "exp-counter-never-reset": "exp smoothing's halving counter is never reset between requests",
    "transcript-doubling": "after 500 requests a transcript doubles per request, until memory runs out (a crash)",
}
#: The bugs of `invalid` (inputs that must be refused), the state bugs of `answer`, and the text bugs.
REFUSAL_BUGS = ("no-references-skipped", "negative-weights-accepted", "zero-weights-accepted",
                "empty-corpus-accepted", "negative-smoothing-accepted")
MEMO_BUGS = ("memo-hypothesis-only", "memo-ignores-lowercase", "memo-ignores-weights")

# -- stateful (a separate block: other planted bugs are added above) ------------------------------
#: Bugs of the metric state a stateful request's plan drives (`--` PROTOCOL.md, "Stateful implementations");
#: a one-shot request goes through one fresh state in one update, which none of them touches.
STATEFUL_BUGS = {
    "reset-keeps-lengths": "reset() zeroes the n-gram counts but not c and r (a state field reset forgets)",
    "merge-averages-ratios": "merging states averages their precisions pairwise, (p_a + p_b) / 2, instead of adding "
                             "counts: the result depends on the merge order too",
    "merge-last-lengths": "merging assigns the merged-in state's c and r instead of adding them: the last state "
                          "merged sets the lengths (a reduction that depends on shard order)",
    "update-replaces-lengths": "each update assigns its batch's c and r instead of adding them: only the last "
                               "batch's lengths count",
}
BUGS = {**BUGS, **STATEFUL_BUGS}

SPECIAL_MAP_KEYS = frozenset({"__proto__", "constructor", "toString", "valueOf", "hasOwnProperty",
                              "isPrototypeOf", "propertyIsEnumerable", "toLocaleString"})


def f32(x):
    return struct.unpack("f", struct.pack("f", x))[0]


class _NeverEqual:
    """A reference token that equals nothing (fairseq replaces a reference <unk> by -999)."""

    def __eq__(self, other):
        return False

    def __hash__(self):
        return id(self)


# -- tokens ----------------------------------------------------------------------------------


def prepare_tokens(tokens, lowercase, bugs, *, is_reference):
    """The token sequence that gets counted (the clean version: `str.lower()` when asked, nothing else)."""
    tokens = list(tokens)
    if "truncate-256" in bugs:
        # SensAI-PT/LLaMa2lang issue #66: inputs are cut with `[s[:max_length] for s in translated]`
        # before `bleu.corpus_score`, so long segments are scored on their beginning only.
        tokens = tokens[:256]
    if "trim-pad-eos" in bugs:
        # facebookresearch/fairseq fairseq/clib/libbleu/libbleu.cpp, bleu_trim: bleu_ltrim drops leading
        # pad, bleu_rtrim drops trailing eos/pad (`while (end > 0)`: index 0 is never dropped).
        _trim_pad_eos(tokens)
    if "bpe-merge" in bugs:
        # facebookresearch/fairseq fairseq/data/data_utils.py, post_process(symbol="subword_nmt"):
        # `(sentence + " ").replace("@@ ", "").rstrip()` (--remove-bpe) before scoring.
        tokens = _merge_bpe(tokens)
    if "resplit-whitespace" in bugs:
        # promptfoo/promptfoo src/assertions/bleu.ts: `candidate.toLowerCase().trim().split(/\s+/)`;
        # tylin/coco-caption (pycocoevalcap) bleu/bleu_scorer.py, precook: `words = s.split()`.
        tokens = " ".join(tokens).split()
    if "drop-empty-tokens" in bugs:
        # TabbyML/tabby PR #1327 (and #581): `.filter(|x| !x.is_empty())` on the token list before its
        # similarity computation; in a BLEU the empty token no longer counts in c, r or any n-gram.
        tokens = [t for t in tokens if t != ""]
    if "strip-tokens" in bugs:
        # Modelled on the general class (per-token trim() in ports), no specific report found.
        tokens = [t.strip() for t in tokens]
    if "nfkc" in bugs:
        # mjpost/sacrebleu issue #224: no Unicode normalisation is done, and the workaround offered
        # is `--tok spm`, whose SentencePiece model NFKC-normalises the text before scoring.
        tokens = [unicodedata.normalize("NFKC", t) for t in tokens]
    if lowercase:
        tokens = _lowercased(tokens, bugs)
    if is_reference and "unk-never-matches" in bugs:
        # facebookresearch/fairseq fairseq/scoring/bleu.py, Scorer.add: "# don't match unknown words",
        # `rref[rref.eq(self.unk)] = -999` -- a hypothesis <unk> never matches a reference <unk>.
        tokens = [_NeverEqual() if t == "<unk>" else t for t in tokens]
    return tokens


def _trim_pad_eos(tokens):
    """fairseq's bleu_ltrim and bleu_rtrim, in place."""
    while tokens and tokens[0] == "<pad>":
        tokens.pop(0)
    while len(tokens) > 1 and tokens[-1] in ("</s>", "<pad>"):
        tokens.pop()


def _merge_bpe(tokens):
    """subword-nmt's "@@ " joins removed: a token ending in @@ is glued to the next."""
    merged, pending = [], ""
    for token in tokens:
        if token.endswith("@@"):
            pending += token[:-2]
        else:
            merged.append(pending + token)
            pending = ""
    if pending:
        merged.append(pending)
    return merged


def _lowercased(tokens, bugs):
    if "casefold" in bugs:
        # UKGovernmentBEIS/inspect_ai PR #744 "change lower to casefold" in its scorers: casefold()
        # is not lower() ('ß' -> 'ss', 'ǅ' -> 'ǆ', final sigma).
        return [t.casefold() for t in tokens]
    if "ascii-lower" in bugs:
        # moses-smt/mosesdecoder PR #209: multi-bleu-detok.perl -lc did not lowercase non-ASCII
        # characters; tensorflow/tensorflow issue #48551: tf.strings.lower() folds A-Z only.
        return ["".join(chr(ord(ch) + 32) if "A" <= ch <= "Z" else ch for ch in t) for t in tokens]
    return [t.lower() for t in tokens]


# -- counting --------------------------------------------------------------------------------


def ngram_key(gram, bugs):
    if "join-concat" in bugs:
        # Modelled on the general class (n-grams keyed by their concatenated text), no specific report found.
        return "".join(map(str, gram))
    if "join-space" in bugs or "order-from-separator" in bugs:
        # promptfoo/promptfoo src/assertions/ngrams.ts getNGrams: `words.slice(i, i + n).join(' ')`;
        # ketranm/tardis src/util/BLEU.lua: `table.concat(..., ' ')` as the n-gram key.
        return " ".join(map(str, gram))
    return gram


def ngram_counts(tokens, n, bugs):
    # SmoothNLP issue #26 (ngram_utils.py `for i in range(0, len(text) - n)`) and explosion/thinc issue #512
    # (Ops.ngrams "always missing the final ngram"): the extractor's loop stops one short.
    stop = len(tokens) - n if "ngram-loop-one-short" in bugs else len(tokens) - n + 1
    counts = Counter(ngram_key(tuple(tokens[i:i + n]), bugs) for i in range(stop))
    if "uint8-counts" in bugs:
        # matthieugomez/StringDistances.jl issue #12: q-gram occurrences counted in a UInt8
        # (255 + 1 == 0) -- a q-gram seen more than 255 times wraps (not a BLEU library).
        counts = Counter({k: v % 256 for k, v in counts.items()})
    if "uint16-counts" in bugs:
        # vgl-hub/teloscope PR #5: counts in uint16_t fields wrapped modulo 65,536 past 65,535
        # (not a BLEU library; the same wrap for an n-gram seen more than 65,535 times).
        counts = Counter({k: v % 65536 for k, v in counts.items()})
    return counts


def clipped_matches(hyp_counts, ref_counts_list, bugs):
    """Sum over hypothesis n-grams of min(count, max count in any one reference)."""
    if "per-reference-clip" in bugs:
        # promptfoo/promptfoo src/assertions/bleu.ts: clippedCount is computed against each reference
        # separately and `maxClippedCount = Math.max(maxClippedCount, clippedCount)` keeps the best one.
        return max((sum(min(k, ref[g]) for g, k in hyp_counts.items()) for ref in ref_counts_list), default=0)
    limit = Counter()
    for ref in ref_counts_list:
        for gram, k in ref.items():
            limit[gram] = max(limit[gram], k)
    total = 0
    for gram, k in hyp_counts.items():
        m = limit[gram]
        if "proto-keys" in bugs and _is_map_key(gram):
            # Syeoryn/textAnalysisSuite PR #2 "fix ngrams constructor clash" (n-gram dictionaries built
            # with `{}` inherit Object.prototype); benhoyt/countwords PR #91; toss/es-toolkit PR #2106
            # (`__proto__` never becomes a key, `constructor` reads a function): such keys never count.
            m = 0
        if "clip-lt" in bugs:
            # Modelled on the general class (a strict comparison in hand-written clipping), no specific
            # report found: `clipped += k if k < m else m - 1` is off by one at (and above) the maximum.
            total += k if k < m else max(m - 1, 0)
        else:
            total += min(k, m)
    return total


def _is_map_key(gram):
    return (gram in SPECIAL_MAP_KEYS) or (isinstance(gram, tuple) and len(gram) == 1 and gram[0] in SPECIAL_MAP_KEYS)


def reference_length(c, lengths, bugs):
    if "ties-first" in bugs:
        # Lightning-AI/torchmetrics issue #3504: `target_len_list[target_len_diff.index(min(target_len_diff))]`
        # takes the first listed on a tie; promptfoo/promptfoo PR #9718 (reduce with `<` keeps the first seen).
        diffs = [abs(x - c) for x in lengths]
        return lengths[diffs.index(min(diffs))]
    if "ref-len-shortest" in bugs:
        # tensorflow/nmt issue #450 (nmt/scripts/bleu.py `reference_length += min(len(r) for r in references)`);
        # meta-pytorch/torcheval PR #195 (`len_reference = min([len(ref) for ref in references_tokenized])`).
        return min(lengths)
    if "r-is-distance" in bugs:
        # nltk/nltk issue #922: `r = min(abs(len(r) - c) for r in references)` -- the distance, not the length.
        return min(abs(x - c) for x in lengths)
    return min(lengths, key=lambda x: (abs(x - c), x))


def segment_statistics(hypothesis, references, order, lowercase, bugs):
    if "first-reference-only" in bugs:
        # EleutherAI/lm-evaluation-harness issue #1125: its BLEU "appears to only pick up the first available
        # reference"; neulab/xnmt PR #377 (evaluators that "ignore all but the first reference").
        references = references[:1]
    hyp = prepare_tokens(hypothesis, lowercase, bugs, is_reference=False)
    refs = [prepare_tokens(r, lowercase, bugs, is_reference=True) for r in references]
    if "order-from-separator" in bugs:
        return _one_map_statistics(hyp, refs, order, bugs)
    matches, totals = [], []
    for n in range(1, order + 1):
        hyp_counts = ngram_counts(hyp, n, bugs)
        if "ngrams-as-sets" in bugs:
            # louissmit/SSLP project/bleu.py: `len(set(gold) & set(out)) / len(set(out))` over the n-gram lists.
            in_some = set().union(*(ngram_counts(r, n, bugs) for r in refs))
            matches.append(len(set(hyp_counts) & in_some))
            totals.append(len(hyp_counts))
            continue
        matches.append(clipped_matches(hyp_counts, [ngram_counts(r, n, bugs) for r in refs], bugs))
        totals.append(sum(hyp_counts.values()) if "ngram-loop-one-short" in bugs else max(len(hyp) - n + 1, 0))
    c = len(hyp)
    return c, reference_length(c, [len(r) for r in refs], bugs), matches, totals


def _one_map_statistics(hyp, refs, order, bugs):
    # ketranm/tardis src/util/BLEU.lua: n-grams of every order in one table keyed by
    # `table.concat(ngram, ' ')`, and `local n = stringx.count(ngram, ' ') + 1` reads the order back:
    # a token holding a space moves its n-gram to a higher order (or out of range).
    def all_orders(tokens):
        counts = Counter()
        for n in range(1, order + 1):
            counts.update(ngram_counts(tokens, n, bugs))
        return counts

    hyp_counts = all_orders(hyp)
    limit = Counter()
    for ref in refs:
        for key, k in all_orders(ref).items():
            limit[key] = max(limit[key], k)
    matches, totals = [0] * order, [0] * order
    for key, k in hyp_counts.items():
        n = key.count(" ") + 1
        if n <= order:
            totals[n - 1] += k
            matches[n - 1] += min(k, limit[key])
    c = len(hyp)
    return c, reference_length(c, [len(r) for r in refs], bugs), matches, totals


def shape_segments(segments, bugs):
    """The (hypothesis, references) pairs the scorer is handed (the request's own, when clean)."""
    if "swap-hypothesis-references" in bugs:
        # bentrevett/pytorch-seq2seq issue #62: `bleu_score(pred_trgs, trgs)` takes the candidates first, and the
        # notebooks' calculate_bleu passed them in the other order; kubeedge/ianvs issue #646 (`metric_func(y_true,
        # y_pred)` called positionally the other way round).
        return [{"hypothesis": s["references"][0], "references": [s["hypothesis"]]} for s in segments]
    if "references-as-streams" in bugs:
        # mjpost/sacrebleu issue #220: "If you do feed N lists of K strings, the function computes BLEU for the
        # first K documents (albeit with some mismatched reference strings) and silently throws away the rest";
        # vibrantlabsai/ragas issue #2888 (`[[r] for r in reference_sentences]`: only the first sentence scored).
        streams = [s["references"] for s in segments]
        kept = min([len(segments)] + [len(stream) for stream in streams])
        return [{"hypothesis": segments[i]["hypothesis"], "references": [stream[i] for stream in streams]}
                for i in range(kept)]
    if "reference-tokens-as-references" in bugs:
        # nltk/nltk issue #1285: `sentence_bleu("it is a guide to action".split(), ...)`, the reference's tokens
        # where `[reference_tokens]` is expected ("The interface for BLEU should be `bleu([references],
        # hypothesis`"): each token is iterated as a reference of characters.
        return [{"hypothesis": s["hypothesis"], "references": [list(token) for token in s["references"][0]]}
                for s in segments]
    if "eos-on-hypotheses" in bugs:
        # foundation-model-stack/fms-hf-tuning PR #121: the model's eos is stripped "only for predictions generated
        # by the model, not ground truth" at evaluation time; before it, each prediction was scored with its eos.
        return [{"hypothesis": [*s["hypothesis"], "<eos>"], "references": s["references"]} for s in segments]
    return segments


def select_segments(segments, bugs):
    """The segments that are counted (all of them, when clean)."""
    segments = list(segments)
    if "drop-last-segment" in bugs and len(segments) > 1:
        # mjpost/sacrebleu PR #303: `corpus_score(hyps, None)` "silently truncates to the shorter of the
        # hypotheses and the cached references" (zip); vibrantlabsai/ragas issue #2888 (zip truncation).
        segments = segments[:-1]
    if "drop-empty-hypotheses" in bugs:
        # mjpost/sacrebleu PR #132 (comment of 2021-01-18): "this also removes empty hypotheses".
        segments = [s for s in segments if s["hypothesis"]]
    return segments


# -- numbers ---------------------------------------------------------------------------------


def brevity_penalty(c, r, bugs):
    if "bp-ratio-division" in bugs:
        # tensorflow/nmt PR #483 "Fix BLEU error: 'divided by 0' when reference_length is zero";
        # huggingface/evaluate PR #764 (issue #601): `ratio = float(translation_length) / reference_length`,
        # then `math.exp(1 - 1. / ratio)` -- ZeroDivisionError for r = 0, and for c = 0.
        ratio = float(c) / r
        return 1.0 if ratio > 1.0 else math.exp(1 - 1.0 / ratio)
    if c > r:
        return 1.0
    if c == 0:
        return 0.0
    if "bp-inverted" in bugs:
        # promptfoo/promptfoo PR #9717: `Math.exp(1 - candidateLength / referenceLength)` (ratio inverted).
        return math.exp(1 - c / r)
    return math.exp(1 - r / c)


def smooth(matches, totals, smoothing, bugs):
    m = [float(x) for x in matches]
    t = [float(x) for x in totals]
    method = smoothing.get("method", "none")
    if method == "floor":
        value = float(smoothing.get("value", 0.1))
        if "floor-ignored" in bugs:
            # mjpost/sacrebleu issue #23 "Floor smoothing doesn't work in the command line": the floor
            # is 0.0 "with no way of specifying any other threshold".
            value = 0.0
        for i in range(len(m)):
            if t[i] > 0 and m[i] == 0:
                m[i] = value
    elif method == "add-k":
        k = float(smoothing.get("k", 1.0))
        if "add-k-int" in bugs:
            # Modelled on the general class (a float parameter parsed as int), no specific report found.
            k = float(int(k))
        first = 1
        if "add-k-from-trigrams" in bugs:
            # mjpost/sacrebleu PR #55 "Fixed bug in add-k smoothing": `if smooth_method == 'add-k' and n > 1`
            # with 0-based n -- "only added ... for n-grams with n > 2 due to an off-by-one error".
            first = 2
        if "add-k-unigrams" in bugs:
            # huggingface/datasets PR #4599 "Smooth-BLEU bug fixed": tensorflow/nmt's compute_bleu
            # "smoothes unigrams as well" (`(matches_by_order[i] + 1.) / (possible_matches_by_order[i] + 1.)`).
            first = 0
        for i in range(first, len(m)):
            m[i] += k
            t[i] += k
    elif method == "exp":
        j = STATE.exp_halvings if "exp-counter-never-reset" in bugs else 0
        if "exp-counter-starts-at-one" in bugs:
            # Modelled on the general class (a counter initialised one step ahead: NIST's `$smooth = 1` doubled
            # before its first use), no specific report found. Stateless: every request starts from the same 1, so
            # an answer meets `exp-halvings-carried-over` wherever the process's earlier requests made 1 halving.
            j = 1
        for i in range(len(m)):
            if t[i] > 0 and m[i] == 0:
                j += 1
                m[i] = 1.0 / 2 ** j
        if "exp-counter-never-reset" in bugs:
            # Modelled on the general class (an accumulator kept in the scorer object between calls, as
            # torchmetrics' metric states are until `reset()`), no specific report found.
            STATE.exp_halvings = j
    return m, t


def combine(m, t, weights, bugs):
    """exp(sum of w_n log p_n) over the orders in force; 0 when a counted order has p_n = 0."""
    w = [float(x) for x in weights]
    if "weights-float32" in bugs:
        # fast-bleu 0.0.90 (bleu-oracle oracle/diagnose/data/discrepancies.yaml, fast-bleu-float32-weights):
        # the C++ core holds the weights in single precision.
        w = [f32(x) for x in w]
    if "tiny-weight-zero" in bugs:
        # Modelled on the general class (weights under a "negligible" threshold dropped), no specific report found.
        w = [0.0 if x < 0.01 else x for x in w]
    if "order-cap-4" in bugs:
        # facebookresearch/fairseq fairseq/scoring/bleu.py: BleuStat holds match1..match4 only and
        # Scorer.score sums `self.precision()[:order]` -- orders past 4 silently contribute nothing.
        w = w[:4]
    if "weights-int-division" in bugs:
        # Mutation operator "integer for true division" on the weights (docs/stages.md), no real instance found:
        # `[1 // n] * n` for `[1 / n] * n`, the weights sent not read.
        w = [float(1 // len(w))] * len(w)
    p = [None if ti == 0 else mi / ti for mi, ti in zip(m, t, strict=False)]
    if "precision-no-denominator" in bugs:
        # Mutation operator "a term left out" on the precision (docs/stages.md), no real instance found.
        p = [None if ti == 0 else mi for mi, ti in zip(m, t, strict=False)]
    if "zero-weight-nan" in bugs:
        # meta-pytorch/torcheval functional/text/bleu.py `torch.exp(torch.sum(weights * torch.log(precisions)))`
        # (discrepancies.yaml torcheval-zero-weight-nan): 0 * log(0) = 0 * -inf = NaN.
        total = 0.0
        for pi, wi in zip(p, w, strict=False):
            total += wi * (math.log(pi) if pi else -math.inf)
        return math.exp(total) if not math.isnan(total) else math.nan
    if "epsilon-zero-precision" in bugs:
        # promptfoo/promptfoo src/assertions/bleu.ts: `const smoothedP = p === 0 ? 1e-7 : p; // smoothing`
        # (and ketranm/tardis BLEU.lua `if bleu_ngram[n] == 0 then bleu_ngram[n] = 1e-13 end`).
        p = [1e-7 if not pi else pi for pi in p]
    if "zero-match-orders-skipped" in bugs:
        # nltk/nltk issue #789 "Critical bug in BLEU score evaluation": `p_ns_nonzero = list(filter(None, p_ns))`
        # (and issue #1838): a zero precision is left out of the geometric mean unless all are zero.
        counted = [(pi, wi) for pi, wi in zip(p, w, strict=False) if wi != 0]
        if counted and all(not pi for pi, _ in counted):
            return 0.0
        p = [pi if pi else 1.0 for pi in p]
    s = 0.0
    for pi, wi in zip(p, w, strict=False):
        if wi == 0:
            continue
        if not pi:  # p_n = 0, or an order with no hypothesis n-grams (0/0 counts as 0)
            return 0.0
        s += wi * math.log(pi)
    return math.exp(s)


def score_from_statistics(c, r, matches, totals, weights, smoothing, bugs):
    """(score, bp) from the summed statistics."""
    if c == 0 and r == 0 and "bp-ratio-division" not in bugs:
        return math.nan, math.nan
    bp = brevity_penalty(c, r, bugs)
    if c == 0:
        return 0.0, bp
    if "precision-over-c" in bugs:
        # Mutation operator "a constant for a parameter" on the precision (docs/stages.md), no real instance found:
        # the hypothesis length as every order's denominator (the returned totals stay the counted ones).
        totals = [c] * len(totals)
    m, t = smooth(matches, totals, smoothing, bugs)
    if "avg-bleu-over-four" in bugs:
        # A toolkit's 'avg-bleu': `bleu_sum += tp_val` over the individual BLEU-n, then `bleu_sum / 4.0` (the sixth
        # held-out set's individual-bleu-scores-averaged-over-four, whose thread its own file cites; here each
        # individual BLEU-n under the request's smoothing: BP x p_n, an order without n-grams 0).
        return bp * math.fsum(mi / ti if ti else 0.0 for mi, ti, wi in zip(m, t, weights, strict=False)
                              if wi != 0) / 4, bp
    return _scaled(bp * combine(m, t, weights, bugs), bugs), bp


def _scaled(score, bugs):
    """The score as it is reported (the scale stage's planted bugs)."""
    if math.isnan(score):
        return score
    if "truncate-percent" in bugs:
        # Mutation operator "integer for true division" on the scale (docs/stages.md), no real instance found.
        return int(100 * score) / 100
    if "percent-int" in bugs:
        # Mutation operator "integer for true division" on the scale (docs/stages.md), no real instance found.
        return float(int(100 * score))
    return score


def per_segment_score(state, weights, smoothing):
    """(score, bp) where the corpus's precisions or penalty are the means of its segments' own (macro-precision,
    segment-bp-mean; each segment's statistics kept by the state as `segments`)."""
    bugs = state.bugs
    bp = brevity_penalty(state.c, state.r, bugs)
    m, t = smooth(state.matches, state.totals, smoothing, bugs)
    if "segment-bp-mean" in bugs:
        # Mutation operator "an average for a sum" on the brevity penalty (docs/stages.md), no real instance found:
        # each segment's own penalty, averaged, reported as the BP.
        bp = math.fsum(brevity_penalty(c, r, bugs) for c, r, _, _ in state.segments) / len(state.segments)
        return bp * combine(m, t, weights, bugs), bp
    # macro-precision: mutation operator "an average for a sum" on the corpus aggregation (docs/stages.md), no real
    # instance found: each segment's precision under the smoothing (m / t where it has n-grams), averaged per order
    own = [[] for _ in weights]
    for _, _, seg_matches, seg_totals in state.segments:
        sm, st = smooth(seg_matches, seg_totals, smoothing, bugs)
        for i, (mi, ti) in enumerate(zip(sm, st, strict=False)):
            if ti > 0:
                own[i].append(mi / ti)
    means = [math.fsum(x) / len(x) if x else 0.0 for x in own]
    return bp * combine(means, [1.0] * len(means), weights, bugs), bp


# -- stateful ------------------------------------------------------------------------------


class State:
    """A metric state: the corpus statistics summed over the updates so far (planted bugs aside)."""

    def __init__(self, order, lowercase, bugs):
        self.order, self.lowercase, self.bugs = order, lowercase, bugs
        self.reset(everything=True)

    def reset(self, everything=False):
        if everything or "reset-keeps-lengths" not in self.bugs:
            # apache/flink PR #2639 (FLINK-4586): AverageAccumulator.resetLocal() reset one field and not the
            # other; freud14/poutyne issue #72: "Forgetting this line is problematic, and people will do!"
            self.c = self.r = 0
        self.matches, self.totals = [0] * self.order, [0] * self.order
        self.averaged = None  # precisions a buggy merge averaged, when one did
        self.segments = []  # each segment's (c, r, matches, totals), for the bugs that read them

    def update(self, segments):
        per_segment = [segment_statistics(s["hypothesis"], s["references"], self.order, self.lowercase, self.bugs)
                       for s in select_segments(segments, self.bugs)]
        c, r = sum(x[0] for x in per_segment), sum(x[1] for x in per_segment)
        if "update-replaces-lengths" in self.bugs:
            # Modelled on the general class (assignment where accumulation was meant), no specific report found.
            self.c, self.r = c, r
        else:
            self.c, self.r = self.c + c, self.r + r
        for i in range(self.order):
            self.matches[i] += sum(x[2][i] for x in per_segment)
            self.totals[i] += sum(x[3][i] for x in per_segment)
        self.segments.extend(per_segment)

    def precisions(self):
        if self.averaged is not None:
            return self.averaged
        return [m / t if t else 0.0 for m, t in zip(self.matches, self.totals, strict=True)]

    def merge(self, other):
        if "merge-averages-ratios" in self.bugs:
            # MichaelGrupp/evo issue #583: merged stats were `(merged[key] + result[key]) / 2`, folded pairwise,
            # so three results weigh 1/4, 1/4, 1/2 -- and the answer depends on the order of the merge.
            self.averaged = [(a + b) / 2 for a, b in zip(self.precisions(), other.precisions(), strict=True)]
        if "merge-last-lengths" in self.bugs:
            # apache/skywalking PR #415: "merge method return a non merged value"; here the lengths are
            # assigned from the state merged in.
            self.c, self.r = other.c, other.r
        else:
            self.c, self.r = self.c + other.c, self.r + other.r
        self.segments = self.segments + other.segments
        self.matches = [a + b for a, b in zip(self.matches, other.matches, strict=True)]
        self.totals = [a + b for a, b in zip(self.totals, other.totals, strict=True)]

    def compute(self, weights, smoothing):
        """(score, bp), as the one-shot computation gives them from the same statistics."""
        if self.averaged is None and {"macro-precision", "segment-bp-mean"} & self.bugs and len(self.segments) > 1 \
                and self.c > 0:
            return per_segment_score(self, weights, smoothing)
        if self.averaged is None:
            return score_from_statistics(self.c, self.r, self.matches, self.totals, weights, smoothing, self.bugs)
        bp = brevity_penalty(self.c, self.r, self.bugs) if self.c else 0.0
        # the averaged precisions used as they are (each over a total of 1): a smoothing, defined on counts, has
        # nothing to apply to them
        return bp * combine(list(self.averaged), [1.0] * self.order, weights, self.bugs), bp


def run_plan(request, bugs):
    """The state a request's plan leaves: one state per shard, previous corpora scored and reset, batches
    updated, states merged in the plan's order; a request without a plan is one state, one update."""
    order, lowercase = len(request["weights"]), bool(request.get("lowercase"))
    plan = request.get("stateful") or {"shards": [[len(request["segments"])]]}
    states, at = [], 0
    for batches in plan["shards"]:
        state = State(order, lowercase, bugs)
        for corpus in plan.get("previous", ()):
            for segment in corpus:
                state.update([segment])
            state.compute(request["weights"], request["smoothing"])
            state.reset()
        for size in batches:
            state.update(request["segments"][at:at + size])
            at += size
        states.append(state)
    merge = plan.get("merge") or [0]
    merged = states[merge[0]]
    for index in merge[1:]:
        merged.merge(states[index])
    return merged
# -- text --------------------------------------------------------------------------------------

_13A_PUNCTUATION = re.compile(r"([\{-\~\[-\` -\&\(-\+\:-\@\/])")
_ENTITIES = (("&quot;", '"'), ("&amp;", "&"), ("&lt;", "<"), ("&gt;", ">"))


def tokenize_13a(line, bugs, *, is_reference):
    """mteval-v13a.pl's `tokenization`, restated from the script (case untouched)."""
    if "skipped-kept" not in bugs:
        # Modelled on the general class (a port of mteval's tokenization that drops its first lines),
        # no specific report found.
        line = line.replace("<skipped>", "")
    if "hyphen-join-skipped" not in bugs:
        # Modelled on the general class (a port that skips `s/-\n//g`), no specific report found.
        line = line.replace("-\n", "")
    line = line.replace("\n", " ")
    if not (is_reference and "entity-hypothesis-only" in bugs):
        # Modelled on the general class (the hypothesis unescaped by a detokenizer, the references read
        # as they are), no specific report found.
        for entity, character in _ENTITIES:
            line = line.replace(entity, character)
    if "no-line-padding" not in bugs:
        # Lightning-AI/torchmetrics issue #1776 (fixed by PR #1778): its 13a tokenizer did not pad the line,
        # so "2023." at the end of a string stayed one token.
        line = f" {line} "
    line = _13A_PUNCTUATION.sub(r" \1 ", line)
    line = re.sub(r"([^0-9])([\.,])", r"\1 \2 ", line)
    line = re.sub(r"([\.,])([^0-9])", r" \1 \2", line)
    line = re.sub(r"([0-9])(-)", r"\1 \2 ", line)
    return line.split()


_INTL = {}


def _category_class(test):
    """A regex character class of every code point whose general category passes `test`."""
    ranges = []  # [first, last] code points, merged as they come
    for code in range(sys.maxunicode + 1):
        if test(unicodedata.category(chr(code))):
            if ranges and ranges[-1][1] == code - 1:
                ranges[-1][1] = code
            else:
                ranges.append([code, code])
    return "[" + "".join(f"{re.escape(chr(a))}-{re.escape(chr(b))}" for a, b in ranges) + "]"


def tokenize_intl(line, bugs):
    """mteval-v14.pl's international tokenization (as sacrebleu's TokenizerV14International has it)."""
    key = "decimal" if "intl-decimal-only" in bugs else "number"
    if key not in _INTL:
        punctuation, symbol = _category_class(lambda c: c[0] == "P"), _category_class(lambda c: c[0] == "S")
        if key == "decimal":
            # Modelled on the general class (`\d` or str.isdecimal() where \p{N} is meant: ½ and ² are no
            # numbers then), no specific report found.
            not_number = _category_class(lambda c: c != "Nd")
        else:
            not_number = _category_class(lambda c: c[0] != "N")
        _INTL[key] = (re.compile(f"({not_number})({punctuation})"), re.compile(f"({punctuation})({not_number})"),
                      re.compile(f"({symbol})"))
    before, after, symbols = _INTL[key]
    line = before.sub(r"\1 \2 ", line)
    line = after.sub(r" \1 \2", line)
    return symbols.sub(r" \1 ", line).split()


def tokenize_char(line, bugs):
    """Every character a token, whitespace dropped."""
    characters = "".join(line.split())
    if "char-utf16" in bugs:
        # omnidan/node-emoji PR #87 and elizaOS/eliza PR #27943: JavaScript's `text.split("")` splits a
        # character beyond the BMP into its two UTF-16 code units.
        units = characters.encode("utf-16-le")
        return [units[i:i + 2].decode("utf-16-le", "surrogatepass") for i in range(0, len(units), 2)]
    return list(characters)


def tokenize_text(text, tokenizer, lowercase, bugs, *, is_reference):
    """The tokens of raw text (case folded after tokenizing, as the protocol says: by `prepare_tokens`)."""
    if lowercase and "lowercase-before-tokenizing" in bugs:
        # mjpost/sacrebleu 2.6.0 sacrebleu/metrics/bleu.py `_preprocess_segment`: `sent = sent.lower()` before
        # the tokenizer runs (with `char`, İ is then two tokens: "i" and U+0307).
        text = text.lower()
    if tokenizer == "13a":
        return tokenize_13a(text, bugs, is_reference=is_reference)
    if tokenizer == "intl":
        return tokenize_intl(text, bugs)
    if tokenizer == "char":
        return tokenize_char(text, bugs)
    return text.split()


def text_to_tokens(request, bugs):
    """A text request's segments as token lists (a token request is returned as it is)."""
    tokenizer = request.get("tokenize")
    if tokenizer is None:
        return request["segments"]
    lowercase = bool(request.get("lowercase"))
    return [{"hypothesis": tokenize_text(s["hypothesis"], tokenizer, lowercase, bugs, is_reference=False),
             "references": [tokenize_text(r, tokenizer, lowercase, bugs, is_reference=True)
                            for r in s["references"]]}
            for s in request["segments"]]


# -- state ---------------------------------------------------------------------------------------


class ProcessState:
    """What a process keeps across requests: nothing, when clean."""

    def __init__(self):
        self.memo = {}
        self.first_references = None  # references-read-once: the first request's, as it sent them
        self.requests = 0
        self.exp_halvings = 0
        self.transcript = []

    def memo_key(self, request, bugs):
        """The key answers are memoised by (None: no memo)."""
        if "memo-hypothesis-only" in bugs:
            # Modelled on the general class (a result cache keyed on the system output alone, as when the
            # references are cached: mjpost/sacrebleu PR #303), no specific report found.
            return json.dumps([s["hypothesis"] for s in request["segments"]])
        if "memo-ignores-lowercase" in bugs or "memo-ignores-weights" in bugs:
            # Modelled on the general class (a cache key that leaves out one option), no specific report found.
            left_out = "lowercase" if "memo-ignores-lowercase" in bugs else "weights"
            return json.dumps({k: v for k, v in request.items() if k not in ("seq", left_out)}, sort_keys=True)
        return None

    def remember(self, bugs):
        """A request came: the transcript grows (doubling per request after 500, with that bug)."""
        self.requests += 1
        if "transcript-doubling" in bugs and self.requests > 500:
            # Modelled on the general class (a conversation history re-appended to itself on every turn),
            # no specific report found: after ~20 doublings memory runs out and the kernel's OOM killer
            # ends the process (exit 137, as SIGKILL).
            self.transcript = (self.transcript or [self.requests]) * 2
            if len(self.transcript) > 2 ** 20:
                sys.stderr.write("plantedbleu: out of memory (transcript of 2**20 entries)\n")
                sys.stderr.flush()
                os._exit(137)


STATE = ProcessState()


# -- protocol --------------------------------------------------------------------------------


def invalid(request, bugs=frozenset()):
    """Why the papineni profile rejects this input, or None."""
    weights = request["weights"]
    if any(w < 0 for w in weights) and "negative-weights-accepted" not in bugs:
        # Modelled on the general class (weights taken as given, never checked), no specific report found.
        return f"weights must be non-negative (got {weights})"
    if not any(weights) and "zero-weights-accepted" not in bugs:
        # Modelled on the general class (exp(sum of nothing) = 1 for all-zero weights), no specific report found.
        return f"weights must not be all zero (got {weights})"
    if not request["segments"] and "empty-corpus-accepted" not in bugs:
        # Modelled on the general class (an empty corpus summed to zero statistics), no specific report found.
        return "at least one segment is needed"
    for i, segment in enumerate(request["segments"]):
        if not segment["references"] and "no-references-skipped" not in bugs:
            return f"segment {i} has no references"
    for name, value in request["smoothing"].items():
        if name != "method" and value < 0 and "negative-smoothing-accepted" not in bugs:
            # sacrebleu 2.6.0 sacrebleu/metrics/bleu.py: `smooth_value` is used as given for floor and add-k
            # (bleu-oracle's own `check --impl sacrebleu` scores a negative floor value).
            return f"smoothing parameter {name} must be non-negative (got {value})"
    return None


def answer(request, bugs, with_stats):
    STATE.remember(bugs)
    key = STATE.memo_key(request, bugs)
    if key is not None and key in STATE.memo:
        return {**STATE.memo[key], "seq": request["seq"]}
    out = compute(request, bugs, with_stats)
    if key is not None:
        STATE.memo[key] = out
    return out


def compute(request, bugs, with_stats):
    problem = invalid(request, bugs)
    if problem:
        return {"seq": request["seq"], "rejected": problem}
    method = request["smoothing"].get("method", "none")
    if method not in ("none", "floor", "add-k", "exp"):
        return {"seq": request["seq"], "unsupported": f"smoothing {method!r} is not implemented"}
    lowercase = bool(request.get("lowercase"))
    if request.get("tokenize") is not None and "text-lowercase-ignored" in bugs:
        # Modelled on the general class (a `lowercase` option honoured on token input only), no specific
        # report found.
        lowercase = False
    segments = shape_segments([s for s in read_references_once(text_to_tokens(request, bugs), bugs)
                               if s["references"]], bugs)
    if not select_segments(segments, bugs):  # an empty corpus accepted (or every segment skipped): zero statistics
        return _zero_answer(request["seq"], len(request["weights"]), with_stats)
    planned = request
    plan = request.get("stateful")
    if plan and plan.get("previous") and request.get("tokenize") is not None:  # a text request's earlier corpora
        previous = [text_to_tokens({**request, "segments": corpus}, bugs) for corpus in plan["previous"]]
        planned = {**request, "stateful": {**plan, "previous": previous}}
    state = run_plan({**planned, "segments": segments, "lowercase": lowercase}, bugs)
    score, bp = state.compute(request["weights"], request["smoothing"])
    out = {"seq": request["seq"], "score": "NaN" if math.isnan(score) else score}
    if with_stats:
        out["statistics"] = {"hyp_len": state.c, "ref_len": state.r, "matches": state.matches,
                             "totals": state.totals, "bp": "NaN" if math.isnan(bp) else bp}
    return out


def read_references_once(segments, bugs):
    """references-read-once: the references of the first request the process scores (as read: tokens) are kept,
    and every request's hypotheses are paired with them, segment i with its segment i, zip stopping at the shorter.
    mjpost/sacrebleu PR #303: `corpus_score(hyps, None)` scores against the references cached when the metric was
    made and "silently truncates to the shorter of the hypotheses and the cached references"; geek-ai/Texygen issue
    #46 quotes its Self-BLEU's `reference = self.get_reference()`, a reference set read once and kept."""
    if "references-read-once" not in bugs:
        return segments
    if STATE.first_references is None:
        STATE.first_references = [s["references"] for s in segments]
    return [{**s, "references": references} for s, references in zip(segments, STATE.first_references, strict=False)]


def _zero_answer(seq, order, with_stats):
    out = {"seq": seq, "score": 0.0}
    if with_stats:
        out["statistics"] = {"hyp_len": 0, "ref_len": 0, "matches": [0] * order, "totals": [0] * order, "bp": 0.0}
    return out


def _write(obj):
    sys.stdout.write(json.dumps(obj, ensure_ascii=False) + "\n")
    sys.stdout.flush()


def parse_argv(argv):
    """(bugs, with_stats) from the command line; an unknown bug name exits with an error."""
    names = [a for a in argv if not a.startswith("--")]
    unknown = [a for a in argv if a.startswith("--") and a != "--no-stats"]
    if unknown:
        raise SystemExit(f"plantedbleu: unknown option(s) {unknown}")
    if not names:
        raise SystemExit("usage: plantedbleu.py clean | BUG [BUG ...] [--no-stats]; bugs: " + ", ".join(BUGS))
    bugs = set(names) - {"clean"}
    wrong = sorted(b for b in bugs if b not in BUGS)
    if wrong:
        raise SystemExit(f"plantedbleu: unknown bug(s) {wrong}; known: {', '.join(BUGS)}")
    return bugs, "--no-stats" not in argv


def main(argv=None):
    bugs, with_stats = parse_argv(sys.argv[1:] if argv is None else argv)
    capabilities = {
        "levels": ["corpus", "sentence"],
        "weights": "any",
        "max_order": 12,
        "smoothing": ["none", "floor", "add-k", "exp"],
        "statistics": with_stats,
        "lowercase": True,
        "stateful": ["accumulate", "merge", "reset"],
        "tokenizers": ["none", "13a", "intl", "char"],
    }
    name = "plantedbleu+" + ",".join(sorted(bugs) or ["clean"])
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
                reply = answer(command, bugs, with_stats)
            except Exception as exc:  # noqa: BLE001 - any failure is an `error` reply, the loop goes on
                traceback.print_exc(file=sys.stderr)
                reply = {"seq": command.get("seq"), "error": f"{type(exc).__name__}: {exc}"}
            _write(reply)
        else:
            _write({"seq": command.get("seq"), "error": f"unknown command {cmd!r}"})


if __name__ == "__main__":
    main()
