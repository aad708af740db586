"""docs/FAULTS.md keeps its promise: each fault class has a row with its outcome and the test that holds it, and
every test a row names exists. A test is named as pytest names it, `tests/test_x.py::test_name` (a parametrized id
in brackets is not checked); `::test_name` is in the file named before it in the same cell; a bare `test_name` is
in the file its sub-section says its tests are in ("Tests are in `tests/test_x.py`"), or else in some file under
tests/. A path (`oracle/textio.py`, `tests/fakes/huge_order.py`) must be a file of the repository. A row that has
no test says so ("no test"), rather than naming a module as if it were one. The classes are grouped by the surface
they arrive through, never by the round or the issue that found them.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass
from functools import cache
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
FAULTS = ROOT / "docs" / "FAULTS.md"
#: The surfaces the top level is made of (the file may add at most two more)
SURFACES = ("Inputs", "Implementations", "Reports", "Caches", "Environments", "Signals")
MORE_SURFACES = 2
#: `tests/test_x.py`, `tests/test_x.py::test_name[id]`
EXPLICIT = re.compile(r"(tests/[\w/]+\.py)(?:::([^\s\[]+))?(?:\[.*\])?")
#: `::test_name[id]`, in the file named before it in the cell
RELATIVE = re.compile(r"::([^\s\[]+)(?:\[.*\])?")
#: `test_name[id]`
BARE = re.compile(r"(test_\w+)(?:\[.*\])?")
#: a file of the repository: `oracle/textio.py`, `reports/history.md`, `baselines/azure-ai-evaluation.yaml`
PATH = re.compile(r"[\w.-]+(?:/[\w.-]+)+\.\w+")
#: "Tests are in `tests/test_x.py` unless named otherwise", across a line break
DEFAULT_FILE = re.compile(r"Tests\s+are\s+in\s+`(tests/[\w/]+\.py)`")


@dataclass(frozen=True)
class Row:
    """One table row: the line it is on, its cells, and the test file its sub-section names (if any)."""

    line: int
    cells: tuple[str, ...]
    default_file: str | None


def cells(line: str) -> tuple[str, ...]:
    """The cells of a table line, split on the `|` outside code spans (a run of backticks closes on a run as long)."""
    found, current, fence = [], [], ""
    for piece in re.split(r"(`+|\\\||\|)", line.strip()[1:-1]):
        if piece.startswith("`"):
            fence = "" if piece == fence else fence or piece
        if piece == "|" and not fence:
            found.append("".join(current).strip())
            current = []
        else:
            current.append(piece)
    return (*found, "".join(current).strip())


def rows(text: str) -> list[Row]:
    """The body rows of every table of `text` (header and separator lines left out)."""
    found, default_file, previous = [], None, ""
    for number, line in enumerate(text.splitlines(), 1):
        if line.startswith("#"):
            default_file, previous = None, ""
            continue
        if not line.startswith("|"):
            match = DEFAULT_FILE.search(previous + " " + line)
            default_file = match.group(1) if match else default_file
            previous = line
            continue
        row = cells(line)
        if row[0] != "fault" and not all(re.fullmatch(r":?-+:?", cell) for cell in row):
            found.append(Row(number, row, default_file))
    return found


@cache
def defined_tests(path: Path) -> frozenset[str]:
    """The names of the test functions (and methods) that `path` defines."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return frozenset(node.name for node in ast.walk(tree)
                     if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and node.name.startswith("test_"))


def defined_anywhere(name: str, tests: Path) -> bool:
    return any(name in defined_tests(path) for path in tests.rglob("*.py"))


def problems_of_span(span: str, named_file: str | None, default_file: str | None, root: Path) -> str | None:
    """What is wrong with the code span `span` of a test cell, or None (a span that names no test or file is
    no reference: a symbol, a parametrized id, a command)."""
    tests = root / "tests"
    if explicit := EXPLICIT.fullmatch(span):
        path, name = root / explicit.group(1), explicit.group(2)
        if not path.is_file():
            return "no such file"
        return f"no test {name} in {explicit.group(1)}" if name and name not in defined_tests(path) else None
    if relative := RELATIVE.fullmatch(span):
        if named_file is None:
            return "`::` after no file named before it in the cell"
        path = root / named_file
        return None if relative.group(1) in defined_tests(path) else f"no test {relative.group(1)} in {named_file}"
    if bare := BARE.fullmatch(span):
        if default_file is not None:
            inside = bare.group(1) in defined_tests(root / default_file)
            return None if inside else f"not in {default_file}, where the sub-section says its tests are"
        return None if defined_anywhere(bare.group(1), tests) else "no test of that name under tests/"
    if PATH.fullmatch(span) and not (root / span).is_file():
        return "no such file"
    return None


def dangling(text: str, root: Path = ROOT) -> list[str]:
    """Each test or file a row's test cell names that does not exist, as `line: span: why`."""
    found = []
    for row in rows(text):
        named_file = None
        for span in re.findall(r"`([^`]+)`", row.cells[-1]):
            problem = problems_of_span(span, named_file, row.default_file, root)
            if problem:
                found.append(f"line {row.line}: `{span}`: {problem}")
            if explicit := EXPLICIT.fullmatch(span):
                named_file = explicit.group(1)
    return found


def names_a_test(cell: str) -> bool:
    """The cell names a test (a test function, a test file) or says that it has none."""
    spans = re.findall(r"`([^`]+)`", cell)
    return "no test" in cell or any(EXPLICIT.fullmatch(span) or RELATIVE.fullmatch(span) or BARE.fullmatch(span)
                                    for span in spans)


def test_every_test_and_file_the_faults_doc_names_exists():
    problems = dangling(FAULTS.read_text(encoding="utf-8"))
    assert not problems, "docs/FAULTS.md names tests or files that do not exist:\n" + "\n".join(problems)


def test_every_row_has_three_cells_and_names_its_test_or_says_it_has_none():
    found = rows(FAULTS.read_text(encoding="utf-8"))
    assert len(found) > 200  # the tables were read at all
    wrong = [f"line {row.line}: {len(row.cells)} cells" for row in found if len(row.cells) != 3]
    untested = [f"line {row.line}: {row.cells[-1]}" for row in found if not names_a_test(row.cells[-1])]
    assert not wrong, "rows of other than fault | outcome | test:\n" + "\n".join(wrong)
    assert not untested, "rows that name no test and do not say they have none:\n" + "\n".join(untested)


def test_the_classes_are_grouped_by_surface_not_by_when_they_were_found():
    text = FAULTS.read_text(encoding="utf-8")
    top = re.findall(r"^## (.+)$", text, re.MULTILINE)
    assert {title.split()[0] for title in top} >= set(SURFACES), top
    assert len(top) <= len(SURFACES) + MORE_SURFACES, top
    dated = [title for title in re.findall(r"^#+ (.+)$", text, re.MULTILINE)
             if re.search(r"\b(round|issue)\b", title, re.IGNORECASE)]
    assert not dated, f"headings naming the round or issue that found their classes: {dated}"


# -- the checker itself: each kind of reference it resolves, and each way a name dangles -----------------------


def _tree(tmp_path: Path) -> Path:
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "test_a.py").write_text("def test_one():\n    pass\n\n\nclass TestK:\n"
                                                  "    def test_two(self):\n        pass\n")
    (tmp_path / "tests" / "test_b.py").write_text("async def test_three():\n    pass\n")
    (tmp_path / "oracle").mkdir()
    (tmp_path / "oracle" / "m.py").write_text("LIMIT = 1\n")
    return tmp_path


def _doc(*test_cells: str, intro: str = "") -> str:
    lines = ["## Inputs", "", intro, "", "| fault | outcome | test |", "| --- | --- | --- |"]
    return "\n".join([*lines, *(f"| a fault | `x` in `y`, exit 2 | {cell} |" for cell in test_cells)]) + "\n"


def test_the_checker_resolves_each_kind_of_reference(tmp_path):
    root = _tree(tmp_path)
    text = _doc("`tests/test_a.py::test_one`, `::test_two[an-id]`", "`test_three`", "`tests/test_b.py`",
                "`oracle/m.py` (`LIMIT`); no test of its own", "`tests/test_a.py::test_one[x|y]`",
                "`test_one`, `tests/test_b.py::test_three`", "`::test_one`")
    assert [row.cells[-1] for row in rows(text)][4] == "`tests/test_a.py::test_one[x|y]`"
    assert dangling(text, root) == ["line 13: `::test_one`: `::` after no file named before it in the cell"]
    scoped = _doc("`test_one`, `tests/test_b.py::test_three`, `test_two`",
                  intro="Tests are in\n`tests/test_a.py` unless named otherwise.")
    assert dangling(scoped, root) == []


def test_the_checker_finds_each_way_a_name_dangles(tmp_path):
    root = _tree(tmp_path)
    text = _doc("`tests/test_a.py::test_once`", "`tests/test_b.py::test_one`", "`tests/test_c.py`",
                "`tests/test_a.py::test_one`, `::test_three`", "`test_nowhere`", "`oracle/gone.py`")
    assert dangling(text, root) == [
        "line 7: `tests/test_a.py::test_once`: no test test_once in tests/test_a.py",
        "line 8: `tests/test_b.py::test_one`: no test test_one in tests/test_b.py",
        "line 9: `tests/test_c.py`: no such file",
        "line 10: `::test_three`: no test test_three in tests/test_a.py",
        "line 11: `test_nowhere`: no test of that name under tests/",
        "line 12: `oracle/gone.py`: no such file"]
    scoped = _doc("`test_three`", intro="Tests are in\n`tests/test_a.py` unless named otherwise.")
    assert dangling(scoped, root) == [
        "line 8: `test_three`: not in tests/test_a.py, where the sub-section says its tests are"]


def test_a_row_saying_same_names_no_test():
    assert not names_a_test("same")
    assert not names_a_test("`oracle/textio.py` (`LINE_LIMIT`)")
    assert names_a_test("`oracle/textio.py` (`LINE_LIMIT`); no test of its own")
    assert names_a_test("`tests/harness/test_runner.py`, `tests/commands/test_check.py` (fakes in `tests/fakes/`)")
