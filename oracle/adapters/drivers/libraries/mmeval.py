"""mmeval's `BLEU`, through its metric life cycle.

mmeval 0.2.1, `mmeval.BLEU` (its docstring cites Papineni et al. and says it is modified from torchmetrics): corpus
BLEU, weights as given (`ngram_weights`), `smooth` adding 1 to the matches and totals of orders n > 1 (chen-cherry-2
on the corpus), through `add`/`compute`/`reset`; tokens joined by spaces with `tokenizer_fn="en"` (str.split):
profile `papineni`. mmeval's package imports every metric, some of them OpenCV and SciPy: installed without its
dependencies, then those pinned, the headless OpenCV (the one that imports without libGL) for opencv-python.

One library of drivers/venv_bleu.py: the standard library only (libraries/__init__.py says why, and what it shares)."""

from typing import Any, Dict

from . import TEXT_LIMITS, Batch, Command, Life, Scorer, environment, implementation, planned

ENVIRONMENT = environment(
    (("--no-deps", "mmeval==0.2.1"),
     ("numpy==1.26.4", "scipy==1.13.1", "opencv-python-headless==4.10.0.84", "plum-dispatch==1.7.4",
      "pyyaml==6.0.2", "rich==13.9.4")),
    "from mmeval import BLEU", "mmeval")
IMPLEMENTATIONS = [
    # a BaseMetric: `add` per batch, `compute`, `reset`; its merge is a distributed all-gather, not an API here
    implementation("mmeval", "papineni", dict(levels=["corpus"], max_order=12, smoothing=["none", "chen-cherry-2"],
                                              stateful=["accumulate", "reset"], **TEXT_LIMITS)),
]


def scorer(settings: Dict[str, Any]) -> Scorer:
    """mmeval's `BLEU(n_gram, smooth, ngram_weights, tokenizer_fn="en")` (str.split: the tokens as sent,
    joined by single spaces; "en" given, not inferred from the first prediction) through its metric life
    cycle: `add(predictions, references)` per batch, `compute()["bleu"]`, `reset()`."""
    from mmeval import BLEU

    def new(command: Command) -> Any:
        weights = [float(w) for w in command["weights"]]  # smooth: chen-cherry-2, the only other method declared
        return BLEU(n_gram=len(weights), smooth=command["smoothing"]["method"] != "none", ngram_weights=weights,
                    tokenizer_fn="en")

    def update(metric: Any, segments: Batch) -> Any:
        metric.add([hypothesis for hypothesis, _ in segments], [references for _, references in segments])
        return metric

    def reset(metric: Any) -> Any:
        metric.reset()
        return metric

    return planned(Life(new=new, update=update, result=lambda metric: float(metric.compute()["bleu"]), reset=reset))
