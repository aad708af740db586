"""No skip hides a failure in CI: under CI=true a skip whose reason tests/skips.py does not allow fails, showing
its reason; an allowed one stays a skip; outside CI both are skips; and the test command prints every reason.
(The test suite's own rule, tests/skips.py and tests/conftest.py: no module of oracle/.)
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from skips import ALLOWED_IN_CI, disallowed

ROOT = Path(__file__).resolve().parents[2]

PROBE = '''
import pytest

def test_allowed():
    pytest.skip("ignite-micro does not declare what this plan uses")

def test_environment_not_prepared():
    pytest.skip("compare-mt could not be prepared: pip failed: ENOSPC")

@pytest.fixture
def needs_node():
    pytest.skip("node is not installed")

def test_skipped_in_a_fixture(needs_node):
    pass

def test_passes():
    pass
'''

# The probe's conftest takes the hook from tests/conftest.py itself (loaded under another name), so what is
# tested is the rule the suite runs under, not a copy of it.
CONFTEST = f'''
import importlib.util, sys
sys.path.insert(0, {str(ROOT / "tests")!r})
spec = importlib.util.spec_from_file_location("suite_conftest", {str(ROOT / "tests" / "conftest.py")!r})
module = importlib.util.module_from_spec(spec)
spec.loader.exec_module(module)
pytest_runtest_makereport = module.pytest_runtest_makereport
'''


def run_probe(tmp_path: Path, ci: str | None) -> subprocess.CompletedProcess[str]:
    (tmp_path / "test_probe.py").write_text(PROBE)
    (tmp_path / "conftest.py").write_text(CONFTEST)
    env = {key: value for key, value in os.environ.items() if key != "CI"}
    if ci is not None:
        env["CI"] = ci
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-rs", "-p", "no:cacheprovider", "-p", "no:xdist",
         "-o", "addopts=", "--rootdir", str(tmp_path), str(tmp_path / "test_probe.py")],
        capture_output=True, text=True, cwd=tmp_path, env=env, timeout=120, check=False,
    )


def test_under_ci_a_skip_for_a_reason_not_allowed_fails_showing_its_reason(tmp_path):
    done = run_probe(tmp_path, "true")
    out = done.stdout
    assert done.returncode == 1, out
    assert "1 failed, 1 passed, 1 skipped, 1 error" in out, out
    assert "compare-mt could not be prepared: pip failed: ENOSPC" in out
    assert "node is not installed" in out  # a fixture's skip: an error at setup, with its reason
    assert "SKIPPED [1]" in out and "does not declare what this plan uses" in out  # the allowed one stays a skip


def test_outside_ci_every_skip_stays_a_skip_and_says_why(tmp_path):
    done = run_probe(tmp_path, None)
    out = done.stdout
    assert done.returncode == 0, out
    assert "1 passed, 3 skipped" in out, out
    for reason in ("does not declare what this plan uses", "could not be prepared: pip failed: ENOSPC",
                   "node is not installed"):
        assert reason in out


def test_the_allowed_list_is_short_and_each_entry_says_why():
    assert 0 < len(ALLOWED_IN_CI) <= 5
    for allowed in ALLOWED_IN_CI:
        assert len(allowed.why) > 40, allowed
    assert disallowed("torchmetrics could not be prepared: no wheel")
    assert not disallowed("torchmetrics does not declare what this plan uses")
    assert disallowed("Debian's chromium is not installed (apt-get install -y chromium; .ci/run installs it)")


@pytest.mark.parametrize("script", ["scripts/test"])
def test_the_test_command_prints_every_skip_reason(script):
    text = (ROOT / script).read_text()
    command = next(line for line in text.splitlines() if line.startswith("exec ") and "pytest" in line)
    assert " -rs" in command or "-rsE" in command or "-ra" in command, command
