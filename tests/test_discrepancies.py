"""The curated discrepancy file is read through its model: every entry validates, ids are unique, each
states its upstream status, and a malformed entry is an error naming the entry and the field.

Holds: oracle.diagnose.discrepancies, oracle.models.discrepancy
"""

from __future__ import annotations

import pytest

from oracle.diagnose import discrepancies
from oracle.formulas.errors import BleuValueError


def test_every_entry_validates_and_states_its_upstream_status():
    entries = discrepancies.models()
    assert len({e.id for e in entries}) == len(entries) >= 46
    assert all(e.upstream for e in entries)


def entry(**changes):
    good = discrepancies.load()[0]
    return {**good, **changes}


@pytest.mark.parametrize("changes,message", [
    ({"upstream": ""}, "`upstream`: String should have at least 1 character"),
    ({"kind": "vibes"}, "`kind`: Input should be 'score', 'rejection' or 'statistics'"),
    ({"root_cause": {"file": "x.py", "function": "f"}}, "`root_cause.detail`: Field required"),
    ({"classify": None}, "a score entry names the explanation"),
    ({"colour": "red"}, "`colour`: Extra inputs are not permitted"),
])
def test_a_malformed_entry_names_itself_and_the_field(changes, message):
    bad = entry(**{k: v for k, v in changes.items() if v is not None})
    if changes.get("classify", 0) is None:
        bad.pop("classify")
    with pytest.raises(
        BleuValueError, match=f"entry 0 \\({bad['id']}\\): .*{message.replace('(', '.').replace(')', '.')}"
    ):
        discrepancies.models([bad])


def test_a_repeated_id_is_refused():
    first = entry()
    with pytest.raises(BleuValueError, match=f"entry 1: id '{first['id']}' repeats"):
        discrepancies.models([first, dict(first)])
