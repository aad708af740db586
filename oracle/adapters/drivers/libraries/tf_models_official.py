"""tf-models-official's `official.nlp.metrics.bleu.compute_bleu`.

tf-models-official 2.20.0, `official.nlp.metrics.bleu.compute_bleu`: tensor2tensor's code, carried on (the same
capabilities, profile `mteval`). It runs in the TensorFlow family's environment (_tensorflow.py).

One library of drivers/venv_bleu.py: the standard library only (libraries/__init__.py says why, and what it shares)."""

import os
from typing import Any, Dict

from . import LINEAGE_CAPABILITIES, Scorer, implementation, lineage_scorer
from ._tensorflow import tensorflow_environment

ENVIRONMENT = tensorflow_environment("tf-models-official")
IMPLEMENTATIONS = [implementation("tf-models-official", "mteval", LINEAGE_CAPABILITIES, preload=True)]


def scorer(settings: Dict[str, Any]) -> Scorer:
    """tf-models-official's `official.nlp.metrics.bleu`: `compute_bleu`, text through `bleu_tokenize` (as its
    `bleu_on_list(..., case_sensitive=True)` does, for any max_order: bleu_on_list itself scores BLEU-4 only)."""
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
    from official.nlp.metrics import bleu

    return lineage_scorer(bleu)
