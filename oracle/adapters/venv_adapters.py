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

- **sacrebleu-mojo** 0.2.4, `sacrebleu_mojo.corpus_bleu(hypotheses, streams, smooth_method,
  smooth_value, lowercase=, tokenize=)`: "a drop-in faster replacement for sacrebleu's corpus BLEU",
  its README says, "`.score` matches the published sacrebleu package": profile `sacrebleu`. Corpus
  BLEU-4 only (its kernel counts four orders), smoothing none, floor or exp, tokenizer 13a (or none),
  every reference stream complete (it reads no `None`), and sacrebleu's statistics (counts, totals,
  sys_len, ref_len). Its package says Requires-Python >=3.12; its wheel runs on this machine's 3.11
  and is installed with pip's --ignore-requires-python (environments.VENVS). `sacrebleu-mojo-fallback`
  is the same package with its native kernel disabled: its pure-Python fallback.

keras-hub and metrax are prepared by `check` (or `bleu-oracle install NAME`) before their first use: about
15-20 s from the package registry and 0.8-1.6 GB on disk each; sacrebleu-mojo in a few seconds, ~100 MB.
"""

from __future__ import annotations

import json

from . import environments
from .base import TEXT_LIMITS, SmoothingRow, SmoothingTable, declare_capabilities
from .driven import DriverImplementation, driver_script


class _VenvImplementation(DriverImplementation):
    @classmethod
    def command(cls) -> list[str]:
        return [str(environments.venv_python(cls.environment)), driver_script("venv_bleu.py"), cls.environment,
                cls.handshake_json()]


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


#: sacrebleu-mojo's smooth_method values (sacrebleu's, less add-k, which it refuses)
MOJO_SMOOTHING = SmoothingTable("sacrebleu-mojo smooths with none, floor or exp only", (
    SmoothingRow("none", "none"), SmoothingRow("floor", "floor", passes={"value": "smooth_value"}),
    SmoothingRow("exp", "exp")))


class SacrebleuMojoImplementation(_VenvImplementation):
    name = environment = "sacrebleu-mojo"
    version = environments.VENVS["sacrebleu-mojo"].pinned("sacrebleu-mojo")
    profile = "sacrebleu"
    capabilities = declare_capabilities(levels=["corpus"], weights="uniform", orders=[4],
                                        smoothing=MOJO_SMOOTHING.declared, statistics=True, lowercase=True,
                                        tokenizers=["13a"], same_reference_count=True, **TEXT_LIMITS)

    #: its native kernel (False: the pure-Python fallback, SACREBLEU_MOJO_DISABLE_NATIVE=1)
    native = True

    @classmethod
    def command(cls) -> list[str]:
        """The driver's argv and its SETTINGS: the smoothing table, the oracle's method -> [smooth_method,
        {parameter: argument}], so that the mapping is stated here only, and which backend runs."""
        table = {row.method: [row.setting, dict(row.passes)] for row in MOJO_SMOOTHING.rows}
        return [*super().command(), json.dumps({"smoothing": table, "native": cls.native}, separators=(",", ":"))]


class SacrebleuMojoFallbackImplementation(SacrebleuMojoImplementation):
    """The same package's "vendored pure-Python fallback for platforms without a native build" (its README), forced
    with SACREBLEU_MOJO_DISABLE_NATIVE=1: a second implementation of the counting, claimed to give the same scores.
    It runs in sacrebleu-mojo's environment (`bleu-oracle install sacrebleu-mojo` prepares it)."""

    name = "sacrebleu-mojo-fallback"
    native = False
