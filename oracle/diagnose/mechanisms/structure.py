"""The request's structure mis-shaped by its caller, and a text transformation applied to one side only: the
mechanisms of the `structure` kind, declared here in the order the search tries them (the order decides which
names a record where two fit), each computed from the request alone.

- `ONE_SIDE_FOLDS`: case folded in the references only or the hypothesis only, whatever the request asks (the
  folding, the how: `oracle.diagnose.oneside`). Found by the returned matches, as counting alternatives
  (`ONE_SIDE_COUNTINGS`, which `mechanisms.counting.COUNTING_ALTERNATIVES` takes whole after the case mechanisms),
  and by the score, as computations (`mechanisms.computations.GENERIC_COMPUTATIONS`).
- `STRUCTURES`: the request mis-shaped by its caller (which side is which, how references are nested, grouped,
  paired and carried, what is taken as a token, the corpus padded, a special token or pads counted; the reshaping,
  the how: `oracle.diagnose.structure`), found by the oracle's statistics and score on the reshaped request
  (`classify._by_structure`, and as computations), each alone; those of `STATISTICS_ONLY` only where the
  implementation returned statistics.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from oracle.diagnose.counting import MATCHES
from oracle.diagnose.errsstructure import (
    Refusal,
    lines_refusal,
    streams_as_many_as_hypotheses,
    streams_not_as_many_as_hypotheses,
)
from oracle.diagnose.oneside import one_side_folded_counts
from oracle.diagnose.structure import (
    LINE_END_LENGTH,
    LINE_END_ON_TEXT_REQUESTS,
    LINE_END_SIDES,
    PADDING_LENGTH,
    SAME_LENGTH,
    SPECIAL_TOKEN_LENGTH,
    SPLITLINES_LINE_ENDS,
    TOKEN_LENGTHS,
    TOKEN_OPERATORS,
    UNIVERSAL_NEWLINES,
    LengthReading,
    Structure,
    all_characters,
    corpus_cut_to_first_segment,
    corpus_cut_to_last_segment,
    each_reference,
    each_side,
    end_token_and_padding_on_both,
    end_token_on_both,
    end_token_on_references_and_common_padding,
    end_token_on_references_and_padding_on_both,
    first_reference_dropped,
    first_segment_dropped,
    hypotheses_in_reverse_order,
    hypothesis_characters,
    last_reference,
    last_reference_dropped,
    line_ends_kept,
    lines_cut_at_splitlines_line_ends,
    lines_cut_at_universal_newlines,
    next_references,
    padded_corpus,
    padding_in_hypotheses,
    padding_in_references,
    padding_on_both,
    padding_to_common_length,
    pooled,
    previous_references,
    reference_characters,
    reference_string_as_references,
    reference_strings_as_streams,
    reference_tokens_as_references,
    references_joined_into_one,
    segments_joined_into_one,
    start_token_on_both,
    strings_as_references_and_hypothesis,
    swapped,
    texts_cut_into_sentences_paired_by_position,
    token_on_hypotheses,
    token_on_references,
    token_operators,
    tokenizer_on_hypotheses,
    tokenizer_on_references,
    tokenizer_skipped,
    transposed,
)

from .model import COUNT_LAYERS, PROBE, RECOMPUTE, SCORE, STRUCTURE, Mechanism, Route

REFERENCES_ONLY = "case-folded-references-only"
HYPOTHESIS_ONLY = "case-folded-hypothesis-only"

#: name -> (what the code does, the side it folds: "references" or "hypothesis"), in the order they are tried
ONE_SIDE_FOLDS: dict[str, tuple[str, str]] = {
    REFERENCES_ONLY: (
        "case folded in the references only, whether the request folds both sides or neither: the hypothesis keeps "
        "its case, so a hypothesis token with a capital letter never matches",
        "references",
    ),
    HYPOTHESIS_ONLY: (
        "case folded in the hypothesis only, whether the request folds both sides or neither: the references keep "
        "their case, so a reference token with a capital letter is never matched",
        "hypothesis",
    ),
}

#: The one-side folds as counting alternatives, name -> (words, the layers they change, the counting), the shape of
#: `mechanisms.counting.COUNTING_ALTERNATIVES`' entries: folding one side changes the matches only.
Counting = Callable[[Sequence[Any], int, Any], dict[str, Any] | None]
ONE_SIDE_COUNTINGS: dict[str, tuple[str, frozenset[str], Counting]] = {
    name: (words, MATCHES, one_side_folded_counts(side)) for name, (words, side) in ONE_SIDE_FOLDS.items()
}

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
REFERENCE_STRING_AS_REFERENCES = "reference-string-as-references"
REFERENCE_TOKENS_AS_REFERENCES = "reference-tokens-as-references"
STRINGS_AS_REFERENCES_AND_HYPOTHESIS = "reference-string-as-references-and-hypothesis-as-characters"
REFERENCE_STRINGS_AS_STREAMS = "reference-strings-as-streams"
LAST_REFERENCE = "last-reference-only"
#: k -> the name of the corpus padded to a multiple of k by repeating its first segments (a sampler's world size)
PADDED_CORPUS = {k: f"corpus-padded-to-a-multiple-of-{k}" for k in range(2, 9)}
#: (on one side, a token at the start and one at the end give the same counts: it matches nothing, so each order
#: gains one n-gram either way; on both sides they differ, matching their neighbours)
TOKEN_ON_HYPOTHESES = "special-token-on-hypotheses"
TOKEN_ON_REFERENCES = "special-token-on-references"
#: (the two above refined by a probe, `oracle.diagnose.specialtoken`: which conventional token, and at which end; the
#: record's description names the token. Coverage of the real collection's end-token-in-hypothesis, not
#: generalisation)
END_TOKEN_ON_HYPOTHESES = "end-token-on-hypotheses"
START_TOKEN_ON_HYPOTHESES = "start-token-on-hypotheses"
END_TOKEN_ON_REFERENCES = "end-token-on-references"
START_TOKEN_ON_REFERENCES = "start-token-on-references"
END_TOKEN_ON_BOTH = "end-token-on-both-sides"
START_TOKEN_ON_BOTH = "start-token-on-both-sides"
PADDING_IN_HYPOTHESES = "padding-counted-in-hypotheses"
PADDING_IN_REFERENCES = "padding-counted-in-references"
PADDING_ON_BOTH = "padding-counted-on-both-sides"
PADDING_TO_COMMON_LENGTH = "padding-counted-to-a-common-length"
#: (the references' end token first, then the pads: a target decoded with its end symbol, then padded with the batch)
END_TOKEN_AND_COMMON_PADDING = "end-token-on-references-and-padding-to-a-common-length"
END_TOKEN_AND_PADDING_ON_BOTH = "end-token-on-references-and-padding-on-both-sides"
#: (an end token on both sides, then each side padded to its own longest: one operator, a sequence decoded with its end
#: token and the batch's pads, used on both sides; after `end-token-on-both-sides`, which names a request where the
#: pads add nothing, as on one segment of one reference. glm4-pads: coverage of a seen bug, not generalisation)
END_TOKEN_AND_PADDING_ON_BOTH_SIDES = "end-token-and-padding-on-both-sides"
#: (a segment's line cut where the reader of the file it was written to ends a line: universal newlines at CR, LF and
#: CR LF; `str.splitlines` at those and VT, FF, U+001C-U+001E, NEL, U+2028, U+2029. Where a segment holds only
#: line ends both readers take, the two give the same lines and the first names it)
LINES_CUT_AT_UNIVERSAL_NEWLINES = "lines-cut-at-universal-newlines"
LINES_CUT_AT_SPLITLINES_LINE_ENDS = "lines-cut-at-splitlines-line-ends"

#: The mutation operators applied at each level of the request (`oracle.diagnose.structure`: segments, references per
#: segment, tokens on each side), those the catalogue did not hold already: name -> reshaping. Tried only where the
#: implementation returned statistics, and only on a request whose reshaping gives its lengths (`COUNTS_FIRST`).
LEVEL_OPERATORS: dict[str, Any] = {
    "corpus-cut-to-first-segment": corpus_cut_to_first_segment,
    "corpus-cut-to-last-segment": corpus_cut_to_last_segment,
    "first-segment-dropped": first_segment_dropped,
    "hypotheses-in-reverse-order": hypotheses_in_reverse_order,
    "segments-joined-into-one": segments_joined_into_one,
    # each text cut into sentences and the sentences paired by position, each pair a segment (resegment: the corpus
    # re-segmented, the class of the fourth held-out set's sentence pairing; coverage of a seen bug)
    "texts-cut-into-sentences-paired-by-position": texts_cut_into_sentences_paired_by_position,
    "last-reference-dropped": last_reference_dropped,
    "first-reference-dropped": first_reference_dropped,
    "references-joined-into-one": references_joined_into_one,
    **dict(token_operators()),
    # a line read without stripping, on the hypotheses, the references or both (stage-consts: the class of the ninth
    # held-out set's hypothesis line end, coverage of a seen bug): the last token carries the line end, so its counts
    # differ from the request's in the matches, and in c or r only where a line is empty; token requests only
    **dict(line_ends_kept()),
}


#: The request mis-shaped by its caller, in the order they are tried in (and the order of a record's fits): name ->
#: `Structure`, its name and how it reshapes the request (`oracle.diagnose.structure`; the reshaping function's
#: docstring says what the caller did: reports show it).
STRUCTURES: dict[str, Structure] = {structure.name: structure for structure in (
    Structure(SWAPPED, swapped),
    Structure(TRANSPOSED, transposed),
    Structure(POOLED, pooled),
    Structure(NEXT_REFERENCES, next_references),
    Structure(PREVIOUS_REFERENCES, previous_references),
    Structure(EACH_REFERENCE, each_reference),
    Structure(HYPOTHESIS_CHARACTERS, hypothesis_characters),
    Structure(REFERENCE_CHARACTERS, reference_characters),
    Structure(ALL_CHARACTERS, all_characters),
    Structure(TOKENIZER_ON_HYPOTHESES, tokenizer_on_hypotheses),
    Structure(TOKENIZER_ON_REFERENCES, tokenizer_on_references),
    Structure(TOKENIZER_SKIPPED, tokenizer_skipped),
    Structure(REFERENCE_STRING_AS_REFERENCES, reference_string_as_references),
    Structure(REFERENCE_TOKENS_AS_REFERENCES, reference_tokens_as_references),
    Structure(STRINGS_AS_REFERENCES_AND_HYPOTHESIS, strings_as_references_and_hypothesis),
    Structure(REFERENCE_STRINGS_AS_STREAMS, reference_strings_as_streams),
    Structure(LAST_REFERENCE, last_reference),
    *(Structure(name, padded_corpus(k)) for k, name in PADDED_CORPUS.items()),
    Structure(TOKEN_ON_HYPOTHESES, token_on_hypotheses),
    Structure(TOKEN_ON_REFERENCES, token_on_references),
    Structure(END_TOKEN_ON_BOTH, end_token_on_both),
    Structure(START_TOKEN_ON_BOTH, start_token_on_both),
    Structure(PADDING_IN_HYPOTHESES, padding_in_hypotheses),
    Structure(PADDING_IN_REFERENCES, padding_in_references),
    Structure(PADDING_ON_BOTH, padding_on_both),
    Structure(PADDING_TO_COMMON_LENGTH, padding_to_common_length),
    Structure(END_TOKEN_AND_COMMON_PADDING, end_token_on_references_and_common_padding),
    Structure(END_TOKEN_AND_PADDING_ON_BOTH, end_token_on_references_and_padding_on_both),
    Structure(END_TOKEN_AND_PADDING_ON_BOTH_SIDES, end_token_and_padding_on_both),
    Structure(LINES_CUT_AT_UNIVERSAL_NEWLINES, lines_cut_at_universal_newlines),
    Structure(LINES_CUT_AT_SPLITLINES_LINE_ENDS, lines_cut_at_splitlines_line_ends),
    *(Structure(name, reshape) for name, reshape in LEVEL_OPERATORS.items()),
)}

#: The structures whose caller gives the library a shape it refuses, each with that refusal and a neighbour it takes
#: (`oracle.diagnose.errsstructure`: an error is named by the structure where the refusal separates the error
#: search's probes and the accepted neighbour is answered with the structure's statistics; errs-structure, coverage
#: of the fifth held-out set's two structural crashes by kind, not generalisation). In `STRUCTURES`' order.
REFUSALS: tuple[Refusal, ...] = (
    # sacrebleu 1.4 `corpus_bleu(sys_stream, ref_streams)`: `for lines in zip_longest(*fhs): if None in lines: raise
    # EOFError("Source and reference streams have different lengths!")`; per-segment lists passed as streams
    Refusal(TRANSPOSED, streams_not_as_many_as_hypotheses, streams_as_many_as_hypotheses,
            "a segment's references, passed as one reference stream, are not as many as the hypotheses (zip_longest "
            "pads the shorter stream with None, and the library raises on it)"),
    lines_refusal(LINES_CUT_AT_UNIVERSAL_NEWLINES, UNIVERSAL_NEWLINES, "universal newlines"),
    lines_refusal(LINES_CUT_AT_SPLITLINES_LINE_ENDS, SPLITLINES_LINE_ENDS, "`str.splitlines`"),
)


#: The one-side text and token operators the catalogue holds, each as its two one-side mechanisms (issue 36, "every text
#: transformation applied to the hypothesis only, the references only, or both"; side-kinds): (the operator, its name
#: on the hypotheses alone, its name on the references alone, whether it reads the request's text, whether it adds a
#: token that on each side may be another, how its lengths are read without reshaping the request:
#: `structure.LengthReading`, or None where only the reshaping tells, as for the tokenizer left out). Every name is a
#: structure of `STRUCTURES`; "the tokenizer left out" on the hypotheses is `tokenizer-on-references-only` (the
#: hypotheses are the side split on whitespace as they stand). The case folds of one side (`ONE_SIDE_FOLDS`) are
#: counting alternatives on the matches, not reshapings: not here.
SIDE_OPERATORS: tuple[tuple[str, str, str, bool, bool, LengthReading | None], ...] = (
    ("special token", TOKEN_ON_HYPOTHESES, TOKEN_ON_REFERENCES, False, True, LengthReading(SPECIAL_TOKEN_LENGTH)),
    ("padding", PADDING_IN_HYPOTHESES, PADDING_IN_REFERENCES, False, True, LengthReading(PADDING_LENGTH)),
    ("characters", HYPOTHESIS_CHARACTERS, REFERENCE_CHARACTERS, True, False, LengthReading(SAME_LENGTH, of_lines=True)),
    ("tokenizer left out", TOKENIZER_ON_REFERENCES, TOKENIZER_ON_HYPOTHESES, True, False, None),
    *((stem, f"{stem}-in-hypotheses", f"{stem}-in-references", False, False, LengthReading(TOKEN_LENGTHS[stem]))
      for stem, *_ in TOKEN_OPERATORS),
    ("line end kept", LINE_END_SIDES["hypotheses"][0], LINE_END_SIDES["references"][0], False, False,
     LengthReading(LINE_END_LENGTH, token_requests_only=not LINE_END_ON_TEXT_REQUESTS)),
)


def _side_pairs() -> dict[tuple[str, ...], Structure]:
    """Each side its own operator (side-kinds): the parts (a hypothesis-side operator's name, a reference-side
    operator's name) -> the `Structure` the pair reshapes the request by (`structure.each_side`), in the order
    `SIDE_OPERATORS` lists the hypothesis side, then the reference side. Two operators that differ, or one whose token
    is another on each side (`SIDE_OPERATORS`' last field: the composition marks the second side's token until it is
    new, so two special tokens are two tokens; the same token on both sides is `end-token-on-both-sides` and its
    kin). Not a pair of two operators that both read the request's text (the later part reads the reshaped tokens).
    The parts are in the order applied: the one that reads the text first, else the hypothesis side's. Their name
    is the parts joined (`models.results.cause_name`), nothing new in the catalogue."""
    pairs: dict[tuple[str, ...], Structure] = {}
    for operator, on_hypotheses, _, hypothesis_reads_text, differs, _ in SIDE_OPERATORS:
        for other, _, on_references, reference_reads_text, _, _ in SIDE_OPERATORS:
            if (operator == other and not differs) or (hypothesis_reads_text and reference_reads_text):
                continue
            parts = ((on_references, on_hypotheses) if reference_reads_text else (on_hypotheses, on_references))
            first, second = (STRUCTURES[name].reshape for name in parts)
            pairs[parts] = Structure(" + ".join(parts), each_side(first, second))
    return pairs


#: Each side its own operator: (hypothesis-side part, reference-side part, in the order applied) -> `Structure`. Tried
#: only where the returned statistics are every one the pair's and no single explanation gives them
#: (`classify._by_side_pairs`), and only where each side's operator alone has the returned length of its side.
SIDE_PAIRS: dict[tuple[str, ...], Structure] = _side_pairs()

#: The mechanisms named only where the implementation returned statistics (their counts then equal the returned
#: ones, as integers): on a score alone, their many forms (seven paddings, four tokens, six pads, five nestings) fit
#: simple numbers by coincidence (a token on both sides of "a b" against "a b c d e" gives e^-1 under BLEU-2, as a
#: floored length ratio does; a one-segment corpus tripled under add-3 gives the 2/3 of add-1), so a score alone
#: names none of them.
STATISTICS_ONLY = frozenset({
    REFERENCE_STRING_AS_REFERENCES, REFERENCE_TOKENS_AS_REFERENCES, STRINGS_AS_REFERENCES_AND_HYPOTHESIS,
    REFERENCE_STRINGS_AS_STREAMS, LAST_REFERENCE, *PADDED_CORPUS.values(), TOKEN_ON_HYPOTHESES, TOKEN_ON_REFERENCES,
    END_TOKEN_ON_BOTH, START_TOKEN_ON_BOTH, PADDING_IN_HYPOTHESES, PADDING_IN_REFERENCES, PADDING_ON_BOTH,
    PADDING_TO_COMMON_LENGTH, END_TOKEN_AND_COMMON_PADDING, END_TOKEN_AND_PADDING_ON_BOTH, *LEVEL_OPERATORS,
    END_TOKEN_AND_PADDING_ON_BOTH_SIDES,
})

#: The structures tried only where their counts are the returned ones, and named for a run's records only with
#: evidence (`Mechanism.needs_evidence`: two records, `oracle.diagnose.cover`): generated by operator, not listed from
#: an instance, one of them fits a record by chance where what it takes away counted nothing (the last token of a
#: reference that matched nothing, whose r the implementation got otherwise); `other-counting-of-<layer>` stays among
#: such a record's fits. Never tried as a computation on the score alone nor
#: in the generic tier (each would be the oracle run once more on every search that returns statistics, one run a
#: level operator):
#: a search reshapes the request (a pass over its tokens), compares the reshaped lengths with the returned c and r
#: (`classify._lengths_may_be`), and only then computes the oracle on it (`classify._by_structure`, and the pair tier,
#: `classify._by_structure_with_stage`).
COUNTS_FIRST = frozenset(LEVEL_OPERATORS)


#: The special token's refinements: (name, the broad name it refines, what it means).
REFINED_SPECIAL_TOKENS = tuple(
    (name, broad, f"a conventional {place} token ({where}) added at the {place} of every {side} and counted, the "
                  f"{other} without one: the {side}'s {place} token left in, which a probe with the token at the "
                  f"{place} of the {other} showed (the token, cited from the code that adds it, is in the record's "
                  "description)")
    for name, broad, place, where, side, other in (
        (END_TOKEN_ON_HYPOTHESES, TOKEN_ON_HYPOTHESES, "end", "an end-of-sentence token", "hypothesis", "references"),
        (START_TOKEN_ON_HYPOTHESES, TOKEN_ON_HYPOTHESES, "start", "a start-of-sentence token", "hypothesis",
         "references"),
        (END_TOKEN_ON_REFERENCES, TOKEN_ON_REFERENCES, "end", "an end-of-sentence token", "reference", "hypotheses"),
        (START_TOKEN_ON_REFERENCES, TOKEN_ON_REFERENCES, "start", "a start-of-sentence token", "reference",
         "hypotheses"),
    ))


MECHANISMS = [
    *(Mechanism(name, STRUCTURE, words, layers | SCORE, RECOMPUTE, (Route("counting", count, words),))
      for name, (words, layers, count) in ONE_SIDE_COUNTINGS.items()),
    # each tried alone, never on top of a convention (`Mechanism.pairs_with_conventions`): a reshaped request is the
    # oracle run again for every convention and pair tried (8,770 reshaped requests, two thirds of a run's time, on
    # one fake that no mechanism names), for a mistake made outside the library, whatever its conventions. Each is
    # also tried as a computation (`mechanisms.computations.GENERIC_COMPUTATIONS`), the route the catalogue adds.
    *(Mechanism(name, STRUCTURE, structure.description, COUNT_LAYERS | SCORE, RECOMPUTE,
                pairs_with_conventions=False, needs_evidence=name in COUNTS_FIRST)
      for name, structure in STRUCTURES.items()),
    # never searched: a record named by a broad special token becomes one of these where the harness's probe found its
    # token and place (`oracle.diagnose.specialtoken`; the record's description names the token)
    *(Mechanism(name, STRUCTURE, words, COUNT_LAYERS | SCORE, RECOMPUTE,
                (Route(PROBE, broad, words),), pairs_with_conventions=False)
      for name, broad, words in REFINED_SPECIAL_TOKENS),
]

__all__ = ["COUNTS_FIRST", "END_TOKEN_ON_HYPOTHESES", "END_TOKEN_ON_REFERENCES", "HYPOTHESIS_ONLY", "LEVEL_OPERATORS",
           "MECHANISMS", "ONE_SIDE_COUNTINGS", "ONE_SIDE_FOLDS", "PADDED_CORPUS", "REFERENCES_ONLY",
           "REFINED_SPECIAL_TOKENS", "REFUSALS", "SIDE_OPERATORS", "SIDE_PAIRS",
           "START_TOKEN_ON_HYPOTHESES", "START_TOKEN_ON_REFERENCES", "STATISTICS_ONLY",
           "STRUCTURES", "SWAPPED", "TOKEN_ON_HYPOTHESES", "TOKEN_ON_REFERENCES", "TRANSPOSED"]
