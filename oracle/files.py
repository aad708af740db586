"""Writing files whole or not at all, with the permissions a new file gets; where bleu-oracle's caches live."""

from __future__ import annotations

import contextlib
import os
import stat
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import TextIO

from oracle.formulas.errors import FileWriteError, os_reason


def _read_umask() -> int:
    """The process's umask (read once, at import: setting it to read it back is not thread-safe later)."""
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


UMASK = _read_umask()


def write_atomically(path: str | os.PathLike, text: str | Callable[[TextIO], object]) -> Path:
    """Write a file whole or not at all (a temporary file beside it, then a rename). `text` is a str, or a
    function that writes the content to the open text file (a long report, streamed). Raises FileWriteError,
    naming the file, when it cannot be written (a full disk: the file is left as it was).

    What is at `path` is respected as a shell redirection would: a symlink is written through (the link stays a
    link, its target gets the content), a device or FIFO (`/dev/null`, `/dev/stdout`) is written into, never
    replaced by a file; an existing file keeps its permissions, a new one gets those a newly created file gets
    (0644 under a 022 umask), not mkstemp's 0600."""
    path = Path(path)
    target = Path(os.path.realpath(path))
    if target.is_symlink():  # realpath leaves a loop of symlinks unresolved
        raise FileWriteError(path, "a loop of symbolic links")
    try:
        if target.exists() and not target.is_file():
            _write_into(target, text)
            return path
        mode = stat.S_IMODE(target.stat().st_mode) if target.is_file() else 0o666 & ~UMASK
        target.parent.mkdir(parents=True, exist_ok=True)
        handle, temporary = tempfile.mkstemp(prefix=f".{target.name}.", dir=target.parent)
    except OSError as exc:
        raise FileWriteError(path, os_reason(exc)) from None
    try:
        os.fchmod(handle, mode)
        with os.fdopen(handle, "w", encoding="utf-8", newline="\n") as out:
            _write_content(out, text)
        os.replace(temporary, target)
    except BaseException as exc:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        if isinstance(exc, OSError) and not isinstance(exc, FileWriteError):
            raise FileWriteError(path, os_reason(exc)) from None
        raise
    return path


def _write_into(target: Path, text: str | Callable[[TextIO], object]) -> None:
    """Write into what is not a regular file (a device, a FIFO; a directory fails, as it should)."""
    with open(target, "w", encoding="utf-8", newline="\n") as out:
        _write_content(out, text)


def _write_content(out: TextIO, text: str | Callable[[TextIO], object]) -> None:
    if callable(text):
        text(out)
    else:
        out.write(text)


def user_cache(variable: str, name: str) -> Path:
    """A cache directory of bleu-oracle's: $VARIABLE when set, else $XDG_CACHE_HOME/bleu-oracle/NAME (default
    ~/.cache/bleu-oracle/NAME), outside any checkout."""
    explicit = os.environ.get(variable)
    if explicit:
        return Path(explicit)
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "bleu-oracle" / name
