"""Render `reports/` from its data files (`reports/data/`, written by `oracle.reports.site`).

Nothing here calls an implementation or the oracle: every line of every page
is computed from the data files, so `bleu-oracle report --render-only`
regenerates the pages from the committed data alone. Writes:

- ``README.md``: the index (settings, implementations with their status and
  findings, links);
- ``matrix.md``: the edge-case matrix;
- ``real-data.md``: WMT17 newstest2017 en-de, 1 and 4 references;
- ``implementations/<name>.md``: one discrepancy report per installed implementation;
- ``trophies.md``: the trophy case, every curated discrepancy on one page;
- ``index.html``: all of the above on one self-contained page (inline CSS,
  inline SVG plots drawn here; no script, nothing fetched).

Deterministic: the same data files give byte-identical pages.
"""

from __future__ import annotations

import dataclasses
import os
import time
from pathlib import Path

from .html_page import render_html
from .markdown_pages import (
    render_implementation,
    render_matrix,
    render_readme,
    render_real_data,
)
from .view import IMPLEMENTATIONS_DIR, PAGES, Model
from .collect import DATA_DIR, observe, read_data, say, write_data
from oracle.reports.staging import staged, write_atomically
from .trophies import render_trophies

# -- writing ---------------------------------------------------------------------


def _write(path, text):
    return write_atomically(path, text if text.endswith("\n") else text + "\n")


def render(out):
    """Render every page of report directory `out` from `out/data/`; returns the paths written."""
    out = Path(out)
    model = Model(read_data(out))
    written = [
        _write(out / "README.md", render_readme(model)),
        _write(out / "matrix.md", render_matrix(model)),
        _write(out / "real-data.md", render_real_data(model)),
        _write(out / "trophies.md", render_trophies(model)),
    ]
    pages = out / IMPLEMENTATIONS_DIR  # (a page of an implementation no longer in the data goes when published)
    for record in model.installed:
        written.append(_write(pages / f"{record['name']}.md", render_implementation(model, record)))
    written.append(_write(out / "index.html", render_html(model)))
    return written


def run(settings, *, render_only=False):
    """Observe (unless render_only), write the data files, then render from them alone, all in a staging directory
    inside `settings.out` that is published when everything is written: an interrupted or failed report leaves the
    folder as it was. Returns the pages written (their published paths)."""
    out = Path(settings.out)
    with staged(out, force=settings.report_force, publish_on_error=False) as staging:
        if render_only:
            _link_tree(out / DATA_DIR, staging / DATA_DIR)
        else:
            data = observe(dataclasses.replace(settings, out=staging))
            write_data(staging, data)
        say(settings.progress, f"rendering {out} from {out / DATA_DIR}")
        started = time.perf_counter()
        written = render(staging)
        say(settings.progress, f"rendered {len(written)} pages in {time.perf_counter() - started:.1f} s")
    return [out / path.relative_to(staging) for path in written]


def _link_tree(source, target):
    """The files under `source` hard-linked under `target` (the data a re-render keeps: nothing is copied, and the
    published report holds the same files)."""
    if not source.is_dir():
        return
    for path in sorted(source.rglob("*")):
        if path.is_file():
            destination = target / path.relative_to(source)
            destination.parent.mkdir(parents=True, exist_ok=True)
            os.link(path, destination)


__all__ = ["PAGES", "Model", "render", "run"]
