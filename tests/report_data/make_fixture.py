"""Cut the small report fixture (tests/report_data/data) from the committed reports/data
(tests/reports/test_report_pages.py):

    python tests/report_data/make_fixture.py reports/data tests/report_data/data
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


if __name__ == "__main__":
    main(Path(sys.argv[1]), Path(sys.argv[2]))
