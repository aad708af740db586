"""How often the wall clock (`check --shrink-seconds`) decides a shrink, and whether a run's records depend on load.

    python benchmarks/shrink_clock.py run --tree DIR --impl nltk --report OUT [--load N] [--time-shrinks FILE]
        [-- CHECK ARGS...]
    python benchmarks/shrink_clock.py compare OUT_A OUT_B

`run` runs `python -m oracle check --impl NAME --baseline baselines/NAME.yaml` from the tree DIR (its code on
PYTHONPATH, the interpreter running this script), at seed 0 unless CHECK ARGS say otherwise, while N processes
`yes > /dev/null` run at nice 10 beside it (started and stopped by this script, by their own ids), and prints its
wall time and exit code. `--time-shrinks FILE`: each call of the example shrinker (`oracle.harness.shrink`, also the
corpus part of a stateful plan's shrink, "example") and of a stateful plan's whole shrink ("plan",
`oracle.harness.stateful.PlanShrinker.run`) appends [seconds, queries, why it stopped, which] to FILE, and the run
prints the slowest (a plan's corpus part is counted twice: in its plan and on its own).
`compare` prints, for each of two report directories, how many records were shrunk and why each shrink stopped
(`shrunk.stopped_by`: "clock" is the `--shrink-seconds` deadline), and which records differ between the two
results.jsonl with the fields that hold clock readings (`duration`, `wall`, `started`, `finished`, `stderr`,
`handshake_stderr`: what TensorFlow logs at start-up holds times) and the report directory's path left out, then
again with every `seq` left out (a shrink that sends one request fewer moves every later request's number).
benchmarks/README.md, "Shrinking bounded by queries, not by the clock", gives the runs.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

#: `python -c` code that runs `check` with each shrink timed into the file named by the first argument.
TIMED = """
import json, sys, time
import oracle.harness.shrink as shrinking
import oracle.harness.stateful as stateful
log, sys.argv = sys.argv[1], sys.argv[:1] + sys.argv[2:]
def timing(untimed, kind):
    def timed(self, *args):
        started = time.perf_counter()
        result = untimed(self, *args)
        queries = self.queries
        stopped = result[1] if kind == "plan" else getattr(result, "stopped", None)
        with open(log, "a") as out:
            out.write(json.dumps([time.perf_counter() - started, queries, stopped, kind]) + "\\n")
        return result
    return timed
shrinking._Shrinker.run = timing(shrinking._Shrinker.run, "example")
stateful.PlanShrinker.run = timing(stateful.PlanShrinker.run, "plan")
from oracle.cli import main
sys.exit(main())
"""

#: Records that differ in more than their `seq` numbers `compare` prints.
SHOWN = 10

#: Fields a record or header holds clock readings in: two runs of the same seed differ there whatever decides.
CLOCK_FIELDS = ("duration", "wall", "started", "finished", "stderr", "handshake_stderr")


def run(args: argparse.Namespace) -> int:
    tree = Path(args.tree).resolve()
    extra = args.check_args[1:] if args.check_args[:1] == ["--"] else args.check_args
    start = [sys.executable, "-c", TIMED, args.time_shrinks] if args.time_shrinks else [sys.executable, "-m", "oracle"]
    command = [*start, "check", "--impl", args.impl, "--baseline",
               str(tree / "baselines" / f"{args.impl}.yaml"), "--report", args.report, *extra]
    environment = {**os.environ, "PYTHONPATH": str(tree), "PYTHONDONTWRITEBYTECODE": "1"}
    loads = [subprocess.Popen(["nice", "-n", "10", "yes"], stdout=subprocess.DEVNULL) for _ in range(args.load)]
    try:
        started = time.perf_counter()
        done = subprocess.run(command, cwd=tree, env=environment, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                              text=True, check=False)
        wall = time.perf_counter() - started
    finally:
        for process in loads:
            process.terminate()
            process.wait()
    last = [line for line in done.stdout.splitlines() if line.startswith("bleu-oracle check:")]
    print(f"{args.impl}: exit {done.returncode}, {wall:.1f} s wall, load {os.getloadavg()[0]:.1f} after, "
          f"{args.load} yes beside it")
    if args.time_shrinks:
        timed = [json.loads(line) for line in Path(args.time_shrinks).read_text(encoding="utf-8").splitlines()]
        slowest = sorted(timed, key=lambda entry: -entry[0])[:3]
        print(f"  {len(timed)} shrinks, {sum(entry[0] for entry in timed):.1f} s in all; slowest (s, queries, "
              f"stopped, which): {[[round(entry[0], 2), *entry[1:]] for entry in slowest]}")
    for line in last + [line for line in done.stdout.splitlines() if "--shrink-seconds clock" in line]:
        print(f"  {line}")
    return 0


def _without_path(value, path: str, seq: bool):
    """`value` with the report's path replaced, and (seq False) every `seq` key, however deep, left out."""
    if isinstance(value, str):
        return value.replace(path, "REPORT")
    if isinstance(value, list):
        return [_without_path(item, path, seq) for item in value]
    if isinstance(value, dict):
        return {key: _without_path(item, path, seq) for key, item in value.items() if seq or key != "seq"}
    return value


def _lines(report: Path, *, seq: bool = True) -> list[dict]:
    out = []
    for text in (report / "results.jsonl").read_text(encoding="utf-8").split("\n"):
        if not text:
            continue
        line = _without_path(json.loads(text), str(report), seq)
        out.append({key: value for key, value in line.items() if key not in CLOCK_FIELDS})
    return out


def compare(args: argparse.Namespace) -> int:
    reports = [Path(args.a), Path(args.b)]
    for seq in (True, False):
        runs = [_lines(report, seq=seq) for report in reports]
        if seq:
            for report, lines in zip(reports, runs, strict=True):
                stopped = Counter(line["shrunk"].get("stopped_by") for line in lines if line.get("shrunk"))
                print(f"{report}: {sum(stopped.values())} shrunk records; stopped by: "
                      + ", ".join(f"{reason} {count}" for reason, count in sorted(stopped.items(), key=str)))
        a, b = ({line.get("id", line.get("type")): line for line in lines} for lines in runs)
        differ = sorted((key for key in a.keys() | b.keys() if a.get(key) != b.get(key)), key=str)
        print(f"records that differ (clock fields aside{'' if seq else ', and every seq'}): {len(differ)}")
        for key in differ[:SHOWN] if not seq else ():
            one, two = a.get(key) or {}, b.get(key) or {}
            names = sorted(name for name in one.keys() | two.keys() if one.get(name) != two.get(name))
            shrunk = [one.get("shrunk") or {}, two.get("shrunk") or {}]
            print(f"  {key}: {', '.join(names)}; shrink queries {shrunk[0].get('queries')} / "
                  f"{shrunk[1].get('queries')}, steps {shrunk[0].get('steps')} / {shrunk[1].get('steps')}, "
                  f"stopped by {shrunk[0].get('stopped_by')} / {shrunk[1].get('stopped_by')}")
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    commands = parser.add_subparsers(dest="command", required=True)
    one = commands.add_parser("run")
    one.add_argument("--tree", required=True)
    one.add_argument("--impl", required=True)
    one.add_argument("--report", required=True)
    one.add_argument("--load", type=int, default=0)
    one.add_argument("--time-shrinks", metavar="FILE")
    one.add_argument("check_args", nargs=argparse.REMAINDER)
    one.set_defaults(handler=run)
    two = commands.add_parser("compare")
    two.add_argument("a")
    two.add_argument("b")
    two.set_defaults(handler=compare)
    args = parser.parse_args(argv)
    return args.handler(args)


if __name__ == "__main__":
    sys.exit(main())
