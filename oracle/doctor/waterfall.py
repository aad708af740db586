"""Explaining a difference: from one reading to another, one convention at a time.

The path changes the conventions in a stated order (`STEPS`: the byte-order mark, the tokenizer, case,
the reference-length rule, smoothing, the empty-order rules, the floor of segment totals, what else differs
between the two profiles, the aggregation, the scale), each step moving every option it names to the
target's value and scoring the result. The steps' deltas add up to the difference between the two readings
by construction; the difference between the two numbers as printed differs from that by their rounding,
which is reported too. Scores are on the 0-100 scale throughout: the scale step changes how a number is
printed, not its value.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from .readings import Computation, Reading, Scorer, shown
from .streams import with_key

#: (step, the options it moves). `bom`, `aggregation` and `scale` are not options of the formulas.
STEPS = (
    ("bom", ()),
    ("tokenizer", ("tokenizer", "token_split")),
    ("case", ("lowercase", "case_fold")),
    ("reference_length", ("reference_length",)),
    ("smoothing", ("smoothing",)),
    ("empty_order", ("empty_order", "sentence_empty_order", "unsmoothed_empty_order", "no_match")),
    ("segment_totals_floor", ("segment_totals_floor",)),
    ("other", ("both_empty", "zero_weight", "weight_normalisation", "uniform_weights_only", "default_max_order")),
    ("aggregation", ()),
    ("scale", ()),
)


@dataclass(frozen=True)
class Point:
    """One end of a difference: a reading, the scale its number is on, and the number when one was given."""

    label: str
    reading: Reading
    scale: str
    #: the number as given, on the 0-100 scale (None for a signature)
    given_100: float | None = None
    #: half a unit of its last digit, on the 0-100 scale
    half_unit_100: float | None = None


@dataclass(frozen=True)
class Step:
    """One convention changed: from what to what, the score reached (0-100) and its part of the gap."""

    step: str
    change: str
    score: float
    delta: float
    share: float | None


@dataclass(frozen=True)
class Waterfall:
    start: Point
    end: Point
    start_score: float
    end_score: float
    steps: tuple

    @property
    def computed(self) -> float:
        return self.end_score - self.start_score

    @property
    def given(self) -> float | None:
        if self.start.given_100 is None or self.end.given_100 is None:
            return None
        return self.end.given_100 - self.start.given_100


def waterfall(start: Point, end: Point, scorer: Scorer) -> Waterfall:
    """The path from `start`'s reading to `end`'s, one step of `STEPS` at a time (steps that change nothing
    are left out)."""
    here = start.reading.computation
    target = end.reading.computation
    first = last = scorer.value(here).score * 100
    moves = []
    for name, option_names in STEPS:
        after, change = _moved(name, option_names, here, target, start, end)
        if change is None:
            continue
        score = last if name == "scale" else scorer.value(after).score * 100
        moves.append((name, change, score, score - last))
        here, last = after, score
    total = last - first
    steps = tuple(Step(name, change, score, delta, (delta / total) + 0.0 if total else None)
                  for name, change, score, delta in moves)
    return Waterfall(start, end, first, last, steps)


def _moved(name: str, option_names: tuple, here: Computation, target: Computation, start: Point,
           end: Point) -> tuple[Computation, str | None]:
    """`here` with step `name` taken towards `target`, and how the change reads; (here, None) when nothing moves."""
    if name == "scale":
        return here, (f"{start.scale} -> {end.scale} (how the number is printed; same value)"
                      if start.scale != end.scale else None)
    if name == "bom":
        if here.stream.bom == target.stream.bom:
            return here, None
        return (replace(here, stream=with_key(here.stream, bom=target.stream.bom)),
                f"byte-order mark {here.stream.bom} -> {target.stream.bom}")
    if name == "aggregation":
        if here.aggregation == target.aggregation:
            return here, None
        return replace(here, aggregation=target.aggregation), f"{here.aggregation} -> {target.aggregation}"
    changed = {option: getattr(target.options, option) for option in option_names
               if getattr(here.options, option) != getattr(target.options, option)}
    if not changed:
        return here, None
    options = here.options.with_changes(**changed)
    stream = with_key(here.stream, tokenizer=options.tokenizer, split=options.token_split,
                      lowercase=options.lowercase, fold=options.case_fold)
    change = ", ".join(f"{option} {shown(getattr(here.options, option))} -> {shown(value)}"
                       for option, value in changed.items())
    return Computation(stream, options, here.aggregation), change
