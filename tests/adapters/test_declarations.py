"""Every built-in implementation resolves to the declaration it had before its entry moved into its own module
(issue 38: a venv library declares its entry in its `drivers/libraries/` module, and the registry discovers it).

`data/resolved_declarations.json` is a characterisation fixture: `resolved(name)` below, run on main at b50f5cf,
before the move, on the registry and the adapters of that commit (their entries, pins and declarations were the
thing the move must not change, so their own values are the expectation here, and nothing else). Each name is
compared whole: its entry (kind, pip extra, preparation with every pin, shared environment, preload,
documented-as), its declaration class (class name, version, language, profile, capabilities, handshake), what
its driver is told (settings, argv), and `history`'s release spec when it has one.

Regenerate only for a change that means to alter a declaration, saying which in the commit:
`python -c "import json, tests.adapters.test_declarations as t; print(json.dumps(t.everything(), indent=1))"`
"""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path
from typing import Any

import pytest

from oracle.adapters import environments, history, registry
from oracle.adapters.driven import driver_script, node

FIXTURE = Path(__file__).parent / "data" / "resolved_declarations.json"


def _prepared(prepared: Any) -> Any:
    if prepared is None:
        return None
    if dataclasses.is_dataclass(prepared):
        return {"type": type(prepared).__name__, **json.loads(json.dumps(dataclasses.asdict(prepared)))}
    return {"type": type(prepared).__name__, **prepared._asdict()}  # NpmPin


def _portable(argv: list[str]) -> list[str]:
    """A driver's argv with this machine's paths named: the prepared environments' root, the drivers, node, and a
    venv's digest (of this Python's X.Y with the pins, which `prepared` holds)."""
    places = [(str(environments.root()), "<ROOT>"), (str(Path(driver_script("venv_bleu.py")).parent), "<DRIVERS>")]
    places += [(f"/{spec.name}-{spec.digest}/", f"/{spec.name}-<DIGEST>/") for spec in environments.VENVS.values()]
    shown = []
    for part in argv:
        for place, name in places:
            part = part.replace(place, name)
        shown.append("<NODE>" if part == node() else part)
    return shown


def resolved(name: str) -> dict[str, Any]:
    """All that implementation `name` resolves to, as JSON values."""
    entry = registry.resolve(name)
    found = entry.load()
    declared: dict[str, Any] = {
        "kind": entry.kind, "adapter": entry.adapter, "extra": entry.extra, "prepared": _prepared(entry.prepared),
        "shares": entry.shares, "preload": entry.preload, "documented_as": entry.documented_as,
        "environment": entry.environment, "driver_library": entry.driver_library, "documented": entry.documented,
        "driven": entry.driven,
        "class": found.__name__, "name": found.name, "version": found.version, "language": found.language,
        "profile": found.profile, "capabilities": json.loads(json.dumps(found.capabilities)),
    }
    if entry.driven:
        declared["handshake"] = json.loads(found.handshake_json())
        declared["argv"] = _portable(found.command())
    if entry.kind == "venv":
        declared["settings"] = found.settings()
        declared["pinned_in_environments"] = _prepared(environments.VENVS.get(name))
    spec = history.LIBRARIES.get(name)
    if spec is not None:
        declared["history"] = {"profile": spec.profile, "capabilities": json.loads(json.dumps(spec.capabilities)),
                               "settings": spec.driver_settings(), "distribution": spec.distribution}
    return declared


def everything() -> dict[str, Any]:
    return {"names": registry.names(), "declarations": {name: resolved(name) for name in registry.names()}}


EXPECTED = json.loads(FIXTURE.read_text(encoding="utf-8"))
#: What the move changes on purpose: the LLM-evaluation wrappers' declarations were classes of their own module
#: (oracle/adapters/llm_wrappers.py, gone); they are made in venv_adapters as every venv library's.
MOVED = {name: ("oracle.adapters.llm_wrappers:", "oracle.adapters.venv_adapters:")
         for name in ("ragas", "lm-eval", "deepeval")}


def test_the_registered_names_are_those_of_before_the_venv_libraries_in_their_modules_order():
    """The entries the adapter modules declare keep the order the registry gave them (their `listed`); the venv
    libraries follow, as before, now in the alphabetical order of their modules (their order of addition before).
    An implementation added since is not of this comparison (its own test is its)."""
    assert set(EXPECTED["names"]) <= set(registry.names())
    names = [name for name in registry.names() if name in EXPECTED["declarations"]]
    venv = [name for name in EXPECTED["names"] if EXPECTED["declarations"][name]["kind"] == "venv"]
    assert names[:len(names) - len(venv)] == [name for name in EXPECTED["names"] if name not in venv]
    modules = [registry.resolve(name).driver_library for name in names[len(names) - len(venv):]]
    assert sorted(names[len(names) - len(venv):]) == sorted(venv) and modules == sorted(modules)


@pytest.mark.parametrize("name", EXPECTED["names"])
def test_each_implementation_resolves_to_its_declaration_of_before(name):
    expected = dict(EXPECTED["declarations"][name])
    if name in MOVED:
        expected["adapter"] = expected["adapter"].replace(*MOVED[name])
    assert resolved(name) == expected
