"""metrax's BLEU takes the shortest reference as the reference length, where its docstring says the closest.
Draft report: metrax-shortest-reference.md."""

import math

VENV = "metrax"  # run in metrax's own environment (_run.py)
DISTRIBUTION = "google_metrax"
#: p1 = 6/6, p2 = 5/5; the closest reference has 7 tokens, c = 6: BP = exp(1 - 7/6).
DOCUMENTED = math.exp(1 - 7 / 6)


def reproduce():
    import metrax

    metric = metrax.BLEU.from_model_output(predictions=["a b c d e f"], references=[["a b c d e f g", "a b c"]],
                                           max_order=2)
    return float(metric.compute())


if __name__ == "__main__":
    print(reproduce())
