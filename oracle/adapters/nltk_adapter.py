"""NLTK's `nltk.translate.bleu_score` behind protocol v1.

Thin: token lists go to `corpus_bleu` / `sentence_bleu` unchanged, weights as
given, smoothing names mapped onto `SmoothingFunction` methods. NLTK warns
(`warnings.warn`) when an order has no overlap; warnings are silenced and stdout
is kept clean so a protocol server's output stays one JSON line per answer.

Mapping (the oracle's method -> NLTK):
  none            -> method0 ("No smoothing")
  chen-cherry-1   -> method1, SmoothingFunction(epsilon=epsilon)
  chen-cherry-2   -> method2
  chen-cherry-3   -> method3
  chen-cherry-4   -> method4, SmoothingFunction(k=k)
  chen-cherry-5   -> method5
  chen-cherry-6   -> method6, SmoothingFunction(alpha=alpha)
  chen-cherry-7   -> method7, SmoothingFunction(k=k)
  floor(value)    -> method1 with epsilon=value (the oracle defines both as m_n := constant)
  exp             -> method3 (both: m_n := 1/2^k for the k-th order without matches)
add-k and lin-2004 have no NLTK counterpart (add-k with k=1 is method2 and is
requested as chen-cherry-2) and are unsupported. NLTK has no case folding and
does not expose its statistics.

No convention a request may carry is switchable here (`capabilities.conventions` is
left out). `corpus_bleu`'s arguments are list_of_references, hypotheses, weights,
smoothing_function and auto_reweigh; `auto_reweigh=True` is a weights rule, not
effective order: only when the weights are exactly (0.25, 0.25, 0.25, 0.25) and the
hypothesis length *summed over the corpus* is c < 4 does it use 1/c for c orders.
For one sentence that happens to equal leaving out the orders without n-grams; for
a corpus (where an order has n-grams when any segment is long enough), for other
weights or other orders it does not, and a switch is declared for every request
or none.
"""

from __future__ import annotations

import contextlib
import io
import warnings
from collections.abc import Callable
from types import ModuleType

from oracle.models.protocol import ScoreRequest

from .base import (
    Implementation,
    ScoreAnswer,
    SmoothingRow,
    SmoothingSpec,
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
    Registered("nltk", "in-process", "oracle.adapters.nltk_adapter:NltkImplementation", extra="nltk", listed=2),
)


#: the oracle's method -> the `SmoothingFunction` method, and the parameters passed to SmoothingFunction
SMOOTHING = SmoothingTable("nltk smooths with none, floor, exp and chen-cherry-1 to -7 only", (
    SmoothingRow("none", "method0"),
    SmoothingRow("floor", "method1", passes={"value": "epsilon"}),
    SmoothingRow("exp", "method3"),
    SmoothingRow("chen-cherry-1", "method1", passes={"epsilon": "epsilon"}),
    SmoothingRow("chen-cherry-2", "method2"),
    SmoothingRow("chen-cherry-3", "method3"),
    SmoothingRow("chen-cherry-4", "method4", passes={"k": "k"}),
    SmoothingRow("chen-cherry-5", "method5"),
    SmoothingRow("chen-cherry-6", "method6", passes={"alpha": "alpha"}),
    SmoothingRow("chen-cherry-7", "method7", passes={"k": "k"}),
))


def smoothing_function(bleu_score: ModuleType, smoothing: SmoothingSpec) -> Callable[..., float]:
    """The NLTK smoothing function for a request's smoothing, or Unsupported."""
    name, arguments = SMOOTHING.arguments(smoothing)
    return getattr(bleu_score.SmoothingFunction(**arguments), name)


class NltkImplementation(Implementation):
    name = "nltk"
    language = "python"
    profile = "nltk"
    capabilities = declare_capabilities(max_order=16, smoothing=SMOOTHING.declared)

    def __init__(self):
        nltk, self._bleu = require_library("nltk", "nltk", "nltk.translate:bleu_score")
        self.version = nltk.__version__

    def score(self, request: ScoreRequest) -> ScoreAnswer:
        if request.lowercase:
            raise Unsupported("nltk's bleu_score has no case folding")
        function = smoothing_function(self._bleu, request.smoothing)
        weights = tuple(float(w) for w in request.weights)
        hypotheses = [list(s.hypothesis) for s in request.segments]
        references = [[list(r) for r in s.references] for s in request.segments]
        require_one_segment(request)
        sink = io.StringIO()
        # nltk validates with asserts; any other exception is a crash
        with warnings.catch_warnings(), contextlib.redirect_stdout(sink), rejecting("nltk", AssertionError):
            warnings.simplefilter("ignore")
            if request.level == "sentence":
                value = self._bleu.sentence_bleu(references[0], hypotheses[0], weights, smoothing_function=function)
            else:
                value = self._bleu.corpus_bleu(references, hypotheses, weights, smoothing_function=function)
        return ScoreAnswer(float(value))
