"""The Python floor is stated truthfully and holds: every module of oracle/ parses as Python 3.11 and uses nothing of
the standard library newer than what pyproject.toml's `requires-python` declares (oracle/models/ needs `typing.Self`,
oracle/harness/session.py `datetime.UTC`: both 3.11), and the floor is one number everywhere it is stated
(requires-python, ruff's target-version, mypy's python_version, the README, the action's default Python).

Standard library only: `ast.parse(..., feature_version=)` holds the syntax (an `except*`, a `type X = ...`), and a
table of names the standard library gained in 3.11 and later (NEWER, from each name's "Added in version" in the Python
documentation) holds the library. The one exception is the venv driver, `oracle/adapters/drivers/venv_bleu.py`
with its library modules (`drivers/libraries/`), which `bleu-oracle history` runs under old interpreters (nltk
before 3.4 under 3.6): they are held to the floor the driver's docstring states, never to the package's.
"""

from __future__ import annotations

import ast
import re
import tomllib
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[2]
ORACLE = ROOT / "oracle"
#: The floor: the oldest Python bleu-oracle runs on
FLOOR = (3, 11)
#: A driver run under interpreters of its own (`bleu-oracle history`), held to the floor its docstring states, and
#: the library modules it loads there
OLD_DRIVER = ORACLE / "adapters" / "drivers" / "venv_bleu.py"
OLD_DRIVER_MODULES = [OLD_DRIVER, *sorted((OLD_DRIVER.parent / "libraries").glob("*.py"))]

#: Modules of the standard library added in 3.11 or later (docs.python.org: "Added in version" / What's New)
NEWER_MODULES = {"tomllib": (3, 11), "wsgiref.types": (3, 11)}
#: Names the standard library gained in 3.11 or later, as (module, name); builtins under "builtins"
NEWER = {
    **{("typing", name): (3, 11) for name in (
        "Self", "LiteralString", "Never", "assert_never", "assert_type", "reveal_type", "Required", "NotRequired",
        "TypeVarTuple", "Unpack", "dataclass_transform", "get_overloads", "clear_overloads")},
    ("datetime", "UTC"): (3, 11),
    **{("enum", name): (3, 11) for name in (
        "StrEnum", "ReprEnum", "EnumCheck", "FlagBoundary", "verify", "member", "nonmember", "global_enum")},
    ("hashlib", "file_digest"): (3, 11),
    ("asyncio", "TaskGroup"): (3, 11), ("asyncio", "timeout"): (3, 11), ("asyncio", "Runner"): (3, 11),
    ("contextlib", "chdir"): (3, 11),
    ("operator", "call"): (3, 11),
    ("math", "exp2"): (3, 11), ("math", "cbrt"): (3, 11),
    ("logging", "getLevelNamesMapping"): (3, 11),
    ("inspect", "getmembers_static"): (3, 11),
    ("builtins", "ExceptionGroup"): (3, 11), ("builtins", "BaseExceptionGroup"): (3, 11),
    ("typing", "override"): (3, 12), ("typing", "TypeAliasType"): (3, 12),
    ("itertools", "batched"): (3, 12),
    ("calendar", "Month"): (3, 12), ("calendar", "Day"): (3, 12),
    ("os.path", "splitroot"): (3, 12),
    ("warnings", "deprecated"): (3, 13), ("copy", "replace"): (3, 13),
    ("typing", "ReadOnly"): (3, 13), ("typing", "TypeIs"): (3, 13), ("typing", "NoDefault"): (3, 13),
    ("typing", "get_protocol_members"): (3, 13), ("typing", "is_protocol"): (3, 13),
}


def newer_than(source: str, floor: tuple[int, int]) -> list[str]:
    """What in `source` needs a Python newer than `floor`: its syntax (parsed as `floor`), then each module and name
    of NEWER it imports or reaches through an imported module, as "line N: typing.Self (3.11)"."""
    try:
        ast.parse(source, feature_version=floor)
    except SyntaxError as error:
        return [f"line {error.lineno}: syntax newer than {floor[0]}.{floor[1]}: {error.msg}"]
    tree = ast.parse(source)
    bound = {}  # a local name -> the module it is bound to by `import X` / `import X.Y as Z`
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                bound[alias.asname or alias.name.split(".")[0]] = alias.name if alias.asname else \
                    alias.name.split(".")[0]
    used = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            used += [(node.lineno, alias.name) for alias in node.names if alias.name in NEWER_MODULES]
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            if node.module in NEWER_MODULES:
                used.append((node.lineno, node.module))
            used += [(node.lineno, (node.module, alias.name)) for alias in node.names]
        elif isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id in bound:
            used.append((node.lineno, (bound[node.value.id], node.attr)))
        elif isinstance(node, ast.Name):
            used.append((node.lineno, ("builtins", node.id)))
    found = []
    for line, what in used:
        version = NEWER_MODULES.get(what) if isinstance(what, str) else NEWER.get(what)
        if version is not None and version > floor:
            name = what if isinstance(what, str) else ".".join(what).removeprefix("builtins.")
            found.append(f"line {line}: {name} ({version[0]}.{version[1]})")
    return sorted(set(found), key=lambda text: int(text.split(":")[0].split()[1]))


def declared_floor() -> tuple[int, int]:
    """pyproject.toml's requires-python, which must read `>=3.N`."""
    requires = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]["requires-python"]
    match = re.fullmatch(r">=\s*3\.(\d+)", requires)
    assert match, f"requires-python {requires!r}: expected the form '>=3.N'"
    return (3, int(match[1]))


def test_the_check_sees_what_needs_a_newer_python():
    assert newer_than("from typing import Any, Self\n", (3, 10)) == ["line 1: typing.Self (3.11)"]
    assert newer_than("from typing import Any, Self\n", (3, 11)) == []
    assert newer_than("import datetime as dt\n\nnow = dt.datetime.now(dt.UTC)\n", (3, 10)) == \
        ["line 3: datetime.UTC (3.11)"]
    assert newer_than("import tomllib\n", (3, 10)) == ["line 1: tomllib (3.11)"]
    assert newer_than("raise ExceptionGroup('x', [])\n", (3, 10)) == ["line 1: ExceptionGroup (3.11)"]
    assert newer_than("from itertools import batched\n", (3, 11)) == ["line 1: itertools.batched (3.12)"]
    assert "syntax newer than 3.10" in newer_than("try:\n    pass\nexcept* ValueError:\n    pass\n", (3, 10))[0]
    assert newer_than("type Pair = tuple[int, int]\n", (3, 11))[0].startswith("line 1: syntax newer than 3.11")


def test_every_module_of_oracle_runs_on_the_declared_floor():
    floor = declared_floor()
    problems = [f"{path.relative_to(ROOT)}: {problem}"
                for path in sorted(ORACLE.rglob("*.py")) if path not in OLD_DRIVER_MODULES
                for problem in newer_than(path.read_text(encoding="utf-8"), floor)]
    assert not problems, (f"pyproject.toml says requires-python >={floor[0]}.{floor[1]}, but these need a newer "
                          "Python (raise the floor everywhere it is stated, or do without them):\n"
                          + "\n".join(problems))


def test_the_floor_is_one_number_everywhere_it_is_stated():
    major, minor = FLOOR
    pyproject = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    assert declared_floor() == FLOOR
    assert pyproject["tool"]["ruff"]["target-version"] == f"py{major}{minor}"
    assert pyproject["tool"]["mypy"]["python_version"] == f"{major}.{minor}"
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    stated = set(re.findall(r"Python >= ?(\d+\.\d+)", readme))
    assert stated == {f"{major}.{minor}"}, f"the README states the floor as {sorted(stated)}"
    action = yaml.safe_load((ROOT / "action.yml").read_text(encoding="utf-8"))
    default = tuple(int(part) for part in action["inputs"]["python-version"]["default"].split("."))
    assert default >= FLOOR, f"action.yml runs bleu-oracle on Python {default} by default, below the floor"


def test_the_history_driver_runs_on_the_python_its_docstring_states():
    source = OLD_DRIVER.read_text(encoding="utf-8")
    stated = re.search(r"runs under every Python from (\d+)\.(\d+) on", ast.get_docstring(ast.parse(source)) or "")
    assert stated, f"{OLD_DRIVER.name}'s docstring no longer says which Python it runs on"
    floor = (int(stated[1]), int(stated[2]))
    assert len(OLD_DRIVER_MODULES) > 2, "the driver's library modules are not where this test looks"
    try:
        problems = [f"{path.relative_to(ROOT)}: {problem}" for path in OLD_DRIVER_MODULES
                    for problem in newer_than(path.read_text(encoding="utf-8"), floor)]
    except ValueError as error:  # a newer Python's ast.parse may no longer check syntax that old
        pytest.skip(f"this Python's ast.parse cannot check {floor[0]}.{floor[1]} syntax: {error}")
    assert problems == []


def test_the_history_driver_modules_import_no_annotations_future():
    """`from __future__ import annotations` needs 3.7: a driver module holding it fails to import under 3.6 (a
    SyntaxError the ast check above, parsing as 3.6, does not see: ast accepts any `__future__` name)."""
    found = [str(path.relative_to(ROOT)) for path in OLD_DRIVER_MODULES
             if "from __future__ import annotations" in path.read_text(encoding="utf-8")]
    assert found == []
