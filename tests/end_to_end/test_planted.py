"""Self-tests of `bleu-oracle check`'s differential search: planted bugs modelled on real BLEU bugs.

Each bug of tests/fakes/plantedbleu.py (`BUGS`; the citation of the real bug
is next to its switch there) is run through `bleu-oracle check` with its
defaults -- the default cases directory, number of examples and seed -- and
must be caught: exit 1 and at least one deviating record in results.jsonl.
The clean control must conform (exit 0). The elapsed time of each run is
printed (`pytest -s`) and recorded as a property, never asserted.
"""

from __future__ import annotations

import subprocess
import sys
import time

import pytest
from fakes.harness import FAKES, deviations, fake, run_cli
from fakes.plantedbleu import BUGS, STATEFUL_BUGS

#: Planted bugs that score an input the documents leave undefined with a named convention's value (an empty corpus
#: 0, all-zero weights BP): acceptable by default (PROTOCOL.md), so caught by a run that requires the refusal.
STRICT_ONLY = ("empty-corpus-accepted", "zero-weights-accepted")


def run_check(report, *argv):
    """`bleu-oracle check --command "<python> tests/fakes/plantedbleu.py ARGV" --report REPORT --quiet`,
    every other option at its default (`--strict` for a bug of STRICT_ONLY); returns (exit code, seconds)."""
    start = time.perf_counter()
    strict = ["--strict"] if set(argv) & set(STRICT_ONLY) else []
    code = run_cli("check", "--command", fake("plantedbleu", *argv), "--report", report, "--quiet", *strict)
    return code, time.perf_counter() - start


@pytest.fixture
def in_repo_root(monkeypatch, repo_root):
    """check's default case directory is ./cases: run from the repository root, as the CLI is."""
    monkeypatch.chdir(repo_root)


def test_the_clean_control_conforms(tmp_path, in_repo_root, record_property):
    code, elapsed = run_check(tmp_path / "report", "clean")
    record_property("elapsed_seconds", round(elapsed, 2))
    print(f"\nplanted clean: exit {code} in {elapsed:.1f} s")
    assert code == 0, [(r.id, r.outcome, r.layer) for r in deviations(tmp_path / "report")][:10]
    assert not deviations(tmp_path / "report")


@pytest.mark.slow
@pytest.mark.parametrize("bug", sorted(set(BUGS) - set(STATEFUL_BUGS)))  # the stateful ones: their own tests below
def test_each_planted_bug_is_caught(tmp_path, in_repo_root, record_property, bug):
    code, elapsed = run_check(tmp_path / "report", bug)
    record_property("elapsed_seconds", round(elapsed, 2))
    found = deviations(tmp_path / "report")
    print(f"\nplanted {bug}: exit {code}, {len(found)} deviating record(s), in {elapsed:.1f} s")
    assert code == 1, f"{bug} ({BUGS[bug]}) was not caught: check exited {code}"
    assert found, f"{bug}: exit 1 but no deviating record in results.jsonl"


def test_an_unknown_bug_name_is_an_error():
    done = subprocess.run([sys.executable, str(FAKES / "plantedbleu.py"), "no-such-bug"], input="",
                          capture_output=True, text=True, timeout=60)
    assert done.returncode != 0
    assert "no-such-bug" in done.stderr


# -- stateful planted bugs (a block of its own: other planted bugs are added above) -----------------
#: The layer each stateful bug must fail in: what the smallest plan that shows it uses.
STATEFUL_LAYERS = {
    "reset-keeps-lengths": "reset",
    "merge-averages-ratios": "merge",
    "merge-last-lengths": "merge",
    "update-replaces-lengths": "accumulation",
}


def stateful_failures(report):
    """(layer, shrunk plan) of each failing stateful record of a run."""
    return [(r.layer, r.shrunk.request.stateful if r.shrunk else None)
            for r in deviations(report) if r.kind == "stateful"]


def test_every_stateful_bug_has_its_layer():
    assert set(STATEFUL_LAYERS) == set(STATEFUL_BUGS)


def _caught_in_its_layer(report, bug, record_property):
    """A whole `check` at its defaults fails the stateful bug in its layer only, and on stateful records only (a
    one-shot request goes through one fresh state, which the bug leaves alone); returns the failures."""
    code, elapsed = run_check(report, bug)
    record_property("elapsed_seconds", round(elapsed, 2))
    print(f"\nplanted {bug}: exit {code} in {elapsed:.1f} s")
    failures = stateful_failures(report)
    assert code == 1 and failures, f"{bug} was not caught"
    assert {layer for layer, _ in failures} == {STATEFUL_LAYERS[bug]}
    assert all(r.kind == "stateful" for r in deviations(report))
    return failures


def test_a_state_not_reset_is_caught_with_defaults_in_the_reset_layer(tmp_path, in_repo_root, record_property):
    failures = _caught_in_its_layer(tmp_path / "report", "reset-keeps-lengths", record_property)
    # shrunk: one corpus scored and reset before, the corpus itself in one batch of one segment
    assert any(plan.shards == ((1,),) and len(plan.previous) == 1 for _, plan in failures)


#: The stateful bugs each run once in CI: reset-keeps-lengths by the fast test above, the others here.
@pytest.mark.slow
@pytest.mark.parametrize("bug", sorted(set(STATEFUL_BUGS) - {"reset-keeps-lengths"}))
def test_each_stateful_bug_is_caught_in_its_layer(tmp_path, in_repo_root, record_property, bug):
    _caught_in_its_layer(tmp_path / "report", bug, record_property)
