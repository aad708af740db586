"""Drawing a run's inputs and encoding their wire lines, alone (issue 39, cold-draw): every input a `check --impl IMPL
--no-cases --examples N --seed 0` draws for its search (each example and its companions: text, refused, series steps,
brackets, line ends), drawn in this checkout and in others given (the code before a change), alternately, each in a
fresh process; the thread CPU of drawing them all, and of encoding each one's wire line without seq
(`searchcache.body_of`, what `Prepared.wire_body` sends and caches), best of `--passes` passes; and a sha256 over
every input's line, which must be the same in every checkout: the same seed draws the same inputs.

    .venv/bin/python benchmarks/drawing.py --before /tmp/before --rounds 3

Drawn as `oracle.harness.work.examples` draws them (`Session.example_request`, `judge_companions`), for the
implementation's declared capabilities and its profile's options; a series step that sends its base input again is
the same request, encoded once as a run does (`ExampleInputs.prepare_series`)."""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

PASS = """
import hashlib, json, sys, time
from oracle.adapters import registry
from oracle.formulas.profiles import PROFILES
from oracle.harness import generate
from oracle.harness.refused import refused_request
from oracle.harness.searchcache import body_of
from oracle.harness.work.series import series_steps
from oracle.models.protocol import Capabilities

implementation = registry.resolve(sys.argv[1]).load()
capabilities = Capabilities.from_json(implementation.capabilities)
options = PROFILES[implementation.profile].options
draw = {"uniform_only": options.uniform_weights_only, "profile_smoothing": options.smoothing.to_json()}
examples, passes = int(sys.argv[2]), int(sys.argv[3])
companion_draws = {"text": generate.text_request, "brackets": generate.bracket_request,
                   "line-ends": generate.line_end_request}


def drawn():
    inputs = []
    for index in range(examples):
        inputs.append(generate.example_request(0, index, capabilities, **draw))
        for kind in generate.companions(index, capabilities):
            rng = generate.companion_rng(0, index, kind)
            if kind == "series":
                steps = series_steps(rng, capabilities, length=generate.DEFAULT_SERIES_LENGTH, **draw)
                inputs.extend({id(step.request): step.request for step in steps}.values())
            elif kind == "refused":
                inputs.append(refused_request(rng, capabilities, turn=index // generate.REFUSED_EVERY, **draw))
            else:
                inputs.append(companion_draws[kind](rng, capabilities, **draw))
    return inputs


def best(work):
    times = []
    for _ in range(passes):
        start = time.thread_time()
        work()
        times.append(time.thread_time() - start)
    return min(times)


inputs = drawn()
for request in inputs:  # (a run reads it before it encodes: the record limit, the history)
    request.token_count
digest = hashlib.sha256()
for request in inputs:
    digest.update(body_of(request).encode("ascii") + b"\\n")
print(json.dumps({"drawing": best(drawn), "encoding": best(lambda: [body_of(request) for request in inputs]),
                  "inputs": len(inputs), "lines": digest.hexdigest()}))
"""


def one_pass(root: Path, impl: str, examples: int, passes: int) -> dict:
    env = {**os.environ, "PYTHONPATH": str(root)}
    done = subprocess.run([sys.executable, "-c", PASS, impl, str(examples), str(passes)], cwd=root, env=env,
                          capture_output=True, text=True)
    if done.returncode:
        raise SystemExit(f"{root}: {done.stderr.strip()[-600:]}")
    return json.loads(done.stdout)


def _listed(values: list[float]) -> str:
    return ", ".join(f"{v:.0f}" for v in values)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--impl", default="sacrebleu")
    parser.add_argument("--examples", type=int, default=1000)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--passes", type=int, default=3, help="passes in each process; the best is kept")
    parser.add_argument("--before", action="append", default=[], help="another checkout, measured alternately")
    args = parser.parse_args()
    roots = [Path(p).resolve() for p in args.before] + [ROOT]
    runs: dict[Path, list[dict]] = {root: [] for root in roots}
    for _ in range(args.rounds):
        for root in roots:  # alternately: load on the machine affects every checkout alike
            runs[root].append(one_pass(root, args.impl, args.examples, args.passes))
    print(f"load: {' '.join(f'{v:.1f}' for v in os.getloadavg())} (1, 5, 15 min)")
    lines = {run["lines"] for measured in runs.values() for run in measured}
    for root, measured in runs.items():
        drawing = [1000 * run["drawing"] for run in measured]
        encoding = [1000 * run["encoding"] for run in measured]
        print(f"{root.name:<20} drawing {statistics.median(drawing):.0f} ms ({_listed(drawing)}), "
              f"encoding {statistics.median(encoding):.0f} ms ({_listed(encoding)}); "
              f"{measured[0]['inputs']} inputs; lines {'the same' if len(lines) == 1 else 'DIFFER'}")


if __name__ == "__main__":
    main()
