"""Run bleu-oracle's papineni vectors against your BLEU: pytest test_consumer.py"""
import math

import pytest

import bleu_oracle_vectors as pack
from my_bleu import CAPABILITIES, score  # score(request) -> float; raises ValueError on invalid input

VECTORS = pack.load("papineni")
RULE = VECTORS["contract"]


@pytest.mark.parametrize("v", [v for v in VECTORS["vectors"] if pack.applies(v["needs"], CAPABILITIES)],
                         ids=lambda v: v["id"])
def test_vector(v):
    try:
        got = score(v["request"])
    except ValueError as rejection:
        got = rejection
    # an input the documents leave undefined: refusing is recommended, a named convention's value is acceptable
    # too (to require refusals, as `bleu-oracle check --strict` does, delete these two lines)
    if pack.acceptable_convention(v, got, RULE):
        return
    # where BLEU's conventions split: "; your answer is the `reference_length=shortest` one: mlpack, ..." or ""
    also = pack.whose_answer(v, got, RULE)
    if v["expected"]["rejected"]:
        assert isinstance(got, ValueError), f"got {got}, want a rejection{also}"
        return
    assert not isinstance(got, ValueError), f"rejected: {got}{also}"
    want = float(v["expected"]["score"])
    if math.isnan(want):
        assert math.isnan(got), f"NaN rule: got {got}{also}"
    elif v["expected"]["score_exact"] == "0":
        assert got == 0, f"zero rule: got {got}{also}"
    else:
        assert abs(got - want) <= RULE["abs"] + RULE["rel"] * abs(want), f"got {got}, want {want}{also}"
        assert got != 0 or want < 2.2250738585072014e-308, f"zero rule: 0 for a non-zero value{also}"
