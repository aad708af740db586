"""The report's SVG plots (inline in index.html): the random search's deviation from the oracle, and the real
data's scores and differences.

A plot is a tree of `Element`s (a tag, its attributes in order, its text, its children) positioned here and
written once by `Element.markup`, which escapes every text and attribute: no markup is pasted together by hand.
Deterministic: the same data give the same bytes.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable
from dataclasses import dataclass

from markupsafe import Markup

from oracle.models.outcomes import parse_number as number

from .data import RealRow
from .formatting import esc, fmt, fmt_delta, fmt_points
from .view import CATEGORY_COLOUR, CATEGORY_KEYS, CATEGORY_LABEL, SHORT, ReportView, category

#: Colours for implementations in the real-data plots (fixed order).
PALETTE = (
    "#1f77b4",
    "#ff7f0e",
    "#2ca02c",
    "#d62728",
    "#9467bd",
    "#8c564b",
    "#e377c2",
    "#17becf",
    "#bcbd22",
    "#7f7f7f",
    "#393b79",
    "#637939",
)
#: Marker shapes, combined with the palette so that no two implementations share a colour and a shape.
MARKERS = ("circle", "square", "diamond", "triangle")
#: The layers of the sufficient statistics (and the tokens they count): a divergence there can leave the score equal.
STATISTICS_LAYERS = ("hyp_len", "ref_len", "matches", "totals", "bp", "tokenization")
#: The log10 range of the random-search deviation plot (0-1 scale) and of the real-data one (BLEU points).
LOG_RANGE = (-17, 1)
REAL_LOG_RANGE = (-15, 2)
SVG_NAMESPACE = "http://www.w3.org/2000/svg"
#: Advance widths of Helvetica (its AFM metrics, per 1000 em) for printable ASCII, from " " to "~"; Arial and
#: Liberation Sans share them. Other characters count as a full em.
HELVETICA_WIDTHS = (
    278, 278, 355, 556, 556, 889, 667, 191, 333, 333, 389, 584, 278, 333, 278, 278,  # space to /
    556, 556, 556, 556, 556, 556, 556, 556, 556, 556, 278, 278, 584, 584, 584, 556,  # 0 to ?
    1015, 667, 667, 722, 722, 667, 611, 778, 722, 278, 500, 667, 556, 833, 722, 778,  # @ to O
    667, 778, 722, 667, 611, 722, 667, 944, 667, 667, 611, 278, 278, 278, 469, 556,  # P to _
    333, 556, 556, 500, 556, 556, 278, 556, 556, 222, 222, 500, 222, 833, 556, 556,  # ` to o
    556, 556, 333, 500, 278, 556, 500, 722, 500, 500, 500, 334, 260, 334, 584,  # p to ~
)
#: The margin a label's estimated width gets: the reader's sans-serif may be wider than Helvetica (DejaVu Sans is
#: about 10% wider; the page asks for the system font first).
WIDTH_MARGIN = 1.15
#: Font sizes (px) of the plots' text classes (the page's CSS: `svg .label`, `svg .tick`).
LABEL_SIZE, TICK_SIZE = 12.5, 11.0
#: The titles' size, and how much wider bold text is than regular (an upper estimate).
TITLE_SIZE = 14 * 1.1

Attribute = tuple[str, object]


@dataclass(frozen=True)
class Element:
    """An SVG element: its attributes in order, its text (escaped when written; a `Markup` as is), its children
    (inline after the text, or each on a line of its own for a `block` such as <svg> and <g>). No text and no
    children: an empty element (`<line .../>`); an empty text: an element with nothing inside (`<rect ...></rect>`)."""

    tag: str
    attributes: tuple[Attribute, ...] = ()
    text: str | None = None
    children: tuple[Element, ...] = ()
    block: bool = False

    def markup(self) -> Markup:
        attributes = "".join(f' {name}="{esc(value)}"' for name, value in self.attributes)
        if self.block:
            inner = "".join(f"{child.markup()}\n" for child in self.children)
            return Markup(f"<{self.tag}{attributes}>\n{inner}</{self.tag}>")
        if self.text is None and not self.children:
            return Markup(f"<{self.tag}{attributes}/>")
        text = self.text if isinstance(self.text, Markup) else esc(self.text or "")
        return Markup(f"<{self.tag}{attributes}>{text}{''.join(c.markup() for c in self.children)}</{self.tag}>")


def text_width(text: str, size: float) -> float:
    """An upper estimate of the width in px of `text` at font size `size` (px), with the reader's font wider than
    Helvetica by up to WIDTH_MARGIN: what a plot leaves for a label so that it is never clipped."""
    ems = sum(HELVETICA_WIDTHS[ord(c) - 32] if " " <= c <= "~" else 1000 for c in text) / 1000
    return ems * size * WIDTH_MARGIN


def series_style(k: int) -> tuple[str, str]:
    """The marker (shape, colour) of the k-th implementation of a plot: unique for the first
    len(PALETTE) × len(MARKERS) (an implementation that comes round to a colour again gets the next shape)."""
    return MARKERS[(k + k // len(PALETTE)) % len(MARKERS)], PALETTE[k % len(PALETTE)]


def _f(x: float) -> str:
    return f"{x:.1f}"


def _jitter(key: int, spread: float) -> float:
    """A deterministic offset in [-spread/2, spread/2] from an integer key."""
    return ((key * 7919 + 104729) % 1000 / 999 - 0.5) * spread


def _svg(width: int, height: int, label: str, children: Iterable[Element]) -> Markup:
    return Element(
        "svg",
        (
            ("xmlns", SVG_NAMESPACE),
            ("width", width),
            ("height", height),
            ("viewBox", f"0 0 {width} {height}"),
            ("role", "img"),
            ("aria-label", label),
        ),
        children=tuple(children),
        block=True,
    ).markup()


def _text(
    x: object, y: object, text: str, css: str, *, anchor: str | None = None, transform: str | None = None
) -> Element:
    attributes: list[Attribute] = [("x", x), ("y", y)]
    if anchor is not None:
        attributes.append(("text-anchor", anchor))
    attributes.append(("class", css))
    if transform is not None:
        attributes.append(("transform", transform))
    return Element("text", tuple(attributes), text)


def _heading(x: int, text: str) -> Element:
    """A plot's title: our own words (an apostrophe in them is written as is)."""
    return _text(x, 16, Markup(text), "title")


def _line(x1: object, y1: object, x2: object, y2: object, stroke: str, width: str | None = None) -> Element:
    attributes: list[Attribute] = [("x1", x1), ("y1", y1), ("x2", x2), ("y2", y2), ("stroke", stroke)]
    if width is not None:
        attributes.append(("stroke-width", width))
    return Element("line", tuple(attributes))


def _rect(x: object, y: object, width: object, height: object, fill: str) -> Element:
    return Element("rect", (("x", x), ("y", y), ("width", width), ("height", height), ("fill", fill)))


def _marker(
    shape: str,
    x: float,
    y: float,
    colour: str,
    title: str,
    size: float = 3.5,
    opacity: float = 0.85,
    *,
    grouped: bool = False,
) -> Element:
    """One marker; `grouped`: opacity and stroke come from an enclosing <g> (smaller files)."""
    tip = (Element("title", text=title),) if title else ()
    paint: tuple[Attribute, ...] = (
        (("fill", colour),)
        if grouped
        else (("fill", colour), ("fill-opacity", opacity), ("stroke", "#222"), ("stroke-width", "0.4"))
    )
    if shape == "square":
        return Element(
            "rect",
            (("x", _f(x - size)), ("y", _f(y - size)), ("width", _f(2 * size)), ("height", _f(2 * size)), *paint),
            "",
            tip,
        )
    if shape in ("diamond", "triangle"):
        corners: tuple[tuple[float, float], ...]
        if shape == "diamond":
            corners = ((x, y - size * 1.3), (x + size * 1.3, y), (x, y + size * 1.3), (x - size * 1.3, y))
        else:
            corners = ((x, y - size * 1.3), (x + size * 1.2, y + size), (x - size * 1.2, y + size))
        points = " ".join(f"{_f(cx)},{_f(cy)}" for cx, cy in corners)
        return Element("polygon", (("points", points), *paint), "", tip)
    return Element("circle", (("cx", _f(x)), ("cy", _f(y)), ("r", _f(size)), *paint), None, tip)


def _band(band: tuple[int, int], key: int, spread_key: float = 10) -> float:
    """A deterministic position inside a band (its middle, jittered by `key`)."""
    low, high = band
    return (low + high) / 2 + _jitter(key, high - low - spread_key)


def _log_axis(
    x0: int, x1: int, top: int, bottom: int, ticks: Iterable[int], label: str, log_range: tuple[int, int]
) -> tuple[list[Element], Callable[[float], float]]:
    """The grid lines and labels of a log10 axis, and the position of an exponent on it (clamped to the range)."""
    low, high = log_range

    def xpos(exponent: float) -> float:
        return x0 + (min(max(exponent, low), high) - low) / (high - low) * (x1 - x0)

    marks: list[Element] = []
    for exponent in ticks:
        x = xpos(exponent)
        text = "1" if exponent == 0 else ("10" if exponent == 1 else f"1e{exponent}")
        marks += [_line(_f(x), top, _f(x), bottom, "#ddd"), _text(_f(x), bottom + 14, text, "tick", anchor="middle")]
    marks.append(_text(_f((x0 + x1) / 2), bottom + 30, label, "axis", anchor="middle"))
    return marks, xpos


def _bands(bands: Iterable[tuple[tuple[int, int], str]], top: int, bottom: int) -> list[Element]:
    marks: list[Element] = []
    for (a, b), label in bands:
        marks += [
            _rect(a, top, b - a, bottom - top, "#f4f4f4"),
            _text(_f((a + b) / 2), bottom + 14, label, "tick", anchor="middle"),
        ]
    return marks


def _margin(labels: Iterable[str], size: float, *, least: int = 0) -> int:
    """The width (px) that holds the widest of `labels` at font size `size`, with 8 px to spare."""
    return max(least, math.ceil(max((text_width(label, size) for label in labels), default=0)) + 8)


def _legend(x: float, y: float, entries: Iterable[tuple[str, str]]) -> tuple[list[Element], float]:
    """A one-line legend of coloured dots (colour, label) from x; returns its marks and where it ends."""
    marks: list[Element] = []
    for colour, label in entries:
        marks += [
            Element("circle", (("cx", _f(x + 5)), ("cy", y - 4), ("r", 4), ("fill", colour))),
            _text(_f(x + 13), y, label, "tick"),
        ]
        x += 13 + text_width(label, TICK_SIZE) + 14
    return marks, x


def deviation_plot(model: ReportView) -> Markup:
    """Each implementation's random inputs: |answer − oracle| on a log scale, agreeing inputs and
    refusals in bands of their own. One row per implementation; the labels' widths measured, never clipped."""
    names = [entry.name for entry in model.installed if model.search.get(entry.name)]
    if not names:
        return Markup("")
    summaries = {name: _search_summary(model, name) for name in names}
    row_h = 34
    left = _margin((model.column_label(name) for name in names), LABEL_SIZE, least=150)
    band_agree = (left, left + 70)
    x0 = left + 95
    x1 = x0 + 495
    band_statistics = (x1 + 15, x1 + 60)  # the score agrees, a statistic (c, r, matches, totals) does not
    band_nan = (x1 + 75, x1 + 120)
    band_refused = (x1 + 135, x1 + 190)
    legend, legend_end = _legend(20, 32, ((CATEGORY_COLOUR[key], CATEGORY_LABEL[key]) for key in CATEGORY_KEYS))
    width = max(band_refused[1] + 8 + _margin(summaries.values(), TICK_SIZE), math.ceil(legend_end) + 10)
    top = 48
    bottom = top + row_h * len(names)
    title = (f"Deviation from the oracle on {model.run.examples} random inputs (seed {model.run.seed}), "
             "under each implementation's declared profile")
    marks = [_heading(20, title), *legend]
    width = max(width, _margin([title], TITLE_SIZE) + 20)
    marks += _bands(
        ((band_agree, "agrees"), (band_statistics, "stats≠"), (band_nan, "NaN≠"), (band_refused, "refused")),
        top,
        bottom,
    )
    axis, xpos = _log_axis(
        x0,
        x1,
        top,
        bottom,
        range(LOG_RANGE[0] + 1, LOG_RANGE[1] + 1, 2),
        "|answer − oracle| (0–1 scale, log)",
        LOG_RANGE,
    )
    marks += axis
    for row, name in enumerate(names):
        y_mid = top + row_h * row + row_h / 2
        if row % 2:
            marks.append(_rect(0, top + row_h * row, left - 5, row_h, "#fafafa"))
        marks += [
            _line(left, top + row_h * (row + 1), band_refused[1], top + row_h * (row + 1), "#eee"),
            _text(left - 8, _f(y_mid + 4), model.column_label(name), "label", anchor="end"),
        ]
        dots = []
        for record in model.search[name]:
            shown, index = category(record), record.index
            score, expected = number(record.answer.score), number(record.expected)
            if shown == "agrees":
                x = _band(band_agree, index * 31 + 7)
            elif shown in ("refused", "unsupported") or score is None or expected is None:
                x = _band(band_refused, index * 31 + 7)
            elif math.isnan(score) or math.isnan(expected) or math.isinf(score) or math.isinf(expected):
                x = _band(band_nan, index * 31 + 7)
            elif record.layer in STATISTICS_LAYERS and abs(score - expected) < 10.0 ** LOG_RANGE[0]:
                # the score agrees, a statistic does not: drawn at the axis' floor it would look like rounding
                x = _band(band_statistics, index * 31 + 7)
            else:
                delta = abs(score - expected)
                x = xpos(math.log10(delta) if delta > 0 else LOG_RANGE[0])
            layer = f" (first divergence: {record.layer})" if record.layer else ""
            title = (
                ""
                if shown == "agrees"
                else f"{record.id}: {record.verdict.classification}; {fmt(record.answer.score)} vs "
                f"{fmt(record.expected)}{layer}"
            )
            dots.append(
                _marker(
                    "circle",
                    x,
                    y_mid + _jitter(index, row_h * 0.7),
                    CATEGORY_COLOUR[shown],
                    title,
                    size=2.6,
                    grouped=True,
                )
            )
        marks.append(
            Element(
                "g",
                (("fill-opacity", "0.6"), ("stroke", "#222"), ("stroke-width", "0.4")),
                children=tuple(dots),
                block=True,
            )
        )
        marks.append(_text(band_refused[1] + 8, _f(y_mid + 4), summaries[name], "tick"))
    return _svg(width, bottom + 60, "deviation from the oracle across the random inputs", marks)


def _search_summary(model: ReportView, name: str) -> str:
    """An implementation's random inputs counted by category, as its plot row ends: "96 agree · 104 curated"."""
    counts = model.search_counts(name)
    return " · ".join(f"{counts[k]} {SHORT[k]}" for k in SHORT if counts[k])


def _score(row: RealRow | None) -> float | None:
    return number(row.answer.score) if row is not None else None


def real_scores_plot(model: ReportView, references: int) -> Markup:
    """BLEU × 100 per system (sorted by the oracle's papineni score), one marker per implementation."""
    table, columns = model.real_table(references)
    systems = [s for s in model.real_systems() if s in table]
    if not systems:
        return Markup("")
    reference_column = "oracle/papineni" if "oracle/papineni" in columns else columns[0]
    systems.sort(key=lambda s: (_score(table[s].get(reference_column)) or 0, s))
    implementations = [c for c in columns if not c.startswith("oracle/")]
    values = [
        100 * value
        for s in systems
        for r in table[s].values()
        if r.answer.outcome == "score" and (value := number(r.answer.score)) is not None and math.isfinite(value)
    ]
    if not values:
        return Markup("")
    low, high = math.floor(min(values) / 5) * 5, math.ceil(max(values) / 5) * 5
    if high == low:
        high = low + 5
    legend_labels = [_legend_label(model, table, systems, column) for column in implementations]
    plot_w, left, top, plot_h = 800, 60, 30, 280
    right = _margin([*legend_labels, "oracle (papineni)"], TICK_SIZE) + 45
    x_step = plot_w / max(len(systems), 1)
    # a system's name is written at -40°: the first must not run off the left edge, the longest off the bottom
    names = _margin(systems, TICK_SIZE)
    left = max(left, math.ceil(names * math.cos(math.radians(40)) - x_step / 2) + 4)
    width = left + plot_w + right
    label_depth = math.ceil(names * math.sin(math.radians(40))) + 24

    def xpos(i: int) -> float:
        return left + x_step * (i + 0.5)

    def ypos(v: float) -> float:
        return top + plot_h - (v - low) / (high - low) * plot_h

    label = "1 reference" if references == 1 else f"{references} references"
    title = f"WMT17 newstest2017 en-de, {label}: BLEU × 100 per system (sorted by the oracle, papineni)"
    width = max(width, left + _margin([title], TITLE_SIZE))
    marks = [_heading(left, title)]
    for tick in range(int(low), int(high) + 1, 5 if high - low <= 40 else 10):
        y = ypos(tick)
        marks += [
            _line(left, _f(y), width - right, _f(y), "#e4e4e4"),
            _text(left - 6, _f(y + 4), str(tick), "tick", anchor="end"),
        ]
    points = " ".join(
        f"{_f(xpos(i))},{_f(ypos(100 * value))}"
        for i, s in enumerate(systems)
        if (value := _score(table[s].get(reference_column))) is not None
    )
    marks.append(
        Element("polyline", (("points", points), ("fill", "none"), ("stroke", "#222"), ("stroke-width", "1.2")))
    )
    offset = -((len(implementations) - 1) / 2) * 3.0
    for i, system in enumerate(systems):
        x, y = xpos(i), top + plot_h + 12
        marks.append(_text(_f(x), y, system, "tick", anchor="end", transform=f"rotate(-40 {_f(x)} {y})"))
        for k, column in enumerate(implementations):
            record = table[system].get(column)
            if record is None or record.answer.outcome != "score" or (value := number(record.answer.score)) is None:
                continue
            title = (f"{column} on {system}, {label}: {fmt_points(record.answer.score)} "
                     f"(Δ {fmt_delta(record.difference)} points)")
            shape, colour = series_style(k)
            marks.append(_marker(shape, x + offset + 3.0 * k, ypos(100 * value), colour, title, size=3.2))
    ly = top + 6  # the legend
    marks += [
        _line(width - right + 15, ly, width - right + 35, ly, "#222", "1.2"),
        _text(width - right + 40, ly + 4, "oracle (papineni)", "tick"),
    ]
    for k, (column, text) in enumerate(zip(implementations, legend_labels, strict=True)):
        ly += 17
        shape, colour = series_style(k)
        marks += [
            _marker(shape, width - right + 25, ly, colour, column, size=3.5),
            _text(width - right + 40, ly + 4, text, "tick"),
        ]
    middle = top + plot_h / 2
    marks.append(
        Element(
            "text",
            (
                ("x", 18),
                ("y", middle),
                ("class", "axis"),
                ("transform", f"rotate(-90 18 {middle})"),
                ("text-anchor", "middle"),
            ),
            "BLEU × 100",
        )
    )
    height = max(top + plot_h + max(label_depth, 40), ly + 12)
    return _svg(width, height, f"real-data scores, {label}", marks)


def _legend_label(model: ReportView, table: dict[str | None, dict[str, RealRow]], systems: list[str],
                  column: str) -> str:
    """An implementation in a real-data plot's legend: its label, and why it has no markers when it scored none."""
    if any(column in table[s] and table[s][column].answer.outcome == "score" for s in systems):
        return model.column_label(column)
    return f"{model.column_label(column)} (n/a: not scored, see the notes)"


def real_deviation_plot(model: ReportView) -> Markup:
    """|implementation − oracle| in BLEU points per system, 1 and 4 references, log scale."""
    if not model.real:
        return Markup("")
    settings = sorted({r.references for r in model.real})
    implementations = model.real_implementations()
    rows = [(c, s) for c in implementations for s in settings]
    names = [f"{model.column_label(column)}, {references} ref{'s' if references > 1 else ''}"
             for column, references in rows]
    row_h, top = 30, 40
    left = _margin(names, LABEL_SIZE, least=200)
    band_equal = (left, left + 70)
    x0, x1 = left + 95, left + 720
    band_na = (x1 + 15, x1 + 75)
    title = ("WMT17: |implementation − oracle| per system, in BLEU points (oracle under the implementation's "
             "declared profile)")
    width = max(band_na[1] + 10, 20 + _margin([title], TITLE_SIZE))
    bottom = top + row_h * len(rows)
    marks = [_heading(20, title)]
    marks += _bands(((band_equal, "= exactly"), (band_na, "n/a")), top, bottom)
    axis, xpos = _log_axis(x0, x1, top, bottom, range(-14, 3, 2), "|difference| in BLEU points (log)", REAL_LOG_RANGE)
    marks += axis
    for row, (column, references) in enumerate(rows):
        y_mid = top + row_h * row + row_h / 2
        k, name = implementations.index(column), names[row]
        marks += [
            _line(
                left,
                top + row_h * (row + 1),
                band_na[1],
                top + row_h * (row + 1),
                "#ccc" if references == settings[-1] else "#f0f0f0",
            ),
            _text(left - 8, _f(y_mid + 4), name, "label", anchor="end"),
        ]
        records = [r for r in model.real if r.column == column and r.references == references]
        for i, record in enumerate(records):
            difference = number(record.difference)
            if record.answer.outcome != "score" or difference is None or not math.isfinite(difference):
                x = _band(band_na, i * 31 + 5)
            elif difference == 0:
                x = _band(band_equal, i * 31 + 5)
            else:
                x = xpos(math.log10(abs(100 * difference)))
            title = (
                f"{column} on {record.system}, {references} ref: {fmt_points(record.answer.score)} vs oracle "
                f"{fmt_points(record.expected)} (Δ {fmt_delta(record.difference)})"
                if record.answer.outcome == "score"
                else f"{column} on {record.system}: {record.answer.outcome}: {record.answer.message}"
            )
            shape, colour = series_style(k)
            marks.append(
                _marker(shape, x, y_mid + _jitter(i * 13 + references, row_h * 0.5), colour, title, size=3.0,
                        opacity=0.7)
            )
    return _svg(width, bottom + 60, "real-data differences from the oracle", marks)
