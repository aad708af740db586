"""The signature of a BLEU computation: every setting that changes the number, in sacrebleu's style.

Shared by `bleu-oracle score` (printed under each score) and `bleu-oracle doctor` (one per reading), so
a signature means the same thing wherever it is printed. Standard library and the formulas only: `score`
must not pay for more at start-up.
"""

from __future__ import annotations


def signature(profile, *, references, options, smoothing, weights):
    """Every setting that changes the number, sacrebleu-style: `profile:P|nrefs:N|case:..|tok:..|smooth:..|
    weights:..|version:bleu-oracle-X` (sacrebleu's own reads `nrefs:1|case:mixed|eff:no|tok:13a|smooth:exp|
    version:2.6.0`)."""
    from oracle import __version__

    smoothing = smoothing if hasattr(smoothing, "describe") else options.smoothing
    shown = ",".join(format(float(w), "g") for w in weights)
    case = ("lc" if options.case_fold == "unicode" else f"lc-{options.case_fold}") if options.lowercase else "mixed"
    split = "" if options.token_split == "str-split" else f"|split:{options.token_split}"
    return (f"profile:{profile}|nrefs:{references}|case:{case}|tok:{options.tokenizer}{split}|"
            f"smooth:{smoothing.describe()}|weights:{shown}|version:bleu-oracle-{__version__}")
