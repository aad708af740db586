"""Report directories that never destroy what is around them.

A run writes into a staging directory *inside* the report directory (`DIR/.bleu-oracle-partial.PID.XXXX/`: the
same file system as DIR, whether DIR is a mount point, a symlink's target or `..`) and, when the run is over,
publishes it: each file is renamed into DIR (an atomic rename each), the previous report's files that this one
does not have are removed, and the manifest (`DIR/.bleu-oracle-report.json`, written last) lists the files that
now make the report. Nothing else in DIR is touched: a baseline kept there, a user's notes, a git checkout's
`.git`. Publication holds an exclusive lock on DIR, so two runs into one directory each publish whole and the
last to finish is the report left.

The path is checked before anything runs: a file in the way, a dangling symlink, a place that cannot be written,
or a directory that holds other files and is not a previous report (unless `force`; and even then a file of the
user's named as one the report writes) is a usage error then, never after the run. A file that is not a report's
is never replaced: `publish` refuses, naming it, and leaves the report staged. A reader of DIR during a run sees
the previous report; during the publication (milliseconds) it may see some files of each, and the manifest names
the new report's files once it is whole.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

from oracle.files import write_atomically  # noqa: F401 (re-exported: the reports' writers use it from here)
from oracle.formulas.errors import BleuValueError, FileWriteError, os_reason
from oracle.models.wire import json_value
from oracle.signals import signals_deferred

#: Lists the files of the report a directory holds (relative paths); written last when a report is published.
MANIFEST = ".bleu-oracle-report.json"
#: Staging directories of runs in progress (or killed) inside a report directory: `.bleu-oracle-partial.PID.XXXX`.
STAGING_PREFIX = ".bleu-oracle-partial."
#: The top-level entries a `check`, `fuzz` or `merge` report writes (`prepare`'s `writes`).
RUN_REPORT_ENTRIES = ("results.jsonl", "summary.md", "junit.xml", "badge.json", "replay")
#: The top-level entries of `bleu-oracle report`'s folder known before it is rendered (`publish` guards the rest).
SITE_ENTRIES = ("README.md", "matrix.md", "real-data.md", "trophies.md", "index.html", "implementations", "data")
#: Reports written before manifests existed, by what marks them and the top-level entries that are the report's:
#: a `check` or `fuzz` report (its results.jsonl starts with a header), and `bleu-oracle report`'s folder.
LEGACY_REPORTS = (
    ("results.jsonl", "header", RUN_REPORT_ENTRIES),
    ("data/run.json", "bleu-oracle-report/1", SITE_ENTRIES),
)
#: Entries of a non-report directory named in the refusal message.
SHOWN_ENTRIES = 5


class ReportDirectory:
    """One report directory and the staging directory a run writes into (`prepare`, then `publish` or
    `discard`)."""

    def __init__(self, target: Path, staging: Path, previous: frozenset[str]):
        self.target = target
        self.staging = staging
        #: the files of the report the directory held before this run (removed when this one does not have them)
        self.previous = previous

    @classmethod
    def prepare(cls, target: str | os.PathLike, *, option: str = "--report", force: bool = False,
                writes: tuple[str, ...] = RUN_REPORT_ENTRIES) -> ReportDirectory:
        """Check `target` and make a staging directory in it; raises BleuValueError (a usage error) when the
        report cannot or must not go there. `force`: write beside files that are not a report's, never over one:
        an entry of the user's named as one the report `writes` (its top-level names) is refused before the run
        (and `publish` refuses any other it would replace)."""
        given = Path(target)
        directory = _existing_directory(given, option)
        previous = report_files(directory)
        if previous is None:
            others = _foreign_entries(directory)
            if others and not force:
                raise BleuValueError(
                    f"`{option} {given}` holds files that are not a bleu-oracle report ({_listed(others)}): choose a "
                    f"new or empty directory, or add {option}-force to write the report's files beside them "
                    "(nothing else is touched)")
            in_the_way = [name for name in others if name in writes]
            if in_the_way:
                raise BleuValueError(
                    f"`{option} {given}` holds {_listed(in_the_way)} of your own, where the report writes its files: "
                    f"{option}-force never overwrites a file that is not a report's; move it, or choose another "
                    "directory")
            previous = frozenset()
        try:
            staging = Path(tempfile.mkdtemp(prefix=f"{STAGING_PREFIX}{os.getpid()}.", dir=directory))
        except OSError as exc:
            raise BleuValueError(f"`{option} {given}`: cannot write there ({os_reason(exc)})") from None
        return cls(directory, staging, previous)

    def publish(self) -> Path:
        """Move the staged report into the directory, file by file, under the directory's lock; remove the
        previous report's files this one does not have; write the manifest last. Returns the directory. A
        SIGTERM or ^C meanwhile waits until the publication is done."""
        with signals_deferred(), _locked(self.target):
            files = sorted(_files_under(self.staging))
            current = report_files(self.target) or frozenset()  # another run may have published since `prepare`
            theirs = [name for name in files if name not in current | self.previous
                      and (os.path.lexists(self.target / name) or _under_a_file(self.target, name))]
            if theirs:  # (--report-force beside a file of the user's a report names as its own: never replaced)
                raise BleuValueError(f"{self.target} holds {_listed(theirs)}, not a report's, where this report "
                                     f"writes: nothing was replaced; the report is left in {self.staging}")
            for name in files:
                destination = self.target / name
                destination.parent.mkdir(parents=True, exist_ok=True)
                try:
                    os.replace(self.staging / name, destination)
                except OSError as exc:
                    raise BleuValueError(f"could not put {name} into {self.target} ({os_reason(exc)}); the "
                                         f"rest of the report is left in {self.staging}") from None
            for name in sorted((current | self.previous) - set(files)):
                _remove_report_file(self.target, name)
            write_atomically(self.target / MANIFEST, json.dumps({"report_files": files}, indent=1) + "\n")
            shutil.rmtree(self.staging, ignore_errors=True)
            _remove_abandoned_staging(self.target)
        return self.target

    def staged_path(self, path: str | os.PathLike | None) -> Path | None:
        """Where to write a file the user named (`--junit`, `--badge`): inside the report directory, its place in
        the staging directory (published with the report); elsewhere, the path itself; None stays None."""
        if not path:
            return None
        path = Path(path)
        try:
            return self.staging / path.resolve().relative_to(self.target)
        except ValueError:
            return path

    def discard(self) -> None:
        """Leave the directory as it was: the staged files go."""
        shutil.rmtree(self.staging, ignore_errors=True)

    def unwritten(self, failure: FileWriteError) -> FileWriteError:
        """Discard the staged report, one of whose files could not be written (a full disk: a report with a cut
        stream or without its summary is never published), and say so: the file named where the user looks
        for it (in the report directory, not the staging one) and what the directory keeps."""
        self.discard()
        try:
            shown = self.target / failure.path.relative_to(self.staging)
        except ValueError:  # --junit or --badge outside the report directory
            shown = failure.path
        kept = "the report it had" if self.previous else "no report of this run"
        return FileWriteError(shown, failure.reason, f"nothing was published: {self.target} keeps {kept}")


@contextlib.contextmanager
def staged(target: str | os.PathLike, *, option: str = "--report", force: bool = False,
           publish_on_error: bool = True, writes: tuple[str, ...] = RUN_REPORT_ENTRIES) -> Iterator[Path]:
    """Yield a staging directory for a run's report in `target`, published when the block ends (also when it
    raises, unless `publish_on_error` is False: then the directory is left as it was; and never when one of
    its files could not be written: FileWriteError, and the directory left as it was; `writes`: see `prepare`).
    The publication or the removal, once begun, finishes: a second ^C or SIGTERM meanwhile waits
    (`signals_deferred`)."""
    report = ReportDirectory.prepare(target, option=option, force=force, writes=writes)
    try:
        yield report.staging
    except FileWriteError as failure:  # a full disk: a report missing a file is never published
        with signals_deferred(stopping=failure):
            unwritten = report.unwritten(failure)
        raise unwritten from None
    except BaseException as stopping:
        with signals_deferred(stopping=stopping):
            if publish_on_error:
                report.publish()
            else:
                report.discard()
        raise
    report.publish()


def report_files(directory: Path) -> frozenset[str] | None:
    """The files of the report `directory` holds (relative paths), or None when it holds no report."""
    manifest = directory / MANIFEST
    if manifest.is_file():
        try:
            files = json_value(manifest.read_text(encoding="utf-8")).get("report_files")
        except (OSError, ValueError, AttributeError):
            files = None
        if isinstance(files, list) and all(isinstance(f, str) for f in files):
            return frozenset(f for f in files if _inside(directory, f))
    for marker, mark, entries in LEGACY_REPORTS:
        if _first_object_marked(directory / marker, mark):
            return frozenset(_files_under(directory, only=entries))
    return None


def _existing_directory(given: Path, option: str) -> Path:
    """The directory `given` names, made if missing; symlinks are followed (the report goes where they point)."""
    if given.is_symlink() and not given.exists():
        raise BleuValueError(f"`{option} {given}` is a symlink to {os.readlink(given)}, which does not exist")
    if given.exists() and not given.is_dir():
        raise BleuValueError(f"`{option} {given}`: a file is in the way (a report is a directory)")
    directory = given.resolve()
    try:
        directory.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise BleuValueError(f"`{option} {given}`: cannot make the directory ({os_reason(exc)})") from None
    return directory


def _listed(names: list[str]) -> str:
    """The first SHOWN_ENTRIES names, comma-separated, with ", ..." when there are more."""
    return ", ".join(names[:SHOWN_ENTRIES]) + (", ..." if len(names) > SHOWN_ENTRIES else "")


def _under_a_file(directory: Path, name: str) -> bool:
    """Some parent of `name` inside `directory` is a file (or a symlink) of its own: `replay/x.json` under a user's
    file `replay`."""
    parent = Path(name).parent
    while parent != Path("."):
        if (directory / parent).is_symlink() or (directory / parent).is_file():
            return True
        parent = parent.parent
    return False


def _foreign_entries(directory: Path) -> list[str]:
    """What `directory` holds besides runs' staging directories, by name."""
    return sorted(entry.name for entry in directory.iterdir() if not entry.name.startswith(STAGING_PREFIX))


def _first_object_marked(path: Path, mark: str) -> bool:
    """The file starts with a JSON object whose "type" (a results.jsonl header) or "schema" (a report's run.json)
    is `mark`."""
    try:
        with open(path, "rb") as handle:
            first = handle.read(1 << 20)
        head = json_value(first.split(b"\n", 1)[0]) if mark == "header" else json_value(first)
        return mark in (head.get("type"), head.get("schema"))
    except (OSError, ValueError, AttributeError):
        return False


def _files_under(root: Path, only: tuple[str, ...] | None = None) -> Iterator[str]:
    """Regular files under `root` (relative, '/'-separated), symlinks not followed; `only`: these top-level names."""
    for entry in root.iterdir():
        if only is not None and entry.name not in only:
            continue
        if entry.is_symlink() or entry.is_file():
            yield entry.name
        elif entry.is_dir() and not entry.name.startswith(STAGING_PREFIX):
            yield from (f"{entry.name}/{name}" for name in _files_under(entry))


def _inside(directory: Path, name: str) -> bool:
    """A manifest entry names a file inside the directory (never `..`, never absolute)."""
    parts = Path(name).parts
    return bool(parts) and not Path(name).is_absolute() and ".." not in parts and parts[0] != MANIFEST


def _remove_report_file(directory: Path, name: str) -> None:
    """Remove one file of a previous report, then the report's directories it leaves empty (never others)."""
    path = directory / name
    with contextlib.suppress(FileNotFoundError, IsADirectoryError, NotADirectoryError):
        if path.is_symlink() or path.is_file():
            path.unlink()
    parent = path.parent
    while parent != directory:
        try:
            parent.rmdir()  # only when empty
        except OSError:
            return
        parent = parent.parent


def _remove_abandoned_staging(directory: Path) -> None:
    """Staging directories whose run is gone (killed before it could publish or discard)."""
    for entry in directory.glob(f"{STAGING_PREFIX}*"):
        pid = entry.name[len(STAGING_PREFIX):].split(".", 1)[0]
        if pid.isdigit() and not _running(int(pid)):
            shutil.rmtree(entry, ignore_errors=True)


def _running(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


@contextlib.contextmanager
def _locked(directory: Path) -> Iterator[None]:
    """An exclusive lock on the directory itself (flock on its descriptor: no lock file is left behind)."""
    handle = os.open(directory, os.O_RDONLY)
    try:
        fcntl.flock(handle, fcntl.LOCK_EX)
        yield
    finally:
        os.close(handle)  # releases the lock
