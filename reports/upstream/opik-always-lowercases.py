"""opik's SentenceBLEU (and CorpusBLEU) lowercase the candidate and the references before splitting them, which their
docstrings do not say: 'The cat sat' scores 1 against 'the cat sat'. Draft report: opik-always-lowercases.md."""

import math
import os

os.environ.setdefault("OPIK_TRACK_DISABLE", "true")  # no Opik server here: nothing is logged

VENV = "opik-sentence"  # run in opik's own environment (_run.py)
DISTRIBUTION = "opik"
#: NLTK's sentence_bleu on the tokens as written: p1 = 2/3 ('The' unmatched), p2 = 1/2, c = r: sqrt(1/3).
DOCUMENTED = math.sqrt(1 / 3)


def reproduce():
    from opik.evaluation.metrics import SentenceBLEU

    return SentenceBLEU(n_grams=2, track=False).score(output="The cat sat", reference="the cat sat").value


if __name__ == "__main__":
    print(reproduce())
