"""Libraries that run in a virtual environment of their own (`oracle.adapters.environments.VENVS`),
driven by `drivers/venv_bleu.py` in that environment over a pipe (`oracle.adapters.bridge`).

- **keras-hub** 0.32.0, `keras_hub.metrics.Bleu` (TensorFlow 2.21 CPU, keras 3.15): corpus BLEU
  with uniform weights 1/max_order, `smooth` adding 1 to every order's matches and totals (its
  docstring: "Adds 1 to the matched n-gram count ... for every order": lin-2004), in float32 (its
  default dtype). Its docstring says that "by default, this implementation replicates SacreBLEU":
  profile `sacrebleu`. Token requests pass a tokenizer that splits on whitespace (so tokens hold
  none and none is empty); text requests for "13a" use its default tokenizer, the one it says
  "replicates the behaviour of SacreBLEU's tokenizer_13a".
- **metrax** 0.2.4 (google-metrax, JAX), `metrax.BLEU.from_model_output(predictions, references,
  max_order).compute()`: corpus BLEU, uniform weights, no smoothing, statistics in float32. Its
  docstring calls the reference length "the closest length match": profile `papineni`.

Both are prepared on first use by `check` (or `bleu-oracle install NAME`): about 15-20 s from the
package registry and 0.8-1.6 GB on disk each.
"""

from __future__ import annotations

import importlib.resources

from oracle.models.protocol import ScoreRequest

from . import environments
from .base import (TEXT_LIMITS, AdapterUnavailable, Implementation, Rejected, ScoreAnswer, Unsupported, declare_capabilities,
                   is_uniform, join_tokens)
from .bridge import Bridge


class _VenvImplementation(Implementation):
    environment = ""
    distribution = ""
    smoothing_methods = ("none",)

    def __init__(self):
        if not environments.is_prepared(self.environment):
            raise AdapterUnavailable(f"{self.environment} runs in its own environment, not created yet: "
                                     f"{environments.install_hint(self.environment)}")
        environments.verify(self.environment)  # the library's files as pip installed them, or exit 3 naming one
        self.version = environments.VENVS[self.environment].pinned(self.distribution)
        script = importlib.resources.files("oracle.adapters").joinpath("drivers/venv_bleu.py")
        self._driver = Bridge([environments.venv_python(self.environment), script, self.environment],
                              what=f"{self.environment}'s driver")

    def score(self, request: ScoreRequest) -> ScoreAnswer:
        if not is_uniform(request.weights):
            raise Unsupported(f"{self.name} weighs every order 1/max_order (got weights {list(request.weights)})")
        method = request.smoothing.method
        if method not in self.smoothing_methods:
            raise Unsupported(f"{self.name} smooths with {list(self.smoothing_methods)} only (got {method!r})")
        if request.lowercase:
            raise Unsupported(f"{self.name} does not fold case")
        if request.level == "sentence" and len(request.segments) != 1:
            raise Rejected(f"sentence level takes exactly one segment (got {len(request.segments)})")
        if request.is_text:
            segments = [[s.hypothesis, list(s.references)] for s in request.segments]
        else:
            segments = [[join_tokens(s.hypothesis), [join_tokens(r) for r in s.references]] for s in request.segments]
        return ScoreAnswer(self._driver.call({"segments": segments, "max_order": len(request.weights),
                                              "smooth": method != "none", "tokenize": request.tokenize}))


class KerasHubImplementation(_VenvImplementation):
    name = "keras-hub"
    environment = "keras-hub"
    distribution = "keras-hub"
    profile = "sacrebleu"
    smoothing_methods = ("none", "lin-2004")
    capabilities = declare_capabilities(weights="uniform", max_order=12, smoothing=smoothing_methods,
                                        tokenizers=["13a"], **TEXT_LIMITS)


class MetraxImplementation(_VenvImplementation):
    name = "metrax"
    environment = "metrax"
    distribution = "google-metrax"
    profile = "papineni"
    capabilities = declare_capabilities(weights="uniform", max_order=12, **TEXT_LIMITS)
