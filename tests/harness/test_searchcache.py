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


def _run_directories(root):
    """The run directories of the cache under `root` (beside them: its marker)."""
    return [path for path in root.iterdir() if path.is_dir()]


def test_a_warm_run_writes_what_a_cold_run_and_no_cache_write(tmp_path, monkeypatch):
    """16 examples: text, refused and series companions, stateful plans, relations, a 2,000-segment corpus; the
    warm run read every example from the cache the cold run wrote."""
    cold, warm, none = _runs(tmp_path, monkeypatch, CLEAN, examples=16, code=0)
    assert warm == cold and none == cold
    records = [line for line in cold if line["type"] == "record"]
    kinds = {record["id"].partition("~")[2] for record in records}
    assert {"", "text", "refused", "series", "stateful"} <= kinds and len(kinds) > 5  # and relations
    (directory,) = _run_directories(tmp_path / "cache")
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
    (directory,) = _run_directories(tmp_path / "cache")
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
    (directory,) = _run_directories(tmp_path / "cache")
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
    cache = SearchCache(tmp_path, "e" * 32)
    cache.store(_entry(3, request))
    back = cache.load(3)
    assert back.loaded and back.inputs["example"].request == request
    assert back.inputs["example"].expected == Expected(rejected=True, reason="why")
    assert back.inputs["example"].features == ("a", "b") and not back.dirty()
    data = (tmp_path / ("e" * 32) / "3.json").read_bytes()
    for damaged in (b"", b"\n", data[:-5], data.replace(b'"a"', b'"z"'), b"not json\n{}", data + b"x"):
        (tmp_path / ("e" * 32) / "3.json").write_bytes(damaged)
        assert not cache.load(3).loaded and cache.load(3).inputs == {}
    assert not cache.load(4).loaded  # never written
    (tmp_path / ("e" * 32) / "5.json").write_bytes(data)  # example 3's entry in example 5's place
    assert not cache.load(5).loaded


def test_a_series_input_sent_again_reads_back_as_one_and_only_equal_inputs_are_merged(tmp_path):
    """A series sends its base input again: written once per step, read back as one `Prepared`; two inputs of the
    same wire line that differ in what was computed about them stay two."""
    capabilities = Capabilities(levels=("sentence", "corpus"), max_order=6, weights="any", smoothing=("none",),
                                statistics=True, lowercase=False)
    base, other = example_request(0, 3, capabilities), example_request(0, 4, capabilities)
    shared = Prepared(base, expected=Expected(rejected=True, reason="why"), features=("a",))
    changed = Prepared(other, expected=Expected(rejected=True, reason="other"), features=("b",))
    # the same line as `shared`, another expectation (a value written by another oracle, say): not the same input
    twin = Prepared(base, expected=Expected(rejected=True, reason="not why"), features=("a",))
    steps = [shared, changed, shared, twin, shared]
    cache = SearchCache(tmp_path, "e" * 32)
    cache.store(ExampleEntry(3, {f"series/{k}": p for k, p in enumerate(steps)}, series=[(0, "x")] * len(steps)))
    inputs = cache.load(3).inputs
    back = [inputs[f"series/{k}"] for k in range(len(steps))]
    assert back[0] is back[2] is back[4] and back[1] is not back[0] and back[3] is not back[0]
    assert back[3].request == back[0].request == base and back[1].request == other
    assert [p.expected.reason for p in back] == ["why", "other", "why", "not why", "why"]


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
    assert searchcache.open_root(tmp_path) == tmp_path  # (an empty directory: made the cache's)
    old, recent, current = (tmp_path / (digit * 32) for digit in "012")
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


# -- the cache owns only what it made, reads only regular files, and keys on Python and Unicode -------------------

KEY, OTHER_KEY = "a" * 32, "b" * 32


def _stored(root, key, *indexes):
    """A cache under `root` holding example `indexes`' entries of run key `key` (written by the cache itself)."""
    capabilities = Capabilities(levels=("sentence",), max_order=4, smoothing=("none",), statistics=True,
                                weights="uniform", lowercase=False)
    cache = SearchCache(root, key)
    for index in indexes:
        cache.store(_entry(index, example_request(0, index, capabilities)))
    return cache


def test_eviction_beside_foreign_data_deletes_only_the_caches_own_entries(tmp_path):
    """A byte limit of 1 evicts everything the cache wrote, and nothing else: not a directory or file put beside
    its run directories, not a file put inside one, not what a symlink named like an entry or a run points at."""
    root = tmp_path / "cache"
    old, current = _stored(root, OTHER_KEY, 0, 1), _stored(root, KEY, 2, 3)
    os.utime(old.directory, (time.time() - 1000,) * 2)
    (root / "datasets").mkdir()
    (root / "datasets" / "train.bin").write_bytes(b"d" * 5000)
    (root / "notes.txt").write_text("mine\n")
    (old.directory / "notes.txt").write_text("mine too\n")
    (tmp_path / "outside.json").write_text("a file of the user's\n")
    (old.directory / "7.json").symlink_to(tmp_path / "outside.json")
    (tmp_path / "elsewhere").mkdir()
    (tmp_path / "elsewhere" / "0.json").write_text("another file of the user's\n")
    (root / ("c" * 32)).symlink_to(tmp_path / "elsewhere", target_is_directory=True)
    evict(root, 1, keep=current.directory)
    assert (root / "datasets" / "train.bin").read_bytes() == b"d" * 5000
    assert (root / "notes.txt").read_text() == "mine\n" and (old.directory / "notes.txt").read_text() == "mine too\n"
    assert (old.directory / "7.json").is_symlink()
    assert (tmp_path / "outside.json").read_text() == "a file of the user's\n"
    assert (root / ("c" * 32)).is_symlink()
    assert (tmp_path / "elsewhere" / "0.json").read_text() == "another file of the user's\n"
    assert sorted(path.name for path in old.directory.iterdir()) == ["7.json", "notes.txt"], "its own: gone"
    assert not list(current.directory.iterdir()), "the current run's entries too"


def test_a_directory_holding_other_data_is_refused_and_left_alone(tmp_path, monkeypatch, capsys):
    """$BLEU_ORACLE_SEARCH_CACHE naming a directory that holds what the cache did not write (and no marker of
    the cache's): a configuration error (exit 2, one line naming the variable and the directory and how to fix
    it) before anything runs; nothing in the directory is touched, however small the byte limit."""
    shared = tmp_path / "shared"
    (shared / "datasets").mkdir(parents=True)
    (shared / "datasets" / "train.bin").write_bytes(b"d" * 5000)
    (shared / "notes.txt").write_text("mine\n")
    monkeypatch.setenv("BLEU_ORACLE_SEARCH_CACHE", str(shared))
    monkeypatch.setenv("BLEU_ORACLE_SEARCH_CACHE_BYTES", "1")
    assert check(tmp_path / "r", CLEAN, examples=3) == 2
    (line,) = capsys.readouterr().err.strip().splitlines()
    assert "BLEU_ORACLE_SEARCH_CACHE" in line and str(shared) in line and "empty or new directory" in line
    assert sorted(p.name for p in shared.iterdir()) == ["datasets", "notes.txt"]
    assert (shared / "datasets" / "train.bin").read_bytes() == b"d" * 5000
    assert not (tmp_path / "r" / "results.jsonl").exists(), "refused before anything ran"
    assert check(tmp_path / "r", CLEAN, "--no-search-cache", examples=3) == 0
    assert sorted(p.name for p in shared.iterdir()) == ["datasets", "notes.txt"]


_MEMORY_BOUND = 2 * 1024 ** 3  # (a read without bound meets it at once, not the machine's memory)


def _bounded_memory():
    import resource

    resource.setrlimit(resource.RLIMIT_AS, (_MEMORY_BOUND, _MEMORY_BOUND))


def _check_in_a_subprocess(report, cache):
    """`check --impl oracle --no-cases --examples 3` on `cache`, in a process of its own with bounded memory and
    a generous guard (a hang is a failure here, not a hung test session); its exit code, None if it hung."""
    import subprocess
    import sys
    from pathlib import Path

    command = [sys.executable, "-m", "oracle", "check", "--impl", "oracle", "--no-cases", "--examples", "3",
               "--report", str(report), "--quiet"]
    env = {**os.environ, "BLEU_ORACLE_SEARCH_CACHE": str(cache),
           "PYTHONPATH": str(Path(searchcache.__file__).resolve().parents[2])}
    try:
        return subprocess.run(command, env=env, capture_output=True, timeout=120,
                              preexec_fn=_bounded_memory).returncode
    except subprocess.TimeoutExpired:
        return None


@pytest.mark.parametrize("kind", ["fifo", "symlink to /dev/zero"])
def test_an_entry_that_is_not_a_regular_file_is_computed_afresh_and_left_alone(tmp_path, kind):
    """Example 1's entry replaced by a FIFO (reading it waited for a writer for ever) or a symlink to /dev/zero
    (read without bound): the warm run ignores it like a damaged entry, writes the cold run's records, and leaves
    what is there in place (it is not the cache's to replace)."""
    cache = tmp_path / "cache"
    assert _check_in_a_subprocess(tmp_path / "cold", cache) == 0
    (directory,) = (path for path in cache.iterdir() if path.is_dir())
    (directory / "1.json").unlink()
    if kind == "fifo":
        os.mkfifo(directory / "1.json")
    else:
        (directory / "1.json").symlink_to("/dev/zero")
    assert _check_in_a_subprocess(tmp_path / "warm", cache) == 0
    assert _comparable(tmp_path / "warm") == _comparable(tmp_path / "cold")
    if kind == "fifo":
        assert (directory / "1.json").is_fifo()
    else:
        assert os.readlink(directory / "1.json") == "/dev/zero"


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


def test_the_cache_adopts_only_a_directory_that_is_new_empty_or_its_own(tmp_path, monkeypatch):
    """A new or empty directory is marked (a cache directory tag naming the layout); so is an unmarked one holding
    only run directories of the cache's naming (as the bleu-oracle before the marker left its default directory).
    Another tool's CACHEDIR.TAG, a file, or a marker of another layout of the cache are not the cache's."""
    from oracle.formulas.errors import BleuValueError

    new, empty, earlier = tmp_path / "new" / "search", tmp_path / "empty", tmp_path / "earlier"
    empty.mkdir()
    (earlier / ("f" * 32)).mkdir(parents=True)
    (earlier / ("f" * 32) / "0.json").write_text("an entry\n")
    (earlier / ("f" * 32) / ".1.json.k2_x9abc").write_text("a temporary file of mkstemp's\n")
    for root in (new, empty, earlier):
        assert searchcache.open_root(root) == root
        marker = (root / "CACHEDIR.TAG").read_text()
        assert marker.startswith("Signature: 8a477f597d28d172789f06886806bc55\n")  # (bford.info/cachedir)
        assert marker.endswith("\nbleu-oracle search cache, format 1\n")
        assert searchcache.open_root(root) == root  # (marked: as it is)
    assert (earlier / ("f" * 32) / "0.json").read_text() == "an entry\n"
    tagged = tmp_path / "tagged"
    tagged.mkdir()
    (tagged / "CACHEDIR.TAG").write_text("Signature: 8a477f597d28d172789f06886806bc55\n# pip's\n")
    (tmp_path / "a-file").write_text("mine\n")
    monkeypatch.setenv("BLEU_ORACLE_SEARCH_CACHE", str(tmp_path / "a-file"))
    refusals = ((tagged, "holds a CACHEDIR.TAG that is not the search cache's"), (tmp_path / "a-file",
                                                                                 "is not a directory"))
    for root, why in refusals:
        with pytest.raises(BleuValueError, match=why) as refused:
            searchcache.open_root(root)
        assert "empty or new directory" in str(refused.value)
    assert (tmp_path / "a-file").read_text() == "mine\n"
    assert sorted(p.name for p in tagged.iterdir()) == ["CACHEDIR.TAG"]
    other_layout = tmp_path / "other-layout"
    other_layout.mkdir()
    (other_layout / "CACHEDIR.TAG").write_text(
        "Signature: 8a477f597d28d172789f06886806bc55\nbleu-oracle search cache, format 2\n")
    assert searchcache.open_root(other_layout) is None


def test_a_refusal_of_the_default_directory_says_how_to_set_another(tmp_path, monkeypatch):
    from oracle.formulas.errors import BleuValueError

    monkeypatch.delenv("BLEU_ORACLE_SEARCH_CACHE")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    (tmp_path / "bleu-oracle" / "search" / "photos\n").mkdir(parents=True)
    (tmp_path / "bleu-oracle" / "search" / "notes\u202etxt.exe").write_text("")
    with pytest.raises(BleuValueError) as refused:
        searchcache.open_root()
    (line,) = str(refused.value).splitlines()
    assert str(tmp_path / "bleu-oracle" / "search") in line and "BLEU_ORACLE_SEARCH_CACHE is not set" in line
    # the names as every message shows the user's text (oracle.escaping.shown): `\n`, `U+202E`, not Python's ascii()
    assert "notesU+202Etxt.exe, photos\\n/" in line
    assert "set BLEU_ORACLE_SEARCH_CACHE to an empty or new directory" in line


def test_a_cache_marked_by_another_layout_is_neither_read_written_nor_evicted(tmp_path):
    (tmp_path / ("1" * 32)).mkdir()
    (tmp_path / ("1" * 32) / "0.json").write_bytes(b"x" * 100)
    (tmp_path / "CACHEDIR.TAG").write_text(
        "Signature: 8a477f597d28d172789f06886806bc55\nbleu-oracle search cache, format 2\n")
    cache = _stored(tmp_path, KEY, 0)
    assert not cache.usable and not cache.wrote and not cache.directory.exists()
    evict(tmp_path, 1)
    assert (tmp_path / ("1" * 32) / "0.json").read_bytes() == b"x" * 100


def test_an_entry_past_the_size_bound_or_through_a_symlinked_run_directory_is_not_read(tmp_path, monkeypatch):
    """An entry larger than the bound is not read (nor written); a run directory that is a symlink (to a copy of
    the entries, say) is neither read nor written through."""
    cache = _stored(tmp_path / "cache", KEY, 0, 1)
    assert cache.load(0).loaded and cache.load(1).loaded
    monkeypatch.setattr(searchcache, "ENTRY_LIMIT_BYTES", (cache.directory / "1.json").stat().st_size - 1)
    assert not cache.load(1).loaded
    monkeypatch.undo()
    cache.directory.rename(tmp_path / "copy")
    cache.directory.symlink_to(tmp_path / "copy", target_is_directory=True)
    assert not cache.load(0).loaded
    again = _stored(tmp_path / "cache", KEY, 2)
    assert not again.wrote and sorted(p.name for p in (tmp_path / "copy").iterdir()) == ["0.json", "1.json"]


def test_runs_adopting_one_empty_directory_at_once_all_use_it(tmp_path):
    """Eight runs starting on one empty directory at once: each sees no marker, or the whole marker another wrote
    (never a half-written one, nor another's marker as a foreign file), and all of them use the directory."""
    import threading

    for attempt in range(20):
        root = tmp_path / str(attempt)
        root.mkdir()
        start, opened = threading.Barrier(8), []

        def adopt(root=root, start=start, opened=opened):
            start.wait()
            opened.append(searchcache.open_root(root))

        threads = [threading.Thread(target=adopt) for _ in range(8)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        assert opened == [root] * 8
        assert sorted(p.name for p in root.iterdir()) == ["CACHEDIR.TAG"], "no temporary file left"
