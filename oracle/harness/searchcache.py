"""A cache across runs of what the search computes per example and what depends only on the example's key.

Example I of seed S is the same input in every run with the same capabilities, profile and series length
(`oracle.harness.generate`): so are its companions (text, refused, series) and the oracle's verdict on each
of them. CI runs the same seed every time, so a warm cache is its steady state. For each example the cache
keeps, per input the example sends (`Prepared`): the request's wire line without its seq (the request is
read back from it; each distinct line once, as a line of the entry's file), the oracle's expectation, the
coverage features, and a large request's record digest.
Replies, verdicts and records are never cached: every run asks the implementation and judges its answers.

Where: $BLEU_ORACLE_SEARCH_CACHE, else $XDG_CACHE_HOME/bleu-oracle/search (default ~/.cache/bleu-oracle/search),
one directory per run key (`run_key`: seed, the capabilities' canonical JSON, the judged profile, the series
length, and `oracle_version`, a hash of the source of every module of `oracle/` but the commands and the
reports), one file per example. A file is written whole or not at all (a temporary file, then a rename).

Never trusted: a file that cannot be read, does not parse, fails its checksum, or names another key or
example is ignored, and the example is computed afresh (and written again). A foreign oracle version has a
directory of its own, evicted in its turn. The whole cache is bounded (`limit_bytes`: 512 MiB unless
$BLEU_ORACLE_SEARCH_CACHE_BYTES says otherwise): after a run that wrote entries, the least recently used
run directories go first, then the run's own highest examples, until the total is within the bound.
`check --no-search-cache` bypasses it entirely.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import shutil
import time
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any

from oracle.files import user_cache, write_atomically
from oracle.models.outcomes import Expected
from oracle.models.protocol import Capabilities, ScoreRequest
from oracle.models.wire import encode

#: The layout of an entry; an entry of another format is ignored.
FORMAT = 1
#: The cache's bound unless $BLEU_ORACLE_SEARCH_CACHE_BYTES says otherwise.
DEFAULT_LIMIT_BYTES = 512 * 1024 * 1024
#: The packages of `oracle/` whose source the cached values do not depend on (the verbs and the reports).
_NOT_HASHED = ("commands", "reports")
#: How every score command's wire line starts: the seq is spliced in after it (`wire_line`).
_HEAD = '{"cmd":"score",'


def cache_root() -> Path:
    """$BLEU_ORACLE_SEARCH_CACHE, else the user's cache directory's bleu-oracle/search."""
    return user_cache("BLEU_ORACLE_SEARCH_CACHE", "search")


def limit_bytes() -> int:
    """The cache's total size bound ($BLEU_ORACLE_SEARCH_CACHE_BYTES when it is a whole number)."""
    text = os.environ.get("BLEU_ORACLE_SEARCH_CACHE_BYTES", "")
    return int(text) if text.isdigit() else DEFAULT_LIMIT_BYTES


@cache
def oracle_version() -> str:
    """A hash of every file of `oracle/` the cached values may depend on (all but commands/ and reports/):
    any change of the oracle, the generator, coverage or the models starts a cache of its own."""
    package = Path(__file__).resolve().parents[1]
    digest = hashlib.sha256()
    for path in sorted(package.rglob("*")):
        relative = path.relative_to(package)
        if not path.is_file() or relative.parts[0] in _NOT_HASHED or "__pycache__" in relative.parts \
                or path.suffix in (".pyc", ".pyo"):
            continue
        digest.update(str(relative).encode("utf-8") + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()


def run_key(seed: int, capabilities: Capabilities, profile: str, series_length: int) -> str:
    """What every cached value of a run depends on besides the example's index, as one hash."""
    canonical = json.dumps(
        {"format": FORMAT, "oracle": oracle_version(), "seed": seed, "capabilities": capabilities.to_json(),
         "profile": profile, "series_length": series_length},
        sort_keys=True, separators=(",", ":"), ensure_ascii=True,
    )
    return hashlib.sha256(canonical.encode("ascii")).hexdigest()[:32]


def body_of(request: ScoreRequest) -> str:
    """`request`'s wire line without its seq (the line sent is `wire_line(body, seq)`)."""
    wire = request.to_json()
    wire.pop("seq", None)
    return encode(wire)


def request_digest(request: ScoreRequest) -> str:
    """The sha256 a record keeps of a request too large to keep whole: of its line without seq, non-ASCII text
    as it is (the line a person reads)."""
    wire = request.to_json()
    wire.pop("seq", None)
    return hashlib.sha256(encode(wire, ensure_ascii=False).encode("utf-8")).hexdigest()


def wire_line(body: str, seq: int) -> bytes:
    """The protocol line of a score command whose line without seq is `body`, with `seq` where `encode` puts it
    (right after "cmd"): the same bytes as encoding the command with its seq."""
    return (_HEAD + f'"seq":{seq},' + body[len(_HEAD):] + "\n").encode("utf-8")


@dataclass
class Prepared:
    """One input an example sends, with what the runner computes about it before the reply: its wire line
    without seq, the oracle's expectation, its coverage features, and (a request past the record limit) the
    digest its record keeps. Each is None until computed; `fresh` says something was computed here."""

    request: ScoreRequest
    body: str | None = None
    expected: Expected | None = None
    features: tuple[str, ...] | None = None
    digest: str | None = None
    fresh: bool = True

    def wire_body(self) -> str:
        if self.body is None or not self.body.startswith(_HEAD):
            self.body, self.fresh = body_of(self.request), True
        return self.body

    def record_digest(self) -> str:
        """The digest a record of this (large) request keeps (`request_digest`), computed once."""
        if self.digest is None:
            self.digest, self.fresh = request_digest(self.request), True
        return self.digest

    def to_entry(self, lines: dict[str, int]) -> dict[str, Any]:
        """What the entry keeps of this input: its wire line as the number of a line of the file (`lines`: each
        distinct line once, in the order first met; a line is ASCII JSON, which holds no newline), the rest."""
        body = self.wire_body()
        return {"body": lines.setdefault(body, len(lines)),
                "expected": None if self.expected is None else self.expected.model_dump(),
                "features": None if self.features is None else list(self.features), "digest": self.digest}

    @classmethod
    def from_entry(cls, entry: dict[str, Any], lines: list[bytes]) -> Prepared:
        """An entry read back (validated through the models: a value the models refuse makes the file ignored);
        `lines`: the file's wire lines."""
        number = entry["body"]
        if type(number) is not int or not 0 <= number < len(lines):
            raise ValueError("no such line")
        body = lines[number].decode("ascii")
        if not body.startswith(_HEAD):
            raise ValueError("not a score command")
        expected, features, digest = entry.get("expected"), entry.get("features"), entry.get("digest")
        if features is not None and not (isinstance(features, list) and all(isinstance(f, str) for f in features)):
            raise ValueError("features are not names")
        if digest is not None and not isinstance(digest, str):
            raise ValueError("digest is not a string")
        return cls(
            request=ScoreRequest.model_validate(json.loads(body)),
            body=body,
            expected=None if expected is None else Expected.model_validate(expected),
            features=None if features is None else tuple(features),
            digest=digest,
            fresh=False,
        )


@dataclass
class ExampleEntry:
    """What one example's inputs are: name ("example", "text", "refused", "series/K") -> Prepared, plus a
    series' step descriptions ("series": [[base, changed], ...])."""

    index: int
    inputs: dict[str, Prepared] = field(default_factory=dict)
    series: list[tuple[int, str]] | None = None
    loaded: bool = False

    def dirty(self) -> bool:
        return not self.loaded or any(p.fresh for p in self.inputs.values())


class SearchCache:
    """The entries of one run key (`run_key`) under `root`."""

    def __init__(self, root: Path, key: str):
        self.root, self.key = Path(root), key
        self.directory = self.root / key
        self.wrote = False

    def _path(self, index: int) -> Path:
        return self.directory / f"{index}.json"

    def load(self, index: int) -> ExampleEntry:
        """Example `index`'s entry as cached, or an empty one (nothing cached, or nothing trustworthy)."""
        try:
            data = self._path(index).read_bytes()
        except OSError:
            return ExampleEntry(index)
        try:
            return self._parse(index, data)
        except Exception:  # noqa: BLE001 (any damage at all: the entry is not trusted, the example is computed)
            return ExampleEntry(index)

    def _parse(self, index: int, data: bytes) -> ExampleEntry:
        head, _, rest = data.partition(b"\n")
        header = json.loads(head)
        if header != {"format": FORMAT, "key": self.key, "index": index,
                      "sha256": hashlib.sha256(rest).hexdigest()}:
            raise ValueError("foreign or damaged entry")
        described, *lines = rest.split(b"\n")
        content = json.loads(described)
        read: list[tuple[Any, Prepared]] = []  # a series sends its base inputs again: each one read once
        inputs = {}
        for name, value in content["inputs"].items():
            prepared = next((p for seen, p in read if seen == value), None)
            if prepared is None:
                prepared = Prepared.from_entry(value, lines)
                read.append((value, prepared))
            inputs[name] = prepared
        series = content.get("series")
        if series is not None:
            series = [(int(base), str(changed)) for base, changed in series]
        return ExampleEntry(index, inputs, series, loaded=True)

    def store(self, entry: ExampleEntry) -> None:
        """Write `entry` whole (atomically) when something in it was computed in this run; a full disk or a
        read-only cache only costs the next run the computation."""
        if not entry.dirty() or not entry.inputs:
            return
        lines: dict[str, int] = {}
        content: dict[str, Any] = {"inputs": {name: p.to_entry(lines) for name, p in entry.inputs.items()}}
        if entry.series is not None:
            content["series"] = [list(step) for step in entry.series]
        if any("\n" in line or not line.isascii() for line in lines):  # (encode writes neither)
            return
        # the wire lines as lines of the file, not JSON strings in JSON: read back without unescaping them
        rest = "\n".join([json.dumps(content, ensure_ascii=True, allow_nan=True, separators=(",", ":")), *lines])
        header = json.dumps({"format": FORMAT, "key": self.key, "index": entry.index,
                             "sha256": hashlib.sha256(rest.encode("ascii")).hexdigest()})
        with contextlib.suppress(OSError):
            write_atomically(self._path(entry.index), header + "\n" + rest)
            self.wrote = True

    def close(self) -> None:
        """After the run: mark this run's directory used, and bound the whole cache (`evict`)."""
        with contextlib.suppress(OSError):
            if self.directory.is_dir():
                os.utime(self.directory)
        if self.wrote:
            evict(self.root, limit_bytes(), keep=self.directory)


def _size(directory: Path) -> int:
    total = 0
    with contextlib.suppress(OSError), os.scandir(directory) as entries:
        for entry in entries:
            with contextlib.suppress(OSError):
                total += entry.stat().st_size
    return total


def evict(root: Path, limit: int, *, keep: Path | None = None) -> None:
    """Bound the cache under `root` to `limit` bytes: whole run directories, least recently used first, then
    (if `keep`, the current run's, alone is over the bound) its highest-numbered examples."""
    try:
        directories = [path for path in Path(root).iterdir() if path.is_dir()]
    except OSError:
        return
    sizes = {path: _size(path) for path in directories}
    total = sum(sizes.values())
    by_age = sorted((path for path in directories if path != keep), key=_mtime)
    for path in by_age:
        if total <= limit:
            return
        shutil.rmtree(path, ignore_errors=True)
        total -= sizes[path]
    if keep is not None and total > limit:
        _trim(keep, total - limit)


def _mtime(path: Path) -> float:
    try:
        return path.stat().st_mtime
    except OSError:
        return time.time()


def _trim(directory: Path, excess: int) -> None:
    """Remove the highest-numbered entries of `directory` until `excess` bytes are gone."""
    with contextlib.suppress(OSError):
        files = sorted(directory.glob("*.json"), key=lambda p: int(p.stem) if p.stem.isdigit() else -1, reverse=True)
        for path in files:
            if excess <= 0:
                return
            with contextlib.suppress(OSError):
                excess -= path.stat().st_size
                path.unlink()


def discard(cache: SearchCache, index: int) -> None:
    """Remove example `index`'s entry of `cache` (it held a value the oracle does not give: the session found it
    out before a failure rested on it); one that is gone already, or cannot be removed, is left as it is (the next
    run's session finds it out again)."""
    with contextlib.suppress(OSError):
        cache._path(index).unlink(missing_ok=True)
