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

`oracle/models/schemas/case.schema.json` describes the same format; a test keeps the
two in step. Reading is strict: plain YAML through `yaml.SafeLoader` only
(no tags that build Python objects), no duplicate keys, no unknown fields, and
every problem names the file, the line and the case id. Numbers are read as
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

from decimal import Decimal
from pathlib import Path

from oracle.formulas.bleu import LEVELS  # noqa: F401 - the levels a case's input may name
from oracle.formulas.errors import CaseFileError
from oracle.models.case import (  # noqa: F401 - the case model, re-exported for the loader's users
    Case,
    CaseExpect,
    CaseInput,
    CaseOptions,
    CaseSegment,
    CaseSource,
    ExpectedStatistics,
    ExplainedBy,
    RetiredId,
)

from .caseformat import (  # noqa: F401 - the format's fields, re-exported for the tests and tools
    CASE_FIELDS,
    CASE_REQUIRED,
    CONVENTION_OPTION_FIELDS,
    DEFAULT_CASES_DIR,
    DEFAULT_SEEDS_DIR,
    EXACT_SLACK,
    EXPECT_FIELDS,
    FILE_FIELDS,
    FOUND_BY,
    ID_PATTERN,
    INPUT_FIELDS,
    KINDS,
    OPTION_FIELDS,
    RETIRED_ENTRY_FIELDS,
    RETIRED_FILE,
    RETIRED_FILE_FIELDS,
    SEED_PATTERN,
    SEGMENT_FIELDS,
    SMOOTHING_FIELDS,
    SOURCE_FIELDS,
    SOURCE_REQUIRED,
    STATISTICS_FIELDS,
    CaseLoader,
    _read_yaml,
)
from .caseparse import CaseFileErrors, _Context, _line_of, _mapping, _parse_case, _show, _string, mapping_problems

# -- Files and directories ---------------------------------------------------


def _parse_file(path, problems):
    """Cases of one file; every problem found is appended to `problems`, in the order of the file. A case
    with a problem is left out; a problem with a file-level field (`document`, `seed`, `found_by`, an
    unknown field) is listed and the cases are still read; only a file that cannot be read as case
    file at all (not YAML, not a mapping, no list of `cases`) stops there."""
    ctx = _Context(path)
    file_problems = []
    try:
        data = _read_yaml(path)
        if data is None:
            raise ctx.error("the file is empty (expected `document` and `cases`)", 1)
        file_problems += mapping_problems(data, "", ctx, 1, FILE_FIELDS, ("document", "cases"), what="a case file")
        document = seed = found_by = None
        if "document" in data:
            try:
                document = _string(data["document"], "document", ctx, _line_of(data, "document", 1), one_line=True)
            except CaseFileError as exc:
                file_problems.append(exc)
        if "seed" in data and "found_by" in data:
            file_problems.append(ctx.error("a case file has either `seed` (its source document) or `found_by` (how "
                                           "its cases were found), not both", _line_of(data, "found_by", 1)))
        elif "found_by" in data:
            found_by = data["found_by"]
            if found_by not in FOUND_BY:
                file_problems.append(ctx.error(f"`found_by` must be one of {list(FOUND_BY)} (got {_show(found_by)})",
                                               _line_of(data, "found_by", 1)))
        elif "seed" in data:  # a bundled seed document: the quotes are checked against its text
            try:
                seed = _string(data["seed"], "seed", ctx, _line_of(data, "seed", 1))
            except CaseFileError as exc:
                file_problems.append(exc)
            if seed is not None and not SEED_PATTERN.match(seed):
                file_problems.append(ctx.error(f"`seed` must be a seed file name like \"000_57c522b03cf4596a.txt\" "
                                               f"(got {seed!r})", _line_of(data, "seed", 1)))
        # neither: a case file of one's own, citing its document (a title or a URL) in `document` and each source
        raw_cases = data.get("cases")
        if "cases" in data and (not isinstance(raw_cases, list) or not raw_cases):
            file_problems.append(ctx.error(f"`cases` must be a non-empty list of cases (got {_show(raw_cases)})",
                                           _line_of(data, "cases", 1)))
        if not isinstance(raw_cases, list):
            raw_cases = []
    except CaseFileError as exc:
        problems.append(exc)
        return []
    problems.extend(sorted(file_problems, key=lambda error: error.line or 0))
    cases = []
    for i, raw in enumerate(raw_cases):
        try:
            cases.append(_parse_case(raw, path, _line_of(raw_cases, i, raw_cases.line), seed, document or "", found_by))
        except CaseFileErrors as exc:  # every problem of the case
            problems.extend(exc.errors)
        except CaseFileError as exc:
            problems.append(exc)
    seen = {}
    for case in cases:
        if case.id in seen:
            problems.append(
                CaseFileError(f"duplicate case id `{case.id}` (also at {path}:{seen[case.id].line})", path=path, line=case.line, case_id=case.id)
            )
        else:
            seen[case.id] = case
    return [c for c in cases if seen.get(c.id) is c]


def load_case_file(path):
    """The cases of one file; raises CaseFileError on the first problem."""
    problems = []
    cases = _parse_file(Path(path), problems)
    if problems:
        raise problems[0]
    return cases


def load_retired(path):
    """Retired ids from `retired.yaml`: `retired: [{id, reason}]` (the list may be empty)."""
    path = Path(path)
    ctx = _Context(path)
    data = _read_yaml(path)
    if data is None:
        raise ctx.error("the file is empty (expected `retired: []`)", 1)
    data = _mapping(data, "", ctx, 1, RETIRED_FILE_FIELDS, RETIRED_FILE_FIELDS, what="the retired-ids file")
    entries = data["retired"]
    e_line = _line_of(data, "retired", 1)
    if not isinstance(entries, list):
        raise ctx.error(f"`retired` must be a list of {{id, reason}} (got {_show(entries)})", e_line)
    out, seen = [], {}
    for i, entry in enumerate(entries):
        entry = _mapping(entry, f"retired[{i}]", ctx, _line_of(entries, i, e_line), RETIRED_ENTRY_FIELDS, RETIRED_ENTRY_FIELDS)
        line = entry.line
        retired_id = entry["id"]
        if not isinstance(retired_id, str) or not ID_PATTERN.match(retired_id):
            raise ctx.error(f"`retired[{i}].id` must be a case id (got {_show(retired_id)})", _line_of(entry, "id", line))
        if retired_id in seen:
            raise ctx.error(f"`retired[{i}].id` `{retired_id}` is listed twice (also at line {seen[retired_id]})", line)
        seen[retired_id] = line
        reason = _string(entry["reason"], f"retired[{i}].reason", ctx, _line_of(entry, "reason", line))
        out.append(RetiredId(retired_id, reason, path, line))
    return out


def _resolve_directory(directory):
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


def case_files(directory=None):
    """The case files of a directory: every `*.yaml` except `retired.yaml`, sorted by name; given one case
    file, just that file."""
    directory = _resolve_directory(directory)
    if directory.is_file():
        return [directory]
    return sorted(p for p in directory.glob("*.yaml") if p.name != RETIRED_FILE)


def validate(directory=None):
    """Every problem in a case directory or case file (empty list: all good), each a CaseFileError."""
    try:
        directory = _resolve_directory(directory)
    except CaseFileError as exc:
        return [exc]
    problems = []
    _load_directory(directory, problems)
    return problems


def _load_directory(directory, problems):
    retired = {}
    retired_path = (directory.parent if directory.is_file() else directory) / RETIRED_FILE  # a file: its neighbours'
    if retired_path.exists():
        try:
            retired = {r.id: r for r in load_retired(retired_path)}
        except CaseFileError as exc:
            problems.append(exc)
    files = case_files(directory)
    if not files:
        problems.append(CaseFileError("no case files (*.yaml) in the directory", path=directory))
    seen, cases = {}, []
    for path in files:
        for case in _parse_file(path, problems):
            if case.id in retired:
                r = retired[case.id]
                problems.append(
                    CaseFileError(
                        f"case id `{case.id}` is retired ({r.path}:{r.line}: {r.reason}); ids are never reused, choose a new one",
                        path=path, line=case.line, case_id=case.id,
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


def load_cases(directory=None):
    """Every case in `directory` (default: the repository's `cases/`) or in one case file, in file and then
    file order. Raises CaseFileError on the first problem; `validate` lists them all."""
    directory = _resolve_directory(directory)
    problems = []
    cases = _load_directory(directory, problems)
    if problems:
        raise problems[0]
    return cases


def read_plain(path):
    """A case (or retired) file as plain JSON-compatible data, for JSON Schema validation:
    numbers as int/float, mapping keys as strings. YAML problems raise CaseFileError."""

    def plain(value):
        if isinstance(value, dict):
            return {str(k): plain(v) for k, v in value.items()}
        if isinstance(value, list):
            return [plain(v) for v in value]
        if isinstance(value, Decimal):
            return float(value)
        return value

    return plain(_read_yaml(Path(path)))


# -- Provenance: quotes appear in their seeds ---------------------------------


def normalise_whitespace(text):
    return " ".join(text.split())


def quote_problems(cases, seeds_dir=None):
    """Cases whose quote is not found (modulo whitespace runs) in their seed file. Cases from a
    `found_by` file name no seed and quote no document: they are not checked here."""
    seeds_dir = Path(seeds_dir) if seeds_dir is not None else DEFAULT_SEEDS_DIR
    texts, problems = {}, []
    for case in cases:
        seed = case.source.seed
        if seed is None:
            continue
        if seed not in texts:
            path = seeds_dir / seed
            texts[seed] = normalise_whitespace(path.read_text(encoding="utf-8")) if path.is_file() else None
        if texts[seed] is None:
            problems.append(CaseFileError(f"seed file {seed!r} not found in {seeds_dir}", path=case.path, line=case.line, case_id=case.id))
        elif normalise_whitespace(case.source.quote) not in texts[seed]:
            problems.append(
                CaseFileError(
                    f"`source.quote` {case.source.quote!r} does not appear in seed {seed}", path=case.path, line=case.line, case_id=case.id
                )
            )
    return problems


__all__ = [
    "Case", "CaseExpect", "CaseInput", "CaseLoader", "CaseOptions", "CaseSegment", "CaseSource",
    "ExplainedBy", "FOUND_BY",
    "DEFAULT_CASES_DIR", "DEFAULT_SEEDS_DIR", "ExpectedStatistics", "RetiredId", "case_files", "load_case_file", "load_cases", "load_retired", "quote_problems", "validate",
]
