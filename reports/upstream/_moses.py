"""The Moses scripts for the Perl reproductions: found through BLEU_ORACLE_MULTI_BLEU / BLEU_ORACLE_MTEVAL (as
bleu-oracle's adapters find them), else in the shared tools beside the checkout, else (multi-bleu-detok.perl)
where `bleu-oracle install multi-bleu-detok` put it; run with perl."""

import os
import re
import shutil
import subprocess
import tempfile
from pathlib import Path

SHARED = Path(__file__).resolve().parents[3] / "shared" / "tools" / "moses"


def installed(name):
    """Where `bleu-oracle install` keeps a script it takes from a registry package (OpenNMT-tf 1.25.3's sdist)."""
    base = os.environ.get("BLEU_ORACLE_IMPLEMENTATIONS") or Path(
        os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "bleu-oracle" / "implementations"
    return Path(base) / "scripts" / f"{Path(name).stem}-1.25.3" / name


def script(variable, name):
    """The script's path, or None when it is not here."""
    explicit = os.environ.get(variable)
    candidates = [Path(explicit)] if explicit else [SHARED / name, installed(name)]
    return next((path for path in candidates if path.is_file()), None)


def unavailable(variable, name, module=None):
    """Why the reproduction cannot run here, or None."""
    if shutil.which("perl") is None:
        return "needs perl"
    if script(variable, name) is None:
        return f"needs {name} (set {variable}, the shared tools beside the checkout, or bleu-oracle install)"
    if module and subprocess.run(["perl", f"-M{module}", "-e", "1"], capture_output=True).returncode != 0:
        return f"needs the Perl module {module}"
    return None


def run(variable, name, arguments, *, stdin=None, cwd=None):
    """The script's standard output; a run that dies raises RuntimeError with its last line (the script's path
    shortened to its name, so the message reads the same everywhere)."""
    path = script(variable, name)
    done = subprocess.run(["perl", str(path), *arguments], input=stdin, capture_output=True, text=True, cwd=cwd,
                          timeout=120)
    if done.returncode != 0:
        last = (done.stderr.strip().splitlines() or [""])[-1].replace(str(path), name).strip()
        raise RuntimeError(f"exit {done.returncode}: {last}")
    return done.stdout


def multi_bleu(variable, name, reference, hypothesis, options=()):
    """BLEU / 100 as multi-bleu.perl or multi-bleu-detok.perl prints it for one reference file's text (the
    hypothesis text on standard input)."""
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "ref.txt"
        path.write_text(reference, encoding="utf-8")
        out = run(variable, name, [*options, str(path)], stdin=hypothesis)
    return float(re.search(r"BLEU = ([0-9.]+)", out).group(1)) / 100
