"""The request's structure changed: what an implementation scores when its caller mis-shapes what it passes.

The commonest real bug around a correct BLEU is in the code that calls it (a wrapper, an LLM-evaluation harness): the
hypotheses and references passed in each other's place, per-segment reference lists passed where reference streams
are expected, a string passed where a token list is expected, the tokenizer run on one side only. The library then
counts other segments than the request's, and the statistics it returns differ from the oracle's in their lengths
(`other-counting-of-hyp_len`, `-ref_len`): which statistic differs, not why. Each mechanism here reshapes the request
alone into the segments such a call scores; the classifier scores them with the judged profile and keeps the
mechanism only where those counts are the returned statistics and that score the answer (`classify._counting_of`).

    >>> from oracle.models.protocol import ScoreRequest, Segment
    >>> request = ScoreRequest(level="sentence", weights=[1.0],
    ...                        segments=[Segment(hypothesis=["a", "b"], references=[["a", "b", "c"]])])
    >>> [(s.hypothesis, s.references) for s in reshaped(request, None, None, SWAPPED).segments]
    [(('a', 'b', 'c'), (('a', 'b'),))]

A mechanism that changes nothing on a request is not tried there (`reshaped` returns None): one segment cannot be
shifted, one reference cannot be transposed away, a swap of identical sides is the request itself.

Pure: the oracle's tokenizers (`oracle.formulas.tokenizers`) and the protocol's request model.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, cast

from oracle.formulas.tokenizers import tokenize
from oracle.models.protocol import ScoreRequest, Segment

SWAPPED = "hypothesis-and-references-swapped"
TRANSPOSED = "references-transposed"
POOLED = "references-pooled-across-segments"
NEXT_REFERENCES = "hypotheses-paired-with-next-references"
PREVIOUS_REFERENCES = "hypotheses-paired-with-previous-references"
EACH_REFERENCE = "each-reference-its-own-segment"
HYPOTHESIS_CHARACTERS = "hypothesis-read-as-characters"
REFERENCE_CHARACTERS = "references-read-as-characters"
ALL_CHARACTERS = "text-read-as-characters"
TOKENIZER_ON_HYPOTHESES = "tokenizer-on-hypotheses-only"
TOKENIZER_ON_REFERENCES = "tokenizer-on-references-only"
TOKENIZER_SKIPPED = "tokenizer-skipped"

#: The most segments a pooled corpus is built for: every hypothesis against every reference costs the square of
#: the corpus (a shrunk failing example has a handful; a 2,000-segment one would cost 4 million reference reads).
MAX_POOLED_SEGMENTS = 64

#: (hypothesis, references) of one segment: tokens, as the oracle counts them.
Pair = tuple[tuple[str, ...], tuple[tuple[str, ...], ...]]
#: How a mechanism reshapes a request: (its tokenized segments, the text request they come from or None, the
#: judged options) -> the segments scored, or None where the mechanism does not apply.
Reshape = Callable[[Sequence[Segment], Any, Any], list[Pair] | None]


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

#: name -> how the mechanism reshapes the request (its docstring says what the caller did: reports show it). The
#: order is the order they are tried in, and the order of a record's fits.
STRUCTURES: dict[str, Reshape] = {
    SWAPPED: swapped,
    TRANSPOSED: transposed,
    POOLED: pooled,
    NEXT_REFERENCES: next_references,
    PREVIOUS_REFERENCES: previous_references,
    EACH_REFERENCE: each_reference,
    HYPOTHESIS_CHARACTERS: hypothesis_characters,
    REFERENCE_CHARACTERS: reference_characters,
    ALL_CHARACTERS: all_characters,
    TOKENIZER_ON_HYPOTHESES: tokenizer_on_hypotheses,
    TOKENIZER_ON_REFERENCES: tokenizer_on_references,
    TOKENIZER_SKIPPED: tokenizer_skipped,
}


def describe(name: str) -> str:
    """What mechanism `name` does, on one line (its reshaping function's docstring)."""
    doc = STRUCTURES[name].__doc__
    if not doc:
        raise TypeError(f"structural mechanism {name} has no docstring to describe it in reports")
    return " ".join(doc.split())


def reshaped(request: ScoreRequest, text: ScoreRequest | None, options: Any, name: str) -> ScoreRequest | None:
    """`request` (a token request: a text request's tokens) as mechanism `name` reshapes it, a token request of the
    segments it scores (`text`: the text request it was tokenized from, if it was; `options`: the judged ones);
    None where the mechanism does not apply, or gives the request's own segments (a no-op is no explanation)."""
    pairs = STRUCTURES[name](request.segments, text, options)
    if pairs is None or not pairs or pairs == _pairs(request.segments):
        return None
    # built unvalidated: a transposed or pooled corpus may hold more references a segment than the protocol carries
    # (2,000 segments of one reference each, transposed, are one segment of 2,000), which the oracle still scores
    segments = tuple(Segment.model_construct(hypothesis=hypothesis, references=references)
                     for hypothesis, references in pairs)
    level = request.level if len(segments) == 1 else "corpus"  # one sentence's segments multiplied: a corpus
    return request.model_copy(update={"segments": segments, "level": level, "tokenize": None, "stateful": None})


__all__ = ["MAX_POOLED_SEGMENTS", "STRUCTURES", "SWAPPED", "TRANSPOSED", "describe", "reshaped"]
