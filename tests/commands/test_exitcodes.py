"""The exit codes every verb shares are the ones the README's table documents, number for number.

Holds: oracle.exitcodes, oracle.cli
"""

import re

from oracle import exitcodes

#: The README's words for each code (its "exit code" table), and the constant that must carry the code.
DOCUMENTED = {0: ("conforming", "EXIT_OK"), 1: ("deviations found", "EXIT_DEVIATIONS"),
              2: ("usage, input or configuration error", "EXIT_USAGE"),
              3: ("could not be driven", "EXIT_UNDRIVABLE"), 4: ("an internal error", "EXIT_INTERNAL")}


def test_each_documented_code_is_the_constant_the_verbs_use(repo_root):
    readme = (repo_root / "README.md").read_text(encoding="utf-8")
    table = dict(re.findall(r"^\| (\d) \| (.+?) \|$", readme, flags=re.MULTILINE))
    assert sorted(table) == ["0", "1", "2", "3", "4"]
    for code, (words, constant) in DOCUMENTED.items():
        assert words in table[str(code)]
        assert getattr(exitcodes, constant) == code


def test_an_interrupted_run_exits_128_plus_sigint():
    # SIGINT is signal 2 (signal(7)); a shell reports a process killed by signal n as 128 + n
    assert exitcodes.EXIT_INTERRUPTED == 128 + 2


def test_a_usage_error_is_one_line_naming_the_help_of_its_verb():
    """Exit 2 with one line on stderr, as every other usage error: not argparse's usage block before it."""
    import subprocess
    import sys

    for argv, says in [(["check", "--examples", "x"], "bleu-oracle check: error: argument --examples: "),
                       (["score", "--no-such-option"], "bleu-oracle score: error: "),
                       (["doctor"], "bleu-oracle doctor: error: the following arguments are required"),
                       (["nope"], "bleu-oracle: error: argument VERB: invalid choice: 'nope'")]:
        done = subprocess.run([sys.executable, "-m", "oracle", *argv], capture_output=True, text=True, timeout=120)
        assert done.returncode == 2 and done.stdout == "", argv
        lines = done.stderr.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith(says) and "--help` shows the usage)" in lines[0], done.stderr
