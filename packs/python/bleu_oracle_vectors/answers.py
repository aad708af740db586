"""Whether an implementation's answer is a vector's answer under the file's numeric contract, which other
convention's answer it is where BLEU's conventions split (a vector whose `result` is acceptable lists every
answer, each with the conventions and the profiles it is right under), and which named convention's value it is
on an input the documents leave undefined (flag `undefined-input`: refusing is recommended, the value acceptable)."""

from __future__ import annotations

import json
import math
from numbers import Real
from typing import Any

#: A float's smallest normal number: a positive exact value at least this large is never answered 0 (the zero rule).
SMALLEST_NORMAL = 2.2250738585072014e-308


def is_answer(got: Any, answer: dict[str, Any], contract: dict[str, Any]) -> bool:
    """Whether `got` (a number, or the exception an implementation raised) is `answer` (a vector's `expected`
    or one of its `answers`) under `contract` (the file's): the tolerance, the zero rule and the NaN rule."""
    if answer["rejected"]:
        return isinstance(got, BaseException)
    if not isinstance(got, Real) or isinstance(got, bool):
        return False
    want = float(answer["score"])
    if math.isnan(want):
        return math.isnan(got)
    if answer["score_exact"] == "0":
        return got == 0
    if got == 0 and want >= SMALLEST_NORMAL:
        return False
    return abs(got - want) <= contract["abs"] + contract["rel"] * abs(want)


def _value(value: Any) -> str:
    """A convention's value in a message: a string as it is; null as `unset` (the convention is not set, another
    rules: sentence_empty_order unset is empty_order's rule), not a word of one language; else its JSON."""
    if isinstance(value, str):
        return value
    return "unset" if value is None else json.dumps(value, separators=(",", ":"))


def whose_answer(vector: dict[str, Any], got: Any, contract: dict[str, Any]) -> str:
    """For a failure message: which other convention's answer `got` is, from the vector's own `answers`, as
    "; your answer is the `reference_length=shortest` one: mlpack, tensorflow-nmt"; "" when it is none of them."""
    for answer in vector.get("answers") or ():
        if vector["profile"] not in answer["profiles"] and is_answer(got, answer, contract):
            rules = [f"{name}={_value(value)}" for name, value in answer["conventions"].items()]
            which = f"the `{', '.join(rules)}` one" if rules else "the one of the profiles"
            return f"; your answer is {which}: {', '.join(answer['profiles'])}"
    return ""


def acceptable_convention(vector: dict[str, Any], got: Any, contract: dict[str, Any]) -> str | None:
    """On an input the documents leave undefined (flag `undefined-input`, `result` acceptable): the named
    convention (bleu-oracle's PROTOCOL.md) whose value `got` is, e.g. "empty-corpus-zero" for 0 on an empty corpus;
    such an answer is acceptable, though refusing (`expected`) is recommended. None for a refusal, for any other
    answer, and on every other vector."""
    for answer in vector.get("answers") or ():
        if answer.get("convention") and is_answer(got, answer, contract):
            return str(answer["convention"])
    return None
