"""torchtext's bleu_score for the torchtext reproductions. Users write `from torchtext.data.metrics import
bleu_score`; that import loads torchtext's C++ extension, which torchtext 0.18.0 (its last release) built for
torch 2.3 only. Where it fails to load, metrics.py (pure Python, the code under report) is loaded from the
installed files without the package's __init__."""

import importlib
import importlib.util
import sys
import types
from pathlib import Path


def bleu_score_function():
    """torchtext.data.metrics.bleu_score, imported as users do where it loads, else from its file."""
    try:
        from torchtext.data.metrics import bleu_score
    except (ImportError, OSError):
        for name in [n for n in sys.modules if n == "torchtext" or n.startswith("torchtext.")]:
            del sys.modules[name]  # the half-imported package, if any
        spec = importlib.util.find_spec("torchtext")
        if spec is None or not spec.submodule_search_locations:
            raise
        where = Path(list(spec.submodule_search_locations)[0])
        for name, path in (("torchtext", where), ("torchtext.data", where / "data")):
            package = types.ModuleType(name)
            package.__path__ = [str(path)]
            sys.modules[name] = package
        bleu_score = importlib.import_module("torchtext.data.metrics").bleu_score
    return bleu_score
