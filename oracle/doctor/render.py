"""A `DoctorReport` for people: the terminal's text (`text`) and doctor.md (`markdown`).

Both read the model's attributes only; `--json` and doctor.json are the model itself.
"""

from __future__ import annotations

from oracle.formulas.profiles import PROFILES
from oracle.formulas.tokenizers import TOKENIZERS

from .model import Difference, DoctorReport, Explanation, Location, NearReading, NumberReport

#: Explanations shown per number in the text, profiles computing the same number grouped (all with -v; doctor.md
#: shows 20).
SHOWN = 5
BAR = 30


def _groups(explanations: list) -> list:
    """Explanations that compute the same score the same way except for the profile's name, as one entry:
    [(first explanation, [profile names])], in the order of their best member."""
    groups: dict[tuple, tuple[Explanation, list[str]]] = {}
    for e in explanations:
        key = (e.tokenize, e.lowercase, tuple(e.conventions.items()), e.scale, e.score, e.match)
        first, profiles = groups.setdefault(key, (e, []))
        profiles.append(e.profile)
        if e.versions and not first.versions:  # the group says which releases behave so (the history's data)
            groups[key] = (first.model_copy(update={"versions": e.versions}), profiles)
    return list(groups.values())


def _group_label(e: Explanation, profiles: list) -> str:
    case = "lowercased" if e.lowercase else "mixed case"
    changes = "".join(f", {name}={value}" for name, value in e.conventions.items())
    names = "every profile" if sorted(profiles) == sorted(PROFILES) else " = ".join(profiles)
    versions = f" [as {e.versions}]" if e.versions else ""
    return f"{names}: tok {e.tokenize}, {case}{changes}{versions}"


def _label(e: Explanation) -> str:
    case = "lowercased" if e.lowercase else "mixed case"
    changes = "".join(f", {name}={value}" for name, value in e.conventions.items())
    versions = f" [as {e.versions}]" if e.versions else ""
    return f"{e.profile}, tok {e.tokenize}, {case}{changes}{versions}"


def _score(e: Explanation) -> str:
    return _num(e.score, ".4f" if e.scale == "0-100" else ".6f")


def _num(value: float | None, spec: str) -> str:
    """A score as text; "undefined" for null (NaN: nothing to score)."""
    return "undefined" if value is None else format(value, spec)


def _precision(number: NumberReport) -> str:
    return f"+/- {number.half_unit:g}"


def _needs(near: NearReading) -> str:
    if not near.needs:
        return ""
    parts = [f"{need.statistic} {need.needed:,} instead of {need.current:,}"
             + (" (reproduces it)" if need.reproduces else "") for need in near.needs]
    return "; would need " + ", or ".join(parts)


def _header(report: DoctorReport) -> str:
    refs = ", ".join(report.references)
    plural = "s" if len(report.references) > 1 else ""
    return (
        f"{report.hypothesis} against {len(report.references)} reference{plural} ({refs}), {report.segments} segments"
    )


def _readings_grid(report: DoctorReport) -> tuple:
    """(column headers, rows): profiles down, tokenizer x case across, BLEU on 0-100."""
    by_key = {(r.profile, r.tokenize, r.lowercase): r for r in report.readings}
    columns = [(tokenizer, lowercase) for tokenizer in TOKENIZERS for lowercase in (False, True)]
    headers = [f"{tokenizer} {'lc' if lowercase else 'mixed'}" for tokenizer, lowercase in columns]
    rows = [(name, [_num(by_key[(name, t, lc)].score_100, ".2f") if (name, t, lc) in by_key else "-"
                    for t, lc in columns]) for name in PROFILES]
    return headers, rows


def text(report: DoctorReport, *, verbose: bool = False, quiet: bool = False) -> str:
    """What the terminal shows: the layout, the readings table, each number, each signature, each difference."""
    out = [f"bleu-oracle doctor: {_header(report)}", ""]
    out += _layout_lines(report)
    if report.readings and not quiet:
        out += _readings_lines(report, verbose)
    for number in report.numbers:
        out += ["", *_number_lines(number, verbose)]
    for sig in report.signatures:
        out += ["", f"Signature {sig.given}", f"  {_label(sig.reading)}: BLEU {_num(sig.reading.score, '.4f')}"]
        out += [f"  note: {note}" for note in sig.notes]
    for difference in report.differences:
        out += ["", *_difference_lines(difference, verbose)]
    out += [f"note: {note}" for note in report.notes]
    return "\n".join(line.rstrip() for line in out) + "\n"


def _layout_lines(report: DoctorReport) -> list[str]:
    if not report.layout:
        return ["Layout: no problem found"]
    out = [f"Layout: {len(report.layout)} finding(s)"]
    for finding in report.layout:
        where = ", ".join(_place(w) for w in finding.where)
        out.append(f"  {finding.severity:<8} {finding.kind:<22} {where}")
        out.append(f"           {finding.message}")
        if finding.effect:
            e = finding.effect
            out.append(f"           effect: {e.change}: BLEU {_num(e.before, '.2f')} -> {_num(e.after, '.2f')} "
                       f"({_num(e.delta, '+.4f')}) [{e.reading}]")
        else:
            out.append(f"           effect: not measured ({finding.no_effect_reason})")
    return out


def _place(where: Location) -> str:
    """file, file:line or file:line:column."""
    return where.file + "".join(f":{part}" for part in (where.line, where.column) if part)


def _readings_lines(report: DoctorReport, verbose: bool) -> list[str]:
    headers, rows = _readings_grid(report)
    out = ["", "Readings: BLEU on the 0-100 scale (0-1: the same / 100), every profile as it stands:"]
    out.append("  " + f"{'':<15}" + "".join(f"{h:>11}" for h in headers))
    out += ["  " + f"{name:<15}" + "".join(f"{cell:>11}" for cell in cells) for name, cells in rows]
    if verbose:
        out += [f"  {_num(r.score_100, '8.4f')}  {r.signature}" for r in report.readings]
    else:
        out.append("  (each reading's signature: -v or --json)")
    return out


def _number_lines(number: NumberReport, verbose: bool) -> list[str]:
    """A given number: the readings that reproduce it, best first, or the nearest ones and what they need."""
    if not number.explained:
        out = [f"Number {number.given} ({_precision(number)}): no documented reading reproduces it. Nearest:"]
        for near in number.nearest:
            out.append(f"     {_label(near)}: {_score(near)} on {near.scale} ({_num(near.difference, '+.4f')})"
                       f"{_needs(near)}")
        return out
    groups = _groups(number.explanations)
    out = [f"Number {number.given} ({_precision(number)}): reproduced by {number.explanation_count} "
           f"reading(s), best first"]
    shown = groups if verbose else groups[:SHOWN]
    for rank, (e, profiles) in enumerate(shown, 1):
        out.append(f"  {rank:>3}. {_score(e):>10} on {e.scale:<5} {e.match:<7}  {_group_label(e, profiles)}")
    left = sum(len(profiles) for _, profiles in groups[len(shown):]) + number.explanation_count - len(
        number.explanations)
    if left:
        out.append(f"       ... {left} more (-v, or --json for the first 50)")
    return out


def _difference_lines(difference: Difference, verbose: bool) -> list[str]:
    """The waterfall from one reading to another: each step's score, change and share of the difference."""
    out = [f"Difference {difference.source} -> {difference.target}",
           f"  from {_label(difference.start)}", f"  to   {_label(difference.end)}",
           f"  {'start':<60} {_num(difference.start_score, '9.4f')}"]
    for step in difference.steps:
        if step.delta == 0 and not verbose:
            continue
        bar = ("+" if (step.delta or 0) > 0 else "-") * round(abs(step.share or 0) * BAR)
        share = f"{step.share:7.1%}" if step.share is not None else "      -"
        out.append(
            f"  {step.step + ': ' + step.change:<60.60} {_num(step.score, '9.4f')} {_num(step.delta, '+9.4f')} "
            f"{share} {bar}"
        )
    inert = [step.step for step in difference.steps if step.delta == 0]
    if inert and not verbose:
        out.append(f"  {'differing, no effect here: ' + ', '.join(inert):<60}   (-v shows them)")
    given = (
        ""
        if difference.given is None
        else (
            f"; the numbers as given differ by {_num(difference.given, '+.4f')} "
            f"(rounding {_num(difference.rounding, '+.4f')})"
        )
    )
    out.append(f"  {'end':<60} {_num(difference.end_score, '9.4f')}")
    out.append(f"  the steps add up to {_num(difference.computed, '+.4f')}{given}")
    return out


def markdown(report: DoctorReport) -> str:
    """doctor.md: the same content as tables."""
    out = ["# bleu-oracle doctor", "", _header(report), "", "## Layout", ""]
    if report.layout:
        out += ["| severity | kind | where | what | effect |", "| --- | --- | --- | --- | --- |"]
        for f in report.layout:
            where = ", ".join(f"`{_place(w)}`" for w in f.where)
            effect = (f"{f.effect.change}: {_num(f.effect.before, '.2f')} -> {_num(f.effect.after, '.2f')} "
                      f"({_num(f.effect.delta, '+.4f')}) under {f.effect.reading}" if f.effect
                      else f"not measured: {f.no_effect_reason}")
            out.append(f"| {f.severity} | {f.kind} | {where} | {_cell(f.message)} | {_cell(effect)} |")
    else:
        out.append("No problem found.")
    if report.readings:
        headers, rows = _readings_grid(report)
        out += ["", "## Readings (BLEU, 0-100)", "", "| profile | " + " | ".join(headers) + " |",
                "| --- |" + " ---: |" * len(headers)]
        out += [f"| {name} | " + " | ".join(cells) + " |" for name, cells in rows]
        out += ["", "| reading | BLEU | signature |", "| --- | ---: | --- |"]
        out += [f"| {r.profile}, {r.tokenize}, {'lc' if r.lowercase else 'mixed'} | {_num(r.score_100, '.4f')} | "
                f"`{r.signature}` |" for r in report.readings]
    for number in report.numbers:
        out += ["", f"## Number {number.given}", ""]
        if number.explained:
            out += [f"Reproduced by {number.explanation_count} reading(s) ({_precision(number)}), best first:", "",
                    "| # | reading | score | scale | match |", "| ---: | --- | ---: | --- | --- |"]
            out += [f"| {i} | {_group_label(e, profiles)} | {_score(e)} | {e.scale} | {e.match} |"
                    for i, (e, profiles) in enumerate(_groups(number.explanations)[:20], 1)]
        else:
            out += ["No documented reading reproduces it. Nearest:", ""]
            out += [
                f"- {_label(n)}: {_score(n)} on {n.scale} ({_num(n.difference, '+.4f')}){_needs(n)}"
                for n in number.nearest
            ]
    for sig in report.signatures:
        out += ["", f"## Signature `{sig.given}`", "", f"{_label(sig.reading)}: BLEU {_num(sig.reading.score, '.4f')}"]
        out += [f"- {note}" for note in sig.notes]
    for d in report.differences:
        out += ["", f"## Difference {d.source} -> {d.target}", "", f"From {_label(d.start)} to {_label(d.end)}.", "",
                "| step | change | BLEU | delta | share |", "| --- | --- | ---: | ---: | ---: |",
                f"| start | | {_num(d.start_score, '.4f')} | | |"]
        out += [f"| {s.step} | {_cell(s.change)} | {_num(s.score, '.4f')} | {_num(s.delta, '+.4f')} | "
                f"{'' if s.share is None else f'{s.share:.0%}'} |" for s in d.steps]
        out.append(f"| end | | {_num(d.end_score, '.4f')} | {_num(d.computed, '+.4f')} | |")
        if d.given is not None:
            out += ["", f"The numbers as given differ by {_num(d.given, '+.4f')}; rounding {_num(d.rounding, '+.4f')}."]
    out += [f"\nNote: {note}" for note in report.notes]
    return "\n".join(out) + "\n"


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")
