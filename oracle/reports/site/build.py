"""`bleu-oracle report` from start to end: observe every column (`collect`), write the data files (`data`), render
the pages from them alone (`pages`), in a staging directory published when everything is written."""

from __future__ import annotations

import dataclasses
import os
import time
from pathlib import Path

from oracle.reports.history import HISTORY_DIR, read_histories
from oracle.reports.staging import staged

from .collect import Settings, observe, say
from .data import DATA_DIR, write_data
from .pages import render


def run(settings: Settings, *, render_only: bool = False) -> list[Path]:
    """Observe (unless render_only), write the data files, then render from them alone, all in a staging directory
    inside `settings.out` that is published when everything is written: an interrupted or failed report leaves the
    folder as it was. Returns the pages written (their published paths)."""
    out = Path(settings.out)
    with staged(out, force=settings.report_force, publish_on_error=False) as staging:
        if render_only:
            _link_tree(out / DATA_DIR, staging / DATA_DIR)
        else:
            observed = observe(dataclasses.replace(settings, out=staging))
            write_data(staging, observed.run, observed.entries)
        say(settings.progress, f"rendering {out} from {out / DATA_DIR}")
        started = time.perf_counter()
        written = render(staging, data_from=out if render_only else None,  # (render-only: errors name out/data)
                         histories=read_histories(out / HISTORY_DIR) if (out / HISTORY_DIR).is_dir() else None)
        say(settings.progress, f"rendered {len(written)} pages in {time.perf_counter() - started:.1f} s")
    return [out / path.relative_to(staging) for path in written]


def _link_tree(source: Path, target: Path) -> None:
    """The files under `source` hard-linked under `target` (the data a re-render keeps: nothing is copied, and the
    published report holds the same files)."""
    if not source.is_dir():
        return
    for path in sorted(source.rglob("*")):
        if path.is_file():
            destination = target / path.relative_to(source)
            destination.parent.mkdir(parents=True, exist_ok=True)
            os.link(path, destination)


