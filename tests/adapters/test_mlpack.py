"""mlpack's real C++ BLEU (mlpack/core/metrics/bleu.hpp, built on first use): hand-derived answers, and
`check --impl mlpack` end to end with its reviewed baseline. Skips, with the reason, where mlpack, g++,
Armadillo or cereal is missing.

Holds: oracle.adapters.mlpack_adapter
"""

from __future__ import annotations

import math

import pytest
from conftest import load
from fakes.harness import check_against_baseline, results

from oracle.models.protocol import ScoreRequest


def _request(hypothesis, references, order, smoothing="none", level="corpus"):
    return ScoreRequest(level=level, segments=[{"hypothesis": hypothesis, "references": references}],
                        weights=[1 / order] * order, smoothing=smoothing, lowercase=False)


@pytest.mark.parametrize("name", ["mlpack", "mlpack-double"])
def test_mlpack_by_hand(name):
    mlpack = load(name)
    # identical: every precision 1, c = r
    assert mlpack.score(_request(list("abcd"), [list("abcd")], 4)).score == pytest.approx(1.0, abs=1e-6)
    # the shortest reference (2) is below c = 4: BP 1, all four unigrams match; the closest (5) would give
    # BP e^(1 - 5/4) = 0.7788
    assert mlpack.score(_request(list("abcd"), [list("ab"), list("abcde")], 1)).score == pytest.approx(1.0, abs=1e-6)
    # c = 3 against r = 4: BP e^(1 - 4/3), p1 = 3/3
    assert mlpack.score(_request(list("abc"), [list("abcd")], 1)).score == pytest.approx(math.exp(-1 / 3), rel=1e-6)
    # smooth: (m + 1) / (t + 1) on every order; 'a b' against 'a c': p1 = 2/3, p2 = 1/2, BP 1
    smoothed = mlpack.score(_request(list("ab"), [list("ac")], 2, smoothing="lin-2004")).score
    assert smoothed == pytest.approx(math.sqrt(2 / 3 * 1 / 2), rel=1e-6)


@pytest.mark.slow
@pytest.mark.heavy  # a whole check of a g++-built C++ library: 5 s each (CI runs it)
@pytest.mark.parametrize("name", ["mlpack", "mlpack-double"])
def test_check_drives_mlpack_and_conforms_to_its_baseline(name, tmp_path, repo_root):
    load(name)
    report = tmp_path / "report"
    code, records, errors, gating = check_against_baseline(name, report, repo_root / "baselines" / f"{name}.yaml")
    assert code == 0, gating
    assert len(errors) < 0.05 * len(records)
    assert results(report).header.implementation.language == "c++"
