"""Fitted counting (issue 36, counting-fit): a counting stage's arithmetic fitted to the integers an implementation
returned, where no named counting variant gives them.

The named variants (`mechanisms.counting`: `COUNTING_ALTERNATIVES`, `LENGTH_READINGS`, `STAGE_KINDS`, ...) are each a
shape of code, read from a bug or a mutant; another author's code for the same stage computes another arithmetic.
This module enumerates a small grammar of expressions over quantities computed from the request alone, per segment
and summed over the corpus, one grammar per counting field:

- `hyp_len` and `ref_len`: a segment's hypothesis length, its shortest, longest, first or last reference's length, the
  sum of its references' lengths, their mean rounded down, their number, or a constant 0 or 1; each alone, then plus
  or minus 1 or 2 (`a + d`, d in -2..2).
- `totals` (at each order n): the number of windows of width n + k (k in -2..2, k = 0 being the formulas'), or of
  one fixed width w at every order (w in 1..4), as a loop `range(len - w + 1)` counts them (never below 0); one window
  per segment (a loop `range(1)`); then the same arithmetic unclamped (`len - n - k + 1` summed as it is, negative for
  a short segment).
- `matches` (at each order n): the hypothesis's windows of width n + k or of a fixed width w, matched against the
  references' windows of the same width and clipped by the largest count in any one reference (the formulas' clip),
  by the sum, the smallest, the first's or the last's count, not clipped, or counted as sets (each distinct window
  once).
- stage 2, an n-gram extraction other than the formulas' applied to both sides (fit-aggregation, after every
  expression above): the loop `tokens[i:i + n] for i in range(len - n + 1)` with issue 36's operators applied (every
  window but the last, but the first, one past the end, the width one narrower, a window at every position, the first
  window alone, the bound's operands swapped, the slice's start left out, the key's tokens sorted, a stride of n, the
  segments read as one stream), each's matches clipped as the formulas clip, and its totals where no expression above
  spans them.
- stage 5, the corpus aggregation (fit-aggregation, last): each field's corpus value from the formulas' own per-segment
  values aggregated otherwise than the sum (the first segment's or the last's alone, every segment but the first or
  the last, the largest, the mean rounded down; on two segments at least), and c read from each segment's r.

Each expression is tried in order of size (a base quantity before an offset from it, the formulas' clip before
another, the order's own width before another), and every one that gives the returned integers of its field at
every order exactly is kept, the smallest first; every field that differs must be fitted (the others being the
formulas'). A fit is a fit of the returned integers, not a line of code read: its name says so
(`<field>-fitted-as-<expression>`), a record keeps what is known (`other-counting-of-<layer>`) as its name with the
fits beside it (`classify._with_what_is_known`), and since one record's small integers can fit an expression by
chance, a fitted name needs evidence (`mechanisms.needs_evidence`): a run is named by it only where most of its
records named what is known of that field share it (`cover._fitted_over_known`).

Cost: the lengths and totals are one pass over the request's tokens (one `charge`); each window width the matches are
counted at is one pass more (widths 1 to max order + 2, four at least); the stage 2 extractors and stage 5's per-segment
matches read the formulas' windows of each order 1..n (`_Tables.windows_of`, a pass a width, charged), most extractors
as a change of a few keys to them, the segments read as one stream one pass more; stage 5's per-segment lengths and
totals, and the stage 2 totals, are arithmetic on the lengths, uncharged. Each segment's windows of a width are counted
once for every reading of them (`_Shared.segment_windows`: the clips' matches and the stage 2 and 5 expressions'), and a
stage 2 extractor's matches are computed order by order, no further than the first order that differs from the returned
matches (`_Tables.agrees`), charged as if every order were computed (fit-cost2); where the search's budget is spent,
nothing is fitted (the record keeps what is known). In `classify.what_is_known` (a record its run does not search) the
passes are the fit's own, charged to no budget. A record's request is fitted several times (among its kind's hints, its
block's causes, what is known): what its first fit computed (the folded tokens, each width's matches, each expression's
value) is kept with the request (`classify`'s `Context.counted`) and read by the later fits, each of which is charged
the passes it would have made (`_Tables`), so that no budget depends on which fit came first.
"""

from __future__ import annotations

import itertools
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from oracle.diagnose.counting import _counts_of, _reported_counts, fold_of
from oracle.formulas import bleu, runs

#: The counting fields, in the order a record's fitted parts are named.
FIELDS = ("hyp_len", "ref_len", "matches", "totals")
#: Every name of a fitted counting starts with its field and this word (`<field>-fitted-as-<expression>`).
FITTED = "-fitted-as-"
#: The offsets an expression's base quantity is moved by (`a + d`).
OFFSETS = (-2, -1, 1, 2)
#: The fixed widths a window may have at every order (one order's value read at each).
FIXED_WIDTHS = (1, 2, 3, 4)
#: The order the differing fields are fitted in: the matches, a pass a window width, last, so that a differing field no
#: expression gives (nothing fitted) is found before they are counted.
_FITTED_FIRST = ("hyp_len", "ref_len", "totals", "matches")
#: The most fits one record keeps (the smallest first): the rest say nothing a run's pattern needs.
MOST_FITS = 12
#: The grammar's expressions that compute what a named reading does (a convention of `formulas/conventions.py`, a
#: length reading of `mechanisms.counting.LENGTH_READINGS`), on every input: kept in the grammar (a record its run does
#: not search, `classify.what_is_known`, is fitted, never searched), but beside a record that reading names such a fit
#: says nothing more, and no run's count of it may outgrow the named reading's (`classify._fits_beside_named`).
SAME_AS_NAMED = {
    f"ref_len{FITTED}shortest-reference": "reference_length=shortest",
    f"ref_len{FITTED}longest-reference": "reference_length=longest",
    f"ref_len{FITTED}first-reference": "reference-length-of-first-reference",
    f"ref_len{FITTED}last-reference": "reference-length-of-last-reference",
}


class _Shared:
    """What fitting one request computes, kept for every later fit of it (`fit`'s `kept`: the request's own dict,
    `classify`'s `Context.counted`): a failing record's request is fitted several times (its search among its kind's
    hints, its block's causes, what is known) and each computation is a function of the request and its case folding
    alone. Nothing here is charged: what a fit charges is `_Tables`', the same on a request fitted before or not."""

    __slots__ = ("segments", "options", "folded", "windows", "matched", "values", "kept")

    def __init__(self, segments: Sequence[Any], options: Any) -> None:
        self.segments, self.options = segments, options
        #: the hypotheses and the references, folded as the oracle folds them: read only where an expression reads
        #: the tables (a fit among no expression of a field, as a search among given names is, reads nothing)
        self.folded: tuple[list[tuple[str, ...]], list[list[tuple[str, ...]]]] | None = None
        #: each window width's windows, per segment: the hypothesis's and each reference's (`segment_windows`)
        self.windows: dict[int, list[tuple[Counter, list[Counter]]]] = {}
        #: each window width's corpus matches by clip (`_clip_sums`)
        self.matched: dict[int, dict[str, int]] = {}
        #: each (expression's name, n)'s value, with the passes it read (a window width's matches, an int; a stage 2
        #: or 5 quantity's pass, a tuple), in the order it read them
        self.values: dict[tuple[str, int], tuple[Any, tuple[Any, ...]]] = {}
        #: the stage 2 and 5 expressions' quantities (`_Tables.windows_of`, `extracted`), by their pass
        self.kept: dict[Any, Any] = {}

    def tokens(self) -> tuple[list[tuple[str, ...]], list[list[tuple[str, ...]]]]:
        """The hypotheses and each segment's references, folded (once)."""
        if self.folded is None:
            fold = fold_of(self.options)
            segments = self.segments
            if fold is None:
                self.folded = ([tuple(s.hypothesis) for s in segments],
                               [[tuple(r) for r in s.references] for s in segments])
            else:  # each distinct token folded once (a 65,600-token run is one token)
                folded = {token: fold(token) for s in segments for tokens in (s.hypothesis, *s.references)
                          for token in set(tokens)}
                self.folded = ([tuple(map(folded.__getitem__, s.hypothesis)) for s in segments],
                               [[tuple(map(folded.__getitem__, r)) for r in s.references] for s in segments])
        return self.folded

    def segment_windows(self, width: int) -> list[tuple[Counter, list[Counter]]]:
        """Each segment's hypothesis windows of `width` and each of its references' (the formulas' extractor), counted
        once for every reading of them: each clip's matches (`_Tables.matched`) and the stage 2 and 5 expressions'
        (`_Tables.windows_of`) read the same windows."""
        found = self.windows.get(width)
        if found is None:
            hypotheses, references = self.tokens()
            found = self.windows[width] = _segment_windows(hypotheses, references, width)
        return found


def _shared(segments: Sequence[Any], options: Any, kept: dict | None) -> _Shared:
    """The kept computations of this request under this case folding (new where `kept` is None or holds none)."""
    if kept is None:
        return _Shared(segments, options)
    key = ("counting fit", options.lowercase, options.case_fold if options.lowercase else None)
    found = kept.get(key)
    if found is None or found.segments is not segments:  # (another request's: never read for this one)
        found = kept[key] = _Shared(segments, options)
    return found


class _Tables:
    """The request's per-segment quantities, computed once and only where an expression reads them: the lengths
    (one pass, charged where the tables are built) and, per window width, every clip's corpus matches (one pass a
    width, charged). What was computed for an earlier fit of the same request (`kept`) is read, not computed again,
    and charged as if it were computed: each fit's charges are the same whether the request was fitted before or not,
    so that no budget depends on which fit of a request came first."""

    def __init__(self, segments: Sequence[Any], options: Any, charge: Callable[[], None],
                 kept: dict | None = None) -> None:
        charge()
        self.charge = charge
        self._shared = _shared(segments, options, kept)
        self._charged: set[Any] = set()  # the passes this fit has charged (a window width's matches: the width)
        self._read: list[Any] | None = None  # the passes the expression being computed has read (`value`)

    @property
    def hypotheses(self) -> list[tuple[str, ...]]:
        return self._shared.tokens()[0]

    @property
    def references(self) -> list[list[tuple[str, ...]]]:
        return self._shared.tokens()[1]

    def _pass(self, read: Any) -> None:
        """A pass over the request (`read`: a window width's matches, or a stage 2 quantity's key), charged once a fit,
        and noted for the expression being computed (`value`), so that a later fit reading its kept value charges it
        again."""
        if read not in self._charged:
            self.charge()
            self._charged.add(read)
        if self._read is not None:
            self._read.append(read)

    def matched(self, width: int) -> dict[str, int]:
        """Each clip's (`_CLIPS`) matches over the corpus, the hypothesis's windows of `width` against each
        reference's windows of `width`."""
        self._pass(width)
        sums = self._shared.matched.get(width)
        if sums is None:
            sums = self._shared.matched[width] = _clip_sums_of(self._shared.segment_windows(width))
        return sums

    def value(self, expression: Expression, n: int) -> Any:
        """`expression`'s value at order `n`: kept from an earlier fit of the request, its window widths read again
        (each charged where this fit has not charged it yet, as computing it charges), or computed and kept."""
        key = (expression.name, n)
        known = self._shared.values.get(key)
        if known is not None:
            value, passes = known
            for read in passes:
                if isinstance(read, int):
                    self.matched(read)
                else:
                    self._pass(read)
            return value
        self._read = []
        try:
            value = expression.value(self, n)
            self._shared.values[key] = (value, tuple(self._read))
        finally:
            self._read = None
        return value

    def windows_of(self, width: int) -> list[tuple[Counter, list[Counter], int]]:
        """Each segment's hypothesis windows of `width` and each of its references' (the formulas' extractor), with
        the formulas' clipped matches beside them: kept for the stage 2 extractors, most of which change a few keys of
        these (a pass over the request, charged)."""
        self._pass(("windows", width))
        return self._kept_windows(width)

    def _kept_windows(self, width: int) -> list[tuple[Counter, list[Counter], int]]:
        """`windows_of`, uncharged (the caller has charged the pass)."""
        key = ("windows", width)
        if key not in self._shared.kept:
            self._shared.kept[key] = [(hypothesis, references, _clipped(hypothesis, references))
                                      for hypothesis, references in self._shared.segment_windows(width)]
        return self._shared.kept[key]

    def extracted(self, extractor: str, n: int) -> tuple[int, ...]:
        """The matches at orders 1..n of the n-gram extractor `extractor` (`_EXTRACTORS`) applied to the hypothesis
        and every reference alike, each key clipped to its largest count in any one reference, each order's kept
        (`_extracted_at`); the passes they read charged (`_extraction_passes`)."""
        for read in _extraction_passes(extractor, n):
            self._pass(read)
        return tuple(self._extracted_at(extractor, order) for order in range(1, n + 1))

    def agrees(self, expression: Expression, n: int, wanted: Any) -> bool:
        """Whether `expression`'s value at order `n` is `wanted` (`value(expression, n) == wanted`). A stage 2
        extractor's matches (`_EXTRACTOR_OF`) not kept whole are compared order by order, and not computed past the
        first order that differs (most differ at order 1); they are charged the passes computing every order reads
        (`_extraction_passes`), so that what a fit is charged does not depend on where its values first differ."""
        extractor = _EXTRACTOR_OF.get(expression.name)
        if extractor is None or (expression.name, n) in self._shared.values:
            return bool(self.value(expression, n) == wanted)
        for read in _extraction_passes(extractor, n):
            self._pass(read)
        return all(self._extracted_at(extractor, order) == wanted[order - 1] for order in range(1, n + 1))

    def _extracted_at(self, extractor: str, order: int) -> int:
        """The matches at `order` of the n-gram extractor `extractor` (kept; uncharged: the caller has charged the
        passes). The loop's bound moved (`_CHANGED`) is the formulas' windows with a few keys removed or added,
        computed as that change (on the kept windows); the width one narrower is the formulas' matches one width down;
        the sorted keys re-key the kept windows; the others count their few windows, or the segments as one stream."""
        key = ("extracted", extractor, order)
        found = self._shared.kept.get(key)
        if found is None:
            if extractor in _CHANGED:
                found = _changed_matches(self._kept_windows(order), self.hypotheses, self.references, order,
                                         _CHANGED[extractor])
            elif extractor == "windows-one-narrower":
                found = (sum(clipped for _, _, clipped in self._kept_windows(order - 1)) if order > 1 else
                         _narrowest_matches(self.hypotheses, self.references))
            elif extractor == "windows-as-sorted-tuples":
                found = _sorted_matches(self._kept_windows(order), order)
            else:
                found = _few_matches(_streams(self, extractor), extractor, order)
            self._shared.kept[key] = found
        return found

    def per_segment(self, field: str, n: int) -> list[Any] | None:
        """The formulas' own `field` of each segment, as section 2.1 counts one sentence under the request's options:
        c_i, r_i (its reference-length rule), or per order m_{n,i} (the kept windows' clipped matches, `windows_of`:
        charged there) or l_{n,i} (len - n + 1, at least its floor on the totals): what the corpus aggregations add up
        otherwise than the sum. None where a segment has no reference (the formulas refuse it)."""
        if not all(self.references):
            return None
        if field == "hyp_len":
            return [len(h) for h in self.hypotheses]
        if field == "ref_len":
            rule = self._shared.options.reference_length
            return [bleu.effective_reference_length(len(h), [len(r) for r in refs], rule)
                    for h, refs in zip(self.hypotheses, self.references, strict=True)]
        if field == "totals":
            floor = self._shared.options.segment_totals_floor
            return [tuple(max(len(h) - order + 1, 0, floor) for order in range(1, n + 1)) for h in self.hypotheses]
        by_order = [self.windows_of(order) for order in range(1, n + 1)]
        return [tuple(kept[i][2] for kept in by_order) for i in range(len(self.hypotheses))]


def _segment_windows(hypotheses: Sequence[tuple[str, ...]], references: Sequence[Sequence[tuple[str, ...]]],
                     width: int) -> list[tuple[Counter, list[Counter]]]:
    """Each segment's hypothesis windows of `width` and each of its references' (`_windows`)."""
    return [(_windows(hypothesis, width), [_windows(reference, width) for reference in refs])
            for hypothesis, refs in zip(hypotheses, references, strict=True)]


def _clip_sums(hypotheses: Sequence[tuple[str, ...]], references: Sequence[Sequence[tuple[str, ...]]],
               width: int) -> dict[str, int]:
    """Each clip's matches over the corpus at window `width` (`_clip_sums_of` the segments' windows)."""
    return _clip_sums_of(_segment_windows(hypotheses, references, width))


def _clip_sums_of(windows: Sequence[tuple[Counter, list[Counter]]]) -> dict[str, int]:
    """Each clip's matches over the corpus, each segment's hypothesis windows against its references' (`windows`, of
    one width): every hypothesis window's count and its count in each reference, tallied (most windows share a few
    such pairs), then each clip of each pair taken once and multiplied by how many windows have it (integers: the sum
    of the clip over every window)."""
    tally: Counter = Counter()
    for counts, refs in windows:
        if not refs:
            continue
        grams = list(counts)
        # (each reference's count of each hypothesis window, a column a reference; zipped into each window's limits)
        limits = [list(map(reference.get, grams, itertools.repeat(0))) for reference in refs]
        tally.update(zip(counts.values(), zip(*limits, strict=True), strict=True))
    return {name: sum(clip(k, list(limits)) * times for (k, limits), times in tally.items())
            for name, (_, clip) in _CLIPS.items()}


def _windows(tokens: tuple[str, ...], width: int) -> Counter:
    """Each window of `width` tokens (a tuple, as `tokens[i:i + width]`) and how often it occurs: a long sentence of few
    runs of one token (a 65,600-token run) counted run by run, as the formulas count it (`runs.count_by_runs`, every
    width up to `width`, the windows of `width` kept)."""
    if runs.mostly_runs(tokens, width):
        return Counter({gram: k for gram, k in runs.count_by_runs(tokens, width).items() if len(gram) == width})
    return Counter(zip(*[tokens[i:] for i in range(width)], strict=False))  # (the shortest, the last window, ends it)


# -- stage 2's extractors: the loop `tokens[i:i + n] for i in range(len - n + 1)` mutated ------------------------------

#: An n-gram extractor other than the formulas' (issue 36's operators applied to the loop and its slice), used for the
#: hypothesis and the references alike, each key clipped as section 2.1 clips: name -> its words (the grammar's order).
#: Python's slices never raise, so a window past the end is short.
_EXTRACTORS: dict[str, str] = {
    # a bound off by one: the loop one short (range(len - n)), started at 1, one long (range(len - n + 2))
    "windows-but-the-last": "every window of width n but the last (range(len - n))",
    "windows-but-the-first": "every window of width n but the first (range(1, len - n + 1))",
    "windows-one-past-the-end": "the windows of width n and one more past them, the last n - 1 tokens (range(len - n "
                                "+ 2))",
    # the width off by one, as many windows as that width has: tokens[i:i + n - 1] for i in range(len - n + 2), the
    # empty window len + 1 times at order 1 (which the grammar's windows of width n - 1 leave out: no width 0 there)
    "windows-one-narrower": "the windows of width n - 1, as many as that width has (range(len - n + 2)), order 1's "
                            "the empty window len + 1 times",
    # a constant for the bound: every position (range(len)), one window (range(1))
    "windows-at-every-position": "a window tokens[i:i + n] at every position (range(len)), the last n - 1 shorter",
    "first-window-only": "one window a sequence, its first n tokens (range(1)); an empty sequence's empty one",
    # operands swapped in the bound (range(n - len + 1)); the slice's start left out (tokens[i:n])
    "windows-of-the-bound-swapped": "tokens[i:i + n] for i in range(n - len + 1): windows only where len <= n, each a "
                                    "suffix",
    "windows-ending-at-n": "tokens[i:n] for i in range(len - n + 1): windows shrinking towards the n-th token",
    # the key: the window's tokens sorted (order ignored); the loop's step: n (windows that do not overlap)
    "windows-as-sorted-tuples": "every window of width n with its tokens sorted (their order ignored)",
    "windows-with-stride-n": "the windows of width n taken every n tokens (range(0, len - n + 1, n): none overlap)",
    # the sequences: the formulas' windows over the segments concatenated (the corpus read as one stream)
    "windows-across-segments": "every window of width n of the hypotheses concatenated across segments, clipped "
                               "against each reference position's concatenation (the j-th references joined)",
}

Window = tuple[str, ...]

#: The stage 2 extractors by the name of their matches' expression (`_Tables.agrees`: compared order by order).
_EXTRACTOR_OF: dict[str, str] = {f"matches{FITTED}clipped-{extractor}": extractor for extractor in _EXTRACTORS}


def _extraction_passes(extractor: str, n: int) -> tuple[Any, ...]:
    """The passes the matches of `extractor` at orders 1..n read, in order (`_Tables.extracted`, each charged once a
    fit): the formulas' windows of each order (the bound moved, the sorted keys), of each order below n (the width
    one narrower), or the segments read as one stream (a pass of its own at n); none for the extractors of few
    windows, counted as they are."""
    if extractor in _CHANGED or extractor == "windows-as-sorted-tuples":
        return tuple(("windows", order) for order in range(1, n + 1))
    if extractor == "windows-one-narrower":
        return tuple(("windows", order) for order in range(1, n))
    if extractor == "windows-across-segments":
        return (("stream", n),)
    return ()

#: The extractors whose windows are the formulas' (width n, range(len - n + 1)) with a few removed and a few added:
#: name -> (tokens, n) -> (the windows removed, the windows added).
_CHANGED: dict[str, Callable[[Window, int], tuple[tuple[Window, ...], tuple[Window, ...]]]] = {
    "windows-but-the-last": lambda t, n: ((t[len(t) - n:],) if len(t) >= n else (), ()),
    "windows-but-the-first": lambda t, n: ((t[:n],) if len(t) >= n else (), ()),
    "windows-one-past-the-end": lambda t, n: ((), (t[len(t) - n + 1:],) if len(t) >= n - 1 else ()),
    "windows-at-every-position": lambda t, n: ((), tuple(t[i:] for i in range(max(len(t) - n + 1, 0), len(t)))),
}


def _ending_at(t: Window, n: int) -> Counter:
    """tokens[i:n] for i in range(len - n + 1), counted without slicing each: the keys from i = n on are empty."""
    windows = max(len(t) - n + 1, 0)
    found = Counter(t[i:n] for i in range(min(windows, n)))
    if windows > n:
        found[()] += windows - n
    return found


#: The extractors of few windows a sequence, counted as they are: name -> (tokens, n) -> their keys and counts.
_FEW: dict[str, Callable[[Window, int], Counter]] = {
    "first-window-only": lambda t, n: Counter((t[:n],)),
    "windows-of-the-bound-swapped": lambda t, n: Counter(t[i:i + n] for i in range(n - len(t) + 1)),
    "windows-ending-at-n": _ending_at,
    # (t[i:i + n] for i in range(0, len - n + 1, n): the len // n whole chunks of n tokens, as zip reads them)
    "windows-with-stride-n": lambda t, n: Counter(zip(*[iter(t)] * n, strict=False)),
    "windows-across-segments": _windows,
}


def _few_matches(streams: list[tuple[Window, list[Window]]], extractor: str, n: int) -> int:
    """The clipped matches at order `n` of an extractor of few windows a sequence (`_FEW`) over `streams` (each
    hypothesis with its references): a hypothesis with no window matches nothing, its references not counted; the
    first window alone (one window each side) matches once where a reference's first n tokens are the hypothesis's."""
    if extractor == "first-window-only":
        return sum(1 for h, refs in streams if any(r[:n] == h[:n] for r in refs))
    count = _FEW[extractor]
    total = 0
    for h, refs in streams:
        if refs:
            hypothesis = count(h, n)
            if hypothesis:
                total += _clipped(hypothesis, [count(r, n) for r in refs])
    return total


def _sorted_matches(windows: list[tuple[Counter, list[Counter], int]], n: int) -> int:
    """The clipped matches at order `n` of the formulas' windows (`windows`, kept: `_Tables.windows_of`) with each
    window's tokens sorted: at order 1 (one token a window, sorted as it is) the formulas' own (the kept terms)."""
    if n == 1:
        return sum(clipped for _, _, clipped in windows)
    return sum(_clipped(_sorted_keys(h), [_sorted_keys(r) for r in refs]) for h, refs, _ in windows if h and refs)


def _clipped(hypothesis: Counter, references: list[Counter]) -> int:
    """Section 2.1's clip: each hypothesis key's count against its largest count in any one reference."""
    if not references:
        return 0
    return sum(min(k, max(counts[gram] for counts in references)) for gram, k in hypothesis.items())


def _changed_matches(windows: list[tuple[Counter, list[Counter], int]], hypotheses: list[Window],
                     references: list[list[Window]], n: int,
                     change: Callable[[Window, int], tuple[tuple[Window, ...], tuple[Window, ...]]]) -> int:
    """The clipped matches of an extractor whose windows are the formulas' (`windows`, kept) changed by `change`: each
    segment's formulas' matches, less the terms of the keys the change touches, plus their terms after it."""
    total = 0
    for (hypothesis, counts, term), h_tokens, r_tokens in zip(windows, hypotheses, references, strict=True):
        if not counts:
            continue
        moved = [_moves(h_tokens, n, change)] + [_moves(r, n, change) for r in r_tokens]
        touched = {gram for move in moved for gram in move}
        for gram in touched:
            before = [c[gram] for c in counts]
            after = [c + move.get(gram, 0) for c, move in zip(before, moved[1:], strict=True)]
            term += min(hypothesis[gram] + moved[0].get(gram, 0), max(after)) - min(hypothesis[gram], max(before))
        total += term
    return total


def _moves(tokens: Window, n: int, change: Callable[[Window, int], tuple[tuple[Window, ...], tuple[Window, ...]]]
           ) -> dict[Window, int]:
    """How many of each window `change` adds to `tokens`' formulas' windows (removed ones negative)."""
    removed, added = change(tokens, n)
    moved: dict[Window, int] = {}
    for gram in added:
        moved[gram] = moved.get(gram, 0) + 1
    for gram in removed:
        moved[gram] = moved.get(gram, 0) - 1
    return moved


def _narrowest_matches(hypotheses: list[Window], references: list[list[Window]]) -> int:
    """The clipped matches of the windows one narrower at order 1: the empty window len + 1 times on every side (at
    order n > 1 they are the formulas' matches of width n - 1)."""
    return sum(min(len(h) + 1, max(len(r) + 1 for r in refs))
               for h, refs in zip(hypotheses, references, strict=True) if refs)


def _sorted_keys(windows: Counter) -> Counter:
    found: Counter = Counter()
    for gram, k in windows.items():
        found[tuple(sorted(gram))] += k
    return found


def _streams(tables: _Tables, extractor: str) -> list[tuple[tuple[str, ...], list[tuple[str, ...]]]]:
    """The (hypothesis, references) pairs `extractor` reads: each segment's, or for `windows-across-segments` one pair,
    the hypotheses concatenated and, for each reference position j, the j-th references of the segments that have
    one."""
    if extractor != "windows-across-segments":
        return list(zip(tables.hypotheses, tables.references, strict=True))
    most = max((len(references) for references in tables.references), default=0)
    return [(tuple(itertools.chain.from_iterable(tables.hypotheses)),
             [tuple(itertools.chain.from_iterable(references[j] for references in tables.references
                                                  if j < len(references))) for j in range(most)])]


#: The totals of the extractors whose totals no earlier expression spans, each from the lengths alone (no pass): a
#: length L's window count at order n (the others: every window but one is width n + 1's count, every position width
#: 1's, one past the end width n - 1's, one a sequence 1 a segment, the keys changed the formulas').
_EXTRACTOR_TOTALS: dict[str, Callable[[list[int], int], int]] = {
    "windows-of-the-bound-swapped": lambda lengths, n: sum(max(n - length + 1, 0) for length in lengths),
    "windows-with-stride-n": lambda lengths, n: sum(len(range(0, length - n + 1, n)) for length in lengths),
    "windows-across-segments": lambda lengths, n: max(sum(lengths) - n + 1, 0),
}


# -- stage 5's aggregations: the formulas' per-segment values added up otherwise than the sum -------------------------

#: name -> (words, the per-segment values (two at least) -> the corpus's value).
_AGGREGATIONS: dict[str, tuple[str, Callable[[list[int]], int]]] = {
    "first-segment-alone": ("the first segment's alone", lambda values: values[0]),
    "last-segment-alone": ("the last segment's alone (a running value overwritten, not added)",
                           lambda values: values[-1]),
    "sum-without-first-segment": ("the sum over every segment but the first", lambda values: sum(values[1:])),
    "sum-without-last-segment": ("the sum over every segment but the last", lambda values: sum(values[:-1])),
    "largest-segment-value": ("the largest segment's value", max),
    "segment-mean-rounded-down": ("the segments' mean rounded down (the sum // the number of segments)",
                                  lambda values: sum(values) // len(values)),
}


# -- the grammar's base quantities, per segment -----------------------------------------------------------------------

_LENGTHS: dict[str, tuple[str, Callable[[tuple[str, ...], list[tuple[str, ...]]], int]]] = {
    "hypothesis-length": ("the hypothesis's length", lambda h, refs: len(h)),
    "shortest-reference": ("the shortest reference's length", lambda h, refs: min(map(len, refs), default=0)),
    "longest-reference": ("the longest reference's length", lambda h, refs: max(map(len, refs), default=0)),
    "first-reference": ("the first reference's length", lambda h, refs: len(refs[0]) if refs else 0),
    "last-reference": ("the last reference's length", lambda h, refs: len(refs[-1]) if refs else 0),
    "sum-of-reference-lengths": ("the sum of the references' lengths", lambda h, refs: sum(map(len, refs))),
    "mean-reference-length-rounded-down": ("the references' mean length rounded down",
                                           lambda h, refs: sum(map(len, refs)) // len(refs) if refs else 0),
    "number-of-references": ("the number of references", lambda h, refs: len(refs)),
    "0-per-segment": ("0 for each segment", lambda h, refs: 0),
    "1-per-segment": ("1 for each segment", lambda h, refs: 1),
}

#: The clips of a hypothesis window's count h against the references' counts of it (`limits`): name -> (words, h, the
#: references' counts -> the matched count).
_CLIPS: dict[str, tuple[str, Callable[[int, list[int]], int]]] = {
    "clipped": ("clipped to its largest count in any one reference", lambda h, limits: min(h, max(limits))),
    "clipped-to-reference-sum": ("clipped to the sum of the references' counts", lambda h, limits: min(h, sum(limits))),
    "clipped-to-smallest-reference-count": ("clipped to its smallest count in any reference",
                                            lambda h, limits: min(h, min(limits))),
    "clipped-to-first-reference": ("clipped to the first reference's count", lambda h, limits: min(h, limits[0])),
    "clipped-to-last-reference": ("clipped to the last reference's count", lambda h, limits: min(h, limits[-1])),
    "unclipped": ("counted whole where any reference has it", lambda h, limits: h if max(limits) else 0),
    "distinct": ("counted once where any reference has it (windows as sets)",
                 lambda h, limits: 1 if max(limits) else 0),
}


@dataclass(frozen=True)
class Expression:
    """One expression of the grammar: the fitted name it gives (`<field>-fitted-as-<words>`), the field it fits, what
    it computes in words, its size (the order tried: smaller first) and how it computes the field's corpus value
    from the request's tables (an int for a length, a tuple per order for matches and totals; None where it does not
    apply)."""

    name: str
    field: str
    words: str
    size: int
    value: Callable[[_Tables, int], Any]
    #: a true division's value (a Fraction, most often not whole): fitted only to counts a reply wrote as numbers
    #: that are not integers (`fit_numbers`), never to integers (`fit`), so that no integer record's fits move
    dividing: bool = False


def _offset_words(d: int) -> str:
    return "" if d == 0 else f"-plus-{d}" if d > 0 else f"-minus-{-d}"


def _length_expressions(field: str) -> list[Expression]:
    found = []
    for d in (0, *OFFSETS):
        for base, (words, quantity) in _LENGTHS.items():
            if d == 0 and base == "hypothesis-length":
                # c: the formulas' own c, and for r the named `reference-length-read-from-hypothesis-length`, which
                # `classify._score_agrees` does not try: the grammar leaves out what a named variant computes
                continue
            if d and base.endswith("per-segment"):
                continue  # a constant moved is another constant: 0 and 1 per segment only

            def value(tables: _Tables, n: int, quantity: Any = quantity, d: int = d) -> int:
                return sum(quantity(h, refs) + d for h, refs in zip(tables.hypotheses, tables.references,
                                                                     strict=True))

            more = f", plus {d}" if d > 0 else f", minus {-d}" if d else ""
            found.append(Expression(f"{field}{FITTED}{base}{_offset_words(d)}", field,
                                    f"each segment's {field} is {words}{more}", 1 + (d != 0), value))
    return found


def _plus(k: int) -> Callable[[int], int]:
    """The width n + k at order n."""
    return lambda order: order + k


def _fixed(w: int) -> Callable[[int], int]:
    """The width w at every order."""
    return lambda order: w


def _width_words(k: int) -> str:
    return "n" if k == 0 else f"n+{k}" if k > 0 else f"n-{-k}"


def _totals_expressions() -> list[Expression]:
    found = []

    def windows(width: Callable[[int], int], clamp: bool) -> Callable[[_Tables, int], Any]:
        def value(tables: _Tables, n: int) -> tuple[int, ...]:
            return tuple(sum(max(len(h) - width(order) + 1, 0) if clamp else len(h) - width(order) + 1
                             for h in tables.hypotheses) for order in range(1, n + 1))
        return value

    for k in OFFSETS:
        found.append(Expression(f"totals{FITTED}windows-of-width-{_width_words(k)}", "totals",
                                f"each order n's total is the number of windows of width n{k:+d} in each hypothesis "
                                "(len - n - k + 1, never below 0)", 1,
                                windows(_plus(k), True)))
    for w in FIXED_WIDTHS:
        found.append(Expression(f"totals{FITTED}windows-of-width-{w}-at-every-order", "totals",
                                f"every order's total is the number of windows of width {w} in each hypothesis "
                                f"(len - {w} + 1, never below 0)", 2, windows(_fixed(w), True)))
    found.append(Expression(f"totals{FITTED}1-per-segment", "totals", "every order's total is 1 for each segment "
                            "(one window per hypothesis)", 2,
                            lambda tables, n: (len(tables.hypotheses),) * n))
    for k in (0, *OFFSETS):
        found.append(Expression(f"totals{FITTED}windows-of-width-{_width_words(k)}-unclamped", "totals",
                                f"each order n's total is len - n{-k:+d} + 1 in each hypothesis as arithmetic, "
                                "negative where the hypothesis is shorter (not a loop's count)", 3,
                                windows(_plus(k), False)))
    return found


def _matches_expressions() -> list[Expression]:
    found = []

    def matched(width: Callable[[int], int], clip: str) -> Callable[[_Tables, int], Any]:
        def value(tables: _Tables, n: int) -> tuple[int, ...] | None:
            widths = [width(order) for order in range(1, n + 1)]
            if min(widths) < 1:
                return None  # a window of no token: not in the grammar
            return tuple(tables.matched(w)[clip] for w in widths)
        return value

    widths: list[tuple[str, str, int, Callable[[int], int]]] = [
        (_width_words(k), f"of width n{k:+d}" if k else "of width n", abs(k), _plus(k))
        for k in (0, 1, -1, 2, -2)]
    widths += [(f"{w}-at-every-order", f"of width {w} at every order", 2, _fixed(w)) for w in FIXED_WIDTHS]
    for (width_name, width_words, width_size, width), (clip_name, (clip_words, _)) in itertools.product(
            widths, _CLIPS.items()):
        if width_size == 0 and clip_name == "clipped":
            continue  # the formulas' own matches
        found.append(Expression(f"matches{FITTED}{clip_name}-windows-of-width-{width_name}", "matches",
                                f"each order n's matches are the hypothesis's windows {width_words}, each {clip_words}",
                                width_size + (clip_name != "clipped"), matched(width, clip_name)))
    return found


#: The size of the stage 2 and stage 5 expressions (fit-aggregation): above every earlier expression's, so that each of
#: those keeps its place in its field's order.
LATER = 4


def _extraction_expressions() -> list[Expression]:
    """Stage 2, the n-gram extraction applied to both sides: each `_EXTRACTORS` entry's matches clipped as the
    formulas clip (the largest count in any one reference), and its totals where no earlier expression spans them."""
    found = []

    def matched(extractor: str) -> Callable[[_Tables, int], Any]:
        return lambda tables, n: tables.extracted(extractor, n)

    def totals(extractor: str) -> Callable[[_Tables, int], Any]:
        count = _EXTRACTOR_TOTALS[extractor]
        return lambda tables, n: tuple(count([len(h) for h in tables.hypotheses], order) for order in range(1, n + 1))

    for extractor, words in _EXTRACTORS.items():
        found.append(Expression(f"matches{FITTED}clipped-{extractor}", "matches",
                                f"each order n's matches are an n-gram extractor's keys, {words}, on the hypothesis "
                                "and the references alike, each clipped to its largest count in any one reference",
                                LATER, matched(extractor)))
        if extractor in _EXTRACTOR_TOTALS:
            found.append(Expression(f"totals{FITTED}{extractor}", "totals",
                                    f"each order n's total is the number of an n-gram extractor's keys, {words}", LATER,
                                    totals(extractor)))
    return found


def _aggregation_expressions() -> list[Expression]:
    """Stage 5, the corpus aggregation: each field's corpus value from the formulas' own per-segment values (c_i, r_i,
    m_{n,i}, l_{n,i}, `_Tables.per_segment`) aggregated by an `_AGGREGATIONS` entry, on a corpus of two segments or
    more (on one, each is the formulas' sum or a constant 0); and c read from each segment's r (its record's
    neighbouring field: `ref_len`'s reading of c stays out, the named `reference-length-read-from-hypothesis-length`,
    test_counting_fit.py)."""
    found = []

    def aggregated(field: str, aggregate: Callable[[list[int]], int]) -> Callable[[_Tables, int], Any]:
        def value(tables: _Tables, n: int) -> Any:
            values = tables.per_segment(field, n) if len(tables.hypotheses) > 1 else None
            if values is None:
                return None
            if field in ("hyp_len", "ref_len"):
                return aggregate(values)
            return tuple(aggregate([value[order] for value in values]) for order in range(n))
        return value

    def reference_lengths(tables: _Tables, n: int) -> int | None:
        values = tables.per_segment("ref_len", n)
        return None if values is None else sum(values)

    for field in FIELDS:
        for aggregation, (words, aggregate) in _AGGREGATIONS.items():
            found.append(Expression(f"{field}{FITTED}{aggregation}", field,
                                    f"the corpus's {field} is {words} of the segments' own (the formulas' per-segment "
                                    f"{field}, aggregated otherwise than the sum)", LATER,
                                    aggregated(field, aggregate)))
    found.append(Expression(f"hyp_len{FITTED}reference-length-field", "hyp_len",
                            "the corpus's hyp_len is the sum of the segments' r, each the formulas' reference length "
                            "by the request's rule (a segment's statistics read at the neighbouring field)", LATER,
                            reference_lengths))
    return found


#: The size of the true divisions (`_dividing_expressions`): after every other expression of their field.
DIVIDING = LATER + 1


def _dividing_expressions() -> list[Expression]:
    """Issue 36's "an average in place of a sum" at each sum of stages 3 to 5, as a true division (a Fraction): stage 5,
    each field's corpus value the mean of the formulas' per-segment values (`_Tables.per_segment`, on one segment
    the value itself); stage 4, a segment's r the mean of its references' lengths; stage 3, a segment's matches at
    an order the mean of its distinct hypothesis windows' clipped counts, and its total the mean of their counts (no
    value where a segment has no window of the order: that mean divides by zero). Each is fitted only to a count the
    reply wrote as a float (`fit_numbers`)."""

    def segment_mean(field: str) -> Callable[[_Tables, int], Any]:
        def value(tables: _Tables, n: int) -> Any:
            values = tables.per_segment(field, n)
            if values is None:
                return None
            if field in ("hyp_len", "ref_len"):
                return Fraction(sum(values), len(values))
            return tuple(Fraction(sum(v[order] for v in values), len(values)) for order in range(n))
        return value

    def mean_reference_length(tables: _Tables, n: int) -> Any:
        if not all(tables.references):
            return None
        return sum(Fraction(sum(map(len, refs)), len(refs)) for refs in tables.references)

    def per_distinct_window(counted: Callable[[Counter, int], int]) -> Callable[[_Tables, int], Any]:
        def value(tables: _Tables, n: int) -> Any:
            means = []
            for order in range(1, n + 1):
                kept = tables.windows_of(order)
                if not kept or any(not hypothesis for hypothesis, _, _ in kept):
                    return None  # (a segment without a window of this order: its mean divides by zero)
                means.append(sum(Fraction(counted(hypothesis, clipped), len(hypothesis))
                                 for hypothesis, _, clipped in kept))
            return tuple(means)
        return value

    found = [Expression(f"{field}{FITTED}mean-of-segments", field,
                        f"the corpus's {field} is the mean of the segments' own (the formulas' per-segment {field}, "
                        "their sum divided by the number of segments, a true division)", DIVIDING, segment_mean(field),
                        dividing=True)
             for field in FIELDS]
    found.append(Expression(f"ref_len{FITTED}mean-reference-length", "ref_len",
                            "each segment's r is the mean of its references' lengths (a true division)", DIVIDING,
                            mean_reference_length, dividing=True))
    found.append(Expression(f"matches{FITTED}mean-clipped-count-per-distinct-window", "matches",
                            "each segment's matches at order n are the mean of its distinct hypothesis windows' "
                            "clipped counts (their sum divided by how many distinct windows it has)", DIVIDING,
                            per_distinct_window(lambda hypothesis, clipped: clipped), dividing=True))
    found.append(Expression(f"totals{FITTED}mean-count-per-distinct-window", "totals",
                            "each segment's total at order n is the mean count of its distinct hypothesis windows "
                            "(its windows divided by how many distinct ones it has)", DIVIDING,
                            per_distinct_window(lambda hypothesis, clipped: sum(hypothesis.values())), dividing=True))
    return found


def _grammar() -> dict[str, Expression]:
    expressions = [*_length_expressions("hyp_len"), *_length_expressions("ref_len"), *_totals_expressions(),
                   *_matches_expressions(), *_extraction_expressions(), *_aggregation_expressions(),
                   *_dividing_expressions()]
    ordered = sorted(expressions, key=lambda e: (FIELDS.index(e.field), e.size))  # (stable: declaration order)
    return {e.name: e for e in ordered}


#: Every expression of the grammar by its fitted name, each field's smallest first.
GRAMMAR: dict[str, Expression] = _grammar()


def is_fitted(name: str) -> bool:
    """Whether `name` is a fitted counting's (one of `GRAMMAR`'s names)."""
    return name in GRAMMAR


def fitted_counts(name: str) -> Callable[[Sequence[Any], int, Any], dict[str, Any] | None]:
    """How the fitted counting `name` counts, as a counting alternative does (its field's corpus value from the
    request's segments; None where it does not apply): its replay (`classify.explained_value`)."""
    expression = GRAMMAR[name]

    def counted(segments: Sequence[Any], n: int, options: Any) -> dict[str, Any] | None:
        if expression.dividing:  # (a true division's value is no integer counting's: fitted to written numbers only)
            return None
        value = expression.value(_Tables(segments, options, lambda: None), n)
        return None if value is None else {expression.field: value}

    return counted


def fitted_words(name: str) -> str:
    """What the fitted counting `name` says: what its expression computes, and that it is a fit."""
    expression = GRAMMAR[name]
    return (f"{expression.words} (a fit of the returned integers by the counting grammar, every order exactly; not a "
            "line of code read)")


def differing_fields(reported: Any, n: int, oracle_counts: Any) -> list[str]:
    """The counting fields (`FIELDS` order) whose returned integers differ from the formulas' (`oracle_counts`) at
    orders 1..n: what `fit` fits; none where the returned counts are no counting's (fractional, or of fewer orders)."""
    wanted = _reported_counts(reported, n)
    if wanted is None:
        return []
    oracle = _counts_of(oracle_counts, n)
    return [field for field in FIELDS if wanted[field] != oracle[field]]


def fit(segments: Sequence[Any], n: int, options: Any, reported: Any, oracle_counts: Any, *,
        permitted: Callable[[str], bool] = lambda name: True, charge: Callable[[], None] = lambda: None,
        spent: tuple[type[BaseException], ...] = (), kept: dict | None = None) -> list[tuple[str, ...]]:
    """The fits of the returned counts (`reported`, the protocol's Statistics) where they differ from the formulas'
    (`oracle_counts`): for each field that differs, every expression of `GRAMMAR` that gives its returned integers
    exactly (smallest first), `permitted`; a fit names every differing field (a part each, in `FIELDS` order), at most
    `MOST_FITS`. Empty where a differing field has no fit, or where `charge` raises one of `spent` (the budget spent:
    nothing is fitted, so the record keeps what is known of it). `kept`: a dict kept with the request (`classify`'s
    `Context.counted`), where what its earlier fits computed is read (`_Tables`: charged as if computed again)."""
    wanted = _reported_counts(reported, n)
    differing = differing_fields(reported, n, oracle_counts)
    if wanted is None or not differing or not segments:
        return []
    try:
        tables = _Tables(segments, options, charge, kept)
        per_field = {}
        for field in sorted(differing, key=_FITTED_FIRST.index):
            fits = [e.name for e in GRAMMAR.values() if e.field == field and not e.dividing and permitted(e.name)
                    and tables.agrees(e, n, wanted[field])]
            if not fits:
                return []
            per_field[field] = fits
    except spent:
        return []
    return list(itertools.islice(itertools.product(*(per_field[field] for field in differing)), MOST_FITS))


#: How close a count written as a float must be to an expression's exact value to fit it, relative (of the value, 1
#: at least): a mean computed in floats (a sum of integers divided once) is within an ulp or two, 2e-16 relative;
#: a sum of a few hundred such means within 1e-13. 1e-9 is the judge's relative contract on a score.
NUMERIC_TOLERANCE = Fraction(1, 10**9)


def _near(value: Any, written: Any) -> bool:
    """Whether `written` (the reply's numbers, a float or an int, or a tuple of them a order) is within
    NUMERIC_TOLERANCE of `value` (an expression's exact value, the same shape)."""
    if value is None:
        return False
    if isinstance(value, tuple):
        return len(value) == len(written) and all(map(_near, value, written))
    return abs(Fraction(written) - value) <= NUMERIC_TOLERANCE * max(1, abs(value))


def fit_numbers(segments: Sequence[Any], n: int, options: Any, numbers: Any, oracle_counts: Any, *,
                permitted: Callable[[str], bool] = lambda name: True, charge: Callable[[], None] = lambda: None,
                spent: tuple[type[BaseException], ...] = (), kept: dict | None = None) -> list[tuple[str, ...]]:
    """The fits of counts a reply wrote as numbers (`numbers`, `oracle.models.protocol.NumericStatistics`) where some
    are not integers: a field written as a float (`written_as_numbers`) is fitted by the true divisions
    (`_dividing_expressions`), its value within NUMERIC_TOLERANCE of theirs, whether or not it equals the formulas' as
    a number (a mean over one segment is the segment's value: its float is the division's trace); a field written as
    integers that differs from the formulas' is fitted as `fit` fits it. A fit names every such field (a part each, in
    `FIELDS` order), at most `MOST_FITS`; none where a field has no fit, where the numbers are of fewer orders than
    `n`, or where `charge` raises one of `spent`."""
    if len(numbers.matches) < n or len(numbers.totals) < n or not segments:
        return []
    written = {"hyp_len": numbers.hyp_len, "ref_len": numbers.ref_len, "matches": tuple(numbers.matches[:n]),
               "totals": tuple(numbers.totals[:n])}
    oracle = _counts_of(oracle_counts, n)
    as_numbers = set(numbers.written_as_numbers)
    fitted = [field for field in FIELDS if field in as_numbers or written[field] != oracle[field]]
    try:
        tables = _Tables(segments, options, charge, kept)
        per_field = {}
        for field in sorted(fitted, key=_FITTED_FIRST.index):
            if field in as_numbers:
                fits = [e.name for e in GRAMMAR.values() if e.field == field and e.dividing and permitted(e.name)
                        and _near(tables.value(e, n), written[field])]
            else:
                fits = [e.name for e in GRAMMAR.values() if e.field == field and not e.dividing and permitted(e.name)
                        and tables.value(e, n) == written[field]]
            if not fits:
                return []
            per_field[field] = fits
    except spent:
        return []
    return list(itertools.islice(itertools.product(*(per_field[field] for field in fitted)), MOST_FITS))


__all__ = ["FITTED", "GRAMMAR", "NUMERIC_TOLERANCE", "SAME_AS_NAMED", "Expression", "differing_fields", "fit",
           "fit_numbers", "fitted_counts", "fitted_words", "is_fitted"]
