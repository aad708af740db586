"""`bleu-oracle report` from start to end: the columns observed (run by the command, `oracle.commands.report_columns`,
into the staging directory), the data files written (`data`), the pages rendered from them alone (`pages`), in a
staging directory published when everything is written. Nothing here runs a column: the report reads."""

from __future__ import annotations

import dataclasses
import os
import time
from collections.abc import Callable
from pathlib import Path

from oracle.reports.history import HISTORY_DIR, read_histories
from oracle.reports.staging import SITE_ENTRIES, staged

from .collect import Observed, Settings, say
from .data import DATA_DIR, write_data
from .pages import render


def run(settings: Settings, *, observe: Callable[[Settings], Observed] | None = None) -> list[Path]:
    """Observe (`observe`, the command's column runner, writing each column's stream under the settings' `out`:
    the staging directory; None: render only, from the data the report has), write the data files, then render
    from them alone, all in a staging directory inside `settings.out` that is published when everything is
    written: an interrupted or failed report leaves the folder as it was. Returns the pages written (their
    published paths)."""
    out = Path(settings.out)
    render_only = observe is None
    with staged(out, force=settings.report_force, publish_on_error=False, writes=SITE_ENTRIES) as staging:
        if observe is None:
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


