"""The venv driver's opik and azure-ai-evaluation paths, fast: the real driver (drivers/venv_bleu.py) with a fake
library on PYTHONPATH in place of the real one, as tests/adapters/test_drivers.py does for metrax. What is held: the
calls the driver makes (opik's metric untracked, its smoothing method named from the adapter's table, the strings joined
by spaces; azure's one response against one ground_truth), the library's documented refusals answered `rejected`, a
segment without a reference refused, and an attempt to download NLTK data at run time answered as an error that says
what to do, never a fetch. The real libraries' values are in tests/adapters/test_npm_and_venv_implementations.py
(heavy).

Holds: oracle.adapters.drivers.venv_bleu, oracle.adapters.venv_adapters,
    oracle.adapters.drivers.libraries.opik_sentence, oracle.adapters.drivers.libraries.opik_corpus,
    oracle.adapters.drivers.libraries._opik, oracle.adapters.drivers.libraries.azure_ai_evaluation
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from test_drivers import Drivers

from oracle.adapters.venv_adapters import (
    AzureAiEvaluationImplementation,
    OpikCorpusImplementation,
    OpikSentenceImplementation,
)
from oracle.harness.transport import Reply
from oracle.models.protocol import ScoreRequest

#: opik's layout as the driver imports it; SentenceBLEU/CorpusBLEU answer with what they were given.
FAKE_OPIK = {
    "opik/__init__.py": "",
    "opik/exceptions.py": "class MetricComputationError(Exception):\n    pass\n",
    "opik/evaluation/__init__.py": "",
    "opik/evaluation/metrics/__init__.py": "",
    "opik/evaluation/metrics/heuristics/__init__.py": "from . import bleu\n",
    "opik/evaluation/metrics/heuristics/bleu.py": '''
import os
from opik.exceptions import MetricComputationError

class Result:
    def __init__(self, value):
        self.value = value

class SentenceBLEU:
    def __init__(self, track=True, n_grams=4, smoothing_method="method1", weights=None):
        if abs(sum(weights) - 1.0) > 1e-6:
            raise ValueError("Weights must sum to 1.0")
        self.called = (track, n_grams, smoothing_method, os.environ.get("OPIK_TRACK_DISABLE"))

    def score(self, output, reference):
        if not output.strip():
            raise MetricComputationError("Candidate is empty (single-sentence BLEU).")
        if output == "show":  # what the driver passed: a number cannot say it, so the error message does
            raise RuntimeError(repr((self.called, output, reference)))
        return Result(0.25)

CorpusBLEU = SentenceBLEU
''',
}

#: nltk with a downloader, and an evaluator that needs a resource when told to.
FAKE_AZURE = {
    "nltk/__init__.py": "def download(name):\n    raise AssertionError('the real downloader was reached')\n",
    "azure/__init__.py": "",
    "azure/ai/__init__.py": "",
    "azure/ai/evaluation/__init__.py": '''
import os
import nltk

class BleuScoreEvaluator:
    def __call__(self, *, response, ground_truth):
        if response == "needs-data":
            nltk.download("punkt_tab")
        if response == "show":
            raise RuntimeError(repr((response, ground_truth, os.environ.get("NLTK_DATA"))))
        return {"bleu": 0.5, "bleu_score": 0.5, "bleu_result": "pass"}
''',
}


def _drivers(tmp_path: Path, files: dict[str, str], declared: type) -> Drivers:
    site = tmp_path / "fake-site"
    for name, text in files.items():
        (site / name).parent.mkdir(parents=True, exist_ok=True)
        (site / name).write_text(text)
    return Drivers([sys.executable, *declared.command()[1:]], {**os.environ, "PYTHONPATH": str(site)})


@pytest.fixture
def opik(tmp_path: Path) -> Iterator[Drivers]:
    drivers = _drivers(tmp_path, FAKE_OPIK, OpikSentenceImplementation)
    yield drivers
    drivers.stop()


@pytest.fixture
def azure(tmp_path: Path) -> Iterator[Drivers]:
    drivers = _drivers(tmp_path, FAKE_AZURE, AzureAiEvaluationImplementation)
    yield drivers
    drivers.stop()


def ask(process, seq: int, hypothesis, references, *, level="sentence", weights=(0.5, 0.5),
        smoothing="none") -> Reply:
    request = ScoreRequest(level=level, segments=[{"hypothesis": hypothesis, "references": references}],
                           weights=list(weights), smoothing=smoothing)
    return process.request(request.with_seq(seq).to_json())


def test_opik_is_called_untracked_with_its_smoothing_method_and_the_tokens_joined(opik: Drivers) -> None:
    process = opik()
    assert process.handshake is not None and process.handshake.implementation.name == "opik-sentence"
    assert (ask(process, 1, ["a", "b"], [["a", "c"]]).kind, ask(process, 2, ["a"], [["a"]]).score) == ("score", 0.25)
    shown = ask(process, 3, ["show"], [["the", "cat"], ["a", "cat"]], weights=[1 / 3] * 3, smoothing="exp")
    assert shown.kind == "error"
    assert shown.message == "RuntimeError: ((False, 3, 'method3', 'true'), 'show', ['the cat', 'a cat'])"


def test_opiks_documented_refusals_are_rejections(opik: Drivers) -> None:
    process = opik()
    empty = ask(process, 1, [], [["a"]])
    assert (empty.kind, empty.message) == (
        "rejected", "opik raised MetricComputationError: Candidate is empty (single-sentence BLEU).")
    # a smoothing with a parameter opik cannot set (not declared): sent by hand, as a user of `serve` may
    reply = process.request({"cmd": "score", "seq": 2, "level": "sentence", "segments": [
        {"hypothesis": ["a"], "references": [["a"]]}], "weights": [1.0],
        "smoothing": {"method": "chen-cherry-7", "k": 5}, "lowercase": False})
    assert (reply.kind, reply.message) == ("unsupported", 'opik-sentence smooths with ["none", "exp", '
                                                          '"chen-cherry-2", "chen-cherry-3", "chen-cherry-5"] only '
                                                          '(got "chen-cherry-7")')


def test_opik_corpus_declares_the_corpus_level_only() -> None:
    assert OpikCorpusImplementation.capabilities["levels"] == ["corpus"]
    assert OpikSentenceImplementation.capabilities["levels"] == ["sentence"]
    assert OpikCorpusImplementation.command()[2] == "opik-corpus"


def test_azure_scores_one_response_against_one_ground_truth_with_its_nltk_data_in_its_environment(
        azure: Drivers) -> None:
    process = azure()
    assert ask(process, 1, ["a", "b", "c", "d"], [["a", "b", "c", "e"]], weights=[0.25] * 4,
               smoothing="exp").score == 0.5
    shown = ask(process, 2, ["show"], [["the", "cat"]], weights=[0.25] * 4, smoothing="exp")
    assert shown.message == f"RuntimeError: ('show', 'the cat', {os.path.join(sys.prefix, 'nltk_data')!r})"


def test_azure_refuses_a_segment_without_reference_and_never_downloads(azure: Drivers) -> None:
    process = azure()
    bare = ask(process, 1, ["a"], [], weights=[0.25] * 4, smoothing="exp")
    assert (bare.kind, bare.message) == (
        "rejected", "azure-ai-evaluation scores a response against one ground_truth (got 0 references)")
    download = ask(process, 2, ["needs-data"], [["a"]], weights=[0.25] * 4, smoothing="exp")
    assert download.kind == "error"
    assert download.message.startswith("RuntimeError: NLTK tried to download ('punkt_tab',)")
    assert "bleu-oracle install azure-ai-evaluation" in download.message
    assert ask(process, 3, ["a"], [["a"]], weights=[0.25] * 4, smoothing="exp").score == 0.5  # and it goes on
