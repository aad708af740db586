"""Which released versions of a library behave as a reading does, from `bleu-oracle history`'s committed data.

A reading that changes a convention from its profile (nltk with `segment_totals_floor=1`) may be exactly
how some releases of the profile's library behave: `history` classified that library's curated discrepancy
examples per version, and a discrepancy whose class is that very change (`segment_totals_floor=1`) shows in
the versions listed in reports/history/LIBRARY.json. The explanation then says so: "as nltk 3.2.5 .. 3.10.4
(of the measured 3.2 .. 3.10.4)". The data is read from $BLEU_ORACLE_HISTORY, else the repository's
reports/history/; none there means no version ranges.
"""

from __future__ import annotations

import os
from pathlib import Path

from pydantic import ValidationError

from oracle.formulas.memo import memoized
from oracle.models.history import LibraryHistory

#: The directory `bleu-oracle history` writes its summaries into, in this repository.
DEFAULT_DIRECTORY = Path(__file__).resolve().parents[2] / "reports" / "history"


def directory() -> Path:
    return Path(os.environ.get("BLEU_ORACLE_HISTORY") or DEFAULT_DIRECTORY)


@memoized(4)
def _histories(where: Path) -> dict[str, LibraryHistory]:
    """profile -> the library judged as that profile (nltk.json for `nltk`); unreadable files are left out: a
    missing range is no reason to refuse a diagnosis."""
    found = {}
    for path in sorted(where.glob("*.json")):
        try:
            history = LibraryHistory.model_validate_json(path.read_text(encoding="utf-8"))
        except (OSError, ValueError, ValidationError):
            continue
        found[history.profile] = history
    return found


def versions_for(profile: str, conventions: dict[str, str]) -> str | None:
    """"nltk 3.2.5 .. 3.10.4 (of the measured 3.2 .. 3.10.4)" when `profile`'s library shows, in those versions,
    a curated discrepancy whose class is one of the reading's changes `name=value`; else None."""
    history = _histories(directory()).get(profile)
    if history is None or not conventions:
        return None
    changes = {f"{name}={value}" for name, value in conventions.items()}
    measured = history.measured()
    for behaviour in history.behaviours:
        if behaviour.kind == "discrepancy" and behaviour.group in changes and behaviour.first and measured:
            return (f"{history.library} {behaviour.first} .. {behaviour.last} (of the measured {measured[0]} .. "
                    f"{measured[-1]}; `{behaviour.group}`: {behaviour.id.removeprefix('discrepancy-')})")
    return None


def release_range(profile: str, discrepancy: str) -> str | None:
    """"3.2.5 .. 3.10.4": the measured releases of `profile`'s library that show the curated discrepancy
    `discrepancy` (its id); None when the history has no such range."""
    history = _histories(directory()).get(profile)
    if history is None:
        return None
    for behaviour in history.behaviours:
        if behaviour.kind == "discrepancy" and behaviour.id == f"discrepancy-{discrepancy}" and behaviour.first:
            return behaviour.first if behaviour.first == behaviour.last else f"{behaviour.first} .. {behaviour.last}"
    return None
