"""The draft upstream reports (reports/upstream/NAME-ID.md) still describe the installed libraries. Each
reproduction, in the library's own API, is run: NAME-ID.py in this environment (the Moses scripts through perl),
NAME-ID.js with node for the npm packages, keras-hub's and metrax's NAME-ID.py in their own environments (heavy),
mlpack's NAME-ID.cpp built with g++ (slow). The test fails when a library now gives the documented value the draft
derives by hand (the bug no longer reproduces: update or withdraw the draft), or when the draft no longer quotes
the value the library gives. Every unreported curated discrepancy has a draft (one
named exception, with its reason), and the index lists every draft.
"""

from __future__ import annotations

import importlib.metadata
import importlib.util
import json
import math
import re
import shutil
import subprocess
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from oracle.adapters import environments
from oracle.diagnose import discrepancies
from oracle.models.discrepancy import Tolerance

UPSTREAM = Path(__file__).resolve().parents[2] / "reports" / "upstream"
#: The C++ reproductions (mlpack's header-only BLEU), built with g++ against the headers of the mlpack wheel.
CPP_DRAFTS = sorted(path.stem for path in UPSTREAM.glob("*.cpp"))
#: Reproductions that run in an environment of their own (keras-hub's and metrax's), by that environment's name.
OWN_ENVIRONMENT = {path.stem: match.group(1) for path in UPSTREAM.glob("*.py")
                   if (match := re.search(r'^VENV = "([^"]+)"', path.read_text(encoding="utf-8"), re.M))}
DRAFTS = sorted(path.stem for path in UPSTREAM.glob("*.py")
                if not path.name.startswith("_") and path.stem not in OWN_ENVIRONMENT)
#: The JavaScript reproductions (node NAME-ID.js PACKAGE_DIR), by the npm package each needs.
JS_DRAFTS = {path.stem: next(name for name in ("promptfoo", "bleu-score") if path.stem.startswith(name))
             for path in UPSTREAM.glob("*.js") if not path.name.startswith("_")}
#: The Python libraries of this environment (registry name: distribution), for skipping a draft whose library is absent.
PYTHON_LIBRARIES = {"nltk": "nltk", "sacrebleu": "sacrebleu", "torchmetrics": "torchmetrics",
                    "torcheval": "torcheval", "ignite": "pytorch-ignite", "pycocoevalcap": "pycocoevalcap",
                    "bleuscore": "bleuscore", "fast-bleu": "fast-bleu", "torchtext": "torchtext"}


def installed(distribution: str) -> bool:
    try:
        importlib.metadata.version(distribution)
    except importlib.metadata.PackageNotFoundError:
        return False
    return True


def load(draft: str) -> ModuleType:
    """The reproduction module, imported from its file (reports/upstream on the path for its helpers)."""
    spec = importlib.util.spec_from_file_location(f"upstream_{draft.replace('-', '_')}", UPSTREAM / f"{draft}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.path.insert(0, str(UPSTREAM))
    try:
        spec.loader.exec_module(module)
    finally:
        sys.path.remove(str(UPSTREAM))
    return module


def observe(module: ModuleType) -> Any:
    """What the library gives: its value, or "ExceptionType: message" where it raises."""
    sys.path.insert(0, str(UPSTREAM))
    try:
        return module.reproduce()
    except Exception as exc:  # noqa: BLE001 - a raised exception is the observation
        return f"{type(exc).__name__}: {exc}"
    finally:
        sys.path.remove(str(UPSTREAM))


def agrees(observed: Any, documented: Any) -> bool:
    """True when the library now gives the documented value (the project's numeric contract for numbers)."""
    if isinstance(documented, str):  # a documented error
        return isinstance(observed, str) and observed.startswith(documented)
    if isinstance(documented, list):
        return isinstance(observed, list) and len(observed) == len(documented) and all(
            agrees(o, d) for o, d in zip(observed, documented, strict=True))
    if isinstance(observed, (str, bool)):
        return False
    if math.isnan(documented):
        return math.isnan(observed)
    return not math.isnan(observed) and abs(observed - documented) <= 1e-12 + 1e-9 * abs(documented)


def quotes(text: str, observed: Any, within: Tolerance | None) -> bool:
    """Whether the draft quotes the observed value: its exact text, or, for a reproduction whose last bit differs by
    CPU (its curated entry's `reproduced_within`: torch's float32 kernels), a number in backticks that close to it."""
    if quoted(observed) in text:
        return True
    if within is None or not isinstance(observed, float):
        return False
    numbers = [float(number) for number in re.findall(r"`(-?\d+\.\d+(?:e-?\d+)?)`", text)]
    return any(abs(number - observed) <= within.absolute + within.relative * abs(observed) for number in numbers)


def tolerance(draft: str) -> Tolerance | None:
    """The tolerance of the curated entry a draft reports (its id is the draft's name): how far the value a machine
    gives may lie from the one quoted."""
    return next((entry.reproduced_within for entry in discrepancies.models() if entry.id == draft), None)


def quoted(observed: Any) -> str:
    """The observed value as the draft quotes it."""
    return repr(observed) if isinstance(observed, float) else str(observed)


@pytest.mark.parametrize("draft", DRAFTS)
def test_the_reproduction_still_reproduces_and_the_draft_quotes_it(draft):
    module = load_or_skip(draft)
    observed = observe(module)
    assert not agrees(observed, module.DOCUMENTED), (
        f"{draft}: the library now gives {observed!r}, the documented value: update or withdraw the draft")
    text = (UPSTREAM / f"{draft}.md").read_text(encoding="utf-8")
    assert quotes(text, observed, tolerance(draft)), (
        f"{draft}.md no longer quotes what the library gives: {quoted(observed)}")
    assert f"`{draft}.py`" in text and re.search(rf"Version checked: {re.escape(module.DISTRIBUTION)} \S", text), (
        f"{draft}.md names its reproduction and the version of {module.DISTRIBUTION} it was checked with")


def prepare_or_skip(name: str) -> None:
    """Prepare implementation `name`'s environment as `check --impl NAME` would (once: kept outside the checkout),
    or skip saying why it could not be (under CI=true that skip is a failure: tests/skips.py). A test that skipped
    whenever an earlier test had not happened to prepare it passed nothing on a fresh machine."""
    from oracle.adapters.base import AdapterUnavailable

    try:
        environments.prepare(name)
    except AdapterUnavailable as exc:
        pytest.skip(f"{name} could not be prepared: {exc}")


def load_or_skip(draft: str) -> ModuleType:
    """The module, or a skip naming the library when it is not installed in this environment."""
    distribution = next((d for d in PYTHON_LIBRARIES.values() if draft.startswith(d.replace("pytorch-", ""))),
                        None)
    if distribution is not None and not installed(distribution):
        pytest.skip(f"{distribution} is not installed here (pip install 'bleu-oracle[all]')")
    module = load(draft)
    reason = module.unavailable() if hasattr(module, "unavailable") else None  # the Perl scripts, perl, a module
    if reason:
        pytest.skip(reason)
    return module


@pytest.mark.parametrize("draft", sorted(JS_DRAFTS))
def test_the_javascript_reproduction_still_reproduces_and_the_draft_quotes_it(draft):
    node = shutil.which("node")
    if node is None:
        pytest.skip(f"needs node to run {draft}.js")
    prepare_or_skip(JS_DRAFTS[draft])
    package = environments.npm_package_dir(JS_DRAFTS[draft])
    text = check_printed(draft, [node, str(UPSTREAM / f"{draft}.js"), str(package)])
    version = package.parent.name.rsplit("-", 1)[1]
    assert f"`{draft}.js`" in text and f"Version checked: {JS_DRAFTS[draft]} {version}" in text


@pytest.mark.slow
@pytest.mark.heavy
@pytest.mark.parametrize("draft", sorted(OWN_ENVIRONMENT))
def test_a_reproduction_in_its_own_environment_still_reproduces(draft):
    prepare_or_skip(OWN_ENVIRONMENT[draft])
    python = environments.venv_python(OWN_ENVIRONMENT[draft])
    text = check_printed(draft, [str(python), str(UPSTREAM / "_run.py"), str(UPSTREAM / f"{draft}.py")])
    assert f"`{draft}.py`" in text and "Version checked: " in text


@pytest.mark.slow
@pytest.mark.parametrize("draft", CPP_DRAFTS)
def test_a_cpp_reproduction_still_reproduces(draft, tmp_path):
    compiler, spec = shutil.which("g++"), importlib.util.find_spec("mlpack")
    if compiler is None or spec is None or spec.origin is None or not Path("/usr/include/armadillo").exists():
        pytest.skip("needs g++, the mlpack wheel and Armadillo's headers (pip install 'bleu-oracle[mlpack]'; "
                    "apt-get install g++ libarmadillo-dev libcereal-dev)")
    include = Path(spec.origin).parent / "include"
    binary = tmp_path / draft
    subprocess.run([compiler, "-std=c++17", "-O2", f"-I{include}", str(UPSTREAM / f"{draft}.cpp"), "-o",
                    str(binary)], capture_output=True, text=True, timeout=600, check=True)
    text = check_printed(draft, [str(binary)])
    assert f"`{draft}.cpp`" in text and f"Version checked: mlpack {importlib.metadata.version('mlpack')}" in text


def check_printed(draft: str, command: list[str]) -> str:
    """Runs a reproduction that prints {"observed", "documented", "shown"} as JSON, checks it still reproduces and
    that its draft quotes what it shows; returns the draft's text."""
    run = subprocess.run(command, capture_output=True, text=True, timeout=300, check=True, cwd=UPSTREAM)
    result = json.loads(run.stdout.splitlines()[-1])
    observed, documented = (from_js(result[key]) for key in ("observed", "documented"))
    assert not agrees(observed, documented), (
        f"{draft}: the library now gives {observed!r}, the documented value: update or withdraw the draft")
    text = (UPSTREAM / f"{draft}.md").read_text(encoding="utf-8")
    assert f"`{result['shown']}`" in text, f"{draft}.md no longer quotes what the library gives: {result['shown']}"
    return text


def from_js(value: Any) -> Any:
    """A value a reproduction printed as JSON: NaN and the infinities come as their names (node's or Python's)."""
    return float(value) if value in ("NaN", "Infinity", "-Infinity", "nan", "inf", "-inf") else value


def test_the_agreement_rule_tells_a_fixed_library_from_a_broken_one():
    assert agrees(1.0 + 1e-13, 1.0) and not agrees(1.0 + 1e-6, 1.0)
    assert not agrees("IndexError: list index out of range", 1.0) and not agrees(float("nan"), 1.0)
    assert agrees(float("nan"), float("nan")) and not agrees(0.0, float("nan"))
    assert agrees("AssertionError: empty", "AssertionError") and not agrees(1.0, "AssertionError")
    assert agrees([1.0, 1.0], [1.0, 1.0]) and not agrees([0.8187, 1.0], [1.0, 1.0]) and not agrees([2, 2], [2, 1])


#: Unreported discrepancies without a draft, and why (the index says the same).
NOT_DRAFTED = {"keras-hub-no-effective-order": "a corpus metric: SacreBLEU's corpus BLEU of the same pair is 0 too",
               "ragas-no-effective-order": "its kwargs go to corpus_bleu, documented: a default, not a bug"}


def test_every_unreported_discrepancy_has_a_draft():
    drafts = {*DRAFTS, *JS_DRAFTS, *OWN_ENVIRONMENT, *CPP_DRAFTS}
    unreported = {entry.id for entry in discrepancies.models() if entry.upstream.stage == "found"}
    assert unreported - drafts == set(NOT_DRAFTED)
    assert drafts <= unreported  # a draft is of a curated discrepancy no thread reports
    index = (UPSTREAM / "README.md").read_text(encoding="utf-8")
    assert all(entry_id in index for entry_id in NOT_DRAFTED)


def test_the_index_lists_every_draft():
    index = (UPSTREAM / "README.md").read_text(encoding="utf-8")
    for draft in [*DRAFTS, *JS_DRAFTS, *OWN_ENVIRONMENT, *CPP_DRAFTS]:
        assert f"[{draft}]({draft}.md)" in index, draft


def test_a_quote_within_a_float32_step_counts_only_where_the_entry_allows_it():
    """`quotes`, by hand, with the torchtext-float32 entry's tolerance (2**-21 relative, 3.2e-7 here): 0.66874027 is
    one float32 step (2**-24, 6e-8) from the quoted 0.66874033; 0.6687407 is seven steps (4.3e-7) away; without a
    tolerance (an entry that states none, as every other draft's) only the exact text counts."""
    within = tolerance("torchtext-float32")
    assert within is not None and within.relative == 2.0 ** -21 and not within.absolute
    assert tolerance("torchtext-closest-first") is None
    text = "gives `0.6687403321266174` here"
    assert quotes(text, 0.6687403321266174, None)
    assert quotes(text, 0.6687402725219727, within)
    assert not quotes(text, 0.6687402725219727, None)
    assert not quotes(text, 0.6687407, within)
