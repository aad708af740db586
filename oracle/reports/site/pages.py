"""The report's pages rendered from its data alone, through the jinja2 templates of `templates/`.

Writes README.md (the index), matrix.md (the edge-case matrix), real-data.md (WMT17 newstest2017 en-de, 1 and 4
references), trophies.md (every curated discrepancy), implementations/<name>.md (one discrepancy report per
installed implementation) and index.html (all of it on one self-contained page: inline CSS, inline SVG plots from
`oracle.reports.site.svg`; no script, nothing fetched). Nothing here calls an implementation or the oracle, so
`bleu-oracle report --render-only` regenerates the pages from the committed data; the same data files give
byte-identical pages.
"""

from __future__ import annotations

import html
from pathlib import Path
from typing import Any

import jinja2
from markupsafe import Markup

from oracle.models.history import LibraryHistory
from oracle.reports.history import grid as history_grid
from oracle.reports.staging import write_atomically

from . import svg
from .data import read_data
from .formatting import compact_json, fmt, fmt_delta, fmt_points, md, request_text
from .view import CATEGORIES, CATEGORY_KEYS, DIFFERS_MARK, IMPLEMENTATIONS_DIR, PAGES, ReportView

#: The Markdown pages and their templates (implementations/<name>.md besides).
MARKDOWN_PAGES = (("README.md", "README.md.j2"), ("matrix.md", "matrix.md.j2"), ("real-data.md", "real-data.md.j2"),
                  ("trophies.md", "trophies.md.j2"))


def escape_html(text: Any) -> Markup:
    """HTML-escaped text, spelling `"` and `'` as the pages always have (`&quot;`, `&#x27;`): markupsafe's
    autoescape spells them `&#34;` and `&#39;`, equally safe but other bytes."""
    return Markup(html.escape(str(text), quote=True))


def markdownish(text: Any) -> Markup:
    """Inline `code` and **bold** of our own Markdown strings, as HTML (everything else escaped)."""
    out = []
    for i, part in enumerate(str(text).split("`")):
        if i % 2:
            out.append(f"<code>{escape_html(part)}</code>")
        else:
            bold = str(escape_html(part)).split("**")
            out.append("".join(f"<b>{b}</b>" if j % 2 else b for j, b in enumerate(bold)))
    return Markup("".join(out))


def codes(identifiers: Any) -> str:
    """Markdown code spans, comma-separated."""
    return ", ".join(f"`{identifier}`" for identifier in identifiers)


def environment() -> jinja2.Environment:
    """The templates' environment: autoescape for HTML (Markdown escapes its table cells with `md`), strict
    undefined (a misspelt name is an error, not an empty string)."""
    env = jinja2.Environment(
        loader=jinja2.PackageLoader("oracle.reports.site", "templates"),
        autoescape=jinja2.select_autoescape(enabled_extensions=("html.j2", "svg.j2"), disabled_extensions=("md.j2",)),
        undefined=jinja2.StrictUndefined, trim_blocks=True, lstrip_blocks=True, keep_trailing_newline=False)
    env.filters.update(md=md, fmt=fmt, fmt_points=fmt_points, fmt_delta=fmt_delta, json=compact_json,
                       words=request_text, codes=codes, h=escape_html, markdownish=markdownish)
    env.globals.update(categories=CATEGORY_KEYS, CATEGORIES=CATEGORIES, DIFFERS_MARK=DIFFERS_MARK, svg=svg,
                       histories=(), grid=history_grid)  # (no history: index.html has no section across versions)
    return env


def _write(path: Path, text: str) -> Path:
    return write_atomically(path, text if text.endswith("\n") else text + "\n")


def render(out: Path, *, data_from: Path | None = None, histories: list[LibraryHistory] | None = None) -> list[Path]:
    """Render every page of report directory `out` from `out/data/` (or from `data_from/data/`: the same files,
    named as the user knows them); returns the paths written. `histories` (`bleu-oracle history`'s data) give
    index.html its section across released versions (`history.html.j2`)."""
    out = Path(out)
    view = ReportView(read_data(Path(data_from) if data_from is not None else out))
    env = environment()
    env.globals.update(histories=histories or ())
    written = [_write(out / page, env.get_template(template).render(view=view)) for page, template in MARKDOWN_PAGES]
    pages = out / IMPLEMENTATIONS_DIR  # (a page of an implementation no longer in the data goes when published)
    template = env.get_template("implementation.md.j2")
    for entry in view.installed:
        written.append(_write(pages / f"{entry.name}.md", template.render(view=view, entry=entry)))
    written.append(_write(out / "index.html", env.get_template("index.html.j2").render(view=view)))
    return written


__all__ = ["PAGES", "render"]
