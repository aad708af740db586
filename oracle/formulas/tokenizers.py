"""Tokenizers, literally: how raw text becomes the tokens that section 2 of the paper counts.

Each is a transcription of its documented source, quoted line by line:

- `13a`: `sub tokenization` of NIST's mteval-v13a.pl (../shared/tools/moses/), the
  tokenization WMT uses and sacrebleu's default (sacrebleu's `Tokenizer13a` says it is
  "equivalent to mteval-v13a"). Case is not touched here: folding case is the separate
  `lowercase` convention (the script's `tr/[A-Z]/[a-z]/` folds ASCII letters only).
- `intl`: `sub tokenization_international` of mteval-v14.pl, as sacrebleu's
  `TokenizerV14International` documents it (punctuation split off unless a digit is on both
  sides, symbols split off; `&apos;` and the other entities are not unescaped, sacrebleu
  issue #138).
- `char`: every character a token (sacrebleu's `TokenizerChar`), whitespace dropped.
- `none`: split on whitespace (Python's `str.split()`, as sacrebleu's n-gram extraction does).

Which characters separate words is a convention of its own, `TOKEN_SPLIT_RULES`, applied by
every tokenizer's last step ("one space only between words"): Python's `str.split()`
(sacrebleu, and the default), Unicode's White_Space property (Perl's `\\s` on a character
string: mteval-v13a.pl, which does not split on U+001C..U+001F as `str.split()` does), or
ASCII whitespace only (Perl's `split` on a byte string, C's `isspace`: multi-bleu.perl, which
keeps a no-break space inside a word).

`intl` needs the Unicode classes \\p{P}, \\p{S} and \\p{N}; the standard library's `re` has
none, so they are built from `unicodedata` (Unicode `UNICODE_VERSION`). A peer on another
Unicode version (sacrebleu uses the `regex` module) classifies characters assigned since
differently (tests/formulas/test_tokenizers.py lists them against the `regex` module when it is installed).
"""

from __future__ import annotations

import collections
import itertools
import re
import sys
import unicodedata
from collections.abc import Iterable
from functools import cache

from .errors import BleuValueError, describe

UNICODE_VERSION = unicodedata.unidata_version

#: How a line is split into words: the characters that separate them.
TOKEN_SPLIT_RULES = {
    "str-split": "Python's str.split(): every character str.isspace() accepts (U+001C..U+001F among them)",
    "white-space": "Unicode's White_Space property, as Perl's \\s on a character string (not U+001C..U+001F)",
    "ascii": "ASCII whitespace only (space, tab, LF, VT, FF, CR), as Perl's split on bytes and C's isspace",
}
#: Whether 13a puts a space at each end of the line before its rules (`$norm_text = " $norm_text ";`): a rule
#: that needs a character on each side (a `.` or `,` split off unless a digit is next to it) then sees one at
#: the line's ends. A port without them leaves `1995.` at a line's end one token (torchmetrics #1776).
LINE_PADDING_RULES = {
    "spaces": "13a's rules see the line with a space at each end, as mteval-v13a.pl pads it",
    "none": "13a's rules see the line as it is: a `.` or `,` after a digit at its end (or before one at its start) "
            "stays attached",
}
#: How `lowercase` folds case.
CASE_FOLD_RULES = {
    "unicode": "Python's str.lower(): every cased letter (É -> é, Σ -> σ)",
    "ascii": "A-Z only, as Perl's lc on bytes and mteval's tr/[A-Z]/[a-z]/ (É stays É)",
    "casefold": "Python's str.casefold(): full case folding, one letter sometimes two (ß -> ss), as inspect_ai's "
                "scorers since its PR #744 'change lower to casefold'",
}
#: When `lowercase` folds case on raw text: what the tokenizer's rules see. The same tokens either way unless a
#: rule depends on case (13a unescapes `&quot;` and strips `<skipped>` case-sensitively), a fold changes the
#: number of characters (the char tokenizer: `'İ'.lower()` is two, `'ß'.casefold()` is `'ss'`), or a fold
#: depends on the neighbours (a final Greek sigma: `'ΑΣ'.lower()` is `'ας'`, but the char token `'Σ'` folds to
#: `'σ'`).
FOLD_STAGE_RULES = {
    "tokens": "each token after tokenizing (the formulas fold token lists; mteval-v13a.pl folds the line after its "
              "entity step and before rules no A-Z letter takes part in, which gives the same tokens)",
    "line": "the raw line before the tokenizer (sacrebleu's BLEU._preprocess_segment: 'if self.lowercase: sent = "
            "sent.lower()', then 'return self.tokenizer(sent.rstrip())')",
}
_ASCII_LOWER = str.maketrans("ABCDEFGHIJKLMNOPQRSTUVWXYZ", "abcdefghijklmnopqrstuvwxyz")


def fold_case(text: str, rule: str = "unicode") -> str:
    """`text` with case folded by `rule` (one of CASE_FOLD_RULES)."""
    if rule == "unicode":
        return text.lower()
    if rule == "ascii":
        return text.translate(_ASCII_LOWER)
    if rule == "casefold":
        return text.casefold()
    raise BleuValueError(f"`case_fold` must be one of {list(CASE_FOLD_RULES)} (got {describe(rule)})")


#: Unicode 15's White_Space property (PropList.txt), which Perl's \s matches in a character string.
_WHITE_SPACE = re.compile("[\t\n\x0b\x0c\r \x85\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]+")
_ASCII_SPACE = re.compile("[\t\n\x0b\x0c\r ]+")


def split_words(line: str, split: str = "str-split") -> tuple[str, ...]:
    """The words of `line` under the splitting rule `split` (one of TOKEN_SPLIT_RULES), none empty."""
    if split == "str-split":
        return tuple(line.split())
    if split not in TOKEN_SPLIT_RULES:
        raise BleuValueError(f"`token_split` must be one of {list(TOKEN_SPLIT_RULES)} (got {describe(split)})")
    pattern = _WHITE_SPACE if split == "white-space" else _ASCII_SPACE
    return tuple(word for word in pattern.split(line) if word)


# -- 13a: mteval-v13a.pl, sub tokenization ------------------------------------------------------

_13A_STEPS = (
    # $norm_text =~ s/([\{-\~\[-\` -\&\(-\+\:-\@\/])/ $1 /g;   # tokenize punctuation
    (re.compile(r"([\{-\~\[-\` -\&\(-\+\:-\@\/])"), r" \1 "),
    # $norm_text =~ s/([^0-9])([\.,])/$1 $2 /g; # tokenize period and comma unless preceded by a digit
    (re.compile(r"([^0-9])([\.,])"), r"\1 \2 "),
    # $norm_text =~ s/([\.,])([^0-9])/ $1 $2/g; # tokenize period and comma unless followed by a digit
    (re.compile(r"([\.,])([^0-9])"), r" \1 \2"),
    # $norm_text =~ s/([0-9])(-)/$1 $2 /g; # tokenize dash when preceded by a digit
    (re.compile(r"([0-9])(-)"), r"\1 \2 "),
)
#: 13a's first rule as a translation table, made from its pattern: each character of its class (ASCII only) is one
#: match, so `str.translate` gives the string `re.sub` gives, without `re`'s Python call per match (every space is
#: one, about 20 a line: 13a about a quarter faster on WMT17).
_13A_PUNCTUATION_SPACED = {code: f" {chr(code)} " for code in range(128) if _13A_STEPS[0][0].fullmatch(chr(code))}


def _spaced_after(match: re.Match) -> str:
    r"""The template r"\1 \2 " as a function."""
    return f"{match[1]} {match[2]} "


def _spaced_around(match: re.Match) -> str:
    r"""The template r" \1 \2" as a function."""
    return f" {match[1]} {match[2]}"


#: 13a's other rules with their templates as functions: the same matches and the same replacement strings (both
#: groups of every pattern always take part), without `re`'s template expansion, which runs in Python for each match
#: (`re._parser.expand_template`: about 70,000 matches on WMT17's 15,020 lines, a third of the rules' time).
#: tests/formulas/test_tokenizers.py holds them equal to the templates of _13A_STEPS, the script's rules.
_13A_SUBSTITUTIONS = tuple(
    (pattern, {r"\1 \2 ": _spaced_after, r" \1 \2": _spaced_around}[template]) for pattern, template in _13A_STEPS[1:]
)


#: The language-independent part of 13a: literal replacements, in order, each named (a port that leaves one
#: out, or applies it to one side only, is diagnosed by that name: `oracle.diagnose.textrules`).
RULES_13A = (
    ("skipped-tags", (("<skipped>", ""),)),  # s/<skipped>//g; # strip "skipped" tags
    ("end-of-line-hyphens", (("-\n", ""),)),  # s/-\n//g; # strip end-of-line hyphenation and join lines
    ("line-breaks", (("\n", " "),)),  # s/\n/ /g; # join lines
    ("entities", (
        ("&quot;", '"'),  # s/&quot;/"/g;  # convert SGML tag for quote to "
        ("&amp;", "&"),  # s/&amp;/&/g;   # convert SGML tag for ampersand to &
        ("&lt;", "<"),  # s/&lt;/</g;    # convert SGML tag for less-than to >
        ("&gt;", ">"),  # s/&gt;/>/g;    # convert SGML tag for greater-than to <
    )),
)


def tokenize_13a(line: str, split: str = "str-split", padding: str = "spaces", left_out: frozenset[str] = frozenset()
                 ) -> tuple[str, ...]:
    """mteval-v13a.pl's `tokenization` of one line, without its case folding: a tuple of tokens (`padding`: one
    of LINE_PADDING_RULES; `left_out`: names of RULES_13A not applied, none in the script)."""
    for name, replacements in RULES_13A:
        if name not in left_out:
            for literal, replacement in replacements:
                line = line.replace(literal, replacement)
    if padding == "spaces":
        line = f" {line} "  # $norm_text = " $norm_text ";
    line = line.translate(_13A_PUNCTUATION_SPACED)  # the first of _13A_STEPS
    for pattern, substitute in _13A_SUBSTITUTIONS:  # _13A_STEPS[1:]
        line = pattern.sub(substitute, line)
    # s/\s+/ /g; s/^\s+//; s/\s+$//;  # one space only between words, none at either end
    return split_words(line, split)


# -- intl: mteval-v14.pl, sub tokenization_international (as sacrebleu documents it) -------------


@cache
def _category_runs() -> tuple[tuple[int, int, str], ...]:
    """Every code point's general category as runs (first, last, category), in code point order: the
    categories read once and grouped in C (map and groupby), one Python step per run, not per code point. They
    are never held at once: `unicodedata.category` makes a new string for every code point, and the 1.1 million
    of them in a list were 60 MB, most of `doctor`'s peak memory."""
    runs = []
    start = 0
    for category, run in itertools.groupby(map(unicodedata.category, map(chr, range(sys.maxunicode + 1)))):
        length = collections.deque(enumerate(run, 1), maxlen=1)[0][0]  # the run's length, counted in C
        runs.append((start, start + length - 1, category))
        start += length
    return tuple(runs)


@cache
def _ranges(prefix: str) -> tuple[tuple[int, int], ...]:
    """The code points whose general category starts with `prefix`, as sorted disjoint ranges (first, last)."""
    ranges: list[tuple[int, int]] = []
    for start, end, category in _category_runs():
        if not category.startswith(prefix):
            continue
        if ranges and ranges[-1][1] == start - 1:  # runs of two categories of the class (Pd then Ps) join
            ranges[-1] = (ranges[-1][0], end)
        else:
            ranges.append((start, end))
    return tuple(ranges)


def _body(ranges: Iterable[tuple[int, int]]) -> str:
    """The inside of a `re` character class holding `ranges`."""
    return "".join(re.escape(chr(a)) if a == b else f"{re.escape(chr(a))}-{re.escape(chr(b))}" for a, b in ranges)


@cache
def _class(prefix: str, negate: bool = False) -> str:
    """A `re` character class of every code point whose general category starts with `prefix`."""
    return f"[{'^' if negate else ''}{_body(_ranges(prefix))}]"


#: The last code point of the Basic Multilingual Plane.
_BMP_LAST = 0xFFFF


def _within(ranges: Iterable[tuple[int, int]], first: int, last: int) -> list[tuple[int, int]]:
    """`ranges` cut to first..last."""
    return [(max(a, first), min(b, last)) for a, b in ranges if a <= last and b >= first]


def _fast_class(prefix: str, negate: bool = False) -> str:
    """`_class(prefix, negate)` written so that `re` decides a BMP character with one bitmap lookup: the same code
    points, matched about 4 times faster on text (intl's three rules on WMT17, 0.65 s -> 0.15 s).

    `re` keeps a class's BMP members as a bitmap and its members beyond the BMP as a list of ranges
    (re._compiler._optimize_charset), and a character the bitmap does not hold is compared with every range of the
    list: \\p{S} has 83 of them, \\p{N} 67, all walked for each letter of a line. Here each class is an
    alternation of a BMP part, whose ranges beyond the BMP are one range or none, and an astral part that starts by
    rejecting the whole BMP in one range (tests/formulas/test_tokenizers.py checks both forms match the same code
    points)."""
    ranges = _ranges(prefix)
    bmp, astral = _within(ranges, 0, _BMP_LAST), _within(ranges, _BMP_LAST + 1, sys.maxunicode)
    everything_beyond = f"{re.escape(chr(_BMP_LAST + 1))}-{re.escape(chr(sys.maxunicode))}"
    whole_bmp = f"\\x00-{re.escape(chr(_BMP_LAST))}"
    if negate:  # a BMP character outside the class, or a character beyond the BMP outside it
        return f"(?:[^{_body(bmp)}{everything_beyond}]|[^{whole_bmp}{_body(astral)}])"
    # a BMP character of the class, or a character beyond the BMP that is not outside it
    outside, previous = [], _BMP_LAST
    for a, b in astral:
        if a > previous + 1:
            outside.append((previous + 1, a - 1))
        previous = b
    if previous < sys.maxunicode:
        outside.append((previous + 1, sys.maxunicode))
    beyond = f"[^{whole_bmp}{_body(outside)}]"
    return f"(?:[{_body(bmp)}]|{beyond})" if bmp else beyond


#: What intl's \p{N} reads as a number: the script's every number (N), or, as a port reading it as `\d` or
#: str.isdecimal() does, decimal digits only (Nd: ½ and ² are then no numbers).
INTL_NUMBERS = {"N": "every number (\\p{N}, mteval-v14.pl)", "Nd": "decimal digits only (\\p{Nd})"}


@cache
def _intl_steps(numbers: str = "N") -> tuple[tuple[re.Pattern[str], str], ...]:
    punctuation, symbol, not_number = _fast_class("P"), _fast_class("S"), _fast_class(numbers, negate=True)
    return (
        # s/(\P{N})(\p{P})/$1 $2 /g;  # punctuation split off unless preceded by a digit
        (re.compile(f"({not_number})({punctuation})"), r"\1 \2 "),
        # s/(\p{P})(\P{N})/ $1 $2/g;  # ... unless followed by a digit
        (re.compile(f"({punctuation})({not_number})"), r" \1 \2"),
        # s/(\p{S})/ $1 /g; # tokenize symbols
        (re.compile(f"({symbol})"), r" \1 "),
    )


def tokenize_intl(line: str, split: str = "str-split", numbers: str = "N") -> tuple[str, ...]:
    """mteval-v14.pl's international tokenization of one line, without case folding: a tuple of tokens
    (`numbers`: what counts as a number, one of INTL_NUMBERS)."""
    if numbers not in INTL_NUMBERS:
        raise BleuValueError(f"intl's numbers must be one of {list(INTL_NUMBERS)} (got {describe(numbers)})")
    for pattern, replacement in _intl_steps(numbers):
        line = pattern.sub(replacement, line)
    return split_words(line, split)  # s/\p{Z}+/ /g and no space at either end; sacrebleu: str.split()


# -- char and none -----------------------------------------------------------------------------


def tokenize_char(line: str, split: str = "str-split") -> tuple[str, ...]:
    """Every character a token, whitespace dropped (sacrebleu: `" ".join(line)`, then split).

    Linear with a small constant: whitespace goes with one split and join, and each distinct character
    is one string shared by all its occurrences (a character beyond Latin-1 read out of a str is a new
    76-byte object each time), so a token costs one tuple slot, 8 bytes."""
    kept = "".join(split_words(line, split))
    shared: dict[str, str] = {}
    return tuple(map(shared.setdefault, kept, kept))


def tokenize_none(line: str, split: str = "str-split") -> tuple[str, ...]:
    """Split on whitespace (`str.split()`, or the `split` rule)."""
    return split_words(line, split)


TOKENIZERS = {
    "none": "split on whitespace (str.split()): the text is already tokenized",
    "13a": "mteval-v13a.pl's tokenization (WMT's; sacrebleu's default), case kept",
    "intl": "mteval-v14.pl's international tokenization (Unicode punctuation and symbols), case kept",
    "char": "every non-whitespace character a token",
}
_FUNCTIONS = {"none": tokenize_none, "13a": tokenize_13a, "intl": tokenize_intl, "char": tokenize_char}


def tokenize(line: str, tokenizer: str = "none", *, split: str = "str-split", padding: str = "spaces",
             fold: str | None = None) -> tuple[str, ...]:
    """`line` (a str) as a tuple of tokens under `tokenizer` (one of TOKENIZERS), words separated by
    the `split` rule (one of TOKEN_SPLIT_RULES), 13a's line padded by the `padding` rule (LINE_PADDING_RULES);
    `fold`: a CASE_FOLD_RULES rule applied to the whole line first (FOLD_STAGE_RULES "line"), None: case kept."""
    if tokenizer not in _FUNCTIONS:
        raise BleuValueError(f"`tokenizer` must be one of {list(TOKENIZERS)} (got {describe(tokenizer)})")
    if split not in TOKEN_SPLIT_RULES:
        raise BleuValueError(f"`token_split` must be one of {list(TOKEN_SPLIT_RULES)} (got {describe(split)})")
    if padding not in LINE_PADDING_RULES:
        raise BleuValueError(f"`line_padding` must be one of {list(LINE_PADDING_RULES)} (got {describe(padding)})")
    if not isinstance(line, str):
        raise BleuValueError(f"a line to tokenize must be a str (got {describe(line)})")
    if fold is not None:
        line = fold_case(line, fold)
    if tokenizer == "13a":
        return tokenize_13a(line, split, padding)
    return _FUNCTIONS[tokenizer](line, split)
