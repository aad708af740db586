"""The search cache across runs: a warm run writes the records a cold one and `--no-search-cache` write, and an
entry that is damaged, stale or foreign is computed again, never trusted.

Holds: oracle.harness.searchcache
"""

from __future__ import annotations

import json
import os
import time

import pytest
from fakes.harness import check, fake, results

from oracle.harness import searchcache
from oracle.harness.generate import example_request
from oracle.harness.searchcache import ExampleEntry, Prepared, SearchCache, evict, run_key, wire_line
from oracle.models.outcomes import Expected
from oracle.models.protocol import Capabilities, encode

#: The fake declares tokenizers (text companions), statefulness (stateful plans) and every level, so the default
#: mix is whole; with a planted bug, failing examples are shrunk and classified from cached inputs too.
CLEAN = fake("plantedbleu", "clean")
BUGGY = fake("plantedbleu", "clip-lt")


def _comparable(report):
    """A run's header, records and footer without clock readings, seq numbers and the report's own path."""

    def clean(value):
        if isinstance(value, dict):
            return {k: clean(v) for k, v in value.items() if k not in ("seq", "duration", "wall", "started",
                                                                        "finished")}
        if isinstance(value, list):
            return [clean(v) for v in value]
        if isinstance(value, str):
            return value.replace(str(report), "REPORT")
        return value

    lines = (report / "results.jsonl").read_text(encoding="utf-8").split("\n")[:-1]  # (not splitlines: U+2028)
    return [clean(json.loads(line)) for line in lines]


def _runs(tmp_path, monkeypatch, command, *more, examples, code):
    """(cold, warm, without the cache): three runs of the same search, the first two on one fresh cache."""
    monkeypatch.setenv("BLEU_ORACLE_SEARCH_CACHE", str(tmp_path / "cache"))
    out = []
    for name, flags in (("cold", ()), ("warm", ()), ("none", ("--no-search-cache",))):
        report = tmp_path / name
        assert check(report, command, *more, *flags, examples=examples) == code
        out.append(_comparable(report))
    return out


def test_a_warm_run_writes_what_a_cold_run_and_no_cache_write(tmp_path, monkeypatch):
    """16 examples: text, refused and series companions, stateful plans, relations, a 2,000-segment corpus; the
    warm run read every example from the cache the cold run wrote."""
    cold, warm, none = _runs(tmp_path, monkeypatch, CLEAN, examples=16, code=0)
    assert warm == cold and none == cold
    records = [line for line in cold if line["type"] == "record"]
    kinds = {record["id"].partition("~")[2] for record in records}
    assert {"", "text", "refused", "series", "stateful"} <= kinds and len(kinds) > 5  # and relations
    (directory,) = (tmp_path / "cache").iterdir()
    assert len(list(directory.glob("*.json"))) == 16


@pytest.mark.slow
@pytest.mark.parametrize("flags", [(), ("--jobs", "2"), ("--shard", "2/2"), ("--jobs", "2", "--shard", "1/2")])
def test_warm_runs_with_failures_jobs_and_shards_write_what_cold_runs_write(tmp_path, monkeypatch, flags):
    """A planted bug over 120 examples (every focus four times, the 65,600-token runs among them): failing
    examples shrunk and classified, with --jobs 2 and shards as with one process."""
    cold, warm, none = _runs(tmp_path, monkeypatch, BUGGY, *flags, examples=120, code=1)
    assert warm == cold and none == cold
    assert any(line.get("outcome") == "fail" and line.get("shrunk") for line in cold)


def test_a_warm_run_with_jobs_reads_the_cache_a_single_process_wrote(tmp_path, monkeypatch):
    """The cache's key does not depend on how the examples are dealt: --jobs 2 reads --jobs 1's entries."""
    monkeypatch.setenv("BLEU_ORACLE_SEARCH_CACHE", str(tmp_path / "cache"))
    assert check(tmp_path / "one", CLEAN, examples=10) == 0
    (directory,) = (tmp_path / "cache").iterdir()
    written = {path: path.stat().st_mtime_ns for path in directory.glob("*.json")}
    assert check(tmp_path / "two", CLEAN, "--jobs", "2", examples=10) == 0
    assert {path: path.stat().st_mtime_ns for path in directory.glob("*.json")} == written, "nothing recomputed"
    assert _comparable(tmp_path / "two") == _comparable(tmp_path / "one")


def test_a_damaged_stale_or_foreign_entry_is_recomputed(tmp_path, monkeypatch):
    """Example 3's entry cut short, example 4's an entry of another run key (another oracle version, say),
    example 5's changed after it was written (a wrong expected score: its checksum no longer fits): each is
    computed afresh, the records are the cold run's, and the entries are whole again afterwards."""
    monkeypatch.setenv("BLEU_ORACLE_SEARCH_CACHE", str(tmp_path / "cache"))
    assert check(tmp_path / "cold", CLEAN, examples=8) == 0
    (directory,) = (tmp_path / "cache").iterdir()
    (directory / "3.json").write_bytes((directory / "3.json").read_bytes()[:200])
    header, _, body = (directory / "4.json").read_bytes().partition(b"\n")
    foreign = {**json.loads(header), "key": "f" * 32}
    (directory / "4.json").write_bytes(json.dumps(foreign).encode() + b"\n" + body)
    header, content, lines = (directory / "5.json").read_bytes().split(b"\n", 2)
    data = json.loads(content)
    data["inputs"]["example"]["expected"]["score"] = 0.123456789
    (directory / "5.json").write_bytes(b"\n".join([header, json.dumps(data).encode(), lines]))
    assert check(tmp_path / "warm", CLEAN, examples=8) == 0
    assert _comparable(tmp_path / "warm") == _comparable(tmp_path / "cold")
    cache = SearchCache(tmp_path / "cache", directory.name)
    assert all(cache.load(index).loaded for index in range(8)), "the damaged entries were written again"
    assert cache.load(5).inputs["example"].expected.score != 0.123456789


def _entry(index, request):
    prepared = Prepared(request, expected=Expected(rejected=True, reason="why"), features=("a", "b"))
    return ExampleEntry(index, {"example": prepared})


def test_an_entry_reads_back_as_written_and_any_damage_makes_it_empty(tmp_path):
    capabilities = Capabilities(levels=("sentence", "corpus"), max_order=6, weights="any", smoothing=("none",),
                                statistics=True, lowercase=False)
    request = example_request(0, 3, capabilities)
    cache = SearchCache(tmp_path, "k" * 32)
    cache.store(_entry(3, request))
    back = cache.load(3)
    assert back.loaded and back.inputs["example"].request == request
    assert back.inputs["example"].expected == Expected(rejected=True, reason="why")
    assert back.inputs["example"].features == ("a", "b") and not back.dirty()
    data = (tmp_path / ("k" * 32) / "3.json").read_bytes()
    for damaged in (b"", b"\n", data[:-5], data.replace(b'"a"', b'"z"'), b"not json\n{}", data + b"x"):
        (tmp_path / ("k" * 32) / "3.json").write_bytes(damaged)
        assert not cache.load(3).loaded and cache.load(3).inputs == {}
    assert not cache.load(4).loaded  # never written
    (tmp_path / ("k" * 32) / "5.json").write_bytes(data)  # example 3's entry in example 5's place
    assert not cache.load(5).loaded


def test_the_wire_line_spliced_from_the_body_is_the_encoded_command():
    """For requests of every focus (a 65,600-token run, a 2,000-segment corpus among them) and any seq."""
    capabilities = Capabilities(levels=("sentence", "corpus"), max_order=12, weights="any", lowercase=True,
                                smoothing=("none", "floor", "add-k"), tokenizers=("13a", "intl", "char"),
                                statistics=True)
    for index in list(range(30)) + [14 + 30 * 40]:
        request = example_request(0, index, capabilities)
        body = searchcache.body_of(request)
        for seq in (0, 7, 123456):
            assert wire_line(body, seq) == encode(request.with_seq(seq).to_json()).encode("utf-8") + b"\n"


def test_the_run_key_changes_with_each_part_it_depends_on():
    capabilities = Capabilities(levels=("sentence",), max_order=4, smoothing=("none",), statistics=True,
                                weights="uniform", lowercase=False)
    other = capabilities.model_copy(update={"levels": ("corpus",)})
    base = run_key(0, capabilities, "papineni", 36)
    others = {run_key(1, capabilities, "papineni", 36), run_key(0, other, "papineni", 36),
              run_key(0, capabilities, "sacrebleu", 36), run_key(0, capabilities, "papineni", 0)}
    assert base not in others and len(others) == 4
    assert len(searchcache.oracle_version()) == 64


def test_eviction_removes_least_recently_used_runs_then_the_current_runs_highest_examples(tmp_path):
    old, recent, current = (tmp_path / name for name in ("old", "recent", "current"))
    for age, directory in enumerate((old, recent, current)):
        directory.mkdir()
        for index in range(4):
            (directory / f"{index}.json").write_bytes(b"x" * 100)
        os.utime(directory, (time.time() - 1000 + age * 100,) * 2)
    evict(tmp_path, 900, keep=current)
    assert not old.exists() and recent.exists() and len(list(current.iterdir())) == 4
    evict(tmp_path, 300, keep=current)
    assert not recent.exists()
    assert sorted(p.name for p in current.iterdir()) == ["0.json", "1.json", "2.json"]


def test_no_search_cache_reads_and_writes_nothing(tmp_path, monkeypatch):
    monkeypatch.setenv("BLEU_ORACLE_SEARCH_CACHE", str(tmp_path / "cache"))
    assert check(tmp_path / "r", CLEAN, "--no-search-cache", examples=5) == 0
    assert not (tmp_path / "cache").exists()
    assert results(tmp_path / "r").footer.examples == 5


def test_the_cache_lives_where_the_environment_says(tmp_path, monkeypatch):
    monkeypatch.setenv("BLEU_ORACLE_SEARCH_CACHE", str(tmp_path / "explicit"))
    assert searchcache.cache_root() == tmp_path / "explicit"
    monkeypatch.delenv("BLEU_ORACLE_SEARCH_CACHE")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert searchcache.cache_root() == tmp_path / "xdg" / "bleu-oracle" / "search"
    monkeypatch.setenv("BLEU_ORACLE_SEARCH_CACHE_BYTES", "12345")
    assert searchcache.limit_bytes() == 12345
    monkeypatch.setenv("BLEU_ORACLE_SEARCH_CACHE_BYTES", "lots")
    assert searchcache.limit_bytes() == searchcache.DEFAULT_LIMIT_BYTES


def test_the_run_key_changes_with_the_python_and_unicode_versions(monkeypatch):
    """Case folding and the intl and char tokenizers follow the Unicode database of the Python that runs them:
    two Pythons sharing one cache never read each other's expectations."""
    import sys
    import unicodedata

    capabilities = Capabilities(levels=("sentence",), max_order=4, smoothing=("none",), statistics=True,
                                weights="uniform", lowercase=True, tokenizers=("13a", "intl", "char"))
    base = run_key(0, capabilities, "papineni", 36)
    with monkeypatch.context() as patched:
        patched.setattr(unicodedata, "unidata_version", "1.1.0")
        other_unicode = run_key(0, capabilities, "papineni", 36)
    with monkeypatch.context() as patched:
        patched.setattr(sys, "version_info", (3, 99, 0, "final", 0))
        other_python = run_key(0, capabilities, "papineni", 36)
    assert len({base, other_unicode, other_python}) == 3
    assert run_key(0, capabilities, "papineni", 36) == base
