"""The LLM-evaluation wrappers ragas, lm-eval and deepeval, each through its own driver in its own environment
(heavy: prepared once into ~/.cache/bleu-oracle/implementations, as `check --impl NAME` does). Each expected
value is derived by hand from the wrapper's code, cited beside it, not from the oracle; then `check --impl
NAME` runs end to end against the reviewed baseline.

Holds: oracle.adapters.drivers.libraries.ragas, oracle.adapters.drivers.libraries.lm_eval,
    oracle.adapters.drivers.libraries.deepeval
"""

from __future__ import annotations

import pytest
from fakes.harness import check_against_baseline
from test_npm_and_venv_implementations import _request, prepared

from oracle.models.protocol import ScoreRequest

pytestmark = [pytest.mark.slow, pytest.mark.heavy]

BLEU4 = [0.25] * 4


def test_ragas_scores_only_the_first_piece_of_the_response():
    ragas = prepared("ragas")
    # ragas splits both strings on ". " and passes the reference's pieces as alternative reference streams:
    # sacrebleu zips the response's pieces with them and stops after the first (ragas #2888). "a b c d " against
    # {"a b c d ", "g h"}: every order matches, c = r = 4: 1.0, whatever follows the period
    answer = ragas.score(_request(list("abcd") + [".", "e", "f"], [list("abcd") + [".", "g", "h"]], BLEU4))
    assert answer.score == pytest.approx(1.0, rel=1e-12)


def test_ragas_scores_one_sample_without_effective_order_unless_asked():
    ragas = prepared("ragas")
    # corpus_bleu's use_effective_order=False: "a b c" has no 4-gram, that precision stays 0 and the score is 0
    assert ragas.score(_request(list("abc"), [list("abc")], BLEU4)).score == pytest.approx(0.0, abs=1e-12)
    # asked for empty_order=skip, ragas' kwargs pass use_effective_order=True: three orders, each 1
    request = ScoreRequest(level="sentence", segments=[{"hypothesis": list("abc"), "references": [list("abc")]}],
                           weights=BLEU4, smoothing="none", lowercase=False, conventions={"empty_order": "skip"})
    assert ragas.score(request).score == pytest.approx(1.0, rel=1e-12)


def test_lm_eval_keeps_as_many_references_as_the_segment_with_fewest():
    lm_eval = prepared("lm-eval")
    # _sacreformat transposes the references with zip: the second segment has one, so the first segment keeps
    # only its first ("x y"), which matches nothing: 5/10, 4/8, 3/6, 2/4, each 1/2; c = 10 >= r = 2 + 5: 0.5
    request = ScoreRequest(
        level="corpus",
        segments=[{"hypothesis": list("abcde"), "references": [["x", "y"], list("abcde")]},
                  {"hypothesis": list("abcde"), "references": [list("abcde")]}],
        weights=BLEU4, smoothing="exp", lowercase=False)
    assert lm_eval.score(request).score == pytest.approx(0.5, rel=1e-12)


def test_lm_eval_smooths_with_sacrebleus_default():
    lm_eval = prepared("lm-eval")
    # corpus_bleu's default smooth_method="exp": 3/4, 2/3, 1/2, and 4-grams 0/1 -> 1/(2 * 1); c = r = 4:
    # (3/4 * 2/3 * 1/2 * 1/2) ** (1/4) = (1/8) ** (1/4)
    answer = lm_eval.score(_request(list("abcd"), [list("abce")], BLEU4, level="corpus", smoothing="exp"))
    assert answer.score == pytest.approx((1 / 8) ** 0.25, rel=1e-12)


def test_deepeval_bleu1_and_its_own_tokenizer():
    deepeval = prepared("deepeval")
    # bleu1, its default: nltk's sentence_bleu with weights (1, 0, 0, 0): unigrams 5/6 ("sat" unmatched), c = r
    answer = deepeval.score(_request("the cat sat on the mat".split(), ["the cat is on the mat".split()], [1.0]))
    assert answer.score == pytest.approx(5 / 6, rel=1e-12)
    # word_tokenize (the Treebank rules) splits "cannot" into "can" "not": 1 of 2 unigrams match, c = 2 > r = 1
    assert deepeval.score(_request(["cannot"], [["can"]], [1.0])).score == pytest.approx(0.5, rel=1e-12)


@pytest.mark.parametrize("name", ["ragas", "lm-eval", "deepeval"])
def test_check_runs_to_a_complete_report_within_its_baseline(name, tmp_path, repo_root):
    prepared(name)
    code, records, errors, gating = check_against_baseline(
        name, tmp_path / "report", repo_root / "baselines" / f"{name}.yaml"
    )
    assert code == 0, gating
    assert records
