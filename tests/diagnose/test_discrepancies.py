"""The curated discrepancy file is read through its model: every entry validates, ids are unique, each
states its upstream status as data (found, reported, acknowledged, fixed, deliberate, related; every thread with
its state and the date checked), the shipped JSON Schema is the model's, and a malformed entry is an error naming
the entry and the field.

Holds: oracle.diagnose.discrepancies, oracle.models.discrepancy
"""

from __future__ import annotations

import pytest

from oracle.diagnose import discrepancies
from oracle.formulas.errors import BleuValueError
from oracle.models.discrepancy import SCHEMA_PATH, STAGES, Upstream, render_schema


def test_every_entry_validates_and_states_its_upstream_status():
    entries = discrepancies.models()
    assert len({e.id for e in entries}) == len(entries) >= 46
    for e in entries:
        assert e.upstream.found <= e.upstream.searched and e.upstream.stage in STAGES, e.id
        assert all(t.url.startswith("https://") and t.checked for t in e.upstream.threads()), e.id


# The five statuses an audit against the trackers found wrong (issue 27), as the threads say they are.
CORRECTED = {
    "promptfoo-skipped-orders": ("deliberate", "https://github.com/promptfoo/promptfoo/pull/9740"),
    "nltk-no-unigram-match-early-return": ("deliberate", "https://github.com/nltk/nltk/pull/1545"),
    "promptfoo-always-lowercases": ("deliberate", "https://github.com/promptfoo/promptfoo/pull/9739"),
}


@pytest.mark.parametrize("entry_id", sorted(CORRECTED))
def test_deliberate_changes_cite_the_maintainers_decision(entry_id):
    stage, url = CORRECTED[entry_id]
    entry = next(e for e in discrepancies.models() if e.id == entry_id)
    assert entry.upstream.stage == stage and entry.upstream.deliberate.thread.url == url
    assert entry.upstream.reported is None


def test_downstream_and_side_threads_are_related_not_reported():
    by_id = {e.id: e for e in discrepancies.models()}
    multi_bleu = by_id["multi-bleu-empty-hypothesis-division-by-zero"].upstream
    assert multi_bleu.stage == "found" and {t.url for t in multi_bleu.related} == {
        "https://github.com/facebookresearch/XLM/issues/290", "https://github.com/google/seq2seq/issues/99"}
    method5 = by_id["nltk-method5-averages-precisions"].upstream
    assert method5.stage == "found" and [t.url for t in method5.related] == ["https://github.com/nltk/nltk/pull/3903"]
    # the same pull request does report method6's last-hypothesis length, which it names
    assert by_id["nltk-method6-last-hypothesis-length"].upstream.reported.url == "https://github.com/nltk/nltk/pull/3903"


def test_the_stage_is_the_furthest_one_reached():
    thread = {"url": "https://github.com/o/r/issues/1", "state": "open", "checked": "2026-11-25"}
    base = {"found": "2026-11-21", "searched": "2026-11-25"}
    assert Upstream.model_validate(base).stage == "found"
    assert Upstream.model_validate({**base, "related": [thread]}).stage == "found"
    reported = {**base, "reported": {**thread, "date": "2026-01-02"}}
    assert Upstream.model_validate(reported).stage == "reported"
    assert Upstream.model_validate({**reported, "acknowledged": thread}).stage == "acknowledged"
    assert Upstream.model_validate({**reported, "fixed": {"version": "1.2"}}).stage == "fixed"
    assert "not found in its tracker (searched 2026-11-25)" in Upstream.model_validate(base).text()


def test_the_shipped_schema_is_the_models():
    assert SCHEMA_PATH.read_text(encoding="utf-8") == render_schema(), "run `python -m oracle.models.discrepancy`"


def entry(**changes):
    good = discrepancies.load()[0]
    return {**good, **changes}


@pytest.mark.parametrize("changes,message", [
    ({"upstream": "reported"}, "`upstream`: Input should be a valid dictionary"),
    ({"upstream": {"found": "2026-11-21", "searched": "2026-11-25", "related": [
        {"url": "http://example.org/1", "state": "open", "checked": "2026-11-25"}]}},
     "`upstream.related.0.url`: String should match pattern"),
    ({"upstream": {"found": "2026-11-21", "searched": "2026-11-25", "related": [
        {"url": "https://example.org/1", "state": "resolved-ish", "checked": "2026-11-25"}]}},
     "`upstream.related.0.state`: Input should be 'open', 'closed', 'merged' or 'closed without merging'"),
    ({"upstream": {"found": "2026-11-21", "searched": "2026-11-25", "fixed": {}}},
     "a fix names the `version` or the `commit`"),
    ({"upstream": {"found": "2026-11-21", "searched": "2026-11-25", "deliberate": {}}},
     "a deliberate behaviour cites the maintainers' `thread` or the `documented` text"),
    ({"upstream": {"found": "2026-11-26", "searched": "2026-11-25"}}, "`found` .2026-11-26. is after `searched`"),
    ({"kind": "vibes"}, "`kind`: Input should be 'score', 'rejection' or 'statistics'"),
    ({"root_cause": {"file": "x.py", "function": "f"}}, "`root_cause.detail`: Field required"),
    ({"classify": None}, "a score entry names the explanation"),
    ({"colour": "red"}, "`colour`: Extra inputs are not permitted"),
    ({"reproduced_within": {"why": "float32 by CPU"}}, "a tolerance states its `relative` or `absolute` part"),
    ({"reproduced_within": {"relative": 1e-7}}, "`reproduced_within.why`: Field required"),
    ({"reproduced_within": {"relative": 0.5, "why": "float32"}},
     "`reproduced_within.relative`: Input should be less than or equal to 0.001"),
    ({"kind": "statistics", "reproduced_within": {"relative": 1e-7, "why": "float32"}},
     "`reproduced_within` is for a score entry whose example records a number"),
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


@pytest.mark.parametrize("text,message", [
    ("other: []\n", "cannot read the discrepancy classes"),
    ("discrepancies: [1]\n", "must be a list of entries"),
    ("discrepancies:\n  - id: x\n", "entry 0 \\(x\\)"),
])
def test_check_refuses_the_file_load_refuses(tmp_path, monkeypatch, text, message):
    """`check` (what a session reads before anything starts, issue 39: without `load`'s dictionaries) refuses an
    unreadable discrepancies.yaml as `load` does."""
    path = tmp_path / "discrepancies.yaml"
    path.write_text(text, encoding="utf-8")
    monkeypatch.setattr(discrepancies, "PATH", path)
    discrepancies._file_models.cache_clear()
    discrepancies.load.cache_clear()
    try:
        for read in (discrepancies.check, discrepancies.load):
            with pytest.raises(BleuValueError, match=message):
                read()
    finally:  # the real file's entries, for the tests after this one
        monkeypatch.undo()
        discrepancies._file_models.cache_clear()
        discrepancies.load.cache_clear()
