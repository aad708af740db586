"""The case-file format: its fields, patterns and exact numbers, and reading its YAML strictly (the safe
loader with line numbers, no duplicate keys, no aliases, no deep nesting, numbers as exact decimals).
The format is described in `oracle.suite.cases`."""

from __future__ import annotations

import math
import re
from dataclasses import fields
from decimal import Decimal, InvalidOperation
from pathlib import Path

import yaml

from oracle.formulas.bounds import MAX_DIGITS
from oracle.formulas.conventions import (
    SMOOTHING_PARAMETERS,
    Options,
)
from oracle.formulas.errors import CaseFileError, describe

from .safeyaml import StrictSafeLoader, UnsafeYamlError

#: The documented cases: package data (`oracle/suite/data/`), so an installed wheel carries them;
#: `cases/` at the repository's root is a symbolic link to this directory.
DEFAULT_CASES_DIR = Path(__file__).resolve().parent / "data"
#: The source documents, `../shared/seeds` seen from the repository root.
DEFAULT_SEEDS_DIR = Path(__file__).resolve().parents[3] / "shared" / "seeds"
RETIRED_FILE = "retired.yaml"

KINDS = ("value", "statement", "document-error")

# Allowed fields per mapping (the schema lists the same; tests/test_cases.py checks).
FILE_FIELDS = ("document", "seed", "found_by", "cases")
#: Provenance other than a seed document: cases written by `bleu-oracle fuzz --write-cases`.
FOUND_BY = ("fuzz",)
CASE_FIELDS = ("id", "title", "source", "profiles", "kind", "input", "options", "expect", "explained_by", "note")
CASE_REQUIRED = ("id", "title", "source", "profiles", "kind", "input", "expect")
SOURCE_FIELDS = ("document", "section", "quote", "seed")
SOURCE_REQUIRED = ("document", "section", "quote")
INPUT_FIELDS = ("level", "segments")
SEGMENT_FIELDS = ("hypothesis", "references")
#: Options that travel in a protocol request.
PROTOCOL_OPTION_FIELDS = ("weights", "smoothing", "lowercase")
#: Options that override a profile's conventions: `Options` fields, except the three
#: above (the normalisation rule is the convention `weight_normalisation`).
CONVENTION_OPTION_FIELDS = tuple(f.name for f in fields(Options) if f.name not in ("weights", "smoothing", "lowercase"))
OPTION_FIELDS = PROTOCOL_OPTION_FIELDS + CONVENTION_OPTION_FIELDS
SMOOTHING_FIELDS = ("method",) + tuple(SMOOTHING_PARAMETERS)
EXPECT_FIELDS = ("score", "tolerance", "exact", "statistics", "rejected")
STATISTICS_FIELDS = ("hyp_len", "ref_len", "matches", "totals", "bp", "precisions")
EXPLAINED_BY_FIELDS = ("name", "change")
RETIRED_FILE_FIELDS = ("retired",)
RETIRED_ENTRY_FIELDS = ("id", "reason")

ID_PATTERN = re.compile(r"^[a-z][a-z0-9]*(-[a-z0-9]+)*$")
SEED_PATTERN = re.compile(r"^[A-Za-z0-9_.-]+\.txt$")
_FRACTION = re.compile(r"^(0|[1-9][0-9]*)(/[1-9][0-9]*)?$")
_SIGNED_FRACTION = re.compile(r"^-?(0|[1-9][0-9]*)(/[1-9][0-9]*)?$")

#: An exact expectation ("3/5") is met when the oracle's value is within this of it
#: (the oracle carries 50 significant digits; ln/exp round in the last ones).
EXACT_SLACK = Decimal("1e-45")


# -- YAML: SafeLoader, line numbers, no duplicate keys, exact numbers ---------


class _Map(dict):
    """A mapping from the file, remembering its own line and each key's line."""

    line = None
    key_lines: dict


class _Seq(list):
    """A sequence from the file, remembering its own line and each item's line."""

    line = None
    item_lines: list


class HugeNumber:
    """An integer in the file with more digits than a number may have (`oracle.formulas.bounds.MAX_DIGITS`):
    kept as its length and never converted (int() of 5,000 digits is an error, of a million a long wait), so
    that the field holding it is refused with the case's id like any other out-of-bounds number."""

    def __init__(self, digits: int) -> None:
        self.digits = digits

    def __repr__(self) -> str:
        return f"<an integer of {self.digits} digits>"


class CaseLoader(StrictSafeLoader):
    """`yaml.SafeLoader`, stricter: no aliases, no deep nesting (`StrictSafeLoader`), duplicate keys and
    merge keys are errors, floats are exact `Decimal`s, `5e-5` is a number, and every mapping/sequence
    knows its lines."""

    path = None


# YAML 1.1 (PyYAML) needs a dot in a float; accept 5e-5 as well (YAML 1.2).
CaseLoader.add_implicit_resolver(
    "tag:yaml.org,2002:float",
    re.compile(r"^[-+]?[0-9][0-9_]*(\.[0-9_]*)?[eE][-+]?[0-9]+$"),
    list("-+0123456789"),
)


def _line(node):
    return node.start_mark.line + 1


def _construct_map(loader, node):
    if not isinstance(node, yaml.MappingNode):  # pragma: no cover - the resolver guarantees it
        raise CaseFileError("expected a mapping", path=loader.path, line=_line(node))
    result = _Map()
    result.line, result.key_lines = _line(node), {}
    for key_node, value_node in node.value:
        if key_node.tag == "tag:yaml.org,2002:merge":
            raise CaseFileError("YAML merge keys (`<<`) are not allowed in case files", path=loader.path, line=_line(key_node))
        key = loader.construct_object(key_node, deep=True)
        if isinstance(key, bool) or not isinstance(key, (str, int, HugeNumber)):  # a huge order: the case says so
            raise CaseFileError(f"mapping keys must be names or n-gram orders (got {describe(_plain(key))})", path=loader.path, line=_line(key_node))
        if key in result:
            raise CaseFileError(
                f"duplicate key `{key}` (first at line {result.key_lines[key]})", path=loader.path, line=_line(key_node)
            )
        result[key] = loader.construct_object(value_node, deep=True)
        result.key_lines[key] = _line(key_node)
    return result


def _construct_seq(loader, node):
    result = _Seq(loader.construct_object(child, deep=True) for child in node.value)
    result.line, result.item_lines = _line(node), [_line(child) for child in node.value]
    return result


def _construct_int(loader, node):
    text = loader.construct_scalar(node).replace("_", "")
    if len(text.lstrip("+-")) > MAX_DIGITS:
        return HugeNumber(len(text.lstrip("+-")))
    return yaml.constructor.SafeConstructor.construct_yaml_int(loader, node)


def _construct_float(loader, node):
    text = loader.construct_scalar(node).replace("_", "").lower()
    special = {".inf": "Infinity", "+.inf": "Infinity", "-.inf": "-Infinity", ".nan": "NaN"}
    try:
        return Decimal(special.get(text, text))
    except InvalidOperation:
        raise CaseFileError(f"cannot read {node.value!r} as a number", path=loader.path, line=_line(node)) from None


CaseLoader.add_constructor("tag:yaml.org,2002:map", _construct_map)
CaseLoader.add_constructor("tag:yaml.org,2002:seq", _construct_seq)
CaseLoader.add_constructor("tag:yaml.org,2002:float", _construct_float)
CaseLoader.add_constructor("tag:yaml.org,2002:int", _construct_int)


def _read_yaml(path):
    """The document in `path`, through CaseLoader; YAML errors become CaseFileError with the line."""
    try:
        text = Path(path).read_text(encoding="utf-8")
    except OSError as exc:
        raise CaseFileError(f"cannot read the file ({exc.strerror or exc})", path=path) from None
    loader = CaseLoader(text, name=str(path))
    loader.path = path
    try:
        return loader.get_single_data()
    except UnsafeYamlError as exc:
        raise CaseFileError(exc.problem, path=path, line=exc.line) from None
    except yaml.constructor.ConstructorError as exc:
        mark = exc.problem_mark or exc.context_mark
        tag = re.search(r"tag '([^']*)'", str(exc.problem))
        if tag:
            shown = tag.group(1).replace("tag:yaml.org,2002:", "!!")
            message = f"YAML tag `{shown}` is not allowed: case files are plain YAML (mappings, lists, strings, numbers, booleans)"
        else:
            message = f"invalid YAML: {exc.problem}"
        raise CaseFileError(message, path=path, line=mark.line + 1 if mark else None) from None
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        problem = getattr(exc, "problem", None) or str(exc)
        raise CaseFileError(f"invalid YAML: {problem}", path=path, line=mark.line + 1 if mark else None) from None
    finally:
        loader.dispose()


def _plain(value):
    """A loaded value without the line bookkeeping, for messages."""
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_plain(v) for v in value]
    if isinstance(value, Decimal):  # as a float where one holds it, else as written (1E+999, not inf)
        number = float(value) if value.is_finite() else None
        return number if number is not None and math.isfinite(number) and (number or value.is_zero()) else str(value)
    return value
