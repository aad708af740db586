"""Two rows of issue 39 side by side, this checkout against others (the code before a change), alternately:

- **throughput**: `check --impl IMPL --no-cases --examples N --seed 0 --jobs J`, judged inputs per second by wall
  clock: the records in results.jsonl / the wall seconds of the whole command (start-up included), cold (a private,
  empty search cache: BLEU_ORACLE_SEARCH_CACHE) then warm (the same cache a second time); also requests per second
  (every request a runner process sent: `benchmarks/cpumeter`), and the CPU of each kind of process (the parent
  `check`, its workers, the implementation processes), summed, from the same meter;
- **memory**: `check --no-cases --examples M` (the trivial implementation, one process, a private empty search
  cache) for each M: the peak RSS of `check` itself (VmHWM, read inside it: `PEAK`) and RUSAGE_CHILDREN's ru_maxrss
  of a fresh launcher process per run (`LAUNCH`: the largest of `check` and its implementation).

    git worktree add --detach /tmp/before-tp REV          # the code before
    .venv/bin/python benchmarks/jobs_throughput.py --before /tmp/before-tp --rounds 3

Every run's results.jsonl is compared with the first cold run's of the same command (clock readings, seq numbers and
the report's own path left out: `per_request.comparable`), so that speed is not bought with a change of records.
Each figure is printed with the load average when it was taken (`os.getloadavg`) and the UTC time.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _trees import environment  # noqa: E402
from per_request import comparable  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
METER = ROOT / "benchmarks" / "cpumeter"
TRIVIAL = ROOT / "benchmarks" / "trivial_impl.py"

#: Runs `bleu-oracle` in this interpreter and prints, last on stderr, its own peak RSS (KiB): VmHWM, the high-water
#: mark of this process image. Not RUSAGE_SELF: Linux carries ru_maxrss across exec from the image before it, so a
#: process forked from a large one (this script, holding earlier runs) reports the large one's size.
PEAK = ("import sys\nfrom oracle.cli import main\ntry:\n    code = main(sys.argv[1:])\nfinally:\n"
        "    with open('/proc/self/status') as status:\n"
        "        print(next(line.split()[1] for line in status if line.startswith('VmHWM:')), file=sys.stderr)\n"
        "sys.exit(code)")
#: A fresh, small process that runs its arguments and prints, last on stderr, RUSAGE_CHILDREN's ru_maxrss (KiB): the
#: largest of `check` and the implementation it waited for (forked from this small process, so nothing inherited).
LAUNCH = ("import resource, subprocess, sys\ncode = subprocess.run(sys.argv[1:]).returncode\n"
          "print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss, file=sys.stderr)\nsys.exit(code)")


def load() -> str:
    return "/".join(f"{value:.1f}" for value in os.getloadavg())


def utc() -> str:
    return time.strftime("%H:%M:%S", time.gmtime())


def _kind(argv: list[str]) -> str:
    if "oracle.harness.worker_process" in argv:
        return "workers"
    if "check" in argv:
        return "parent"
    return "implementation"  # `serve --impl NAME`, or the `--command` given (any other Python process metered)


def _cpu_by_kind(meter: Path) -> tuple[dict[str, float], int, list[float]]:
    """CPU seconds by kind of process, the requests the runner processes sent, and each worker's CPU seconds."""
    cpu = {"parent": 0.0, "workers": 0.0, "implementation": 0.0}
    requests, workers = 0, []
    for path in meter.glob("*.json"):
        measured = json.loads(path.read_text(encoding="utf-8"))
        kind = _kind(measured["argv"])
        cpu[kind] += measured.get("process_cpu", 0.0)
        requests += measured.get("requests", 0)
        if kind == "workers":
            workers.append(measured.get("process_cpu", 0.0))
    return cpu, requests, sorted(workers)


def timed_check(root: Path, arguments: list[str], cache: str) -> dict:
    """One `check ARGUMENTS` of the checkout at `root` on the search cache `cache`, in a fresh wrapper process."""
    with tempfile.TemporaryDirectory() as report, tempfile.TemporaryDirectory() as meter:
        cmd = [sys.executable, "-c", LAUNCH, sys.executable, "-c", PEAK, "check", *arguments, "--seed", "0",
               "--report", report, "--quiet"]
        # byte-code caches allowed, as an installed copy has them (with PYTHONDONTWRITEBYTECODE, as this machine sets,
        # every process would compile each module it imports: about 1 s of CPU a process, start-up's largest part)
        env = environment(root, METER, BLEU_ORACLE_CPU_METER=meter, BLEU_ORACLE_SEARCH_CACHE=cache)
        taken_at, load_before = utc(), load()
        start = time.perf_counter()
        done = subprocess.run(cmd, capture_output=True, text=True, cwd=root, env=env)
        wall = time.perf_counter() - start
        if done.returncode not in (0, 1):
            raise SystemExit(f"check exit {done.returncode}: {done.stderr.strip()[-400:]}")
        own, tree = (int(line) for line in done.stderr.strip().splitlines()[-2:])
        text = (Path(report) / "results.jsonl").read_text(encoding="utf-8")
        records = sum(1 for line in text.split("\n") if line.startswith('{"type":"record"'))
        cpu, requests, workers = _cpu_by_kind(Path(meter))
    return {"wall": wall, "records": records, "requests": requests, "cpu": cpu, "workers": workers,
            "own_mib": own / 1024, "tree_mib": tree / 1024, "at": taken_at, "load": f"{load_before} -> {load()}",
            "stream": hashlib.sha256(json.dumps(comparable(text, report)).encode()).hexdigest()}


def throughput(roots: list[Path], rounds: int, chosen: list[str], examples: int, jobs: int) -> None:
    arguments = [*chosen, "--no-cases", "--examples", str(examples), "--jobs", str(jobs)]
    print(f"\n## check {' '.join(arguments)} --seed 0: records (and requests) per wall second")
    runs: dict[tuple[Path, str], list[dict]] = {(root, kind): [] for root in roots for kind in ("cold", "warm")}
    for round_ in range(rounds):
        for root in roots:  # alternately: the load on the machine hits every checkout alike
            with tempfile.TemporaryDirectory() as cache:
                for kind in ("cold", "warm"):
                    run = timed_check(root, arguments, cache)
                    runs[root, kind].append(run)
                    cpu = ", ".join(f"{name} {seconds:.2f}" for name, seconds in run["cpu"].items())
                    cpu += f" (each worker: {' / '.join(f'{seconds:.2f}' for seconds in run['workers'])})"
                    print(f"  round {round_ + 1} {root.name:<16} {kind}: {run['records'] / run['wall']:6.1f} records/s "
                          f"({run['records']} in {run['wall']:.2f} s), {run['requests'] / run['wall']:6.1f} "
                          f"requests/s; CPU s: {cpu}; {run['at']} UTC load {run['load']}", flush=True)
    first = runs[roots[0], "cold"][0]["stream"]
    for (root, kind), measured in runs.items():
        rates = [m["records"] / m["wall"] for m in measured]
        same = all(m["stream"] == first for m in measured)
        wall = statistics.median(m["wall"] for m in measured)
        print(f"{root.name:<16} {kind}: median {statistics.median(rates):.1f} records/s "
              f"({', '.join(f'{r:.1f}' for r in rates)}), median wall {wall:.2f} s, "
              f"median CPU {statistics.median(sum(m['cpu'].values()) for m in measured):.2f} s; "
              f"records {'the same' if same else 'DIFFER'}")
        print(f"{'':<16} {kind}: {ceiling(measured)}")


def ceiling(measured: list[dict]) -> str:
    """The records per second the run's CPU allows on 2 idle cores (2 / the CPU seconds a record costs, every process
    of the run counted), and the runner's and the implementation's CPU per request: figures the load moves far less
    than it moves the wall clock (a loaded machine's wall time includes waiting for the other work)."""
    per_record = statistics.median(sum(m["cpu"].values()) / m["records"] for m in measured)
    runner = statistics.median((m["cpu"]["parent"] + m["cpu"]["workers"]) / m["requests"] for m in measured)
    implementation = statistics.median(m["cpu"]["implementation"] / m["requests"] for m in measured)
    return (f"CPU per record {per_record * 1000:.2f} ms, so at most {2 / per_record:,.0f} records/s on 2 idle cores; "
            f"per request: runner {runner * 1000:.3f} ms, implementation {implementation * 1000:.3f} ms")


def memory(roots: list[Path], rounds: int, sizes: list[int]) -> None:
    print(f"\n## check --no-cases --examples {'/'.join(map(str, sizes))} (trivial implementation): peak RSS, MiB")
    peaks: dict[tuple[Path, int], list[dict]] = {(root, size): [] for root in roots for size in sizes}
    for round_ in range(rounds):
        for size in sizes:
            for root in roots:
                with tempfile.TemporaryDirectory() as cache:
                    run = timed_check(root, ["--no-cases", "--examples", str(size), "--command",
                                             f"{sys.executable} {TRIVIAL}"], cache)
                peaks[root, size].append(run)
                print(f"  round {round_ + 1} {root.name:<16} {size:>6} examples: check {run['own_mib']:.1f} MiB, "
                      f"the largest of check and its implementation {run['tree_mib']:.1f} MiB, {run['wall']:.1f} s; "
                      f"{run['at']} UTC load {run['load']}", flush=True)
    for root in roots:
        own = [statistics.median(m["own_mib"] for m in peaks[root, size]) for size in sizes]
        tree = [statistics.median(m["tree_mib"] for m in peaks[root, size]) for size in sizes]
        print(f"{root.name:<16} check: {' / '.join(f'{v:.1f}' for v in own)} MiB = {own[-1] / own[0]:.2f}x; "
              f"the largest of check and its implementation: {' / '.join(f'{v:.1f}' for v in tree)} MiB = "
              f"{tree[-1] / tree[0]:.2f}x")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--before", action="append", default=[], help="another checkout, measured alternately")
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--impl", default="sacrebleu", help="the implementation judged (default sacrebleu)")
    parser.add_argument("--command", help="judge this protocol-v1 command instead of --impl (e.g. the fast float "
                        "implementation: 'python tests/fakes/plantedbleu.py clean', so that the runner's own "
                        "throughput is measured, not the library's)")
    parser.add_argument("--examples", type=int, default=1000)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--memory-sizes", type=int, nargs="*", default=[500, 20_000])
    parser.add_argument("--memory-rounds", type=int, default=1)
    parser.add_argument("--skip", choices=("throughput", "memory"), action="append", default=[])
    args = parser.parse_args()
    roots = [Path(p).resolve() for p in args.before] + [ROOT]
    chosen = ["--command", args.command] if args.command else ["--impl", args.impl]
    print(f"{utc()} UTC, load {load()} (1, 5, 15 min); {', '.join(str(r) for r in roots)}")
    for root in roots:  # a first run compiles each checkout's modules (.pyc), which no measured run should pay
        with tempfile.TemporaryDirectory() as cache:
            timed_check(root, [*chosen, "--no-cases", "--examples", "4", "--jobs", str(args.jobs)], cache)
    if "throughput" not in args.skip:
        throughput(roots, args.rounds, chosen, args.examples, args.jobs)
    if "memory" not in args.skip and args.memory_sizes:
        memory(roots, args.memory_rounds, args.memory_sizes)
    print(f"{utc()} UTC, load {load()}")


if __name__ == "__main__":
    main()
