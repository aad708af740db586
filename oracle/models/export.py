"""The language-neutral export of the suite (`bleu-oracle cases export`): one model per part, the
source of `suite.schema.json`, so a JavaScript, Rust or C++ test suite can iterate over the cases
without Python, as JSON-Schema-Test-Suite is consumed."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

EXPORT_FORMAT = "bleu-oracle-suite/1"
SCHEMA_PATH = Path(__file__).resolve().parent / "schemas" / "suite.schema.json"


class _Part(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class Source(_Part):
    """Where the case comes from."""

    document: str = Field(description="The document that states the value: its title or its URL.")
    section: str = Field(description="Where in the document: a section, a page, a test's name.")
    quote: str = Field(description="The words of the document the case rests on.")


class Expected(_Part):
    """What a conforming implementation answers, under this profile."""

    rejected: bool = Field(description="True: the input is invalid and must be rejected.")
    reason: str | None = Field(None, description="Why it is rejected.")
    score: float | str | None = Field(
        None, description="The oracle's score on the 0-1 scale as a float (\"NaN\" when undefined).")
    score_exact: str | None = Field(None, description="The same, exact to 50 significant digits.")
    statistics: dict[str, Any] | None = Field(
        None, description="hyp_len, ref_len, matches and totals per order (exact integers), bp (a float).")
    rel: float = Field(description="Relative tolerance: |actual - score| <= abs + rel * |score|.")
    abs: float = Field(description="Absolute tolerance.")


class Printed(_Part):
    """The value the document itself prints, where it prints one."""

    score: float | str | None = Field(None, description="The printed score (0-1 scale).")
    tolerance: float | None = Field(None, description="Half a unit of the last printed digit; null: exact.")
    statistics: dict[str, Any] | None = Field(None, description="Printed statistics.")
    rejected: bool | None = Field(None, description="True: the document says the input is invalid.")


class ExportedCase(_Part):
    """One documented case under one of its profiles."""

    id: str = Field(description="The case's stable id (the same in every export).")
    title: str
    profile: str = Field(description="The profile (set of conventions) the expectation holds under.")
    conventions: dict[str, Any] = Field(
        description="Every convention of the profile, with the case's own overrides applied "
                    "(`bleu-oracle profiles --json` describes them).")
    request: dict[str, Any] = Field(
        description="The input as protocol v1's score command carries it (PROTOCOL.md): level, segments, "
                    "weights, smoothing, lowercase.")
    expected: Expected
    printed: Printed | None = Field(None, description="What the document prints, within its tolerance.")
    source: Source


class LeftOut(_Part):
    """A case under a profile that the export leaves out, and why (nothing is dropped silently)."""

    id: str
    profile: str
    reason: str


class Suite(_Part):
    """The whole export."""

    format: str = Field(EXPORT_FORMAT, description="The export's format and version.")
    suite_version: str = Field(description="The version of the documented cases.")
    oracle_version: str = Field(description="The bleu-oracle that wrote it.")
    cases: list[ExportedCase]
    left_out: list[LeftOut] = Field(default_factory=list, description="Cases protocol v1 cannot carry, and why.")


def json_schema():
    schema = Suite.model_json_schema()
    schema["$schema"] = "https://json-schema.org/draft/2020-12/schema"
    schema["$id"] = "https://bleu-oracle.invalid/schemas/suite.schema.json"
    return schema


def render_schema():
    return json.dumps(json_schema(), indent=2, ensure_ascii=False) + "\n"


if __name__ == "__main__":  # python -m oracle.models.export: regenerate the committed schema
    SCHEMA_PATH.write_text(render_schema(), encoding="utf-8")
    print(SCHEMA_PATH)
