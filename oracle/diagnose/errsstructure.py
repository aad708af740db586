"""A structure whose call errs: an error named by the caller's mis-shaping that explains it (issue 36, errs-structure).

A caller that mis-shapes what it passes (a structural operator of the catalogue: per-segment reference lists passed
as reference streams, each side written one segment a line and read back by a reader with more line ends) gets a
score where the library takes the mis-shaped input, and an error where the library's own shape check refuses it
(sacrebleu's `zip_longest` over streams not as many as the hypotheses, "Source and reference streams have different
lengths!", mjpost/sacrebleu#48; a file of references read back with `str.splitlines`, line i against line i for i
below its count, taquecih/bleu sbleu.py: IndexError where the other file is shorter). An error predicate of
`errorcauses` names the second half only, by the input feature nearest to the refused shape; the first half, the
wrong scores, is named by the structure on other records. Here the error is named by the structure itself where
the evidence says both halves are one mechanism (`structure_cause`):

- the structure's refusal (`Refusal.refuses`: the shape its caller gives that the library refuses, read from the
  request alone) holds on every failing input given (the shrunk one and the original);
- every neighbour the error search asked agrees with it: each that erred is refused, each that was answered is not
  (the separation `errorcauses` demands of a predicate, on the same probes);
- one neighbour more, the failing input given a shape the structure's caller takes (`Refusal.accepted`: the
  references cycled to as many as the segments, the line ends evened across the sides), is answered, wrongly, with
  the very score and statistics the structure gives it (`explains`: the classifier among that structure alone, the
  statistics first). An error alone never names a structure (a refusal holding on one input is a coincidence the
  statistics do not check); nor does a predicate's separation: where the accepted shape is answered right (a library
  that refuses such input by a check of its own, a ValueError for reference counts that vary, and scores what it
  takes as sent) the predicate stays the cause.

The name is the structure's own (`references-transposed`), not a suffixed one: one caller's mis-shaping explains the
answered records (by their statistics) and the refused ones, and a run counts it once; the description says the call
errs and where. Later errors of the run are named by it where their input is refused (`hinted`), as `errorcauses`
names them by a cause their kind's shrunk error was given.

Coverage of seen bugs by kind, not generalisation: the fifth held-out set's two structural crashes (benchmarks/
README.md, "A structure whose call errs"). The refusals are declared in the catalogue
(`oracle.diagnose.mechanisms.structure.REFUSALS`)."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from oracle.models.protocol import ScoreRequest, Segment

#: At most so many reference streams in an accepted neighbour (errorcauses' MAX_STREAMS: one reference per segment)
MAX_STREAMS = 16
#: The largest accepted neighbour asked (errorcauses' bound on a neighbour: its classification costs seconds above)
MAX_PROBE_TOKENS = 4096
#: The token appended to a side with fewer line ends, after the line end: the new line holds it on every side
FILLER = "z"


@dataclass(frozen=True)
class Refusal:
    """A structural operator (`structure`, its catalogue name) whose caller gives the library a shape it refuses:
    `refuses(request)` says whether the request so mis-shaped is refused (from the request alone), `accepted(request)`
    is a neighbour of a refused request that the caller's mis-shaping gives a shape the library takes (None where
    none is built), `words` what the library refuses."""

    structure: str
    refuses: Callable[[ScoreRequest], bool]
    accepted: Callable[[ScoreRequest], ScoreRequest | None]
    words: str


@dataclass(frozen=True)
class StructureCause:
    """An error named by a structure: its name (the structure's) and what it says of the evidence."""

    name: str
    description: str


# -- references passed as reference streams ------------------------------------------------------------------------


def streams_not_as_many_as_hypotheses(request: ScoreRequest) -> bool:
    """Whether per-segment reference lists passed as reference streams give a stream whose length is not the number
    of hypotheses (`zip_longest` over them then pads with None: sacrebleu 1.4's "Source and reference streams have
    different lengths!")."""
    return any(len(s.references) != len(request.segments) for s in request.segments)


def streams_as_many_as_hypotheses(request: ScoreRequest) -> ScoreRequest | None:
    """The request with every segment's references as many as the segments: k the larger of the segments and the
    most references a segment has, the segments cycled to k (at corpus level, where that adds any) and each
    segment's references cycled to k (a segment or reference given again changes no count but by its own copy: the
    clipping takes a maximum, the closest length is one of the references). None over MAX_STREAMS, where a segment has
    no reference, or on a request of a stateful plan."""
    n = len(request.segments)
    if request.stateful is not None or not n or any(not s.references for s in request.segments):
        return None
    k = max(n, *(len(s.references) for s in request.segments))
    if k > MAX_STREAMS:
        return None
    segments = tuple(request.segments[i % n] for i in range(k))
    return request.model_copy(update={"level": "corpus" if k > n else request.level, "segments": tuple(
        Segment(hypothesis=s.hypothesis, references=tuple(s.references[j % len(s.references)] for j in range(k)))
        for s in segments)})


# -- each side written one segment a line and read back -----------------------------------------------------------


def _cuts(tokens: Sequence[str], line_end: re.Pattern[str]) -> int:
    return sum(len(line_end.findall(token)) for token in tokens)


def _one_file_per_reference(request: ScoreRequest) -> int | None:
    """The number of reference files (every segment's references as many: one file per reference), or None."""
    counts = {len(s.references) for s in request.segments}
    if request.is_text or len(counts) != 1 or 0 in counts:
        return None
    return counts.pop()


def lines_not_as_many(line_end: re.Pattern[str]) -> Callable[[ScoreRequest], bool]:
    """Whether the sides written one segment a line (one file for the hypotheses, one per reference) and read back by
    a reader that also ends a line at `line_end` give a reference file another number of lines than the hypotheses'
    (the lines cannot be paired one to one: a reader that checks the counts, or indexes one file by the other's,
    raises)."""
    def refuses(request: ScoreRequest) -> bool:
        files = _one_file_per_reference(request)
        if files is None:
            return False
        hypothesis_lines = sum(_cuts(s.hypothesis, line_end) for s in request.segments)
        return any(sum(_cuts(s.references[k], line_end) for s in request.segments) != hypothesis_lines
                   for k in range(files))

    return refuses


def lines_evened(line_end: re.Pattern[str]) -> Callable[[ScoreRequest], ScoreRequest | None]:
    """The request with each segment's sides given as many line ends: a side with fewer than the segment's most
    gets the difference as tokens of the request's own line end (the first it holds) followed by FILLER, so that
    every side has as many lines and line i of each is one segment's piece. None where no token holds a line end."""
    def accepted(request: ScoreRequest) -> ScoreRequest | None:
        if _one_file_per_reference(request) is None:
            return None
        found = next((m.group(0) for s in request.segments for seq in (s.hypothesis, *s.references)
                      for token in seq for m in [line_end.search(token)] if m is not None), None)
        if found is None:
            return None

        def evened(segment: Segment) -> Segment:
            most = max(_cuts(seq, line_end) for seq in (segment.hypothesis, *segment.references))

            def padded(seq):
                return (*seq, *(found + FILLER for _ in range(most - _cuts(seq, line_end))))
            return Segment(hypothesis=padded(segment.hypothesis),
                           references=tuple(padded(r) for r in segment.references))

        return request.model_copy(update={"segments": tuple(evened(s) for s in request.segments)})

    return accepted


def lines_refusal(structure: str, line_end: re.Pattern[str], reader: str) -> Refusal:
    return Refusal(structure, lines_not_as_many(line_end), lines_evened(line_end),
                   f"the lines {reader} reads back are not as many in a reference file as in the hypotheses' file "
                   "(the library asserts the counts equal)")


# -- the search ------------------------------------------------------------------------------------------------------


def _confirmed(refusal: Refusal, failing: ScoreRequest, ask: Callable[[ScoreRequest], Any],
               explains: Callable[[ScoreRequest, Any, str], bool]) -> bool:
    """Whether `failing` given a shape the structure's caller takes (`Refusal.accepted`) is answered, wrongly, with
    the structure's statistics (a shrunk input's two references may be one token each, the same: transposed, they
    are what they were, and the answer is the oracle's; the original input, richer, can tell)."""
    neighbour = refusal.accepted(failing)
    if neighbour is None or refusal.refuses(neighbour) or neighbour.token_count > MAX_PROBE_TOKENS:
        return False
    reply = ask(neighbour)
    return reply is not None and explains(neighbour, reply, refusal.structure)


def structure_cause(failing: ScoreRequest, refusals: Iterable[Refusal], *, asked: Sequence[tuple[ScoreRequest, Any]],
                    ask: Callable[[ScoreRequest], Any], explains: Callable[[ScoreRequest, Any, str], bool],
                    also_failing: Sequence[ScoreRequest] = ()) -> StructureCause | None:
    """The first of `refusals` that names the error on `failing` (module docstring): it refuses every failing input,
    agrees with every neighbour in `asked` ((request, True erred / False answered / None not asked)), and its accepted
    neighbour, asked (`ask`: the reply, or None where it cannot be asked), is answered with the structure's statistics
    (`explains(request, reply, structure)`), the shrunk input's or else the original's (`_confirmed`). None where
    none does."""
    every = (failing, *also_failing)
    for refusal in refusals:
        if not all(refusal.refuses(request) for request in every):
            continue
        if any(answer is not None and answer is not refusal.refuses(request) for request, answer in asked):
            continue
        if not any(_confirmed(refusal, request, ask, explains) for request in every):
            continue
        agreed = sum(answer is not None for _, answer in asked)
        return StructureCause(refusal.structure, (
            f"a structure whose call errs: the input mis-shaped so, {refusal.words}: the failing input is refused, "
            f"the {agreed} neighbour(s) the error search asked each err exactly where it is refused, and the failing "
            "input given a shape the caller's structure takes is answered with that structure's statistics"))
    return None


def hinted(request: ScoreRequest, hints: Iterable[tuple[str, ...]], refusals: Iterable[Refusal]) -> Refusal | None:
    """The refusal of the first structure among `hints` (causes given to shrunk errors of the same kind) that
    refuses `request`, or None."""
    names = [parts[0] for parts in hints if len(parts) == 1]
    by_name = {refusal.structure: refusal for refusal in refusals}
    return next((by_name[name] for name in names if name in by_name and by_name[name].refuses(request)), None)


__all__ = ["Refusal", "StructureCause", "hinted", "lines_refusal", "streams_as_many_as_hypotheses",
           "streams_not_as_many_as_hypotheses", "structure_cause"]
