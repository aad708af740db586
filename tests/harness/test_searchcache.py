"""The search cache across runs: a warm run writes the records a cold one and `--no-search-cache` write, and an
entry that is damaged, stale or foreign is computed again, never trusted.

Holds: oracle.harness.searchcache
"""

from __future__ import annotations

import hashlib
import json
import os
import time

import pytest
from fakes.harness import check, fake, results

from oracle.harness import searchcache
from oracle.harness.generate import example_request
from oracle.harness.searchcache import (
    ExampleEntry,
    Prepared,
    SearchCache,
    _entry_body,
    body_of,
    discard,
    evict,
    run_key,
    wire_line,
)
from oracle.models.outcomes import Expected
from oracle.models.protocol import Capabilities, ScoreRequest, Segment, encode
from oracle.models.wire import PiecedLine

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


def _read_log(path):
    """A log read as docs/checking.md describes it, not through the module: its header line, then per entry a
    header line {"index", "generation", "length", "sha256"}, `length` bytes of body and a newline. (header,
    [(entry header, body), ...], the bytes after the last whole entry)."""
    header, _, rest = path.read_bytes().partition(b"\n")
    entries = []
    while rest:
        head, newline, after = rest.partition(b"\n")
        try:
            described = json.loads(head)
        except ValueError:
            break
        if not newline or len(after) < described["length"] + 1:
            break
        entries.append((described, after[:described["length"]]))
        rest = after[described["length"] + 1:]
    return json.loads(header), entries, rest


def _write_log(path, header, entries, *, checksums=True):
    """Write a log of `entries` ((entry header, body), ...), each header's sha256 that of its body when
    `checksums`, else as given."""
    out = [json.dumps(header, separators=(",", ":")).encode() + b"\n"]
    for described, body in entries:
        if checksums:
            # the checksum as docs/checking.md states it: sha256 of the index and the generation in decimal, each
            # followed by a newline, then the body
            digest = hashlib.sha256(f"{described['index']}\n{described['generation']}\n".encode() + body).hexdigest()
            described = {**described, "length": len(body), "sha256": digest}
        out.append(json.dumps(described, separators=(",", ":")).encode() + b"\n" + body + b"\n")
    path.write_bytes(b"".join(out))


def _logs(directory):
    return sorted(directory.glob("*.log"))


def test_a_warm_run_writes_what_a_cold_run_and_no_cache_write(tmp_path, monkeypatch):
    """16 examples: text, refused and series companions, stateful plans, relations, a 2,000-segment corpus; the
    warm run read every example from the cache the cold run wrote."""
    cold, warm, none = _runs(tmp_path, monkeypatch, CLEAN, examples=16, code=0)
    assert warm == cold and none == cold
    records = [line for line in cold if line["type"] == "record"]
    kinds = {record["id"].partition("~")[2] for record in records}
    assert {"", "text", "refused", "series", "stateful"} <= kinds and len(kinds) > 5  # and relations
    (directory,) = _run_directories(tmp_path / "cache")
    (log,) = _logs(directory)  # one file for the run, not one per example
    header, entries, tail = _read_log(log)
    assert sorted(described["index"] for described, _ in entries) == list(range(16)) and tail == b""
    assert header["key"] == directory.name and header["oracle"] == searchcache.oracle_version()


def test_an_inputs_applicability_is_asked_once_and_kept_with_it(tmp_path, monkeypatch):
    """Whether an example's input applies under the capabilities (`not_applicable_reason`: every token of a
    65,600-token run searched for a character the implementation refuses) is asked when the input is first judged
    and kept in its entry (the run key holds the capabilities): a warm run asks it of no input the cache held and
    writes the cold run's records. (The search draws within the capabilities, so its inputs apply: a reason is
    kept as written all the same.)"""
    from oracle.harness import session

    asked = []
    reason_of = session.not_applicable_reason

    def counted(request, capabilities):
        asked.append(request)
        return reason_of(request, capabilities)

    monkeypatch.setattr(session, "not_applicable_reason", counted)
    monkeypatch.setenv("BLEU_ORACLE_SEARCH_CACHE", str(tmp_path / "cache"))
    out = []
    for name in ("cold", "warm"):
        asked.clear()
        assert check(tmp_path / name, CLEAN, examples=16) == 0
        out.append((_comparable(tmp_path / name), len(asked)))
    (cold, asked_cold), (warm, asked_warm) = out
    assert warm == cold and asked_cold > 16 and asked_warm == 0
    request = ScoreRequest(level="sentence", weights=(1.0,), segments=(Segment(hypothesis=("a",), references=()),))
    cache = SearchCache(tmp_path / "more", "e" * 32)
    other = request.model_copy(update={"weights": (0.5, 0.5)})
    cache.store(ExampleEntry(1, {"example": Prepared(request, inapplicable="why not"),
                                 "text": Prepared(other, inapplicable="")}))
    cache.close()
    inputs = SearchCache(tmp_path / "more", "e" * 32).load(1).inputs
    assert inputs["example"].inapplicable == "why not" and inputs["text"].inapplicable == ""


@pytest.mark.slow
#: the combined --jobs and --shard run is in the heavy tier (8-14 s each; CI runs it): the README command stays under
#: 10 minutes, and one process, --jobs and --shard alone keep the warm-equals-cold proof in it
@pytest.mark.parametrize("flags", [(), ("--jobs", "2"), ("--shard", "2/2"),
                                   pytest.param(("--jobs", "2", "--shard", "1/2"), marks=pytest.mark.heavy)])
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
    written = {path: path.stat().st_mtime_ns for path in directory.iterdir()}
    assert check(tmp_path / "two", CLEAN, "--jobs", "2", examples=10) == 0
    assert {path: path.stat().st_mtime_ns for path in directory.iterdir()} == written, "nothing recomputed"
    assert _comparable(tmp_path / "two") == _comparable(tmp_path / "one")


def _cold_then_damaged(tmp_path, monkeypatch, damage, *flags, examples=8):
    """A cold run of `examples` examples, `damage(log)` done to its (first) log, a warm run: the warm run's
    records are the cold run's, and afterwards every example reads back from the cache (what was damaged was
    written again and the logs compacted). The warm run's stderr."""
    monkeypatch.setenv("BLEU_ORACLE_SEARCH_CACHE", str(tmp_path / "cache"))
    assert check(tmp_path / "cold", CLEAN, *flags, examples=examples) == 0
    (directory,) = _run_directories(tmp_path / "cache")
    damage(_logs(directory)[0])
    assert check(tmp_path / "warm", CLEAN, *flags, examples=examples) == 0
    assert _comparable(tmp_path / "warm") == _comparable(tmp_path / "cold")
    cache = SearchCache(tmp_path / "cache", directory.name)
    assert all(cache.load(index).loaded for index in range(examples)), "the damaged entries were written again"
    return directory


def test_a_torn_tail_is_ignored_with_a_note_and_its_example_computed_afresh(tmp_path, monkeypatch, capsys):
    """The log cut in the middle of its last entry (a run killed while appending): the entries before it are
    read, the cut one is computed afresh, one warning line names the log, and the run after it has none."""

    def tear(log):
        _, entries, _ = _read_log(log)
        log.write_bytes(log.read_bytes()[:-(len(entries[-1][1]) // 2)])
        assert len(_read_log(log)[1]) == len(entries) - 1

    capsys.readouterr()
    directory = _cold_then_damaged(tmp_path, monkeypatch, tear)
    warned = [line for line in capsys.readouterr().err.splitlines() if "warning" in line]
    assert len(warned) == 1 and "torn or damaged" in warned[0] and str(directory) in warned[0]
    (log,) = _logs(directory)  # compacted: the whole entries and the one written again, in one log
    assert sorted(described["index"] for described, _ in _read_log(log)[1]) == list(range(8))
    assert check(tmp_path / "after", CLEAN, examples=8) == 0
    assert "warning" not in capsys.readouterr().err


def test_a_flipped_byte_fails_its_checksum_and_the_example_is_computed_afresh(tmp_path, monkeypatch, capsys):
    """One byte of example 3's expected score changed in the log (its sha256 no longer fits): never a hit (the
    wrong score is not even judged by: the warning is the damaged log's, not the discarded expectation's)."""

    def flip(log):
        header, entries, _ = _read_log(log)
        (position,) = [k for k, (described, _) in enumerate(entries) if described["index"] == 3]
        described, body = entries[position]
        at = body.index(b'"score":') + len(b'"score":')
        entries[position] = (described, body[:at] + (b"7" if body[at:at + 1] != b"7" else b"8") + body[at + 1:])
        _write_log(log, header, entries, checksums=False)

    capsys.readouterr()
    directory = _cold_then_damaged(tmp_path, monkeypatch, flip)
    assert len(_logs(directory)) == 1, "compacted"
    warned = [line for line in capsys.readouterr().err.splitlines() if "warning" in line]
    assert len(warned) == 1 and "torn or damaged" in warned[0], warned


def test_a_log_of_another_oracle_version_or_run_key_is_not_read(tmp_path):
    """A log whose header names another oracle version (the same run key: a log copied there, say), another run
    key or another format is not read: nothing loads from it."""
    cache = _stored(tmp_path, KEY, 0, 1)
    cache.close()
    (log,) = _logs(cache.directory)
    header, entries, _ = _read_log(log)
    assert SearchCache(tmp_path, KEY).load(1).loaded
    for changed in ({"oracle": "0" * 64}, {"key": OTHER_KEY}, {"format": 1}):
        _write_log(log, {**header, **changed}, entries)
        assert not SearchCache(tmp_path, KEY).load(1).loaded, changed
    _write_log(log, header, entries)
    assert SearchCache(tmp_path, KEY).load(1).loaded


def test_two_writers_each_append_to_a_log_of_their_own_and_a_later_run_reads_both(tmp_path, monkeypatch):
    """Two processes (`--jobs 2` workers) of one run key: two logs, no lock; a warm run reads every example from
    them (nothing appended, no file changed) and writes the cold run's records, with --jobs 2 and with one."""
    monkeypatch.setenv("BLEU_ORACLE_SEARCH_CACHE", str(tmp_path / "cache"))
    assert check(tmp_path / "cold", CLEAN, "--jobs", "2", examples=10) == 0
    (directory,) = _run_directories(tmp_path / "cache")
    logs = _logs(directory)
    assert len(logs) == 2
    # worker j of 2 draws the examples `worker_of` deals it (oracle.harness.shards; by hand in test_shards.py)
    assert sorted(sorted(d["index"] for d, _ in _read_log(log)[1]) for log in logs) == [[0, 3, 4, 7, 8],
                                                                                       [1, 2, 5, 6, 9]]
    written = {path: path.stat().st_mtime_ns for path in directory.iterdir()}
    for name, flags in (("warm-two", ("--jobs", "2")), ("warm-one", ())):
        assert check(tmp_path / name, CLEAN, *flags, examples=10) == 0
        assert _comparable(tmp_path / name) == _comparable(tmp_path / "cold")
        assert {path: path.stat().st_mtime_ns for path in directory.iterdir()} == written, "nothing recomputed"


def _entry(index, request):
    prepared = Prepared(request, expected=Expected(rejected=True, reason="why"), features=("a", "b"))
    return ExampleEntry(index, {"example": prepared})


def test_an_entry_reads_back_as_written_and_any_damage_makes_it_empty(tmp_path):
    capabilities = Capabilities(levels=("sentence", "corpus"), max_order=6, weights="any", smoothing=("none",),
                                statistics=True, lowercase=False)
    request = example_request(0, 3, capabilities)
    cache = SearchCache(tmp_path, "e" * 32)
    cache.store(_entry(3, request))
    cache.close()
    back = SearchCache(tmp_path, "e" * 32).load(3)
    assert back.loaded and back.inputs["example"].request == request
    assert back.inputs["example"].expected == Expected(rejected=True, reason="why")
    assert back.inputs["example"].features == ("a", "b") and not back.dirty()
    (log,) = _logs(tmp_path / ("e" * 32))
    data = log.read_bytes()
    entry_header = data.split(b"\n")[1]
    for damaged in (data.split(b"\n")[0] + b"\n", data[:-5], data.replace(b'"a"', b'"z"'), data[:-1] + b"x"):
        log.write_bytes(damaged)
        assert not SearchCache(tmp_path, "e" * 32).load(3).loaded, damaged[-40:]
    # example 3's entry under example 5's header: the checksum covers the index too
    log.write_bytes(data.replace(entry_header, entry_header.replace(b'"index":3', b'"index":5')))
    reader = SearchCache(tmp_path, "e" * 32)
    assert not reader.load(5).loaded and not reader.load(3).loaded
    assert not SearchCache(tmp_path, "e" * 32).load(4).loaded  # never written


def test_the_cache_reads_what_it_wrote_with_pydantics_json_parser_on_the_bytes(tmp_path, monkeypatch):
    """The read path: each entry's content parsed and validated in one pass by pydantic (`model_validate_json` on
    the bytes read, `CachedContent`), the requests parsed from their wire lines' bytes by pydantic-core's parser
    (`from_json`: a 65,600-token line costs a fifth less so than through `model_validate_json`), then validated; no
    `json.loads`, no `model_validate` of an expectation. A content the models refuse (its checksum made to fit) is
    not a hit."""

    capabilities = Capabilities(levels=("sentence", "corpus"), max_order=6, weights="any", smoothing=("none",),
                                statistics=True, lowercase=False)
    cache = SearchCache(tmp_path, "e" * 32)
    for index in (3, 4):
        cache.store(_entry(index, example_request(0, index, capabilities)))
    cache.close()
    parsed, lines = [], []
    original = searchcache.CachedContent.model_validate_json.__func__
    parse = searchcache.from_json

    def counted(cls, data, *args, **kwargs):
        parsed.append(data)
        return original(cls, data, *args, **kwargs)

    def parsed_line(data, *args, **kwargs):
        lines.append(data)
        return parse(data, *args, **kwargs)

    def refused(*args, **kwargs):
        raise AssertionError("the cache's read path built Python objects to validate them")

    monkeypatch.setattr(searchcache.CachedContent, "model_validate_json", classmethod(counted))
    monkeypatch.setattr(searchcache.json, "loads", refused)
    monkeypatch.setattr(searchcache, "from_json", parsed_line)
    monkeypatch.setattr(Expected, "model_validate", refused)
    back = SearchCache(tmp_path, "e" * 32).load(3)
    assert back.loaded and back.inputs["example"].request == example_request(0, 3, capabilities)
    assert back.inputs["example"].expected == Expected(rejected=True, reason="why")
    assert len(parsed) == 1 and isinstance(parsed[0], bytes) and parsed[0].startswith(b'{"inputs":')
    assert lines and all(isinstance(line, bytes) and line.startswith(b'{"cmd":"score"') for line in lines)
    monkeypatch.undo()
    (log,) = _logs(tmp_path / ("e" * 32))
    header, entries, _ = _read_log(log)
    for position, (described, body) in enumerate(entries):
        if described["index"] == 4:  # features must be names: [1, 2] is refused, checksum or not
            entries[position] = (described, body.replace(b'"features":["a","b"]', b'"features":[1,2]', 1))
            assert entries[position][1] != body
    _write_log(log, header, entries)
    again = SearchCache(tmp_path, "e" * 32)
    assert again.load(3).loaded and not again.load(4).loaded


def _long_runs_request():
    """A sentence request whose hypothesis is a run of 65,600 copies of one token and whose first reference is two
    runs (one of a token JSON escapes: a quote, a non-ASCII letter), beside a short reference."""
    return ScoreRequest(level="sentence", weights=(0.25,) * 4, segments=(Segment(
        hypothesis=("ab",) * 65600, references=(("ab",) * 30000 + ('c\u00e9"',) * 35600, ("x", "y"))),))


def test_a_line_of_long_runs_is_kept_as_its_runs_and_read_back_without_parsing_the_line(tmp_path, monkeypatch):
    """A 65,600-token run's line (megabytes, which pydantic's parser read on every warm run) is kept as its skeleton
    and its runs: the entry holds neither the line nor the tokens one by one, and reads back as the same request
    with the same line (`body_of`, the line sent); no line of it past a few hundred bytes is parsed. A long list of
    distinct tokens is kept as its line."""
    distinct = ScoreRequest(level="sentence", weights=(0.5, 0.5), segments=(Segment(
        hypothesis=tuple(f"t{k}" for k in range(12000)), references=(("t1",),)),))
    cache = SearchCache(tmp_path, "e" * 32)
    cache.store(_entry(3, _long_runs_request()))
    cache.store(_entry(4, distinct))
    cache.close()
    (log,) = _logs(tmp_path / ("e" * 32))
    _, entries, _ = _read_log(log)
    sizes = {described["index"]: len(body) for described, body in entries}
    assert sizes[3] < 2000 and sizes[4] > len(searchcache.body_of(distinct))
    parsed = []
    parse = searchcache.from_json

    def counted(data, *args, **kwargs):
        parsed.append(len(data))
        return parse(data, *args, **kwargs)

    monkeypatch.setattr(searchcache, "from_json", counted)
    reader = SearchCache(tmp_path, "e" * 32)
    for index, request in ((3, _long_runs_request()), (4, distinct)):
        prepared = reader.load(index).inputs["example"]
        assert prepared.request == request and prepared.body == searchcache.body_of(request)
        assert bytes(wire_line(prepared.wire_body(), 9)) == encode(request.with_seq(9).to_json()).encode() + b"\n"
        if index == 3:
            assert parsed and max(parsed) < 1000
    assert max(parsed) > 64 * 1024  # (the distinct tokens' line, parsed whole)


@pytest.mark.parametrize("change", ["count past the bound", "count zero", "stand-in twice"])
def test_a_compact_form_the_cache_would_not_write_is_not_a_hit(tmp_path, monkeypatch, change):
    """A compact form altered with its checksum made to fit is ignored (the example computed afresh), never expanded
    into a request its line does not say: a count that makes the line longer than an entry may be (refused before
    the tokens are made), a count of zero, a stand-in put where another was."""
    cache = SearchCache(tmp_path, "e" * 32)
    cache.store(_entry(3, _long_runs_request()))
    cache.close()
    (log,) = _logs(tmp_path / ("e" * 32))
    header, entries, _ = _read_log(log)
    (described, body), = entries
    if change == "count past the bound":
        monkeypatch.setattr(searchcache, "ENTRY_LIMIT_BYTES", 1024 * 1024)  # 300,000 copies: 1.5 MB of line
        changed = body.replace(b'[["ab",65600]]', b'[["ab",300000]]', 1)
    elif change == "count zero":
        changed = body.replace(b'[["ab",65600]]', b'[["ab",0]]', 1)
    else:
        changed = body.replace(b'"\\u00001\\u0000"', b'"\\u00000\\u0000"', 1)
    assert changed != body
    assert SearchCache(tmp_path, "e" * 32).load(3).loaded
    _write_log(log, header, [(described, changed)])
    assert not SearchCache(tmp_path, "e" * 32).load(3).loaded


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
    cache.close()
    inputs = SearchCache(tmp_path, "e" * 32).load(3).inputs
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
            line = wire_line(body, seq)
            assert bytes(line) == encode(request.with_seq(seq).to_json()).encode("utf-8") + b"\n"
            if len(body) > searchcache._WHOLE_LINE_CHARACTERS:  # a long line is given in pieces, never whole
                assert isinstance(line, PiecedLine)
                assert max(map(len, line.pieces())) <= searchcache._WHOLE_LINE_CHARACTERS + len(str(seq)) + 32


def test_the_wire_form_is_the_json_form_with_the_requests_own_token_sequences():
    """`ScoreRequest.wire_form` (what the wire line and the record digest are encoded from) writes the same JSON as
    `to_json`, its keys in the same order, without seq where asked, and its segments hold the request's own tuples
    (`to_json` copies each into a list: a 65,600-token run's, 0.5 MB a sequence)."""
    capabilities = Capabilities(levels=("sentence", "corpus"), max_order=12, weights="any", lowercase=True,
                                smoothing=("none", "floor", "add-k"), tokenizers=("13a", "intl", "char"),
                                statistics=True, conventions={"reference_length": ["shortest", "closest"]})
    planned = ScoreRequest.from_json({  # a stateful plan (its earlier corpora are segments too), conventions
        "cmd": "score", "seq": 3, "level": "corpus", "weights": [0.5, 0.5], "smoothing": {"method": "none"},
        "lowercase": True, "conventions": {"empty_order": "skip", "reference_length": "shortest"},
        "segments": [{"hypothesis": ["a", "b"], "references": [["a"], ["b", "c"]]}, {"hypothesis": ["x"],
                                                                                    "references": [["x"]]}],
        "stateful": {"shards": [[1], [1]], "merge": [1, 0], "previous": [[{"hypothesis": ["p"], "references": [[]]}]]}})
    examples = [example_request(0, index, capabilities).with_seq(index + 1) for index in [*range(60), 14 + 30 * 40]]
    for request in [planned, *examples]:
        as_json = request.to_json()
        assert encode(request.wire_form()) == encode(as_json) and list(request.wire_form()) == list(as_json)
        without = request.wire_form(seq=False)
        assert list(without) == [key for key in as_json if key != "seq"]
        assert encode(without) == encode({key: value for key, value in as_json.items() if key != "seq"})
        for segment, written in zip(request.segments, without["segments"], strict=True):
            assert written["hypothesis"] is segment.hypothesis and written["references"] is segment.references


def _literal_body(request):
    """The line without seq as json writes the request's JSON form (pydantic's lists), every token walked."""
    wire = {k: v for k, v in request.to_json().items() if k != "seq"}
    return json.dumps(wire, ensure_ascii=True, allow_nan=False, separators=(",", ":"))


def test_the_body_is_the_request_without_seq_as_json_writes_it():
    """`body_of` writes the segments' tuples as they are (no copy into lists) and looks for sequences to splice only in
    a request of more than wire.LONG_SEQUENCE tokens: the line is json's of the request's JSON form all the same,
    for requests of every focus (a 65,600-token run, a 2,000-segment corpus, text requests), one with conventions,
    one with a stateful plan (segments inside it too), and one of many short sequences past LONG_SEQUENCE together."""
    capabilities = Capabilities(levels=("sentence", "corpus"), max_order=12, weights="any", lowercase=True,
                                smoothing=("none", "floor", "add-k"), tokenizers=("13a", "intl", "char"),
                                statistics=True)
    requests = [example_request(0, index, capabilities) for index in [*range(30), 14 + 30 * 40]]
    short = Segment(hypothesis=("caf\u00e9", "a\x7f", "\u2028"), references=(("b",), ("caf\u00e9", "\U0001f600")))
    requests += [
        ScoreRequest(level="corpus", segments=(short, short), weights=(0.25,) * 4, smoothing="add-k",
                     conventions={"empty_order": "skip", "reference_length": "shortest"}),
        ScoreRequest(level="corpus", segments=(short, short, short), weights=(0.5, 0.5),
                     stateful={"shards": [[1], [2]], "merge": [1, 0], "previous": [[short]]}),
        ScoreRequest(level="corpus", segments=(Segment(hypothesis=("w",) * 1500, references=(("w",) * 1500,)),) * 2,
                     weights=(1.0,)),
    ]
    for request in requests:
        assert searchcache.body_of(request) == _literal_body(request)


def test_the_run_key_changes_with_each_part_it_depends_on():
    capabilities = Capabilities(levels=("sentence",), max_order=4, smoothing=("none",), statistics=True,
                                weights="uniform", lowercase=False)
    other = capabilities.model_copy(update={"levels": ("corpus",)})
    base = run_key(0, capabilities, "papineni", 36)
    others = {run_key(1, capabilities, "papineni", 36), run_key(0, other, "papineni", 36),
              run_key(0, capabilities, "sacrebleu", 36), run_key(0, capabilities, "papineni", 0)}
    assert base not in others and len(others) == 4
    assert len(searchcache.oracle_version()) == 64


def test_eviction_removes_least_recently_used_runs_then_the_current_runs_other_logs_then_its_own_tail(tmp_path):
    """The bound: after a run that wrote, the cache's files total at most `limit` bytes. Whole run directories go
    first, least recently used first; then the current run's other logs; then its own log is cut at the end of an
    entry, its first entries kept (a log of only its header is removed)."""
    assert searchcache.open_root(tmp_path) == tmp_path  # (an empty directory: made the cache's)
    old, recent = (tmp_path / (digit * 32) for digit in "01")
    for age, directory in enumerate((old, recent)):
        directory.mkdir()
        (directory / "0123456789abcdef.log").write_bytes(b"x" * 400)
        os.utime(directory, (time.time() - 1000 + age * 100,) * 2)
    current = _stored(tmp_path, KEY, 0)
    current.close()
    (earlier,) = _logs(current.directory)
    os.utime(earlier, (time.time() - 100,) * 2)
    own = _stored(tmp_path, KEY, 1, 2, 3)
    own.close()
    (own_log,) = set(_logs(current.directory)) - {earlier}
    sizes = [len(json.dumps(d, separators=(",", ":"))) + 1 + len(body) + 1 for d, body in _read_log(own_log)[1]]
    header_size = len(own_log.read_bytes().partition(b"\n")[0]) + 1
    total = 800 + earlier.stat().st_size + own_log.stat().st_size
    evict(tmp_path, total - 1, keep=current.directory, own=own_log.name)
    assert not old.exists() and recent.exists() and len(_logs(current.directory)) == 2
    evict(tmp_path, total - 401, keep=current.directory, own=own_log.name)
    assert not recent.exists() and _logs(current.directory) == sorted([earlier, own_log])
    evict(tmp_path, own_log.stat().st_size, keep=current.directory, own=own_log.name)
    assert _logs(current.directory) == [own_log], "the other log before the own one"
    # the bound: the header and the first two entries (examples 1 and 2), one byte short of the third
    limit = header_size + sizes[0] + sizes[1] + sizes[2] - 1
    evict(tmp_path, limit, keep=current.directory, own=own_log.name)
    assert own_log.stat().st_size == header_size + sizes[0] + sizes[1] <= limit
    assert [d["index"] for d, _ in _read_log(own_log)[1]] == [1, 2] and _read_log(own_log)[2] == b""
    reader = SearchCache(tmp_path, KEY)
    assert [reader.load(index).loaded for index in (1, 2, 3)] == [True, True, False]
    evict(tmp_path, 1, keep=current.directory, own=own_log.name)
    assert not _logs(current.directory)


def test_a_run_bounded_by_the_environment_leaves_the_cache_within_its_bound(tmp_path, monkeypatch):
    """$BLEU_ORACLE_SEARCH_CACHE_BYTES after a whole run: the cache's files (marker aside) total at most the bound,
    and a warm run on what is left writes the cold run's records."""
    monkeypatch.setenv("BLEU_ORACLE_SEARCH_CACHE", str(tmp_path / "cache"))
    monkeypatch.setenv("BLEU_ORACLE_SEARCH_CACHE_BYTES", "30000")
    assert check(tmp_path / "cold", CLEAN, examples=12) == 0
    (directory,) = _run_directories(tmp_path / "cache")
    (log,) = _logs(directory)
    assert 0 < log.stat().st_size <= 30000
    assert 0 < len(_read_log(log)[1]) < 12  # (12 examples hold more than 30,000 bytes: some were cut)
    assert check(tmp_path / "warm", CLEAN, examples=12) == 0
    assert _comparable(tmp_path / "warm") == _comparable(tmp_path / "cold")
    assert sum(path.stat().st_size for path in directory.iterdir()) <= 30000


def test_many_logs_of_one_run_key_are_compacted_into_one(tmp_path):
    """`COMPACT_AT_LOGS` settled logs (runs that each added examples) are merged into one log holding each example
    once, and every example still reads back."""
    for index in range(searchcache.COMPACT_AT_LOGS - 1):
        _stored(tmp_path, KEY, index).close()
    directory = tmp_path / KEY
    assert len(_logs(directory)) == searchcache.COMPACT_AT_LOGS - 1
    last = SearchCache(tmp_path, KEY)
    assert last.load(0).loaded  # (the logs are read: they are settled, as they were written before)
    capabilities = Capabilities(levels=("sentence",), max_order=4, smoothing=("none",), statistics=True,
                                weights="uniform", lowercase=False)
    last.store(_entry(9, example_request(0, 9, capabilities)))
    last.close()
    (log,) = _logs(directory)
    assert sorted(d["index"] for d, _ in _read_log(log)[1]) == [*range(searchcache.COMPACT_AT_LOGS - 1), 9]
    reader = SearchCache(tmp_path, KEY)
    assert all(reader.load(index).loaded for index in (*range(searchcache.COMPACT_AT_LOGS - 1), 9))


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
def test_a_log_that_is_not_a_regular_file_is_ignored_and_left_alone(tmp_path, kind):
    """The run's log replaced by a FIFO (reading it waited for a writer for ever) or a symlink to /dev/zero (read
    without bound): the warm run ignores it, computes every example, writes the cold run's records, and leaves what
    is there in place (it is not the cache's to replace)."""
    cache = tmp_path / "cache"
    assert _check_in_a_subprocess(tmp_path / "cold", cache) == 0
    (directory,) = (path for path in cache.iterdir() if path.is_dir())
    (log,) = _logs(directory)
    log.unlink()
    if kind == "fifo":
        os.mkfifo(log)
    else:
        log.symlink_to("/dev/zero")
    assert _check_in_a_subprocess(tmp_path / "warm", cache) == 0
    assert _comparable(tmp_path / "warm") == _comparable(tmp_path / "cold")
    if kind == "fifo":
        assert log.is_fifo()
    else:
        assert os.readlink(log) == "/dev/zero"
    assert len(_logs(directory)) == 2, "the warm run wrote a log of its own beside it"


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


def test_two_writers_compacting_never_bring_back_an_entry_the_other_wrote_again(tmp_path):
    """Two processes of one run key (--jobs 2 workers) read a log holding examples 2 and 5, each writes one of them
    again (a discarded expectation, say), and each closes the cache, compacting what it read: afterwards both
    examples read back as written again. (With one generation per log, the second compaction's log, newer, held
    the first's example as it was before, and brought it back: test_confirm's --jobs 2 run failed so here.)"""
    capabilities = Capabilities(levels=("sentence",), max_order=4, smoothing=("none",), statistics=True,
                                weights="uniform", lowercase=False)

    def entry(index, reason):
        expected = Expected(rejected=True, reason=reason)
        return ExampleEntry(index, {"example": Prepared(example_request(0, index, capabilities), expected=expected)})

    first = SearchCache(tmp_path, KEY)
    first.store(entry(2, "before"))
    first.store(entry(5, "before"))
    first.close()
    time.sleep(0.01)  # (the log is settled: written before the writers below open the cache)
    even, odd = SearchCache(tmp_path, KEY), SearchCache(tmp_path, KEY)
    assert even.load(2).loaded and odd.load(5).loaded
    discard(even, 2)
    even.store(entry(2, "again"))
    discard(odd, 5)
    odd.store(entry(5, "again"))
    even.close()
    odd.close()
    reader = SearchCache(tmp_path, KEY)
    assert [reader.load(index).inputs["example"].expected.reason for index in (2, 5)] == ["again", "again"]


def test_an_entry_past_the_size_bound_or_through_a_symlinked_run_directory_is_not_read(tmp_path, monkeypatch):
    """An entry whose header says it is larger than the bound ends what is read of its log (nor is one written);
    a run directory that is a symlink (to a copy of the logs, say) is neither read nor written through."""
    cache = _stored(tmp_path / "cache", KEY, 0, 1)
    cache.close()
    assert SearchCache(tmp_path / "cache", KEY).load(1).loaded
    (log,) = _logs(cache.directory)
    second = _read_log(log)[1][1][0]["length"]
    monkeypatch.setattr(searchcache, "ENTRY_LIMIT_BYTES", second - 1)
    reader = SearchCache(tmp_path / "cache", KEY)
    assert reader.load(0).loaded and not reader.load(1).loaded
    monkeypatch.undo()
    cache.directory.rename(tmp_path / "copy")
    cache.directory.symlink_to(tmp_path / "copy", target_is_directory=True)
    assert not SearchCache(tmp_path / "cache", KEY).load(0).loaded
    again = _stored(tmp_path / "cache", KEY, 2)
    assert not again.wrote and [p.name for p in (tmp_path / "copy").iterdir()] == [log.name]


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


def _digest_as_first_written(package):
    """`oracle_version`'s hash as it was first written (a `pathlib` walk), the reference `package_digest` must equal."""
    digest = hashlib.sha256()
    for path in sorted(package.rglob("*")):
        relative = path.relative_to(package)
        if not path.is_file() or relative.parts[0] in ("commands", "reports") or "__pycache__" in relative.parts \
                or path.suffix in (".pyc", ".pyo"):
            continue
        digest.update(str(relative).encode("utf-8") + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()


def test_the_oracle_version_is_the_hash_the_pathlib_walk_made_of_the_same_files(tmp_path):
    package = searchcache.Path(searchcache.__file__).resolve().parents[1]
    assert searchcache.oracle_version() == searchcache.package_digest(package) == _digest_as_first_written(package)
    # A tree with what each rule is about: top-level commands/ and reports/ left out (a file so named too) but not
    # deeper ones; __pycache__ anywhere and .pyc/.pyo left out; dot files, a symbolic link to a file kept, one to a
    # directory not entered; "a/b" sorted before "a-b/x" (part by part, as paths compare), not after (as strings).
    for relative in ("a/b", "a-b/x", "commands/c.py", "reports/r.py", "x/commands/kept.py", "x/reports/kept.py",
                     "commands.py", "__pycache__/m.cpython-311.pyc", "x/__pycache__/m.py", "x/m.pyc", "x/m.pyo",
                     ".hidden", "x/.pyc", "z.py"):
        (tmp_path / relative).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / relative).write_text(relative, encoding="utf-8")
    (tmp_path / "reports2").write_text("a file named like no directory left out", encoding="utf-8")
    (tmp_path / "link.py").symlink_to(tmp_path / "z.py")
    (tmp_path / "linked").symlink_to(tmp_path / "x", target_is_directory=True)
    assert searchcache.hashed_files(tmp_path) == [
        (".hidden",), ("a", "b"), ("a-b", "x"), ("commands.py",), ("link.py",), ("reports2",), ("x", ".pyc"),
        ("x", "commands", "kept.py"), ("x", "reports", "kept.py"), ("z.py",)]
    assert searchcache.package_digest(tmp_path) == _digest_as_first_written(tmp_path)
    (tmp_path / "commands").rename(tmp_path / "commands-moved")  # now hashed: both change alike
    assert searchcache.package_digest(tmp_path) == _digest_as_first_written(tmp_path)


@pytest.mark.parametrize(("tokens", "from_the_wire"), [
    (("plain", "ascii", "words", "tab\there", "line\nbreak"), True),  # \t, \n: escaped alike in both encodings
    (("caf\u00e9",), False),  # above U+007F: escaped on the wire, as it is in the digested line
    (("\x7f",), False),  # DEL: json's ASCII encoder escapes it, the other one does not
    (("\u2028", "\U0001f600"), False),  # a line separator, a character outside the BMP (a surrogate pair on the wire)
    (("a\x00b",), False),  # a control character without a short escape: \u0000 in both encodings
    (("back\\u00e9slash",), False),  # a backslash then "u": no escaped character, but read as one (conservative)
    (("run",) * 2500 + ("caf\u00e9",), False),  # past wire.LONG_SEQUENCE: the line spliced from each token's text
    (("run",) * 2500, True),
    (("\U0001f600",) * 65_600, False),  # past wire.PIECE_TOKENS: hashed in pieces, a line of 4 bytes a character
], ids=["ascii", "latin", "del", "separators", "control", "backslash-u", "long-latin", "long-ascii", "long-wide"])
def test_a_record_digest_from_the_wire_line_is_the_digest_of_the_line_a_person_reads(tokens, from_the_wire):
    # request_digest hashes the line without seq with non-ASCII text as it is (ensure_ascii=False); a Prepared takes
    # it from its ASCII wire line where that line has no \u escape: the same line then, so the same sha256
    request = ScoreRequest(seq=7, level="corpus", weights=(0.5, 0.5), segments=(
        Segment(hypothesis=tokens, references=(tokens[::-1],)),))
    prepared = Prepared(request)
    assert prepared.record_digest() == searchcache.request_digest(request)
    assert (searchcache.digest_of_body(prepared.wire_body()) is not None) == from_the_wire
    # ... and both are the sha256 of that line as json's own encoder writes it, whole
    line = json.dumps({k: v for k, v in request.to_json().items() if k != "seq"}, ensure_ascii=False,
                      separators=(",", ":"))
    assert searchcache.request_digest(request) == hashlib.sha256(line.encode("utf-8")).hexdigest()


@pytest.mark.parametrize("lengths", [(0,), (10, 3), (70_000, 5, 131_073)], ids=["empty", "short", "past-a-piece"])
def test_an_entry_filled_from_its_lines_is_the_entry_written_from_its_joined_body(lengths):
    """The log's entry of a body given as its lines (`_entry_of_parts`, given in pieces of at most 64 KiB) is
    byte for byte the entry of the joined body (`_entry_bytes`), and its header's checksum is the sha256 of the index
    and generation in decimal, each followed by a newline, then the body (the format, in the module's docstring)."""
    parts = ["x" * n if k % 2 else "{" + "y" * n for k, n in enumerate(lengths)]
    body = "\n".join(parts).encode("ascii")
    pieces = list(searchcache._entry_of_parts(12, 3, parts))
    entry = b"".join(pieces)
    assert entry == searchcache._entry_bytes(12, 3, body)
    # one piece under 64 KiB; a longer entry in pieces of at most 64 KiB (its header, its lines' pieces, newlines)
    assert len(pieces) == 1 if len(body) <= 64 * 1024 else max(map(len, pieces)) <= 64 * 1024
    header = json.loads(entry.split(b"\n", 1)[0])
    assert header == {"index": 12, "generation": 3, "length": len(body),
                      "sha256": hashlib.sha256(b"12\n3\n" + body).hexdigest()}
    assert entry.endswith(b"\n" + body + b"\n")


def test_an_entrys_content_line_is_json_of_its_inputs_and_values_each_value_once():
    """The content line, each value's JSON made once and joined (`_entry_body`), is what json.dumps writes of the
    entry's content as the format says ({"inputs": name -> number, "values": [...], "series": ...}, ASCII, NaN
    allowed, no spaces), values told apart as before: one `Prepared` sent twice, and two that hold equal values,
    are one value; two that differ in what was computed about them are two. Built here by hand, literally."""
    capabilities = Capabilities(levels=("sentence", "corpus"), max_order=6, weights="any", smoothing=("none",),
                                statistics=True, lowercase=False)
    first, second = example_request(0, 3, capabilities), example_request(0, 4, capabilities)
    nan = Expected(score=float("nan"), score_exact="NaN", notes=("ü, a note \u2028 past ASCII",))
    shared = Prepared(first, expected=nan, features=("a",))
    entry = ExampleEntry(3, {"example": shared, "series/0": shared,
                             "series/1": Prepared(first, expected=nan, features=("a",)),
                             "series/2": Prepared(first, expected=nan, features=("b",)),
                             "text": Prepared(second, expected=Expected(rejected=True, reason="why"))},
                         series=[(0, "weights"), (1, "lowercase")])
    body = _entry_body(entry)
    numbers: dict[str, int] = {}  # (each value as `Prepared.to_entry` gives it, its line numbered in order met)
    values = [entry.inputs[name].to_entry(numbers) for name in ("example", "series/2", "text")]
    assert list(numbers) == [body_of(first), body_of(second)] and values[0]["features"] == ["a"]
    lines = list(numbers)
    content = {"inputs": {"example": 0, "series/0": 0, "series/1": 0, "series/2": 1, "text": 2}, "values": values,
               "series": [[0, "weights"], [1, "lowercase"]]}
    assert body == [json.dumps(content, ensure_ascii=True, allow_nan=True, separators=(",", ":")), *lines]
    assert "NaN" in body[0] and body[0].isascii()
    without_series = _entry_body(ExampleEntry(4, {"example": shared}))
    assert without_series[0] == json.dumps({"inputs": {"example": 0}, "values": [values[0]]},
                                           ensure_ascii=True, allow_nan=True, separators=(",", ":"))
