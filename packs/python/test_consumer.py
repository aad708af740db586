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
    if v["expected"]["rejected"]:
        with pytest.raises(ValueError):
            score(v["request"])
        return
    got, want = score(v["request"]), float(v["expected"]["score"])
    if math.isnan(want):
        assert math.isnan(got), "NaN rule"
    elif v["expected"]["score_exact"] == "0":
        assert got == 0, "zero rule"
    else:
        assert abs(got - want) <= RULE["abs"] + RULE["rel"] * abs(want)
        assert got != 0 or want < 2.2250738585072014e-308, "zero rule"
