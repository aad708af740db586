"""A minimal protocol-v1 runner for tests: one process, lines in, lines out."""

import queue
import subprocess
import tempfile
import threading
from pathlib import Path

from oracle.models.protocol import decode, encode

ROOT = Path(__file__).resolve().parents[1]
REPLY_TIMEOUT = 60


class Client:
    """A minimal protocol-v1 runner: one process, lines in, lines out."""

    def __init__(self, argv: list[str], env: dict[str, str] | None = None) -> None:
        self.stderr = tempfile.TemporaryFile()
        self.process = subprocess.Popen(
            argv, cwd=ROOT, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self.stderr, env=env
        )
        self.lines: queue.Queue[bytes | None] = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self):
        for line in self.process.stdout:
            self.lines.put(line)
        self.lines.put(None)

    def send(self, message):
        text = message if isinstance(message, str) else encode(message)
        self.process.stdin.write(text.encode("utf-8") + b"\n")
        self.process.stdin.flush()

    def receive(self):
        line = self.lines.get(timeout=REPLY_TIMEOUT)
        assert line is not None, f"the process closed stdout; stderr:\n{self.stderr_text()}"
        assert line.endswith(b"\n")
        return decode(line)  # every stdout line must be one JSON object

    def ask(self, message):
        self.send(message)
        return self.receive()

    def stderr_text(self):
        self.stderr.seek(0)
        return self.stderr.read().decode("utf-8", "replace")

    def finish(self, *, stop=True):
        """Stop (or close stdin), then return (exit code, anything left on stdout)."""
        if stop:
            self.send({"cmd": "stop"})
        self.process.stdin.close()
        code = self.process.wait(timeout=REPLY_TIMEOUT)
        rest = []
        while (line := self.lines.get(timeout=REPLY_TIMEOUT)) is not None:
            rest.append(line)
        self.stderr.close()
        return code, rest
