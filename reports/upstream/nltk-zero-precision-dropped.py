"""nltk's corpus_bleu leaves a zero (smoothed) precision out of the sum, i.e. counts it as 1: with method4 a
one-token hypothesis scores BLEU-2 = 1. Draft report: nltk-zero-precision-dropped.md."""

from nltk.translate.bleu_score import SmoothingFunction, sentence_bleu

DISTRIBUTION = "nltk"
#: No bigram overlap, and method4 adds nothing for a one-token hypothesis: p2 = 0, so BLEU = 0 as documented.
DOCUMENTED = 0.0


def reproduce():
    return sentence_bleu([["a"]], ["a"], weights=(0.5, 0.5), smoothing_function=SmoothingFunction(k=5).method4)


if __name__ == "__main__":
    print(reproduce())
