"""Reading segment files: one segment per line, lines split on "\\n" only, whitespace tokens.

`str.splitlines()` would also split on U+2028, U+0085 and friends, which occur in
real MT data; reading with newline="\\n" keeps those inside their line. `-` is standard
input; `.gz` files are read through gzip; a UTF-8 byte order mark is not part of the first
token. A file that cannot be read, is not UTF-8 or is a broken gzip is a BleuValueError naming
the file (and the line and byte for undecodable text).
"""

from __future__ import annotations

import gzip
import io
import sys
import zlib
from contextlib import contextmanager
from itertools import zip_longest

from oracle.formulas.errors import BleuValueError, os_reason
from oracle.formulas.tokenizers import tokenize

#: The longest line read (characters): a longer one is an error, not a gigabyte in memory.
LINE_LIMIT = 16 * 1024 * 1024


def open_text(path):
    if str(path) == "-":
        if sys.stdin is None:  # (started with descriptor 0 closed: a CI step or a cron job without one)
            raise BleuValueError("`-`: standard input is closed; give a file, or pipe the text in")
        return io.TextIOWrapper(sys.stdin.buffer, encoding="utf-8-sig", newline="\n")
    if str(path).endswith(".gz"):
        return gzip.open(path, "rt", encoding="utf-8-sig", newline="\n")
    return open(path, encoding="utf-8-sig", newline="\n")


def read_lines(path):
    """Lines without their "\\n"; a final "\\n" does not start another segment."""
    name = "standard input" if str(path) == "-" else str(path)
    number = 0
    try:
        with read_errors(name), open_text(path) as handle:
            for number, line in bounded_lines(handle, name):  # noqa: B007 -- the handler below names the line
                yield line[:-1] if line.endswith("\n") else line
    except UnicodeDecodeError as exc:
        raise BleuValueError(f"{name}:{number + 1}: not UTF-8 text ({exc.reason}: byte 0x{exc.object[exc.start]:02x} "
                             f"at offset {exc.start} of the chunk read)") from None


def bounded_lines(handle, name, unit="characters"):
    """(1-based number, line with its "\\n") for each line of the open file `handle`, none read past LINE_LIMIT
    `unit`s: a longer line is an error naming `name` and the line, not a gigabyte in memory."""
    number = 0
    while True:
        line = handle.readline(LINE_LIMIT + 1)
        if not line:
            return
        number += 1
        if len(line) > LINE_LIMIT:
            raise BleuValueError(f"{name}:{number}: a line longer than {LINE_LIMIT} {unit}")
        yield number, line


@contextmanager
def read_errors(name):
    """A file that cannot be read, is a directory or is a broken gzip, as a BleuValueError naming it."""
    try:
        yield
    except (gzip.BadGzipFile, EOFError, zlib.error) as exc:
        raise BleuValueError(f"{name}: not a readable gzip file ({exc or type(exc).__name__})") from None
    except IsADirectoryError:
        raise BleuValueError(f"{name}: a directory, not a file of segments") from None
    except OSError as exc:
        raise BleuValueError(f"{name}: cannot read it ({os_reason(exc)})") from None


def tokens(line, tokenizer="none", split="str-split"):
    """One line's tokens under `tokenizer` (`oracle.formulas.tokenizers`; "none": `str.split()`), words
    separated by the `split` rule."""
    return tokenize(line, tokenizer, split=split)


def read_parallel(hyp_path, ref_paths, *, lowercase=False, tokenizer="none", split="str-split"):
    """Yield (hypothesis tokens, [reference tokens per file]) segment by segment.

    Files of different lengths are an error naming each file and its count:
    nothing is silently dropped.
    """
    streams = [read_lines(hyp_path), *(read_lines(p) for p in ref_paths)]
    paths = [hyp_path, *ref_paths]
    count = 0
    for lines in zip_longest(*streams):
        if any(line is None for line in lines):
            short = [str(p) for p, line in zip(paths, lines, strict=True) if line is None]
            going = [str(p) for p, line in zip(paths, lines, strict=True) if line is not None]
            raise BleuValueError(
                f"files have different numbers of lines: {', '.join(short)} ended after {count} "
                f"line(s) while {', '.join(going)} go on"
            )
        count += 1
        words = [tokens(line, tokenizer, split) for line in lines]
        yield words[0], words[1:]
