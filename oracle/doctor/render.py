"""A `DoctorReport` for people: the terminal's text (`text`) and doctor.md (`markdown`).

Both read the model's attributes only; `--json` and doctor.json are the model itself.
"""

from __future__ import annotations

import textwrap

from oracle.escaping import markdown_code
from oracle.formulas.profiles import PROFILES
from oracle.formulas.tokenizers import TOKENIZERS

from .model import (
    FAILING_SEVERITIES,
    Difference,
    DoctorReport,
    Explanation,
    Location,
    NearReading,
    NumberReport,
    ShippedReading,
)

#: Explanations shown per number in the text, profiles computing the same number grouped (all with -v; doctor.md
#: shows 20).
SHOWN = 5
SHOWN_IN_MARKDOWN = 20
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
    count = f" ({len(profiles)} readings)" if len(profiles) > 1 else ""
    versions = f" [as {e.versions}]" if e.versions else ""
    return f"{names}{count}: tok {e.tokenize}, {case}{changes}{versions}"


def _how_it_matches(e: Explanation, given: str) -> str:
    """'on 0-100, rounds to 26.65': the scale the reading is on, and in what sense it gives the number."""
    if e.match == "float32":
        return f"on {e.scale}, {given} in float32 (single precision)"
    return f"on {e.scale}, rounds to {given}"


def _counted(number: NumberReport, groups: list, shown: int, where: str) -> str:
    """What the listed lines hold of all the readings that reproduce a number, and where the rest are: the counts
    add up to `explanation_count` ('45 of the 90 readings are on these 5 lines; 5 more on 1 more line with -v;
    40 more are not listed (--json lists the first 50)')."""
    on_lines = sum(len(profiles) for _, profiles in groups[:shown])
    rest_listed = sum(len(profiles) for _, profiles in groups[shown:])
    unlisted = number.explanation_count - len(number.explanations)
    if not (rest_listed or unlisted):
        return ""
    parts = [f"{on_lines} of the {number.explanation_count} readings are on these {_lines(shown)}"]
    if rest_listed:
        parts.append(f"{rest_listed} more on {_lines(len(groups) - shown, 'more ')} {where}")
    if unlisted:
        parts.append(f"{unlisted} more are not listed (--json lists the first {len(number.explanations)})")
    return "; ".join(parts)


def _lines(count: int, more: str = "") -> str:
    return f"{count} {more}line{'s' if count != 1 else ''}"


def _aligned(rows: list, align: str) -> list[str]:
    """Rows of cells as columns whose widths come from the cells, two spaces between them; `align` has an l (left)
    or r (right) per column."""
    widths = [max(len(row[k]) for row in rows) for k in range(len(align))]
    return ["  ".join(cell.ljust(width) if side == "l" else cell.rjust(width)
                      for cell, width, side in zip(row, widths, align, strict=True)).rstrip() for row in rows]


def _label(e: Explanation) -> str:
    case = "lowercased" if e.lowercase else "mixed case"
    changes = "".join(f", {name}={value}" for name, value in e.conventions.items())
    versions = f" [as {e.versions}]" if e.versions else ""
    return f"{e.profile}, tok {e.tokenize}, {case}{changes}{versions}"


def _score(e: Explanation, given: str = "") -> str:
    """A reading's score with 4 decimals on 0-100, 6 on 0-1, and one more than the number it is set against has
    (a score printed with fewer digits than the number would not show that it rounds to it)."""
    decimals = 4 if e.scale == "0-100" else 6
    if given:
        _, _, fraction = given.partition(".")
        decimals = max(decimals, min(len(fraction) + 1, 17))
    return _num(e.score, f".{decimals}f")


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
        f"{report.hypothesis} against {len(report.references)} reference{plural} ({refs}), {report.segments} "
        f"segment{'s' if report.segments != 1 else ''}"
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
    """What the terminal shows: the layout, the readings table, where a library as shipped departs from its
    profile, each number, each signature, each difference, and why the exit code is 1."""
    out = [f"bleu-oracle doctor: {_header(report)}", ""]
    out += _layout_lines(report)
    if report.readings and not quiet:
        out += _readings_lines(report, verbose)
    for shipped in report.as_shipped:
        out += ["", *_shipped_lines(shipped)]
    for number in report.numbers:
        out += ["", *_number_lines(number, verbose)]
    for sig in report.signatures:
        out += ["", f"Signature {sig.given}", f"  {_label(sig.reading)}: BLEU {_num(sig.reading.score, '.4f')}"]
        out += [f"  note: {note}" for note in sig.notes]
    for difference in report.differences:
        out += ["", *_difference_lines(difference, verbose)]
    out += [f"note: {note}" for note in report.notes]
    failing = _failing(report)
    if failing:
        out += ["", f"Exit 1: {failing}"]
    return "\n".join(line.rstrip() for line in out) + "\n"


def _failing(report: DoctorReport) -> str:
    """'2 layout findings at --fail-on error or above (line-count, empty-lines)' and 'no documented reading
    reproduces 99.99 (the nearest are listed under it)', what makes the exit code 1 ("" for none)."""
    said = []
    failing = [finding for finding in report.layout if finding.severity in FAILING_SEVERITIES[report.fail_on]]
    if failing:
        kinds = ", ".join(dict.fromkeys(finding.kind for finding in failing))
        said.append(f"{len(failing)} layout finding{'s' if len(failing) != 1 else ''} at --fail-on {report.fail_on} "
                    f"or above ({kinds}); --fail-on never leaves the exit code to the numbers")
    unexplained = [number.given for number in report.numbers if not number.explained]
    if unexplained:  # (exit 1 whatever --fail-on, docs/doctor.md)
        said.append(f"no documented reading reproduces {' or '.join(unexplained)} (the nearest are listed under "
                    f"{'it' if len(unexplained) == 1 else 'each'})")
    return "; ".join(said)


def _shipped_label(shipped: ShippedReading) -> str:
    e = shipped.reading
    case = "lowercased" if e.lowercase else "mixed case"
    changes = "".join(f", {name}={value}" for name, value in e.conventions.items())
    return f"{e.profile}, tok {e.tokenize}, {case}{changes}"


def _shipped_note(shipped: ShippedReading) -> str:
    """'nltk as shipped (3.2.5 .. 3.10.4) computes 23.3834 (0.2338336 on 0-1) here, where nltk as documented ...':
    what the library's code computes, what the profile does, why, and the reading that reproduces the code."""
    e = shipped.reading
    on_1 = "" if e.score is None else f" ({e.score / 100:.7f} on 0-1)"
    case = "lowercased" if e.lowercase else "mixed case"
    return (f"{shipped.library} as shipped ({shipped.versions}) computes {_num(e.score, '.4f')}{on_1} here, where "
            f"{shipped.library} as documented (tok {e.tokenize}, {case}) computes "
            f"{_num(shipped.documented, '.4f')}: its code departs from its documentation, {shipped.what} (discrepancy "
            f"{shipped.discrepancy}). The reading that reproduces the library as shipped: {_shipped_label(shipped)}")


def _shipped_lines(shipped: ShippedReading) -> list[str]:
    """The note, wrapped, and the signature that computes the shipped reading (`--signature` takes it)."""
    lines = textwrap.wrap(_shipped_note(shipped), width=114, initial_indent="Note: ", subsequent_indent="      ",
                          break_long_words=False, break_on_hyphens=False)
    return [*lines, f"      --signature \"{shipped.reading.signature}\""]


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
    out += ["  " + line for line in _aligned([["", *headers]] + [[name, *cells] for name, cells in rows],
                                             "l" + "r" * len(headers))]
    if verbose:
        out += [f"  {_num(r.score_100, '8.4f')}  {r.signature}" for r in report.readings]
    else:
        out.append("  (each reading's signature: -v or --json)")
    return out


def _number_lines(number: NumberReport, verbose: bool) -> list[str]:
    """A given number: the readings that reproduce it, best first, or the nearest ones and what they need."""
    if not number.explained:
        nearest = " Nearest:" if number.nearest else ""  # (none where nothing was scored: a note says why)
        out = [f"Number {number.given} ({_precision(number)}): no documented reading reproduces it.{nearest}"]
        for near in number.nearest:
            out.append(f"     {_label(near)}: {_score(near)} on {near.scale} ({_num(near.difference, '+.4f')})"
                       f"{_needs(near)}")
        return out
    groups = _groups(number.explanations)
    count = number.explanation_count
    out = [f"Number {number.given} ({_precision(number)}): {count} reading{'s' if count != 1 else ''} reproduce"
           f"{'s' if count == 1 else ''} it, most plausible first (a line: the profiles that compute it alike)"]
    shown = groups if verbose else groups[:SHOWN]
    rows = [[f"{rank}.", _score(e, number.given), _how_it_matches(e, number.given), _group_label(e, profiles)]
            for rank, (e, profiles) in enumerate(shown, 1)]
    out += ["  " + line for line in _aligned(rows, "rrll")]
    counted = _counted(number, groups, len(shown), "with -v")
    if counted:
        out.append(f"    {counted}")
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
                f"{markdown_code(r.signature, in_table=True)} |" for r in report.readings]  # (a `|` ends a cell)
    for number in report.numbers:
        out += ["", f"## Number {number.given}", ""]
        if number.explained:
            groups = _groups(number.explanations)
            shown = min(len(groups), SHOWN_IN_MARKDOWN)
            out += [f"{number.explanation_count} reading(s) reproduce it ({_precision(number)}), most plausible "
                    "first: a tool's defaults, then the fewest departures from them, then the closest.", "",
                    "| # | reading | score | how |", "| ---: | --- | ---: | --- |"]
            out += [f"| {i} | {_cell(_group_label(e, profiles))} | {_score(e)} | {_how_it_matches(e, number.given)} |"
                    for i, (e, profiles) in enumerate(groups[:shown], 1)]
            counted = _counted(number, groups, shown, "in doctor.json")
            if counted:
                out += ["", counted.capitalize() + "."]
        else:
            out += ["No documented reading reproduces it." + (" Nearest:" if number.nearest else ""), ""]
            out += [
                f"- {_label(n)}: {_score(n)} on {n.scale} ({_num(n.difference, '+.4f')}){_needs(n)}"
                for n in number.nearest
            ]
    for shipped in report.as_shipped:
        out += ["", f"## {shipped.library} as shipped", "", _shipped_note(shipped) + f", signature "
                f"`{shipped.reading.signature}`."]
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
    failing = _failing(report)
    if failing:  # (as the terminal's last line: the file a CI job keeps says why it failed)
        out += ["", f"Exit 1: {failing}"]
    return "\n".join(out) + "\n"


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")
