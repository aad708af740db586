"""A curated discrepancy: where one library departs from the documentation it claims, shown on a minimal
input, with its root cause in the library's code and what became of it upstream.

The entries live in `oracle/diagnose/data/discrepancies.yaml`; `oracle.diagnose.discrepancies` loads them
through this model, `check` names them beside a root cause, and `bleu-oracle report` turns them into the
trophy case (reports/trophies.md).
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

KINDS = ("score", "rejection", "statistics")


class _Frozen(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class RootCause(_Frozen):
    """Where in the library's code the departure is."""

    file: str = Field(min_length=1, description="The source file, relative to the package or repository.")
    function: str = Field(min_length=1, description="The function or method.")
    detail: str = Field(min_length=1, description="The line or expression, quoted.")


class Contradicts(_Frozen):
    """The documentation the behaviour departs from."""

    source: str = Field(min_length=1, description="The document (the library's own, or the profile's citation).")
    quote: str = Field(min_length=1, description="What it says, quoted.")


class Example(_Frozen):
    """The minimal input, with what the library answered and what the oracle says."""

    request: dict[str, Any] = Field(description="A protocol-v1 score request (without cmd and seq).")
    implementation: dict[str, Any] = Field(
        description="The library's answer: {score: ...} or {error: ...} or statistics."
    )
    oracle: dict[str, Any] = Field(description="The oracle's answer under the entry's profile.")
    classified_as: str | None = Field(
        None, description="The root cause `oracle.diagnose.classify` names for the answer."
    )


class Discrepancy(_Frozen):
    """One curated discrepancy of one implementation."""

    id: str = Field(pattern=r"^[a-z0-9][a-z0-9-]*$", description="Stable id: <implementation>-<what>.")
    implementation: str = Field(min_length=1, description="The registry name of the implementation (`--impl`).")
    version: str = Field(min_length=1, description="The version the behaviour was observed in.")
    profile: str = Field(min_length=1, description="The profile whose documentation it departs from.")
    summary: str = Field(min_length=1, description="What the library does, in one or two sentences.")
    kind: Literal[KINDS] = Field(description="score: a wrong number; rejection: a valid input refused (or a crash); "
                                             "statistics: a wrong reported statistic.")
    classify: str | None = Field(None, description="The explanation name `classify` gives such answers (kind score).")
    rejection: str | None = Field(None, description="The start of the library's error message (kind rejection).")
    condition: str | None = Field(
        None, description="The input condition under which the library refuses (kind rejection)."
    )
    example: Example
    root_cause: RootCause
    contradicts: Contradicts
    upstream: str = Field(min_length=1, description="What became of it upstream: an issue or pull request with its "
                                                    "state, \"deliberate\", or not found where that was searched.")
    note: str | None = Field(None, description="Anything a reader needs besides.")
    observed: str | None = Field(
        None, description="How the behaviour was observed, where the example does not show it."
    )

    @model_validator(mode="after")
    def _kind_has_its_fields(self):
        if self.kind == "rejection" and not (self.rejection and self.condition):
            raise ValueError("a rejection entry names its `rejection` message and its `condition`")
        if self.kind == "score" and not self.classify:
            raise ValueError("a score entry names the explanation `classify` gives (`classify`)")
        return self
