"""A protocol-v1 implementation that costs almost nothing: it replays another implementation's answers.

Used by jobs_throughput.py to measure the runner's own throughput: any real implementation spends CPU of its own
on each request (the fast float one about 0.7 ms, sacrebleu about 0.5), which on 2 cores the runner shares.

    python benchmarks/replay_impl.py record TABLE -- COMMAND...   # relay to COMMAND, keep its answers in TABLE.PID
    python benchmarks/replay_impl.py replay TABLE                  # answer from TABLE.* (every PID's file)

A request's key is its line with the `"seq":N` member taken out; the answer is the recorded reply line with its
seq put back. In `replay`, a request never recorded ends the process with a message on stderr (the runner then
records a crash, so a replay run that sent another request than the recorded one cannot pass for a measurement).
The start reply is recorded and replayed like any other.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

SEQ = re.compile(r'"seq":\s*(\d+)')


def key(line: str) -> str:
    return SEQ.sub('"seq":0', line.strip(), count=1)


def record(table: Path, command: list[str]) -> int:
    inner = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, bufsize=1)
    to_inner, from_inner = inner.stdin, inner.stdout
    if to_inner is None or from_inner is None:
        return 3
    with open(f"{table}.{os.getpid()}", "a", encoding="utf-8") as kept:
        for line in sys.stdin:
            to_inner.write(line)
            to_inner.flush()
            if '"cmd":"stop"' in line.replace(" ", ""):
                break
            reply = from_inner.readline()
            if not reply:
                return 3
            kept.write(key(line) + "\t" + key(reply) + "\n")
            sys.stdout.write(reply)
            sys.stdout.flush()
    to_inner.close()
    return inner.wait()


def replay(table: Path) -> int:
    answers: dict[str, str] = {}
    for path in table.parent.glob(table.name + ".*"):
        for entry in path.read_text(encoding="utf-8").splitlines():
            request, _, reply = entry.partition("\t")
            answers[request] = reply
    write, flush = sys.stdout.write, sys.stdout.flush
    for line in sys.stdin:
        if '"cmd":"stop"' in line.replace(" ", ""):
            break
        reply = answers.get(key(line))
        if reply is None:
            print(f"replay_impl: request not recorded: {line[:200]!r}", file=sys.stderr)
            return 3
        found = SEQ.search(line)
        write(reply.replace('"seq":0', f'"seq":{found.group(1)}', 1) + "\n" if found else reply + "\n")
        flush()
    return 0


def main(argv: list[str]) -> int:
    if len(argv) >= 4 and argv[0] == "record" and argv[2] == "--":
        return record(Path(argv[1]), argv[3:])
    if len(argv) == 2 and argv[0] == "replay":
        return replay(Path(argv[1]))
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
