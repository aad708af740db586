"""`bleu-oracle score`: files in, the score and its derivation out.

Holds: oracle.cli, oracle.commands.score, oracle.commands.common, oracle.formulas.explain, oracle.signatures
"""

import ast
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from oracle.cli import main

ROOT = Path(__file__).resolve().parents[2]

# MATLAB bleuEvaluationScore, "Evaluate Summary": the summary and its two references.
CANDIDATE = "The fast brown fox jumped over the lazy dog ."
REFERENCES = ["The quick brown animal jumped over the lazy dog .", "The quick brown fox jumped over the lazy dog ."]


@pytest.fixture
def matlab_files(tmp_path):
    hyp = tmp_path / "cand.txt"
    hyp.write_text(CANDIDATE + "\n", encoding="utf-8")
    refs = []
    for i, text in enumerate(REFERENCES):
        path = tmp_path / f"ref{i}.txt"
        path.write_text(text + "\n", encoding="utf-8")
        refs.append(path)
    return hyp, refs


def run(argv, capsys):
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


def ref_args(refs):
    return [x for r in refs for x in ("--ref", r)]


def test_explain_prints_the_tutorial_style_tables_for_the_matlab_example(matlab_files, capsys):
    hyp, refs = matlab_files
    code, out, _ = run(["score", "--hyp", hyp, *ref_args(refs), "--profile", "matlab", "--explain"], capsys)
    assert code == 0
    # Per order the matched/total counts, as the MATLAB page's 0.7825 requires (derived by hand:
    # only "fast" and the n-grams through it miss): 9/10, 7/9, 6/8, 5/7.
    for fraction in ("9/10", "7/9", "6/8", "5/7"):
        assert f"= {fraction}" in out
    assert "Max_Ref_Count" in out and "Count_clip" in out
    assert "fast   | 1     | 0        | 0        | 0             | 0" in out  # "fast" is in no reference
    assert "r = 10" in out and "ties go to the shorter" in out
    assert "0.7825" in out  # the page prints 0.7825


def test_json_output_carries_score_and_statistics(matlab_files, capsys):
    hyp, refs = matlab_files
    code, out, _ = run(["score", "--hyp", hyp, *ref_args(refs), "--json", "--weights", "0.5", "0.5"], capsys)
    payload = json.loads(out)
    assert code == 0
    assert abs(payload["score"] - 0.8367) <= 0.00005  # MATLAB: NgramWeights [0.5 0.5] -> 0.8367
    assert payload["statistics"] == {"hyp_len": 10, "ref_len": 10, "matches": [9, 7], "totals": [10, 9]}


@pytest.mark.parametrize("mode", [[], ["--sentence"]])
def test_score_counts_with_the_kernel_where_it_is_in_use(matlab_files, mode, monkeypatch, capsys):
    """`score` passes the compiled counting (`oracle.counting`) to the formulas where it is in use (a spy in its
    place, counting as the formulas do), corpus and sentence alike: the MATLAB example's 9/10 and 7/9 as above."""
    from oracle import counting

    calls = []

    class Spy:
        @staticmethod
        def clipped_matches(hypothesis, references, max_order):
            calls.append(max_order)
            return counting.literal_clipped_matches(hypothesis, references, max_order)

    monkeypatch.setattr(counting, "_KERNEL", Spy)
    hyp, refs = matlab_files
    code, out, _ = run(["score", "--hyp", hyp, *ref_args(refs), "--json", "--weights", "0.5", "0.5", *mode], capsys)
    assert (code, calls, json.loads(out)["statistics"]["matches"]) == (0, [2], [9, 7])


def test_score_counts_in_python_where_the_kernel_is_out_of_use(matlab_files):
    """BLEU_ORACLE_KERNEL=0 (as where no C compiler built it): the whole command counts with the formulas alone
    and prints the MATLAB example's statistics (derived by hand above: 9/10 unigrams, 7/9 bigrams)."""
    import os

    hyp, refs = matlab_files
    program = ("import sys; from oracle import counting; from oracle.cli import main; "
               "print(counting.KERNEL, file=sys.stderr); sys.exit(main(sys.argv[1:]))")
    done = subprocess.run([sys.executable, "-c", program, "score", "--hyp", str(hyp), *map(str, ref_args(refs)),
                           "--json", "--weights", "0.5", "0.5"], capture_output=True, text=True, cwd=ROOT,
                          env=dict(os.environ, BLEU_ORACLE_KERNEL="0"), timeout=60)
    assert (done.returncode, done.stderr.strip()) == (0, "False")
    assert json.loads(done.stdout)["statistics"] == {"hyp_len": 10, "ref_len": 10, "matches": [9, 7],
                                                     "totals": [10, 9]}


def test_sentence_mode_prints_one_line_per_segment(tmp_path, capsys):
    hyp, ref = tmp_path / "h.txt", tmp_path / "r.txt"
    hyp.write_text("a b c d\nx y\n", encoding="utf-8")
    ref.write_text("a b c d\nx z\n", encoding="utf-8")
    code, out, _ = run(["score", "--hyp", hyp, "--ref", ref, "--sentence", "--json", "--weights", "1"], capsys)
    lines = [json.loads(line) for line in out.splitlines()]
    assert code == 0 and [line["segment"] for line in lines] == [1, 2]
    assert lines[0]["score"] == 1.0 and abs(lines[1]["score"] - 0.5) <= 1e-12  # p1 = 1/2, c = r


def test_files_of_different_lengths_are_an_error_naming_them(tmp_path, capsys):
    hyp, ref = tmp_path / "h.txt", tmp_path / "r.txt"
    hyp.write_text("a\nb\nc\n", encoding="utf-8")
    ref.write_text("a\nb\n", encoding="utf-8")
    code, _, err = run(["score", "--hyp", hyp, "--ref", ref], capsys)
    assert code == 2
    assert "different numbers of lines" in err and f"--hyp {hyp} has 3 lines, --ref {ref} has 2" in err


def test_lines_split_on_newline_only(tmp_path, capsys):
    # U+2028 ends a line for str.splitlines() but not in this format: the hypothesis file has
    # one segment (tokens a and b, since str.split() treats U+2028 as whitespace), like the reference.
    hyp, ref = tmp_path / "h.txt", tmp_path / "r.txt"
    hyp.write_text("a\u2028b\n", encoding="utf-8")
    ref.write_text("a b\n", encoding="utf-8")
    code, out, _ = run(["score", "--hyp", hyp, "--ref", ref, "--json", "--weights", "1"], capsys)
    assert code == 0
    assert json.loads(out)["statistics"] == {"hyp_len": 2, "ref_len": 2, "matches": [2], "totals": [2]}


def test_bad_weights_exit_2_with_the_argument_named(matlab_files, capsys):
    hyp, refs = matlab_files
    code, _, err = run(["score", "--hyp", hyp, *ref_args(refs), "--weights", "0.5", "-0.5"], capsys)
    assert code == 2 and "`weights` must be non-negative" in err


def test_empty_files_and_a_parameter_given_twice_are_named_in_the_users_words(tmp_path, capsys):
    empty = tmp_path / "empty.txt"
    empty.write_text("")
    code, _, err = run(["score", "--hyp", empty, "--ref", empty], capsys)
    assert code == 2 and f"`--hyp {empty}` holds no line: nothing to score" in err  # not the formulas' `hypotheses`
    one = tmp_path / "one.txt"
    one.write_text("a b\n")
    with pytest.raises(SystemExit) as exited:
        main(["score", "--hyp", str(one), "--ref", str(one), "--smoothing", "floor:value=0.1,value=0.9"])
    assert exited.value.code == 2
    assert "'value' is given twice in 'floor:value=0.1,value=0.9'" in capsys.readouterr().err  # the last won before


def test_console_script_runs_as_a_module():
    done = subprocess.run([sys.executable, "-m", "oracle", "--help"], capture_output=True, text=True, cwd=ROOT)
    assert done.returncode == 0 and "score" in done.stdout and "check" in done.stdout


#: Every module of the formulas layer, read off the directory (a new one is held to the rule too).
FORMULA_MODULES = sorted(p.stem for p in (ROOT / "oracle" / "formulas").glob("*.py") if p.stem != "__init__")


@pytest.mark.parametrize("module", FORMULA_MODULES)
def test_formula_modules_import_the_standard_library_only(module):
    tree = ast.parse((ROOT / "oracle" / "formulas" / f"{module}.py").read_text(encoding="utf-8"))
    imported = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            imported |= {alias.name.split(".")[0] for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.level == 0:
            imported.add(node.module.split(".")[0])
        elif isinstance(node, ast.ImportFrom):  # relative: `from . import exact` or `from .errors import ...`
            names = [node.module] if node.module else [alias.name for alias in node.names]
            for name in names:
                assert name in FORMULA_MODULES, f"oracle/formulas/{module}.py imports .{name}, outside the formulas"
    outside = {name for name in imported if name not in sys.stdlib_module_names and name != "__future__"}
    assert not outside, f"oracle/formulas/{module}.py imports {sorted(outside)}"


def test_score_imports_neither_the_harness_nor_yaml_nor_pydantic(tmp_path):
    # start-up: `bleu-oracle score` imports only the verb it runs and the formulas
    (tmp_path / "h.txt").write_text("a b c\n", encoding="utf-8")
    (tmp_path / "r.txt").write_text("a b c\n", encoding="utf-8")
    program = (
        "import sys, contextlib, io\n"
        "from oracle.cli import main\n"
        "with contextlib.redirect_stdout(io.StringIO()):\n"
        f"    code = main(['score', '--hyp', {str(tmp_path / 'h.txt')!r}, '--ref', {str(tmp_path / 'r.txt')!r}])\n"
        "heavy = sorted(m for m in sys.modules if m.split('.')[0] in ('yaml', 'pydantic', 'jinja2', 'torch')\n"
        "               or m.startswith(('oracle.harness', 'oracle.models', 'oracle.suite', 'oracle.reports')))\n"
        "print(code, heavy)\n"
    )
    done = subprocess.run([sys.executable, "-c", program], capture_output=True, text=True, cwd=ROOT, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "0 []"


# -- Faults in the input: one line on stderr, exit 2, never a traceback -------------------------------


@pytest.mark.parametrize("content,name,message", [
    (None, "missing.txt", "missing.txt: cannot read it (No such file or directory)"),
    (b"a \xff b\n", "latin.txt", "latin.txt:1: not UTF-8 text (invalid start byte: byte 3 of the line is 0xff)"),
    ("a b\n".encode("utf-16"), "utf16.txt", "utf16.txt:1: not UTF-8 text"),
    (b"\x1f\x8b\x08\x00\x00", "truncated.txt.gz", "truncated.txt.gz: not a readable gzip file"),
    ("dir", "folder", "folder: a directory, not a file of segments"),
])
def test_unreadable_input_is_a_usage_error_naming_the_file(tmp_path, capsys, content, name, message):
    path = tmp_path / name
    if content == "dir":
        path.mkdir()
    elif content is not None:
        path.write_bytes(content)
    (tmp_path / "ref.txt").write_text("a b\n", encoding="utf-8")
    assert main(["score", "--hyp", str(path), "--ref", str(tmp_path / "ref.txt")]) == 2
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err and err.count("\n") == 1


def test_a_byte_order_mark_is_not_part_of_the_first_token(tmp_path, capsys):
    # hypothesis = reference + a UTF-8 BOM used to score 77.71: the BOM stuck to "a"
    (tmp_path / "hyp.txt").write_bytes("\ufeffa b c d\n".encode("utf-8"))
    (tmp_path / "ref.txt").write_text("a b c d\n", encoding="utf-8")
    assert main(["score", "--hyp", str(tmp_path / "hyp.txt"), "--ref", str(tmp_path / "ref.txt"), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["score"] == 1.0


def test_dash_reads_the_hypotheses_from_standard_input(tmp_path):
    (tmp_path / "ref.txt").write_text("a b c d\n", encoding="utf-8")
    done = subprocess.run([sys.executable, "-m", "oracle", "score", "--hyp", "-", "--ref", str(tmp_path / "ref.txt"),
                           "--json"], input="a b c d\n", capture_output=True, text=True, cwd=ROOT, timeout=60)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["score"] == 1.0


def test_an_internal_error_has_its_own_exit_code_and_one_line(monkeypatch, capsys):
    from oracle.commands import profiles

    def broken(args):
        raise ZeroDivisionError("a bug")

    monkeypatch.setattr(profiles, "run", broken)
    monkeypatch.delenv("BLEU_ORACLE_TRACEBACK", raising=False)
    assert main(["profiles"]) == 4
    err = capsys.readouterr().err
    assert "internal error: ZeroDivisionError: a bug" in err and "BLEU_ORACLE_TRACEBACK=1" in err
    monkeypatch.setenv("BLEU_ORACLE_TRACEBACK", "1")  # the traceback, and still exit 4 (never 1)
    assert main(["profiles"]) == 4
    assert "Traceback (most recent call last)" in capsys.readouterr().err
    monkeypatch.delenv("BLEU_ORACLE_TRACEBACK")
    assert main(["profiles", "-v"]) == 4  # -v shows it too
    assert "Traceback (most recent call last)" in capsys.readouterr().err


@pytest.mark.parametrize("weights", [["1e100000000", "1"], ["1e-100000000", "1"]])
def test_a_huge_exponent_is_refused_at_once(weights, capsys):
    # Fraction("1e100000000") is a hundred-million-digit integer: it hung the exact arithmetic
    assert main(["score", "--hyp", __file__, "--ref", __file__, "--weights", *weights]) == 2
    assert "lies beyond the bounds of a number (0, or a magnitude between 1e-300 and 1e300)" in capsys.readouterr().err


@pytest.mark.parametrize("option,value", [("--timeout", "inf"), ("--rel", "inf"), ("--rel", "2"), ("--abs", "nan")])
def test_session_numbers_must_be_finite_and_sane(option, value, capsys):
    with pytest.raises(SystemExit) as exited:  # argparse's usage error
        main(["check", "--impl", "oracle", option, value])
    assert exited.value.code == 2
    assert f"argument {option}" in capsys.readouterr().err


def test_explain_shows_the_one_segment_asked_for(tmp_path, capsys):
    hyp, ref = tmp_path / "hyp.txt", tmp_path / "ref.txt"
    hyp.write_text("a b c\nd e f\n", encoding="utf-8")
    ref.write_text("a b c\nd e g\n", encoding="utf-8")
    code, out, _ = run(["score", "--hyp", str(hyp), "--ref", str(ref), "--explain", "--segment", "2"], capsys)
    assert code == 0 and "segment 2:" in out and "segment 1:" not in out
    code, _, err = run(["score", "--hyp", str(hyp), "--ref", str(ref), "--explain", "--segment", "3"], capsys)
    assert code == 2 and "the files hold 2 segment(s)" in err
    code, _, err = run(["score", "--hyp", str(hyp), "--ref", str(ref), "--segment", "1"], capsys)
    assert code == 2 and "give --explain too" in err


def test_profiles_print_values_as_a_user_writes_them(capsys):
    code, out, _ = run(["profiles", "sacrebleu"], capsys)
    assert code == 0 and "smoothing = exp\n" in out and "uniform_weights_only = true" in out
    values = [
        line for line in out.splitlines() if line.startswith("  ") and " = " in line and not line.startswith("     ")
    ]
    assert not [line for line in values if "{'" in line or line.endswith(("True", "False", "None"))], values
    code, out, _ = run(["profiles", "papineni"], capsys)
    assert "sentence_empty_order = (unset: empty_order applies)" in out
    assert max(len(line) for line in out.splitlines()) <= 110


def test_the_old_spellings_still_work_and_say_which_replaced_them(tmp_path, capsys):
    """check --only is now --id, report --out is now --report: the old spelling works, says so on stderr,
    and is left out of the help."""
    from oracle.cli import build_parser

    parser = build_parser(only="check")
    args = parser.parse_args(["check", "--impl", "oracle", "--only", "a-*", "--id", "b-*"])
    assert args.only == ["a-*", "b-*"]
    assert "--only is deprecated; use --id" in capsys.readouterr().err
    args = build_parser(only="report").parse_args(["report", "--out", str(tmp_path)])
    assert args.out == str(tmp_path) and "--out is deprecated; use --report" in capsys.readouterr().err
    assert "--only" not in build_parser(only="check")._subparsers._group_actions[0].choices["check"].format_help()


VERBS_AND_ACTIONS = [("check",), ("fuzz",), ("score",), ("profiles",), ("serve",), ("report",), ("protocol",),
                     ("cases",), ("cases", "list"), ("cases", "validate"), ("cases", "export"),
                     ("baseline",), ("baseline", "write"), ("baseline", "update"), ("install",), ("merge",)]


@pytest.mark.parametrize("argv", VERBS_AND_ACTIONS, ids=[" ".join(a) for a in VERBS_AND_ACTIONS])
def test_every_verb_takes_q_and_v_and_its_help_fits_in_100_columns(argv, monkeypatch, capsys):
    monkeypatch.setenv("COLUMNS", "250")  # a wide terminal must not make the help wider
    with pytest.raises(SystemExit) as done:
        main([*argv, "--help"])
    assert done.value.code == 0
    text = capsys.readouterr().out
    too_long = [line for line in text.splitlines() if len(line) > 100]
    assert not too_long, too_long
    options = set(re.findall(r"(?<![\w-])(-[qv]|--quiet|--verbose)\b", text))
    assert options == {"-q", "--quiet", "-v", "--verbose"}, options


def test_help_paragraphs_stay_apart():
    """check's description has paragraphs; each is wrapped on its own, with a blank line between."""
    from oracle.cli import build_parser
    from oracle.commands.check import HELP

    source = [p for p in HELP.split("\n\n") if p.strip() and not p.startswith(" ")]
    text = build_parser(only="check")._subparsers._group_actions[0].choices["check"].format_help()
    for paragraph in source[:3]:
        first_words = " ".join(paragraph.split()[:4])
        assert any(" ".join(block.split()[:4]) == first_words for block in text.split("\n\n")), first_words


def test_q_leaves_out_what_each_verb_says_it_does(tmp_path, capsys):
    """-q is not a dead flag where a verb has something to leave out: score drops its signature line,
    profiles its conventions, cases export its summary."""
    from oracle.formulas.profiles import PROFILES

    (tmp_path / "h.txt").write_text("a b c d\n", encoding="utf-8")
    argv = ["score", "--hyp", tmp_path / "h.txt", "--ref", tmp_path / "h.txt"]
    code, out, _ = run(argv, capsys)
    assert code == 0 and [line.split()[0] for line in out.splitlines()] == ["BLEU", "signature:"]
    code, out, _ = run([*argv, "-q"], capsys)
    assert code == 0 and out.startswith("BLEU = 100.00 ") and len(out.splitlines()) == 1
    code, out, _ = run(["profiles", "-q"], capsys)
    assert code == 0 and out.splitlines() == [f"{p.name}: {p.summary}" for p in PROFILES.values()]
    code, out, _ = run(["profiles"], capsys)
    assert code == 0 and len(out.splitlines()) > 3 * len(PROFILES)
    code, out, _ = run(["cases", "export", "--out", tmp_path / "a", "-q"], capsys)
    assert code == 0 and out == "" and (tmp_path / "a" / "suite.json").is_file()
    code, out, _ = run(["cases", "export", "--out", tmp_path / "b"], capsys)
    assert code == 0 and "vectors (each case under its own profiles)" in out
