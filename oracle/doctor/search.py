"""Reconstructing a number: every documented reading that reproduces it within its printed digits.

The readings searched are every profile x tokenizer x case as it stands, then with one convention changed
from the profile, then with two (`explore`); a number is compared on the 0-100 scale, and also on the
0-1 scale when it is at most 1. A reading reproduces a number printed with d decimals when it is within
half a unit of the d-th decimal ("digits"; plus 1e-12 relative for a float's own rounding), or, ranked
after those, within 2e-6 relative ("float32": what single-precision arithmetic, torch's default, keeps:
`oracle.diagnose.mechanisms.computations.FLOAT32_REL_TOLERANCE`).
Explanations are ranked by plausibility (`departures`): a tool's defaults first (a profile as it stands, under
its own tokenizer and case, or its library as shipped), then the fewest departures from them (a tokenizer or case
other than the profile's, each other convention changed), then the closer match class, then the smaller difference.
A number printed with few digits is reproduced by many readings; the one a tool gives by default is the likeliest
(sacrebleu's `45.6` is 13a mixed case, though 13a lowercased may lie nearer). Where nothing reproduces a
number, the nearest readings are given with what their statistics would need (`needs`): the reference length,
or one order's matched n-grams, that would give the number, each checked with the exact oracle.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation
from fractions import Fraction
from functools import cache
from itertools import combinations

from oracle.formulas import bleu
from oracle.formulas.conventions import Smoothing
from oracle.formulas.errors import BleuValueError
from oracle.formulas.profiles import PROFILES

from .readings import UNIFORM, Reading, Scorer, Value, finite, on_scale, shown, table_readings
from .shipped import shipped_changes
from .streams import FOLDS

#: The smoothing methods a reading may switch to, each with its documented default parameters
#: (Chen and Cherry's 5 and 7 need a fifth order, which is not counted; 3 is `exp` under another name).
SMOOTHING_CHOICES = tuple(Smoothing(method) for method in (
    "none", "exp", "floor", "add-k", "chen-cherry-1", "chen-cherry-2", "chen-cherry-4", "chen-cherry-6", "lin-2004"))
#: A float's own rounding, relative: a score printed with more digits than it holds still matches.
FLOAT64_SLACK = Decimal("1e-12")
#: What single-precision arithmetic keeps of a BLEU score (relative): the classifier's float32 tolerance, whose
#: comment gives the measurements it rests on.
MATCH_CLASSES = ("digits", "float32")
#: How many nearest readings an unexplained number lists.
NEAREST = 5
#: A statistic that would have to move by more than this share of its value is no plausible explanation (a bug
#: or an unknown convention moves a count a little, not by half): such needs are not listed.
NEED_RANGE = 0.2


@dataclass(frozen=True)
class GivenNumber:
    """A number as the user has it: its digits say how exactly it is known."""

    text: str
    value: Decimal
    #: half a unit of the last digit given (26.65 -> 0.005)
    half_unit: Decimal

    @property
    def scales(self) -> tuple:
        """The scales it can be on: 0-100, and 0-1 when it is at most 1."""
        return ("0-1", "0-100") if self.value <= 1 else ("0-100",)

    def on_100(self, scale: str) -> float:
        return float(self.value) * (100 if scale == "0-1" else 1)


#: The first number in a text (a decimal comma taken for a point), offered where --number is given more than one.
_NUMBER_INSIDE = re.compile(r"\d+(?:[.,]\d+)?")


def parse_number(text: str) -> GivenNumber:
    """`26.65`, `0.2665`, `27`: a BLEU score as printed, on either scale."""
    cleaned = str(text).strip()
    try:
        value = Decimal(cleaned)
    except InvalidOperation:
        # a number copied with what surrounds it ("BLEU = 26.65", "26.65%") or with a decimal comma ("26,65")
        inside = _NUMBER_INSIDE.search(cleaned)
        hint = f"; give the number alone: --number {inside.group().replace(',', '.')}" if inside else ""
        raise BleuValueError(f"`--number {text}`: not a number{hint}") from None
    exponent = value.as_tuple().exponent
    if not isinstance(exponent, int):  # NaN and the infinities have a letter for an exponent
        raise BleuValueError(f"`--number {text}`: must be a finite number")
    if value < 0 or value > 100:
        raise BleuValueError(f"`--number {text}`: BLEU lies between 0 and 1, or 0 and 100 (got {text})")
    return GivenNumber(cleaned, value, Decimal(5).scaleb(exponent - 1))


@dataclass(frozen=True)
class Match:
    """A reading's score set against a given number on one scale."""

    reading: Reading
    scale: str
    #: the reading's score on `scale`
    score: float
    #: score - the given number (on `scale`)
    difference: float
    #: "digits", "float32", or None (does not reproduce it)
    match: str | None
    value: Value

    def rank(self) -> tuple:
        """Most plausible first: fewer departures from a tool's defaults, then the closer match (the class, then
        the distance), then a fixed order for ties."""
        reading = self.reading
        return (
            departures(reading),
            MATCH_CLASSES.index(self.match) if self.match else len(MATCH_CLASSES),
            abs(self.difference) / (100 if self.scale == "0-100" else 1),
            list(PROFILES).index(reading.profile),
            reading.tokenizer,
            reading.lowercase,
            self.scale,
        )


def departures(reading: Reading) -> int:
    """How far `reading` is from what a tool does by default: a tokenizer other than its profile's, a case other
    than its profile's, and each convention changed from the profile, one departure each. Not counted: a change that
    is the profile's library as shipped (nltk's floor of segment totals: `shipped`; a number from nltk is most
    plausibly nltk's code with its defaults), and how words are split (`token_split`) or case folded (`case_fold`)
    when the tokenizer or the case departs already: text tokenized by another tool comes with that tool's split
    (multi-bleu.perl on sacrebleu's 13a output), text lowercased by another with its folding."""
    options = PROFILES[reading.profile].options
    shipped = shipped_changes(reading.profile)
    other_tokenizer, other_case = reading.tokenizer != options.tokenizer, reading.lowercase != options.lowercase
    part_of = {"token_split": other_tokenizer, "case_fold": other_case}
    changed = [name for name, value in reading.changes
               if f"{name}={shown(value)}" not in shipped and not part_of.get(name, False)]
    return len(changed) + other_tokenizer + other_case


@cache
def float32_slack() -> Decimal:
    """The classifier's float32 tolerance as a Decimal. Imported when a number is first searched: the classifier's
    mechanisms cost a third of doctor's imports, and the readings table alone needs none of them."""
    from oracle.diagnose.mechanisms.computations import FLOAT32_REL_TOLERANCE

    return Decimal(str(FLOAT32_REL_TOLERANCE))


def match_class(score: float, number: GivenNumber) -> str | None:
    """Which class of match `score` (on the number's scale) is, if any."""
    if not finite(score):
        return None
    distance = abs(Decimal(score) - number.value)
    if distance <= number.half_unit + FLOAT64_SLACK * abs(number.value):
        return "digits"
    if distance <= number.half_unit + float32_slack() * abs(number.value):
        return "float32"
    return None


def single_changes(reading: Reading, *, references: int, sentence_level: bool) -> list:
    """Every one-convention change from `reading`'s profile the search tries, as (convention, value): the rules of
    each convention's table other than the profile's (`mechanisms.conventions.alternatives`, the classifier's
    generator), case folded only by the folds the streams count (`FOLDS`), the reference length only where a
    segment has several references (with one, every rule is the same); then the smoothing methods, and a mean of
    sentence scores at sentence level."""
    from oracle.diagnose.mechanisms.conventions import alternatives  # with the search only (see float32_slack)

    options = reading.options

    def changed(*names: str) -> list[tuple[str, object]]:
        return [(convention.option, rule) for convention, rule in
                alternatives(options, names, text=True, lowercase=reading.lowercase, only={"case_fold": FOLDS})]

    changes = changed("token_split", "case_fold", *(("reference_length",) if references > 1 else ()))
    changes += [("smoothing", choice) for choice in SMOOTHING_CHOICES if choice != options.smoothing]
    changes += changed("empty_order", "no_match", "segment_totals_floor")
    if sentence_level:
        changes.append(("aggregation", "sentence-mean"))
    return changes


def _pair_allowed(first: tuple, second: tuple) -> bool:
    """Two changes are tried together when they touch different conventions; a mean of sentence scores is
    combined with a smoothing only (sentence_bleu is called with a smoothing function, and little else)."""
    if first[0] == second[0]:
        return False
    if "aggregation" in (first[0], second[0]):
        return "smoothing" in (first[0], second[0])
    return True


def differ(a: Value, b: Value) -> bool:
    """Whether two readings give different scores on these files (beyond a float's rounding)."""
    if not (finite(a.score) and finite(b.score)):
        return finite(a.score) != finite(b.score)
    if a.exact is not None and b.exact is not None:
        return a.exact != b.exact
    return abs(a.score - b.score) > 1e-13 * max(abs(a.score), abs(b.score))


def explore(scorer: Scorer) -> list:
    """Every reading searched, with its value: each profile x tokenizer x case (x a byte-order mark kept) as it
    stands, then with one convention changed, then two. A change that leaves the score as it was on these files is no
    explanation (the reading without it is the same computation here): a changed reading is kept only when each of its
    changes moves the score, and two changes are combined only when each moves it alone, except a mean of
    sentence scores with a smoothing (smoothing that does nothing to a corpus matters to its sentences)."""
    table = scorer.table
    marks = ("dropped", "kept") if any(key.bom == "kept" for key in table.keys) else ("dropped",)
    found = []
    # a byte-order mark is how the file was read, not a convention of the formulas: where a file has one, every
    # reading is tried with it dropped and kept (kept counts as a change, so it ranks after dropped)
    for base in (reading.changed("bom", mark) for reading in table_readings() for mark in marks):
        if not scorer.can_score(base):
            continue
        base_value = scorer.value(base)
        if base.value_of("bom") == "kept" and not differ(base_value, scorer.value(base.changed("bom", "dropped"))):
            continue
        found.append((base, base_value))
        singles = []
        for change in single_changes(base, references=table.references, sentence_level=table.sentence_level):
            reading = base.changed(*change)
            if scorer.can_score(reading):
                value = scorer.value(reading)
                singles.append((change, reading, value, differ(value, base_value)))
                if singles[-1][3]:
                    found.append((reading, value))
        for (first, one, one_value, one_moves), (second, _, two_value, two_moves) in combinations(singles, 2):
            together_only = "aggregation" in (first[0], second[0])
            if not _pair_allowed(first, second) or not (together_only or (one_moves and two_moves)):
                continue
            reading = one.changed(*second)
            if scorer.can_score(reading):
                value = scorer.value(reading)
                if differ(value, one_value) and differ(value, two_value):
                    found.append((reading, value))
    return found


class Search:
    """The candidate readings scored once, then set against each number."""

    def __init__(self, scorer: Scorer) -> None:
        self.scorer = scorer
        self.values = explore(scorer)

    def matches(self, number: GivenNumber) -> list:
        """Every reading that reproduces `number`, best first."""
        found = []
        for reading, value in self.values:
            for scale in number.scales:
                score = on_scale(value.score, scale)
                kind = match_class(score, number)
                if kind is not None:
                    found.append(Match(reading, scale, score, score - float(number.value), kind, value))
        return sorted(found, key=Match.rank)

    def nearest(self, number: GivenNumber, count: int = NEAREST) -> list:
        """The readings closest to `number`, none of which reproduces it; the closest profile as it stands
        among them (its statistics say what a bug or an unknown convention would have to change)."""
        near = []
        for reading, value in self.values:
            for scale in number.scales:
                score = on_scale(value.score, scale)
                if finite(score):
                    near.append(Match(reading, scale, score, score - float(number.value), None, value))
        near.sort(key=lambda m: (abs(m.difference) / max(float(number.value), 1e-9), m.rank()))
        distinct, scores = [], set()
        for m in near:  # readings that compute the same number here are one answer: the best-ranked stands for it
            if (m.scale, m.score) not in scores:
                scores.add((m.scale, m.score))
                distinct.append(m)
        chosen = distinct[:count]
        if not any(not m.reading.changes for m in chosen):
            chosen += [m for m in distinct if not m.reading.changes][:1]
        return chosen


# -- what the statistics of a near reading would need ----------------------------------------------------


@dataclass(frozen=True)
class Need:
    """One statistic changed so that a reading gives the number: its value now and the value needed."""

    statistic: str
    current: int
    needed: int
    #: whether the oracle, with the statistic at `needed`, reproduces the number within its digits
    reproduces: bool


def needs(match: Match, number: GivenNumber, scorer: Scorer) -> list:
    """For a corpus reading without smoothing: the reference length, or each order's matches, that gives the
    number (solved in floating point, rounded, then checked with the exact oracle), where it is within
    NEED_RANGE of its value."""
    reading = match.reading
    if reading.aggregation != "corpus" or match.score <= 0:
        return []
    result = scorer.corpus_result(reading)
    if result.smoothed is not None and result.smoothed.notes:
        return []  # smoothing rewrote some counts: one statistic no longer moves the score alone
    target = float(number.value) / (100 if match.scale == "0-100" else 1)
    if target <= 0:
        return []
    stats = result.statistics
    found = []
    needed_bp = target / float(result.score) * float(result.bp)
    if needed_bp < 1 and stats.hyp_len > 0:
        found.append(("ref_len", stats.ref_len, round(stats.hyp_len * (1 - math.log(needed_bp)))))
    log_rest = math.log(target) - math.log(float(result.bp))
    for n, (p, w) in enumerate(zip(result.precisions, result.weights, strict=False)):
        if not isinstance(p, Fraction) or p == 0 or w == 0:
            continue
        others = sum(
            float(wk) * math.log(float(pk))
            for k, (pk, wk) in enumerate(zip(result.precisions, result.weights, strict=False))
            if k != n and wk != 0 and pk
        )
        p_needed = math.exp((log_rest - others) / float(w))
        total = stats.totals[n]
        if p_needed <= 1:
            found.append((f"matches[{n + 1}]", stats.matches[n], round(p_needed * total)))
    return [Need(name, current, needed, _reproduces(result, name, needed, number, match.scale))
            for name, current, needed in found if needed != current and abs(needed - current) <= NEED_RANGE * current]


def _reproduces(result: bleu.BleuResult, statistic: str, needed: int, number: GivenNumber, scale: str) -> bool:
    stats = result.statistics
    if statistic == "ref_len":
        changed = bleu.Statistics(stats.hyp_len, needed, stats.matches, stats.totals, stats.segments)
    else:
        n = int(statistic[len("matches["):-1]) - 1
        if needed > stats.totals[n] or needed < 0:
            return False
        matches = stats.matches[:n] + (needed,) + stats.matches[n + 1:]
        changed = bleu.Statistics(stats.hyp_len, stats.ref_len, matches, stats.totals, stats.segments)
    score = bleu.bleu_from_statistics(changed, weights=UNIFORM, options=result.options, level="corpus").score
    return match_class(on_scale(float(score), scale), number) is not None
