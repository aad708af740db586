"""The user's files as `doctor` reads them: raw lines, each bounded, decoded one at a time.

`oracle.textio` refuses a file that is not UTF-8 and drops a byte-order mark silently: right for
`score`, wrong for a diagnosis, whose job is to say where such things are. Here every line is read as
bytes (at most `LINE_LIMIT` of them), split on "\\n" only, and decoded on its own: bytes that are not
UTF-8 become U+FFFD and the line says where the first one was; a byte-order mark stays in the text
(U+FEFF) for the lint to see; a CR before the "\\n" is kept as the line's last character, as
`textio` keeps it. A file is streamed, never read whole; `.gz` is read through gzip.
"""

from __future__ import annotations

import gzip
from collections.abc import Iterator
from dataclasses import dataclass
from os import PathLike

from oracle.formulas.errors import BleuValueError
from oracle.textio import bounded_lines, read_errors

BOM = "\ufeff"


@dataclass(frozen=True)
class Line:
    """One line of a file, as read."""

    #: 1-based line number in its file
    number: int
    #: the decoded text without its "\n" (bytes that are not UTF-8 as U+FFFD)
    text: str
    #: the byte offset, within the line, of the first byte that is not UTF-8 (None: the line is UTF-8)
    invalid_at: int | None = None


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
            if raw.endswith(b"\n"):
                raw = raw[:-1]
            try:
                text, invalid_at = raw.decode("utf-8"), None
            except UnicodeDecodeError as exc:
                text, invalid_at = raw.decode("utf-8", errors), exc.start
            yield Line(number, text, invalid_at)
