"""The GitHub Actions recipe (action.yml): its check step, run here as the runner would run it, and the badge."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import yaml
from fakes.harness import fake

ROOT = Path(__file__).resolve().parents[2]


def check_step():
    action = yaml.safe_load((ROOT / "action.yml").read_text(encoding="utf-8"))
    assert action["runs"]["using"] == "composite"
    [step] = [s for s in action["runs"]["steps"] if s.get("id") == "check"]
    return step


def run_step(tmp_path, **inputs):
    step = check_step()
    output = tmp_path / "github_output"
    env = {**os.environ, "GITHUB_OUTPUT": str(output), "GITHUB_STEP_SUMMARY": str(tmp_path / "summary"),
           "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}"}
    for name in step["env"]:  # what `with:` would give; unset inputs are empty strings
        env[name] = inputs.get(name.removeprefix("BLEU_ORACLE_").lower(), "")
    env["BLEU_ORACLE_EXAMPLES"] = inputs.get("examples", "20")
    done = subprocess.run(["bash", "-c", step["run"]], env=env, cwd=tmp_path, capture_output=True, text=True,
                          timeout=300)
    assert done.returncode == 0, done.stderr  # the step itself never fails: the gate step does
    return dict(line.split("=", 1) for line in output.read_text().splitlines())


def test_the_check_step_reports_the_exit_code_and_writes_the_badge(tmp_path):
    (tmp_path / "clean").mkdir()
    outputs = run_step(tmp_path / "clean", command=fake("clean"), report="out")
    assert outputs["exit-code"] == "0"
    badge = json.loads((tmp_path / "clean" / "out" / "badge.json").read_text())
    assert badge == {"schemaVersion": 1, "label": "BLEU conformance", "message": "conforming (papineni)",
                     "color": "brightgreen"}
    assert "conforming" in (tmp_path / "clean" / "summary").read_text()
    (tmp_path / "buggy").mkdir()
    outputs = run_step(tmp_path / "buggy", command=fake("mutant_ties_longer"), report="out")
    assert outputs["exit-code"] == "1"
    badge = json.loads((tmp_path / "buggy" / "out" / "badge.json").read_text())
    assert badge["color"] == "red" and badge["message"].endswith("deviations (papineni)")


def test_inputs_are_never_spliced_into_the_script():
    step = check_step()
    assert "${{" not in step["run"]  # every input arrives through `env:`


def test_the_gate_step_fails_the_job_with_the_checks_exit_code():
    """The gate's script gets the code through `env:` (nothing spliced into it) and exits with it; a missing code
    fails the job too (bash's `exit ""` is 2), never passes it as the echo's 0 would."""
    action = yaml.safe_load((ROOT / "action.yml").read_text(encoding="utf-8"))
    [gate] = [s for s in action["runs"]["steps"] if s.get("name") == "Gate"]
    assert set(gate["env"]) == {"BLEU_ORACLE_EXIT_CODE"}
    for code, expected in (("1", 1), ("3", 3), ("", 2)):
        done = subprocess.run(["bash", "-c", gate["run"]], env={**os.environ, "BLEU_ORACLE_EXIT_CODE": code},
                              capture_output=True, text=True, timeout=60)
        assert done.returncode == expected, (code, done.stdout, done.stderr)
        assert f"bleu-oracle check exited {code}:" in done.stdout
