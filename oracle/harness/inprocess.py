"""Driving a built-in adapter in this process, exactly as if it were a protocol-v1 process.

`InProcessImplementation` is a `transport.Transport`, as `transport.ImplementationProcess` is (start,
submit, collect, request, stop, take_stderr, handshake, restarts, given_up). Each command goes through
the same code a `bleu-oracle serve` process runs (`oracle.adapters.server.handle_line`), and each
answer through the same line check the runner applies to a child's stdout (`reply_from_line`), so a
judgement made in process is the judgement `check --impl NAME` makes. `bleu-oracle report` uses it:
no process start-up per implementation, and a library's warnings and prints kept off the terminal.
A library scored outside this Python has no adapter to run here: `transport_for` gives its driver
as a process, through the same transport `check` uses.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import sys
import time
import warnings
from collections.abc import Iterator
from typing import Any

from oracle.adapters.base import Declared, Implementation
from oracle.adapters.driven import DriverImplementation
from oracle.adapters.server import handle_line
from oracle.models.protocol import PROTOCOL_VERSION, Handshake, encode
from oracle.models.wire import Line

from .transport import (
    ImplementationProcess,
    Reply,
    Transport,
    bounded,
    parse_line,
    reply_from_line,
    validate_handshake,
)

#: Seconds a driver may take to answer in a report column (the handshake, and the first score, which
#: loads TensorFlow): a column is judged, not raced, and its records must not depend on the machine's load.
DRIVER_TIMEOUT = 120.0


class InProcessImplementation:
    """A built-in implementation (an `oracle.adapters.base.Implementation`) behind protocol v1, in process."""

    restarts: int = 0
    given_up: str | None = None

    def __init__(self, implementation: Implementation, *,
                 stderr_log: str | os.PathLike[str] | None = None) -> None:
        self.implementation = implementation
        self.handshake: Handshake | None = None
        self._captured = io.StringIO()
        #: where what the library writes on file descriptor 2 itself goes while it answers (appended), or None: this
        #: process's own stderr. A compiled library's panic handler (bleuscore's Rust `unwrap` on an empty input)
        #: writes there, past `sys.stderr`, a message with a thread id in it: kept off the records, as a driver's
        #: stderr is, and off a report's progress lines (the regeneration of 2026-11-30 printed 36 KB of them)
        self.stderr_log = None if stderr_log is None else os.fspath(stderr_log)
        #: `stderr_log` opened (appending), from `start` (or the first answer) to `stop`: once, not once an answer
        self._log: int | None = None

    def _answer(self, command: dict[str, Any]) -> bytes:
        """The server's reply line (bytes) to one command; the library's prints, warnings and the server's
        tracebacks captured. (stderr itself stays a file descriptor: a compiled library may write to it; with
        `stderr_log` it is that file while the library answers.)"""
        with warnings.catch_warnings(), contextlib.redirect_stdout(self._captured), self._stderr_to_log():
            warnings.simplefilter("ignore")
            reply, _ = handle_line(self.implementation, encode(command), log=self._captured)
        return encode(reply).encode("ascii") + b"\n"

    @contextlib.contextmanager
    def _stderr_to_log(self) -> Iterator[None]:
        """File descriptor 2 pointed at `stderr_log` for the time of one answer, then given back (this process's
        own writes on stderr are flushed before and after, so none lands on the other side). The log is opened on
        the first answer and stays open until `stop`."""
        if self.stderr_log is None:
            yield
            return
        if self._log is None:
            self._log = os.open(self.stderr_log, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
        sys.stderr.flush()
        saved = os.dup(2)
        try:
            os.dup2(self._log, 2)
            yield
        finally:
            sys.stderr.flush()
            os.dup2(saved, 2)
            os.close(saved)

    def start(self) -> Handshake:
        """The handshake (`stderr_log` opened for the answers to come); a start that fails (no handshake, or a stop
        signal while the library describes itself) closes the log again, as `stop` would: the run ends without one."""
        try:
            line = self._answer({"cmd": "start", "protocol": PROTOCOL_VERSION})
            handshake = validate_handshake(parse_line(line))
        except BaseException:
            self.stop()
            raise
        self.handshake = handshake
        return handshake

    def request(self, command: dict[str, Any]) -> Reply:
        started = time.perf_counter()
        line = self._answer(command)
        return reply_from_line(line, command.get("seq"), stderr=self.take_stderr(),
                               duration=time.perf_counter() - started)

    def submit(self, command: dict[str, Any], line: Line | None = None) -> dict[str, Any]:
        """In process there is nothing to overlap: `collect` answers (`line`: the command encoded already)."""
        return command if line is None else json.loads(bytes(line))

    def collect(self, command: dict[str, Any]) -> Reply:
        return self.request(command)

    def take_stderr(self) -> str:
        text = self._captured.getvalue()
        self._captured.seek(0)
        self._captured.truncate()
        return bounded(text) or ""

    def stop(self) -> None:
        """Close `stderr_log` (the adapter itself lives on in this process: nothing else to stop)."""
        log, self._log = self._log, None
        if log is not None:
            os.close(log)

    def alive(self) -> bool:
        return True


def transport_for(implementation: Declared, *, timeout: float = DRIVER_TIMEOUT,
                  stderr_log: str | os.PathLike[str] | None = None) -> Transport:
    """How a built-in implementation is driven as a report column: an adapter in this process; a library
    behind a driver of its own (`oracle.adapters.driven`), that driver's process, whose stderr (a
    library's start-up chatter, with clock readings; its tracebacks) stays off the deterministic records:
    appended to the file `stderr_log`, or this process's own stderr. An adapter in this process writes there too
    what its library writes on file descriptor 2 itself (a compiled library's panic messages)."""
    if isinstance(implementation, DriverImplementation):
        return ImplementationProcess(implementation.command(), timeout=timeout, capture_stderr=False,
                                     stderr_log=stderr_log)
    if not isinstance(implementation, Implementation):
        raise TypeError(f"{type(implementation).__name__} is no implementation: it has no score() and no driver")
    return InProcessImplementation(implementation, stderr_log=stderr_log)
