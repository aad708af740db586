"""Bad input raises BleuValueError / BleuTypeError (so both BleuOracleError and the builtin
ValueError / TypeError), with a message naming the argument and showing the bad value.

Holds: oracle.formulas.errors
"""

from __future__ import annotations

import math

import pytest

import oracle
from oracle.formulas.errors import BleuOracleError, BleuTypeError, BleuValueError


def sentence(hyp=("a", "b"), refs=(("a", "b"),), **kwargs):
    return oracle.score(list(hyp), [list(r) for r in refs], level="sentence", **kwargs)


def corpus(hyps, refs, **kwargs):
    return oracle.score(hyps, refs, level="corpus", **kwargs)


# (label, call, error class, [substrings the message must contain: the argument and the bad value])
CASES = [
    # references
    (
        "no references (sentence)",
        lambda: sentence(refs=()),
        BleuValueError,
        ["`references`", "at least one reference", "(got [])"],
    ),
    (
        "no references for a segment (corpus)",
        lambda: corpus([["a"], ["b"]], [[["a"]], []]),
        BleuValueError,
        ["segment 1", "`references`", "(got [])"],
    ),
    (
        "references as a string",
        lambda: oracle.score(["a"], "a b", level="sentence"),
        BleuTypeError,
        ["`references`", "'a b'"],
    ),
    # segment counts
    (
        "more hypotheses than reference sets",
        lambda: corpus([["a"], ["b"]], [[["a"]]]),
        BleuValueError,
        ["`hypotheses`", "`references`", "same number of segments"],
    ),
    (
        "more reference sets than hypotheses",
        lambda: corpus([["a"]], [[["a"]], [["b"]]]),
        BleuValueError,
        ["`hypotheses`", "`references`", "same number of segments"],
    ),
    ("an empty corpus", lambda: corpus([], []), BleuValueError, ["`hypotheses`", "(got 0)"]),
    # tokens
    ("an int token in the hypothesis", lambda: sentence(hyp=("a", 1)), BleuTypeError, ["`hypothesis[1]`", "int 1"]),
    (
        "a None token in a reference",
        lambda: sentence(refs=(("a", None),)),
        BleuTypeError,
        ["`references[0][1]`", "NoneType None"],
    ),
    ("a bytes token", lambda: sentence(hyp=(b"a",)), BleuTypeError, ["`hypothesis[0]`", "b'a'"]),
    (
        "a sentence string as the hypothesis",
        lambda: oracle.score("a b", [["a"]], level="sentence"),
        BleuTypeError,
        ["`hypothesis`", "'a b'", "split"],
    ),
    (
        "a non-string token in a corpus",
        lambda: corpus([["a", 2.5]], [[["a"]]]),
        BleuTypeError,
        ["segment 0", "`hypothesis[1]`", "2.5"],
    ),
    # weights
    ("empty weights", lambda: sentence(weights=[]), BleuValueError, ["`weights`", "(got [])"]),
    (
        "negative weights",
        lambda: sentence(weights=[0.5, -0.5]),
        BleuValueError,
        ["`weights`", "non-negative", "[0.5, -0.5]"],
    ),
    ("NaN weights", lambda: sentence(weights=[math.nan, 0.5]), BleuValueError, ["`weights`", "NaN", "[nan, 0.5]"]),
    ("infinite weights", lambda: sentence(weights=[math.inf, 1]), BleuValueError, ["`weights`", "finite", "inf"]),
    ("all-zero weights", lambda: sentence(weights=[0, 0]), BleuValueError, ["`weights`", "all zero", "[0, 0]"]),
    ("weights as a string", lambda: sentence(weights="0.5 0.5"), BleuTypeError, ["`weights`", "'0.5 0.5'"]),
    ("a None weight", lambda: sentence(weights=[None]), BleuTypeError, ["`weights`", "None"]),
    ("a boolean weight", lambda: sentence(weights=[True]), BleuTypeError, ["`weights`", "True"]),
    (
        "non-uniform weights where only uniform ones mean anything",
        lambda: sentence(weights=[0.75, 0.25], profile="sacrebleu"),
        BleuValueError,
        ["`weights`", "uniform", "'3/4', '1/4'"],
    ),
    # smoothing
    (
        "an unknown smoothing method",
        lambda: sentence(smoothing="magic"),
        BleuValueError,
        ["`smoothing.method`", "'magic'", "floor"],
    ),
    (
        "an unknown smoothing method in a mapping",
        lambda: sentence(smoothing={"method": "magic"}),
        BleuValueError,
        ["`smoothing.method`", "'magic'"],
    ),
    (
        "a smoothing mapping without a method",
        lambda: sentence(smoothing={"value": 1}),
        BleuValueError,
        ["`smoothing`", "`method`", "{'value': 1}"],
    ),
    (
        "a parameter the method does not take",
        lambda: sentence(smoothing={"method": "floor", "k": 1}),
        BleuValueError,
        ["`smoothing.k`", "'floor'", "k=1"],
    ),
    (
        "an unknown smoothing parameter",
        lambda: sentence(smoothing={"method": "floor", "gamma": 1}),
        BleuValueError,
        ["`smoothing`", "['gamma']"],
    ),
    (
        "a negative smoothing parameter",
        lambda: sentence(smoothing={"method": "floor", "value": -1}),
        BleuValueError,
        ["`smoothing.value`", "non-negative", "-1"],
    ),
    (
        "a non-numeric smoothing parameter",
        lambda: sentence(smoothing={"method": "floor", "value": [1]}),
        BleuTypeError,
        ["`smoothing.value`", "[1]"],
    ),
    ("smoothing of the wrong type", lambda: sentence(smoothing=3), BleuTypeError, ["`smoothing`", "int 3"]),
    # profiles, levels, options
    ("an unknown profile", lambda: sentence(profile="bleurt"), BleuValueError, ["`profile`", "'bleurt'", "papineni"]),
    ("a profile of the wrong type", lambda: sentence(profile=3), BleuTypeError, ["`profile`", "3"]),
    (
        "an unknown level",
        lambda: oracle.score(["a"], [["a"]], level="document"),
        BleuValueError,
        ["`level`", "'document'", "sentence"],
    ),
    ("an unknown convention", lambda: sentence(colour="red"), BleuValueError, ["colour"]),
    (
        "a bad convention value",
        lambda: sentence(reference_length="nearest"),
        BleuValueError,
        ["`reference_length`", "'nearest'", "closest"],
    ),
    ("lowercase not a bool", lambda: sentence(lowercase="yes"), BleuTypeError, ["`lowercase`", "'yes'"]),
]


@pytest.mark.parametrize("label, call, error, fragments", CASES, ids=[c[0] for c in CASES])
def test_bad_input_raises_a_clear_error(label, call, error, fragments):
    with pytest.raises(error) as info:
        call()
    exc = info.value
    assert isinstance(exc, BleuOracleError)
    builtin = ValueError if issubclass(error, BleuValueError) else TypeError
    assert isinstance(exc, builtin)
    message = str(exc)
    missing = [f for f in fragments if f not in message]
    assert not missing, f"{label}: {message!r} lacks {missing}"


def test_errors_are_raised_before_anything_is_mutated():
    hyp, refs = ["a", 1], [["a"]]
    with pytest.raises(BleuTypeError):
        sentence(hyp=hyp, refs=refs)
    assert hyp == ["a", 1] and refs == [["a"]]


def test_value_and_type_errors_are_distinct_roots():
    assert issubclass(BleuValueError, ValueError) and not issubclass(BleuValueError, TypeError)
    assert issubclass(BleuTypeError, TypeError) and not issubclass(BleuTypeError, ValueError)
    assert issubclass(oracle.CaseFileError, BleuValueError)
