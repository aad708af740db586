"""Render `reports/` from its data files (`reports/data/`, written by `oracle.reports.site`).

Nothing here calls an implementation or the oracle: every line of every page
is computed from the data files, so `bleu-oracle report --render-only`
regenerates the pages from the committed data alone. Writes:

- ``README.md``: the index (settings, implementations with their status and
  findings, links);
- ``matrix.md``: the edge-case matrix;
- ``real-data.md``: WMT17 newstest2017 en-de, 1 and 4 references;
- ``implementations/<name>.md``: one discrepancy report per installed implementation;
- ``index.html``: all of the above on one self-contained page (inline CSS,
  inline SVG plots drawn here; no script, nothing fetched).

Deterministic: the same data files give byte-identical pages.
"""

from __future__ import annotations

import html
import json
import math
from collections import Counter, defaultdict
from pathlib import Path

from oracle.models.outcomes import parse_number as number

from .site import DATA_DIR, read_data

IMPLEMENTATIONS_DIR = "implementations"
#: The pages `render` writes (besides implementations/<name>.md).
PAGES = ("README.md", "matrix.md", "real-data.md", "index.html")
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


def _settings_lines(model):
    run = model.run
    lines = [f"- bleu-oracle {run.get('suite_version')}, Python {run.get('python')}; regenerate with "
             f"`{run.get('command')}`, re-render from `{DATA_DIR}/` with `bleu-oracle report --render-only`",
             f"- random search: seed {run.get('seed')}, {run.get('examples')} inputs per implementation from "
             "`oracle.harness.generate` (the inputs `bleu-oracle check --seed S` sends), judged against the oracle under the "
             "implementation's declared profile",
             f"- numeric contract: |actual − expected| ≤ {run['contract']['abs']:g} + {run['contract']['rel']:g} · |expected|; "
             "NaN matches only NaN"]
    return lines


def render_readme(model):
    out = ["# bleu-oracle reports", "",
           "Generated by `bleu-oracle report` from the data files in [`data/`](data/) (JSON lines: observations "
           "first, pages rendered from them). Do not edit by hand.", ""]
    out += _settings_lines(model)
    out += ["", "## Pages", "",
            "- [index.html](index.html): everything below on one page, with plots",
            f"- [Edge-case matrix](matrix.md): {len(model.cases)} edge cases × {len(model.oracle_columns)} oracle profiles "
            f"and {len(model.installed)} implementations",
            "- [Real data](real-data.md): WMT17 newstest2017 English–German, 1 and 4 references"
            + ("" if model.real else f" ({model.real_source.get('skipped', 'not run')})"),
            "- One discrepancy report per implementation (below)", "",
            "## Implementations", "",
            "| implementation | version | language | judged against | random inputs: agree / curated / new / refused / unsupported | curated classes (reproduced) | report |",
            "|---|---|---|---|---|---|---|"]
    for record in model.registry:
        name = record["name"]
        if record.get("status") != "installed":
            status = {"not-installed": "not installed", "broken": "broken"}.get(record.get("status"))
            reason = f"{status}: {record.get('reason', '')}" if status else record.get("reason", "")
            out.append(f"| {md(name)} | — | — | — | {md(reason)} | — | — |")
            continue
        _, counts = model.search_summary(name)
        curated = model.curated(name)
        reproduced = sum(1 for _, observed in curated if observed and observed.get("reproduced"))
        search = " / ".join(str(counts.get(k, 0)) for k in ("agrees", "documented", "undocumented", "refused", "unsupported"))
        out.append(f"| [{md(name)}]({model.implementation_page(name)}) | {md(record.get('version'))} | "
                   f"{md(record.get('language'))} | {md(record.get('profile'))} | {search} | "
                   f"{len(curated)} ({reproduced}) | [report]({model.implementation_page(name)}) |")
    out += ["", "*curated*: a disagreement `oracle.diagnose.classify` attributes to a class in "
            "`oracle/data/discrepancies.yaml`; *new*: one it does not (a finding to curate); *refused*: a valid input "
            "rejected, or an error.", "",
            "## Oracle profiles", "", "| profile | summary |", "|---|---|"]
    for profile in model.profiles:
        out.append(f"| {md(profile['name'])} | {md(profile['summary'])} |")
    out += ["", "`bleu-oracle profiles NAME` prints each convention with its citation.", "",
            "## Data files", "",
            "| file | one line per |", "|---|---|",
            "| `data/run.json` | (one object) the settings and versions |",
            "| `data/implementations.jsonl` | oracle profile, registry entry (installed or why not) |",
            "| `data/matrix.jsonl` | edge case (its request), then cell (edge case × column) |",
            "| `data/search.jsonl` | random input × implementation (its request when it differs) |",
            "| `data/discrepancies.jsonl` | curated class, with its minimal example re-run now |",
            "| `data/real_data.jsonl` | system × references × column |", ""]
    return "\n".join(out)


def _matrix_cell_md(model, cell):
    if cell is None:
        return "—"
    outcome = cell.get("outcome")
    if outcome == "score":
        text = fmt(cell.get("score"))
    elif outcome == "unsupported" and cell.get("not_applicable"):
        text = "n/a"
    else:
        text = outcome
    if cell.get("kind") == "implementation" and model.category(cell) in ("documented", "undocumented", "refused"):
        text += f" {DIFFERS_MARK}"
    return text


def render_matrix(model):
    out = ["# Edge-case matrix", "", "[index](README.md) · [HTML with plots](index.html) · [real data](real-data.md)", "",
           "Rows are the edge cases of `oracle/edge_cases.py`; columns are every oracle profile, then every installed "
           "implementation (version). A cell is the score (0–1), or what the implementation answered instead. "
           f"{DIFFERS_MARK} marks an implementation's answer that differs from the oracle under the implementation's "
           "declared profile; the list below the table gives both values and the root cause `oracle.diagnose.classify` names. "
           "*n/a*: outside the implementation's declared capabilities.", ""]
    header = ["edge case"] + [model.column_label(c) for c in model.columns]
    out.append("| " + " | ".join(md(h) for h in header) + " |")
    out.append("|---|" + "---:|" * len(model.columns))
    for case in model.cases:
        row = [f"{md(case['title'])} (`{case['id']}`)"]
        row += [md(_matrix_cell_md(model, model.cells.get((case["id"], c)))) for c in model.columns]
        out.append("| " + " | ".join(row) + " |")
    out += ["", "## Where implementations differ from the oracle", ""]
    found = False
    for case in model.cases:
        for column in model.columns[len(model.oracle_columns):]:
            cell = model.cells.get((case["id"], column))
            if cell is None or model.category(cell) not in ("documented", "undocumented", "refused"):
                continue
            found = True
            expected = cell.get("expected") or {}
            want = "rejects it" if expected.get("rejected") else fmt(expected.get("score"))
            got = fmt(cell.get("score")) if cell.get("outcome") == "score" else f"{cell.get('outcome')}: {cell.get('message')}"
            why = f"`{cell.get('classification')}`"
            if cell.get("documented"):
                why += " (curated: " + ", ".join(f"`{d}`" for d in cell["documented"]) + ")"
            out.append(f"- **{md(column)}** on `{case['id']}`: {got}; the oracle under profile {cell.get('profile')}: "
                       f"{want}. Root cause: {why}.")
    if not found:
        out.append("None.")
    out += ["", "## Other answers that are not scores", ""]
    found = False
    for case in model.cases:
        for column in model.columns:
            cell = model.cells.get((case["id"], column))
            if cell is None or cell.get("outcome") == "score":
                continue
            if cell.get("kind") == "implementation" and model.category(cell) in ("documented", "undocumented", "refused"):
                continue
            found = True
            out.append(f"- **{md(column)}** on `{case['id']}`: {cell.get('outcome')}: {md(cell.get('message') or '')}")
    if not found:
        out.append("None.")
    out += ["", "## The edge cases", "", "| id | edge case | why it matters | input |", "|---|---|---|---|"]
    for case in model.cases:
        out.append(f"| `{case['id']}` | {md(case['title'])} | {md(case['why'])} | {md(request_text(case['request']))} |")
    out.append("")
    return "\n".join(out)


def _real_columns(model, columns):
    oracle = [c for c in columns if c.startswith("oracle/")]
    return oracle + [c for c in columns if not c.startswith("oracle/")]


def _real_cell_md(record):
    if record is None:
        return "—"
    if record.get("outcome") != "score":
        return "n/a" if record.get("outcome") in ("unsupported", "skipped") else record.get("outcome", "?")
    if record.get("kind") == "oracle":
        return fmt_points(record.get("score"))
    return f"{fmt_points(record.get('score'))} ({fmt_delta(record.get('difference'))})"


def real_summary(model, references):
    """[(column, profile, scored, agree, max |diff|, mean diff, reason)] for the implementations, one setting."""
    table, columns = model.real_table(references)
    out = []
    for column in _real_columns(model, columns):
        if column.startswith("oracle/"):
            continue
        records = [table[s][column] for s in table if column in table[s]]
        scored = [r for r in records if r.get("outcome") == "score" and number(r.get("difference")) is not None]
        diffs = [number(r["difference"]) for r in scored]
        reasons = sorted({r.get("message") for r in records if r.get("outcome") != "score" and r.get("message")})
        causes = Counter(r.get("classification") for r in scored if not r.get("agrees")
                         and r.get("classification") not in (None, "not-classified"))
        unclassified = sum(1 for r in scored if r.get("classification") == "not-classified")
        out.append({
            "causes": causes, "unclassified": unclassified,
            "column": column, "profile": records[0].get("profile") if records else "",
            "scored": len(scored), "total": len(records),
            "agree": sum(1 for r in scored if r.get("agrees")),
            "max": max((abs(d) for d in diffs), default=None),
            "mean": (math.fsum(diffs) / len(diffs)) if diffs else None,
            "reasons": reasons,
        })
    return out


def _causes_text(row):
    """`segment_totals_floor=1` (4 systems) [+ N differences not classified]; or why none scored."""
    if not row["scored"] and row["reasons"]:
        return "not scored (see the notes)"
    parts = [f"`{cause}` ({n})" for cause, n in sorted(row["causes"].items(), key=lambda kv: (-kv[1], kv[0]))]
    if row["unclassified"]:
        parts.append(f"{row['unclassified']} more not classified")
    return "; ".join(parts) if parts else ("—" if row["agree"] == row["scored"] else "")


def render_real_data(model):
    source = model.real_source
    out = ["# Real data: WMT17 newstest2017 English–German", "",
           "[index](README.md) · [HTML with plots](index.html) · [edge-case matrix](matrix.md)", ""]
    if not model.real:
        out += [f"Not run: {source.get('skipped', 'no data')}.", ""]
        return "\n".join(out)
    systems = model.real_systems()
    out += [f"Every implementation on the system outputs of `../shared/data/{source.get('folder')}` "
            f"({len(systems)} of {len(source.get('all_systems', []))} systems, {source.get('segments')} segments each): "
            "corpus level, BLEU-4 with uniform weights, no smoothing, no case folding; tokens are "
            f"{source.get('tokens')}.", "",
            f"- **1 reference**: `{source.get('reference')}`.",
            f"- **4 references**: that reference plus {source.get('extra_reference_rule')} "
            "(other systems' outputs as pseudo-references).",
            "- Values are BLEU × 100 with 8 decimals; an implementation's value is followed by its difference from the "
            "oracle under the implementation's declared profile, in BLEU points (0: exactly equal). *n/a*: the "
            "implementation cannot take this input (see the notes).",
            f"- Root causes: `oracle.diagnose.classify` among the implementation's curated classes, on the first "
            f"{source.get('classified', 4)} differing systems of each setting (each classification recomputes the whole "
            "corpus under every alternative).", ""]
    for references in (1, 1 + int(source.get("extra_references", 3))):
        table, columns = model.real_table(references)
        columns = _real_columns(model, columns)
        title = "1 reference" if references == 1 else f"{references} references"
        out += [f"## {title}", "", "### Summary", "",
                "| implementation | judged against | systems scored | within the contract | max abs difference (points) | mean difference (points) | root cause of the differences |",
                "|---|---|---:|---:|---:|---:|---|"]
        for row in real_summary(model, references):
            mean = fmt_delta(row["mean"]) if row["mean"] is not None else "—"
            biggest = f"{100 * row['max']:.2e}" if row["max"] else ("0" if row["max"] == 0 else "—")
            out.append(f"| {md(model.column_label(row['column']))} | {md(row['profile'])} | {row['scored']}/{row['total']} | "
                       f"{row['agree']} | {biggest} | {mean} | {md(_causes_text(row))} |")
        out += ["", "### Per system", "",
                "| system | " + " | ".join(md(model.column_label(c)) for c in columns) + " |",
                "|---|" + "---:|" * len(columns)]
        for system in systems:
            if system not in table:
                continue
            row = [md(system)] + [md(_real_cell_md(table[system].get(c))) for c in columns]
            out.append("| " + " | ".join(row) + " |")
        if references > 1:
            out += ["", "Extra references per system: " + "; ".join(
                f"{s}: {', '.join(next(iter(table[s].values()))['reference_files'][1:])}" for s in systems if s in table) + "."]
        out.append("")
    notes = []
    for column in _real_columns(model, list(dict.fromkeys(r["column"] for r in model.real))):
        refused = [r for r in model.real if r["column"] == column and r.get("outcome") != "score"]
        if refused:
            first = refused[0]
            others = len(refused) - 1
            notes.append(f"- **{md(column)}**: {first.get('outcome')} on {len(refused)} of "
                         f"{sum(1 for r in model.real if r['column'] == column)} inputs; on {first['system']} "
                         f"({first['references']} reference{'s' if first['references'] > 1 else ''}): "
                         f"“{md(first.get('message') or '')}”" + (" (the others alike)" if others else ""))
    if notes:
        out += ["## Notes", ""] + notes + [""]
    return "\n".join(out)


def _observed_text(entry, observed, name, version):
    if observed is None and entry.get("observed") == "library":
        return "observed by calling the library itself (its adapter reports the raw values), not re-run"
    if observed is None:
        return "not re-run (the implementation is not installed)"
    answer = observed.get("answer") or {}
    expected = observed.get("expected") or {}
    got = fmt(answer.get("score"), None) if answer.get("outcome") == "score" else f"{answer.get('outcome')}: “{answer.get('message')}”"
    if answer.get("statistics"):
        got += f" (statistics {compact_json(answer['statistics'])})"
    want = "rejects the input" if expected.get("rejected") else fmt(expected.get("score"), None)
    verdict = "reproduced ✓" if observed.get("reproduced") else f"**not reproduced** (now: `{observed.get('classification')}`)"
    return f"{name} {version} answers {got}; the oracle under profile {observed.get('profile')} gives {want}: {verdict}"


def render_implementation(model, record):
    name = record["name"]
    run = model.run
    profile = next((p for p in model.profiles if p["name"] == record.get("profile")), {})
    records, counts = model.search_summary(name)
    curated = model.curated(name)
    class_counts = model.class_counts(name)
    reproduced = sum(1 for _, observed in curated if observed and observed.get("reproduced"))
    out = [f"# {name} {record.get('version')}: discrepancies from the oracle", "",
           "[index](../README.md) · [edge-case matrix](../matrix.md) · [real data](../real-data.md) · "
           "[HTML with plots](../index.html)", "",
           "| | |", "|---|---|",
           f"| library | {md(record.get('display_name', name))} {md(record.get('version'))} ({md(record.get('language'))}) |",
           f"| adapter | `{md(record.get('adapter'))}` |",
           f"| judged against | profile **{md(record.get('profile'))}**, the one it declares: {md(profile.get('summary', ''))} |",
           f"| capabilities | `{md(compact_json(record.get('capabilities')))}` |",
           f"| bleu-oracle | {md(run.get('suite_version'))}, Python {md(run.get('python'))} |",
           f"| random search | seed {run.get('seed')}, {len(records)} inputs |", "",
           "## Summary", "",
           f"- {len(curated)} curated class{'' if len(curated) == 1 else 'es'} of discrepancy (`oracle/data/discrepancies.yaml`); "
           f"{reproduced} reproduced with {name} {record.get('version')} by re-running their minimal examples.",
           f"- Random search: {counts.get('agrees', 0)} of {len(records)} inputs agree with the oracle; "
           f"{counts.get('documented', 0)} differ in a curated way, {counts.get('undocumented', 0)} in a way no curated "
           f"class explains, {counts.get('refused', 0)} are refused (valid input rejected, or an error), "
           f"{counts.get('unsupported', 0)} unsupported.", ""]
    out += ["## Conventions of the judged profile", "", "| convention | as documented |", "|---|---|"]
    for option, citation in profile.get("citations", []):
        out.append(f"| {md(option)} | {md(citation)} |")
    out += ["", "## Classes of discrepancy", ""]
    if not curated:
        out += ["None curated.", ""]
    for number_, (entry, observed) in enumerate(curated, 1):
        example = entry.get("example") or {}
        root = entry.get("root_cause") or {}
        contradicts = entry.get("contradicts") or {}
        label = entry.get("classify") or entry.get("rejection") or ""
        out += [f"### {number_}. `{entry.get('id')}`", "", md(entry.get("summary", "")).replace("\\|", "|"), ""]
        if entry.get("implementation") != name:
            out += [f"(Curated for {entry.get('implementation')}, whose code this adapter shares.)", ""]
        what = "rejection (the library's message starts with)" if entry.get("rejection") and not entry.get("classify") \
            else "classification"
        out += [f"- **kind**: {entry.get('kind')}; **{what}**: `{label}`"
                + (f" (raised when: `{entry['condition']}`)" if entry.get("condition") else ""),
                "- **minimal example** (protocol-v1 request):", "",
                "  ```json", "  " + compact_json(example.get("request")), "  ```", "",
                f"  in words: {request_text(example.get('request') or {})}",
                f"- **values, observed now**: {_observed_text(entry, observed, name, record.get('version'))}",
                f"- **values, as curated** (with {entry.get('implementation')} {entry.get('version')}): "
                f"implementation {compact_json(example.get('implementation'))}, oracle {compact_json(example.get('oracle'))}",
                f"- **root cause**: `{root.get('file', '')}`, `{root.get('function', '')}`: {root.get('detail', '')}",
                f"- **contradicts**: {contradicts.get('source', '')}: “{contradicts.get('quote', '')}”"]
        if entry.get("note"):
            out.append(f"- **note**: {entry['note']}")
        out += [f"- **in the random search**: {class_counts.get(entry.get('id'), 0)} of {len(records)} inputs", ""]
    groups = model.undocumented_groups(name)
    out += ["## Disagreements no curated class explains", ""]
    if not groups:
        out += ["None in the random search.", ""]
    for classification, group, smallest in groups:
        got = fmt(smallest.get("score"), None) if smallest.get("outcome") == "score" else \
            f"{smallest.get('outcome')}: “{smallest.get('message')}”"
        want = "rejects it" if smallest.get("expected_rejected") else fmt(smallest.get("expected"), None)
        out += [f"### `{classification}`: {len(group)} of {len(records)} inputs", ""]
        if smallest.get("description"):
            out += [md(smallest["description"]).replace("\\|", "|"), ""]
        out += [f"Smallest example ({smallest.get('id')}, {smallest.get('size')} tokens): {name} answers {got}; "
                f"the oracle under profile {smallest.get('profile')}: {want}.", "",
                "```json", compact_json(smallest.get("request")), "```", "",
                f"in words: {request_text(smallest.get('request') or {})}", "",
                "Inputs: " + ", ".join(r["id"] for r in group[:20]) + (" …" if len(group) > 20 else ""), ""]
    out += ["## Edge cases", "", f"| edge case | {md(name)} | oracle ({md(record.get('profile'))}) | verdict |",
            "|---|---:|---:|---|"]
    for case in model.cases:
        cell = model.cells.get((case["id"], name))
        if cell is None:
            continue
        expected = cell.get("expected") or {}
        want = "rejected" if expected.get("rejected") else fmt(expected.get("score"))
        category = model.category(cell)
        verdict = {"agrees": "agrees", "unsupported": "n/a"}.get(category, f"`{cell.get('classification')}`")
        if cell.get("documented"):
            verdict += " (" + ", ".join(f"`{d}`" for d in cell["documented"]) + ")"
        if cell.get("outcome") != "score" and cell.get("message"):
            verdict += f": {cell['message']}"
        out.append(f"| `{case['id']}` | {md(_matrix_cell_md(model, cell))} | {md(want)} | {md(verdict)} |")
    out.append("")
    return "\n".join(out)


# -- SVG -----------------------------------------------------------------------


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
    x0, x1 = left + 95, width - 300
    band_nan = (x1 + 15, x1 + 60)
    band_refused = (x1 + 75, x1 + 130)
    top = 40
    height = top + row_h * len(names) + 60
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" viewBox="0 0 {width} {height}" '
             'role="img" aria-label="deviation from the oracle across the random inputs">']
    parts.append(f'<text x="{left}" y="16" class="title">Deviation from the oracle on {model.run.get("examples")} random '
                 f'inputs (seed {model.run.get("seed")}), under each implementation\'s declared profile</text>')
    bottom = top + row_h * len(names)
    for (a, b), label in ((band_agree, "agrees"), (band_nan, "NaN≠"), (band_refused, "refused")):
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
            else:
                delta = abs(score - expected)
                x = xpos(math.log10(delta) if delta > 0 else LOG_RANGE[0])
            title = "" if category == "agrees" else \
                f"{record.get('id')}: {record.get('classification')}; {fmt(record.get('score'))} vs {fmt(record.get('expected'))}"
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
           '<a href="#matrix">edge-case matrix</a><a href="#real">real data</a><a href="#details">discrepancy reports</a>'
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
                           f'<td class="small">{_markdownish(_causes_text(row)) if row["scored"] else esc((row["reasons"][0] if row["reasons"] else "")[:200])}</td></tr>')
            out.append("</tbody></table>")
            out.append(f"<details><summary>Per system, {title}</summary>{_html_real_table(model, references)}</details>")
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


# -- writing ---------------------------------------------------------------------


def _write(path, text):
    path.parent.mkdir(parents=True, exist_ok=True)
    if not text.endswith("\n"):
        text += "\n"
    with open(path, "w", encoding="utf-8", newline="\n") as handle:
        handle.write(text)
    return path


def render(out):
    """Render every page of report directory `out` from `out/data/`; returns the paths written."""
    out = Path(out)
    model = Model(read_data(out))
    written = [
        _write(out / "README.md", render_readme(model)),
        _write(out / "matrix.md", render_matrix(model)),
        _write(out / "real-data.md", render_real_data(model)),
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


__all__ = ["PAGES", "Model", "render"]
