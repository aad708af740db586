"""torchtext's `bleu_score` (torchtext.data.metrics, deprecated; 0.18.0 is its last release) behind protocol v1.

torchtext's package __init__ loads its compiled extension (libtorchtext.so), which is built for
torch 2.3 and does not load beside the project's torch 2.13.0; PyPI has no CPU build of torch 2.3, so
an environment of its own would cost about 3 GB of CUDA libraries. `bleu_score` needs none of the
extension: it is `torchtext/data/metrics.py` and `ngrams_iterator` from `torchtext/data/utils.py`,
pure Python over torch tensors. The adapter loads those two files, as installed by
`pip install 'bleu-oracle[torchtext]'`, under their own module names without running the package's
__init__, and calls `bleu_score(candidates, references, max_n=N, weights=[...])` unchanged.

Thin: tokens as given (it takes token lists), corpus level (sentence level is a one-segment corpus),
weights as given. Its `assert`s (len(weights) == max_n, equal corpus lengths) are its validation. No
smoothing, no case folding. Its docstring cites the BLEU article: profile "papineni". No statistics:
the counts are local to the function.
"""

from __future__ import annotations

import functools
import importlib
import importlib.metadata
import importlib.util
import sys
import types
from pathlib import Path

from oracle.models.protocol import ScoreRequest

from .base import (
    AdapterUnavailable,
    Implementation,
    ScoreAnswer,
    Unsupported,
    declare_capabilities,
    rejecting,
    require_library,
    without_smoothing,
)
from .registry import Registered

#: This module's implementations, as every verb knows them (docs/extending.md, "An implementation"): the
#: registry reads this statement from the source, without importing the module, so it holds plain data only.
IMPLEMENTATIONS = (
    Registered("torchtext", "in-process", "oracle.adapters.torchtext_adapter:TorchtextImplementation",
               extra="torchtext", listed=17),
)


SMOOTHING = without_smoothing("torchtext's bleu_score")


@functools.cache
def load_bleu_score():
    """torchtext.data.metrics.bleu_score from the installed files, without torchtext's __init__ (loaded once)."""
    require_library("torchtext", "torch")
    try:
        version = importlib.metadata.version("torchtext")
        spec = importlib.util.find_spec("torchtext")
    except (importlib.metadata.PackageNotFoundError, ImportError):
        spec = None
    if spec is None or not spec.submodule_search_locations:
        raise AdapterUnavailable("torchtext is not installed: pip install 'bleu-oracle[torchtext]'")
    where = Path(list(spec.submodule_search_locations)[0])
    if "torchtext" not in sys.modules:  # a bare package: its __init__ would load the C++ extension
        package = types.ModuleType("torchtext")
        package.__path__ = [str(where)]
        sys.modules["torchtext"] = package
        data = types.ModuleType("torchtext.data")
        data.__path__ = [str(where / "data")]
        sys.modules["torchtext.data"] = data
    metrics = importlib.import_module("torchtext.data.metrics")
    return version, metrics.bleu_score


class TorchtextImplementation(Implementation):
    name = "torchtext"
    language = "python"
    profile = "papineni"
    capabilities = declare_capabilities(max_order=12)

    def __init__(self):
        self.version, self._bleu_score = load_bleu_score()

    def score(self, request: ScoreRequest) -> ScoreAnswer:
        if request.lowercase:
            raise Unsupported("torchtext's bleu_score has no case folding")
        SMOOTHING.setting(request.smoothing)  # Unsupported unless "none"
        if request.level == "sentence" and len(request.segments) != 1:
            raise Unsupported("sentence level is a one-segment corpus")
        candidates = [list(s.hypothesis) for s in request.segments]
        references = [[list(r) for r in s.references] for s in request.segments]
        weights = [float(w) for w in request.weights]
        with rejecting("torchtext", AssertionError):
            value = self._bleu_score(candidates, references, max_n=len(weights), weights=weights)
        return ScoreAnswer(float(value))
