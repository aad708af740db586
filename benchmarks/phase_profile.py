"""Where a failing `check` run's runner CPU goes, by phase, beside its fixed twin's (issue 36, cost-bound).

    BLEU_ORACLE_SEARCH_CACHE=/tmp/cache PYTHONPATH=$PWD .venv/bin/python benchmarks/phase_profile.py \
        heldout4:characters-in-sentence-bleu real:references-transposed [--rounds 2]

`check --command ... --no-cases --jobs 1` of this checkout runs in this process (seed 0, 200 examples, a private
search cache, cold, each run, as benchmarks/attribution.py's rounds start), each phase (`PHASES`: judging, re-sending,
shrinking, the state and order probes, the searches among the hints, the shrunk or first failure's search, the full
search, what is known, record building and writing) wrapped by a timer on the main thread's CPU (`time.thread_time`),
a phase's time excluding the phases called inside it. What is inside `Session.run_examples` and no phase is "other in
the examples"; the start, the header and the reports are "outside the examples". The implementation's own CPU is
another process's and is not counted; the imports done before `main` (the CLI's) are not either. "other threads" is
the process's CPU (`time.process_time`) less the main thread's. Failing and fixed
runs alternate; the figures are for comparison within one run of this script (the timers add a little to each call).
"""

from __future__ import annotations

import argparse
import collections
import os
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "benchmarks"))

from attribution import command_of  # noqa: E402

#: (module, attribute, phase): each is wrapped by a timer on the main thread's CPU (`time.thread_time`); a phase's
#: time excludes the phases called inside it (the innermost wins). A module-level function is wrapped in the module
#: its callers find it through (`oracle.harness.diagnosis` calls its own functions by their global names).
PHASES: tuple[tuple[str, str, str], ...] = (
    ("oracle.harness.session:Session", "run_examples", "other in the examples"),
    ("oracle.harness.session:Session", "judge", "judge"),
    ("oracle.harness.session:Session", "account", "record write"),
    ("oracle.harness.session:Session", "recorded", "record build"),
    ("oracle.harness.session", "judged_record", "record build"),
    ("oracle.harness.reproduction:Reproduction", "of_failure", "record build"),
    ("oracle.harness.diagnosis", "diagnose", "diagnose other"),
    ("oracle.harness.diagnosis", "answered_again", "resend"),
    ("oracle.harness.diagnosis", "shrink_failure", "shrink"),
    ("oracle.harness.diagnosis", "answered_right_before", "state"),
    ("oracle.harness.diagnosis", "_stale", "state"),
    ("oracle.harness.diagnosis", "_kept_as_in_its_block", "state"),
    ("oracle.harness.diagnosis", "_told_apart", "told apart"),
    ("oracle.harness.diagnosis", "_error_cause", "error/death cause"),
    ("oracle.harness.diagnosis", "_death_cause", "error/death cause"),
    ("oracle.harness.diagnosis", "shrunk_and_classified", "classify: shrunk or first failure"),
    ("oracle.harness.diagnosis", "_attribute_by_hints", "classify: among hints"),
    ("oracle.harness.diagnosis", "_named_without_full_search", "classify: documented classes (unnamed)"),
    ("oracle.harness.diagnosis", "_named_by_block_causes", "classify: block causes"),
    ("oracle.harness.diagnosis", "what_is_known", "classify: what is known"),
)
#: `_attribute_within`'s full search: `attribute` called with a meter and without `among`
FULL_SEARCH = "classify: full search"


def _owner(where: str):
    import importlib  # noqa: PLC0415

    module, _, cls = where.partition(":")
    owner = importlib.import_module(module)
    return getattr(owner, cls) if cls else owner


def profiled_check(command: str) -> collections.Counter:
    """Seconds of the main thread's CPU by phase of one `check` of `command` (this process, the implementation's
    own CPU not counted), "outside the examples" being the start, the header and the reports."""
    import time  # noqa: PLC0415

    from oracle.cli import main  # noqa: PLC0415

    counted: collections.Counter = collections.Counter()
    stack: list[list] = [["outside the examples (start, reports)", 0.0]]

    def enter(name):
        now = time.thread_time()
        counted[stack[-1][0]] += now - stack[-1][1]
        stack.append([name, now])

    def leave():
        now = time.thread_time()
        name, since = stack.pop()
        counted[name] += now - since
        stack[-1][1] = now

    def wrap(function, phase):
        import functools  # noqa: PLC0415

        @functools.wraps(function)
        def timed(*args, **kwargs):
            name = phase(kwargs) if callable(phase) else phase
            if name is None:
                return function(*args, **kwargs)
            enter(name)
            try:
                return function(*args, **kwargs)
            finally:
                leave()
        return timed

    originals = []
    for where, attribute, phase in PHASES:
        owner = _owner(where)
        originals.append((owner, attribute, getattr(owner, attribute)))
        setattr(owner, attribute, wrap(getattr(owner, attribute), phase))
    diagnosis = _owner("oracle.harness.diagnosis")
    originals.append((diagnosis, "attribute", diagnosis.attribute))
    diagnosis.attribute = wrap(diagnosis.attribute,
                               lambda kw: FULL_SEARCH if "meter" in kw and "among" not in kw else None)
    try:
        with tempfile.TemporaryDirectory() as report:
            os.environ["BLEU_ORACLE_SEARCH_CACHE"] = str(Path(report) / "cache")  # cold, as attribution's rounds
            stack[0][1] = time.thread_time()
            process_start = time.process_time()
            try:
                main(["check", "--command", command, "--no-cases", "--seed", "0", "--report", str(Path(report) / "r"),
                      "--quiet", "--jobs", "1", "--allow-empty"])
            except SystemExit as stop:
                if stop.code not in (0, 1, None):
                    raise
            counted[stack[0][0]] += time.thread_time() - stack[0][1]
            # the process's other threads (the transport's reader, ...): its CPU less the main thread's
            counted["other threads"] += (time.process_time() - process_start) - sum(counted.values())
    finally:
        for owner, attribute, original in originals:
            setattr(owner, attribute, original)
    return counted


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("names", nargs="+", help="implementations as benchmarks/attribution.py names them")
    parser.add_argument("--rounds", type=int, default=1)
    args = parser.parse_args()
    sys.path.insert(0, str(ROOT))
    for name in args.names:
        failing, fixed = command_of(name)
        sums: dict[str, collections.Counter] = {"failing": collections.Counter(), "fixed": collections.Counter()}
        for _ in range(args.rounds):
            sums["failing"].update(profiled_check(failing))
            sums["fixed"].update(profiled_check(fixed))
        print(f"## {name} ({args.rounds} round(s); load {' '.join(f'{v:.1f}' for v in os.getloadavg())})")
        print("| phase | failing s | fixed s | extra s |")
        print("| --- | --- | --- | --- |")
        phases = sorted(set(sums["failing"]) | set(sums["fixed"]), key=lambda p: -sums["failing"][p])
        for phase in phases:
            a, b = sums["failing"][phase] / args.rounds, sums["fixed"][phase] / args.rounds
            print(f"| {phase} | {a:.2f} | {b:.2f} | {a - b:+.2f} |")
        total_a = sum(sums["failing"].values()) / args.rounds
        total_b = sum(sums["fixed"].values()) / args.rounds
        print(f"| **all** | {total_a:.2f} | {total_b:.2f} | {total_a - total_b:+.2f} |\n", flush=True)


if __name__ == "__main__":
    main()
