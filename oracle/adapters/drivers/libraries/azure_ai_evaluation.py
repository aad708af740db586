"""azure-ai-evaluation's `BleuScoreEvaluator`.

One library of drivers/venv_bleu.py: the standard library only (libraries/__init__.py says why, and what it shares)."""

import os
import sys
from typing import Any, Dict

from . import Answer, Command, Refused, Scorer, text_segments


def scorer(settings: Dict[str, Any]) -> Scorer:
    """azure-ai-evaluation's `BleuScoreEvaluator()(response=..., ground_truth=...)["bleu_score"]`: one hypothesis
    string against one reference string, each tokenized by the evaluator with NLTK (the data seeded into this
    environment at install: NLTK_DATA points there, and a download attempt is an error, never a fetch)."""
    os.environ["NLTK_DATA"] = os.path.join(sys.prefix, "nltk_data")
    import nltk

    def refuse_download(*arguments: Any, **keywords: Any) -> None:
        raise RuntimeError("NLTK tried to download {} at run time: the environment's seeded NLTK data is incomplete "
                           "(bleu-oracle install azure-ai-evaluation)".format(arguments[:1]))

    nltk.download = refuse_download  # (azure calls nltk.download for a resource nltk.find does not find)
    from azure.ai.evaluation import BleuScoreEvaluator

    evaluator = BleuScoreEvaluator()

    def score(command: Command) -> Answer:
        ((hypothesis, references),) = text_segments(command)
        if len(references) != 1:  # (its capabilities allow at most one: this is a segment without any)
            raise Refused("rejected", "azure-ai-evaluation scores a response against one ground_truth (got {} "
                                      "references)".format(len(references)))
        return float(evaluator(response=hypothesis, ground_truth=references[0])["bleu_score"])

    return score
