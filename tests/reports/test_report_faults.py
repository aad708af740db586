"""A report never destroys what is around it, is checked before anything runs, and is finished whole however a
run ends: what check does when its report path, a second run, a signal or a full disk gets in the way
(oracle/reports/staging.py, oracle/harness/signals.py).

Holds: oracle.reports.staging, oracle.signals, oracle.files
"""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import stat
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from fakes.harness import fake, run_cli

from oracle.harness.events import read_results
from oracle.reports.staging import MANIFEST, STAGING_PREFIX


def _check(report, command, *more, examples=5):
    return run_cli("check", "--command", command, "--no-cases", "--examples", examples, "--timeout", 5,
                   "--report", report, "--quiet", *more)


def _staging_left(directory: Path) -> list[Path]:
    return list(directory.glob(f"{STAGING_PREFIX}*"))


def _env():
    return {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}


@contextlib.contextmanager
def _mounted_tmpfs(where: Path, *options: str):
    """A tmpfs mounted at `where` (root only): a mount point, or with "ro" a place nothing can be written."""
    where.mkdir()
    flags = ["-o", ",".join(options)] if options else []
    done = subprocess.run(["mount", "-t", "tmpfs", *flags, "tmpfs", str(where)], capture_output=True, text=True)
    if done.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here ({done.stderr.strip() or done.returncode}): needs root")
    try:
        yield where
    finally:
        subprocess.run(["umount", str(where)], check=False)


# -- the path is checked before anything runs ---------------------------------------------------------------


def test_a_report_path_that_is_a_file_is_a_usage_error_before_anything_runs(tmp_path, capsys):
    path = tmp_path / "report"
    path.write_text("not a directory")
    assert _check(path, fake("clean")) == 2
    assert "a file is in the way" in capsys.readouterr().err
    assert path.read_text() == "not a directory"


def test_a_directory_holding_other_files_is_refused_before_the_run_unless_forced(tmp_path, capsys):
    report = tmp_path / "mine"
    report.mkdir()
    (report / "notes.txt").write_text("my notes")
    marker = tmp_path / "started"
    assert _check(report, fake("clean") + f" --touch {marker}") == 2
    err = capsys.readouterr().err
    assert "notes.txt" in err and "--report-force" in err and len(err.strip().splitlines()) == 1
    assert not marker.exists()  # refused before the implementation started
    assert sorted(p.name for p in report.iterdir()) == ["notes.txt"]
    assert _check(report, fake("clean"), "--report-force") == 0
    assert (report / "notes.txt").read_text() == "my notes"
    assert read_results(report).footer.exit_code == 0


def test_the_root_of_a_git_checkout_is_left_intact(tmp_path, capsys):
    checkout = tmp_path / "checkout"
    checkout.mkdir()
    (checkout / "code.py").write_text("print('mine')\n")
    git = ["git", "-C", str(checkout), "-c", "user.name=t", "-c", "user.email=t@example.org"]
    for command in (["init", "-q"], ["add", "code.py"], ["commit", "-q", "-m", "mine"]):
        subprocess.run([*git, *command], check=True, capture_output=True)
    assert _check(checkout, fake("clean")) == 2
    assert ".git" in capsys.readouterr().err
    assert _check(checkout, fake("clean"), "--report-force") == 0
    status = subprocess.run([*git, "status", "--porcelain"], check=True, capture_output=True, text=True).stdout
    assert all(line.startswith("??") for line in status.splitlines())  # only the report's files are new
    assert subprocess.run([*git, "log", "--oneline"], check=True, capture_output=True, text=True).stdout.strip()
    assert (checkout / "code.py").read_text() == "print('mine')\n"
    assert (checkout / "results.jsonl").is_file() and (checkout / "summary.md").is_file()
    # a second run there is a run into a previous report: allowed without --report-force, .git still intact
    assert _check(checkout, fake("clean")) == 0
    assert (checkout / ".git" / "HEAD").is_file() and (checkout / "code.py").is_file()


def test_the_parent_directory_is_refused_like_any_directory_of_other_files(tmp_path, monkeypatch, capsys):
    inner = tmp_path / "project"
    inner.mkdir()
    (tmp_path / "someone-elses.txt").write_text("x")
    monkeypatch.chdir(inner)
    assert _check("..", fake("clean")) == 2
    assert "someone-elses.txt" in capsys.readouterr().err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["project", "someone-elses.txt"]


def test_a_symlink_is_followed_and_kept_and_a_dangling_one_is_refused(tmp_path, capsys):
    target = tmp_path / "target"
    target.mkdir()
    link = tmp_path / "link"
    link.symlink_to(target)
    assert _check(link, fake("clean")) == 0
    assert link.is_symlink() and (target / "results.jsonl").is_file()
    dangling = tmp_path / "dangling"
    dangling.symlink_to(tmp_path / "nowhere")
    assert _check(dangling, fake("clean")) == 2
    assert "does not exist" in capsys.readouterr().err
    assert dangling.is_symlink() and not (tmp_path / "nowhere").exists()


def test_a_mount_point_takes_the_report_inside_it(tmp_path):
    with _mounted_tmpfs(tmp_path / "volume") as volume:
        assert _check(volume, fake("clean")) == 0
        assert (volume / "results.jsonl").is_file() and (volume / "junit.xml").is_file()
        assert not _staging_left(volume) and not _staging_left(tmp_path)


def test_a_place_that_cannot_be_written_is_refused_before_the_run(tmp_path, capsys):
    marker = tmp_path / "started"
    if os.geteuid() == 0:
        context = _mounted_tmpfs(tmp_path / "readonly", "ro")
    else:
        (tmp_path / "readonly").mkdir()
        (tmp_path / "readonly").chmod(stat.S_IRUSR | stat.S_IXUSR)
        context = contextlib.nullcontext(tmp_path / "readonly")
    with context as readonly:
        assert _check(readonly / "report", fake("clean") + f" --touch {marker}") == 2
        assert "cannot" in capsys.readouterr().err
        assert not marker.exists()


# -- publishing -----------------------------------------------------------------------------------------


def test_a_new_report_replaces_the_old_reports_files_and_nothing_else(tmp_path):
    report = tmp_path / "report"
    assert _check(report, fake("clean"), "--badge", report / "badge.json") == 0
    assert (report / "badge.json").is_file()
    (report / "baseline.yaml").write_text("# reviewed by hand\n")
    assert _check(report, fake("mutant_no_clipping"), examples=20) == 1
    assert not (report / "badge.json").exists()  # the previous report's, not this one's
    assert (report / "baseline.yaml").read_text() == "# reviewed by hand\n"  # never the report's: kept
    results = read_results(report)
    assert results.footer.exit_code == 1 and "deviations found" in (report / "summary.md").read_text()
    assert (report / MANIFEST).is_file() and not _staging_left(report)


def test_a_baseline_kept_in_the_report_directory_survives_the_run_it_gates(tmp_path):
    report = tmp_path / "report"
    assert _check(report, fake("clean")) == 0
    baseline = report / "baseline.yaml"
    text = "# every reason reviewed\n[]\n"
    baseline.write_text(text)
    assert _check(report, fake("clean"), "--baseline", baseline) == 0
    assert baseline.read_text() == text


def test_report_files_get_ordinary_permissions(tmp_path):
    report = tmp_path / "report"
    old = os.umask(0o022)
    try:
        assert _check(report, fake("clean")) == 0
    finally:
        os.umask(old)
    for name in ("summary.md", "junit.xml", "results.jsonl", MANIFEST):
        assert stat.S_IMODE((report / name).stat().st_mode) == 0o644, name


def test_concurrent_runs_into_one_directory_each_complete(tmp_path):
    report = tmp_path / "report"
    codes = []
    threads = [threading.Thread(target=lambda: codes.append(_check(report, fake("clean"), examples=30)))
               for _ in range(3)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert codes == [0, 0, 0]
    results = read_results(report)  # the last to finish: complete, with its footer
    assert results.footer is not None and sum(r.kind == "example" and "~" not in r.id for r in results.records) == 30
    assert not _staging_left(report) and not _staging_left(tmp_path)


# -- a full disk: a report is published whole or not at all ----------------------------------------------------


def _fill(volume: Path, leave: int) -> None:
    """Fill the file system of `volume` until `leave` bytes are free (a real file of zeros, as a full disk)."""
    free = os.statvfs(volume).f_bavail * os.statvfs(volume).f_frsize
    with open(volume / "filler", "wb") as out:
        with contextlib.suppress(OSError):
            out.write(bytes(max(free - leave, 0)))


def test_a_disk_that_fills_during_the_run_keeps_the_previous_report_whole(tmp_path, capsys):
    with _mounted_tmpfs(tmp_path / "volume", "size=4m") as volume:
        report = volume / "report"
        assert _check(report, fake("clean"), examples=30) == 0
        before = _snapshot(report)
        capsys.readouterr()
        _fill(volume, leave=16 * 1024)  # the next stream cannot be written whole
        assert _check(report, fake("clean"), examples=300) == 2
        err = capsys.readouterr().err.strip()
        assert len(err.splitlines()) == 1 and "Traceback" not in err, err
        assert f"cannot write {report / 'results.jsonl'} (No space left on device, after " in err, err
        assert f"nothing was published: {report} keeps the report it had" in err, err
        assert _snapshot(report) == before  # not a cut stream over a whole report, nor a report without summary
        assert not _staging_left(report)  # the space the run took is given back


def test_a_disk_full_on_a_new_report_leaves_no_report_and_no_staging(tmp_path, capsys):
    with _mounted_tmpfs(tmp_path / "volume", "size=1m") as volume:
        _fill(volume, leave=8 * 1024)
        report = volume / "report"
        assert _check(report, fake("clean"), examples=300) == 2
        err = capsys.readouterr().err
        assert "No space left on device" in err and "keeps no report of this run" in err, err
        assert not any(report.iterdir())


def test_a_summary_that_cannot_be_written_publishes_nothing(tmp_path, capsys, monkeypatch):
    """The stream was written whole, the summary was not (ENOSPC from the file system, simulated where the file
    is created): a report without its summary is not published over the previous one."""
    report = tmp_path / "report"
    assert _check(report, fake("clean")) == 0
    before = _snapshot(report)
    capsys.readouterr()
    import errno
    import tempfile

    real_mkstemp = tempfile.mkstemp

    def full_for_the_summary(*args, prefix=None, **kwargs):
        if prefix and prefix.startswith(".summary.md."):
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        return real_mkstemp(*args, prefix=prefix, **kwargs)

    monkeypatch.setattr(tempfile, "mkstemp", full_for_the_summary)
    assert _check(report, fake("clean"), examples=7) == 2
    err = capsys.readouterr().err
    assert f"cannot write {report / 'summary.md'} (No space left on device)" in err, err
    assert _snapshot(report) == before and not _staging_left(report)


def test_the_stream_writer_stops_at_the_first_lost_line(tmp_path):
    """After a failed write the stream is cut: no later line (a footer) may follow a lost one and make a stream
    that reads as whole."""
    import errno

    from oracle.formulas.errors import FileWriteError
    from oracle.harness.events import ResultsWriter
    from oracle.models.results import Footer, GateSummary

    class FullAfter:  # a file whose disk fills after `room` characters
        def __init__(self, handle, room):
            self.handle, self.room = handle, room

        def write(self, text):
            if len(text) > self.room:
                raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
            self.room -= len(text)
            return self.handle.write(text)

        def flush(self):
            self.handle.flush()

        def close(self):
            self.handle.close()

    footer = Footer(counts={}, baseline=GateSummary(), gate="pass", exit_code=0, restarts=0, duration=0.0,
                    finished="")
    writer = ResultsWriter(tmp_path / "results.jsonl")
    one_line = len(footer.model_dump_json(exclude_none=True, by_alias=True)) + 1
    writer._handle = FullAfter(writer._handle, room=one_line + 1)
    writer.write(footer)
    with pytest.raises(FileWriteError, match=r"results.jsonl \(No space left on device, after 1 lines\)"):
        writer.write(footer)
    writer._handle.room = 10 * one_line  # space freed: still nothing more is written
    with pytest.raises(FileWriteError):
        writer.write(footer)
    writer.close()
    assert (tmp_path / "results.jsonl").read_text().count("\n") == 1


# -- signals --------------------------------------------------------------------------------------------


def test_sigterm_stops_the_run_with_a_footer_and_nothing_left_running(tmp_path):
    report = tmp_path / "report"
    # the implementation hangs on its 2nd request: SIGTERM must stop the run and leave it not running
    marker = tmp_path / "hang-started"  # names this test's implementation among every process
    command = fake("hang_seq2") + f" --touch {marker}"
    run = subprocess.Popen([sys.executable, "-m", "oracle", "check", "--command", command, "--no-cases", "--examples",
                            "5", "--timeout", "60", "--report", str(report), "--quiet"], env=_env(),
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.time() + 30
    while time.time() < deadline and not list(report.glob(f"{STAGING_PREFIX}*/results.jsonl")):
        time.sleep(0.1)
    time.sleep(1.5)  # the first request answered, the second hanging
    run.send_signal(signal.SIGTERM)
    out, err = run.communicate(timeout=30)
    assert run.returncode == 143, err
    results = read_results(report)
    assert results.footer.interrupted is True and results.footer.exit_code == 143
    assert "Traceback" not in err
    leftovers = subprocess.run(["pgrep", "-f", str(marker)], capture_output=True, text=True).stdout.split()
    assert not leftovers, leftovers
    assert "interrupted" in (report / "summary.md").read_text()


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGINT])
def test_a_signal_while_the_summary_is_derived_waits_for_the_whole_report(tmp_path, signum):
    """The signal arrives exactly when summary.md and junit.xml are being derived (sent by the process to itself
    from inside the derivation): both are written, the report is published, and the exit code says interrupted."""
    report = tmp_path / "report"
    script = (
        "import os, sys\n"
        "import oracle.reports.summaries as summaries\n"
        "real = summaries.write_reports\n"
        "def interrupted_meanwhile(*args, **kwargs):\n"
        f"    os.kill(os.getpid(), {int(signum)})\n"
        "    return real(*args, **kwargs)\n"
        "summaries.write_reports = interrupted_meanwhile\n"
        "from oracle.cli import main\n"
        "sys.exit(main(sys.argv[1:]))\n"
    )
    done = subprocess.run([sys.executable, "-c", script, "check", "--command", fake("clean"), "--no-cases",
                           "--examples", "3", "--report", str(report), "--quiet"], env=_env(), capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 128 + signum, done.stderr
    assert "Traceback" not in done.stderr and len(done.stderr.strip().splitlines()) == 1
    assert (report / "summary.md").is_file() and (report / "junit.xml").is_file()
    assert read_results(report).footer is not None and not _staging_left(report)


def test_a_run_killed_before_publishing_leaves_the_previous_report_and_its_staging_is_swept_later(tmp_path):
    report = tmp_path / "report"
    assert _check(report, fake("clean")) == 0
    before = (report / "results.jsonl").read_bytes()
    marker = tmp_path / "hang-started"
    command = fake("hang_seq2") + f" --touch {marker}"
    run = subprocess.Popen([sys.executable, "-m", "oracle", "check", "--command", command, "--no-cases",
                            "--examples", "5", "--timeout", "60", "--report", str(report), "--quiet"], env=_env(),
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
    deadline = time.time() + 30
    while time.time() < deadline and not list(report.glob(f"{STAGING_PREFIX}*/results.jsonl")):
        time.sleep(0.1)
    os.killpg(run.pid, signal.SIGKILL)  # no chance to publish or clean up
    run.wait(timeout=30)
    subprocess.run(["pkill", "-KILL", "-f", str(marker)], check=False)  # its implementation (its own process group)
    assert (report / "results.jsonl").read_bytes() == before  # the previous report, untouched
    assert _staging_left(report)
    assert _check(report, fake("clean")) == 0
    assert not _staging_left(report)  # the killed run's staging went with the next publication
    shutil.rmtree(report)


# -- `bleu-oracle report`: the reports folder -----------------------------------------------------------


def _snapshot(directory: Path) -> dict[str, bytes]:
    return {str(p.relative_to(directory)): p.read_bytes() for p in sorted(directory.rglob("*")) if p.is_file()}


def _report(out, *more):
    return [sys.executable, "-m", "oracle", "report", "--impl", "nltk", "--no-real-data", "--report", str(out), *more]


@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM])
def test_an_interrupted_report_leaves_the_folder_as_it_was(tmp_path, signum):
    out = tmp_path / "reports"
    subprocess.run(_report(out, "--examples", "3", "-q"), env=_env(), check=True, capture_output=True, timeout=300)
    (out / "notes.md").write_text("mine")
    before = _snapshot(out)
    run = subprocess.Popen(_report(out, "--examples", "5000", "-q"), env=_env(), stdout=subprocess.DEVNULL,
                           stderr=subprocess.PIPE, text=True)
    deadline = time.time() + 120
    while time.time() < deadline and not list(out.glob(f"{STAGING_PREFIX}*/data/runs/*/results.jsonl")):
        time.sleep(0.1)
    run.send_signal(signum)
    _, err = run.communicate(timeout=120)
    assert run.returncode in (130, 143, -signum), err
    assert "Traceback" not in err
    assert _snapshot(out) == before
    assert not _staging_left(out)


def test_a_report_into_a_folder_of_other_files_is_refused_before_running(tmp_path):
    out = tmp_path / "docs"
    out.mkdir()
    (out / "index.md").write_text("my site")
    done = subprocess.run(_report(out, "--examples", "3", "-q"), env=_env(), capture_output=True, text=True,
                          timeout=300)
    assert done.returncode == 2 and "index.md" in done.stderr and "Traceback" not in done.stderr
    assert sorted(p.name for p in out.iterdir()) == ["index.md"]
    done = subprocess.run(_report(out, "--examples", "3", "-q", "--report-force"), env=_env(), capture_output=True,
                          text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert (out / "index.md").read_text() == "my site" and (out / "README.md").is_file()


def test_a_rerender_keeps_the_data_and_removes_pages_no_longer_rendered(tmp_path):
    out = tmp_path / "reports"
    subprocess.run(_report(out, "--examples", "3", "-q"), env=_env(), check=True, capture_output=True, timeout=300)
    data = {k: v for k, v in _snapshot(out).items() if k.startswith("data/")}
    (out / "implementations" / "gone.md").write_text("a page of an implementation no longer there")
    manifest = (out / MANIFEST).read_text()
    (out / MANIFEST).write_text(manifest.replace('"README.md",', '"README.md", "implementations/gone.md",'))
    subprocess.run([sys.executable, "-m", "oracle", "report", "--render-only", "--report", str(out), "-q"],
                   env=_env(), check=True, capture_output=True, timeout=300)
    assert {k: v for k, v in _snapshot(out).items() if k.startswith("data/")} == data
    assert not (out / "implementations" / "gone.md").exists()
    assert (out / "implementations" / "nltk.md").is_file()


def test_a_full_disk_while_the_pages_are_rendered_leaves_the_folder_as_it_was(tmp_path):
    data = Path(__file__).parents[1] / "report_data" / "data"
    with _mounted_tmpfs(tmp_path / "volume", "size=4m") as volume:
        out = volume / "reports"
        shutil.copytree(data, out / "data")
        before = _snapshot(out)
        _fill(volume, leave=64 * 1024)  # the data fits; the pages do not
        done = subprocess.run([sys.executable, "-m", "oracle", "report", "--render-only", "--report", str(out), "-q"],
                              env=_env(), capture_output=True, text=True, timeout=300)
        assert done.returncode == 2 and "Traceback" not in done.stderr, done.stderr
        assert len(done.stderr.strip().splitlines()) == 1, done.stderr
        assert "No space left on device" in done.stderr and f"nothing was published: {out} keeps" in done.stderr
        assert _snapshot(out) == before and not _staging_left(out)


def test_a_full_disk_never_costs_a_reviewed_baseline(tmp_path, capsys):
    with _mounted_tmpfs(tmp_path / "volume", "size=8m") as volume:
        report = volume / "report"
        assert _check(report, fake("mutant_no_clipping"), examples=20) == 1
        baseline = volume / "baseline.yaml"
        # reviewed, for a deviation of another run: this run's are entries to add (a baseline written from this
        # run lists them already: writing again adds nothing)
        reviewed = "# mine\nentries:\n- id: some-case\n  outcome: fail\n  reason: reviewed, upstream 1\n"
        baseline.write_text(reviewed)
        capsys.readouterr()
        _fill(volume, leave=0)  # entries to add, no room to write them
        assert run_cli("baseline", "write", "--from", report, "--out", baseline) == 2
        err = capsys.readouterr().err
        assert f"cannot write {baseline} (No space left on device)" in err and len(err.strip().splitlines()) == 1
        assert baseline.read_text() == reviewed


def test_a_full_disk_never_cuts_a_found_cases_file(tmp_path, capsys):
    with _mounted_tmpfs(tmp_path / "volume", "size=1m") as volume:
        target = volume / "found.yaml"

        def fuzz(name, report):
            return run_cli("fuzz", "--command", fake(name), "--examples", 40, "--report", tmp_path / report,
                           "--quiet", "--write-cases", target)

        assert fuzz("mutant_mean_sentence", "r1") == 1
        before = target.read_text()
        capsys.readouterr()
        _fill(volume, leave=0)  # a case of another cause to append, no room for it
        assert fuzz("mutant_ties_longer", "r2") == 2
        err = capsys.readouterr().err
        assert f"cannot write {target} (No space left on device)" in err and len(err.strip().splitlines()) == 1
        assert target.read_text() == before


# -- an output file never takes the place of anything -----------------------------------------------------------


def test_a_written_file_respects_what_is_at_its_path(tmp_path):
    """`--junit`, `--badge`, `baseline write --out`, `--write-cases` write as a shell redirection would: through a
    symlink (the link stays), into a device (never replaced by a file: `--junit /dev/null` as root once replaced
    the container's /dev/null), keeping an existing file's permissions; a loop of links fails naming the file."""
    from oracle.files import write_atomically
    from oracle.formulas.errors import FileWriteError

    (tmp_path / "real.yaml").write_text("old")
    (tmp_path / "link.yaml").symlink_to("real.yaml")
    write_atomically(tmp_path / "link.yaml", "new")
    assert (tmp_path / "link.yaml").is_symlink() and (tmp_path / "real.yaml").read_text() == "new"
    private = tmp_path / "private.yaml"
    private.write_text("reviewed")
    private.chmod(0o600)
    write_atomically(private, "reviewed again")
    assert stat.S_IMODE(private.stat().st_mode) == 0o600
    (tmp_path / "a").symlink_to("b")
    (tmp_path / "b").symlink_to("a")
    with pytest.raises(FileWriteError, match="a loop of symbolic links"):
        write_atomically(tmp_path / "a", "x")
    assert (tmp_path / "a").is_symlink()
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    got = []
    reader = threading.Thread(target=lambda: got.append(fifo.read_text()))
    reader.start()
    write_atomically(fifo, "through the pipe")
    reader.join(timeout=30)
    assert got == ["through the pipe"] and stat.S_ISFIFO(os.lstat(fifo).st_mode)
    if os.geteuid() == 0:  # a device node: root only
        null = tmp_path / "null"
        os.mknod(null, 0o666 | stat.S_IFCHR, os.makedev(1, 3))
        write_atomically(null, "gone")
        assert stat.S_ISCHR(os.lstat(null).st_mode)


def test_an_output_never_overwrites_what_the_run_reads_or_writes(tmp_path, capsys):
    baseline = tmp_path / "baseline.yaml"
    baseline.write_text("# reviewed\n[]\n")
    report = tmp_path / "report"
    for more, clash in [(("--baseline", baseline, "--badge", baseline), f"--baseline {baseline}"),
                        (("--junit", report / "results.jsonl"), "the report's own results.jsonl"),
                        (("--badge", report / "summary.md"), "the report's own summary.md"),
                        (("--junit", tmp_path / "j.xml", "--badge", tmp_path / "j.xml"), f"--junit {tmp_path}/j.xml"),
                        (("--badge", report / "junit.xml"), f"--junit {report}/junit.xml")]:
        marker = tmp_path / "started"
        assert _check(report, fake("clean") + f" --touch {marker}", *more) == 2
        err = capsys.readouterr().err
        assert f"would overwrite {clash}: name another file" in err and len(err.strip().splitlines()) == 1, err
        assert not marker.exists()  # refused before the implementation started
    assert baseline.read_text() == "# reviewed\n[]\n"
    (tmp_path / "a-directory").mkdir()
    (tmp_path / "a-file").write_text("mine")
    for more, says in [(("--junit", tmp_path / "a-directory"), "a directory is in the way"),
                       (("--badge", tmp_path / "a-file" / "badge.json"),
                        f"{tmp_path}/a-file is a file, not a directory")]:
        assert _check(report, fake("clean") + f" --touch {tmp_path / 'started'}", *more) == 2
        assert says in capsys.readouterr().err
        assert not (tmp_path / "started").exists()  # found before the run, not after it
    shards = [tmp_path / "s1", tmp_path / "s2"]
    for number, shard in enumerate(shards, 1):
        assert _check(shard, fake("clean"), "--shard", f"{number}/2") == 0
    before = (shards[0] / "results.jsonl").read_bytes()
    assert run_cli("merge", *shards, "--report", tmp_path / "all", "--junit", shards[0] / "results.jsonl") == 2
    assert f"would overwrite the input directory {shards[0]}" in capsys.readouterr().err
    assert (shards[0] / "results.jsonl").read_bytes() == before



#: A run whose ^C arrives inside a destructor: Python cannot raise the signal's exception out of one (nor out of a
#: callback inside a C extension, such as pydantic-core building a model, where CI met it) and prints "Exception
#: ignored in ... Traceback" instead. Run in a process of its own: pytest replaces the hook that prints it.
_LOST_SIGNAL = """
import signal, sys
from oracle.signals import Interrupted, raise_if_stopped, stopped_by_signals

class SignalledWhileDestroyed:
    def __del__(self):
        signal.raise_signal(signal.SIGINT)

class Failing:
    def __del__(self):
        raise ValueError("a destructor's own error")

try:
    with stopped_by_signals():
        SignalledWhileDestroyed()  # destroyed at once: the handler's KeyboardInterrupt is unraisable there
        Failing()
        raise_if_stopped()  # the run's next checkpoint
except Interrupted as stopped:
    sys.exit(stopped.exit_code)
"""


def test_a_stop_signal_lost_where_python_cannot_raise_it_prints_no_traceback_and_still_stops():
    run = subprocess.run([sys.executable, "-c", _LOST_SIGNAL], capture_output=True, text=True, timeout=60,
                         env={**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[2])})
    assert run.returncode == 128 + signal.SIGINT, run.stderr
    assert "KeyboardInterrupt" not in run.stderr
    assert "a destructor's own error" in run.stderr  # any other unraisable exception is still reported


def test_publishing_never_replaces_a_file_that_is_not_a_reports(tmp_path):
    """The last guard of --report-force: a report file whose name a user's file has (one `prepare` was not told
    of) is not moved over it; the publication is refused whole, naming the file, and the report left staged."""
    from oracle.formulas.errors import BleuValueError
    from oracle.reports.staging import ReportDirectory

    directory = tmp_path / "mine"
    directory.mkdir()
    (directory / "index.html").write_text("my page\n")
    report = ReportDirectory.prepare(directory, force=True, writes=())
    (report.staging / "index.html").write_text("the report's page\n")
    (report.staging / "results.jsonl").write_text("{}\n")
    with pytest.raises(BleuValueError, match=r"holds index\.html, not a report's.*nothing was replaced") as raised:
        report.publish()
    assert str(report.staging) in str(raised.value)
    assert (directory / "index.html").read_text() == "my page\n" and not (directory / "results.jsonl").exists()
    assert (report.staging / "index.html").read_text() == "the report's page\n"
