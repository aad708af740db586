"""Report directories written whole or not at all.

A run writes into a fresh directory beside the target (`.NAME.XXXX.partial`) and, when it is over
(conforming, deviating, failed or interrupted: its results.jsonl then says so), moves it into place.
A reader of the target sees the previous complete report or the new complete one, never a new
results.jsonl beside an old summary.md; two runs into one directory each complete, and the last to
finish is the one left. The path is checked before anything runs.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import tempfile
from pathlib import Path

from oracle.formulas.errors import BleuValueError

#: Attempts at moving a finished report into place while another run moves its own.
PUBLISH_ATTEMPTS = 20


@contextlib.contextmanager
def staged(target, *, option="--report"):
    """Yield a fresh directory beside `target` to write the run into; move it to `target` at the end."""
    target = Path(target)
    if target.exists() and not target.is_dir():
        raise BleuValueError(f"`{option} {target}`: a file is in the way (a report is a directory)")
    try:
        target.absolute().parent.mkdir(parents=True, exist_ok=True)
        work = Path(tempfile.mkdtemp(prefix=f".{target.name}.", suffix=".partial", dir=target.absolute().parent))
    except OSError as exc:
        raise BleuValueError(f"`{option} {target}`: cannot write there ({exc.strerror or exc})") from None
    try:
        yield work
    finally:
        publish(work, target)


def publish(work, target):
    """Move directory `work` to `target`, replacing what is there (the previous report is removed)."""
    target = Path(target).absolute()
    for _ in range(PUBLISH_ATTEMPTS):
        old = None
        if target.exists():
            old = Path(tempfile.mkdtemp(prefix=f".{target.name}.", suffix=".old", dir=target.parent))
            try:
                os.replace(target, old / "report")
            except FileNotFoundError:  # another run moved it away first
                pass
        try:
            os.rename(work, target)
        except OSError:  # another run put its report there in between: move that one away too
            if old is not None:
                shutil.rmtree(old, ignore_errors=True)
            continue
        if old is not None:
            shutil.rmtree(old, ignore_errors=True)
        return target
    raise BleuValueError(f"could not move the report into {target}: other runs kept replacing it "
                         f"(it is left in {work})")


def write_atomically(path, text):
    """Write a file whole or not at all (a temporary file beside it, then a rename). `text` is a str,
    or a function that writes the content to the open text file (a long report, streamed)."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    handle, temporary = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    try:
        with os.fdopen(handle, "w", encoding="utf-8", newline="\n") as out:
            if callable(text):
                text(out)
            else:
                out.write(text)
        os.replace(temporary, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        raise
    return path
