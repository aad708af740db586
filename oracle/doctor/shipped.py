"""Where a profile's own library, as shipped, departs from the profile: the documented reading and the one its
code computes.

A profile encodes what its library's documentation says (`oracle.formulas.profiles`). Where the library's code
departs from it in one convention, a curated discrepancy (oracle/diagnose/data/discrepancies.yaml) names that
convention as its class: nltk's is `segment_totals_floor=1` (corpus_bleu floors each segment's n-gram totals at 1).
The library as shipped is then the profile with that convention changed, and a number the library printed is
that reading's, not the profile's. `doctor` and `score` say so beside the profile's number, and the ranking of
explanations takes such a change as the library's own default, not a departure from it.

Only departures that are one convention of the formulas with one value count here (a class like `float32` or
`tiny-instead-of-zero` names no reading doctor can compute).
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from functools import lru_cache

from oracle.formulas.conventions import Options
from oracle.formulas.profiles import PROFILES

from .readings import CONVENTIONS

#: The conventions a shipped departure may change: those a reading of doctor's changes (`readings.CONVENTIONS`)
#: that are options of the formulas with plain values (a smoothing is a method with parameters).
_PLAIN = {f.name: f.type for f in fields(Options) if f.name in CONVENTIONS and f.name != "smoothing"}
#: The profiles that have such a departure in the curated file (tests/doctor/test_doctor.py keeps this the set the file
#: gives): `score` under any other profile reads neither the file nor pydantic, and starts as fast as before.
DEPARTING = frozenset({"nltk"})


@dataclass(frozen=True)
class Departure:
    """One convention in which a profile's library, as shipped, departs from the profile."""

    #: the library, which is the profile's name (nltk)
    library: str
    #: the curated discrepancy's id
    discrepancy: str
    #: the convention and the value the code uses
    convention: str
    value: object
    #: what the code does, in words (the discrepancy's summary, its first clause)
    what: str
    #: the releases showing it ("3.2.5 .. 3.10.4", `bleu-oracle history`'s data), else the version it was found in
    versions: str

    @property
    def change(self) -> str:
        """`segment_totals_floor=1`: the class, as `bleu-oracle profiles` and the explanations write it."""
        return f"{self.convention}={self.value}"

    def options(self, options: Options) -> Options:
        return options.with_changes(**{self.convention: self.value})


def departures(profile: str) -> tuple[Departure, ...]:
    """The departures of `profile`'s own library (the implementation of the same name) from the profile."""
    return curated_departures().get(profile, ()) if profile in DEPARTING else ()


def shipped_changes(profile: str) -> frozenset[str]:
    """`{"segment_totals_floor=1"}`: the changes that make `profile` its library as shipped."""
    return frozenset(departure.change for departure in departures(profile))


@lru_cache(maxsize=1)  # not a memo: a constant table, the curated file's one reading (no argument, one value)
def curated_departures() -> dict[str, tuple[Departure, ...]]:
    """Every profile's departures, from the curated file (read here, once)."""
    from oracle.diagnose.discrepancies import load

    from .history import release_range

    found: dict[str, list[Departure]] = {}
    for entry in load():
        profile = entry.get("profile")
        if entry.get("kind") != "score" or profile not in PROFILES or entry.get("implementation") != profile:
            continue
        name, equals, text = str(entry.get("classify") or "").partition("=")
        if not equals or name not in _PLAIN:
            continue
        value = _value(name, text)
        if value is None or getattr(PROFILES[profile].options, name) == value:
            continue
        versions = release_range(profile, entry["id"]) or str(entry.get("version", "?"))
        found.setdefault(profile, []).append(
            Departure(profile, entry["id"], name, value, _first_clause(entry.get("summary", "")), versions))
    return {profile: tuple(items) for profile, items in found.items()}


def _value(name: str, text: str) -> object:
    """The class's value as the option's type (`1` -> 1 for a count); None when it is not one."""
    kind = str(_PLAIN[name])
    if kind == "int":
        return int(text) if text.isdigit() else None
    if kind == "bool":
        return {"true": True, "false": False}.get(text)
    return text or None


def _first_clause(summary: str) -> str:
    """'corpus_bleu floors every segment's n-gram total at 1 before summing' of a summary that goes on to say why
    it matters (', so ...', ': ...')."""
    text = " ".join(summary.split())
    cut = min((index for index in (text.find(", so "), text.find(": ")) if index > 0), default=len(text))
    return text[:cut]
