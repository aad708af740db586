"""Libraries that run outside this Python (node, a venv of its own), each scored by a driver that speaks
protocol v1 itself (`drivers/npm_bleu.js`, `drivers/venv_bleu.py`).

A `DriverImplementation` declares what an adapter declares (name, version, language, profile,
capabilities) and says how to start its driver (`command`): the runner drives that process directly,
one process and one protocol (`check --impl promptfoo` runs `node npm_bleu.js promptfoo ...`; `serve
--impl promptfoo` becomes it; the report drives it as a column). The driver receives the declaration as
its handshake, and decides from its capabilities what it refuses, so the library's limits are stated in
one place. Neither a driver nor its runtime needs bleu-oracle: a venv holds the library alone.

Constructing one checks that it is ready (prepared, its runtime present, its installed code verified:
`environments.require`); `command` checks nothing and builds nothing, so that a command line is never a
way to install 1.6 GB (preparing is `check`'s explicit step, `environments.ready`).
"""

from __future__ import annotations

import importlib.resources
import json
import shutil

from . import environments, registry
from .base import Declared, handshake_object


class DriverImplementation(Declared):
    """A library behind a protocol-v1 driver of its own: set the declaration's class attributes (its `name` is
    its registry name: its entry says where it is prepared and what its driver calls), and say how its driver
    starts (`command`)."""

    def __init__(self) -> None:
        environments.require(self.entry().environment)  # AdapterUnavailable, saying why it cannot run

    @classmethod
    def entry(cls) -> registry.Registered:
        """Its registry entry (by its name)."""
        return registry.resolve(cls.name)

    @classmethod
    def handshake_json(cls) -> str:
        """The handshake the driver answers `start` with: the class's declaration, as one JSON argument."""
        return json.dumps(handshake_object(cls.name, cls.version, cls.language, cls.profile, cls.capabilities),
                          ensure_ascii=True, separators=(",", ":"))

    @classmethod
    def command(cls) -> list[str]:  # pragma: no cover - interface
        """The argv that starts the driver (nothing is checked, nothing built)."""
        raise NotImplementedError


def driver_script(name: str) -> str:
    """The path of the driver `drivers/NAME` shipped with this package."""
    return str(importlib.resources.files("oracle.adapters").joinpath(f"drivers/{name}"))


def node() -> str:
    """node, as found on PATH (or its bare name, for the process start to report missing)."""
    return shutil.which("node") or "node"


def driver_class(name: str) -> type[DriverImplementation] | None:
    """The declaration of registry name `name` when a driver scores it, else None (an adapter here, or no
    registered name: MODULE:CLASS)."""
    entry = registry.lookup(name)
    if entry is None or not entry.driven:
        return None
    found = entry.load()
    return found if isinstance(found, type) and issubclass(found, DriverImplementation) else None


def driver_command(name: str) -> list[str] | None:
    """The argv of `name`'s driver when a driver scores it (None for an adapter `serve` runs here)."""
    found = driver_class(name)
    return None if found is None else found.command()
