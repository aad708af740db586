"""Preparing the implementations that live outside the project's environment: npm tarballs are taken
only when their sha512 integrity is the pinned one, and a failure says why (no npm, a changed tarball,
npm printing nothing usable) without leaving a half-made environment behind. A fake `npm` on PATH
stands in for the registry."""

from __future__ import annotations

import base64
import hashlib
import io
import os
import stat
import sys
import tarfile

import pytest

from oracle.adapters import environments
from oracle.adapters.base import AdapterUnavailable

FAKE_NPM = """#!{python}
import json, os, shutil, sys
args = sys.argv[1:]
mode = os.environ["FAKE_NPM_MODE"]
if mode == "fail":
    sys.stderr.write("npm ERR! 404 Not Found\\n"); sys.exit(1)
if mode == "silent":
    print("nothing useful"); sys.exit(0)
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
    with pytest.raises(AdapterUnavailable, match="demo@1.0.0's tarball has integrity sha512-.*, not the pinned sha512-AAAA"):
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
