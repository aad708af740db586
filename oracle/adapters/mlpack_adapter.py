"""mlpack's BLEU (C++, header-only `mlpack/core/metrics/bleu.hpp`) behind protocol v1.

On first use a small driver (`cpp/mlpack_bleu.cpp`) is compiled with g++ against the headers the mlpack
wheel ships (`pip install 'bleu-oracle[mlpack]'`) and Armadillo's and cereal's (Debian
`libarmadillo-dev`, `libcereal-dev`), and cached per mlpack version, element type and source hash in
$XDG_CACHE_HOME/bleu-oracle (default ~/.cache/bleu-oracle). Each request runs the binary once: the
tokens go in one line per sentence ("COUNT\\ttok\\ttok..."), so a token may not hold a tab, a newline or
a carriage return. mlpack's `BLEU<ElemType>::Evaluate(references, translations, smooth)` is corpus
BLEU with uniform weights 1/maxOrder; `smooth` adds 1 to every order's matches and totals (the profile's
lin-2004). Two entries: `mlpack` (BLEU<float>, mlpack's default) and `mlpack-double`.
"""

from __future__ import annotations

import hashlib
import importlib.resources
import os
import shutil
import subprocess
import tempfile
from pathlib import Path

from oracle.models.protocol import ScoreRequest

from .base import (
    AdapterUnavailable,
    Implementation,
    Rejected,
    ScoreAnswer,
    SmoothingRow,
    SmoothingTable,
    Unsupported,
    declare_capabilities,
    is_uniform,
)
from .registry import Registered

#: This module's implementations, as every verb knows them (docs/extending.md, "An implementation"): the
#: registry reads this statement from the source, without importing the module, so it holds plain data only.
IMPLEMENTATIONS = (
    # C++: the wheel brings its headers; g++, libarmadillo-dev and libcereal-dev build it on first use
    Registered("mlpack", "in-process", "oracle.adapters.mlpack_adapter:MlpackImplementation", extra="mlpack",
               listed=15),
    Registered("mlpack-double", "in-process", "oracle.adapters.mlpack_adapter:MlpackDoubleImplementation",
               extra="mlpack", listed=16),
)


TIMEOUT = 60
BUILD_TIMEOUT = 300
#: Characters a token may not hold: the driver reads tab-separated tokens, a line per sentence.
_FORBIDDEN = "\t\n\r"
#: `smooth`, the driver's second number: add one to every order's matches and totals (lin-2004)
SMOOTHING = SmoothingTable("mlpack's BLEU smooths with add-one on every order or not at all",
                           (SmoothingRow("none", 0), SmoothingRow("lin-2004", 1)))


def cache_dir():
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "bleu-oracle"


def _headers():
    """(mlpack version, its include directory) from the installed wheel."""
    try:
        import mlpack
    except ImportError:
        raise AdapterUnavailable("mlpack is not installed: pip install 'bleu-oracle[mlpack]'") from None
    include = Path(mlpack.__file__).parent / "include"
    if not (include / "mlpack" / "core" / "metrics" / "bleu.hpp").is_file():
        raise AdapterUnavailable(f"mlpack {getattr(mlpack, '__version__', '?')} ships no BLEU headers in {include}")
    return str(getattr(mlpack, "__version__", "?")), include


def build(element, version, include):
    """The driver binary for BLEU<element>, compiled once and cached (built beside its place, then renamed)."""
    source = importlib.resources.files("oracle.adapters").joinpath("cpp/mlpack_bleu.cpp").read_bytes()
    digest = hashlib.sha256(source).hexdigest()[:12]
    target = cache_dir() / f"mlpack-{version}-{element}-{digest}" / "mlpack_bleu"
    if target.is_file():
        return target
    compiler = shutil.which("g++")
    if compiler is None:
        raise AdapterUnavailable(
            "g++ is not installed (it builds mlpack's header-only BLEU; Debian: apt-get install g++)"
        )
    for header, package in (("armadillo", "libarmadillo-dev"), ("cereal/cereal.hpp", "libcereal-dev")):
        if not any((Path(d) / header).exists() for d in ("/usr/include", "/usr/local/include")):
            raise AdapterUnavailable(f"mlpack's headers need {header} (Debian: apt-get install {package})")
    target.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=target.parent) as tmp:
        (Path(tmp) / "mlpack_bleu.cpp").write_bytes(source)
        built = Path(tmp) / "mlpack_bleu"
        done = subprocess.run([compiler, "-O2", "-std=c++17", f"-DBLEU_ELEM={element}", f"-I{include}",
                               str(Path(tmp) / "mlpack_bleu.cpp"), "-o", str(built)],
                              capture_output=True, text=True, timeout=BUILD_TIMEOUT)
        if done.returncode != 0:
            raise AdapterUnavailable(f"building mlpack's BLEU failed: {done.stderr.strip().splitlines()[-1:]}")
        os.replace(built, target)  # concurrent first uses: the last rename wins, every one whole
    return target


def _line(tokens):
    return "\t".join([str(len(tokens)), *tokens]) + "\n"


class MlpackImplementation(Implementation):
    name = "mlpack"
    language = "c++"
    profile = "mlpack"
    element = "float"
    capabilities = declare_capabilities(levels=["corpus", "sentence"], weights="uniform", max_order=8,
                                        smoothing=SMOOTHING.declared, forbidden_token_characters=_FORBIDDEN)

    def __init__(self):
        version, include = _headers()
        self.version = f"{version} (BLEU<{self.element}>)"
        self._binary = build(self.element, version, include)

    def score(self, request: ScoreRequest) -> ScoreAnswer:
        if not is_uniform(request.weights):
            raise Unsupported(f"mlpack's BLEU weighs every order 1/maxOrder (got weights {list(request.weights)})")
        smooth = SMOOTHING.setting(request.smoothing)
        if request.lowercase:
            raise Unsupported("mlpack's BLEU does not fold case")
        text = f"{len(request.weights)} {smooth} {len(request.segments)}\n"
        for segment in request.segments:
            text += f"{len(segment.references)}\n" + _line(segment.hypothesis)
            text += "".join(_line(reference) for reference in segment.references)
        done = subprocess.run([str(self._binary)], input=text, capture_output=True, text=True, timeout=TIMEOUT,
                              encoding="utf-8")
        if done.returncode != 0:
            raise Rejected(f"mlpack_bleu exited {done.returncode}: {done.stderr.strip()[:300]}")
        return ScoreAnswer(float(done.stdout.split()[0]))


class MlpackDoubleImplementation(MlpackImplementation):
    name = "mlpack-double"
    element = "double"
