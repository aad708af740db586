"""The pytest plugin, as a library uses it: examples/pytest copied away from the checkout passes, and a
planted bug fails with the layer, the root cause and the input.

Holds: oracle.harness.pytest_plugin
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "pytest"


def run_pytest(directory, *more):
    return subprocess.run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", *more],
                          cwd=directory, capture_output=True, text=True, timeout=300)


@pytest.mark.slow
def test_the_example_passes_away_from_the_checkout(tmp_path):
    copy = tmp_path / "library"
    shutil.copytree(EXAMPLE, copy)
    done = run_pytest(copy)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-2000:]
    summary = done.stdout.strip().splitlines()[-1]
    assert " passed" in summary and "failed" not in summary
    # documented cases (some skipped as outside the capabilities) and 100 random examples
    listed = run_pytest(copy, "--collect-only").stdout
    assert "case:matlab-summary-bleu4" in listed and "example:random-0-99" in listed
    five = run_pytest(copy, "--collect-only", "--bleu-oracle-examples", "5").stdout
    assert "example:random-0-4]" in five and "example:random-0-5]" not in five


@pytest.mark.slow
def test_a_planted_bug_fails_naming_its_layer_and_root_cause(tmp_path):
    copy = tmp_path / "library"
    shutil.copytree(EXAMPLE, copy)
    source = copy / "smallbleu.py"
    text = source.read_text(encoding="utf-8")
    buggy = text.replace("(abs(length - len(hypothesis)), length)", "(abs(length - len(hypothesis)), -length)")
    assert buggy != text
    source.write_text(buggy, encoding="utf-8")  # reference-length ties now go to the longer reference
    done = run_pytest(copy, "--bleu-oracle-examples", "60")
    assert done.returncode == 1
    assert "at ref_len" in done.stdout and "root cause: reference_length=closest-longer" in done.stdout
    assert "input: {" in done.stdout
    # shrunk as check shrinks: among 60 random examples some are corpora of hundreds of segments, yet every
    # failing input printed is short (a tie needs a hypothesis and two references; shrinking has a wall-clock bound,
    # so a loaded machine may stop it early: short, not minimal, is what the test can hold), and replayable
    inputs, in_example = [], False
    for line in done.stdout.splitlines():
        # a failure's header names a case (not shrunk) or an example; a long name leaves as few as one underscore
        if line.startswith("_") and line.rstrip().endswith("_") and "[" in line:
            in_example = "[example:" in line
        elif in_example and line.startswith("input: {"):
            inputs.append(line)
    assert inputs and max(len(line) for line in inputs) < 1000, max(inputs, key=len)[:400]
    assert "reproduce: pytest " in done.stdout and "--bleu-oracle-seed" in done.stdout
