"""`report --jobs N` stops when told: SIGTERM or ^C stops the forked column processes at once (each in
a process group of its own, killed whole), the report exits 143 / 130 saying so, and nothing of it is
left running.

Holds: oracle.reports.site.collect, oracle.reports.site.build
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys

import pytest
from fakes.processes import descendants, gone_within, wait_for, with_marker


def _started(lines, names):
    return all(any(f"report: {name}: the edge cases" in line for line in lines) for name in names)


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGINT])
def test_an_interrupted_report_stops_its_columns_and_leaves_nothing(tmp_path, signum):
    """Two implementation columns of 5,000 random inputs each, in two processes; the signal comes
    once both have begun. The report must not wait for them (neither says it is done), and no
    column process outlives it."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    out = tmp_path / "reports"
    report = subprocess.Popen([sys.executable, "-m", "oracle", "report", "--impl", "nltk", "sacrebleu",
                               "--no-real-data", "--examples", "5000", "--jobs", "2", "--report", str(out)],
                              env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    lines = []
    try:
        for line in report.stderr:
            lines.append(line)
            if _started(lines, ("nltk", "sacrebleu")):
                break
        columns = wait_for(lambda: descendants(report.pid), 30, f"the column processes ({''.join(lines)[-3000:]})")
        report.send_signal(signum)
        rest, err = report.communicate(timeout=60)
    finally:
        if report.poll() is None:
            report.kill()
    stderr = "".join(lines) + err
    if "not installed" in stderr or "could not be loaded" in stderr:
        pytest.skip("nltk or sacrebleu is not installed")
    assert report.returncode == 128 + signum, stderr[-2000:]
    assert "interrupted; the columns were stopped" in stderr and "Traceback" not in stderr
    assert "report: nltk: done" not in stderr or "report: sacrebleu: done" not in stderr, "it waited for the columns"
    left = gone_within(columns, 10)
    assert not left, f"column processes left running: {sorted(left)}"
    assert not with_marker(str(out))
