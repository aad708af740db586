"""The derivation of a score, written out as the tutorial in the seeds does it by hand.

Pure: builds text from the formulas in `bleu.py`; printing is the caller's job.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from fractions import Fraction

from . import bleu, exact
from .conventions import REFERENCE_LENGTH_RULES, Options


def _fraction(x: Fraction | float) -> str:
    if isinstance(x, Fraction):
        return f"{x.numerator}/{x.denominator}" if x.denominator != 1 else f"{x.numerator}"
    return f"{x:.10g}"


def _table(header: Sequence[object], rows: Sequence[Sequence[object]]) -> str:
    widths = [max(len(str(cell)) for cell in column) for column in zip(header, *rows, strict=True)]
    line = lambda cells: "  " + " | ".join(str(c).ljust(w) for c, w in zip(cells, widths, strict=True))  # noqa: E731
    return "\n".join([line(header), "  " + "-+-".join("-" * w for w in widths), *map(line, rows)])


def explain_segment(hypothesis: Sequence[str], references: Sequence[Sequence[str]], *, max_order: int,
                    options: Options, label: str = "segment") -> str:
    """Per order: each candidate n-gram with Count, its count in each reference, the max and Count_clip;
    the segment's matches/totals and r are the ones `bleu.segment_statistics` counts."""
    c, r, segment_matches, segment_totals = bleu._segment_counts(hypothesis, references, max_order, options)
    hypothesis, references = bleu._prepare(hypothesis, references, options)
    out = [f"{label}: hypothesis has {len(hypothesis)} tokens; references have {[len(r) for r in references]}"]
    # each sentence counted once, its n-grams then grouped by order: counting to order n for every n would
    # read the sentence max_order times
    candidate_by_order = _by_order(bleu.count(hypothesis, max_order))
    reference_by_order = [_by_order(bleu.count(r, min(max_order, len(hypothesis)))) for r in references]
    for n in range(1, max_order + 1):
        candidate = candidate_by_order.get(n, {})
        per_reference = [counts.get(n, {}) for counts in reference_by_order]
        header = [
            f"{n}-gram",
            "Count",
            *[f"in ref {i + 1}" for i in range(len(references))],
            "Max_Ref_Count",
            "Count_clip",
        ]
        rows = [
            [" ".join(g), c, *[ref.get(g, 0) for ref in per_reference], bleu.max_ref_count(g, per_reference),
             bleu.count_clip(g, candidate, per_reference)]
            for g, c in candidate.items()  # Counter keeps first-seen order: the sentence's order
        ]
        total, matches, floored = sum(candidate.values()), segment_matches[n - 1], segment_totals[n - 1]
        rows.append(["Total", total, *["" for _ in references], "", matches])
        out.append(f"\n order {n}:\n" + _table(header, rows))
        shown = f"{matches}/{floored}" if floored else "0/0 (no n-grams of this order)"
        if floored != total:
            shown += f" (the total {total} floored at segment_totals_floor = {options.segment_totals_floor})"
        out.append(f"  matches/totals for this segment = {shown}")
    lengths = [len(r) for r in references]
    out.append(
        f"\n reference length: c = {c}, reference lengths {lengths}; r = {r} "
        f"({options.reference_length}: {REFERENCE_LENGTH_RULES[options.reference_length]})"
    )
    return "\n".join(out)


def _by_order(counts: Counter) -> dict[int, dict[tuple, int]]:
    """order -> {n-gram: count} of a Counter of n-grams of several orders, first-seen order kept."""
    out: dict[int, dict[tuple, int]] = {}
    for gram, k in counts.items():
        out.setdefault(len(gram), {})[gram] = k
    return out


def explain_result(result: bleu.BleuResult) -> str:
    """How the statistics became the score: p_n, BP, the weighted mean."""
    s = result.statistics
    out = [f"\n{result.level} level, {s.segments} segment(s): c = {s.hyp_len}, r = {s.ref_len}"]
    out.append(f" smoothing: {result.smoothing.describe()}")
    for n, (m, t) in enumerate(zip(s.matches, s.totals, strict=True), start=1):
        if n > len(result.precisions):
            break
        p = result.precisions[n - 1]
        if p is None:
            shown = "left out (no n-grams)" if result.weights[n - 1] == 0 else "undefined (0/0)"
        else:
            shown = f"{_fraction(p)} = {float(p):.10g}"
        out.append(f" p_{n} = {m}/{t} -> {shown}   (w_{n} = {_fraction(result.weights[n - 1])})")
    if s.hyp_len > s.ref_len:
        out.append(f" BP = 1 because c > r ({s.hyp_len} > {s.ref_len})")
    elif s.hyp_len == 0:
        out.append(f" BP = {result.bp} (c = 0)")
    else:
        out.append(f" BP = e^(1 - r/c) = e^(1 - {s.ref_len}/{s.hyp_len}) = {float(result.bp):.10g}")
    for note in result.notes:
        out.append(f" note: {note}")
    out.append(f" BLEU = BP * exp(sum w_n log p_n) = {result.score:.12g}")
    out.append(f" score to {exact.DIGITS} significant digits: {result.score}")
    return "\n".join(out)
