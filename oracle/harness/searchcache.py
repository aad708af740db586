"""A cache across runs of what the search computes per example and what depends only on the example's key.

Example I of seed S is the same input in every run with the same capabilities, profile and series length
(`oracle.harness.generate`): so are its companions (text, refused, series, brackets, line-ends) and the oracle's
verdict on each of them. CI runs the same seed every time, so a warm cache is its steady state. For each example
the cache keeps, per input the example sends (`Prepared`): the request's wire line without its seq (the request is
read back from it; each distinct line once, as a line of the entry; a line past 64 KiB whose long token lists are
runs of a few tokens, a 65,600-token run's, as its skeleton and runs instead: `_compact_form`), the oracle's
expectation, the coverage features, a large request's record digest, and whether the input applies under the
capabilities (the run key holds them: asked once, `Session.inapplicable`).
Replies, verdicts and records are never cached: every run asks the implementation and judges its answers.

Where: $BLEU_ORACLE_SEARCH_CACHE, else $XDG_CACHE_HOME/bleu-oracle/search (default ~/.cache/bleu-oracle/search),
one directory per run key (`run_key`: seed, the capabilities' canonical JSON, the judged profile, the series
length, the Python (implementation and version) and its Unicode database's version, which case folding and the
intl and char tokenizers follow, and `oracle_version`, a hash of the source of every module of `oracle/` but
the commands and the reports). A run directory holds logs, not a file per example: each process that writes (a
run, a shard, a `--jobs` worker) appends to a log of its own (`SearchCache.store`; a new file, no lock shared
between processes), created on its first entry. A log is a header line ({"format", "key", "oracle"}), then per
entry a header line ({"index", "generation", "length", "sha256"}: the sha256 of the index and the generation in
decimal, each followed by a newline, then the body), the body (`CachedContent` as one line of ASCII JSON, then the
entry's distinct wire lines) and a newline. When the run first asks for an entry, the headers of every log are read
(not the bodies), and each example is located at its newest entry: the highest generation (a writer's entries are
one past every entry it read, so an entry written again supersedes the one it replaces; a compaction keeps each
entry's own), then the later log (by modification time, then name), then the later in its log. An entry is read
with one `pread`, its checksum verified,
and its content parsed with pydantic's JSON parser on the bytes (`CachedContent.model_validate_json`), its
requests from their wire lines' bytes by pydantic-core's parser (`from_json`), not `json.loads`. Closing the
cache merges the run's settled logs (`_compact`) once there are `COMPACT_AT_LOGS` of them or they hold a
superseded or damaged entry. Per-example files of format 1 (earlier bleu-oracles) are not read: the format is part
of the run key, so they sit in run directories of their own, evicted in their turn.

Its own directory only (`open_root`): the cache's directory is marked by a cache directory tag (`MARKER`,
CACHEDIR.TAG, which backup tools skip) whose last line names the directory's layout (`ROOT_FORMAT`). A new or
empty directory is created or adopted and marked (so is an unmarked one holding nothing but run directories of
the cache's naming, as an earlier bleu-oracle left ~/.cache/bleu-oracle/search); one that holds anything else is
refused (BleuValueError: `check` and `fuzz` exit 2 before anything runs), since the cache deletes entries to
keep within its bound. One marked by another layout of the cache, or that cannot be created or marked
(read-only, no permission), is neither read nor written: the run goes on without it. Inside a marked directory
the cache deletes only what it can tell it wrote: regular files named as its logs or format 1's entries (or their
temporary files) in directories named as run keys, and such a directory once it is empty; anything else put there is
neither counted nor touched. It never follows a symlink inside its directory (the directory's own name may be
one).

Never trusted: a log that is not a regular file (a FIFO, a device, a symlink: not followed, opened without
waiting, and not read), or whose header names another format, key or oracle version, is ignored whole; an entry
that fails its checksum, the models refuse, or says it is larger than `ENTRY_LIMIT_BYTES` is ignored; a header
that does not parse or an entry that runs past the end of its log (a torn tail: a writer killed while appending)
ends what is read of that log. Each such example is computed afresh and written again, the user is told once per
run (a warning line naming the log), and the damaged log is compacted when the cache is closed. A foreign oracle
version has a directory of its own, evicted in its turn. The whole cache is bounded (`limit_bytes`: 512 MiB
unless $BLEU_ORACLE_SEARCH_CACHE_BYTES says otherwise): after a run that wrote entries, the least recently used
run directories go first, then the current run's other logs (oldest first), then this process's own log is cut
at the end of an entry (its first entries kept), until the total is within the bound. `check --no-search-cache`
bypasses it entirely.
"""

from __future__ import annotations

import contextlib
import hashlib
import itertools
import json
import os
import re
import secrets
import stat
import sys
import time
import unicodedata
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, StrictInt, StrictStr
from pydantic_core import from_json

from oracle.escaping import shown
from oracle.files import user_cache
from oracle.formulas.errors import BleuValueError
from oracle.models.outcomes import Expected
from oracle.models.protocol import WIRE, Capabilities, ScoreRequest
from oracle.models.wire import LONG_SEQUENCE, PiecedLine, encode, encoded_pieces

#: The layout of a run's entries (2: logs; 1: a file per example, which is not read: a run key of its own); a
#: log of another format is ignored.
FORMAT = 2
#: A run directory holding this many settled logs has them merged into one when a run closes (`_compact`).
COMPACT_AT_LOGS = 4
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
#: larger one is not written, and a log's entry that says it is larger ends what is read of the log.
ENTRY_LIMIT_BYTES = 64 * 1024 * 1024
#: A log's first line: its format, run key and oracle version (`SearchCache._log_header`).
_LOG_HEADER = re.compile(rb'\{"format":(?P<format>[0-9]{1,9}),"key":"(?P<key>[0-9a-f]{32})",'
                         rb'"oracle":"(?P<oracle>[0-9a-f]{64})"\}')
_LOG_HEADER_LIMIT_BYTES = 256
#: An entry's header line: its example, generation, body's length and checksum (`_entry_bytes`, `_checksum`).
_ENTRY_HEADER = re.compile(rb'\{"index":(?P<index>0|[1-9][0-9]{0,18}),"generation":(?P<generation>[1-9][0-9]{0,18}),'
                           rb'"length":(?P<length>0|[1-9][0-9]{0,18}),"sha256":"(?P<sha256>[0-9a-f]{64})"\}\n')
_ENTRY_HEADER_LIMIT_BYTES = 256
#: The names the cache gives what it writes: its run directories (`run_key`), its logs and their temporary files
#: (`_compact`), the entries of format 1 and their temporary files (and those of the bleu-oracle before the
#: marker, mkstemp's), and the marker's temporary files.
_RUN_NAME = re.compile(r"[0-9a-f]{32}")
_LOG_NAME = re.compile(r"[0-9a-f]{16}\.log")
_LOG_TEMPORARY_NAME = re.compile(r"\.[0-9a-f]{16}\.log\.tmp")
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


_OWN_NAMES = (_LOG_NAME, _LOG_TEMPORARY_NAME, _ENTRY_NAME, _TEMPORARY_NAME)


def _own_files(run: int) -> dict[str, int]:
    """The files of the run directory open as `run` that the cache wrote, name -> size: regular files named as
    its logs, entries of format 1 or their temporary files (what else is there is not the cache's)."""
    own = {}
    with contextlib.suppress(OSError), os.scandir(run) as entries:
        for entry in entries:
            if any(name.fullmatch(entry.name) for name in _OWN_NAMES):
                with contextlib.suppress(OSError):
                    status = entry.stat(follow_symlinks=False)
                    if stat.S_ISREG(status.st_mode):
                        own[entry.name] = status.st_size
    return own


@cache
def oracle_version() -> str:
    """A hash of every file of `oracle/` the cached values may depend on (all but commands/ and reports/):
    any change of the oracle, the generator, coverage or the models starts a cache of its own."""
    return package_digest(Path(__file__).resolve().parents[1])


def package_digest(package: Path) -> str:
    """The hash of `oracle_version`, of the files `hashed_files` finds below `package`."""
    digest = hashlib.sha256()
    for parts in hashed_files(package):
        relative = os.path.join(*parts)
        with open(os.path.join(package, relative), "rb") as file:
            digest.update(relative.encode("utf-8") + b"\0" + file.read() + b"\0")
    return digest.hexdigest()


def hashed_files(package: Path) -> list[tuple[str, ...]]:
    """The files `oracle_version` hashes, as their parts below `package`, in the order of `sorted(package.rglob("*"))`
    (which compares paths part by part): every file (a symbolic link to one too) but those under a top-level directory
    of `_NOT_HASHED`, under a `__pycache__` or with the suffix .pyc or .pyo. Walked with `os.walk`, those directories
    not entered: every check process and worker computes the version, and a `pathlib` walk of the whole package, each
    path built, stat-ed and compared as an object, cost about 11 ms of CPU of it (this way about 4)."""
    found: list[tuple[str, ...]] = []
    for directory, subdirectories, files in os.walk(package):
        below = Path(directory).relative_to(package).parts
        left_out = () if below else _NOT_HASHED
        subdirectories[:] = [name for name in subdirectories if name != "__pycache__" and name not in left_out]
        found.extend((*below, name) for name in files if name not in left_out and os.path.splitext(name)[1]
                     not in (".pyc", ".pyo") and os.path.isfile(os.path.join(directory, name)))
    return sorted(found)


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
    """`request`'s wire line without its seq (the line sent is `wire_line(body, seq)`), encoded from the request's
    own token sequences (`ScoreRequest.wire_form`). A request of at most `wire.LONG_SEQUENCE` tokens holds no
    sequence `encode` splices: it is not looked for."""
    return encode(request.wire_form(seq=False), long_sequences=request.token_count > LONG_SEQUENCE)


def request_digest(request: ScoreRequest) -> str:
    """The sha256 a record keeps of a request too large to keep whole: of its line without seq, non-ASCII text
    as it is (the line a person reads). Hashed in pieces (`encoded_pieces`): a line of 65,600 tokens is never held
    whole, nor its UTF-8 bytes, nor its sequences copied into lists (`ScoreRequest.wire_form`)."""
    digest = hashlib.sha256()
    for piece in encoded_pieces(request.wire_form(seq=False), ensure_ascii=False):
        digest.update(piece.encode("utf-8"))
    return digest.hexdigest()


def digest_of_body(body: str) -> str | None:
    """`request_digest` of the request whose line without seq is `body`, read off that line where it holds no `\\u`
    escape; None otherwise. The two encodings differ only in the characters `ensure_ascii` escapes as `\\uXXXX`
    (U+007F and above: json's ASCII encoder escapes every character outside ' '..'~', the other one control
    characters alone, and both as `\\n`, `\\t`, `\\u0000`...): a line with no `\\u` has none of them, and is the same
    in both. Encoding a request of 65,600 tokens again to hash it cost as much as encoding it to send it."""
    if "\\u" in body:
        return None
    digest = hashlib.sha256()
    for at in range(0, len(body), _WHOLE_LINE_CHARACTERS):  # (in pieces: a long body's bytes are never made whole)
        digest.update(body[at:at + _WHOLE_LINE_CHARACTERS].encode("utf-8"))
    return digest.hexdigest()


def wire_line(body: str, seq: int) -> bytes | PiecedLine:
    """The protocol line of a score command whose line without seq is `body`, with `seq` where `encode` puts it
    (right after "cmd"): the same bytes as encoding the command with its seq. Under `_WHOLE_LINE_CHARACTERS`, built
    whole; a longer one (a 65,600-token run's: megabytes) is given in pieces (a `PiecedLine`: its head, the body
    encoded a piece at a time, the newline), which the transport writes one after another, so that the line never
    exists whole beside its body (filled into one buffer, it was a second copy of the body, alive while the line was
    written: a long search's peak memory was set by its widest run's copies)."""
    head = f'{_HEAD}"seq":{seq},'.encode("ascii")
    if len(body) <= _WHOLE_LINE_CHARACTERS or not body.isascii():  # (a body is ASCII JSON: `body_of`)
        return head + body[len(_HEAD):].encode("utf-8") + b"\n"
    return PiecedLine(lambda: itertools.chain((head,), _ascii_pieces(body, len(_HEAD)), (b"\n",)))


#: `wire_line` and `_entry_of_parts` give a longer line a piece of this many characters at a time.
_WHOLE_LINE_CHARACTERS = 64 * 1024


def _ascii_pieces(text: str, start: int = 0) -> Iterator[bytes]:
    """`text[start:]` encoded as ASCII, a piece of at most `_WHOLE_LINE_CHARACTERS` bytes at a time."""
    for at in range(start, len(text), _WHOLE_LINE_CHARACTERS):
        yield text[at:at + _WHOLE_LINE_CHARACTERS].encode("ascii")


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
    #: why the input is not applicable under the run's capabilities ("" where it applies; None: not asked yet)
    inapplicable: str | None = None

    def wire_body(self) -> str:
        if self.body is None or not self.body.startswith(_HEAD):
            self.body, self.fresh = body_of(self.request), True
        return self.body

    def record_digest(self) -> str:
        """The digest a record of this (large) request keeps (`request_digest`), computed once, from the wire line
        already made where that line is the one `request_digest` hashes (`digest_of_body`)."""
        if self.digest is None:
            self.digest, self.fresh = digest_of_body(self.wire_body()) or request_digest(self.request), True
        return self.digest

    def to_entry(self, lines: dict[str, int]) -> dict[str, Any]:
        """What the entry keeps of this input: its wire line as the number of a line of the file (`lines`: each
        distinct line once, in the order first met; a line is ASCII JSON, which holds no newline), the rest. A line
        past `_WHOLE_LINE_CHARACTERS` whose long token lists are runs of a few tokens (a 65,600-token run) is kept
        in its compact form instead (`_compact_form`: its skeleton as the line, the runs beside it), when that form
        gives back this request and this line exactly."""
        body = self.wire_body()
        compact = _compact_form(self.request, body) if len(body) > _WHOLE_LINE_CHARACTERS else None
        value: dict[str, Any] = {"body": lines.setdefault(body if compact is None else compact[0], len(lines)),
                 "expected": None if self.expected is None else self.expected.model_dump(),
                 "features": None if self.features is None else list(self.features), "digest": self.digest,
                 "inapplicable": self.inapplicable}
        if compact is not None:
            value["runs"] = compact[1]
        return value

    @classmethod
    def from_entry(cls, entry: CachedInput, lines: list[bytes]) -> Prepared:
        """An input read back: `entry` as pydantic's JSON parser built it from the entry's bytes (`CachedContent`),
        its request from its wire line's bytes (`lines`: the entry's wire lines), nothing built twice. The line is
        the protocol line the implementation is sent, so it is read as one (`WIRE`: every smoothing parameter
        carried, none filled in from Python's defaults). It is parsed by pydantic-core's JSON parser, then
        validated from the values parsed: the same model as `model_validate_json` builds, and a fifth less CPU on
        the 65,600-token runs the search sends (pydantic's validation of a JSON array of 65,600 strings costs more
        than checking the list the parser made), the same on short lines."""
        if not 0 <= entry.body < len(lines):
            raise ValueError("no such line")
        line = lines[entry.body]
        if entry.runs is not None:  # a compact form: the request and its line both made from it
            request, body = _from_compact(line, entry.runs)
        else:
            body = line.decode("ascii")
            request = ScoreRequest.model_validate(from_json(line), context=WIRE)
        if not body.startswith(_HEAD):
            raise ValueError("not a score command")
        return cls(request=request, body=body, expected=entry.expected, features=entry.features, digest=entry.digest,
                   fresh=False, inapplicable=entry.inapplicable)


#: A token list of a long line is kept as runs only when it is longer than `LONG_SEQUENCE` and has at most one run per
#: this many tokens (a 65,600-token run of one token: one run); any other list stays in the skeleton as it is.
_TOKENS_PER_RUN = 64
#: How a skeleton stands in for the `number`-th long token list (`_compact_form`): a string where a token request
#: holds a list, which no valid request has, spelled as `oracle.models.wire` spells its own stand-ins.
_STAND_IN = re.compile(r"\x00(0|[1-9][0-9]{0,5})\x00")


def _runs(tokens: Any) -> list[tuple[str, int]] | None:
    """`tokens` as runs of equal tokens ([token, count], ...), where it is a long token list of few runs; else None."""
    if type(tokens) is not tuple or len(tokens) <= LONG_SEQUENCE:
        return None
    if tokens.count(tokens[0]) == len(tokens):  # (the common case, one token repeated: counted in C)
        return [(tokens[0], len(tokens))] if type(tokens[0]) is str else None
    runs: list[tuple[str, int]] = []
    most = len(tokens) // _TOKENS_PER_RUN
    for token, run in itertools.groupby(tokens):
        if len(runs) >= most or type(token) is not str:
            return None
        runs.append((token, len(list(run))))
    return runs


def _compact_form(request: ScoreRequest, body: str) -> tuple[str, list[list[tuple[str, int]]]] | None:
    """A token request whose long token lists are runs of a few tokens (a 65,600-token run), as what the cache keeps
    of it instead of its line (`body`, megabytes that pydantic's parser read in about 5 ms a line on every warm run):
    its skeleton (the line's JSON with each such list a stand-in, `_STAND_IN`) and the runs of each list. Kept only
    when `_from_compact` gives back this request and this line exactly (checked here, once, as it is written);
    None otherwise."""
    if request.tokenize is not None:
        return None
    runs: list[list[tuple[str, int]]] = []

    def stand_in(tokens: Any) -> Any:
        found = _runs(tokens)
        if found is None:
            return tokens
        runs.append(found)
        return f"\x00{len(runs) - 1}\x00"

    form = request.wire_form(seq=False)
    segments = [{"hypothesis": stand_in(s["hypothesis"]), "references": [stand_in(r) for r in s["references"]]}
                for s in form["segments"]]
    if not runs:
        return None
    skeleton = json.dumps({**form, "segments": segments}, ensure_ascii=True, allow_nan=False, separators=(",", ":"))
    try:
        again, line = _from_compact(skeleton.encode("ascii"), runs)
    except ValueError:
        return None
    if line != body or again != request:  # (its fields set are the line's, as when the line is read)
        return None
    return skeleton, runs


def _from_compact(skeleton: bytes, runs: list[list[tuple[str, int]]]) -> tuple[ScoreRequest, str]:
    """(the request, its line without seq) of a compact form (`_compact_form`): the skeleton parsed by pydantic's
    parser, each stand-in replaced by its list made from its runs, then validated as any request read from its line;
    the line the skeleton's text with each stand-in's JSON replaced by the list's, each distinct token's JSON made
    once and repeated in C (the same text as `body_of` gives the request). ValueError where the form is not one the
    cache writes: a stand-in not in a token list's place, or not exactly once, or a line past `ENTRY_LIMIT_BYTES`."""
    obj = from_json(skeleton)
    text = skeleton.decode("ascii")
    segments = obj.get("segments") if type(obj) is dict else None
    if type(segments) is not list or "tokenize" in obj:
        raise ValueError("not a compact token request")
    lists: list[tuple[str, ...] | None] = [None] * len(runs)
    quoted: list[str] = [""] * len(runs)

    def expanded(value: Any) -> Any:
        if type(value) is not str:
            return value
        number = _STAND_IN.fullmatch(value)
        if number is None or int(number[1]) >= len(runs) or lists[int(number[1])] is not None:
            raise ValueError("not a stand-in")
        k = int(number[1])
        texts = [(json.dumps(token, ensure_ascii=True) + ",", count) for token, count in runs[k]]
        if sum(len(token) * count for token, count in texts) > ENTRY_LIMIT_BYTES:  # (checked before it is made)
            raise ValueError("a run longer than an entry")
        lists[k] = (runs[k][0][0],) * runs[k][0][1] if len(runs[k]) == 1 \
            else tuple(itertools.chain.from_iterable((token,) * count for token, count in runs[k]))
        whole = "".join([token * count for token, count in texts])
        quoted[k] = f"[{whole[:-1]}]"
        return lists[k]

    for segment in segments:
        if type(segment) is dict:
            if "hypothesis" in segment:
                segment["hypothesis"] = expanded(segment["hypothesis"])
            if type(segment.get("references")) is list:
                segment["references"] = [expanded(reference) for reference in segment["references"]]
    if any(tokens is None for tokens in lists):
        raise ValueError("a run without its stand-in")
    at = []
    for k in range(len(quoted)):
        stand_in = json.dumps(f"\x00{k}\x00")
        if text.count(stand_in) != 1:
            raise ValueError("a stand-in's text not exactly once")
        at.append((text.index(stand_in), len(stand_in), k))
    pieces, start = [], 0
    for where, length, k in sorted(at):
        pieces += [text[start:where], quoted[k]]
        start = where + length
    pieces.append(text[start:])
    return ScoreRequest.model_validate(obj, context=WIRE), "".join(pieces)


class CachedInput(BaseModel):
    """What an entry keeps of one input (`Prepared.to_entry`): the number of its wire line among the entry's
    lines, the oracle's expectation, the coverage features, a large request's record digest."""

    model_config = ConfigDict(extra="forbid", frozen=True, defer_build=True)  # `oracle.models`: built on first use

    body: StrictInt
    expected: Expected | None
    features: tuple[StrictStr, ...] | None
    digest: StrictStr | None
    #: why the input is not applicable under the run key's capabilities ("" where it applies; None: not asked)
    inapplicable: StrictStr | None = None
    #: with a compact form (`_compact_form`), each long token list's runs ([token, count], ...), in the order of
    #: the skeleton's stand-ins; `body` is then the number of the skeleton's line
    runs: list[list[tuple[StrictStr, Annotated[StrictInt, Field(ge=1)]]]] | None = None


class CachedContent(BaseModel):
    """The first line of an entry's body: its inputs by name (each the number of a value: an input sent again, a
    series' base, is kept once), their distinct values, and a series' steps ([base, changed], ...). Read with
    pydantic's JSON parser on the bytes (`model_validate_json`): no `json.loads`, then validation."""

    model_config = ConfigDict(extra="forbid", frozen=True, defer_build=True)  # `oracle.models`: built on first use

    inputs: dict[str, StrictInt]
    values: list[CachedInput]
    series: list[tuple[StrictInt, StrictStr]] | None = None


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


@dataclass(frozen=True)
class _Located:
    """Where an entry is: its log (a number into `SearchCache._logs`), its body's offset and length."""

    log: int
    generation: int
    offset: int
    length: int
    digest: str


@dataclass
class _Log:
    """One log of the run directory, open for reading: its name, descriptor, modification time when opened, and
    where its entries start."""

    name: str
    handle: int
    mtime: int
    #: where its first entry starts
    start: int


class SearchCache:
    """The entries of one run key (`run_key`) under `root` (the cache's directory, `open_root`): the logs of its run
    directory, read when the first entry is asked for, and this process's own log, appended to (`store`).

    `warn` tells the user, once, that a log ends in a torn or damaged tail (ignored: its examples are computed
    afresh, and the log is compacted when the run closes the cache)."""

    def __init__(self, root: Path, key: str, warn: Callable[[str], None] | None = None):
        if not _RUN_NAME.fullmatch(key):
            raise BleuValueError(f"a search cache's run key is 32 hexadecimal digits, not {key!r}")
        self.root, self.key = Path(root), key
        self.directory = self.root / key
        self.wrote = False
        self._warn = warn
        #: the logs read (None until the first `load`), where each example's newest entry is, which were damaged
        self._logs: list[_Log] | None = None
        self._located: dict[int, _Located] = {}
        #: the generation of the entries this process writes (`_read_logs`)
        self._generation = 1
        #: a log read ends in a torn or damaged tail, or holds a damaged entry (compacted when the cache is closed)
        self._damaged = False
        #: this process's own log: its name, descriptor (None until the first entry is stored) and size
        self._own: tuple[str, int] | None = None
        self._own_size = 0
        self._own_broken = False
        self._opened_ns = time.time_ns()
        #: False: the run goes on without the cache (it cannot be written, or another layout marks it)
        self.usable = open_root(self.root) is not None

    # -- reading --

    def load(self, index: int) -> ExampleEntry:
        """Example `index`'s entry as cached, or an empty one (nothing cached, or nothing trustworthy)."""
        if not self.usable:
            return ExampleEntry(index)
        if self._logs is None:
            self._logs = self._read_logs()
        located = self._located.get(index)
        if located is None:
            return ExampleEntry(index)
        log = self._logs[located.log]
        try:
            data = os.pread(log.handle, located.length + 1, located.offset)
        except OSError:
            return ExampleEntry(index)
        body = _whole(index, located.generation, data, located.length, located.digest)
        if body is None:
            self._note_damage(log.name, located.offset)
            return ExampleEntry(index)
        try:
            return self._parse(index, body)
        except Exception:  # noqa: BLE001 (an entry whose checksum fits but the models refuse: computed afresh)
            self._note_damage(log.name, located.offset)
            return ExampleEntry(index)

    def _read_logs(self) -> list[_Log]:
        """Every log of the run directory whose header names this key, `FORMAT` and this oracle; each example
        located at its newest entry (the highest generation, then the later log, then the later in its log), and this
        writer's generation one past every entry's."""
        logs: list[_Log] = []
        try:
            run = os.open(self.directory, _DIRECTORY_FLAGS | os.O_NOFOLLOW)
        except OSError:
            return logs
        try:
            for name in sorted(n for n in os.listdir(run) if _LOG_NAME.fullmatch(n)):
                log = self._open_log(run, name)
                if log is not None:
                    logs.append(log)
        except OSError:
            pass
        finally:
            os.close(run)
        logs.sort(key=_oldest_first)
        for number, log in enumerate(logs):
            entries, torn = _entries_of(log)
            for index, generation, offset, length, digest in entries:
                known = self._located.get(index)
                if known is None or generation >= known.generation:
                    self._located[index] = _Located(number, generation, offset, length, digest)
                self._generation = max(self._generation, generation + 1)
            if torn is not None and log.mtime < self._opened_ns:  # (a log written meanwhile: a writer at work)
                self._note_damage(log.name, torn)
        return logs

    def _open_log(self, run: int, name: str) -> _Log | None:
        """The log `name`, open, when it is a regular file whose header is this cache's; else None (closed)."""
        try:
            handle = os.open(name, _READ_FLAGS, dir_fd=run)
        except OSError:
            return None
        try:
            status = os.fstat(handle)
            if stat.S_ISREG(status.st_mode):
                head = os.pread(handle, _LOG_HEADER_LIMIT_BYTES, 0).partition(b"\n")
                header = _LOG_HEADER.fullmatch(head[0]) if head[1] else None
                if header is not None and header["format"] == str(FORMAT).encode() \
                        and header["key"].decode() == self.key and header["oracle"].decode() == oracle_version():
                    return _Log(name, handle, status.st_mtime_ns, len(head[0]) + 1)
        except OSError:
            pass
        os.close(handle)
        return None

    def _note_damage(self, name: str, offset: int) -> None:
        """A log holds a torn or damaged entry: ignored (its example computed afresh), the log compacted when the
        cache is closed, and the user told once."""
        self._damaged = True
        if self._warn is not None:
            self._warn(f"the search cache's log {self.directory / name} holds a torn or damaged entry at byte "
                       f"{offset}: it is ignored and its example computed afresh (said once per run)")
            self._warn = None

    def _parse(self, index: int, body: bytes) -> ExampleEntry:
        described, *lines = body.split(b"\n")
        content = CachedContent.model_validate_json(described)
        # a series sends its base inputs again: each distinct value was written once (`_entry_body`), and is read
        # back as one `Prepared`
        values = [Prepared.from_entry(value, lines) for value in content.values]
        inputs = {}
        for name, number in content.inputs.items():
            if not 0 <= number < len(values):
                raise ValueError("no such value")
            inputs[name] = values[number]
        series = None if content.series is None else list(content.series)
        return ExampleEntry(index, inputs, series, loaded=True)

    # -- writing --

    def store(self, entry: ExampleEntry) -> None:
        """Append `entry` to this process's log when something in it was computed in this run; a full disk or a
        read-only cache only costs the next run the computation."""
        if not entry.dirty() or not entry.inputs or not self.usable or self._own_broken:
            return
        parts = _entry_body(entry)
        if parts is None or sum(map(len, parts)) + len(parts) - 1 > ENTRY_LIMIT_BYTES:
            return
        if self._logs is None:
            self._logs = self._read_logs()  # (this writer's generation: one past every entry read)
        if self._append(_entry_of_parts(entry.index, self._generation, parts)):
            self.wrote = True

    def _append(self, pieces: list[bytes] | Iterator[bytes]) -> bool:
        """Append one whole entry, given as its pieces in order, to this process's log, made on the first call; a
        write cut short (a full disk) is cut off again, and after any failure nothing more is appended to it."""
        try:
            if self._own is None:
                self._own = self._create_log()
            handle, written = self._own[1], 0
            for piece in pieces:
                if os.write(handle, piece) != len(piece):
                    break
                written += len(piece)
            else:
                self._own_size += written
                return True
            os.ftruncate(handle, self._own_size)
        except OSError:
            pass
        self._own_broken = True
        return False

    def _create_log(self) -> tuple[str, int]:
        """This process's own new log (never anything already there, never through a symlink), its header
        written."""
        with contextlib.suppress(FileExistsError):
            os.mkdir(self.directory)  # (not its parents: the cache's directory is open_root's to make)
        run = os.open(self.directory, _DIRECTORY_FLAGS | os.O_NOFOLLOW)
        try:
            name = f"{secrets.token_hex(8)}.log"
            handle = os.open(name, os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC,
                             0o666, dir_fd=run)
        finally:
            os.close(run)
        header = self._log_header()
        if os.write(handle, header) != len(header):
            os.close(handle)
            raise OSError("the log's header could not be written")
        self._own_size = len(header)
        return name, handle

    def _log_header(self) -> bytes:
        return f'{{"format":{FORMAT},"key":"{self.key}","oracle":"{oracle_version()}"}}\n'.encode("ascii")

    # -- closing --

    def close(self) -> None:
        """After the run: close the logs, compact the run's logs when they hold more than their entries
        (`_compact`), mark this run's directory used, and bound the whole cache (`evict`)."""
        if not self.usable:
            return
        own = None
        if self._own is not None:
            own = self._own[0]
            with contextlib.suppress(OSError):
                os.close(self._own[1])
            self._own = None
        with contextlib.suppress(OSError):
            if self.wrote or self._damaged:
                self._compact(own)
        for log in self._logs or ():
            with contextlib.suppress(OSError):
                os.close(log.handle)
        self._logs = None
        with contextlib.suppress(OSError):
            os.utime(self.directory, follow_symlinks=False)
        if self.wrote:
            evict(self.root, limit_bytes(), keep=self.directory, own=own)

    def _compact(self, own: str | None) -> None:
        """Merge the run's settled logs into one when there are `COMPACT_AT_LOGS` or more of them, or they hold a
        superseded entry or a damaged one: each example's newest whole entry kept once, written whole (a temporary
        file, then a rename to a log's name), then the merged logs removed. Settled: this process's own log, and
        the logs not written since this cache was opened (a writer of the same key at work meanwhile, a `--jobs`
        worker beside this one, keeps its log; one idle since then that appends later loses what it appends to the
        removed log: a cost, never a wrong entry)."""
        run = os.open(self.directory, _DIRECTORY_FLAGS | os.O_NOFOLLOW)
        mine = None if own is None else self._open_log(run, own)
        try:
            logs = [log for log in (self._logs or ()) if os.fstat(log.handle).st_mtime_ns < self._opened_ns]
            if mine is not None:
                logs.append(mine)
            # decided from the headers (and the damage loads met): the bodies are read only to be merged
            if len(logs) < COMPACT_AT_LOGS and not self._damaged and not _superseded_or_torn(logs):
                return
            newest = _newest_entries(logs)
            data = self._log_header() + b"".join(
                _entry_bytes(index, *newest[index]) for index in sorted(newest))
            _write_whole(run, f"{secrets.token_hex(8)}.log", data, temporary=f".{secrets.token_hex(8)}.log.tmp")
            for log in logs:
                with contextlib.suppress(OSError):
                    os.unlink(log.name, dir_fd=run)
        finally:
            if mine is not None:
                os.close(mine.handle)
            os.close(run)


def _oldest_first(log: _Log) -> tuple[int, str]:
    """The order in which logs are read: of two entries of one generation, the later log's supersedes."""
    return log.mtime, log.name


def _entries_of(log: _Log) -> tuple[list[tuple[int, int, int, int, str]], int | None]:
    """The entries of `log` (example, generation, body offset, body length, checksum), read header by header, and
    the offset of
    a torn or damaged tail (None: none): where a header does not parse or an entry runs past the end of the file,
    the rest is ignored."""
    entries: list[tuple[int, int, int, int, str]] = []
    offset, size = log.start, os.fstat(log.handle).st_size
    while offset < size:
        try:
            header = _ENTRY_HEADER.match(os.pread(log.handle, _ENTRY_HEADER_LIMIT_BYTES, offset))
        except OSError:
            header = None
        length = 0 if header is None else int(header["length"])
        if header is None or length > ENTRY_LIMIT_BYTES or offset + header.end() + length + 1 > size:
            return entries, offset
        body = offset + header.end()
        entries.append((int(header["index"]), int(header["generation"]), body, length,
                        header["sha256"].decode("ascii")))
        offset = body + length + 1
    return entries, None


def _checksum(index: int, generation: int, body: bytes) -> str:
    """An entry's sha256: of its example's index and its generation (a digit changed in its header is damage too)
    and its body."""
    digest = hashlib.sha256(b"%d\n%d\n" % (index, generation))
    digest.update(body)  # (not a copy of the body with the numbers before it: an entry may hold megabytes)
    return digest.hexdigest()


def _whole(index: int, generation: int, data: bytes, length: int, digest: str) -> bytes | None:
    """Example `index`'s entry's body of `length` bytes from `data` (read with the newline that ends it) when its
    checksum is `digest`; None when it is cut short or damaged."""
    body = data[:-1]
    if len(data) != length + 1 or data[-1:] != b"\n" or _checksum(index, generation, body) != digest:
        return None
    return body


def _superseded_or_torn(logs: list[_Log]) -> bool:
    """Whether the headers of `logs` show an example written twice or a torn tail."""
    seen: set[int] = set()
    for log in logs:
        entries, torn = _entries_of(log)
        if torn is not None:
            return True
        for index, *_ in entries:
            if index in seen:
                return True
            seen.add(index)
    return False


def _newest_entries(logs: list[_Log]) -> dict[int, tuple[int, bytes]]:
    """The generation and body of each example's newest whole entry in `logs` (a damaged one left out)."""
    newest: dict[int, tuple[int, bytes]] = {}
    for log in sorted(logs, key=_oldest_first):
        entries, _ = _entries_of(log)
        for index, generation, offset, length, digest in entries:
            body = _whole(index, generation, os.pread(log.handle, length + 1, offset), length, digest)
            if body is not None and (index not in newest or generation >= newest[index][0]):
                newest[index] = generation, body
    return newest


def _entry_bytes(index: int, generation: int, body: bytes) -> bytes:
    """One entry of a log as written: a header line (example, generation, length, checksum: `_checksum`), the body,
    a newline."""
    digest = _checksum(index, generation, body).encode("ascii")
    return b'{"index":%d,"generation":%d,"length":%d,"sha256":"%s"}\n%s\n' % (index, generation, len(body), digest,
                                                                             body)


def _entry_of_parts(index: int, generation: int, parts: list[str]) -> list[bytes] | Iterator[bytes]:
    """`_entry_bytes` of the body whose lines are `parts` (ASCII), in pieces (joined, the same bytes): under
    `_WHOLE_LINE_CHARACTERS`, one piece; a longer one (a 65,600-token run's: megabytes) its header, then its lines
    encoded a piece of that many characters at a time, so that the entry never exists whole beside the lines it is
    made of (they are kept with the example's inputs; filled into one buffer, it was a second copy of them)."""
    length = sum(map(len, parts)) + len(parts) - 1
    digest = hashlib.sha256(b"%d\n%d\n" % (index, generation))
    for number, part in enumerate(parts):
        if number:
            digest.update(b"\n")
        for piece in _ascii_pieces(part):
            digest.update(piece)
    header = b'{"index":%d,"generation":%d,"length":%d,"sha256":"%s"}\n' % (index, generation, length,
                                                                           digest.hexdigest().encode("ascii"))
    pieces = itertools.chain((header,), itertools.chain.from_iterable(
        itertools.chain((b"\n",) if number else (), _ascii_pieces(part)) for number, part in enumerate(parts)),
        (b"\n",))
    return [b"".join(pieces)] if length <= _WHOLE_LINE_CHARACTERS else pieces


def _entry_body(entry: ExampleEntry) -> list[str] | None:
    """An entry's body, as its lines (joined by newlines, encoded as ASCII: `_entry_of_parts`): its content
    (`CachedContent`) as one line of ASCII JSON, then its distinct wire lines, one a line (read back without
    unescaping them); None when a line is not ASCII JSON on one line. Inputs of equal
    values (one `Prepared` sent again, or two that hold the same, told apart by their JSON as the content line
    writes it) share one value, read back as one `Prepared`; two of the same wire line that differ in what was
    computed about them stay two."""
    lines: dict[str, int] = {}
    values: dict[str, int] = {}  # a value's JSON, as the content line holds it -> its number
    by_object: dict[int, int] = {}  # id(Prepared) -> its value's number
    inputs = {}
    for name, prepared in entry.inputs.items():
        number = by_object.get(id(prepared))
        if number is None:
            number = values.setdefault(_compact_json(prepared.to_entry(lines)), len(values))
            by_object[id(prepared)] = number
        inputs[name] = number
    if any("\n" in line or not line.isascii() for line in lines):  # (encode writes neither)
        return None
    # the content line as json.dumps writes {"inputs": ..., "values": [...], "series": ...} with these separators,
    # each value's JSON the text it was told apart by (encoded once, not again inside the whole)
    series = "" if entry.series is None else f',"series":{_compact_json([list(step) for step in entry.series])}'
    return [f'{{"inputs":{_compact_json(inputs)},"values":[{",".join(values)}]{series}}}', *lines]


def _compact_json(value: Any) -> str:
    """`value` as an entry's content line writes it: ASCII JSON, NaN allowed, no spaces."""
    return json.dumps(value, ensure_ascii=True, allow_nan=True, separators=(",", ":"))


def evict(root: Path, limit: int, *, keep: Path | None = None, own: str | None = None) -> None:
    """Bound the cache under `root` to `limit` bytes: whole run directories, least recently used first, then (if
    `keep`, the current run's, alone is over the bound) its other logs, oldest first, then its own log `own` cut at
    an entry's end (its first entries kept). Only in a directory the cache marked, and only what it wrote there
    (`_own_files` of directories named as run keys) is counted or removed; nothing is followed through a symlink."""
    try:
        handle = os.open(root, _DIRECTORY_FLAGS)
    except OSError:
        return
    try:
        if _marker_layout(handle) == ROOT_FORMAT:
            _evict_runs(handle, limit, keep=None if keep is None else keep.name, own=own)
    except OSError:
        return
    finally:
        os.close(handle)


def _evict_runs(root: int, limit: int, *, keep: str | None, own: str | None) -> None:
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
            files = _own_files(run)
            others = sorted((name for name in files if name != own),
                            key=lambda name: os.stat(name, dir_fd=run, follow_symlinks=False).st_mtime_ns)
            total -= _remove(run, others, excess=total - limit)
            if own in files and total > limit:
                _cut(run, own, files[own] - (total - limit))


def _cut(run: int, name: str, size: int) -> None:
    """Cut the log `name` of the run directory open as `run` at the end of its last entry within `size` bytes (a
    log of only its header is removed)."""
    handle = os.open(name, os.O_RDWR | os.O_NOFOLLOW | os.O_CLOEXEC, dir_fd=run)
    try:
        head = os.pread(handle, _LOG_HEADER_LIMIT_BYTES, 0).partition(b"\n")
        end = offset = len(head[0]) + 1
        while True:
            header = _ENTRY_HEADER.match(os.pread(handle, _ENTRY_HEADER_LIMIT_BYTES, offset))
            if header is None:
                break
            following = offset + header.end() + int(header["length"]) + 1
            if following > size:
                break
            end = offset = following
        if end > len(head[0]) + 1:
            os.ftruncate(handle, end)
            return
    finally:
        os.close(handle)
    os.unlink(name, dir_fd=run)


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
    """Forget example `index`'s entry of `cache` (it held a value the oracle does not give: the session found it
    out before a failure rested on it): nothing of it is read again in this run, and the entry written again when
    the example is over, in this process's log, supersedes it (its generation is newer); the old bytes go when
    the logs are compacted."""
    cache._located.pop(index, None)
