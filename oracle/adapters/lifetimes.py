"""Child processes that do not outlive what they work for.

Every process bleu-oracle starts (an implementation or a library's driver, a `check --jobs` worker, npm or
pip) runs in a process group of its own, so that stopping it stops whatever it spawned too
(`kill_group`). On Linux the kernel is also asked to signal it when the process that started it dies
(prctl PR_SET_PDEATHSIG, `die_with_parent`): a parent killed by SIGKILL, which runs no clean-up of its
own, still leaves nothing searching at full CPU. Elsewhere the pipes are the fallback: a child reading
its stdin sees end of file when its parent is gone.

`run_in_group` is `subprocess.run` for a child that may be interrupted: on a timeout, ^C or SIGTERM
(any exception while it runs) its whole group is killed before the exception goes on.
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Sequence

#: prctl(2) option: the signal the calling process gets when its parent (thread) dies.
PR_SET_PDEATHSIG = 1

_prctl = None


def _load_prctl():
    """libc's prctl, resolved in the parent (a forked child should call it, not look it up), or None."""
    global _prctl
    if _prctl is None and sys.platform.startswith("linux"):
        with contextlib.suppress(OSError, AttributeError):
            _prctl = ctypes.CDLL(None, use_errno=True).prctl
    return _prctl


def die_with_parent(signum: int = signal.SIGKILL) -> Callable[[], None] | None:
    """A `preexec_fn` that makes the child get `signum` when this process dies, or None where the
    kernel cannot (not Linux) or must not be asked. The death signal follows the *thread* that forks:
    a child started from a thread that later ends would be signalled then, so only the main thread
    asks for it (the others rely on the pipes)."""
    prctl = _load_prctl()
    if prctl is None or threading.current_thread() is not threading.main_thread():
        return None
    parent = os.getpid()

    def preexec() -> None:
        prctl(PR_SET_PDEATHSIG, int(signum), 0, 0, 0)
        if os.getppid() != parent:  # the parent died before the request took effect
            os.kill(os.getpid(), signum)

    return preexec


def set_own_death_signal(signum: int, parent: int | None = None) -> bool:
    """Ask for `signum` when this process's parent dies (a process that was not started with
    `die_with_parent`); True if the kernel took the request. If `parent` (the pid it expects) is
    already gone, the signal is raised at once."""
    prctl = _load_prctl()
    if prctl is None or prctl(PR_SET_PDEATHSIG, int(signum), 0, 0, 0) != 0:
        return False
    if parent is not None and os.getppid() != parent:
        os.kill(os.getpid(), signum)
    return True


def kill_group(process: subprocess.Popen, *, grace: float = 0.0) -> None:
    """Stop `process`'s whole group (it must have been started with start_new_session=True):
    SIGTERM first when `grace` > 0 seconds, then SIGKILL; waits for the leader. Members left
    after the leader exited are killed too (a group lives on while any member does)."""
    if grace > 0 and process.poll() is None:
        _signal_group(process, signal.SIGTERM)
        deadline = time.monotonic() + grace
        with contextlib.suppress(subprocess.TimeoutExpired):
            process.wait(timeout=max(deadline - time.monotonic(), 0.01))
    _signal_group(process, signal.SIGKILL)
    with contextlib.suppress(subprocess.TimeoutExpired):
        process.wait(timeout=5)  # SIGKILL cannot be ignored; 5 s only bounds a process stuck in the kernel


def _signal_group(process: subprocess.Popen, signum: int) -> None:
    try:
        os.killpg(process.pid, signum)
    except (ProcessLookupError, PermissionError):
        if process.poll() is None:
            with contextlib.suppress(OSError):
                process.send_signal(signum)


def run_in_group(argv: Sequence[str], *, timeout: float, cwd: str | os.PathLike | None = None,
                 env: dict | None = None) -> subprocess.CompletedProcess:
    """`subprocess.run(argv, capture_output=True, text=True, timeout=timeout)` with the child in a
    process group of its own that dies with this process: a timeout raises subprocess.TimeoutExpired,
    and ^C or SIGTERM (whatever exception interrupts the wait) goes on, each after the whole group was
    killed, so that no npm or pip is left filling a directory that is being removed. Bytes that are not
    text in the locale's encoding are kept as escapes (\\xff), never an error."""
    process = subprocess.Popen(list(argv), stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True, errors="backslashreplace", cwd=cwd, env=env,
                               start_new_session=True,
                               preexec_fn=die_with_parent(signal.SIGKILL))
    try:
        out, err = process.communicate(timeout=timeout)
    except BaseException:
        kill_group(process)
        with contextlib.suppress(OSError, ValueError, subprocess.SubprocessError):
            process.communicate(timeout=1)  # close the pipes
        raise
    _signal_group(process, signal.SIGKILL)  # whatever the leader left behind in its group
    return subprocess.CompletedProcess(process.args, process.returncode, out, err)
