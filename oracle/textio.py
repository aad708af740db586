"""Reading segment files: one segment per line, lines split on "\\n" only, whitespace tokens.

`str.splitlines()` would also split on U+2028, U+0085 and friends, which occur in
real MT data; reading bytes up to each b"\\n" keeps those inside their line. `-` is standard
input; `.gz` files are read through gzip; a UTF-8 byte order mark is not part of the first
token. A file that cannot be read, is not UTF-8 or is a broken gzip is a BleuValueError naming
the file (and the line and byte for undecodable text).
"""

from __future__ import annotations

import codecs
import contextlib
import gzip
import os
import sys
import zlib
from contextlib import contextmanager
from itertools import zip_longest
from pathlib import Path

from oracle.formulas.errors import BleuValueError, os_reason
from oracle.formulas.tokenizers import tokenize

#: The longest line read (characters): a longer one is an error, not a gigabyte in memory.
LINE_LIMIT = 16 * 1024 * 1024


def open_bytes(path):
    """`path` (`-`: standard input; `.gz`: through gzip) opened for reading bytes."""
    if str(path) == "-":
        if sys.stdin is None:  # (started with descriptor 0 closed: a CI step or a cron job without one)
            raise BleuValueError("`-`: standard input is closed; give a file, or pipe the text in")
        return contextlib.nullcontext(sys.stdin.buffer)
    if str(path).endswith(".gz"):
        return gzip.open(path, "rb")
    return open(path, "rb")


#: A UTF-8 character is at most 4 bytes: a line of more bytes than this holds more than LINE_LIMIT characters.
_LINE_BYTES = 4 * LINE_LIMIT


def read_lines(path):
    """Lines without their "\\n"; a final "\\n" does not start another segment.

    Each line is decoded on its own (a text reader decodes kilobytes ahead of the line it hands out, so its error
    named a later line and an offset into its buffer): bytes that are not UTF-8 are named at their line and their
    byte in it."""
    name = "standard input" if str(path) == "-" else str(path)
    with read_errors(name), open_bytes(path) as handle:
        for number, raw in bounded_lines(handle, name, "bytes", limit=_LINE_BYTES):
            if number == 1 and raw.startswith(codecs.BOM_UTF8):
                raw = raw[len(codecs.BOM_UTF8):]
            try:
                line = raw.decode("utf-8")
            except UnicodeDecodeError as exc:
                raise BleuValueError(f"{name}:{number}: not UTF-8 text ({exc.reason}: byte {exc.start + 1} of the "
                                     f"line is 0x{raw[exc.start]:02x})") from None
            if len(line) > LINE_LIMIT:
                raise BleuValueError(f"{name}:{number}: a line longer than {LINE_LIMIT} characters")
            yield line[:-1] if line.endswith("\n") else line


def bounded_lines(handle, name, unit="characters", *, limit=LINE_LIMIT):
    """(1-based number, line with its "\\n") for each line of the open file `handle`, none read past `limit`
    `unit`s: a longer line is an error naming `name` and the line, not a gigabyte in memory."""
    number = 0
    while True:
        line = handle.readline(limit + 1)
        if not line:
            return
        number += 1
        if len(line) > limit:
            raise BleuValueError(f"{name}:{number}: a line longer than {limit} {unit}")
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

    Files of different lengths are an error naming each file by its option and its count:
    nothing is silently dropped.
    """
    streams = [read_lines(hyp_path), *(read_lines(p) for p in ref_paths)]
    options = [("--hyp", hyp_path), *(("--ref", p) for p in ref_paths)]
    count = 0
    for lines in zip_longest(*streams):
        if any(line is None for line in lines):
            raise BleuValueError(_different_lengths(options, streams, lines, count))
        count += 1
        words = [tokens(line, tokenizer, split) for line in lines]
        yield words[0], words[1:]


def _different_lengths(options, streams, lines, shortest):
    """The error for files of different lengths, once `shortest` lines of each were read and `lines` is the next
    line of each (None where its file ended): every file's count (the longer ones read to their end), and where
    every line a file has past the shortest's end is blank, that, the commonest cause being an empty line left at
    the end of a file."""
    counts, blank_tails = [], []
    for (_option, path), stream, line in zip(options, streams, lines, strict=True):
        tail = [] if line is None else [line, *stream]
        counts.append(shortest + len(tail))
        if tail and all(not extra.strip() for extra in tail):
            blank_tails.append((path, len(tail)))
    sizes = ", ".join(f"{option} {path} has {n} lines" for (option, path), n in zip(options, counts, strict=True))
    ended = next(path for (_option, path), n in zip(options, counts, strict=True) if n == shortest)
    said = f"files have different numbers of lines: {sizes}"
    for path, extra in blank_tails:
        where = (f"line {shortest + 1}, past the end of {Path(ended).name}, is empty" if extra == 1 else
                 f"lines {shortest + 1}-{shortest + extra}, past the end of {Path(ended).name}, are empty")
        said += f"; {Path(path).name}'s {where} (an empty line left at the end of the file?)"
    return said


def same_file(first, second) -> bool:
    """Whether two paths given on the command line name one file (`ref.txt` and `./ref.txt`, a symlink to it);
    standard input (`-`) is never the same as a file, and a path that cannot be looked at is compared as text."""
    if "-" in (str(first), str(second)):
        return False
    try:
        return os.path.samefile(first, second)
    except OSError:
        return str(first) == str(second)


def ordinal(number: int) -> str:
    """1st, 2nd, 3rd, 4th, ..., 11th, 12th, 13th, 21st."""
    suffix = "th" if 10 <= number % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(number % 10, "th")
    return f"{number}{suffix}"
