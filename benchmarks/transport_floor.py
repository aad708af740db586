"""What one request costs the runner in the transport alone, and whether more requests in flight would lower it.

Issue 39's warm row asks for 0.15 ms of runner CPU a request (measured 0.33-0.36 ms); the last note's hypothesis was
that the difference is spent around the request, in the two thread wake-ups a request costs while the transport
holds one request in flight (PROTOCOL.md: the runner waits for each reply), so that a window of several requests
would be the next step, and a protocol change. This measures the hypothesis directly, on this machine:

1. **a raw pipe**, the transport's mechanism without its code: a child that echoes each line back, a reader thread
   putting each line into a `queue.SimpleQueue` (as `ImplementationProcess` does), the main thread writing requests
   and taking replies, with 1, 4 and 16 requests in flight;
2. **the transport itself**: `oracle.harness.transport.ImplementationProcess` driving a child that answers every
   score command with one fixed reply (no computation), one request in flight, `request()` as the session calls
   it (submit, then collect: the reply decoded and validated).

For each: the main thread's CPU a request (`time.thread_time`, the figure the per-request rows read), the whole
process's (the reader thread's added), and the wall clock. The child's CPU is not counted.

    python benchmarks/transport_floor.py [--requests N] [--rounds K]
"""

from __future__ import annotations

import argparse
import io
import os
import queue
import subprocess
import sys
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

#: a score command of the size a warm request has (two short segments); its content does not matter to the echo
REQUEST = {"cmd": "score", "level": "corpus", "segments": [
    {"hypothesis": "the cat sat on the mat", "references": ["the cat is on the mat", "there is a cat on the mat"]},
    {"hypothesis": "a quick brown fox", "references": ["the quick brown fox"]}],
    "weights": [0.25, 0.25, 0.25, 0.25], "smoothing": {"method": "none"}, "lowercase": False,
    "tokenize": "none"}

ECHO = "import sys\nfor line in sys.stdin.buffer:\n    sys.stdout.buffer.write(line); sys.stdout.buffer.flush()\n"

#: answers the handshake, then every score command with one fixed score (its seq put back), and stops on `stop`
FIXED = """import json, sys
for line in sys.stdin:
    message = json.loads(line)
    if message["cmd"] == "start":
        print(json.dumps({"protocol": 1, "implementation": {"name": "fixed", "version": "1", "language": "python"},
                          "profile": "papineni", "capabilities": {"levels": ["corpus", "sentence"], "weights": "any",
                          "max_order": 4, "smoothing": ["none"], "statistics": False, "lowercase": True}}), flush=True)
    elif message["cmd"] == "stop":
        break
    else:
        print(json.dumps({"seq": message["seq"], "score": 0.5}), flush=True)
"""


#: seconds to wait for one echoed line before the stretch is given up (an echo takes well under a millisecond)
ECHO_WAIT = 20


class Costs:
    """CPU and wall time a request, over one measured stretch."""

    def __init__(self) -> None:
        self.thread, self.process, self.wall = time.thread_time(), time.process_time(), time.perf_counter()

    def per_request(self, count: int) -> tuple[float, float, float]:
        """(main-thread CPU, process CPU, wall) in ms a request since this was made."""
        return ((time.thread_time() - self.thread) * 1e3 / count, (time.process_time() - self.process) * 1e3 / count,
                (time.perf_counter() - self.wall) * 1e3 / count)


def raw_pipe(requests: int, window: int) -> tuple[float, float, float]:
    """The raw pipe with `window` requests in flight: a reader thread and a SimpleQueue, as the transport has."""
    child = subprocess.Popen([sys.executable, "-c", ECHO], stdin=subprocess.PIPE, stdout=subprocess.PIPE, bufsize=0)
    stdin, stdout = child.stdin, child.stdout
    if stdin is None or stdout is None:
        raise SystemExit("transport_floor.py: the echo child has no pipes")
    lines: queue.SimpleQueue[bytes] = queue.SimpleQueue()
    # the pipe is unbuffered for writing; read as the transport reads, by buffered lines
    reader = io.BufferedReader(io.FileIO(stdout.fileno(), closefd=False))

    def read_lines() -> None:
        for read in reader:
            lines.put(read)

    # joined before this returns: the reader holds the descriptor without owning it (closefd=False), and once the
    # Popen's pipe is closed the number is free for the next child's stdout; a reader still running would then read,
    # and steal, the next child's echoes (how two CI runs stalled at the window-16 child's first line)
    reading = threading.Thread(target=read_lines, daemon=True)
    reading.start()

    def echoed(what: str) -> None:
        """The next line echoed, or an exit naming the stretch and the child's state: never a wait without end."""
        try:
            lines.get(timeout=ECHO_WAIT)
        except queue.Empty:
            state = "still running" if child.poll() is None else f"exited {child.returncode}"
            child.kill()
            raise SystemExit(f"transport_floor.py: no echo within {ECHO_WAIT} s ({what}, {window} in flight; the echo "
                             f"child {state})") from None

    line = (__import__("json").dumps({**REQUEST, "seq": 1}) + "\n").encode()
    for index in range(200):  # the child started and warm
        stdin.write(line)
        echoed(f"warm-up line {index}")
    costs, sent, received = Costs(), 0, 0
    while received < requests:
        while sent < requests and sent - received < window:
            stdin.write(line)
            sent += 1
        echoed(f"line {received} of {requests}")
        received += 1
    measured = costs.per_request(requests)
    stdin.close()
    child.wait(timeout=10)
    reading.join(timeout=10)  # the child's exit closed its end: the reader has met the end of its pipe
    if reading.is_alive():
        raise SystemExit(f"transport_floor.py: the echo reader ({window} in flight) did not end with its child")
    stdout.close()
    return measured


def transport(requests: int) -> tuple[float, float, float]:
    """`ImplementationProcess.request` against a child that answers at once, one request in flight."""
    from oracle.harness.transport import ImplementationProcess

    process = ImplementationProcess([sys.executable, "-c", FIXED], timeout=ECHO_WAIT)
    process.start()
    try:
        for seq in range(200):  # warm
            reply = process.request({**REQUEST, "seq": seq})
            if reply.kind != "score":  # a stalled child ends the stretch at once, not after 200 timeouts
                raise SystemExit(f"transport_floor.py: warm-up request {seq} came back {reply.kind}: {reply.message}")
        costs = Costs()
        for seq in range(requests):
            reply = process.request({**REQUEST, "seq": 1000 + seq})
            if reply.kind != "score":
                raise SystemExit(f"transport_floor.py: request {seq} came back {reply.kind}: {reply.message}")
        return costs.per_request(requests)
    finally:
        process.stop()


def _row(what: str, window: int, costs: tuple[float, float, float]) -> str:
    thread, process, wall = costs
    return f"| {what} | {window} | {thread:.4f} | {process:.4f} | {wall:.4f} |"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--requests", type=int, default=20000, help="requests per measured stretch (20000)")
    parser.add_argument("--rounds", type=int, default=2, help="rounds of every measure, alternating (2)")
    args = parser.parse_args(argv)
    print(f"load average {os.getloadavg()[0]:.2f}; {args.requests} requests a stretch; ms a request")
    print("| what | in flight | main-thread CPU | process CPU | wall |")
    print("| --- | --- | --- | --- | --- |")
    for _ in range(args.rounds):
        for window in (1, 4, 16):
            print(_row("raw pipe (echo)", window, raw_pipe(args.requests, window)))
        print(_row("ImplementationProcess.request (fixed reply)", 1, transport(args.requests)))
    print(f"load average {os.getloadavg()[0]:.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
