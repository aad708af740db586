"""The benchmark script runs end to end on a tiny input (timings are not asserted: they are for people)."""

import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.slow
@pytest.mark.heavy  # a benchmark script run whole: 10 s (CI runs it)
def test_benchmark_script_runs_on_a_tiny_input(tmp_path):
    # every section but the runner's CPU, which the next test runs and checks (the same call, the same 50 examples of
    # eight check runs: about 18 s of CPU that this run repeated)
    out = tmp_path / "figures.json"
    done = subprocess.run([sys.executable, "benchmarks/bench.py", "--quick", "--skip", "runner", "--json", str(out)],
                          capture_output=True, text=True, cwd=ROOT, timeout=600)
    assert done.returncode == 0, done.stderr[-2000:]
    sections = [row["section"] for row in json.loads(out.read_text())]
    assert "runner cpu" not in sections
    assert any(s.startswith("in process") for s in sections)
    assert any(s.startswith("whole commands") for s in sections)
    assert "serve" in sections and "scaling" in sections
    assert any(s.startswith("check") for s in sections)


@pytest.mark.slow
@pytest.mark.heavy  # a benchmark script run whole: 20 s (CI runs it)
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


@pytest.mark.slow
@pytest.mark.heavy  # a benchmark script run whole: 10 s (CI runs it)
def test_detection_by_example_index_writes_its_table(tmp_path):
    """benchmarks/detection.py --quick: a row per implementation with, per series length, the index of the first
    failing random example (an integer below the examples run) or **missed**, the cases' verdict and the companion
    that caught it first; summary rows that agree with the JSON. Indices only, never seconds."""
    out = tmp_path / "rows.json"
    done = subprocess.run([sys.executable, "benchmarks/detection.py", "--quick", "--json", str(out)],
                          capture_output=True, text=True, cwd=ROOT, timeout=600)
    assert done.returncode == 0, done.stderr[-2000:]
    figures = json.loads(out.read_text())
    rows = figures["implementations"]
    assert [row["implementation"] for row in rows] == ["planted:clip-lt", "planted:memo-ignores-weights"]
    table = [line for line in done.stdout.splitlines() if line.startswith("|")]
    assert table[0] == "| implementation | cases | L=36 | L=0 | first caught by (L=36) |"
    assert table[1] == "| --- | --- | --- | --- | --- |"
    body, summary = table[2:4], table[4:]
    for line, row in zip(body, rows, strict=True):
        cells = [c.strip() for c in line.strip("|").split("|")]
        assert cells[0] == row["implementation"] and len(cells) == 5
        assert cells[1] == (f"yes ({row['cases_failing']})" if row["cases_failing"] else "no")
        for text, length in zip(cells[2:4], ("36", "0"), strict=True):
            index = row["series"][length]["first_index"]
            assert text == ("**missed**" if index is None else str(index))
            assert index is None or 0 <= index < 20  # --quick runs 20 examples
    assert [line.split("|")[1].strip() for line in summary] == [
        "**caught**", "**median first index**", "**max first index (caught)**",
        "**inputs judged, clean run (series requests)**"]
    caught = [sum(row["series"][length]["first_index"] is not None for row in rows) for length in ("36", "0")]
    assert summary[0].split("|")[3:5] == [f" {caught[0]} of 2 ", f" {caught[1]} of 2 "]
    # the clean control conforms; no series, no series requests; a series adds its requests to the inputs judged
    cost = figures["clean_cost"]
    assert cost["36"]["exit"] == cost["0"]["exit"] == 0 and cost["0"]["series_requests"] == 0
    assert cost["36"]["series_requests"] > 0 and cost["36"]["inputs"] > cost["0"]["inputs"]
    assert summary[3].split("|")[3:5] == [f" {cost[k]['inputs']} ({cost[k]['series_requests']}) " for k in ("36", "0")]
    # clip-lt does not depend on state: example I is the same whatever the series length (check --help), so the
    # example that catches it does at every length
    clip = rows[0]["series"]
    assert clip["36"]["first_index"] == clip["0"]["first_index"] is not None
    assert clip["36"]["companions"][0] == clip["0"]["companions"][0] == "example"


@pytest.mark.slow
def test_the_serve_cost_table_compares_two_checkouts_on_one_stream(tmp_path):
    """benchmarks/serve_cost.py on a stream of two requests, this checkout against itself: a row per checkout,
    the library timed (sacrebleu's own time above zero) and the two reply streams found the same."""
    pytest.importorskip("sacrebleu")
    requests = tmp_path / "requests.jsonl"
    score = {"cmd": "score", "level": "sentence", "weights": [0.5, 0.5], "smoothing": {"method": "none"},
             "lowercase": False, "segments": [{"hypothesis": ["the", "cat"], "references": [["the", "cat"]]}]}
    requests.write_text("\n".join(json.dumps(line) for line in [
        {"cmd": "start", "protocol": 1}, {**score, "seq": 1}, {**score, "seq": 2, "level": "corpus"},
        {"cmd": "stop"}]) + "\n", encoding="ascii")
    done = subprocess.run([sys.executable, "benchmarks/serve_cost.py", "--requests", str(requests), "--rounds", "1",
                           "--before", str(ROOT)], capture_output=True, text=True, cwd=ROOT, timeout=600)
    assert done.returncode == 0, done.stderr[-2000:]
    rows = [line.split(" | ") for line in done.stdout.splitlines() if line.startswith(("| this", "| before"))]
    assert len(rows) == 2 and all(row[-1] == "same |" for row in rows)
    assert "(2 score requests)" in done.stdout
    assert all(float(row[3]) > 0 for row in rows)  # the library column: sacrebleu was timed


@pytest.mark.slow
def test_the_startup_table_compares_two_checkouts_command_by_command(tmp_path):
    """benchmarks/startup.py, this checkout against itself on two cheap commands: a row per command with both
    checkouts' figures, and the outputs compared (the same code prints the same bytes: no OUTPUT DIFFERS line)."""
    done = subprocess.run([sys.executable, "benchmarks/startup.py", "--before", str(ROOT), "--rounds", "1",
                           "--only", "python -c", "--only", "score"], capture_output=True, text=True, cwd=ROOT,
                          timeout=600)
    assert done.returncode == 0, done.stderr[-2000:]
    rows = [line for line in done.stdout.splitlines() if line.startswith("| `")]
    assert [row.split("`")[1] for row in rows] == ["python -c pass", "score"], done.stdout
    assert "OUTPUT DIFFERS" not in done.stdout
    assert all(float(row.split(" | ")[1].split(" / ")[1]) > 0 for row in rows)  # CPU was measured


@pytest.mark.slow
def test_transport_floor_measures_every_window_and_the_transport():
    """benchmarks/transport_floor.py (issue 39's decision on requests in flight) runs its four rows on a few
    requests: three windows of the raw pipe and `ImplementationProcess.request`, each with three positive costs."""
    done = subprocess.run([sys.executable, "benchmarks/transport_floor.py", "--requests", "50", "--rounds", "1"],
                          capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    rows = [line.split("|")[1:-1] for line in done.stdout.splitlines() if line.startswith("| ") and "---" not in line]
    measured = [row for row in rows if row[0].strip() != "what"]
    assert [(row[0].strip(), row[1].strip()) for row in measured] == [
        ("raw pipe (echo)", "1"), ("raw pipe (echo)", "4"), ("raw pipe (echo)", "16"),
        ("ImplementationProcess.request (fixed reply)", "1")]
    assert all(float(cell) > 0 for row in measured for cell in row[2:])


@pytest.mark.slow
def test_the_drawing_table_draws_the_same_lines_in_two_checkouts():
    """benchmarks/drawing.py, this checkout against itself on a few examples (one checkout: one row, a pass for each
    time it is named): the inputs counted, drawing and encoding measured in each pass, and the same lines in both
    passes (the same code draws the same inputs in two processes)."""
    done = subprocess.run([sys.executable, "benchmarks/drawing.py", "--before", str(ROOT), "--examples", "12",
                           "--rounds", "1", "--passes", "1"], capture_output=True, text=True, cwd=ROOT, timeout=600)
    assert done.returncode == 0, done.stderr[-2000:]
    rows = [line for line in done.stdout.splitlines() if " drawing " in line]
    assert len(rows) == 1 and rows[0].endswith("inputs; lines the same"), done.stdout
    assert [part.split(")")[0].count(",") for part in rows[0].split("(")[1:]] == [1, 1], done.stdout


@pytest.mark.slow
def test_the_warm_counts_miss_no_validation_pydantic_core_runs(tmp_path):
    """benchmarks/warm_counts.py on 30 examples: its wrappers' counts of model builds and validations add up to
    cProfile's count of pydantic-core's own validator calls in the same search (`--builtins`): `__init__` and
    `model_validate` to `SchemaValidator.validate_python`, `model_validate_json` to `validate_json`; so no path into
    validation goes uncounted. And every request the search sent is counted."""
    out = tmp_path / "counts.json"
    done = subprocess.run([sys.executable, "benchmarks/warm_counts.py", "--examples", "30", "--builtins", "--top", "0",
                           "--json", str(out)], capture_output=True, text=True, cwd=ROOT, timeout=600)
    assert done.returncode == 0, done.stderr[-2000:]
    counts = json.loads(out.read_text(encoding="utf-8"))
    assert counts["requests"] > 30
    total: dict[str, int] = {}
    for row in counts["counts"]:
        total[row["what"]] = total.get(row["what"], 0) + row["count"]
    builtins = {line.split("|")[1].strip(): int(line.split("|")[2].replace(",", ""))
                for line in done.stdout.splitlines() if line.startswith("| <")}
    python = next(n for name, n in builtins.items() if "'validate_python' of 'pydantic_core" in name)
    json_ = next(n for name, n in builtins.items() if "'validate_json' of 'pydantic_core" in name)
    assert total["init"] + total["model_validate"] == python > 0
    assert total["model_validate_json"] == json_ > 0
