"""A library in another process (node, or a Python in its own venv) behind an adapter.

The adapter starts the driver once and keeps it: each call is one JSON line out and one JSON line
back. The line out carries an `id` (1, 2, ... per driver) that the answer echoes:
`{"id": 3, "score": "0.7598..."}` (the float's repr, so NaN and infinities survive),
`{"id": 3, "rejected": msg}` (the library refused the input as invalid) or `{"id": 3, "error": msg}`
(it raised). An answer is taken only for the request it names: a line with another id (a late or
repeated answer) or a line that came when no request was pending is an error of the request being
made, never its answer, so one extra line cannot shift every later answer by one request.

A driver that dies, says nothing within TIMEOUT, answers out of turn or with something else is an
error of this request, and the next call starts a new driver. Lines are bounded (MAX_LINE); the
driver's stderr is the server's, so it is kept with the record. The driver runs in a process group
of its own, killed whole whenever the driver is replaced, and when this process exits (or dies:
Linux's parent-death signal, `oracle.adapters.lifetimes`), so nothing it spawned is left running.
"""

from __future__ import annotations

import atexit
import json
import queue
import signal
import subprocess
import threading
import weakref

from oracle.formulas.errors import BleuOracleError

from .base import Rejected
from .lifetimes import die_with_parent, kill_group

TIMEOUT = 120.0
MAX_LINE = 1 << 20

#: The bridges whose driver may be running: stopped when this process exits.
_RUNNING = weakref.WeakSet()


class DriverError(BleuOracleError, RuntimeError):
    """The driver process died, timed out or answered outside its protocol."""


class Bridge:
    def __init__(self, argv, *, env=None, what="driver"):
        self.argv = [str(a) for a in argv]
        self.env = env
        self.what = what
        self._proc = None
        self._lines = None
        self._sent = 0  # the id of the last request written to the current driver

    def _start(self):
        try:
            self._start_process()
        except OSError as exc:
            self._proc = None
            raise DriverError(f"{self.what} could not start ({self.argv[0]}): {exc.strerror or exc}") from None

    def _start_process(self):
        self._proc = subprocess.Popen(self.argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, env=self.env,
                                      text=True, encoding="utf-8", errors="surrogateescape", bufsize=1,
                                      start_new_session=True, preexec_fn=die_with_parent(signal.SIGKILL))
        self._lines = queue.Queue()
        self._sent = 0
        _RUNNING.add(self)
        threading.Thread(target=self._read, args=(self._proc.stdout, self._lines), daemon=True).start()

    @staticmethod
    def _read(stream, lines):
        for line in iter(lambda: stream.readline(MAX_LINE), ""):
            lines.put(line)
        lines.put(None)

    def _fail(self, message):
        """Replace the driver (its whole group is killed) and make `message` this request's error."""
        self.close()
        raise DriverError(message)

    def call(self, message):
        """The driver's answer to `message`: a float, or Rejected; DriverError when it fails."""
        if self._proc is None or self._proc.poll() is not None:
            self.close()  # a driver that exited between two calls: whatever it left in its group too
            self._start()
        try:
            stray = self._lines.get_nowait()
        except queue.Empty:
            stray = None
        if stray is not None:  # (None: its output closed; the request below finds it exited)
            self._fail(f"{self.what} wrote a line when no request was pending (after its answer to request "
                       f"{self._sent}): {stray[:200]!r}")
        self._sent += 1
        ident = self._sent
        try:
            self._proc.stdin.write(json.dumps({"id": ident, **message}, ensure_ascii=False) + "\n")
            self._proc.stdin.flush()
            line = self._lines.get(timeout=TIMEOUT)
        except (OSError, queue.Empty) as exc:
            self.close()
            raise DriverError(f"{self.what} gave no answer ({type(exc).__name__})") from exc
        if line is None:  # its stdout closed: it exited, or is about to (killed after 5 s if not)
            try:
                code = self._proc.wait(timeout=5)
            except subprocess.TimeoutExpired:
                self._fail(f"{self.what} closed its output before answering and did not exit (killed)")
            self._fail(f"{self.what} exited with {code} before answering")
        if not line.endswith("\n"):  # cut at MAX_LINE (the rest would be read as the next answer), or its last words
            if len(line) >= MAX_LINE:
                self._fail(f"{self.what} answered a line longer than {MAX_LINE} characters: {line[:200]!r}...")
            self._fail(f"{self.what} ended its output in the middle of a line: {line[:200]!r}")
        try:
            answer = json.loads(line)
        except ValueError:
            self._fail(f"{self.what} answered a line that is not JSON: {line[:200]!r}")
        return self._answer(answer, ident, line)

    def _answer(self, answer, ident, line):
        if not isinstance(answer, dict) or answer.get("id") != ident:
            echoed = answer.get("id") if isinstance(answer, dict) else None
            self._fail(f"{self.what} answered request {echoed!r} while request {ident} was pending "
                       f"(a late, repeated or unnumbered answer): {line[:200]!r}")
        if isinstance(answer.get("score"), str):
            try:
                return float(answer["score"])
            except ValueError:
                pass
        if isinstance(answer.get("rejected"), str):
            raise Rejected(answer["rejected"])
        if isinstance(answer.get("error"), str):
            raise DriverError(answer["error"])
        self._fail(f"{self.what} answered {line[:200]!r}")

    def close(self):
        """Stop the driver and everything in its process group."""
        proc, self._proc = self._proc, None
        if proc is not None:
            kill_group(proc)
            try:  # (its stdout is left to the reader thread, which sees its end now)
                proc.stdin.close()
            except OSError:
                pass
        _RUNNING.discard(self)

    def __del__(self):
        try:
            self.close()
        except Exception:  # noqa: BLE001 - at interpreter exit the modules it needs may be gone
            pass


@atexit.register
def _close_all():
    """A server that ends (end of input, `stop`) leaves no driver behind."""
    for bridge in list(_RUNNING):
        bridge.close()
