"""What `check`'s memory grows by with the examples (issue 39's memory row), read inside one `check` process.

Runs `bleu-oracle check ARGS` in this process with `Session.judge_cached_example` wrapped (nothing in the shipped
code path changes: this script is the switch), and prints on stderr:

- **steps** (always): every example after which the peak RSS (VmHWM) rose by more than 0.25 MiB, with the resident
  size before and after it: a peak set by one example's transient (the RSS falls back) or by what stays;
- **--every N**: every N examples, the resident size, glibc's heap (`mallinfo2`: in use, free, mapped), pymalloc's
  arenas and the bytes in its blocks (`sys._debugmallocstats`), and the objects the collector tracks, by type, that
  grew since the previous line;
- **--trace A B**: `tracemalloc` snapshots after examples A and B, compared by traceback (`--frames`, default 6): the
  Python allocations alive at B that were not at A (what the run keeps), the 15 largest.

    cd CHECKOUT && PYTHONPATH=$PWD python benchmarks/memory_growth.py --every 2000 -- check --no-cases \
        --examples 20000 --command "python benchmarks/trivial_impl.py" --seed 0 --report /tmp/r --quiet

(a private empty search cache, BLEU_ORACLE_SEARCH_CACHE, as jobs_throughput.py's memory rows use). One process: the
parent of a `--jobs` run judges nothing itself.
"""

from __future__ import annotations

import argparse
import collections
import ctypes
import gc
import os
import re
import sys
import tracemalloc
from pathlib import Path

sys.path.insert(0, str(Path.cwd()))

from oracle.cli import main  # noqa: E402
from oracle.harness import session  # noqa: E402


class _MallInfo2(ctypes.Structure):
    _fields_ = [(name, ctypes.c_size_t) for name in ("arena", "ordblks", "smblks", "hblks", "hblkhd", "usmblks",
                                                     "fsmblks", "uordblks", "fordblks", "keepcost")]


def status() -> dict[str, float]:
    """VmRSS, VmHWM, RssAnon of this process, MiB."""
    out = {}
    with open("/proc/self/status", encoding="ascii") as lines:
        for line in lines:
            key, _, value = line.partition(":")
            if key in ("VmRSS", "VmHWM", "RssAnon"):
                out[key] = int(value.split()[0]) / 1024
    return out


def pymalloc() -> tuple[int, int]:
    """(pymalloc's arenas allocated now, bytes in its allocated blocks), from `sys._debugmallocstats` on stderr."""
    read, write = os.pipe()
    saved = os.dup(2)
    os.dup2(write, 2)
    try:
        sys._debugmallocstats()
    finally:
        os.dup2(saved, 2)
        os.close(write)
        os.close(saved)
    with os.fdopen(read, encoding="ascii") as text:
        stats = text.read()
    arenas = re.search(r"# arenas allocated current\s*=\s*([\d,]+)", stats)
    blocks = re.search(r"# bytes in allocated blocks\s*=\s*([\d,]+)", stats)
    return (int(arenas.group(1).replace(",", "")) if arenas else -1,
            int(blocks.group(1).replace(",", "")) if blocks else -1)


def main_() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--every", type=int, default=0, help="the heap's state every N examples")
    parser.add_argument("--trace", type=int, nargs=2, metavar=("A", "B"), help="tracemalloc growth from A to B")
    parser.add_argument("--frames", type=int, default=6)
    parser.add_argument("argv", nargs=argparse.REMAINDER, help="-- then bleu-oracle's arguments")
    args = parser.parse_args()
    argv = args.argv[1:] if args.argv[:1] == ["--"] else args.argv
    mallinfo2 = getattr(ctypes.CDLL(None), "mallinfo2", None)
    if mallinfo2 is not None:
        mallinfo2.restype = _MallInfo2
    if args.trace:
        tracemalloc.start(args.frames)
    snapshots: dict[int, tracemalloc.Snapshot] = {}
    state = {"peak": 0.0, "types": collections.Counter()}
    judge = session.Session.judge_cached_example

    def wrapped(self, index):
        before = status()
        judged = judge(self, index)
        after, done = status(), index + 1
        if after["VmHWM"] > state["peak"] + 0.25:
            print(f"example {index}: peak {state['peak']:.1f} -> {after['VmHWM']:.1f} MiB (resident before "
                  f"{before['VmRSS']:.1f}, after {after['VmRSS']:.1f})", file=sys.stderr, flush=True)
            state["peak"] = after["VmHWM"]
        if args.every and done % args.every == 0:
            gc.collect()
            types = collections.Counter(type(o).__name__ for o in gc.get_objects())
            grown = types - state["types"]
            state["types"] = types
            heap = ""
            if mallinfo2 is not None:
                info = mallinfo2()
                heap = (f"glibc heap {info.arena / 2**20:.1f} (in use {info.uordblks / 2**20:.1f}, free "
                        f"{info.fordblks / 2**20:.1f}), mapped {info.hblkhd / 2**20:.1f}; ")
            arenas, blocks = pymalloc()
            print(f"{done:6d} examples: resident {after['VmRSS']:.1f} (anonymous {after['RssAnon']:.1f}), peak "
                  f"{after['VmHWM']:.1f} MiB; {heap}pymalloc arenas {arenas}, in blocks {blocks / 2**20:.1f} MiB; "
                  f"{sum(types.values())} objects, grown: {grown.most_common(6)}", file=sys.stderr, flush=True)
        if args.trace and done in args.trace:
            gc.collect()
            snapshots[done] = tracemalloc.take_snapshot()
        return judged

    session.Session.judge_cached_example = wrapped  # type: ignore[method-assign]
    code = main(argv)
    print(f"exit {code}; {status()}", file=sys.stderr)
    if args.trace and len(snapshots) == 2:
        first, last = (snapshots[n].filter_traces([tracemalloc.Filter(False, tracemalloc.__file__)])
                       for n in sorted(snapshots))
        print(f"\nkept from example {min(snapshots)} to {max(snapshots)}, by traceback:", file=sys.stderr)
        for stat in last.compare_to(first, "traceback")[:15]:
            print(stat, file=sys.stderr)
            for line in stat.traceback.format()[-2 * args.frames:]:
                print("    " + line, file=sys.stderr)


if __name__ == "__main__":
    main_()
