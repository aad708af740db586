"""Inputs the oracle refuses: the "refused" companion of the differential search.

PROTOCOL.md lists them: three are invalid ("Inputs that are refused": a refusal is the only right
answer), two are left undefined by the documents ("Inputs the documents leave undefined": refusing is
recommended, a named convention's value is acceptable, `oracle.diagnose.expect.undefined_answers`). Each
kind here breaks exactly one part of an otherwise valid request, within what the implementation declares it
takes (a negative weight only to one that takes any weights, an empty corpus only to one that scores
corpora):

- `no-references`: a segment without references (every segment, where the implementation needs the
  same number of references in each);
- `negative-weight`: one weight below zero;
- `zero-weights`: every weight zero (undefined);
- `empty-corpus`: a corpus-level request with no segments (undefined);
- `negative-smoothing`: a smoothing parameter below zero.

What the protocol's models refuse already never travels, so it is not drawn here: a non-finite
weight (JSON has no NaN or infinity, and `weights` are numbers), no weights at all or more than
MAX_ORDER (100), a hypothesis of the wrong type. An order beyond the implementation's declared
`max_order` is outside its capabilities, which the runner never sends.

Whether a request is refused is the oracle's to say (`oracle.diagnose.expect.oracle_expected`), as
for every input: the kinds are built so that every profile refuses them, and the judge holds the
reply to what the oracle says.
"""

from __future__ import annotations

import random

from oracle.formulas.conventions import SMOOTHING_METHODS
from oracle.models.protocol import Capabilities, ScoreRequest, Segment, SmoothingSpec

#: kind -> what is invalid about it.
REFUSED_KINDS = {
    "no-references": "a segment without references",
    "negative-weight": "a weight below zero",
    "zero-weights": "every weight zero",
    "empty-corpus": "a corpus with no segments",
    "negative-smoothing": "a smoothing parameter below zero",
}

#: The smoothing methods that take a parameter.
PARAMETERISED = tuple(method for method, parameters in SMOOTHING_METHODS.items() if parameters)


def possible_kinds(capabilities: Capabilities, *, uniform_only: bool = False) -> list[str]:
    """The kinds of REFUSED_KINDS the runner may send an implementation with these capabilities."""
    kinds = ["no-references"]
    if capabilities.weights == "any" and not uniform_only:
        kinds += ["negative-weight", "zero-weights"]
    if "corpus" in capabilities.levels:
        kinds.append("empty-corpus")
    if any(m in PARAMETERISED for m in capabilities.smoothing):
        kinds.append("negative-smoothing")
    return kinds


def refused_kind(request: ScoreRequest) -> str | None:
    """Which kind of REFUSED_KINDS `request` is (read off the request), or None."""
    if not request.segments:
        return "empty-corpus"
    if any(not s.references for s in request.segments):
        return "no-references"
    if any(w < 0 for w in request.weights):
        return "negative-weight"
    if not any(request.weights):
        return "zero-weights"
    if any(float(v) < 0 for v in request.smoothing.parameters.values()):
        return "negative-smoothing"
    return None


def refused_request(rng: random.Random, capabilities: Capabilities, *, uniform_only: bool = False,
                    profile_smoothing: dict | None = None, seq: int = 0, turn: int | None = None) -> ScoreRequest:
    """A valid short request within `capabilities` with exactly one part broken: the kind of REFUSED_KINDS
    `turn` picks among those possible (in turn, so that a run sends each), or a random one."""
    from .generate import generate_request  # the valid request drawn first (generate imports this module)

    kinds = possible_kinds(capabilities, uniform_only=uniform_only)
    kind = kinds[turn % len(kinds)] if turn is not None else rng.choice(kinds)
    request = generate_request(rng, capabilities, uniform_only=uniform_only, profile_smoothing=profile_smoothing,
                               seq=seq, focus="plain")
    return _broken(rng, request, kind, capabilities)


def _broken(rng: random.Random, request: ScoreRequest, kind: str, capabilities: Capabilities) -> ScoreRequest:
    if kind == "empty-corpus":
        return request.model_copy(update={"level": "corpus", "segments": ()})
    if kind == "no-references":
        every = capabilities.same_reference_count or rng.random() < 0.3
        at = rng.randrange(len(request.segments))
        segments = tuple(
            Segment(hypothesis=s.hypothesis, references=()) if every or i == at else s
            for i, s in enumerate(request.segments)
        )
        return request.model_copy(update={"segments": segments})
    if kind == "negative-weight":
        weights = list(request.weights)
        weights[rng.randrange(len(weights))] = -rng.choice((0.25, 0.5, 1e-6, 1.0))
        return request.model_copy(update={"weights": tuple(weights)})
    if kind == "zero-weights":
        return request.model_copy(update={"weights": (0.0,) * len(request.weights)})
    return _negative_smoothing(rng, request, capabilities)


def _negative_smoothing(rng: random.Random, request: ScoreRequest, capabilities: Capabilities) -> ScoreRequest:
    method = rng.choice([m for m in PARAMETERISED if m in capabilities.smoothing])
    parameters = {name: float(default) for name, default in SMOOTHING_METHODS[method].items()}
    parameters[rng.choice(sorted(parameters))] = -rng.choice((0.1, 1.0, 1e-3))
    return request.model_copy(update={"smoothing": SmoothingSpec.of(method, **parameters)})
