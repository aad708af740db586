"""A baseline: the known deviations of one implementation, each with the reason it is acceptable.

One entry per key: a case id or an exact random example id (strict), a class of random examples
(`random:<outcome>[:<layer>]`) or a root cause (`cause:<name>`), which stand for many random
examples. A root-cause entry may also list documented cases (`cases: [...]`): one bug, one reason to
write, however many cases show it; each listed case is as strict as an entry of its own. `oracle.harness.gate`
applies a baseline to a run; `bleu-oracle baseline write` writes one for review and `baseline update`
keeps it to what a run observes. Keys other than those below (count, example, message, ...) are kept for the
reader.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    PrivateAttr,
    StrictBool,
    field_validator,
    model_validator,
)

from oracle.formulas.bounds import MAX_COUNT, number_problem

from .outcomes import GOOD_OUTCOMES, Outcome
from .results import CauseParts, parse_cause

CLASS_PREFIX = "random:"
CAUSE_PREFIX = "cause:"
CLASS_KEY = re.compile(r"^random:([a-z-]+)(?::([A-Za-z_]+))?$")


def _numbers_within_bounds(extra: dict | None) -> None:
    """Raise ValueError at the first number beyond the bounds of `oracle.formulas.bounds` among the fields kept
    for the reader (count, example, ...): what the baseline carries into a run's records and back to its file."""
    for name, value in (extra or {}).items():
        for number in _numbers_in(value):
            problem = number_problem(number)
            if problem is not None:
                raise ValueError(f"`{name}` {problem}")


def _numbers_in(value: object) -> Iterator[int | float]:
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        yield value
    elif isinstance(value, dict):
        for item in value.values():
            yield from _numbers_in(item)
    elif isinstance(value, (list, tuple)):
        for item in value:
            yield from _numbers_in(item)


class BaselineEntry(BaseModel):
    """One known deviation."""

    model_config = ConfigDict(extra="allow", frozen=True, defer_build=True)  # `oracle.models`: built on first use

    id: str = Field(
        min_length=1, description="A case id, random-<seed>-<index>, random:<outcome>[:<layer>] or cause:<name>."
    )
    outcome: Outcome = Field(description="The deviation's outcome (fail, error, crash, timeout, protocol-error).")
    reason: str = Field("", description="Why this deviation is known and acceptable.")
    layer: str | None = Field(None, description="When given, the first diverging layer must match too.")
    cases: tuple[str, ...] = Field(
        (), description="On a cause:<name> entry only: the documented cases this root cause makes deviate, each as "
                        "strict as an entry of its own (it must deviate with this outcome by this cause; one that "
                        "passes is an expected failure passed, one no record has is stale)."
    )

    cause_parts: CauseParts = Field((), exclude=True, repr=False)
    """A root-cause entry's cause (`cause:<name>`) as its mechanisms: read from its id here, where the baseline is
    read (never written); () for any other key."""

    @field_validator("cases", mode="before")
    @classmethod
    def _no_cases_is_an_empty_list(cls, value):
        return () if value is None else value  # `cases:` left with nothing under it (every case removed by hand)

    @field_validator("reason", mode="before")
    @classmethod
    def _a_reason_is_text(cls, value):
        if value is None:
            return ""
        if not isinstance(value, str):  # `reason: 123`, `reason: [a]`, a NaN: no reason anybody wrote
            raise ValueError(f"a reason is text saying why the deviation is acceptable (got {value!r:.60})")
        return value

    @property
    def reviewed(self) -> bool:
        """Whether a human wrote the reason: not empty, not the TODO `baseline write` leaves (`todo`, `TODO.`)."""
        return self.reason.strip().rstrip(".!:").strip().upper() not in ("", "TODO")

    @model_validator(mode="after")
    def _a_deviation_under_a_well_formed_key(self):
        _numbers_within_bounds(self.model_extra)
        if self.outcome in GOOD_OUTCOMES:
            raise ValueError(f"outcome {self.outcome.value!r} is not a deviation; only deviations belong in a baseline")
        if self.id == CAUSE_PREFIX:
            raise ValueError(f"a root-cause key is cause:<name> (got {self.id!r})")
        if self.id.startswith(CAUSE_PREFIX):
            object.__setattr__(self, "cause_parts", parse_cause(self.id.removeprefix(CAUSE_PREFIX)))
        if self.id.startswith(CLASS_PREFIX):
            match = CLASS_KEY.match(self.id)
            if not match:
                raise ValueError(f"a class key is random:<outcome>[:<layer>] (got {self.id!r})")
            if match.group(1) != self.outcome.value:
                raise ValueError(f"the key's outcome {match.group(1)!r} differs from `outcome` {self.outcome.value!r}")
            if match.group(2):
                object.__setattr__(self, "layer", match.group(2))
        self._cases_of_a_cause()
        return self

    def _cases_of_a_cause(self):
        if not self.cases:
            return
        if not self.id.startswith(CAUSE_PREFIX):
            raise ValueError(f"only a root-cause entry (cause:<name>) lists cases; {self.id!r} is its own key")
        seen = set()
        for case in self.cases:
            if not case or case.startswith((CLASS_PREFIX, CAUSE_PREFIX)):
                raise ValueError(f"`cases` lists case ids (got {case!r:.80})")
            if case in seen:
                raise ValueError(f"`cases` lists {case!r} twice")
            seen.add(case)

    @property
    def is_class(self):
        """A key that stands for many random examples (not strict: unused entries only warn)."""
        return self.id.startswith((CLASS_PREFIX, CAUSE_PREFIX))


class Baseline(BaseModel):
    """A baseline file: who it is for, and its entries (ids unique)."""

    # `oracle.models`: built on first use
    model_config = ConfigDict(extra="allow", frozen=True, populate_by_name=True, defer_build=True)

    implementation: dict[str, Any] | None = None
    profile: str | None = None
    source: str | None = Field(None, alias="from", description="The run it was written from.")
    seed: int | None = Field(None, ge=-MAX_COUNT, le=MAX_COUNT, description="The seed of the run it was written from.")
    examples: int | None = Field(
        None, ge=0, le=MAX_COUNT, description="The random examples the run it was written from drew: `baseline "
        "update` removes a cause or class entry a run did not meet only when that run drew at least as many.")
    strict: StrictBool | None = Field(
        None, description="True: the runs it gates refuse the inputs the documents leave undefined too, as "
                          "`check --strict` does (a convention's value, otherwise acceptable, is a deviation).")
    entries: tuple[BaselineEntry, ...] = ()
    _path: str | None = PrivateAttr(None)

    @model_validator(mode="after")
    def _numbers_kept_for_the_reader_within_bounds(self):
        _numbers_within_bounds(self.model_extra)
        return self

    @field_validator("entries", mode="after")
    @classmethod
    def _unique_ids(cls, entries):
        seen = set()
        for entry in entries:
            if entry.id in seen:
                raise ValueError(f"duplicate id {entry.id!r}")
            seen.add(entry.id)
        listed: dict[str, str] = {}  # one entry per case: two would each claim its record
        for entry in entries:
            for case in entry.cases:
                if case in seen:
                    raise ValueError(f"case {case!r} is an entry of its own and listed under {entry.id}'s cases")
                if case in listed:
                    raise ValueError(f"case {case!r} is listed under {listed[case]} and under {entry.id}")
                listed[case] = entry.id
        return entries

    def mismatch(self, implementation: str | None, profile: str | None) -> str | None:
        """Why this baseline does not gate a run of `implementation` judged under `profile` (another
        implementation's or profile's: its entries would forgive deviations nobody reviewed for this one), or None
        when its header names neither or both match."""
        written_for = (self.implementation or {}).get("name")
        differ = []
        if written_for and implementation and written_for != implementation:
            differ.append(f"implementation {written_for!r}, not {implementation!r}")
        if self.profile and profile and self.profile != profile:
            differ.append(f"profile {self.profile!r}, not {profile!r}")
        return "; ".join(differ) or None

    def at(self, path):
        """This baseline, noting the file it was read from."""
        self._path = str(path)
        return self

    @property
    def path(self):
        return self._path

    @property
    def by_id(self):
        return {entry.id: entry for entry in self.entries}

    @property
    def by_case(self):
        """The root-cause entry that lists each case, by case id."""
        return {case: entry for entry in self.entries for case in entry.cases}

    def __len__(self):
        return len(self.entries)


SCHEMA_PATH = Path(__file__).resolve().parent / "schemas" / "baseline.schema.json"


def render_schema():
    """The text of the shipped baseline JSON Schema, generated from `Baseline`."""
    schema = {"$schema": "https://json-schema.org/draft/2020-12/schema", "$id": "urn:bleu-oracle:baseline:1",
              **Baseline.model_json_schema(by_alias=True)}
    return json.dumps(schema, indent=2, ensure_ascii=False) + "\n"


if __name__ == "__main__":  # python -m oracle.models.baseline: regenerate the schema file
    SCHEMA_PATH.write_text(render_schema(), encoding="utf-8")
    print(SCHEMA_PATH)
