"""`check --jobs N`: the differential search in N worker processes, merged back into one stream.

Worker k (``python -m oracle.harness.worker_process SPEC``) is a session of its own: it starts its own
implementation process, draws the examples whose index is k modulo N (each example is
deterministic per seed and index, so which process draws it changes nothing), judges, shrinks and
classifies them, and writes its records to its own results.jsonl. The parent reads those files as
they grow (for its progress line), then merges them in example order and gates every record by
its baseline, so the run's results.jsonl holds the same records in the same order as with one
process; only durations and the protocol's seq numbers differ.

A worker that cannot drive its implementation, or fails, makes the run fail with its stderr's last
line; SIGTERM or ^C to the parent stops every worker (each stops its implementation first) and the
records judged so far are kept.
"""

from __future__ import annotations

import contextlib
import dataclasses
import json
import os
import shutil
import signal
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path


from .events import RESULTS_FILE

#: Seconds a stopped worker has to stop its implementation before it is killed.
STOP_GRACE = 5.0
#: Seconds between two looks at the workers' results files.
POLL = 0.2


@dataclass
class WorkerRun:
    """One worker process and the directory it writes into."""

    index: int
    directory: Path
    process: subprocess.Popen
    _handle: object = None
    _partial: bytes = b""
    lines_read: int = 0
    _footer: dict = field(default_factory=dict)

    @property
    def results(self):
        return self.directory / RESULTS_FILE

    def new_lines(self):
        """Complete lines the worker has written since the last call."""
        if self._handle is None:
            if not self.results.exists():
                return []
            self._handle = open(self.results, "rb")  # noqa: SIM115 (kept open while the worker writes)
        data = self._partial + self._handle.read()
        *lines, self._partial = data.split(b"\n")
        return lines

    def close(self):
        if self._handle is not None:
            self._handle.close()
            self._handle = None

    def footer(self):
        """The worker's footer (counts, coverage, restarts, examples), or {} when it wrote none."""
        return self._footer

    def failure(self):
        """Why this worker failed (None when it ran to its end: exit 0 or 1)."""
        code = self.process.returncode
        if code in (0, 1):
            return None
        try:
            lines = (self.directory / "stderr.txt").read_text(encoding="utf-8", errors="replace").strip().splitlines()
        except OSError:
            lines = []
        return f"search worker {self.index} ended with exit {code}" + (f": {lines[-1][:500]}" if lines else "")


def start_workers(settings, profile, work_dir):
    """Start `settings.jobs` workers judging under `profile`, each writing under WORK_DIR/.workers/K/."""
    jobs = settings.jobs
    runs = []
    root = Path(work_dir) / ".workers"
    for index in range(jobs):
        directory = root / str(index)
        directory.mkdir(parents=True, exist_ok=True)
        spec = {**dataclasses.asdict(settings), "profile": profile, "jobs": 1, "shard": [index, jobs], "quiet": True}
        spec_path = directory / "spec.json"
        spec_path.write_text(json.dumps(spec), encoding="utf-8")
        with open(directory / "stderr.txt", "wb") as stderr:
            process = subprocess.Popen([sys.executable, "-m", "oracle.harness.worker_process", str(spec_path)],
                                       stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=stderr,
                                       start_new_session=True)
        runs.append(WorkerRun(index, directory, process))
    return runs


def _records(lines):
    for line in lines:
        try:
            obj = json.loads(line)
        except ValueError:  # a line torn by a stopped worker
            continue
        if isinstance(obj, dict) and obj.get("type") == "record":
            yield obj


def wait(runs, progress):
    """Wait for every worker, counting the examples they judge on `progress`."""
    while True:
        running = [run for run in runs if run.process.poll() is None]
        for run in runs:
            for record in _records(run.new_lines()):
                if record.get("kind") != "metamorphic":
                    progress.update(record["outcome"])
        if not running:
            return
        time.sleep(POLL)


def stop(runs):
    """Stop the workers still running: SIGTERM (each stops its implementation), then SIGKILL."""
    for run in runs:
        if run.process.poll() is None:
            with contextlib.suppress(OSError):
                os.killpg(run.process.pid, signal.SIGTERM)
    deadline = time.monotonic() + STOP_GRACE
    for run in runs:
        try:
            run.process.wait(timeout=max(deadline - time.monotonic(), 0.01))
        except subprocess.TimeoutExpired:
            with contextlib.suppress(OSError):
                os.killpg(run.process.pid, signal.SIGKILL)
            run.process.wait()
        run.close()


def _example_index(record):
    return int(record["id"].split("~", 1)[0].rsplit("-", 1)[1])


def _read(run):
    """A worker's records, in its order; its footer is kept on the run."""
    if not run.results.exists():
        return
    with open(run.results, "rb") as handle:
        for line in handle:
            try:
                obj = json.loads(line)
            except ValueError:  # a torn last line
                continue
            if not isinstance(obj, dict):
                continue
            if obj.get("type") == "footer":
                run._footer = obj
            elif obj.get("type") == "record":
                obj.pop("type")
                yield obj


def merged_records(runs):
    """Every worker's records in example order (an example's relation record right after it)."""
    streams = [_read(run) for run in runs]
    heads = [next(stream, None) for stream in streams]
    while any(head is not None for head in heads):
        # the smallest example index among the workers' next records
        k = min((i for i, head in enumerate(heads) if head is not None), key=lambda i: _example_index(heads[i]))
        index = _example_index(heads[k])
        while heads[k] is not None and _example_index(heads[k]) == index:
            yield heads[k]
            heads[k] = next(streams[k], None)


def collect_replays(runs, work_dir):
    """Move the workers' replay files (inputs too long for a command line) into WORK_DIR/replay/."""
    for run in runs:
        replay = run.directory / "replay"
        if replay.is_dir():
            target = Path(work_dir) / "replay"
            target.mkdir(parents=True, exist_ok=True)
            for path in replay.iterdir():
                os.replace(path, target / path.name)


def cleanup(runs):
    if runs:
        shutil.rmtree(runs[0].directory.parent, ignore_errors=True)
