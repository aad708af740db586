"""Protocol v1: the messages between the runner and an implementation, as typed models.

An implementation is a process: the runner writes one JSON object per line to
its stdin and reads one JSON object per line from its stdout, in order
(PROTOCOL.md is the prose specification). Each message is a frozen dataclass
here, with `from_json(obj)` that validates strictly (unknown fields rejected,
types checked, the offending field named in a `ProtocolError`) and
`to_json()`.

The models are the single source of truth: every field carries a spec that
both validates it and describes it, and `json_schemas()` generates the JSON
Schemas committed under `oracle/schemas/protocol-v1/` from those specs.
Regenerate them with `bleu-oracle protocol schema --write` (or
`python -m oracle.models.protocol`); a test checks the committed files are current.

`ScoreCommand` *is* an `oracle.adapters.base.ScoreRequest` (a subclass adding
the JSON codec), and its segments are plain `oracle.adapters.base.Segment`s.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field, fields
from pathlib import Path

from oracle.formulas.bleu import LEVELS
from oracle.formulas.conventions import SMOOTHING_METHODS
from oracle.formulas.errors import BleuValueError
from oracle.harness.requests import request_to_json

from .request import ScoreRequest, Segment

PROTOCOL_VERSION = 1
WEIGHT_CAPABILITIES = ("any", "uniform")
COMMANDS = ("start", "score", "stop")
#: The outcomes a score reply can carry; exactly one per reply.
OUTCOMES = ("score", "rejected", "unsupported", "error")

SCHEMA_DIALECT = "https://json-schema.org/draft/2020-12/schema"
SCHEMA_DIR = Path(__file__).resolve().parent / "schemas" / f"protocol-v{PROTOCOL_VERSION}"


class ProtocolError(BleuValueError):
    """A message that does not follow protocol v1; the message names the offending field."""


# -- Encoding one line --------------------------------------------------------


def _show(value):
    """A bad value as it would look in JSON, short."""
    try:
        text = json.dumps(value, ensure_ascii=False)
    except (TypeError, ValueError):
        text = repr(value)
    return text if len(text) <= 80 else text[:77] + "..."


def _kind(value):
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, (int, float)):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, (list, tuple)):
        return "an array"
    if isinstance(value, dict):
        return "an object"
    return type(value).__name__


def _jsonable(obj):
    if hasattr(obj, "to_json") and not isinstance(obj, type):
        obj = obj.to_json()
    if isinstance(obj, float):
        if math.isnan(obj):
            return "NaN"
        if math.isinf(obj):
            raise ProtocolError(f"protocol v1 cannot carry an infinite number (got {obj})")
        return obj
    if isinstance(obj, dict):
        return {str(k): _jsonable(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [_jsonable(v) for v in obj]
    return obj


def encode(obj, *, ensure_ascii=True):
    """One protocol line (without the newline): compact, ASCII-only JSON; a float NaN becomes
    the string "NaN" (JSON has no NaN); infinities are refused. Models are encoded via to_json().
    `ensure_ascii=False` keeps non-ASCII text as it is: the same line for a person to read (or hash)."""
    return json.dumps(_jsonable(obj), ensure_ascii=ensure_ascii, allow_nan=False, separators=(",", ":"))


def _refuse_constant(name):
    raise ProtocolError(f"a protocol line is JSON, and JSON has no {name} (send NaN as the string \"NaN\")")


def _no_duplicates(pairs):
    out = {}
    for key, value in pairs:
        if key in out:
            raise ProtocolError(f"field `{key}` appears twice in one object")
        out[key] = value
    return out


def decode(line):
    """Parse one protocol line (str or UTF-8 bytes) into a dict; ProtocolError if it is not
    one JSON object (NaN/Infinity literals and duplicate keys are refused)."""
    if isinstance(line, (bytes, bytearray)):
        try:
            line = bytes(line).decode("utf-8")
        except UnicodeDecodeError as exc:
            raise ProtocolError(f"a protocol line must be UTF-8 ({exc})") from None
    if not isinstance(line, str):
        raise ProtocolError(f"a protocol line must be text (got {type(line).__name__})")
    try:
        obj = json.loads(line, parse_constant=_refuse_constant, object_pairs_hook=_no_duplicates)
    except json.JSONDecodeError as exc:
        raise ProtocolError(f"a protocol line must be one JSON object: {exc.msg} at column {exc.colno} (got {_show(line.strip())})") from None
    except RecursionError:
        raise ProtocolError("a protocol line nests too deeply") from None
    if not isinstance(obj, dict):
        raise ProtocolError(f"a protocol line must be a JSON object (got {_kind(obj)}: {_show(obj)})")
    return obj


# -- Field specs: each validates a value and describes it as JSON Schema ------


def _at(path, name):
    return f"{path}.{name}" if path else name


class _Spec:
    description = ""

    def parse(self, value, path):  # pragma: no cover - interface
        raise NotImplementedError

    def dump(self, value):
        return value

    def schema(self):  # pragma: no cover - interface
        raise NotImplementedError

    def _with_description(self, schema):
        if self.description:
            schema = {"description": self.description, **schema}
        return schema


class _Integer(_Spec):
    def __init__(self, *, minimum=None, const=None, description=""):
        self.minimum, self.const, self.description = minimum, const, description

    def parse(self, value, path):
        if isinstance(value, bool) or not isinstance(value, int):
            raise ProtocolError(f"`{path}` must be an integer (got {_show(value)})")
        if self.const is not None and value != self.const:
            raise ProtocolError(f"`{path}` must be {self.const} (got {_show(value)})")
        if self.minimum is not None and value < self.minimum:
            raise ProtocolError(f"`{path}` must be at least {self.minimum} (got {value})")
        return value

    def schema(self):
        schema = {"type": "integer"}
        if self.const is not None:
            schema["const"] = self.const
        if self.minimum is not None:
            schema["minimum"] = self.minimum
        return self._with_description(schema)


class _Number(_Spec):
    """A finite JSON number; with nan=True also the string "NaN" (read as float NaN)."""

    def __init__(self, *, nan=False, description=""):
        self.nan, self.description = nan, description

    def parse(self, value, path):
        expected = 'a number or "NaN"' if self.nan else "a number"
        finite = 'a finite number or "NaN"' if self.nan else "a finite number"
        if self.nan and (value == "NaN" or (isinstance(value, float) and math.isnan(value))):
            return math.nan
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise ProtocolError(f"`{path}` must be {expected} (got {_show(value)})")
        if isinstance(value, float) and not math.isfinite(value):
            raise ProtocolError(f"`{path}` must be {finite} (got {value!r})")
        return value

    def dump(self, value):
        return "NaN" if isinstance(value, float) and math.isnan(value) else value

    def schema(self):
        if self.nan:
            return self._with_description({"oneOf": [{"type": "number"}, {"const": "NaN"}]})
        return self._with_description({"type": "number"})


class _String(_Spec):
    def __init__(self, *, enum=None, min_length=None, description=""):
        self.enum, self.min_length, self.description = enum, min_length, description

    def parse(self, value, path):
        if not isinstance(value, str):
            raise ProtocolError(f"`{path}` must be a string (got {_show(value)})")
        if self.enum is not None and value not in self.enum:
            raise ProtocolError(f"`{path}` must be one of {', '.join(_show(e) for e in self.enum)} (got {_show(value)})")
        if self.min_length is not None and len(value) < self.min_length:
            raise ProtocolError(f"`{path}` must not be empty (got {_show(value)})")
        return value

    def schema(self):
        schema = {"type": "string"}
        if self.enum is not None:
            schema["enum"] = list(self.enum)
        if self.min_length is not None:
            schema["minLength"] = self.min_length
        return self._with_description(schema)


class _Boolean(_Spec):
    def __init__(self, *, description=""):
        self.description = description

    def parse(self, value, path):
        if not isinstance(value, bool):
            raise ProtocolError(f"`{path}` must be true or false (got {_show(value)})")
        return value

    def schema(self):
        return self._with_description({"type": "boolean"})


class _Array(_Spec):
    """A JSON array, read as a tuple."""

    def __init__(self, item, *, min_items=None, unique=False, description=""):
        self.item, self.min_items, self.unique, self.description = item, min_items, unique, description

    def parse(self, value, path):
        if not isinstance(value, (list, tuple)):
            raise ProtocolError(f"`{path}` must be an array (got {_show(value)})")
        if self.min_items is not None and len(value) < self.min_items:
            raise ProtocolError(f"`{path}` must hold at least {self.min_items} item{'s' if self.min_items != 1 else ''} (got {_show(value)})")
        parsed = tuple(self.item.parse(v, f"{path}[{i}]") for i, v in enumerate(value))
        if self.unique and len(set(parsed)) != len(parsed):
            raise ProtocolError(f"`{path}` must not repeat an item (got {_show(value)})")
        return parsed

    def dump(self, value):
        return [self.item.dump(v) for v in value]

    def schema(self):
        schema = {"type": "array", "items": self.item.schema()}
        if self.min_items is not None:
            schema["minItems"] = self.min_items
        if self.unique:
            schema["uniqueItems"] = True
        return self._with_description(schema)


class _Record(_Spec):
    """A JSON object read into a dataclass; each field has a spec (required unless said)."""

    def __init__(self, cls, specs, *, optional=(), cmd=None, title="", description=""):
        self.cls, self.specs, self.optional, self.cmd = cls, specs, frozenset(optional), cmd
        self.title, self.description = title, description

    def parse(self, value, path):
        if isinstance(value, self.cls):  # already a model (built in Python): re-check its fields
            value = self.dump(value)
        where = f"`{path}`" if path else (f"a {self.cmd!r} command" if self.cmd else f"a {self.title or self.cls.__name__}")
        if not isinstance(value, dict):
            raise ProtocolError(f"{where} must be a JSON object (got {_show(value)})")
        allowed = list(self.specs) + (["cmd"] if self.cmd else [])
        unknown = [k for k in value if k not in allowed]
        if unknown:
            raise ProtocolError(
                f"unknown field `{_at(path, unknown[0])}` in {where} (its fields are {', '.join(f'`{a}`' for a in allowed)})"
            )
        if self.cmd is not None and value.get("cmd") != self.cmd:
            raise ProtocolError(f"`{_at(path, 'cmd')}` must be {_show(self.cmd)} (got {_show(value.get('cmd'))})")
        kwargs = {}
        for name, spec in self.specs.items():
            if name not in value:
                if name in self.optional:
                    continue
                raise ProtocolError(f"`{_at(path, name)}` is required in {where}")
            kwargs[name] = spec.parse(value[name], _at(path, name))
        return self.cls(**kwargs)

    def dump(self, value):
        out = {"cmd": self.cmd} if self.cmd is not None else {}
        for name, spec in self.specs.items():
            item = getattr(value, name)
            if item is None and name in self.optional:
                continue
            out[name] = spec.dump(item)
        return out

    def schema(self):
        schema = {"type": "object"}
        if self.title:
            schema["title"] = self.title
        if self.description:
            schema["description"] = self.description
        properties = {}
        if self.cmd is not None:
            properties["cmd"] = {"const": self.cmd}
        properties.update({name: spec.schema() for name, spec in self.specs.items()})
        schema["properties"] = properties
        schema["required"] = (["cmd"] if self.cmd is not None else []) + [n for n in self.specs if n not in self.optional]
        schema["additionalProperties"] = False
        return schema


class _SmoothingSpec(_Spec):
    """`{"method": name, <every parameter of that method>}`, from conventions.SMOOTHING_METHODS.

    Parameter values are only type-checked (finite numbers): whether, say, a negative
    floor value is valid is for the implementation to judge (it answers `rejected`)."""

    description = (
        "The smoothing method and every parameter it takes (the runner always sends them all); "
        "parameters are finite numbers, their validity is for the implementation to judge."
    )

    def parse(self, value, path):
        if not isinstance(value, dict):
            raise ProtocolError(f"`{path}` must be an object {{\"method\": ..., <parameters>}} (got {_show(value)})")
        if "method" not in value:
            raise ProtocolError(f"`{_at(path, 'method')}` is required (got {_show(value)})")
        method = _String(enum=tuple(SMOOTHING_METHODS)).parse(value["method"], _at(path, "method"))
        takes = list(SMOOTHING_METHODS[method])
        for key in value:
            if key != "method" and key not in takes:
                raise ProtocolError(
                    f"unknown field `{_at(path, key)}`: method {_show(method)} takes "
                    f"{', '.join(f'`{t}`' for t in takes) if takes else 'no parameters'}"
                )
        out = {"method": method}
        for name in takes:
            if name not in value:
                raise ProtocolError(f"`{_at(path, name)}` is required for method {_show(method)}")
            out[name] = _Number().parse(value[name], _at(path, name))
        return out

    def dump(self, value):
        return dict(value)

    def schema(self):
        variants = []
        for method, params in SMOOTHING_METHODS.items():
            properties = {"method": {"const": method}}
            properties.update({name: {"type": "number", "default": float(default)} for name, default in params.items()})
            variants.append({
                "type": "object",
                "properties": properties,
                "required": ["method", *params],
                "additionalProperties": False,
            })
        return {"description": self.description, "oneOf": variants}


def _spec(spec, **kw):
    """A dataclass field carrying its protocol spec."""
    return field(metadata={"spec": spec}, **kw)


class _Model:
    """Mixin: `from_json`, `to_json`, `json_schema` from the fields' specs."""

    CMD = None
    SCHEMA_NAME = None
    OPTIONAL = ()
    #: specs for fields inherited from a dataclass that is not ours (ScoreRequest)
    EXTERNAL_SPECS = {}

    @classmethod
    def _specs(cls):
        return {f.name: f.metadata.get("spec") or cls.EXTERNAL_SPECS[f.name] for f in fields(cls)}

    @classmethod
    def _record(cls):
        doc = " ".join((cls.__doc__ or "").split("\n\n")[0].split())
        return _Record(cls, cls._specs(), optional=cls.OPTIONAL, cmd=cls.CMD, title=cls.__name__, description=doc)

    @classmethod
    def from_json(cls, obj, path=""):
        """Validate a decoded JSON object strictly and build the model; ProtocolError names the field."""
        instance = cls._record().parse(obj, path)
        instance._check(path)
        return instance

    def _check(self, path):
        """Rules across fields (none by default)."""

    def to_json(self):
        return self._record().dump(self)

    def validate(self):
        """This model, re-read from its JSON form: raises ProtocolError if it would not pass."""
        return type(self).from_json(self.to_json())

    @classmethod
    def json_schema(cls):
        schema = cls._record().schema()
        cls._extend_schema(schema)
        return schema

    @classmethod
    def _extend_schema(cls, schema):
        """Rules across fields, as JSON Schema (none by default)."""


# -- The messages ---------------------------------------------------------------


@dataclass(frozen=True)
class StartCommand(_Model):
    """`{"cmd": "start", "protocol": 1}`: the first line; answered by a Handshake (or an error
    reply when the implementation does not speak that protocol version)."""

    CMD = "start"
    SCHEMA_NAME = "start"

    protocol: int = _spec(_Integer(minimum=1, description="The protocol version the runner speaks (1)."), default=PROTOCOL_VERSION)


@dataclass(frozen=True)
class ImplementationInfo(_Model):
    """Who is answering: name, version and language of the implementation."""

    name: str = _spec(_String(min_length=1, description="The implementation's name."))
    version: str = _spec(_String(description="Its version (free text)."))
    language: str = _spec(_String(description="The language it is written in (free text)."))


@dataclass(frozen=True)
class Capabilities(_Model):
    """What the implementation can compute; the runner sends nothing outside it (those cases are not applicable)."""

    levels: tuple = _spec(_Array(_String(enum=LEVELS), min_items=1, unique=True, description="Levels it scores."))
    weights: str = _spec(_String(enum=WEIGHT_CAPABILITIES, description='"any": arbitrary weights; "uniform": only equal weights 1/N.'))
    max_order: int = _spec(_Integer(minimum=1, description="The largest maximum n-gram order (len(weights)) it accepts."))
    smoothing: tuple = _spec(_Array(_String(enum=tuple(SMOOTHING_METHODS)), min_items=1, unique=True, description="Smoothing methods it implements."))
    statistics: bool = _spec(_Boolean(description="Whether score replies carry statistics."))
    lowercase: bool = _spec(_Boolean(description="Whether it can fold case (lowercase: true)."))


@dataclass(frozen=True)
class Handshake(_Model):
    """The answer to start: protocol version, who is answering, the profile it claims to follow,
    and its capabilities."""

    SCHEMA_NAME = "handshake"

    implementation: ImplementationInfo = _spec(ImplementationInfo._record())
    profile: str = _spec(_String(min_length=1, description="The name of the bleu-oracle profile whose conventions it follows (`bleu-oracle profiles`)."))
    capabilities: Capabilities = _spec(Capabilities._record())
    protocol: int = _spec(_Integer(const=PROTOCOL_VERSION, description="The protocol version it speaks: 1."), default=PROTOCOL_VERSION)

    @classmethod
    def _specs(cls):  # protocol first, as on the wire
        specs = super()._specs()
        return {"protocol": specs.pop("protocol"), **specs}


_TOKENS = _Array(_String(), description="Tokens (strings), already split; the implementation does no tokenisation.")
_SEGMENT = _Record(
    Segment,
    {
        "hypothesis": _TOKENS,
        "references": _Array(_TOKENS, description="The references of this segment (an empty list is for the implementation to reject)."),
    },
    title="Segment",
    description="One hypothesis and its references.",
)


@dataclass(frozen=True)
class ScoreCommand(ScoreRequest, _Model):
    """`{"cmd": "score", ...}`: score these segments. The maximum order is len(weights); sentence
    level has exactly one segment; references are grouped per segment; expected values never travel."""

    CMD = "score"
    SCHEMA_NAME = "score"
    EXTERNAL_SPECS = {
        "seq": _Integer(description="Chosen by the runner; echoed in the reply."),
        "level": _String(enum=LEVELS, description="corpus: statistics summed over segments before dividing; sentence: one segment."),
        "segments": _Array(_SEGMENT, description="The segments (exactly one at sentence level)."),
        "weights": _Array(_Number(), min_items=1, description="w_1 .. w_N as given (N is the maximum order); whether they are valid is for the implementation to judge."),
        "smoothing": _SmoothingSpec(),
        "lowercase": _Boolean(description="Fold case before counting."),
    }

    def _check(self, path):
        if self.level == "sentence" and len(self.segments) != 1:
            raise ProtocolError(f"`{_at(path, 'segments')}` must hold exactly one segment at sentence level (got {len(self.segments)})")

    @classmethod
    def _extend_schema(cls, schema):
        schema["if"] = {"properties": {"level": {"const": "sentence"}}, "required": ["level"]}
        schema["then"] = {"properties": {"segments": {"minItems": 1, "maxItems": 1}}}

    def to_request(self):
        """The same request as a plain ScoreRequest (what adapters receive)."""
        return ScoreRequest(**{f.name: getattr(self, f.name) for f in fields(ScoreRequest)})

    @classmethod
    def from_request(cls, request):
        """A validated ScoreCommand from a ScoreRequest; smoothing parameters left out get their
        documented defaults (the wire always carries every parameter)."""
        obj = request_to_json(request)
        smoothing = obj["smoothing"]
        if isinstance(smoothing, dict) and smoothing.get("method") in SMOOTHING_METHODS:
            for name, default in SMOOTHING_METHODS[smoothing["method"]].items():
                smoothing.setdefault(name, float(default))
        return cls.from_json(obj)


@dataclass(frozen=True)
class ReplyStatistics(_Model):
    """Sufficient statistics: c (hyp_len), r (ref_len), clipped matches and totals for orders
    1..N (N = len(weights)), unsmoothed; bp is the brevity penalty (may be left out)."""

    hyp_len: int = _spec(_Integer(minimum=0, description="c: hypothesis tokens (summed over segments)."))
    ref_len: int = _spec(_Integer(minimum=0, description="r: effective reference length (summed over segments)."))
    matches: tuple = _spec(_Array(_Integer(minimum=0), description="Clipped n-gram matches for n = 1..N, before smoothing."))
    totals: tuple = _spec(_Array(_Integer(minimum=0), description="Hypothesis n-grams for n = 1..N, before smoothing."))
    bp: float | None = _spec(_Number(nan=True, description='The brevity penalty (or "NaN").'), default=None)

    OPTIONAL = ("bp",)


@dataclass(frozen=True)
class ScoreReply(_Model):
    """The answer to score: `seq` and exactly one of `score` (0-1 scale, or "NaN"; optionally with
    `statistics`), `rejected` (the input is invalid), `unsupported`, or `error`. An error reply
    leaves out `seq` when the command's seq could not be read (and for a start it cannot honour)."""

    SCHEMA_NAME = "reply"
    OPTIONAL = ("seq", *OUTCOMES, "statistics")

    seq: int | None = _spec(_Integer(description="The seq of the score command answered."), default=None)
    score: float | None = _spec(_Number(nan=True, description='BLEU on the 0-1 scale, or "NaN".'), default=None)
    statistics: ReplyStatistics | None = _spec(ReplyStatistics._record(), default=None)
    rejected: str | None = _spec(_String(description="The implementation refuses this input as invalid; why."), default=None)
    unsupported: str | None = _spec(_String(description="The implementation cannot compute this request; why."), default=None)
    error: str | None = _spec(_String(description="Something went wrong; what."), default=None)

    @property
    def outcome(self):
        return next(name for name in OUTCOMES if getattr(self, name) is not None)

    def _check(self, path):
        present = [name for name in OUTCOMES if getattr(self, name) is not None]
        if len(present) != 1:
            got = " and ".join(f"`{p}`" for p in present) if present else "none"
            raise ProtocolError(
                f"a reply must carry exactly one of {', '.join(f'`{o}`' for o in OUTCOMES)} (got {got})"
            )
        if self.statistics is not None and self.score is None:
            raise ProtocolError(f"`{_at(path, 'statistics')}` may only come with `score` (got it with `{present[0]}`)")
        if self.seq is None and self.error is None:
            raise ProtocolError(f"`{_at(path, 'seq')}` is required in a reply with `{present[0]}`")

    @classmethod
    def _extend_schema(cls, schema):
        no_statistics = {"not": {"required": ["statistics"]}}
        schema["oneOf"] = [
            {"required": ["seq", "score"]},
            {"required": ["seq", "rejected"], **no_statistics},
            {"required": ["seq", "unsupported"], **no_statistics},
            {"required": ["error"], **no_statistics},
        ]


@dataclass(frozen=True)
class StopCommand(_Model):
    """`{"cmd": "stop"}`: the process exits (no reply)."""

    CMD = "stop"
    SCHEMA_NAME = "stop"


#: schema name -> model, in protocol order
MESSAGES = {m.SCHEMA_NAME: m for m in (StartCommand, Handshake, ScoreCommand, ScoreReply, StopCommand)}
_COMMANDS = {"start": StartCommand, "score": ScoreCommand, "stop": StopCommand}


def parse_command(obj):
    """A decoded line as StartCommand, ScoreCommand or StopCommand (dispatching on `cmd`)."""
    if not isinstance(obj, dict):
        raise ProtocolError(f"a command must be a JSON object (got {_show(obj)})")
    if "cmd" not in obj:
        raise ProtocolError(f"`cmd` is required in a command (one of {', '.join(_show(c) for c in COMMANDS)})")
    model = _COMMANDS.get(obj["cmd"]) if isinstance(obj["cmd"], str) else None
    if model is None:
        raise ProtocolError(f"`cmd` must be one of {', '.join(_show(c) for c in COMMANDS)} (got {_show(obj['cmd'])})")
    return model.from_json(obj)


# -- JSON Schemas, generated ------------------------------------------------------


def json_schemas():
    """name -> JSON Schema (draft 2020-12) of each protocol-v1 message, generated from the models."""
    out = {}
    for name, model in MESSAGES.items():
        schema = model.json_schema()
        out[name] = {
            "$schema": SCHEMA_DIALECT,
            "$id": f"urn:bleu-oracle:protocol:{PROTOCOL_VERSION}:{name}",
            **schema,
        }
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
