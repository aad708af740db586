"""Does the oracle reproduce each case's printed value? (`bleu-oracle cases validate`)

A documented case is run through `oracle.score` under each of its profiles and compared with what its
document prints, exactly where the document gives a fraction and within the printed digits
otherwise. A case found by fuzzing (`found_by`) holds an implementation's answer: the oracle under the
case's `explained_by` must reproduce it, and the explanation must name computations the classifier knows.
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal
from fractions import Fraction

import oracle
from oracle.formulas import exact
from oracle.formulas.errors import BleuOracleError
from oracle.formulas.exact import CONTEXT
from oracle.suite.cases import EXACT_SLACK

from .classify import explained_value, known_names


@dataclass(frozen=True)
class CheckOutcome:
    """One case under one profile: passed, and what was expected and found."""

    case_id: str
    profile: str
    passed: bool
    expected: str
    actual: str
    failures: tuple = ()


def _fmt(value):
    if value is None:
        return "undefined (left out)"
    if isinstance(value, Fraction):
        return str(value)
    if isinstance(value, Decimal):
        if value.is_nan():
            return "NaN"
        if value.is_zero():
            return "0"
        return (
            format(value.normalize(), "f")
            if abs(value.adjusted()) < 25 and len(value.as_tuple().digits) <= 20
            else f"{value:.20g}"
        )
    return str(value)


def _actual_decimal(value):
    return exact.to_decimal(value)


def _close(expected, actual, tolerance):
    """expected Fraction (exact, within EXACT_SLACK) or Decimal (within tolerance); actual Fraction/Decimal/None."""
    if actual is None:
        return False
    if isinstance(expected, Decimal) and expected.is_nan():
        return isinstance(actual, Decimal) and actual.is_nan()
    if isinstance(actual, Decimal) and not actual.is_finite():
        return False
    if isinstance(expected, Fraction):
        if isinstance(actual, Fraction):
            return actual == expected
        return CONTEXT.abs(CONTEXT.subtract(_actual_decimal(actual), _actual_decimal(expected))) <= EXACT_SLACK
    return CONTEXT.abs(CONTEXT.subtract(_actual_decimal(actual), expected)) <= tolerance


def _fmt_expected(value, tolerance):
    if isinstance(value, Fraction):
        return f"{value} (exact)"
    if value is None or value.is_nan():
        return _fmt(value)
    return f"{_fmt(value)} ± {_fmt(tolerance)}"


def _describe_expected(expect):
    if expect.rejected:
        return "rejected"
    parts = []
    if expect.score is not None:
        parts.append(f"score {_fmt_expected(expect.score, expect.tolerance)}")
    s = expect.statistics
    if s is not None:
        for key in ("hyp_len", "ref_len", "matches", "totals"):
            value = getattr(s, key)
            if value is not None:
                parts.append(f"{key} {list(value) if isinstance(value, tuple) else value}")
        if s.bp is not None:
            parts.append(f"bp {_fmt_expected(s.bp, expect.tolerance)}")
        if s.precisions is not None:
            parts.append("precisions {" + ", ".join(f"{n}: {_fmt(p)}" for n, p in s.precisions) + "}")
    return "; ".join(parts)


def check_case(case, profile):
    """Run `case` through `oracle.score` under `profile` and compare with its expectations."""
    hypotheses, references = case.input.oracle_arguments()
    expect = case.expect
    expected = _describe_expected(expect)
    kwargs = case.oracle_kwargs()
    if case.explained_by is not None:
        unknown = [value for what, value in case.explained_by.change
                   if what == "computation" and value not in known_names()]
        if unknown:
            return CheckOutcome(case.id, profile, False, expected, "not checked", (
                f"unknown computation {unknown[0]!r} in `explained_by` (known: {', '.join(sorted(known_names()))})",))
        kwargs.update(case.explained_by.convention_changes())
        expected += f" (an implementation's answer; the oracle under `{case.explained_by.name}`)"
    try:
        result = oracle.score(hypotheses, references, profile=profile, **kwargs)
    except BleuOracleError as exc:
        if expect.rejected:
            return CheckOutcome(case.id, profile, True, expected, f"rejected: {exc}")
        return CheckOutcome(
            case.id, profile, False, expected, f"rejected: {exc}", (f"the oracle rejected the input: {exc}",)
        )
    if expect.rejected:
        return CheckOutcome(
            case.id, profile, False, expected, f"score {_fmt(result.score)}",
            (f"expected the input to be rejected, got score {_fmt(result.score)}",),
        )
    failures, actual = [], []
    tol = expect.tolerance
    score = result.score
    if case.explained_by is not None:
        score = _explained_score(case, profile)
        if score is None:
            failures.append(f"the oracle under `{case.explained_by.name}` gives no value for this input")
    if expect.score is not None and score is not None:
        actual.append(f"score {_fmt(score)}")
        if not _close(expect.score, score, tol):
            failures.append(f"score: expected {_fmt_expected(expect.score, tol)}, got {_fmt(score)}")
    if expect.statistics is not None:
        _check_counts(expect.statistics, result, failures, actual)
        _check_bp_and_precisions(expect.statistics, result, tol, failures, actual)
    return CheckOutcome(case.id, profile, not failures, expected, "; ".join(actual), tuple(failures))


def _check_counts(s, result, failures, actual):
    """The expected lengths and per-order counts against the oracle's (`failures` and `actual` grow)."""
    stats = result.statistics
    orders = len(result.weights)
    for key in ("hyp_len", "ref_len"):
        want = getattr(s, key)
        if want is not None:
            got = getattr(stats, key)
            actual.append(f"{key} {got}")
            if got != want:
                failures.append(f"{key}: expected {want}, got {got}")
    for key in ("matches", "totals"):
        want = getattr(s, key)
        if want is not None:
            got = list(getattr(stats, key))[:orders]
            actual.append(f"{key} {got}")
            if got != list(want):
                failures.append(f"{key}: expected {list(want)}, got {got}")


def _check_bp_and_precisions(s, result, tol, failures, actual):
    """The expected BP and precisions against the oracle's, within the case's tolerance."""
    if s.bp is not None:
        actual.append(f"bp {_fmt(result.bp)}")
        if not _close(s.bp, result.bp, tol):
            failures.append(f"bp: expected {_fmt_expected(s.bp, tol)}, got {_fmt(result.bp)}")
    if s.precisions is None:
        return
    shown = []
    for order, want in s.precisions:
        if order > len(result.precisions):
            failures.append(
                f"precision {order}: expected {_fmt(want)}, but the case scores only {len(result.precisions)} "
                "order(s)"
            )
            continue
        got = result.precisions[order - 1]
        shown.append(f"{order}: {_fmt(got)}")
        ok = got is None if want is None else _close(want, got, tol)
        if not ok:
            failures.append(f"precision {order}: expected {_fmt_expected(want, tol)}, got {_fmt(got)}")
    actual.append("precisions {" + ", ".join(shown) + "}")


def _explained_score(case, profile):
    """The oracle's value for a `found_by` case under its `explained_by` (a Decimal; None: no value)."""
    request = case.request_under(profile).request
    if request is None:  # the input protocol v1 cannot carry: no implementation answered it
        return None
    value = explained_value(request, profile, case.explained_by.change, overrides=case.convention_overrides())
    if value is None:
        return None
    return Decimal("NaN") if value != value else Decimal(value)


def check_cases(cases):
    """Every case under each of its profiles, in order."""
    return [check_case(case, profile) for case in cases for profile in case.profiles]
