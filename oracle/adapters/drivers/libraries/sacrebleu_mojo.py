"""sacrebleu-mojo's `corpus_bleu` (its native kernel, or its pure-Python fallback).

sacrebleu-mojo 0.2.4, `sacrebleu_mojo.corpus_bleu(hypotheses, streams, smooth_method, smooth_value, lowercase=,
tokenize=)`: "a drop-in faster replacement for sacrebleu's corpus BLEU", its README says, "`.score` matches the
published sacrebleu package": profile `sacrebleu`. Corpus BLEU-4 only (its kernel counts four orders), smoothing none,
floor or exp, tokenizer 13a (or none), every reference stream complete (it reads no `None`), and sacrebleu's
statistics (counts, totals, sys_len, ref_len). Its package declares Requires-Python >=3.12, yet its wheel
(py3-none-manylinux_2_35: Python and a ctypes kernel) imports and runs on this machine's 3.11, which has no 3.12 beside
it: pip is told to install it anyway, --ignore-requires-python (docs/checking.md says so); numpy is its one
requirement. A few seconds to prepare, ~100 MB. `sacrebleu-mojo-fallback` is the same package with its native kernel
disabled: the "vendored pure-Python fallback for platforms without a native build" (its README), forced with
SACREBLEU_MOJO_DISABLE_NATIVE=1, a second implementation of the counting, claimed to give the same scores; it runs in
sacrebleu-mojo's environment (`bleu-oracle install sacrebleu-mojo` prepares it).

One library of drivers/venv_bleu.py: the standard library only (libraries/__init__.py says why, and what it shares)."""

import os
from typing import Any, Dict

from . import (
    TEXT_LIMITS,
    Answer,
    Command,
    Refused,
    Scorer,
    environment,
    implementation,
    library_arguments,
    sacrebleu_statistics,
    smoothing_row,
    smoothing_table,
    text_segments,
)

ENVIRONMENT = environment(
    (("numpy==2.4.6",), ("--no-deps", "--ignore-requires-python", "sacrebleu-mojo==0.2.4")),
    "import sacrebleu_mojo", "sacrebleu-mojo")
#: sacrebleu-mojo's smooth_method values (sacrebleu's, less add-k, which it refuses)
SMOOTHING = smoothing_table("sacrebleu-mojo smooths with none, floor or exp only",
                            smoothing_row("none", "none"),
                            smoothing_row("floor", "floor", passes={"value": "smooth_value"}),
                            smoothing_row("exp", "exp"))
CAPABILITIES = dict(levels=["corpus"], weights="uniform", orders=[4], statistics=True, lowercase=True,
                    tokenizers=["13a"], same_reference_count=True, **TEXT_LIMITS)
IMPLEMENTATIONS = [
    # SETTINGS' `native`: its native kernel, or (False) its pure-Python fallback, SACREBLEU_MOJO_DISABLE_NATIVE=1
    implementation("sacrebleu-mojo", "sacrebleu", CAPABILITIES, smoothing=SMOOTHING, settings={"native": True}),
    implementation("sacrebleu-mojo-fallback", "sacrebleu", CAPABILITIES, smoothing=SMOOTHING,
                   settings={"native": False}),
]


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
