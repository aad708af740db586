"""opik's SentenceBLEU cuts its weights to the candidate's length and renormalises them: BLEU-4 of a 2-word candidate
is a 2-order BLEU. Draft report: opik-truncated-weights.md."""

import math
import os

os.environ.setdefault("OPIK_TRACK_DISABLE", "true")  # no Opik server here: nothing is logged

VENV = "opik-sentence"  # run in opik's own environment (_run.py)
DISTRIBUTION = "opik"
#: Four orders, NLTK's method1 (epsilon 0.1, the default): p1 = p2 = 1, p3 = p4 = 0.1/1 (NLTK counts an order without
#: n-grams as 0 of 1); c = 2 < r = 3: BLEU = (0.1 * 0.1) ** (1/4) * exp(1 - 3/2) = sqrt(0.1) * exp(-1/2).
DOCUMENTED = math.sqrt(0.1) * math.exp(-0.5)


def reproduce():
    from opik.evaluation.metrics import SentenceBLEU

    return SentenceBLEU(track=False).score(output="a b", reference="a b c").value


if __name__ == "__main__":
    print(reproduce())
