"""Text from outside, as each output shows it: one function per output, so that nothing an implementation or a
user supplies (a handshake's name, an error message, an answer, stderr, a token of a minimal example, a case
file's id, a baseline's reason, a command line) can act on the console, render as Markdown, make junit.xml
ill-formed or hide in a page.

A character is shown as it is when Python calls it printable (`str.isprintable`); every other one is shown
as an escape a reader sees: controls as ``\\x1b``, ``\\x00``, ``\\x85`` (``\\t``, ``\\n``, ``\\r`` for
the usual three), a lone surrogate as ``\\ud800``, any other non-printing code point (format characters such
as U+202E, the separators U+2028 and U+2029, spaces other than U+0020, private use and unassigned code
points) as ``U+202E``. A backslash is left alone: the escapes are for reading, not for decoding back.

    >>> shown("a\\x1b[2Jb\\u202e")
    'a\\\\x1b[2JbU+202E'
    >>> shown("one\\ntwo"), shown("one\\ntwo", lines=True)
    ('one\\\\ntwo', 'one\\ntwo')
    >>> markdown_code("use `x`|y")
    '``use `x`|y``'
    >>> json_shown('["a\\x7f","\\u2028"]')
    '["a\\\\u007f","\\\\u2028"]'

Standard library only, importing nothing of oracle/: every layer may use it (the models validate a handshake
with `printable`).
"""

from __future__ import annotations

import difflib
import html
import re
from collections.abc import Iterable

#: The usual whitespace controls, escaped as Python writes them.
_SHORT_ESCAPES = {"\t": "\\t", "\n": "\\n", "\r": "\\r"}
#: What a multi-line text keeps as it is: its line breaks and tabs (every other control is escaped).
_LINE_CHARACTERS = "\n\t"
#: Those characters read as a space, which is printable (`shown`'s test of a multi-line text).
_LINES_AS_SPACES = str.maketrans(dict.fromkeys(_LINE_CHARACTERS, " "))
_BACKTICKS = re.compile("`+")


def escape_character(character: str) -> str:
    """How one character that is not printable is shown: ``\\x1b``, ``\\t``, ``\\ud800`` or ``U+202E``."""
    code = ord(character)
    if character in _SHORT_ESCAPES:
        return _SHORT_ESCAPES[character]
    if code < 0x100:  # C0, DEL and C1
        return f"\\x{code:02x}"
    if 0xD800 <= code <= 0xDFFF:  # a lone surrogate, as Python's backslashreplace writes it
        return f"\\u{code:04x}"
    return f"U+{code:04X}"


def printable(text: str) -> bool:
    """True when `text` holds nothing `shown` would escape (every character printable, U+0020 the only space)."""
    return text.isprintable()


def shown(text: object, *, lines: bool = False) -> str:
    """`text` for the console (and the base of every other output): every character that is not printable as
    its escape; with `lines`, line breaks and tabs are kept (a multi-line text such as a stderr tail)."""
    text = str(text)
    if text.isprintable():
        return text
    # a multi-line text with nothing else to escape (the common case) is tested at C speed: a failing run's long
    # records, shown character by character, held its junit.xml up for seconds
    if lines and text.translate(_LINES_AS_SPACES).isprintable():
        return text
    keep = _LINE_CHARACTERS if lines else ""
    return "".join(ch if ch.isprintable() or ch in keep else escape_character(ch) for ch in text)


def json_shown(text: str) -> str:
    """A JSON text with every character that is not printable written as its JSON escape (``\\u001b``,
    ``\\u2028``, a pair for a code point past U+FFFF): the same JSON value, safe to print and to paste back.
    Such characters only occur inside JSON strings (its structure is ASCII), except line breaks of
    indentation, which are kept."""
    if text.isprintable():
        return text
    return "".join(ch if ch.isprintable() or ch == "\n" else _json_escape(ch) for ch in text)


def _json_escape(character: str) -> str:
    code = ord(character)
    if code > 0xFFFF:
        code -= 0x10000
        return f"\\u{0xD800 + (code >> 10):04x}\\u{0xDC00 + (code & 0x3FF):04x}"
    return f"\\u{code:04x}"


def markdown_code(text: object, *, in_table: bool = False) -> str:
    """`text` as a Markdown code span on one line: nothing in it renders as markup (backticks inside take a
    longer fence), its controls and line breaks are escaped as `shown` escapes them; `in_table` also escapes
    `|`, which ends a table cell even inside a code span."""
    body = shown(text)
    if in_table:
        body = body.replace("|", "\\|")
    if not body:
        return "` `"
    fence = "`" * (max((len(run) for run in _BACKTICKS.findall(body)), default=0) + 1)
    pad = " " if body[0] in "` " or body[-1] in "` " else ""
    return f"{fence}{pad}{body}{pad}{fence}"


def markdown_block(text: object, info: str = "", *, indent: str = "") -> list[str]:
    """`text` as the lines of a fenced Markdown code block (each prefixed by `indent`): its lines kept, any
    other control escaped, and a fence longer than any run of backticks in it, so nothing inside can close it."""
    body = shown(text, lines=True)
    fence = "`" * max(3, max((len(run) for run in _BACKTICKS.findall(body)), default=0) + 1)
    return [f"{indent}{fence}{info}", *(f"{indent}{line}" for line in body.split("\n")), f"{indent}{fence}"]


def xml_text(text: object) -> str:
    """`text` for an XML 1.0 document's text or attribute (junit.xml): every character XML 1.0 cannot hold
    (C0 controls but tab and line feed, lone surrogates, U+FFFE, U+FFFF) and every other non-printing one
    shown as `shown` shows it; the XML writer (ElementTree) then escapes `&`, `<`, `>` and quotes."""
    return shown("" if text is None else text, lines=True)


def html_text(text: object) -> str:
    """`text` for an HTML page: HTML-escaped (quotes too), its controls shown as escapes (line breaks and tabs
    kept: a `<pre>` keeps them)."""
    return html.escape(shown(text, lines=True), quote=True)


#: How alike a typed name and a known one must be (difflib's ratio) to be offered as the one meant: `nlkt` (two
#: letters swapped) is 0.75 from `nltk`; `bleurt`, another metric, 0.67 from `bleuscore` and is offered nothing.
CLOSE_NAME_RATIO = 0.75
#: The shortest beginning of a name taken for the name (`warn` for `warning`).
PREFIX_SHOWN = 3


def close_name(typed: str, known: Iterable[str]) -> str | None:
    """The name of `known` that `typed` most likely misspells (case ignored), for a "did you mean" in the error
    that refuses it; None when none is close enough.

    A name cut short (at least PREFIX_SHOWN characters) is the one name it begins, where only one does.

    >>> close_name("nlkt", ["nltk", "sacrebleu"]), close_name("bleurt", ["bleuscore"])
    ('nltk', None)
    >>> close_name("warn", ["error", "warning", "never"]), close_name("multi", ["multi-bleu", "multi-bleu-detok"])
    ('warning', None)
    """
    by_folded = {name.lower(): name for name in known}
    begun = [name for folded, name in by_folded.items() if folded.startswith(typed.lower())]
    if len(typed) >= PREFIX_SHOWN and len(begun) == 1:
        return begun[0]
    close = difflib.get_close_matches(typed.lower(), list(by_folded), n=1, cutoff=CLOSE_NAME_RATIO)
    return by_folded[close[0]] if close else None
