"""The oracle's exact scoring alone (issue 39, the cold item): every `bleu_from_statistics` call of one cold `check
--impl IMPL --no-cases --examples N --seed 0 --jobs 1` (an empty search cache) recorded, then replayed in this
checkout and in others given (the code before a change), alternately, each in a fresh process with the formulas'
caches cleared before each pass; thread CPU of a pass, and whether every checkout gives the same outcomes (score,
BP, precisions, weights and notes in their printed form, or the refusal).

    .venv/bin/python benchmarks/exact_scoring.py --before /tmp/before --rounds 3

The calls are recorded with this checkout's code (a Statistics and its keyword arguments, pickled); a checkout
whose formulas take other arguments cannot replay them."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "benchmarks"))

from _trees import print_replayed, replayed  # noqa: E402

RECORD = """
import pickle, sys, tempfile
from oracle.formulas import bleu
calls = []
literal = bleu.bleu_from_statistics
def recorded(statistics, **kwargs):
    calls.append((statistics, kwargs))
    return literal(statistics, **kwargs)
bleu.bleu_from_statistics = recorded  # corpus_bleu, sentence_bleu and oracle.diagnose.expect call it through bleu
from oracle.cli import main
with tempfile.TemporaryDirectory() as report:
    try:
        main(["check", "--impl", sys.argv[2], "--no-cases", "--examples", sys.argv[3], "--seed", "0",
              "--report", report, "--quiet", "--jobs", "1"])
    except SystemExit:
        pass
with open(sys.argv[1], "wb") as out:
    pickle.dump(calls, out)
"""

REPLAY = """
import gc, pickle, sys, time
from oracle.formulas import bleu, exact
with open(sys.argv[1], "rb") as source:
    calls = pickle.load(source)
def clear():
    for name in ("_scored", "_weights_under", "_parsed_floats"):
        if hasattr(getattr(bleu, name, None), "cache_clear"):  # (`_scored` is a memo in some checkouts, not in others)
            getattr(bleu, name).cache_clear()
    getattr(bleu, "_KEPT_RESULTS", {}).clear()
    exact._ln_of_ratio.cache_clear()
def outcome(statistics, kwargs):
    try:
        r = bleu.bleu_from_statistics(statistics, **kwargs)
    except Exception as exc:
        return type(exc).__name__, str(exc)
    return str(r.score), str(r.bp), repr(r.precisions), repr(r.weights), r.notes
gc.disable()
times = []
for _ in range(int(sys.argv[3])):
    clear()
    start = time.thread_time()
    outcomes = [outcome(s, k) for s, k in calls]
    times.append(time.thread_time() - start)
with open(sys.argv[2], "wb") as out:
    pickle.dump((times, outcomes), out)
"""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--impl", default="sacrebleu")
    parser.add_argument("--examples", default="1000")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--passes", default="5", help="replays of every call in one process, the best kept")
    parser.add_argument("--before", action="append", default=[], help="another checkout, replayed alternately")
    args = parser.parse_args()
    roots = [Path(p).resolve() for p in args.before] + [ROOT]
    recorded, measured = replayed(RECORD, REPLAY, ROOT, roots, args)
    print_replayed(measured, "outcomes", args.passes, f"{len(recorded)} calls")


if __name__ == "__main__":
    main()
