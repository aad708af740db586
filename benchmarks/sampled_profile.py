"""Where a `check`'s search spends its CPU, by sampling (issue 39): `check --impl IMPL --no-cases --examples N
--jobs 1` of this checkout run in this process, with a CPU-time timer (`signal.ITIMER_PROF`, which counts the
process's CPU, every thread, whatever the load) that interrupts the main thread every `--interval` seconds; each
interrupt counts the functions on the main thread's stack, from `Session.run_examples`' start to its end.

    BLEU_ORACLE_SEARCH_CACHE=/tmp/cache .venv/bin/python benchmarks/sampled_profile.py --runs 4   # warm: run twice

Unlike cProfile, it adds no cost to each Python call, so a function called often is not inflated. What it cannot
see: a sample is taken when the interpreter next runs Python code, so time in C (pydantic-core's validation, a
regex, the json scanner) is counted to the Python function that C calls back next (a validator) or returns to,
and the kernel's timer grain (often 4 ms) leaves a few hundred samples per 1000 warm examples: add `--runs`.
The cache named by BLEU_ORACLE_SEARCH_CACHE must hold this checkout's entries for a warm profile (the oracle's
version is a hash of its files: run `check` once after any change)."""

from __future__ import annotations

import argparse
import collections
import os
import signal
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def sampled_check(impl: str, examples: int, interval: float, callers_of: frozenset[str] = frozenset(),
                  ) -> tuple[int, collections.Counter, collections.Counter, collections.Counter]:
    """(samples, samples with each function on the stack, samples with each function on top, samples with each
    (function of `callers_of`, its caller) pair, the function's innermost call) of one `check`."""
    from oracle.cli import main
    from oracle.harness import session as session_module

    inclusive: collections.Counter = collections.Counter()
    on_top: collections.Counter = collections.Counter()
    called_from: collections.Counter = collections.Counter()
    taken = [0]
    active = [False]

    def sample(signum, frame):
        if not active[0]:
            return
        taken[0] += 1
        seen, top = set(), True
        while frame is not None:
            code = frame.f_code
            name = f"{Path(code.co_filename).name}:{code.co_name}"
            if top:
                on_top[name] += 1
                top = False
            if name not in seen:
                inclusive[name] += 1
                seen.add(name)
                if name in callers_of and frame.f_back is not None:
                    caller = frame.f_back.f_code
                    called_from[name, f"{Path(caller.co_filename).name}:{caller.co_name}:{frame.f_back.f_lineno}"] += 1
            frame = frame.f_back

    run_examples = session_module.Session.run_examples

    def sampled_run_examples(self):
        active[0] = True
        try:
            return run_examples(self)
        finally:
            active[0] = False

    session_module.Session.run_examples = sampled_run_examples
    previous = signal.signal(signal.SIGPROF, sample)
    signal.setitimer(signal.ITIMER_PROF, interval, interval)
    try:
        with tempfile.TemporaryDirectory() as report:
            try:
                main(["check", "--impl", impl, "--no-cases", "--examples", str(examples), "--seed", "0",
                      "--report", report, "--quiet", "--jobs", "1"])
            except SystemExit as stop:
                if stop.code not in (0, 1, None):
                    raise
    finally:
        signal.setitimer(signal.ITIMER_PROF, 0, 0)
        signal.signal(signal.SIGPROF, previous)
        session_module.Session.run_examples = run_examples
    return taken[0], inclusive, on_top, called_from


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--impl", default="sacrebleu")
    parser.add_argument("--examples", type=int, default=1000)
    parser.add_argument("--runs", type=int, default=1, help="runs whose samples are added up")
    parser.add_argument("--interval", type=float, default=0.0005, help="seconds of CPU between samples")
    parser.add_argument("--top", type=int, default=60)
    parser.add_argument("--callers", action="append", default=[], metavar="FILE:FUNCTION",
                        help="also count where FILE:FUNCTION (as printed) was called from, by caller and line")
    args = parser.parse_args()
    sys.path.insert(0, str(ROOT))
    total, inclusive, on_top, called_from = 0, collections.Counter(), collections.Counter(), collections.Counter()
    for _ in range(args.runs):
        taken, seen, top, called = sampled_check(args.impl, args.examples, args.interval, frozenset(args.callers))
        total, _ = total + taken, (inclusive.update(seen), on_top.update(top), called_from.update(called))
    print(f"{total} samples; load {' '.join(f'{v:.1f}' for v in os.getloadavg())}")
    print("on the stack:")
    for name, count in inclusive.most_common(args.top):
        print(f"{100 * count / total:5.1f}% {name}")
    print("on top (with the C it called):")
    for name, count in on_top.most_common(args.top // 2):
        print(f"{100 * count / total:5.1f}% {name}")
    for function in args.callers:
        print(f"{function} (its innermost call on the stack) called from:")
        for (name, caller), count in called_from.most_common():
            if name == function:
                print(f"{100 * count / total:5.1f}% {caller}")


if __name__ == "__main__":
    main()
