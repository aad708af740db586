"""Smoothing, each method as its documentation states it.

Every method is a rewrite of the (matched count m_n, total l_n) pairs per order,
so that p_n = m_n / l_n stays one formula and the explanation can show what
each method changed. Sources: sacrebleu's `compute_bleu` docstring (floor,
add-k, exp); the NLTK `SmoothingFunction` documentation of Chen and Cherry
(2014) methods 1-7; Lin and Och (2004) as mlpack's `smooth` documents it.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

from . import exact
from .errors import BleuValueError


@dataclass(frozen=True)
class SmoothedCounts:
    """The (m_n, l_n) pairs after smoothing, with a note for every change made."""

    matches: tuple
    totals: tuple
    notes: tuple


def extra_orders(method):
    """Chen and Cherry's method 5 averages in order N+1, so counting must go one order further."""
    return 1 if method in ("chen-cherry-5", "chen-cherry-7") else 0


def smooth(statistics, *, max_order, smoothing):
    # Chen & Cherry's (2014) notation: m holds each order's matches m_n, l_n its n-gram totals l_n
    m = [Fraction(x) for x in statistics.matches[:max_order]]
    l_n = [Fraction(x) for x in statistics.totals[:max_order]]
    notes = []
    method = smoothing.method
    if method == "none":
        pass
    elif method == "floor":
        # sacrebleu compute_bleu: "floor: Method 1 (requires small positive value (0.1 in the
        # paper) to be set)" -- Chen & Cherry's method 1: p_n = value / l_n where m_n = 0.
        _replace_zero_matches(m, l_n, lambda i: smoothing.value, notes, method)
    elif method == "add-k":
        # sacrebleu compute_bleu: "add-k: Method 2 (Generalizing Lin and Och, 2004)" -- k added
        # to m_n and l_n for n > 1, as Chen & Cherry's method 2 adds 1.
        _add(m, l_n, smoothing.k, range(1, max_order), notes, method)
    elif method in ("exp", "chen-cherry-3"):
        # sacrebleu: "exp: Method 3 (NIST smoothing method i.e. in use with mteval-v13a.pl)";
        # NLTK method3: "taking 1 / ( 2^k ), instead of 0, for each precision score whose
        # matching n-gram count is null". The same rule under two names.
        _replace_zero_matches(m, l_n, lambda i: Fraction(1, 2**i), notes, method)
    elif method == "chen-cherry-1":
        # NLTK method1: "Add epsilon counts to precision with 0 counts."
        _replace_zero_matches(m, l_n, lambda i: smoothing.epsilon, notes, method)
    elif method == "chen-cherry-2":
        # Chen and Cherry (2014) smoothing 2 (Lin and Och 2004): add 1 to m_n and l_n for n > 1.
        # The NLTK page says "Add 1 to both numerator and denominator" without saying
        # which orders; we follow the paper (n > 1), as case nltk-smoothing-2-orders records.
        _add(m, l_n, Fraction(1), range(1, max_order), notes, method)
    elif method == "lin-2004":
        # mlpack `smooth`: "Whether or not to apply Lin et al. 2004 smoothing" -- which orders is
        # not documented; every order, unigrams included, decided from tensorflow/nmt's
        # compute_bleu (which mlpack's BLEU ports). chen-cherry-2 is the n > 1 reading.
        _add(m, l_n, Fraction(1), range(0, max_order), notes, method)
    elif method == "chen-cherry-4":
        _chen_cherry_4(m, l_n, statistics.hyp_len, smoothing.k, notes)
    elif method == "chen-cherry-5":
        _chen_cherry_5(m, _next_order_matches(statistics, max_order), notes)
    elif method == "chen-cherry-6":
        _chen_cherry_6(m, l_n, smoothing.alpha, notes)
    elif method == "chen-cherry-7":
        # NLTK method7: "Interpolates methods 4 and 5" -- method 4, then method 5 on its result.
        _chen_cherry_4(m, l_n, statistics.hyp_len, smoothing.k, notes)
        _chen_cherry_5(m, _next_order_matches(statistics, max_order), notes)
    else:  # pragma: no cover - Smoothing validates the name
        raise BleuValueError(f"unknown smoothing method {method!r}")
    return SmoothedCounts(tuple(m), tuple(l_n), tuple(notes))


def _replace_zero_matches(m, l_n, replacement, notes, method):
    """Give each order with n-grams but no matches the k-th replacement count (k = 1, 2, ...)."""
    k = 0
    for i in range(len(m)):
        if l_n[i] > 0 and m[i] == 0:
            k += 1
            m[i] = replacement(k)
            notes.append(f"{method}: order {i + 1} has no matches, matched count set to {m[i]}")


def _add(m, l_n, k, orders, notes, method):
    for i in orders:
        m[i] += k
        l_n[i] += k
    if orders:
        notes.append(f"{method}: added {k} to matches and totals of order(s) {', '.join(str(i + 1) for i in orders)}")


def _chen_cherry_4(m, l_n, hyp_len, K, notes):
    """NLTK method4: instead of 1/2^k, "dividing by 1/ln(len(T))": ln(T) / 2^k, and divided by K.

    The documentation names K ("the k value use in method 4", default 5) but not
    where it enters; ln(T) / (K 2^k) is decided from NLTK's code.

    T is the hypothesis length (at corpus level, the total, as NLTK passes hyp_len);
    for T <= 1, ln(T) <= 0 and nothing is added.
    """
    if hyp_len <= 1:
        return
    log_t = exact.ln(hyp_len)
    k = 0
    for i in range(len(m)):
        if l_n[i] > 0 and m[i] == 0:
            k += 1
            m[i] = exact.CONTEXT.divide(log_t, exact.to_decimal(K * 2**k))
            notes.append(
                f"chen-cherry-4: order {i + 1} has no matches, matched count set to ln({hyp_len})/({K}*2^{k}) = "
                f"{m[i]:.6g}"
            )


def _next_order_matches(statistics, max_order):
    if statistics.max_order <= max_order:
        raise BleuValueError(
            f"chen-cherry-5 and -7 need the matches of order {max_order + 1}; "
            f"the statistics stop at order {statistics.max_order}"
        )
    return Fraction(statistics.matches[max_order])


def _chen_cherry_5(m, next_order, notes):
    """NLTK method5: "averages the n-1, n and n+1 gram matched counts"; m'_0 = m_1 + 1 (Chen and Cherry 2014)."""
    raw = list(m) + [next_order]
    previous = _sum(raw[0], Fraction(1))
    for i in range(len(m)):
        m[i] = _third(_sum(previous, raw[i], raw[i + 1]))
        previous = m[i]
    notes.append(f"chen-cherry-5: matched counts averaged over orders n-1, n, n+1: {[_show(x) for x in m]}")


def _chen_cherry_6(m, l_n, alpha, notes):
    """NLTK method6: p_n = (m_n + alpha*pi0) / (l_n + alpha), pi0 = p_{n-1}^2 / p_{n-2}, for n >= 3."""
    p = [None if t == 0 else _divide(x, t) for x, t in zip(m, l_n, strict=True)]
    for i in range(2, len(m)):
        if l_n[i] == 0:
            continue  # no n-grams of this order: left to the empty-order rule (decided; NLTK's code rewrites 0/0)
        if not p[i - 2] or p[i - 1] is None:
            pi0 = Fraction(0)  # no prior where p_{n-2} is 0 or undefined
        else:
            pi0 = _divide(p[i - 1] ** 2 if isinstance(p[i - 1], Fraction) else exact.mul(p[i - 1], p[i - 1]), p[i - 2])
        m[i] = _sum(m[i], alpha * pi0 if isinstance(pi0, Fraction) else exact.mul(alpha, pi0))
        l_n[i] = l_n[i] + alpha
        p[i] = _divide(m[i], l_n[i])
        notes.append(f"chen-cherry-6: order {i + 1}: prior pi0 = {_show(pi0)}, p_{i + 1} = ({_show(m[i])})/({l_n[i]})")


def _sum(*terms):
    if all(isinstance(t, Fraction) for t in terms):
        return sum(terms, Fraction(0))
    total = exact.ZERO
    for t in terms:
        total = exact.add(total, t)
    return total


def _third(x):
    return x / 3 if isinstance(x, Fraction) else exact.CONTEXT.divide(x, 3)


def _divide(a, b):
    if isinstance(a, Fraction) and isinstance(b, Fraction):
        return a / b
    return exact.CONTEXT.divide(exact.to_decimal(a), exact.to_decimal(b))


def _show(x):
    if isinstance(x, Fraction):
        try:
            return str(x)
        except ValueError:  # over the interpreter's 4,300 digits for an int's text: chen-cherry-6 squares its
            x = exact.to_decimal(x)  # prior at each order, so ten orders can get there; the note shows 6 digits
    return f"{x:.6g}"
