"""Finding the processes a test started, and waiting for them to be gone (Linux /proc).

A process is named by (pid, command line), so a pid the kernel reuses for something else is not
mistaken for the one a test saw; a zombie (exited, not yet reaped by whoever adopted it) counts as
gone. Lookups are scoped to a marker (a path under the test's tmp_path in the argv) or to the
descendants of a process the test started: never every process of a name on a shared machine.
"""

from __future__ import annotations

import os
import time
from pathlib import Path

PROC = Path("/proc")


def _stat(pid):
    """(state, ppid) of a process, or None when it is gone."""
    try:
        text = (PROC / str(pid) / "stat").read_text()
    except OSError:
        return None
    fields = text.rsplit(")", 1)[1].split()
    return fields[0], int(fields[1])


def _cmdline(pid):
    try:
        return (PROC / str(pid) / "cmdline").read_bytes().replace(b"\0", b" ").decode("utf-8", "replace").strip()
    except OSError:
        return None


def _all_pids():
    return [int(p.name) for p in PROC.iterdir() if p.name.isdigit()]


def descendants(pid):
    """{pid: command line} of every living descendant of `pid` (children, their children, ...)."""
    children = {}
    for other in _all_pids():
        stat = _stat(other)
        if stat is not None and stat[0] != "Z":
            children.setdefault(stat[1], []).append(other)
    found, todo = {}, [pid]
    while todo:
        for child in children.get(todo.pop(), []):
            line = _cmdline(child)
            if line is not None:
                found[child] = line
                todo.append(child)
    return found


def with_marker(marker):
    """{pid: command line} of every living process whose command line holds `marker`, this one aside."""
    found = {}
    for pid in _all_pids():
        line = _cmdline(pid)
        stat = _stat(pid)
        if line and marker in line and pid != os.getpid() and stat is not None and stat[0] != "Z":
            found[pid] = line
    return found


def living(processes):
    """Those of `processes` ({pid: command line}) still running."""
    alive = {}
    for pid, line in processes.items():
        stat = _stat(pid)
        if stat is not None and stat[0] != "Z" and _cmdline(pid) == line:
            alive[pid] = line
    return alive


def gone_within(processes, seconds):
    """Wait (polling) until none of `processes` runs, or `seconds` have passed; the ones left."""
    deadline = time.monotonic() + seconds
    while (left := living(processes)) and time.monotonic() < deadline:
        time.sleep(0.1)
    return left


def wait_for(condition, seconds, what):
    """Poll `condition()` until it returns something true (returned), or fail saying `what` never happened."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        value = condition()
        if value:
            return value
        time.sleep(0.05)
    raise AssertionError(f"{what} did not happen within {seconds} s")
