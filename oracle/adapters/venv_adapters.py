"""Libraries that run in a virtual environment of their own (`oracle.adapters.environments.VENVS`),
declared here and scored by `drivers/venv_bleu.py` in that environment, which speaks protocol v1
itself (`oracle.adapters.driven`).

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

Both are prepared by `check` (or `bleu-oracle install NAME`) before their first use: about 15-20 s
from the package registry and 0.8-1.6 GB on disk each.
"""

from __future__ import annotations

import json

from . import environments
from .base import TEXT_LIMITS, declare_capabilities
from .driven import DriverImplementation, driver_script


class _VenvImplementation(DriverImplementation):
    @classmethod
    def settings(cls) -> dict:
        """The driver's SETTINGS argument (its smoothing table, for a library that takes one), or {} for none."""
        return {}

    @classmethod
    def command(cls) -> list[str]:
        argv = [str(environments.venv_python(cls.environment)), driver_script("venv_bleu.py"), cls.environment,
                cls.handshake_json()]
        settings = cls.settings()
        return [*argv, json.dumps(settings, separators=(",", ":"))] if settings else argv


class KerasHubImplementation(_VenvImplementation):
    name = environment = "keras-hub"
    version = environments.VENVS["keras-hub"].pinned("keras-hub")
    profile = "sacrebleu"
    # a Keras metric: `update_state` per batch and `reset_state`; no merge (Keras metrics have none)
    capabilities = declare_capabilities(weights="uniform", max_order=12, smoothing=["none", "lin-2004"],
                                        tokenizers=["13a"], stateful=["accumulate", "reset"], **TEXT_LIMITS)


class MetraxImplementation(_VenvImplementation):
    name = environment = "metrax"
    version = environments.VENVS["metrax"].pinned("google-metrax")
    profile = "papineni"
    # a clu-style value: batches accumulate by `merge`, shards merge by `merge`; no reset (a used state is a value)
    capabilities = declare_capabilities(weights="uniform", max_order=12, stateful=["accumulate", "merge"],
                                        **TEXT_LIMITS)
