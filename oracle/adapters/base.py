"""The interface every built-in implementation (adapter) provides.

An adapter translates one protocol-v1 score request into a library call and the
library's answer back (scale 0-1, statistics if the library exposes them),
declares honest capabilities, and does nothing else. `oracle.adapters.server` turns an
adapter into a protocol server; tests may call adapters in process. A library that runs
outside this Python (node, a venv of its own) has no adapter here but a declaration
(`oracle.adapters.driven`) and a driver that speaks protocol v1 itself (`drivers/`). Every built-in one is
registered, once, in `oracle.adapters.registry`.
"""

from __future__ import annotations

import contextlib
import importlib
import importlib.metadata
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from oracle.formulas.errors import BleuOracleError, BleuTypeError, BleuValueError
from oracle.models.protocol import ScoreRequest, Segment, StatefulPlan
from oracle.models.protocol import is_uniform as is_uniform  # re-exported: the adapters' helpers ask it here
from oracle.signals import Interrupted

from .drivers import libraries as _libraries
from .tracebacks import print_traceback


class AdapterUnavailable(BleuOracleError, ImportError):
    """The library behind an adapter is not installed (the message says how to install it)."""


class Rejected(BleuOracleError):
    """The implementation refuses this input as invalid -> {"seq", "rejected": message}."""


class Unsupported(BleuOracleError):
    """The implementation cannot compute this request -> {"seq", "unsupported": message}."""


@dataclass(frozen=True)
class ScoreAnswer:
    """What an adapter returns: score on the 0-1 scale (float, NaN allowed) and optional statistics
    {"hyp_len", "ref_len", "matches", "totals", "bp"}."""

    score: float
    statistics: dict | None = None


class Declared:
    """What an implementation says of itself in its handshake: who it is, the profile it follows, what it computes."""

    name: str = ""
    version: str = ""
    language: str = "python"
    profile: str = "papineni"
    #: protocol v1 capabilities: {"levels": [...], "weights": "any"|"uniform", "max_order": int,
    #: "smoothing": [method names], "statistics": bool, "lowercase": bool}
    capabilities: dict = {}

    def handshake(self) -> dict[str, Any]:
        return handshake_object(self.name, self.version, self.language, self.profile, self.capabilities)


def handshake_object(name: str, version: str, language: str, profile: str, capabilities: dict) -> dict[str, Any]:
    """A protocol-v1 handshake, as the JSON object the runner reads."""
    return {"protocol": 1, "implementation": {"name": name, "version": version, "language": language},
            "profile": profile, "capabilities": dict(capabilities)}


class Implementation(Declared):
    """An adapter, scored in this Python: subclass, set the class attributes, implement `score`."""

    def score(self, request: ScoreRequest) -> ScoreAnswer:  # pragma: no cover - interface
        raise NotImplementedError


class StatefulImplementation(Implementation):
    """An adapter whose library is a metric object driven through its own life cycle: a request's `stateful`
    plan (PROTOCOL.md, "Stateful implementations") runs on the library's real `update`, `merge`, `reset` and
    `compute`; a request without one is one fresh state taking the whole corpus in one update. A subclass
    declares `capabilities["stateful"]`, checks a request (`prepare`, raising Unsupported), and implements the
    five steps; `library` and `refusals` name the exceptions the library raises to refuse an input."""

    library: str = ""
    refusals: tuple[type[BaseException], ...] = (ValueError,)

    def prepare(self, request: ScoreRequest) -> None:
        """Raise Unsupported (or Rejected) for a request the library cannot take; nothing otherwise."""

    def new_state(self, request: ScoreRequest) -> Any:  # pragma: no cover - interface
        raise NotImplementedError

    def update(self, state: Any, request: ScoreRequest, segments: Sequence[Segment]) -> None:  # pragma: no cover
        raise NotImplementedError

    def merge(self, state: Any, others: list[Any]) -> None:  # pragma: no cover - interface
        raise Unsupported(f"{self.name} has no merge")

    def reset(self, state: Any) -> None:  # pragma: no cover - interface
        raise NotImplementedError

    def answer(self, state: Any) -> ScoreAnswer:  # pragma: no cover - interface
        raise NotImplementedError

    def score(self, request: ScoreRequest) -> ScoreAnswer:
        self.prepare(request)
        require_one_segment(request)
        plan = request.stateful or StatefulPlan(shards=((len(request.segments),),))
        with rejecting(self.library or self.name, *self.refusals):
            return self.answer(self._accumulated(request, plan))

    def _accumulated(self, request: ScoreRequest, plan: StatefulPlan) -> Any:
        """The state the plan leaves: previous corpora scored and reset, batches updated, shards merged."""
        states = []
        for batches in plan.shard_segments(request.segments):
            state = self.new_state(request)
            for corpus in plan.previous:
                for segment in corpus:
                    self.update(state, request, (segment,))
                with contextlib.suppress(*self.refusals):  # its value, or its refusal, is not what is judged
                    self.answer(state)
                self.reset(state)
            for batch in batches:
                self.update(state, request, batch)
            states.append(state)
        if plan.merge is None:
            return states[0]
        merged = states[plan.merge[0]]
        self.merge(merged, [states[index] for index in plan.merge[1:]])
        return merged


def call(implementation, request, *, log=None):
    """One request through an implementation, as protocol v1 answers it: ("score", the answer), or
    ("rejected" | "unsupported" | "error", a message). `Rejected`, and the oracle's own validation errors,
    are rejections; any other exception is an error (its traceback to `log`, when given), a BaseException
    too: a Rust panic (pyo3's PanicException) is one. KeyboardInterrupt, SystemExit and SIGTERM's
    `Interrupted` propagate: a run stopped while an adapter scores in process stops, its request is no error."""
    unswitched = _unswitched(implementation, request) or _unplanned(implementation, request)
    if unswitched is not None:
        return "unsupported", unswitched
    try:
        return "score", implementation.score(request)
    except Rejected as exc:
        return "rejected", _message(exc)
    except Unsupported as exc:
        return "unsupported", _message(exc)
    except (BleuValueError, BleuTypeError) as exc:  # the input failed the implementation's validation
        return "rejected", _message(exc)
    except (KeyboardInterrupt, SystemExit, Interrupted):
        raise
    except BaseException as exc:  # noqa: BLE001 - Exception, and a native panic (a BaseException)
        if log is not None:
            print_traceback(log)
        return "error", f"{type(exc).__name__}: {exc}"


def _unswitched(implementation: Declared, request: ScoreRequest) -> str | None:
    """Why `implementation` cannot honour a convention `request` asks for (its capabilities list the rules it
    switches), or None: an adapter that ignored one would answer under its own profile's rule, silently wrong."""
    switches = implementation.capabilities.get("conventions") or {}
    for name, rule in request.chosen_conventions.items():
        if rule not in switches.get(name, ()):
            return f"{implementation.name or 'the implementation'} cannot switch {name} to {rule}"
    return None


def _unplanned(implementation: Declared, request: ScoreRequest) -> str | None:
    """Why `implementation` cannot run the stateful plan `request` carries, or None: an adapter that ignored a
    plan would answer the one-shot score, and a state it never drove would pass unchecked."""
    if request.stateful is None:
        return None
    declared = implementation.capabilities.get("stateful") or ()
    missing = [name for name in request.stateful.needs() if name not in declared]
    if not declared or missing:
        who = implementation.name or "the implementation"
        return f"{who} cannot run a stateful plan" + (f" that needs {', '.join(missing)}" if missing else "")
    return None


def _message(exc):
    return str(exc) or type(exc).__name__


@contextlib.contextmanager
def rejecting(library, *validation_errors):
    """Turn the exceptions `library` raises to refuse an input (its validation: ValueError, an assert, ...)
    into Rejected; any other exception is a crash and propagates (the server answers `error`)."""
    try:
        yield
    except validation_errors as exc:
        raise Rejected(f"{library} raised {type(exc).__name__}: {exc}") from exc


def require_library(extra, *names, library=None, note=""):
    """Import the library behind an adapter: each of `names` is a module ("nltk.translate") or a module's
    attribute ("fast_bleu:BLEU"), or "version:DIST" for an installed distribution's version. When one is
    missing (or a compiled module fails to load: OSError), AdapterUnavailable says how to install it:
    "LIBRARY is not installed: pip install 'bleu-oracle[EXTRA]'" (+ `note`)."""
    found = []
    try:
        for name in names:
            module, _, attribute = name.partition(":")
            if module == "version":
                found.append(importlib.metadata.version(attribute))
                continue
            imported = importlib.import_module(module)
            found.append(getattr(imported, attribute) if attribute else imported)
    except (ImportError, OSError, importlib.metadata.PackageNotFoundError) as exc:
        hint = f"{library or extra} is not installed: pip install 'bleu-oracle[{extra}]'" + (
            f" ({note})" if note else ""
        )
        raise AdapterUnavailable(hint) from exc
    return found[0] if len(found) == 1 else tuple(found)


def declare_capabilities(
    *,
    levels=("corpus", "sentence"),
    weights="any",
    max_order=4,
    smoothing=("none",),
    statistics=False,
    lowercase=False,
    **limits,
):
    """A protocol-v1 capabilities object: the common case by default, each adapter stating what differs
    (and any optional limits: orders, same_reference_count, forbidden_token_characters, empty_tokens)."""
    return {"levels": list(levels), "weights": weights, "max_order": max_order, "smoothing": list(smoothing),
            "statistics": statistics, "lowercase": lowercase, **limits}


class SmoothingSpec(Protocol):
    """A request's smoothing (one of `oracle.models.protocol.SMOOTHING_SPECS`): its method and parameters."""

    @property
    def method(self) -> str: ...

    @property
    def parameters(self) -> dict[str, Any]: ...


@dataclass(frozen=True)
class SmoothingRow:
    """One way a library smooths: the oracle's `method`, the library's `setting` for it, the parameters the
    library takes from the request (`passes`: the oracle's name -> the library's argument) and those it
    fixes (`fixed`: the oracle's name -> the only value the library has; another is not this row)."""

    method: str
    setting: Any
    passes: Mapping[str, str] = field(default_factory=dict)
    fixed: Mapping[str, float] = field(default_factory=dict)

    def matches(self, smoothing: SmoothingSpec) -> bool:
        if smoothing.method != self.method:
            return False
        if not self.fixed:  # most rows: the request's parameters are not read (each request reads a table)
            return True
        parameters = smoothing.parameters
        return all(float(parameters.get(name, value)) == value for name, value in self.fixed.items())


@dataclass(frozen=True)
class SmoothingTable:
    """A library's smoothing as a table: a request's smoothing is the first row it matches, or
    Unsupported ("`offers`; got ..."). The methods it declares are those of the rows that fix nothing."""

    offers: str
    rows: tuple[SmoothingRow, ...]

    @classmethod
    def from_data(cls, data: Mapping[str, Any]) -> SmoothingTable:
        """A table stated as plain data by a venv library's module (`drivers/libraries` `smoothing_table`): its
        `offers` and rows of [method, setting, passes, fixed]."""
        return cls(data["offers"], tuple(SmoothingRow(method, setting, dict(passes), dict(fixed))
                                         for method, setting, passes, fixed in data["rows"]))

    @property
    def declared(self) -> list[str]:
        """The methods for the capabilities: every one the library computes whatever its parameters."""
        return list(dict.fromkeys(row.method for row in self.rows if not row.fixed))

    def row(self, smoothing: SmoothingSpec) -> SmoothingRow:
        found = next((row for row in self.rows if row.matches(smoothing)), None)
        if found is None:
            raise Unsupported(f"{self.offers}; got {smoothing!r}")
        return found

    def setting(self, smoothing: SmoothingSpec) -> Any:
        """The library's setting for `smoothing` (Unsupported when it has none)."""
        return self.row(smoothing).setting

    def arguments(self, smoothing: SmoothingSpec) -> tuple[Any, dict[str, float]]:
        """(the library's setting, {its argument: the request's value}) for `smoothing`."""
        row = self.row(smoothing)
        parameters = smoothing.parameters
        return row.setting, {argument: float(parameters[name]) for name, argument in row.passes.items()}


def driver_settings(table: SmoothingTable) -> dict[str, Any]:
    """A smoothing table as a driver (`drivers/venv_bleu.py`) reads it in SETTINGS: the oracle's method ->
    [setting, {parameter: argument}] (a row that fixes a parameter is left out: the driver has no such check)."""
    return {"smoothing": {row.method: [row.setting, dict(row.passes)] for row in table.rows if not row.fixed}}


def without_smoothing(library: str) -> SmoothingTable:
    """The table of a library that does not smooth: "none" only ("`library` has no smoothing; got ...")."""
    return SmoothingTable(f"{library} has no smoothing", (SmoothingRow("none", None),))


#: Every character `str.split()` splits on, and the limits of a library that takes text and splits it with
#: `str.split()` (its adapter joins the tokens with spaces, `join_tokens`): stated once, in the venv driver's
#: library package, which the libraries' own modules read without bleu-oracle.
SPLIT_CHARACTERS = _libraries.SPLIT_CHARACTERS
TEXT_LIMITS = _libraries.TEXT_LIMITS


def join_tokens(tokens):
    """A segment's tokens as the one string text-based libraries take (their adapters declare
    TEXT_LIMITS, so no token holds a split character and none is empty)."""
    return " ".join(tokens)


def require_one_segment(request):
    """Sentence level takes exactly one segment: Rejected otherwise."""
    if request.level == "sentence" and len(request.segments) != 1:
        raise Rejected(f"sentence level takes exactly one segment (got {len(request.segments)})")


def require_uniform(weights, who):
    """N, for weights 1/N each; otherwise Unsupported, saying why: `who` ("x takes N only (weights 1/N each)")."""
    if not weights or not is_uniform(weights):
        raise Unsupported(f"{who}; got weights {list(weights)}")
    return len(weights)


def as_count(value):
    """A library's count as an int when it is whole; a fractional count stays a float (protocol
    validation then names it) instead of being truncated."""
    value = float(value)
    return int(value) if value.is_integer() else value
