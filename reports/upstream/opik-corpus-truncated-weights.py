"""opik's CorpusBLEU cuts its weights to the longest candidate's length and renormalises them: BLEU-4 of 2-word
candidates is a 2-order BLEU. Draft report: opik-corpus-truncated-weights.md."""

import math
import os

os.environ.setdefault("OPIK_TRACK_DISABLE", "true")  # no Opik server here: nothing is logged

VENV = "opik-corpus"  # run in opik's own environment (_run.py)
DISTRIBUTION = "opik"
#: Four orders, NLTK's method1 (epsilon 0.1): p1 = 4/4, p2 = 2/2, p3 = p4 = 0.1/2 (NLTK counts each segment's empty
#: order as 0 of 1); c = 4 < r = 6: BLEU = (0.05 * 0.05) ** (1/4) * exp(1 - 6/4) = sqrt(0.05) * exp(-1/2).
DOCUMENTED = math.sqrt(0.05) * math.exp(-0.5)


def reproduce():
    from opik.evaluation.metrics import CorpusBLEU

    return CorpusBLEU(track=False).score(output=["a b", "c d"], reference=["a b x", "c d y"]).value


if __name__ == "__main__":
    print(reproduce())
