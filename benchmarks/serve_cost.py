"""The serve side's own cost per request (issue 39): what `bleu-oracle serve --impl sacrebleu` spends around
sacrebleu itself (reading a line, JSON decode, validating the request, the adapter's conversion, building and
encoding the reply, writing), next to sacrebleu's own time, for this checkout and the code before a change.

    .venv/bin/python benchmarks/serve_cost.py --before /tmp/before --rounds 5
    .venv/bin/python benchmarks/serve_cost.py --requests FILE      # a stream recorded earlier

The request stream is recorded once, from this checkout: `check --no-cases --examples N --seed 0` driving
`sh -c 'tee FILE | python -m oracle serve --impl sacrebleu'` (the runner's own lines, start to stop), and every
checkout is fed the same file. Per checkout, in rounds, alternately:

- **process**: `python -m oracle serve --impl sacrebleu < FILE > /dev/null`, the child's CPU (user + system,
  `resource.RUSAGE_CHILDREN`) minus that of a process fed only start and stop (start-up and imports), per score
  request: the whole serve process as the runner meets it, pipes and flushes included;
- **in process**: `oracle.adapters.server.serve` on the file's bytes (thread CPU), per score request; in
  the same process, a second pass with sacrebleu's `BLEU` wrapped in a timer (construction, `sentence_score`,
  `corpus_score`: the library's own time) and each stage timed around the checkout's own functions (`decode`,
  `parse_command`, `call` less the library = the adapter's conversion, `score_reply` less `call` = the reply,
  `encode` and the write). The timers cost about 1 us each, so the stages are measured in that second pass
  only, and the serve side's own cost is the first pass's total less the second pass's library time.

Medians over the rounds (each round measures every checkout in turn, both ways); every reply stream is
compared with the first checkout's (the library's answers must be identical). The machine is shared: the load
(`os.getloadavg`) is printed, and only same-run ratios compare.
"""

from __future__ import annotations

import argparse
import io
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "benchmarks"))

from _trees import environment  # noqa: E402

STAGES = ("read", "decode", "validate", "conversion", "library", "reply", "encode+write")


def record_requests(path: Path, examples: int) -> None:
    """The runner's request stream of `check --impl sacrebleu --no-cases --examples N --seed 0`, into `path`."""
    python = sys.executable
    serve = f"tee {path} | PYTHONPATH={ROOT} {python} -m oracle serve --impl sacrebleu"
    with tempfile.TemporaryDirectory() as report, tempfile.TemporaryDirectory() as cache:
        done = subprocess.run(
            [python, "-m", "oracle", "check", "--command", f"sh -c '{serve}'", "--no-cases", "--examples",
             str(examples), "--seed", "0", "--report", report, "--quiet"],
            cwd=ROOT, capture_output=True, text=True, check=False,
            env=environment(ROOT, BLEU_ORACLE_SEARCH_CACHE=cache))
    if done.returncode not in (0, 1):
        raise SystemExit(f"recording the requests failed (exit {done.returncode}): {done.stderr.strip()[-400:]}")


def measured_environment(root: Path) -> dict[str, str]:
    """A measured process of `root`, PYTHONDONTWRITEBYTECODE kept (`bytecode_caches=False`): a module imported on the
    first request is compiled in the requests' process and not in the start-stop one, and the figures were measured
    so (the recording run is not measured: it allows byte-code caches)."""
    return environment(root, bytecode_caches=False)


def process_cpu(root: Path, requests: Path) -> float:
    """CPU seconds of one `serve --impl sacrebleu` process fed `requests` on stdin, its stdout discarded."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    with requests.open("rb") as stdin:
        subprocess.run([sys.executable, "-m", "oracle", "serve", "--impl", "sacrebleu"], stdin=stdin,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, cwd=root, check=True,
                       env=measured_environment(root))
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


# -- In process (run inside a checkout: `--measure`) -------------------------------------------------------


class _Clock:
    """Thread CPU summed per stage."""

    def __init__(self) -> None:
        self.spent = dict.fromkeys(STAGES, 0.0)

    def timed(self, stage, function):
        def wrapper(*args, **kwargs):
            start = time.thread_time()
            try:
                return function(*args, **kwargs)
            finally:
                self.spent[stage] += time.thread_time() - start
        return wrapper


def _timed_library(clock: _Clock, bleu_class):
    """sacrebleu's BLEU with its construction and scoring timed as the library's own."""

    class TimedBLEU:
        def __init__(self, **kwargs):
            self._metric = clock.timed("library", bleu_class)(**kwargs)

        def sentence_score(self, *args):
            return clock.timed("library", self._metric.sentence_score)(*args)

        def corpus_score(self, *args):
            return clock.timed("library", self._metric.corpus_score)(*args)

    return TimedBLEU


def measure_in_process(requests: Path, rounds: int) -> dict:
    """Per score request, ms of thread CPU: the whole serve loop, and its stages (run in a checkout)."""
    from oracle.adapters import server
    from oracle.adapters.sacrebleu_adapter import SacrebleuImplementation

    data = requests.read_bytes()
    count = sum(1 for line in data.splitlines() if line.strip() and json.loads(line).get("cmd") == "score")
    implementation = SacrebleuImplementation()
    plain = (server.serve, server.decode, server.parse_command, server.call, server.score_reply, server.encode,
             implementation._BLEU)
    totals, stages, replies = [], [], None
    for _ in range(rounds):
        out = io.BytesIO()
        start = time.thread_time()
        server.serve(implementation, io.BytesIO(data), out)
        totals.append(time.thread_time() - start)
        replies = out.getvalue() if replies is None else replies
        clock = _Clock()
        stream = io.BytesIO(data)
        stream.readline = clock.timed("read", stream.readline)  # type: ignore[method-assign]
        server.decode = clock.timed("decode", plain[1])
        server.parse_command = clock.timed("validate", plain[2])
        server.call = clock.timed("conversion", plain[3])
        server.score_reply = clock.timed("reply", plain[4])
        server.encode = clock.timed("encode+write", plain[5])
        implementation._BLEU = _timed_library(clock, plain[6])
        try:
            server.serve(implementation, stream, _TimedSink(clock))
        finally:
            (server.serve, server.decode, server.parse_command, server.call, server.score_reply, server.encode,
             implementation._BLEU) = plain
        spent = clock.spent
        spent["reply"] -= spent["conversion"]  # score_reply's time less the call it makes
        spent["conversion"] -= spent["library"]  # call's time less the library's own
        stages.append(spent)
    per = 1000.0 / count
    return {"requests": count, "serve_ms": statistics.median(totals) * per,
            "stages_ms": {stage: statistics.median(s[stage] for s in stages) * per for stage in STAGES},
            "replies": replies.decode("ascii")}


class _TimedSink(io.BytesIO):
    def __init__(self, clock: _Clock) -> None:
        super().__init__()
        self.write = clock.timed("encode+write", super().write)  # type: ignore[method-assign]


def measured(root: Path, requests: Path, rounds: int) -> dict:
    """`measure_in_process` run in a fresh interpreter inside the checkout at `root`."""
    done = subprocess.run([sys.executable, str(Path(__file__).resolve()), "--measure", str(requests), "--rounds",
                           str(rounds)], cwd=root, capture_output=True, text=True, check=False,
                          env=measured_environment(root))
    if done.returncode:
        raise SystemExit(f"measuring {root} failed: {done.stderr.strip()[-600:]}")
    return json.loads(done.stdout)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--requests", type=Path, help="a recorded request stream (default: record one)")
    parser.add_argument("--examples", type=int, default=300, help="examples of the recorded search (default 300)")
    parser.add_argument("--before", type=Path, action="append", default=[], help="another checkout to compare")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--measure", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.measure:
        print(json.dumps(measure_in_process(args.measure, args.rounds)))
        return
    with tempfile.TemporaryDirectory() as scratch:
        requests = args.requests
        if requests is None:
            requests = Path(scratch) / "requests.jsonl"
            record_requests(requests, args.examples)
        handshake = Path(scratch) / "start-stop.jsonl"
        handshake.write_text('{"cmd":"start","protocol":1}\n{"cmd":"stop"}\n', encoding="ascii")
        report(requests, handshake, [("this", ROOT)] + [(f"before ({p})", p) for p in args.before], args.rounds)


def _medians(measures: list[dict]) -> dict:
    """One checkout's in-process figures, the median of each over its rounds."""
    return {"requests": measures[0]["requests"], "replies": measures[0]["replies"],
            "serve_ms": statistics.median(m["serve_ms"] for m in measures),
            "stages_ms": {stage: statistics.median(m["stages_ms"][stage] for m in measures) for stage in STAGES},
            "same_replies": all(m["replies"] == measures[0]["replies"] for m in measures)}


def report(requests: Path, handshake: Path, checkouts: list[tuple[str, Path]], rounds: int) -> None:
    load = os.getloadavg()
    process: dict[str, list[float]] = {name: [] for name, _ in checkouts}
    rounds_inside: dict[str, list[dict]] = {name: [] for name, _ in checkouts}
    for _ in range(rounds):  # alternately, so that the load falls on every checkout alike
        for name, root in checkouts:
            process[name].append(process_cpu(root, requests) - process_cpu(root, handshake))
            rounds_inside[name].append(measured(root, requests, 1))
    inside = {name: _medians(measures) for name, measures in rounds_inside.items()}
    first = inside[checkouts[0][0]]
    print(f"requests: {requests} ({first['requests']} score requests); load average {load[0]:.1f} (1 min) / "
          f"{load[1]:.1f} (5 min) at the start, {os.getloadavg()[0]:.1f} (1 min) at the end; medians of {rounds} "
          "rounds, ms of CPU per score request")
    print("| code | process | in process | library (sacrebleu) | serve's own | library share | "
          + " | ".join(s for s in STAGES if s != "library") + " | replies |")
    print("| --- " * (6 + len(STAGES)) + "|")
    for name, _ in checkouts:
        measure = inside[name]
        stages = measure["stages_ms"]
        own = measure["serve_ms"] - stages["library"]
        same = "same" if measure["replies"] == first["replies"] and measure["same_replies"] else "DIFFER"
        print(f"| {name} | {statistics.median(process[name]) / measure['requests'] * 1000:.3f} | "
              f"{measure['serve_ms']:.3f} | {stages['library']:.3f} | {own:.3f} | "
              f"{stages['library'] / measure['serve_ms']:.0%} | "
              + " | ".join(f"{stages[s]:.4f}" for s in STAGES if s != "library") + f" | {same} |")


if __name__ == "__main__":
    main()
