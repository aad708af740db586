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
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from oracle.formulas.errors import BleuValueError

from .outcomes import Outcome
from .protocol import Capabilities, ImplementationInfo

SCHEMA = "bleu-oracle-results/1"
SCHEMA_PATH = Path(__file__).resolve().parent / "schemas" / "results.schema.json"

JsonObject = dict[str, Any]


class _Line(BaseModel):
    # Unknown fields are kept (extra="allow") so a newer writer's stream stays readable;
    # every field listed here is checked.
    model_config = ConfigDict(extra="allow", frozen=True)


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
    settings: JsonObject = Field(description="The run's settings: verb, seed, examples, rel, abs, timeout, ...")
    started: str = Field(description="ISO 8601 start time (UTC).")

    model_config = ConfigDict(populate_by_name=True)


class Record(_Line):
    """One input and what became of it."""

    type: Literal["record"] = "record"
    id: str = Field(description="A case id, `random-<seed>-<index>`, or a replay label: stable across runs.")
    kind: str = Field(description='"case", "example", "replay", or a report\'s own kinds of input.')
    title: str = ""
    request: JsonObject | None = Field(
        None, description="The protocol score command sent (null: it could not be expressed). One of more than "
                          "20,000 tokens is kept without its segments: `omitted` gives their number, the token "
                          "count, a SHA-256 of the whole command and the command that regenerates it.")
    outcome: Outcome = Field(description="Exactly one outcome per record.")
    layer: str | None = Field(None, description="The first diverging layer of a fail (hyp_len ... score, rejection, document).")
    order: int | None = Field(None, description="1-based n-gram order for the matches and totals layers.")
    label: str | None = Field(None, description='"fail:ref_len", "crash", ...: outcome and layer.')
    classification: JsonObject | None = Field(
        None, description="The root cause of a record that is not good (`oracle.diagnose.attribute`): name, "
                          "description, change, value, expected, documented, scope.")
    baseline_key: str | None = Field(None, description="The key a baseline entry matches this record by.")
    expected: JsonObject | None = Field(None, description="The oracle's expectation (`Expected.to_json()`).")
    actual: JsonObject | None = Field(None, description="The reply object, or what became of the request.")
    message: str = ""
    stderr: str = Field("", description="What the implementation wrote on stderr during this request (bounded).")
    duration: float = Field(0.0, description="Seconds the implementation took to answer.")
    wall: float | None = Field(None, description="Seconds including judging and shrinking.")
    baseline: JsonObject | None = Field(None, description="{status, reason, entry} when a baseline applies.")
    shrunk: JsonObject | None = Field(None, description="The minimal failing input found by shrinking.")
    replay: JsonObject | None = Field(None, description="The replayable input reported.")
    reproduce: str | None = Field(None, description="A one-line command that reproduces this record.")


class Footer(_Line):
    """The last line: counts, the gate's verdict, the exit code. Missing when a run was cut short."""

    type: Literal["footer"] = "footer"
    counts: dict[str, int] = Field(description="outcome -> number of records.")
    baseline: JsonObject = Field(description="known, new, fixed, changed, stale, unused, entries, file.")
    gate: Literal["pass", "fail"]
    exit_code: int
    restarts: int = Field(0, description="Restarts of the implementation after a crash or timeout.")
    duration: float = Field(description="Seconds for the whole run.")
    finished: str = Field(description="ISO 8601 end time (UTC).")
    error: str | None = Field(None, description="A configuration error that ended the run.")
    interrupted: bool | None = Field(None, description="True when ^C or SIGTERM stopped the run before its end.")
    examples: int | None = Field(None, description="Random examples drawn (fewer than asked when the time budget ran out).")
    time_budget_spent: bool | None = Field(None, description="True when --time-budget stopped the search early.")
    coverage: JsonObject | None = Field(
        None, description="What the judged inputs exercised (`oracle.harness.coverage`): inputs, features "
                          "(feature -> inputs), unreachable (feature -> why the capabilities rule it out).")


LINE_MODELS = {"header": Header, "record": Record, "footer": Footer}


class ResultsFormatError(BleuValueError):
    """A results.jsonl line that is not a valid header, record or footer; names the file and line."""


def validate_line(obj, *, where=""):
    """A header, record or footer dict (plain JSON data) validated by its model, and returned as it is:
    the line is checked, not rewritten (no defaults added, extra fields kept), and not copied."""
    kind = obj.get("type") if isinstance(obj, dict) else None
    model = LINE_MODELS.get(kind)
    prefix = f"{where}: " if where else ""
    if model is None:
        raise ResultsFormatError(f"{prefix}unknown record type {kind!r}")
    try:
        model.model_validate(obj)
        return obj
    except ValidationError as exc:
        error = exc.errors(include_url=False)[0]
        path = ".".join(str(part) for part in error["loc"])
        raise ResultsFormatError(f"{prefix}a {kind} line's `{path}`: {error['msg']} (got {error.get('input')!r:.80})") from None


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
