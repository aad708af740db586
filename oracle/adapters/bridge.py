"""A library in another process (node, or a Python in its own venv) behind an adapter.

The adapter starts the driver once and keeps it: each call is one JSON line out and one JSON line
back, `{"score": "0.7598..."}` (the float's repr, so NaN and infinities survive), `{"rejected": msg}`
(the library refused the input as invalid) or `{"error": msg}` (it raised). A driver that dies,
says nothing within TIMEOUT or answers with something else is an error of this request, and the
next call starts a new driver. Lines are bounded (MAX_LINE); the driver's stderr is the server's,
so it is kept with the record.
"""

from __future__ import annotations

import json
import queue
import subprocess
import threading

from oracle.formulas.errors import BleuOracleError

from .base import Rejected

TIMEOUT = 120.0
MAX_LINE = 1 << 20


class DriverError(BleuOracleError, RuntimeError):
    """The driver process died, timed out or answered outside its protocol."""


class Bridge:
    def __init__(self, argv, *, env=None, what="driver"):
        self.argv = [str(a) for a in argv]
        self.env = env
        self.what = what
        self._proc = None
        self._lines = None

    def _start(self):
        try:
            self._start_process()
        except OSError as exc:
            self._proc = None
            raise DriverError(f"{self.what} could not start ({self.argv[0]}): {exc.strerror or exc}") from None

    def _start_process(self):
        self._proc = subprocess.Popen(self.argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, env=self.env,
                                      text=True, encoding="utf-8", errors="surrogateescape", bufsize=1)
        self._lines = queue.Queue()
        threading.Thread(target=self._read, args=(self._proc.stdout, self._lines), daemon=True).start()

    @staticmethod
    def _read(stream, lines):
        for line in iter(lambda: stream.readline(MAX_LINE), ""):
            lines.put(line)
        lines.put(None)

    def call(self, message):
        """The driver's answer to `message`: a float, or Rejected; DriverError when it fails."""
        if self._proc is None or self._proc.poll() is not None:
            self._start()
        try:
            self._proc.stdin.write(json.dumps(message, ensure_ascii=False) + "\n")
            self._proc.stdin.flush()
            line = self._lines.get(timeout=TIMEOUT)
        except (OSError, queue.Empty) as exc:
            self.close()
            raise DriverError(f"{self.what} gave no answer ({type(exc).__name__})") from exc
        if line is None:  # its stdout closed: it exited, or is about to (killed after 5 s if not)
            try:
                code = self._proc.wait(timeout=5)
            except subprocess.TimeoutExpired:
                self.close()
                raise DriverError(f"{self.what} closed its output before answering and did not exit (killed)") from None
            self._proc = None
            raise DriverError(f"{self.what} exited with {code} before answering")
        if not line.endswith("\n"):  # cut at MAX_LINE (the rest would be read as the next answer), or its last words
            self.close()
            if len(line) >= MAX_LINE:
                raise DriverError(f"{self.what} answered a line longer than {MAX_LINE} characters: {line[:200]!r}...")
            raise DriverError(f"{self.what} ended its output in the middle of a line: {line[:200]!r}")
        try:
            answer = json.loads(line)
        except ValueError:
            self.close()
            raise DriverError(f"{self.what} answered a line that is not JSON: {line[:200]!r}") from None
        if isinstance(answer, dict) and isinstance(answer.get("score"), str):
            try:
                return float(answer["score"])
            except ValueError:
                pass
        if isinstance(answer, dict) and isinstance(answer.get("rejected"), str):
            raise Rejected(answer["rejected"])
        if isinstance(answer, dict) and isinstance(answer.get("error"), str):
            raise DriverError(answer["error"])
        self.close()
        raise DriverError(f"{self.what} answered {line[:200]!r}")

    def close(self):
        if self._proc is not None:
            try:
                self._proc.kill()
                self._proc.wait(timeout=5)
            except (OSError, subprocess.SubprocessError):
                pass
            self._proc = None

    def __del__(self):
        self.close()
