"""metrax's BLEU: an empty reference beside a matching one makes r = 0, the ratio 0 and BLEU 0.
Draft report: metrax-empty-shortest-reference-zero.md."""

VENV = "metrax"  # run in metrax's own environment (_run.py)
DISTRIBUTION = "google_metrax"
#: The closest reference to the 1-token prediction is "a" itself: r = c = 1, BP = 1, p1 = 1/1: BLEU = 1.
DOCUMENTED = 1.0


def reproduce():
    import metrax

    metric = metrax.BLEU.from_model_output(predictions=["a"], references=[["a", ""]], max_order=1)
    return float(metric.compute())


if __name__ == "__main__":
    print(reproduce())
