"""A score request (protocol v1's `score` command) and an implementation's answer to it."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class Segment:
    hypothesis: tuple  # of str tokens
    references: tuple  # of tuples of str tokens


@dataclass(frozen=True)
class ScoreRequest:
    """A protocol-v1 `score` command. The maximum order is len(weights)."""

    seq: int
    level: str  # "corpus" | "sentence" (sentence: exactly one segment)
    segments: tuple  # of Segment
    weights: tuple  # of float
    smoothing: dict = field(default_factory=lambda: {"method": "none"})  # {"method": name, params...}
    lowercase: bool = False

    @property
    def max_order(self):
        return len(self.weights)


@dataclass(frozen=True)
class ScoreAnswer:
    """What an adapter returns: score on the 0-1 scale (float, NaN allowed) and optional statistics
    {"hyp_len", "ref_len", "matches", "totals", "bp"}."""

    score: float
    statistics: dict | None = None
