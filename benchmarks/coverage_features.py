"""Coverage's features alone (issue 39, cold-share): every input whose features one cold `check --impl IMPL
--no-cases --examples N --seed 0 --jobs 1` (an empty search cache) computed, recorded with the unit of work (the
example and its companions) it came in, then replayed in this checkout and in others given (the code before a
change), alternately, each in a fresh process, as its channel computes them: in a checkout that has
`oracle.harness.sharing`, with one `BySegments` a unit and the kept tokens' features cleared before each pass (a
pass is one run). Thread CPU of a pass, and whether every checkout finds the same features.

    .venv/bin/python benchmarks/coverage_features.py --before /tmp/before --rounds 3

The inputs are recorded with this checkout's code (each request's wire line, which earlier input of its unit holds
the very same segments, and the oracle's statistics, pickled) and rebuilt so in each checkout."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "benchmarks"))

from _trees import print_replayed, replayed  # noqa: E402

RECORD = """
import pickle, sys, tempfile
from oracle.harness import channel
units, holders = [[]], [[]]
literal_features, literal_start = channel.features, channel.Channel.start_unit
def recorded(request, statistics=None, *shared):
    # (the request as its wire line, and which earlier input of the unit holds the very same segments: a series step)
    same = next((k for k, earlier in enumerate(holders[-1]) if earlier.segments is request.segments), None)
    units[-1].append((request.to_json(), same, None if statistics is None else statistics.model_dump()))
    holders[-1].append(request)
    return literal_features(request, statistics, *shared)
def start_unit(self):
    if units[-1]:
        units.append([])
        holders.append([])
    return literal_start(self)
channel.features, channel.Channel.start_unit = recorded, start_unit
from oracle.cli import main
with tempfile.TemporaryDirectory() as report:
    try:
        main(["check", "--impl", sys.argv[2], "--no-cases", "--examples", sys.argv[3], "--seed", "0",
              "--report", report, "--quiet", "--jobs", "1"])
    except SystemExit:
        pass
with open(sys.argv[1], "wb") as out:
    pickle.dump(units, out)
"""

REPLAY = """
import gc, pickle, sys, time
from oracle.harness import coverage
try:
    from oracle.harness.sharing import BySegments
except ImportError:
    BySegments = None
from oracle.models.protocol import WIRE, ScoreRequest, Statistics
with open(sys.argv[1], "rb") as source:
    recorded = pickle.load(source)
units = []
for lines in recorded:
    unit = []
    for wire, same, statistics in lines:
        request = ScoreRequest.model_validate(wire, context=WIRE)
        if same is not None:  # a copy of the earlier input holding its very segments, as the series made it
            fields = {name: getattr(request, name) for name in type(request).model_fields if name != "segments"}
            request = unit[same][0].model_copy(update=fields)
        unit.append((request, None if statistics is None else Statistics(**statistics)))
    units.append(unit)
def one_pass():
    found = []
    for unit in units:
        shared = BySegments() if BySegments is not None else None
        for request, statistics in unit:
            if shared is None:
                found.append(tuple(sorted(coverage.features(request, statistics))))
            else:
                found.append(tuple(sorted(coverage.features(request, statistics, shared))))
    return found
gc.disable()
times = []
for _ in range(int(sys.argv[3])):
    getattr(coverage, "_kept_token_features", {}).clear()
    start = time.thread_time()
    found = one_pass()
    times.append(time.thread_time() - start)
with open(sys.argv[2], "wb") as out:
    pickle.dump((times, found), out)
"""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--impl", default="sacrebleu")
    parser.add_argument("--examples", default="1000")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--passes", default="5", help="replays of every input in one process, the best kept")
    parser.add_argument("--before", action="append", default=[], help="another checkout, replayed alternately")
    args = parser.parse_args()
    roots = [Path(p).resolve() for p in args.before] + [ROOT]
    recorded, measured = replayed(RECORD, REPLAY, ROOT, roots, args)
    print_replayed(measured, "features", args.passes, f"{sum(map(len, recorded))} inputs in {len(recorded)} units")


if __name__ == "__main__":
    main()
