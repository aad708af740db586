"""What a unit of work's requests share by their segments: a series step's coverage features, taken from its base
input's, are those computed afresh; a token's own features kept across requests are those computed afresh.

Holds: oracle.harness.sharing
"""

from __future__ import annotations

import random

from oracle.harness import coverage
from oracle.harness.coverage import features, token_features
from oracle.harness.generate import example_request, text_request
from oracle.harness.sharing import BySegments
from oracle.harness.work.series import series_steps
from oracle.models.protocol import Capabilities, Statistics

#: Every part a series changes is within these (weights of any value, lowercase, both levels, three smoothings),
#: and text requests of three tokenizers.
CAPABILITIES = Capabilities(levels=("sentence", "corpus"), max_order=8, weights="any", lowercase=True,
                            smoothing=("none", "floor", "add-k"), tokenizers=("13a", "intl", "char"),
                            statistics=True)
STATISTICS = Statistics(hyp_len=3, ref_len=3, matches=(3, 0), totals=(3, 2), bp=1.0)


def _units():
    """Units of requests as a run sends them: series (steps sharing their base's segments), examples (example 29 a
    65,600-token run, 134 a 2,000-segment corpus, 1214 one of 352 segments), text requests."""
    for seed in range(12):
        yield [step.request for step in series_steps(random.Random(seed), CAPABILITIES, length=24)]
    yield [example_request(0, index, CAPABILITIES) for index in (*range(30), 134, 14 + 30 * 40)]
    yield [text_request(random.Random(seed), CAPABILITIES) for seed in range(20)]


def test_coverage_features_from_shared_segments_are_those_walked_afresh():
    walked_before = 0
    for unit in _units():
        shared = BySegments()
        for request in unit:
            walked_before += shared.find(request.segments, ("features", request.tokenize)) is not None
            for statistics in (None, STATISTICS):
                assert features(request, statistics, shared) == features(request, statistics)
    assert walked_before > 100


def test_segments_are_told_by_identity_and_at_most_the_limit_are_kept():
    shared = BySegments(limit=2)
    first, equal = ("a", "b"), tuple(["a", "b"])  # (equal in value, built apart)
    assert first == equal and first is not equal
    computed = []
    assert shared.get(first, "x", lambda: computed.append(1) or "one") == "one"
    assert shared.get(first, "x", lambda: computed.append(2) or "two") == "one"
    assert shared.get(equal, "x", lambda: computed.append(3) or "three") == "three"  # not found by value
    assert computed == [1, 3]
    third = ("c",)
    shared.keep(third, "x", "four")  # past the limit: all dropped first
    assert shared.find(first, "x") is None and shared.find(third, "x") == "four"
    shared.clear()
    assert shared.find(equal, "x") is None


def test_a_token_s_kept_features_are_its_own():
    """Tokens of one length and of others, each with features of its own (a key that left part of the token out
    would hand one token's features to another), asked twice in turn: each time those its walk finds."""
    tokens = ["ab", "a b", "a\x01", "\U0001F600x", "\uff21b", "\u00c9b", "@@", "x@@", "\u2581a", "<unk>", "__proto__",
              "", "\u00e9\u00e9", "x" * (coverage.TOKEN_FEATURES_LONGEST + 1), "ba"]
    coverage._kept_token_features.clear()
    for _ in range(2):
        for token in tokens:
            found = set()
            coverage._token_features(token, found)
            assert token_features(token) == found
    assert len({token_features(token) for token in tokens}) >= 8  # (tokens of different features: not all alike)
    assert tokens[-2] not in coverage._kept_token_features  # a long token is walked each time, not kept
