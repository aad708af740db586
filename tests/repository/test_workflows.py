"""The GitHub Actions files this repository hands its users (`action.yml`, `examples/ci/*.yml`) are safe to copy:
zizmor, the static analyser for GitHub Actions, finds nothing in them, at its strictest persona (pedantic). That
holds every action pinned to a full commit SHA, `permissions:` least privilege per job, `persist-credentials: false`
on every checkout (no token in `.git/config` for a later step or an artifact to carry off), no expression spliced
into a script (inputs and outputs reach `run:` through `env:`), named jobs and a concurrency group.

zizmor is pinned in the `test` extra (a release adds audits: the test command must not start failing on files
nobody touched) and runs `--offline` (it never reaches GitHub; the online audits, which resolve tags, are off)
with `--no-config --no-ignores`, so an exception cannot hide in a config file or a comment: it is granted here,
in ALLOWED, with its reason. The zizmor test skips with the reason where zizmor is not installed, but not in CI
(CI=true), where `scripts/setup` installs the `test` extra. The pins themselves are checked without zizmor too.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[2]
#: Every Actions file a user is told to copy or `uses:`
FILES = (ROOT / "action.yml", *sorted((ROOT / "examples" / "ci").glob("*.yml")))
#: Findings allowed, as (audit, file relative to the root) -> why. None today: every finding is fixed.
ALLOWED: dict[tuple[str, str], str] = {}
#: `owner/repo@<full commit SHA>  # vX.Y.Z`: the SHA fixes the code, the comment says which release it is
PINNED = re.compile(r"^[\w.-]+/[\w./-]+@[0-9a-f]{40}\s+#\s*v\d+\.\d+\.\d+$")
#: The placeholder for this repository itself in the examples (a user's copy, at the tag they choose)
OWN = "OWNER/bleu-oracle@"


def _zizmor() -> str | None:
    """zizmor installed beside this Python (the venv's), else the one on PATH, else None."""
    beside = Path(sys.executable).with_name("zizmor")
    return str(beside) if beside.exists() else shutil.which("zizmor")


def _steps(path: Path) -> list[dict]:
    document = yaml.safe_load(path.read_text(encoding="utf-8"))
    if "runs" in document:  # an action
        return list(document["runs"].get("steps", []))
    return [step for job in document["jobs"].values() for step in job.get("steps", [])]


def _uses_lines(path: Path) -> list[tuple[int, str]]:
    """Each `uses:` line with its comment (YAML drops comments, so read the text), by line number."""
    return [(number, line.split("uses:", 1)[1].strip())
            for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
            if re.match(r"^\s*(- )?uses:", line)]


def test_there_are_actions_files_to_check():
    assert len(FILES) >= 2 and all(path.is_file() for path in FILES)


@pytest.mark.parametrize("path", FILES, ids=lambda path: str(path.relative_to(ROOT)))
def test_every_action_is_pinned_to_a_commit_with_its_release_in_a_comment(path):
    unpinned = [f"{path.name}:{number}: {uses}" for number, uses in _uses_lines(path)
                if not uses.startswith(OWN) and not PINNED.match(uses)]
    assert not unpinned, "not pinned to a full commit SHA with `# vX.Y.Z`: " + "; ".join(unpinned)


@pytest.mark.parametrize("path", FILES, ids=lambda path: str(path.relative_to(ROOT)))
def test_no_step_splices_an_expression_into_its_script(path):
    spliced = [step.get("name", step["run"][:40]) for step in _steps(path)
               if "run" in step and "${{" in step["run"]]
    assert not spliced, f"{path.name}: steps whose `run:` holds a `${{{{ }}}}` (give it through `env:`): {spliced}"


def test_zizmor_finds_nothing(tmp_path):
    command = _zizmor()
    if command is None:
        if os.environ.get("CI") == "true":
            pytest.fail("zizmor is not installed, and CI must lint the Actions files (pip install 'bleu-oracle[test]')")
        pytest.skip("zizmor is not installed (pip install 'bleu-oracle[test]')")
    env = {name: value for name, value in os.environ.items()
           if name not in ("GH_TOKEN", "GITHUB_TOKEN", "ZIZMOR_GITHUB_TOKEN", "ZIZMOR_CONFIG")}
    done = subprocess.run([command, "--offline", "--no-config", "--no-ignores", "--persona", "pedantic",
                           "--format", "json", "--no-progress", "--cache-dir", str(tmp_path),
                           *(str(path.relative_to(ROOT)) for path in FILES)],
                          cwd=ROOT, env=env, capture_output=True, text=True, timeout=300)
    # exit 0: no findings; 10 and above: findings (whose JSON is on stdout); anything else: zizmor failed
    assert done.returncode == 0 or done.returncode >= 10, done.stderr[-3000:]
    findings = json.loads(done.stdout)
    found = []
    for finding in findings:
        location = finding["locations"][0]
        where = location["symbolic"]["key"]["Local"]["verbatim_path"]
        row = location["concrete"]["location"]["start_point"]["row"] + 1
        if (finding["ident"], where) not in ALLOWED:
            found.append(f"{where}:{row}: {finding['ident']}: {finding['desc']}")
    assert not found, "zizmor's findings (fix them, or allow one in ALLOWED with its reason):\n" + "\n".join(found)
