"""Every module of oracle/ is held by a test: it has its own test file (tests/<folder>/test_<module>.py), or a test
module names it on the `Holds:` line of its docstring (issue 23: "every module has its test file or is named
in a test module's docstring"). A `Holds:` name that is no module is an error too: it would hold nothing.
"""

from __future__ import annotations

import ast
import functools
import re
from pathlib import Path

import pytest

TESTS = Path(__file__).resolve().parents[1]
ORACLE = TESTS.parent / "oracle"
#: `Holds: oracle.a.b, oracle.c` -- the names run on over indented lines until a blank line or the end
HOLDS = re.compile(r"^Holds:((?:.+\n?)(?:[ \t]+.+\n?)*)", re.MULTILINE)
#: one worker for the file under `pytest -n N --dist loadgroup`, so that its tests read one parse of the tests
pytestmark = pytest.mark.xdist_group("tests/repository/test_layout.py")


def modules() -> set[str]:
    """The dotted names of oracle/'s modules, packages' __init__ and __main__ left out."""
    return {".".join(path.relative_to(ORACLE.parent).with_suffix("").parts)
            for path in ORACLE.rglob("*.py") if path.name not in ("__init__.py", "__main__.py")}


@functools.cache
def docstrings() -> dict[str, str]:
    """Each test module's docstring, by the test module's file name: every test file parsed once a process, for the
    tests below (parsing them all is most of this file's time)."""
    return {path.name: ast.get_docstring(ast.parse(path.read_text(encoding="utf-8"))) or ""
            for path in sorted(TESTS.rglob("*.py"))}


def held_by_docstrings() -> dict[str, set[str]]:
    """Each test module's `Holds:` names, by the test module's file name."""
    held = {}
    for test_file, docstring in docstrings().items():
        names = {name for block in HOLDS.findall(docstring) for name in re.split(r"[\s,]+", block) if name}
        if names:
            held[test_file] = names
    return held


def test_holds_lines_are_read_across_wrapped_lines():
    docstring = "What it tests.\n\nHolds: oracle.a, oracle.b,\n    oracle.c\n\nMore text: not names.\n"
    assert [re.split(r"[\s,]+", block.strip()) for block in HOLDS.findall(docstring)] == [
        ["oracle.a", "oracle.b", "oracle.c"]]


def test_a_holds_block_ends_at_a_blank_line():
    # a line after the names that is not indented is no name, and would be dropped without a word
    run_on = [f"{name}: {docstring[match.end():].splitlines()[0]}" for name, docstring in docstrings().items()
              for match in HOLDS.finditer(docstring)
              if docstring[match.end():].strip() and not docstring[match.end():].startswith("\n")]
    assert not run_on, ("`Holds:` blocks that run on into an unindented line (indent the names, or end the block "
                        "with a blank line): " + ", ".join(run_on))


def test_every_module_has_its_test_file_or_is_held_by_a_test_module():
    held = set().union(*held_by_docstrings().values())
    own_files = {path.name for path in TESTS.rglob("test_*.py")}
    unheld = sorted(module for module in modules()
                    if module not in held and f"test_{module.rsplit('.', 1)[-1]}.py" not in own_files)
    assert not unheld, ("modules with no tests/<folder>/test_<module>.py and on no test module's `Holds:` line: "
                        + ", ".join(unheld))


def test_every_name_on_a_holds_line_is_a_module():
    known = modules()
    wrong = sorted(f"{test}: {name}" for test, names in held_by_docstrings().items()
                   for name in names if name not in known)
    assert not wrong, "`Holds:` names that are no module of oracle/: " + ", ".join(wrong)
