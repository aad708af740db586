"""The search cache's own cost (issue 39, the cold item): storing, then reading back, the entries of N examples
with the `SearchCache` of this checkout and of others given (the code before a change), alternately, on a private
empty directory each time; nothing else of a run (no drawing beyond the requests, no oracle, no implementation).

    .venv/bin/python benchmarks/cache_io.py --examples 1000 --rounds 5 --before /tmp/before

Each entry holds the example's request (`generate.example_request`, seed 0, every level) with a fixed expectation
and features: a smaller entry than a run writes (no companions), so the per-entry cost of files against a log
shows, not the bytes. Process CPU (`time.process_time`) and wall time of `store` for every example then `close`
(cold), and of a new cache's `load` of every example (warm), medians over the rounds."""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "benchmarks"))

from _trees import environment  # noqa: E402

_CHILD = r"""
import json, sys, tempfile, time
from oracle.harness.generate import example_request
from oracle.harness.searchcache import ExampleEntry, Prepared, SearchCache
from oracle.models.outcomes import Expected
from oracle.models.protocol import Capabilities

examples = int(sys.argv[1])
capabilities = Capabilities(levels=("sentence", "corpus"), max_order=6, weights="any", smoothing=("none",),
                            statistics=True, lowercase=False)
expected = Expected(rejected=True, reason="a fixed expectation")
requests = [example_request(0, index, capabilities) for index in range(examples)]
with tempfile.TemporaryDirectory() as root:
    key = "c" * 32
    cache = SearchCache(root, key)
    entries = [ExampleEntry(i, {"example": Prepared(r, expected=expected, features=("a", "b"))})
               for i, r in enumerate(requests)]
    for entry in entries:
        entry.inputs["example"].wire_body()
    cpu, wall = time.process_time(), time.perf_counter()
    for entry in entries:
        cache.store(entry)
    cache.close()
    cold = (time.process_time() - cpu, time.perf_counter() - wall)
    cpu, wall = time.process_time(), time.perf_counter()
    again = SearchCache(root, key)
    loaded = sum(again.load(index).loaded for index in range(examples))
    again.close()
    warm = (time.process_time() - cpu, time.perf_counter() - wall)
    size = sum(f.stat().st_size for f in (__import__("pathlib").Path(root) / key).iterdir())
print(json.dumps({"cold": cold, "warm": warm, "loaded": loaded, "bytes": size}))
"""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--examples", type=int, default=1000)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--before", action="append", default=[], help="another checkout, measured alternately")
    args = parser.parse_args()
    roots = [Path(p).resolve() for p in args.before] + [ROOT]
    runs: dict[Path, list[dict]] = {root: [] for root in roots}
    for _ in range(args.rounds):
        for root in roots:
            done = subprocess.run([sys.executable, "-c", _CHILD, str(args.examples)], capture_output=True, text=True,
                                  cwd=root, env=environment(root), check=True)
            runs[root].append(json.loads(done.stdout))
    print(f"load: {' '.join(f'{v:.1f}' for v in os.getloadavg())} (1, 5, 15 min)")
    for root, measured in runs.items():
        def median(kind: str, which: int, measured: list[dict] = measured) -> float:
            return statistics.median(m[kind][which] for m in measured)

        print(f"{root.name:<20} store+close: {median('cold', 0) * 1000:.0f} ms CPU, {median('cold', 1) * 1000:.0f} ms "
              f"wall; load: {median('warm', 0) * 1000:.0f} ms CPU, {median('warm', 1) * 1000:.0f} ms wall "
              f"({measured[0]['loaded']} of {args.examples} loaded, {measured[0]['bytes']} bytes)")


if __name__ == "__main__":
    main()
