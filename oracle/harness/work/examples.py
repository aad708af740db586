"""The inputs of one random example, read from the search cache or drawn now (`ExampleInputs`).

An example brings inputs along (`oracle.harness.generate.companions`: a text request, an input that must be
refused, a series), and the search cache (`oracle.harness.searchcache`) keeps each one's wire line, the oracle's
expectation and its coverage features across runs. `ExampleInputs` is that state for the example being judged,
handed to the judging stages explicitly (`Item.inputs`, `judge_series`) rather than left on the session.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from oracle.models.outcomes import Expected
from oracle.models.protocol import ScoreRequest
from oracle.models.wire import encode

from ..searchcache import ExampleEntry, Prepared, SearchCache, discard
from ..series import Step


@dataclass
class ExampleInputs:
    """The inputs of random example `identifier`: from its search cache `entry` (None: drawn now, nothing kept) of
    `cache`, or drawn now; `expect` gives the oracle's expectation of a request, `warn` tells the user (once per
    run) that a cache entry was discarded. `computed_here`: the inputs (their `Prepared`, by id) whose expectation
    the oracle computed in this run: any other came from the cache, and is recomputed before a failure rests on it."""

    identifier: str
    expect: Callable[[ScoreRequest], Expected]
    warn: Callable[[str], None]
    entry: ExampleEntry | None = None
    cache: SearchCache | None = None
    computed_here: set[int] = field(default_factory=set)

    def prepare(self, name: str, draw: Callable[[], ScoreRequest]) -> Prepared:
        """The example's input `name` ("example", "text", "refused"): cached, or `draw()`n now."""
        entry = self.entry
        if entry is not None and name in entry.inputs:
            return entry.inputs[name]
        prepared = Prepared(draw())
        if entry is not None:
            entry.inputs[name] = prepared
        return prepared

    def prepare_series(self, draw: Callable[[], list[Step]]) -> tuple[list[Step], list[Prepared]]:
        """The example's series: (its steps, each step's Prepared), cached or `draw()`n now (a base input sent again
        shares its Prepared)."""
        entry = self.entry
        if entry is not None and entry.series is not None:
            names = [f"series/{k}" for k in range(len(entry.series))]
            if names and all(name in entry.inputs for name in names):
                prepared = [entry.inputs[name] for name in names]
                return [Step(p.request, base, changed)
                        for p, (base, changed) in zip(prepared, entry.series, strict=True)], prepared
        steps = draw()
        shared: dict[int, Prepared] = {}
        prepared = [shared.setdefault(id(step.request), Prepared(step.request)) for step in steps]
        if entry is not None:
            entry.series = [(step.base, step.changed) for step in steps]
            entry.inputs.update((f"series/{k}", p) for k, p in enumerate(prepared))
        return steps, prepared

    def expected_of(self, request: ScoreRequest, prepared: Prepared | None) -> Expected:
        """The oracle's expectation of one of the example's inputs: `prepared`'s, computed once."""
        if prepared is None:
            return self.expect(request)
        if prepared.expected is None:
            prepared.expected, prepared.fresh = self.expect(request), True
            self.computed_here.add(id(prepared))
        return prepared.expected

    def confirmed_expectation(self, request: ScoreRequest, prepared: Prepared | None, expected: Expected) -> Expected:
        """The expectation a failing verdict on one of the example's inputs rests on: `expected` when the oracle
        computed it in this run, else (it came from the search cache) the oracle's own, computed now. A checksum
        protects an entry from damage, not from an expectation that is stale or was altered: one that differs from
        the oracle's is discarded with its entry (`discard`), and the caller judges again by the one returned."""
        if prepared is None or id(prepared) in self.computed_here:
            return expected
        fresh = self.expect(request)
        self.computed_here.add(id(prepared))
        if encode(fresh.model_dump(mode="json")) == encode(expected.model_dump(mode="json")):
            return expected
        self.discard()
        prepared.expected, prepared.fresh = fresh, True
        return fresh

    def discard(self) -> None:
        """The example's cache entry held an expectation the oracle does not give: its file is removed, nothing it
        held is used any more (every expectation, feature and digest of its inputs is computed afresh, and the
        entry written again when the example is over), and the user is told once per run."""
        entry, cache = self.entry, self.cache
        if entry is None or cache is None or not entry.loaded:  # (no cache, or discarded already)
            return
        discard(cache, entry.index)
        for prepared in entry.inputs.values():  # (its requests are kept: the oracle judges what is sent)
            prepared.expected = prepared.features = prepared.digest = None
            prepared.fresh = True
        entry.loaded = False
        self.warn(f"the search cache in {cache.root} held an expectation of {self.identifier} that the oracle does "
                  "not give: the entry was discarded and the input judged by the oracle's own (said once per run; "
                  "--no-search-cache bypasses the cache)")
