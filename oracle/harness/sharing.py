"""What the requests of one unit of work (a random example with its companions) share: values read off a request's
segments alone, computed once for every request that holds the same segments (`BySegments`).

A series (`oracle.harness.work.series`) sends each of its two base inputs again and again with one part changed
(its weights, `lowercase`, its level, its smoothing): the changed request is a copy of its base (`model_copy`) that
holds the very same segments. What depends on the segments alone is then the base's: coverage's walk over their
tokens (`oracle.harness.coverage.features`). Measured on a cold `check --impl sacrebleu --no-cases --examples 1000`
(benchmarks/repeated_work.py): 2,075 of 4,083 feature walks were of segments met before in the same example, about
3% of a cold request's CPU. (Their wire lines too, 2,068 of 4,083 encodings, but a series' bases are short: the
segments' JSON text spliced into the rest of the line, encoded apart, cost what encoding the whole line costs.)
"""

from __future__ import annotations

from collections.abc import Callable, Hashable
from typing import Any, TypeVar

from oracle.formulas.memo import ALL_AT_ONCE, Memo

T = TypeVar("T")


class BySegments:
    """Values computed from a request's segments, kept per segments tuple until `clear` (a unit of work's end).

    A tuple is told by identity, not by value: comparing two corpora token by token would cost what the walk
    costs. Identity is safe here: each kept tuple is held (no other object can take its id while it is kept), and
    a request is frozen, so its segments never change. Requests equal in value but built apart (read back from the
    search cache, drawn again) are computed apart, as before. At most `limit` values are kept: past it, all are
    dropped (a unit holds two base inputs, so a few suffice)."""

    def __init__(self, limit: int = 8) -> None:
        self._kept: Memo[tuple[int, Hashable], tuple[object, Any]] = Memo(limit, ALL_AT_ONCE)

    def get(self, segments: object, what: Hashable, compute: Callable[[], T]) -> T:
        """`what` of `segments` (a name of the value, with whatever besides the segments it depends on):
        `compute()`d once per segments tuple."""
        value = self.find(segments, what)
        if value is None:
            value = compute()
            self.keep(segments, what, value)
        return value

    def find(self, segments: object, what: Hashable) -> Any:
        """`what` of `segments` as kept (`keep`), or None."""
        kept = self._kept.get((id(segments), what))
        return kept[1] if kept is not None and kept[0] is segments else None

    def keep(self, segments: object, what: Hashable, value: object) -> None:
        """Keep `value` as `what` of `segments`."""
        self._kept.keep((id(segments), what), (segments, value))

    def clear(self) -> None:
        self._kept.clear()
