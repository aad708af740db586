"""The harness's shape, as issue 38 ("the harness as typed stages") sets it: a record is built once, from the
stages' typed results (no `model_copy` of a record anywhere in oracle/harness: its baseline gate, the footer's
root causes and a merged shard's record are built, not copied), and oracle/harness/session.py holds no class over
300 lines and no function over 60.
"""

from __future__ import annotations

import ast
from pathlib import Path

HARNESS = Path(__file__).resolve().parents[2] / "oracle" / "harness"
#: Fields a `Record` has and no other model copied in oracle/harness has (a request, a plan, a classification,
#: run settings): an update naming one is an update of a record, whatever the receiver is called.
RECORD_ONLY_FIELDS = frozenset({"baseline_key", "related", "reproduce", "shrunk", "stderr", "wall"})
MAX_CLASS_LINES, MAX_FUNCTION_LINES = 300, 60


def record_copies(source: str) -> list[int]:
    """The lines of `source` where `model_copy` is called on what is, by its name or its update, a record."""
    lines = []
    for node in ast.walk(ast.parse(source)):
        if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                and node.func.attr == "model_copy"):
            continue
        receiver = ast.unparse(node.func.value)
        update = next((k.value for k in node.keywords if k.arg == "update"), None)
        keys = {key.value for key in update.keys if isinstance(key, ast.Constant)} \
            if isinstance(update, ast.Dict) else set()
        if "record" in receiver.lower() or keys & RECORD_ONLY_FIELDS:
            lines.append(node.lineno)
    return lines


def oversized(source: str) -> list[str]:
    """The classes over MAX_CLASS_LINES lines and the functions (methods too) over MAX_FUNCTION_LINES in `source`."""
    out = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, (ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            length = (node.end_lineno or node.lineno) - node.lineno + 1
            if isinstance(node, ast.ClassDef) and length > MAX_CLASS_LINES:
                out.append(f"class {node.name}: {length} lines")
            elif not isinstance(node, ast.ClassDef) and length > MAX_FUNCTION_LINES:
                out.append(f"def {node.name}: {length} lines")
    return out


def test_the_record_copy_check_sees_a_copy_by_receiver_or_by_update():
    assert record_copies("record = record.model_copy(update={'baseline': None})\n") == [1]
    assert record_copies("x = first.model_copy(update={'stderr': ''})\n") == [1]
    assert record_copies("x = request.model_copy(update={'segments': ()})\n") == []


def test_no_record_is_copied_in_the_harness():
    copies = [f"{path.relative_to(HARNESS.parent.parent)}:{line}" for path in sorted(HARNESS.rglob("*.py"))
              for line in record_copies(path.read_text(encoding="utf-8"))]
    assert not copies, "a record copied with model_copy (build it once, from the stages' results): " \
        + ", ".join(copies)


def test_the_session_module_is_small():
    assert oversized("def f():\n" + "    pass\n" * MAX_FUNCTION_LINES) == ["def f: 61 lines"]
    assert not oversized((HARNESS / "session.py").read_text(encoding="utf-8"))
