"""The case file that `bleu-oracle fuzz --write-cases FILE` writes: regression cases found by fuzzing, one per root
cause, in the case file format (`oracle.suite.caseformat`), marked `found_by: fuzz` instead of quoting a seed.

This module writes and reads the file: ids (`fuzz-<implementation>-<root cause>-<8 hex digits of the input's
hash>`: the same input found again gets the same id, and an id taken or retired in the case directory is never
reused: the hash is lengthened), the YAML (quoting what the loader would read as a number), appending to a file
that exists and restoring it when the result does not load. Building a case from a fuzz run's record (its
expected value the implementation's answer, its explanation replayed on the oracle) is
`oracle.reports.foundcases`'s job.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

import yaml

from oracle.files import write_atomically
from oracle.formulas.errors import BleuValueError, CaseFileError
from oracle.models.protocol import encode

FOUND_BY = "fuzz"
HEADER = (
    "# Regression cases found by `bleu-oracle fuzz --write-cases` (see `bleu-oracle fuzz --help`).\n"
    "# expect: the value the implementation answered (never the oracle's); explained_by: the root cause,\n"
    "# which `bleu-oracle cases validate` replays on the oracle; `check` judges each input against the oracle.\n"
)
ID_PREFIX = "fuzz"


class _CaseDumper(yaml.SafeDumper):
    """SafeDumper that also quotes strings the case loader would read as numbers (`5e-5`)."""


_CaseDumper.add_implicit_resolver(
    "tag:yaml.org,2002:float", re.compile(r"^[-+]?[0-9][0-9_]*(\.[0-9_]*)?[eE][-+]?[0-9]+$"), list("-+0123456789"))


def slug(text: str, limit: int = 48) -> str:
    out = re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")[:limit].strip("-")
    if not out or not out[0].isalpha():
        out = "x" + ("-" + out if out else "")
    return out


def input_hash(payload: Mapping[str, Any]) -> str:
    return hashlib.sha256(encode(payload, ensure_ascii=False).encode("utf-8")).hexdigest()


def case_id(implementation: str, name: str, payload: Mapping[str, Any], taken: set[str]) -> str:
    """fuzz-<implementation>-<root cause>-<hash>, with a longer hash while the id is taken."""
    digest = input_hash(payload)
    for size in (8, 12, 16, 24, 32, 64):
        candidate = f"{ID_PREFIX}-{slug(implementation, 24)}-{slug(name)}-{digest[:size]}"
        if candidate not in taken:
            return candidate
    raise BleuValueError(f"no free case id for {name!r}")  # pragma: no cover - 64 hex digits collide


def read_target(path: Path | str) -> list[Any]:
    """The cases already in a --write-cases FILE (empty when it does not exist); raises BleuValueError when it
    is not a `found_by: fuzz` case file."""
    from oracle.suite import cases as casefiles

    path = Path(path)
    if not path.exists():
        return []
    try:
        loaded = casefiles.load_case_file(path)
    except CaseFileError as exc:
        raise BleuValueError(f"`--write-cases` {path} exists and is not a valid case file: {exc}") from None
    if any(case.found_by != FOUND_BY for case in loaded):
        raise BleuValueError(f"`--write-cases` {path} is a documented case file (it names a seed); "
                             "write found cases to a file of their own")
    return loaded


def existing_ids(cases_dir: Path | str | None, *, exclude: Path | str | None = None) -> set[str]:
    """Ids used or retired in a case directory, except in the file `exclude` (problems are ignored here)."""
    from oracle.suite import cases as casefiles

    directory = Path(cases_dir) if cases_dir is not None else casefiles.DEFAULT_CASES_DIR
    if not directory.is_dir():
        return set()
    ids = set()
    retired = directory / casefiles.RETIRED_FILE
    if retired.exists():
        try:
            ids |= {r.id for r in casefiles.load_retired(retired)}
        except CaseFileError:
            pass
    skip = Path(exclude).resolve() if exclude is not None else None
    for path in casefiles.case_files(directory):
        if skip is not None and path.resolve() == skip:
            continue
        for case in casefiles._parse_file(path, []):
            ids.add(case.id)
    return ids


def dump_cases(cases: Iterable[Mapping[str, Any]]) -> str:
    return yaml.dump(cases, Dumper=_CaseDumper, sort_keys=False, allow_unicode=True, default_flow_style=None,
                     width=110)


def file_text(cases: list[Mapping[str, Any]], *, document: str) -> str:
    """A new found-cases file holding `cases` (`document`: what found them)."""
    return HEADER + yaml.dump({"document": document, "found_by": FOUND_BY}, Dumper=_CaseDumper, sort_keys=False,
                              allow_unicode=True, width=110) + "cases:\n" + dump_cases(cases)


def append_cases(path: Path, cases: list[Mapping[str, Any]], *, document: str) -> None:
    """Append `cases` to the found-cases file `path` (created, with its header, when absent); the file is loaded
    back, and restored (or removed) when it does not load. Raises FileWriteError when it cannot be written (the
    file as it was)."""
    from oracle.suite import cases as casefiles

    original = path.read_text(encoding="utf-8") if path.exists() else None
    if original is None:
        text = file_text(cases, document=document)
    else:
        text = original.rstrip("\n") + "\n" + dump_cases(cases)
    write_atomically(path, text)  # whole or not at all: a full disk never cuts the cases already there
    try:
        casefiles.load_case_file(path)
    except CaseFileError as exc:
        if original is None:
            path.unlink()
        else:
            write_atomically(path, original)
        raise BleuValueError(f"`--write-cases` {path}: the written file does not load ({exc}); left unchanged "
                             "(appending needs `cases:` to be the file's last key)") from None
