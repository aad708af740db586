"""The one judge: an answer against the oracle's expectation, under the numeric contract.

`check`, `fuzz`, `report` and `cases validate` all judge through here.

Numeric contract: |actual - expected| <= abs + rel * |expected|; NaN matches
only NaN. Statistics, where an implementation returns them, are compared layer
by layer in the order of the derivation -- lengths (hyp_len, ref_len), then
matches and totals order by order, then BP, then the score -- and a failure
names the first layer that diverges, which is usually where the bug is.
Statistics that diverge fail the record even when the score happens to agree:
an implementation that returns statistics is held to them. BP is not compared
when c = r = 0 (it is 0/0 there).

Zero is special: an answer that is not 0 where the oracle's exact value is 0,
or 0 where the exact value is a float's normal number (at least 2.2e-308, so
an underflow is not held against anyone), fails in the "zero" layer whatever
the tolerance: the absolute tolerance must not hide an implementation that
answers 1e-13 (an epsilon inside a logarithm) for a documented 0.

An input the documents leave undefined (PROTOCOL.md) is rejected by the oracle, and a
rejection is the recommended answer; a score equal to a named convention's value
(`Expected.acceptable`, under the same contract and zero rule) is `acceptable`, or a
fail in the "rejection" layer under a strict contract (`check --strict`). Any other
score fails there as on every input the oracle rejects.
"""

from __future__ import annotations

import math
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation
from typing import Protocol

from oracle.models.outcomes import (
    DOCUMENT_LAYER,
    REJECTION_LAYER,
    TOKENIZATION_LAYER,
    ZERO_LAYER,
    Expected,
    Outcome,
    Verdict,
)
from oracle.models.protocol import Statistics

DEFAULT_REL = 1e-9
DEFAULT_ABS = 1e-12


@dataclass(frozen=True)
class Contract:
    """|actual - expected| <= abs + rel * |expected|; NaN matches only NaN; a missing value (None) matches nothing.
    `strict`: an input the documents leave undefined must be refused (a convention's value fails)."""

    rel: float = DEFAULT_REL
    abs: float = DEFAULT_ABS
    strict: bool = False

    def close(self, actual, expected):
        if actual is None or expected is None:
            return False
        actual, expected = float(actual), float(expected)
        if math.isnan(expected) or math.isnan(actual):
            return math.isnan(expected) and math.isnan(actual)
        if math.isinf(expected) or math.isinf(actual):
            return actual == expected
        return abs(actual - expected) <= self.abs + self.rel * abs(expected)

    def describe(self):
        return f"|actual - expected| <= {self.abs:g} + {self.rel:g} * |expected|"



def first_divergence(expected, actual, contract=Contract(), *, max_order=None, bp=True):
    """The first layer where `actual` statistics differ from `expected` ones (both `Statistics`).

    Returns (layer, order, message) or None. BP is compared only when `bp` and both carry it, and not when
    c = r = 0, where it is 0/0 and every convention is a choice.
    """
    if expected is None or actual is None:
        return None
    for name in ("hyp_len", "ref_len"):
        want, got = getattr(expected, name), getattr(actual, name)
        if got != want:
            return name, None, f"{name}: expected {want}, got {got}"
    orders = max_order if max_order is not None else len(expected.matches)
    for n in range(orders):
        for name in ("matches", "totals"):
            want, got = getattr(expected, name)[n], getattr(actual, name)
            if n >= len(got):
                return (
                    name,
                    n + 1,
                    f"{name} at order {n + 1}: expected {want}, got nothing ({name} has {len(got)} orders)",
                )
            if got[n] != want:
                return name, n + 1, f"{name} at order {n + 1}: expected {want}, got {got[n]}"
    if (bp and actual.bp is not None and expected.bp is not None
            and not (expected.hyp_len == 0 and expected.ref_len == 0) and not contract.close(actual.bp, expected.bp)):
        return "bp", None, f"bp: expected {_show(expected.bp)}, got {_show(actual.bp)}"
    return None


def _show(x):
    if x is None:
        return "None"
    x = float(x)
    return "NaN" if math.isnan(x) else repr(x)


def token_count_layers(request):
    """The statistics of a text request that count tokens alone, so that a divergence there is the
    tokenizer's: c (hyp_len) always, r (ref_len) when every segment has one reference (with more, the
    reference-length rule picks among them)."""
    if not request.is_text:
        return ()
    return ("hyp_len", "ref_len") if all(len(s.references) == 1 for s in request.segments) else ("hyp_len",)


class Answered(Protocol):
    """What the judge reads of one reply (an `oracle.harness.transport.Reply`): how the request ended
    ("score", "rejected", "unsupported", "error", "crash", "timeout", "protocol-error"), the message that
    came with it, and the score and statistics it answered."""

    @property
    def kind(self) -> str: ...

    @property
    def message(self) -> str: ...

    @property
    def score(self) -> float | None: ...

    @property
    def statistics(self) -> Statistics | None: ...

    @property
    def raw(self) -> str | None:
        """The reply line as it came, where the protocol refused it (a protocol error keeps it); else None."""


def judge(expected: Expected, reply: Answered, contract: Contract = Contract(), *, max_order: int | None = None,
          token_counts: Sequence[str] = ()) -> Verdict:
    """The verdict on one reply (a `transport.Reply`) against `expected`.

    The order of checks: the reply's kind (crash, timeout, protocol error,
    error/unsupported), then rejection vs score, then statistics layer by
    layer, then the score under the numeric contract, then a case's printed
    value under the case's own tolerance. A first divergence in one of
    `token_counts` (`token_count_layers` of a text request) is named
    "tokenization": the token sequences differ, before any n-gram is counted.
    """
    kind = reply.kind
    if kind == "crash":
        return Verdict(Outcome.CRASH, message=reply.message)
    if kind == "timeout":
        return Verdict(Outcome.TIMEOUT, message=reply.message)
    if kind == "protocol-error":
        return Verdict(Outcome.PROTOCOL_ERROR, message=reply.message)
    if kind in ("error", "unsupported"):
        return Verdict(Outcome.ERROR, message=f"answered {kind}: {reply.message}")
    if kind == "rejected":
        if expected.rejected:
            return Verdict(Outcome.REJECTED, message=f"rejected as expected: {reply.message}")
        return Verdict(Outcome.FAIL, REJECTION_LAYER,
                       message=f"rejected a valid input (expected score {_show(expected.score)}): {reply.message}")
    # kind == "score"
    actual_score = reply.score
    if expected.rejected:
        return _scored_a_refused_input(expected, actual_score, contract)
    stats = reply.statistics
    divergence = first_divergence(expected.statistics, stats, contract, max_order=max_order)
    if divergence is not None:
        layer, order, message = divergence
        if layer in token_counts:
            layer, message = TOKENIZATION_LAYER, f"the token sequences differ ({message})"
        score_note = "" if contract.close(actual_score, expected.score) else \
            f"; score expected {_show(expected.score)}, got {_show(actual_score)}"
        return Verdict(Outcome.FAIL, layer, order, f"first divergence: {message}{score_note}")
    if not contract.close(actual_score, expected.score):
        return Verdict(Outcome.FAIL, "score", None,
                       f"score: expected {_show(expected.score)}, got {_show(actual_score)} "
                       f"(difference {_difference(actual_score, expected.score)}; contract {contract.describe()})")
    zero = _zero_differs(expected.score_exact, actual_score)
    if zero is not None:
        return Verdict(Outcome.FAIL, ZERO_LAYER, None, zero)
    document = expected.document
    if document:
        verdict = _judge_document(document, actual_score, stats, contract)
        if verdict is not None:
            return verdict
    return Verdict(Outcome.PASS)


def _scored_a_refused_input(expected, actual_score, contract):
    """A score where the oracle rejects: acceptable when the input is one the documents leave undefined and the
    score is a named convention's value (not under a strict contract); else a fail in the rejection layer."""
    why = f" ({expected.reason})" if expected.reason else ""
    convention = next((answer.convention for answer in expected.acceptable or ()
                       if contract.close(actual_score, answer.score)
                       and _zero_differs(answer.score_exact, actual_score) is None), None)
    if convention is None:
        return Verdict(Outcome.FAIL, REJECTION_LAYER,
                       message=f"expected a rejection{why}, got score {_show(actual_score)}")
    if contract.strict:
        return Verdict(Outcome.FAIL, REJECTION_LAYER, convention=convention,
                       message=f"expected a rejection{why}, got score {_show(actual_score)}: the value of convention "
                               f"{convention} on an input the documents leave undefined, refused under --strict")
    return Verdict(Outcome.ACCEPTABLE, convention=convention,
                   message=f"scored an input the documents leave undefined{why} with {_show(actual_score)}, the "
                           f"value of convention {convention}: acceptable (refusing it is recommended; --strict "
                           "requires it)")


def breaks_zero_rule(actual, expected):
    """The zero rule on floats (for the classifier's explanations): `actual` is not 0 where `expected`
    is, or is 0 where `expected` is a normal float."""
    if actual is None or expected is None or math.isnan(actual) or math.isnan(expected):
        return False
    if expected == 0:
        return actual != 0
    return abs(expected) >= sys.float_info.min and actual == 0


#: The smallest normal float, exactly (converting it costs a 700-digit expansion: once, not on every judgement).
_SMALLEST_NORMAL = Decimal(sys.float_info.min)


def _zero_differs(exact, actual):
    """Why `actual` breaks the zero rule against the exact score `exact` (a decimal string), or None."""
    if exact is None or actual is None or math.isnan(actual):
        return None
    try:
        value = Decimal(exact)
    except InvalidOperation:
        return None
    if value.is_nan():
        return None
    if value == 0 and actual != 0:
        return (f"score: the exact value is 0, got {actual!r} "
                "(non-zero where the answer is exactly 0, whatever the tolerance)")
    if actual == 0 and value != 0 and abs(value) >= _SMALLEST_NORMAL:
        return f"score: got 0 where the exact value is {float(value)!r}, not 0 (whatever the tolerance)"
    return None


def _difference(a, b):
    try:
        return f"{abs(float(a) - float(b)):.3g}"
    except (TypeError, ValueError):
        return "n/a"


def _judge_document(document, actual_score, stats, contract):
    """A case's printed value, within the case's own tolerance (None: exact, under the run's contract)."""
    if document.score is not None:
        printed, tolerance = document.score, document.tolerance
        if tolerance is None:
            ok = contract.close(actual_score, printed)
            shown = "(exact)"
        else:
            ok = (math.isnan(printed) and math.isnan(actual_score)) or (
                not math.isnan(printed) and not math.isnan(actual_score) and abs(actual_score - printed) <= tolerance)
            shown = f"+/- {tolerance:g}"
        if not ok:
            return Verdict(Outcome.FAIL, DOCUMENT_LAYER, None,
                           f"score {_show(actual_score)} is not the document's {_show(printed)} {shown} "
                           "(though it is within the numeric contract of the oracle's value)")
    printed_stats = document.statistics
    if printed_stats and stats is not None:
        for name in ("hyp_len", "ref_len", "matches", "totals"):
            got = getattr(stats, name)
            if name in printed_stats and list(_as_list(got)) != list(_as_list(printed_stats[name])):
                return Verdict(Outcome.FAIL, DOCUMENT_LAYER, None,
                               f"statistics {name}: document says {printed_stats[name]}, got {list(_as_list(got))}")
    return None


def _as_list(x):
    return x if isinstance(x, (list, tuple)) else [x]
