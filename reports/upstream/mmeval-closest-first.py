"""mmeval's BLEU takes the first listed of equally close references: the score depends on their order.
Draft report: mmeval-closest-first.md."""

VENV = "mmeval"  # run in mmeval's own environment (_run.py)
DISTRIBUTION = "mmeval"
#: the same references in either order give the same score (ties to the shorter: r = 4 < c = 5, BP 1)
DOCUMENTED = [1.0, 1.0]


def reproduce():
    from mmeval import BLEU

    scores = []
    for references in (["a b c d e f", "a b c d"], ["a b c d", "a b c d e f"]):
        metric = BLEU(n_gram=1)
        scores.append(metric(["a b c d e"], [references])["bleu"])
    return scores


if __name__ == "__main__":
    print(reproduce())
