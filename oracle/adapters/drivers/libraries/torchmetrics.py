"""torchmetrics' `BLEUScore`, every release from 0.7 on (`bleu-oracle history` drives them).

One library of drivers/venv_bleu.py: the standard library only (libraries/__init__.py says why, and what it shares)."""

from typing import Any, Dict

from . import Answer, Command, Refused, Scorer, count, library_arguments, text_segments


def scorer(settings: Dict[str, Any]) -> Scorer:
    """torchmetrics' `BLEUScore` (torchmetrics.text.bleu) from 0.7 on: `BLEUScore(n_gram, smooth[, weights])`
    then `update(preds, target)` (0.7 warns that it swapped the order to this) and `compute()`; `weights` only
    from 0.9 (before, the capabilities say uniform). Its state is the statistics, as its adapter reports."""
    import inspect
    import warnings

    from torchmetrics.text.bleu import BLEUScore

    takes_weights = "weights" in inspect.signature(BLEUScore.__init__).parameters

    def score(command: Command) -> Answer:
        smooth, _ = library_arguments(command, settings)
        weights = [float(w) for w in command["weights"]]
        if not 1 <= len(weights) <= 4:
            raise Refused("unsupported", f"torchmetrics documents n_gram from 1 to 4 (got {len(weights)} weights)")
        segments = text_segments(command)
        options = {"weights": weights} if takes_weights else {}
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            try:
                metric = BLEUScore(n_gram=len(weights), smooth=smooth, **options)
                metric.update([hypothesis for hypothesis, _ in segments],
                              [references for _, references in segments])
                value = float(metric.compute())
            except ValueError as exc:  # its argument checks
                raise Refused("rejected", f"torchmetrics raised ValueError: {exc}") from exc
        statistics = {"hyp_len": count(metric.preds_len), "ref_len": count(metric.target_len),
                      "matches": [count(x) for x in metric.numerator.tolist()],
                      "totals": [count(x) for x in metric.denominator.tolist()]}
        return value, statistics

    return score
