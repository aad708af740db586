"""One root exception; each concrete error also subclasses the builtin a user would catch."""

from __future__ import annotations

from pathlib import Path


class BleuOracleError(Exception):
    """Root of every error this package raises on purpose."""


class BleuValueError(BleuOracleError, ValueError):
    """An argument has the right type but a bad value."""


class BleuTypeError(BleuOracleError, TypeError):
    """An argument has the wrong type."""


class FileWriteError(BleuOracleError, OSError):
    """A file of bleu-oracle's output (a report, a baseline, a case file) could not be written: a full disk, a
    quota, a place that turned read-only. The message names the file and the reason; what the file held before
    is left as it was. Also an OSError, so code that catches those still does."""

    def __init__(self, path: Path | str, reason: str, then: str = "") -> None:
        self.path, self.reason, self.then = Path(path), reason, then
        super().__init__(f"cannot write {path} ({reason})" + (f"; {then}" if then else ""))

    # pickled (across a process boundary) with its own arguments, not OSError's
    def __reduce__(self) -> tuple[type, tuple[Path, str, str]]:
        return type(self), (self.path, self.reason, self.then)


def os_reason(exc: OSError) -> str:
    """An OSError's reason in words ("No space left on device"), without its errno or file name."""
    return exc.strerror or str(exc) or type(exc).__name__


class CaseFileError(BleuValueError):
    """A case file is malformed; the message names the file, line and case id."""

    def __init__(self, message: str, *, path: Path | str | None = None, line: int | None = None,
                 case_id: str | None = None) -> None:
        self.path, self.line, self.case_id = path, line, case_id
        where = ""
        if path is not None:
            where = f"{path}:{line}" if line is not None else str(path)
        prefix = ", ".join(p for p in (where, f"case {case_id}" if case_id else "") if p)
        super().__init__(f"{prefix}: {message}" if prefix else message)
        self.bare_message = message


def describe(value: object) -> str:
    """Render a bad value for an error message: short, unambiguous."""
    try:
        text = repr(value)
    except ValueError:  # an integer past Python's 4,300-digit conversion limit (or a Fraction of one)
        text = f"<{type(value).__name__} too long to show>"
    return text if len(text) <= 120 else text[:117] + "..."
