"""The vector packs (`scripts/build-packs`): an npm tarball and a Python wheel build, install from their files into
scratch directories without a registry, and the consumer test each README shows (taken from the installed
package's README) passes against a real implementation -- examples/node-bleu for node, bleu-oracle's
`oracle.score` for Python -- and fails against the same implementation with an epsilon planted in it."""

from __future__ import annotations

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

ROOT = Path(__file__).resolve().parent.parent
NODE_BLEU = ROOT / "examples" / "node-bleu" / "bleu.js"
TIMEOUT = 300

MY_NODE_BLEU = """\
// examples/node-bleu as the consumer test's implementation: capabilities from its own handshake;
// MY_BLEU_EPSILON plants a bug (an epsilon added to every score)
const { spawnSync } = require('node:child_process');
const bleu = require(process.env.NODE_BLEU);
const handshake = spawnSync(process.execPath, [process.env.NODE_BLEU],
  { input: '{"cmd":"start","protocol":1}\\n', encoding: 'utf8' });
const { capabilities } = JSON.parse(handshake.stdout.split('\\n')[0]);
const epsilon = Number(process.env.MY_BLEU_EPSILON || 0);
module.exports = { capabilities, score: (request) => bleu.score(request).score + epsilon };
"""

MY_PYTHON_BLEU = '''\
"""bleu-oracle's own `oracle.score` as the consumer test's implementation (MY_BLEU_EPSILON plants a bug)."""
import os

import oracle
from oracle.formulas.conventions import SMOOTHING_METHODS

CAPABILITIES = {"levels": ["corpus", "sentence"], "weights": "any", "max_order": 10,
                "smoothing": list(SMOOTHING_METHODS), "statistics": False, "lowercase": True}
EPSILON = float(os.environ.get("MY_BLEU_EPSILON", "0"))


def score(request):
    hypotheses = [s["hypothesis"] for s in request["segments"]]
    references = [s["references"] for s in request["segments"]]
    if request["level"] == "sentence":
        hypotheses, references = hypotheses[0], references[0]
    try:
        result = oracle.score(hypotheses, references, level=request["level"], profile="papineni",
                              weights=request["weights"], smoothing=request["smoothing"],
                              lowercase=request["lowercase"])
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


@pytest.mark.slow
def test_the_npm_pack_installs_from_its_file_and_its_readme_test_passes_on_node_bleu(packs, tmp_path):
    tarball, _ = packs
    (tmp_path / "package.json").write_text('{"name": "consumer", "private": true}\n')
    installed = sh(["npm", "install", "--offline", "--no-audit", "--no-fund", "--ignore-scripts", tarball], tmp_path)
    assert installed.returncode == 0, installed.stderr
    package = tmp_path / "node_modules" / "bleu-oracle-vectors"
    version = json.loads((package / "package.json").read_text())["version"]
    assert f"-{version}-" in packs[1].name and version.split(".")[0] == SUITE_VERSION  # versioned with the suite
    (tmp_path / "consumer.test.js").write_text(code_block((package / "README.md").read_text(), "js"))
    (tmp_path / "my-bleu.js").write_text(MY_NODE_BLEU)
    passed = sh(["node", "--test", "consumer.test.js"], tmp_path, {"NODE_BLEU": str(NODE_BLEU)})
    assert passed.returncode == 0, passed.stdout[-3000:]
    assert "# fail 0" in passed.stdout and int(re.search(r"# pass (\d+)", passed.stdout)[1]) > 80
    planted = sh(
        ["node", "--test", "consumer.test.js"], tmp_path, {"NODE_BLEU": str(NODE_BLEU), "MY_BLEU_EPSILON": "1e-13"}
    )
    assert planted.returncode != 0 and "zero rule" in planted.stdout  # within the tolerance, not within the zero rule


@pytest.mark.slow
def test_the_npm_packs_filter_agrees_with_the_python_packs(packs, tmp_path):
    """`applies` in JavaScript and in Python keep the same vectors of every profile, for each capability set
    tests/test_export.py checks the Python one against `check`'s rule with."""
    from test_export import CAPABILITY_SETS, needs_met

    tarball, _ = packs
    (tmp_path / "package.json").write_text('{"name": "consumer", "private": true}\n')
    assert (
        sh(["npm", "install", "--offline", "--no-audit", "--no-fund", "--ignore-scripts", tarball], tmp_path).returncode
        == 0
    )
    script = (
        "const p = require('bleu-oracle-vectors'); const sets = JSON.parse(process.argv[1]);"
        "console.log(JSON.stringify(p.profiles.map((n) => p.load(n).vectors.map("
        "(v) => sets.map((c) => p.applies(v.needs, c))))));"
    )
    done = sh(["node", "-e", script, json.dumps(CAPABILITY_SETS)], tmp_path)
    assert done.returncode == 0, done.stderr
    package = tmp_path / "node_modules" / "bleu-oracle-vectors"
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
def test_the_python_pack_installs_from_its_wheel_and_its_readme_test_passes_on_the_oracle(packs, tmp_path):
    _, wheel = packs
    venv = tmp_path / "venv"
    assert sh([sys.executable, "-m", "venv", venv], tmp_path).returncode == 0
    python = venv / "bin" / "python"
    installed = sh([python, "-m", "pip", "install", "--quiet", "--no-index", wheel], tmp_path)
    assert installed.returncode == 0, installed.stderr
    site = Path(
        sh([python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"], tmp_path).stdout.strip()
    )
    # pytest and the reference implementation (bleu-oracle) come from the project's environment, after the pack
    (site / "project-env.pth").write_text(f"import site; site.addsitedir({sysconfig.get_paths()['purelib']!r})\n")
    where = sh([python, "-c", "import bleu_oracle_vectors as p; print(p.__file__, p.VERSION)"], tmp_path)
    assert where.stdout.startswith(str(site)), where  # the installed pack, not a copy from the repository
    metadata = next(site.glob("bleu_oracle_vectors-*.dist-info")) / "METADATA"
    work = tmp_path / "work"
    work.mkdir()
    (work / "test_consumer.py").write_text(code_block(metadata.read_text(), "python"))
    (work / "my_bleu.py").write_text(MY_PYTHON_BLEU)
    command = [python, "-m", "pytest", "-q", "-p", "no:cacheprovider", "test_consumer.py"]
    passed = sh(command, work)
    assert passed.returncode == 0 and re.search(r"\d{2,} passed", passed.stdout), passed.stdout[-3000:]
    planted = sh(command, work, {"MY_BLEU_EPSILON": "1e-13"})
    assert planted.returncode == 1 and "zero rule" in planted.stdout


def test_a_missing_packaging_tool_is_one_line_and_exit_2(tmp_path):
    """Without npm, build-packs says so in one line before it builds anything (docs/FAULTS.md, Vector packs)."""
    done = sh(
        [sys.executable, ROOT / "packs" / "build.py", "--out", tmp_path / "out"],
        ROOT,
        {"PATH": str(tmp_path), "PYTHONPATH": str(ROOT)},
    )
    assert done.returncode == 2 and done.stderr.count("\n") == 1 and "npm is not on PATH" in done.stderr
    assert not (tmp_path / "out").exists()
