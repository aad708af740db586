"""Driving a built-in adapter in this process, exactly as if it were a protocol-v1 process.

`InProcessImplementation` has the interface of `transport.ImplementationProcess` that the session
uses (start, request, stop, take_stderr, handshake, restarts, given_up). Each command goes through
the same code a `bleu-oracle serve` process runs (`oracle.adapters.server.handle_line`), and each
answer through the same line check the runner applies to a child's stdout (`reply_from_line`), so a
judgement made in process is the judgement `check --impl NAME` makes. `bleu-oracle report` uses it:
no process start-up per implementation, and a library's warnings and prints kept off the terminal.
"""

from __future__ import annotations

import contextlib
import io
import time
import warnings

from oracle.adapters.server import handle_line
from oracle.models.protocol import PROTOCOL_VERSION, encode

from .transport import (
    HandshakeError,
    bounded,
    parse_line,
    reply_from_line,
    validate_handshake,
)


class InProcessImplementation:
    """A built-in implementation (an `oracle.adapters.base.Implementation`) behind protocol v1, in process."""

    restarts = 0
    given_up = None

    def __init__(self, implementation):
        self.implementation = implementation
        self.handshake = None
        self._captured = io.StringIO()

    def _answer(self, command):
        """The server's reply line (bytes) to one command; the library's prints, warnings and the server's
        tracebacks captured. (stderr itself stays: a compiled library may ask for its file descriptor.)"""
        with warnings.catch_warnings(), contextlib.redirect_stdout(self._captured):
            warnings.simplefilter("ignore")
            reply, _ = handle_line(self.implementation, encode(command), log=self._captured)
        return encode(reply).encode("ascii") + b"\n"

    def start(self):
        line = self._answer({"cmd": "start", "protocol": PROTOCOL_VERSION})
        self.handshake = validate_handshake(parse_line(line))
        if self.handshake is None:  # pragma: no cover - validate_handshake raises instead
            raise HandshakeError("no handshake")
        return self.handshake

    def request(self, command):
        started = time.perf_counter()
        line = self._answer(command)
        return reply_from_line(line, command.get("seq"), stderr=self.take_stderr(),
                               duration=time.perf_counter() - started)

    def submit(self, command):
        """In process there is nothing to overlap: `collect` answers."""
        return command

    def collect(self, command):
        return self.request(command)

    def take_stderr(self):
        text = self._captured.getvalue()
        self._captured.seek(0)
        self._captured.truncate()
        return bounded(text)

    def stop(self):
        """Nothing to stop: the adapter lives in this process."""

    def alive(self):
        return True
