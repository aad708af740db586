"""Reading a case file's YAML strictly, each node knowing its line: the safe loader (no code, no aliases, no
deep nesting), no duplicate or merge keys, numbers as exact decimals, every mapping and list with the lines of
its keys and items, so that a validation error names the line of its node (`oracle.models.errors.line_at`).
What the file must hold is the models' to say (`oracle.models.case`); the format is described in
`oracle.suite.cases`."""

from __future__ import annotations

import re
from decimal import Decimal, InvalidOperation
from pathlib import Path
from typing import Any

import yaml

from oracle.formulas.bounds import MAX_DIGITS
from oracle.formulas.errors import CaseFileError, describe, os_reason
from oracle.models.case import HugeNumber, plain

from .safeyaml import StrictSafeLoader, UnsafeYamlError

#: The documented cases: package data (`oracle/suite/data/`), so an installed wheel carries them;
#: `cases/` at the repository's root is a symbolic link to this directory.
DEFAULT_CASES_DIR = Path(__file__).resolve().parent / "data"
#: The source documents, `../shared/seeds` seen from the repository root.
DEFAULT_SEEDS_DIR = Path(__file__).resolve().parents[3] / "shared" / "seeds"
RETIRED_FILE = "retired.yaml"

#: An exact expectation ("3/5") is met when the oracle's value is within this of it
#: (the oracle carries 50 significant digits; ln/exp round in the last ones).
EXACT_SLACK = Decimal("1e-45")


# -- YAML: SafeLoader, line numbers, no duplicate keys, exact numbers ---------


class LinedMap(dict[Any, Any]):
    """A mapping from the file, remembering its own line and each key's line."""

    line: int | None = None
    key_lines: dict[Any, int]


class LinedList(list[Any]):
    """A sequence from the file, remembering its own line and each item's line."""

    line: int | None = None
    item_lines: list[int]


class CaseLoader(StrictSafeLoader):
    """`yaml.SafeLoader`, stricter: no aliases, no deep nesting (`StrictSafeLoader`), duplicate keys and
    merge keys are errors, floats are exact `Decimal`s, `5e-5` is a number, and every mapping/sequence
    knows its lines."""

    path: Path | None = None


# YAML 1.1 (PyYAML) needs a dot in a float; accept 5e-5 as well (YAML 1.2).
CaseLoader.add_implicit_resolver(
    "tag:yaml.org,2002:float",
    re.compile(r"^[-+]?[0-9][0-9_]*(\.[0-9_]*)?[eE][-+]?[0-9]+$"),
    list("-+0123456789"),
)


def _line(node: yaml.Node) -> int:
    return node.start_mark.line + 1


def _construct_map(loader: CaseLoader, node: yaml.Node) -> LinedMap:
    if not isinstance(node, yaml.MappingNode):  # pragma: no cover - the resolver guarantees it
        raise CaseFileError("expected a mapping", path=loader.path, line=_line(node))
    result = LinedMap()
    result.line, result.key_lines = _line(node), {}
    for key_node, value_node in node.value:
        if key_node.tag == "tag:yaml.org,2002:merge":
            raise CaseFileError(
                "YAML merge keys (`<<`) are not allowed in case files", path=loader.path, line=_line(key_node)
            )
        key = loader.construct_object(key_node, deep=True)
        if isinstance(key, bool) or not isinstance(key, (str, int, HugeNumber)):  # a huge order: the case says so
            raise CaseFileError(
                f"mapping keys must be names or n-gram orders (got {describe(plain(key))})",
                path=loader.path,
                line=_line(key_node),
            )
        if key in result:
            raise CaseFileError(
                f"duplicate key `{key}` (first at line {result.key_lines[key]})", path=loader.path, line=_line(key_node)
            )
        result[key] = loader.construct_object(value_node, deep=True)
        result.key_lines[key] = _line(key_node)
    return result


def _construct_seq(loader: CaseLoader, node: yaml.SequenceNode) -> LinedList:
    result = LinedList(loader.construct_object(child, deep=True) for child in node.value)
    result.line, result.item_lines = _line(node), [_line(child) for child in node.value]
    return result


def _construct_int(loader: CaseLoader, node: yaml.ScalarNode) -> int | HugeNumber:
    text = loader.construct_scalar(node).replace("_", "")
    if len(text.lstrip("+-")) > MAX_DIGITS:
        return HugeNumber(len(text.lstrip("+-")))
    return yaml.constructor.SafeConstructor.construct_yaml_int(loader, node)


def _construct_float(loader: CaseLoader, node: yaml.ScalarNode) -> Decimal:
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


def read_yaml(path: Path) -> Any:
    """The document in `path`, through CaseLoader; YAML errors become CaseFileError with the line."""
    try:
        text = Path(path).read_text(encoding="utf-8")
    except UnicodeDecodeError as exc:
        raise CaseFileError(f"not UTF-8 text (byte {exc.start + 1}): a case file is UTF-8 YAML", path=path) from None
    except OSError as exc:
        raise CaseFileError(f"cannot read the file ({os_reason(exc)})", path=path) from None
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
            message = (f"YAML tag `{shown}` is not allowed: case files are plain YAML "
                       "(mappings, lists, strings, numbers, booleans)")
        else:
            message = f"invalid YAML: {exc.problem}"
        raise CaseFileError(message, path=path, line=mark.line + 1 if mark else None) from None
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        problem = getattr(exc, "problem", None) or str(exc)
        raise CaseFileError(f"invalid YAML: {problem}", path=path, line=mark.line + 1 if mark else None) from None
    finally:
        loader.dispose()
