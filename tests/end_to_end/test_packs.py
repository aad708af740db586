"""The vector packs (`scripts/build-packs`): an npm tarball and a Python wheel build, install from their files into
scratch directories without a registry, and the consumer test each README shows (taken from the installed
package's README) passes against a real implementation -- examples/node-bleu for node, bleu-oracle's
`oracle.score` for Python -- and fails against the same implementation with an epsilon planted in it, or with
another convention's rule planted, saying whose answer it gave. The READMEs in the repository are templates,
named and marked so, that render whole."""

from __future__ import annotations

import importlib.util
import json
import os
import re
import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest

from oracle.suite import SUITE_VERSION

ROOT = Path(__file__).resolve().parents[2]
NODE_BLEU = ROOT / "examples" / "node-bleu" / "bleu.js"
TIMEOUT = 300

MY_NODE_BLEU = """\
// examples/node-bleu as the consumer test's implementation: capabilities from its own handshake;
// MY_BLEU_EPSILON plants a bug (an epsilon added to every score); MY_BLEU_REFERENCE_LENGTH=shortest plants
// another convention (r is the sum of the shortest references' lengths, not of the closest: BP recomputed);
// MY_BLEU_UNDEFINED=X answers X to the inputs the documents leave undefined (no segment, all-zero weights)
const { spawnSync } = require('node:child_process');
const bleu = require(process.env.NODE_BLEU);
const handshake = spawnSync(process.execPath, [process.env.NODE_BLEU],
  { input: '{"cmd":"start","protocol":1}\\n', encoding: 'utf8' });
const { capabilities } = JSON.parse(handshake.stdout.split('\\n')[0]);
const epsilon = Number(process.env.MY_BLEU_EPSILON || 0);
const shortest = process.env.MY_BLEU_REFERENCE_LENGTH === 'shortest';
const undefinedAnswer = process.env.MY_BLEU_UNDEFINED;
function score(request) {
  const undefinedInput = request.segments.length === 0 || request.weights.every((w) => w === 0);
  if (undefinedAnswer !== undefined && undefinedInput) return Number(undefinedAnswer);
  const s = bleu.score(request);
  if (!shortest || !(s.bp > 0)) return s.score + epsilon;
  const r = request.segments.reduce((sum, seg) => sum + Math.min(...seg.references.map((ref) => ref.length)), 0);
  return (s.score / s.bp) * (s.hyp_len > r ? 1 : Math.exp(1 - r / s.hyp_len)) + epsilon;
}
module.exports = { capabilities, score };
"""

MY_PYTHON_BLEU = '''\
"""bleu-oracle's own `oracle.score` as the consumer test's implementation (MY_BLEU_EPSILON plants a bug;
MY_BLEU_REFERENCE_LENGTH=shortest another convention; MY_BLEU_UNDEFINED=X answers X to the inputs the documents
leave undefined: no segment, all-zero weights)."""
import os

import oracle
from oracle.formulas.conventions import SMOOTHING_METHODS

CAPABILITIES = {"levels": ["corpus", "sentence"], "weights": "any", "max_order": 10,
                "smoothing": list(SMOOTHING_METHODS), "statistics": False, "lowercase": True}
EPSILON = float(os.environ.get("MY_BLEU_EPSILON", "0"))
REFERENCE_LENGTH = os.environ.get("MY_BLEU_REFERENCE_LENGTH")
PLANTED = {"reference_length": REFERENCE_LENGTH} if REFERENCE_LENGTH else {}
UNDEFINED = os.environ.get("MY_BLEU_UNDEFINED")


def score(request):
    if UNDEFINED is not None and (not request["segments"] or not any(request["weights"])):
        return float(UNDEFINED)
    hypotheses = [s["hypothesis"] for s in request["segments"]]
    references = [s["references"] for s in request["segments"]]
    if request["level"] == "sentence":
        hypotheses, references = hypotheses[0], references[0]
    try:
        result = oracle.score(hypotheses, references, level=request["level"], profile="papineni",
                              weights=request["weights"], smoothing=request["smoothing"],
                              lowercase=request["lowercase"], **PLANTED)
    except oracle.BleuOracleError as exc:
        raise ValueError(str(exc)) from None
    return float(result.score) + EPSILON
'''


def sh(command, cwd, env=None):
    return subprocess.run(
        [str(part) for part in command],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=TIMEOUT,
        env={**os.environ, **(env or {})},
        check=False,
    )


def code_block(readme: str, language: str) -> str:
    """The README's consumer test: its one fenced block in `language`."""
    [block] = re.findall(rf"```{language}\n(.*?)```", readme, flags=re.S)
    return block


@pytest.fixture(scope="module")
def packs(tmp_path_factory):
    if shutil.which("npm") is None or shutil.which("node") is None:
        pytest.skip("npm and node are needed to build and consume the npm pack")
    out = tmp_path_factory.mktemp("packs")
    built = sh(["bash", ROOT / "scripts" / "build-packs", "--out", out], ROOT)
    assert built.returncode == 0, built.stderr
    tarball, wheel = (Path(line) for line in built.stdout.split())
    assert tarball.is_file() and wheel.is_file()
    return tarball, wheel


def npm_consumer(tarball: Path, where: Path) -> Path:
    """A scratch project with the npm pack installed from its file, the installed README's consumer test and
    examples/node-bleu as `my-bleu.js`; the installed package's directory."""
    (where / "package.json").write_text('{"name": "consumer", "private": true}\n')
    installed = sh(["npm", "install", "--offline", "--no-audit", "--no-fund", "--ignore-scripts", tarball], where)
    assert installed.returncode == 0, installed.stderr
    package = where / "node_modules" / "bleu-oracle-vectors"
    (where / "consumer.test.js").write_text(code_block((package / "README.md").read_text(), "js"))
    (where / "my-bleu.js").write_text(MY_NODE_BLEU)
    return package


def python_consumer(wheel: Path, where: Path) -> tuple[Path, Path]:
    """A scratch venv with the wheel installed from its file, and a directory holding the installed README's
    consumer test with `oracle.score` as `my_bleu.py`: (the venv's python, the directory)."""
    venv = where / "venv"
    assert sh([sys.executable, "-m", "venv", venv], where).returncode == 0
    python = venv / "bin" / "python"
    installed = sh([python, "-m", "pip", "install", "--quiet", "--no-index", wheel], where)
    assert installed.returncode == 0, installed.stderr
    site = Path(sh([python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"], where).stdout.strip())
    # pytest and the reference implementation (bleu-oracle) come from the project's environment, after the pack
    (site / "project-env.pth").write_text(f"import site; site.addsitedir({sysconfig.get_paths()['purelib']!r})\n")
    where_is = sh([python, "-c", "import bleu_oracle_vectors as p; print(p.__file__, p.VERSION)"], where)
    assert where_is.stdout.startswith(str(site)), where_is  # the installed pack, not a copy from the repository
    metadata = next(site.glob("bleu_oracle_vectors-*.dist-info")) / "METADATA"
    work = where / "work"
    work.mkdir()
    (work / "test_consumer.py").write_text(code_block(metadata.read_text(), "python"))
    (work / "my_bleu.py").write_text(MY_PYTHON_BLEU)
    return python, work


@pytest.mark.slow
@pytest.mark.heavy  # a pack built and installed (npm, a wheel): 6-10 s each (CI runs it)
def test_the_npm_pack_installs_from_its_file_and_its_readme_test_passes_on_node_bleu(packs, tmp_path):
    tarball, _ = packs
    package = npm_consumer(tarball, tmp_path)
    version = json.loads((package / "package.json").read_text())["version"]
    assert f"-{version}-" in packs[1].name and version.split(".")[0] == SUITE_VERSION  # versioned with the suite
    passed = sh(["node", "--test", "consumer.test.js"], tmp_path, {"NODE_BLEU": str(NODE_BLEU)})
    assert passed.returncode == 0, passed.stdout[-3000:]
    assert "# fail 0" in passed.stdout and int(re.search(r"# pass (\d+)", passed.stdout)[1]) > 80
    planted = sh(
        ["node", "--test", "consumer.test.js"], tmp_path, {"NODE_BLEU": str(NODE_BLEU), "MY_BLEU_EPSILON": "1e-13"}
    )
    assert planted.returncode != 0 and "zero rule" in planted.stdout  # within the tolerance, not within the zero rule


@pytest.mark.slow
@pytest.mark.heavy  # a pack built and installed (npm, a wheel): 6-10 s each (CI runs it)
def test_the_npm_packs_filter_agrees_with_the_python_packs(packs, tmp_path):
    """`applies` in JavaScript and in Python keep the same vectors of every profile, for each capability set
    tests/commands/test_export.py checks the Python one against `check`'s rule with."""
    sys.path.insert(0, str(Path(__file__).parents[1] / "commands"))  # where test_export is
    from test_export import CAPABILITY_SETS, needs_met

    package = npm_consumer(packs[0], tmp_path)
    script = (
        "const p = require('bleu-oracle-vectors'); const sets = JSON.parse(process.argv[1]);"
        "console.log(JSON.stringify(p.profiles.map((n) => p.load(n).vectors.map("
        "(v) => sets.map((c) => p.applies(v.needs, c))))));"
    )
    done = sh(["node", "-e", script, json.dumps(CAPABILITY_SETS)], tmp_path)
    assert done.returncode == 0, done.stderr
    profiles = json.loads((package / "pack.json").read_text())["profiles"]
    want = [
        [
            [needs_met(v["needs"], c) for c in CAPABILITY_SETS]
            for v in json.loads((package / "vectors" / f"{name}.json").read_text())["vectors"]
        ]
        for name in profiles
    ]
    assert json.loads(done.stdout) == want
    assert {flag for per_profile in want for per_vector in per_profile for flag in per_vector} == {True, False}


@pytest.mark.slow
@pytest.mark.heavy  # a pack built and installed (npm, a wheel): 6-10 s each (CI runs it)
def test_the_python_pack_installs_from_its_wheel_and_its_readme_test_passes_on_the_oracle(packs, tmp_path):
    _, wheel = packs
    python, work = python_consumer(wheel, tmp_path)
    command = [python, "-m", "pytest", "-q", "-p", "no:cacheprovider", "test_consumer.py"]
    passed = sh(command, work)
    assert passed.returncode == 0 and re.search(r"\d{2,} passed", passed.stdout), passed.stdout[-3000:]
    planted = sh(command, work, {"MY_BLEU_EPSILON": "1e-13"})
    assert planted.returncode == 1 and "zero rule" in planted.stdout


#: The message a failure on a vector of papineni.json gives an implementation taking the shortest reference length,
#: from the vector's `answers` (docs/vectors.md's example: mlpack and tensorflow-nmt are the profiles taking it).
SHORTEST = "your answer is the `reference_length=shortest` one: mlpack, tensorflow-nmt"
#: mlpack-shortest-reference (oracle/suite/data/mlpack.yaml), by hand: nine tokens, all in the first reference (ten
#: tokens; the other has four): every p_n is 1. The closest reference (papineni): r = 10, BP = exp(1 - 10/9) =
#: exp(-1/9) = 0.894839...; the shortest: r = 4 < c = 9, BP = 1, BLEU = 1.
MLPACK_FAILURE = r"got 1(\.0)?, want 0\.894839316814\d*; " + re.escape(SHORTEST)


@pytest.mark.slow
@pytest.mark.heavy  # a pack built and installed (npm, a wheel): 6-10 s each (CI runs it)
def test_a_failing_vector_says_whose_answer_a_node_implementation_gave(packs, tmp_path):
    """A user's BLEU taking the shortest reference length (mlpack's and tensorflow/nmt's rule, not papineni's
    closest) fails the papineni vectors on which the two split; each failure says whose answer it gave, from the
    vector's own `answers`, not a bare "got 1, want 0.8948...". (The README's test, run with node.)"""
    npm_consumer(packs[0], tmp_path)
    env = {"NODE_BLEU": str(NODE_BLEU), "MY_BLEU_REFERENCE_LENGTH": "shortest"}
    failed = sh(["node", "--test", "consumer.test.js"], tmp_path, env)
    assert failed.returncode != 0, failed.stdout[-3000:]
    # node's TAP: "not ok N - TITLE", then the failure's YAML up to a line "  ..."
    tap = r"^not ok \d+ - (\S+) [^\n]*\n(.*?)\n  \.\.\.\n"
    failures = dict(re.findall(tap, failed.stdout, re.M | re.S))
    assert len(failures) == int(re.search(r"# fail (\d+)", failed.stdout)[1]) > 1
    assert all(SHORTEST in block for block in failures.values()), failures
    assert re.search(MLPACK_FAILURE, failures["mlpack-shortest-reference"]), failures["mlpack-shortest-reference"]


@pytest.mark.slow
@pytest.mark.heavy  # a pack built and installed (npm, a wheel): 6-10 s each (CI runs it)
def test_a_failing_vector_says_whose_answer_a_python_implementation_gave(packs, tmp_path):
    """The same in the Python pack's README test, run with pytest: the failure's message names the convention."""
    python, work = python_consumer(packs[1], tmp_path)
    command = [python, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-rf", "test_consumer.py"]
    failed = sh(command, work, {"MY_BLEU_REFERENCE_LENGTH": "shortest", "COLUMNS": "1000"})
    assert failed.returncode == 1, failed.stdout[-3000:]
    # pytest's summary: "FAILED test_consumer.py::test_vector[ID] - AssertionError: MESSAGE"
    failures = dict(re.findall(r"^FAILED test_consumer\.py::test_vector\[(.+?)\] - (.*)$", failed.stdout, re.M))
    assert len(failures) == int(re.search(r"(\d+) failed", failed.stdout)[1]) > 1
    assert all(SHORTEST in message for message in failures.values()), failures
    assert re.search(MLPACK_FAILURE, failures["mlpack-shortest-reference"]), failures["mlpack-shortest-reference"]


#: The vectors on inputs the documents leave undefined (PROTOCOL.md) that papineni.json holds: no segment, all-zero
#: weights; `expected` is the recommended refusal and each named convention's value is acceptable too.
UNDEFINED_VECTORS = {"protocol-empty-corpus", "protocol-zero-weights"}


@pytest.mark.slow
@pytest.mark.heavy  # a pack built and installed (npm, a wheel): 6-10 s each (CI runs it)
def test_a_node_implementation_answering_a_conventions_value_on_an_undefined_input_passes(packs, tmp_path):
    """0 is a named convention's value on both (empty-corpus-zero; zero-weights-counted), so the README's test
    passes, saying which convention; 0.5 is no convention's value, so those two vectors, and only they, fail."""
    npm_consumer(packs[0], tmp_path)
    zero = sh(["node", "--test", "consumer.test.js"], tmp_path, {"NODE_BLEU": str(NODE_BLEU), "MY_BLEU_UNDEFINED": "0"})
    assert zero.returncode == 0 and "# fail 0" in zero.stdout, zero.stdout[-3000:]
    assert "acceptable: the empty-corpus-zero convention's value" in zero.stdout
    assert "acceptable: the zero-weights-counted convention's value" in zero.stdout
    half = sh(["node", "--test", "consumer.test.js"], tmp_path,
              {"NODE_BLEU": str(NODE_BLEU), "MY_BLEU_UNDEFINED": "0.5"})
    failed = set(re.findall(r"^not ok \d+ - (\S+) ", half.stdout, re.M))
    assert half.returncode != 0 and failed == UNDEFINED_VECTORS, half.stdout[-3000:]


@pytest.mark.slow
@pytest.mark.heavy  # a pack built and installed (npm, a wheel): 6-10 s each (CI runs it)
def test_a_python_implementation_answering_a_conventions_value_on_an_undefined_input_passes(packs, tmp_path):
    """The same with the Python pack's README test, run with pytest."""
    python, work = python_consumer(packs[1], tmp_path)
    command = [python, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-rf", "test_consumer.py"]
    zero = sh(command, work, {"MY_BLEU_UNDEFINED": "0"})
    assert zero.returncode == 0, zero.stdout[-3000:]
    half = sh(command, work, {"MY_BLEU_UNDEFINED": "0.5", "COLUMNS": "1000"})
    failed = set(re.findall(r"^FAILED test_consumer\.py::test_vector\[(.+?)\]", half.stdout, re.M))
    assert half.returncode == 1 and failed == UNDEFINED_VECTORS, half.stdout[-3000:]


def build_packs_module():
    """packs/build.py (scripts/build-packs) as a module."""
    spec = importlib.util.spec_from_file_location("build_packs", ROOT / "packs" / "build.py")
    build = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(build)
    return build


def test_the_readme_templates_are_named_and_marked_templates_and_render_whole():
    """The repository shows no README full of `{{...}}`: each pack's README is `README.template.md`, its first
    line says build-packs renders it, and build-packs renders it (that line dropped, every placeholder filled,
    the consumer test verbatim)."""
    build = build_packs_module()
    assert build.README_TEMPLATE == "README.template.md"
    for path in (ROOT / "packs").rglob("*.md"):
        text = path.read_text(encoding="utf-8")
        assert "{{" not in text or path.name == "README.template.md", f"{path}: placeholders, not named a template"
    for pack, test in (("npm", "consumer.test.js"), ("python", "test_consumer.py")):
        template = ROOT / "packs" / pack / "README.template.md"
        first = template.read_text(encoding="utf-8").splitlines()[0]
        assert first.startswith("<!-- A template, not a README: scripts/build-packs") and first.endswith("-->")
        rendered = build.render_readme(template, ROOT / "packs" / pack / test, "9.8.7")
        assert "{{" not in rendered and "template" not in rendered.splitlines()[0]
        assert rendered.startswith("# bleu-oracle-vectors 9.8.7\n")
        assert (ROOT / "packs" / pack / test).read_text(encoding="utf-8") in rendered


def test_a_template_not_marked_or_with_a_placeholder_left_unfilled_stops_the_build(tmp_path):
    """A README would ship with `{{...}}` in it, or the repository would show an unmarked template: build-packs
    refuses (a RuntimeError, which `main` prints as one line with exit 2), naming the file and the placeholder."""
    build = build_packs_module()
    test = ROOT / "packs" / "npm" / "consumer.test.js"
    template = tmp_path / "README.template.md"
    template.write_text(f"{build.TEMPLATE_NOTE}\n# bleu-oracle-vectors {{{{VERSION}}}} for {{{{LANGUAGE}}}}\n")
    with pytest.raises(RuntimeError, match=r"README.template.md: placeholders build-packs does not fill: \{\{LANGUAGE"):
        build.render_readme(template, test, "1.0.0")
    template.write_text("# bleu-oracle-vectors {{VERSION}}\n")
    with pytest.raises(RuntimeError, match="the first line must be"):
        build.render_readme(template, test, "1.0.0")


def test_a_missing_packaging_tool_is_one_line_and_exit_2(tmp_path):
    """Without npm, build-packs says so in one line before it builds anything (docs/FAULTS.md, Vector packs)."""
    done = sh(
        [sys.executable, ROOT / "packs" / "build.py", "--out", tmp_path / "out"],
        ROOT,
        {"PATH": str(tmp_path), "PYTHONPATH": str(ROOT)},
    )
    assert done.returncode == 2 and done.stderr.count("\n") == 1 and "npm is not on PATH" in done.stderr
    assert not (tmp_path / "out").exists()
