"""Root causes of one-bug implementations: how many names each bug gets, and what naming it costs.

    .venv/bin/python benchmarks/attribution.py                 # every one-bug fake, check's defaults
    .venv/bin/python benchmarks/attribution.py --quick         # three of them, 40 examples
    .venv/bin/python benchmarks/attribution.py --only mutant_bp_missing planted:per-reference-clip
    .venv/bin/python benchmarks/attribution.py --real                      # the real bugs (issue 36)
    .venv/bin/python benchmarks/attribution.py --real --only padding-counted percent-scale
    .venv/bin/python benchmarks/attribution.py --heldout                   # the held-out real bugs (issue 36)
    .venv/bin/python benchmarks/attribution.py --real --collection heldout2   # the second held-out set (issue 36)
    .venv/bin/python benchmarks/attribution.py --real --collection heldout3   # the third held-out set (issue 36)
    .venv/bin/python benchmarks/attribution.py --only mutant_unnamed_score_power --before /tmp/main-tree
    .venv/bin/python benchmarks/attribution.py --only real:padding-counted --before /tmp/main-tree  # a real bug

Each implementation is a deliberately wrong fake with exactly one bug (tests/fakes/mutant_*.py, and the
planted bugs of tests/fakes/plantedbleu.py named `planted:BUG`, the real bugs of realbleu.py `real:BUG`). Each
runs through `bleu-oracle check --command ... --no-cases` with the defaults (seed, examples, shrink budget)
alternately with its fixed twin (`tests/fakes/clean.py`, or `plantedbleu.py clean`, `realbleu.py clean`), so
that machine load affects both sides. For each it prints the wall time failing and fixed and their ratio, the
run's root causes (the footer's: one name per bug is the goal), and the record-level names for comparison.
Nothing here asserts: the figures are for people (README, "How causes are chosen").

`--real` runs the bugs of `tests/fakes/realbleu.py` instead (issue 36: bugs from public trackers the project
has never seen), each alternately with `realbleu.py clean`, and prints a Markdown table: caught (exit 1), the
run's main cause (the footer's cause with the most records, the first on a tie), whether it fits (the cause, or
one of its `+`-joined parts, is in the bug's `fits`, judged before any run), and the cost ratio failing/fixed in
wall time and in the CPU time of the child processes. A run over `--timeout` seconds is reported as a timeout.

`--real --collection heldout` (or `--heldout`) runs the held-out collection instead, `tests/fakes/realbleu_heldout.py`
(bugs gathered after the first 30 had been seen by the people writing mechanisms, from threads nothing in the
project cites), each alternately with `realbleu_heldout.py clean`, in the same table; its `fits` were committed
(95610df) before its first run, and no catalogue spelling is counted for it (`SAME_MECHANISM_HELDOUT` is empty).

`--real --collection heldout2` runs the second held-out collection, `tests/fakes/realbleu_heldout2.py` (gathered
while the first held-out set was being spent on mechanisms, from threads nothing in the project cites), each
alternately with `realbleu_heldout2.py clean`; its `fits` were committed (ab9973a) before its first run, and no
catalogue spelling is counted for it (`SAME_MECHANISM_HELDOUT2` is empty).

`--real --collection heldout3` runs the third held-out collection, `tests/fakes/realbleu_heldout3.py` (gathered once
the first two held-out sets were spent, from threads nothing in the project cites), each alternately with
`realbleu_heldout3.py clean`; its `fits` were committed before its first run (7e40a79, the last three bugs 48d4cd0),
and no catalogue spelling is counted for it (`SAME_MECHANISM_HELDOUT3` is empty).

`--before TREE`: the same runs with the oracle of another checkout as well (a `git worktree` of an earlier
commit), its failing and fixed runs alternating with this tree's, the implementations always this tree's fakes;
one line per tree, and whether the two trees give the run the same root causes. Each tree's search cache is
warmed by one untimed fixed run per fixed twin first, so that neither tree's first run pays for it.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shlex
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
FAKES = ROOT / "tests" / "fakes"
QUICK = ("mutant_bp_missing", "mutant_ties_longer", "mutant_totals_off_by_one")


def command_of(name: str) -> tuple[str, str]:
    """(the implementation's command, its fixed twin's command)."""
    python = shlex.quote(sys.executable)
    if name.startswith("real:"):  # a real bug of realbleu.py (issue 36), beside the planted ones with --before
        real = shlex.quote(str(FAKES / "realbleu.py"))
        return f"{python} {real} {name.split(':', 1)[1]}", f"{python} {real} clean"
    if name.startswith("planted:"):
        planted = shlex.quote(str(FAKES / "plantedbleu.py"))
        return f"{python} {planted} {name.split(':', 1)[1]}", f"{python} {planted} clean"
    return f"{python} {shlex.quote(str(FAKES / (name + '.py')))}", f"{python} {shlex.quote(str(FAKES / 'clean.py'))}"


def one_bug_implementations() -> list[str]:
    sys.path.insert(0, str(FAKES))
    from plantedbleu import BUGS  # noqa: PLC0415 - the fakes are not a package

    mutants = sorted(p.stem for p in FAKES.glob("mutant_*.py"))
    return mutants + [f"planted:{bug}" for bug in sorted(BUGS)]


def run_check(command: str, report: Path, examples: int | None, tree: Path = ROOT) -> tuple[int, float, dict]:
    """`check` of `command` by the oracle of `tree`: (exit code, wall seconds, root causes and record names)."""
    code, elapsed, _, found = run_check_timed(command, report, examples, timeout=None, tree=tree)
    if code is None:  # cannot happen without a timeout; a clear error rather than a None exit code downstream
        raise RuntimeError(f"check of {command} ended without an exit code")
    return code, elapsed, found


def run_check_timed(command: str, report: Path, examples: int | None, timeout: float | None, tree: Path = ROOT
                    ) -> tuple[int | None, float, float, dict]:
    """`check` of `command` by the oracle of `tree`: (exit code or None on timeout, wall seconds, CPU seconds of the
    child processes, root causes and record names)."""
    argv = [sys.executable, "-m", "oracle", "check", "--command", command, "--no-cases", "--report", str(report),
            "--quiet", "--allow-empty"]
    if examples is not None:
        argv += ["--examples", str(examples)]
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    try:
        code: int | None = subprocess.run(argv, capture_output=True, text=True, cwd=tree, timeout=timeout,
                                          env={**os.environ, "PYTHONPATH": str(tree)}).returncode
    except subprocess.TimeoutExpired:  # subprocess.run has killed the check (its implementation may outlive it)
        code = None
    elapsed = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return code, elapsed, cpu, _found(report)


def _found(report: Path) -> dict:
    lines = (
        (report / "results.jsonl").read_text(encoding="utf-8").split("\n")
        if (report / "results.jsonl").exists()
        else []
    )
    records = [json.loads(line) for line in lines if '"type": "record"' in line or '"type":"record"' in line]
    footer = next((json.loads(line) for line in reversed(lines) if '"footer"' in line[:40]), {})
    names = Counter((r.get("classification") or {}).get("name", "-") for r in records
                    if r.get("outcome") not in ("pass", "rejected", "not-applicable"))
    return {"names": names, "causes": footer.get("causes")}


# -- the real bugs (issue 36) ---------------------------------------------------------------------------------


#: `--collection`: the fake of each collection of real bugs (its table is the module's `*_BUGS` dict)
COLLECTIONS = {"realbleu": "realbleu", "heldout": "realbleu_heldout", "heldout2": "realbleu_heldout2",
               "heldout3": "realbleu_heldout3"}


def real_bugs(collection: str = "realbleu") -> dict:
    """The table of a collection of real bugs: name -> RealBug (`REAL_BUGS`, `HELDOUT_BUGS`, `HELDOUT2_BUGS` or
    `HELDOUT3_BUGS`)."""
    sys.path.insert(0, str(FAKES))
    if collection == "heldout3":
        from realbleu_heldout3 import HELDOUT3_BUGS  # noqa: PLC0415 - the fakes are not a package

        return HELDOUT3_BUGS
    if collection == "heldout2":
        from realbleu_heldout2 import HELDOUT2_BUGS  # noqa: PLC0415 - the fakes are not a package

        return HELDOUT2_BUGS
    if collection == "heldout":
        from realbleu_heldout import HELDOUT_BUGS  # noqa: PLC0415 - the fakes are not a package

        return HELDOUT_BUGS
    from realbleu import REAL_BUGS  # noqa: PLC0415 - the fakes are not a package

    return REAL_BUGS


def main_cause(causes: list[dict] | None) -> str | None:
    """The run's main cause: the footer's cause with the most records (the first listed on a tie)."""
    if not causes:
        return None
    return max(causes, key=lambda c: c.get("records", 0))["name"]  # max keeps the first of equal ones


#: Ideal names of `REAL_BUGS`' `fits` (judged before the first run, 11c4789) that the catalogue now spells otherwise
#: for the very same mechanism, each pair read against both descriptions and written here before the run that uses
#: it. A broader or a narrower mechanism is not a spelling: it is not listed. "fits" counts the committed names
#: alone; "fits, same mechanism" counts these as well, and both are reported.
SAME_MECHANISM = {
    # both: the sides exchanged, the first reference scored as the hypothesis against the hypothesis
    "hypothesis-and-reference-swapped": ("hypothesis-and-references-swapped",),
    # both: hypothesis and references passed as strings, every character (spaces included) a token
    "characters-as-tokens": ("text-read-as-characters",),
    # both: BP x p_1 reported (cumulative BLEU-1 is BP times the unigram precision alone)
    "bleu-1-reported": ("unigram-precision-only",),
    "first-order-score-reported": ("unigram-precision-only",),
    # issue 36's second round (nesting-causes), written after a first run of these names had been seen, from the two
    # descriptions alone: the hypothesis iterated as characters, each character of the reference string a reference
    "strings-iterated-as-characters": ("reference-string-as-references-and-hypothesis-as-characters",),
    # both: each character of the one reference string a one-token reference, whitespace an empty one
    "reference-characters-as-references": ("reference-string-as-references",),
    # both: each reference string a stream, segment i against the i-th characters, cut to the shortest string
    "references-as-character-streams": ("reference-strings-as-streams",),
    # both: padded to a multiple of 4 (the world size) by repeating the first segments, the repeats counted
    "segments-duplicated-to-fill-ranks": ("corpus-padded-to-a-multiple-of-4",),
    # issue 36, third round (real-misses): written after these bugs' misses had been seen, from the two descriptions
    # alone, with the mechanisms they name (so their rows measure coverage, not generalisation).
    # both: the mean of corpus BLEU over consecutive batches of 4 segments, the last batch weighted as the others
    "mean-of-batch-scores": ("mean-of-scores-of-batches-of-4",),
    # both: the mean of sentence BLEU with sacrebleu's sentence defaults (exp smoothing, effective order)
    "mean-of-sentence-bleu": ("mean-of-exp-smoothed-sentence-bleu",),
    # both: an end symbol on the references, then every sequence padded to the batch's longest, pads counted
    "padding-counted": ("end-token-on-references-and-padding-to-a-common-length",),
    # both: chen-cherry-4 errs on a one-token hypothesis with an unmatched order (the catalogue orders the features
    # its own way and names how the order is left unmatched: an empty reference, or one shorter than the order)
    "error-when-smoothing-chen-cherry-4-and-hypothesis-one-token": (
        "error-when-hypothesis-one-token-and-reference-empty-and-smoothing-chen-cherry-4",
        "error-when-hypothesis-one-token-and-reference-shorter-than-order-and-smoothing-chen-cherry-4",
        # added with the precision-zero feature (heldout-mechanisms), before a run: the unmatched order by its name
        "error-when-hypothesis-one-token-and-smoothing-chen-cherry-4-and-precision-zero"),
    # issue 36, fourth session (default-weights): written after this bug's runs had been seen (coverage, not
    # generalisation), once `order-fixed-at-4` was widened to four weights sent: both say BLEU-4 with uniform 1/4
    # whatever order and weights are sent, the scorer's default in place of both (its docstring cites this thread)
    "default-weights-used": ("order-fixed-at-4",),
    # not listed: end-token-appended-to-hypothesis vs special-token-on-hypotheses (an end or a start token: broader,
    # and no count tells them apart: on one side only, the token matches nothing and adds one n-gram to every order
    # wherever it stands); padding-counted vs padding-counted-to-a-common-length (no end symbol: another mechanism)
    # not listed: max-order-constant-4 vs order-fixed-at-4 (the real bug keeps the weights sent for orders 1-4,
    # order-fixed-at-4 uses 1/4 each: another mechanism); strings-iterated vs text-read-as-characters (there each
    # character of the reference string is a reference of its own: another structure)
}
#: The same for the held-out collection: empty when its `fits` were committed (95610df); a spelling added here after
#: a run is a post-hoc reading and must say so.
SAME_MECHANISM_HELDOUT: dict[str, tuple[str, ...]] = {}
#: The same for the second held-out collection: empty when its `fits` were committed (ab9973a); a spelling added here
#: after a run is a post-hoc reading and must say so.
SAME_MECHANISM_HELDOUT2: dict[str, tuple[str, ...]] = {}
#: The same for the third held-out collection: empty when its `fits` were committed (7e40a79, 48d4cd0); a spelling added
#: here after a run is a post-hoc reading and must say so.
SAME_MECHANISM_HELDOUT3: dict[str, tuple[str, ...]] = {}
#: `--collection`: the catalogue spellings counted as the same mechanism for each collection
SPELLINGS = {"realbleu": SAME_MECHANISM, "heldout": SAME_MECHANISM_HELDOUT, "heldout2": SAME_MECHANISM_HELDOUT2,
             "heldout3": SAME_MECHANISM_HELDOUT3}


def parts_of(cause: str) -> list[str]:
    """A cause's `+`-joined parts (`a + b`), each without the spaces around the `+`."""
    return [part.strip() for part in cause.split("+")]


def fits(cause: str | None, accepted: tuple[str, ...], *, spellings: bool = False,
         same_mechanism: dict[str, tuple[str, ...]] | None = None) -> bool:
    """Whether a cause names the real mechanism: it, or one of its `+`-joined parts, is accepted (with
    `spellings`: or is the catalogue's spelling of an accepted name, `same_mechanism`, by default `SAME_MECHANISM`)."""
    if cause is None:
        return False
    names = set(accepted)
    if spellings:
        table = SAME_MECHANISM if same_mechanism is None else same_mechanism
        names.update(other for name in accepted for other in table.get(name, ()))
    return cause in names or any(part in names for part in parts_of(cause))


@dataclass
class RealRun:
    bug: str
    code: int | None
    cause: str | None
    fit: bool
    #: fits, the catalogue's spellings of the same mechanisms counted (`SAME_MECHANISM`)
    same_mechanism: bool
    failing_s: float
    fixed_s: float
    failing_cpu: float
    fixed_cpu: float
    other_causes: str

    @property
    def wall_ratio(self) -> float:
        return self.failing_s / self.fixed_s if self.fixed_s else float("inf")

    @property
    def cpu_ratio(self) -> float:
        return self.failing_cpu / self.fixed_cpu if self.fixed_cpu else float("inf")

    def row(self, kind: str) -> str:
        caught = "timeout" if self.code is None else ("yes" if self.code == 1 else f"no (exit {self.code})")
        cause = f"`{self.cause}`" if self.cause else "-"
        return (f"| {self.bug} | {kind} | {caught} | {cause} | {'yes' if self.fit else 'no'} "
                f"| {'yes' if self.same_mechanism else 'no'} | {self.other_causes} "
                f"| {self.failing_s:.1f} / {self.fixed_s:.1f} = {self.wall_ratio:.2f} "
                f"| {self.failing_cpu:.1f} / {self.fixed_cpu:.1f} = {self.cpu_ratio:.2f} |")


def run_real(only: list[str] | None, examples: int | None, timeout: float, collection: str = "realbleu") -> int:
    bugs = real_bugs(collection)
    spellings = SPELLINGS[collection]
    unknown = [name for name in only or () if name not in bugs]
    if unknown:
        print(f"attribution: unknown real bug(s) {unknown}; known: {', '.join(bugs)}", file=sys.stderr)
        return 2
    python, fake = shlex.quote(sys.executable), shlex.quote(str(FAKES / f"{COLLECTIONS[collection]}.py"))
    print("| bug | kind | caught | main cause | fits | fits, same mechanism | other causes (records) "
          "| wall s failing / fixed | child CPU s failing / fixed |")
    print("|---|---|---|---|---|---|---|---|---|", flush=True)
    runs = []
    with tempfile.TemporaryDirectory() as scratch:
        for index, name in enumerate(only or bugs):
            buggy, clean = f"{python} {fake} {name}", f"{python} {fake} clean"
            code, failing_s, failing_cpu, found = run_check_timed(buggy, Path(scratch) / f"b{index}", examples, timeout)
            _, fixed_s, fixed_cpu, _ = run_check_timed(clean, Path(scratch) / f"f{index}", examples, timeout)
            causes = found["causes"] or []
            cause = main_cause(causes)
            others = ", ".join(f"`{c['name']}` x{c['records']}" for c in causes if c["name"] != cause) or "-"
            run = RealRun(name, code, cause, fits(cause, bugs[name].fits),
                          fits(cause, bugs[name].fits, spellings=True, same_mechanism=spellings), failing_s, fixed_s,
                          failing_cpu,
                          fixed_cpu, others)
            runs.append(run)
            print(run.row(bugs[name].kind), flush=True)
    print()
    print(real_summary(runs))
    return 0


def real_summary(runs: list[RealRun]) -> str:
    caught = sum(r.code == 1 for r in runs)
    fitted = sum(r.fit for r in runs)
    same = sum(r.same_mechanism for r in runs)
    timeouts = sum(r.code is None for r in runs)
    wall = [r.wall_ratio for r in runs]
    cpu = [r.cpu_ratio for r in runs]
    return (f"caught {caught}/{len(runs)}, fits {fitted}/{len(runs)} ({same}/{len(runs)} with the catalogue's "
            f"spellings of the same mechanisms), timeouts {timeouts}; ratio failing/fixed: "
            f"wall median {statistics.median(wall):.2f} max {max(wall):.2f}, child CPU median "
            f"{statistics.median(cpu):.2f} max {max(cpu):.2f}") if runs else "no runs"


def _causes(found: dict) -> str:
    causes = found["causes"]
    return ", ".join(f"{c['name']} x{c['records']}" for c in causes) if causes else "(none in footer)"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="three implementations, 40 examples")
    parser.add_argument("--only", nargs="+", metavar="NAME",
                        help="these implementations (mutant_X, planted:BUG, or real:BUG of realbleu.py)")
    parser.add_argument("--examples", type=int, help="random examples per run (default: check's)")
    parser.add_argument("--real", action="store_true", help="the real bugs of tests/fakes/realbleu.py (issue 36)")
    parser.add_argument("--collection", choices=sorted(COLLECTIONS), default="realbleu",
                        help="with --real: the first 30 (realbleu, the default), the held-out bugs (heldout), "
                             "the second held-out set (heldout2) or the third (heldout3)")
    parser.add_argument("--heldout", action="store_true", help="the same as --real --collection heldout (issue 36)")
    parser.add_argument("--timeout", type=float, default=300.0, help="seconds per check run with --real (300)")
    parser.add_argument("--before", type=Path, metavar="TREE",
                        help="also run the oracle of this checkout (an earlier commit), alternating with this one")
    args = parser.parse_args(argv)
    if args.heldout:
        return run_real(args.only, args.examples, args.timeout, "heldout")
    if args.real:
        return run_real(args.only, args.examples, args.timeout, args.collection)
    names = args.only or (list(QUICK) if args.quick else one_bug_implementations())
    examples = args.examples if args.examples is not None else (40 if args.quick else None)
    trees = [("before", args.before.resolve()), ("after", ROOT)] if args.before else [("", ROOT)]
    label = "implementation" + (" (tree)" if args.before else "")
    print(f"{label:<48} {'exit':>4} {'failing s':>9} {'fixed s':>8} {'ratio':>6} {'CPU s failing / fixed = ratio':>30}"
          "  causes (run) | names (records)")
    ratios: dict[str, list[float]] = {tag: [] for tag, _ in trees}
    warmed = set()
    with tempfile.TemporaryDirectory() as scratch:
        for index, name in enumerate(names):
            buggy, fixed = command_of(name)
            runs = {}
            for tag, tree in trees:
                if args.before and (tag, fixed) not in warmed:  # the search cache: its first run fills it
                    run_check(fixed, Path(scratch) / f"w{tag}{index}", examples, tree)
                    warmed.add((tag, fixed))
                # (child CPU: the check and its implementation, steadier than wall time where other work shares the
                # machine)
                code, failing_s, failing_cpu, found = run_check_timed(buggy, Path(scratch) / f"b{tag}{index}",
                                                                      examples, None, tree)
                _, fixed_s, fixed_cpu, _ = run_check_timed(fixed, Path(scratch) / f"f{tag}{index}", examples, None,
                                                           tree)
                ratio = failing_s / fixed_s if fixed_s else float("inf")
                cpu_ratio = failing_cpu / fixed_cpu if fixed_cpu else float("inf")
                cpu = f"{failing_cpu:.1f} / {fixed_cpu:.1f} = {cpu_ratio:.2f}"
                ratios[tag].append(ratio)
                runs[tag] = found
                record_names = ", ".join(f"{n} x{k}" for n, k in found["names"].most_common())
                shown = f"{name} ({tag})" if tag else name
                print(f"{shown:<48} {code:>4} {failing_s:9.1f} {fixed_s:8.1f} {ratio:6.2f} {cpu:>30}  "
                      f"{_causes(found)} | {record_names}", flush=True)
            if args.before:
                same = [c["name"] for c in runs["before"]["causes"] or []] == [
                    c["name"] for c in runs["after"]["causes"] or []]
                print(f"{name}: the run's root causes are {'the same' if same else 'DIFFERENT'} before and after",
                      flush=True)
    for tag, values in ratios.items():
        if values:
            print(f"\n{tag + ': ' if tag else ''}ratio failing/fixed: median {statistics.median(values):.2f}, "
                  f"max {max(values):.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
