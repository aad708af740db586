"""`check --jobs N`: the search in N worker processes gives the stream one process gives, and stops whole."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time

from fakes.harness import check, fake, results

from oracle.harness.events import read_results


def _comparable(report):
    """The records of a run without what legitimately differs between processes: durations and the
    protocol's seq numbers (each implementation process numbers its own requests)."""

    def without_seq(value):
        if isinstance(value, dict):
            return {k: without_seq(v) for k, v in value.items() if k != "seq"}
        if isinstance(value, list):
            return [without_seq(v) for v in value]
        return value

    return [without_seq({k: v for k, v in r.items() if k not in ("duration", "wall")}) for r in results(report).records]


def test_jobs_write_the_records_one_process_writes_in_the_same_order(tmp_path):
    """A mutant that fails (so examples are shrunk and classified) and cases: --jobs 3 against --jobs 1."""
    one, three = tmp_path / "one", tmp_path / "three"
    assert check(one, fake("mutant_ties_longer"), examples=45) == 1
    assert check(three, fake("mutant_ties_longer"), "--jobs", "3", examples=45) == 1
    single, parallel = _comparable(one), _comparable(three)
    assert [r["id"] for r in parallel] == [r["id"] for r in single]
    assert any(r["outcome"] == "fail" and r.get("shrunk") for r in single)
    assert any(r["kind"] == "metamorphic" for r in single)
    assert parallel == single
    footers = read_results(one).footer, read_results(three).footer
    assert footers[0]["counts"] == footers[1]["counts"] and footers[0]["coverage"] == footers[1]["coverage"]
    assert footers[0]["examples"] == footers[1]["examples"] == 45
    assert (one / "summary.md").read_text() == (three / "summary.md").read_text()
    assert not list(three.glob(".workers")), "the workers' directories are removed"


def test_jobs_must_be_a_positive_integer(tmp_path):
    done = subprocess.run([sys.executable, "-m", "oracle", "check", "--command", fake("clean"), "--jobs", "0",
                           "--report", str(tmp_path / "r")], capture_output=True, text=True)
    assert done.returncode == 2 and "--jobs" in done.stderr and "Traceback" not in done.stderr


def test_sigterm_stops_every_worker_and_implementation_and_keeps_what_was_judged(tmp_path):
    """Each worker's implementation hangs on its 2nd request: SIGTERM to check must stop the workers,
    which stop their implementations; the footer says interrupted, the first examples are kept."""
    report = tmp_path / "report"
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    run = subprocess.Popen([sys.executable, "-m", "oracle", "check", "--command", fake("hang_seq2"), "--no-cases",
                            "--examples", "6", "--jobs", "2", "--timeout", "60", "--report", str(report), "--quiet"],
                           env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.time() + 30
    while time.time() < deadline and len(list(report.glob(".bleu-oracle-partial.*/.workers/*/results.jsonl"))) < 2:
        time.sleep(0.1)
    time.sleep(2.0)  # each worker's first request answered, its second hanging
    run.send_signal(signal.SIGTERM)
    out, err = run.communicate(timeout=60)
    assert run.returncode == 143, err
    assert "Traceback" not in err
    done = read_results(report)
    assert done.footer["interrupted"] is True
    assert [r["id"] for r in done.records] == ["random-0-0", "random-0-1"]
    leftovers = subprocess.run(["pgrep", "-f", "hang_seq2|oracle.harness.worker_process"], capture_output=True,
                               text=True).stdout.split()
    assert not leftovers, leftovers
    assert json.loads((report / "results.jsonl").read_text().splitlines()[-1])["type"] == "footer"
