"""A measured process run in a checkout (a tree): the one launcher of the benchmark scripts that compare trees.

The tree is first on PYTHONPATH (the other paths given before it), and byte-code caches are allowed, as an installed
copy has them: with PYTHONDONTWRITEBYTECODE, which this machine sets, every process would compile each module it
imports (about 0.7 to 1 s of CPU a process, start-up's largest part), a cost no user pays and the same in each tree,
so it would shrink every ratio toward 1. benchmarks/ is not a package: a script imports this module by name, with
its own folder on sys.path (as `python benchmarks/SCRIPT.py` puts it). The scripts that record what one cold `check`
computes and replay it in each tree (exact_scoring.py, coverage_features.py) share `replayed` and its printing."""

from __future__ import annotations

import argparse
import os
import pickle
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any


def environment(tree: Path, *before: Path | str, bytecode_caches: bool = True, **extra: str) -> dict[str, str]:
    """This process's environment for a process of `tree`: PYTHONPATH the paths `before` and then `tree`, the
    variables `extra` set, and PYTHONDONTWRITEBYTECODE removed, unless `bytecode_caches` is False: then it is kept as
    this process has it, for a script whose figures include a process's start-up as they were first measured (every
    module compiled in every process where the machine sets it; the script says why)."""
    kept = {name: value for name, value in os.environ.items()
            if name != "PYTHONDONTWRITEBYTECODE" or not bytecode_caches}
    return {**kept, "PYTHONPATH": os.pathsep.join([*map(str, before), str(tree)]), **extra}


def run(tree: Path, *args: str) -> None:
    """`python ARGS` (this Python) run in `tree` with its `environment`; an exit other than 0 raises."""
    subprocess.run([sys.executable, *args], cwd=tree, env=environment(tree), check=True)


def replayed(record: str, replay: str, root: Path, roots: list[Path], args: argparse.Namespace) -> tuple[Any, dict]:
    """What one cold `check` records (`python -c RECORD OUT IMPL EXAMPLES`, run in `root` on an empty search cache),
    replayed in each tree of `roots` in turn, `args.rounds` times (`python -c REPLAY IN OUT PASSES`, which writes
    (the CPU of each pass, what it found), pickled): (what was recorded, {tree: (the best pass of each round in ms,
    what the last replay found)})."""
    with tempfile.TemporaryDirectory() as work:
        recorded = Path(work) / "recorded.pkl"
        cache = Path(work) / "cache"
        cache.mkdir()
        os.environ["BLEU_ORACLE_SEARCH_CACHE"] = str(cache)  # empty: every value computed
        run(root, "-c", record, str(recorded), args.impl, args.examples)
        best: dict[Path, list[float]] = {tree: [] for tree in roots}
        found: dict[Path, Any] = {}
        for _ in range(args.rounds):
            for tree in roots:
                out = Path(work) / "out.pkl"
                run(tree, "-c", replay, str(recorded), str(out), args.passes)
                times, found[tree] = pickle.loads(out.read_bytes())
                best[tree].append(min(times) * 1000)
        return pickle.loads(recorded.read_bytes()), {tree: (best[tree], found[tree]) for tree in roots}


def print_replayed(measured: dict, what: str, passes: str, inputs: str) -> None:
    """The load, `inputs` (what was replayed), then a row a tree: its best passes, and whether it found what the
    first tree found (`what`: outcomes, features)."""
    print(f"load: {' '.join(f'{v:.1f}' for v in os.getloadavg())} (1, 5, 15 min); {inputs}")
    first = next(iter(measured.values()))[1]
    for tree, (best, found) in measured.items():
        print(f"{tree.name:<20} {', '.join(f'{v:.0f}' for v in best)} ms (best of {passes} a round); "
              f"{what} {'the same' if found == first else 'DIFFER'}")
