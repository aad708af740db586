"""The report's single HTML page: the same findings on one self-contained page, with inline CSS and SVG
plots drawn here (no script, nothing fetched), byte-reproducible for the same data."""

from __future__ import annotations

import math

from oracle.models.outcomes import parse_number as number

from .markdown_pages import (
    _causes_text,
    _matrix_cell_md,
    _observed_text,
    _real_cell_md,
    _real_columns,
    _settings_lines,
    real_summary,
)
from .view import (
    CATEGORIES,
    CATEGORY_COLOUR,
    CATEGORY_LABEL,
    DIFFERS_MARK,
    MARKERS,
    PALETTE,
    SHORT,
    compact_json,
    esc,
    fmt,
    fmt_delta,
    fmt_points,
    request_text,
)
from .trophies import trophy_rows


def _f(x):
    return f"{x:.1f}"


def _jitter(key, spread):
    """A deterministic offset in [-spread/2, spread/2] from an integer key."""
    return ((key * 7919 + 104729) % 1000 / 999 - 0.5) * spread


def _marker(shape, x, y, colour, title, size=3.5, opacity=0.85, *, grouped=False):
    """One marker; `grouped`: opacity and stroke come from an enclosing <g> (smaller files)."""
    tip = f"<title>{esc(title)}</title>" if title else ""
    common = f'fill="{colour}"' if grouped else \
        f'fill="{colour}" fill-opacity="{opacity}" stroke="#222" stroke-width="0.4"'
    if shape == "square":
        return f'<rect x="{_f(x - size)}" y="{_f(y - size)}" width="{_f(2 * size)}" height="{_f(2 * size)}" {common}>{tip}</rect>'
    if shape == "diamond":
        points = f"{_f(x)},{_f(y - size * 1.3)} {_f(x + size * 1.3)},{_f(y)} {_f(x)},{_f(y + size * 1.3)} {_f(x - size * 1.3)},{_f(y)}"
        return f'<polygon points="{points}" {common}>{tip}</polygon>'
    if shape == "triangle":
        points = f"{_f(x)},{_f(y - size * 1.3)} {_f(x + size * 1.2)},{_f(y + size)} {_f(x - size * 1.2)},{_f(y + size)}"
        return f'<polygon points="{points}" {common}>{tip}</polygon>'
    if not tip:
        return f'<circle cx="{_f(x)}" cy="{_f(y)}" r="{_f(size)}" {common}/>'
    return f'<circle cx="{_f(x)}" cy="{_f(y)}" r="{_f(size)}" {common}>{tip}</circle>'


#: The layers of the sufficient statistics (and the tokens they count): a divergence there can leave the score equal.
STATISTICS_LAYERS = ("hyp_len", "ref_len", "matches", "totals", "bp", "tokenization")
#: The log10 range of the random-search deviation plot (0-1 scale) and of the real-data one (BLEU points).
LOG_RANGE = (-17, 1)
REAL_LOG_RANGE = (-15, 2)


def _log_axis(parts, x0, x1, top, bottom, ticks, label, log_range):
    low, high = log_range

    def xpos(exponent):
        return x0 + (min(max(exponent, low), high) - low) / (high - low) * (x1 - x0)

    for exponent in ticks:
        x = xpos(exponent)
        parts.append(f'<line x1="{_f(x)}" y1="{top}" x2="{_f(x)}" y2="{bottom}" stroke="#ddd"/>')
        text = "1" if exponent == 0 else ("10" if exponent == 1 else f"1e{exponent}")
        parts.append(f'<text x="{_f(x)}" y="{bottom + 14}" text-anchor="middle" class="tick">{text}</text>')
    parts.append(f'<text x="{_f((x0 + x1) / 2)}" y="{bottom + 30}" text-anchor="middle" class="axis">{esc(label)}</text>')
    return xpos


def deviation_plot(model):
    """Each implementation's random inputs: |answer − oracle| on a log scale, agreeing inputs and
    refusals in bands of their own. One row per implementation."""
    names = [r["name"] for r in model.installed if model.search.get(r["name"])]
    if not names:
        return ""
    row_h, left, width = 34, 150, 1100
    band_agree = (left, left + 70)
    x0, x1 = left + 95, width - 360
    band_statistics = (x1 + 15, x1 + 60)  # the score agrees, a statistic (c, r, matches, totals) does not
    band_nan = (x1 + 75, x1 + 120)
    band_refused = (x1 + 135, x1 + 190)
    top = 40
    height = top + row_h * len(names) + 60
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" viewBox="0 0 {width} {height}" '
             'role="img" aria-label="deviation from the oracle across the random inputs">']
    parts.append(f'<text x="{left}" y="16" class="title">Deviation from the oracle on {model.run.get("examples")} random '
                 f'inputs (seed {model.run.get("seed")}), under each implementation\'s declared profile</text>')
    bottom = top + row_h * len(names)
    for (a, b), label in ((band_agree, "agrees"), (band_statistics, "stats≠"), (band_nan, "NaN≠"),
                          (band_refused, "refused")):
        parts.append(f'<rect x="{a}" y="{top}" width="{b - a}" height="{bottom - top}" fill="#f4f4f4"/>')
        parts.append(f'<text x="{_f((a + b) / 2)}" y="{bottom + 14}" text-anchor="middle" class="tick">{label}</text>')
    xpos = _log_axis(parts, x0, x1, top, bottom, range(LOG_RANGE[0] + 1, LOG_RANGE[1] + 1, 2),
                     "|answer − oracle| (0–1 scale, log)", LOG_RANGE)
    # legend
    lx = 20
    for key in ("agrees", "documented", "undocumented", "refused", "unsupported"):
        parts.append(f'<circle cx="{lx + 5}" cy="28" r="4" fill="{CATEGORY_COLOUR[key]}"/>')
        parts.append(f'<text x="{lx + 13}" y="32" class="tick">{esc(CATEGORY_LABEL[key])}</text>')
        lx += 13 + 6 * len(CATEGORY_LABEL[key]) + 22
    for row, name in enumerate(names):
        y_mid = top + row_h * row + row_h / 2
        if row % 2:
            parts.append(f'<rect x="0" y="{top + row_h * row}" width="{left - 5}" height="{row_h}" fill="#fafafa"/>')
        parts.append(f'<line x1="{left}" y1="{top + row_h * (row + 1)}" x2="{width - 5}" y2="{top + row_h * (row + 1)}" stroke="#eee"/>')
        parts.append(f'<text x="{left - 8}" y="{_f(y_mid + 4)}" text-anchor="end" class="label">{esc(model.column_label(name))}</text>')
        records, counts = model.search_summary(name)
        parts.append('<g fill-opacity="0.6" stroke="#222" stroke-width="0.4">')
        for record in records:
            category = model.category(record)
            index = int(record.get("index", 0))
            y = y_mid + _jitter(index, row_h * 0.7)
            score, expected = number(record.get("score")), number(record.get("expected"))
            if category == "agrees":
                x = (band_agree[0] + band_agree[1]) / 2 + _jitter(index * 31 + 7, band_agree[1] - band_agree[0] - 10)
            elif category in ("refused", "unsupported") or score is None or expected is None:
                x = (band_refused[0] + band_refused[1]) / 2 + _jitter(index * 31 + 7, band_refused[1] - band_refused[0] - 10)
            elif math.isnan(score) or math.isnan(expected) or math.isinf(score) or math.isinf(expected):
                x = (band_nan[0] + band_nan[1]) / 2 + _jitter(index * 31 + 7, band_nan[1] - band_nan[0] - 10)
            elif record.get("layer") in STATISTICS_LAYERS and abs(score - expected) < 10.0 ** LOG_RANGE[0]:
                # the score agrees, a statistic does not: drawn at the axis' floor it would look like rounding
                x = (band_statistics[0] + band_statistics[1]) / 2 + _jitter(index * 31 + 7, band_statistics[1] - band_statistics[0] - 10)
            else:
                delta = abs(score - expected)
                x = xpos(math.log10(delta) if delta > 0 else LOG_RANGE[0])
            layer = f" (first divergence: {record['layer']})" if record.get("layer") else ""
            title = "" if category == "agrees" else \
                f"{record.get('id')}: {record.get('classification')}; {fmt(record.get('score'))} vs {fmt(record.get('expected'))}{layer}"
            parts.append(_marker("circle", x, y, CATEGORY_COLOUR[category], title, size=2.6, grouped=True))
        parts.append("</g>")
        summary = " · ".join(f"{counts.get(k, 0)} {SHORT[k]}" for k in SHORT if counts.get(k))
        parts.append(f'<text x="{band_refused[1] + 8}" y="{_f(y_mid + 4)}" class="tick">{esc(summary)}</text>')
    parts.append("</svg>")
    return "\n".join(parts)


def real_scores_plot(model, references):
    """BLEU × 100 per system (sorted by the oracle's papineni score), one marker per implementation."""
    table, columns = model.real_table(references)
    systems = [s for s in model.real_systems() if s in table]
    if not systems:
        return ""
    reference_column = "oracle/papineni" if "oracle/papineni" in columns else columns[0]
    systems.sort(key=lambda s: (number((table[s].get(reference_column) or {}).get("score")) or 0, s))
    implementations = [c for c in columns if not c.startswith("oracle/")]
    values = [100 * number(r["score"]) for s in systems for r in table[s].values()
              if r.get("outcome") == "score" and number(r.get("score")) is not None and math.isfinite(number(r["score"]))]
    if not values:
        return ""
    low, high = math.floor(min(values) / 5) * 5, math.ceil(max(values) / 5) * 5
    if high == low:
        high = low + 5
    width, left, right, top = 1060, 60, 200, 30
    plot_h = 280
    height = top + plot_h + 120
    x_step = (width - left - right) / max(len(systems), 1)

    def xpos(i):
        return left + x_step * (i + 0.5)

    def ypos(v):
        return top + plot_h - (v - low) / (high - low) * plot_h

    label = "1 reference" if references == 1 else f"{references} references"
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" viewBox="0 0 {width} {height}" '
             f'role="img" aria-label="real-data scores, {label}">',
             f'<text x="{left}" y="16" class="title">WMT17 newstest2017 en-de, {label}: BLEU × 100 per system '
             f'(sorted by the oracle, papineni)</text>']
    step = 5 if high - low <= 40 else 10
    for tick in range(int(low), int(high) + 1, step):
        y = ypos(tick)
        parts.append(f'<line x1="{left}" y1="{_f(y)}" x2="{width - right}" y2="{_f(y)}" stroke="#e4e4e4"/>')
        parts.append(f'<text x="{left - 6}" y="{_f(y + 4)}" text-anchor="end" class="tick">{tick}</text>')
    points = " ".join(f"{_f(xpos(i))},{_f(ypos(100 * number(table[s][reference_column]['score'])))}"
                      for i, s in enumerate(systems) if number((table[s].get(reference_column) or {}).get("score")) is not None)
    parts.append(f'<polyline points="{points}" fill="none" stroke="#222" stroke-width="1.2"/>')
    for i, system in enumerate(systems):
        x = xpos(i)
        parts.append(f'<text x="{_f(x)}" y="{top + plot_h + 12}" text-anchor="end" class="tick" '
                     f'transform="rotate(-40 {_f(x)} {top + plot_h + 12})">{esc(system)}</text>')
        offset = -((len(implementations) - 1) / 2) * 3.0
        for k, column in enumerate(implementations):
            record = table[system].get(column)
            if not record or record.get("outcome") != "score" or number(record.get("score")) is None:
                continue
            value = 100 * number(record["score"])
            title = f"{column} on {system}, {label}: {fmt_points(record['score'])} (Δ {fmt_delta(record.get('difference'))} points)"
            parts.append(_marker(MARKERS[k % len(MARKERS)], x + offset + 3.0 * k, ypos(value), PALETTE[k % len(PALETTE)], title, size=3.2))
    # legend
    ly = top + 6
    parts.append(f'<line x1="{width - right + 15}" y1="{ly}" x2="{width - right + 35}" y2="{ly}" stroke="#222" stroke-width="1.2"/>')
    parts.append(f'<text x="{width - right + 40}" y="{ly + 4}" class="tick">oracle (papineni)</text>')
    for k, column in enumerate(implementations):
        ly += 17
        scored = any((table[s].get(column) or {}).get("outcome") == "score" for s in systems)
        parts.append(_marker(MARKERS[k % len(MARKERS)], width - right + 25, ly, PALETTE[k % len(PALETTE)], column, size=3.5))
        parts.append(f'<text x="{width - right + 40}" y="{ly + 4}" class="tick">{esc(column)}{"" if scored else " (n/a)"}</text>')
    parts.append(f'<text x="18" y="{top + plot_h / 2}" class="axis" transform="rotate(-90 18 {top + plot_h / 2})" '
                 'text-anchor="middle">BLEU × 100</text>')
    parts.append("</svg>")
    return "\n".join(parts)


def real_deviation_plot(model):
    """|implementation − oracle| in BLEU points per system, 1 and 4 references, log scale."""
    if not model.real:
        return ""
    settings = sorted({r["references"] for r in model.real})
    implementations = []
    for record in model.real:
        if record.get("kind") == "implementation" and record["column"] not in implementations:
            implementations.append(record["column"])
    row_h, left, width, top = 30, 200, 1060, 40
    band_equal = (left, left + 70)
    x0, x1 = left + 95, width - 140
    band_na = (x1 + 15, x1 + 75)
    rows = [(c, s) for c in implementations for s in settings]
    height = top + row_h * len(rows) + 60
    bottom = top + row_h * len(rows)
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" viewBox="0 0 {width} {height}" '
             'role="img" aria-label="real-data differences from the oracle">',
             f'<text x="{left}" y="16" class="title">WMT17: |implementation − oracle| per system, in BLEU points '
             "(oracle under the implementation's declared profile)</text>"]
    for (a, b), label in ((band_equal, "= exactly"), (band_na, "n/a")):
        parts.append(f'<rect x="{a}" y="{top}" width="{b - a}" height="{bottom - top}" fill="#f4f4f4"/>')
        parts.append(f'<text x="{_f((a + b) / 2)}" y="{bottom + 14}" text-anchor="middle" class="tick">{label}</text>')
    xpos = _log_axis(parts, x0, x1, top, bottom, range(-14, 3, 2), "|difference| in BLEU points (log)",
                     REAL_LOG_RANGE)
    for row, (column, references) in enumerate(rows):
        y_mid = top + row_h * row + row_h / 2
        k = implementations.index(column)
        colour = PALETTE[k % len(PALETTE)]
        parts.append(f'<line x1="{left}" y1="{top + row_h * (row + 1)}" x2="{band_na[1]}" y2="{top + row_h * (row + 1)}" '
                     f'stroke="{"#ccc" if references == settings[-1] else "#f0f0f0"}"/>')
        name = f"{model.column_label(column)}, {references} ref{'s' if references > 1 else ''}"
        parts.append(f'<text x="{left - 8}" y="{_f(y_mid + 4)}" text-anchor="end" class="label">{esc(name)}</text>')
        records = [r for r in model.real if r["column"] == column and r["references"] == references]
        for i, record in enumerate(records):
            y = y_mid + _jitter(i * 13 + references, row_h * 0.5)
            difference = number(record.get("difference"))
            if record.get("outcome") != "score" or difference is None or not math.isfinite(difference):
                x = (band_na[0] + band_na[1]) / 2 + _jitter(i * 31 + 5, band_na[1] - band_na[0] - 10)
            elif difference == 0:
                x = (band_equal[0] + band_equal[1]) / 2 + _jitter(i * 31 + 5, band_equal[1] - band_equal[0] - 10)
            else:
                x = xpos(math.log10(abs(100 * difference)))
            title = (f"{column} on {record['system']}, {references} ref: {fmt_points(record.get('score'))} vs oracle "
                     f"{fmt_points(record.get('expected'))} (Δ {fmt_delta(record.get('difference'))})"
                     if record.get("outcome") == "score" else f"{column} on {record['system']}: {record.get('outcome')}: {record.get('message')}")
            parts.append(_marker(MARKERS[k % len(MARKERS)], x, y, colour, title, size=3.0, opacity=0.7))
    parts.append("</svg>")
    return "\n".join(parts)


# -- HTML ------------------------------------------------------------------------

CSS = """
body { font-family: -apple-system, "Segoe UI", Helvetica, Arial, sans-serif; margin: 0 auto; max-width: 1400px;
       padding: 0 24px 48px; color: #1d1d1d; line-height: 1.45; font-size: 15px; }
h1 { margin-top: 28px; } h2 { margin-top: 40px; border-bottom: 1px solid #ddd; padding-bottom: 4px; }
h3 { margin-top: 26px; }
nav a { margin-right: 14px; }
table { border-collapse: collapse; margin: 10px 0 18px; font-size: 13px; }
th, td { border: 1px solid #d6d6d6; padding: 3px 7px; vertical-align: top; }
th { background: #f2f2f2; text-align: left; }
td.num { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
.matrix th.col { writing-mode: vertical-rl; transform: rotate(180deg); white-space: nowrap; text-align: left; }
.matrix { font-size: 12px; } .matrix th, .matrix td { padding: 2px 4px; }
.matrix td { text-align: right; white-space: nowrap; font-variant-numeric: tabular-nums; }
.matrix td.case { text-align: left; white-space: normal; min-width: 170px; }
.matrix .why { display: inline-block; white-space: normal; max-width: 96px; font-size: 10.5px; word-break: break-word;
               text-align: left; line-height: 1.2; }
.scroll { overflow-x: auto; }
.c-agrees { background: #e3f4e8; } .c-documented { background: #fbe3c4; } .c-undocumented { background: #f8cfcf; }
.c-refused { background: #e6dbf1; } .c-unsupported { background: #ececec; color: #777; }
.c-oracle { background: #fff; } .c-oracle-differs { background: #e3edf9; }
.legend span { display: inline-block; padding: 1px 8px; margin-right: 6px; border: 1px solid #ccc; font-size: 13px; }
code, pre { font-family: "SFMono-Regular", Menlo, Consolas, monospace; font-size: 12.5px; }
pre { background: #f6f6f6; padding: 8px; overflow-x: auto; white-space: pre-wrap; word-break: break-all; }
details { margin: 8px 0; } summary { cursor: pointer; font-weight: 600; }
svg { display: block; margin: 10px 0 20px; max-width: 100%; height: auto; }
svg .title { font-size: 14px; font-weight: 600; } svg .label { font-size: 12.5px; } svg .tick { font-size: 11px; fill: #444; }
svg .axis { font-size: 12px; fill: #222; }
.muted { color: #666; } .small { font-size: 13px; }
"""


def _html_matrix(model):
    out = ['<div class="scroll"><table class="matrix"><thead><tr><th>edge case</th>']
    for column in model.columns:
        record = model.by_name.get(column, {})
        tip = column if column.startswith("oracle/") else f"{column} {record.get('version', '')}, declared profile {record.get('profile', '')}"
        out.append(f'<th class="col" title="{esc(tip)}">{esc(model.column_label(column))}</th>')
    out.append("</tr></thead><tbody>")
    for case in model.cases:
        out.append(f'<tr><td class="case" title="{esc(case["why"])}: {esc(request_text(case["request"]))}">'
                   f'{esc(case["title"])}<br><code class="muted">{esc(case["id"])}</code></td>')
        papineni = model.cells.get((case["id"], "oracle/papineni"))
        for column in model.columns:
            cell = model.cells.get((case["id"], column))
            if cell is None:
                out.append("<td>—</td>")
                continue
            text = esc(fmt(cell.get("score"), 6) if cell.get("outcome") == "score"
                       else _matrix_cell_md(model, cell).replace(f" {DIFFERS_MARK}", ""))
            if cell.get("kind") == "oracle":
                css = "c-oracle"
                if papineni is not None and (papineni.get("outcome"), fmt(papineni.get("score"), None)) != (cell.get("outcome"), fmt(cell.get("score"), None)):
                    css = "c-oracle-differs"
                tip = f"{column}: {cell.get('score_exact') or cell.get('message') or cell.get('outcome')}"
            else:
                category = model.category(cell)
                css = f"c-{category}"
                expected = cell.get("expected") or {}
                want = "rejects it" if expected.get("rejected") else fmt(expected.get("score"), None)
                tip = (f"{column}: {fmt(cell.get('score'), None) if cell.get('outcome') == 'score' else cell.get('outcome')}"
                       f"; oracle ({cell.get('profile')}): {want}; {cell.get('classification')}")
                if cell.get("documented"):
                    tip += f" [{', '.join(cell['documented'])}]"
                if cell.get("message"):
                    tip += f"; {cell['message']}"
                if category not in ("agrees", "unsupported") and cell.get("classification"):
                    text += f'<br><span class="why">{esc(cell["classification"])}</span>'
            out.append(f'<td class="{css}" title="{esc(tip)}">{text}</td>')
        out.append("</tr>")
    out.append("</tbody></table></div>")
    return "".join(out)


def _html_real_table(model, references):
    table, columns = model.real_table(references)
    columns = _real_columns(model, columns)
    out = ['<table><thead><tr><th>system</th>']
    for column in columns:
        out.append(f"<th>{esc(model.column_label(column))}</th>")
    out.append("</tr></thead><tbody>")
    for system in model.real_systems():
        if system not in table:
            continue
        out.append(f"<tr><td>{esc(system)}</td>")
        for column in columns:
            record = table[system].get(column)
            if record is None:
                out.append("<td>—</td>")
                continue
            if record.get("kind") == "oracle" or record.get("outcome") != "score":
                css = "c-unsupported" if record.get("outcome") != "score" else ""
                out.append(f'<td class="num {css}" title="{esc(record.get("message") or "")}">{esc(_real_cell_md(record))}</td>')
                continue
            css = "c-agrees" if record.get("agrees") else ("c-documented" if abs(number(record.get("difference")) or 0) < 1e-6 else "c-undocumented")
            out.append(f'<td class="num {css}">{esc(fmt_points(record.get("score")))}<br>'
                       f'<span class="small">Δ {esc(fmt_delta(record.get("difference")))}</span></td>')
        out.append("</tr>")
    out.append("</tbody></table>")
    return "".join(out)


def _markdownish(text):
    """Inline `code` and **bold** of our own Markdown strings, as HTML."""
    parts = str(text).split("`")
    out = []
    for i, part in enumerate(parts):
        if i % 2:
            out.append(f"<code>{esc(part)}</code>")
        else:
            bold = esc(part).split("**")
            out.append("".join(f"<b>{b}</b>" if j % 2 else b for j, b in enumerate(bold)))
    return "".join(out)


def render_html(model):
    run = model.run
    out = ["<!DOCTYPE html>", '<html lang="en"><head><meta charset="utf-8">',
           '<meta name="viewport" content="width=device-width, initial-scale=1">',
           "<title>bleu-oracle reports</title>", f"<style>{CSS}</style></head><body>",
           "<h1>bleu-oracle reports</h1>",
           '<nav><a href="#implementations">implementations</a><a href="#search">random search</a>'
           '<a href="#matrix">edge-case matrix</a><a href="#real">real data</a><a href="#trophies">trophy case</a><a href="#details">discrepancy reports</a>'
           '<a href="README.md">Markdown index</a></nav>',
           "<ul>" + "".join(f"<li>{_markdownish(line[2:])}</li>" for line in _settings_lines(model)) + "</ul>"]
    # implementations
    out += ['<h2 id="implementations">Implementations</h2>',
            "<table><thead><tr><th>implementation</th><th>version</th><th>language</th><th>judged against</th>"
            "<th>agree</th><th>curated</th><th>new</th><th>refused</th><th>unsupported</th><th>curated classes (reproduced)</th>"
            "</tr></thead><tbody>"]
    for record in model.registry:
        name = record["name"]
        if record.get("status") != "installed":
            status = {"not-installed": "not installed", "broken": "broken"}.get(record.get("status"))
            reason = f'{esc(status)}: <code>{esc(record.get("reason", ""))}</code>' if status else esc(record.get("reason", ""))
            out.append(f'<tr class="c-unsupported"><td>{esc(name)}</td><td colspan="9">{reason}</td></tr>')
            continue
        _, counts = model.search_summary(name)
        curated = model.curated(name)
        reproduced = sum(1 for _, o in curated if o and o.get("reproduced"))
        cells = "".join(f'<td class="num c-{k}">{counts.get(k, 0)}</td>' for k in ("agrees", "documented", "undocumented", "refused", "unsupported"))
        out.append(f'<tr><td><a href="#impl-{esc(name)}">{esc(name)}</a></td><td>{esc(record.get("version"))}</td>'
                   f'<td>{esc(record.get("language"))}</td><td>{esc(record.get("profile"))}</td>{cells}'
                   f'<td class="num">{len(curated)} ({reproduced})</td></tr>')
    out.append("</tbody></table>")
    # plots
    out += ['<h2 id="search">Random search: deviation from the oracle</h2>',
            f"<p>Each dot is one of the {esc(run.get('examples'))} random inputs of seed {esc(run.get('seed'))} "
            "(hover for its id and values). Left band: within the numeric contract. Orange: a curated class of "
            "discrepancy explains the difference; red: none does.</p>", deviation_plot(model)]
    # matrix
    legend = "".join(f'<span class="c-{k}">{esc(label)}</span>' for k, label, _ in CATEGORIES)
    out += ['<h2 id="matrix">Edge-case matrix</h2>',
            "<p>Rows: edge cases; columns: the oracle under every profile, then every installed implementation. "
            "Implementation cells are coloured by how they compare with the oracle under the implementation's declared "
            "profile (hover for both values and the root cause); oracle cells that differ from the papineni profile are "
            "blue.</p>", f'<p class="legend">{legend}<span class="c-oracle-differs">oracle ≠ papineni</span></p>',
            _html_matrix(model)]
    # real data
    source = model.real_source
    out.append('<h2 id="real">Real data: WMT17 newstest2017 English–German</h2>')
    if not model.real:
        out.append(f"<p>Not run: {esc(source.get('skipped', 'no data'))}.</p>")
    else:
        out.append(f"<p>{len(model.real_systems())} systems, {esc(source.get('segments'))} segments; corpus level, BLEU-4, "
                   f"no smoothing; tokens: {esc(source.get('tokens'))}. 4 references: the official one plus "
                   f"{esc(source.get('extra_reference_rule'))}. Values are BLEU × 100; Δ is the difference from the oracle "
                   "under the implementation's declared profile, in BLEU points.</p>")
        out.append(real_deviation_plot(model))
        for references in (1, 1 + int(source.get("extra_references", 3))):
            title = "1 reference" if references == 1 else f"{references} references"
            out.append(f"<h3>{title}</h3>")
            out.append(real_scores_plot(model, references))
            out.append("<table><thead><tr><th>implementation</th><th>judged against</th><th>systems scored</th>"
                       "<th>within the contract</th><th>max |Δ| (points)</th><th>mean Δ (points)</th><th>root cause</th></tr></thead><tbody>")
            for row in real_summary(model, references):
                biggest = f"{100 * row['max']:.2e}" if row["max"] else ("0" if row["max"] == 0 else "—")
                mean = fmt_delta(row["mean"]) if row["mean"] is not None else "—"
                out.append(f"<tr><td>{esc(model.column_label(row['column']))}</td><td>{esc(row['profile'])}</td>"
                           f'<td class="num">{row["scored"]}/{row["total"]}</td><td class="num">{row["agree"]}</td>'
                           f'<td class="num">{esc(biggest)}</td><td class="num">{esc(mean)}</td>'
                           f'<td class="small">{_markdownish(_causes_text(row)) if row["scored"] else esc(row["reasons"][0] if row["reasons"] else "")}</td></tr>')
            out.append("</tbody></table>")
            out.append(f"<details><summary>Per system, {title}</summary>{_html_real_table(model, references)}</details>")
    # the trophy case
    rows = trophy_rows(model)
    out += ['<h2 id="trophies">Trophy case</h2>',
            f"<p>{len(rows)} curated discrepancies: a library's answer against what its documentation gives, on a "
            '<a href="trophies.md">minimal input</a>, with the upstream status.</p>',
            "<table><thead><tr><th>implementation</th><th>discrepancy</th><th>minimal input</th><th>it answers</th>"
            "<th>documented (profile)</th><th>now</th><th>upstream</th></tr></thead><tbody>"]
    for row in rows:
        out.append(f"<tr><td>{esc(row['implementation'])} {esc(row['version'])}</td><td><code>{esc(row['id'])}</code>"
                   f"<br><span class=\"small\">{esc(row['summary'])}</span></td><td class=\"small\">{esc(row['input'])}</td>"
                   f"<td>{esc(row['observed'])}</td><td>{esc(row['documented'])} ({esc(row['profile'])})</td>"
                   f"<td class=\"small\">{esc(row['now'])}</td><td class=\"small\">{esc(row['upstream'])}</td></tr>")
    out.append("</tbody></table>")
    # per implementation
    out.append('<h2 id="details">Discrepancy reports</h2>')
    for record in model.installed:
        name = record["name"]
        curated = model.curated(name)
        records, counts = model.search_summary(name)
        class_counts = model.class_counts(name)
        profile = next((p for p in model.profiles if p["name"] == record.get("profile")), {})
        out.append(f'<h3 id="impl-{esc(name)}">{esc(name)} {esc(record.get("version"))} '
                   f'<span class="muted small">judged against profile {esc(record.get("profile"))}: '
                   f'{esc(profile.get("summary", ""))} — <a href="{esc(model.implementation_page(name))}">Markdown report</a></span></h3>')
        if not curated:
            out.append("<p>No curated classes.</p>")
        for entry, observed in curated:
            example = entry.get("example") or {}
            root = entry.get("root_cause") or {}
            contradicts = entry.get("contradicts") or {}
            status = "not re-run" if observed is None else ("reproduced ✓" if observed.get("reproduced") else "not reproduced ✗")
            out.append(f"<details><summary><code>{esc(entry.get('id'))}</code> — {esc(status)}; "
                       f"{class_counts.get(entry.get('id'), 0)} of {len(records)} random inputs</summary>")
            out.append(f"<p>{esc(entry.get('summary', ''))}</p><ul>")
            out.append(f"<li><b>minimal example</b>: {esc(request_text(example.get('request') or {}))}"
                       f"<pre>{esc(compact_json(example.get('request')))}</pre></li>")
            out.append(f"<li><b>values, observed now</b>: {_markdownish(_observed_text(entry, observed, name, record.get('version')))}</li>")
            out.append(f"<li><b>values, as curated</b> ({esc(entry.get('implementation'))} {esc(entry.get('version'))}): "
                       f"implementation <code>{esc(compact_json(example.get('implementation')))}</code>, "
                       f"oracle <code>{esc(compact_json(example.get('oracle')))}</code></li>")
            out.append(f"<li><b>root cause</b>: <code>{esc(root.get('file', ''))}</code>, <code>{esc(root.get('function', ''))}</code>: "
                       f"{esc(root.get('detail', ''))}</li>")
            out.append(f"<li><b>contradicts</b>: {esc(contradicts.get('source', ''))}: “{esc(contradicts.get('quote', ''))}”</li>")
            if entry.get("note"):
                out.append(f"<li><b>note</b>: {esc(entry['note'])}</li>")
            out.append("</ul></details>")
        for classification, group, smallest in model.undocumented_groups(name):
            got = fmt(smallest.get("score"), None) if smallest.get("outcome") == "score" else f"{smallest.get('outcome')}: {smallest.get('message')}"
            want = "rejects it" if smallest.get("expected_rejected") else fmt(smallest.get("expected"), None)
            out.append(f'<details><summary class="c-undocumented">not curated: <code>{esc(classification)}</code> — '
                       f"{len(group)} of {len(records)} random inputs</summary>"
                       f"<p>{esc(smallest.get('description') or '')}</p><p>Smallest example ({esc(smallest.get('id'))}): "
                       f"{esc(request_text(smallest.get('request') or {}))}; {esc(name)} answers {esc(got)}, the oracle "
                       f"gives {esc(want)}.</p><pre>{esc(compact_json(smallest.get('request')))}</pre></details>")
    out += ['<p class="muted small">Generated by <code>bleu-oracle report</code> from <code>data/</code>; '
            "the same versions and seed give a byte-identical page.</p>", "</body></html>", ""]
    return "\n".join(out)


