"""Writing files whole or not at all, with the permissions a new file gets; where bleu-oracle's caches live."""

from __future__ import annotations

import contextlib
import os
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
    function that writes the content to the open text file (a long report, streamed). The file gets the
    permissions a newly created file gets (0644 under a 022 umask), not mkstemp's 0600. Raises FileWriteError,
    naming the file, when it cannot be written (a full disk: the file is left as it was)."""
    path = Path(path)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        handle, temporary = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    except OSError as exc:
        raise FileWriteError(path, os_reason(exc)) from None
    try:
        os.fchmod(handle, 0o666 & ~UMASK)
        with os.fdopen(handle, "w", encoding="utf-8", newline="\n") as out:
            if callable(text):
                text(out)
            else:
                out.write(text)
        os.replace(temporary, path)
    except BaseException as exc:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        if isinstance(exc, OSError) and not isinstance(exc, FileWriteError):
            raise FileWriteError(path, os_reason(exc)) from None
        raise
    return path


def user_cache(variable: str, name: str) -> Path:
    """A cache directory of bleu-oracle's: $VARIABLE when set, else $XDG_CACHE_HOME/bleu-oracle/NAME (default
    ~/.cache/bleu-oracle/NAME), outside any checkout."""
    explicit = os.environ.get(variable)
    if explicit:
        return Path(explicit)
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "bleu-oracle" / name
