"""Raw text for the search's text requests, built from each tokenizer's rules (`oracle.formulas.tokenizers`).

Each tokenizer has its rules (`RULES`: name -> what it is about), and each rule its pieces of text
(`PIECES`) that exercise it on purpose: every regex of mteval-v13a.pl's tokenization, its `-\\n`
join and `<skipped>`, every SGML entity it unescapes (and `&apos;`, which it does not); digits
against `.`, `,` and `-` at both ends of a line; intl's Unicode punctuation classes (Pc Pd Ps Pe Pi
Pf Po), symbol classes (Sm Sc Sk So) and numbers that are not decimal digits (½, ², Ⅻ); char's
spaces and characters outside the BMP. Every tokenizer also gets case pairs with the special
casings (`İ`, whose lower() is two characters; `ß`; a final sigma) and whitespace of every kind a
JSON string carries (tab, CR, LF, CRLF, VT, FF, U+001C..U+001F, NEL, no-break and ideographic
spaces, the line and paragraph separators).

`text_rules(text, tokenizer)` reads off a text which rules it exercises (never what the generator
meant: the coverage table counts what was sent). `generate_text_segments` draws the segments of a
text request, deterministic in its `random.Random`.
"""

from __future__ import annotations

import random
import re
import unicodedata

from oracle.models.protocol import Segment

#: Whitespace of every kind a text may hold, by name (what `str.split()`, Perl's \s and C's isspace disagree on).
WHITESPACE = {
    "space": " ",
    "tab": "\t",
    "lf": "\n",
    "cr": "\r",
    "crlf": "\r\n",
    "vt": "\x0b",
    "ff": "\x0c",
    "file-separator": "\x1c",
    "unit-separator": "\x1f",
    "nel": "\x85",
    "no-break-space": "\xa0",
    "ideographic-space": "\u3000",
    "line-separator": "\u2028",
    "paragraph-separator": "\u2029",
    "hair-space": "\u200a",
}
#: Case pairs, the special casings among them: lower() of İ is two characters, ß has no one-character
#: upper case, Σ lowers to σ where a word ends in ς.
CASE_PIECES = ("İstanbul", "İ", "DİYARBAKIR", "Straße", "STRASSE", "ΟΔΟΣ", "οδος", "σοφός", "The", "THE", "the",
               "Ça", "ÇA", "Ǆ", "ǅ")

#: tokenizer -> rule -> what the rule is about.
RULES = {
    "13a": {
        "skipped": "`<skipped>` removed",
        "hyphen-newline": "`-\\n` removed, joining the lines",
        "newline": "a newline turned into a space",
        "entity-quot": "`&quot;` unescaped",
        "entity-amp": "`&amp;` unescaped",
        "entity-lt": "`&lt;` unescaped",
        "entity-gt": "`&gt;` unescaped",
        "entity-apos": "`&apos;`, which 13a does not unescape",
        "punctuation": "a character of the first regex's class ({-~ [-` space-& (-+ :-@ /) split off",
        "period-after-non-digit": "`.` or `,` after a non-digit split off",
        "period-before-non-digit": "`.` or `,` before a non-digit split off",
        "digit-period-digit": "`.` or `,` between digits kept",
        "digit-dash": "`-` after a digit split off",
        "digit-at-line-end": "a digit followed by `.`, `,` or `-` at the end of a line",
        "digit-at-line-start": "`.`, `,` or `-` followed by a digit at the start of a line",
    },
    "intl": {
        "punctuation-Pc": "connector punctuation (_ ‿)",
        "punctuation-Pd": "dash punctuation (- – —)",
        "punctuation-Ps": "open punctuation (( [ 「)",
        "punctuation-Pe": "close punctuation () ] 」)",
        "punctuation-Pi": "initial quotes (« “)",
        "punctuation-Pf": "final quotes (» ”)",
        "punctuation-Po": "other punctuation (. , ! ¿ 、)",
        "punctuation-between-numbers": "punctuation with a number on both sides (kept)",
        "symbol-Sm": "a math symbol (+ = ±)",
        "symbol-Sc": "a currency symbol ($ €)",
        "symbol-Sk": "a modifier symbol (^ `)",
        "symbol-So": "another symbol (© ° 😀)",
        "non-decimal-number": "a number that is not a decimal digit (½ ² Ⅻ)",
        "other-digits": "decimal digits of another script (١٢ ४२)",
    },
    "char": {
        "non-bmp": "a character beyond U+FFFF (two UTF-16 units)",
        "combining": "a combining mark",
        "cjk": "CJK text without spaces",
    },
    "none": {
        "newline": "a newline between words",
    },
}
#: Rules every tokenizer has: case pairs and whitespace kinds.
COMMON_RULES = {
    "case-dotted-i": "İ, whose lower() is two characters",
    "case-sharp-s": "ß, whose upper() is two characters",
    "case-final-sigma": "a Greek capital sigma or final sigma",
    "whitespace-other": "whitespace other than space and LF (tab, CR, VT, FF, U+001C, NEL, U+00A0, U+3000, ...)",
}

#: tokenizer -> rule -> pieces of text that exercise it.
PIECES: dict[str, dict[str, tuple[str, ...]]] = {
    "13a": {
        "skipped": ("<skipped>", "a<skipped>b", "<skipped> word"),
        "hyphen-newline": ("state-\nof-the-art", "well-\nknown", "re-\n"),
        "newline": ("line\nbreak", "\n", "end.\nNext"),
        "entity-quot": ("&quot;", "&quot;quoted&quot;"),
        "entity-amp": ("&amp;", "AT&amp;T", "&amp;amp;"),
        "entity-lt": ("&lt;", "a&lt;b"),
        "entity-gt": ("&gt;", "&lt;tag&gt;"),
        "entity-apos": ("&apos;", "it&apos;s"),
        "punctuation": ("{x}", "~", "[a]", "`", "!", "&", "(b)", "+", ":", "@", "/", "|", "^", "\\", "$", "%", "#",
                        '"', "*", ";", "<", "=", ">", "?", "_"),
        "period-after-non-digit": ("end.", "a,b", "U.S.", "...", "etc.,"),
        "period-before-non-digit": (".a", ",b", "x.y"),
        "digit-period-digit": ("3.14", "1,000", "1.000,50", "0.5."),
        "digit-dash": ("10-12", "3-", "1990-2000", "4-x"),
        "digit-at-line-end": ("in 1995.", "costs 3,", "pages 10-", "at 5.\nnext", "2.\n"),
        "digit-at-line-start": (".5", ",5 more", "-3 degrees", "\n.75"),
    },
    "intl": {
        "punctuation-Pc": ("_", "a_b", "‿"),
        "punctuation-Pd": ("-", "–", "—", "well-known"),
        "punctuation-Ps": ("(", "[", "{", "「", "(word"),
        "punctuation-Pe": (")", "]", "}", "」", "word)"),
        "punctuation-Pi": ("«", "“", "‘", "«mot"),
        "punctuation-Pf": ("»", "”", "’", "mot»"),
        "punctuation-Po": (".", ",", "!", "¿", "¡", "、", "。", "…", "·", "end.", "a,b", "&apos;"),
        "punctuation-between-numbers": ("3.14", "1,000", "10-12", "½.²", "١٢.٣"),
        "symbol-Sm": ("+", "=", "±", "a+b", "<", ">", "→"),
        "symbol-Sc": ("$", "€", "$5", "£"),
        "symbol-Sk": ("^", "`", "¨"),
        "symbol-So": ("©", "°", "😀", "x°"),
        "non-decimal-number": ("½", "²", "Ⅻ", "3½", "x²", "①"),
        "other-digits": ("١٢", "४२", "٣.٥"),
    },
    "char": {
        "non-bmp": ("𝐀", "😀", "𠀋", "a😀b", "\U0001f600\U0001f3fd"),
        "combining": ("e\u0301", "n\u0303o", "i\u0307"),
        "cjk": ("日本語の文", "中文句子", "한국어"),
    },
    "none": {
        "newline": ("line\nbreak", "\n"),
    },
}
WORDS = ("the", "cat", "sat", "Haus", "naïve", "Москва", "ελληνικά", "عربي", "हिन्दी", "on", "a", "mat")
_FIRST_13A_CLASS = re.compile(r"[\{-\~\[-\` -\&\(-\+\:-\@\/]")
_13A_CHECKS = {
    "period-after-non-digit": re.compile(r"[^0-9][.,]"),
    "period-before-non-digit": re.compile(r"[.,][^0-9]"),
    "digit-period-digit": re.compile(r"[0-9][.,][0-9]"),
    "digit-dash": re.compile(r"[0-9]-"),
    "digit-at-line-end": re.compile(r"[0-9][.,-]$", re.MULTILINE),
    "digit-at-line-start": re.compile(r"^[.,-][0-9]", re.MULTILINE),
}
_13A_LITERALS = {"skipped": "<skipped>", "hyphen-newline": "-\n", "entity-quot": "&quot;", "entity-amp": "&amp;",
                 "entity-lt": "&lt;", "entity-gt": "&gt;", "entity-apos": "&apos;"}


def rules_of(tokenizer: str) -> dict[str, str]:
    """rule -> meaning, for `tokenizer`: its own rules, then the common ones."""
    return {**RULES.get(tokenizer, {}), **COMMON_RULES}


def text_rules(text: str, tokenizer: str) -> set[str]:
    """The rules of `tokenizer` (names of `rules_of`) that `text` exercises."""
    found = _common_rules(text)
    if tokenizer == "13a":
        found |= _rules_13a(text)
    elif tokenizer == "intl":
        found |= _rules_intl(text)
    elif tokenizer == "char":
        found |= _rules_char(text)
    elif tokenizer == "none" and "\n" in text:
        found.add("newline")
    return found


def _common_rules(text: str) -> set[str]:
    found = set()
    if "İ" in text:
        found.add("case-dotted-i")
    if "ß" in text:
        found.add("case-sharp-s")
    if "Σ" in text or "ς" in text:
        found.add("case-final-sigma")
    if any(ch.isspace() and ch not in " \n" for ch in text):
        found.add("whitespace-other")
    return found


def _rules_13a(text: str) -> set[str]:
    found = {rule for rule, literal in _13A_LITERALS.items() if literal in text}
    found |= {rule for rule, pattern in _13A_CHECKS.items() if pattern.search(text)}
    if "\n" in text.replace("-\n", ""):
        found.add("newline")
    if _FIRST_13A_CLASS.search(text):
        found.add("punctuation")
    return found


def _rules_intl(text: str) -> set[str]:
    categories = [unicodedata.category(ch) for ch in text]
    found = {f"punctuation-{c}" for c in categories if c.startswith("P")}
    found |= {f"symbol-{c}" for c in categories if c.startswith("S")}
    if any(c in ("No", "Nl") for c in categories):
        found.add("non-decimal-number")
    if any(c == "Nd" and not ch.isascii() for ch, c in zip(text, categories, strict=True)):
        found.add("other-digits")
    for i in range(1, len(categories) - 1):
        if categories[i].startswith("P") and categories[i - 1].startswith("N") and categories[i + 1].startswith("N"):
            found.add("punctuation-between-numbers")
            break
    return found


def _rules_char(text: str) -> set[str]:
    found = set()
    if any(ord(ch) > 0xFFFF for ch in text):
        found.add("non-bmp")
    if any(unicodedata.combining(ch) for ch in text):
        found.add("combining")
    if any("\u3040" <= ch <= "\u9fff" or "\uac00" <= ch <= "\ud7a3" for ch in text):
        found.add("cjk")
    return found


# -- drawing ------------------------------------------------------------------------------------


def _piece(rng: random.Random, tokenizer: str, rules: list[str]) -> str:
    """One piece of text: a word, a case pair, or a piece aimed at one of `rules` (the text's targets)."""
    roll = rng.random()
    if roll < 0.3:
        return rng.choice(WORDS)
    if roll < 0.42:
        return rng.choice(CASE_PIECES)
    pieces = PIECES.get(tokenizer, {})
    return rng.choice(pieces[rng.choice(rules)]) if rules else rng.choice(WORDS)


def _join(rng: random.Random, pieces: list[str]) -> str:
    """Pieces joined as text is written: mostly by a space, sometimes glued, sometimes by other whitespace."""
    out = ""
    for piece in pieces:
        roll = rng.random()
        if not out or roll < 0.25:
            out += piece
        elif roll < 0.85:
            out += " " + piece
        else:
            out += rng.choice(tuple(WHITESPACE.values())) + piece
    if rng.random() < 0.15:  # whitespace at either end, as lines read from a file carry it
        out = rng.choice(("\n", " ", "\r\n", "\t")) + out if rng.random() < 0.5 else out + rng.choice(("\n", "\r\n"))
    return out


def _edited(rng: random.Random, pieces: list[str], tokenizer: str, rules: list[str]) -> list[str]:
    """A reference's pieces: the hypothesis's, some dropped, replaced or added (entities often on one side only)."""
    out = list(pieces)
    for _ in range(rng.choice((0, 1, 1, 2, 3))):
        action = rng.random()
        if action < 0.3 and out:
            del out[rng.randrange(len(out))]
        elif action < 0.6 and out:
            out[rng.randrange(len(out))] = _piece(rng, tokenizer, rules)
        else:
            out.insert(rng.randint(0, len(out)), _piece(rng, tokenizer, rules))
    if rng.random() < 0.3:  # the other side spells an entity out, or a case pair in the other case
        out = [_other_spelling(rng, p) for p in out]
    return out


_SPELLINGS = {"&quot;": '"', "&amp;": "&", "&lt;": "<", "&gt;": ">", "&apos;": "'", "İ": "i̇", "ß": "ss",
              "The": "the", "THE": "The", "Straße": "STRASSE", "ΟΔΟΣ": "οδος"}


def _other_spelling(rng: random.Random, piece: str) -> str:
    for written, other in _SPELLINGS.items():
        if written in piece and rng.random() < 0.6:
            return piece.replace(written, other)
    return piece


def generate_text_segments(rng: random.Random, level: str, tokenizer: str) -> tuple[Segment, ...]:
    """Segments of raw text for a text request tokenized by `tokenizer`: each hypothesis aimed at a few of
    the tokenizer's rules, its references edits of it."""
    count = 1 if level == "sentence" else rng.choice((1, 1, 2, 3, 5))
    names = sorted(PIECES.get(tokenizer, {}))
    segments = []
    for _ in range(count):
        rules = rng.sample(names, min(len(names), rng.randint(1, 4))) if names else []
        pieces = [_piece(rng, tokenizer, rules) for _ in range(rng.randint(0, 12))]
        references = tuple(
            _join(rng, _edited(rng, pieces, tokenizer, rules)) for _ in range(rng.choice((1, 1, 1, 2, 3)))
        )
        segments.append(Segment(hypothesis=_join(rng, pieces), references=references))
    return tuple(segments)
