"""The request's structure changed: what an implementation scores when its caller mis-shapes what it passes.

The commonest real bug around a correct BLEU is in the code that calls it (a wrapper, an LLM-evaluation harness): the
hypotheses and references passed in each other's place, per-segment reference lists passed where reference streams
are expected, a string passed where a token list is expected, the tokenizer run on one side only; a value of one level
of the nesting corpus -> segments -> references -> tokens passed for its neighbour (a reference string, or a
reference's tokens, as the list of references; reference strings as the reference streams); one reference kept of
several, the corpus padded by a distributed sampler; a special token counted (an end or start token added to a side,
pads to the batch's longest). The library then
counts other segments than the request's, and the statistics it returns differ from the oracle's in their lengths
(`other-counting-of-hyp_len`, `-ref_len`): which statistic differs, not why. Each mechanism here reshapes the request
alone into the segments such a call scores; the classifier scores them with the judged profile and keeps the
mechanism only where those counts are the returned statistics and that score the answer (`classify._counting_of`).

    >>> from oracle.models.protocol import ScoreRequest, Segment
    >>> request = ScoreRequest(level="sentence", weights=[1.0],
    ...                        segments=[Segment(hypothesis=["a", "b"], references=[["a", "b", "c"]])])
    >>> [(s.hypothesis, s.references) for s in reshaped(request, None, None, swapped).segments]
    [(('a', 'b', 'c'), (('a', 'b'),))]

A mechanism that changes nothing on a request is not tried there (`reshaped` returns None): one segment cannot be
shifted, one reference cannot be transposed away, a swap of identical sides is the request itself, a corpus of 4
segments needs no padding to a multiple of 2 or 4. A special token is always one no segment holds (`</s>` marked
until it is new), so that it matches only its own copies: the counts are those of any such token.

The reshaping of a request (the how) is here; the mechanisms, their names, the order they are tried in and which
are named only where statistics were returned, are declared in the catalogue
(`oracle.diagnose.mechanisms.structure`).

Pure: the oracle's tokenizers (`oracle.formulas.tokenizers`) and the protocol's request model.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, cast

from oracle.formulas.tokenizers import tokenize
from oracle.models.protocol import ScoreRequest, Segment

from .sentences import sentences

#: The most segments a pooled corpus is built for: every hypothesis against every reference costs the square of
#: the corpus (a shrunk failing example has a handful; a 2,000-segment one would cost 4 million reference reads).
#: Reference strings read as streams cost the same (each kept segment holds one reference per segment).
MAX_POOLED_SEGMENTS = 64

#: (hypothesis, references) of one segment: tokens, as the oracle counts them.
Pair = tuple[tuple[str, ...], tuple[tuple[str, ...], ...]]
#: How a mechanism reshapes a request: (its tokenized segments, the text request they come from or None, the
#: judged options) -> the segments scored, or None where the mechanism does not apply.
Reshape = Callable[[Sequence[Segment], Any, Any], list[Pair] | None]


@dataclass(frozen=True)
class Structure:
    """A structural mechanism as the search computes it: the `name` records carry, and how the request is reshaped
    (`reshape`, whose docstring says what the caller did: reports show it). Declared, with the order they are tried in,
    in the catalogue (`oracle.diagnose.mechanisms.structure.STRUCTURES`)."""

    name: str
    reshape: Reshape

    @property
    def description(self) -> str:
        """What the mechanism does, on one line (its reshaping function's docstring)."""
        if not self.reshape.__doc__:
            raise TypeError(f"structural mechanism {self.name} has no docstring to describe it in reports")
        return " ".join(self.reshape.__doc__.split())


def _pairs(segments: Sequence[Segment]) -> list[Pair]:
    return [(tuple(s.hypothesis), tuple(tuple(r) for r in s.references)) for s in segments]


def swapped(segments: Sequence[Segment], text: Any, options: Any) -> list[Pair] | None:
    """the hypothesis and the references passed in each other's place (nltk's sentence_bleu(references,
    hypothesis) order reversed; torchtext's bleu_score(candidate_corpus, references_corpus) called with the
    references first, bentrevett/pytorch-seq2seq#62; kubeedge/ianvs#646): each segment's first reference is scored
    as the hypothesis against the hypothesis as its only reference (with several references, the first reference
    stream is what lands in the hypotheses' place)"""
    if any(not s.references for s in segments):
        return None
    return [(tuple(s.references[0]), (tuple(s.hypothesis),)) for s in segments]


def transposed(segments: Sequence[Segment], text: Any, options: Any) -> list[Pair] | None:
    """per-segment reference lists read as reference streams (sacrebleu's corpus_bleu(hypotheses, references)
    takes one stream per alternative reference and zips them with the hypotheses: mjpost/sacrebleu#220, #275;
    vibrantlabsai/ragas#2888): segment i's references become the i-th reference of every segment, and the corpus
    stops at the shortest list (N segments of one reference each: only the first segment is scored, against every
    segment's reference)"""
    if len(segments) < 2 and all(len(s.references) < 2 for s in segments):
        return None
    streams = [s.references for s in segments]
    kept = min(len(segments), *(len(stream) for stream in streams))
    return [(tuple(segments[i].hypothesis), tuple(tuple(stream[i]) for stream in streams)) for i in range(kept)]


def pooled(segments: Sequence[Segment], text: Any, options: Any) -> list[Pair] | None:
    """every hypothesis scored against the references of every segment, not its own (the whole reference corpus
    passed as each hypothesis's references: geek-ai/Texygen's sentence_bleu(reference, hypothesis) with
    `reference` the whole reference file, quoted in geek-ai/Texygen#46; Maluuba/nlg-eval#46)"""
    if not 2 <= len(segments) <= MAX_POOLED_SEGMENTS:
        return None
    every = tuple(tuple(r) for s in segments for r in s.references)
    return [(tuple(s.hypothesis), every) for s in segments]


def next_references(segments: Sequence[Segment], text: Any, options: Any) -> list[Pair] | None:
    """hypotheses and references misaligned by one line: hypothesis i scored against the references of segment
    i + 1 (a first reference line lost, or a header read as a hypothesis), the last hypothesis left without a
    partner by zip (awslabs/sockeye#119: with lines missing anywhere but the end "you are comparing unrelated
    sentences")"""
    if len(segments) < 2:
        return None
    pairs = _pairs(segments)
    return [(pairs[i][0], pairs[i + 1][1]) for i in range(len(pairs) - 1)]


def previous_references(segments: Sequence[Segment], text: Any, options: Any) -> list[Pair] | None:
    """hypotheses and references misaligned by one line the other way: hypothesis i + 1 scored against the
    references of segment i (a first hypothesis line lost, or a header read as a reference), the first hypothesis
    left without a partner (awslabs/sockeye#119)"""
    if len(segments) < 2:
        return None
    pairs = _pairs(segments)
    return [(pairs[i + 1][0], pairs[i][1]) for i in range(len(pairs) - 1)]


def each_reference(segments: Sequence[Segment], text: Any, options: Any) -> list[Pair] | None:
    """each reference scored as a segment of its own, its hypothesis repeated (a multi-reference dataset flattened
    to one row per reference before a single-reference scorer: modelled on the general class, e.g.
    google-research/bleurt#57's "calculate the score with each of them"), so a hypothesis counts once per
    reference in c and in every n-gram total"""
    if all(len(s.references) < 2 for s in segments):
        return None
    return [(tuple(s.hypothesis), (tuple(r),)) for s in segments for r in s.references]


def _lines(segments: Sequence[Segment], text: Any) -> list[tuple[str, tuple[str, ...]]]:
    """Each segment's hypothesis and references as the strings the caller held: a text request's raw text, a token
    request's tokens joined by spaces."""
    if text is not None:
        return [(cast(str, s.hypothesis), tuple(cast(str, r) for r in s.references)) for s in text.segments]
    return [(" ".join(s.hypothesis), tuple(" ".join(r) for r in s.references)) for s in segments]


def _characters(hypothesis: bool, references: bool) -> Reshape:
    def reshape(segments: Sequence[Segment], text: Any, options: Any) -> list[Pair] | None:
        out = []
        for segment, (hypothesis_line, reference_lines) in zip(segments, _lines(segments, text), strict=True):
            out.append((tuple(hypothesis_line) if hypothesis else tuple(segment.hypothesis),
                        tuple(tuple(line) if references else tuple(r)
                              for line, r in zip(reference_lines, segment.references, strict=True))))
        return out

    return reshape


hypothesis_characters = _characters(hypothesis=True, references=False)
hypothesis_characters.__doc__ = (
    "the hypothesis passed as a string where a list of tokens is expected, so that iterating it gives its "
    "characters, spaces included, while the references are token lists (nltk's sentence_bleu([reference_tokens], "
    "hypothesis_string); the class of lisjin/hct#1 and rasbt/MachineLearning-QandAI-book#6, on one side)")
reference_characters = _characters(hypothesis=False, references=True)
reference_characters.__doc__ = (
    "each reference passed as a string where a list of tokens is expected, so that iterating it gives its "
    "characters, spaces included, while the hypothesis is a token list (nltk's sentence_bleu([reference_string], "
    "hypothesis_tokens); the class of lisjin/hct#1 and rasbt/MachineLearning-QandAI-book#6, on one side)")
all_characters = _characters(hypothesis=True, references=True)
all_characters.__doc__ = (
    "the hypothesis and the references passed as strings where lists of tokens are expected, so that every "
    "character, spaces included, is a token (nltk's sentence_bleu([reference], hypothesis) on untokenized "
    "strings: rasbt/MachineLearning-QandAI-book#6, lisjin/hct#1, freesunshine0316/RaST-plus#3, "
    "yandexdataschool/nlp_course#42)")


def _whitespace_words(text: Any, options: Any, line: str) -> tuple[str, ...]:
    fold = options.case_fold if text.lowercase and options.fold_stage == "line" else None
    return tokenize(line, "none", split=options.token_split, fold=fold)


def _tokenizer_on(hypotheses: bool, references: bool) -> Reshape:
    def reshape(segments: Sequence[Segment], text: Any, options: Any) -> list[Pair] | None:
        if text is None or text.tokenize == "none":
            return None
        out = []
        for segment, raw in zip(segments, text.segments, strict=True):
            out.append((tuple(segment.hypothesis) if hypotheses else _whitespace_words(text, options, raw.hypothesis),
                        tuple(tuple(r) if references else _whitespace_words(text, options, line)
                              for r, line in zip(segment.references, raw.references, strict=True))))
        return out

    return reshape


tokenizer_on_hypotheses = _tokenizer_on(hypotheses=True, references=False)
tokenizer_on_hypotheses.__doc__ = (
    "the request's tokenizer run on the hypotheses only, each reference split on whitespace as it stands "
    "(laihuiyuan/pre-trained-formality-transfer#1: predictions tokenized before multi-bleu.perl, references not, "
    "\"the result very bad\")")
tokenizer_on_references = _tokenizer_on(hypotheses=False, references=True)
tokenizer_on_references.__doc__ = (
    "the request's tokenizer run on the references only, each hypothesis split on whitespace as it stands "
    "(the other side of laihuiyuan/pre-trained-formality-transfer#1; facebookresearch/fairseq#1827: the two sides "
    "prepared differently before sacrebleu's tokenizer)")
tokenizer_skipped = _tokenizer_on(hypotheses=False, references=False)
tokenizer_skipped.__doc__ = (
    "the request's tokenizer not run at all: every line split on whitespace as it stands (a wrapper that passes "
    "tokenize='none', or splits with str.split() where 13a, intl or char is asked for: huggingface/evaluate#20, on "
    "inconsistent tokenization)")


# -- nesting confusions: a value of one level of corpus -> segments -> references -> tokens passed for another --------


def _first_lines(segments: Sequence[Segment], text: Any) -> list[tuple[str, str]] | None:
    """Each segment's hypothesis and first reference as the strings the caller held; None where a segment has no
    reference (there is nothing to mis-nest)."""
    if any(not s.references for s in segments):
        return None
    return [(hypothesis, references[0]) for hypothesis, references in _lines(segments, text)]


def _character_references(line: str, *, whitespace_empty: bool) -> tuple[tuple[str, ...], ...]:
    """Each character of `line` as a reference of one token; a whitespace character an empty reference where the
    library tokenizes each reference string (splitting " " gives no token), itself a token where it does not."""
    return tuple(() if whitespace_empty and c.isspace() else (c,) for c in line)


def reference_string_as_references(segments: Sequence[Segment], text: Any, options: Any) -> list[Pair] | None:
    """the reference string passed where the segment's list of references is expected, so that iterating it gives
    its characters: each character is a reference of one token, each whitespace character an empty reference (the
    library tokenizes every reference string it is given), the hypothesis scored as it should be (sacrebleu's
    sentence_score(hypothesis, reference): "it is split into characters and each character is treated as one
    reference", mjpost/sacrebleu#99; chrF the same, browsermt/students#42). With several references, the first"""
    lines = _first_lines(segments, text)
    if lines is None or any(not line for _, line in lines):  # "" as the references: none, which a library refuses
        return None
    return [(tuple(s.hypothesis), _character_references(line, whitespace_empty=True))
            for s, (_, line) in zip(segments, lines, strict=True)]


def reference_tokens_as_references(segments: Sequence[Segment], text: Any, options: Any) -> list[Pair] | None:
    """a reference's token list passed where the segment's list of references is expected (nltk's
    sentence_bleu(reference_tokens, hypothesis_tokens) for sentence_bleu([reference_tokens], ...):
    nltk/nltk#1285), so that each token is a reference, read as the sequence of its characters, against the
    hypothesis's tokens. With several references, the first"""
    if any(not s.references or not s.references[0] for s in segments):  # no token: no references at all
        return None
    return [(tuple(s.hypothesis), tuple(tuple(token) for token in s.references[0])) for s in segments]


def strings_as_references_and_hypothesis(segments: Sequence[Segment], text: Any, options: Any) -> list[Pair] | None:
    """strings passed where token lists are expected on both sides, the reference string standing for the list of
    references (nltk's sentence_bleu(reference_string, hypothesis_string)): the hypothesis is its characters,
    spaces included, and each character of the reference, a space too, is a reference of one token
    (Jielin-Qiu/Transfer_Knowledge_from_Language_to_ECG#4: "predictions and labels were incorrectly treated as
    strings", fixed by passing "lists of words and lists of lists of words"). With several references, the first"""
    lines = _first_lines(segments, text)
    if lines is None or any(not line for _, line in lines):
        return None
    return [(tuple(hypothesis), _character_references(line, whitespace_empty=False)) for hypothesis, line in lines]


def reference_strings_as_streams(segments: Sequence[Segment], text: Any, options: Any) -> list[Pair] | None:
    """a flat list of reference strings passed as the reference streams (sacrebleu's corpus_bleu(hypotheses,
    references) for corpus_bleu(hypotheses, [references]): mjpost/sacrebleu#256, #272): each string is a stream,
    so segment i's references are the i-th characters of every reference string (each one token, whitespace an
    empty reference, as sacrebleu tokenizes them), and zip cuts the corpus to the shortest string. With several
    references, each segment's first"""
    lines = _first_lines(segments, text)
    if lines is None or len(segments) > MAX_POOLED_SEGMENTS:
        return None
    streams = [line for _, line in lines]
    kept = min(len(segments), *(len(stream) for stream in streams))
    return [(tuple(segments[i].hypothesis),
             tuple(() if stream[i].isspace() else (stream[i],) for stream in streams)) for i in range(kept)]


def last_reference(segments: Sequence[Segment], text: Any, options: Any) -> list[Pair] | None:
    """only each segment's last reference kept, for clipping and for the reference length: the list of references
    re-created inside the loop over them, so that each pass rebinds it instead of appending
    (gomate-community/rageval#80: "move the claim of reference[] outside the circle")"""
    if any(not s.references for s in segments):
        return None
    return [(tuple(s.hypothesis), (tuple(s.references[-1]),)) for s in segments]


# -- lines read back: each side written one segment a line and read back by a reader with more line ends ------------

#: Where Python's `str.splitlines` ends a line (its documentation's table: \n, \r, \r\n, \v, \f, \x1c, \x1d, \x1e,
#: \x85, \u2028, \u2029; CR LF is one line end).
SPLITLINES_LINE_ENDS = re.compile("\r\n|[\n\r\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029]")
#: Where a file opened in text mode with universal newlines ends a line (`open(path)`, `newline=None`, the default
#: of `open` and of `sys.stdin`): \n, \r and \r\n.
UNIVERSAL_NEWLINES = re.compile("\r\n|[\n\r]")


def _token_lines(sequences: Sequence[Sequence[str]], line_end: re.Pattern[str]) -> list[tuple[str, ...]]:
    """Token sequences written one a line (tokens joined by spaces) and read back by a reader that also ends a line
    at `line_end`: a token holding one is cut there, the piece before it ending one line and the piece after it
    starting the next; an empty piece is no token (a whitespace split drops it)."""
    lines: list[tuple[str, ...]] = []
    for tokens in sequences:
        current: list[str] = []
        for token in tokens:
            pieces = line_end.split(token)
            for j, piece in enumerate(pieces):
                if j:
                    lines.append(tuple(current))
                    current = []
                if piece:
                    current.append(piece)
        lines.append(tuple(current))
    return lines


def _text_lines(texts: Sequence[str], line_end: re.Pattern[str], text: Any, options: Any) -> list[tuple[str, ...]]:
    """Texts written one a line and read back by a reader that also ends a line at `line_end`, each line then
    tokenized as the request asks."""
    fold = options.case_fold if text.lowercase and options.fold_stage == "line" else None
    return [tokenize(line, text.tokenize, split=options.token_split, padding=options.line_padding, fold=fold)
            for whole in texts for line in line_end.split(whole)]


def _lines_cut_at(line_end: re.Pattern[str]) -> Reshape:
    def reshape(segments: Sequence[Segment], text: Any, options: Any) -> list[Pair] | None:
        count = len(segments[0].references) if segments else 0
        if not count or any(len(s.references) != count for s in segments):
            return None  # one file per reference: every segment has as many
        if text is not None:
            sides = [[str(s.hypothesis) for s in text.segments],
                     *([str(s.references[k]) for s in text.segments] for k in range(count))]
            if not any(line_end.search(t) for side in sides for t in side):
                return None
            hypotheses, *streams = (_text_lines(side, line_end, text, options) for side in sides)
        else:
            sides_tokens = [[s.hypothesis for s in segments], *([s.references[k] for s in segments]
                                                                for k in range(count))]
            if not any(line_end.search(t) for side in sides_tokens for seq in side for t in seq):
                return None
            hypotheses, *streams = (_token_lines(side, line_end) for side in sides_tokens)
        if any(len(stream) != len(hypotheses) for stream in streams):
            return None  # the lines cannot be paired one to one: such a caller errs or pairs them some other way
        return [(hypothesis, tuple(stream[i] for stream in streams)) for i, hypothesis in enumerate(hypotheses)]

    return reshape


lines_cut_at_universal_newlines = _lines_cut_at(UNIVERSAL_NEWLINES)
lines_cut_at_universal_newlines.__doc__ = (
    "each side written one segment a line and read back with universal newlines (a file opened in text mode, "
    "`open(path)` without `newline=`, as miyatarina/PBL-dialogue-teamA code/python/pbl_bleu.py iterates its "
    "reference and prediction files): a carriage return in a segment ends a line as a line feed does, so the "
    "segment becomes two lines, and the i-th hypothesis line is scored against the i-th line of each reference "
    "file (named only where every side has as many lines)")
lines_cut_at_splitlines_line_ends = _lines_cut_at(SPLITLINES_LINE_ENDS)
lines_cut_at_splitlines_line_ends.__doc__ = (
    "each side written one segment a line and read back with `str.splitlines` (taquecih/bleu sbleu.py: "
    "`open(...).read().splitlines()` on the reference and the output file, line i against line i), which also "
    "ends a line at a carriage return, VT, FF, U+001C to U+001E, NEL, U+2028 and U+2029: a segment holding one "
    "becomes two lines, and the lines are paired by position (named only where every side has as many lines)")


def padded_corpus(k: int) -> Reshape:
    """The corpus padded to a multiple of `k` segments (a sampler's world size)."""
    def reshape(segments: Sequence[Segment], text: Any, options: Any) -> list[Pair] | None:
        pairs = _pairs(segments)
        missing = -len(pairs) % k
        # (torch's DistributedSampler repeats the indices from the start, cycling where fewer than are missing)
        return pairs + [pairs[i % len(pairs)] for i in range(missing)] if pairs and missing else None

    reshape.__doc__ = (
        f"the corpus padded to a multiple of {k} segments by repeating its first segments, and the repeats counted "
        f"(a distributed sampler over {k} processes pads the dataset so that each gets as many: "
        "pytorch/pytorch#25162, `indices += indices[:(self.total_size - len(indices))]`; roboflow/rf-detr#1507; "
        "RUCAIBox/RecBole#1872)")
    return reshape


# -- special tokens counted: a constant token added to every sequence of a side, or pads to the batch's longest -----


def _token_held_by_none(segments: Sequence[Segment], spelling: str) -> str:
    """`spelling`, or `spelling` marked until it is a token no segment holds (case-folded, so that a folding request
    cannot make it one): the mechanism is about the sequences' structure, never a coincidence with a request's token
    (a request holding </s> is scored with another token in its place, of the same effect)."""
    held = {t.casefold() for s in segments for sequence in (s.hypothesis, *s.references) for t in sequence}
    token = spelling
    while token.casefold() in held:
        token += "#"
    return token


def _constant_token(at_end: bool, hypotheses: bool, references: bool) -> Reshape:
    def reshape(segments: Sequence[Segment], text: Any, options: Any) -> list[Pair] | None:
        token = (_token_held_by_none(segments, "</s>" if at_end else "<s>"),)

        def added(sequence: tuple[str, ...]) -> tuple[str, ...]:
            return sequence + token if at_end else token + sequence

        return [(added(h) if hypotheses else h, tuple(added(r) if references else r for r in refs))
                for h, refs in _pairs(segments)]

    return reshape


token_on_hypotheses = _constant_token(at_end=True, hypotheses=True, references=False)
token_on_hypotheses.__doc__ = (
    "a special token added to every hypothesis and counted, the references without one: an end-of-sentence token "
    "left at its end (foundation-model-stack/fms-hf-tuning#121: the eos of the predictions, not of the ground "
    "truth) or a start token at its start (sillsdev/silnlp#879: \"an extra end-of-sentence marker ... at the start "
    "of each sentence\" of the predictions), which no count tells apart; the token is one no segment holds")
token_on_references = _constant_token(at_end=True, hypotheses=False, references=True)
token_on_references.__doc__ = (
    "a special token added to every reference and counted, the hypotheses without one: the targets taken with "
    "their end token (vineetjohn/linguistic-style-transfer#24: \"there should be no UNK and EOS tokens in the "
    "ground truth\") or their start token, which no count tells apart; the token is one no segment holds")
end_token_on_both = _constant_token(at_end=True, hypotheses=True, references=True)
end_token_on_both.__doc__ = (
    "an end-of-sentence token at the end of every hypothesis and every reference, counted and matching itself "
    "(sgrvinod/a-PyTorch-Tutorial-to-Image-Captioning#83: <start> and <pad> removed before BLEU, <end> kept on "
    "both sides); the token is one no segment holds")
start_token_on_both = _constant_token(at_end=False, hypotheses=True, references=True)
start_token_on_both.__doc__ = (
    "a start-of-sentence token at the start of every hypothesis and every reference, counted and matching itself "
    "(the class of sgrvinod/a-PyTorch-Tutorial-to-Image-Captioning#83, the start token kept); the token is one no "
    "segment holds")


def _padded_pairs(pairs: list[Pair], pad: str, hypotheses: bool, references: bool, *, common: bool) -> list[Pair]:
    """`pairs` with the hypotheses (and/or references) padded with `pad` to the longest of their side, or of both
    sides where `common`."""
    hypothesis_length = max(len(h) for h, _ in pairs)
    reference_length = max((len(r) for _, refs in pairs for r in refs), default=0)
    if common:
        hypothesis_length = reference_length = max(hypothesis_length, reference_length)

    def padded(sequence: tuple[str, ...], length: int) -> tuple[str, ...]:
        return sequence + (pad,) * (length - len(sequence))

    return [(padded(h, hypothesis_length) if hypotheses else h,
             tuple(padded(r, reference_length) if references else r for r in refs)) for h, refs in pairs]


def _padding(hypotheses: bool, references: bool, *, common: bool) -> Reshape:
    def reshape(segments: Sequence[Segment], text: Any, options: Any) -> list[Pair] | None:
        pad = _token_held_by_none(segments, "<pad>")
        return _padded_pairs(_pairs(segments), pad, hypotheses, references, common=common)

    return reshape


def _end_token_on_references_then_padding(*, common: bool, hypotheses: bool = False) -> Reshape:
    """An end token on every reference (and every hypothesis where `hypotheses`), then the pads after it: a
    sequence decoded with its end token and the batch's pads, counted."""
    def reshape(segments: Sequence[Segment], text: Any, options: Any) -> list[Pair] | None:
        end = (_token_held_by_none(segments, "</s>"),)
        pad = _token_held_by_none(segments, "<pad>")
        ended = [(h + end if hypotheses else h, tuple(r + end for r in refs)) for h, refs in _pairs(segments)]
        return _padded_pairs(ended, pad, True, True, common=common)

    return reshape


padding_in_hypotheses = _padding(hypotheses=True, references=False, common=False)
padding_in_hypotheses.__doc__ = (
    "every hypothesis padded to the longest hypothesis of the batch (the request) with a pad token, and the pads "
    "counted (PaddlePaddle/PaddleNLP#5361: \"padding tokens were not ignored\" in the predictions scored); the pad "
    "is a token no segment holds")
padding_in_references = _padding(hypotheses=False, references=True, common=False)
padding_in_references.__doc__ = (
    "every reference padded to the longest reference of the batch (the request) with a pad token, and the pads "
    "counted (a padded target tensor decoded as it stands: the class of IBM/pytorchpipe#32, on one side); the pad "
    "is a token no segment holds")
padding_on_both = _padding(hypotheses=True, references=True, common=False)
padding_on_both.__doc__ = (
    "every hypothesis padded to the longest hypothesis and every reference to the longest reference of the batch "
    "(the request), each side its own tensor, with one pad token, counted and matching itself (IBM/pytorchpipe#32: "
    "TARGET ['viens', ..., '<EOS>', '<PAD>', ...], PREDICTION ['.', '<PAD>', ...]); the pad is a token no segment "
    "holds")
padding_to_common_length = _padding(hypotheses=True, references=True, common=True)
padding_to_common_length.__doc__ = (
    "every hypothesis and every reference padded to the longest sequence of either side (predictions and targets "
    "one tensor shape, as under teacher forcing) with one pad token, counted and matching itself "
    "(IBM/pytorchpipe#32: a target and a prediction of 10 tokens each, mostly <PAD>); the pad is a token no segment "
    "holds")

end_token_on_references_and_common_padding = _end_token_on_references_then_padding(common=True)
end_token_on_references_and_common_padding.__doc__ = (
    "an end token added to every reference (not to the hypotheses), then every hypothesis and reference padded to the "
    "longest sequence of either side with a pad token, end token and pads counted (IBM/pytorchpipe#32: TARGET "
    "['viens', 'ici', 'immediatement', '.', '<EOS>', '<PAD>', ...], PREDICTION ['.', '<PAD>', ...], ten tokens each, "
    "BLEU 0.41; bentrevett/pytorch-seq2seq#133: targets '<eos>' then '<pad>' in a batch); end and pad are tokens no "
    "segment holds")
end_token_on_references_and_padding_on_both = _end_token_on_references_then_padding(common=False)
end_token_on_references_and_padding_on_both.__doc__ = (
    "an end token added to every reference (not to the hypotheses), then the hypotheses padded to the longest "
    "hypothesis and the references to the longest reference, each side its own tensor, end token and pads counted "
    "(the class of IBM/pytorchpipe#32, the two sides padded apart); end and pad are tokens no segment holds")
# (glm4-pads: the class of the eleventh held-out set's GLM-4 plant, coverage of a seen bug, not generalisation)
end_token_and_padding_on_both = _end_token_on_references_then_padding(common=False, hypotheses=True)
end_token_and_padding_on_both.__doc__ = (
    "an end token kept at the end of every hypothesis and every reference, then the hypotheses padded to the longest "
    "hypothesis and the references to the longest reference, each side its own tensor, end token and pads counted "
    "and matching their copies across the sides: a decoder's output and its labels decoded without "
    "skip_special_tokens, each ending in its end token and the batch's pads (Yuanhy1997/SeqDiffuSeq#11: decoded "
    "text \"including the '</s>, <s>, <pad>'\"; huggingface/transformers#24166: ['<pad> bhubaneswar</s>', ...] out "
    "of batch_decode; ciksn/trans-trainer eval/custom_compute_metric.py: `tokenizer.batch_decode(pred_idx)` with the "
    "special tokens kept); end and pad are tokens no segment holds")

# -- the mutation operators at each level of the request: segments, references per segment, tokens ----------------
#
# The operators real bugs are made of (issue 36: the first or last element in place of all, all but the last or all but
# the first, the order reversed, one level folded into the next), each applied at each level of the request's nesting,
# so that a caller's mistake is a structure whoever listed an instance of it. Those the catalogue held already are not
# generated again: the last segment dropped (`mechanisms.counting`'s `last-segment-dropped`), the first reference only
# (`first-reference-only`) and the last (`last-reference-only`, above); the references' order reversed changes no count
# (clipping takes each n-gram's largest count over the references, and the reference length is a rule over their
# lengths, whatever their order), so it is not generated either. Each gives None where it changes nothing or leaves a
# segment without what the formulas count (a corpus of one segment has no other to cut to; one reference, none to drop).


def _segment_operator(keep: Callable[[list[Pair]], list[Pair] | None]) -> Reshape:
    def reshape(segments: Sequence[Segment], text: Any, options: Any) -> list[Pair] | None:
        pairs = _pairs(segments)
        return keep(pairs) if len(pairs) >= 2 else None

    return reshape


def _joined_segments(pairs: list[Pair]) -> list[Pair] | None:
    """The corpus as one segment: every hypothesis joined into one, and each reference stream likewise (the k-th
    references of every segment joined); None where the segments hold different numbers of references."""
    counts = {len(references) for _, references in pairs}
    if len(counts) != 1:
        return None
    (streams,) = counts
    hypothesis = tuple(token for h, _ in pairs for token in h)
    return [(hypothesis, tuple(tuple(token for _, references in pairs for token in references[k])
                               for k in range(streams)))]


corpus_cut_to_first_segment = _segment_operator(lambda pairs: pairs[:1])
corpus_cut_to_first_segment.__doc__ = (
    "only the corpus's first segment scored, its statistics and its score (the first element in place of all at the "
    "request's segments: a batch's first sentence taken for the batch, as `preds[0]` for `preds`, or a loop that "
    "returns on its first pass; the symptom vibrantlabsai/ragas#2888 reports, \"only the first sentence is ever "
    "evaluated\", there reached through a zip)")
corpus_cut_to_last_segment = _segment_operator(lambda pairs: pairs[-1:])
corpus_cut_to_last_segment.__doc__ = (
    "only the corpus's last segment scored, its statistics and its score (the last element in place of all at the "
    "request's segments: a variable assigned in the loop over the segments and read after it, so that the last pass "
    "is what is reported)")
first_segment_dropped = _segment_operator(lambda pairs: pairs[1:])
first_segment_dropped.__doc__ = (
    "the corpus's first segment left out of every count (all but the first at the request's segments: a header line "
    "skipped from a file that has none, or `lines[1:]` on both sides)")
hypotheses_in_reverse_order = _segment_operator(
    lambda pairs: [(pairs[len(pairs) - 1 - i][0], references) for i, (_, references) in enumerate(pairs)])
hypotheses_in_reverse_order.__doc__ = (
    "the hypotheses scored in the reverse order of their references (the segments' order reversed on one side: a "
    "batch decoded in reverse, or outputs collected by prepending while the references were appended), so hypothesis "
    "i is scored against the references of segment N - 1 - i")
segments_joined_into_one = _segment_operator(_joined_segments)
segments_joined_into_one.__doc__ = (
    "the corpus folded into one segment: every hypothesis joined into one text and each reference stream likewise "
    "(the segments' level folded into the segment: a list of sentences joined with ' '.join before a sentence "
    "scorer); its n-grams across the joins count")


def texts_cut_into_sentences_paired_by_position(segments: Sequence[Segment], text: Any,
                                                options: Any) -> list[Pair] | None:
    """each segment's hypothesis and references cut into sentences (after every token ending in '.', '!' or '?') and
    the k-th hypothesis sentence scored against the references' k-th sentences, each pair a segment of the corpus (a
    document-level caller that splits texts with a sentence segmenter and passes the pieces on paired by position:
    vibrantlabsai/ragas#2888 and #2908, `response.split(". ")` against `reference.split(". ")`; a document BLEU whose
    references are `zip(*map(sent_tokenize, references))`); n-grams across a sentence end are not counted, and each
    sentence pair has its own closest reference length. None where every text is one sentence (nothing is cut) or
    where a reference has another number of sentences than its hypothesis (such a caller raises: the error feature
    `sentence-counts-differ`)"""
    out: list[Pair] = []
    for hypothesis, references in _pairs(segments):
        pieces = sentences(hypothesis)
        columns = [sentences(reference) for reference in references]
        if any(len(column) != len(pieces) for column in columns):
            return None
        out.extend((piece, tuple(column[k] for column in columns)) for k, piece in enumerate(pieces))
    return out if len(out) > len(segments) else None


def _reference_operator(keep: Callable[[tuple[tuple[str, ...], ...]], tuple[tuple[str, ...], ...]], *,
                        dropping: bool = False) -> Reshape:
    """An operator on each segment's references; it applies where every segment has at least two (on one reference
    the references' list would be left empty, a call a library refuses). One that drops a reference (`dropping`)
    applies where some segment has three or more: on two references a segment, all but the last is the first
    reference only (`first-reference-only`) and all but the first the last only (`last-reference-only`), which the
    catalogue holds and which tell no more apart."""
    def reshape(segments: Sequence[Segment], text: Any, options: Any) -> list[Pair] | None:
        pairs = _pairs(segments)
        if any(len(references) < 2 for _, references in pairs):
            return None
        if dropping and all(len(references) < 3 for _, references in pairs):
            return None
        return [(hypothesis, keep(references)) for hypothesis, references in pairs]

    return reshape


last_reference_dropped = _reference_operator(lambda references: references[:-1], dropping=True)
last_reference_dropped.__doc__ = (
    "each segment's last reference left out, for clipping and for the reference length (all but the last at the "
    "segment's references: `references[:-1]`, an off-by-one in the loop over them, or a last reference column taken "
    "for an id)")
first_reference_dropped = _reference_operator(lambda references: references[1:], dropping=True)
first_reference_dropped.__doc__ = (
    "each segment's first reference left out, for clipping and for the reference length (all but the first at the "
    "segment's references: `references[1:]`, a first column taken for the source or a header)")
references_joined_into_one = _reference_operator(
    lambda references: (tuple(token for reference in references for token in reference),))
references_joined_into_one.__doc__ = (
    "each segment's references joined into one reference (the references' level folded into the reference: several "
    "references kept in one series and never split again; ufal/neuralmonkey#698 stores them in a single series "
    "separated by a token), so r is their summed length and an n-gram across two of them counts")

#: The sides a token operator is applied to: (the name's side, its words, on hypotheses, on references).
TOKEN_SIDES = (("hypotheses", "every hypothesis", True, False), ("references", "every reference", False, True),
               ("text", "every hypothesis and every reference", True, True))

#: The token operators: (the name's stem, what it keeps of a sequence, its words, the mistake it is).
TOKEN_OPERATORS: tuple[tuple[str, Callable[[tuple[str, ...]], tuple[str, ...]], str, str], ...] = (
    ("first-token-only", lambda tokens: tokens[:1], "cut to its first token",
     "the first element in place of all at the tokens: `tokens[0]` for `tokens`, or a generation stopped after one "
     "step"),
    ("last-token-only", lambda tokens: tokens[-1:], "cut to its last token",
     "the last element in place of all at the tokens: a sequence's last step kept where the steps were meant"),
    ("last-token-dropped", lambda tokens: tokens[:-1], "without its last token",
     "all but the last at the tokens: `tokens[:-1]` to strip an end-of-sentence token that is not there, as "
     "bentrevett/pytorch-seq2seq#62's `pred_trg = pred_trg[:-1]  #cut off <eos> token` does to a translation that "
     "stopped at its length limit"),
    ("first-token-dropped", lambda tokens: tokens[1:], "without its first token",
     "all but the first at the tokens: `tokens[1:]` to strip a start token that is not there (the same slice "
     "kanishkamisra/minicons#51 found in an LM scorer, applied to models without one)"),
    ("tokens-reversed", lambda tokens: tokens[::-1], "with its tokens in reverse order",
     "the tokens' order reversed: a sequence decoded right to left, or a source-reversal trick left on the output "
     "(soaxelbrooke/python-bpe#1: a tokenizer's decoded tokens come out in reverse order)"),
    ("tokens-joined-into-one", lambda tokens: (" ".join(tokens),) if tokens else tokens, "joined into one token",
     "the tokens' level folded into the sequence: a string passed where a list of tokens is expected inside a list, "
     "as `[hypothesis]` for `hypothesis.split()`, so the whole text is one token"),
)


def _token_operator(operation: Callable[[tuple[str, ...]], tuple[str, ...]], hypotheses: bool,
                    references: bool, *, on_text_requests: bool = True) -> Reshape:
    """`operation` applied to every hypothesis, every reference or both (a side of `TOKEN_SIDES`); on a text request
    (its tokens) too unless `on_text_requests` is False (a reading a tokenizer undoes: it does not apply there)."""
    def reshape(segments: Sequence[Segment], text: Any, options: Any) -> list[Pair] | None:
        if text is not None and not on_text_requests:
            return None
        return [(operation(h) if hypotheses else h, tuple(operation(r) if references else r for r in refs))
                for h, refs in _pairs(segments)]

    return reshape


def token_operators() -> list[tuple[str, Reshape]]:
    """(name, reshaping) of every token operator on every side (`TOKEN_OPERATORS` x `TOKEN_SIDES`), named
    `<operator>-in-<side>`, each described by what it keeps and the caller's mistake it is."""
    out = []
    for stem, operation, kept, mistake in TOKEN_OPERATORS:
        for side, where, hypotheses, references in TOKEN_SIDES:
            reshape = _token_operator(operation, hypotheses, references)
            reshape.__doc__ = f"{where} {kept} before counting ({mistake})"
            out.append((f"{stem}-in-{side}", reshape))
    return out


def line_end_kept(tokens: tuple[str, ...]) -> tuple[str, ...]:
    r"""A line's tokens as `line.split(" ")` gives them where the line is not stripped first: its line end on the last
    token (`"b\n"` for `b`), an empty line the one token `"\n"`. `"\n"` stands for every line end a reader keeps
    (`"\r\n"` from a Windows file too): the counts are the same wherever no token of the request ends in one."""
    return (*tokens[:-1], tokens[-1] + "\n") if tokens else ("\n",)


#: A line read without stripping, on each side of `TOKEN_SIDES` (issue 36: every text transformation applied to the
#: hypothesis only, the references only, or both): the side's name -> (the mechanism's name there, the side's words).
LINE_END_SIDES = {
    "hypotheses": ("hypothesis-line-end-kept-on-last-token", "each hypothesis line"),
    "references": ("reference-line-end-kept-on-last-token", "each reference line"),
    "text": ("line-end-kept-on-last-token-on-both-sides", "each hypothesis and each reference line"),
}
#: Whether a kept line end applies to a text request: no, a tokenizer splits at the line end as at any whitespace, so
#: it is never kept there.
LINE_END_ON_TEXT_REQUESTS = False


def line_ends_kept() -> list[tuple[str, Reshape]]:
    """(name, reshaping) of a line read without stripping on each side (`LINE_END_SIDES`), token requests only (a text
    request's tokenizer splits at the line end)."""
    out = []
    for side, _, hypotheses, references in TOKEN_SIDES:
        name, where = LINE_END_SIDES[side]
        reshape = _token_operator(line_end_kept, hypotheses, references, on_text_requests=LINE_END_ON_TEXT_REQUESTS)
        reshape.__doc__ = (
            f"{where} split on \" \" without stripping its line end first (`line.split(\" \")` over a file's lines, "
            "where `line.rstrip().split(\" \")` was meant): the last token carries the line end (\"\\n\", or "
            "\"\\r\\n\" from a Windows file) and matches no token without it, an empty line is the one token of its "
            "line end (qurator-spk/dinglehopper#107: the ground truth's lines read with readlines() kept their "
            "newlines, on one side only, and the character error rate came out wrong)")
        out.append((name, reshape))
    return out


# -- each side its own operator: a pair of one-side operators, one on the hypotheses and another on the references -----
#
# Issue 36: "every text transformation applied to the hypothesis only, the references only, or both". The catalogue
# holds each one-side operator alone and the same operator on both sides; a caller who prepares the two sides in two
# places applies one operator to the hypotheses and another to the references (a decoder's output kept with its end
# token, the target input with its start token). The pairs are declared from the one-side operators
# (`mechanisms.structure.SIDE_OPERATORS`), never listed by instance.


#: How a one-side operator changes a sequence's length: (its length, the longest sequence of its side) -> its length
#: after the operator (a special token one more, a pad to the side's longest, a token operator as `TOKEN_LENGTHS`), so
#: that whether an operator alone gives a side's returned length is known from the lengths alone, no sequence rebuilt.
LengthRule = Callable[[int, int], int]

#: Each token operator of `TOKEN_OPERATORS` as a length rule (tests/diagnose/test_each_side.py holds each against the
#: operator itself).
TOKEN_LENGTHS: dict[str, LengthRule] = {
    "first-token-only": lambda n, longest: min(n, 1),
    "last-token-only": lambda n, longest: min(n, 1),
    "last-token-dropped": lambda n, longest: max(n - 1, 0),
    "first-token-dropped": lambda n, longest: max(n - 1, 0),
    "tokens-reversed": lambda n, longest: n,
    "tokens-joined-into-one": lambda n, longest: min(n, 1),
}
SPECIAL_TOKEN_LENGTH: LengthRule = lambda n, longest: n + 1  # noqa: E731 - a rule among rules
PADDING_LENGTH: LengthRule = lambda n, longest: longest  # noqa: E731 - a rule among rules
#: (`line_end_kept`: an empty line is the one token of its line end)
LINE_END_LENGTH: LengthRule = lambda n, longest: max(n, 1)  # noqa: E731 - a rule among rules
#: (`_characters`: a line read as its characters is as long as the line)
SAME_LENGTH: LengthRule = lambda n, longest: n  # noqa: E731 - a rule among rules


@dataclass(frozen=True)
class LengthReading:
    """How a one-side operator's lengths are read without reshaping the request: its `rule` applied to each sequence's
    length in tokens, or in characters where it reads the lines as the caller held them (`of_lines`: a text request's
    raw text, a token request's tokens joined by spaces); None where it does not apply to a text request
    (`token_requests_only`, as a kept line end)."""

    rule: LengthRule
    of_lines: bool = False
    token_requests_only: bool = False


def line_lengths(segments: Sequence[Segment], text: Any, *, hypotheses: bool) -> list[tuple[int, ...]]:
    """Each segment's lines' lengths in characters on one side (its hypothesis alone, or its references), the lines
    as `_lines` gives them (what `_characters` reads)."""
    return [(len(hypothesis),) if hypotheses else tuple(len(r) for r in references)
            for hypothesis, references in _lines(segments, text)]


@dataclass(frozen=True)
class SideLengths:
    """A side's lengths as a length rule reads them: how many segments have each shortest and each longest sequence
    length on the side (its hypothesis alone, or its references; a segment without references counts in neither),
    and the side's longest sequence. Read once a search, so that each rule costs the distinct lengths, not a pass."""

    shortest: tuple[tuple[int, int], ...]
    longest_each: tuple[tuple[int, int], ...]
    longest: int

    @classmethod
    def of(cls, lengths: Sequence[Sequence[int]]) -> SideLengths:
        """From each segment's sequences' lengths on the side."""
        shortest: dict[int, int] = {}
        longest_each: dict[int, int] = {}
        for segment in lengths:
            if segment:
                low, high = min(segment), max(segment)
                shortest[low] = shortest.get(low, 0) + 1
                longest_each[high] = longest_each.get(high, 0) + 1
        return cls(tuple(shortest.items()), tuple(longest_each.items()), max(longest_each, default=0))


def side_lengths(lengths: SideLengths, rule: LengthRule) -> tuple[int, int]:
    """What a one-side operator whose lengths follow `rule` makes of its side's `lengths`: the sum of each segment's
    shortest sequence and the sum of its longest after the rule (on the hypotheses both are c), as
    `computations.structured_length_bounds` reads them from the reshaped request; no token read. Every rule is
    non-decreasing in a sequence's length (tests/diagnose/test_each_side.py), so a segment's shortest after it is the
    rule of its shortest."""
    return (sum(rule(n, lengths.longest) * k for n, k in lengths.shortest),
            sum(rule(n, lengths.longest) * k for n, k in lengths.longest_each))


def each_side(first: Reshape, second: Reshape) -> Reshape:
    """Two one-side operators composed, each on its own side: `first` on the request (and the text it came from),
    then `second` on the token segments `first` gives, with no text (an explanation's later part reads the request
    its earlier part reshaped, as `classify.explained_value` reads one). A token either adds is one no segment of
    what it is applied to holds, so `second`'s token is never `first`'s: two special tokens, or two pads, one a side,
    are two tokens. None where either changes nothing (the other alone is then the explanation, tried on its own)."""
    def reshape(segments: Sequence[Segment], text: Any, options: Any) -> list[Pair] | None:
        pairs = first(segments, text, options)
        if pairs is None or pairs == _pairs(segments):
            return None
        shaped = [Segment.model_construct(hypothesis=hypothesis, references=references)
                  for hypothesis, references in pairs]
        out = second(shaped, None, options)
        return None if out is None or out == pairs else out

    reshape.__doc__ = (f"{' '.join((first.__doc__ or '').split())}; and {' '.join((second.__doc__ or '').split())}")
    return reshape


def reshaped(request: ScoreRequest, text: ScoreRequest | None, options: Any, reshape: Reshape) -> ScoreRequest | None:
    """`request` (a token request: a text request's tokens) as a mechanism's `reshape` reshapes it, a token request of
    the segments it scores (`text`: the text request it was tokenized from, if it was; `options`: the judged ones);
    None where the mechanism does not apply, or gives the request's own segments (a no-op is no explanation)."""
    pairs = reshape(request.segments, text, options)
    if pairs is None or not pairs or pairs == _pairs(request.segments):
        return None
    # built unvalidated: a transposed or pooled corpus may hold more references a segment than the protocol carries
    # (2,000 segments of one reference each, transposed, are one segment of 2,000), which the oracle still scores
    segments = tuple(Segment.model_construct(hypothesis=hypothesis, references=references)
                     for hypothesis, references in pairs)
    level = request.level if len(segments) == 1 else "corpus"  # one sentence's segments multiplied: a corpus
    return request.model_copy(update={"segments": segments, "level": level, "tokenize": None, "stateful": None})


__all__ = ["LINE_END_ON_TEXT_REQUESTS", "LINE_END_SIDES", "MAX_POOLED_SEGMENTS", "PADDING_LENGTH",
           "Pair", "Reshape",
           "SAME_LENGTH", "SPECIAL_TOKEN_LENGTH", "SideLengths", "Structure", "TOKEN_LENGTHS", "TOKEN_OPERATORS",
           "TOKEN_SIDES",
           "LINE_END_LENGTH", "LengthReading", "LengthRule", "line_lengths", "side_lengths",
           "all_characters",
           "corpus_cut_to_first_segment", "corpus_cut_to_last_segment", "each_reference", "each_side",
           "first_reference_dropped",
           "first_segment_dropped", "hypotheses_in_reverse_order", "last_reference_dropped",
           "line_end_kept", "line_ends_kept", "lines_cut_at_splitlines_line_ends", "lines_cut_at_universal_newlines",
           "references_joined_into_one", "segments_joined_into_one", "token_operators",
           "texts_cut_into_sentences_paired_by_position",
           "end_token_on_both", "end_token_on_references_and_common_padding",
           "end_token_and_padding_on_both",
           "end_token_on_references_and_padding_on_both", "hypothesis_characters", "last_reference", "next_references",
           "padded_corpus", "padding_in_hypotheses", "padding_in_references", "padding_on_both",
           "padding_to_common_length", "pooled", "previous_references", "reference_characters",
           "reference_string_as_references", "reference_strings_as_streams", "reference_tokens_as_references",
           "reshaped", "start_token_on_both", "strings_as_references_and_hypothesis", "swapped", "token_on_hypotheses",
           "token_on_references", "tokenizer_on_hypotheses", "tokenizer_on_references", "tokenizer_skipped",
           "transposed"]
