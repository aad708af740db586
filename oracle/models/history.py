"""A library's BLEU across its released versions (`bleu-oracle history`): what each version answered
where some version deviates, and the bisected ranges of each behaviour (reports/history/NAME.json)."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field


class _Part(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class VersionRun(_Part):
    """One version: measured (its outcome counts), or why it could not be."""

    version: str
    status: Literal["measured", "not-installable", "not-driven"]
    python: str | None = Field(None, description="The Python X.Y it ran under.")
    reason: str | None = Field(None, description="Why it was not measured.")
    seconds: float | None = Field(None, description="How long its check took (installing aside).")
    counts: dict[str, int] = Field(default_factory=dict, description="Records per outcome.")


class Change(_Part):
    """Between two consecutive measured versions the answer to one input changed."""

    before: str
    after: str
    was: str
    became: str


class Behaviour(_Part):
    """One input (a case, or a curated discrepancy's minimal example) across the measured versions."""

    id: str
    kind: Literal["case", "discrepancy", "example"] = Field(description="A case; a curated discrepancy of this "
                                                            "library; another library's discrepancy example.")
    group: str = Field(description="The case's group (its file), the discrepancy's class, or the other library.")
    answers: dict[str, str] = Field(description="version -> what it answered: `pass`, or the outcome, its score "
                                    "and root cause.")
    shows: tuple[str, ...] = Field(description="The versions showing the behaviour: a case deviating; a discrepancy's "
                                   "example classified as that discrepancy.")
    first: str | None = Field(None, description="The first measured version showing it.")
    last: str | None = Field(None, description="The last measured version showing it.")
    changes: tuple[Change, ...] = ()
    upstream: str | None = Field(None, description="The change upstream, where one was found (cited).")


class Citation(_Part):
    """An upstream change released between two measured versions, as found in the library's own records."""

    before: str
    after: str
    text: str = Field(description="What the record says, quoted, and where it is.")


class LibraryHistory(_Part):
    """Every version of one library that `history` was asked for, and each input some version deviates on."""

    library: str
    profile: str
    versions: tuple[VersionRun, ...]
    behaviours: tuple[Behaviour, ...] = Field(description="The inputs some version deviates on (the rest pass in "
                                              "every measured version).")
    passing_everywhere: int = Field(0, description="Inputs judged and passing in every measured version.")
    citations: tuple[Citation, ...] = Field((), description="Upstream changes released between two measured "
                                            "versions between which answers changed.")

    def measured(self) -> list[str]:
        return [run.version for run in self.versions if run.status == "measured"]
