"""How much of a cold `check`'s search is work done twice (issue 39, cold-share): `check --impl IMPL --no-cases
--examples N --jobs 1` of this checkout run in this process on an empty search cache, with the main thread's CPU
(`time.thread_time`) taken around the parts the oracle's expectation, coverage's features and the companions
share, and each call keyed by what it computes, so that a call whose key was met before is counted as repeated:

- tokenizing a text request (`ScoreRequest.tokenized`), by who asks (the expectation or coverage);
- counting one segment (`bleu._segment_counts`: its clipped matches, totals and lengths), keyed by its tokens,
  the orders counted and the options counting reads; "in the example" when the same key was met earlier in the
  same example (its companions: a series step that changes only weights, level or smoothing counts its base's
  segments again), "in the run" otherwise;
- coverage's features of a request (`coverage.features`), keyed by the request's segments after tokenizing (a
  series step whose segments are its base's walks the same tokens again);
- scoring the counts (`bleu.bleu_from_statistics`), the expectation as a whole (`expect.oracle_result`), and
  encoding a request's wire line (`searchcache.body_of`).

    BLEU_ORACLE_SEARCH_CACHE=$(mktemp -d) .venv/bin/python benchmarks/repeated_work.py

The timer's own cost (two `thread_time` calls a wrapped call) is in the figures; compare parts, not totals with
`per_request.py`."""

from __future__ import annotations

import argparse
import collections
import os
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


class Meter:
    """Seconds of main-thread CPU and calls per label."""

    def __init__(self):
        self.cpu: collections.Counter = collections.Counter()
        self.calls: collections.Counter = collections.Counter()

    def add(self, label: str, seconds: float) -> None:
        self.cpu[label] += seconds
        self.calls[label] += 1


def _segments_key(request):
    return tuple((tuple(s.hypothesis), tuple(map(tuple, s.references))) for s in request.segments)


def instrument(meter: Meter):  # noqa: C901, PLR0915 -- one wrapper a part
    """Wrap the parts; return a function that undoes it."""
    from oracle.diagnose import expect
    from oracle.formulas import bleu
    from oracle.harness import channel, coverage, searchcache
    from oracle.harness import session as session_module
    from oracle.harness.work import examples
    from oracle.models.protocol import ScoreRequest

    saved = [(expect, "oracle_result"), (bleu, "_segment_counts"), (bleu, "bleu_from_statistics"),
             (channel, "features"), (coverage, "text_rules"), (ScoreRequest, "tokenized"),
             (searchcache, "body_of"), (session_module.Session, "run_examples"),
             (examples.ExampleInputs, "prepare"), (channel.Channel, "submit")]
    originals = [(owner, name, getattr(owner, name)) for owner, name in saved]
    o = {name: value for _, name, value in originals}
    who = ["other"]
    seen_counts_run: set = set()
    seen_counts_example: set = set()
    seen_walks: set = set()
    seen_tokenized: set = set()
    seen_encoded: set = set()

    def timed(label, function):
        def wrapper(*args, **kwargs):
            start = time.thread_time()
            try:
                return function(*args, **kwargs)
            finally:
                meter.add(label, time.thread_time() - start)
        return wrapper

    def oracle_result(*args, **kwargs):
        before, who[0] = who[0], "expectation"
        try:
            return timed("expectation (oracle_result)", o["oracle_result"])(*args, **kwargs)
        finally:
            who[0] = before

    def segment_counts(hypothesis, references, max_order, options, count_matches=None):
        key = (tuple(hypothesis), tuple(map(tuple, references)), max_order,
               tuple(getattr(options, n) for n in expect.COUNTING_OPTIONS))
        where = ("repeated in the example" if key in seen_counts_example else
                 "repeated in the run" if key in seen_counts_run else "first")
        seen_counts_run.add(key)
        seen_counts_example.add(key)
        return timed(f"counting a segment, {where}", o["_segment_counts"])(hypothesis, references, max_order,
                                                                          options, count_matches)

    def features(request, statistics=None, *shared):
        before, who[0] = who[0], "coverage"
        start = time.thread_time()
        try:
            return o["features"](request, statistics, *shared)
        finally:
            spent = time.thread_time() - start
            who[0] = before
            key = _segments_key(o["tokenized"](request) if request.is_text else request)  # (untimed)
            meter.add("coverage features, segments walked before" if key in seen_walks else
                      "coverage features, first walk", spent)
            seen_walks.add(key)

    def tokenized(self, split="str-split", padding="spaces", fold=None):
        if not self.is_text:
            return o["tokenized"](self, split, padding, fold)
        key = (_segments_key(self), self.tokenize, split, padding, fold)
        where = "tokenized before" if key in seen_tokenized else "first"
        seen_tokenized.add(key)
        return timed(f"tokenizing a text request for {who[0]}, {where}", o["tokenized"])(self, split, padding, fold)

    def body_of(request, *shared):
        if who[0] == "body_of":  # (body_of calls itself for a line it then splits)
            return o["body_of"](request, *shared)
        before, who[0] = who[0], "body_of"
        try:
            return encoded(request, *shared)
        finally:
            who[0] = before

    def encoded(request, *shared):
        key = _segments_key(request)
        where = "segments encoded before" if key in seen_encoded else "first"
        seen_encoded.add(key)
        return timed(f"encoding the wire line (body_of), {where}", o["body_of"])(request, *shared)

    def prepare(self, name, draw):
        if name == "example":
            seen_counts_example.clear()
        return o["prepare"](self, name, draw)

    def submit(self, request, prepared=None):
        meter.calls["requests"] += 1
        return o["submit"](self, request, prepared)

    expect.oracle_result = oracle_result
    bleu._segment_counts = segment_counts
    bleu.bleu_from_statistics = timed("scoring (bleu_from_statistics)", o["bleu_from_statistics"])
    channel.features = features
    coverage.text_rules = timed("coverage's text rules (text_rules)", o["text_rules"])
    ScoreRequest.tokenized = tokenized
    searchcache.body_of = body_of
    session_module.Session.run_examples = timed("the search (run_examples)", o["run_examples"])
    examples.ExampleInputs.prepare = prepare
    channel.Channel.submit = submit

    def undo():
        for owner, name, value in originals:
            setattr(owner, name, value)
    return undo


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--impl", default="sacrebleu")
    parser.add_argument("--examples", type=int, default=1000)
    args = parser.parse_args()
    sys.path.insert(0, str(ROOT))
    if not os.environ.get("BLEU_ORACLE_SEARCH_CACHE"):
        raise SystemExit("set BLEU_ORACLE_SEARCH_CACHE to an empty directory (a cold run)")
    from oracle.cli import main as cli

    meter = Meter()
    undo = instrument(meter)
    try:
        with tempfile.TemporaryDirectory() as report:
            try:
                cli(["check", "--impl", args.impl, "--no-cases", "--examples", str(args.examples), "--seed", "0",
                     "--report", report, "--quiet", "--jobs", "1"])
            except SystemExit as stop:
                if stop.code not in (0, 1, None):
                    raise
    finally:
        undo()
    total = meter.cpu["the search (run_examples)"]
    requests = meter.calls["requests"]
    print(f"load {' '.join(f'{v:.1f}' for v in os.getloadavg())}; {requests} requests; search {total:.2f} s "
          f"({1000 * total / max(requests, 1):.3f} ms a request, timers included)")
    for label, seconds in sorted(meter.cpu.items(), key=lambda item: -item[1]):
        print(f"{100 * seconds / total:5.1f}%  {1000 * seconds / max(requests, 1):.4f} ms/request  "
              f"{meter.calls[label]:>7} calls  {label}")


if __name__ == "__main__":
    main()
