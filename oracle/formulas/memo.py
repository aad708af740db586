"""Bounded memos: values kept by key, at most `limit` of them, and what is dropped past it (the eviction), said once
here for every place that keeps computed values across calls (the formulas' scorings and logarithms, a request's
weights parsed and the weights in force, options with changes, the classifier's convention candidates and what it
counted on the last request, coverage's token features, the values a unit of work's requests share, doctor's 13a
lines and release histories). A constant read once (the curated file) is no memo: `lru_cache(maxsize=1)` of a
function without arguments.
Standard library only: the formulas use it, and every layer above may.

Two evictions, each named where a memo is made:

- LEAST_RECENT: past the limit, the least recently used value is dropped (a hit makes its value the most recent);
  for values asked for again soon after, among many others (a scoring, a logarithm).
- ALL_AT_ONCE: past the limit, every kept value is dropped at once; nothing is done on a hit, the cheapest memo,
  for values drawn again and again from a small set (a run's vocabulary, a unit's few segments), where the limit
  only guards memory against an input that is not small.

`Memo` is a memo a caller fills (`get`, then `keep`); `memoized` keeps a function's values by its arguments
(LEAST_RECENT)."""

from __future__ import annotations

import functools
from collections import OrderedDict
from collections.abc import Callable, Hashable, Iterator
from typing import Any, Final, Generic, Literal, ParamSpec, TypeVar

P = ParamSpec("P")
T = TypeVar("T")
K = TypeVar("K", bound=Hashable)
V = TypeVar("V")

Eviction = Literal["least-recent", "all-at-once"]
#: Past the limit, the least recently used value is dropped; a hit makes its value the most recent.
LEAST_RECENT: Final = "least-recent"
#: Past the limit, every kept value is dropped at once; nothing is done on a hit.
ALL_AT_ONCE: Final = "all-at-once"
EVICTIONS: tuple[Eviction, ...] = (LEAST_RECENT, ALL_AT_ONCE)

_MISSING: Any = object()


def _checked(limit: int, eviction: str) -> None:
    if type(limit) is not int or limit < 1:
        raise ValueError(f"a memo's limit is a whole number of values, at least 1 (got {limit!r})")
    if eviction not in EVICTIONS:
        raise ValueError(f"a memo's eviction is one of {list(EVICTIONS)} (got {eviction!r})")


class Memo(Generic[K, V]):
    """At most `limit` values kept by key, `eviction` saying which are dropped past it.

    `get(key)` is the kept value or None (a memo keeps no None: `keep` refuses it, so None always means not kept);
    `keep(key, value)` keeps it, dropping first what the eviction drops if `limit` values are kept and `key` is not
    one of them; `clear()` drops all. On ALL_AT_ONCE, `get` is the dict's own (no call of ours on a hit)."""

    __slots__ = ("limit", "eviction", "_kept", "get")

    def __init__(self, limit: int, eviction: Eviction) -> None:
        _checked(limit, eviction)
        self.limit = limit
        self.eviction = eviction
        self._kept: dict[K, V] = OrderedDict() if eviction == LEAST_RECENT else {}
        self.get: Callable[[K], V | None] = self._most_recent if eviction == LEAST_RECENT else self._kept.get

    def _most_recent(self, key: K) -> V | None:
        value = self._kept.get(key, _MISSING)
        if value is _MISSING:
            return None
        self._kept.move_to_end(key)  # type: ignore[attr-defined]  # (an OrderedDict on LEAST_RECENT)
        return value

    def keep(self, key: K, value: V) -> V:
        """Keep `value` under `key` (past the limit, what the eviction drops dropped first); returns `value`."""
        if value is None:
            raise ValueError("a memo keeps no None (its `get` says None where nothing is kept)")
        kept = self._kept
        if len(kept) >= self.limit and key not in kept:
            if self.eviction == LEAST_RECENT:
                kept.popitem(last=False)  # type: ignore[call-arg]  # (an OrderedDict: the least recent first)
            else:
                kept.clear()
        kept[key] = value
        return value

    def clear(self) -> None:
        self._kept.clear()

    def __len__(self) -> int:
        return len(self._kept)

    def __contains__(self, key: object) -> bool:
        return key in self._kept

    def __iter__(self) -> Iterator[K]:
        """The keys kept, least recent first on LEAST_RECENT (as kept, on ALL_AT_ONCE)."""
        return iter(self._kept)

    def __repr__(self) -> str:
        return f"Memo({len(self._kept)} of {self.limit} kept, {self.eviction})"


def memoized(limit: int) -> Callable[[Callable[P, T]], Callable[P, T]]:
    """A function's values kept by its (hashable) arguments, at most `limit` of them, the least recently used
    dropped past it (LEAST_RECENT): `functools.lru_cache(maxsize=limit)`, the same policy in C, with its
    `cache_clear` and `cache_info` (a refusal is raised every time: never kept)."""
    _checked(limit, LEAST_RECENT)
    return functools.lru_cache(maxsize=limit)  # type: ignore[return-value]
