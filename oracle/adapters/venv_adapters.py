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
from typing import ClassVar

from . import environments
from .base import TEXT_LIMITS, SmoothingTable, declare_capabilities, driver_settings
from .driven import DriverImplementation, driver_script
from .sacrebleu_adapter import SMOOTHING as SACREBLEU_SMOOTHING


class _VenvImplementation(DriverImplementation):
    #: the smoothing table the driver maps a request's smoothing with (passed on as SETTINGS), if it needs one
    settings: ClassVar[SmoothingTable | None] = None

    @classmethod
    def command(cls) -> list[str]:
        argv = [str(environments.venv_python(cls.environment)), driver_script("venv_bleu.py"), cls.environment,
                cls.handshake_json()]
        if cls.settings is not None:
            argv.append(json.dumps(driver_settings(cls.settings), separators=(",", ":")))
        return argv


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


class TfmaImplementation(_VenvImplementation):
    name = environment = "tfma"
    version = environments.VENVS["tfma"].pinned("tensorflow-model-analysis")
    profile = "sacrebleu"
    # a Beam CombineFn: `add_input` per batch, `merge_accumulators` of shards; no reset (Beam makes a new
    # accumulator); BLEU-4 only (`Bleu` passes no max_ngram_order to sacrebleu's BLEU)
    capabilities = declare_capabilities(levels=("corpus",), weights="uniform", orders=[4],
                                        smoothing=SACREBLEU_SMOOTHING.declared, statistics=True, lowercase=True,
                                        tokenizers=["none", "13a", "intl", "char"],
                                        conventions={"empty_order": ["zero", "skip"]},
                                        stateful=["accumulate", "merge"], **TEXT_LIMITS)
    settings = SACREBLEU_SMOOTHING


class Tensor2tensorImplementation(_VenvImplementation):
    name = environment = "tensor2tensor"
    version = environments.VENVS["tensor2tensor"].pinned("tensor2tensor")
    profile = "mteval"
    # compute_bleu: one reference a segment, exp smoothing always on, any max_order; text through
    # bleu_tokenize (mteval-v14's international tokenization, its docstring says) as bleu_wrapper(...,
    # case_sensitive=True) does: compute_bleu itself has no case folding, so none is declared
    capabilities = declare_capabilities(weights="uniform", max_order=12, smoothing=["exp"], tokenizers=["intl"],
                                        max_references=1, **TEXT_LIMITS)


class TfModelsOfficialImplementation(_VenvImplementation):
    name = environment = "tf-models-official"
    version = environments.VENVS["tf-models-official"].pinned("tf-models-official")
    profile = "mteval"
    capabilities = Tensor2tensorImplementation.capabilities
