"""A new user's path, end to end, as the README tells it and as a user types it (each step a `bleu-oracle`
process, read by what it prints and exits with): check an implementation with one bug, baseline its deviations,
review the reasons, gate green, fix the bug, be told the implementation improved and which command prunes the
baseline, run that command, gate green again; explain two numbers printed by two real tools with `doctor`, and
gate CI on the layout of one's files; read the report site's first screen in a browser.
The vectors' path (export, then a node consumer) is held by tests/end_to_end/test_packs.py, which builds the npm pack.

Expected values come from the real tools (sacrebleu and nltk, installed in this environment), never from the
oracle; the implementation is tests/fakes' planted-bug library under a name of the user's.
Holds: oracle.cli
"""

from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[2]
FAKES = ROOT / "tests" / "fakes"
NAME = "mybleu"
#: A guard against a hung step, not a timing assertion.
STEP_TIMEOUT = 600

pytestmark = pytest.mark.slow


def bleu_oracle(*argv: object, cwd: Path) -> subprocess.CompletedProcess[str]:
    """One `bleu-oracle ...` command as a user runs it (this Python's, from the checkout)."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run([sys.executable, "-m", "oracle", *map(str, argv)], capture_output=True, text=True,
                          cwd=cwd, env=env, timeout=STEP_TIMEOUT, check=False)


def implementation(fake: str) -> str:
    return shlex.join([sys.executable, str(FAKES / f"{fake}.py"), "--name", NAME])


def test_check_baseline_fix_update_and_gate_green(tmp_path):
    buggy, fixed = implementation("mutant_no_clipping"), implementation("clean")
    # 1. check: the bug is caught and named (section 2.1's clipping left out)
    first = bleu_oracle("check", "--command", buggy, "--examples", 20, "--report", "first", cwd=tmp_path)
    assert first.returncode == 1, first.stdout + first.stderr
    assert "unclipped-matches" in first.stdout
    assert "next:" in first.stdout and "baseline write" in first.stdout
    # 2. baseline write, then the user reviews every reason
    wrote = bleu_oracle("baseline", "write", "--from", "first", "--out", "baseline.yaml", cwd=tmp_path)
    assert wrote.returncode == 0, wrote.stderr
    baseline = tmp_path / "baseline.yaml"
    text = baseline.read_text()
    assert "TODO" in text
    entries = yaml.safe_load(text)["entries"]
    assert len(entries) == 1, entries  # one bug, one reason to write (its documented cases listed under it)
    baseline.write_text(text.replace("TODO", "clipping is missing, tracked upstream as issue 1"))
    # 3. the gate holds on the buggy implementation
    gated = bleu_oracle("check", "--command", buggy, "--examples", 20, "--baseline", "baseline.yaml",
                        "--report", "gated", cwd=tmp_path)
    assert gated.returncode == 0, gated.stdout + gated.stderr
    # 4. the bug fixed: the gate fails, saying why in words, and names the command that prunes the baseline
    improved = bleu_oracle("check", "--command", fixed, "--examples", 20, "--baseline", "baseline.yaml",
                           "--report", "improved", cwd=tmp_path)
    assert improved.returncode == 1, improved.stdout + improved.stderr
    assert "the implementation improved" in improved.stdout
    hint = re.search(r"`(bleu-oracle baseline update [^`]+)`", improved.stdout)
    assert hint is not None, improved.stdout
    # 5. the user runs the hint as printed
    updated = bleu_oracle(*shlex.split(hint.group(1))[1:], cwd=tmp_path)
    assert updated.returncode == 0, updated.stderr
    assert "removed cause:unclipped-matches" in updated.stdout
    assert "clipping is missing" in updated.stdout  # the reason it had is shown as it goes
    # 6. green on the fixed implementation
    green = bleu_oracle("check", "--command", fixed, "--examples", 20, "--baseline", "baseline.yaml",
                        "--report", "green", cwd=tmp_path)
    assert green.returncode == 0, green.stdout + green.stderr
    assert "conforming" in green.stdout


#: A tiny corpus, three segments: no brevity penalty question left open, every order matched somewhere.
HYPOTHESES = ["the cat sat on the mat .", "a quick brown fox jumps over the dog .", "it is raining in Paris today ."]
REFERENCES = ["the cat sat on the mat .", "the quick brown fox jumped over the lazy dog .",
              "it rains in Paris today ."]


def test_doctor_explains_two_real_tools_numbers_and_gates_on_the_files(tmp_path):
    sacrebleu = pytest.importorskip("sacrebleu")
    bleu_score = pytest.importorskip("nltk.translate.bleu_score")
    (tmp_path / "hyp.txt").write_text("\n".join(HYPOTHESES) + "\n")
    (tmp_path / "ref.txt").write_text("\n".join(REFERENCES) + "\n")
    # the numbers as the tools print them: sacrebleu's default (13a, mixed case, 0-100, two decimals) and nltk's
    # corpus_bleu on str.split() tokens (no smoothing)
    printed_sacrebleu = f"{sacrebleu.corpus_bleu(HYPOTHESES, [REFERENCES]).score:.2f}"
    printed_nltk = repr(bleu_score.corpus_bleu([[r.split()] for r in REFERENCES], [h.split() for h in HYPOTHESES]))
    done = bleu_oracle("doctor", "--hyp", "hyp.txt", "--ref", "ref.txt", "--number", printed_sacrebleu,
                       "--number", printed_nltk, "-q", cwd=tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr  # both numbers explained, the files clean
    assert printed_sacrebleu in done.stdout and printed_nltk[:8] in done.stdout
    assert "sacrebleu" in done.stdout and "nltk" in done.stdout
    # a reference file one line short: an error-level finding, so CI gating on the files fails (exit 1)
    (tmp_path / "short.txt").write_text("\n".join(REFERENCES[:2]) + "\n")
    lint = bleu_oracle("doctor", "--hyp", "hyp.txt", "--ref", "short.txt", "-q", cwd=tmp_path)
    assert lint.returncode == 1, lint.stdout + lint.stderr
    assert "short.txt" in lint.stdout


@pytest.mark.skipif(shutil.which("chromium") is None,
                    reason="Debian's chromium is not installed (apt-get install -y chromium; .ci/run installs it)")
def test_the_site_says_what_it_is_on_its_first_screen(tmp_path):
    """The committed site's index, laid out by headless Chromium: its first sentence and the legend of its counts
    come before the table a reader would otherwise have to decode."""
    flags = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
             "--disable-background-networking", "--disable-component-update", "--disable-sync",
             f"--user-data-dir={tmp_path / 'profile'}", "--window-size=1400,1000", "--dump-dom"]
    page = ROOT / "reports" / "index.html"
    done = subprocess.run(["chromium", *flags, page.as_uri()], capture_output=True, text=True, timeout=120,
                          check=False)
    assert done.returncode == 0, done.stderr[-2000:]
    body = done.stdout[done.stdout.index("<body"):]
    body = re.sub(r"<(style|script)\b.*?</\1>", " ", body, flags=re.S)
    text = re.sub(r"<[^>]+>", " ", body)
    text = re.sub(r"\s+", " ", text)
    opening = text[:3000]
    assert re.search(r"bleu-oracle [0-9.]+ checked \d+ BLEU implementations", opening), opening[:600]
    for word in ("agree", "curated", "new", "refused", "unsupported"):
        assert word in opening
    assert re.search(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]", done.stdout) is None
