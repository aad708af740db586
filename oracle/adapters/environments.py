"""Implementations that live outside the project's environment, prepared once and kept.

Two kinds, each pinned in its implementation's entry of `oracle.adapters.registry` and nowhere else:

- **npm packages** (promptfoo, bleu-score): `npm pack NAME@VERSION` fetches exactly the package's
  tarball from the npm registry (none of its dependencies: the adapters load only the BLEU code), its
  sha512 integrity is compared with the pin, and it is unpacked into ROOT/npm/NAME-VERSION.
- **virtual environments** (keras-hub, metrax, opik, azure-ai-evaluation): an implementation whose
  dependencies are heavy (TensorFlow, JAX, an LLM-evaluation SDK) or clash with the project's runs in its
  own venv, ROOT/venvs/NAME-HASH, created with this Python and the pinned requirements (two implementations
  of one library share one: opik's sentence and corpus BLEU); a `seed` script then writes what the library
  would otherwise download at run time (azure-ai-evaluation's NLTK data) from packages installed there.

Either is scored by a driver (`drivers/`) that speaks protocol v1 itself (`oracle.adapters.driven`).
A third kind is one file: **a script shipped inside a registry package** (Moses' multi-bleu-detok.perl, which
the OpenNMT-tf 1.25.3 sdist on PyPI vendors): `pip download` fetches exactly that sdist, its sha256 is
compared with the pin, and the one member is extracted, checked against its own pinned sha256, into
ROOT/scripts/NAME-VERSION/; perl runs it (`oracle.adapters.perl_adapter`).
ROOT is $BLEU_ORACLE_IMPLEMENTATIONS, else $XDG_CACHE_HOME/bleu-oracle/implementations (default
~/.cache/bleu-oracle/implementations): outside any checkout, so that a fresh clone (CI's) reuses what an
earlier one built, and a 1.6 GB environment is never inside a working tree. Each is built beside its place and
renamed into it, so a reader sees a whole environment or none. `ready(name)` is the preparing step of
`check`, `fuzz` and `report`, before the implementation starts (building what is missing, once, with a
progress line; never a side effect of building its command line); `prepare(name)` is what `bleu-oracle
install` and `scripts/setup` call (with `repair`); it prints what it does to stderr. npm and pip run in a process
group of their own (`oracle.adapters.lifetimes.run_in_group`): ^C or SIGTERM stops them, and the
scratch directory they were filling is removed. A scratch directory is named for its target and the process
that made it (`.TARGET.scratch-PID-XXXXXXXX`): one left by an install killed with SIGKILL is removed by the next
`prepare` of the same name once that process is gone, never while it runs (two installs at once keep each
other's). When npm or pip fails, the message carries its own reason (`_reason`: npm's error code and its last
meaningful lines, bounded and escaped).

**Installed code is verified whole before each use** (`verify`, which `require` calls, and the adapters
when they start), against the record written when it was installed: an npm package against the sha256 of
every file of its tarball (ROOT/npm/NAME-VERSION/manifest.json, with the pinned integrity it came from), an
sdist's files likewise, a script against its pinned sha256, and a venv against its manifest
(VENV_MANIFEST, inside it): every file and symbolic link of the venv and of its interpreter's paths outside it
(the standard library, lib-dynload, the executable, as `python -I` states its sys.path when it is built), so a
`.pth` file or a `sitecustomize.py` added where Python looks is found. A file added to any of them, missing or
changed makes the adapter unavailable (exit 3, naming it); `bleu-oracle install NAME` installs it again, and
`install --verify NAME` lists every difference. Before each use a venv's start-up files and Python sources are
read whole (sha256) and the rest compared by size and modification time (read whole only when either differs);
`install` and `install --verify` read every file (`deep`; docs/checking.md gives the cost of each). A venv
built without a manifest (by an earlier bleu-oracle) is not prepared: it is built again, never blessed as it is.
"""

from __future__ import annotations

import base64
import contextlib
import csv
import hashlib
import json
import os
import re
import shutil
import stat
import subprocess
import sys
import tarfile
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TextIO

from . import registry
from .base import AdapterUnavailable
from .lifetimes import run_in_group
from .preparations import NpmPin, ScriptSpec, SdistSpec, VenvSpec

#: What preparing one takes, said on the progress line before it starts (measured on this project's
#: 2-core machine: an npm tarball in a few seconds, a venv of TensorFlow or JAX in 15 to 60 s).
PREPARING = {"npm": "an npm tarball, once: a few seconds", "venv": "a venv of its own, once: ~1 min",
             "sdist": "source files from a PyPI sdist, once: a few seconds",
             "script": "one script from a registry package, once: a few seconds"}
#: What runs the npm packages' driver.
NODE_MISSING = "node is not installed (it runs the npm packages; Debian: apt-get install nodejs)"
#: What makes a virtual environment (argv, the target directory appended); a test puts a fake here.
VENV_CREATE = (sys.executable, "-m", "venv")
#: The file beside an npm package that records what was installed.
MANIFEST = "manifest.json"

#: What each prepared implementation pins, by name: views of `oracle.adapters.registry`, where each is declared
#: in its entry (read here; a test may add a demo name to one).
#: npm registry tarballs: name -> (version, sha512 integrity as the registry states it).
NPM_PACKAGES: dict[str, NpmPin] = registry.prepared(NpmPin)
#: virtual environments of their own (two names may share one: opik's sentence and corpus BLEU)
VENVS: dict[str, VenvSpec] = registry.prepared(VenvSpec)
#: scripts vendored in a registry package's sdist
SCRIPTS: dict[str, ScriptSpec] = registry.prepared(ScriptSpec)
#: C++ sources from a PyPI sdist
SDISTS: dict[str, SdistSpec] = registry.prepared(SdistSpec)


def _ours(name):
    return name in NPM_PACKAGES or name in VENVS or name in SDISTS or name in SCRIPTS


def _kind(name):
    return ("npm" if name in NPM_PACKAGES else "sdist" if name in SDISTS else "script" if name in SCRIPTS
            else "venv")


def root():
    """Where prepared implementations live: $BLEU_ORACLE_IMPLEMENTATIONS, else the user's cache directory."""
    explicit = os.environ.get("BLEU_ORACLE_IMPLEMENTATIONS")
    if explicit:
        return Path(explicit)
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "bleu-oracle" / "implementations"


def npm_package_dir(name):
    version, _ = NPM_PACKAGES[name]
    return root() / "npm" / f"{name}-{version}" / "package"


def venv_dir(name):
    return _spec_dir(VENVS[name])


def _spec_dir(spec):
    # (by the environment's name: two implementations of one library share it, opik's sentence and corpus BLEU)
    return root() / "venvs" / f"{spec.name}-{spec.digest}"


def venv_python(name):
    return venv_dir(name) / "bin" / "python"


def sdist_dir(name):
    """Where the source files taken from `name`'s sdist are (its MANIFEST beside them)."""
    spec = SDISTS[name]
    return root() / "sdist" / f"{spec.distribution}-{spec.version}"


def script_path(name: str) -> Path:
    """Where script `name` is installed (ROOT/scripts/NAME-VERSION/FILE)."""
    spec = SCRIPTS[name]
    return root() / "scripts" / f"{name}-{spec.version}" / spec.file_name


def is_prepared(name):
    """Installed, with the record of what was installed (its files may have changed since: `verify`). A venv
    built before venvs carried a manifest is not (`built_without_manifest`): it is built again."""
    if name in NPM_PACKAGES:
        return (npm_package_dir(name).parent / MANIFEST).is_file()
    if name in VENVS:
        return (venv_dir(name) / VENV_MANIFEST).is_file()
    if name in SDISTS:
        return (sdist_dir(name) / MANIFEST).is_file()
    if name in SCRIPTS:
        return script_path(name).is_file()
    return True


def built_without_manifest(name: str) -> bool:
    """A venv that an earlier bleu-oracle built (its python is there) without the manifest it is verified
    against: nothing says what it held when it was built, so it is not prepared (and never blessed as it is)."""
    return name in VENVS and venv_python(name).is_file() and not is_prepared(name)


# -- installed code verified whole --------------------------------------------------------------------------

#: A venv's manifest, inside it (written in its scratch directory, so it arrives with the environment or not at
#: all): every file and symbolic link of the venv and of its interpreter's paths, each file with its size,
#: modification time and sha256.
VENV_MANIFEST = ".bleu-oracle-manifest.json"
#: The layout of a venv's manifest; one of another layout is not read (the environment is built again).
VENV_MANIFEST_FORMAT = 1
#: What a venv's interpreter is asked when its manifest is written, isolated (-I: the PYTHONPATH and user site of
#: whoever builds it are not its paths): its own executable and sys.path.
INTERPRETER_PATHS = "import json, os, sys; print(json.dumps([os.path.realpath(sys.executable), *sys.path]))"
#: The files of a venv whose every byte is checked before each use: what Python runs at start-up (a .pth line
#: that begins with `import`, sitecustomize.py and usercustomize.py, pyvenv.cfg) and every Python source. The
#: others (bytecode, shared libraries, data) are checked by size and modification time then, and by sha256 only
#: when those differ; `install` and `install --verify` check the sha256 of every file (docs/checking.md).
HASHED_ON_EACH_USE = (".py", ".pth", ".cfg")
#: How many differences a refusal names (`install --verify NAME` lists them all).
DIFFERENCES_NAMED = 3


@dataclass(frozen=True)
class Difference:
    """One way installed code is not what was installed: a file `added`, `missing` or `changed`."""

    kind: str  # "added", "missing" or "changed"
    path: str  # relative to the environment's directory; absolute for an interpreter's path outside it
    detail: str = ""  # what changed

    def __str__(self) -> str:
        shown = _shown(self.path)
        if self.kind == "added":
            return f"{shown} was added"
        if self.kind == "missing":
            return f"{shown} is missing"
        return f"{shown} has changed ({self.detail})"

    def listed(self) -> str:
        """The file and, for a changed one, how: a line of a list under its kind (`install --verify`)."""
        return _shown(self.path) + (f" ({self.detail})" if self.detail else "")


@dataclass(frozen=True)
class Verification:
    """What verifying one environment found: where it is, how many recorded files it checked, what differs."""

    where: Path
    checked: int
    differences: tuple[Difference, ...]


def verify(name, *, deep=False):
    """Raise AdapterUnavailable naming the first differences between `name`'s installed code and what was
    installed (a file added, missing or changed; `deep`: the sha256 of every file of a venv, not only of its
    start-up files and sources); nothing for an implementation that is not ours to install."""
    if not _ours(name):
        return
    found = differences(name, deep=deep)
    if found.differences:
        named = "; ".join(str(difference) for difference in found.differences[:DIFFERENCES_NAMED])
        more = len(found.differences) - DIFFERENCES_NAMED
        if more > 0:
            named += f" (and {more} more: `bleu-oracle install --verify {name}` lists them)"
        raise AdapterUnavailable(f"{name}'s installed code in {found.where} is not what was installed: {named}; "
                                 f"run `bleu-oracle install {name}` to install it again")


def differences(name: str, *, deep: bool = False) -> Verification:
    """How `name`'s installed files compare with the record of what was installed (ours to install only).
    Raises AdapterUnavailable when that record is missing or cannot be read."""
    if name in NPM_PACKAGES:
        return _npm_differences(name)
    if name in SDISTS:
        return _sdist_differences(SDISTS[name])
    if name in SCRIPTS:
        spec = SCRIPTS[name]
        return _hashed_differences(script_path(name).parent, {spec.file_name: spec.sha256}, ignored=())
    return _venv_differences(VENVS[name], deep)


def _sha256(path):
    digest = hashlib.sha256()
    with open(path, "rb") as handle:  # (hashlib.file_digest is Python 3.11+)
        for chunk in iter(lambda: handle.read(1 << 20), b""):
            digest.update(chunk)
    return digest


def _shown(text: str) -> str:
    """`text` with what a terminal would act on or cannot show (control characters, lone surrogates of a file
    name read with surrogateescape) written as escapes."""
    return "".join(character if character.isprintable() else repr(character)[1:-1] for character in text)


def _changed(name, where, relative, problem):
    return AdapterUnavailable(f"{name}'s installed code in {where} is not what was installed: {relative} {problem}; "
                              f"run `bleu-oracle install {name}` to install it again")


def _walk(top: str, *, importable_only: bool = False) -> Iterator[tuple[str, os.stat_result]]:
    """Every file and symbolic link under directory `top` (`top` itself if it is a file; nothing if it is
    absent), as its path below `top` ("" for `top` itself) and its lstat; a symbolic link to a directory is one
    entry, not followed. `importable_only`: subdirectories whose names Python cannot import as packages are not
    entered (a base interpreter's own `site-packages`, which its venvs do not see, `config-3.11-x86_64-linux-gnu`).
    (Strings and os.scandir, not Path: a venv and its standard library are some 15,000 files, walked before each
    use.)"""
    try:
        status = os.stat(top)
    except FileNotFoundError:
        return
    if not stat.S_ISDIR(status.st_mode):
        yield "", status
        return
    pending = [""]
    while pending:
        below = pending.pop()
        with os.scandir(os.path.join(top, below) if below else top) as entries:
            for entry in entries:
                relative = f"{below}/{entry.name}" if below else entry.name
                if entry.is_dir(follow_symlinks=False):
                    if not importable_only or entry.name.isidentifier():
                        pending.append(relative)
                else:
                    yield relative, entry.stat(follow_symlinks=False)


def _hashed_differences(where: Path, expected: dict[str, str], *, ignored=(MANIFEST,)) -> Verification:
    """Each file under `where` against the sha256 recorded for it ({relative path: hex digest}), and every file
    there that was not recorded (but `ignored`)."""
    found = [Difference("added", relative) for relative in sorted(
        {relative for relative, _ in _walk(str(where))} - set(expected) - set(ignored))]
    for relative, digest in sorted(expected.items()):
        try:
            actual = _sha256(where / relative).hexdigest()
        except FileNotFoundError:
            found.append(Difference("missing", relative))
            continue
        except OSError as exc:
            found.append(Difference("changed", relative, f"cannot be read: {exc.strerror or exc}"))
            continue
        if actual != digest:
            found.append(Difference("changed", relative, f"sha256 {actual}, installed {digest}"))
    return Verification(where, len(expected), tuple(found))


def _npm_differences(name: str) -> Verification:
    where = npm_package_dir(name).parent
    try:
        manifest = json.loads((where / MANIFEST).read_text(encoding="utf-8"))
        files = dict(manifest["files"])
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise _changed(name, where, MANIFEST, f"cannot be read ({exc})") from None
    if manifest.get("integrity") != NPM_PACKAGES[name][1]:
        raise _changed(name, where, MANIFEST, f"records a tarball of integrity {manifest.get('integrity')}, "
                       f"not the pinned {NPM_PACKAGES[name][1]}")
    return _hashed_differences(where, {f"package/{relative}": digest for relative, digest in files.items()})


def _manifest(name, package):
    """What an npm package's unpacked tree holds: its pin and the sha256 of each file."""
    files = {}
    for directory, _, names in os.walk(package):
        for file_name in names:
            path = Path(directory) / file_name
            files[path.relative_to(package).as_posix()] = _sha256(path).hexdigest()
    version, integrity = NPM_PACKAGES[name]
    return {"package": name, "version": version, "integrity": integrity, "files": files}


def _venv_differences(spec: VenvSpec, deep: bool) -> Verification:
    """The venv and its interpreter's paths against its manifest: what was added, what is missing, what changed
    (by sha256: every file when `deep`, else the start-up files and sources, and a file whose size or
    modification time is not the recorded one)."""
    where = _spec_dir(spec)
    try:
        manifest = json.loads((where / VENV_MANIFEST).read_text(encoding="utf-8"))
        if manifest["format"] != VENV_MANIFEST_FORMAT:
            raise ValueError(f"format {manifest['format']!r}, not {VENV_MANIFEST_FORMAT}")
        roots, recorded = [str(root) for root in manifest["roots"]], dict(manifest["files"])
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise _changed(spec.name, where, VENV_MANIFEST, f"cannot be read ({exc})") from None
    present = _venv_files(where, roots)
    found = [Difference("added", key) for key in sorted(set(present) - set(recorded))]
    for key, entry in sorted(recorded.items()):
        if key not in present:
            found.append(Difference("missing", key))
            continue
        problem = _entry_problem(*present[key], entry, deep or key.endswith(HASHED_ON_EACH_USE))
        if problem:
            found.append(Difference("changed", key, problem))
    return Verification(where, len(recorded), tuple(found))


def _venv_files(venv: Path, roots: list[str]) -> dict[str, tuple[str, os.stat_result]]:
    """Every file and symbolic link of `venv` (keys relative to it, its manifest left out) and of each of the
    interpreter's paths `roots` outside it (absolute keys; only the directories Python can import from), with
    its path and lstat."""
    entries = {relative: (os.path.join(venv, relative), status) for relative, status in _walk(str(venv))}
    entries.pop(VENV_MANIFEST, None)
    for root in roots:
        for relative, status in _walk(root, importable_only=True):
            path = os.path.join(root, relative) if relative else root
            entries[path] = (path, status)
    return entries


def _entry(path: str, status: os.stat_result) -> list:
    """What a venv's manifest records of one entry: a symbolic link's target; a file's size, modification time
    and sha256; the type of anything else (a socket, a pipe: never opened)."""
    if stat.S_ISLNK(status.st_mode):
        return ["link", os.readlink(path)]
    if not stat.S_ISREG(status.st_mode):
        return ["special", stat.S_IFMT(status.st_mode)]
    return ["file", status.st_size, status.st_mtime_ns, _sha256(path).hexdigest()]


def _entry_problem(path: str, status: os.stat_result, recorded: list, hashed: bool) -> str:
    """How one entry differs from what its manifest `recorded` ("" when it does not): its sha256 read when
    `hashed`, or when its size is the recorded one and its modification time is not."""
    kind = recorded[0] if recorded else None
    if kind == "link" or stat.S_ISLNK(status.st_mode):
        if kind == "link" and stat.S_ISLNK(status.st_mode) and os.readlink(path) == recorded[1]:
            return ""
        installed = f"a link to {_shown(str(recorded[1]))}" if kind == "link" else "a file"
        return f"{_described(status, path)}, installed {installed}"
    if kind != "file" or not stat.S_ISREG(status.st_mode):
        same = kind == "special" and stat.S_IFMT(status.st_mode) == recorded[1]
        return "" if same else f"{_described(status, path)}, installed {'a file' if kind == 'file' else 'another'}"
    size, modified, digest = recorded[1:4]
    if status.st_size != size:
        return f"size {status.st_size} bytes, installed {size}"
    if not hashed and status.st_mtime_ns == modified:
        return ""
    try:
        actual = _sha256(path).hexdigest()
    except OSError as exc:
        return f"cannot be read: {exc.strerror or exc}"
    return "" if actual == digest else f"sha256 {actual}, installed {digest}"


def _described(status: os.stat_result, path: str) -> str:
    """What an entry is now, for a message: a link and its target, a file, or another kind of file."""
    if stat.S_ISLNK(status.st_mode):
        return f"a link to {_shown(os.readlink(path))}"
    return "a file" if stat.S_ISREG(status.st_mode) else "not a regular file"


def _interpreter_roots(spec: VenvSpec, building: Path) -> list[str]:
    """The interpreter's paths of the venv being built that lie outside it (its executable, the standard
    library, lib-dynload, a zip that may not exist yet), as the venv's own python says, resolved."""
    done = run_in_group([str(building / "bin" / "python"), "-I", "-c", INTERPRETER_PATHS], timeout=300)
    try:
        paths = json.loads(done.stdout) if done.returncode == 0 else None
        if not isinstance(paths, list) or not all(isinstance(path, str) for path in paths):
            raise ValueError(f"exit {done.returncode}: {_reason(done.stdout + done.stderr, lines=1)}")
    except ValueError as exc:
        raise AdapterUnavailable(f"{spec.name}'s interpreter did not say its paths ({exc})") from None
    inside = building.resolve()
    roots = {Path(os.path.realpath(path)) for path in paths if path}
    return sorted(str(root) for root in roots if root != inside and inside not in root.parents)


def _write_venv_manifest(spec: VenvSpec, building: Path) -> None:
    """Record every file of the venv being built and of its interpreter's paths (VENV_MANIFEST, in it)."""
    roots = _interpreter_roots(spec, building)
    files = {key: _entry(path, status) for key, (path, status) in sorted(_venv_files(building, roots).items())}
    manifest = {"format": VENV_MANIFEST_FORMAT, "environment": spec.name, "roots": roots, "files": files}
    (building / VENV_MANIFEST).write_text(json.dumps(manifest, separators=(",", ":")) + "\n", encoding="utf-8")


def _verify_record(spec: VenvSpec, building: Path) -> None:
    """The BLEU library's files, as pip left them in the venv being built, against pip's RECORD (path,
    sha256=urlsafe-base64, size per line): the manifest records what pip installed."""
    distribution = spec.library.replace("-", "_")
    pattern = f"lib/python*/site-packages/{distribution}-{spec.pinned(spec.library)}.dist-info/RECORD"
    record = next(iter(sorted(building.glob(pattern))), None)
    if record is None:
        raise AdapterUnavailable(f"pip installed no {pattern} in {spec.name}'s environment")
    site = record.parent.parent
    try:
        rows = list(csv.reader(record.read_text(encoding="utf-8").splitlines()))
    except (OSError, ValueError, csv.Error) as exc:
        raise AdapterUnavailable(f"{spec.name}'s {record.relative_to(building)} cannot be read ({exc})") from None
    for row in rows:
        if len(row) < 2 or not row[1].startswith("sha256="):
            continue  # RECORD itself, and files pip does not hash
        relative, expected = row[0], row[1][len("sha256="):]
        try:
            actual = base64.urlsafe_b64encode(_sha256(site / relative).digest()).rstrip(b"=").decode()
        except OSError as exc:
            raise AdapterUnavailable(f"{spec.name}'s {_shown(relative)}, as pip installed it, cannot be read "
                                     f"({exc.strerror or exc})") from None
        if actual != expected:
            raise AdapterUnavailable(f"{spec.name}'s {_shown(relative)} is not what pip's RECORD says it installed "
                                     f"(sha256 {actual}, RECORD {expected})")


def _sdist_differences(spec: SdistSpec) -> Verification:
    """The files taken from the sdist against the sha256 recorded when they were unpacked, and the record
    against the pinned sdist they came from."""
    where = sdist_dir(spec.name)
    try:
        manifest = json.loads((where / MANIFEST).read_text(encoding="utf-8"))
        files = dict(manifest["files"])
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise _changed(spec.name, where, MANIFEST, f"cannot be read ({exc})") from None
    if manifest.get("sha256") != spec.sha256 or sorted(files) != sorted(spec.files):
        raise _changed(spec.name, where, MANIFEST, f"records {sorted(files)} from an sdist of sha256 "
                       f"{manifest.get('sha256')}, not {list(spec.files)} from the pinned {spec.sha256}")
    return _hashed_differences(where, files)


# -- package managers' words, scratch directories ------------------------------------------------------------

#: What prefixes npm's lines of an error (npm 6: "npm ERR! ", 7 on: "npm error "), left out of a reason.
_NPM_PREFIX = re.compile(r"^npm (?:ERR!|error|warn|WARN)\s?")
#: Lines of a package manager's stderr that say nothing of why it failed (npm's pointer to its log, and the log's
#: path on a line of its own in npm 6).
_NOISE = ("A complete log of this run can be found in", "WARNING: Location", "[notice]", "Traceback (most recent")
_NPM_LOG = re.compile(r".*[/\\]_logs[/\\][^/\\]*\.log")
#: How much of a package manager's own words a message carries, each line and the whole.
REASON_LINE_CHARACTERS = 200
REASON_CHARACTERS = 600


def _reason(text: str, *, lines: int = 3) -> str:
    """Why npm or pip (or a Python it ran) failed, in its own words, for a one-line message: npm's error code
    ("code ENOSPC") and the last `lines` meaningful lines of `text`, without npm's prefixes, stack frames,
    dumped objects, blank lines and the pointer to its log; bounded and escaped."""
    kept: list[str] = []
    code = ""
    depth = 0
    for raw in text.splitlines():
        line = _NPM_PREFIX.sub("", raw).strip()
        if depth or line.endswith("{"):  # an error object npm dumps after its stack: `{ code: 'ENOSPC', ... }`
            depth = max(depth + line.count("{") - line.count("}"), 0)
            continue
        if not line or line.startswith(("at ", 'File "')) or line.startswith(_NOISE) or _NPM_LOG.fullmatch(line):
            continue
        if not code and re.fullmatch(r"code [A-Z0-9_]+", line):
            code = line
        elif line not in kept[-1:]:
            kept.append(line)
    chosen = [code] * bool(code) + kept[-lines:]
    reason = "; ".join(_shown(_cut(line, REASON_LINE_CHARACTERS)) for line in chosen) or "it said nothing"
    return _cut(reason, REASON_CHARACTERS)


def _cut(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[:limit] + "..."


def _npm_reason(done: subprocess.CompletedProcess) -> str:
    """npm's reason for failing: the error `--json` makes it print on stdout (code, summary, detail), else its
    stderr's (`_reason`)."""
    try:
        error = json.loads(done.stdout[:1 << 16])["error"]
        said = [f"code {error['code']}" if error.get("code") else "", str(error.get("summary") or ""),
                str(error.get("detail") or "")]
    except (ValueError, LookupError, TypeError, AttributeError):
        return _reason(done.stderr)
    return _reason("\n".join(line for line in said if line)) if any(said) else _reason(done.stderr)


#: A scratch directory or an installation moved aside, named for its target and the process that made it.
_SCRATCH_NAME = re.compile(r"\.(?P<target>.+)\.(?:scratch|replaced)-(?P<pid>\d{1,10})(?:-.*)?", re.DOTALL)


@contextlib.contextmanager
def _scratch(target: Path) -> Iterator[Path]:
    """A new directory beside `target` to build it in, named for it and this process
    (`.TARGET.scratch-PID-XXXXXXXX`), removed afterwards; one this process cannot remove (it was killed) is
    removed by the next install of `target` (`_collect_scratch`)."""
    scratch = Path(tempfile.mkdtemp(prefix=f".{target.name}.scratch-{os.getpid()}-", dir=target.parent))
    try:
        yield scratch
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


def _collect_scratch(target: Path, log: TextIO) -> None:
    """Remove what installs of `target` that died (SIGKILL, a power cut) left beside it: their scratch
    directories and installations moved aside, each named for the process that made it. One whose process
    is alive is kept: another install is at work on it."""
    try:
        entries = list(target.parent.iterdir())
    except OSError:  # nothing of this kind was ever built (or the directory is unusable: building says so)
        return
    for entry in entries:
        found = _SCRATCH_NAME.fullmatch(entry.name)
        if found is None or found["target"] != target.name or _running(int(found["pid"])):
            continue
        print(f"bleu-oracle: removing {_shown(entry.name)} from {target.parent}: left by an install of "
              f"{target.name} that did not finish (its process {found['pid']} is gone)", file=log)
        shutil.rmtree(entry, ignore_errors=True)


def _running(pid: int) -> bool:
    """Whether process `pid` runs (this one's own included; one of another user's counts; a zombie, dead and
    not yet reaped, does not)."""
    if pid == os.getpid():
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except (OverflowError, ValueError):  # no process has such a number
        return False
    except OSError:  # EPERM: it exists, and is another user's
        return True
    with contextlib.suppress(OSError, IndexError):  # (Linux: its state follows the command name in parentheses)
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    return True


def _target(name: str) -> Path:
    """The directory implementation `name` is installed in (its scratch directories are beside it)."""
    if name in NPM_PACKAGES:
        return npm_package_dir(name).parent
    if name in SDISTS:
        return sdist_dir(name)
    if name in SCRIPTS:
        return script_path(name).parent
    return venv_dir(name)


def require(name: str) -> None:
    """Raise AdapterUnavailable unless `name` is ready to run: prepared, its runtime present (node for
    an npm package), its installed code what was installed (`verify`). Nothing for one not ours."""
    if not _ours(name):
        return
    if not is_prepared(name):
        kind = {"npm": f"the npm package {name}", "venv": f"{name}'s own environment",
                "sdist": f"{name}'s source files",
                "script": f"{name}'s script"}[_kind(name)]
        if built_without_manifest(name):
            raise AdapterUnavailable(f"{name}'s own environment in {venv_dir(name)} was built without the manifest "
                                     f"it is verified against (by an earlier bleu-oracle): {install_hint(name)}")
        raise AdapterUnavailable(f"{kind} is not installed: {install_hint(name)}")
    if name in NPM_PACKAGES and shutil.which("node") is None:
        raise AdapterUnavailable(NODE_MISSING)
    verify(name)


def ready(name: str, *, log: TextIO = sys.stderr) -> None:
    """The preparing step before implementation `name` starts: one that lives outside this environment
    is prepared if it is not yet (a progress line on `log` first: "preparing keras-hub (a venv of its
    own, once: ~1 min)"), then `require`d. Raises AdapterUnavailable saying why it cannot be driven."""
    if not _ours(name):
        return
    if name in NPM_PACKAGES and shutil.which("node") is None:  # (before a fetch it could not run)
        raise AdapterUnavailable(NODE_MISSING)
    if not is_prepared(name):
        print(f"bleu-oracle: preparing {name} ({PREPARING[_kind(name)]})", file=log)
        prepare(name, log=log)
    require(name)


def install_hint(name: str) -> str:
    return f"run `bleu-oracle install {name}` once (or `check --impl {name}`, which prepares it before it starts)"


def prepare(name, *, log=sys.stderr, repair=False):
    """Make implementation `name`'s own environment if it is one of ours and missing (or a venv built without
    a manifest); with `repair` (`bleu-oracle install`), also when its installed code does not verify (the
    sha256 of every file), and verify what it made. First, what installs of it that died left beside it is
    removed. Raises AdapterUnavailable, saying why, when it cannot (no npm, no registry, a changed tarball)."""
    if not _ours(name):
        return
    _collect_scratch(_target(name), log)
    if is_prepared(name):
        if not repair:
            return
        try:
            verify(name, deep=True)
            return
        except AdapterUnavailable as exc:
            print(f"bleu-oracle: {exc}: installing it again", file=log)
    elif built_without_manifest(name):
        print(f"bleu-oracle: {name}'s environment in {venv_dir(name)} was built without the manifest it is "
              "verified against (nothing says what it held then): building it again", file=log)
    start = time.perf_counter()
    if name in NPM_PACKAGES:
        _prepare_npm(name, log)
    elif name in SDISTS:
        _prepare_sdist(SDISTS[name], log)
    elif name in SCRIPTS:
        _prepare_script(SCRIPTS[name], log)
    else:
        _prepare_venv(VENVS[name], log)
    verify(name)
    print(f"bleu-oracle: prepared {name} in {time.perf_counter() - start:.1f} s", file=log)


def _prepare_npm(name, log):
    version, integrity = NPM_PACKAGES[name]
    npm = shutil.which("npm")
    if npm is None:
        raise AdapterUnavailable(f"{name} is an npm package and npm is not installed (Debian: apt-get install npm)")
    target = npm_package_dir(name).parent
    target.parent.mkdir(parents=True, exist_ok=True)
    print(f"bleu-oracle: fetching {name}@{version} from the npm registry (its tarball only) into {target}", file=log)
    with _scratch(target) as scratch:
        tmp = str(scratch)
        try:
            done = run_in_group([npm, "pack", f"{name}@{version}", "--json", "--pack-destination", tmp],
                                timeout=300, cwd=tmp)
        except subprocess.TimeoutExpired:
            raise AdapterUnavailable(f"npm pack {name}@{version} did not finish within 300 s (stopped)") from None
        if done.returncode != 0:
            raise AdapterUnavailable(f"npm pack {name}@{version} failed: {_npm_reason(done)}")
        try:
            tarball = Path(tmp) / Path(json.loads(done.stdout)[0]["filename"]).name
        except (ValueError, LookupError, TypeError):
            raise AdapterUnavailable(
                f"npm pack {name}@{version} printed no tarball name: {done.stdout[:200]!r}"
            ) from None
        if not tarball.is_file():
            raise AdapterUnavailable(f"npm pack {name}@{version} wrote no {tarball.name}")
        digest = "sha512-" + base64.b64encode(hashlib.sha512(tarball.read_bytes()).digest()).decode()
        if digest != integrity:
            raise AdapterUnavailable(f"{name}@{version}'s tarball has integrity {digest}, not the pinned {integrity}")
        unpacked = Path(tmp) / "unpacked"
        try:
            with tarfile.open(tarball) as archive:
                archive.extractall(unpacked, filter="data")
        except (tarfile.TarError, OSError) as exc:
            raise AdapterUnavailable(f"{name}@{version}'s tarball does not unpack: {exc}") from None
        manifest = _manifest(name, unpacked / "package")
        (unpacked / MANIFEST).write_text(json.dumps(manifest, indent=1, sort_keys=True) + "\n", encoding="utf-8")
        _move_into_place(unpacked, target, name)


#: What fetches a registry sdist (argv; the directory and the requirement appended): pip, sdists only, no
#: dependencies. (pip prepares the sdist's metadata to name it, in an isolated build environment.)
PIP_DOWNLOAD = (sys.executable, "-m", "pip", "download", "-q", "--disable-pip-version-check", "--no-deps",
                "--no-binary", ":all:", "-d")


def _prepare_script(spec: ScriptSpec, log: TextIO) -> None:
    target = script_path(spec.name).parent
    target.parent.mkdir(parents=True, exist_ok=True)
    requirement = f"{spec.distribution}=={spec.version}"
    print(f"bleu-oracle: fetching the {requirement} sdist from the package registry for its {spec.file_name}, "
          f"into {target}", file=log)
    with _scratch(target) as scratch:
        tmp = str(scratch)
        try:
            done = run_in_group([*PIP_DOWNLOAD, tmp, requirement], timeout=300, cwd=tmp)
        except subprocess.TimeoutExpired:
            raise AdapterUnavailable(f"pip download {requirement} did not finish within 300 s (stopped)") from None
        sdists = sorted(Path(tmp).glob("*.tar.gz"))
        if done.returncode != 0 or len(sdists) != 1:
            raise AdapterUnavailable(f"pip download {requirement} failed: {_reason(done.stderr)}")
        digest = _sha256(sdists[0]).hexdigest()
        if digest != spec.sdist_sha256:
            raise AdapterUnavailable(f"{sdists[0].name} has sha256 {digest}, not the pinned {spec.sdist_sha256}")
        built = Path(tmp) / "built"
        built.mkdir()
        _extract_member(sdists[0], spec, built / spec.file_name)
        _move_into_place(built, target, spec.name)


def _extract_member(sdist: Path, spec: ScriptSpec, destination: Path) -> None:
    """The pinned member of `sdist`, written to `destination` only if its sha256 is the pinned one."""
    try:
        with tarfile.open(sdist) as archive:
            member = archive.extractfile(spec.member)
            data = member.read(1 << 22) if member is not None else b""  # a script: well under 4 MiB
    except (tarfile.TarError, KeyError, OSError) as exc:
        raise AdapterUnavailable(f"{sdist.name} has no readable {spec.member}: {exc}") from None
    digest = hashlib.sha256(data).hexdigest()
    if digest != spec.sha256:
        raise AdapterUnavailable(f"{spec.member} in {sdist.name} has sha256 {digest}, not the pinned {spec.sha256}")
    destination.write_bytes(data)


def _move_into_place(built, target, name):
    """Rename `built` to `target`, after moving aside what is there (an installation that did not
    verify, being repaired); another process that got there first (two `check`s preparing at once) is
    as good, so its copy is kept."""
    aside = target.with_name(f".{target.name}.replaced-{os.getpid()}")
    try:
        if target.exists():
            os.replace(target, aside)
        os.replace(built, target)
    except OSError as exc:
        # (what is there, not `is_prepared(name)`: a shared environment's name, "opik", is no implementation's)
        if not ((target / MANIFEST).is_file() or (target / VENV_MANIFEST).is_file()):
            raise AdapterUnavailable(f"could not move {name} into {target}: {exc}") from None
    finally:
        shutil.rmtree(aside, ignore_errors=True)


def _prepare_venv(spec, log):
    target = _spec_dir(spec)
    target.parent.mkdir(parents=True, exist_ok=True)
    print(f"bleu-oracle: creating {spec.name}'s own environment in {target} (once; pip install "
          f"{' '.join(' '.join(step) for step in spec.steps)})", file=log)
    # A venv's scripts hold its path: built under its final name in a scratch directory, it is moved
    # without its pip scripts mattering (the adapters run `bin/python` only).
    try:
        with _scratch(target) as scratch:
            building = scratch / target.name
            done = run_in_group([*VENV_CREATE, str(building)], timeout=300)
            if done.returncode != 0:
                raise AdapterUnavailable(f"creating {spec.name}'s environment failed: {_reason(done.stderr)}")
            python = building / "bin" / "python"
            for step in spec.steps:
                done = run_in_group([str(python), "-m", "pip", "install", "-q", "--disable-pip-version-check",
                                     *step], timeout=1800)
                if done.returncode != 0:
                    raise AdapterUnavailable(f"pip install {' '.join(step)} failed for {spec.name}: "
                                             f"{_reason(done.stderr)}")
            if spec.seed:
                _seed(spec, python, building)
            checked = run_in_group([str(python), "-c", spec.check], timeout=300)
            if checked.returncode != 0:
                raise AdapterUnavailable(f"{spec.name}'s environment does not import: "
                                         f"{_reason(checked.stderr, lines=1)}")
            # (last: what the checks above wrote, their bytecode, is part of what was installed)
            _verify_record(spec, building)
            _write_venv_manifest(spec, building)
            _move_into_place(building, target, spec.name)
    except (subprocess.SubprocessError, OSError) as exc:
        raise AdapterUnavailable(f"creating {spec.name}'s environment failed: {exc}") from exc


def _seed(spec, python, building):
    """Run `spec.seed` (a script of drivers/) in the environment being built, with its directory."""
    script = Path(__file__).resolve().parent / "drivers" / spec.seed
    done = run_in_group([str(python), str(script), str(building)], timeout=300)
    if done.returncode != 0:
        raise AdapterUnavailable(f"seeding {spec.name}'s environment ({spec.seed}) failed: "
                                 f"{_reason(done.stderr, lines=1)}")


def _prepare_sdist(spec, log):
    """`pip download` the pinned sdist (no dependencies, no wheel), check its sha256, and keep only `files`."""
    target = sdist_dir(spec.name)
    target.parent.mkdir(parents=True, exist_ok=True)
    print(f"bleu-oracle: fetching {spec.distribution}=={spec.version}'s sdist from PyPI (only "
          f"{', '.join(spec.files)} are kept) into {target}", file=log)
    with _scratch(target) as scratch:
        tmp = str(scratch)
        # pip prepares an sdist's metadata before saving it: this Python's setuptools does, not a build env
        argv = [sys.executable, "-m", "pip", "download", "-q", "--disable-pip-version-check", "--no-deps",
                "--no-binary", ":all:", "--no-build-isolation", "-d", tmp, f"{spec.distribution}=={spec.version}"]
        try:
            done = run_in_group(argv, timeout=600, cwd=tmp)
        except subprocess.TimeoutExpired:
            raise AdapterUnavailable(f"pip download {spec.distribution}=={spec.version} did not finish within "
                                     "600 s (stopped)") from None
        tarball = Path(tmp) / f"{spec.distribution}-{spec.version}.tar.gz"
        if done.returncode != 0 or not tarball.is_file():
            raise AdapterUnavailable(f"pip download {spec.distribution}=={spec.version} failed: "
                                     f"{_reason(done.stderr)}")
        digest = _sha256(tarball).hexdigest()
        if digest != spec.sha256:
            raise AdapterUnavailable(f"{spec.distribution} {spec.version}'s sdist has sha256 {digest}, "
                                     f"not the pinned {spec.sha256}")
        unpacked = Path(tmp) / "unpacked"
        _unpack_files(spec, tarball, unpacked)
        manifest = {"distribution": spec.distribution, "version": spec.version, "sha256": spec.sha256,
                    "files": {relative: _sha256(unpacked / relative).hexdigest() for relative in spec.files}}
        (unpacked / MANIFEST).write_text(json.dumps(manifest, indent=1, sort_keys=True) + "\n", encoding="utf-8")
        _move_into_place(unpacked, target, spec.name)


def _unpack_files(spec, tarball, unpacked):
    """Only `spec.files` out of the sdist (read as bytes, written under `unpacked`: no path from the archive
    is trusted)."""
    top = f"{spec.distribution}-{spec.version}"
    try:
        with tarfile.open(tarball) as archive:
            for relative in spec.files:
                member = archive.extractfile(f"{top}/{relative}")
                if member is None:
                    raise KeyError(relative)
                (unpacked / relative).parent.mkdir(parents=True, exist_ok=True)
                (unpacked / relative).write_bytes(member.read())
    except (tarfile.TarError, OSError, KeyError) as exc:
        raise AdapterUnavailable(f"{spec.distribution} {spec.version}'s sdist does not hold {exc}") from None
