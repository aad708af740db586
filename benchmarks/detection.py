"""Detection by example index: which random example first catches each one-bug implementation.

    .venv/bin/python benchmarks/detection.py                    # every one-bug fake, series lengths 36 24 12 6 2 0
    .venv/bin/python benchmarks/detection.py --quick            # two of them, 20 examples, lengths 36 and 0
    .venv/bin/python benchmarks/detection.py --only planted:memo-ignores-weights --series-lengths 36 6 0

Each implementation is a deliberately wrong fake with exactly one bug (tests/fakes/mutant_*.py, and the planted
bugs of tests/fakes/plantedbleu.py named `planted:BUG`). For each, `bleu-oracle check --command ...`:

- once with the documented cases alone (`--examples 0`): whether the cases catch it;
- once per series length (`--no-cases --series-length L`, the default seed and number of examples, `--jobs 1`,
  `--shrink-budget 0`): the index I of the first random example whose record (`random-S-I`, or a companion of it,
  `random-S-I~text`, `~refused`, `~series`, `~stateful`, a metamorphic `~RELATION`) fails, and which of them
  failed at I. The records of `--jobs 1` are written in example order, so the first failing record in
  results.jsonl has the smallest index; a run is stopped once a record of a later example is written (nothing
  before the first failure depends on what comes after it, shrinking included, which is why it is switched off);
- and, for what a series length costs, the clean control (`plantedbleu.py clean`) once per length, the whole run:
  the inputs it judged and the series requests among them (its footer's coverage).

The figures are indices and yes/no, never seconds: they do not depend on the machine's load. The bugs of
STRICT_ONLY score an input the documents leave undefined with a convention's value (`acceptable` by default,
PROTOCOL.md), so they are run with `--strict`, as tests/end_to_end/test_planted.py runs them. The search cache is a
private directory of the run (or off, `--no-search-cache`). Nothing here asserts: the table is for people (README,
"Detection by example index").
"""

from __future__ import annotations

import argparse
import contextlib
import json
import math
import os
import re
import shlex
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
FAKES = ROOT / "tests" / "fakes"
sys.path.insert(0, str(ROOT))

from oracle.harness.generate import DEFAULT_SERIES_LENGTH  # noqa: E402
from oracle.harness.session import DEFAULT_EXAMPLES  # noqa: E402
from oracle.models.outcomes import GOOD_OUTCOMES  # noqa: E402
from oracle.reports.staging import STAGING_PREFIX  # noqa: E402

QUICK = ("planted:clip-lt", "planted:memo-ignores-weights")
#: Series lengths measured by default: the default, and shorter ones down to none. A series step changes one part
#: of its base input from step 4 on (references; weights from 6, lowercase from 10, level and smoothing after).
SERIES_LENGTHS = (DEFAULT_SERIES_LENGTH, 24, 12, 6, 2, 0)
#: Planted bugs caught only under --strict (tests/end_to_end/test_planted.py, STRICT_ONLY).
STRICT_ONLY = ("empty-corpus-accepted", "zero-weights-accepted")
GOOD = frozenset(str(outcome) for outcome in GOOD_OUTCOMES)
RANDOM_ID = re.compile(r"random-\d+-(\d+)(?:~(.+))?$")


def command_of(name: str) -> str:
    """The command that starts the one-bug implementation NAME (mutant_X, or planted:BUG)."""
    python = shlex.quote(sys.executable)
    if name.startswith("planted:"):
        return f"{python} {shlex.quote(str(FAKES / 'plantedbleu.py'))} {name.split(':', 1)[1]}"
    return f"{python} {shlex.quote(str(FAKES / (name + '.py')))}"


def one_bug_implementations() -> list[str]:
    sys.path.insert(0, str(FAKES))
    from plantedbleu import BUGS  # noqa: PLC0415 - the fakes are not a package

    mutants = sorted(p.stem for p in FAKES.glob("mutant_*.py"))
    return mutants + [f"planted:{bug}" for bug in sorted(BUGS)]


def records_of(lines: list[bytes], kind: str = "record") -> list[dict]:
    """The entries of this type among complete results.jsonl lines (records, or the footer)."""
    return [entry for entry in (json.loads(line) for line in lines if line.strip()) if entry.get("type") == kind]


def example_index(record: dict) -> tuple[int, str] | None:
    """(example index, companion) of a random example's record: companion "example" for the example itself, else
    its id's suffix (text, refused, series, stateful, or a metamorphic relation's name); None for a case."""
    found = RANDOM_ID.match(record.get("id", ""))
    if found is None:
        return None
    return int(found.group(1)), found.group(2) or "example"


def is_failing(record: dict) -> bool:
    return record.get("outcome") not in GOOD


def first_failure(records: list[dict]) -> tuple[int, list[str], str] | None:
    """(index, the companions failing at that index in the order written, the first one's outcome) of the first
    failing random record; None when none fails."""
    first = None
    for record in records:
        place = example_index(record)
        if place is None or not is_failing(record):
            continue
        index, companion = place
        if first is None:
            first = (index, [companion], record["outcome"])
        elif index == first[0]:
            first[1].append(companion)
    return first


def _passed_first_failure(lines: list[bytes]) -> bool:
    """Whether these records hold a failing random record and a record of a later example after it."""
    failing_at = None
    for record in records_of(lines):
        place = example_index(record)
        if place is None:
            continue
        if failing_at is not None and place[0] > failing_at:
            return True
        if failing_at is None and is_failing(record):
            failing_at = place[0]
    return False


def run_check(name: str, report: Path, extra: list[str], env: dict[str, str], *, stop_early: bool,
              poll: float = 0.05) -> tuple[int, list[dict], dict]:
    """`check --command NAME ... --report REPORT EXTRA`: (exit code, its records, its footer). With stop_early,
    the run is ended (SIGTERM: it publishes what it wrote) once a record of a later example follows the first
    failing one."""
    strict = ["--strict"] if name.split(":", 1)[-1] in STRICT_ONLY else []
    argv = [sys.executable, "-m", "oracle", "check", "--command", command_of(name), "--report", str(report),
            "--quiet", "--allow-empty", "--jobs", "1", "--shrink-budget", "0", *strict, *extra]
    process = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, cwd=ROOT, env=env)
    staged, seen = None, b""
    while stop_early and process.poll() is None:
        # the run writes into a staging directory inside the report directory, published when it ends
        staged = staged or next(report.glob(f"{STAGING_PREFIX}*/results.jsonl"), None)
        if staged is not None:
            with contextlib.suppress(OSError):  # (published meanwhile)
                data = staged.read_bytes()
                seen = data[:data.rfind(b"\n") + 1]
        if _passed_first_failure(seen.splitlines()):
            process.terminate()
            break
        time.sleep(poll)
    code = process.wait()
    published = report / "results.jsonl"
    lines = published.read_bytes().splitlines() if published.exists() else seen.splitlines()
    return code, records_of(lines), next(iter(records_of(lines, "footer")), {})


def measure(name: str, series_lengths: list[int], examples: int | None, scratch: Path, env: dict[str, str],
            cache: list[str]) -> dict:
    """One implementation's row: whether the cases alone catch it, and per series length its first index."""
    code, records, _ = run_check(name, scratch / "cases", ["--examples", "0", *cache], env, stop_early=False)
    cases_failing = sum(1 for record in records if is_failing(record))
    row: dict = {"implementation": name, "cases_exit": code, "cases_failing": cases_failing, "series": {}}
    for length in series_lengths:
        extra = ["--no-cases", "--series-length", str(length), *cache]
        if examples is not None:
            extra += ["--examples", str(examples)]
        code, records, _ = run_check(name, scratch / f"series-{length}", extra, env, stop_early=True)
        found = first_failure(records)
        row["series"][str(length)] = {
            "exit": code,
            "first_index": found[0] if found else None,
            "companions": found[1] if found else [],
            "outcome": found[2] if found else None,
        }
    return row


def clean_cost(series_lengths: list[int], examples: int | None, scratch: Path, env: dict[str, str],
               cache: list[str]) -> dict[str, dict]:
    """What each series length costs, counted in a whole run of the clean control (`plantedbleu.py clean`): the
    inputs it judged and the series requests among them (the footer's coverage)."""
    cost = {}
    for length in series_lengths:
        extra = ["--no-cases", "--series-length", str(length), *cache]
        if examples is not None:
            extra += ["--examples", str(examples)]
        code, _, footer = run_check("planted:clean", scratch / f"clean-{length}", extra, env, stop_early=False)
        coverage = footer.get("coverage") or {}
        cost[str(length)] = {"exit": code, "inputs": coverage.get("inputs"),
                             "series_requests": (coverage.get("features") or {}).get("series-request", 0)}
    return cost


def cell(result: dict) -> str:
    if result["first_index"] is None:
        return "**missed**"
    return str(result["first_index"])


def median_index(results: list[dict]) -> float:
    """The median first index, a miss counting as beyond every index (inf)."""
    return statistics.median(math.inf if r["first_index"] is None else r["first_index"] for r in results)


def markdown(rows: list[dict], series_lengths: list[int], examples: int, cost: dict[str, dict]) -> str:
    """The table: per implementation, cases caught, the first index per series length, what caught it first."""
    head = ["implementation", "cases"] + [f"L={length}" for length in series_lengths]
    head.append(f"first caught by (L={series_lengths[0]})")
    lines = ["| " + " | ".join(head) + " |", "|" + " --- |" * len(head)]
    for row in rows:
        first = row["series"][str(series_lengths[0])]
        cells = [row["implementation"], f"yes ({row['cases_failing']})" if row["cases_failing"] else "no"]
        cells += [cell(row["series"][str(length)]) for length in series_lengths]
        cells.append(", ".join(dict.fromkeys(first["companions"])) + (f" ({first['outcome']})" if first["outcome"]
                                                                      not in (None, "fail") else "") or "-")
        lines.append("| " + " | ".join(cells) + " |")
    caught = [sum(1 for row in rows if row["series"][str(length)]["first_index"] is not None)
              for length in series_lengths]
    medians = [median_index([row["series"][str(length)] for row in rows]) for length in series_lengths]
    maxima = [max((row["series"][str(length)]["first_index"] or 0 for row in rows), default=0)
              for length in series_lengths]
    cases_caught = sum(1 for row in rows if row["cases_failing"])
    lines.append("| **caught** | " + f"{cases_caught} of {len(rows)} | "
                 + " | ".join(f"{k} of {len(rows)}" for k in caught) + " | |")
    lines.append("| **median first index** | | " + " | ".join(
        f"> {examples}" if math.isinf(m) else f"{m:g}" for m in medians) + " | |")
    lines.append("| **max first index (caught)** | | " + " | ".join(str(m) for m in maxima) + " | |")
    lines.append("| **inputs judged, clean run (series requests)** | | " + " | ".join(
        f"{cost[str(length)]['inputs']} ({cost[str(length)]['series_requests']})" for length in series_lengths)
        + " | |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="two implementations, 20 examples, series lengths "
                        f"{DEFAULT_SERIES_LENGTH} and 0")
    parser.add_argument("--only", nargs="+", metavar="NAME", help="these implementations (mutant_X or planted:BUG)")
    parser.add_argument("--examples", type=int, help="random examples per run (default: check's)")
    parser.add_argument("--series-lengths", type=int, nargs="+", metavar="L",
                        help="series lengths to measure, the first one's companions shown (default: "
                             f"{' '.join(map(str, SERIES_LENGTHS))})")
    parser.add_argument("--no-search-cache", action="store_true",
                        help="pass --no-search-cache (default: a private search cache for this run)")
    parser.add_argument("--json", metavar="FILE", help="also write the rows as JSON")
    args = parser.parse_args(argv)
    names = args.only or (list(QUICK) if args.quick else one_bug_implementations())
    examples = args.examples if args.examples is not None else (20 if args.quick else None)
    lengths = args.series_lengths or ([DEFAULT_SERIES_LENGTH, 0] if args.quick else list(SERIES_LENGTHS))
    rows: list[dict] = []
    with tempfile.TemporaryDirectory() as scratch:
        env = {**os.environ, "BLEU_ORACLE_SEARCH_CACHE": str(Path(scratch) / "search-cache"),
               "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))}
        cache = ["--no-search-cache"] if args.no_search_cache else []
        for number, name in enumerate(names):
            row = measure(name, lengths, examples, Path(scratch) / f"run{number}", env, cache)
            rows.append(row)
            print(f"{name:<40} cases {row['cases_failing']:>3} failing; first index per series length: "
                  + ", ".join(f"{length}: {cell(row['series'][str(length)])}" for length in lengths),
                  file=sys.stderr, flush=True)
        cost = clean_cost(lengths, examples, Path(scratch) / "clean", env, cache)
    print(markdown(rows, lengths, examples if examples is not None else DEFAULT_EXAMPLES, cost))
    if args.json:
        Path(args.json).write_text(json.dumps({"implementations": rows, "clean_cost": cost}, indent=2) + "\n",
                                   encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
