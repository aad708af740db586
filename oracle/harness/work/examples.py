"""A random example with the inputs it brings along (`judge_example`, `judge_companions`), and its inputs, read from
the search cache or drawn now (`ExampleInputs`).

An example brings inputs along (`oracle.harness.generate.companions`: a text request, an input that must be
refused, a series, a token request holding bracket pairs, a request holding line ends), and the search cache
(`oracle.harness.searchcache`) keeps each one's wire line, the oracle's expectation and its coverage features across
runs. `ExampleInputs` is that state
for the example being judged, handed to the judging stages explicitly (`Item.inputs`, `judge_series`) rather than left
on the session.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from oracle.formulas.profiles import PROFILES
from oracle.models.outcomes import Expected, Outcome
from oracle.models.protocol import ScoreRequest
from oracle.models.wire import encode

from .. import relations, stateful
from ..generate import (
    REFUSED_EVERY,
    bracket_request,
    companion_rng,
    companions,
    example_id,
    line_end_request,
    text_request,
)
from ..refused import refused_request
from ..requests import not_applicable_reason
from ..searchcache import ExampleEntry, Prepared, SearchCache, discard
from ..stages import RECORD_TOKEN_LIMIT, Item, selected
from .plans import check_stateful
from .relations import check_relation
from .series import Step, judge_series, series_steps


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
        """The example's cache entry held an expectation the oracle does not give: it is forgotten, nothing it
        held is used any more (every expectation, feature and digest of its inputs is computed afresh, and the
        entry written again when the example is over), and the user is told once per run."""
        entry, cache = self.entry, self.cache
        if entry is None or cache is None or not entry.loaded:  # (no cache, or discarded already)
            return
        discard(cache, entry.index)
        for prepared in entry.inputs.values():  # (its requests are kept: the oracle judges what is sent)
            prepared.expected = prepared.features = prepared.digest = prepared.inapplicable = None
            prepared.fresh = True
        entry.loaded = False
        self.warn(f"the search cache in {cache.root} held an expectation of {self.identifier} that the oracle does "
                  "not give: the entry was discarded and the input judged by the oracle's own (said once per run; "
                  "--no-search-cache bypasses the cache)")


def judge_example(session: Any, index: int, inputs: ExampleInputs) -> None:
    """Random example `index` (if `only` selects it; its `inputs` cached or drawn now), and a relation on it if it
    passes."""
    options = PROFILES[session.profile].options
    identifier = example_id(session.settings.seed, index)
    patterns = session.settings.only
    relation_only = patterns and any(p.startswith(identifier + "~") for p in patterns)
    if not selected(identifier, patterns) and not relation_only:
        return
    prepared = inputs.prepare("example", lambda: session.example_request(index))
    request = prepared.request
    session.examples_run += 1
    session.channel.start_unit()
    record, judgement = session.assess(Item(identifier, "example", request, prepared=prepared, inputs=inputs))
    every = session.settings.relation_every
    reply = judgement.reply if judgement is not None else None
    if (
        every
        and index % every == every - 1
        and record.outcome == Outcome.PASS
        and reply is not None
        and reply.kind == "score"
        and request.token_count <= RECORD_TOKEN_LIMIT
    ):
        names = relations.applicable(
            request, reference_length=options.reference_length, statistics=session.capabilities.statistics
        )
        # a related input the capabilities rule out (a duplicated reference past max_references) is not sent
        related = {name: relations.transformed(request, name) for name in names}
        names = [
            name
            for name in names
            if all(not_applicable_reason(variant, session.capabilities) is None for variant in related[name])
        ]
        if names:
            name = names[(index // every) % len(names)]
            if selected(f"{identifier}~{name}", patterns):
                check_relation(session, identifier, request, reply, name, related[name])
    if (
        record.outcome == Outcome.PASS
        and judgement is not None
        and stateful.applies(request, session.capabilities)
        and request.token_count <= RECORD_TOKEN_LIMIT
        and selected(f"{identifier}~stateful", patterns)
    ):
        check_stateful(session, identifier, index, request, judgement.expected)
    judge_companions(session, index, inputs)

def judge_companions(session, index, inputs):
    """The inputs example `index` brings along (`generate.companions`): a text request, an input that must
    be refused, a series of short requests to the same process, a token request holding bracket pairs, a request
    whose lines hold characters a file reader ends a line at; each selected by its own id. `inputs`: the
    example's (`ExampleInputs`)."""
    options = PROFILES[session.profile].options
    identifier = example_id(session.settings.seed, index)
    draw = {"uniform_only": options.uniform_weights_only, "profile_smoothing": options.smoothing.to_json()}
    for kind in companions(index, session.capabilities):
        item_id = f"{identifier}~{kind}"
        if not selected(item_id, session.settings.only):
            continue
        rng = companion_rng(session.settings.seed, index, kind)
        if kind == "series":
            if session.settings.series_length:
                steps, prepared = inputs.prepare_series(
                    lambda rng=rng: series_steps(rng, session.capabilities, length=session.settings.series_length,
                                                 **draw))
                judge_series(session, item_id, steps, inputs, prepared)
            continue
        if kind == "text":
            prepared = inputs.prepare(kind, lambda rng=rng: text_request(rng, session.capabilities, **draw))
        elif kind == "brackets":
            prepared = inputs.prepare(kind, lambda rng=rng: bracket_request(rng, session.capabilities, **draw))
        elif kind == "line-ends":
            prepared = inputs.prepare(kind, lambda rng=rng: line_end_request(rng, session.capabilities, **draw))
        else:
            prepared = inputs.prepare(kind, lambda rng=rng: refused_request(
                rng, session.capabilities, turn=index // REFUSED_EVERY, **draw))
        session.evaluate(Item(item_id, "example", prepared.request, prepared=prepared, inputs=inputs))
