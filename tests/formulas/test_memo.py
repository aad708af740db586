"""Bounded memos (`oracle.formulas.memo`): never more than the limit kept, and past it exactly what the eviction drops
(LEAST_RECENT: the least recently used, a hit refreshing it; ALL_AT_ONCE: everything, a hit changing nothing); and
each memo of the package keeps its own limit and eviction, filled past its limit through its own callers (the kept
scorings, the logarithms, coverage's token features, a unit's shared values, the last classified request's counts).

The expected contents are derived by hand from the policies' definitions (the sequence of keeps and hits in each test).

Holds: oracle.formulas.memo
"""

from __future__ import annotations

import re
from fractions import Fraction
from pathlib import Path

import pytest

from oracle.diagnose import classify
from oracle.formulas import bleu, exact
from oracle.formulas import memo as memo_module
from oracle.formulas.memo import ALL_AT_ONCE, LEAST_RECENT, Memo, memoized
from oracle.formulas.profiles import get_profile
from oracle.harness import coverage
from oracle.harness.generate import example_request
from oracle.harness.sharing import BySegments
from oracle.models.protocol import Capabilities

CAPABILITIES = Capabilities(levels=("sentence", "corpus"), max_order=4, weights="any", lowercase=True,
                            smoothing=("none",), statistics=True)


@pytest.mark.parametrize("eviction", [LEAST_RECENT, ALL_AT_ONCE])
def test_a_memo_never_holds_more_than_its_limit(eviction):
    memo: Memo[int, str] = Memo(5, eviction)
    for key in range(40):
        memo.keep(key, str(key))
        assert len(memo) <= 5
        assert memo.get(key) == str(key)  # the value just kept is there
    assert len(memo) == 5  # (on ALL_AT_ONCE too: the 36th keep dropped all, the 40th is the fifth since)


def test_least_recent_drops_the_least_recently_used_a_hit_refreshing_it():
    memo: Memo[str, int] = Memo(3, LEAST_RECENT)
    for value, key in enumerate("abc"):
        memo.keep(key, value)
    assert memo.get("a") == 0  # a is now the most recent: b the least
    memo.keep("d", 3)
    assert list(memo) == ["c", "a", "d"]
    assert memo.get("b") is None
    memo.keep("c", 20)  # a key kept already: replaced, nothing dropped
    assert list(memo) == ["c", "a", "d"] and memo.get("c") == 20
    memo.keep("e", 4)  # c was refreshed by its get: a is the least recent
    assert list(memo) == ["d", "c", "e"]


def test_all_at_once_drops_everything_when_full_and_a_hit_changes_nothing():
    memo: Memo[str, int] = Memo(3, ALL_AT_ONCE)
    for value, key in enumerate("abc"):
        memo.keep(key, value)
    assert memo.get("a") == 0
    memo.keep("b", 10)  # kept already: replaced, nothing dropped
    assert list(memo) == ["a", "b", "c"]
    memo.keep("d", 3)
    assert list(memo) == ["d"]
    assert memo.get("a") is None and memo.get("d") == 3
    memo.clear()
    assert len(memo) == 0 and "d" not in memo


def test_a_memo_refuses_a_limit_or_an_eviction_it_cannot_keep_and_a_value_none():
    for limit in (0, -1, 2.0, True):
        with pytest.raises(ValueError, match="limit"):
            Memo(limit, LEAST_RECENT)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="eviction"):
        Memo(3, "lru")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="None"):
        Memo(3, ALL_AT_ONCE).keep("a", None)


def test_memoized_keeps_a_functions_values_and_drops_the_least_recent_past_its_limit():
    calls = []

    @memoized(2)
    def square(n):
        calls.append(n)
        return n * n

    assert [square(n) for n in (1, 2, 1, 3, 2, 1)] == [1, 4, 1, 9, 4, 1]
    # 1, 2 computed; 1 kept; 3 computed, 2 dropped (1 more recent); 2 computed, 1 dropped; 1 computed
    assert calls == [1, 2, 3, 2, 1]
    assert square.cache_info().currsize == 2  # type: ignore[attr-defined]


# -- each memo of the package: its limit and eviction, filled past the limit through its callers -----------------


#: `functools.lru_cache` with a bound other than 1, or with its default bound (128), as it is written.
BOUNDED_LRU_CACHE = re.compile(r"lru_cache\((?!maxsize=1\))[^)]*\)|@(?:functools\.)?lru_cache\n")


def test_every_bounded_memo_of_the_package_is_made_here():
    """One way to bound a memo: outside oracle/formulas/memo.py no `functools.lru_cache` keeps more than one value
    (a bounded memo is a `Memo` or `memoized(limit)`, its eviction said once here); what stays is a constant read
    once (`lru_cache(maxsize=1)` of a function without arguments: the curated file, the doctor's departures from it;
    `functools.cache` of one: torchtext's loaded function)."""
    package = Path(memo_module.__file__).resolve().parents[1]
    found = [f"{path.relative_to(package)}: {match.group(0)!r}" for path in sorted(package.rglob("*.py"))
             if path.name != "memo.py" for match in BOUNDED_LRU_CACHE.finditer(path.read_text(encoding="utf-8"))]
    assert not found, found
    assert BOUNDED_LRU_CACHE.search("@functools.lru_cache(maxsize=256)\n") and BOUNDED_LRU_CACHE.search(
        "@lru_cache\ndef f(x):") and not BOUNDED_LRU_CACHE.search("@lru_cache(maxsize=1)\n")


def test_the_kept_scorings_keep_the_last_1024_used():
    memo = bleu._KEPT_RESULTS
    assert (memo.limit, memo.eviction) == (1024, LEAST_RECENT)
    memo.clear()
    first = bleu.Statistics(2, 2, (1,), (2,))
    scorings = [bleu.Statistics(n + 3, n + 3, (1,), (n + 3,)) for n in range(1024)]
    bleu.bleu_from_statistics(first, weights=(1,))
    for stats in scorings[:-1]:
        bleu.bleu_from_statistics(stats, weights=(1,))
    assert len(memo) == 1024
    bleu.bleu_from_statistics(first, weights=(1,))  # a hit: the first is the most recent again
    bleu.bleu_from_statistics(scorings[-1], weights=(1,))  # the 1,025th: the least recent (scorings[0]) dropped
    assert len(memo) == 1024
    kept_statistics = [key[0] for key in memo]
    assert first in kept_statistics and scorings[-1] in kept_statistics and scorings[0] not in kept_statistics
    memo.clear()


def test_the_logarithms_keep_the_last_1024_ratios():
    exact._ln_of_ratio.cache_clear()  # type: ignore[attr-defined]
    for d in range(2, 1100):
        exact.ln(Fraction(1, d))
    info = exact._ln_of_ratio.cache_info()  # type: ignore[attr-defined]
    assert (info.maxsize, info.currsize) == (1024, 1024)
    exact._ln_of_ratio.cache_clear()  # type: ignore[attr-defined]


def test_the_token_features_drop_all_at_65536():
    memo = coverage._kept_token_features
    assert (memo.limit, memo.eviction) == (coverage.TOKEN_FEATURES_KEPT, ALL_AT_ONCE) == (65_536, ALL_AT_ONCE)
    memo.clear()
    for index in range(65_536):
        coverage.token_features(f"t{index}")
    assert len(memo) == 65_536
    coverage.token_features("t0")  # kept: a hit, nothing dropped
    assert len(memo) == 65_536
    coverage.token_features("new")  # the 65,537th: all dropped, then it kept
    assert list(memo) == ["new"]
    memo.clear()


def test_a_unit_s_shared_values_drop_all_at_8():
    shared = BySegments()
    segments = [(f"s{index}",) for index in range(9)]
    for index, held in enumerate(segments[:8]):
        shared.keep(held, "x", index)
    assert all(shared.find(held, "x") == index for index, held in enumerate(segments[:8]))
    shared.keep(segments[8], "x", 8)  # the ninth: all eight dropped
    assert [shared.find(held, "x") for held in segments] == [None] * 8 + [8]


def test_what_the_oracle_computed_is_kept_for_the_last_request_classified_alone():
    profile = get_profile("papineni")
    first, second = (example_request(0, index, CAPABILITIES) for index in (1, 2))
    assert (classify._LAST_KEPT.limit, classify._LAST_KEPT.eviction) == (1, ALL_AT_ONCE)
    kept = classify._kept_for(first, profile, None)
    assert classify._kept_for(first, profile, None) is kept  # the same request again: its counts
    assert classify._kept_for(first, profile, {"lowercase": True}) is not kept  # other overrides: counted apart
    other = classify._kept_for(second, profile, None)
    assert other is not kept and len(classify._LAST_KEPT) == 1
    assert classify._kept_for(first, profile, None) is not kept  # dropped when the second came
