"""Implementations that live outside the project's environment, prepared once and kept.

Two kinds, both pinned here and nowhere else:

- **npm packages** (promptfoo, bleu-score): `npm pack NAME@VERSION` fetches exactly the package's
  tarball from the npm registry (none of its dependencies: the adapters load only the BLEU code), its
  sha512 integrity is compared with the pin below, and it is unpacked into ROOT/npm/NAME-VERSION.
- **virtual environments** (keras-hub, metrax): an implementation whose dependencies are heavy
  (TensorFlow, JAX) or clash with the project's runs in its own venv, ROOT/venvs/NAME-HASH, created
  with this Python and the pinned requirements; its driver (`drivers/`) speaks JSON lines with the
  adapter over a pipe (`oracle.adapters.bridge`).

ROOT is $BLEU_ORACLE_IMPLEMENTATIONS, else `.implementations/` in a source checkout (beside
pyproject.toml), else $XDG_CACHE_HOME/bleu-oracle/implementations. Each is built beside its place and
renamed into it, so a reader sees a whole environment or none. `prepare(name)` is what `check` and
`report` call before starting an implementation (the first use), and what `bleu-oracle install` and
`scripts/setup` call; it prints what it does to stderr.
"""

from __future__ import annotations

import base64
import hashlib
import json
import os
import shutil
import subprocess
import sys
import tarfile
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from .base import AdapterUnavailable

#: npm registry tarballs: name -> (version, sha512 integrity as the registry states it).
NPM_PACKAGES = {
    "promptfoo": ("0.123.1", "sha512-9WzFeH6L+5E49R6CTulBo/WzmVPNcMpvgUZAyEsNlaKgpfmF9vV82jKUG1rQ+QH79P7gYAaxeY3TvLDV+x0Cbg=="),
    "bleu-score": ("1.0.4", "sha512-GiBQK6KFuQhfAPBIfcorw15Ggn5pD2dNkptxxNAs9TtHHXlA5XalzMfGQVRVhEhIz4DeYoOqIXPzJytT83/N4A=="),
}


@dataclass(frozen=True)
class VenvSpec:
    """A virtual environment of its own: pinned requirements, installed in order (each a pip call)."""

    name: str
    steps: tuple  # of tuples of pip arguments
    check: str  # a Python statement that must run in it once installed

    @property
    def digest(self):
        return hashlib.sha256(json.dumps([sys.version_info[:2], self.steps]).encode()).hexdigest()[:10]


#: keras-hub's Bleu needs TensorFlow (tensorflow-cpu 2.21.0 and keras 3.15.1 are wheels on this machine
#: type's disk); keras-hub itself goes in without its dependencies, since tensorflow-text (a hard
#: requirement that its metrics never import) would pull the full `tensorflow` distribution beside
#: tensorflow-cpu; its other requirements follow, pinned.
VENVS = {
    "keras-hub": VenvSpec(
        "keras-hub",
        (("tensorflow-cpu==2.21.0", "keras==3.15.1"),
         ("--no-deps", "keras-hub==0.32.0"),
         ("absl-py==2.5.1", "packaging==26.3", "regex==2026.11.19", "rich==15.0.0", "tokenizers==0.23.3",
          "sentencepiece==0.2.3", "kagglehub==1.0.2", "kagglesdk==0.1.28")),
        "import os; os.environ['KERAS_BACKEND'] = 'tensorflow'; from keras_hub.src.metrics.bleu import Bleu"),
    "metrax": VenvSpec(
        "metrax",
        (("google-metrax==0.2.4", "jax==0.10.2", "jaxlib==0.10.2", "flax==0.12.8", "clu==0.0.12"),),
        "import metrax"),
}


def root():
    explicit = os.environ.get("BLEU_ORACLE_IMPLEMENTATIONS")
    if explicit:
        return Path(explicit)
    checkout = Path(__file__).resolve().parents[2]
    if (checkout / "pyproject.toml").is_file() and (checkout / "oracle").is_dir():
        return checkout / ".implementations"
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "bleu-oracle" / "implementations"


def npm_package_dir(name):
    version, _ = NPM_PACKAGES[name]
    return root() / "npm" / f"{name}-{version}" / "package"


def venv_dir(name):
    spec = VENVS[name]
    return root() / "venvs" / f"{name}-{spec.digest}"


def venv_python(name):
    return venv_dir(name) / "bin" / "python"


def is_prepared(name):
    if name in NPM_PACKAGES:
        return (npm_package_dir(name) / "package.json").is_file()
    if name in VENVS:
        return venv_python(name).is_file()
    return True


def install_hint(name):
    return f"run `bleu-oracle install {name}` once (or `check --impl {name}`, which prepares it on first use)"


def prepare(name, *, log=sys.stderr):
    """Make implementation `name`'s own environment if it is one of ours and missing. Raises
    AdapterUnavailable, saying why, when it cannot (no npm, no registry, a changed tarball)."""
    if is_prepared(name):
        return
    start = time.perf_counter()
    if name in NPM_PACKAGES:
        _prepare_npm(name, log)
    elif name in VENVS:
        _prepare_venv(VENVS[name], log)
    print(f"bleu-oracle: prepared {name} in {time.perf_counter() - start:.1f} s", file=log)


def _prepare_npm(name, log):
    version, integrity = NPM_PACKAGES[name]
    npm = shutil.which("npm")
    if npm is None:
        raise AdapterUnavailable(f"{name} is an npm package and npm is not installed (Debian: apt-get install npm)")
    target = npm_package_dir(name).parent
    target.parent.mkdir(parents=True, exist_ok=True)
    print(f"bleu-oracle: fetching {name}@{version} from the npm registry (its tarball only) into {target}", file=log)
    with tempfile.TemporaryDirectory(dir=target.parent) as tmp:
        done = subprocess.run([npm, "pack", f"{name}@{version}", "--json", "--pack-destination", tmp],
                              capture_output=True, text=True, timeout=300, cwd=tmp)
        if done.returncode != 0:
            raise AdapterUnavailable(f"npm pack {name}@{version} failed: {done.stderr.strip().splitlines()[-1:]}")
        try:
            tarball = Path(tmp) / Path(json.loads(done.stdout)[0]["filename"]).name
        except (ValueError, LookupError, TypeError):
            raise AdapterUnavailable(f"npm pack {name}@{version} printed no tarball name: {done.stdout[:200]!r}") from None
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
        _move_into_place(unpacked, target, name)


def _move_into_place(built, target, name):
    """Rename `built` to `target`; another process that got there first (two `check`s preparing at once)
    is as good, so its copy is kept."""
    try:
        os.replace(built, target)
    except OSError as exc:
        if not is_prepared(name):
            raise AdapterUnavailable(f"could not move {name} into {target}: {exc}") from None


def _prepare_venv(spec, log):
    target = venv_dir(spec.name)
    target.parent.mkdir(parents=True, exist_ok=True)
    print(f"bleu-oracle: creating {spec.name}'s own environment in {target} (once; pip install "
          f"{' '.join(' '.join(step) for step in spec.steps)})", file=log)
    # A venv's scripts hold its path: built under its final name in a scratch directory, it is moved
    # without its pip scripts mattering (the adapters run `bin/python` only).
    scratch = Path(tempfile.mkdtemp(prefix=f".{spec.name}-", dir=target.parent))
    try:
        building = scratch / target.name
        subprocess.run([sys.executable, "-m", "venv", str(building)], check=True, capture_output=True, timeout=300)
        python = building / "bin" / "python"
        for step in spec.steps:
            done = subprocess.run([str(python), "-m", "pip", "install", "-q", "--disable-pip-version-check", *step],
                                  capture_output=True, text=True, timeout=1800)
            if done.returncode != 0:
                lines = [line for line in done.stderr.splitlines() if not line.startswith("WARNING: Location")]
                raise AdapterUnavailable(f"pip install {' '.join(step)} failed for {spec.name}: {lines[-1:]}")
        checked = subprocess.run([str(python), "-c", spec.check], capture_output=True, text=True, timeout=300)
        if checked.returncode != 0:
            raise AdapterUnavailable(f"{spec.name}'s environment does not import: {checked.stderr.strip().splitlines()[-1:]}")
        _move_into_place(building, target, spec.name)
    except (subprocess.SubprocessError, OSError) as exc:
        raise AdapterUnavailable(f"creating {spec.name}'s environment failed: {exc}") from exc
    finally:
        shutil.rmtree(scratch, ignore_errors=True)

