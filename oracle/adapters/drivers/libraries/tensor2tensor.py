"""tensor2tensor's `bleu_hook.compute_bleu`.

One library of drivers/venv_bleu.py: the standard library only (libraries/__init__.py says why, and what it shares)."""

import os
from typing import Any, Dict

from . import Scorer, lineage_scorer


def scorer(settings: Dict[str, Any]) -> Scorer:
    """tensor2tensor 1.15.7's `tensor2tensor.utils.bleu_hook`: `compute_bleu`, text through `bleu_tokenize`."""
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
    from tensor2tensor.utils import bleu_hook

    return lineage_scorer(bleu_hook)
