"""fast-bleu's `BLEU` (a C++ BLEU with a ctypes wrapper) behind protocol v1.

fast-bleu scores each hypothesis against one fixed reference set:
`BLEU(references, {"w": weights}, smoothing_func=...).get_score([hypothesis])`
-- sentence BLEU only; there is no corpus score. Tokens go as lists. Weights:
fast-bleu asserts "2 <= min_n" and "All weights must sum to one" (within
1e-15), so other weights are Unsupported. A single order (BLEU-1, weights
(1.0,)) is sent as weights (1.0, 0.0): the bigram term is then w_2 log p_2 = 0
whatever p_2 is -- the same as NLTK, whose method0 turns a zero p_2 into
sys.float_info.min and 0 * log(that) is 0 -- so the score is the unigram
precision times BP, which is what BLEU-1 is (checked against NLTK's
`sentence_bleu(..., weights=(1.0,))` in tests/adapters/test_adapters.py). Smoothing: "0 for method_0 and 1 for
method_1 (the same as NLTK)" -- method_1 with NLTK's default epsilon 0.1 only.
No case folding, no statistics.

Profile "nltk": fast-bleu documents itself as NLTK's computation. The package has
no __version__; the version is its distribution's.
"""

from __future__ import annotations

from oracle.models.protocol import ScoreRequest

from .base import (
    Implementation,
    ScoreAnswer,
    SmoothingRow,
    SmoothingTable,
    Unsupported,
    declare_capabilities,
    rejecting,
    require_library,
    require_one_segment,
)
from .registry import Registered

#: This module's implementations, as every verb knows them (docs/extending.md, "An implementation"): the
#: registry reads this statement from the source, without importing the module, so it holds plain data only.
IMPLEMENTATIONS = (
    Registered("fast-bleu", "in-process", "oracle.adapters.fastbleu_adapter:FastbleuImplementation",
               extra="fastbleu", listed=11),
)


#: `smoothing_func`: "0 for method_0 and 1 for method_1 (the same as NLTK)", NLTK's default epsilon fixed
SMOOTHING = SmoothingTable("fast-bleu smooths with method_0 or method_1 (epsilon 0.1) only", (
    SmoothingRow("none", 0), SmoothingRow("chen-cherry-1", 1, fixed={"epsilon": 0.1})))


class FastbleuImplementation(Implementation):
    name = "fast-bleu"
    language = "c++"
    profile = "nltk"
    # fast-bleu takes any weights of length >= 2 summing to one; protocol v1 cannot say that (weights)
    capabilities = declare_capabilities(levels=["sentence"], weights="uniform", max_order=16,
                                        smoothing=SMOOTHING.declared)

    def __init__(self):
        self.version, self._BLEU = require_library(
            "fastbleu", "version:fast-bleu", "fast_bleu:BLEU", library="fast-bleu", note="it builds a C++ extension"
        )

    def score(self, request: ScoreRequest) -> ScoreAnswer:
        if request.level != "sentence":
            raise Unsupported("fast-bleu scores sentences only (no corpus score)")
        require_one_segment(request)
        if request.lowercase:
            raise Unsupported("fast-bleu has no case folding")
        weights = [float(w) for w in request.weights]
        if weights == [1.0]:
            weights = [1.0, 0.0]  # BLEU-1: fast-bleu asserts 2 <= min_n; a zero-weight bigram term adds nothing
        if len(weights) < 2:
            raise Unsupported("fast-bleu asserts at least 2 n-gram orders")
        if abs(1.0 - sum(weights)) >= 1e-15:
            raise Unsupported(f"fast-bleu asserts 'All weights must sum to one' (got sum {sum(weights)!r})")
        smoothing_func = SMOOTHING.setting(request.smoothing)
        segment = request.segments[0]
        with rejecting("fast-bleu", AssertionError):  # its wrapper validates with asserts
            metric = self._BLEU([list(r) for r in segment.references], {"w": tuple(weights)},
                                smoothing_func=smoothing_func)
            value = metric.get_score([list(segment.hypothesis)])["w"][0]
        return ScoreAnswer(float(value))
