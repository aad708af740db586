"""The counting fit's calls of one `check` run, recorded, then replayed on a tree's code: each call's fits and charges,
and their CPU (fit-cost2, issue 36: a change to `oracle/diagnose/countfit.py` that must change no fit and no charge).

    PYTHONPATH=$TREE python benchmarks/fit_replay.py record ID_OR_NAME OUT.pickle [--report DIR]
    PYTHONPATH=$TREE python benchmarks/fit_replay.py replay OUT.pickle [OUT2.pickle ...] [--rounds 3] [--json RESULT]

`record` runs `check --no-cases` (check's defaults) of a set A mutant (`benchmarks/stage_mutants.py`'s ids) or of an
`attribution.py` name in this process, by the oracle on PYTHONPATH, with `classify.fit_counting` wrapped: every call's
request, n, options, returned and formulas' counts, the grammar's expressions it permits, how many charges it made
and its fits are pickled (a file of this machine's, read back only by `replay`). `replay` calls the tree's
`countfit.fit` with the same arguments in the same order, a kept dict per request where the run passed one (as
classify keeps `Context.counted`), never spending a budget, and prints how many calls give the recorded fits and
charges, and the CPU of the whole sequence (`time.process_time`, fresh kept dicts each round, the best of `--rounds`).
A call whose recorded fit ran out of a search's budget (`spent`) is recorded with its charges and no fits; replayed
without a budget it gives fits, so it counts as different from the record on every tree alike.
"""

from __future__ import annotations

import argparse
import json
import os
import pickle
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]

#: The operators of set A's mutant ids (`stage_mutants.py`): an id starting with one names a mutant of stagedbleu.py.
_SET_A = ("dropterm", "offbyone", "swap", "constant", "first", "last", "return", "average", "negate")


def _command(name: str, tree: Path) -> str:
    if name.split(":")[0] in _SET_A:
        return f"{sys.executable} {tree / 'tests' / 'fakes' / 'stagedbleu.py'} --mutant {name}"
    sys.path.insert(0, str(tree / "benchmarks"))
    from attribution import command_of  # noqa: PLC0415 - benchmarks/ is no package

    return command_of(name)[0]


def record(name: str, out: Path, report: Path) -> int:
    from oracle import cli  # noqa: PLC0415 - after PYTHONPATH names the tree
    from oracle.diagnose import classify, countfit  # noqa: PLC0415

    tree = Path(os.environ.get("PYTHONPATH", str(ROOT)).split(os.pathsep)[0]).resolve()
    calls: list[dict[str, Any]] = []
    requests: dict[int, tuple[int, Any]] = {}
    fit = classify.fit_counting

    def recorded(segments, n, options, reported, oracle_counts, *, permitted=lambda name: True,
                 charge=lambda: None, spent=(), kept=None):
        charges = [0]

        def counting() -> None:
            charges[0] += 1
            charge()

        result = None
        try:
            result = fit(segments, n, options, reported, oracle_counts, permitted=permitted, charge=counting,
                         spent=spent, kept=kept)
            return result
        finally:
            key = requests.setdefault(id(segments), (len(requests), segments))[0]
            calls.append({"request": key, "kept": kept is not None, "n": n, "options": options, "reported": reported,
                          "oracle": oracle_counts, "permitted": frozenset(e for e in countfit.GRAMMAR if permitted(e)),
                          "charges": charges[0], "fits": result})

    classify.fit_counting = recorded
    try:
        cli.main(["check", "--command", _command(name, tree), "--no-cases", "--quiet", "--report", str(report)])
    except SystemExit:
        pass
    with out.open("wb") as handle:
        pickle.dump(({key: segments for key, segments in requests.values()}, calls), handle)
    print(f"{name}: {len(calls)} fits of {len(requests)} requests recorded in {out}", file=sys.stderr)
    return 0


def replay(paths: list[Path], rounds: int, result: Path | None) -> int:
    from oracle.diagnose import countfit  # noqa: PLC0415 - after PYTHONPATH names the tree

    found = {}
    for path in paths:
        with path.open("rb") as handle:
            requests, calls = pickle.load(handle)  # noqa: S301 - a file `record` wrote on this machine
        best, got = float("inf"), []
        for _ in range(rounds):
            kept: dict[int, dict] = {}
            got = []
            start = time.process_time()
            for call in calls:
                charges = [0]

                def charge(charges: list[int] = charges) -> None:
                    charges[0] += 1

                fits = countfit.fit(requests[call["request"]], call["n"], call["options"], call["reported"],
                                    call["oracle"], permitted=call["permitted"].__contains__, charge=charge,
                                    kept=kept.setdefault(call["request"], {}) if call["kept"] else None)
                got.append((charges[0], [list(parts) for parts in fits]))
            best = min(best, time.process_time() - start)
        wanted = [(call["charges"], [list(parts) for parts in call["fits"] or []]) for call in calls]
        same = sum(a == b for a, b in zip(got, wanted, strict=True))
        print(f"{path}: {len(calls)} calls, {same} with the recorded fits and charges; CPU {best:.3f} s (best of "
              f"{rounds})")
        found[str(path)] = {"calls": len(calls), "same": same, "cpu": best, "got": got}
    if result:
        result.write_text(json.dumps(found), encoding="utf-8")
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    verbs = parser.add_subparsers(dest="verb", required=True)
    recording = verbs.add_parser("record", help="record one check run's fits")
    recording.add_argument("name", help="a set A mutant id or an attribution.py name")
    recording.add_argument("out", type=Path)
    recording.add_argument("--report", type=Path, default=Path("/tmp/fit-replay-report"))
    replaying = verbs.add_parser("replay", help="replay recorded fits on this tree's code")
    replaying.add_argument("recorded", type=Path, nargs="+")
    replaying.add_argument("--rounds", type=int, default=3)
    replaying.add_argument("--json", type=Path, help="each call's charges and fits, and the CPU, as JSON")
    args = parser.parse_args(argv)
    if args.verb == "record":
        return record(args.name, args.out, args.report)
    return replay(args.recorded, args.rounds, args.json)


if __name__ == "__main__":
    raise SystemExit(main())
