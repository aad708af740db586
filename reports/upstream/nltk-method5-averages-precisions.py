"""nltk's SmoothingFunction.method5 averages precisions, not matched counts: a perfect 4-token sentence scores
above 1. Draft report: nltk-method5-averages-precisions.md."""

from nltk.translate.bleu_score import SmoothingFunction, sentence_bleu

DISTRIBUTION = "nltk"
#: Averaged matched counts m'_n = (m'_{n-1} + m_n + m_{n+1}) / 3 are 4, 3, 2, 1 over totals 4, 3, 2, 1: BLEU = 1.
DOCUMENTED = 1.0


def reproduce():
    tokens = ["a", "b", "c", "d"]
    return sentence_bleu([tokens], tokens, smoothing_function=SmoothingFunction().method5)


if __name__ == "__main__":
    print(reproduce())
