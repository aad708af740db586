"""Protocol v1: the messages between the runner and an implementation, as pydantic models.

An implementation is a process: the runner writes one JSON object per line to
its stdin and reads one JSON object per line from its stdout, in order
(PROTOCOL.md is the prose specification). Each message is one frozen model
here, validated strictly (unknown fields rejected, types checked) by pydantic;
`from_json(obj)` turns a validation failure into a `ProtocolError` naming the
offending field in the protocol's words, and `to_json()` gives the wire form.

The models are the single source of truth: the JSON Schemas committed under
`oracle/models/schemas/protocol-v1/` are generated from them by
`json_schemas()`. Regenerate them with `bleu-oracle protocol schema --write`
(or `python -m oracle.models.protocol`); a test checks the committed files are current.

A score request has exactly one class, `ScoreRequest`: the runner builds it,
the wire carries it, adapters receive it, results record it. Its smoothing is
one model per method (`SMOOTHING_SPECS`), a union keyed on `method` whose
parameters come from the one table of methods, `conventions.SMOOTHING_METHODS`.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from functools import cache, cached_property
from itertools import chain
from operator import attrgetter
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, ClassVar, Literal, Self, Union

from pydantic import (
    AfterValidator,
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    PlainSerializer,
    StrictBool,
    StrictInt,
    StrictStr,
    ValidationError,
    WithJsonSchema,
    create_model,
    field_validator,
    model_validator,
)
from pydantic_core import core_schema

from oracle.escaping import escape_character, printable
from oracle.formulas.bleu import LEVELS
from oracle.formulas.bounds import MAX_COUNT, MAX_ORDER, MAX_REFERENCES
from oracle.formulas.conventions import REQUEST_CONVENTIONS, SMOOTHING_METHODS, Smoothing
from oracle.formulas.tokenizers import TOKENIZERS, tokenize

# ProtocolError and the line codec live in `wire`; importers reach them here too.
from .errors import Dialect, explain, field_path, problem, sentence
from .wire import MAX_NESTING, ProtocolError, decode, encode, show  # noqa: F401

PROTOCOL_VERSION = 1
WEIGHT_CAPABILITIES = ("any", "uniform")
COMMANDS = ("start", "score", "stop")
#: The outcomes a score reply can carry; exactly one per reply.
OUTCOMES = ("score", "rejected", "unsupported", "error")


def is_uniform(weights):
    """Equal weights 1/N each (protocol v1's "uniform"), up to float rounding of 1/N. Here, beside the capability it
    decides, and re-exported by `oracle.adapters.base`: the runner's applicability check (`oracle.harness.requests`)
    asks it without importing the adapters' base and its table of library drivers, which a `check` process and each
    of its `--jobs` workers would otherwise import for this one function."""
    try:
        n = len(weights)
        return all(
            isinstance(w, (int, float)) and not isinstance(w, bool) and abs(w - 1.0 / n) <= 1e-15 for w in weights
        )
    except TypeError:
        return False


SCHEMA_DIALECT = "https://json-schema.org/draft/2020-12/schema"
SCHEMA_DIR = Path(__file__).resolve().parent / "schemas" / f"protocol-v{PROTOCOL_VERSION}"


# -- Field types: each carries its check and its JSON Schema -------------------------


def _finite(value, *, nan):
    """A JSON number as a float; "NaN" too when `nan`. Refuses booleans, strings, infinities."""
    expected = 'a number or "NaN"' if nan else "a number"
    if nan and (value == "NaN" or (isinstance(value, float) and math.isnan(value))):
        return math.nan
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise problem(f"must be {expected} (got {_shown(value)})")
    try:
        number = float(value)
    except OverflowError:  # an integer beyond the float range
        number = math.inf
    if not math.isfinite(number):
        finite = 'a finite number or "NaN"' if nan else "a finite number"
        raise problem(f"must be {finite} (got {_shown(value)})")
    return value if isinstance(value, int) else number


def _finite_number(value):
    """`_finite` without NaN; a finite float (most numbers on the wire) returned at once."""
    if type(value) is float and math.isfinite(value):
        return value
    return _finite(value, nan=False)


def _finite_or_nan(value):
    """`_finite` with "NaN"; a finite float (most numbers on the wire) returned at once."""
    if type(value) is float and math.isfinite(value):
        return value
    return _finite(value, nan=True)


def _nan_to_string(value):
    return "NaN" if isinstance(value, float) and math.isnan(value) else value


#: A finite JSON number (an int stays an int).
Number = Annotated[int | float, BeforeValidator(_finite_number), WithJsonSchema({"type": "number"})]
#: A finite JSON number or the string "NaN" (read as float NaN, written back as "NaN").
NumberOrNaN = Annotated[
    float,
    BeforeValidator(_finite_or_nan),
    PlainSerializer(_nan_to_string),
    WithJsonSchema({"oneOf": [{"type": "number"}, {"const": "NaN"}]}),
]
#: A length, matches or totals: 0 to MAX_COUNT (`oracle.formulas.bounds`).
Count = Annotated[StrictInt, Field(ge=0, le=MAX_COUNT)]
#: A seq: any integer the runner chooses (it counts from 1), within what every JSON reader holds exactly.
Seq = Annotated[StrictInt, Field(ge=-MAX_COUNT, le=MAX_COUNT)]


def _unique(items):
    if isinstance(items, (list, tuple)):
        if len(items) > MAX_ORDER:  # before the items are compared: no list of distinct choices is this long
            raise problem(f"must hold at most {MAX_ORDER} distinct items (got {len(items)})")
        if len(set(map(show, items))) != len(items):
            raise problem(f"must not repeat an item (got {show(items)})")
    return items


def _described(text):
    return Field(description=text)


#: Validation context of a message read from the wire: nothing is filled in (Python callers may
#: leave smoothing parameters out, or give a method name; the wire carries every one).
WIRE = {"wire": True}


class Message(BaseModel):
    """Base of every protocol model: frozen, unknown fields refused, `from_json`/`to_json`."""

    model_config = ConfigDict(extra="forbid", frozen=True, defer_build=True)  # `oracle.models`: built on first use

    #: the `cmd` of a command model, None for the others
    CMD: ClassVar[str | None] = None
    #: fields with a default for Python callers that the wire must carry all the same
    WIRE_REQUIRED: ClassVar[tuple] = ()

    @classmethod
    def from_json(cls, obj: object) -> Self:
        """Validate a decoded JSON object strictly and build the model; ProtocolError names the field."""
        if cls.CMD is not None and isinstance(obj, dict):
            if "cmd" not in obj:
                raise ProtocolError(f"`cmd` is required in a {cls.CMD!r} command")
            if obj["cmd"] != cls.CMD:
                raise ProtocolError(f"`cmd` must be {show(cls.CMD)} (got {show(obj['cmd'])})")
        if isinstance(obj, dict):
            fields, required = _wire_fields(cls)
            if obj.keys() <= fields:  # unknown fields are named first
                for name in required:
                    if name not in obj:
                        where = f"a {cls.CMD!r} command" if cls.CMD else f"a {cls.__name__}"
                        raise ProtocolError(f"`{name}` is required in {where}")
        try:
            return cls.model_validate(obj, context=WIRE)
        except ValidationError as exc:
            raise ProtocolError(_explain(exc, cls)) from None

    def to_json(self):
        """The wire form: a plain JSON-ready dict (optional fields left out when unset)."""
        return self.model_dump(mode="json", exclude_none=True)

    @classmethod
    def json_schema(cls):
        return cls.model_json_schema()


@cache
def _wire_fields(model: type[Message]) -> tuple[frozenset[str], tuple[str, ...]]:
    """A message's fields, and those the wire must carry in their order (required, or in WIRE_REQUIRED): read
    once per class, not on every line."""
    required = tuple(name for name, field in model.model_fields.items()
                     if field.is_required() or name in model.WIRE_REQUIRED)
    return frozenset(model.model_fields), required


# -- The messages ---------------------------------------------------------------


class StartCommand(Message):
    """`{"cmd": "start", "protocol": 1}`: the first line; answered by a Handshake (or an error
    reply when the implementation does not speak that protocol version)."""

    CMD: ClassVar[str] = "start"
    cmd: Literal["start"] = "start"
    protocol: StrictInt = Field(ge=1, le=MAX_COUNT, description="The protocol version the runner speaks (1).")


#: The longest name, version or language a handshake may give (characters): every report prints them.
MAX_HANDSHAKE_TEXT = 200


def _printable_text(value: str) -> str:
    """A handshake's name, version or language is printed by every report: printable text (no control, format
    or separator character, U+0020 the only space) of at most MAX_HANDSHAKE_TEXT characters."""
    if len(value) > MAX_HANDSHAKE_TEXT:
        raise problem(f"must be at most {MAX_HANDSHAKE_TEXT} characters (got {len(value)})")
    if not printable(value):
        where = next(i for i, ch in enumerate(value) if not printable(ch))
        raise problem(f"must be printable text: character {where + 1} is {escape_character(value[where])}, which "
                      f"is not printable (got {show(value)})")
    return value


#: Free text of a handshake, as every report prints it (`_printable_text`).
HandshakeText = Annotated[StrictStr, AfterValidator(_printable_text)]


def _handshake_text(description: str, **constraints) -> Any:
    """A handshake text's field: its description, and its bounds in the schema as the validator holds them."""
    return Field(description=f"{description} Printable (no control, format or separator character), at most "
                 f"{MAX_HANDSHAKE_TEXT} characters.", json_schema_extra={"maxLength": MAX_HANDSHAKE_TEXT},
                 **constraints)


class ImplementationInfo(Message):
    """Who is answering: name, version and language of the implementation."""

    name: HandshakeText = _handshake_text("The implementation's name.", min_length=1)
    version: HandshakeText = _handshake_text("Its version (free text).")
    language: HandshakeText = _handshake_text("The language it is written in (free text).")


#: What each request convention decides, for the models' descriptions (the rules are `REQUEST_CONVENTIONS`').
_CONVENTION_MEANINGS = {
    "empty_order": "how an order with no hypothesis n-grams counts, for this request's level and smoothing "
    "(skip: sacrebleu's effective order)",
    "reference_length": "which reference length r counts",
    "no_match": "what a hypothesis none of whose n-grams matches scores",
    "case_fold": "how `lowercase` folds case",
}


def _rules(name: str) -> str:
    return ", ".join(f"{rule}: {meaning}" for rule, meaning in REQUEST_CONVENTIONS[name].items())


class _ConventionsMessage(Message):
    """Base of the two models keyed by the request conventions: one optional field per convention."""

    def chosen(self) -> dict[str, str]:
        """name -> rule of the conventions set here."""
        return {name: rule for name in REQUEST_CONVENTIONS if (rule := getattr(self, name)) is not None}

    def rules(self, name: str) -> tuple[str, ...]:
        """The rules listed for convention `name` (none when it is not listed)."""
        return getattr(self, name) or ()


def _conventions_model(title: str, doc: str, field_of) -> type[_ConventionsMessage]:
    """A model with one optional field per request convention (`REQUEST_CONVENTIONS`), `field_of(name)`:
    a new convention there is a new field of both the request's and the capabilities' object."""
    model = create_model(title, __base__=_ConventionsMessage, **{name: field_of(name) for name in REQUEST_CONVENTIONS})
    model.__doc__ = doc
    return model


def _requested_rule(name: str):
    rules = REQUEST_CONVENTIONS[name]
    return (
        Literal[tuple(rules)] | None,
        Field(None, description=f"Optional: {_CONVENTION_MEANINGS[name]}. {_rules(name)}."),
    )


def _switchable_rules(name: str):
    """Distinct rules of that convention, at least one."""
    rules = Annotated[
        tuple[Literal[tuple(REQUEST_CONVENTIONS[name])], ...], Field(min_length=1), BeforeValidator(_unique)
    ]
    return (
        rules | None,
        Field(
            None,
            json_schema_extra={"uniqueItems": True},
            description=f"Optional: the rules of {_CONVENTION_MEANINGS[name]} it can be switched to.",
        ),
    )


#: A request's `conventions`: name -> rule, where they differ from the judged profile's.
RequestConventions = _conventions_model(
    "RequestConventions",
    "The conventions a score request asks for, where they differ from the judged profile's: name -> rule.\n"
    "A convention left out is the implementation's own profile behaviour; one it carries is sent only to an\n"
    "implementation whose `capabilities.conventions` lists that rule.",
    _requested_rule,
)
#: `capabilities.conventions`: name -> the rules an implementation can be switched to.
ConventionSwitches = _conventions_model(
    "ConventionSwitches",
    "The conventions an implementation can be switched to by a request, and to which rules each.",
    _switchable_rules,
)


class Capabilities(Message):
    """What the implementation can compute; the runner sends nothing outside it (those cases are not applicable)."""

    levels: Annotated[tuple[Literal[LEVELS], ...], BeforeValidator(_unique)] = Field(
        min_length=1, description="Levels it scores.", json_schema_extra={"uniqueItems": True}
    )
    weights: Literal[WEIGHT_CAPABILITIES] = _described('"any": arbitrary weights; "uniform": only equal weights 1/N.')
    max_order: StrictInt = Field(
        ge=1, le=MAX_ORDER, description="The largest maximum n-gram order (len(weights)) it accepts."
    )
    smoothing: Annotated[tuple[Literal[tuple(SMOOTHING_METHODS)], ...], BeforeValidator(_unique)] = Field(
        min_length=1, description="Smoothing methods it implements.", json_schema_extra={"uniqueItems": True}
    )
    statistics: StrictBool = _described("Whether score replies carry statistics.")
    lowercase: StrictBool = _described("Whether it can fold case (lowercase: true).")
    # Optional limits (an implementation that leaves them out is as protocol v1 first defined it):
    # the lengths go on the array itself, not on the optional field (the schema's keywords are then an array's)
    orders: (
        Annotated[
            tuple[Annotated[StrictInt, Field(ge=1, le=MAX_ORDER)], ...],
            Field(min_length=1, max_length=MAX_ORDER),
            BeforeValidator(_unique),
        ]
        | None
    ) = Field(
        None,
        json_schema_extra={"uniqueItems": True},
        description="Optional: the maximum orders N (len(weights)) it accepts, when not every N from 1 to "
        "max_order: [4] for BLEU-4 only.",
    )
    same_reference_count: StrictBool | None = Field(
        None, description="Optional: true when every segment of a request must have the same number of references."
    )
    forbidden_token_characters: StrictStr | None = Field(
        None,
        description='Optional: characters no token may contain (e.g. " \\t\\n" for an implementation '
        "that writes tokens joined by spaces, one segment a line).",
    )
    empty_tokens: StrictBool | None = Field(None, description="Optional: false when it cannot take the empty token.")
    forbidden_text_sequences: (
        Annotated[
            tuple[Annotated[StrictStr, Field(min_length=1)], ...], Field(min_length=1), BeforeValidator(_unique)
        ]
        | None
    ) = Field(
        None,
        json_schema_extra={"uniqueItems": True},
        description='Optional: sequences no raw text of a text request may contain (["\\n"] for an '
        "implementation reading one segment a line): what its input format cannot carry; a text request "
        "holding one is not applicable.",
    )
    max_references: StrictInt | None = Field(
        None,
        ge=1,
        le=MAX_REFERENCES,
        description="Optional: the most references a segment may have (1 for a library that scores one sentence "
        "against one reference).",
    )
    tokenizers: (
        Annotated[tuple[Literal[tuple(TOKENIZERS)], ...], Field(min_length=1), BeforeValidator(_unique)] | None
    ) = Field(
        None,
        json_schema_extra={"uniqueItems": True},
        description="Optional: the tokenizers it applies to raw text (none, 13a, intl, char); the runner then "
        "also sends text requests (`tokenize` set, every hypothesis and reference a string).",
    )
    conventions: ConventionSwitches | None = Field(
        None,
        description="Optional: the conventions a request may switch, each with the rules it can be switched "
        'to ({"empty_order": ["zero", "skip"]}); a case needing another rule is not '
        "applicable.",
    )
    stateful: (
        Annotated[tuple[Literal[STATEFUL_ABILITIES], ...], Field(min_length=1), BeforeValidator(_unique)] | None
    ) = Field(
        None,
        json_schema_extra={"uniqueItems": True},
        description="Optional: what its metric state does, among accumulate (update over batches, then "
        "compute), merge (states of shards merged) and reset (a used state reset and reused); the runner then "
        "also sends corpus requests carrying a `stateful` plan that uses only these.",
    )

    def switches(self, name: str) -> tuple[str, ...]:
        """The rules of convention `name` a request may ask this implementation for."""
        return self.conventions.rules(name) if self.conventions is not None else ()

    def cannot_switch(self, conventions: RequestConventions | None) -> str | None:
        """Why a request carrying `conventions` cannot be sent to this implementation, or None."""
        chosen: dict[str, str] = conventions.chosen() if conventions is not None else {}
        for name, rule in chosen.items():
            if rule not in self.switches(name):
                return f"needs {name}={rule}, which the implementation cannot switch"
        return None


class Handshake(Message):
    """The answer to start: protocol version, who is answering, the profile it claims to follow,
    and its capabilities."""

    WIRE_REQUIRED: ClassVar[tuple] = ("protocol",)
    protocol: Literal[PROTOCOL_VERSION] = Field(PROTOCOL_VERSION, description="The protocol version it speaks: 1.")
    implementation: ImplementationInfo
    profile: StrictStr = Field(
        min_length=1,
        description="The name of the bleu-oracle profile whose conventions it follows (`bleu-oracle profiles`).",
    )
    capabilities: Capabilities

    def to_json(self):
        # `protocol` always travels, though it has a default; unset optional capabilities do not
        return self.model_dump(mode="json", exclude_none=True)


def _smoothing_spec(method, parameters):
    """The model of one smoothing method: its `method` tag and every parameter it takes, all required
    on the wire (the runner always sends them); their validity is for the implementation to judge."""
    fields = {"method": (Literal[method], ...)}
    fields.update(
        {name: (Number, Field(description=f"default {float(default):g}")) for name, default in parameters.items()}
    )
    title = "Smoothing" + "".join(part.title() for part in method.replace("-", " ").split())
    model = create_model(title, __base__=SmoothingSpec, **fields)
    model.__doc__ = f"Smoothing {method!r}" + (f" with {', '.join(parameters)}." if parameters else ", no parameters.")
    return model


class SmoothingSpec(Message):
    """A smoothing method and its parameters as a request carries them."""

    if TYPE_CHECKING:  # each method's model (`_smoothing_spec`) declares it as its Literal discriminator
        method: str

    @property
    def parameters(self):
        """name -> value of this method's parameters."""
        return {name: getattr(self, name) for name in type(self).model_fields if name != "method"}

    def to_convention(self):
        """The oracle's validated `Smoothing` (raises a BleuOracleError for a value the oracle refuses)."""
        return Smoothing(method=self.method, **self.parameters)

    @classmethod
    def of(cls, method="none", **parameters):
        """The spec of `method`, parameters left out taking their documented defaults."""
        return parse_smoothing({"method": method, **parameters}, fill_defaults=True)


#: method -> its model, in the order of conventions.SMOOTHING_METHODS
SMOOTHING_SPECS = {method: _smoothing_spec(method, parameters) for method, parameters in SMOOTHING_METHODS.items()}
if TYPE_CHECKING:  # one model per method, built from the table: to the type checker, each is a SmoothingSpec
    SmoothingUnion = SmoothingSpec
else:
    SmoothingUnion = Annotated[
        Union[tuple(SMOOTHING_SPECS.values())],  # noqa: UP007 - a Union over a computed tuple has no `|` spelling
        Field(
            discriminator="method",
            description="The smoothing method and every parameter it takes (the runner always sends them all); "
            "parameters are finite numbers, their validity is for the implementation to judge.",
        ),
    ]


def parse_smoothing(spec, *, fill_defaults=False):
    """A SmoothingSpec from a spec model, a method name or a mapping; with `fill_defaults`, parameters
    left out take their documented defaults (the wire itself requires every one). ProtocolError otherwise."""
    if isinstance(spec, SmoothingSpec):
        return spec
    if isinstance(spec, Smoothing):
        spec = spec.to_json()
    if isinstance(spec, str):
        spec = {"method": spec}
    if not isinstance(spec, dict):
        raise ProtocolError(f'`smoothing` must be an object {{"method": ..., <parameters>}} (got {show(spec)})')
    spec = dict(spec)
    method = spec.get("method")
    if fill_defaults and method in SMOOTHING_METHODS:
        for name, default in SMOOTHING_METHODS[method].items():
            spec.setdefault(name, float(default))
    return _SmoothingHolder.from_json({"smoothing": spec}).smoothing


class _SmoothingHolder(Message):
    smoothing: SmoothingUnion


class _WrittenByType:
    """An annotation that keeps a field's validation and writes its value by its Python type (pydantic-core's
    `any` serializer: a tuple as an array, a str as a string), the same JSON and the same Python values.
    Without it, pydantic writes a union of token list and text by testing the value against each member
    first, every token checked: a third of writing a segment, which every request sent, cached and recorded
    is made of."""

    def __get_pydantic_core_schema__(self, source: Any, handler: Any) -> Any:
        schema = handler(source)
        schema["serialization"] = core_schema.simple_ser_schema("any")
        return schema


#: A hypothesis or reference: a token list, or (in a text request) a string of raw text. The union is tried left
#: to right: its members take disjoint inputs (an array, a string), so the first that succeeds is the only one that
#: can, and a value that fails both gets both members' errors in the same order; pydantic's default ("smart") mode
#: goes on trying the string member after the token list succeeded, about a third of validating a segment, which
#: every request read from the search cache or by `serve` is made of.
TokensOrText = Annotated[tuple[StrictStr, ...] | StrictStr, Field(union_mode="left_to_right"), _WrittenByType()]


class Segment(Message):
    """One hypothesis and its references: token lists, or (in a text request) strings of raw text."""

    hypothesis: TokensOrText = _described(
        "Tokens (strings), already split: the implementation does no tokenisation. In a text request "
        "(`tokenize` set): one string of raw text, which the implementation tokenizes."
    )
    references: tuple[TokensOrText, ...] = Field(
        max_length=MAX_REFERENCES,
        description="The references of this segment, token lists (strings of raw text in a text request); an "
        "empty list is for the implementation to reject.",
    )

    @property
    def is_text(self):
        return isinstance(self.hypothesis, str)


#: What a stateful implementation's metric state can do (`capabilities.stateful`), in the order a plan uses them.
STATEFUL_ABILITIES = ("accumulate", "merge", "reset")
#: A batch: how many consecutive segments one `update` takes (at least one).
BatchSize = Annotated[StrictInt, Field(ge=1, le=MAX_COUNT)]


class StatefulPlan(Message):
    """How a stateful implementation accumulates a corpus request's segments: one fresh state per shard; each
    state first scores every corpus of `previous` (one update per segment, compute, reset); then shard k's
    state takes its batches (`shards[k]`, sizes in segments, consumed in order from `segments`); the states
    are merged in `merge` order into the first listed; compute answers. The answer is the one-shot score."""

    shards: tuple[tuple[BatchSize, ...], ...] = Field(
        min_length=1,
        description="Per shard (one state each), the sizes of its update batches, in segments; the segments "
        "are consumed in order, shard after shard, and the sizes add up to the number of segments.",
    )
    merge: tuple[Annotated[StrictInt, Field(ge=0, le=MAX_COUNT)], ...] | None = Field(
        None,
        description="With more than one shard: the order of the shards' states in the merge, each index once; "
        "the first listed absorbs the others, one after another.",
    )
    previous: tuple[tuple[Segment, ...], ...] = Field(
        (),
        description="Optional: corpora each state scores before its shard (one update per segment, then "
        "compute, then reset), so that the answer shows what a reset leaves behind.",
    )

    @model_validator(mode="after")
    def _merge_is_an_order_of_the_shards(self):
        shards = len(self.shards)
        if any(not batches for batches in self.shards):
            raise sentence("`stateful.shards` must give every shard at least one batch")
        if shards == 1 and self.merge is not None:
            raise sentence("`stateful.merge` is only for more than one shard")
        if shards > 1 and (self.merge is None or sorted(self.merge) != list(range(shards))):
            raise sentence(f"`stateful.merge` must list each of the {shards} shards once (got {show(self.merge)})")
        return self

    @property
    def segment_count(self) -> int:
        return sum(sum(batches) for batches in self.shards)

    def needs(self) -> tuple[str, ...]:
        """The abilities (`STATEFUL_ABILITIES`) this plan uses."""
        used = {
            "accumulate": any(len(batches) > 1 for batches in self.shards),
            "merge": len(self.shards) > 1,
            "reset": bool(self.previous),
        }
        return tuple(name for name in STATEFUL_ABILITIES if used[name])

    def shard_segments(self, segments: tuple[Segment, ...]) -> list[list[tuple[Segment, ...]]]:
        """Per shard, its batches of segments (consecutive, in order)."""
        out, at = [], 0
        for batches in self.shards:
            shard = []
            for size in batches:
                shard.append(segments[at : at + size])
                at += size
            out.append(shard)
        return out


class ScoreRequest(Message):
    """`{"cmd": "score", ...}`: score these segments. The maximum order is len(weights); sentence
    level has exactly one segment; references are grouped per segment; expected values never travel."""

    CMD: ClassVar[str] = "score"
    WIRE_REQUIRED: ClassVar[tuple] = ("seq", "smoothing", "lowercase")
    cmd: Literal["score"] = "score"
    seq: Seq = Field(0, description="Chosen by the runner; echoed in the reply.")
    level: Literal[LEVELS] = _described(
        "corpus: statistics summed over segments before dividing; sentence: one segment."
    )
    segments: tuple[Segment, ...] = _described("The segments (exactly one at sentence level).")
    weights: tuple[Number, ...] = Field(
        min_length=1,
        max_length=MAX_ORDER,
        description="w_1 .. w_N as given (N is the maximum order); whether they are valid is for the "
        "implementation to judge.",
    )
    smoothing: SmoothingUnion = Field(default_factory=lambda: SMOOTHING_SPECS["none"](method="none"))
    lowercase: StrictBool = Field(False, description="Fold case before counting.")
    tokenize: Literal[tuple(TOKENIZERS)] | None = Field(
        None,
        description="Optional: a text request. Every hypothesis and reference is a string of raw text, "
        "to be tokenized with this tokenizer (`bleu-oracle score --help` describes them); "
        "sent only to an implementation whose capabilities list it.",
    )
    conventions: RequestConventions | None = Field(
        None,
        description="Optional: conventions the request asks for where they differ from the judged profile's "
        "(name -> rule); left out, the implementation follows its own profile. Sent only to an "
        "implementation whose `capabilities.conventions` lists each rule.",
    )

    stateful: StatefulPlan | None = Field(
        None,
        description="Optional: a corpus request for a stateful implementation, accumulated as this plan says "
        "(batches, shards merged, states reset and reused); sent only to an implementation whose "
        "`capabilities.stateful` lists every ability the plan uses.",
    )

    model_config = ConfigDict(json_schema_extra=lambda schema, cls: _score_schema(schema))

    @field_validator("smoothing", mode="before")
    @classmethod
    def _smoothing_from_python(cls, value, info):
        """From Python (not the wire): a method name, an oracle `Smoothing` or a mapping with some
        parameters left out, which take their documented defaults."""
        if (info.context or {}).get("wire") or isinstance(value, SmoothingSpec):
            return value
        if isinstance(value, Smoothing):
            value = value.to_json()
        if isinstance(value, str):
            value = {"method": value}
        if isinstance(value, dict) and value.get("method") in SMOOTHING_METHODS:
            value = {**{n: float(d) for n, d in SMOOTHING_METHODS[value["method"]].items()}, **value}
        return value

    @model_validator(mode="after")
    def _one_segment_at_sentence_level(self):
        if self.level == "sentence" and len(self.segments) != 1:
            raise sentence(f"`segments` must hold exactly one segment at sentence level (got {len(self.segments)})")
        text = self.tokenize is not None
        if not _all_of_kind(self.segments, str if text else tuple):
            _name_wrong_kind(self.segments, text)
        if self.stateful is not None:
            _check_plan(self, self.stateful)
        return self

    @property
    def is_text(self):
        """A text request: segments of raw text, tokenized by the implementation."""
        return self.tokenize is not None

    def tokenized(self, split="str-split", padding="spaces", fold=None):
        """A text request's segments tokenized literally (`oracle.formulas.tokenizers`; words separated
        by the `split` rule of the judging profile, 13a's line padded by its `padding` rule, each line's case
        folded first by the `fold` rule when one is given), as a token request; a token request as it is."""
        if self.tokenize is None:
            return self
        name = self.tokenize
        segments = tuple(
            Segment(
                hypothesis=tokenize(s.hypothesis, name, split=split, padding=padding, fold=fold),
                references=tuple(tokenize(r, name, split=split, padding=padding, fold=fold) for r in s.references),
            )
            for s in self.segments
        )
        return self.model_copy(update={"segments": segments, "tokenize": None})

    def tokenized_as(self, options):
        """The request tokenized as a profile's `options` (an `oracle.formulas.conventions.Options`) say: their
        word-splitting and padding rules, and, where the request folds case and they fold the line
        (`fold_stage` "line"), the line folded before the tokenizer."""
        fold = options.case_fold if self.lowercase and options.fold_stage == "line" else None
        return self.tokenized(options.token_split, options.line_padding, fold)

    @property
    def max_order(self):
        return len(self.weights)

    #: Values derived from the segments, computed once per request (`functools.cached_property`, kept in the
    #: instance's `__dict__`, which pydantic's equality and serialisation leave out): `model_copy` copies that
    #: `__dict__`, so a copy whose segments are replaced drops them (`model_copy` below) and computes its own.
    _DERIVED_FROM_SEGMENTS: ClassVar[tuple[str, ...]] = ("token_count", "reference_count")

    @cached_property
    def token_count(self) -> int:
        """The tokens (in a text request, characters) of every hypothesis and reference."""
        return sum(len(s.hypothesis) + sum(len(r) for r in s.references) for s in self.segments)

    @cached_property
    def reference_count(self) -> int:
        """References over every segment."""
        return sum(len(s.references) for s in self.segments)

    def model_copy(self, *, update: Mapping[str, Any] | None = None, deep: bool = False) -> Self:
        """pydantic's copy, without the derived values of the original's segments when `update` replaces them."""
        copied = super().model_copy(update=update, deep=deep)
        if update and "segments" in update:
            for name in self._DERIVED_FROM_SEGMENTS:
                copied.__dict__.pop(name, None)
        return copied

    def with_seq(self, seq):
        return self.model_copy(update={"seq": seq})

    def to_json(self):
        # `tokenize`, `conventions` and `stateful` travel only when set: without them a request is what
        # protocol v1 first defined (no other field of a request can be None)
        return self.model_dump(mode="json", exclude_none=True)

    def wire_form(self, *, seq: bool = True) -> dict[str, Any]:
        """`to_json()` (without `seq` where `seq` is False), each segment's hypothesis and references the request's
        own values: JSON writes a tuple of tokens as the list `to_json` makes of it, so the line is the same, and
        no sequence is copied into a list only to be written (`model_dump` made a list of 65,600 items, 0.5 MB, of
        each sequence of a very long run, alive while its line was encoded: `oracle.harness.searchcache.body_of`
        and `request_digest`)."""
        rest = self.model_dump(mode="json", exclude_none=True, exclude={"segments"} if seq else {"segments", "seq"})
        segments = [{"hypothesis": s.hypothesis, "references": s.references} for s in self.segments]
        return {name: segments if name == "segments" else rest[name]
                for name in type(self).model_fields if name == "segments" or name in rest}

    def replay_payload(self):
        """The replayable form: the score command without `cmd` and `seq`."""
        return self.model_dump(mode="json", exclude={"cmd", "seq"}, exclude_none=True)

    def replay_form(self) -> dict[str, Any]:
        """`replay_payload()` to be encoded (JSON, once): each segment's hypothesis and references the request's own
        values, as `wire_form` gives them (JSON writes a tuple of tokens as the list `replay_payload` makes of it, so
        the text is the same), not a copy of every token sequence in lists (summary.md, junit.xml and the console
        encode each failing record's input: reports-cost)."""
        rest = self.model_dump(mode="json", exclude={"cmd", "seq", "segments"}, exclude_none=True)
        segments = [{"hypothesis": s.hypothesis, "references": s.references} for s in self.segments]
        return {name: segments if name == "segments" else rest[name]
                for name in type(self).model_fields if name == "segments" or name in rest}

    @property
    def chosen_conventions(self) -> dict[str, str]:
        """name -> rule of the conventions the request carries (none: the profile's own)."""
        return self.conventions.chosen() if self.conventions is not None else {}


_hypothesis_of = attrgetter("hypothesis")
_references_of = attrgetter("references")


def _all_of_kind(segments: tuple[Segment, ...], kind: type) -> bool:
    """Whether every hypothesis and reference is exactly a `kind` (str: raw text; tuple: a token list), in one
    pass over the values done in C (`map`, `chain`, a set of their types): every request is checked, and a walk
    in Python per segment and reference was a quarter of a request's validation. False sends the caller to the
    walk that names the first value of the wrong kind (or finds none: a subclass of str passes there)."""
    if len(segments) == 1:  # a sentence-level request: its one segment's values without the chain
        segment = segments[0]
        return {type(segment.hypothesis), *map(type, segment.references)} == {kind}
    kinds = {*map(type, map(_hypothesis_of, segments)), *map(type, chain.from_iterable(map(_references_of, segments)))}
    return kinds <= {kind}


def _name_wrong_kind(segments: tuple[Segment, ...], text: bool) -> None:
    """Refuse the first hypothesis or reference that is not of the request's kind (raw text when `text`, else
    a token list), naming where it is."""
    for i, segment in enumerate(segments):
        for where, value in (
            ("hypothesis", segment.hypothesis),
            *((f"references[{k}]", r) for k, r in enumerate(segment.references)),
        ):
            if isinstance(value, str) != text:
                want = (
                    "a string of raw text (`tokenize` is set)" if text else "a list of tokens (`tokenize` is not set)"
                )
                raise sentence(f"`segments[{i}].{where}` must be {want}")


def _check_plan(request: ScoreRequest, plan: StatefulPlan) -> None:
    """A stateful plan is for a corpus request, and its batches cover the segments exactly."""
    if request.level != "corpus":
        raise sentence("`stateful` is only for a corpus request (got level \"sentence\")")
    if plan.segment_count != len(request.segments):
        raise sentence(
            f"`stateful.shards` must add up to the {len(request.segments)} segment(s) (got {plan.segment_count})"
        )
    text = request.tokenize is not None
    for corpus in plan.previous:
        if any(segment.is_text != text for segment in corpus):
            raise sentence("`stateful.previous` must hold segments of the request's kind (tokens or text)")


def _wire_required(schema, model):
    """The schema's `required`: what the wire must carry (commands' `cmd` and WIRE_REQUIRED included)."""
    wanted = set(schema.get("required", ())) | set(model.WIRE_REQUIRED) | ({"cmd"} if model.CMD else set())
    schema["required"] = [name for name in schema["properties"] if name in wanted]


def _score_schema(schema):
    _wire_required(schema, ScoreRequest)
    schema["if"] = {"properties": {"level": {"const": "sentence"}}, "required": ["level"]}
    schema["then"] = {"properties": {"segments": {"minItems": 1, "maxItems": 1}}}


class Statistics(Message):
    """Sufficient statistics: c (hyp_len), r (ref_len), clipped matches and totals for orders
    1..N (N = len(weights)), unsmoothed; bp is the brevity penalty (may be left out)."""

    hyp_len: Count = _described("c: hypothesis tokens (summed over segments).")
    ref_len: Count = _described("r: effective reference length (summed over segments).")
    matches: tuple[Count, ...] = Field(
        max_length=MAX_ORDER, description="Clipped n-gram matches for n = 1..N, before smoothing."
    )
    totals: tuple[Count, ...] = Field(
        max_length=MAX_ORDER, description="Hypothesis n-grams for n = 1..N, before smoothing."
    )
    bp: NumberOrNaN | None = Field(None, description='The brevity penalty (or "NaN").')


#: A count written as a JSON number that need not be an integer (7.0, 4.5): finite, 0 to MAX_COUNT. Only
#: `NumericStatistics` reads such a count; a reply carrying one broke the protocol (`Count`).
NumericCount = Annotated[int | float, BeforeValidator(_finite_number), Field(ge=0, le=MAX_COUNT)]


class NumericStatistics(Message):
    """The statistics of a reply that broke protocol v1 by writing a count as a number that is not an integer (a mean
    where a sum belongs returns 7.0 or 4.5), read as the numbers they are: for the diagnosis of that reply alone
    (`oracle.diagnose.classify.numeric_fits`), never judged. The record's outcome stays `protocol-error`: the protocol
    asks for integers, and a runner that took 7.0 for 7 would pass an implementation whose other inputs give 7.5."""

    hyp_len: NumericCount = _described("c, as the reply wrote it.")
    ref_len: NumericCount = _described("r, as the reply wrote it.")
    matches: tuple[NumericCount, ...] = Field(max_length=MAX_ORDER, description="The matches, as the reply wrote them.")
    totals: tuple[NumericCount, ...] = Field(max_length=MAX_ORDER, description="The totals, as the reply wrote them.")
    bp: NumberOrNaN | None = Field(None, description='The brevity penalty (or "NaN").')

    @property
    def written_as_numbers(self) -> tuple[str, ...]:
        """The fields (`hyp_len`, `ref_len`, `matches`, `totals`) the reply wrote a count of as a float, in that
        order: the fields a division or float arithmetic reached."""
        written = {"hyp_len": (self.hyp_len,), "ref_len": (self.ref_len,), "matches": self.matches,
                   "totals": self.totals}
        return tuple(name for name, values in written.items() if any(type(v) is float for v in values))



class NumericReply(Message):
    """A score reply whose statistics broke protocol v1 only by writing counts as numbers that are not integers, read as
    such (`NumericStatistics`): the score it answered and the numbers it wrote, for the diagnosis alone."""

    score: NumberOrNaN = _described('The score answered (0-1 scale, or "NaN").')
    statistics: NumericStatistics = _described("Its statistics, as numbers.")

    @classmethod
    def from_reply_line(cls, raw: str | None) -> NumericReply | None:
        """The reply `raw` is (`Unanswered.raw`: a line the protocol refused, bounded by the transport's line limit),
        where it is a score reply of a score (a number or "NaN") and statistics that are numbers, some of them written
        as floats;
        None for any other line (no score, no statistics, a count negative or not a number, or every count an integer:
        the line broke the protocol otherwise)."""
        if raw is None:
            return None
        try:
            line = decode(raw)
        except ProtocolError:
            return None
        try:
            reply = cls.model_validate({"score": line.get("score"), "statistics": line.get("statistics")})
        except ValueError:  # (pydantic's ValidationError among them)
            return None
        return reply if reply.statistics.written_as_numbers else None


class ScoreReply(Message):
    """The answer to score: `seq` and exactly one of `score` (0-1 scale, or "NaN"; optionally with
    `statistics`), `rejected` (the input is invalid), `unsupported`, or `error`. An error reply
    leaves out `seq` when the command's seq could not be read (and for a start it cannot honour)."""

    seq: Seq | None = Field(None, description="The seq of the score command answered.")
    score: NumberOrNaN | None = Field(None, description='BLEU on the 0-1 scale, or "NaN".')
    statistics: Statistics | None = None
    rejected: StrictStr | None = Field(None, description="The implementation refuses this input as invalid; why.")
    unsupported: StrictStr | None = Field(None, description="The implementation cannot compute this request; why.")
    error: StrictStr | None = Field(None, description="Something went wrong; what.")

    model_config = ConfigDict(json_schema_extra=lambda schema, cls: _reply_schema(schema))

    @model_validator(mode="after")
    def _exactly_one_outcome(self):
        present = [name for name in OUTCOMES if getattr(self, name) is not None]
        if len(present) != 1:
            got = " and ".join(f"`{p}`" for p in present) if present else "none"
            outcomes = ", ".join(f"`{o}`" for o in OUTCOMES)
            raise sentence(f"a reply must carry exactly one of {outcomes} (got {got})")
        if self.statistics is not None and self.score is None:
            raise sentence(f"`statistics` may only come with `score` (got it with `{present[0]}`)")
        if self.seq is None and self.error is None:
            raise sentence(f"`seq` is required in a reply with `{present[0]}`")
        return self

    @property
    def outcome(self):
        return next(name for name in OUTCOMES if getattr(self, name) is not None)


def _reply_schema(schema):
    no_statistics = {"not": {"required": ["statistics"]}}
    schema["oneOf"] = [
        {"required": ["seq", "score"]},
        {"required": ["seq", "rejected"], **no_statistics},
        {"required": ["seq", "unsupported"], **no_statistics},
        {"required": ["error"], **no_statistics},
    ]


#: The keys a score reply's line may hold, each as the wire spells it (a reply's and its statistics' names differ).
_PLAIN_KEYS = (b'"seq"', b'"score"', b'"statistics"', b'"hyp_len"', b'"ref_len"', b'"matches"', b'"totals"', b'"bp"')
#: What a plain score reply's line holds besides its keys: brackets, separators, JSON's blanks and number
#: characters; no string, no letter but an exponent's, nothing outside ASCII.
_PLAIN_REST = b"{}[]:, \t0123456789.eE+-"
#: Each number character made "0", so that a run longer than any float's repr (17 digits, a sign, a point and an
#: exponent) is a substring search: such a line is read by `decode`, which bounds a number's text (MAX_NUMBER_TEXT).
_PLAIN_NUMBER = bytes.maketrans(b"0123456789.eE+-", b"0" * 15)
_PLAIN_LONG_NUMBER = b"0" * 33
#: The longest line read in one step (a score reply with statistics is about 200 bytes).
_PLAIN_LINE = 4096


def plain_score_reply(line: bytes) -> ScoreReply | None:
    """A score reply read in one step (pydantic's JSON parser and the model's validation, in C), or None: then the
    line goes to `decode` and `ScoreReply.from_json`, which decide as before and say why a line is refused.

    Taken only for a line a byte test shows free of everything `decode` checks strictly: no string but the known
    keys, each at most once (no duplicate key), no letter but an exponent's `e` (no NaN, Infinity, true, false or
    null literal), nothing outside ASCII (no BOM, no surrogate, no escape: no backslash), no number longer than 32
    characters, and brackets no deeper than MAX_NESTING. The test is a few passes over the bytes in C (`replace`,
    `translate`), no regular expression. A line the parser or the model refuses is None too, so only what both
    readers accept is read here (`tests/models/test_plain_reply.py` holds the two alike)."""
    rest = line.rstrip(b"\r\n")
    if len(rest) > _PLAIN_LINE:
        return None
    for key in _PLAIN_KEYS:
        shorter = rest.replace(key, b"")
        if len(rest) - len(shorter) > len(key):  # a key twice
            return None
        rest = shorter
    if (rest.translate(None, _PLAIN_REST) or _PLAIN_LONG_NUMBER in rest.translate(_PLAIN_NUMBER)
            or rest.count(b"[") + rest.count(b"{") > MAX_NESTING):
        return None
    try:
        return ScoreReply.model_validate_json(line, context=WIRE)
    except ValueError:  # (pydantic's ValidationError among them)
        return None


class StopCommand(Message):
    """`{"cmd": "stop"}`: the process exits (no reply)."""

    CMD: ClassVar[str] = "stop"
    cmd: Literal["stop"] = "stop"


#: schema name -> model, in protocol order
MESSAGES = {
    "start": StartCommand,
    "handshake": Handshake,
    "score": ScoreRequest,
    "reply": ScoreReply,
    "stop": StopCommand,
}
_COMMANDS = {"start": StartCommand, "score": ScoreRequest, "stop": StopCommand}


def parse_command(obj):
    """A decoded line as StartCommand, ScoreRequest or StopCommand (dispatching on `cmd`)."""
    if not isinstance(obj, dict):
        raise ProtocolError(f"a command must be a JSON object (got {show(obj)})")
    if "cmd" not in obj:
        raise ProtocolError(f"`cmd` is required in a command (one of {', '.join(show(c) for c in COMMANDS)})")
    model = _COMMANDS.get(obj["cmd"]) if isinstance(obj["cmd"], str) else None
    if model is None:
        raise ProtocolError(f"`cmd` must be one of {', '.join(show(c) for c in COMMANDS)} (got {show(obj['cmd'])})")
    return model.from_json(obj)


# -- Validation errors in the protocol's words -------------------------------------------


def _shown(value):
    """A value as it came on the wire, for a message; a float as Python prints it (inf, not Infinity)."""
    return repr(value) if isinstance(value, float) else show(value)


def _dialect(model):
    """How errors speak of a protocol message (`oracle.models.errors.explain`)."""
    return Dialect(top=f"a {model.CMD!r} command" if model.CMD else f"a {model.__name__}", show=_shown)


def _explain(exc, model):
    """The first validation error of `exc` as one sentence naming the field (unknown fields first), in the
    words `oracle.models.errors.explain` shares with the case files; a smoothing's method, which pydantic
    keeps in the location as the union's tag, is named in the protocol's own sentences."""
    errors = exc.errors(include_url=False)
    error = next((e for e in errors if e["type"] == "extra_forbidden"), errors[0])
    # a union member's name is part of pydantic's location, not of the wire's ("hypothesis.tuple[str, ...][1]")
    loc = [
        part for part in error["loc"] if not (isinstance(part, str) and (part == "str" or part.startswith("tuple[")))
    ]
    method = None
    if "smoothing" in loc:  # a union member's tag is part of pydantic's location, not of the wire's
        at = loc.index("smoothing") + 1
        if at < len(loc) and loc[at] in SMOOTHING_SPECS:
            method = loc.pop(at)
    return _smoothing_problem(error, loc, method) or explain({**error, "loc": tuple(loc)}, _dialect(model), model)


def _smoothing_problem(error, loc, method):
    """The sentence for an error about a smoothing's method or its parameters, or None for any other."""
    kind, path = error["type"], field_path(loc)
    if kind == "missing" and method is not None and loc[-1] != "method":
        return f"`{path}` is required for method {show(method)}"
    if kind == "extra_forbidden" and method is not None:
        takes = [f"`{n}`" for n in SMOOTHING_METHODS[method]]
        return f"unknown field `{path}`: method {show(method)} takes {', '.join(takes) if takes else 'no parameters'}"
    if kind == "union_tag_invalid":
        tag = (error.get("ctx") or {}).get("tag")
        return f"`{path}.method` must be one of {', '.join(show(m) for m in SMOOTHING_METHODS)} (got {show(tag)})"
    if kind == "union_tag_not_found":
        return f"`{path}.method` is required (got {show(error.get('input'))})"
    if kind in ("model_type", "model_attributes_type", "dict_type") and loc and loc[-1] == "smoothing":
        return f'`{path}` must be an object {{"method": ..., <parameters>}} (got {show(error.get("input"))})'
    return None


# -- JSON Schemas, generated ------------------------------------------------------


def json_schemas():
    """name -> JSON Schema (draft 2020-12) of each protocol-v1 message, generated from the models."""
    out = {}
    for name, model in MESSAGES.items():
        schema = model.json_schema()
        if model is not ScoreRequest:
            _wire_required(schema, model)
        out[name] = {"$schema": SCHEMA_DIALECT, "$id": f"urn:bleu-oracle:protocol:{PROTOCOL_VERSION}:{name}", **schema}
    return out


def render_schema(schema):
    """The exact text of a committed schema file."""
    return json.dumps(schema, indent=2, ensure_ascii=False) + "\n"


def write_schemas(directory=SCHEMA_DIR):
    """(Re)generate the committed schema files; returns the paths written."""
    directory = Path(directory)
    directory.mkdir(parents=True, exist_ok=True)
    paths = []
    for name, schema in json_schemas().items():
        path = directory / f"{name}.json"
        path.write_text(render_schema(schema), encoding="utf-8")
        paths.append(path)
    return paths


if __name__ == "__main__":  # python -m oracle.models.protocol: regenerate the schema files
    for written in write_schemas():
        print(written)
