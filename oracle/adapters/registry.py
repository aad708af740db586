"""Every built-in implementation, declared once: the one place a name is registered.

One `Registered` entry per implementation says all that the verbs need to know of it: its `--impl` name, its
kind (how it runs), its adapter or driver declaration ("module:Class", imported only when it is asked for), the
pip extra that installs its library, how it is prepared outside this environment (its pinned `VenvSpec`, npm
tarball, sdist or script), the environment it runs in when it shares another's, whether its driver loads the
library from the start, and the name its curated discrepancies are filed under. `resolve(name)` is the one
lookup: `check`/`fuzz --impl`, `serve --impl`/`--list`, `install`, `report --impl` and `history` all go through
it, and an unknown name is one error (`UnknownImplementation`: exit 2, one line, the known names listed).

A venv library's entries are not written here: its module of `drivers/libraries/` declares them (`ENVIRONMENT`,
`IMPLEMENTATIONS`, plain data, since the module runs where bleu-oracle is not installed), with its call, and this
module discovers them (`_venv_entries`: every module there is imported, which is safe, their libraries being
imported by `scorer()` only); `oracle.adapters.venv_adapters` makes each one's declaration class from that data.

What reads these entries and is not here: `oracle.adapters.environments` builds and verifies what an entry's
preparation pins (its NPM_PACKAGES, VENVS, SDISTS and SCRIPTS are derived from this file); a driven library's
call belongs to its driver (a venv library's is `scorer()` of the module `drivers/libraries/<driver_library>.py`,
found by that name; an npm package's a function of `drivers/npm_bleu.js`), since a driver runs without bleu-oracle;
`bleu-oracle history`'s release specs (`oracle.adapters.history.LIBRARIES`, keyed by these names) are built from
the adapters' capabilities, which import this module's readers. docs/extending.md says what to write where,
and the test that goes with it.
"""

from __future__ import annotations

import importlib
import pkgutil
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any, TypeVar

from oracle.formulas.errors import BleuValueError

from .drivers import libraries
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
    #: a venv library's declaration as its module of drivers/libraries/ states it (`libraries.implementation`: profile,
    #: capabilities, smoothing table), from which `oracle.adapters.venv_adapters` makes its class; None for the others
    declaration: dict[str, Any] | None = field(default=None, compare=False, repr=False)

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


#: The module of the venv libraries' declaration classes, which it makes from their entries (`declaration`).
VENV_DECLARATIONS = "oracle.adapters.venv_adapters"


def declaration_class_name(name: str) -> str:
    """The class name of venv implementation `name`'s declaration: `keras-hub` is KerasHubImplementation."""
    return "".join(part[:1].upper() + part[1:] for part in name.split("-")) + "Implementation"


def _library_entries(library: str, environment: dict[str, Any], declared: list[dict[str, Any]]) -> list[Registered]:
    """The entries one module of drivers/libraries/ declares (`library`: the module's name, `-` for `_`): the
    implementation named after it owns its environment, any other runs in that one."""
    names = [implementation["name"] for implementation in declared]
    if library not in names:
        raise BleuValueError(f"drivers/libraries/{library.replace('-', '_')}.py declares {names}: one of them must be "
                             f"named {library!r}, after the module (it owns the environment, the others share it)")
    spec = VenvSpec(environment["directory"] or library, tuple(tuple(step) for step in environment["steps"]),
                    environment["check"], environment["distribution"], seed=environment["seed"])
    return [Registered(name, "venv", f"{VENV_DECLARATIONS}:{declaration_class_name(name)}",
                       prepared=spec if name == library else None, shares="" if name == library else library,
                       preload=implementation["preload"], documented_as=implementation["documented_as"],
                       declaration=implementation)
            for name, implementation in zip(names, declared, strict=True)]


def _venv_entries() -> list[Registered]:
    """Every venv library's entries, as its module of drivers/libraries/ declares them (`ENVIRONMENT`,
    `IMPLEMENTATIONS`), in the modules' alphabetical order; a module declaring none is a library only `history`
    drives. Importing them is safe: a library module imports the standard library at load, its library in
    `scorer()` only."""
    entries = []
    for module_name in sorted(info.name for info in pkgutil.iter_modules(libraries.__path__)):
        if module_name.startswith("_"):  # what several modules share, no library
            continue
        module = importlib.import_module(f"{libraries.__name__}.{module_name}")
        declared = getattr(module, "IMPLEMENTATIONS", ())
        if declared:
            entries += _library_entries(module_name.replace("_", "-"), module.ENVIRONMENT, list(declared))
    return entries


#: Every built-in implementation, in the order `serve --list` prints them and `report` runs them: those declared
#: here, then the venv libraries their modules declare.
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
    *_venv_entries(),
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
