"""A report directory is written whole or not at all, a run can be stopped, and the path is checked
first: what check does when its report path, a second run or a signal gets in the way."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time

from fakes.harness import fake, run_cli

from oracle.harness.events import read_results


def _check(report, command, *more, examples=5):
    return run_cli("check", "--command", command, "--no-cases", "--examples", examples, "--timeout", 5,
                   "--report", report, "--quiet", *more)


def test_a_report_path_that_is_a_file_is_a_usage_error_before_anything_runs(tmp_path, capsys):
    path = tmp_path / "report"
    path.write_text("not a directory")
    assert _check(path, fake("clean")) == 2
    assert "a file is in the way" in capsys.readouterr().err
    assert path.read_text() == "not a directory"


def test_a_new_report_replaces_the_old_one_whole(tmp_path):
    report = tmp_path / "report"
    assert _check(report, fake("clean")) == 0
    (report / "stale.txt").write_text("from an older run")
    assert _check(report, fake("mutant_no_clipping"), examples=20) == 1
    assert not (report / "stale.txt").exists()  # the directory was replaced, not written over
    results = read_results(report)
    assert results.footer["exit_code"] == 1 and "deviations found" in (report / "summary.md").read_text()
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".report.")]  # no staging left behind


def test_concurrent_runs_into_one_directory_each_complete(tmp_path):
    report = tmp_path / "report"
    codes = []
    threads = [threading.Thread(target=lambda: codes.append(_check(report, fake("clean"), examples=30)))
               for _ in range(3)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert codes == [0, 0, 0]
    results = read_results(report)  # the last to finish: complete, with its footer
    assert results.footer is not None and sum(r["kind"] == "example" for r in results.records) == 30
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".report.")]


def test_sigterm_stops_the_run_with_a_footer_and_nothing_left_running(tmp_path):
    report = tmp_path / "report"
    # the implementation hangs on its 2nd request: SIGTERM must stop the run and leave it not running
    command = fake("hang_seq2")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    run = subprocess.Popen([sys.executable, "-m", "oracle", "check", "--command", command, "--no-cases", "--examples",
                            "5", "--timeout", "60", "--report", str(report), "--quiet"], env=env,
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.time() + 30
    while time.time() < deadline and not list(tmp_path.glob(".report.*.partial/results.jsonl")):
        time.sleep(0.1)
    time.sleep(1.5)  # the first request answered, the second hanging
    run.send_signal(signal.SIGTERM)
    out, err = run.communicate(timeout=30)
    assert run.returncode == 143, err
    results = read_results(report)
    assert results.footer["interrupted"] is True and results.footer["exit_code"] == 143
    assert "Traceback" not in err
    leftovers = subprocess.run(["pgrep", "-f", "hang_seq2"], capture_output=True, text=True).stdout.split()
    assert not leftovers, leftovers
    assert "interrupted" in (report / "summary.md").read_text()
