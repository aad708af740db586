"""Departures from a tokenizer's rules, declared here (`DEPARTURES`, in the order the search tries them): each a
mechanism of its own, found by the tokens it makes on a text request (`oracle.diagnose.textrules.departed`, where
the rules each reads and the tokens each makes are written), and also tried as a computation
(`mechanisms.computations.SPECIFIC_COMPUTATIONS`)."""

from __future__ import annotations

from functools import partial

from oracle.diagnose.textrules import (
    SIDES,
    Departure,
    beyond_the_bmp,
    ends_in_whitespace,
    holds_any,
    other_numbers,
    tokens_13a_of_the_stripped_line,
    tokens_13a_without,
    tokens_intl_decimal_numbers,
    utf16_units,
)
from oracle.formulas.tokenizers import RULES_13A

from .model import COUNT_LAYERS, RECOMPUTE, SCORE, TEXT, Mechanism, Route


def _13a_departures() -> list[Departure]:
    """Each of 13a's rules left out, on every line or on one side only."""
    out = []
    for rule, replacements in RULES_13A:
        literals = tuple(literal for literal, _ in replacements)
        shown = ", ".join(repr(literal) for literal in literals)
        for side, where in SIDES.items():
            out.append(Departure(
                f"13a-{rule}-left-out{side}",
                f"13a's rule replacing {shown} ({rule.replace('-', ' ')}) left out {where}",
                "13a",
                partial(holds_any, literals),
                partial(tokens_13a_without, rule),
                side,
            ))
    return out


#: The tokenizer departures, in the order the search tries them (the order decides which names a record where two
#: give its tokens).
DEPARTURES: tuple[Departure, ...] = (
    # first: where the only "-\n" of a text ends its line, leaving the rule out changes the same tokens, and a
    # line stripped before tokenizing is the common mechanism (every reader of one segment a line does it)
    Departure(
        "13a-line-stripped-first",
        "the line's trailing whitespace stripped before 13a's rules (sacrebleu's BLEU._preprocess_segment "
        "tokenizes sent.rstrip()), so a hyphen ending the line before its line break stays on its word: "
        "'re-\\n' is 're-', where mteval-v13a.pl's s/-\\n//g joins it ('re')",
        "13a",
        ends_in_whitespace,
        tokens_13a_of_the_stripped_line,
    ),
    *_13a_departures(),
    Departure(
        "intl-numbers-as-decimal-digits",
        "intl reads only decimal digits as numbers (\\d or str.isdecimal() where mteval-v14.pl has \\p{N}): a "
        "punctuation mark beside ½ or ² is split off",
        "intl",
        other_numbers,
        tokens_intl_decimal_numbers,
    ),
    Departure(
        "char-as-utf16-code-units",
        "the char tokenizer makes a character beyond U+FFFF two tokens, its UTF-16 code units (JavaScript's "
        "text.split(''))",
        "char",
        beyond_the_bmp,
        utf16_units,
    ),
)
_BY_NAME = {departure.name: departure for departure in DEPARTURES}
if len(_BY_NAME) != len(DEPARTURES):
    raise ValueError("two tokenizer departures share a name")


def departure_named(name: str) -> Departure | None:
    """The tokenizer departure `name` names; None for a name that is no departure."""
    return _BY_NAME.get(name)


MECHANISMS = [Mechanism(departure.name, TEXT, departure.description, COUNT_LAYERS | SCORE, RECOMPUTE,
                        (Route("departure", departure, departure.description),))
              for departure in DEPARTURES]

__all__ = ["DEPARTURES", "MECHANISMS", "departure_named"]
