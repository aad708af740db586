"""`report --jobs N` stops when told: SIGTERM or ^C stops the forked column processes at once (each in
a process group of its own, killed whole), the report exits 143 / 130 saying so, and nothing of it is
left running; the previous report's data stays whole (every stream ends with its footer), and nothing
of the stopped run is left on disk (its staging directory, its drivers' log folder), also when a second
signal comes while it stops.

Holds: oracle.commands.report_columns, oracle.reports.site.build
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from fakes.processes import descendants, gone_within, wait_for, with_marker

from oracle.reports.staging import STAGING_PREFIX
from oracle.textio import read_lines

#: Two implementation columns (run in two forked processes with --jobs 2) besides the oracle's.
COLUMNS = ("nltk", "sacrebleu")


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


def _report(out: Path, *more: str) -> list[str]:
    return ["report", "--impl", *COLUMNS, "--no-real-data", "--report", str(out), "-q", *more]


def _environment(tmp_path: Path) -> dict[str, str]:
    """The tests' import path, and a temporary directory of the test's own (what a run leaves there is seen)."""
    temporary = tmp_path / "tmp"
    temporary.mkdir(exist_ok=True)
    return {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path), "TMPDIR": str(temporary)}


def _snapshot(directory: Path) -> dict[str, bytes]:
    return {str(p.relative_to(directory)): p.read_bytes() for p in sorted(directory.rglob("*")) if p.is_file()}


def _previous_report(tmp_path: Path) -> tuple[Path, dict[str, bytes]]:
    out = tmp_path / "reports"
    done = subprocess.run([sys.executable, "-m", "oracle", *_report(out, "--examples", "3")],
                          env=_environment(tmp_path), capture_output=True, text=True, timeout=300)
    if done.returncode != 0 or "not installed" in (out / "data" / "implementations.jsonl").read_text():
        pytest.skip(f"a report of {COLUMNS} cannot be made here: {done.stderr[-500:]}")
    return out, _snapshot(out)


def _interrupted(tmp_path: Path, out: Path, signum: int, command: list[str]) -> tuple[subprocess.Popen, str, dict]:
    """Start `command` (a report of 5,000 random inputs a column), wait until an implementation column's stream
    is being written in the staging directory and the column processes run, then send `signum`; returns the
    process (ended), its stderr and the column processes seen."""
    run = subprocess.Popen(command, env=_environment(tmp_path), stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                           text=True)
    try:
        wait_for(lambda: [path for path in out.glob(f"{STAGING_PREFIX}*/data/runs/*/results.jsonl")
                          if any(name in path.parent.name for name in COLUMNS)], 120, "an implementation's stream")
        columns = wait_for(lambda: descendants(run.pid), 30, "the column processes")
        run.send_signal(signum)
        _, err = run.communicate(timeout=120)
    finally:
        if run.poll() is None:
            run.kill()
            run.wait(timeout=30)
    return run, err, columns


def _left_whole(tmp_path: Path, out: Path, before: dict[str, bytes], columns: dict) -> None:
    """The previous report byte for byte, each stream in it ending with its footer; no staging directory, no
    temporary folder, no column process left."""
    assert not list(out.glob(f"{STAGING_PREFIX}*"))
    assert _snapshot(out) == before
    streams = sorted(out.rglob("results.jsonl"))
    assert len(streams) == 9 + len(COLUMNS)  # the oracle under each profile, each implementation
    for stream in streams:
        last = list(read_lines(stream))[-1]
        assert json.loads(last)["type"] == "footer", stream
    assert sorted(path.name for path in (tmp_path / "tmp").iterdir()) == []  # the drivers' log folder went too
    left = gone_within(columns, 10)
    assert not left, f"column processes left running: {sorted(left.values())}"


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGINT])
def test_a_stopped_report_keeps_the_previous_data_whole_and_leaves_nothing(tmp_path, signum):
    out, before = _previous_report(tmp_path)
    command = [sys.executable, "-m", "oracle", *_report(out, "--examples", "5000", "--jobs", "2")]
    run, err, columns = _interrupted(tmp_path, out, signum, command)
    assert run.returncode == 128 + signum, err
    assert len(err.strip().splitlines()) == 1 and "interrupted" in err and "Traceback" not in err, err
    _left_whole(tmp_path, out, before, columns)


#: `bleu-oracle` with a second signal sent by the process to itself as the stopped report kills its column
#: processes and again as it removes its staging directory (the moments a second ^C, or a supervisor repeating
#: its SIGTERM, once cut short).
SIGNALLED_AGAIN = """\
import os, signal, sys
import oracle.commands.report_columns as columns
from oracle.reports.staging import ReportDirectory

again = int(sys.argv.pop(1))
stop_columns, discard = columns._stop_column_processes, ReportDirectory.discard

def stop_columns_signalled(pool):
    os.kill(os.getpid(), again)
    stop_columns(pool)

def discard_signalled(self):
    os.kill(os.getpid(), again)
    discard(self)

columns._stop_column_processes = stop_columns_signalled
ReportDirectory.discard = discard_signalled
from oracle.cli import main
sys.exit(main(sys.argv[1:]))
"""


@pytest.mark.parametrize(("first", "second"), [(signal.SIGTERM, signal.SIGINT), (signal.SIGINT, signal.SIGTERM),
                                               (signal.SIGTERM, signal.SIGTERM)])
def test_a_second_signal_while_the_report_stops_cuts_nothing_short(tmp_path, first, second):
    out, before = _previous_report(tmp_path)
    command = [sys.executable, "-c", SIGNALLED_AGAIN, str(int(second)),
               *_report(out, "--examples", "5000", "--jobs", "2")]
    run, err, columns = _interrupted(tmp_path, out, first, command)
    assert run.returncode == 128 + first, err  # the first signal's exit code
    assert len(err.strip().splitlines()) == 1 and "interrupted" in err and "Traceback" not in err, err
    _left_whole(tmp_path, out, before, columns)


def test_a_columns_stream_takes_its_place_only_once_its_footer_is_written(tmp_path):
    """A column stopped half-way (here SIGTERM's `Interrupted` raised from inside its adapter on the 20th request,
    as the report's handler raises it in process) leaves no stream where the column's goes: a reader of
    data/runs/COLUMN/results.jsonl (the report's pages, an implementation judged against the oracle's column)
    sees a whole stream or none. A column that ends writes its stream there, whole."""
    from oracle.adapters.oracle_adapter import OracleImplementation
    from oracle.commands.report_columns import run_column
    from oracle.reports.site.collect import Column
    from oracle.reports.site.data import run_directory
    from oracle.signals import Interrupted

    class StoppedHalfWay(OracleImplementation):
        answered = 0

        def score(self, request):
            self.answered += 1
            if self.answered == 20:
                raise Interrupted(143)
            return super().score(request)

    data = tmp_path / "data"
    logs = tmp_path / "logs"
    logs.mkdir()
    stopped = Column("oracle/nltk", StoppedHalfWay(profile="nltk"), "nltk", "oracle")
    with pytest.raises(Interrupted):
        run_column(stopped, data_dir=data, seed=0, examples=0, logs=logs)
    assert not (run_directory(data, stopped.key) / "results.jsonl").exists()
    whole = Column("oracle/papineni", OracleImplementation(profile="papineni"), "papineni", "oracle")
    stream = run_column(whole, data_dir=data, seed=0, examples=0, logs=logs)
    assert stream == run_directory(data, whole.key) / "results.jsonl"
    assert json.loads(list(read_lines(stream))[-1])["type"] == "footer"
    assert not list((data / "runs").glob("*papineni*.partial"))
