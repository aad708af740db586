"""The runner's CPU per request, warm and cold (issue 39): `check --impl IMPL --no-cases --examples N --jobs J`
of this checkout and of others given (the code before a change), alternately, each on a private, empty search
cache (cold), then on the cache that run wrote (warm).

    .venv/bin/python benchmarks/per_request.py --rounds 2 --before /tmp/before   # (git archive REV | tar -x -C ...)

Each Python process is metered from inside (benchmarks/cpumeter): the CPU of `check` from the search's start to its
end (`Session.run_examples`, every thread), divided by the requests it sent (`Channel.submit`). Medians over the
rounds; the results.jsonl of every run is compared with the first cold run's (clock readings, seq numbers and the
report's own path left out), so that a change of speed is not bought with a change of records."""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "benchmarks"))

from _trees import environment  # noqa: E402

METER = ROOT / "benchmarks" / "cpumeter"
_CLOCKS = ("seq", "duration", "wall", "started", "finished")


def comparable(text: str, report: str) -> list:
    """A results.jsonl without clock readings, seq numbers and the report's own path."""

    def clean(value):
        if isinstance(value, dict):
            return {k: clean(v) for k, v in value.items() if k not in _CLOCKS}
        if isinstance(value, list):
            return [clean(v) for v in value]
        return value.replace(report, "REPORT") if isinstance(value, str) else value

    return [clean(json.loads(line)) for line in text.split("\n")[:-1]]


def metered_check(root: Path, cache: str, impl: str, examples: int, jobs: int) -> dict:
    """One metered `check` of the checkout at `root` on the search cache `cache`."""
    with tempfile.TemporaryDirectory() as report, tempfile.TemporaryDirectory() as meter:
        cmd = [sys.executable, "-m", "oracle", "check", "--impl", impl, "--no-cases", "--examples", str(examples),
               "--seed", "0", "--report", report, "--quiet", "--jobs", str(jobs)]
        # PYTHONDONTWRITEBYTECODE kept (bytecode_caches=False): the metered search imports modules as it first
        # needs them (the classifier, the curated file's model), and its figures were measured compiling them
        env = environment(root, METER, bytecode_caches=False, BLEU_ORACLE_CPU_METER=meter,
                          BLEU_ORACLE_SEARCH_CACHE=cache)
        done = subprocess.run(cmd, capture_output=True, text=True, cwd=root, env=env)
        if done.returncode not in (0, 1):
            raise SystemExit(f"check exit {done.returncode}: {done.stderr.strip()[-400:]}")
        runners = [m for m in (json.loads(p.read_text(encoding="utf-8")) for p in Path(meter).glob("*.json"))
                   if m["searches"]]
        records = comparable((Path(report) / "results.jsonl").read_text(encoding="utf-8"), report)
    return {"cpu": sum(m["search_cpu"] for m in runners), "requests": sum(m.get("requests", 0) for m in runners),
            "records": records}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--impl", default="sacrebleu")
    parser.add_argument("--examples", type=int, default=1000)
    parser.add_argument("--jobs", type=int, default=1)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--before", action="append", default=[], help="another checkout, measured alternately")
    args = parser.parse_args()
    roots = [Path(p).resolve() for p in args.before] + [ROOT]
    runs: dict[tuple[Path, str], list[dict]] = {(root, kind): [] for root in roots for kind in ("cold", "warm")}
    for _ in range(args.rounds):
        for root in roots:  # alternately: load on the machine affects every checkout alike
            with tempfile.TemporaryDirectory() as cache:
                for kind in ("cold", "warm"):
                    runs[root, kind].append(metered_check(root, cache, args.impl, args.examples, args.jobs))
    print(f"load: {os.getloadavg()[0]:.1f} {os.getloadavg()[1]:.1f} {os.getloadavg()[2]:.1f} (1, 5, 15 min)")
    first = runs[roots[0], "cold"][0]["records"]
    for (root, kind), measured in runs.items():
        per_request = [m["cpu"] / m["requests"] * 1000 for m in measured]
        same = all(m["records"] == first for m in measured)
        print(f"{root.name:<20} {kind}: {statistics.median(per_request):.3f} ms per request "
              f"({', '.join(f'{v:.3f}' for v in per_request)}; {measured[0]['requests']} requests; "
              f"records {'the same' if same else 'DIFFER'})")


if __name__ == "__main__":
    main()
