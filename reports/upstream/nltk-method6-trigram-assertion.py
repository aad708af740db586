"""nltk's method6 asserts a non-zero trigram precision (its message says bigrams): a valid input is refused.
Draft report: nltk-method6-trigram-assertion.md."""

from nltk.translate.bleu_score import SmoothingFunction, sentence_bleu

DISTRIBUTION = "nltk"
#: p1 = 2/3, p2 = 1/2, p3 = (0 + 5 * pi0) / (1 + 5) with pi0 = p2^2 / p1 = 3/8, so p3 = 5/16 and
#: BLEU = (2/3 * 1/2 * 5/16) ** (1/3) = (5/48) ** (1/3) (derived in the draft).
DOCUMENTED = (5 / 48) ** (1 / 3)


def reproduce():
    return sentence_bleu([["a", "b", "d"]], ["a", "b", "c"], weights=(1 / 3, 1 / 3, 1 / 3),
                         smoothing_function=SmoothingFunction(alpha=5).method6)


if __name__ == "__main__":
    print(reproduce())
