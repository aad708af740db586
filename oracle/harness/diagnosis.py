"""The diagnosis stage's policy: which failing examples are shrunk, and what a failure not shrunk is tried against.

Shrinking a failing example and searching its root cause cost tens of requests and up to seconds each, so a run
shrinks only the first `--shrink-first` failures of each kind (`failure_kind`) in each block of SHRINK_BLOCK
examples (`shrink_allowed`); a later failure of that kind is classified among the root causes its shrunk ones were
given (`shrink_hints`). The decision depends on the examples alone (their order within the block), never on the
clock or on how the run is split into `--jobs` workers or shards: `ShrinkAllowance` keeps the tally for one process,
and a worker's allowance asks its parent (`oracle.harness.worker.SharedBudget`, `BudgetKeeper`). The restart budget
of the process (`oracle.harness.transport.RestartBudget`) is charged by example the same way, and extends it.
"""

from __future__ import annotations

from oracle.diagnose.repeat import NONDETERMINISTIC

#: Examples are grouped in blocks of this many consecutive indices for the shrink allowance: which
#: examples are shrunk depends only on the failures within an example's own block, so a run split
#: into workers (`--jobs`) or into whole blocks shrinks exactly what one process shrinks.
SHRINK_BLOCK = 50
#: Failing examples shrunk per kind of failure (outcome, layer, order) in each block, by default.
DEFAULT_SHRINK_FIRST = 1


def failure_kind(record_kind: str, outcome: str, layer: str | None, order: int | None) -> tuple:
    """The kind of failure the shrink allowance counts: a random example's (outcome, layer, order); a series
    step's or a stateful plan's with its record kind first, so they are counted apart."""
    return (outcome, layer, order) if record_kind == "example" else (record_kind, outcome, layer, order)


def _same_kind_before(index: int, kind: tuple, earlier: dict[int, list[tuple]]) -> list[int]:
    block = index // SHRINK_BLOCK
    return sorted(other for other, kinds in earlier.items()
                  if other < index and other // SHRINK_BLOCK == block for k in kinds if k == kind)


#: The kind a record answered two ways is charged as (`nondeterministic_before`): not a failure to shrink.
NONDETERMINISTIC_KIND = (NONDETERMINISTIC,)


def nondeterministic_before(index: int, earlier: dict[int, list[tuple]]) -> bool:
    """Whether an example before `index` in its block had a record answered two ways (NONDETERMINISTIC_KIND among
    its kinds in `earlier`): in example order and within the block, as the shrink allowance is, so that workers and
    shards decide alike."""
    block = index // SHRINK_BLOCK
    return any(other < index and other // SHRINK_BLOCK == block and NONDETERMINISTIC_KIND in kinds
               for other, kinds in earlier.items())


def shrink_allowed(index: int, kind: tuple, earlier: dict[int, list[tuple]], first: int) -> bool:
    """May a failure of example `index` (or of an input it brings along) of `kind` be shrunk? Yes for the first
    `first` examples failing in that kind within its block (`earlier`: example index -> the kinds of its
    failures judged so far), unless an earlier example of the block was answered two ways (`nondeterministic_before`:
    no shrinking can be trusted on that implementation). Shrinking costs tens of requests per example; the later
    failures of a kind are classified as they are, the root causes of the shrunk ones tried first (`shrink_hints`)."""
    return not nondeterministic_before(index, earlier) and len(_same_kind_before(index, kind, earlier)) < first


def shrink_hints(index: int, kind: tuple, earlier: dict[int, list[tuple]],
                 causes: dict[tuple[int, tuple], tuple[str, ...]]) -> tuple[str, ...]:
    """The root causes named for the failures of `kind` shrunk before `index` in its block, with every
    explanation that fitted them as well (`causes`: (index, kind) -> names), in example order, each once: what a
    failure not shrunk is tested against first. NONDETERMINISTIC first when an earlier example of the block was
    answered two ways (`nondeterministic_before`): the failure is then classified cheaply, not searched for."""
    names = [name for other in _same_kind_before(index, kind, earlier) for name in causes.get((other, kind), ())]
    seen = [NONDETERMINISTIC] if nondeterministic_before(index, earlier) else []
    return tuple(dict.fromkeys(seen + names))


class ShrinkAllowance:
    """The shrink allowance of one process, charged by example: the failures judged so far and the root causes
    named for the shrunk ones, from which `may_shrink` decides (`shrink_allowed`, `shrink_hints`)."""

    def __init__(self, shrink_first: int = DEFAULT_SHRINK_FIRST) -> None:
        self.shrink_first = int(shrink_first)
        #: the example being judged (-1: none, a case)
        self.example = -1
        #: failures judged so far in this process, example index -> their kinds (`failure_kind`)
        self.failures: dict[int, list[tuple]] = {}
        #: the kind of the failure last asked about
        self.deciding: tuple = ()
        #: the root causes named for the shrunk failures (the name, then the others that fit), (index, kind) -> names
        self.causes: dict[tuple[int, tuple], tuple[str, ...]] = {}

    def may_shrink(self, kind: tuple) -> tuple[bool, tuple[str, ...]]:
        """The example being judged failed in `kind`: may it be shrunk (`shrink_allowed`), and if not, which
        root causes of its kind's shrunk examples to test first (`shrink_hints`)?"""
        allowed = shrink_allowed(self.example, kind, self.failures, self.shrink_first)
        hints = () if allowed else shrink_hints(self.example, kind, self.failures, self.causes)
        self.failures.setdefault(self.example, []).append(kind)
        self.deciding = kind
        return allowed, hints

    def classified(self, names: tuple[str, ...]) -> None:
        """The failure just shrunk was given these root causes (the name, then every other that fits): hints for
        its kind's later failures."""
        self.causes[(self.example, self.deciding)] = names

    def example_started(self, index: int) -> None:
        """Example `index` of the search is being judged (its requests, shrinking and relation)."""
        self.example = index
