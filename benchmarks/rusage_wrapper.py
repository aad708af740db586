"""Run an implementation's command, relay the requests `check` sends it, and append what the process cost to a log.

    python -S benchmarks/rusage_wrapper.py LOG COMMAND [ARG...]

`benchmarks/attribution.py` (issue 36, the cost bound) puts this in front of each implementation's command, so that a
run's CPU can be split into the runner's own (the `check` process and its workers) and the implementation's. It
appends two JSON lines to LOG (each one `write` to a file opened for appending, so that the processes of one run,
restarts, probes and `--jobs` workers, share the log): `{"event": "start"}` when it starts, and at the
implementation's exit `{"event": "exit", ...}` with

- `lines`, `bytes`, `tokens`, `commands`: the request lines relayed to the implementation, their bytes, the tokens
  of their segments (`tokens_of`), and the count of each `cmd` (`start`, `score`, `stop`);
- `cpu`: the implementation's user + system CPU seconds (`os.wait4` of its process: its own, and its waited-for
  children's);
- `own_cpu`: this wrapper's own CPU seconds (RUSAGE_SELF just before the line is written: its start-up, the relay
  and the parsing of each line to count tokens), which attribution.py subtracts so that it is in neither figure.

The implementation's stdout and stderr are its own (inherited, never relayed); only its stdin passes through here.
A process `check` kills (a hang, a restart after a garbled reply) takes its wrapper with it (its process group), so it
writes no exit line: its start line without one says so, and its CPU is in no figure (the implementation, reaped by
init, is no longer a child of `check`). Stdlib only, so that `python -S` starts it quickly.
"""

from __future__ import annotations

import json
import os
import resource
import subprocess
import sys
import threading


def tokens_of(request: object) -> int:
    """The tokens of a request's segments: each hypothesis's and each reference's tokens (a text request's strings
    by their whitespace-separated words, an approximation of what its tokenizer makes of them); 0 for a request
    without segments (`start`, `stop`) or one that is not JSON."""
    if not isinstance(request, dict):
        return 0
    total = 0
    for segment in request.get("segments") or ():
        if not isinstance(segment, dict):
            continue
        hypothesis = segment.get("hypothesis")
        references = segment.get("references") or ()
        for side in (hypothesis, *references):
            if isinstance(side, str):
                total += len(side.split())
            elif isinstance(side, list):
                total += len(side)
    return total


class Relayed:
    """What has been relayed so far (the relay thread adds; the main thread reads it at the implementation's exit)."""

    def __init__(self) -> None:
        self.lines = 0
        self.bytes = 0
        self.tokens = 0
        self.commands: dict[str, int] = {}

    def add(self, line: bytes) -> None:
        self.lines += 1
        self.bytes += len(line)
        try:
            request = json.loads(line)
        except ValueError:
            request = None
        command = request.get("cmd") if isinstance(request, dict) else None
        key = command if isinstance(command, str) else "?"
        self.commands[key] = self.commands.get(key, 0) + 1
        self.tokens += tokens_of(request)


def _append(log: str, entry: dict) -> None:
    descriptor = os.open(log, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
    try:
        os.write(descriptor, (json.dumps(entry, sort_keys=True) + "\n").encode("utf-8"))
    finally:
        os.close(descriptor)


def _relay(source, child_stdin, relayed: Relayed) -> None:
    try:
        for line in source:
            relayed.add(line)  # counted first: the implementation may exit on this line (`stop`) before it returns
            child_stdin.write(line)
            child_stdin.flush()
        child_stdin.close()
    except (BrokenPipeError, OSError, ValueError):  # the implementation is gone: its exit is the main thread's
        pass


def main(argv: list[str]) -> int:
    if len(argv) < 2:
        print("usage: rusage_wrapper.py LOG COMMAND [ARG...]", file=sys.stderr)
        return 2
    log, command = argv[0], argv[1:]
    _append(log, {"event": "start", "pid": os.getpid()})
    child = subprocess.Popen(command, stdin=subprocess.PIPE)
    # the implementation holds check's stdout and stderr pipes; this process lets go of its copies, so that check
    # sees the end of the implementation's output when the implementation exits, not when this wrapper does
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, 1)
    os.dup2(devnull, 2)
    os.close(devnull)
    relayed = Relayed()
    threading.Thread(target=_relay, args=(sys.stdin.buffer, child.stdin, relayed), daemon=True).start()
    _, status, usage = os.wait4(child.pid, 0)
    own = resource.getrusage(resource.RUSAGE_SELF)
    _append(log, {"event": "exit", "pid": os.getpid(), "lines": relayed.lines, "bytes": relayed.bytes,
                  "tokens": relayed.tokens, "commands": relayed.commands,
                  "cpu": usage.ru_utime + usage.ru_stime, "own_cpu": own.ru_utime + own.ru_stime,
                  "status": os.waitstatus_to_exitcode(status)})
    code = os.waitstatus_to_exitcode(status)
    os._exit(code if code >= 0 else 128 - code)  # noqa: SLF001 - the relay thread may still block on stdin


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
