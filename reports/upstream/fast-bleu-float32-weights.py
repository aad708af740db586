"""fast-bleu holds weights in single precision: with weights 1/3 its score differs from NLTK's by ~1e-8.
Draft report: fast-bleu-float32-weights.md."""

from fast_bleu import BLEU

DISTRIBUTION = "fast-bleu"
#: p1 = 4/5, p2 = 3/4, p3 = 2/3, c = 5 > r = 4: BLEU = (4/5 * 3/4 * 2/3) ** (1/3) = 0.4 ** (1/3), NLTK's value.
DOCUMENTED = 0.4 ** (1 / 3)


def reproduce():
    bleu = BLEU([["a", "b", "c", "a"]], {"bleu3": (1 / 3, 1 / 3, 1 / 3)})
    return bleu.get_score([["a", "b", "c", "a", "b"]])["bleu3"][0]


if __name__ == "__main__":
    print(reproduce())
