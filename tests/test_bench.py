"""The benchmark script runs end to end on a tiny input (timings are not asserted: they are for people)."""

import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.slow
def test_benchmark_script_runs_on_a_tiny_input(tmp_path):
    out = tmp_path / "figures.json"
    done = subprocess.run([sys.executable, "benchmarks/bench.py", "--quick", "--json", str(out)],
                          capture_output=True, text=True, cwd=ROOT, timeout=600)
    assert done.returncode == 0, done.stderr[-2000:]
    sections = [row["section"] for row in json.loads(out.read_text())]
    assert any(s.startswith("in process") for s in sections)
    assert any(s.startswith("whole commands") for s in sections)
    assert "serve" in sections and "scaling" in sections
    assert any(s.startswith("check") for s in sections)
