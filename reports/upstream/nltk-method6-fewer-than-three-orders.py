"""nltk's method6 reads p_n[2] whatever the weights: BLEU-2 with method6 raises IndexError.
Draft report: nltk-method6-fewer-than-three-orders.md."""

from nltk.translate.bleu_score import SmoothingFunction, sentence_bleu

DISTRIBUTION = "nltk"
#: method6 interpolates from the third order on; with two orders p1 = 2/2 and p2 = 1/1, so BLEU = 1.
DOCUMENTED = 1.0


def reproduce():
    return sentence_bleu([["a", "b"]], ["a", "b"], weights=(0.5, 0.5),
                         smoothing_function=SmoothingFunction(alpha=5).method6)


if __name__ == "__main__":
    print(reproduce())
