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

import time
from pathlib import Path

from .html_page import render_html
from .markdown_pages import (
    render_implementation,
    render_matrix,
    render_readme,
    render_real_data,
)
from .pagedata import IMPLEMENTATIONS_DIR, PAGES, Model
from .site import DATA_DIR, observe, read_data, say, write_data
from .staging import write_atomically
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
    pages = out / IMPLEMENTATIONS_DIR
    wanted = {f"{r['name']}.md" for r in model.installed}
    if pages.is_dir():
        for stale in sorted(pages.glob("*.md")):  # pages of implementations no longer in the data
            if stale.name not in wanted:
                stale.unlink()
    for record in model.installed:
        written.append(_write(pages / f"{record['name']}.md", render_implementation(model, record)))
    written.append(_write(out / "index.html", render_html(model)))
    return written


def run(settings, *, render_only=False):
    """Observe (unless render_only), write the data files, then render from them alone. Returns the files written."""
    out = Path(settings.out)
    if not render_only:
        data = observe(settings)
        write_data(out, data)
    say(settings.progress, f"rendering {out} from {out / DATA_DIR}")
    started = time.perf_counter()
    written = render(out)
    say(settings.progress, f"rendered {len(written)} pages in {time.perf_counter() - started:.1f} s")
    return written


__all__ = ["PAGES", "Model", "render", "run"]
