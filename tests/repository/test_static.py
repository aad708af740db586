"""The static checks are part of the test command: ruff (style, bugbear, import order, complexity: the rules
in pyproject.toml's [tool.ruff]) and mypy (types, [tool.mypy]) pass on the code. Both tools are pinned in
the `test` extra; a test skips with the reason where its tool is not installed."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
#: What ruff checks: the package, its tests, the benchmarks and the scripts (their Python files)
RUFF_PATHS = ("oracle", "tests", "benchmarks", "scripts")
#: Each tool's output kept in a failure message: enough for the first screens of findings
SHOWN = 6000


def _tool(name: str) -> str | None:
    """The tool installed beside this Python (the venv's), else the one on PATH, else None."""
    beside = Path(sys.executable).with_name(name)
    return str(beside) if beside.exists() else shutil.which(name)


def _run(name: str, *arguments: str) -> subprocess.CompletedProcess[str]:
    command = _tool(name)
    if command is None:
        pytest.skip(f"{name} is not installed (pip install 'bleu-oracle[test]')")
    return subprocess.run([command, *arguments], cwd=ROOT, capture_output=True, text=True, timeout=600)


def test_ruff_passes() -> None:
    done = _run("ruff", "check", *RUFF_PATHS)
    assert done.returncode == 0, done.stdout[-SHOWN:] + done.stderr[-SHOWN:]


def test_mypy_passes() -> None:
    # a few seconds with mypy's cache, 10-20 s without it: kept in the default run
    done = _run("mypy", "oracle")
    assert done.returncode == 0, done.stdout[-SHOWN:] + done.stderr[-SHOWN:]
    assert "Success" in done.stdout, done.stdout[-SHOWN:]
