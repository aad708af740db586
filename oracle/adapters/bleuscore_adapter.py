"""bleuscore (a Rust BLEU with Python bindings) behind protocol v1.

Thin: `bleuscore.compute(references, predictions, max_order=N, smooth=...)` with
the library's default `ref_len_method="shortest"` ("compatible with HuggingFace
evaluate / TF NMT"). bleuscore always applies 13a tokenization ("Uses 13a
tokenization (same as SacreBLEU)"), so it declares the tokenizer 13a and takes
text requests for it as they are; a token request is Unsupported unless
`bleuscore.tokenizer_13a` gives every joined sentence back as its tokens.
Weights: uniform 1/N only (max_order). smooth=True "adds 1 to numerator and
denominator of precision calculations" -- every order, unigrams included: the
oracle's lin-2004. No statistics: `compute` returns translation_length,
reference_length, brevity_penalty and the precisions as floats, but no matched
counts or totals, and protocol v1's statistics need all of hyp_len, ref_len,
matches and totals (a partial set would make every reply a protocol error).

Profile "mlpack": the only profile encoding the tensorflow/nmt conventions
bleuscore documents (shortest reference, add-one smoothing of every order).

The core is Rust: bleuscore documents AssertionError and ValueError for
inputs it refuses (rejected); a panic surfaces as pyo3's PanicException, a
BaseException, and is a crash (the server answers `error`).
"""

from __future__ import annotations

import string

from oracle.models.protocol import ScoreRequest

from .base import (
    SPLIT_CHARACTERS,
    Implementation,
    ScoreAnswer,
    SmoothingRow,
    SmoothingTable,
    Unsupported,
    declare_capabilities,
    join_tokens,
    rejecting,
    require_library,
    require_one_segment,
    require_uniform,
)
from .registry import Registered

#: This module's implementations, as every verb knows them (docs/extending.md, "An implementation"): the
#: registry reads this statement from the source, without importing the module, so it holds plain data only.
IMPLEMENTATIONS = (
    Registered("bleuscore", "in-process", "oracle.adapters.bleuscore_adapter:BleuscoreImplementation",
               extra="bleuscore", listed=10),
)


#: `smooth=True`: add 1 to numerator and denominator of every order (lin-2004)
SMOOTHING = SmoothingTable("bleuscore's only smoothing adds 1 to every order (lin-2004)",
                           (SmoothingRow("none", False), SmoothingRow("lin-2004", True)))


#: ASCII punctuation mteval's 13a splits off (all of it but the apostrophe).
_13A_PUNCTUATION = string.punctuation.replace("'", "")

class BleuscoreImplementation(Implementation):
    name = "bleuscore"
    language = "rust"
    profile = "mlpack"
    # token requests: no token 13a would split again (ASCII punctuation but the apostrophe; "-" and "."
    # only split next to digits or other text, forbidden all the same); text requests: anything
    capabilities = declare_capabilities(weights="uniform", max_order=16, smoothing=SMOOTHING.declared,
                                        tokenizers=["13a"], empty_tokens=False,
                                        forbidden_token_characters=SPLIT_CHARACTERS + _13A_PUNCTUATION)

    def __init__(self):
        self._lib = require_library("bleuscore", "bleuscore")
        self.version = self._lib.__version__

    def score(self, request: ScoreRequest) -> ScoreAnswer:
        if request.lowercase:
            raise Unsupported("bleuscore has no case folding")
        n = require_uniform(request.weights, "bleuscore takes max_order only (weights 1/N each)")
        smooth = SMOOTHING.setting(request.smoothing)
        require_one_segment(request)
        if request.is_text:  # raw text: bleuscore's own 13a tokenizes it
            if request.tokenize != "13a":
                raise Unsupported(f"bleuscore tokenizes with 13a only (got {request.tokenize!r})")
            return self._compute([[r for r in s.references] for s in request.segments],
                                 [s.hypothesis for s in request.segments], n, smooth)
        sentences = [s.hypothesis for s in request.segments] + [r for s in request.segments for r in s.references]
        for tokens in sentences:
            again = self._lib.tokenizer_13a(join_tokens(tokens))
            if list(again) != list(tokens):
                raise Unsupported(
                    f"bleuscore always applies 13a tokenization, which turns {list(tokens)!r} into {list(again)!r}"
                )
        references = [[join_tokens(r) for r in s.references] for s in request.segments]
        predictions = [join_tokens(s.hypothesis) for s in request.segments]
        return self._compute(references, predictions, n, smooth)

    def _compute(self, references, predictions, n, smooth):
        with rejecting("bleuscore", AssertionError, ValueError):
            result = self._lib.compute(references, predictions, max_order=n, smooth=smooth)
        return ScoreAnswer(float(result["bleu"]))
