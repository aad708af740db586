"""sacrebleu's BLEU, every release from 1.4 on (`bleu-oracle history` drives them).

One library of drivers/venv_bleu.py: the standard library only (libraries/__init__.py says why, and what it shares)."""

from typing import Any, Dict, List

from . import (
    Answer,
    Command,
    Refused,
    Scorer,
    library_arguments,
    sacrebleu_statistics,
    smoothing_row,
    smoothing_table,
    text_segments,
)

#: sacrebleu's smooth_method values, the oracle's methods they are (its in-process adapter's, `history`'s and tfma's,
#: which passes them to sacrebleu's BLEU): stated here, where the driver's modules can read it
SMOOTHING = smoothing_table("sacrebleu smooths with none, floor, add-k or exp only",
                            smoothing_row("none", "none"),
                            smoothing_row("floor", "floor", passes={"value": "smooth_value"}),
                            smoothing_row("add-k", "add-k", passes={"k": "smooth_value"}), smoothing_row("exp", "exp"))


def scorer(settings: Dict[str, Any]) -> Scorer:
    """sacrebleu from 1.4 on. 2.x: `BLEU(lowercase, force, tokenize, smooth_method, smooth_value,
    max_ngram_order, effective_order).corpus_score(hypotheses, streams)`, any order (the adapter's call).
    1.x has no `BLEU` taking arguments (its BLEU takes an argparse namespace) and counts 4 orders: its
    `corpus_bleu(streams, then smooth_method, smooth_value, force, lowercase, tokenize,
    use_effective_order)` (its capabilities say orders [4] and equal reference counts). Sentence level is
    one segment with effective order on (what `sentence_bleu` does), unless the request's empty-order rule
    says otherwise; a missing reference is `None` (2.x)."""
    import sacrebleu as library

    version = vars(library).get("__version__") or vars(library)["VERSION"]  # (1.4.0 has VERSION only)
    modern = int(version.split(".")[0]) >= 2

    def run(command: Command, method: str, value: Any, effective: bool) -> Any:
        segments = text_segments(command)
        width = max(len(references) for _, references in segments)
        # (None in a stream is a missing reference, as sacrebleu's Metric._cache_references documents)
        streams: List[List[Any]] = [[references[k] if k < len(references) else None for _, references in segments]
                   for k in range(width)]
        hypotheses = [hypothesis for hypothesis, _ in segments]
        options = {"smooth_method": method, "smooth_value": value, "force": True,
                   "lowercase": bool(command.get("lowercase")), "tokenize": command.get("tokenize") or "none"}
        if modern:
            metric = library.BLEU(max_ngram_order=len(command["weights"]), effective_order=effective, **options)
            return metric.corpus_score(hypotheses, streams)
        return library.corpus_bleu(hypotheses, streams, use_effective_order=effective, **options)

    def score(command: Command) -> Answer:
        method, arguments = library_arguments(command, settings)
        rule = (command.get("conventions") or {}).get("empty_order")
        effective = command["level"] == "sentence" if rule is None else rule == "skip"
        try:
            result = run(command, method, arguments.get("smooth_value"), effective)
        except (ValueError, TypeError, AssertionError) as exc:  # its argument checks
            raise Refused("rejected", f"sacrebleu raised {type(exc).__name__}: {exc}") from exc
        if method == "add-k":  # add-k adds k to its counts in place (discrepancy sacrebleu-add-k-counts)
            return float(result.score) / 100.0, None
        return float(result.score) / 100.0, sacrebleu_statistics(result)

    return score
