"""metrax's BLEU keeps its statistics in float32: scores agree with the exact value to about 1e-8.
Draft report: metrax-float32.md."""

import math

VENV = "metrax"  # run in metrax's own environment (_run.py)
DISTRIBUTION = "google_metrax"
#: Every precision is 1; c = 4 < r = 5, so BLEU = exp(1 - 5/4) = exp(-0.25).
DOCUMENTED = math.exp(-0.25)


def reproduce():
    import metrax

    metric = metrax.BLEU.from_model_output(predictions=["a b c d"], references=[["a b c d e"]], max_order=4)
    return float(metric.compute())


if __name__ == "__main__":
    print(reproduce())
