"""The trophy case (reports/trophies.md and a section of index.html): every curated discrepancy, one row each.

Rendered from the report's data files alone (`data/runs/*/results.jsonl` hold the re-runs of each curated
example; the entries themselves are `oracle/diagnose/data/discrepancies.yaml`, copied into the data):
which implementation and version, the minimal input, what the library answers and what its documentation
(the oracle under the profile it contradicts) gives, the root cause in its code, and what became of it
upstream.
"""

from __future__ import annotations

from collections import Counter

from .view import compact_json, fmt, md, request_text


def upstream_state(text):
    """"reported" (an issue or pull request is linked), "related" (one about a neighbouring behaviour),
    "deliberate" (a maintainer's choice, or documented) or "not reported"."""
    text = text or ""
    for prefix, state in (("not ", "not reported"), ("deliberate", "deliberate"), ("documented", "deliberate"),
                          ("related", "related")):
        if text.startswith(prefix):
            return state
    return "reported" if "https://" in text else "not reported"


def _value(answer):
    if not answer:
        return "—"
    if "score" in answer:
        return fmt(answer["score"], None)
    if "error" in answer:
        return f"error: “{answer['error']}”"
    if "rejected" in answer:
        return f"rejected: “{answer['rejected']}”"
    return compact_json(answer)


def trophy_rows(model):
    """One dict per curated discrepancy, in file order: what both pages show."""
    rows = []
    for entry in model.discrepancies:
        example = entry.get("example") or {}
        reruns = entry.get("rerun") or []
        own = next((r for r in reruns if r.get("implementation") == entry.get("implementation")), None)
        record = model.by_name.get(entry.get("implementation"), {})
        if own is None and entry.get("observed") == "library":
            now = "observed by calling the library itself, not re-run through its adapter"
        elif own is None:
            now = "not re-run" + ("" if record.get("status") == "installed" else " (not installed here)")
        elif own.get("reproduced"):
            now = f"reproduced with {record.get('version', entry.get('version'))}"
        else:
            now = f"not reproduced with {record.get('version', '?')} (now: {own.get('classification')})"
        root = entry.get("root_cause") or {}
        contradicts = entry.get("contradicts") or {}
        rows.append({
            "id": entry["id"], "implementation": entry.get("implementation"), "version": entry.get("version"),
            "language": record.get("language", ""), "kind": entry.get("kind"), "summary": entry.get("summary", ""),
            "input": request_text(example.get("request") or {}), "request": example.get("request") or {},
            "observed": _value(example.get("implementation")), "documented": _value(example.get("oracle")),
            "profile": entry.get("profile"), "contradicts": f"{contradicts.get('source', '')}: “{contradicts.get('quote', '')}”",
            "root_cause": f"{root.get('file', '')}, {root.get('function', '')}: {root.get('detail', '')}",
            "upstream": entry.get("upstream", ""), "state": upstream_state(entry.get("upstream")), "now": now,
        })
    return rows


def render_trophies(model):
    rows = trophy_rows(model)
    libraries = Counter(r["implementation"] for r in rows)
    states = Counter(r["state"] for r in rows)
    reproduced = sum(1 for r in rows if r["now"].startswith("reproduced"))
    out = ["# Trophy case: what the suite found", "",
           "[index](README.md) · [edge-case matrix](matrix.md) · [real data](real-data.md) · [HTML](index.html)", "",
           f"{len(rows)} curated discrepancies in {len(libraries)} implementations: places where a library's answer "
           "departs from the documentation it claims (the oracle under that documentation's profile), each shown on "
           "a minimal input, traced to a line of the library's code, and looked up in its tracker. "
           f"{reproduced} reproduced in this run with the versions installed here; upstream, {states['reported']} "
           f"are reported (an issue or pull request linked), {states['related']} have a related report, "
           f"{states['deliberate']} are deliberate or documented, {states['not reported']} were not found reported.", "",
           "Rendered from `oracle/diagnose/data/discrepancies.yaml` and this run's re-runs of each minimal example; "
           "`bleu-oracle check --impl NAME` finds them again.", "",
           "| implementation | discrepancy | minimal input | it answers | documented (profile) | upstream |",
           "|---|---|---|---|---|---|"]
    for r in rows:
        out.append(f"| {md(r['implementation'])} {md(r['version'])} | [`{md(r['id'])}`](#{r['id']}) | {md(r['input'])} | "
                   f"{md(r['observed'])} | {md(r['documented'])} ({md(r['profile'])}) | {md(r['state'])} |")
    out.append("")
    for r in rows:
        out += [f"## {r['id']}", "",
                f"**{md(r['implementation'])} {md(r['version'])}** ({md(r['kind'])}): {md(r['summary'])}", "",
                "- **minimal input**: " + md(r["input"]), "",
                "  ```json", "  " + compact_json(r["request"]), "  ```", "",
                f"- **it answers** {md(r['observed'])}; **documented** {md(r['documented'])} (profile {md(r['profile'])}); "
                f"{md(r['now'])}",
                f"- **root cause**: `{md(r['root_cause'])}`",
                f"- **contradicts**: {md(r['contradicts'])}",
                f"- **upstream** ({r['state']}): {md(r['upstream'])}", ""]
    return "\n".join(out)
