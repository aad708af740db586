"""metrax's BLEU scores an empty prediction against an empty reference 0, where every p_n and r/c are 0/0.
Draft report: metrax-both-empty-zero.md."""

VENV = "metrax"  # run in metrax's own environment (_run.py)
DISTRIBUTION = "google_metrax"
#: Every p_n and the ratio are 0/0: the documented formula gives no number (NaN), see the draft.
DOCUMENTED = float("nan")


def reproduce():
    import metrax

    metric = metrax.BLEU.from_model_output(predictions=[""], references=[[""]], max_order=1)
    return float(metric.compute())


if __name__ == "__main__":
    print(reproduce())
