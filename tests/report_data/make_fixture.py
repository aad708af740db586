"""Cut the small report fixture (tests/report_data/data) from the committed reports/data
(tests/reports/test_report_pages.py):

    python tests/report_data/make_fixture.py reports/data tests/report_data/data

The fixture was cut before the random inputs brought companions along; some of the records they bring (ids
`random-S-I~KIND`) were added to it later, copied line for line from the committed reports/data of 3494b87, with

    python tests/report_data/make_fixture.py --add-companions reports/data tests/report_data/data

(`COMPANIONS_KEPT`: each kept column's records of those kinds, before its stream's footer).
"""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path
from typing import Any

#: The implementations kept installed (the others become "not selected"), and the WMT17 systems kept.
KEEP = {"nltk", "sacrebleu", "ignite-micro", "fast-bleu", "keras-hub", "torchmetrics"}
SYSTEMS = {"C-3MA.4959", "FBK.4870", "KIT.4950"}
#: The records brought along that the fixture holds (tests/reports/test_site_companions.py counts them by hand):
#: column -> {kind: the examples (indices) whose record of that kind is kept; None: every one}.
COMPANIONS_KEPT: dict[str, dict[str, range | None]] = {
    "nltk": {"line-ends": None, "refused": None, "series": range(30)},
    "sacrebleu": {"line-ends": None, "refused": None},
}


def _kept_example(record: dict[str, Any], line: str) -> bool:
    """The first 30 random inputs (but the largest), and every one no curated class explains (the pages group
    them)."""
    cause = record.get("classification") or {}
    unexplained = record["outcome"] != "pass" and not cause.get("documented")
    return len(line) <= 6000 and (int(record["id"].rsplit("-", 1)[1]) < 30 or unexplained)


def main(source: Path, target: Path) -> None:
    """Write the fixture's data files under `target` from the report data under `source`."""
    if target.exists():
        shutil.rmtree(target)
    (target / "runs").mkdir(parents=True)
    shutil.copy(source / "run.json", target / "run.json")
    with open(source / "implementations.jsonl") as src, open(target / "implementations.jsonl", "w") as dst:
        for line in src:
            record = json.loads(line)
            if record["type"] == "implementation" and record["name"] not in KEEP:
                record = {"type": "implementation", "name": record["name"], "adapter": record["adapter"],
                          "status": "not-selected", "reason": "not selected (--impl)"}
                line = json.dumps(record, sort_keys=True, ensure_ascii=False) + "\n"
            dst.write(line)
    for run in sorted((source / "runs").iterdir()):
        if not (run.name.startswith("oracle-") or run.name in KEEP):
            continue
        (target / "runs" / run.name).mkdir()
        with open(run / "results.jsonl") as src, open(target / "runs" / run.name / "results.jsonl", "w") as dst:
            for line in src:
                record = json.loads(line)
                if record["type"] == "record":
                    if record["kind"] == "metamorphic":
                        continue
                    if record["kind"] == "example" and not _kept_example(record, line):
                        continue
                    if record["kind"] == "real-data" and record["id"].split("/")[1] not in SYSTEMS:
                        continue
                dst.write(line)


def _kept_companion(column: str, record_id: str) -> bool:
    base, _, kind = record_id.partition("~")
    kinds = COMPANIONS_KEPT.get(column, {})
    if not kind or kind not in kinds:
        return False
    indices = kinds[kind]
    return indices is None or int(base.rsplit("-", 1)[1]) in indices


def add_companions(source: Path, target: Path) -> None:
    """Copy each kept column's companion records (`COMPANIONS_KEPT`) from the report data under `source` into the
    fixture's streams under `target`, line for line, before the footer (a second run adds nothing)."""
    for column in sorted(COMPANIONS_KEPT):
        with open(source / "runs" / column / "results.jsonl", encoding="utf-8", newline="") as src:
            # (records hold raw line ends, U+2028 among them: split at LF only, as oracle.textio.read_lines does)
            kept = [line for line in src.read().split("\n")
                    if line and _kept_companion(column, json.loads(line).get("id", ""))]
        path = target / "runs" / column / "results.jsonl"
        lines = path.read_text(encoding="utf-8").split("\n")
        if lines[-1] == "":
            lines.pop()
        held = {json.loads(line).get("id") for line in lines}
        kept = [line for line in kept if json.loads(line)["id"] not in held]
        footer = lines.pop() if json.loads(lines[-1])["type"] == "footer" else None
        path.write_text("\n".join([*lines, *kept, *([footer] if footer else [])]) + "\n", encoding="utf-8")


if __name__ == "__main__":
    if sys.argv[1] == "--add-companions":
        add_companions(Path(sys.argv[2]), Path(sys.argv[3]))
    else:
        main(Path(sys.argv[1]), Path(sys.argv[2]))
