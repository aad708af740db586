"""The package's shape: the layer contracts (import-linter, configured in pyproject.toml) hold, no
import cycle, and at most 12 modules sit directly in oracle/. Modules are cut by job, not by a line cap."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "oracle"
MAX_TOP_LEVEL_MODULES = 12


def lint_imports():
    beside = Path(sys.executable).with_name("lint-imports")
    return str(beside) if beside.exists() else shutil.which("lint-imports")


def test_the_layer_contracts_hold():
    command = lint_imports()
    if command is None:
        pytest.skip("import-linter is not installed (pip install 'bleu-oracle[test]')")
    done = subprocess.run([command, "--config", str(ROOT / "pyproject.toml")], cwd=ROOT, capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-2000:]
    assert "0 broken" in done.stdout


def test_few_modules_directly_in_the_package():
    top = sorted(path.name for path in PACKAGE.glob("*.py"))
    assert len(top) <= MAX_TOP_LEVEL_MODULES, top


def test_no_import_cycle_in_the_package():
    grimp = pytest.importorskip("grimp", reason="grimp comes with import-linter (pip install 'bleu-oracle[test]')")
    graph = grimp.build_graph("oracle")
    cycles = sorted({tuple(sorted((importer, imported))) for importer in graph.modules
                     for imported in graph.find_modules_directly_imported_by(importer)
                     if graph.chain_exists(importer=imported, imported=importer)})
    assert not cycles, cycles
