"""How the adapters write a traceback into their log (what a record's stderr keeps of an implementation's exception):
as `traceback.print_exc` does, each frame's file named relative to where it lives, so that a record names no
clone's, venv's or home folder: this package's files from the folder holding it (`oracle/adapters/base.py`: the
project root in a checkout), an installed library's from its site-packages folder on
(`site-packages/nltk/translate/bleu_score.py`; `dist-packages/...` for Debian's Python), the standard library's
from its folder's name on (`python3.11/fractions.py`: where the interpreter lives is a machine's, often a home
folder), anything else as it is (`<string>`, a test's own file). Only the frames' file names change: the source
lines, the messages and whatever an implementation writes by itself are its own.
"""

from __future__ import annotations

import sys
import sysconfig
import traceback
from pathlib import PurePath
from typing import TextIO

#: The folder holding this package (the project root in a checkout), and the package's own folder.
_PACKAGE_HOME = PurePath(__file__).parents[2]
_PACKAGE = PurePath(__file__).parents[1]
#: The folders installed libraries live in (Debian's Python calls its own dist-packages).
_INSTALLED = ("site-packages", "dist-packages")
#: The running interpreter's standard library (`/root/.pyenv/versions/3.11.7/lib/python3.11`).
_STDLIB = PurePath(sysconfig.get_paths()["stdlib"])


def traceback_path(filename: str) -> str:
    """How the adapters' tracebacks name a frame's file `filename` (the module's docstring: this package's from the
    folder holding it, an installed library's from its site-packages folder on, the standard library's from its
    folder's name on, anything else as it is)."""
    path = PurePath(filename)
    if path.is_relative_to(_PACKAGE):
        return path.relative_to(_PACKAGE_HOME).as_posix()
    parts = path.parts
    for index in range(len(parts) - 2, -1, -1):  # the innermost one, with a file below it
        if parts[index] in _INSTALLED:
            return PurePath(*parts[index:]).as_posix()
    if path.is_relative_to(_STDLIB):
        return path.relative_to(_STDLIB.parent).as_posix()
    return filename


def print_traceback(log: TextIO) -> None:
    """What `traceback.print_exc(file=log)` writes of the exception being handled (its causes and contexts too), each
    frame's file named by `traceback_path`."""
    handled = sys.exc_info()[1]
    if handled is None:
        return
    shown = traceback.TracebackException.from_exception(handled, compact=True)  # as print_exc builds it
    pending, seen = [shown], set()
    while pending:  # the chain: causes, contexts, an exception group's members
        part = pending.pop()
        if id(part) in seen:
            continue
        seen.add(id(part))
        for frame in part.stack:  # (its source line read already: lookup_lines)
            frame.filename = traceback_path(frame.filename)
        pending.extend(link for link in (part.__cause__, part.__context__) if link is not None)
        pending.extend(getattr(part, "exceptions", None) or ())
    log.write("".join(shown.format()))
