"""The skips CI allows, and the rule that turns every other skip into a failure there.

A skip says "this could not be judged here". Outside CI that is a fair answer (a developer without node, without
../shared, without a prepared TensorFlow environment), and the test command prints every reason (`-rs`). In CI
(`CI=true`, what `.ci/run` sets) the machine is set up by the project's own scripts, so a skip there hides a
failure unless its reason is one the project cannot provide on any CI machine: those, and only those, are listed
here, each with why. `tests/conftest.py` turns any other skip into a failure under CI=true, showing its reason.
`tests/repository/test_skips.py` holds the rule itself.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass


@dataclass(frozen=True)
class AllowedSkip:
    """A skip reason CI accepts: `pattern` (a regular expression searched in the reason) and `why` it cannot
    be provided on a CI machine by the project's own setup."""

    pattern: str
    why: str

    def matches(self, reason: str) -> bool:
        return re.search(self.pattern, reason) is not None


#: Every skip reason a CI run may show. Keep it short: each entry is a promise that no failure hides behind it.
ALLOWED_IN_CI: tuple[AllowedSkip, ...] = (
    AllowedSkip(
        r"does not declare what this plan uses",
        "a stateful plan (tests/harness/test_stateful.py) parametrized over libraries: a library whose handshake does "
        "not declare the plan's steps is not applicable to it, as check would record it; nothing is left unjudged",
    ),
    AllowedSkip(
        r"all tests skipped by \+SKIP option",
        "a docstring example marked `# doctest: +SKIP` on purpose (it shows a command or an output, not a check)",
    ),
)


def in_ci() -> bool:
    """True under CI (`CI=true`, as `.ci/run` and GitHub Actions set it)."""
    return os.environ.get("CI", "").lower() == "true"


def disallowed(reason: str) -> bool:
    """True when a skip with this reason would hide a failure in CI: it matches no entry of ALLOWED_IN_CI."""
    return not any(allowed.matches(reason) for allowed in ALLOWED_IN_CI)


def skip_reason(longrepr: object) -> str:
    """The reason of a skipped test's report (pytest keeps it as (path, line, 'Skipped: reason'))."""
    if isinstance(longrepr, tuple) and len(longrepr) == 3:
        return str(longrepr[2]).removeprefix("Skipped: ")
    return str(longrepr)
