"""What each command pays to start (issue 39), for this checkout and the code before a change, side by side.

    .venv/bin/python benchmarks/startup.py --before /tmp/before --rounds 9

Per round, each checkout in turn (alternately, so that both meet the same load), fresh processes of this Python,
run in the checkout with it first on PYTHONPATH and byte-code caches allowed (PYTHONDONTWRITEBYTECODE removed: an
installed copy has its `__pycache__`; without it every process compiles every module, a cost no user pays):

- `python -c pass`: the interpreter's own start, the floor under every command;
- `serve --impl sacrebleu < /dev/null`: a serve process's start and stop (imports, the registry, sacrebleu, the
  adapter), no request: what `check` pays once per implementation process, once more per `--jobs` worker;
- `check --help`, `doctor --help`: a verb's parser (its module and what it imports);
- `score --hyp H --ref R`: two short lines, scored;
- `check --impl sacrebleu --no-cases --examples 50 --quiet`: a small run, its `serve` child included, with a search
  cache of each checkout's own (filled by the warm-up round, so warm in every counted round).

CPU is user + system of the process and the children it waited for (`resource.RUSAGE_CHILDREN`), wall the
process's elapsed time; medians over the rounds, and the ratio this checkout / before. The first round is a warm-up
(byte-code caches written, the search caches filled) and not counted. The outputs of `check --help`, `doctor
--help` and `score` are compared between the checkouts (they must be the same bytes). The machine is shared: the
load (`os.getloadavg`) is printed before and after, and only same-run ratios compare.
"""

from __future__ import annotations

import argparse
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

#: The outputs that must not differ between the checkouts.
COMPARED = ("check --help", "doctor --help", "score")


def commands(scratch: Path) -> dict[str, list[str]]:
    hyp, ref = scratch / "hyp.txt", scratch / "ref.txt"
    hyp.write_text("the cat sat on the mat\nhello world\n", encoding="utf-8")
    ref.write_text("the cat sat on a mat\nhello there world\n", encoding="utf-8")
    oracle = ["-m", "oracle"]
    return {
        "python -c pass": ["-c", "pass"],
        "serve --impl sacrebleu </dev/null": [*oracle, "serve", "--impl", "sacrebleu"],
        "check --help": [*oracle, "check", "--help"],
        "doctor --help": [*oracle, "doctor", "--help"],
        "score": [*oracle, "score", "--hyp", str(hyp), "--ref", str(ref)],
        "check --impl sacrebleu --no-cases --examples 50": [
            *oracle, "check", "--impl", "sacrebleu", "--no-cases", "--examples", "50", "--quiet", "--report-force",
            "--report", str(scratch / "report")],
    }


def cpu_of_children() -> float:
    used = resource.getrusage(resource.RUSAGE_CHILDREN)
    return used.ru_utime + used.ru_stime


def timed(checkout: Path, argv: list[str], env: dict[str, str]) -> tuple[float, float, bytes]:
    """(wall ms, CPU ms, stdout) of one fresh process of `argv` run in `checkout`, stdin empty."""
    cpu, start = cpu_of_children(), time.perf_counter()
    done = subprocess.run([sys.executable, *argv], cwd=checkout, env=env, stdin=subprocess.DEVNULL,
                          capture_output=True, check=False, timeout=600)
    wall, used = (time.perf_counter() - start) * 1000, (cpu_of_children() - cpu) * 1000
    if done.returncode not in (0, 1):
        raise SystemExit(f"{checkout}: {' '.join(argv)} exited {done.returncode}: {done.stderr.decode()[-400:]}")
    return wall, used, done.stdout


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--before", type=Path, required=True, help="a checkout of the code before the change")
    parser.add_argument("--rounds", type=int, default=9)
    parser.add_argument("--only", action="append", metavar="NAME", help="measure only the commands starting so")
    args = parser.parse_args()
    checkouts = {"before": args.before.resolve(), "this": ROOT}
    print(f"load before: {os.getloadavg()}  ({time.strftime('%H:%M:%S', time.gmtime())} UTC)")
    figures: dict[tuple[str, str], list[tuple[float, float]]] = {}
    outputs: dict[tuple[str, str], bytes] = {}
    with tempfile.TemporaryDirectory() as scratch_dir:
        scratch = Path(scratch_dir)
        measured = {name: argv for name, argv in commands(scratch).items()
                    if not args.only or any(name.startswith(prefix) for prefix in args.only)}
        envs = {}
        for label, checkout in checkouts.items():
            (scratch / f"cache-{label}").mkdir()
            envs[label] = environment(checkout, BLEU_ORACLE_SEARCH_CACHE=str(scratch / f"cache-{label}"))
        for round_number in range(args.rounds + 1):
            for label, checkout in (checkouts.items() if round_number % 2 else reversed(checkouts.items())):
                for name, argv in measured.items():
                    wall, cpu, out = timed(checkout, argv, envs[label])
                    outputs[(name, label)] = out
                    if round_number:
                        figures.setdefault((name, label), []).append((wall, cpu))
    print(f"load after: {os.getloadavg()}  ({time.strftime('%H:%M:%S', time.gmtime())} UTC)")
    for name in COMPARED:
        if name in measured and outputs[(name, "before")] != outputs[(name, "this")]:
            print(f"OUTPUT DIFFERS: {name}")
    print(f"medians of {args.rounds} rounds (wall ms / CPU ms)")
    print("| command | before: wall / CPU ms | this: wall / CPU ms | CPU this / before | CPU saved ms |")
    print("| --- | --- | --- | --- | --- |")
    for name in measured:
        before, after = figures[(name, "before")], figures[(name, "this")]
        walls = [statistics.median(wall for wall, _ in runs) for runs in (before, after)]
        cpus = [statistics.median(cpu for _, cpu in runs) for runs in (before, after)]
        print(f"| `{name}` | {walls[0]:.0f} / {cpus[0]:.1f} | {walls[1]:.0f} / {cpus[1]:.1f} | "
              f"{cpus[1] / cpus[0]:.2f} | {cpus[0] - cpus[1]:.1f} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
