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

- **compare-mt** 0.2.10 (`compare-mt`: `BleuScorer`, corpus; `compare-mt-sentence`: `SentBleuScorer`,
  nltk's `sentence_bleu` with method2): token lists as its corpora are, one reference a segment, its
  `case_insensitive` for `lowercase`. BleuScorer's docstring says only "A scorer that calculates BLEU score":
  profile `papineni`; SentBleuScorer's "sentence-level smoothed BLEU score" is nltk's: profile `nltk`,
  smoothing chen-cherry-2 only, BLEU-4 only (nltk's default weights).
- **mmeval** 0.2.1, `mmeval.BLEU` (its docstring cites Papineni et al. and says it is modified from
  torchmetrics): corpus BLEU, weights as given (`ngram_weights`), `smooth` adding 1 to the matches and
  totals of orders n > 1 (chen-cherry-2 on the corpus), through `add`/`compute`/`reset`; tokens joined by
  spaces with `tokenizer_fn="en"` (str.split): profile `papineni`.

All are prepared by `check` (or `bleu-oracle install NAME`) before their first use: about 15-20 s
from the package registry and 0.8-1.6 GB on disk each (compare-mt and mmeval: about a minute, 0.2-0.3 GB).
"""

from __future__ import annotations

from . import environments
from .base import TEXT_LIMITS, declare_capabilities
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


class CompareMtImplementation(_VenvImplementation):
    name = environment = "compare-mt"
    version = environments.VENVS["compare-mt"].pinned("compare-mt")
    profile = "papineni"
    # BleuScorer: any weights (one order per weight), no smoothing; score_sentence is not implemented
    capabilities = declare_capabilities(levels=["corpus"], max_order=12, lowercase=True, max_references=1)


class CompareMtSentenceImplementation(_VenvImplementation):
    name = "compare-mt-sentence"
    environment = "compare-mt"
    version = environments.VENVS["compare-mt"].pinned("compare-mt")
    profile = "nltk"
    # SentBleuScorer: nltk's sentence_bleu with its default weights (0.25 x 4) and method2, nothing else
    capabilities = declare_capabilities(levels=["sentence"], weights="uniform", max_order=4, orders=[4],
                                        smoothing=["chen-cherry-2"], lowercase=True, max_references=1)


class MmevalImplementation(_VenvImplementation):
    name = environment = "mmeval"
    version = environments.VENVS["mmeval"].pinned("mmeval")
    profile = "papineni"
    # a BaseMetric: `add` per batch, `compute`, `reset`; its merge is a distributed all-gather, not an API here
    capabilities = declare_capabilities(levels=["corpus"], max_order=12, smoothing=["none", "chen-cherry-2"],
                                        stateful=["accumulate", "reset"], **TEXT_LIMITS)
