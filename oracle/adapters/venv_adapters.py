"""Libraries that run in a virtual environment of their own (each pinned in its `oracle.adapters.registry`
entry), declared here and scored in that environment by `drivers/venv_bleu.py`, which speaks protocol v1
itself (`oracle.adapters.driven`), with the library's module of `drivers/libraries/` (its call).

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

- **opik-sentence**, **opik-corpus**: opik 2.2.122, `opik.evaluation.metrics.SentenceBLEU` and `CorpusBLEU`
  (`track=False`: no Opik server, tracking disabled), with nltk 3.10.4, which they wrap: `score(output,
  reference)` on strings. Their docstrings cite NLTK's BLEU and its `SmoothingFunction` methods, and say
  that weights "must sum to 1.0" (uniform weights declared: protocol v1 cannot say "summing to 1") and
  that an empty candidate or reference raises: profile `nltk`, those refusals `rejected`. What they
  do and do not document: they lowercase every string and truncate the weights to the hypothesis
  length (the longest hypothesis for the corpus), renormalised (discrepancies opik-always-lowercases,
  opik-truncated-weights, opik-corpus-truncated-weights). Tokens are joined by spaces (opik splits on
  whitespace); text requests with the `none` tokenizer pass the text as it is. The smoothing methods are
  NLTK's with `SmoothingFunction()`'s defaults: those without a parameter are declared.
- **azure-ai-evaluation** 1.18.10, `azure.ai.evaluation.BleuScoreEvaluator()(response=...,
  ground_truth=...)["bleu_score"]`: NLTK's `sentence_bleu`, BLEU-4, one reference, always smoothed by
  `SmoothingFunction().method4` under a source comment "NIST Smoothing": declared as the oracle's `exp`
  (NIST's geometric smoothing, NLTK's method3), what it says (discrepancy
  azure-ai-evaluation-method4-as-nist). It tokenizes both strings itself, with `nltk.word_tokenize` for
  ASCII text and NLTK's `NISTTokenizer.international_tokenize` otherwise; neither is one of the oracle's
  tokenizers, so it takes token requests only, joined by spaces, without ASCII punctuation (which
  word_tokenize would split off). Its NLTK data is written into its environment at install time from
  registry packages (drivers/seed_nltk_data.py), never downloaded.

- **compare-mt** 0.2.10 (`compare-mt`: `BleuScorer`, corpus; `compare-mt-sentence`: `SentBleuScorer`,
  nltk's `sentence_bleu` with method2): token lists as its corpora are, one reference a segment, its
  `case_insensitive` for `lowercase`. BleuScorer's docstring says only "A scorer that calculates BLEU score":
  profile `papineni`; SentBleuScorer's "sentence-level smoothed BLEU score" is nltk's: profile `nltk`,
  smoothing chen-cherry-2 only, BLEU-4 only (nltk's default weights).
- **mmeval** 0.2.1, `mmeval.BLEU` (its docstring cites Papineni et al. and says it is modified from
  torchmetrics): corpus BLEU, weights as given (`ngram_weights`), `smooth` adding 1 to the matches and
  totals of orders n > 1 (chen-cherry-2 on the corpus), through `add`/`compute`/`reset`; tokens joined by
  spaces with `tokenizer_fn="en"` (str.split): profile `papineni`.

All are prepared by `check` (or `bleu-oracle install NAME`) before their first use: about 15-60 s
from the package registry and 0.2-1.6 GB on disk each.
- **sacrebleu-mojo** 0.2.4, `sacrebleu_mojo.corpus_bleu(hypotheses, streams, smooth_method,
  smooth_value, lowercase=, tokenize=)`: "a drop-in faster replacement for sacrebleu's corpus BLEU",
  its README says, "`.score` matches the published sacrebleu package": profile `sacrebleu`. Corpus
  BLEU-4 only (its kernel counts four orders), smoothing none, floor or exp, tokenizer 13a (or none),
  every reference stream complete (it reads no `None`), and sacrebleu's statistics (counts, totals,
  sys_len, ref_len). Its package says Requires-Python >=3.12; its wheel runs on this machine's 3.11
  and is installed with pip's --ignore-requires-python (its registry entry). `sacrebleu-mojo-fallback`
  is the same package with its native kernel disabled: its pure-Python fallback.

keras-hub and metrax are prepared by `check` (or `bleu-oracle install NAME`) before their first use: about
15-20 s from the package registry and 0.8-1.6 GB on disk each; sacrebleu-mojo in a few seconds, ~100 MB.
"""

from __future__ import annotations

import json
import string

from . import environments
from .base import SPLIT_CHARACTERS, TEXT_LIMITS, SmoothingRow, SmoothingTable, declare_capabilities, driver_settings
from .driven import DriverImplementation, driver_script
from .sacrebleu_adapter import SMOOTHING as SACREBLEU_SMOOTHING


class _VenvImplementation(DriverImplementation):
    #: what the driver is told of the library's smoothing (drivers/libraries `library_arguments`), if anything
    smoothing: SmoothingTable | None = None

    @classmethod
    def settings(cls) -> dict:
        """What the driver is told of the library: its smoothing table, for a library that takes one, or {}."""
        return {} if cls.smoothing is None else driver_settings(cls.smoothing)

    @classmethod
    def command(cls) -> list[str]:
        """The driver's argv: the environment's python, the driver, its library, the handshake and, when there
        are any, the SETTINGS (`settings`, and `preload` when the registry entry says the library loads at start)."""
        entry = cls.entry()
        argv = [str(environments.venv_python(entry.environment)), driver_script("venv_bleu.py"), entry.driver_library,
                cls.handshake_json()]
        settings = {**cls.settings(), **({"preload": True} if entry.preload else {})}
        return [*argv, json.dumps(settings, separators=(",", ":"))] if settings else argv


class KerasHubImplementation(_VenvImplementation):
    name = "keras-hub"
    version = environments.VENVS["keras-hub"].pinned("keras-hub")
    profile = "sacrebleu"
    # a Keras metric: `update_state` per batch and `reset_state`; no merge (Keras metrics have none)
    capabilities = declare_capabilities(weights="uniform", max_order=12, smoothing=["none", "lin-2004"],
                                        tokenizers=["13a"], stateful=["accumulate", "reset"], **TEXT_LIMITS)


class MetraxImplementation(_VenvImplementation):
    name = "metrax"
    version = environments.VENVS["metrax"].pinned("google-metrax")
    profile = "papineni"
    # a clu-style value: batches accumulate by `merge`, shards merge by `merge`; no reset (a used state is a value)
    capabilities = declare_capabilities(weights="uniform", max_order=12, stateful=["accumulate", "merge"],
                                        **TEXT_LIMITS)


#: opik passes `smoothing_method` to `getattr(SmoothingFunction(), name)`: NLTK's methods with its default
#: parameters (epsilon 0.1, alpha 5, k 5), so those taking one are fixed to it (and not declared).
OPIK_SMOOTHING = SmoothingTable("opik smooths with NLTK's SmoothingFunction() methods, their parameters the defaults", (
    SmoothingRow("none", "method0"),
    SmoothingRow("floor", "method1", fixed={"value": 0.1}),
    SmoothingRow("exp", "method3"),
    SmoothingRow("chen-cherry-1", "method1", fixed={"epsilon": 0.1}),
    SmoothingRow("chen-cherry-2", "method2"),
    SmoothingRow("chen-cherry-3", "method3"),
    SmoothingRow("chen-cherry-4", "method4", fixed={"k": 5.0}),
    SmoothingRow("chen-cherry-5", "method5"),
    SmoothingRow("chen-cherry-6", "method6", fixed={"alpha": 5.0}),
    SmoothingRow("chen-cherry-7", "method7", fixed={"k": 5.0}),
))


def _opik_capabilities(level: str) -> dict:
    # it lowercases every string whatever is asked: a request to fold case is one it honours. Its weights must sum to
    # 1 (a documented ValueError otherwise); protocol v1 cannot say that: uniform weights only
    return declare_capabilities(levels=[level], weights="uniform", max_order=12, smoothing=OPIK_SMOOTHING.declared,
                                lowercase=True, tokenizers=["none"], **TEXT_LIMITS)


class OpikSentenceImplementation(_VenvImplementation):
    name = "opik-sentence"
    version = environments.VENVS["opik-sentence"].pinned("opik")
    profile = "nltk"
    smoothing = OPIK_SMOOTHING
    capabilities = _opik_capabilities("sentence")


class OpikCorpusImplementation(OpikSentenceImplementation):
    name = "opik-corpus"
    capabilities = _opik_capabilities("corpus")


class AzureAiEvaluationImplementation(_VenvImplementation):
    name = "azure-ai-evaluation"
    version = environments.VENVS["azure-ai-evaluation"].pinned("azure-ai-evaluation")
    profile = "nltk"
    # sentence BLEU-4 against one reference, smoothed by what it calls NIST smoothing (the oracle's exp); ASCII
    # punctuation is split off by word_tokenize, so no token holds any
    capabilities = declare_capabilities(levels=["sentence"], weights="uniform", max_order=4, orders=[4],
                                        smoothing=["exp"], max_references=1, empty_tokens=False,
                                        forbidden_token_characters=SPLIT_CHARACTERS + string.punctuation)


class CompareMtImplementation(_VenvImplementation):
    name = "compare-mt"
    version = environments.VENVS["compare-mt"].pinned("compare-mt")
    profile = "papineni"
    # BleuScorer: any weights (one order per weight), no smoothing; score_sentence is not implemented
    capabilities = declare_capabilities(levels=["corpus"], max_order=12, lowercase=True, max_references=1)


class CompareMtSentenceImplementation(_VenvImplementation):
    name = "compare-mt-sentence"
    version = environments.VENVS["compare-mt"].pinned("compare-mt")
    profile = "nltk"
    # SentBleuScorer: nltk's sentence_bleu with its default weights (0.25 x 4) and method2, nothing else
    capabilities = declare_capabilities(levels=["sentence"], weights="uniform", max_order=4, orders=[4],
                                        smoothing=["chen-cherry-2"], lowercase=True, max_references=1)


class MmevalImplementation(_VenvImplementation):
    name = "mmeval"
    version = environments.VENVS["mmeval"].pinned("mmeval")
    profile = "papineni"
    # a BaseMetric: `add` per batch, `compute`, `reset`; its merge is a distributed all-gather, not an API here
    capabilities = declare_capabilities(levels=["corpus"], max_order=12, smoothing=["none", "chen-cherry-2"],
                                        stateful=["accumulate", "reset"], **TEXT_LIMITS)


class TfmaImplementation(_VenvImplementation):
    name = "tfma"
    version = environments.VENVS["tfma"].pinned("tensorflow-model-analysis")
    profile = "sacrebleu"
    # a Beam CombineFn: `add_input` per batch, `merge_accumulators` of shards; no reset (Beam makes a new
    # accumulator); BLEU-4 only (`Bleu` passes no max_ngram_order to sacrebleu's BLEU)
    capabilities = declare_capabilities(levels=("corpus",), weights="uniform", orders=[4],
                                        smoothing=SACREBLEU_SMOOTHING.declared, statistics=True, lowercase=True,
                                        tokenizers=["none", "13a", "intl", "char"],
                                        conventions={"empty_order": ["zero", "skip"]},
                                        stateful=["accumulate", "merge"], **TEXT_LIMITS)
    smoothing = SACREBLEU_SMOOTHING


class Tensor2tensorImplementation(_VenvImplementation):
    name = "tensor2tensor"
    version = environments.VENVS["tensor2tensor"].pinned("tensor2tensor")
    profile = "mteval"
    # compute_bleu: one reference a segment, exp smoothing always on, any max_order; text through
    # bleu_tokenize (mteval-v14's international tokenization, its docstring says) as bleu_wrapper(...,
    # case_sensitive=True) does: compute_bleu itself has no case folding, so none is declared
    capabilities = declare_capabilities(weights="uniform", max_order=12, smoothing=["exp"], tokenizers=["intl"],
                                        max_references=1, **TEXT_LIMITS)


class TfModelsOfficialImplementation(_VenvImplementation):
    name = "tf-models-official"
    version = environments.VENVS["tf-models-official"].pinned("tf-models-official")
    profile = "mteval"
    capabilities = Tensor2tensorImplementation.capabilities
#: sacrebleu-mojo's smooth_method values (sacrebleu's, less add-k, which it refuses)
MOJO_SMOOTHING = SmoothingTable("sacrebleu-mojo smooths with none, floor or exp only", (
    SmoothingRow("none", "none"), SmoothingRow("floor", "floor", passes={"value": "smooth_value"}),
    SmoothingRow("exp", "exp")))


class SacrebleuMojoImplementation(_VenvImplementation):
    name = "sacrebleu-mojo"
    version = environments.VENVS["sacrebleu-mojo"].pinned("sacrebleu-mojo")
    profile = "sacrebleu"
    capabilities = declare_capabilities(levels=["corpus"], weights="uniform", orders=[4],
                                        smoothing=MOJO_SMOOTHING.declared, statistics=True, lowercase=True,
                                        tokenizers=["13a"], same_reference_count=True, **TEXT_LIMITS)

    #: its native kernel (False: the pure-Python fallback, SACREBLEU_MOJO_DISABLE_NATIVE=1)
    native = True

    @classmethod
    def settings(cls) -> dict:
        """The smoothing table, the oracle's method -> [smooth_method, {parameter: argument}], so that the mapping
        is stated here only, and which backend runs."""
        table = {row.method: [row.setting, dict(row.passes)] for row in MOJO_SMOOTHING.rows}
        return {"smoothing": table, "native": cls.native}


class SacrebleuMojoFallbackImplementation(SacrebleuMojoImplementation):
    """The same package's "vendored pure-Python fallback for platforms without a native build" (its README), forced
    with SACREBLEU_MOJO_DISABLE_NATIVE=1: a second implementation of the counting, claimed to give the same scores.
    It runs in sacrebleu-mojo's environment (its registry entry shares it: `bleu-oracle install sacrebleu-mojo`
    prepares it)."""

    name = "sacrebleu-mojo-fallback"
    native = False
