"""pycocoevalcap's BleuScorer adds 1e-15 to every matched count: a zero 4-gram precision does not make BLEU-4 0.
Draft report: pycocoevalcap-epsilon.md."""

import contextlib
import io

from pycocoevalcap.bleu.bleu import Bleu

DISTRIBUTION = "pycocoevalcap"
#: p4 = 0/1 (one 4-gram, unmatched): the geometric mean is 0.
DOCUMENTED = 0.0


def reproduce():
    with contextlib.redirect_stdout(io.StringIO()):  # compute_score prints its statistics
        scores, _ = Bleu(4).compute_score({0: ["a b c e"]}, {0: ["a b c d"]}, verbose=0)
    return scores[3]


if __name__ == "__main__":
    print(reproduce())
