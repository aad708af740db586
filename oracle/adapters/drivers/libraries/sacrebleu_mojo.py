"""sacrebleu-mojo's `corpus_bleu` (its native kernel, or its pure-Python fallback).

One library of drivers/venv_bleu.py: the standard library only (libraries/__init__.py says why, and what it shares)."""

import os
from typing import Any, Dict

from . import Answer, Command, Refused, Scorer, library_arguments, sacrebleu_statistics, text_segments


def scorer(settings: Dict[str, Any]) -> Scorer:
    """sacrebleu-mojo's `corpus_bleu(hypotheses, streams, smooth_method, smooth_value, force, lowercase, tokenize,
    use_effective_order)`, sacrebleu's call shape: corpus BLEU-4 (its kernel counts 4 orders), tokenizer "13a" or
    "none" (`str.split()`), every stream a reference for every segment (it reads no `None`: the capabilities ask
    for equal reference counts). Its native kernel runs where it loads, unless SETTINGS say `"native": false`."""
    if settings.get("native") is False:  # its pure-Python fallback, as on a platform without the kernel
        os.environ["SACREBLEU_MOJO_DISABLE_NATIVE"] = "1"
    import sacrebleu_mojo as library

    def score(command: Command) -> Answer:
        method, arguments = library_arguments(command, settings)
        segments = text_segments(command)
        width = len(segments[0][1]) if segments else 1
        streams = [[references[k] for _, references in segments] for k in range(width)]
        try:
            result = library.corpus_bleu([hypothesis for hypothesis, _ in segments], streams, smooth_method=method,
                                         smooth_value=arguments.get("smooth_value"),
                                         lowercase=bool(command.get("lowercase")),
                                         tokenize=command.get("tokenize") or "none")
        except ValueError as exc:  # its argument checks
            raise Refused("rejected", f"sacrebleu-mojo raised ValueError: {exc}") from exc
        return float(result.score) / 100.0, sacrebleu_statistics(result)

    return score
