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


@pytest.mark.slow
def test_runner_cpu_and_detection_sections_run(tmp_path):
    """The runner's CPU (metered check runs, both implementations, --jobs 1 and 2) and the time to detection of
    one planted bug: each section writes its rows, every check run judged examples of both kinds' counts."""
    out = tmp_path / "figures.json"
    done = subprocess.run([sys.executable, "benchmarks/bench.py", "--quick", "--only", "runner", "detection",
                           "--bugs", "clip-lt", "--json", str(out)],
                          capture_output=True, text=True, cwd=ROOT, timeout=600)
    assert done.returncode == 0, done.stderr[-2000:]
    rows = json.loads(out.read_text())
    runner = [row for row in rows if row["section"] == "runner cpu"]
    assert {(row["implementation"], row["jobs"]) for row in runner} == {
        (name, jobs) for name in ("fast float (plantedbleu clean)", "trivial (exact oracle)") for jobs in (1, 2)}
    assert all(row["runner_cpu_ms_per_example"] > 0 and row["implementation_cpu_ms_per_example"] > 0
               for row in runner)
    detection = [row for row in rows if row["section"] == "detection"]
    assert [row["bug"] for row in detection] == ["clip-lt"]
    assert detection[0]["exit"] == 1 and 0 < detection[0]["first_failure_s"] <= detection[0]["end_s"]
