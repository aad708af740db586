"""The declarations of the libraries that run in a virtual environment of their own, scored there by
`drivers/venv_bleu.py`, which speaks protocol v1 itself (`oracle.adapters.driven`), with the library's module of
`drivers/libraries/` (its call).

Each library's module declares its implementations as plain data (`ENVIRONMENT`, `IMPLEMENTATIONS`: its pins,
profile, capabilities and smoothing table, with the module's docstring saying what the library documents and does),
since it runs where bleu-oracle is not installed; the registry (`oracle.adapters.registry`) reads them into its
entries, and this module makes each entry's declaration class from them (`declaration`): one generic class,
`VenvImplementation`, with the entry's name, the version its environment pins, and what its module declares. The
classes are found as `oracle.adapters.venv_adapters:KerasHubImplementation` (`keras-hub`), each entry's `adapter`.

All are prepared by `check` (or `bleu-oracle install NAME`) before their first use: from a few seconds and ~100 MB
(sacrebleu-mojo) to about 15-60 s from the package registry and 0.2-1.6 GB on disk each.
"""

from __future__ import annotations

import json
from typing import Any

from . import environments, registry
from .base import SmoothingTable, declare_capabilities, driver_settings
from .driven import DriverImplementation, driver_script


class VenvImplementation(DriverImplementation):
    """A venv library's declaration: `declaration(NAME)` makes one per registry entry from its module's data."""

    #: what the driver is told of the library's smoothing (drivers/libraries `library_arguments`), if anything
    smoothing: SmoothingTable | None = None
    #: what else the library's scorer reads in SETTINGS (sacrebleu-mojo's `native`)
    switches: dict[str, Any] = {}

    @classmethod
    def settings(cls) -> dict:
        """What the driver is told of the library: its smoothing table, for a library that takes one, and its
        switches; {} for neither."""
        return {**({} if cls.smoothing is None else driver_settings(cls.smoothing)), **cls.switches}

    @classmethod
    def command(cls) -> list[str]:
        """The driver's argv: the environment's python, the driver, its library, the handshake and, when there
        are any, the SETTINGS (`settings`, and `preload` when the registry entry says the library loads at start)."""
        entry = cls.entry()
        argv = [str(environments.venv_python(entry.environment)), driver_script("venv_bleu.py"), entry.driver_library,
                cls.handshake_json()]
        settings = {**cls.settings(), **({"preload": True} if entry.preload else {})}
        return [*argv, json.dumps(settings, separators=(",", ":"))] if settings else argv


_DECLARED: dict[str, type[VenvImplementation]] = {}


def declaration(name: str) -> type[VenvImplementation]:
    """The declaration class of venv implementation `name`, made once from its registry entry: its module's
    profile, capabilities (`declare_capabilities` of what it states; `smoothing` defaulting to its table's declared
    methods), smoothing table and switches, and the version its environment pins of the distribution it verifies."""
    found = _DECLARED.get(name)
    if found is not None:
        return found
    entry = registry.resolve(name)
    declared = entry.declaration
    if entry.kind != "venv" or declared is None:
        raise registry.UnknownImplementation([name])
    table = None if declared["smoothing"] is None else SmoothingTable.from_data(declared["smoothing"])
    stated = dict(declared["capabilities"])
    if table is not None:
        stated.setdefault("smoothing", table.declared)
    pins = environments.VENVS[entry.environment]
    class_name = entry.adapter.partition(":")[2]
    found = type(class_name, (VenvImplementation,), {
        "__module__": __name__, "__qualname__": class_name,
        "__doc__": f"{name}: declared in oracle/adapters/drivers/libraries/{entry.driver_library.replace('-', '_')}.py",
        "name": name, "version": pins.pinned(pins.library), "profile": declared["profile"],
        "capabilities": declare_capabilities(**stated), "smoothing": table, "switches": dict(declared["settings"])})
    _DECLARED[name] = found
    return found


def __getattr__(attribute: str) -> type[VenvImplementation]:
    """`oracle.adapters.venv_adapters:KerasHubImplementation` (a registry entry's `adapter`) is `keras-hub`'s class."""
    for entry in registry.of_kind("venv"):
        if entry.adapter.partition(":")[2] == attribute:
            return declaration(entry.name)
    raise AttributeError(f"module {__name__!r} has no attribute {attribute!r}")
