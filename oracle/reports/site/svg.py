"""The report's SVG plots (inline in index.html): the random search's deviation from the oracle, and the real
data's scores and differences. Marks are positioned here; deterministic, so the same data give the same bytes."""

from __future__ import annotations

import math

from markupsafe import Markup

from oracle.models.outcomes import parse_number as number

from .formatting import esc, fmt, fmt_delta, fmt_points
from .data import RealRow
from .view import CATEGORY_COLOUR, CATEGORY_LABEL, SHORT, ReportView, category

#: Colours for implementations in the real-data plots (fixed order).
PALETTE = ("#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#17becf",
           "#bcbd22", "#7f7f7f", "#393b79", "#637939")
MARKERS = ("circle", "square", "diamond", "triangle", "circle", "square", "diamond", "triangle",
           "circle", "square", "diamond", "triangle")


def _score(row: RealRow | None) -> float | None:
    return number(row.answer.score) if row is not None else None


def _f(x: float) -> str:
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


def deviation_plot(model: ReportView) -> Markup:
    """Each implementation's random inputs: |answer − oracle| on a log scale, agreeing inputs and
    refusals in bands of their own. One row per implementation."""
    names = [entry.name for entry in model.installed if model.search.get(entry.name)]
    if not names:
        return Markup("")
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
    parts.append(f'<text x="{left}" y="16" class="title">Deviation from the oracle on {model.run.examples} random '
                 f'inputs (seed {model.run.seed}), under each implementation\'s declared profile</text>')
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
        records, counts = model.search.get(name, []), model.search_counts(name)
        parts.append('<g fill-opacity="0.6" stroke="#222" stroke-width="0.4">')
        for record in records:
            shown = category(record)
            index = record.index
            y = y_mid + _jitter(index, row_h * 0.7)
            score, expected = number(record.answer.score), number(record.expected)
            if shown == "agrees":
                x = (band_agree[0] + band_agree[1]) / 2 + _jitter(index * 31 + 7, band_agree[1] - band_agree[0] - 10)
            elif shown in ("refused", "unsupported") or score is None or expected is None:
                x = (band_refused[0] + band_refused[1]) / 2 + _jitter(index * 31 + 7, band_refused[1] - band_refused[0] - 10)
            elif math.isnan(score) or math.isnan(expected) or math.isinf(score) or math.isinf(expected):
                x = (band_nan[0] + band_nan[1]) / 2 + _jitter(index * 31 + 7, band_nan[1] - band_nan[0] - 10)
            elif record.layer in STATISTICS_LAYERS and abs(score - expected) < 10.0 ** LOG_RANGE[0]:
                # the score agrees, a statistic does not: drawn at the axis' floor it would look like rounding
                x = (band_statistics[0] + band_statistics[1]) / 2 + _jitter(index * 31 + 7, band_statistics[1] - band_statistics[0] - 10)
            else:
                delta = abs(score - expected)
                x = xpos(math.log10(delta) if delta > 0 else LOG_RANGE[0])
            layer = f" (first divergence: {record.layer})" if record.layer else ""
            title = "" if shown == "agrees" else \
                f"{record.id}: {record.verdict.classification}; {fmt(record.answer.score)} vs {fmt(record.expected)}{layer}"
            parts.append(_marker("circle", x, y, CATEGORY_COLOUR[shown], title, size=2.6, grouped=True))
        parts.append("</g>")
        summary = " · ".join(f"{counts[k]} {SHORT[k]}" for k in SHORT if counts[k])
        parts.append(f'<text x="{band_refused[1] + 8}" y="{_f(y_mid + 4)}" class="tick">{esc(summary)}</text>')
    parts.append("</svg>")
    return Markup("\n".join(parts))


def real_scores_plot(model: ReportView, references: int) -> Markup:
    """BLEU × 100 per system (sorted by the oracle's papineni score), one marker per implementation."""
    table, columns = model.real_table(references)
    systems = [s for s in model.real_systems() if s in table]
    if not systems:
        return Markup("")
    reference_column = "oracle/papineni" if "oracle/papineni" in columns else columns[0]
    systems.sort(key=lambda s: (_score(table[s].get(reference_column)) or 0, s))
    implementations = [c for c in columns if not c.startswith("oracle/")]
    values = [100 * value for s in systems for r in table[s].values()
              if r.answer.outcome == "score" and (value := number(r.answer.score)) is not None and math.isfinite(value)]
    if not values:
        return Markup("")
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
    points = " ".join(f"{_f(xpos(i))},{_f(ypos(100 * number(table[s][reference_column].answer.score)))}"
                      for i, s in enumerate(systems) if _score(table[s].get(reference_column)) is not None)
    parts.append(f'<polyline points="{points}" fill="none" stroke="#222" stroke-width="1.2"/>')
    for i, system in enumerate(systems):
        x = xpos(i)
        parts.append(f'<text x="{_f(x)}" y="{top + plot_h + 12}" text-anchor="end" class="tick" '
                     f'transform="rotate(-40 {_f(x)} {top + plot_h + 12})">{esc(system)}</text>')
        offset = -((len(implementations) - 1) / 2) * 3.0
        for k, column in enumerate(implementations):
            record = table[system].get(column)
            if record is None or record.answer.outcome != "score" or number(record.answer.score) is None:
                continue
            value = 100 * number(record.answer.score)
            title = f"{column} on {system}, {label}: {fmt_points(record.answer.score)} (Δ {fmt_delta(record.difference)} points)"
            parts.append(_marker(MARKERS[k % len(MARKERS)], x + offset + 3.0 * k, ypos(value), PALETTE[k % len(PALETTE)], title, size=3.2))
    # legend
    ly = top + 6
    parts.append(f'<line x1="{width - right + 15}" y1="{ly}" x2="{width - right + 35}" y2="{ly}" stroke="#222" stroke-width="1.2"/>')
    parts.append(f'<text x="{width - right + 40}" y="{ly + 4}" class="tick">oracle (papineni)</text>')
    for k, column in enumerate(implementations):
        ly += 17
        scored = any(column in table[s] and table[s][column].answer.outcome == "score" for s in systems)
        parts.append(_marker(MARKERS[k % len(MARKERS)], width - right + 25, ly, PALETTE[k % len(PALETTE)], column, size=3.5))
        parts.append(f'<text x="{width - right + 40}" y="{ly + 4}" class="tick">{esc(column)}{"" if scored else " (n/a)"}</text>')
    parts.append(f'<text x="18" y="{top + plot_h / 2}" class="axis" transform="rotate(-90 18 {top + plot_h / 2})" '
                 'text-anchor="middle">BLEU × 100</text>')
    parts.append("</svg>")
    return Markup("\n".join(parts))


def real_deviation_plot(model: ReportView) -> Markup:
    """|implementation − oracle| in BLEU points per system, 1 and 4 references, log scale."""
    if not model.real:
        return Markup("")
    settings = sorted({r.references for r in model.real})
    implementations = model.real_implementations()
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
        records = [r for r in model.real if r.column == column and r.references == references]
        for i, record in enumerate(records):
            y = y_mid + _jitter(i * 13 + references, row_h * 0.5)
            difference = number(record.difference)
            if record.answer.outcome != "score" or difference is None or not math.isfinite(difference):
                x = (band_na[0] + band_na[1]) / 2 + _jitter(i * 31 + 5, band_na[1] - band_na[0] - 10)
            elif difference == 0:
                x = (band_equal[0] + band_equal[1]) / 2 + _jitter(i * 31 + 5, band_equal[1] - band_equal[0] - 10)
            else:
                x = xpos(math.log10(abs(100 * difference)))
            title = (f"{column} on {record.system}, {references} ref: {fmt_points(record.answer.score)} vs oracle "
                     f"{fmt_points(record.expected)} (Δ {fmt_delta(record.difference)})" if record.answer.outcome == "score"
                     else f"{column} on {record.system}: {record.answer.outcome}: {record.answer.message}")
            parts.append(_marker(MARKERS[k % len(MARKERS)], x, y, colour, title, size=3.0, opacity=0.7))
    parts.append("</svg>")
    return Markup("\n".join(parts))
