"""What the report pages show, computed once from the report's data (`Model`), and the formatting every
page shares (numbers, Markdown and HTML escaping, request text). `oracle.reports.render` writes the pages."""

from __future__ import annotations

import html
import json
import math
from collections import Counter, defaultdict

from oracle.models.outcomes import parse_number as number

IMPLEMENTATIONS_DIR = "implementations"
#: The pages `render` writes (besides implementations/<name>.md).
PAGES = ("README.md", "matrix.md", "real-data.md", "trophies.md", "index.html")
#: Marks for the Markdown matrix.
DIFFERS_MARK = "✗"
#: Categories of a cell or a random input, in legend order: (key, label, colour).
CATEGORIES = (
    ("agrees", "agrees with the oracle", "#3a9d5d"),
    ("documented", "differs: a curated class", "#e08a1e"),
    ("undocumented", "differs: not a curated class", "#d62728"),
    ("refused", "rejected a valid input / error", "#7b4fa0"),
    ("unsupported", "unsupported / not applicable", "#9a9a9a"),
)
CATEGORY_COLOUR = {key: colour for key, _, colour in CATEGORIES}
CATEGORY_LABEL = {key: label for key, label, _ in CATEGORIES}
#: Short category names for counts next to a plot row.
SHORT = {"agrees": "agree", "documented": "curated", "undocumented": "new", "refused": "refused", "unsupported": "unsupp."}
#: Colours for implementations in the real-data plots (fixed order).
PALETTE = ("#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#17becf",
           "#bcbd22", "#7f7f7f", "#393b79", "#637939")
MARKERS = ("circle", "square", "diamond", "triangle", "circle", "square", "diamond", "triangle",
           "circle", "square", "diamond", "triangle")


# -- formatting ------------------------------------------------------------------


def fmt(value, digits=10):
    """A score for reading: NaN, infinities, `digits` significant digits (None: every digit, the
    shortest repr that reads back as the same float); '—' for none."""
    x = number(value)
    if x is None:
        return "—"
    if math.isnan(x):
        return "NaN"
    if math.isinf(x):
        return "inf" if x > 0 else "-inf"
    if x == 0:
        return "0"
    return repr(x) if digits is None else f"{x:.{digits}g}"


def fmt_points(value):
    """BLEU x 100 with 8 decimals (real data)."""
    x = number(value)
    if x is None:
        return "—"
    if math.isnan(x):
        return "NaN"
    return f"{100 * x:.8f}"


def fmt_delta(value):
    """A difference in BLEU points (x 100), signed, 2 significant digits; '0' when exactly equal."""
    x = number(value)
    if x is None:
        return "—"
    if math.isnan(x):
        return "NaN"
    if x == 0:
        return "0"
    return f"{100 * x:+.2e}"


def md(text):
    """Text safe inside a Markdown table cell."""
    return str(text).replace("\\", "\\\\").replace("|", "\\|").replace("\n", " ")


def esc(text):
    return html.escape(str(text), quote=True)


def compact_json(obj):
    return json.dumps(obj, ensure_ascii=False, sort_keys=False, separators=(", ", ": "))


def request_text(request):
    """A one-line human form of a small request: hyp | refs, weights, smoothing."""
    parts = []
    for segment in request.get("segments", []):
        hypothesis = " ".join(segment.get("hypothesis", [])) or "∅"
        references = " / ".join(" ".join(r) or "∅" for r in segment.get("references", []))
        parts.append(f"“{hypothesis}” vs “{references}”")
    extra = [f"{request.get('level', 'corpus')}", "weights " + ", ".join(fmt(w, 4) for w in request.get("weights", []))]
    smoothing = request.get("smoothing") or {"method": "none"}
    if smoothing.get("method") != "none":
        extra.append("smoothing " + ", ".join(f"{k}={v}" for k, v in smoothing.items() if k != "method") if len(smoothing) > 1
                     else f"smoothing {smoothing['method']}")
        if len(smoothing) > 1:
            extra[-1] = f"smoothing {smoothing['method']} (" + extra[-1][len("smoothing "):] + ")"
    if request.get("lowercase"):
        extra.append("lowercase")
    return "; ".join(parts) + " [" + "; ".join(extra) + "]"


# -- the model: data files -> what the pages show ------------------------------------


class Model:
    def __init__(self, data):
        self.run = data["run"]
        self.profiles = [r for r in data["implementations"] if r.get("type") == "profile"]
        self.registry = [r for r in data["implementations"] if r.get("type") == "implementation"]
        self.installed = [r for r in self.registry if r.get("status") == "installed"]
        self.by_name = {r["name"]: r for r in self.registry}
        self.cases = [r for r in data["matrix"] if r.get("type") == "case"]
        self.cells = {(r["case"], r["column"]): r for r in data["matrix"] if r.get("type") == "cell"}
        self.oracle_columns = [f"oracle/{p}" for p in self.run.get("profiles", [])]
        self.columns = self.oracle_columns + [r["name"] for r in self.installed]
        self.search = defaultdict(list)
        for record in data["search"]:
            self.search[record["implementation"]].append(record)
        self.discrepancies = data["discrepancies"]
        self.real = data["real_data"]
        self.real_source = self.run.get("real_data") or {}

    # -- labels --

    def column_label(self, key):
        if key.startswith("oracle/"):
            return f"oracle: {key[len('oracle/'):]}"
        record = self.by_name.get(key, {})
        return f"{key} {record.get('version', '')}".strip()

    def implementation_page(self, name):
        return f"{IMPLEMENTATIONS_DIR}/{name}.md"

    # -- categories --

    @staticmethod
    def category(record):
        """agrees / documented / undocumented / refused / unsupported for a judged cell or random input."""
        if record.get("agrees"):
            return "agrees"
        outcome = record.get("outcome")
        if outcome == "unsupported" or record.get("not_applicable") and outcome != "score":
            return "unsupported"
        if outcome in ("error",) or record.get("classification") in ("rejects-valid-input",):
            return "documented" if record.get("documented") else "refused"
        if outcome == "skipped":
            return "unsupported"
        return "documented" if record.get("documented") else "undocumented"

    # -- per implementation --

    def curated(self, name):
        """The curated classes shown for `name`: its own, and those of the library it shares code
        with (an alias such as ignite-micro) that reproduce with it or occur in its random search."""
        out = []
        counts = self.class_counts(name)
        for entry in self.discrepancies:
            observed = next((o for o in entry.get("rerun", []) if o.get("implementation") == name), None)
            shared = observed is not None and (observed.get("reproduced") or counts.get(entry.get("id")))
            if entry.get("implementation") == name or shared:
                out.append((entry, observed))
        return out

    def search_summary(self, name):
        records = self.search.get(name, [])
        counts = Counter(self.category(r) for r in records)
        return records, counts

    def class_counts(self, name):
        """Curated class id -> number of random inputs attributed to it."""
        counts = Counter()
        for record in self.search.get(name, []):
            for identifier in record.get("documented") or []:
                counts[identifier] += 1
        return counts

    def undocumented_groups(self, name):
        """Disagreements of the random search that no curated class explains, grouped by
        classification, each with its smallest example (fewest tokens, then the lowest index)."""
        groups = defaultdict(list)
        for record in self.search.get(name, []):
            if self.category(record) in ("undocumented", "refused"):
                groups[record.get("classification") or "?"].append(record)
        out = []
        for classification, records in sorted(groups.items(), key=lambda kv: (-len(kv[1]), kv[0])):
            smallest = min(records, key=lambda r: (r.get("size", 0), r.get("index", 0)))
            out.append((classification, records, smallest))
        return out

    # -- real data --

    def real_table(self, references):
        """{system: {column: record}} for one setting, and the column order."""
        table = defaultdict(dict)
        columns = []
        for record in self.real:
            if record["references"] != references:
                continue
            table[record["system"]][record["column"]] = record
            if record["column"] not in columns:
                columns.append(record["column"])
        return table, columns

    def real_systems(self):
        return list(self.real_source.get("systems") or [])


# -- Markdown -----------------------------------------------------------------


