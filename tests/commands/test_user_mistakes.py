"""What a new user types wrong on the README's commands, and what each must end in: exit 2 and one line on stderr
naming the argument, the value and what to do (never a traceback, never a silent acceptance); nothing the user
wrote deleted or overwritten. Each test is one mistake met walking the README (tests/end_to_end/test_user_path.py
walks the path done right).
"""

from __future__ import annotations

from fakes.harness import run_cli


def _one_line(err: str) -> str:
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    return lines[0]


def test_a_misspelt_implementation_name_suggests_the_close_one(tmp_path, capsys):
    """`check --impl nlkt` (two letters swapped) listed 36 names and left the user to find `nltk` among them."""
    for typed, meant in (("nlkt", "nltk"), ("NLTK", "nltk"), ("sacrebleux", "sacrebleu"),
                         ("torchmetric", "torchmetrics")):
        assert run_cli("check", "--impl", typed, "--examples", 1, "--report", tmp_path / typed) == 2
        line = _one_line(capsys.readouterr().err)
        assert f"unknown implementation '{typed}' (did you mean '{meant}'?)" in line, line
        assert not (tmp_path / typed).exists()  # refused before anything was made
    # a name close to nothing is not given a guess
    assert run_cli("check", "--impl", "bleurt", "--examples", 1, "--report", tmp_path / "b") == 2
    assert "did you mean" not in _one_line(capsys.readouterr().err)


def test_a_duplicate_key_in_a_baseline_is_refused_naming_its_line(tmp_path, capsys):
    """A baseline with `profile:` twice, or an entry with two `reason:` keys, was read as its last value, silently:
    the first gave a refusal blaming another profile, the second dropped a reviewed reason."""
    twice = tmp_path / "twice.yaml"
    twice.write_text("implementation: {name: oracle}\nprofile: papineni\nprofile: nltk\nentries: []\n")
    reasons = tmp_path / "reasons.yaml"
    reasons.write_text("entries:\n- id: cause:x\n  outcome: fail\n  reason: reviewed by me\n  reason: TODO\n")
    for baseline, key, line in ((twice, "profile", 3), (reasons, "reason", 5)):
        report = tmp_path / f"report-{key}"
        assert run_cli("check", "--impl", "oracle", "--no-cases", "--examples", 1, "--baseline", baseline,
                       "--report", report) == 2
        said = _one_line(capsys.readouterr().err)
        assert f"{baseline}:{line}: duplicate key `{key}`" in said, said
        assert not report.exists()  # refused before the run


def test_report_force_never_overwrites_a_file_of_the_users(tmp_path, capsys):
    """`--report-force` promises the report's files are put beside the user's, "nothing else in DIR is touched";
    a summary.md of the user's there was replaced by the run's, silently."""
    mine = tmp_path / "notes"
    mine.mkdir()
    (mine / "summary.md").write_text("my summary of last week\n")
    (mine / "todo.txt").write_text("ask about BP\n")
    assert run_cli("check", "--impl", "oracle", "--no-cases", "--examples", 1, "--report", mine,
                   "--report-force") == 2
    said = _one_line(capsys.readouterr().err)
    assert "summary.md" in said and "--report-force" in said and f"--report {mine}" in said, said
    assert (mine / "summary.md").read_text() == "my summary of last week\n"
    assert sorted(p.name for p in mine.iterdir()) == ["summary.md", "todo.txt"]  # refused before the run
    # beside files of other names, --report-force writes the report and leaves them as they were
    (mine / "summary.md").rename(mine / "my-summary.md")
    assert run_cli("check", "--impl", "oracle", "--no-cases", "--examples", 1, "--report", mine, "--report-force",
                   "-q") == 0
    assert (mine / "my-summary.md").read_text() == "my summary of last week\n"
    assert (mine / "todo.txt").read_text() == "ask about BP\n" and (mine / "summary.md").is_file()


def test_a_refused_report_path_is_one_line_with_no_cases_too(tmp_path, capsys):
    """With --no-cases, check printed its note "no cases (--no-cases)" before the report path was checked: a
    refusal was two lines on stderr."""
    in_the_way = tmp_path / "report"
    in_the_way.write_text("a file of mine\n")
    assert run_cli("check", "--impl", "oracle", "--no-cases", "--examples", 1, "--report", in_the_way) == 2
    assert "a file is in the way" in _one_line(capsys.readouterr().err)
    assert in_the_way.read_text() == "a file of mine\n"


def test_a_command_that_prints_and_exits_before_the_handshake_is_shown_with_what_it_printed(tmp_path, capsys,
                                                                                            monkeypatch):
    """`--command "cat FILE"` (or a script printing its usage and exiting at once) was "the process exited before
    the handshake (exit status 0)": what it printed was dropped when the start request found its stdin closed. The
    race is made certain here: the request is sent only once the process has exited."""
    import sys

    from oracle.harness.transport import ImplementationProcess

    send = ImplementationProcess._send

    def send_after_exit(self, obj, line=None):
        if obj.get("cmd") == "start":
            self._proc.wait(timeout=30)
        return send(self, obj, line)

    monkeypatch.setattr(ImplementationProcess, "_send", send_after_exit)
    command = f"{sys.executable} -c 'import sys; sys.stdin.close(); print(\"usage: my_bleu.py HYP REF\")'"
    assert run_cli("check", "--command", command, "--examples", 1, "--report", tmp_path / "r") == 3
    said = capsys.readouterr().err.strip().splitlines()[0]
    assert "could not be driven" in said and "usage: my_bleu.py HYP REF" in said, said


def test_an_interrupted_check_says_so_in_its_next_step(tmp_path):
    """^C in the middle of `check`: the report was whole and the exit code 130, but the last line said "next: run
    this in CI ..." (or, with deviations, to write a baseline from the cut run), as after a finished run."""
    import os
    import signal
    import subprocess
    import sys
    import time

    from fakes.harness import fake

    report = tmp_path / "report"
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    run = subprocess.Popen([sys.executable, "-m", "oracle", "check", "--command", fake("hang_seq2"), "--no-cases",
                            "--examples", "5", "--timeout", "60", "--report", str(report)], env=env,
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.time() + 30
    while time.time() < deadline and not list(report.glob(".bleu-oracle-partial.*/results.jsonl")):
        time.sleep(0.1)
    time.sleep(1.5)  # the first request answered, the second hanging
    run.send_signal(signal.SIGINT)
    out, err = run.communicate(timeout=30)
    assert run.returncode == 130, err
    following = [line for line in out.splitlines() if line.startswith("next:")]
    assert len(following) == 1 and "interrupted" in following[0], out
    assert "run this in CI" not in following[0] and "baseline write" not in following[0], following


def test_baseline_write_from_a_path_that_does_not_exist_says_so(tmp_path, capsys, monkeypatch):
    """`baseline write --from bleu-oracle-reprot` (a typo) said "cannot read bleu-oracle-reprot: no
    bleu-oracle-reprot there", naming the missing path as if it were a file expected inside itself."""
    monkeypatch.chdir(tmp_path)
    assert run_cli("baseline", "write", "--from", "bleu-oracle-reprot", "--out", "baseline.yaml") == 2
    said = _one_line(capsys.readouterr().err)
    assert "`--from bleu-oracle-reprot`: no such file or directory" in said, said
    assert "report directory" in said and not (tmp_path / "baseline.yaml").exists()


def test_a_misspelt_choice_suggests_the_close_one(tmp_path, capsys):
    """`check --impl nltk --profile nlkt`: argparse's "invalid choice" listed the nine profiles without saying which
    was meant (as a misspelt --impl now does)."""
    assert run_cli("check", "--impl", "nltk", "--profile", "nlkt", "--report", tmp_path / "r") == 2
    said = _one_line(capsys.readouterr().err)
    assert "argument --profile: invalid choice: 'nlkt'" in said and "did you mean 'nltk'?" in said, said
    assert run_cli("check", "--impl", "nltk", "--profile", "bleurt", "--report", tmp_path / "r") == 2
    assert "did you mean" not in _one_line(capsys.readouterr().err)


def test_every_verbs_help_states_its_exit_codes_and_gives_an_example(capsys):
    """`score --help`, `profiles`, `protocol`, `baseline` and `report` said nothing of their exit codes, and `check`'s
    list left out 4 (an internal error), which the README's table has; `profiles`, `protocol`, `baseline`, `report`
    had no example to copy."""
    import pytest

    from oracle.cli import main
    from oracle.commands import VERBS

    lacking = {}
    for verb in VERBS:
        with pytest.raises(SystemExit):
            main([verb, "--help"])
        text = " ".join(capsys.readouterr().out.split())  # (wrapped lines joined)
        codes = text[text.find("Exit codes:"):]
        missing = [what for what, present in (
            ("Exit codes:", "Exit codes:" in text), ("exit 2", " 2 " in codes), ("exit 4", " 4 " in codes),
            ("Examples:", "Examples:" in text or "Example:" in text)) if not present]
        if missing:
            lacking[verb] = missing
    assert lacking == {}
    with pytest.raises(SystemExit):  # and `bleu-oracle --help`, the first page a user reads, shows where to start
        main(["--help"])
    top = capsys.readouterr().out
    assert "Examples:" in top and "bleu-oracle check --command" in top and "bleu-oracle doctor --hyp" in top, top


def test_standard_input_closed_is_one_line_never_an_internal_error(tmp_path):
    """`score --hyp - ... <&-` (a CI step, a cron job, with no standard input at all) was "internal error:
    AttributeError: 'NoneType' object has no attribute 'buffer'", exit 4; `serve` likewise, for a closed stdin or
    stdout."""
    import os
    import subprocess
    import sys

    reference = tmp_path / "ref.txt"
    reference.write_text("the cat sat\n")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    for argv, closed in ((["score", "--hyp", "-", "--ref", str(reference)], "<&-"),
                         (["serve", "--impl", "oracle"], "<&-"),
                         (["serve", "--impl", "oracle"], ">&-")):
        done = subprocess.run(["sh", "-c", f'exec "$@" {closed}', "sh", sys.executable, "-m", "oracle", *argv],
                              capture_output=True, text=True, env=env, timeout=120, input=None if "<" in closed
                              else '{"cmd": "start", "protocol": 1}\n')
        assert done.returncode == 2, (argv, closed, done.stderr)
        line = _one_line(done.stderr)
        assert "internal error" not in line and ("standard input" in line or "standard output" in line), line


def test_baseline_write_onto_another_implementations_baseline_is_refused(tmp_path, capsys):
    """`baseline write --from RUN --out baselines/sacrebleu.yaml` from a run of another implementation added that
    run's deviations to sacrebleu's baseline, silently (`check` and `baseline update` refuse such a pairing)."""
    from fakes.harness import fake

    report = tmp_path / "run"
    assert run_cli("check", "--command", fake("mutant_no_clipping"), "--no-cases", "--examples", 5, "--report",
                   report, "-q") == 1
    theirs = tmp_path / "sacrebleu.yaml"
    theirs.write_text("implementation: {name: sacrebleu}\nprofile: sacrebleu\nentries:\n"
                      "- id: cause:13a-line-stripped-first\n  outcome: fail\n  reason: reviewed upstream\n")
    before = theirs.read_text()
    assert run_cli("baseline", "write", "--from", report, "--out", theirs) == 2
    said = _one_line(capsys.readouterr().err)
    assert "implementation 'sacrebleu'" in said and str(theirs) in said, said
    assert theirs.read_text() == before


def test_doctor_says_once_why_an_effect_was_not_measured(tmp_path, capsys):
    """Past four findings of a kind, doctor's effect line read "not measured (not measured: the first 4 findings of
    this kind are (each fix re-scores every file))": the reason repeated its own prefix and ended mid-sentence."""
    from oracle.cli import main

    separators = "\x0b\x0c\x1c\x1d\x1e\x85\u2028"  # seven characters str.splitlines() ends a line at: 7 findings
    hypothesis, reference = tmp_path / "hyp.txt", tmp_path / "ref.txt"
    hypothesis.write_text("".join(f"the cat{s}sat on the mat\n" for s in separators), encoding="utf-8")
    reference.write_text("the cat sat on the mat\n" * len(separators), encoding="utf-8")
    main(["doctor", "--hyp", hypothesis, "--ref", reference, "--fail-on", "never"])
    effects = [line.strip() for line in capsys.readouterr().out.splitlines() if line.strip().startswith("effect:")]
    unmeasured = [line for line in effects if "not measured" in line]
    assert len(effects) == len(separators) and len(unmeasured) == len(separators) - 4, effects
    for line in unmeasured:
        assert line.count("not measured") == 1 and line.count("(") == line.count(")"), line
        assert "only the first 4 findings of each kind are measured" in line, line


def test_doctor_on_files_with_no_line_is_a_usage_error_as_score_says(tmp_path, capsys):
    """`doctor --hyp empty.txt --ref empty.txt` (outputs not written yet) said "Layout: no problem found" and exited
    0. `score` on the same files exits 2: "holds no line". (One empty file beside one with lines stays the lint's
    line-count finding, exit 1: tests/doctor/test_doctor.py,
    test_files_with_nothing_to_score_still_give_a_valid_report.)"""
    from oracle.cli import main

    empty, also_empty = tmp_path / "empty.txt", tmp_path / "also-empty.txt"
    empty.write_text("")
    also_empty.write_text("")
    for more in ([], ["--number", "26.65"], ["--json"]):
        assert main(["doctor", "--hyp", empty, "--ref", empty, "--ref", also_empty, *more]) == 2, more
        captured = capsys.readouterr()
        assert f"`--hyp {empty}` holds no line, nor does any --ref: nothing to diagnose" in _one_line(captured.err)
        assert captured.out == ""


def test_doctor_does_not_promise_nearest_readings_it_has_none_of(tmp_path, capsys):
    """An empty --hyp beside a reference with lines (the lint's line-count finding, exit 1): the number's line ended
    "no documented reading reproduces it. Nearest:" with nothing under it."""
    from oracle.cli import main

    empty, reference = tmp_path / "empty.txt", tmp_path / "ref.txt"
    empty.write_text("")
    reference.write_text("the cat sat\n")
    assert main(["doctor", "--hyp", empty, "--ref", reference, "--number", "26.65"]) == 1
    line = next(line for line in capsys.readouterr().out.splitlines() if line.startswith("Number 26.65"))
    assert line.endswith("no documented reading reproduces it."), line


def test_replay_of_a_report_directory_or_a_missing_file(tmp_path, capsys):
    """`check --replay bleu-oracle-report` (the directory, as `baseline write --from` takes it) and `--replay
    found.jsonl` (a typo) both said "`--replay` is neither a file nor JSON (Expecting value: line 1 column 1 (char
    0))": a JSON parser's complaint about a path. The directory is now read as its results.jsonl; a missing file is
    named as missing."""
    from fakes.harness import fake

    report = tmp_path / "run"
    assert run_cli("check", "--command", fake("mutant_no_clipping"), "--no-cases", "--examples", 5, "--report",
                   report, "-q") == 1
    assert run_cli("check", "--command", fake("mutant_no_clipping"), "--replay", report, "--report",
                   tmp_path / "again", "-q") == 1
    assert (tmp_path / "again" / "results.jsonl").is_file()
    capsys.readouterr()
    assert run_cli("check", "--impl", "oracle", "--replay", tmp_path / "found.jsonl", "--report", tmp_path / "r") == 2
    said = _one_line(capsys.readouterr().err)
    assert f"`--replay {tmp_path / 'found.jsonl'}`: no such file" in said and "Expecting value" not in said, said
    (tmp_path / "empty-dir").mkdir()
    assert run_cli("check", "--impl", "oracle", "--replay", tmp_path / "empty-dir", "--report", tmp_path / "r") == 2
    said = _one_line(capsys.readouterr().err)
    assert "a directory without a results.jsonl" in said, said


def test_an_output_directory_given_as_a_file_or_the_reverse_says_which_is_in_the_way(tmp_path, capsys):
    """`cases export --out notes.txt` (a file) said "cannot write notes.txt/papineni.json (File exists)"; `baseline
    write --out reports/` (a directory) said "cannot read baseline reports (Is a directory)", as if it were read."""
    from oracle.cli import main

    notes = tmp_path / "notes.txt"
    notes.write_text("mine\n")
    assert main(["cases", "export", "--profile", "papineni", "--out", notes]) == 2
    said = _one_line(capsys.readouterr().err)
    assert f"`--out {notes}`: a file is in the way" in said, said
    assert notes.read_text() == "mine\n"
    results = tmp_path / "run"
    from fakes.harness import fake

    assert run_cli("check", "--command", fake("mutant_no_clipping"), "--no-cases", "--examples", 3, "--report",
                   results, "-q") == 1
    folder = tmp_path / "baselines"
    folder.mkdir()
    assert main(["baseline", "write", "--from", results, "--out", folder]) == 2
    said = _one_line(capsys.readouterr().err)
    assert f"`--out {folder}`: a directory is in the way" in said, said


def test_a_bad_weight_names_the_option_and_a_comma_list_is_told_apart(tmp_path, capsys):
    """`score --weights 0.5,0.5` (sacrebleu's and the signature's spelling) said "`weights` must be a finite number
    (got '0.5,0.5')": not the option's name, and not that the weights are separate arguments."""
    from oracle.cli import main

    text = tmp_path / "t.txt"
    text.write_text("the cat sat on the mat\n")
    assert main(["score", "--hyp", text, "--ref", text, "--weights", "0.5,0.5"]) == 2
    said = _one_line(capsys.readouterr().err)
    assert "`--weights 0.5,0.5`" in said and "--weights 0.5 0.5" in said, said
    assert main(["score", "--hyp", text, "--ref", text, "--weights", "0.5", "abc"]) == 2
    said = _one_line(capsys.readouterr().err)
    assert "`--weights 0.5 abc`" in said and "'abc'" in said, said


def test_a_tab_in_a_baseline_is_named_as_a_tab(tmp_path, capsys):
    """A baseline indented with a tab (an editor's default) was "not valid YAML (found character that cannot start
    any token)": PyYAML's words, which never say the character is a tab."""
    tabbed = tmp_path / "tabbed.yaml"
    tabbed.write_text("implementation:\n\tname: oracle\nentries: []\n")
    assert run_cli("check", "--impl", "oracle", "--no-cases", "--examples", 1, "--baseline", tabbed,
                   "--report", tmp_path / "r") == 2
    said = _one_line(capsys.readouterr().err)
    assert f"{tabbed}:2:" in said and "a tab" in said and "spaces" in said, said


def test_a_selection_of_nothing_is_refused_in_one_line(tmp_path, capsys):
    """`check --no-cases --examples 0` printed its note "no cases (--no-cases)", then the refusal: two lines on
    stderr. (The report it leaves, saying why the gate failed, is tests/commands/test_no_accidental_green.py's.)"""
    report = tmp_path / "r"
    assert run_cli("check", "--impl", "oracle", "--no-cases", "--examples", 0, "--report", report) == 2
    said = _one_line(capsys.readouterr().err)
    assert "nothing was judged" in said and "--allow-empty" in said, said


def test_doctor_report_never_overwrites_a_doctor_md_of_the_users(tmp_path, capsys):
    """`doctor --report notes/` promises "other files there are left alone", but replaced a doctor.md the user had
    written there, silently. A previous doctor report there is replaced, as before."""
    from oracle.cli import main

    text = tmp_path / "t.txt"
    text.write_text("the cat sat on the mat\n")
    notes = tmp_path / "notes"
    notes.mkdir()
    (notes / "doctor.md").write_text("what the doctor said last week\n")
    assert main(["doctor", "--hyp", text, "--ref", text, "--report", notes, "-q"]) == 2
    said = _one_line(capsys.readouterr().err)
    assert "doctor.md" in said and f"--report {notes}" in said, said
    assert (notes / "doctor.md").read_text() == "what the doctor said last week\n"
    assert not (notes / "doctor.json").exists()
    fresh = tmp_path / "fresh"
    for _ in range(2):  # written, then its own report replaced
        assert main(["doctor", "--hyp", text, "--ref", text, "--report", fresh, "-q"]) == 0
    assert (fresh / "doctor.md").read_text().startswith("# bleu-oracle doctor")
    from typing import get_args

    from oracle.commands.doctor import REPORT_SCHEMA
    from oracle.doctor.model import SchemaVersion

    assert get_args(SchemaVersion) == (REPORT_SCHEMA,)  # what marks a previous report is what doctor writes


def test_doctor_lists_a_files_findings_once_when_it_is_given_twice(tmp_path, capsys):
    """`doctor --hyp out.txt --ref out.txt` (one file given as both, a sanity check or a slip) listed each of the
    file's findings twice, one per role, with the same text."""
    from oracle.cli import main

    crlf = tmp_path / "crlf.txt"
    crlf.write_bytes(b"the cat sat\r\non the mat\r\n")
    main(["doctor", "--hyp", crlf, "--ref", crlf, "-q"])
    out = capsys.readouterr().out
    assert out.count("CR LF line ends") == 1, out


def test_an_empty_path_is_refused_naming_the_option(tmp_path, capsys, monkeypatch):
    """`check --report "$OUT"` with OUT unset in a CI step: `--report ''` was read as the current directory (refused
    only for holding other files, and with --report-force written into), `--junit ''` silently as the default, and
    `--badge ''` as "a directory is in the way"."""
    import pytest

    from oracle.cli import main

    monkeypatch.chdir(tmp_path)
    for argv in (["check", "--impl", "oracle", "--report", ""], ["check", "--impl", "oracle", "--junit", ""],
                 ["check", "--impl", "oracle", "--badge", " "], ["baseline", "write", "--from", "", "--out", "b.yaml"],
                 ["score", "--hyp", "", "--ref", "r.txt"], ["doctor", "--hyp", "h.txt", "--ref", ""]):
        with pytest.raises(SystemExit) as exited:
            main(argv)
        assert exited.value.code == 2, argv
        said = _one_line(capsys.readouterr().err)
        option = next(a for a, b in zip(argv, argv[1:], strict=False) if not b.strip())
        assert f"argument {option}: is empty" in said, (argv, said)
    assert list(tmp_path.iterdir()) == []


def test_a_command_that_cannot_start_says_what_to_do(tmp_path, capsys):
    """`check --command "my-bleu --serve"` (not on PATH) or a script without its execute bit: "could not start
    ['my-bleu', '--serve']: [Errno 2] No such file or directory: 'my-bleu'", a Python list and errno, nothing on what
    to try."""
    script = tmp_path / "bleu.py"
    script.write_text("print('hello')\n")
    for command, hint in (("my-bleu-not-installed --serve", "PATH"), (str(script), "python3")):
        assert run_cli("check", "--command", command, "--examples", 1, "--report", tmp_path / "r") == 3
        said = capsys.readouterr().err.strip().splitlines()[0]
        assert f"could not start `{command.split()[0]}`" in said and "[Errno" not in said and hint in said, said


# -- The second walk (2026-11-29): someone scoring their own files ------------------------------------------


def _score(capsys, *argv):
    from oracle.cli import main

    code = main(["score", *(str(a) for a in argv)])
    return code, capsys.readouterr().err


def test_bytes_that_are_not_utf8_deep_in_a_file_are_named_at_their_own_line(tmp_path, capsys):
    """A latin-1 "café" on line 15001 of a 20000-line file was reported at "big.txt:14843 ... at offset 4717 of the
    chunk read": the text reader decodes 8 KiB ahead of the line it hands out, so the line was the last one handed
    out plus one, and the offset one into a buffer the user never sees."""
    lines = [f"word{i} and more words here" for i in range(20000)]
    body = "".join(f"{line}\n" for line in lines).encode()
    bad_line = 15001
    before = "".join(f"{line}\n" for line in lines[:bad_line - 1]).encode()
    (tmp_path / "hyp.txt").write_bytes(before + "the caf\xe9 is open\n".encode("latin-1") + body[len(before):])
    (tmp_path / "ref.txt").write_bytes(body + b"one more\n")
    code, err = _score(capsys, "--hyp", tmp_path / "hyp.txt", "--ref", tmp_path / "ref.txt")
    said = _one_line(err)
    # "the caf" is 7 bytes: 0xe9 is the line's 8th byte
    assert code == 2 and f"hyp.txt:{bad_line}: not UTF-8 text" in said and "byte 8 of the line is 0xe9" in said, said
    assert "chunk" not in said, said


def test_files_of_different_lengths_are_named_by_option_and_count_and_a_blank_last_line_is_pointed_at(tmp_path,
                                                                                                        capsys):
    """`score` on files of 3 and 4 lines said "ref.txt ended after 3 line(s) while hyp.txt go on": neither option
    nor the longer file's count, and nothing on the commonest cause, a blank line left at the end of a file (its
    "\\n\\n" is one more, empty, segment)."""
    hyp, ref = tmp_path / "hyp.txt", tmp_path / "ref.txt"
    hyp.write_text("the cat sat\na dog\nhello world\n\n")
    ref.write_text("the cat sat\na dog\nhello there world\n")
    code, err = _score(capsys, "--hyp", hyp, "--ref", ref)
    said = _one_line(err)
    assert code == 2 and f"--hyp {hyp} has 4 lines, --ref {ref} has 3" in said, said
    assert "hyp.txt's line 4, past the end of ref.txt, is empty" in said and "go on" not in said, said
    # a real shortfall is not blamed on blank lines; a second reference is named by its option too
    short = tmp_path / "short.txt"
    short.write_text("the cat sat\na dog\n")
    code, err = _score(capsys, "--hyp", hyp, "--ref", ref, "--ref", short)
    said = _one_line(err)
    assert code == 2 and f"--ref {short} has 2 lines" in said and "empty" not in said, said


def test_a_reference_file_given_twice_is_said_to_be_the_same_file(tmp_path, capsys, monkeypatch):
    """`--ref ref.txt --ref ref.txt` (a copy-paste in a script): `score` printed nrefs:2 in its signature without a
    word, and `doctor` said "ref.txt repeats ref.txt on 3 of 3 lines", located at "ref.txt:1, ref.txt:1", with the
    fix "ref.txt left out", as if two files were meant. The same file under another spelling (./ref.txt) is the same
    file too."""
    from oracle.cli import main

    monkeypatch.chdir(tmp_path)
    (tmp_path / "hyp.txt").write_text("the cat sat on the mat\na dog barked\nhello world\n")
    (tmp_path / "ref.txt").write_text("the cat sat on a mat\nthe dog barked\nhello there world\n")
    code, err = _score(capsys, "--hyp", "hyp.txt", "--ref", "ref.txt", "--ref", "./ref.txt")
    said = _one_line(err)
    assert code == 0 and "warning: --ref ref.txt and --ref ./ref.txt are the same file" in said, said
    main(["doctor", "--hyp", "hyp.txt", "--ref", "ref.txt", "--ref", "ref.txt", "-q"])
    out = capsys.readouterr().out
    assert "ref.txt is given twice (the 1st and 2nd --ref)" in out and "repeats" not in out, out
    assert "ref.txt:1, ref.txt:1" not in out and "the 2nd --ref (ref.txt) left out" in out, out
    # two files that hold the same lines are still two files
    (tmp_path / "copy.txt").write_text((tmp_path / "ref.txt").read_text())
    code, err = _score(capsys, "--hyp", "hyp.txt", "--ref", "ref.txt", "--ref", "copy.txt")
    assert code == 0 and err == "", err
    main(["doctor", "--hyp", "hyp.txt", "--ref", "ref.txt", "--ref", "copy.txt", "-q"])
    assert "copy.txt repeats ref.txt on 3 of 3 lines" in capsys.readouterr().out


# -- The second walk: someone reading a report ----------------------------------------------------------------


def test_the_summarys_smallest_example_says_where_it_diverges_when_the_scores_agree(tmp_path):
    """summary.md's root-cause section said "the implementation answers `0.0`; the oracle says 0.0; under this
    explanation the oracle gives 0.0" for a failing record: the failure was in its statistics (ties going to the
    longer reference: ref_len), which the console's "first divergence at ref_len" line said and the page did not."""
    from fakes.harness import check, fake, results

    assert check(tmp_path / "r", fake("mutant_ties_longer"), examples=30) == 1
    smallest = {r.id: r for r in results(tmp_path / "r").records}
    page = (tmp_path / "r" / "summary.md").read_text().splitlines()
    said = [i for i, line in enumerate(page) if line.startswith("- smallest example")]
    assert said, page
    for at in said:
        record = smallest[page[at].split("`")[1]]
        layer, _order, message = record.divergence
        assert layer == "ref_len"  # the fake's one departure: the score alone would not show it
        said = message.removeprefix("first divergence: ref_len: ")  # (the layer is said once)
        assert said != message and page[at + 1] == f"- first divergence at `ref_len`: `{said}`", page[at:at + 2]


# -- The second walk: a library author's own implementation ---------------------------------------------------


def test_a_misspelt_profile_in_the_handshake_suggests_the_close_one_and_says_where_to_fix_it(tmp_path, capsys):
    """A handshake declaring "Papineni" (capitalised, as in the paper's author) was refused with the nine names and
    "give --profile", as if the user had typed it: neither the close name nor that the handshake is where it is
    wrong. With --no-cases, the note "no cases (--no-cases)" came first: two lines on stderr for one refusal."""
    from fakes.harness import fake

    assert run_cli("check", "--command", fake("clean", "--profile", "Papineni"), "--no-cases", "--examples", 1,
                   "--report", tmp_path / "r") == 2
    said = _one_line(capsys.readouterr().err)
    assert "declares profile 'Papineni' in its handshake" in said and "did you mean 'papineni'?" in said, said
    assert "--profile NAME" in said, said


def test_a_replay_run_is_never_offered_nor_taken_as_the_source_of_a_baseline(tmp_path, capsys):
    """After `check --replay '{...}'` (a summary's reproduce line) found the deviation again, the next step said to
    write a baseline from it; `baseline write` did, listing the input's label `replay-0` among its cases: a baseline
    that no `check` run can match ("STALE baseline entry replay-0") while every real deviation goes unlisted."""
    from fakes.harness import fake

    request = ('{"level":"sentence","segments":[{"hypothesis":["a","b"],"references":[["a","b","c"],["a"]]}],'
               '"weights":[1.0],"smoothing":{"method":"none"},"lowercase":false}')
    # references of 3 and 1 tokens are both 1 from c = 2: papineni's tie goes to the shorter (r = 1), the fake's to 3
    report = tmp_path / "replayed"
    code = run_cli("check", "--command", fake("mutant_ties_longer"), "--replay", request, "--report", report)
    out = capsys.readouterr().out
    following = [line for line in out.splitlines() if line.startswith("next:")]
    assert code == 1 and len(following) == 1, out
    assert "baseline write" not in following[0] and "whole `check` run" in following[0], following
    assert run_cli("baseline", "write", "--from", report, "--out", tmp_path / "b.yaml") == 2
    said = _one_line(capsys.readouterr().err)
    assert f"`--from {report}`" in said and "--replay run" in said, said
    assert not (tmp_path / "b.yaml").exists()


def _outcome_rows(summary_md):
    """summary.md's outcome table: {outcome: {column: count}}."""
    lines = summary_md.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("| outcome |"))
    head = [cell.strip() for cell in lines[start].strip("|").split("|")]
    rows = {}
    for line in lines[start + 2:]:
        if not line.startswith("|"):
            break
        cells = [cell.strip() for cell in line.strip("|").split("|")]
        rows[cells[0]] = {name: int(cell) for name, cell in zip(head[1:], cells[1:], strict=True)}
    return rows


def test_the_summarys_outcome_table_has_a_column_for_every_kind_of_record(tmp_path):
    """The table had columns for cases, examples and metamorphic relations only: a run's 20 series records (and a
    --replay run's replayed input, a stateful plan) were in its total alone, "pass | 69 | 220 | 63 | 372", columns that
    add up to 352."""
    from fakes.harness import check, fake, results

    assert check(tmp_path / "r", fake("clean"), examples=30) == 0
    kinds = {record.kind for record in results(tmp_path / "r").records}
    assert "series" in kinds, kinds  # (what the test is about: a kind the old columns left out)
    rows = _outcome_rows((tmp_path / "r" / "summary.md").read_text())
    for outcome, row in rows.items():
        assert sum(count for column, count in row.items() if column != "total") == row["total"], (outcome, row)
    request = ('{"level":"sentence","segments":[{"hypothesis":["a"],"references":[["a"]]}],"weights":[1.0],'
               '"smoothing":{"method":"none"},"lowercase":false}')
    assert run_cli("check", "--command", fake("clean"), "--replay", request, "--report", tmp_path / "p", "-q") == 0
    rows = _outcome_rows((tmp_path / "p" / "summary.md").read_text())
    assert rows["pass"]["replayed"] == rows["pass"]["total"] == 1, rows


def test_every_explanation_the_summary_names_as_fitting_as_well_has_its_words(tmp_path):
    """Where an input fits several explanations, summary.md gave the run's cause with its words and the others as
    bare names ("These inputs fit `last-reference-only`, `padding-counted-in-references`, ... as well"): a reader
    was left to guess what `padding-counted-on-both-sides` claims about the code."""
    from fakes.harness import fake

    from oracle.diagnose import mechanisms
    from oracle.models.results import parse_cause

    # one reference empty, the other 2 tokens, c = 1: both 1 from c, papineni's tie goes to the shorter (r = 0), the
    # fake's to the longer (r = 2), which the longest reference, the last one alone, and padding all give as well
    request = ('{"level":"sentence","segments":[{"hypothesis":["a"],"references":[[],["a","b"]]}],"weights":[1.0],'
               '"smoothing":{"method":"none"},"lowercase":false}')
    assert run_cli("check", "--command", fake("mutant_ties_longer"), "--replay", request, "--report", tmp_path / "r",
                   "-q") == 1
    page = (tmp_path / "r" / "summary.md").read_text()
    fits = page.split("These inputs fit ", 1)[1].split(" as well", 1)[0]
    names = [part.strip("`") for part in fits.split(", ")]
    assert len(names) >= 2, fits
    for name in names:
        words = mechanisms.describe_parts(parse_cause(name))
        assert words != name and f"- `{name}`: `{words}`" in page, (name, words)


def test_doctor_says_on_its_last_line_which_number_made_it_exit_1(tmp_path, capsys):
    """docs/doctor.md: exit 1 when "a number is not [explained], or a finding is (the last line says which)"; a
    number no reading reproduces exited 1 with the nearest readings as its last lines and no word of the exit (a
    finding did get its "Exit 1: ..." line). And one segment was "1 segments"."""
    from oracle.cli import main

    hyp, ref = tmp_path / "hyp.txt", tmp_path / "ref.txt"
    hyp.write_text("the cat sat on the mat\n")
    ref.write_text("the cat sat on a mat\n")
    # p_n = 5/6, 3/5, 2/4, 1/3, c = r = 6: BLEU-4 = (1/12)^(1/4) = 0.53728 (papineni, tok none), so 53.73 is explained;
    # no reading gives 99.99 (the hypothesis is not the reference)
    assert main(["doctor", "--hyp", hyp, "--ref", ref, "--number", "99.99", "--number", "53.73", "-q"]) == 1
    out = capsys.readouterr().out
    last = out.strip().splitlines()[-1]
    assert last.startswith("Exit 1: ") and "99.99" in last and "53.73" not in last, last
    assert "1 segment\n" in out.splitlines()[0] + "\n" and "1 segments" not in out, out.splitlines()[0]


def test_standard_input_given_for_two_files_is_refused(tmp_path, monkeypatch, capsys):
    """`score --hyp - --ref -` read the hypotheses and the references from one stream, taking turns: "a b c\\nd e f\\n"
    was one segment, "a b c" against "d e f", BLEU 0.00 with exit 0."""
    import io
    import sys

    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(b"a b c\nd e f\n")))
    (tmp_path / "ref.txt").write_text("a b c\n")
    for argv in (["--hyp", "-", "--ref", "-"], ["--hyp", tmp_path / "ref.txt", "--ref", "-", "--ref", "-"]):
        code, err = _score(capsys, *argv)
        said = _one_line(err)
        assert code == 2 and "standard input (-)" in said and "once" in said, said


def test_an_option_a_verb_does_not_take_is_named_with_the_verb_and_a_close_option(tmp_path, capsys, monkeypatch):
    """`check --exmaples 5` or `check --fail-on error` (doctor's option) said "bleu-oracle: error: unrecognized
    arguments: ... (`bleu-oracle --help` shows the usage)": the top-level usage, which lists verbs, not options."""
    import pytest

    from oracle.cli import main

    monkeypatch.chdir(tmp_path)
    for argv, verb, meant in ((["check", "--impl", "oracle", "--exmaples", "5"], "check", "--examples"),
                              (["baseline", "write", "--from", "r", "--out", "b.yaml", "--froce"], "baseline write",
                               "--force"),
                              (["check", "--impl", "oracle", "--fail-on", "error"], "check", None)):
        with pytest.raises(SystemExit) as exited:
            main(argv)
        said = _one_line(capsys.readouterr().err)
        assert exited.value.code == 2 and said.startswith(f"bleu-oracle {verb}: error: unrecognized arguments"), said
        assert f"(`bleu-oracle {verb} --help` shows the usage)" in said, said
        assert (f"did you mean {meant!r}?" in said) if meant else "did you mean" not in said, said
    assert list(tmp_path.iterdir()) == []  # refused before anything ran


def test_a_case_field_put_one_level_off_is_told_where_it_belongs(tmp_path, capsys):
    """docs/cases.md's example has no weights; a user adding `weights: [1]` beside `level` in `input` was told
    "unknown field `input.weights` in `input` (its fields are `level`, `segments`)", and left to find `options` in
    oracle/models/case.py."""
    from oracle.cli import main

    mine = tmp_path / "mine.yaml"
    mine.write_text(
        'document: "https://example.org/my-bleu-notes"\n'
        "cases:\n"
        "  - id: my-half\n"
        "    title: half the unigrams match\n"
        '    source: {document: "https://example.org/my-bleu-notes", section: "2", quote: "half"}\n'
        "    profiles: [papineni]\n"
        "    kind: value\n"
        "    input: {level: sentence, segments: [{hypothesis: [a, b], references: [[a, c]]}], weights: [1]}\n"
        '    expect: {score: "1/2", exact: true}\n')
    assert main(["cases", "validate", "--cases", mine]) == 2
    err = capsys.readouterr().err
    said = next(line for line in err.splitlines() if "input.weights" in line)
    assert "`weights` is a field of `options`" in said, said
    # where it belongs, it is taken: p_1 = 1/2 (a of a, b), c = r = 2, BP = 1, N = 1
    mine.write_text(mine.read_text().replace(", weights: [1]}", "}\n    options: {weights: [1]}"))
    assert main(["cases", "validate", "--cases", mine]) == 0, capsys.readouterr()


def test_a_replay_runs_summary_says_what_it_replayed(tmp_path):
    """summary.md of `check --replay '{...}'` said "seed 0, 0 random examples, cases: none": a run of nothing, for a
    run that judged the replayed input."""
    from fakes.harness import fake

    request = ('{"level":"sentence","segments":[{"hypothesis":["a"],"references":[["a"]]}],"weights":[1.0],'
               '"smoothing":{"method":"none"},"lowercase":false}')
    assert run_cli("check", "--command", fake("clean"), "--replay", request, "--report", tmp_path / "p", "-q") == 0
    page = (tmp_path / "p" / "summary.md").read_text()
    assert "0 random examples" not in page, page
    assert "- replayed (--replay): 1 input" in page and '{"level":"sentence"' in page, page


def test_a_misspelt_name_in_a_handshake_is_given_the_close_one(tmp_path, capsys):
    """A handshake with `"levels": ["corpus", "sentences"]`, `"smoothing": ["none", "expo"]` or a `tokenizer` field
    (for `tokenizers`) could not be driven, each with the full list of what is allowed and no pointer to the one
    meant."""
    import json
    import sys

    from fakes.harness import fake  # noqa: F401 (the fakes' directory on the path)

    base = {"levels": ["corpus", "sentence"], "weights": "any", "max_order": 4, "smoothing": ["none"],
            "statistics": False, "lowercase": False}
    for change, meant in ((("levels", ["corpus", "sentences"]), '"sentence"'),
                          (("smoothing", ["none", "expo"]), '"exp"'),
                          (("tokenizer", ["13a"]), "`tokenizers`")):
        capabilities = {**base, change[0]: change[1]}
        handshake = {"protocol": 1, "implementation": {"name": "mine", "version": "", "language": ""},
                     "profile": "papineni",
                     "capabilities": capabilities}
        script = tmp_path / "bleu.py"
        script.write_text("import sys\nsys.stdin.readline()\n"
                          f"print({json.dumps(json.dumps(handshake))}, flush=True)\nsys.stdin.read()\n")
        assert run_cli("check", "--command", f"{sys.executable} {script}", "--no-cases", "--examples", 1,
                       "--report", tmp_path / "r") == 3
        said = capsys.readouterr().err.strip().splitlines()[-1]
        assert f"did you mean {meant}?" in said, said


def test_doctor_points_a_line_count_at_an_empty_last_line(tmp_path, capsys):
    """`doctor` on a hypothesis file ending in "\\n\\n" said the files have different numbers of lines (4 and 3) and,
    apart, that line 4 is an empty hypothesis line, without saying that the line making the counts differ is that
    empty last line (as `score` now says)."""
    from oracle.cli import main

    hyp, ref = tmp_path / "hyp.txt", tmp_path / "ref.txt"
    hyp.write_text("the cat sat\na dog\nhello world\n\n")
    ref.write_text("the cat sat\na dog\nhello there world\n")
    assert main(["doctor", "--hyp", hyp, "--ref", ref, "-q"]) == 1
    out = capsys.readouterr().out
    assert "hyp.txt's line 4, past the end of ref.txt, is empty" in out, out
    # a file longer by lines with text is not blamed on an empty line
    hyp.write_text("the cat sat\na dog\nhello world\nmore\n")
    assert main(["doctor", "--hyp", hyp, "--ref", ref, "-q"]) == 1
    assert "past the end" not in capsys.readouterr().out


def test_a_number_copied_with_its_decoration_is_told_the_number_to_give(tmp_path, capsys):
    """`doctor --number 44,13` (a decimal comma), `44.13%` or `"BLEU = 44.13"` (copied from sacrebleu's line) were
    "not a number", with nothing on what was."""
    from oracle.cli import main

    hyp = tmp_path / "hyp.txt"
    hyp.write_text("a b c\n")
    for typed in ("44,13", "44.13%", "BLEU = 44.13", "BLEU = 44.13 81.8/50.0/40.0/33.3"):
        code = main(["doctor", "--hyp", hyp, "--ref", hyp, "--number", typed])
        said = _one_line(capsys.readouterr().err)
        assert code == 2 and f"`--number {typed}`: not a number" in said, said
        assert said.endswith("; give the number alone: --number 44.13"), said
    assert main(["doctor", "--hyp", hyp, "--ref", hyp, "--number", "abc"]) == 2  # nothing in it to offer
    assert _one_line(capsys.readouterr().err).endswith("`--number abc`: not a number")


def test_serve_finds_a_module_of_the_current_directory_as_python_m_does(tmp_path, monkeypatch, capsys):
    """PROTOCOL.md: write an adapter, "then run `bleu-oracle serve --impl yourmodule:YourClass`". From the installed
    `bleu-oracle` command (a console script: the current directory is not on sys.path, as it is under `python -m`),
    a yourmodule.py beside the user was "cannot load implementation 'yourmodule:YourClass': No module named
    'yourmodule'", exit 3."""
    import contextlib
    import io
    import json
    import sys

    from oracle.commands import serve

    (tmp_path / "yourmodule_up2.py").write_text(
        "from oracle.adapters.oracle_adapter import OracleImplementation\n"
        "class YourClass(OracleImplementation):\n"
        "    name = 'yours'\n")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(sys, "path", [p for p in sys.path if p not in ("", ".", str(tmp_path))])
    monkeypatch.delitem(sys.modules, "yourmodule_up2", raising=False)
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(b'{"cmd":"start","protocol":1}\n')))
    out = io.StringIO()
    monkeypatch.setattr(serve, "_protocol_stdout", lambda: contextlib.nullcontext(out))
    from oracle.cli import main

    assert main(["serve", "--impl", "yourmodule_up2:YourClass"]) == 0, capsys.readouterr().err
    assert json.loads(out.getvalue().splitlines()[0])["implementation"]["name"] == "yours"


def test_doctor_md_signature_table_keeps_its_three_columns(tmp_path, capsys):
    """doctor.md (`doctor --report DIR`) put each reading's signature in a table cell as `profile:papineni|nrefs:1|
    ...`: a `|` ends a Markdown table cell even inside a code span (GitHub's tables), so each row fell apart into
    nine cells under a three-column header."""
    import re

    from oracle.cli import main

    hyp = tmp_path / "hyp.txt"
    hyp.write_text("the cat sat\n")
    main(["doctor", "--hyp", hyp, "--ref", hyp, "--report", tmp_path / "report", "-q"])
    capsys.readouterr()
    lines = (tmp_path / "report" / "doctor.md").read_text().splitlines()
    start = lines.index("| reading | BLEU | signature |")
    rows = [line for line in lines[start + 2:] if line.startswith("|")]
    assert rows and all(len(re.split(r"(?<!\\)\|", row)) == 5 for row in rows), rows[:2]  # "", 3 cells, ""
    assert "profile:papineni\\|nrefs:1" in rows[0], rows[0]


def test_no_handshake_in_time_says_what_usually_causes_it(tmp_path, capsys):
    """A script that reads all of its input before answering (`sys.stdin.read()`, `readlines()`, `cat | ...`), or
    leaves its handshake in a buffer, was "could not be driven: no handshake within 3 s" with nothing on why: the
    runner sends `start` and waits for its answer before sending anything else."""
    import sys

    script = tmp_path / "reads_all.py"
    script.write_text("import json, sys\ndata = sys.stdin.read()\nprint(json.dumps({'protocol': 1}))\n")
    assert run_cli("check", "--command", f"{sys.executable} {script}", "--no-cases", "--examples", 1, "--timeout", 2,
                   "--report", tmp_path / "r") == 3
    said = capsys.readouterr().err.strip().splitlines()[0]
    assert "no handshake within 2 s" in said and "reads all of its input" in said and "flush" in said, said


def test_merge_says_what_to_do_next_as_check_does(tmp_path, capsys):
    """A sharded CI run's gate is `merge` (examples/ci/sharded-check.yml). Where `check` ends with a "next:" line (write
    a baseline from the deviations; `baseline update` once the implementation improved), `merge` ended on its verdict:
    a failing gate with no word of what to do."""
    import yaml
    from fakes.harness import fake

    shards = [tmp_path / "s1", tmp_path / "s2"]
    for number, shard in enumerate(shards, 1):
        run_cli("check", "--command", fake("mutant_ties_longer"), "--no-cases", "--examples", 20, "--shard",
                f"{number}/2", "--report", shard, "-q")
    assert run_cli("merge", *shards, "--report", tmp_path / "all") == 1
    following = [line for line in capsys.readouterr().out.splitlines() if line.startswith("next:")]
    assert len(following) == 1 and "baseline write --from" in following[0], following
    # a baseline whose deviations no longer occur: merge's next step is the update that makes the gate pass again
    baseline = tmp_path / "b.yaml"
    baseline.write_text(yaml.safe_dump({"entries": [{"id": "cause:reference_length=shortest", "outcome": "fail",
                                                     "reason": "reviewed", "cases": ["mlpack-shortest-reference"]}]}))
    clean = [tmp_path / "c1", tmp_path / "c2"]
    for number, shard in enumerate(clean, 1):
        run_cli("check", "--command", fake("clean"), "--examples", 20, "--shard", f"{number}/2", "--report", shard,
                "-q")
    assert run_cli("merge", *clean, "--report", tmp_path / "gate", "--baseline", baseline) == 1
    following = [line for line in capsys.readouterr().out.splitlines() if line.startswith("next:")]
    assert len(following) == 1, following
    assert f"baseline update --from {tmp_path / 'gate'} --baseline {baseline}" in following[0], following


def test_an_actions_error_names_the_action(tmp_path, capsys):
    """`baseline update --from R --baseline DIR` said "bleu-oracle baseline: error: ...": which of write and update
    refused was left out, where argparse's own refusals say "bleu-oracle baseline update: error"."""
    (tmp_path / "dir").mkdir()
    assert run_cli("baseline", "update", "--from", tmp_path / "missing", "--baseline", tmp_path / "dir") == 2
    assert _one_line(capsys.readouterr().err).startswith("bleu-oracle baseline update: error: ")


def test_doctor_md_says_why_the_exit_is_1_as_the_terminal_does(tmp_path, capsys):
    """`doctor --report DIR` for CI: the terminal's last line says why the exit code is 1; doctor.md, the file a CI
    job keeps, did not say it at all."""
    from oracle.cli import main

    hyp, ref = tmp_path / "hyp.txt", tmp_path / "ref.txt"
    hyp.write_text("the cat sat on the mat\n")
    ref.write_text("the cat sat on a mat\n")
    assert main(["doctor", "--hyp", hyp, "--ref", ref, "--number", "99.99", "--report", tmp_path / "r", "-q"]) == 1
    last = capsys.readouterr().out.strip().splitlines()[-1]
    page = (tmp_path / "r" / "doctor.md").read_text()
    assert last.startswith("Exit 1: ") and page.rstrip().endswith(last), page[-300:]
