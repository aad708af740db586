"""Tokenizer rules departed from, one at a time: a text request's tokens when one rule of its tokenizer is left
out (on every line, or on the references or the hypotheses only) or read otherwise (intl's numbers as decimal
digits only, char's characters as UTF-16 code units), or when the line is changed before the tokenizer sees it
(its trailing whitespace stripped, which takes away the line break 13a's end-of-line hyphenation rule reads).

How words are split, whether 13a pads the line and where case is folded are conventions the classifier varies
(`mechanisms.conventions`); these are departures from a tokenizer's own rules that a port makes, each named
by the rule, so that a failing text record is named by what was done rather than "tokenization differs". Each is
gated by the text holding what the rule reads (a cheap test, not charged), and its counts are the oracle's on
the departed tokens, so they are checked against the returned statistics as any explanation's are.

The rules a departure reads and the tokens it makes (the how) are here; the departures themselves, their names,
words and the order they are tried in, are declared in the catalogue (`oracle.diagnose.mechanisms.text`).
"""

from __future__ import annotations

import unicodedata
from collections.abc import Callable
from dataclasses import dataclass
from typing import cast

from oracle.formulas.tokenizers import (
    fold_case,
    split_words,
    tokenize,
    tokenize_13a,
    tokenize_intl,
)
from oracle.models.protocol import ScoreRequest, Segment

#: Which lines a departure touches: every line, or the references' or the hypotheses' only.
SIDES = {
    "": "on every line",
    "-in-references": "on the references only (each hypothesis tokenized by the rule)",
    "-in-hypotheses": "on the hypotheses only (each reference tokenized by the rule)",
}


@dataclass(frozen=True)
class Departure:
    """One departure from a tokenizer's rules: `tokens(line, split, padding)` tokenizes a line as the port
    does; it applies to a text request whose tokenizer is `tokenizer` and one of whose lines on its side
    `reads` (the rule then changes something)."""

    name: str
    description: str
    tokenizer: str
    reads: Callable[[str], bool]
    tokens: Callable[[str, str, str], tuple[str, ...]]
    side: str = ""

    def touches(self, is_reference: bool) -> bool:
        return self.side == "" or (self.side == "-in-references") == is_reference


def holds_any(literals: tuple[str, ...], line: str) -> bool:
    """Whether `line` holds one of `literals` (what a 13a rule replaces)."""
    return any(literal in line for literal in literals)


def tokens_13a_without(rule: str, line: str, split: str, padding: str) -> tuple[str, ...]:
    """13a's tokens of `line` with its rule `rule` left out."""
    return tokenize_13a(line, split, padding, frozenset({rule}))


def ends_in_whitespace(line: str) -> bool:
    return line != line.rstrip()


def tokens_13a_of_the_stripped_line(line: str, split: str, padding: str) -> tuple[str, ...]:
    """13a's tokens of `line` with its trailing whitespace stripped first."""
    return tokenize_13a(line.rstrip(), split, padding)


def beyond_the_bmp(line: str) -> bool:
    return any(ord(character) > 0xFFFF for character in line)


def utf16_units(line: str, split: str, padding: str) -> tuple[str, ...]:
    """Every UTF-16 code unit of the line's non-whitespace characters a token (a lone surrogate each)."""
    units = "".join(split_words(line, split)).encode("utf-16-le", "surrogatepass")
    return tuple(units[i:i + 2].decode("utf-16-le", "surrogatepass") for i in range(0, len(units), 2))


def other_numbers(line: str) -> bool:
    """Whether `line` holds a number that is not a decimal digit (Nl, No: ½, ²)."""
    return any(unicodedata.category(character) in ("Nl", "No") for character in line)


def tokens_intl_decimal_numbers(line: str, split: str, padding: str) -> tuple[str, ...]:
    """intl's tokens of `line` with only decimal digits read as numbers."""
    return tokenize_intl(line, split, numbers="Nd")


def departed(text: ScoreRequest, options, departure: Departure,
             tokens: ScoreRequest | None = None) -> ScoreRequest | None:
    """`text` (a text request) tokenized under `options` with `departure`, as a token request; None where the
    departure does not apply to it or changes no token (`tokens`: `text` tokenized by the rules, if at hand)."""
    if text.tokenize != departure.tokenizer:
        return None
    fold = options.case_fold if text.lowercase and options.fold_stage == "line" else None

    def line_tokens(line: str, is_reference: bool) -> tuple[tuple[str, ...], bool]:
        line = line if fold is None else fold_case(line, fold)
        if departure.touches(is_reference) and departure.reads(line):
            return departure.tokens(line, options.token_split, options.line_padding), True
        return tokenize(line, departure.tokenizer, split=options.token_split, padding=options.line_padding), False

    changed = False
    segments = []
    for segment in text.segments:
        hypothesis, touched = line_tokens(cast(str, segment.hypothesis), False)
        changed |= touched
        references = []
        for reference in segment.references:
            reference_tokens, touched = line_tokens(cast(str, reference), True)
            changed |= touched
            references.append(reference_tokens)
        segments.append(Segment(hypothesis=hypothesis, references=tuple(references)))
    if not changed or tuple(segments) == (tokens or text.tokenized_as(options)).segments:
        return None
    return text.model_copy(update={"segments": tuple(segments), "tokenize": None})

