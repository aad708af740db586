"""What `check`'s memory grows by with the examples (issue 39's memory row), read inside one `check` process.

Runs `bleu-oracle check ARGS` in this process with `Session.judge_cached_example` wrapped (nothing in the shipped
code path changes: this script is the switch), and prints on stderr:

- **steps** (always): every example after which the peak RSS (VmHWM) rose by more than 0.25 MiB, with the resident
  size before and after it: a peak set by one example's transient (the RSS falls back) or by what stays;
- **--every N**: every N examples, the resident size, glibc's heap (`mallinfo2`: in use, free, mapped), pymalloc's
  arenas and the bytes in its blocks (`sys._debugmallocstats`), and the objects the collector tracks, by type, that
  grew since the previous line;
- **--trace A B**: `tracemalloc` snapshots after examples A and B, compared by traceback (`--frames`, default 6): the
  Python allocations alive at B that were not at A (what the run keeps), the 15 largest;
- **--rises I ...**: while examples I are judged, a profile hook reads VmHWM at every Python call and return (and
  every call into C and return from it) and prints the stack wherever it rose by more than `--rise-kib` (default
  256) since the previous event: which step of an example sets its transient peak, native allocations included
  (pydantic-core's, a `str.join`'s), which tracemalloc does not see. Slow; with `--id random-S-I` the other examples
  are only drawn.

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
import traceback
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


def _high_water_kib(handle: int) -> int:
    data = os.pread(handle, 4096, 0)
    at = data.index(b"VmHWM:")
    return int(data[at + 6:data.index(b"kB", at)])


def _watching_rises(judge, indices: set[int], rise_kib: int):
    """`judge` with a profile hook, for the examples in `indices`, printing where VmHWM rose by more than `rise_kib`."""
    handle = os.open("/proc/self/status", os.O_RDONLY)
    state = {"high": 0, "previous": ""}

    def name(frame, event, arg) -> str:
        return (f"{event} {getattr(arg, '__qualname__', '?') if event.startswith('c_') else frame.f_code.co_name} "
                f"({Path(frame.f_code.co_filename).name}:{frame.f_lineno})")

    def hook(frame, event, arg):
        high = _high_water_kib(handle)
        if high > state["high"] + rise_kib:
            stack = "".join(traceback.format_stack(frame, limit=12))
            print(f"  VmHWM {state['high'] / 1024:.1f} -> {high / 1024:.1f} MiB at {name(frame, event, arg)}, after "
                  f"{state['previous']}:\n{stack}", file=sys.stderr, flush=True)
        state["high"], state["previous"] = max(high, state["high"]), name(frame, event, arg)

    def watched(self, index):
        if index not in indices:
            return judge(self, index)
        state["high"] = _high_water_kib(handle)
        print(f"example {index} starts at VmHWM {state['high'] / 1024:.1f} MiB", file=sys.stderr, flush=True)
        sys.setprofile(hook)
        try:
            return judge(self, index)
        finally:
            sys.setprofile(None)
            print(f"example {index} ends at VmHWM {_high_water_kib(handle) / 1024:.1f} MiB", file=sys.stderr)

    return watched


def main_() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--every", type=int, default=0, help="the heap's state every N examples")
    parser.add_argument("--trace", type=int, nargs=2, metavar=("A", "B"), help="tracemalloc growth from A to B")
    parser.add_argument("--frames", type=int, default=6)
    parser.add_argument("--rises", type=int, nargs="*", default=[], metavar="I", help="where VmHWM rises in example I")
    parser.add_argument("--rise-kib", type=int, default=256)
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

    if args.rises:
        wrapped = _watching_rises(wrapped, set(args.rises), args.rise_kib)
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
