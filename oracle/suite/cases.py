"""Documented cases: the case files in `cases/` and their loader (files, directories, retired ids, quotes).

A case file holds the cases taken from one source document::

    document: "MATLAB Text Analytics Toolbox, bleuEvaluationScore reference page"
    seed: "000_57c522b03cf4596a.txt"
    cases:
      - id: matlab-summary-bleu4
        title: ...
        source: {document: ..., section: ..., quote: "score = 0.7825"}
        profiles: [matlab]
        kind: value
        input: {level: corpus, segments: [{hypothesis: [...], references: [[...]]}]}
        options: {weights: [0.5, 0.5]}
        expect: {score: 0.7825, tolerance: 0.00005}
        note: ...

The models in `oracle.models.case` are the format: each field is described there, and
`oracle/models/schemas/case.schema.json` is generated from them. Reading is strict: plain
YAML through the safe loader only (no tags that build Python objects, no aliases), no
duplicate keys, no unknown fields, and every problem names the file, the line and the case
id (`oracle.models.case.file_errors`); `validate` lists every problem at once. Numbers are read as
exact decimals (`0.7825` is `Decimal("0.7825")`, never a binary float), and
strings such as `"3/5"` are exact fractions.

Retired ids are listed in `cases/retired.yaml` (`retired: [{id, reason}]`)
and may never be used again: other tools key their baselines on case ids.

Cases found by `bleu-oracle fuzz --write-cases` have another provenance: the
file says `found_by: fuzz` instead of naming a seed (there is no document to
quote), each case's `expect` holds the value an implementation *answered*
(an independent implementation, never the oracle), and each case names the
root cause `oracle.diagnose.classify` found for it in `explained_by: {name, change}`.
`oracle.diagnose.casecheck.check_case` (and so `cases validate`) recomputes the oracle under that
explanation and compares it with the implementation's value; `bleu-oracle
check` judges such a case against the oracle only (the observed value is not a
documented one)::

    document: "bleu-oracle fuzz against nltk 3.10.4"
    found_by: fuzz
    cases:
      - id: fuzz-nltk-segment-totals-floor-1-5d41402a
        ...
        expect: {score: 0.8801117367933934, tolerance: 8.9e-10}
        explained_by: {name: segment_totals_floor=1, change: [[segment_totals_floor, 1]]}
"""

from __future__ import annotations

from collections.abc import Sequence
from decimal import Decimal
from pathlib import Path

from pydantic import ValidationError

from oracle.formulas.bleu import LEVELS  # noqa: F401 - the levels a case's input may name
from oracle.formulas.errors import CaseFileError
from oracle.models.case import (  # noqa: F401 - the case model, re-exported for the loader's users
    FOUND_BY,
    ID_PATTERN,
    KINDS,
    Case,
    CaseExpect,
    CaseFile,
    CaseInput,
    CaseOptions,
    CaseSegment,
    CaseSource,
    ExpectedStatistics,
    ExplainedBy,
    RetiredFile,
    RetiredId,
    failed_items,
    file_errors,
)

from .caseformat import (  # noqa: F401 - re-exported for the tests and tools
    DEFAULT_CASES_DIR,
    DEFAULT_SEEDS_DIR,
    EXACT_SLACK,
    RETIRED_FILE,
    CaseLoader,
    read_yaml,
)

# -- Files and directories ---------------------------------------------------


def _parse_file(path: Path, problems: list[CaseFileError]) -> list[Case]:
    """The cases of one file, each placed at its line; every problem found is appended to `problems`, in the
    order of the file. When the file has problems, the cases valid on their own are still given (without
    their file's provenance), so that the directory's checks (ids unique, not retired) see them too."""
    try:
        document = read_yaml(path)
    except CaseFileError as exc:
        problems.append(exc)
        return []
    if document is None:
        problems.append(CaseFileError("the file is empty (expected `document` and `cases`)", path=path, line=1))
        return []
    try:
        cases: Sequence[tuple[int, Case]] = list(enumerate(CaseFile.model_validate(document).cases))
    except ValidationError as exc:
        problems.extend(file_errors(exc, CaseFile, document, path))
        raw = document.get("cases") if isinstance(document, dict) else None
        cases = CaseFile.valid_on_their_own(raw, failed_items(exc, ("cases",)))
    lines = getattr(document.get("cases") if isinstance(document, dict) else None, "item_lines", [])
    return [case.at(path, lines[index] if index < len(lines) else None) for index, case in cases]


def load_case_file(path: Path | str) -> list[Case]:
    """The cases of one file; raises CaseFileError on the first problem."""
    problems: list[CaseFileError] = []
    cases = _parse_file(Path(path), problems)
    if problems:
        raise problems[0]
    return cases


def load_retired(path: Path | str) -> list[RetiredId]:
    """Retired ids from `retired.yaml`: `retired: [{id, reason}]` (the list may be empty); raises
    CaseFileError on the first problem."""
    path = Path(path)
    document = read_yaml(path)
    if document is None:
        raise CaseFileError("the file is empty (expected `retired: []`)", path=path, line=1)
    try:
        retired = RetiredFile.model_validate(document).retired
    except ValidationError as exc:
        raise file_errors(exc, RetiredFile, document, path)[0] from None
    lines = getattr(document.get("retired"), "item_lines", [])
    return [entry.at(path, lines[index] if index < len(lines) else None) for index, entry in enumerate(retired)]


def _resolve_directory(directory: Path | str | None) -> Path:
    """The case directory, or one case file (a file of one's own may live anywhere); default the bundled cases."""
    directory = Path(directory) if directory is not None else DEFAULT_CASES_DIR
    if directory.is_file():
        if directory.name == RETIRED_FILE:
            raise CaseFileError(f"{RETIRED_FILE} lists retired ids, not cases: pass a case file or the directory "
                                "holding them", path=directory)
        return directory
    if not directory.is_dir():
        raise CaseFileError(
            "no such case file or directory (pass a *.yaml case file, or the directory holding the case files, "
            "e.g. --cases cases/)",
            path=directory,
        )
    return directory


def case_files(directory: Path | str | None = None) -> list[Path]:
    """The case files of a directory: every `*.yaml` except `retired.yaml`, sorted by name; given one case
    file, just that file."""
    directory = _resolve_directory(directory)
    if directory.is_file():
        return [directory]
    return sorted(p for p in directory.glob("*.yaml") if p.name != RETIRED_FILE)


def validate(directory: Path | str | None = None) -> list[CaseFileError]:
    """Every problem in a case directory or case file (empty list: all good), each a CaseFileError."""
    try:
        directory = _resolve_directory(directory)
    except CaseFileError as exc:
        return [exc]
    problems: list[CaseFileError] = []
    _load_directory(directory, problems)
    return problems


def _load_directory(directory: Path, problems: list[CaseFileError]) -> list[Case]:
    retired: dict[str, RetiredId] = {}
    retired_path = (directory.parent if directory.is_file() else directory) / RETIRED_FILE  # a file: its neighbours'
    if retired_path.exists():
        try:
            retired = {r.id: r for r in load_retired(retired_path)}
        except CaseFileError as exc:
            problems.append(exc)
    files = case_files(directory)
    if not files:
        problems.append(CaseFileError("no case files (*.yaml) in the directory", path=directory))
    seen: dict[str, Case] = {}
    cases: list[Case] = []
    for path in files:
        for case in _parse_file(path, problems):
            if case.id in retired:
                r = retired[case.id]
                problems.append(
                    CaseFileError(
                        f"case id `{case.id}` is retired ({r.path}:{r.line}: {r.reason}); ids are never reused, "
                        "choose a new one",
                        path=path,
                        line=case.line,
                        case_id=case.id,
                    )
                )
            elif case.id in seen and seen[case.id].path != case.path:
                other = seen[case.id]
                problems.append(
                    CaseFileError(
                        f"duplicate case id `{case.id}` (also at {other.path}:{other.line})",
                        path=path, line=case.line, case_id=case.id,
                    )
                )
            else:
                seen[case.id] = case
                cases.append(case)
    return cases


def load_cases(directory: Path | str | None = None) -> list[Case]:
    """Every case in `directory` (default: the repository's `cases/`) or in one case file, in file and then
    file order. Raises CaseFileError on the first problem; `validate` lists them all."""
    directory = _resolve_directory(directory)
    problems: list[CaseFileError] = []
    cases = _load_directory(directory, problems)
    if problems:
        raise problems[0]
    return cases


def read_plain(path: Path | str) -> object:
    """A case (or retired) file as plain JSON-compatible data, for JSON Schema validation:
    numbers as int/float, mapping keys as strings. YAML problems raise CaseFileError."""

    def plain(value: object) -> object:
        if isinstance(value, dict):
            return {str(k): plain(v) for k, v in value.items()}
        if isinstance(value, list):
            return [plain(v) for v in value]
        if isinstance(value, Decimal):
            return float(value)
        return value

    return plain(read_yaml(Path(path)))


# -- Provenance: quotes appear in their seeds ---------------------------------


def normalise_whitespace(text: str) -> str:
    return " ".join(text.split())


def quote_problems(cases: Sequence[Case], seeds_dir: Path | str | None = None) -> list[CaseFileError]:
    """Cases whose quote is not found (modulo whitespace runs) in their seed file. Cases from a
    `found_by` file name no seed and quote no document: they are not checked here."""
    seeds_dir = Path(seeds_dir) if seeds_dir is not None else DEFAULT_SEEDS_DIR
    texts: dict[str, str | None] = {}
    problems: list[CaseFileError] = []
    for case in cases:
        seed = case.source.seed
        if seed is None:
            continue
        if seed not in texts:
            path = seeds_dir / seed
            texts[seed] = normalise_whitespace(path.read_text(encoding="utf-8")) if path.is_file() else None
        text = texts[seed]
        if text is None:
            problems.append(
                CaseFileError(
                    f"seed file {seed!r} not found in {seeds_dir}", path=case.path, line=case.line, case_id=case.id
                )
            )
        elif normalise_whitespace(case.source.quote) not in text:
            problems.append(
                CaseFileError(
                    f"`source.quote` {case.source.quote!r} does not appear in seed {seed}",
                    path=case.path,
                    line=case.line,
                    case_id=case.id,
                )
            )
    return problems


__all__ = [
    "Case",
    "CaseExpect",
    "CaseInput",
    "CaseLoader",
    "CaseOptions",
    "CaseSegment",
    "CaseSource",
    "ExplainedBy",
    "FOUND_BY",
    "DEFAULT_CASES_DIR",
    "DEFAULT_SEEDS_DIR",
    "ExpectedStatistics",
    "RetiredId",
    "case_files",
    "load_case_file",
    "load_cases",
    "load_retired",
    "quote_problems",
    "validate",
]
