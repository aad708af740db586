"""nltk's method6 gives an order without hypothesis n-grams the prior pi0, so BLEU-5 of a 4-token hypothesis is
not 0. Draft report: nltk-method6-empty-order-prior.md."""

from nltk.translate.bleu_score import SmoothingFunction, sentence_bleu

DISTRIBUTION = "nltk"
#: The hypothesis has no 5-gram, so no 5-gram overlap: "BLEU returns the value 0" (the draft quotes it).
DOCUMENTED = 0.0


def reproduce():
    return sentence_bleu([["a", "a", "a"]], ["a", "a", "a", "a"], weights=(0.2, 0.2, 0.2, 0.2, 0.2),
                         smoothing_function=SmoothingFunction(alpha=1).method6)


if __name__ == "__main__":
    print(reproduce())
