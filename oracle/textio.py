"""Reading segment files: one segment per line, lines split on "\\n" only, whitespace tokens.

`str.splitlines()` would also split on U+2028, U+0085 and friends, which occur in
real MT data; reading with newline="\\n" keeps those inside their line.
"""

from __future__ import annotations

import gzip
from itertools import zip_longest

from oracle.formulas.errors import BleuValueError


def open_text(path):
    if str(path).endswith(".gz"):
        return gzip.open(path, "rt", encoding="utf-8", newline="\n")
    return open(path, encoding="utf-8", newline="\n")


def read_lines(path):
    """Lines without their "\\n"; a final "\\n" does not start another segment."""
    with open_text(path) as handle:
        for line in handle:
            yield line[:-1] if line.endswith("\n") else line


def tokens(line):
    return line.split()


def read_parallel(hyp_path, ref_paths, *, lowercase=False):
    """Yield (hypothesis tokens, [reference tokens per file]) segment by segment.

    Files of different lengths are an error naming each file and its count:
    nothing is silently dropped.
    """
    streams = [read_lines(hyp_path), *(read_lines(p) for p in ref_paths)]
    paths = [hyp_path, *ref_paths]
    count = 0
    for lines in zip_longest(*streams):
        if any(line is None for line in lines):
            short = [str(p) for p, line in zip(paths, lines) if line is None]
            raise BleuValueError(
                f"files have different numbers of lines: {', '.join(short)} ended after {count} "
                f"line(s) while {', '.join(str(p) for p, line in zip(paths, lines) if line is not None)} go on"
            )
        count += 1
        split = [tokens(line) for line in lines]
        yield split[0], split[1:]
