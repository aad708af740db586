"""Shards: one run's work split across N machines, so that together they do exactly the work of one.

`--shard K/N` (`check`, `fuzz`) gives machine K of N its share of the run; `bleu-oracle merge` puts the
shards' streams back together (`oracle.harness.merge`). The partition is fixed by two numbers, the same on
every machine, and by nothing that depends on the machine or on timing:

- a **case** goes by its position among the cases the run selects (the order `check` runs them: the case
  files in order, then `--add-cases`, counting only the cases `--id` selects): position p to shard
  p mod N + 1. Positions deal the cases round-robin, so shard sizes differ by at most one, and the
  unsharded order is read back by taking one case from each shard in turn;
- a **random example** goes by its block of SHRINK_BLOCK consecutive indices: example I (id random-S-I)
  to shard (I div SHRINK_BLOCK) mod N + 1, and its metamorphic relation goes with it. Whole blocks, because
  which failing examples are shrunk depends on the failures before them in their block
  (`budget.shrink_allowed`): a shard holding whole blocks shrinks what one process shrinks. `--jobs J`
  splits a shard's examples further among J processes (`worker_of`: each J consecutive indices from a
  multiple of J one to each worker, in a turned order), which ask the parent whether to shrink
  (`oracle.harness.worker`), so the partition does not depend on `--jobs`.

`Shard.owns(position)` and `Shard.select(items)` are the whole rule, for any list another verb shards
(`history`: its versions, say).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import TypeVar

from oracle.formulas.errors import BleuValueError

from .budget import SHRINK_BLOCK

#: The most shards a run may be split into: more is a typo, not a cluster.
MAX_SHARDS = 10_000
_SPEC = re.compile(r"([0-9]{1,5})/([0-9]{1,5})")

T = TypeVar("T")


@dataclass(frozen=True)
class Shard:
    """Shard `number` (1-based) of `count`."""

    number: int = 1
    count: int = 1

    def __post_init__(self) -> None:
        if not 1 <= self.count <= MAX_SHARDS or not 1 <= self.number <= self.count:
            raise BleuValueError(f"a shard is K/N with 1 <= K <= N <= {MAX_SHARDS} (got {self.number}/{self.count})")

    def __str__(self) -> str:
        return f"{self.number}/{self.count}"

    @property
    def whole(self) -> bool:
        """True for 1/1: the whole run on one machine."""
        return self.count == 1

    @property
    def share(self) -> tuple[int, int]:
        """(remainder, modulus): this shard owns the positions p with p % modulus == remainder."""
        return self.number - 1, self.count

    def owns(self, position: int) -> bool:
        """Whether the item at `position` (0-based: a case's place among the selected cases, an example's
        index) is this shard's."""
        return position % self.count == self.number - 1

    def owns_example(self, index: int) -> bool:
        """Whether random example `index` is this shard's: its block of SHRINK_BLOCK indices is."""
        return (index // SHRINK_BLOCK) % self.count == self.number - 1

    def examples_owned(self, examples: int) -> int:
        """How many of random examples 0 .. `examples` - 1 are this shard's (counted, not walked: a count of
        10**9 is as quick as 10)."""
        blocks, rest = divmod(examples, SHRINK_BLOCK)
        mine = self.number - 1
        whole = max(0, (blocks - mine + self.count - 1) // self.count)  # full blocks j < blocks with j % count == mine
        return whole * SHRINK_BLOCK + (rest if blocks % self.count == mine else 0)

    def select(self, items: Iterable[T]) -> Iterator[T]:
        """This shard's items of `items`, in their order."""
        return (item for position, item in enumerate(items) if self.owns(position))


#: 2**64 / the golden ratio, odd: `worker_of`'s turns (Fibonacci hashing).
_GOLDEN = 0x9E3779B97F4A7C15
_WORD = (1 << 64) - 1


def worker_of(index: int, workers: int) -> int:
    """The `--jobs` worker (0-based, of `workers`) that draws random example `index`. The indices are dealt in
    runs of `workers` from a multiple of it, one to each worker, so the workers go through the examples side by
    side (a worker waits on the parent's answers about earlier examples); each run's order is turned by run
    number r: worker (index + floor(frac(r * 0.618...) * workers)) mod workers, a low-discrepancy sequence. Not
    index mod workers: what an example costs repeats with its index (its companions: a text request on odd
    indices, a 36-request series on I mod 10 = 5, an input to refuse on I mod 12 = 11; the largest inputs twice
    in 120), and `check --impl sacrebleu --no-cases --examples 1000 --jobs 2` gave worker 1 every companion, 4,918
    requests to worker 0's 666, while worker 0 waited (issue 39). Turned, each residue class of the index is
    spread evenly among the workers, and no period of the search needs to be known here."""
    if workers == 1:
        return 0
    turn = (((index // workers) * _GOLDEN) & _WORD) * workers >> 64
    return (index + turn) % workers


@dataclass(frozen=True)
class ExampleShare:
    """The random examples one process draws: those of shard `shard` of `shards` (0-based; whole blocks) that
    `worker_of` deals to `worker` of `workers` (a `--jobs` worker's share of its shard)."""

    shard: int = 0
    shards: int = 1
    worker: int = 0
    workers: int = 1

    def owns(self, index: int) -> bool:
        return (index // SHRINK_BLOCK) % self.shards == self.shard and worker_of(index, self.workers) == self.worker

    def next_owned(self, index: int) -> int:
        """The smallest example index at or after `index` that this share owns."""
        while not self.owns(index):
            index += 1
        return index


def parse_shard(text: str) -> Shard:
    """`K/N` as `--shard` takes it; raises BleuValueError saying what a shard is."""
    match = _SPEC.fullmatch(text.strip())
    if match is None:
        raise BleuValueError(f"`--shard` must be K/N, e.g. 2/3 (shard 2 of 3) (got {text[:40]!r})")
    try:
        return Shard(int(match.group(1)), int(match.group(2)))
    except BleuValueError as exc:
        raise BleuValueError(f"`--shard`: {exc}") from None
