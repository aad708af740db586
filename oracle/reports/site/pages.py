"""The report's pages rendered from its data alone, through the jinja2 templates of `templates/`.

Writes README.md (the index), matrix.md (the edge-case matrix), real-data.md (WMT17 newstest2017 en-de, 1 and 4
references), trophies.md (every curated discrepancy), implementations/<name>.md (one discrepancy report per
installed implementation) and index.html (all of it on one self-contained page: inline CSS, inline SVG plots from
`oracle.reports.site.svg`; no script, nothing fetched), with its detail pages (`oracle.reports.site.detail`):
implementations/<name>.html (every badge, discrepancies, baseline, how to reproduce), cases/<id>.html (every
column's answer to one edge case) and deviations.html (unique to one implementation, or shared). The HTML pages
link HTML pages only (the Markdown pages are for reading the folder on a forge, not from the site). Nothing here
calls an implementation or the oracle, so
`bleu-oracle report --render-only` regenerates the pages from the committed data; the same data files give
byte-identical pages.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import jinja2
from markupsafe import Markup

from oracle.escaping import html_text, markdown_block, markdown_code, shown
from oracle.models.history import LibraryHistory
from oracle.reports.history import grid as history_grid
from oracle.reports.staging import write_atomically

from . import svg
from .data import read_data
from .detail import CASE_HTML, CASES_DIR, DEVIATIONS_PAGE, IMPLEMENTATION_HTML, SiteDetail, page_name
from .formatting import compact_json, fmt, fmt_delta, fmt_points, md, request_text
from .view import CATEGORIES, CATEGORY_KEYS, COUNT_SECTION, DIFFERS_MARK, IMPLEMENTATIONS_DIR, PAGES, ReportView

#: The Markdown pages and their templates (implementations/<name>.md besides).
MARKDOWN_PAGES = (("README.md", "README.md.j2"), ("matrix.md", "matrix.md.j2"), ("real-data.md", "real-data.md.j2"),
                  ("trophies.md", "trophies.md.j2"))


def escape_html(text: Any) -> Markup:
    """HTML-escaped text (`oracle.escaping.html_text`: its controls shown as escapes), spelling `"` and `'` as the
    pages always have (`&quot;`, `&#x27;`): markupsafe's autoescape spells them `&#34;` and `&#39;`, equally safe
    but other bytes."""
    return Markup(html_text(text))


def _finalized(value: Any) -> Any:
    """Every `{{ ... }}` of a template, before autoescape: a text's characters that are not printable shown as
    escapes (`oracle.escaping.shown`; line breaks and tabs kept), whatever filter made it; markup the pages' own
    filters built (escaped already) as it is."""
    return value if isinstance(value, Markup) or not isinstance(value, str) else shown(value, lines=True)


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


def block(text: Any, info: str = "") -> str:
    """A fenced Markdown code block of `text` that nothing inside can close (`oracle.escaping.markdown_block`)."""
    return "\n".join(markdown_block(text, info))


def environment() -> jinja2.Environment:
    """The templates' environment: autoescape for HTML (Markdown escapes its table cells with `md`), strict
    undefined (a misspelt name is an error, not an empty string); every expression's text with its controls shown
    as escapes (`_finalized`)."""
    env = jinja2.Environment(
        loader=jinja2.PackageLoader("oracle.reports.site", "templates"),
        autoescape=jinja2.select_autoescape(enabled_extensions=("html.j2", "svg.j2"), disabled_extensions=("md.j2",)),
        undefined=jinja2.StrictUndefined, trim_blocks=True, lstrip_blocks=True, keep_trailing_newline=False,
        finalize=_finalized)
    env.filters.update(md=md, fmt=fmt, fmt_points=fmt_points, fmt_delta=fmt_delta, json=compact_json,
                       words=request_text, codes=codes, h=escape_html, markdownish=markdownish,
                       code=markdown_code, block=block)
    env.globals.update(categories=CATEGORY_KEYS, CATEGORIES=CATEGORIES, DIFFERS_MARK=DIFFERS_MARK, svg=svg,
                       count_sections=COUNT_SECTION,
                       detail_page=page_name, implementation_html=lambda name: IMPLEMENTATION_HTML.format(name=name),
                       case_html=lambda id: CASE_HTML.format(id=id), deviations_page=DEVIATIONS_PAGE,
                       histories=(), grid=history_grid)  # (no history: index.html has no section across versions)
    return env


def _write(path: Path, text: str) -> Path:
    return write_atomically(path, text if text.endswith("\n") else text + "\n")


#: The project's reviewed baselines, shown on each implementation's page (absent outside a checkout): this file is
#: oracle/reports/site/pages.py.
BASELINES = Path(__file__).resolve().parents[3] / "baselines"


def render(out: Path, *, data_from: Path | None = None, baselines: Path | None = BASELINES,
           histories: list[LibraryHistory] | None = None) -> list[Path]:
    """Render every page of report directory `out` from `out/data/` (or from `data_from/data/`: the same files,
    named as the user knows them) and the reviewed baselines in `baselines`; returns the paths written.
    `histories` (`bleu-oracle history`'s data) give index.html its section across released versions
    (`history.html.j2`)."""
    out = Path(out)
    view = ReportView(read_data(Path(data_from) if data_from is not None else out))
    env = environment()
    env.globals.update(histories=histories or ())
    detail = SiteDetail(view, baselines if baselines is not None and baselines.is_dir() else None)
    written = [_write(out / page, env.get_template(template).render(view=view)) for page, template in MARKDOWN_PAGES]
    pages = out / IMPLEMENTATIONS_DIR  # (a page of an implementation no longer in the data goes when published)
    template = env.get_template("implementation.md.j2")
    for entry in view.installed:
        written.append(_write(pages / f"{entry.name}.md", template.render(view=view, entry=entry)))
    index = env.get_template("index.html.j2").render(view=view, detail=detail)
    written.append(_write(out / "index.html", index))
    return written + _detail_pages(out, env, detail)


def _detail_pages(out: Path, env: jinja2.Environment, detail: SiteDetail) -> list[Path]:
    """implementations/<name>.html, cases/<id>.html and deviations.html (names that cannot be a file get none)."""
    written, view = [], detail.view
    template = env.get_template("implementation.html.j2")
    for entry in view.installed:
        if page_name(entry.name):
            page = out / IMPLEMENTATION_HTML.format(name=entry.name)
            written.append(_write(page, template.render(view=view, detail=detail, entry=entry, up="../")))
    template = env.get_template("case.html.j2")
    for case in view.cases:
        if page_name(case.id):
            page = out / CASE_HTML.format(id=case.id)
            written.append(_write(page, template.render(view=view, detail=detail, case=case, up="../")))
    deviations = env.get_template("deviations.html.j2").render(view=view, detail=detail, up="")
    written.append(_write(out / DEVIATIONS_PAGE, deviations))
    return written


__all__ = ["CASES_DIR", "PAGES", "render"]
