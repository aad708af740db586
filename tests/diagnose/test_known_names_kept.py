"""`mechanisms.known_names`, kept per catalogue: the same names as reading the catalogue afresh, for the catalogue as
built and for one replaced, shrunk or grown (a test's own catalogue), asked before and after.

The reference is the catalogue read now (`known_names_afresh`: the declared computations, then each replayed
mechanism), and by hand: a catalogue of no mechanism leaves the computations' names alone.

What it tests is the package's own `__init__` (oracle/diagnose/mechanisms/__init__.py), which the layout rule's
`Holds:` lines do not name: a package's `__init__` is no module there (tests/repository/test_layout.py).
"""

from __future__ import annotations

from dataclasses import replace

from oracle.diagnose import mechanisms
from oracle.diagnose.mechanisms.computations import COMPUTATIONS

_BUILT = dict(mechanisms.CATALOGUE)


def test_kept_names_are_the_catalogue_read_afresh():
    assert mechanisms.known_names() == mechanisms.known_names_afresh()
    assert mechanisms.known_names() == mechanisms.known_names_afresh()  # asked again: the kept one


def test_a_replaced_catalogue_is_read_afresh(monkeypatch):
    built = mechanisms.known_names()
    monkeypatch.setattr(mechanisms, "CATALOGUE", {})
    assert mechanisms.known_names() == tuple(dict.fromkeys(name for name, _ in COMPUTATIONS))  # by hand
    assert mechanisms.known_names() == mechanisms.known_names_afresh()
    # the empty catalogue again (a new dict), then grown by a counting alternative, then by one more: each read anew
    kept = {name: m for name, m in mechanisms.CATALOGUE.items()}
    counting = [m for m in _BUILT.values() if m.route("counting") is not None
                and not m.family and m.name not in dict(COMPUTATIONS)]
    assert counting  # (the catalogue has counting alternatives to replay)
    monkeypatch.setattr(mechanisms, "CATALOGUE", dict(kept))
    assert counting[0].name not in mechanisms.known_names()
    grown = dict(kept)
    grown[counting[0].name] = counting[0]
    monkeypatch.setattr(mechanisms, "CATALOGUE", grown)
    assert counting[0].name in mechanisms.known_names()
    assert mechanisms.known_names() == mechanisms.known_names_afresh()
    renamed = replace(counting[0], name=counting[0].name + "-renamed-here")
    grown_again = {**grown, renamed.name: renamed}
    monkeypatch.setattr(mechanisms, "CATALOGUE", grown_again)
    assert renamed.name in mechanisms.known_names()
    monkeypatch.undo()
    assert mechanisms.known_names() == built == mechanisms.known_names_afresh()
