"""What each layout problem does to the score, measured by the oracle.

A finding's `Fix` is either a reading changed in the table already counted (both sides lowercased, the
13a tokenizer, the byte-order mark kept), or a pass over the files with the problem undone: the files
are streamed again, line by line, through a transform (re-aligned, exchanged, transposed back, without
the empty lines or a duplicated file, with CRs, NULs or misplaced byte-order marks removed, bad bytes
dropped), and the same reading is scored on what comes out with the same counting (`StreamTable`). A line
separator other than "\\n" is measured the other way round: the file read as a `str.splitlines()` reader reads
it (a line ended at each such character), which is the number that reader gets.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from oracle.formulas.errors import BleuValueError

from .layout import BOM, Finding, Fix
from .rawtext import read_raw_lines
from .readings import Reading, Scorer, shown
from .streams import StreamTable


@dataclass(frozen=True)
class Measured:
    """A finding's effect: the reading it was measured under, the score before and after the fix (0-100)."""

    reading: Reading
    description: str
    before: float
    after: float

    @property
    def delta(self) -> float:
        return self.after - self.before


def measure(finding: Finding, reading: Reading, scorer: Scorer, paths: list) -> Measured | str:
    """The effect of undoing `finding` on `reading`'s score, or why it cannot be measured."""
    fix = finding.fix
    if fix is None:
        return finding.no_effect_reason
    if fix.kind == "reading":
        start, end = _pair(reading, fix)
        if not (scorer.can_score(start) and scorer.can_score(end)):
            return f"the reading {end.label()} is not computed here"
        name = fix.change[0]
        description = f"{name} {_shown(start, name)} -> {_shown(end, name)}"
        return Measured(start, f"{fix.description} ({description})", scorer.value(start).score * 100,
                        scorer.value(end).score * 100)
    references = len(paths) - 1
    if fix.transform == "drop-file":
        references -= 1
    elif fix.transform == "transpose":
        references = _first_file_lines(paths[1])
    table = StreamTable(references, keys=[reading.stream], bom=reading.stream.bom == "kept")
    for texts in _transformed(fix, paths):
        table.add(texts)
    if table.segments == 0:
        return f"nothing is left to score with the fix ({fix.description})"
    fixed = Scorer(table)
    if not fixed.can_score(reading):
        return f"the reading {reading.label()} cannot be computed on the fixed files"
    return Measured(reading, fix.description, scorer.value(reading).score * 100, fixed.value(reading).score * 100)


def _pair(reading: Reading, fix: Fix) -> tuple:
    """(before, after): `reading` and the reading with the fix applied; when `reading` has it applied already
    (it lowercases, it tokenizes with 13a, it keeps the mark), the reading without it and `reading`."""
    name, value = fix.change
    if name == "lowercase":
        other = Reading(reading.profile, reading.tokenizer, not reading.lowercase, reading.changes)
        applied = reading.lowercase == value
    elif name == "tokenizer":
        applied = reading.tokenizer == value
        other = Reading(reading.profile, "none" if applied else value, reading.lowercase, reading.changes)
    else:
        applied = reading.value_of(name) == value
        other = reading.changed(name, "dropped" if applied else value)
    return (other, reading) if applied else (reading, other)


def _shown(reading: Reading, name: str) -> str:
    if name == "lowercase":
        return shown(reading.lowercase)
    if name == "tokenizer":
        return reading.tokenizer
    return shown(reading.value_of(name))


def _texts(path: str, **kwargs) -> Iterator[str]:
    return (line.text for line in read_raw_lines(path, **kwargs))


def _transformed(fix: Fix, paths: list) -> Iterator[tuple]:
    """The segments (hypothesis line, reference lines) with `fix` applied, streamed."""
    streams = [_texts(path) for path in paths]
    transform = fix.transform
    if transform == "exchange":
        streams[0], streams[fix.file] = streams[fix.file], streams[0]
    elif transform == "drop-file":
        del streams[fix.file]
    elif transform == "realign":
        # from hypothesis line `start` on, reference line i + offset goes with hypothesis line i: a reference
        # with extra lines loses them; where it lacks lines, the other files lose the lines left without one
        start, offset = fix.start - 1, fix.offset
        if offset > 0:
            streams[fix.file] = _skipping(streams[fix.file], start, offset)
        else:
            streams = [stream if index == fix.file else _skipping(stream, start + offset, -offset)
                       for index, stream in enumerate(streams)]
    elif transform == "transpose":
        return ((hyp, *_texts(ref)) for hyp, ref in zip(streams[0], paths[1:], strict=False))
    elif transform in ("strip-cr", "drop-nul", "drop-bom", "ignore-invalid"):
        if transform == "ignore-invalid":
            streams[fix.file] = _texts(paths[fix.file], errors="ignore")
        else:
            streams[fix.file] = map(_CLEANERS[transform], streams[fix.file])
    elif transform == "split-lines":
        streams[fix.file] = _split_at(paths[fix.file], fix.separator)
    elif transform == "drop-empty":
        return (texts for texts in zip(*streams, strict=False) if texts[fix.file].strip().lstrip(BOM))
    else:
        raise BleuValueError(f"unknown transform {transform!r}")
    return zip(*streams, strict=False)


def _split_at(path: str, separator: str) -> Iterator[str]:
    """The lines of `path` as `str.splitlines()` reads them where `separator` is the only character besides "\\n"
    that ends a line (the CR of a CR LF ends none, a separator that ends the file ends its last line)."""
    for line in read_raw_lines(path):
        yield from line.inner().split(separator)


def _skipping(stream: Iterator[str], start: int, count: int) -> Iterator[str]:
    """`stream` without its lines start .. start + count - 1 (0-based)."""
    for index, text in enumerate(stream):
        if not start <= index < start + count:
            yield text


_CLEANERS = {
    "strip-cr": lambda text: text[:-1] if text.endswith("\r") else text,
    "drop-nul": lambda text: text.replace("\x00", ""),
    "drop-bom": lambda text: text.replace(BOM, ""),
}


def _first_file_lines(path: str) -> int:
    return sum(1 for _ in read_raw_lines(path))
