"""What opik's SentenceBLEU and CorpusBLEU (libraries/opik_sentence.py, opik_corpus.py) share: their environment,
smoothing table and capabilities, the metric made from a command, untracked, and its value or its refusal. Not a
library of its own (a leading underscore: the driver lists no `_` module, the registry reads none).

opik 2.2.122, `opik.evaluation.metrics.SentenceBLEU` and `CorpusBLEU` (`track=False`: no Opik server, tracking
disabled), with nltk 3.10.4, which they wrap: `score(output, reference)` on strings. Their docstrings cite NLTK's BLEU
and its `SmoothingFunction` methods, and say that weights "must sum to 1.0" (uniform weights declared: protocol v1
cannot say "summing to 1") and that an empty candidate or reference raises: profile `nltk`, those refusals
`rejected`. What they do and do not document: they lowercase every string and truncate the weights to the hypothesis
length (the longest hypothesis for the corpus), renormalised (discrepancies opik-always-lowercases,
opik-truncated-weights, opik-corpus-truncated-weights). Tokens are joined by spaces (opik splits on whitespace); text
requests with the `none` tokenizer pass the text as it is. The smoothing methods are NLTK's with
`SmoothingFunction()`'s defaults: those without a parameter are declared."""

import os
from typing import Any, Callable, Dict

from . import TEXT_LIMITS, Command, Refused, environment, library_arguments, smoothing_row, smoothing_table

#: opik's SentenceBLEU and CorpusBLEU (opik.evaluation.metrics.heuristics.bleu) need nltk, which opik does not require:
#: both pinned, one environment for the two implementations (kept under opik's name).
OPIK_ENVIRONMENT = environment((("opik==2.2.122", "nltk==3.10.4"),),
                               "from opik.evaluation.metrics import SentenceBLEU, CorpusBLEU", "opik", directory="opik")
#: opik passes `smoothing_method` to `getattr(SmoothingFunction(), name)`: NLTK's methods with its default
#: parameters (epsilon 0.1, alpha 5, k 5), so those taking one are fixed to it (and not declared).
OPIK_SMOOTHING = smoothing_table(
    "opik smooths with NLTK's SmoothingFunction() methods, their parameters the defaults",
    smoothing_row("none", "method0"),
    smoothing_row("floor", "method1", fixed={"value": 0.1}),
    smoothing_row("exp", "method3"),
    smoothing_row("chen-cherry-1", "method1", fixed={"epsilon": 0.1}),
    smoothing_row("chen-cherry-2", "method2"),
    smoothing_row("chen-cherry-3", "method3"),
    smoothing_row("chen-cherry-4", "method4", fixed={"k": 5.0}),
    smoothing_row("chen-cherry-5", "method5"),
    smoothing_row("chen-cherry-6", "method6", fixed={"alpha": 5.0}),
    smoothing_row("chen-cherry-7", "method7", fixed={"k": 5.0}),
)


def opik_capabilities(level: str) -> Dict[str, Any]:
    """Their capabilities at `level`: it lowercases every string whatever is asked (a request to fold case is one it
    honours); its weights must sum to 1 (a documented ValueError otherwise), which protocol v1 cannot say: uniform
    weights only; the smoothing methods of OPIK_SMOOTHING that fix no parameter."""
    return dict(levels=[level], weights="uniform", max_order=12, lowercase=True, tokenizers=["none"], **TEXT_LIMITS)


def opik_metric(kind: str, settings: Dict[str, Any]) -> Callable[[Command], Any]:
    """A command's opik metric of class `kind`, untracked (no Opik server: `track=False`, and tracking disabled
    before opik loads), its smoothing method named from the adapter's table."""
    os.environ["OPIK_TRACK_DISABLE"] = "true"
    from opik.evaluation.metrics import heuristics

    metric_class = getattr(heuristics.bleu, kind)

    def metric_of(command: Command) -> Any:
        method, _ = library_arguments(command, settings)
        weights = [float(w) for w in command["weights"]]
        try:
            return metric_class(track=False, n_grams=len(weights), smoothing_method=method, weights=weights)
        except ValueError as exc:  # its documented check: "weights ... Must sum to 1.0"
            raise Refused("rejected", "opik raised ValueError: {}".format(exc)) from exc

    return metric_of


def opik_value(run: Callable[[], Any]) -> float:
    from opik.exceptions import MetricComputationError

    try:
        return float(run().value)
    except MetricComputationError as exc:  # its documented refusal of an empty candidate or reference
        raise Refused("rejected", "opik raised MetricComputationError: {}".format(exc)) from exc
