"""azure-ai-evaluation's BleuScoreEvaluator smooths with NLTK's method4 under a comment that calls it NIST smoothing;
NIST's geometric smoothing is NLTK's method3. Draft report: azure-ai-evaluation-method4-as-nist.md."""

import os
import sys

# its NLTK data: in bleu-oracle's environment, written there at install (elsewhere, NLTK's own data directory)
if os.path.isdir(os.path.join(sys.prefix, "nltk_data")):
    os.environ.setdefault("NLTK_DATA", os.path.join(sys.prefix, "nltk_data"))

VENV = "azure-ai-evaluation"  # run in azure-ai-evaluation's own environment (_run.py)
DISTRIBUTION = "azure_ai_evaluation"
#: NIST geometric smoothing: p1 = 3/4, p2 = 2/3, p3 = 1/2, and the first order without a match (4) counts 1/2^1;
#: c = r = 4: BLEU = (3/4 * 2/3 * 1/2 * 1/2) ** (1/4) = (1/8) ** (1/4).
DOCUMENTED = (1 / 8) ** 0.25


def reproduce():
    from azure.ai.evaluation import BleuScoreEvaluator

    return BleuScoreEvaluator()(response="a b c d", ground_truth="a b c e")["bleu_score"]


if __name__ == "__main__":
    print(reproduce())
