"""Released versions of a library, each in an environment of its own, for `bleu-oracle history`.

A `HistoryLibrary` states what `history` needs to drive any release of one library: its registry
distribution, the oldest release its driver supports (an older one is refused with that reason, never
driven), the Python each range of releases runs under (an nltk before 3.4 needs Python 3.6: its n-gram
generator ends with StopIteration, a RuntimeError from 3.7, PEP 479), the capabilities it declares, which
may narrow for old releases (sacrebleu 1.x cannot take segments with different reference counts), and the
smoothing table of its adapter, passed to the driver (`drivers/venv_bleu.py`) so that it is stated once.

Each version's environment is ROOT/NAME-VERSION (ROOT: $BLEU_ORACLE_HISTORY_ENVS, else
$XDG_CACHE_HOME/bleu-oracle/history, default ~/.cache/bleu-oracle/history), outside any checkout and
reused by every later run; it is built in a scratch directory beside its place and renamed into it, so a
reader sees a whole environment or none. A version that cannot be installed (no release of that number,
no wheel for its Python and a compiler needed, no such Python here) raises `NotInstallable` with the
reason, for `history` to list.
"""

from __future__ import annotations

import glob
import json
import os
import re
import shutil
import subprocess
import tarfile
import tempfile
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from . import registry
from .base import AdapterUnavailable, SmoothingTable, driver_settings, handshake_object
from .driven import driver_script, node
from .lifetimes import run_in_group
from .nltk_adapter import SMOOTHING as NLTK_SMOOTHING
from .nltk_adapter import NltkImplementation
from .npm_adapters import PromptfooImplementation
from .sacrebleu_adapter import SMOOTHING as SACREBLEU_SMOOTHING
from .sacrebleu_adapter import SacrebleuImplementation
from .torchmetrics_adapter import SMOOTHING as TORCHMETRICS_SMOOTHING
from .torchmetrics_adapter import TorchmetricsImplementation

#: Seconds one pip install may take (an sdist of an old release builds from source).
INSTALL_TIMEOUT = 900.0
#: The file in a version's environment recording what was installed (the version pip reports).
INSTALLED = "bleu-oracle-history.json"


class NotInstallable(AdapterUnavailable):
    """This version cannot be installed or driven here; the message says why."""


def release(version: str) -> tuple[int, ...]:
    """A release number as a tuple to compare ("3.2.1" -> (3, 2, 1); "3.3.0" == "3.3"); pre-release tags
    and anything else that is not a dotted number are refused."""
    if not re.fullmatch(r"\d+(\.\d+)*", version):
        raise NotInstallable(f"`{version}` is not a release number (digits and dots, e.g. 3.2.1)")
    parts = [int(part) for part in version.split(".")]
    while len(parts) > 1 and parts[-1] == 0:
        parts.pop()
    return tuple(parts)


@dataclass(frozen=True)
class HistoryLibrary:
    """What `history` needs to install and drive every release of one library."""

    name: str
    distribution: str  # its name on the registry (PyPI)
    profile: str
    capabilities: dict
    smoothing: SmoothingTable
    oldest: str  # the oldest release the driver knows the API of
    #: (first release, Python X.Y) ascending: a release runs under the last row whose first release is <= it
    pythons: tuple[tuple[str, str], ...]
    #: the releases `history NAME` runs without --versions
    default_versions: tuple[str, ...]
    #: (first release that lifts it, capabilities to add before it): a limit of old releases
    narrower_before: tuple[tuple[str, dict], ...] = field(default=())
    #: requirements installed once into an environment every release of the library shares (torch: 750 MB,
    #: taken from the machine's wheels); each release then goes in with --no-deps and sees it through a .pth
    shared: tuple[str, ...] = field(default=())
    #: "pypi" (a venv, driven by drivers/venv_bleu.py) or "npm" (the tarball unpacked, driven by node running
    #: drivers/npm_bleu.js); an npm library's `pythons` name no Python
    registry: str = "pypi"
    language: str = "python"

    def python_for(self, version: str) -> str:
        """The Python X.Y release `version` is installed under."""
        chosen = self.pythons[0][1]
        for first, python in self.pythons:
            if release(version) >= release(first):
                chosen = python
        return chosen

    def supports(self, version: str) -> None:
        """Raise NotInstallable when the driver does not know `version`'s API (older than `oldest`)."""
        if release(version) < release(self.oldest):
            raise NotInstallable(f"{self.name} {version} is older than {self.oldest}, the oldest release the history "
                                 f"driver knows the API of (`{self.name}` history supports >= {self.oldest})")

    def capabilities_for(self, version: str) -> dict:
        capabilities = dict(self.capabilities)
        for first, limits in self.narrower_before:
            if release(version) < release(first):
                capabilities.update(limits)
        return capabilities

    def handshake(self, version: str) -> dict[str, Any]:
        return handshake_object(self.name, version, self.language, self.profile, self.capabilities_for(version))

    def driver_settings(self) -> dict[str, Any]:
        """The smoothing table as the driver reads it: the oracle's method -> [setting, {parameter: argument}]
        (a row that fixes a parameter is left out: the driver has no such check)."""
        return driver_settings(self.smoothing)



#: The libraries `history` knows, by registry name (`oracle.adapters.registry`). The Pythons: nltk 3.2-3.3 under
#: 3.6 (PEP 479 above), 3.4 under 3.7 (its last Python), 3.5-3.6 under 3.8, 3.7-3.8 under 3.10, 3.9 on under 3.12;
#: sacrebleu 1.4 under 3.6, 1.5 under 3.8, 2.x under 3.10, 2.4 on under 3.12 (each the newest Python of the
#: release's time that its dependencies have wheels for).
LIBRARIES = {
    "nltk": HistoryLibrary(
        name="nltk", distribution="nltk", profile="nltk", capabilities=dict(NltkImplementation.capabilities),
        smoothing=NLTK_SMOOTHING, oldest="3.2",
        pythons=(("3.2", "3.6"), ("3.4", "3.7"), ("3.5", "3.8"), ("3.7", "3.10"), ("3.9", "3.12")),
        default_versions=("3.2", "3.2.1", "3.2.5", "3.3", "3.4.5", "3.5", "3.6.7", "3.7", "3.8.1", "3.9.2",
                          "3.10.4"),
    ),
    "sacrebleu": HistoryLibrary(
        name="sacrebleu", distribution="sacrebleu", profile="sacrebleu",
        capabilities=dict(SacrebleuImplementation.capabilities),
        smoothing=SACREBLEU_SMOOTHING, oldest="1.4",
        pythons=(("1.4", "3.6"), ("1.5", "3.8"), ("2.0", "3.10"), ("2.4", "3.12")),
        default_versions=("1.4.0", "1.4.14", "1.5.1", "2.0.0", "2.1.0", "2.2.1", "2.3.3", "2.4.3", "2.5.1", "2.6.0"),
        narrower_before=(("2.0", {"same_reference_count": True, "max_order": 4, "orders": [4]}),),
    ),
    # torchmetrics under 3.11, the Python of the machine's CPU torch wheel, shared by every release (0.7 warns that
    # its argument order changed and needs pyDeprecate; `weights` arrived in 0.9: 0.8.2 has none)
    "torchmetrics": HistoryLibrary(
        name="torchmetrics", distribution="torchmetrics", profile="papineni",
        capabilities=dict(TorchmetricsImplementation.capabilities), smoothing=TORCHMETRICS_SMOOTHING, oldest="0.7",
        pythons=(("0.7", "3.11"),),
        default_versions=("0.7.3", "0.8.2", "0.9.3", "0.10.3", "0.11.4", "1.0.3", "1.2.1", "1.4.3", "1.6.3", "1.8.2",
                          "1.9.0"),
        narrower_before=(("0.9", {"weights": "uniform"}),),
        shared=("torch==2.13.0+cpu", "numpy", "packaging", "lightning-utilities", "pyDeprecate==0.3.2",
                "typing-extensions"),
    ),
    # promptfoo's `bleu` assertion: dist/src/assertions/bleu.js (CommonJS) up to the 0.11x releases, then the
    # bundled dist/src/index.cjs; its tarball alone, run by node (0.100.0 is the oldest release looked into)
    "promptfoo": HistoryLibrary(
        name="promptfoo", distribution="promptfoo", profile="papineni",
        capabilities=dict(PromptfooImplementation.capabilities), smoothing=SmoothingTable("", ()), oldest="0.100",
        pythons=(("0.100", "node"),), registry="npm", language="typescript",
        default_versions=("0.100.0", "0.103.19", "0.107.7", "0.110.1", "0.114.7", "0.117.11", "0.118.17", "0.119.14",
                          "0.120.27", "0.121.20", "0.123.1"),
    ),
}


def library(name: str) -> HistoryLibrary:
    """The release specification of registry name `name`: `registry.UnknownImplementation` for a name no entry
    registers, NotInstallable for one whose releases `history` does not know."""
    found = LIBRARIES.get(name)
    if found is None:
        registry.resolve(name)
        raise NotInstallable(f"`history` knows {', '.join(sorted(LIBRARIES))} (got {name!r})")
    return found


def root() -> Path:
    """Where versions' environments live: $BLEU_ORACLE_HISTORY_ENVS, else the user's cache directory."""
    explicit = os.environ.get("BLEU_ORACLE_HISTORY_ENVS")
    if explicit:
        return Path(explicit)
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "bleu-oracle" / "history"


def find_python(version: str) -> str | None:
    """An interpreter of Python X.Y on this machine: pyenv's ($PYENV_ROOT or ~/.pyenv), else pythonX.Y on PATH."""
    pyenv = os.environ.get("PYENV_ROOT") or os.path.join(os.path.expanduser("~"), ".pyenv")
    found = sorted(glob.glob(os.path.join(pyenv, "versions", f"{version}.*", "bin", "python")))
    if found:
        return found[-1]
    return shutil.which(f"python{version}")


@dataclass
class Environments:
    """Versions' environments under `where`; `install(python, target, requirements, base)` fills a new one (pip;
    a test puts a fake registry here) and `find` locates a Python X.Y."""

    where: Path = field(default_factory=root)
    find: Callable[[str], str | None] = find_python
    install: Callable[[str, Path, str, Path | None], None] | None = None

    def directory(self, spec: HistoryLibrary, version: str) -> Path:
        return self.where / f"{spec.name}-{version}"

    def python(self, spec: HistoryLibrary, version: str) -> Path:
        return self.directory(spec, version) / "bin" / "python"

    def is_ready(self, spec: HistoryLibrary, version: str) -> bool:
        return (self.directory(spec, version) / INSTALLED).is_file()

    def prepare(self, spec: HistoryLibrary, version: str) -> bool:
        """Make `version`'s environment unless it is there; True when it was made now. Raises NotInstallable."""
        spec.supports(version)
        if self.is_ready(spec, version):
            return False
        python_version = spec.python_for(version)
        python = "node" if spec.registry == "npm" else self.find(python_version)
        if python is None:
            raise NotInstallable(f"{spec.name} {version} runs under Python {python_version}, which is not on this "
                                 "machine (pyenv install it)")
        base = self.shared_base(spec, python, python_version)
        pinned = f"{spec.distribution}@{version}" if spec.registry == "npm" else f"{spec.distribution}=={version}"
        self.build(self.directory(spec, version), python, pinned, base,
                   {"library": spec.name, "version": version, "python": python_version})
        return True

    def shared_base(self, spec: HistoryLibrary, python: str, python_version: str) -> Path | None:
        """The environment every release of `spec` shares (made once, beside its place and renamed), or None."""
        if not spec.shared:
            return None
        base = self.where / f".shared-{spec.name}-py{python_version}"
        if not (base / INSTALLED).is_file():
            self.build(base, python, " ".join(spec.shared), None, {"shared": list(spec.shared)})
        return base

    def build(self, target: Path, python: str, requirements: str, base: Path | None, record: dict) -> None:
        """Fill `target` in a scratch directory beside it, record what it holds (INSTALLED), rename it into place;
        another run that got there first is as good (its copy is kept)."""
        target.parent.mkdir(parents=True, exist_ok=True)
        scratch = Path(tempfile.mkdtemp(prefix=f".{target.name}-", dir=target.parent))
        try:
            building = scratch / target.name  # under its final name: a venv's scripts hold their path
            install = self.install or (npm_install if python == "node" else pip_install)
            install(python, building, requirements, base)
            (building / INSTALLED).write_text(json.dumps(record) + "\n", encoding="utf-8")
            try:
                os.replace(building, target)
            except OSError:
                if not (target / INSTALLED).is_file():
                    raise
        finally:
            shutil.rmtree(scratch, ignore_errors=True)

    def driver_argv(self, spec: HistoryLibrary, version: str) -> list[str]:
        """The argv that drives `version` through protocol v1 (its environment's Python, the shared driver; node
        and the npm driver for an npm package)."""
        if spec.registry == "npm":
            return [node(), driver_script("npm_bleu.js"), spec.name, str(self.directory(spec, version) / "package"),
                    json.dumps(spec.handshake(version), separators=(",", ":"))]
        return [str(self.python(spec, version)), driver_script("venv_bleu.py"), spec.name,
                json.dumps(spec.handshake(version), separators=(",", ":")),
                json.dumps(spec.driver_settings(), separators=(",", ":"))]


def pip_install(python: str, target: Path, requirements: str, base: Path | None) -> None:
    """A venv of `python` at `target` with `requirements` (space-separated) installed; NotInstallable with pip's own
    reason when it cannot be (no such release, no wheel and a build that fails). With `base` (an environment
    of shared requirements), the release goes in with --no-deps and a .pth puts the base's site-packages on its
    path (after its own). Without, pip reads the registry alone (`registry_only`), except for a shared base,
    whose torch is the machine's CPU wheel (find-links)."""
    pip = [str(target / "bin" / "python"), "-m", "pip", "install", "-q", "--disable-pip-version-check"]
    steps = [[python, "-m", "venv", str(target)], [*pip, *(["--no-deps"] if base else []), *requirements.split()]]
    shared_base = base is None and target.name.startswith(".shared-")  # torch: the machine's wheel
    environment = None if shared_base else registry_only()
    for argv in steps:
        try:
            done = run_in_group(argv, timeout=INSTALL_TIMEOUT, env=environment)
        except subprocess.TimeoutExpired:
            raise NotInstallable(f"`{' '.join(argv[-2:])}` did not finish within {INSTALL_TIMEOUT:.0f} s") from None
        if done.returncode != 0:
            raise NotInstallable(f"{requirements}: {install_failure(done.stderr)}")
        if base is not None and argv[0] == python:
            link_base(target, base)


def npm_install(runtime: str, target: Path, requirement: str, base: Path | None) -> None:
    """`npm pack NAME@VERSION` (the package's tarball alone, none of its dependencies) unpacked into target/package;
    NotInstallable with npm's reason."""
    npm = shutil.which("npm")
    if npm is None:
        raise NotInstallable(f"{requirement} is an npm package and npm is not installed (Debian: apt-get install npm)")
    target.mkdir(parents=True)
    try:
        done = run_in_group([npm, "pack", requirement, "--json", "--pack-destination", str(target)],
                            timeout=INSTALL_TIMEOUT, cwd=str(target))
    except subprocess.TimeoutExpired:
        raise NotInstallable(f"npm pack {requirement} did not finish within {INSTALL_TIMEOUT:.0f} s") from None
    tarballs = sorted(target.glob("*.tgz"))
    if done.returncode != 0 or not tarballs:
        raise NotInstallable(f"npm pack {requirement}: {install_failure(done.stderr)}")
    try:
        with tarfile.open(tarballs[0]) as archive:
            archive.extractall(target, filter="data")
    except (tarfile.TarError, OSError) as exc:
        raise NotInstallable(f"{requirement}'s tarball does not unpack: {exc}") from None
    tarballs[0].unlink()


def link_base(target: Path, base: Path) -> None:
    """A .pth in `target`'s site-packages naming `base`'s (read after the environment's own packages)."""
    for site in target.glob("lib/python*/site-packages"):
        shared = next(iter(base.glob("lib/python*/site-packages")), None)
        if shared is not None:
            (site / "bleu-oracle-shared.pth").write_text(f"{shared}\n", encoding="utf-8")


def registry_only() -> dict[str, str]:
    """pip's environment with the registry alone: no configuration file and no find-links. A local wheel
    directory states no Python requirement, so pip would take from it a dependency the old Python cannot run
    (sacrebleu 1.4 under 3.6 took a portalocker for >= 3.10 from /opt/wheels); the index says which fits."""
    environment = {name: value for name, value in os.environ.items() if name != "PIP_FIND_LINKS"}
    return {**environment, "PIP_CONFIG_FILE": os.devnull, "PIP_NO_INPUT": "1"}


def install_failure(stderr: str) -> str:
    """The line of pip's stderr that says why (a compiler missing, no matching distribution), bounded."""
    lines = [line.strip() for line in stderr.splitlines()
             if line.strip() and not line.startswith(("WARNING: Location", "  Url "))]
    for marker in ("No matching distribution", "Could not find a version", "error: command", "gcc", "compiler"):
        for line in lines:
            if marker in line:
                return line[:300]
    return (lines[-1] if lines else "pip failed and said nothing")[:300]
