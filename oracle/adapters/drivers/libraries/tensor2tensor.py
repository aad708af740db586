"""tensor2tensor's `bleu_hook.compute_bleu`.

tensor2tensor 1.15.7, `tensor2tensor.utils.bleu_hook.compute_bleu`: profile `mteval` (its `bleu_tokenize` is
mteval-v14's international tokenization, its docstring says). It runs in the TensorFlow family's environment
(_tensorflow.py).

One library of drivers/venv_bleu.py: the standard library only (libraries/__init__.py says why, and what it shares)."""

import os
from typing import Any, Dict

from . import LINEAGE_CAPABILITIES, Scorer, implementation, lineage_scorer
from ._tensorflow import tensorflow_environment

ENVIRONMENT = tensorflow_environment("tensor2tensor")
IMPLEMENTATIONS = [implementation("tensor2tensor", "mteval", LINEAGE_CAPABILITIES, preload=True)]


def scorer(settings: Dict[str, Any]) -> Scorer:
    """tensor2tensor 1.15.7's `tensor2tensor.utils.bleu_hook`: `compute_bleu`, text through `bleu_tokenize`."""
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
    from tensor2tensor.utils import bleu_hook

    return lineage_scorer(bleu_hook)
