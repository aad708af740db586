"""The implementations outside the Python libraries: promptfoo and bleu-score (npm, run by node),
torchtext (its bleu_score without its compiled extension), keras-hub, metrax, opik and azure-ai-evaluation
(virtual environments of their own). Each answer below is derived by hand from the library's code, cited beside it; then
torchtext (its bleu_score without its compiled extension), keras-hub, metrax and sacrebleu-mojo (virtual
environments of their own). Each answer below is derived by hand from the library's code, cited beside it; then
`check --impl NAME` runs end to end against the reviewed baseline. The tests of keras-hub and metrax
are slow: they prepare the implementation's own environment first (TensorFlow, JAX: about a minute
each, once per checkout), as `check --impl NAME` does. Each skips, with the reason, where that cannot
be done (no package registry) or node is missing.

Holds: oracle.adapters.npm_adapters, oracle.adapters.torchtext_adapter, oracle.adapters.venv_adapters,
    oracle.adapters.drivers.venv_bleu, oracle.adapters.drivers.seed_nltk_data,
    oracle.adapters.drivers.libraries.keras_hub, oracle.adapters.drivers.libraries.sacrebleu_mojo
"""

from __future__ import annotations

import math

import pytest
from conftest import load, prepared
from fakes.harness import check_against_baseline

from oracle.adapters.base import Rejected
from oracle.models.protocol import ScoreRequest


def _request(hypothesis, references, weights, *, level="sentence", smoothing="none", lowercase=False):
    return ScoreRequest(
        level=level,
        segments=[{"hypothesis": hypothesis, "references": references}],
        weights=weights,
        smoothing=smoothing,
        lowercase=lowercase,
    )


BLEU4 = [0.25] * 4


def test_promptfoo_by_hand():
    promptfoo = load("promptfoo")
    # the example: every n-gram of 'a b c d e f' is in one reference or the other, so clipping by
    # each n-gram's maximum count over the references gives 1; promptfoo takes the best single reference,
    # 5/6, 4/5, 3/4, 2/3 for either: (1/3)^(1/4)
    best_single = promptfoo.score(_request(list("abcdef"), [list("abcdex"), list("ybcdef")], BLEU4)).score
    assert best_single == pytest.approx((1 / 3) ** 0.25, rel=1e-12)
    # 'the' x7: the best reference for unigrams has 'the' twice (2/7); bigrams to 4-grams match nothing and
    # count 1e-7 each: (2/7 * 1e-21)^(1/4)
    the = promptfoo.score(
        _request(
            ["the"] * 7,
            [["the", "cat", "is", "on", "the", "mat"], ["there", "is", "a", "cat", "on", "the", "mat"]],
            BLEU4,
        )
    ).score
    assert the == pytest.approx((2 / 7 * 1e-21) ** 0.25, rel=1e-9)
    # it lowercases, always: 'The cat' against 'the cat' is identical; orders 3 and 4 have no n-grams and
    # are left out, weights renormalised
    assert promptfoo.score(_request(["The", "cat"], [["the", "cat"]], BLEU4)).score == pytest.approx(1.0, abs=1e-15)
    # an empty candidate: `if (candidate.trim() === "") return 0`
    assert promptfoo.score(_request([], [[]], BLEU4)).score == 0.0


def test_bleu_score_npm_by_hand():
    bleu_score = load("bleu-score")
    # a plain case: 'a b c' against 'a b d', maxN 2: p1 = 2/3, p2 = 1/2, c = r: sqrt(1/3)
    assert bleu_score.score(_request(list("abc"), [list("abd")], [0.5, 0.5])).score == pytest.approx(math.sqrt(1 / 3))
    # `candidateNgrams["constructor"]` starts as Object's constructor function: NaN
    assert math.isnan(bleu_score.score(_request(["the", "constructor"], [["the", "constructor"]], [1.0])).score)
    assert math.isnan(bleu_score.score(_request(["toString"], [["x"]], [1.0])).score)
    # "".split(" ") is [""]: an empty candidate against an empty reference is one empty token each, 1
    assert bleu_score.score(_request([], [[]], [1.0])).score == 1.0


def test_torchtext_by_hand():
    torchtext = load("torchtext")
    # ties go to the first listed: c = 5 between 6 and 4 -> r = 6, BP e^(1 - 6/5); listed the other way, 1
    assert torchtext.score(
        _request(list("abcde"), [list("abcdef"), list("abcd")], [1.0], level="corpus")
    ).score == pytest.approx(math.exp(-0.2), rel=1e-6)
    assert torchtext.score(
        _request(list("abcde"), [list("abcd"), list("abcdef")], [1.0], level="corpus")
    ).score == pytest.approx(1.0, rel=1e-6)
    # `if min(clipped_counts) == 0: return 0.0`, even for an order of weight 0
    assert torchtext.score(_request(["a", "b"], [["a", "c"]], [1.0, 0.0], level="corpus")).score == 0.0
    # a token holding a space is split again: the bigram 'a b' 'c' becomes three tokens -> IndexError
    with pytest.raises(IndexError):
        torchtext.score(_request(["a b", "c"], [["a b", "c"]], [0.5, 0.5], level="corpus"))


@pytest.mark.slow
@pytest.mark.heavy
def test_metrax_by_hand():
    metrax = prepared("metrax")
    # the shortest reference (3) is below c = 6: BP 1; the closest (7) would give e^(1 - 7/6)
    assert metrax.score(
        _request(list("abcdef"), [list("abcdefg"), list("abc")], [0.5, 0.5], level="corpus")
    ).score == pytest.approx(1.0, rel=1e-6)
    # c = 4 against r = 5, every precision 1: e^(1 - 5/4) in float32
    assert metrax.score(_request(list("abcd"), [list("abcde")], BLEU4, level="corpus")).score == pytest.approx(
        math.exp(-0.25), rel=1e-6
    )


@pytest.mark.slow
@pytest.mark.heavy
def test_keras_hub_by_hand():
    keras_hub = prepared("keras-hub")
    assert keras_hub.score(
        _request(list("abcdef"), [list("abcdefg"), list("abc")], [0.5, 0.5], level="corpus")
    ).score == pytest.approx(1.0, rel=1e-6)
    # smooth: (m + 1) / (t + 1) on every order, unigrams too: 'a' against 'b' -> 1/2, BP 1 (c = r)
    assert keras_hub.score(_request(["a"], [["b"]], [1.0], smoothing="lin-2004")).score == pytest.approx(0.5, rel=1e-6)


@pytest.mark.slow
@pytest.mark.heavy
def test_opik_by_hand():
    sentence, corpus = prepared("opik-sentence"), prepared("opik-corpus")
    # `output.lower().split()` and the same for each reference, asked or not: 'The cat sat' is 'the cat sat'
    assert sentence.score(_request(["The", "cat", "sat"], [["the", "cat", "sat"]], [0.5, 0.5])).score == 1.0
    # `_truncate_weights(len(candidate_tokens))`: BLEU-4 of a 2-token hypothesis keeps weights 1/4, 1/4, renormalised
    # to 1/2, 1/2; both orders match fully, c = 2 against r = 3: e^(1 - 3/2), where BLEU-4 unsmoothed is 0
    assert sentence.score(_request(["a", "b"], [["a", "b", "c"]], BLEU4)).score == pytest.approx(
        math.exp(-0.5), rel=1e-12)
    # the corpus truncates to the longest hypothesis: 2 tokens, the same value
    assert corpus.score(_request(["a", "b"], [["a", "b", "c"]], BLEU4, level="corpus")).score == pytest.approx(
        math.exp(-0.5), rel=1e-12)
    # "Raises: MetricComputationError: If the candidate or any reference is empty", as documented
    with pytest.raises(Rejected, match="Candidate is empty"):
        sentence.score(_request([], [["a"]], BLEU4))


@pytest.mark.slow
@pytest.mark.heavy
def test_azure_ai_evaluation_by_hand():
    azure = prepared("azure-ai-evaluation")
    # 'a b c d' against 'a b c e': p1 = 3/4, p2 = 2/3, p3 = 1/2 and no 4-gram match; NLTK's method4 (k = 5) gives
    # that order ln(4) / (2 * 5), where the NIST smoothing its comment names (1/2^k) would give 1/2
    assert azure.score(_request(list("abcd"), [list("abce")], BLEU4, smoothing="exp")).score == pytest.approx(
        (3 / 4 * 2 / 3 * 1 / 2 * math.log(4) / 10) ** 0.25, rel=1e-12)
    # non-ASCII text goes to NISTTokenizer.international_tokenize, which splits ASCII runs from the rest: 'aé b'
    # is a, é, b and 'aé c' is a, é, c: p1 = 2/3, p2 = 1/2, orders 3 and 4 smoothed as ln(3)/10 and ln(3)/20
    assert azure.score(_request(["aé", "b"], [["aé", "c"]], BLEU4, smoothing="exp")).score == pytest.approx(
        (2 / 3 * 1 / 2 * math.log(3) / 10 * math.log(3) / 20) ** 0.25, rel=1e-12)
@pytest.mark.parametrize("name", ["sacrebleu-mojo", "sacrebleu-mojo-fallback"])  # its kernel, its pure Python
def test_sacrebleu_mojo_by_hand(name):
    prepared("sacrebleu-mojo")  # (one environment for both)
    mojo = load(name)
    # 'a b c d' against 'a b c e': matches 3, 2, 1, 0 of 4, 3, 2, 1 n-grams, c = r; unsmoothed, the empty
    # 4-gram precision makes it 0; exp (mteval's 1/2^k for the k-th order without a match): p4 = 1/(2 x 1),
    # so (3/4 x 2/3 x 1/2 x 1/2)^(1/4) = (1/8)^(1/4)
    plain = mojo.score(_request(list("abcd"), [list("abce")], BLEU4, level="corpus"))
    assert plain.score == 0.0
    assert plain.statistics["matches"] == [3, 2, 1, 0] and plain.statistics["totals"] == [4, 3, 2, 1]
    assert mojo.score(_request(list("abcd"), [list("abce")], BLEU4, level="corpus", smoothing="exp")).score == \
        pytest.approx(0.125 ** 0.25, rel=1e-12)
    # raw text through its 13a: 'Hello, world.' is Hello , world . and 'Hello, world!' is Hello , world ! --
    # the same four counts as above
    text = ScoreRequest(level="corpus", segments=[{"hypothesis": "Hello, world.", "references": ["Hello, world!"]}],
                        weights=BLEU4, smoothing="exp", lowercase=False, tokenize="13a")
    assert mojo.score(text).score == pytest.approx(0.125 ** 0.25, rel=1e-12)


@pytest.mark.slow
@pytest.mark.parametrize(
    "name",
    [
        "sacrebleu",
        "nltk",
        "promptfoo",
        "bleu-score",
        "torchtext",
        pytest.param("metrax", marks=pytest.mark.heavy),
        pytest.param("keras-hub", marks=pytest.mark.heavy),
        pytest.param("opik-sentence", marks=pytest.mark.heavy),
        pytest.param("opik-corpus", marks=pytest.mark.heavy),
        pytest.param("azure-ai-evaluation", marks=pytest.mark.heavy),
        pytest.param("sacrebleu-mojo", marks=pytest.mark.heavy),
        pytest.param("sacrebleu-mojo-fallback", marks=pytest.mark.heavy),
    ],
)
def test_check_runs_to_a_complete_report_within_its_baseline(name, tmp_path, repo_root):
    prepared(name.removesuffix("-fallback"))  # (sacrebleu-mojo-fallback runs in sacrebleu-mojo's environment)
    code, records, errors, gating = check_against_baseline(
        name, tmp_path / "report", repo_root / "baselines" / f"{name}.yaml"
    )
    assert code == 0, gating
    assert records and len(errors) <= 0.05 * len(records), [r.id for r in errors][:10]
