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
length, the Python (implementation and version) and its Unicode database's version, which case folding and the
intl and char tokenizers follow, and `oracle_version`, a hash of the source of every module of `oracle/` but
the commands and the reports), one file per example. A file is written whole or not at all (a temporary file
of the cache's naming, then a rename).

Its own directory only (`open_root`): the cache's directory is marked by a cache directory tag (`MARKER`,
CACHEDIR.TAG, which backup tools skip) whose last line names the directory's layout (`ROOT_FORMAT`). A new or
empty directory is created or adopted and marked (so is an unmarked one holding nothing but run directories of
the cache's naming, as an earlier bleu-oracle left ~/.cache/bleu-oracle/search); one that holds anything else is
refused (BleuValueError: `check` and `fuzz` exit 2 before anything runs), since the cache deletes entries to
keep within its bound. One marked by another layout of the cache, or that cannot be created or marked
(read-only, no permission), is neither read nor written: the run goes on without it. Inside a marked directory
the cache deletes only what it can tell it wrote: regular files named as its entries (or their temporary
files) in directories named as run keys, and such a directory once it is empty; anything else put there is
neither counted nor touched. It never follows a symlink inside its directory (the directory's own name may be
one).

Never trusted: an entry that is not a regular file (a FIFO, a device, a symlink: not opened, or opened without
waiting and not read), is larger than `ENTRY_LIMIT_BYTES`, cannot be read, does not parse, fails its checksum,
or names another key or example is ignored, and the example is computed afresh (and written again, unless what
has the entry's name is not a regular file: that is left where it is). A foreign oracle version has a
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
import re
import secrets
import stat
import sys
import unicodedata
from collections.abc import Iterator
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any, Literal

from oracle.escaping import shown
from oracle.files import user_cache
from oracle.formulas.errors import BleuValueError
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
#: The variable that names the cache's directory.
VARIABLE = "BLEU_ORACLE_SEARCH_CACHE"
#: The file that marks a directory as the cache's: a cache directory tag (https://bford.info/cachedir/), which
#: backup tools skip, whose last line names the directory's layout.
MARKER = "CACHEDIR.TAG"
#: The layout of the cache's directory (the marker, run directories, entries): another layout's is left alone.
ROOT_FORMAT = 1
_MARKER_TEXT = ("Signature: 8a477f597d28d172789f06886806bc55\n"
                "# This file is a cache directory tag created by bleu-oracle's search cache; see\n"
                "# https://bford.info/cachedir/ (and docs/checking.md of bleu-oracle) about it.\n"
                f"bleu-oracle search cache, format {ROOT_FORMAT}\n")
_MARKER_LAYOUT = re.compile(rb"\ASignature: 8a477f597d28d172789f06886806bc55\n(?:#[^\n]*\n)*"
                            rb"bleu-oracle search cache, format ([0-9]{1,9})\n\Z")
#: A marker is a few hundred bytes: one larger is not the cache's.
_MARKER_LIMIT_BYTES = 4096
#: An entry is at most this large (the largest, a 2,000-segment corpus with its companions, is under 2 MB): a
#: larger one is not written, and a file past it is not read.
ENTRY_LIMIT_BYTES = 64 * 1024 * 1024
#: The names the cache gives what it writes: its run directories (`run_key`), its entries, their temporary files
#: (and those of the bleu-oracle before the marker, mkstemp's), and the marker's temporary files.
_RUN_NAME = re.compile(r"[0-9a-f]{32}")
_ENTRY_NAME = re.compile(r"(0|[1-9][0-9]{0,18})\.json")
_TEMPORARY_NAME = re.compile(r"\.(0|[1-9][0-9]{0,18})\.json\.(?:[0-9a-f]{16}\.tmp|[a-z0-9_]{8})")
_MARKER_TEMPORARY_NAME = re.compile(r"\.CACHEDIR\.TAG\.[0-9a-f]{16}\.tmp")
#: How the cache opens what it reads: never through a symlink, never waiting for a writer (a FIFO).
_READ_FLAGS = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC
_DIRECTORY_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC


def cache_root() -> Path:
    """$BLEU_ORACLE_SEARCH_CACHE, else the user's cache directory's bleu-oracle/search."""
    return user_cache(VARIABLE, "search")


def limit_bytes() -> int:
    """The cache's total size bound ($BLEU_ORACLE_SEARCH_CACHE_BYTES when it is a whole number)."""
    text = os.environ.get("BLEU_ORACLE_SEARCH_CACHE_BYTES", "")
    return int(text) if text.isdigit() else DEFAULT_LIMIT_BYTES


# -- the cache's own directory ------------------------------------------------------------------------------------


def open_root(root: Path | None = None) -> Path | None:
    """The cache's directory (`root`, default `cache_root()`), ready: created and marked when it is new, marked when
    it is empty (or holds nothing but run directories of the cache's naming, unmarked, as an earlier bleu-oracle
    left them), as it is when marked. None when the run goes on without it: it cannot be created, read or marked
    (read-only, no permission), or another layout of the cache marks it. Raises BleuValueError (a configuration
    error) when it is not a directory or holds anything else: the cache deletes what it wrote there."""
    root = cache_root() if root is None else Path(root)
    try:
        root.mkdir(parents=True, exist_ok=True)
        handle = os.open(root, _DIRECTORY_FLAGS)  # (the directory's own name may be a symlink: the user named it)
    except (FileExistsError, NotADirectoryError):
        raise BleuValueError(_refusal(root, "is not a directory")) from None
    except OSError:
        return None
    try:
        layout = _marker_layout(handle)
        if layout == "absent":
            foreign = _not_the_caches(handle)
            if foreign:
                raise BleuValueError(_refusal(root, f"holds what the search cache did not write ({foreign})"))
            layout = _adopt(handle)
        if layout == "foreign":
            raise BleuValueError(_refusal(root, f"holds a {MARKER} that is not the search cache's"))
    except OSError:
        return None
    finally:
        os.close(handle)
    return root if layout == ROOT_FORMAT else None


def _refusal(root: Path, why: str) -> str:
    """The one line that refuses `root` as the cache's directory, and says what to do."""
    directory = shown(str(root))
    if os.environ.get(VARIABLE):
        return (f"${VARIABLE} names {directory}, which {why}; the search cache needs a directory of its own (it "
                f"deletes what it wrote there to keep within its bound): point {VARIABLE} at an empty or new "
                "directory, or pass --no-search-cache")
    return (f"the search cache's directory {directory} ({VARIABLE} is not set) {why}; the search cache needs a "
            f"directory of its own: set {VARIABLE} to an empty or new directory, move what is there elsewhere, or "
            "pass --no-search-cache")


def _marker_layout(root: int) -> int | Literal["absent", "foreign"]:
    """The layout the marker of the directory open as `root` names; "absent" without one, "foreign" when the file
    of its name is not a marker of the cache's (another tool's tag, not a regular file). OSError: unreadable."""
    try:
        status = os.stat(MARKER, dir_fd=root, follow_symlinks=False)
    except FileNotFoundError:
        return "absent"
    if not stat.S_ISREG(status.st_mode):
        return "foreign"
    text = _read_regular(root, MARKER, _MARKER_LIMIT_BYTES)
    if text is None:
        raise OSError(f"{MARKER} cannot be read")
    layout = _MARKER_LAYOUT.match(text)
    return "foreign" if layout is None else int(layout.group(1))


def _not_the_caches(root: int) -> str:
    """What the unmarked directory open as `root` holds that the cache would not have written (a few names, for
    the message; "" when nothing): anything but run directories holding only entries, and marker temporaries."""
    foreign = []
    with os.scandir(root) as entries:
        for entry in entries:
            if not _written_by_the_cache(root, entry):
                # a name is the user's text: shown as every message shows it (oracle.escaping), escapes included
                foreign.append(shown(entry.name) + ("/" if entry.is_dir(follow_symlinks=False) else ""))
    listed = ", ".join(sorted(foreign)[:3])
    return listed + (f" and {len(foreign) - 3} more" if len(foreign) > 3 else "")


def _written_by_the_cache(root: int, entry: os.DirEntry[str]) -> bool:
    if entry.name == MARKER:  # (another run marking it meanwhile: `_adopt` reads which marker it is)
        return True
    if _MARKER_TEMPORARY_NAME.fullmatch(entry.name):
        return entry.is_file(follow_symlinks=False)
    if not _RUN_NAME.fullmatch(entry.name) or not entry.is_dir(follow_symlinks=False):
        return False
    try:
        run = os.open(entry.name, _DIRECTORY_FLAGS | os.O_NOFOLLOW, dir_fd=root)
    except OSError:
        return False
    try:
        return len(_own_files(run)) == len(os.listdir(run))
    finally:
        os.close(run)


def _adopt(root: int) -> int | Literal["absent", "foreign"]:
    """Mark the directory open as `root` as the cache's, and say which marker it holds then (`_marker_layout`).
    The marker is written whole under a temporary name, then linked to its own (a run looking meanwhile sees none
    or a whole one), never in place of a marker another run (or anything else) put there first."""
    temporary = f".{MARKER}.{secrets.token_hex(8)}.tmp"
    _write_new(root, temporary, _MARKER_TEXT.encode("ascii"))
    try:
        os.link(temporary, MARKER, src_dir_fd=root, dst_dir_fd=root, follow_symlinks=False)
    except FileExistsError:
        pass
    except OSError:  # a filesystem without hard links: renamed instead (two runs write the same marker)
        os.replace(temporary, MARKER, src_dir_fd=root, dst_dir_fd=root)
    finally:
        with contextlib.suppress(OSError):
            os.unlink(temporary, dir_fd=root)
    return _marker_layout(root)


def _write_new(directory: int, name: str, data: bytes) -> None:
    """Write `data` as the new regular file `name` of the directory open as `directory` (never through a symlink,
    never into anything already there; the permissions a new file gets); removed again when it cannot be."""
    handle = os.open(name, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC, 0o666,
                     dir_fd=directory)
    try:
        with os.fdopen(handle, "wb") as out:
            out.write(data)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(name, dir_fd=directory)
        raise


def _write_whole(directory: int, name: str, data: bytes, *, temporary: str) -> None:
    """Write `data` as the regular file `name` of the directory open as `directory`, whole or not at all, through
    the new temporary file `temporary`, then a rename."""
    _write_new(directory, temporary, data)
    try:
        os.replace(temporary, name, src_dir_fd=directory, dst_dir_fd=directory)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temporary, dir_fd=directory)
        raise


def _read_regular(directory: int, name: str, limit: int) -> bytes | None:
    """The bytes of the regular file `name` of the directory open as `directory`, or None: it is missing, is not
    a regular file (a FIFO, a device, a symlink: none is followed or waited for), holds more than `limit` bytes, or
    cannot be read. At most `limit` + 1 bytes are read, whatever the file does meanwhile."""
    try:
        if not stat.S_ISREG(os.stat(name, dir_fd=directory, follow_symlinks=False).st_mode):
            return None  # (not even opened: opening a device may do something)
        handle = os.open(name, _READ_FLAGS, dir_fd=directory)
    except OSError:
        return None
    try:
        status = os.fstat(handle)  # (what was opened, should the name have changed meanwhile)
        if not stat.S_ISREG(status.st_mode) or status.st_size > limit:
            return None
        chunks, left = [], limit + 1
        while left > 0:
            chunk = os.read(handle, min(left, 1 << 20))
            if not chunk:
                break
            chunks.append(chunk)
            left -= len(chunk)
    except OSError:
        return None
    finally:
        os.close(handle)
    data = b"".join(chunks)
    return data if len(data) <= limit else None


def _own_files(run: int) -> dict[str, int]:
    """The files of the run directory open as `run` that the cache wrote, name -> size: regular files named as
    its entries or their temporary files (what else is there is not the cache's)."""
    own = {}
    with contextlib.suppress(OSError), os.scandir(run) as entries:
        for entry in entries:
            if _ENTRY_NAME.fullmatch(entry.name) or _TEMPORARY_NAME.fullmatch(entry.name):
                with contextlib.suppress(OSError):
                    status = entry.stat(follow_symlinks=False)
                    if stat.S_ISREG(status.st_mode):
                        own[entry.name] = status.st_size
    return own


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
         "profile": profile, "series_length": series_length,
         # the Python's own case folding and Unicode categories (intl, char) are part of every expectation
         "python": [sys.implementation.name, *sys.version_info[:3]], "unicode": unicodedata.unidata_version},
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
        line = lines[number]
        body = line.decode("ascii")
        if not body.startswith(_HEAD):
            raise ValueError("not a score command")
        expected, features, digest = entry.get("expected"), entry.get("features"), entry.get("digest")
        if features is not None and not (isinstance(features, list) and all(isinstance(f, str) for f in features)):
            raise ValueError("features are not names")
        if digest is not None and not isinstance(digest, str):
            raise ValueError("digest is not a string")
        return cls(
            # pydantic's own JSON parser on the line's bytes: one pass, no Python objects built only to be validated
            request=ScoreRequest.model_validate_json(line),
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
    """The entries of one run key (`run_key`) under `root` (the cache's directory, `open_root`)."""

    def __init__(self, root: Path, key: str):
        if not _RUN_NAME.fullmatch(key):
            raise BleuValueError(f"a search cache's run key is 32 hexadecimal digits, not {key!r}")
        self.root, self.key = Path(root), key
        self.directory = self.root / key
        self.wrote = False
        #: False: the run goes on without the cache (it cannot be written, or another layout marks it)
        self.usable = open_root(self.root) is not None

    def load(self, index: int) -> ExampleEntry:
        """Example `index`'s entry as cached, or an empty one (nothing cached, or nothing trustworthy)."""
        data = self._read(f"{index}.json")
        if data is None:
            return ExampleEntry(index)
        try:
            return self._parse(index, data)
        except Exception:  # noqa: BLE001 (any damage at all: the entry is not trusted, the example is computed)
            return ExampleEntry(index)

    def _read(self, name: str) -> bytes | None:
        """The entry file `name` (a regular file of the run directory, never through a symlink), or None."""
        if not self.usable:
            return None
        try:
            run = os.open(self.directory, _DIRECTORY_FLAGS | os.O_NOFOLLOW)
        except OSError:
            return None
        try:
            return _read_regular(run, name, ENTRY_LIMIT_BYTES)
        finally:
            os.close(run)

    def _parse(self, index: int, data: bytes) -> ExampleEntry:
        head, _, rest = data.partition(b"\n")
        header = json.loads(head)
        if header != {"format": FORMAT, "key": self.key, "index": index,
                      "sha256": hashlib.sha256(rest).hexdigest()}:
            raise ValueError("foreign or damaged entry")
        described, *lines = rest.split(b"\n")
        content = json.loads(described)
        # a series sends its base inputs again: each one read once (looked for among the inputs of the same wire
        # line only, not compared with every input read before)
        read: dict[Any, list[tuple[Any, Prepared]]] = {}
        inputs = {}
        for name, value in content["inputs"].items():
            same_line = read.setdefault(value["body"], [])
            prepared = next((p for seen, p in same_line if seen == value), None)
            if prepared is None:
                prepared = Prepared.from_entry(value, lines)
                same_line.append((value, prepared))
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
        data = (header + "\n" + rest).encode("ascii")
        if self.usable and len(data) <= ENTRY_LIMIT_BYTES and self._write(f"{entry.index}.json", data):
            self.wrote = True

    def _write(self, name: str, data: bytes) -> bool:
        """Write the entry file `name` whole (the run directory made when missing); False when it cannot be written,
        or when what has its name is not a regular file (a FIFO, a symlink): that is not the cache's to replace."""
        try:
            with contextlib.suppress(FileExistsError):
                os.mkdir(self.directory)  # (not its parents: the cache's directory is open_root's to make)
            run = os.open(self.directory, _DIRECTORY_FLAGS | os.O_NOFOLLOW)
        except OSError:
            return False
        try:
            with contextlib.suppress(FileNotFoundError):
                if not stat.S_ISREG(os.stat(name, dir_fd=run, follow_symlinks=False).st_mode):
                    return False
            _write_whole(run, name, data, temporary=f".{name}.{secrets.token_hex(8)}.tmp")
        except OSError:
            return False
        finally:
            os.close(run)
        return True

    def close(self) -> None:
        """After the run: mark this run's directory used, and bound the whole cache (`evict`)."""
        if not self.usable:
            return
        with contextlib.suppress(OSError):
            os.utime(self.directory, follow_symlinks=False)
        if self.wrote:
            evict(self.root, limit_bytes(), keep=self.directory)


def evict(root: Path, limit: int, *, keep: Path | None = None) -> None:
    """Bound the cache under `root` to `limit` bytes: whole run directories, least recently used first, then
    (if `keep`, the current run's, alone is over the bound) its highest-numbered examples. Only in a directory the
    cache marked, and only what it wrote there (`_own_files` of directories named as run keys) is counted or
    removed; nothing is followed through a symlink."""
    try:
        handle = os.open(root, _DIRECTORY_FLAGS)
    except OSError:
        return
    try:
        if _marker_layout(handle) == ROOT_FORMAT:
            _evict_runs(handle, limit, keep=None if keep is None else keep.name)
    except OSError:
        return
    finally:
        os.close(handle)


def _evict_runs(root: int, limit: int, *, keep: str | None) -> None:
    runs = {}  # name -> (time last used, bytes of the cache's own files)
    for name in os.listdir(root):
        if _RUN_NAME.fullmatch(name):
            with contextlib.suppress(OSError), _run_directory(root, name) as run:
                runs[name] = (os.fstat(run).st_mtime, sum(_own_files(run).values()))
    total = sum(size for _, size in runs.values())
    for name in sorted((name for name in runs if name != keep), key=lambda name: runs[name][0]):
        if total <= limit:
            return
        with contextlib.suppress(OSError):
            with _run_directory(root, name) as run:
                total -= _remove(run, list(_own_files(run)))
            os.rmdir(name, dir_fd=root)  # (only when empty: what else is there is not the cache's)
    if keep in runs and total > limit:
        with contextlib.suppress(OSError), _run_directory(root, keep) as run:
            _remove(run, sorted((name for name in _own_files(run) if _ENTRY_NAME.fullmatch(name)),
                                key=lambda name: int(name.partition(".")[0]), reverse=True), excess=total - limit)


@contextlib.contextmanager
def _run_directory(root: int, name: str) -> Iterator[int]:
    """The run directory `name` of the cache's directory open as `root`, open (never through a symlink)."""
    run = os.open(name, _DIRECTORY_FLAGS | os.O_NOFOLLOW, dir_fd=root)
    try:
        yield run
    finally:
        os.close(run)


def _remove(run: int, names: list[str], *, excess: int | None = None) -> int:
    """Remove the files `names` (the cache's own) of the run directory open as `run`, in order, until `excess`
    bytes are gone (None: all of them); the bytes removed."""
    removed = 0
    for name in names:
        if excess is not None and removed >= excess:
            break
        with contextlib.suppress(OSError):
            status = os.stat(name, dir_fd=run, follow_symlinks=False)
            if stat.S_ISREG(status.st_mode):  # (unlink removes a name only: it never reaches past a symlink)
                os.unlink(name, dir_fd=run)
                removed += status.st_size
    return removed


def discard(cache: SearchCache, index: int) -> None:
    """Remove example `index`'s entry of `cache` (it held a value the oracle does not give: the session found it
    out before a failure rested on it); one that is gone already, or cannot be removed, is left as it is (the next
    run's session finds it out again). Only a regular file of the run directory, never through a symlink."""
    if not cache.usable:
        return
    with contextlib.suppress(OSError):
        run = os.open(cache.directory, _DIRECTORY_FLAGS | os.O_NOFOLLOW)
        try:
            _remove(run, [f"{index}.json"])
        finally:
            os.close(run)
