"""Whether two `check` runs wrote the same results.jsonl, line by line, apart from the clock (a change that must not
change any result: fit-cost2, issue 36).

    python benchmarks/same_results.py BEFORE/results.jsonl AFTER/results.jsonl [--alias /tmp/tree-a /work/wt/b ...]

Every line (header, each record, footer) is read as JSON (`oracle.textio.read_lines`) and compared field by field
with the other run's line of the same position, after leaving out what the clock and the machine write: `wall`,
`duration`, `started`, `finished` and the implementation's `stderr` and `handshake_stderr` (a process's own timing
and warnings). Each file's report directory, and each `--alias` pair (the first in BEFORE's strings, the second in
AFTER's: two checkouts' paths, read in the command `settings.command` names), is replaced by the same placeholder in
every string, so that two runs written to two directories from two trees compare equal where nothing else differs.
Prints each line that differs (its position, type and id, and the first field path that differs) and a count; exits 0
where every line is the same, 1 otherwise.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from oracle.textio import read_lines  # noqa: E402

#: The fields the clock and the machine write (left out wherever they occur, at any depth).
CLOCK = frozenset({"wall", "duration", "started", "finished", "stderr", "handshake_stderr"})


def normalised(value: Any, aliases: list[tuple[str, str]]) -> Any:
    """`value` without the `CLOCK` fields, each alias's text replaced by its placeholder in every string."""
    if isinstance(value, dict):
        return {key: normalised(item, aliases) for key, item in value.items() if key not in CLOCK}
    if isinstance(value, list):
        return [normalised(item, aliases) for item in value]
    if isinstance(value, str):
        for text, placeholder in aliases:
            value = value.replace(text, placeholder)
    return value


def first_difference(a: Any, b: Any, path: str = "") -> str | None:
    """The path of the first field where `a` and `b` differ (None where they are equal)."""
    if isinstance(a, dict) and isinstance(b, dict):
        for key in list(a) + [key for key in b if key not in a]:
            if key not in a or key not in b:
                return f"{path}.{key} (only one side)"
            found = first_difference(a[key], b[key], f"{path}.{key}")
            if found:
                return found
        return None
    if isinstance(a, list) and isinstance(b, list):
        if len(a) != len(b):
            return f"{path} (length {len(a)} against {len(b)})"
        for index, (x, y) in enumerate(zip(a, b, strict=True)):
            found = first_difference(x, y, f"{path}[{index}]")
            if found:
                return found
        return None
    return None if a == b else path or "(the line)"


def compare(before: Path, after: Path, aliases: list[tuple[str, str]]) -> tuple[int, list[str]]:
    """The number of lines compared and a description of each that differs."""
    # (longest first, so that a tree's path is replaced before a shorter path inside it)
    sides = []
    for path, index in ((before, 0), (after, 1)):
        texts = [(str(path.resolve().parent), "<report>")]
        texts += [(pair[index], f"<alias {number}>") for number, pair in enumerate(aliases)]
        texts.sort(key=lambda pair: -len(pair[0]))
        sides.append([normalised(json.loads(line), texts) for line in read_lines(path) if line.strip()])
    a, b = sides
    differing = []
    for index, (x, y) in enumerate(zip(a, b, strict=False)):
        where = first_difference(x, y)
        if where:
            differing.append(f"line {index + 1} ({x.get('type')} {x.get('id', '')}): {where}")
    if len(a) != len(b):
        differing.append(f"{len(a)} lines against {len(b)}")
    return max(len(a), len(b)), differing


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("before", type=Path)
    parser.add_argument("after", type=Path)
    parser.add_argument("--alias", nargs=2, action="append", default=[], metavar=("BEFORE_TEXT", "AFTER_TEXT"),
                        help="a text of BEFORE's strings that stands for AFTER's (two trees' paths); repeatable")
    args = parser.parse_args(argv)
    lines, differing = compare(args.before, args.after, [tuple(pair) for pair in args.alias])
    for line in differing:
        print(line)
    print(f"{len(differing)} of {lines} lines differ" if differing else f"all {lines} lines the same")
    return 0 if not differing else 1


if __name__ == "__main__":
    raise SystemExit(main())
