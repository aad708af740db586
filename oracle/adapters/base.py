"""The interface every built-in implementation (adapter) provides.

An adapter translates one protocol-v1 score request into a library call and the
library's answer back (scale 0-1, statistics if the library exposes them),
declares honest capabilities, and does nothing else. `oracle.server` turns an
adapter into a protocol server; tests may call adapters in process.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ..errors import BleuOracleError


class AdapterUnavailable(BleuOracleError, ImportError):
    """The library behind an adapter is not installed (the message says how to install it)."""


class Rejected(Exception):
    """The implementation refuses this input as invalid -> {"seq", "rejected": message}."""


class Unsupported(Exception):
    """The implementation cannot compute this request -> {"seq", "unsupported": message}."""


@dataclass(frozen=True)
class Segment:
    hypothesis: tuple  # of str tokens
    references: tuple  # of tuples of str tokens


@dataclass(frozen=True)
class ScoreRequest:
    """A protocol-v1 `score` command. The maximum order is len(weights)."""

    seq: int
    level: str  # "corpus" | "sentence" (sentence: exactly one segment)
    segments: tuple  # of Segment
    weights: tuple  # of float
    smoothing: dict = field(default_factory=lambda: {"method": "none"})  # {"method": name, params...}
    lowercase: bool = False

    @property
    def max_order(self):
        return len(self.weights)


@dataclass(frozen=True)
class ScoreAnswer:
    """What an adapter returns: score on the 0-1 scale (float, NaN allowed) and optional statistics
    {"hyp_len", "ref_len", "matches", "totals", "bp"}."""

    score: float
    statistics: dict | None = None


class Implementation:
    """Subclass and set the class attributes; implement `score`."""

    name: str = ""
    version: str = ""
    language: str = "python"
    profile: str = "papineni"
    #: protocol v1 capabilities: {"levels": [...], "weights": "any"|"uniform", "max_order": int,
    #: "smoothing": [method names], "statistics": bool, "lowercase": bool}
    capabilities: dict = {}

    def handshake(self):
        return {
            "protocol": 1,
            "implementation": {"name": self.name, "version": self.version, "language": self.language},
            "profile": self.profile,
            "capabilities": dict(self.capabilities),
        }

    def score(self, request: ScoreRequest) -> ScoreAnswer:  # pragma: no cover - interface
        raise NotImplementedError


#: name -> "module:Class" for `serve --impl NAME`; imported lazily so a missing library
#: only matters when its adapter is asked for.
REGISTRY = {
    "oracle": "oracle.adapters.oracle_adapter:OracleImplementation",
    "nltk": "oracle.adapters.nltk_adapter:NltkImplementation",
    "sacrebleu": "oracle.adapters.sacrebleu_adapter:SacrebleuImplementation",
    "torchmetrics": "oracle.adapters.torchmetrics_adapter:TorchmetricsImplementation",
    "torcheval": "oracle.adapters.torcheval_adapter:TorchevalImplementation",
    "ignite": "oracle.adapters.ignite_adapter:IgniteImplementation",
    "ignite-micro": "oracle.adapters.ignite_adapter:IgniteMicroImplementation",
    "pycocoevalcap": "oracle.adapters.pycocoevalcap_adapter:PycocoevalcapImplementation",
    "bleuscore": "oracle.adapters.bleuscore_adapter:BleuscoreImplementation",
    "fast-bleu": "oracle.adapters.fastbleu_adapter:FastbleuImplementation",
    "multi-bleu": "oracle.adapters.perl_adapter:MultiBleuImplementation",
    "mteval": "oracle.adapters.perl_adapter:MtevalImplementation",
}
