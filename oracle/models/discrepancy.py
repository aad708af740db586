"""A curated discrepancy: where one library departs from the documentation it claims, shown on a minimal
input, with its root cause in the library's code and what became of it upstream.

The entries live in `oracle/diagnose/data/discrepancies.yaml`; `oracle.diagnose.discrepancies` loads them
through this model, `check` names them beside a root cause, and `bleu-oracle report` turns them into the
trophy case (reports/trophies.md). `schemas/discrepancies.schema.json` is generated from `DiscrepancyFile`
(`python -m oracle.models.discrepancy`; tests/diagnose/test_discrepancies.py keeps it current).
"""

from __future__ import annotations

import datetime
import json
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, model_validator

from .results import CauseParts, parse_cause

KINDS = ("score", "rejection", "statistics")
#: A thread's state as the tracker showed it when it was last checked.
THREAD_STATES = ("open", "closed", "merged", "closed without merging")
#: How far an entry got upstream, furthest first: the trophy case counts each entry under its furthest stage.
STAGES = ("fixed", "deliberate", "acknowledged", "reported", "found")


def _iso_date(value: Any) -> Any:
    """YAML reads an unquoted 2026-11-25 as a date: keep it as the ISO text the model stores."""
    return value.isoformat() if isinstance(value, datetime.date) else value


#: A calendar date, YYYY-MM-DD (YAML may write it quoted or not).
IsoDate = Annotated[str, BeforeValidator(_iso_date), Field(pattern=r"^\d{4}-\d{2}-\d{2}$")]


class _Frozen(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True, defer_build=True)  # `oracle.models`: built on first use


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


class Tolerance(_Frozen):
    """How far an answer may lie from the score recorded (`example.implementation`) and still be the same
    observation, beyond the numeric contract: |answer - recorded| <= absolute + relative * |recorded|. Only for an
    entry whose library's own arithmetic gives a different last bit on different machines (float32 kernels that
    round by CPU), `why` quoting each value seen and where; every other entry reproduces its recorded score within
    the contract. It widens what counts as the same observation, never what counts as correct: the answer is still
    judged against the oracle at the contract. The tests of the curated examples (tests/diagnose/test_differential.py)
    and of the upstream drafts (tests/repository/test_upstream.py), and the trophy case's re-run, read it
    (`oracle.diagnose.discrepancies.reproduces`)."""

    relative: float = Field(0.0, ge=0.0, le=1e-3, description="The relative part (of |recorded|).")
    absolute: float = Field(0.0, ge=0.0, le=1e-3, description="The absolute part.")
    why: str = Field(min_length=1, description="Why the answer differs by machine, quoting each value seen and where.")

    @model_validator(mode="after")
    def _widens(self) -> Tolerance:
        if not (self.relative or self.absolute):
            raise ValueError("a tolerance states its `relative` or `absolute` part (the contract needs none)")
        return self


class Thread(_Frozen):
    """An upstream issue or pull request, with its state as last checked."""

    url: str = Field(pattern=r"^https://\S+$", description="The thread's address (https only).")
    state: Literal[THREAD_STATES] = Field(description="Its state when it was last checked.")
    checked: IsoDate = Field(description="When its state was last checked (YYYY-MM-DD).")
    says: str | None = Field(None, description="What it says that bears on the entry, in a few words or a quote.")


class Reported(Thread):
    """The thread that reports this very behaviour."""

    date: IsoDate = Field(description="When the thread was opened (YYYY-MM-DD).")


class Fixed(_Frozen):
    """The release or commit that fixes it."""

    version: str | None = Field(None, min_length=1, description="The first release with the fix.")
    commit: str | None = Field(None, pattern=r"^[0-9a-f]{7,40}$", description="The commit that fixes it.")
    thread: Thread | None = Field(None, description="The pull request or issue that closed it.")

    @model_validator(mode="after")
    def _names_a_version_or_commit(self) -> Fixed:
        if not (self.version or self.commit):
            raise ValueError("a fix names the `version` or the `commit` that carries it")
        return self


class Deliberate(_Frozen):
    """The maintainers' decision that the behaviour is intended: a thread, or the library's own documentation."""

    thread: Thread | None = Field(None, description="Where the maintainers decided (or merged the change).")
    documented: str | None = Field(None, min_length=1, description="The library's documentation, quoted.")

    @model_validator(mode="after")
    def _cites_the_decision(self) -> Deliberate:
        if not (self.thread or self.documented):
            raise ValueError("a deliberate behaviour cites the maintainers' `thread` or the `documented` text")
        return self


class Upstream(_Frozen):
    """What became of a discrepancy upstream. Every link is a thread that was looked at, with its state and the
    date it was checked; where nothing was found, only `found` and `searched` are set."""

    found: IsoDate = Field(description="When this suite found it (the entry's first commit).")
    searched: IsoDate = Field(description="When the library's tracker was last searched for it.")
    reported: Reported | None = Field(None, description="The thread that reports this behaviour.")
    acknowledged: Thread | None = Field(None, description="Where a maintainer agreed it is a bug.")
    fixed: Fixed | None = None
    deliberate: Deliberate | None = None
    related: list[Thread] = Field(
        default_factory=list, description="Threads about something else that touch it (a neighbouring bug, a "
                                          "downstream report, the change that introduced it)."
    )
    note: str | None = Field(None, description="What the search found besides, in words.")

    @model_validator(mode="after")
    def _dates_in_order(self) -> Upstream:
        if self.found > self.searched:
            raise ValueError(f"`found` ({self.found}) is after `searched` ({self.searched})")
        for thread in self.threads():
            if thread.checked > self.searched:
                raise ValueError(f"{thread.url} was checked ({thread.checked}) after the last search ({self.searched})")
        if self.reported is not None and self.reported.date > self.reported.checked:
            raise ValueError(f"{self.reported.url} was opened ({self.reported.date}) after it was checked")
        if self.fixed is not None and self.deliberate is not None:
            raise ValueError("an entry is either `fixed` or `deliberate`, not both")
        return self

    def threads(self) -> list[Thread]:
        """Every thread the entry links, reported first."""
        linked: list[Thread | None] = [
            self.reported, self.acknowledged,
            self.fixed.thread if self.fixed is not None else None,
            self.deliberate.thread if self.deliberate is not None else None,
        ]
        return [thread for thread in linked if thread is not None] + list(self.related)

    @property
    def stage(self) -> str:
        """The furthest stage (one of STAGES): fixed, deliberate, acknowledged, reported, or found only."""
        for stage in STAGES[:-1]:
            if getattr(self, stage) is not None:
                return stage
        return "found"

    def text(self) -> str:
        """The status in one line, for a report or a note."""
        parts = [f"found {self.found}"]
        for name in ("reported", "acknowledged"):
            thread = getattr(self, name)
            if thread is not None:
                parts.append(f"{name}: {_thread_text(thread)}")
        if self.fixed is not None:
            parts.append("fixed in " + " / ".join(filter(None, (self.fixed.version, self.fixed.commit))))
        if self.deliberate is not None:
            decision = self.deliberate.thread
            quoted = f"documented, \u201c{self.deliberate.documented}\u201d"
            parts.append("deliberate: " + (_thread_text(decision) if decision else quoted))
        parts.extend(f"related: {_thread_text(thread)}" for thread in self.related)
        if self.stage == "found":
            parts.append(f"not found in its tracker (searched {self.searched})")
        return "; ".join(parts)


def _thread_text(thread: Thread) -> str:
    """A thread for reading: its address, its state on the date checked, what it says."""
    says = f": {thread.says}" if thread.says else ""
    return f"{thread.url} ({thread.state}, checked {thread.checked}){says}"


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
    reproduced_within: Tolerance | None = Field(
        None, description="How far a re-run answer may lie from the recorded score and still reproduce it, where the "
                          "library's arithmetic differs by machine (kind score; absent: the numeric contract).")
    root_cause: RootCause
    contradicts: Contradicts
    upstream: Upstream = Field(description="What became of it upstream, as structured data (found, reported, "
                                           "acknowledged, fixed, deliberate, related), each thread with its state "
                                           "as last checked.")
    note: str | None = Field(None, description="Anything a reader needs besides.")
    observed: str | None = Field(
        None, description="How the behaviour was observed, where the example does not show it."
    )
    classify_parts: CauseParts = Field((), exclude=True, repr=False)
    """The mechanisms `classify` joins: read from it here, where the file is read (never written)."""

    @model_validator(mode="after")
    def _kind_has_its_fields(self):
        object.__setattr__(self, "classify_parts", parse_cause(self.classify) if self.classify else ())
        if self.kind == "rejection" and not (self.rejection and self.condition):
            raise ValueError("a rejection entry names its `rejection` message and its `condition`")
        if self.kind == "score" and not self.classify:
            raise ValueError("a score entry names the explanation `classify` gives (`classify`)")
        if self.reproduced_within is not None and not (
                self.kind == "score" and isinstance(self.example.implementation.get("score"), (int, float))):
            raise ValueError("`reproduced_within` is for a score entry whose example records a number")
        return self


class DiscrepancyFile(_Frozen):
    """The curated discrepancy file (oracle/diagnose/data/discrepancies.yaml)."""

    discrepancies: list[Discrepancy]


SCHEMA_PATH = Path(__file__).resolve().parent / "schemas" / "discrepancies.schema.json"


def render_schema() -> str:
    """The text of the shipped discrepancy-file JSON Schema, generated from `DiscrepancyFile`."""
    schema = {"$schema": "https://json-schema.org/draft/2020-12/schema", "$id": "urn:bleu-oracle:discrepancies:1",
              **DiscrepancyFile.model_json_schema()}
    return json.dumps(schema, indent=2, ensure_ascii=False) + "\n"


if __name__ == "__main__":  # python -m oracle.models.discrepancy: regenerate the schema file
    SCHEMA_PATH.write_text(render_schema(), encoding="utf-8")
    print(SCHEMA_PATH)
