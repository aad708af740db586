"""ragas' `BleuScore` (single-turn).

One library of drivers/venv_bleu.py: the standard library only (libraries/__init__.py says why, and what it shares)."""

from typing import Any, Dict

from . import Answer, Command, Refused, Scorer, library_arguments, text_segments


def sacrebleu_options(command: Command, settings: Dict[str, Any]) -> Dict[str, Any]:
    """The request's settings as `sacrebleu.corpus_bleu`'s keyword arguments (what ragas passes on as its
    `kwargs`): smoothing, case folding, the tokenizer ("none" for tokens joined by spaces), and the empty-order
    rule only when the request carries one (else the wrapper's own: corpus_bleu's `use_effective_order=False`)."""
    method, arguments = library_arguments(command, settings)
    options = {"smooth_method": method, "force": True, "lowercase": bool(command.get("lowercase")),
               "tokenize": command.get("tokenize") or "none"}  # type: Dict[str, Any]
    if "smooth_value" in arguments:
        options["smooth_value"] = arguments["smooth_value"]
    rule = (command.get("conventions") or {}).get("empty_order")
    if rule is not None:
        options["use_effective_order"] = rule == "skip"
    return options


def scorer(settings: Dict[str, Any]) -> Scorer:
    """ragas' `BleuScore` (ragas.metrics, single-turn): `BleuScore(kwargs=...)` scores one `SingleTurnSample`
    (reference, response) by its coroutine `single_turn_ascore`, run here on an event loop of the driver's own;
    no LLM, no embeddings, no network. Its kwargs go to `sacrebleu.corpus_bleu` as its docstring says."""
    import asyncio
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # its deprecation notice (BleuScore moves to ragas.metrics.collections)
        from ragas.dataset_schema import SingleTurnSample
        from ragas.metrics import BleuScore
    loop = asyncio.new_event_loop()

    def score(command: Command) -> Answer:
        hypothesis, references = text_segments(command)[0]
        if not references:  # (its SingleTurnSample's reference is one string: there is no way to pass none)
            raise Refused("unsupported", "ragas' BleuScore takes one reference string (got no reference)")
        metric = BleuScore(kwargs=sacrebleu_options(command, settings))
        sample = SingleTurnSample(reference=references[0], response=hypothesis)
        return float(loop.run_until_complete(metric.single_turn_ascore(sample)))

    return score
