"""The event stream's records: `results.jsonl` is a header, one record per input, and a footer.

These models are the single description of the stream: `oracle.harness.events` validates every
line through them as it writes and as it reads, and the JSON Schema shipped as
`oracle/models/schemas/results.schema.json` is generated from them (a test keeps it current;
`python -m oracle.models.results` rewrites it). Consumers (summaries, JUnit, baselines, the
report pages) read the validated lines.

Nested values whose shape belongs to another layer (the oracle's expectation, the root cause,
the shrunk input) are kept as JSON objects here and described field by field.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, Literal, Self

from pydantic import (
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    PlainSerializer,
    StrictBool,
    StrictFloat,
    StrictInt,
    StrictStr,
    ValidationError,
    WithJsonSchema,
    model_validator,
)
from pydantic.json_schema import SkipJsonSchema

from oracle.formulas.errors import BleuValueError

from .jsonvalues import JsonFloat
from .outcomes import GOOD_OUTCOMES, Expected, Outcome
from .protocol import Capabilities, ImplementationInfo, ScoreReply, ScoreRequest

SCHEMA = "bleu-oracle-results/1"
SCHEMA_PATH = Path(__file__).resolve().parent / "schemas" / "results.schema.json"

JsonObject = dict[str, Any]
#: A JSON scalar as the stream keeps it (an explanation's change value, a setting).
JsonScalar = StrictStr | StrictInt | StrictFloat | StrictBool | None


class _Part(BaseModel):
    """A typed part of a line: frozen; unknown fields kept (a newer writer's stream stays readable)."""

    model_config = ConfigDict(extra="allow", frozen=True, defer_build=True)  # `oracle.models`: built on first use


class _Line(_Part):
    pass


# -- the parts of a record -------------------------------------------------------------------------

#: What joins the mechanisms of a combined root cause where it is written out (a record's `classification.name`
#: and `fits`, a baseline's `cause:`, the console): `reference_length=closest-first + float32`. Inside the
#: diagnosis an explanation holds its mechanisms as a tuple (`oracle.diagnose.classify.Explanation.parts`).
CAUSE_JOINER = " + "


def cause_name(parts: Sequence[str]) -> str:
    """A root cause's written form: its mechanisms' names in the order they were applied, joined by CAUSE_JOINER."""
    return CAUSE_JOINER.join(parts)


def parse_cause(name: str) -> tuple[str, ...]:
    """The mechanisms' names of a root cause as written (`cause_name`): 'a + b' -> ('a', 'b'); '' -> (). Called
    only where a written name is read, by the validators of the models that carry one (`WrittenCause`, in
    `Classification` and `RunCause`; `oracle.models.baseline.BaselineEntry`, `oracle.models.discrepancy.Discrepancy`):
    every layer above reads the parts."""
    return tuple(part.strip() for part in name.split(CAUSE_JOINER) if part.strip())


class NamedByParts:
    """A root cause held as its mechanisms (`parts`) with its written name read from them (`cause_name`): a
    record's classification, the run's causes (this module's and the diagnosis' own, `oracle.diagnose.cover`), an
    explanation. Its other causes are written alike (`alternatives` here, `fits` where a class has them)."""

    __slots__ = ()

    if TYPE_CHECKING:
        parts: tuple[str, ...]

    @property
    def name(self) -> str:
        """Its written name: the mechanisms of `parts` joined, in the order they were applied (`cause_name`)."""
        return cause_name(self.parts)


class WithAlternatives(NamedByParts):
    """A run's cause with the causes that fit every one of its records as well (`alternative_parts`), written as
    `alternatives`."""

    __slots__ = ()

    if TYPE_CHECKING:
        alternative_parts: tuple[tuple[str, ...], ...]

    @property
    def alternatives(self) -> tuple[str, ...]:
        """The written names of `alternative_parts`, in order."""
        return tuple(map(cause_name, self.alternative_parts))


#: A root cause's parts as a model keeps them beside the written key they are read from (a baseline's `cause:` id, a
#: curated class's `classify`): never written (the key is), nor in a schema.
CauseParts = SkipJsonSchema[tuple[str, ...]]


def _read_cause(value: Any) -> Any:
    """A root cause's parts from its written name (a line read back: parsed once, here); parts given as a tuple (a
    model built in the diagnosis) as they are; anything else refused (a JSON line holds a name as a string)."""
    if isinstance(value, str):
        return parse_cause(value)
    if isinstance(value, tuple):
        return value
    raise ValueError(f"a root cause is written as its name, a string (got {value!r:.60})")


def _read_causes(value: Any) -> Any:
    """Several root causes' parts from their written names (`_read_cause`, each)."""
    return tuple(map(_read_cause, value)) if isinstance(value, (list, tuple)) else value


def _written_causes(causes: tuple[tuple[str, ...], ...]) -> list[str]:
    return [cause_name(parts) for parts in causes]


#: A root cause as a line holds it: its mechanisms are the data; its name (`cause_name`) is their written form, made
#: where the line is written and read back into them where it is read. A model declares it under its written key
#: (`alias`), so that the line, and the schema, hold a string where they always have.
WrittenCause = Annotated[tuple[str, ...], BeforeValidator(_read_cause), PlainSerializer(cause_name),
                         WithJsonSchema({"type": "string"})]
#: Several root causes as a line holds them (a list of written names), their mechanisms the data.
WrittenCauses = Annotated[tuple[tuple[str, ...], ...], BeforeValidator(_read_causes), PlainSerializer(_written_causes),
                          WithJsonSchema({"type": "array", "items": {"type": "string"}})]


class _WithCauses(_Part):
    """A part of a line whose root causes are their mechanisms (`WrittenCause` fields, each under its written key):
    built from either, never from both (the one not read would be kept as an unknown field, and written).
    Dumped under the written keys whatever the caller asks (`serialize_by_alias`): a library user's `model_dump()`
    reads `name` and `fits`, as a record does, never the attributes' own names."""

    model_config = ConfigDict(populate_by_name=True, serialize_by_alias=True)

    @model_validator(mode="before")
    @classmethod
    def _each_cause_given_once(cls, data: Any) -> Any:
        if isinstance(data, dict):
            for field, info in cls.model_fields.items():
                if info.alias is not None and field in data and info.alias in data:
                    raise ValueError(f"`{info.alias}` is `{field}` written: give one of them, not both")
        return data

    def model_copy(self, *, update: Mapping[str, Any] | None = None, deep: bool = False) -> Self:
        """A copy; an update keyed by a written name (`name`, `fits`, `alternatives`) is refused, not kept beside
        the parts the properties read (pydantic's copy validates nothing: the copy would say one name and write
        another)."""
        written = {info.alias: field for field, info in type(self).model_fields.items() if info.alias is not None}
        for key in update or ():
            if key in written:
                raise TypeError(f"{type(self).__name__}.model_copy: `{key}` is written from `{written[key]}`; "
                                f"update `{written[key]}` (its mechanisms' names) instead")
        return super().model_copy(update=update, deep=deep)


class Classification(_WithCauses, NamedByParts):
    """The root cause of a record that is not good (`oracle.diagnose.attribute`)."""

    # its mechanisms (`parts`, `fit_parts`) are the data: written as `name` and `fits` (their joined names, the
    # properties below), read back from them where a line is read; built in the diagnosis from parts

    parts: WrittenCause = Field(alias="name", description=(
        "The explanation's name: a convention `field=value`, a computation, both joined by ` + `, or a pseudo-class "
        "(crash, statistics-differ, ...); `unexplained`."))
    description: str = Field("", description="What the explanation means, in words.")
    change: tuple[tuple[str, JsonScalar], ...] = Field(
        (), description="What was changed to reproduce the answer: (option, value), ('smoothing', description), "
                        "('computation', name).")
    value: JsonFloat | None = Field(None, description="The recomputed value that matched the answer.")
    expected: JsonFloat | None = Field(None, description="The oracle's own value under the judged profile.")
    documented: tuple[str, ...] = Field((), description="The curated discrepancy ids this explanation matches.")
    scope: Literal["documented", "all", "outcome"] | None = Field(
        None, description="documented: found among the implementation's curated classes; all: among every "
                          "explanation; outcome: not a wrong number.")
    fit_parts: WrittenCauses = Field((), alias="fits", description=(
        "Other explanations that fit this record as well as `name` does (the run names the one that fits all its "
        "records)."))
    ruled_out: tuple[str, ...] = Field((), description="Explanations that fit the shrunk input as well, ruled out by "
                                                       "the answer to a related input sent to tell them apart.")

    @property
    def fits(self) -> tuple[str, ...]:
        """The written names of `fit_parts`, in order."""
        return tuple(map(cause_name, self.fit_parts))

    @property
    def explained(self) -> bool:
        return self.name not in ("unexplained", "agrees")

    @property
    def signature(self) -> tuple[str, ...]:
        """Every explanation that fits the record, its own name first."""
        return (self.name, *(f for f in self.fits if f != self.name))

    @property
    def signature_parts(self) -> tuple[tuple[str, ...], ...]:
        """Every explanation that fits the record, as its parts, its own first (`signature`'s)."""
        return (self.parts, *(f for f in self.fit_parts if f != self.parts))


class BaselineStatus(_Part):
    """What the baseline says of a record."""

    status: Literal["known", "new", "fixed", "changed"] = Field(
        description="known: a listed deviation; new: not listed; fixed: listed but now good (an expected failure "
                    "passed); changed: listed with another outcome or layer.")
    reason: str = Field("", description="The entry's reviewed reason.")
    entry: str | None = Field(None, description="The id of the entry that matched.")
    was: str | None = Field(None, description="What the entry expected, when the record changed.")

    @property
    def gating(self) -> bool:
        return self.status in ("new", "fixed", "changed")


class Omitted(_Part):
    """A request too large to keep in a record: what regenerates it and how to know it is the same."""

    segments: int = Field(description="How many segments it had.")
    tokens: int = Field(description="How many tokens (hypotheses and references).")
    sha256: str = Field(description="SHA-256 of the whole command without its seq (UTF-8, non-ASCII kept).")
    regenerate: str = Field(description="The command that sends it again.")


class OmittedRequest(_Part):
    """A score command of more than RECORD_TOKEN_LIMIT tokens, kept without its segments."""

    cmd: Literal["score"] = "score"
    seq: int = 0
    level: str
    weights: tuple[Any, ...]
    smoothing: JsonObject
    lowercase: bool = False
    tokenize: str | None = None
    omitted: Omitted


class CorpusSummary(_Part):
    """A real-data corpus recorded by what it is, not by its text (a report's real-data records)."""

    corpus: str
    system: str
    references: tuple[str, ...]
    segments: int


#: What a record keeps of the request sent: the command itself, its shape and digest, or a corpus summary.
RecordedRequest = ScoreRequest | OmittedRequest | CorpusSummary


class Unanswered(_Part):
    """What became of a request that got no valid reply: a crash, a timeout, a protocol error."""

    kind: str = Field(description="crash, timeout, protocol-error (or the reply's kind).")
    reply: JsonObject | None = Field(None, description="The reply object, when one came but was malformed.")
    message: str | None = Field(None, description="What happened.")
    raw: str | None = Field(None, description="The raw line, for a protocol error (bounded).")


#: Why a shrink stopped (`oracle.harness.shrink.ShrinkResult.stopped`, a record's `shrunk.stopped_by`): no
#: simplification was left (the input is minimal for the passes), the query budget (`--shrink-budget`) or the
#: token budget was spent, the implementation gave up (its restarts spent), or the wall clock (`--shrink-seconds`)
#: ran out. Only the last depends on the machine's speed: the same seed on the same code and implementation gives
#: the same record otherwise.
STOPPED_MINIMAL = "nothing simpler"
STOPPED_QUERIES = "query budget"
STOPPED_TOKENS = "token budget"
STOPPED_GAVE_UP = "implementation gave up"
STOPPED_CLOCK = "clock"
STOPPED_REASONS = (STOPPED_MINIMAL, STOPPED_QUERIES, STOPPED_TOKENS, STOPPED_GAVE_UP, STOPPED_CLOCK)
#: One of STOPPED_REASONS (spelt out: a Literal is read by pydantic and written into the schema as an enum).
StoppedBy = Literal["nothing simpler", "query budget", "token budget", "implementation gave up", "clock"]


class Shrunk(_Part):
    """The minimal failing input found by shrinking a random example, and what became of it."""

    request: ScoreRequest = Field(description="The minimal input (replayable: `check --replay`).")
    steps: int = Field(0, description="Simplifications kept.")
    queries: int = Field(0, description="Requests spent.")
    exhausted: bool = Field(False, description="The budget ran out before no simplification was left.")
    stopped_by: StoppedBy | None = Field(
        None, description='Why shrinking stopped: "nothing simpler" (no simplification left), "query budget" '
                          '(`--shrink-budget`), "token budget", "implementation gave up", or "clock" '
                          '(`--shrink-seconds`: the only one that depends on the machine\'s speed). Null: not '
                          'recorded (a crash probed in processes of its own, or a record written before it was).')
    message: str = ""
    layer: str | None = None
    order: int | None = None
    expected: Expected | None = None
    actual: ScoreReply | Unanswered | None = None
    note: str | None = None


class Record(_Line):
    """One input and what became of it."""

    type: Literal["record"] = "record"
    id: str = Field(description="A case id, `random-<seed>-<index>`, or a replay label: stable across runs.")
    kind: str = Field(
        description='"case", "example", "replay", "metamorphic", "series", or a report\'s own kinds of input.'
    )
    title: str = ""
    request: RecordedRequest | None = Field(
        None, description="The protocol score command sent (null: it could not be expressed). One of more than "
                          "20,000 tokens is kept without its segments: `omitted` gives their number, the token "
                          "count, a SHA-256 of the whole command and the command that regenerates it.")
    outcome: Outcome = Field(description="Exactly one outcome per record.")
    layer: str | None = Field(
        None, description="The first diverging layer of a fail (hyp_len ... score, rejection, document)."
    )
    order: int | None = Field(None, description="1-based n-gram order for the matches and totals layers.")
    label: str | None = Field(None, description='"fail:ref_len", "crash", ...: outcome and layer.')
    convention: str | None = Field(
        None, description="On an input the documents leave undefined (PROTOCOL.md): the named convention whose value "
                          "the implementation answered (outcome acceptable, or fail under --strict).")
    classification: Classification | None = Field(None, description="The root cause of a record that is not good.")
    baseline_key: str | None = Field(None, description="The key a baseline entry matches this record by.")
    expected: Expected | None = Field(None, description="The oracle's expectation.")
    actual: ScoreReply | Unanswered | None = Field(None, description="The reply, or what became of the request.")
    message: str = ""
    stderr: str = Field("", description="What the implementation wrote on stderr during this request (bounded).")
    duration: float = Field(0.0, description="Seconds the implementation took to answer.")
    wall: float | None = Field(None, description="Seconds including judging and shrinking.")
    baseline: BaselineStatus | None = Field(None, description="What the baseline says, when it says anything.")
    shrunk: Shrunk | None = Field(None, description="The minimal failing input found by shrinking.")
    replay: ScoreRequest | None = Field(None, description="The replayable input reported.")
    reproduce: str | None = Field(None, description="A one-line command that reproduces this record.")
    related: ScoreRequest | OmittedRequest | None = Field(
        None, description="A metamorphic record's original input (the one the related input is compared with).")

    @property
    def good(self) -> bool:
        return self.outcome in GOOD_OUTCOMES

    @property
    def reported_input(self) -> ScoreRequest | None:
        """The input this record reports: the shrunk one when shrinking found one, else the replayable input."""
        return self.shrunk.request if self.shrunk is not None else self.replay

    @property
    def cause(self) -> str | None:
        """The root cause's name, when the record has one."""
        return self.classification.name if self.classification is not None else None

    @property
    def divergence(self) -> tuple[str | None, int | None, str]:
        """(layer, order, message) of what the reported input shows: the shrunk input's when it was shrunk (its
        layer, order and message belong together), else the record's own."""
        if self.shrunk is not None and (self.shrunk.layer or self.shrunk.message):
            return self.shrunk.layer, self.shrunk.order, self.shrunk.message
        return self.layer, self.order, self.message

    def answer(self) -> float | str:
        """The implementation's answer on the reported input: its score, or what it said instead ("rejected:
        why"), or what became of the request (crash, timeout, ...)."""
        actual = self.shrunk.actual if self.shrunk is not None and self.shrunk.actual is not None else self.actual
        if isinstance(actual, ScoreReply):
            kind = actual.outcome
            if kind == "score" and actual.score is not None:
                return actual.score
            return f"{kind}: {getattr(actual, kind)}"
        if isinstance(actual, Unanswered) and actual.kind:
            return actual.kind
        return self.outcome.value

    def oracle_answer(self) -> float | str | None:
        """The oracle's answer on the reported input: its score, or "rejected"."""
        expected = (
            self.shrunk.expected if self.shrunk is not None and self.shrunk.expected is not None else self.expected
        )
        if expected is None:
            return None
        return "rejected" if expected.rejected else expected.score


# -- the header and the footer ---------------------------------------------------------------------


class RunSettings(_Part):
    """The settings a run was made with (what its header records)."""

    verb: str = Field(description="check, fuzz, report, check-worker.")
    seed: int | None = None
    examples: int | None = None
    rel: float | None = None
    abs: float | None = None
    timeout: float | None = None
    max_restarts: int | None = None
    shrink_budget: int | None = None
    shrink_first: int | None = Field(None, description="Failing examples shrunk per kind of failure in each block.")
    cases: str | None = Field(None, description="Where the cases came from, with counts.")
    command: str | None = Field(None, description="The command that starts the implementation.")
    impl: str | None = None
    baseline: str | None = None
    replay: str | None = None
    only: tuple[str, ...] | None = None
    time_budget: float | None = None
    shard: str | None = Field(None, description="`K/N`: this run is shard K of N (`--shard`); `bleu-oracle merge` "
                              "combines the N shards' streams into the whole run's.")
    series_length: int | None = Field(None, description="Requests in each series of short requests to one process.")
    strict: bool | None = Field(None, description="True: inputs the documents leave undefined must be refused "
                                "(`--strict`, or a baseline whose header says so); a convention's value fails.")


class Header(_Line):
    """The first line: who was run, under which profile, with which settings."""

    type: Literal["header"] = "header"
    schema_: Literal[SCHEMA] = Field(SCHEMA, alias="schema", description="The stream format's version.")
    suite_version: str = Field(description="The version of the documented cases (`oracle.suite.SUITE_VERSION`).")
    oracle_version: str = Field(description="The bleu-oracle version that wrote the stream.")
    implementation: ImplementationInfo | None = Field(None, description="From the handshake; null when it failed.")
    profile: str | None = Field(None, description="The profile the implementation declares.")
    judged_profile: str | None = Field(None, description="The profile it is judged against (`--profile` or declared).")
    capabilities: Capabilities | None = Field(None, description="From the handshake.")
    handshake_error: str | None = Field(None, description="Why the implementation could not be driven.")
    handshake_stderr: str | None = Field(None, description="What it wrote on stderr before or during the handshake.")
    settings: RunSettings = Field(description="The run's settings.")
    started: str = Field(description="ISO 8601 start time (UTC).")

    model_config = ConfigDict(populate_by_name=True)


class GateSummary(_Part):
    """What the baseline made of the run: counts per status, stale and unused entries."""

    known: int = 0
    new: int = 0
    fixed: int = 0
    changed: int = 0
    stale: tuple[str, ...] = Field((), description="Exact-id entries no record of the run had.")
    unused: tuple[str, ...] = Field((), description="Class or cause entries no record matched (not a failure).")
    entries: int = Field(0, description="Entries in the baseline.")
    file: str | None = Field(None, description="The baseline file.")


class CoverageTable(_Part):
    """What the judged inputs exercised (`oracle.harness.coverage`)."""

    inputs: int = Field(0, description="Inputs judged.")
    features: dict[str, int] = Field(default_factory=dict, description="feature -> inputs that exercised it.")
    unreachable: dict[str, str] = Field(
        default_factory=dict, description="feature -> why the capabilities rule it out."
    )
    longest_series: int = Field(0, description="The most requests one series of short requests sent to one process.")


class RunCause(_WithCauses, WithAlternatives):
    """One root cause of the run: the fewest explanations that together account for every failing record
    (`oracle.diagnose.cover`)."""

    # its mechanisms (`parts`, `alternative_parts`) are the data: written as `name` and `alternatives` (the properties
    # below), read back from them where a footer is read; built by the tally from parts

    parts: WrittenCause = Field(alias="name", description="The explanation's name.")
    records: int = Field(description="Failing records it accounts for.")
    alternative_parts: WrittenCauses = Field((), alias="alternatives", description=(
        "Explanations that fit every one of those records as well: the inputs could not tell them apart."))
    documented: tuple[str, ...] = Field((), description="Curated discrepancy ids these records matched.")


class Footer(_Line):
    """The last line: counts, the gate's verdict, the exit code. Missing when a run was cut short."""

    type: Literal["footer"] = "footer"
    counts: dict[str, int] = Field(description="outcome -> number of records.")
    baseline: GateSummary = Field(description="What the baseline made of the run.")
    gate: Literal["pass", "fail"]
    exit_code: int
    restarts: int = Field(0, description="Restarts of the implementation after a crash or timeout.")
    duration: float = Field(description="Seconds for the whole run.")
    finished: str = Field(description="ISO 8601 end time (UTC).")
    error: str | None = Field(None, description="A configuration error that ended the run.")
    interrupted: bool | None = Field(None, description="True when ^C or SIGTERM stopped the run before its end.")
    examples: int | None = Field(
        None, description="Random examples drawn (fewer than asked when the time budget ran out)."
    )
    time_budget_spent: bool | None = Field(None, description="True when --time-budget stopped the search early.")
    coverage: CoverageTable | None = Field(None, description="What the judged inputs exercised.")
    causes: tuple[RunCause, ...] | None = Field(None, description="The run's root causes: the fewest explanations "
                                                                   "that account for every failing record.")


LINE_MODELS = {"header": Header, "record": Record, "footer": Footer}


class ResultsFormatError(BleuValueError):
    """A results.jsonl line that is not a valid header, record or footer; names the file and line."""


def parse_line(obj, *, where=""):
    """A header, record or footer (plain JSON data, as read) as its model; ResultsFormatError names `where` and
    the field."""
    kind = obj.get("type") if isinstance(obj, dict) else None
    model = LINE_MODELS.get(kind)
    prefix = f"{where}: " if where else ""
    if model is None:
        got = f"a line of type {kind!r}" if isinstance(obj, dict) and kind is not None else (
            "an object without a \"type\"" if isinstance(obj, dict) else f"a JSON {type(obj).__name__}")
        raise ResultsFormatError(f"{prefix}not a header, record or footer of a results.jsonl ({got})")
    try:
        return model.model_validate(obj)
    except ValidationError as exc:
        error = exc.errors(include_url=False)[0]
        path = ".".join(str(part) for part in error["loc"])
        raise ResultsFormatError(
            f"{prefix}a {kind} line's `{path}`: {error['msg']} (got {error.get('input')!r:.80})"
        ) from None


def json_schema():
    """The JSON Schema of one results.jsonl line (a header, a record or a footer)."""
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": f"urn:bleu-oracle:{SCHEMA}",
        "title": "A results.jsonl line",
        "oneOf": [{"$ref": f"#/$defs/{model.__name__}"} for model in LINE_MODELS.values()],
        "$defs": _definitions(),
    }


def _definitions():
    definitions = {}
    for model in LINE_MODELS.values():
        schema = model.model_json_schema(by_alias=True, ref_template="#/$defs/{model}")
        definitions.update(schema.pop("$defs", {}))
        definitions[model.__name__] = schema
    return dict(sorted(definitions.items()))


def render_schema():
    return json.dumps(json_schema(), indent=2, ensure_ascii=False) + "\n"


if __name__ == "__main__":  # python -m oracle.models.results: regenerate the schema file
    SCHEMA_PATH.write_text(render_schema(), encoding="utf-8")
    print(SCHEMA_PATH)
