"""The score stage's free parameters fitted from a record (issue 36, score-fit): where the statistics an implementation
returned are the formulas' and no reading reproduces its score, each parameter of the score's expression solved from
the answer, one at a time, and named only where the solved value is a simple number that re-scores the answer.

The score is written

    A = s x BP^beta x exp(alpha x sum_n w_n log p_n),   BP = e^(1 - r/c) where c <= r (else 1),

and each `Parameter` frees one of its terms while every other keeps the judged formulas' value (the oracle's exact
intermediate values, as floats): the mean's power alpha (a root of the wrong degree, weights summing to other than
1), the penalty's power beta (applied twice, or not at all), the scale s, one order's weight w_k, the lengths r or c
read inside the penalty (a constant where the parameter belongs), and the weights as uniform over the first k orders
(an effective maximum order; the one parameter tried by enumeration, k = 2..N-1, not solved). A free parameter is one
equation in one unknown on one record: it always has a solution, so a solution is evidence of nothing by itself.
It is accepted only where

1. it is identifiable (the answer's derivative in it is not 0: a mean of 1 says nothing of its power);
2. the solved value lies within its error bound of a *simple* value (`simple_values`: a small rational p/q with
   q <= 4, or a value the request carries: its order N, 1/N, its segment count S, 1/S), the bound being what the
   judge's contract on the answer (|a - e| <= 1e-12 + 1e-9 |e|) and float rounding allow the solved value to move
   (`Fit.bound`);
3. the score re-computed with that simple value, every other term the formulas' (in floats from the oracle's exact
   precisions and penalty: some 1e-15 relative, far inside the contract), is the answer within the judge's contract.

Its name is generated from the parameter and the value (`name_of`: `mean-raised-to-1/2`,
`brevity-penalty-raised-to-2`, `score-scaled-by-the-segment-count`, `weight-of-order-2-as-0`,
`weights-as-uniform-over-3-orders`, `brevity-penalty-with-r-as-1`), and it reads back (`parse`), so that the value is
replayed on any request (`fitted_value`: a value the request carries is that request's). What such a name claims is a
fit of the score's arithmetic, not a line of code read: the words say so. One record fits some parameter by chance
more easily than it fits a mechanism, so every fitted name needs evidence (a second record of the run fitting the same
name: `oracle.diagnose.cover`), and the partial names of what is known stay among the record's fits.

Pure: floats on the oracle's own values; nothing from any library under test.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from fractions import Fraction

from .combination import CONTRACT

#: The answers no parameter is solved from: a bound of the score (1, or 100 on the 0-100 scale), which any stage that
#: returns a constant or cuts a term gives, so that a fit there is a coincidence on one record (as float32 is not read
#: from them, `classify._float32_readable`); 0 is never solved from (no logarithm).
_BOUNDS = frozenset((1.0, 100.0))
#: The largest denominator of a simple rational, and the largest magnitude of one (|p/q| <= SIMPLE_MAGNITUDE).
SIMPLE_DENOMINATOR = 4
SIMPLE_MAGNITUDE = 8
#: The float rounding a solved value carries besides the contract's (a few ulps of each term): relative.
_ROUNDING = 1e-12


@dataclass(frozen=True)
class Terms:
    """The score's terms on one request as the judged formulas computed them, as floats: the penalty, the score,
    (p_n, w_n) for each order 1..N (p_n None where the formulas left the order out), c, r and the segment count."""

    bp: float
    score: float
    orders: tuple[tuple[float | None, float], ...]
    c: int
    r: int
    segments: int

    @property
    def in_force(self) -> list[tuple[float, float]]:
        return [(p, w) for p, w in self.orders if w != 0 and p is not None]

    @property
    def log_mean(self) -> float | None:
        """sum w_n log p_n over the orders in force; None where a precision in force is 0 (the mean is 0)."""
        pairs = self.in_force
        if not pairs or any(p <= 0 for p, _ in pairs):
            return None
        return math.fsum(w * math.log(p) for p, w in pairs)


def terms_of(result, segments: int) -> Terms | None:
    """The `Terms` of a BleuResult (None where its score is no number or the hypothesis is empty)."""
    if result is None or result.score.is_nan() or result.bp.is_nan() or result.statistics.hyp_len == 0:
        return None
    orders = tuple((None if p is None else float(p), float(w))
                   for p, w in zip(result.precisions, result.weights, strict=False))
    s = result.statistics
    return Terms(float(result.bp), float(result.score), orders, s.hyp_len, s.ref_len, segments)


# -- simple values ----------------------------------------------------------------------------------------------


def _rational_label(value: Fraction) -> str:
    text = str(value)  # '1/2', '3', '-1/2'
    return f"minus-{text[1:]}" if text.startswith("-") else text


def _rationals(negative: bool) -> tuple[tuple[str, float], ...]:
    """(label, value) of the simple rationals, the smallest denominator first, then the smallest magnitude."""
    rationals = sorted({Fraction(p, q) for q in range(1, SIMPLE_DENOMINATOR + 1)
                        for p in range(-SIMPLE_MAGNITUDE * q if negative else 1, SIMPLE_MAGNITUDE * q + 1) if p},
                       key=lambda f: (abs(f).denominator, abs(f), f < 0))
    return tuple((_rational_label(f), float(f)) for f in rationals)


#: Built once (each record's fit reads them for every parameter it tries).
_RATIONALS = _rationals(True)
_POSITIVE_RATIONALS = _rationals(False)


def simple_values(terms: Terms, *, negative: bool = True, request: bool = True) -> list[tuple[str, float]]:
    """(label, value) of every simple value: the rationals p/q (q <= SIMPLE_DENOMINATOR, 0 < |p/q| <=
    SIMPLE_MAGNITUDE; negative ones where `negative`), then, where `request`, the values the request carries: its order
    N and 1/N, its segment count S and 1/S (S above 1). Labels are the names' last words."""
    values = list(_RATIONALS if negative else _POSITIVE_RATIONALS)
    if request:
        n = len(terms.orders)
        values += [("the-order", float(n)), ("one-over-the-order", 1.0 / n)]
        if terms.segments > 1:
            values += [("the-segment-count", float(terms.segments)), ("one-over-the-segment-count",
                                                                        1.0 / terms.segments)]
    return values


def value_of_label(label: str, terms: Terms) -> float | None:
    """The value a label names on the request of `terms` (None for a label no simple value has there)."""
    return dict(simple_values(terms, request=True) + [(str(k), float(k)) for k in range(0, SIMPLE_MAGNITUDE + 1)]
                ).get(label)


# -- the parameters -------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Fit:
    """A parameter solved from an answer: its value and how far the contract and rounding let it move."""

    value: float
    bound: float


def _uncertainty(answer: float) -> float:
    """How far log(answer) moves within the judge's contract on the answer (answer > 0), with float rounding."""
    return (CONTRACT.abs + CONTRACT.rel * answer) / answer + _ROUNDING


@dataclass(frozen=True)
class Parameter:
    """One free parameter of the score: `stem` its names' stem (a family: `stem` + the value's label, or for a
    per-order parameter `stem` + k + `-as-` + label), `words` what it means (`{value}` the label), `solve(terms,
    answer, k)` its value from the answer (None where it is not identifiable), `rescore(terms, value, k)` the score with
    that value (None where it does not apply), `values(terms)` its simple values, `right(terms, k)` the formulas' own
    value (never a fit), and `orders` whether it is per order k (1..N, else k is 0)."""

    stem: str
    words: str
    solve: Callable[[Terms, float, int], Fit | None]
    rescore: Callable[[Terms, float, int], float | None]
    values: Callable[[Terms], list[tuple[str, float]]]
    right: Callable[[Terms, int], tuple[float, ...]]
    orders: bool = False
    #: the penalty's value under this parameter changes (a returned BP is then compared with the fitted one)
    penalty: Callable[[Terms, float], float] | None = None


def _mean_power(terms: Terms, answer: float, k: int) -> Fit | None:
    log_mean = terms.log_mean
    if log_mean is None or terms.bp <= 0 or answer <= 0 or abs(log_mean) < 1e-9:
        return None
    return Fit((math.log(answer) - math.log(terms.bp)) / log_mean, _uncertainty(answer) / abs(log_mean))


def _mean_power_score(terms: Terms, value: float, k: int) -> float | None:
    log_mean = terms.log_mean
    return None if log_mean is None else terms.bp * math.exp(value * log_mean)


def _penalty_power(terms: Terms, answer: float, k: int) -> Fit | None:
    log_mean = terms.log_mean
    if log_mean is None or not 0 < terms.bp < 1 or answer <= 0 or abs(math.log(terms.bp)) < 1e-9:
        return None
    log_bp = math.log(terms.bp)
    return Fit((math.log(answer) - log_mean) / log_bp, _uncertainty(answer) / abs(log_bp))


def _penalty_power_score(terms: Terms, value: float, k: int) -> float | None:
    log_mean = terms.log_mean
    return None if log_mean is None or terms.bp <= 0 else terms.bp ** value * math.exp(log_mean)


def _scale(terms: Terms, answer: float, k: int) -> Fit | None:
    if terms.score <= 0 or answer <= 0:
        return None
    value = answer / terms.score
    return Fit(value, value * _uncertainty(answer))


def _scaled(terms: Terms, value: float, k: int) -> float | None:
    return value * terms.score


def _scale_values(terms: Terms) -> list[tuple[str, float]]:
    """The positive simple values but the powers of ten (another power of ten is `other-scale-of-score`, decided by
    the stage test: its records do not move)."""
    return [(label, value) for label, value in simple_values(terms, negative=False)
            if not (value > 0 and _power_of_ten(value))]


def _power_of_ten(value: float) -> bool:
    k = round(math.log10(value))
    return k != 0 and math.isclose(value, 10.0 ** k, rel_tol=1e-12)


def _weight_of(terms: Terms, answer: float, k: int) -> Fit | None:
    """Order k's weight x solved from log A = log BP + sum_(n != k) w_n log p_n + x log p_k."""
    p_k = terms.orders[k - 1][0]
    others = [(p, w) for n, (p, w) in enumerate(terms.orders, start=1) if n != k and w != 0 and p is not None]
    if (p_k is None or not 0 < p_k < 1 or terms.bp <= 0 or answer <= 0 or any(p <= 0 for p, _ in others)
            or abs(math.log(p_k)) < 1e-9):
        return None
    rest = math.fsum(w * math.log(p) for p, w in others)
    return Fit((math.log(answer) - math.log(terms.bp) - rest) / math.log(p_k), _uncertainty(answer) / abs(
        math.log(p_k)))


def _weighted(terms: Terms, value: float, k: int) -> float | None:
    pairs = [(p, value if n == k else w) for n, (p, w) in enumerate(terms.orders, start=1) if p is not None]
    pairs = [(p, w) for p, w in pairs if w != 0]
    if any(p <= 0 for p, _ in pairs):
        return None
    return terms.bp * math.exp(math.fsum(w * math.log(p) for p, w in pairs))


def _weight_values(terms: Terms) -> list[tuple[str, float]]:
    """0 (the order left out), the positive rationals and 1/N."""
    return [("0", 0.0), *((label, value) for label, value in simple_values(terms, negative=False)
                          if label not in ("the-segment-count", "one-over-the-segment-count"))]


def _penalised_mean(terms: Terms, answer: float) -> float | None:
    """The penalty the answer implies, A / G, where the formulas apply one (0 < c <= r) and G is not 0."""
    log_mean = terms.log_mean
    if log_mean is None or answer <= 0 or not 0 < terms.c <= terms.r:
        return None
    return answer / math.exp(log_mean)


def _reference_length(terms: Terms, answer: float, k: int) -> Fit | None:
    """r' from A / G = e^(1 - r'/c): r' = c (1 - log(A / G))."""
    penalty = _penalised_mean(terms, answer)
    if penalty is None:
        return None
    return Fit(terms.c * (1 - math.log(penalty)), terms.c * _uncertainty(answer))


def _hypothesis_length(terms: Terms, answer: float, k: int) -> Fit | None:
    """c' from A / G = e^(1 - r/c'): c' = r / (1 - log(A / G)), where 1 - log(A / G) > 0."""
    penalty = _penalised_mean(terms, answer)
    if penalty is None or 1 - math.log(penalty) <= 1e-9:
        return None
    denominator = 1 - math.log(penalty)
    value = terms.r / denominator
    return Fit(value, value * _uncertainty(answer) / denominator)


def _with_lengths(terms: Terms, c: float, r: float) -> float | None:
    log_mean = terms.log_mean
    if log_mean is None or c <= 0 or not 0 < terms.c <= terms.r:
        return None
    return math.exp(1 - r / c) * math.exp(log_mean)


def _length_values(terms: Terms) -> list[tuple[str, float]]:
    """The integers 0..SIMPLE_MAGNITUDE, then N and S (a constant or another count where a length belongs)."""
    values = [(str(k), float(k)) for k in range(0, SIMPLE_MAGNITUDE + 1)]
    values.append(("the-order", float(len(terms.orders))))
    if terms.segments > 1:
        values.append(("the-segment-count", float(terms.segments)))
    return values


PARAMETERS: tuple[Parameter, ...] = (
    Parameter("mean-raised-to-", "the weighted geometric mean of the precisions raised to {value} (a root of another "
              "degree, or weights summing to {value}): BP x exp({value} x sum w_n log p_n)",
              _mean_power, _mean_power_score, lambda t: simple_values(t), lambda t, k: (0.0, 1.0)),
    Parameter("brevity-penalty-raised-to-", "the brevity penalty raised to {value} (applied {value} times): "
              "BP^{value} x exp(sum w_n log p_n)", _penalty_power, _penalty_power_score,
              lambda t: simple_values(t), lambda t, k: (0.0, 1.0, 2.0),
              penalty=lambda t, v: t.bp ** v),
    Parameter("score-scaled-by-", "the score multiplied by {value}", _scale, _scaled, _scale_values,
              lambda t, k: (1.0,)),
    Parameter("weight-of-order-", "order {order}'s weight taken as {value}, every other weight as sent and none "
              "renormalised", _weight_of, _weighted, _weight_values,
              lambda t, k: (t.orders[k - 1][1],), orders=True),
    Parameter("brevity-penalty-with-r-as-", "the brevity penalty computed with {value} in place of the reference "
              "length r: e^(1 - {value}/c) where c <= r", _reference_length,
              lambda t, v, k: _with_lengths(t, t.c, v), _length_values, lambda t, k: (float(t.r), float(t.c)),
              penalty=lambda t, v: math.exp(1 - v / t.c)),
    Parameter("brevity-penalty-with-c-as-", "the brevity penalty computed with {value} in place of the hypothesis "
              "length c: e^(1 - r/{value}) where c <= r", _hypothesis_length,
              lambda t, v, k: _with_lengths(t, v, t.r), lambda t: [(lb, v) for lb, v in _length_values(t) if v > 0],
              lambda t, k: (float(t.c), float(t.r)), penalty=lambda t, v: math.exp(1 - t.r / v)),
)

#: The enumerated parameter: the weights as uniform over the first k orders, k = 2..N-1 (k = 1 is
#: `unigram-precision-only`, k = N `weights-not-passed-on`, each tried before).
UNIFORM_OVER = "weights-as-uniform-over-"
_UNIFORM_WORDS = ("the weights taken as uniform over the first {value} orders (1/{value} each, the orders above left "
                  "out): an effective maximum order of {value}")


def _uniform_over(terms: Terms, k: int) -> float | None:
    orders = terms.orders[:k]
    if k < 2 or k >= len(terms.orders) or any(p is None or p <= 0 for p, _ in orders):
        return None
    return terms.bp * math.exp(math.fsum(math.log(p) for p, _ in orders if p is not None) / k)


# -- names ---------------------------------------------------------------------------------------------------------

_LABEL = r"(?P<label>minus-\d+(/\d+)?|\d+(/\d+)?|the-order|one-over-the-order|the-segment-count|" \
         r"one-over-the-segment-count)"


def name_of(parameter: Parameter, label: str, k: int = 0) -> str:
    """The name of `parameter` fitted at the value `label` names (order `k` for a per-order parameter)."""
    return f"{parameter.stem}{k}-as-{label}" if parameter.orders else f"{parameter.stem}{label}"


def _pattern(parameter: Parameter) -> re.Pattern[str]:
    order = r"(?P<order>\d+)-as-" if parameter.orders else ""
    return re.compile(re.escape(parameter.stem) + order + _LABEL)


_PATTERNS = tuple((parameter, _pattern(parameter)) for parameter in PARAMETERS)
_UNIFORM = re.compile(re.escape(UNIFORM_OVER) + r"(?P<k>\d+)-orders")


@dataclass(frozen=True)
class Named:
    """A fitted name read back: its parameter (None for the uniform weights), the value's label, the order k."""

    parameter: Parameter | None
    label: str
    k: int


def parse(name: str) -> Named | None:
    """The fitted name `name` read back (None for any other name)."""
    for parameter, pattern in _PATTERNS:
        match = pattern.fullmatch(name)
        if match is not None:
            return Named(parameter, match["label"], int(match["order"]) if parameter.orders else 0)
    match = _UNIFORM.fullmatch(name)
    return None if match is None else Named(None, match["k"], int(match["k"]))


#: The words of a value the request carries, in a description.
_LABEL_WORDS = {"the-order": "N (the order sent)", "one-over-the-order": "1/N (N the order sent)",
                "the-segment-count": "S (the number of segments)",
                "one-over-the-segment-count": "1/S (S the number of segments)"}


def describe(name: str) -> str:
    """What a fitted name claims, in words."""
    named = parse(name)
    if named is None:
        return name
    value = _LABEL_WORDS.get(named.label, named.label.replace("minus-", "-"))
    words = _UNIFORM_WORDS if named.parameter is None else named.parameter.words
    return ("fitted from the score, not read from a line of code: the answer is the formulas' score with one free "
            "parameter at a simple value, " + words.format(value=value, order=named.k))


# -- fitting -------------------------------------------------------------------------------------------------------


def _close(a: float, b: float) -> bool:
    return CONTRACT.close(a, b)


def _is_right(value: float, rights: tuple[float, ...]) -> bool:
    return any(math.isclose(value, right, rel_tol=1e-12, abs_tol=1e-12) for right in rights)


def fits(terms: Terms, answer: float, *, returned_bp: float | None = None,
         charge: Callable[[], None] = lambda: None) -> Iterator[tuple[str, float]]:
    """(name, value) of every parameter fitted at a simple value that re-scores `answer` within the contract, in
    `PARAMETERS` order then the uniform weights, the rationals before the request's values. `charge` is called once
    per parameter (per order) tried: the search's deterministic budget. A returned penalty `returned_bp` must be the
    fitted one (a parameter of the penalty) or the formulas' (any other): a fit is never chosen against the returned
    statistics."""
    if not math.isfinite(answer) or answer <= 0 or answer in _BOUNDS:
        return
    bp_right = returned_bp is None or _close(returned_bp, terms.bp)
    for parameter in PARAMETERS:
        for k in range(1, len(terms.orders) + 1) if parameter.orders else (0,):
            fit = parameter.solve(terms, answer, k)
            if fit is None:
                continue
            charge()
            rights = parameter.right(terms, k)
            for label, value in parameter.values(terms):
                if abs(fit.value - value) > fit.bound or _is_right(value, rights):
                    continue
                if not _penalty_agrees(parameter, terms, value, returned_bp, bp_right=bp_right):
                    continue
                score = parameter.rescore(terms, value, k)
                if score is not None and _close(answer, score):
                    yield name_of(parameter, label, k), score
    if not bp_right:
        return
    for k in range(2, len(terms.orders)):
        score = _uniform_over(terms, k)
        if score is None:
            continue
        charge()
        if _close(answer, score):
            yield f"{UNIFORM_OVER}{k}-orders", score


def _penalty_agrees(parameter: Parameter | None, terms: Terms, value: float, returned_bp: float | None, *,
                    bp_right: bool) -> bool:
    """Whether a returned penalty is the one `parameter` at `value` computes: the fitted penalty for a parameter of
    the penalty (its power: the formulas' penalty too, computed right and applied otherwise), else the formulas'."""
    if parameter is None or parameter.penalty is None:
        return bp_right
    return returned_bp is None or _close(returned_bp, parameter.penalty(terms, value)) or (
        parameter.stem.endswith("raised-to-") and bp_right)


def replayed(terms: Terms, answer: float, names, *, returned_bp: float | None = None) -> Iterator[tuple[str, float]]:
    """(name, value) of each fitted name of `names` (a search among given names: an earlier record's fits) whose
    value on this request (`fitted_value`: no solve, the name's own value) is `answer` within the contract, a returned
    penalty agreeing. An answer of 0 is replayed too: among given names a 0 has the evidence of the records that
    named them (as a score stage's variant's 0 has, `classify._tiers`), where a solve could only fit it by chance."""
    if not math.isfinite(answer):
        return
    bp_right = returned_bp is None or _close(returned_bp, terms.bp)
    for name in names:
        named = parse(name)
        score = fitted_value(terms, name)
        if named is None or score is None or not _close(answer, score):
            continue
        value = None if named.parameter is None else value_of_label(named.label, terms)
        if named.parameter is not None and value is None:
            continue
        if _penalty_agrees(named.parameter, terms, value if value is not None else 0.0, returned_bp,
                           bp_right=bp_right):
            yield name, score


def fitted_value(terms: Terms | None, name: str) -> float | None:
    """The score a fitted name gives on the request of `terms` (None where it does not apply there): its replay."""
    named = parse(name)
    if terms is None or named is None:
        return None
    if named.parameter is None:
        return _uniform_over(terms, named.k)
    if named.parameter.orders and not 1 <= named.k <= len(terms.orders):
        return None
    value = value_of_label(named.label, terms)
    if value is None:
        return None
    return named.parameter.rescore(terms, value, named.k)


#: Every fitted family's stem (the catalogue declares one mechanism per stem).
STEMS = (*(parameter.stem for parameter in PARAMETERS), UNIFORM_OVER)

__all__ = ["PARAMETERS", "SIMPLE_DENOMINATOR", "SIMPLE_MAGNITUDE", "STEMS", "UNIFORM_OVER", "Fit", "Named",
           "Parameter", "Terms", "describe", "fits", "fitted_value", "name_of", "parse", "replayed", "simple_values",
           "terms_of", "value_of_label"]
