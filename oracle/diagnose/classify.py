"""Name the root cause of a disagreement between an implementation and the oracle.

Given a (minimal) failing request, the implementation's answer and the judged
profile, `classify` recomputes the oracle under each alternative convention
(an `Options` field changed: reference length rule, per-segment totals floor,
empty-order rule, weight rule, both-empty rule, another reading of the
smoothing method) and under alternative computations that are not conventions
(mean of sentence scores, float32 arithmetic, a 0-100 scale, a tiny value in
place of a zero precision, an early "return 0", ...), then pairs of them, and
returns the first whose value matches the answer within the numeric contract
|a - e| <= 1e-12 + 1e-9 |e| (NaN matches only NaN).

    >>> from oracle.models.protocol import ScoreRequest, Segment
    >>> request = ScoreRequest(level="sentence", segments=[Segment(hypothesis=["a", "b"], references=[["b", "a"]])],
    ...                        weights=[0.5, 0.01])
    >>> classify(request, 0.0008384428090212442, "nltk").name  # nltk: sys.float_info.min ** 0.01
    'tiny-instead-of-zero'

Pure: uses the oracle's formulas (`oracle.formulas.bleu`) and a little float arithmetic
on the oracle's own intermediate values; nothing here is imported from any
library under test.
"""

from __future__ import annotations

import math
import re
from typing import Any
from dataclasses import dataclass, replace
from fractions import Fraction
from itertools import combinations

from oracle.formulas.conventions import (
    BOTH_EMPTY_RULES,
    EMPTY_ORDER_RULES,
    NO_MATCH_RULES,
    REFERENCE_LENGTH_RULES,
    Smoothing,
)
from oracle.formulas.errors import BleuOracleError, BleuValueError
from oracle.formulas.profiles import get_profile
from oracle.models.protocol import Statistics
from oracle.models.results import Classification

from .computations import (
    COMPUTATION_DOCS,
    COMPUTATIONS,
    FLOAT32,
    GENERIC_COMPUTATIONS,
    SPECIFIC_COMPUTATIONS,
    Context,
    context_for,
    result_under,
    score_of,
)
from .expect import statistics_of
from .judge import DEFAULT_REL, Contract, breaks_zero_rule, first_divergence

#: float32 somewhere in the arithmetic (torch's default dtype: weights, precisions or the score)
#: agrees to about this relative error on short inputs; every explanation is retried at this
#: tolerance after none matched exactly, and named "<explanation> + float32".
FLOAT32_REL_TOLERANCE = 1e-5

AGREES = "agrees"
UNEXPLAINED = "unexplained"
SMOOTHED_COUNTS = "statistics-report-smoothed-counts"


@dataclass(frozen=True)
class Explanation:
    """A named root cause: what changed (option changes and/or a computation) and the value it gives."""

    name: str
    description: str
    #: ((option, value), ...) and/or (("computation", name),), in the order they were applied
    change: tuple = ()
    #: the recomputed value that matched the answer (None when unexplained)
    value: float | None = None
    #: the oracle's own value under the judged profile
    expected: float | None = None

    @property
    def explained(self):
        return self.name != UNEXPLAINED

    def classification(self, *, documented=(), scope=None):
        """This explanation as a record's root cause."""
        return Classification(name=self.name, description=self.description,
                              change=tuple((key, _scalar(value)) for key, value in self.change), value=self.value,
                              expected=self.expected, documented=documented, scope=scope)


def _scalar(value):
    """A change's value as the stream keeps it: a JSON scalar (a Fraction or a Smoothing as its text)."""
    return value if value is None or isinstance(value, (str, int, float, bool)) else str(value)


def within_contract(actual, expected, *, rel_tol=DEFAULT_REL):
    """The numeric contract (`oracle.diagnose.judge.Contract`) at relative tolerance `rel_tol`, with
    the judge's zero rule: a tiny number for an exact 0 is not within it, whatever the tolerance."""
    return Contract(rel=rel_tol).close(actual, expected) and not breaks_zero_rule(actual, expected)


# -- alternative conventions --------------------------------------------------


def _convention_changes(options, smoothing, level, profile_options):
    """(name, description, option changes, smoothing) for every single alternative convention."""
    out = []
    for rule in REFERENCE_LENGTH_RULES:
        if rule != options.reference_length:
            out.append((f"reference_length={rule}", f"r is {REFERENCE_LENGTH_RULES[rule]}",
                        {"reference_length": rule}, None))
    floor = 1 if options.segment_totals_floor == 0 else 0
    out.append((f"segment_totals_floor={floor}",
                "each segment's n-gram total is at least 1 before summing (nltk's modified_precision "
                "denominator max(1, ...))" if floor else "no per-segment floor on n-gram totals",
                {"segment_totals_floor": floor}, None))
    current = options.empty_order_at(level, smoothing)
    for rule in EMPTY_ORDER_RULES:
        if rule != current:
            out.append((f"empty_order={rule}", f"an order with no hypothesis n-grams: {EMPTY_ORDER_RULES[rule]}",
                        {"empty_order": rule, "sentence_empty_order": None, "unsmoothed_empty_order": None}, None))
    weight_rule = "normalise" if options.weight_normalisation == "as-given" else "as-given"
    out.append((f"weights={weight_rule}", "the weights are divided by their sum" if weight_rule == "normalise"
                else "the weights are used as given", {"weight_normalisation": weight_rule, "uniform_weights_only": False}, None))
    for rule in NO_MATCH_RULES:
        if rule != options.no_match:
            out.append((f"no_match={rule}", f"no n-gram of any order matches: {NO_MATCH_RULES[rule]}",
                        {"no_match": rule}, None))
    for rule in BOTH_EMPTY_RULES:
        if rule != options.both_empty:
            out.append((f"both_empty={rule}", f"no hypothesis and no reference tokens: {BOTH_EMPTY_RULES[rule]}",
                        {"both_empty": rule}, None))
    for alternative, description in _smoothing_readings(smoothing, profile_options):
        out.append((f"smoothing={alternative.describe()}", description, {}, alternative))
    return out


def _weak(convention):
    """Readings that say "the implementation ignored the request" come after the specific computations."""
    name = convention[0]
    return name.startswith("smoothing=") and convention[1].startswith(("the requested smoothing", "the profile's default"))


def _smoothing_readings(smoothing, profile_options):
    """Other readings of the requested smoothing method's documentation."""
    method = smoothing.method
    readings = []
    if method == "chen-cherry-2" or (method == "add-k" and smoothing.k == 1):
        readings.append((Smoothing("lin-2004"), "add 1 to matches and totals of every order, unigrams included "
                         "(NLTK's page: 'Add 1 to both numerator and denominator')"))
    if method == "lin-2004":
        readings.append((Smoothing("chen-cherry-2"), "add 1 to matches and totals of orders n > 1 only"))
    if method == "chen-cherry-7":
        readings.append((Smoothing("chen-cherry-4", k=smoothing.k), "method 4 only"))
        readings.append((Smoothing("chen-cherry-5"), "method 5 only"))
    if method == "floor":
        readings.append((Smoothing("floor", value=Fraction(1, 10)), "the documented default value 0.1, not the given one"))
    if method == "chen-cherry-1" and smoothing.epsilon != Fraction(1, 10):
        readings.append((Smoothing("chen-cherry-1"), "the documented default epsilon 0.1, not the given one"))
    if method != "none":
        readings.append((Smoothing("none"), "the requested smoothing is not applied"))
    default = profile_options.smoothing
    if default.method != method and default.method != "none":
        readings.append((default, f"the profile's default smoothing {default.describe()} instead of the requested one"))
    return [(s, d) for s, d in readings if s != smoothing]


# -- classification --------------------------------------------------------------


def _answer_parts(answer: object) -> tuple[float | None, Any]:
    if isinstance(answer, (int, float)):
        return float(answer), None
    score = getattr(answer, "score", None)
    statistics = getattr(answer, "statistics", None)
    if score is None and isinstance(answer, dict):
        score, statistics = answer.get("score"), answer.get("statistics")
    if isinstance(score, str) and score.lower() == "nan":
        score = math.nan
    if isinstance(statistics, Statistics):  # a reply's (`judge.Answered`): compared as the wire has them
        statistics = statistics.to_json()
    return (None if score is None else float(score)), statistics


def _statistics_differ(statistics, result, n):
    """Which layer of the reported counts differs from the oracle's (None if none does): the judge's own
    comparison (`judge.first_divergence`), on the counts only (BP is a float the explanations recompute)."""
    if not statistics or result is None:
        return None
    if not isinstance(statistics, Statistics):  # an in-process adapter's answer carries a mapping
        statistics = Statistics.model_validate(statistics)
    divergence = first_divergence(statistics_of(result, n), statistics, max_order=n, bp=False)
    return None if divergence is None else divergence[0]


def classify(request, answer, profile, *, overrides=None, among=None):
    """The first explanation of `answer` (a reply, a ScoreAnswer, a mapping or a number) for `request` under `profile`.

    Returns Explanation("agrees") if the oracle itself matches, Explanation("unexplained") if no
    alternative does. `overrides` are convention overrides the case already applies. `among`, if
    given, restricts the search to explanations whose every part (see `component_names`) is one of
    these names -- e.g. the documented discrepancy classes of one implementation -- so that an
    answer several alternatives explain is attributed to the one known to occur.

    Order: computations gated by a library-specific condition; one convention; generic
    computations; readings that ignore the requested smoothing; a convention with a computation;
    two conventions; two conventions with a computation. All of that first within the numeric
    contract, then again within float32 precision ("... + float32").

    When the score agrees but reported statistics do not, the explanation is the first
    convention (or pair) under which the oracle's statistics are the reported ones.
    """
    profile = get_profile(profile)
    actual, statistics = _answer_parts(answer)
    # a text request: the explanations vary the counting, not the tokenizer
    request = request.tokenized(dict(overrides or {}).get("token_split", profile.options.token_split))
    ctx = context_for(request, profile, overrides)
    options, smoothing, weights = ctx.options, ctx.smoothing, ctx.weights
    base = result_under(ctx)
    expected = score_of(base)
    n = len(weights)
    allowed = None if among is None else set(among)

    def permitted(*names):
        return allowed is None or all(name in allowed for name in names)

    if actual is None:
        return Explanation(UNEXPLAINED, "the answer has no score", (), None, expected)

    conventions = _convention_changes(options, smoothing, request.level, profile.options)
    strong = [c for c in conventions if not _weak(c)]
    weak = [c for c in conventions if _weak(c)]
    pairs = [
        (f"{n1} + {n2}", f"{d1}; and {d2}", {**c1, **c2}, s1 or s2)
        for (n1, d1, c1, s1), (n2, d2, c2, s2) in combinations(conventions, 2)
        if not (set(c1) & set(c2)) and not (s1 is not None and s2 is not None)
    ]
    cache = {}

    def result_for(changes, smoothing_change):
        key = (tuple(sorted(changes.items())), smoothing_change)
        if key not in cache:
            try:
                changed = options.with_changes(**changes) if changes else options
            except BleuOracleError:
                cache[key] = None
            else:
                cache[key] = result_under(ctx, options=changed, smoothing=smoothing_change)
        return cache[key]

    exact_close = within_contract

    def float32_close(a, e):
        return within_contract(a, e, rel_tol=FLOAT32_REL_TOLERANCE)

    def by_convention(candidates, close, suffix, *, stats=False):
        for name, description, changes, smoothing_change in candidates:
            if not permitted(*component_names(name), *component_names(suffix)):
                continue
            result = result_for(changes, smoothing_change)
            value = score_of(result)
            if close(actual, value) and (not stats or _statistics_differ(statistics, result, n) is None):
                return Explanation(_join(name, suffix), _join_text(description, suffix),
                                   _change_tuple(changes, smoothing_change) + _suffix_change(suffix), value, expected)
        return None

    def by_computation(computations, close, suffix, candidates=((None, None, {}, None),)):
        for name, description, changes, smoothing_change in candidates:
            if name is not None and not permitted(*component_names(name)):
                continue
            result = result_for(changes, smoothing_change) if name is not None else base
            if result is None:
                continue
            changed = ctx if name is None else Context(request, options.with_changes(**changes) if changes else options,
                                                         smoothing_change or smoothing, weights)
            for cname, function in computations:
                if not permitted(cname, *component_names(suffix)):
                    continue
                value = function(changed, result)
                if value is not None and close(actual, value):
                    label = _join(cname if name is None else f"{name} + {cname}", suffix)
                    text = COMPUTATION_DOCS[cname] if name is None else f"{description}; and {COMPUTATION_DOCS[cname]}"
                    return Explanation(label, _join_text(text, suffix),
                                       _change_tuple(changes, smoothing_change) + (("computation", cname),)
                                       + _suffix_change(suffix), value, expected)
        return None

    def search(close, suffix):
        return (
            by_computation(SPECIFIC_COMPUTATIONS, close, suffix)
            or by_convention(strong, close, suffix)
            or by_computation(GENERIC_COMPUTATIONS, close, suffix)
            or by_convention(weak, close, suffix)
            or by_computation(COMPUTATIONS, close, suffix, conventions)
            or by_convention(pairs, close, suffix)
            or by_computation(COMPUTATIONS, close, suffix, pairs)
        )

    if within_contract(actual, expected):
        differs = _statistics_differ(statistics, base, n)
        if differs is None:
            return Explanation(AGREES, "the oracle under the judged profile gives this value", (), expected, expected)
        smoothed = base.smoothed
        if smoothed is not None and differs in ("matches", "totals") and permitted(SMOOTHED_COUNTS):
            want_m = [float(x) for x in smoothed.matches[:n]]
            want_t = [float(x) for x in smoothed.totals[:n]]
            got_m = [float(x) for x in statistics.get("matches", want_m)][:n]
            got_t = [float(x) for x in statistics.get("totals", want_t)][:n]
            if got_m == want_m and got_t == want_t:
                return Explanation(SMOOTHED_COUNTS,
                                   "the score agrees; the reported matches/totals include the smoothing's additions",
                                   (("computation", SMOOTHED_COUNTS),), expected, expected)
        found = by_convention(strong, exact_close, "", stats=True) or by_convention(pairs, exact_close, "", stats=True)
        if found:
            return found
        return Explanation(UNEXPLAINED, f"the score agrees but the statistics differ at {differs}", (), None, expected)

    if statistics is not None and float32_close(actual, expected) and permitted(FLOAT32):
        if _statistics_differ(statistics, base, n) is not None:
            found = (by_convention(strong, float32_close, FLOAT32, stats=True)
                     or by_convention(pairs, float32_close, FLOAT32, stats=True))
            if found:
                return found
    found = search(exact_close, "")
    if found:
        return found
    if float32_close(actual, expected) and permitted(FLOAT32):
        return Explanation(FLOAT32, COMPUTATION_DOCS[FLOAT32], (("computation", FLOAT32),), expected, expected)
    found = search(float32_close, FLOAT32)
    if found:
        return found
    return Explanation(UNEXPLAINED, "no single or paired alternative convention or computation gives this value",
                       (), None, expected)


def _join(name, suffix):
    return f"{name} + {suffix}" if suffix else name


def _join_text(text, suffix):
    return f"{text}; and {COMPUTATION_DOCS[suffix]}" if suffix else text


def _suffix_change(suffix):
    return (("computation", suffix),) if suffix else ()


def _change_tuple(changes, smoothing_change):
    out = tuple((k, v) for k, v in changes.items() if not (k == "sentence_empty_order" and v is None)
                and k != "uniform_weights_only")
    if smoothing_change is not None:
        out += (("smoothing", smoothing_change.describe()),)
    return out


def smoothing_from_description(text):
    """The Smoothing an explanation's ("smoothing", text) change names: `Smoothing.describe()` read back,
    e.g. "floor(value=1/10)" or "none"."""
    match = re.fullmatch(r"([a-z0-9-]+)(?:\((.*)\))?", text.strip())
    if not match:
        raise BleuValueError(f"not a smoothing description: {text!r} (expected e.g. 'floor(value=1/10)')")
    params = {}
    for item in filter(None, (match.group(2) or "").split(",")):
        name, sep, value = item.strip().partition("=")
        if not sep:
            raise BleuValueError(f"not a smoothing description: {text!r} (parameters are name=value)")
        try:
            params[name.strip()] = Fraction(value.strip())
        except (ValueError, ZeroDivisionError):
            raise BleuValueError(f"not a smoothing description: {text!r} (parameter {name.strip()} = {value!r})") from None
    return Smoothing(match.group(1), **params)


def explained_value(request, profile, change, *, overrides=None):
    """The value the oracle gives for `request` under `profile` changed as an explanation says.

    `change` is an `Explanation.change` (or its JSON): (option, value) pairs for conventions,
    ("smoothing", Smoothing | its description | a protocol mapping) for another reading of the
    smoothing method, ("computation", name) for an alternative computation. This is the value
    `classify` matched against the answer, recomputed from the explanation alone: a case found by
    `bleu-oracle fuzz` records the implementation's value and its explanation, and `cases validate`
    checks that the oracle under that explanation still gives it. "float32" and
    "statistics-report-smoothed-counts" change no value (they are about precision and reported
    statistics). Returns None when the oracle rejects the input under the changed conventions or
    the computation does not apply.
    """
    base = context_for(request, profile, overrides)
    functions = dict(COMPUTATIONS)
    changes, smoothing_change, computations = {}, None, []
    for key, value in change:
        if key == "computation":
            if value not in functions and value not in (FLOAT32, SMOOTHED_COUNTS):
                raise BleuValueError(f"unknown computation {value!r} (known: {sorted(known_names())})")
            computations.append(value)
        elif key == "smoothing":
            smoothing_change = smoothing_from_description(value) if isinstance(value, str) else Smoothing.parse(value)
        else:
            changes[key] = value
    if "empty_order" in changes:  # as _convention_changes: the sentence-level rule follows
        changes.setdefault("sentence_empty_order", None)
    if "weight_normalisation" in changes:
        changes.setdefault("uniform_weights_only", False)
    changed = base.options.with_changes(**changes) if changes else base.options
    ctx = replace(base, options=changed, smoothing=smoothing_change or base.smoothing)
    result = result_under(ctx)
    value = score_of(result)
    for name in computations:
        if name in (FLOAT32, SMOOTHED_COUNTS):
            continue
        if result is None:
            return None
        value = functions[name](ctx, result)
    return value


def component_names(name):
    """The parts of a (possibly combined) explanation name: 'a + b' -> ('a', 'b'); '' -> ()."""
    return tuple(part.strip() for part in name.split(" + ") if part.strip())


def known_names():
    """Every single explanation name classify can give (conventions are named `field=value`)."""
    return tuple(name for name, _ in COMPUTATIONS) + (FLOAT32, SMOOTHED_COUNTS)


__all__ = ["AGREES", "COMPUTATIONS", "Explanation", "FLOAT32", "FLOAT32_REL_TOLERANCE", "SMOOTHED_COUNTS",
           "UNEXPLAINED", "classify", "component_names", "explained_value", "known_names",
           "smoothing_from_description", "within_contract"]
