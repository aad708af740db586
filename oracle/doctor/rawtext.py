"""The user's files as `doctor` reads them: raw lines, each bounded, decoded one at a time.

`oracle.textio` refuses a file that is not UTF-8 and drops a byte-order mark silently: right for
`score`, wrong for a diagnosis, whose job is to say where such things are. Here every line is read as
bytes (at most `LINE_LIMIT` of them), split on "\\n" only, and decoded on its own: bytes that are not
UTF-8 become U+FFFD and the line says where the first one was; a byte-order mark stays in the text
(U+FEFF) for the lint to see; a CR before the "\\n" is kept as the line's last character, as
`textio` keeps it, and so is every other character `str.splitlines()` would end a line at (U+2028, NEL, VT,
FF, ...: `LINE_SEPARATORS`), which the lint names. A file is streamed, never read whole; `.gz` is read through
gzip.
"""

from __future__ import annotations

import gzip
from collections.abc import Iterator
from dataclasses import dataclass
from os import PathLike

from oracle.formulas.errors import BleuValueError
from oracle.textio import bounded_lines, read_errors

BOM = "\ufeff"
#: The characters besides "\n" at which `str.splitlines()` ends a line (Python's documentation of str.splitlines
#: lists them), each as the lint names it: the Unicode name, and the control's abbreviation.
LINE_SEPARATORS = {
    "\r": "U+000D CARRIAGE RETURN (CR)",
    "\x0b": "U+000B LINE TABULATION (VT)",
    "\x0c": "U+000C FORM FEED (FF)",
    "\x1c": "U+001C FILE SEPARATOR (FS)",
    "\x1d": "U+001D GROUP SEPARATOR (GS)",
    "\x1e": "U+001E RECORD SEPARATOR (RS)",
    "\x85": "U+0085 NEXT LINE (NEL)",
    "\u2028": "U+2028 LINE SEPARATOR",
    "\u2029": "U+2029 PARAGRAPH SEPARATOR",
}


@dataclass(frozen=True)
class Line:
    """One line of a file, as read."""

    #: 1-based line number in its file
    number: int
    #: the decoded text without its "\n" (bytes that are not UTF-8 as U+FFFD)
    text: str
    #: the byte offset, within the line, of the first byte that is not UTF-8 (None: the line is UTF-8)
    invalid_at: int | None = None
    #: the line ended with "\n" (False: the file's last line, without one)
    ended: bool = True

    def inner(self) -> str:
        """The text without what ends it for `str.splitlines()` as the "\\n" does here: the CR of a CR LF line
        end; on a last line without "\\n", its last character when that is a line separator. A line separator
        left in it ends a line there for `str.splitlines()` and not here."""
        text = self.text
        if text.endswith("\r") or (not self.ended and text[-1:] in LINE_SEPARATORS):
            return text[:-1]
        return text

    def splitlines_count(self) -> int:
        """How many lines `str.splitlines()` reads here, where this reader reads one."""
        return max(len((self.text + "\n" if self.ended else self.text).splitlines()), 1)


def read_raw_lines(path: str | PathLike, *, errors: str = "replace") -> Iterator[Line]:
    """The lines of `path`, bounded and decoded one by one. `errors` is what becomes of bytes that are not
    UTF-8: "replace" (U+FFFD, the default) or "ignore" (dropped: the effect the lint measures)."""
    name = str(path)
    if name == "-":
        raise BleuValueError("`doctor` reads each file more than once (the lint, then each measured fix): "
                             "give a file, not standard input (-)")
    opener = gzip.open if name.endswith(".gz") else open
    with read_errors(name), opener(path, "rb") as handle:
        for number, raw in bounded_lines(handle, name, "bytes"):
            ended = raw.endswith(b"\n")
            if ended:
                raw = raw[:-1]
            try:
                text, invalid_at = raw.decode("utf-8"), None
            except UnicodeDecodeError as exc:
                text, invalid_at = raw.decode("utf-8", errors), exc.start
            yield Line(number, text, invalid_at, ended)
