"""Build tests/doctor_data/wmt17.json: BLEU numbers printed by real tools run on real WMT17 files.

    .venv/bin/python tests/doctor_data/make.py           # rewrite the fixture
    .venv/bin/python tests/doctor_data/make.py --check   # exit 1 when the fixture is not what the tools print now

Nothing here comes from bleu-oracle: each number is what a tool printed, run as a user runs it, on
WMT17 newstest2017 en-de files (../shared/data/wmt17-en-de, decompressed into a temporary folder under
their own names). Per number the fixture keeps the tool, its version, the exact command or call, the
files, the text printed, the number as printed, and the reading the tool actually used: its tokenizer,
case and the profile documenting it, plus the conventions in which its code departs from that profile
(each stated in `why` from the tool's own code or documentation, never from the oracle's output):

- sacrebleu's CLI with each tokenizer and -lc (`-w 4 -b`: four decimals), and its default JSON with its
  signature; sacrebleu reads UTF-8 without a signature, so a byte-order mark stays on the first token;
- Moses multi-bleu.perl on the raw text and on text tokenized by sacrebleu's 13a tokenizer (which joins
  words with single spaces: a no-break space then separates words, as str.split() says), with and
  without -lc; it reads bytes, so a byte-order mark stays;
- NIST mteval-v13a.pl on SGML made from the lines (XML-escaped), with -c (case kept) and without;
- nltk corpus_bleu on str.split() tokens (its code floors each segment's n-gram total at 1:
  `denominator = max(1, sum(counts.values()))` in modified_precision);
- torchmetrics BLEUScore (its `_tokenize_fn` is `sentence.split()`; closest reference, no smoothing);
- sacrebleu's sentence_bleu averaged with statistics.mean (a common mistake: not corpus BLEU).
"""

from __future__ import annotations

import argparse
import gzip
import hashlib
import json
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
DATA = ROOT.parent / "shared" / "data" / "wmt17-en-de"
SCRIPTS = ROOT.parent / "shared" / "tools" / "moses"
FIXTURE = Path(__file__).resolve().parent / "wmt17.json"
REFERENCE = "newstest2017.reference.en-de.txt.gz"
#: online-B: plain; online-A: a byte-order mark on line 1; PROMT-Rule-based: 23 no-break spaces.
SYSTEMS = ["newstest2017.online-B.0.en-de.txt.gz", "newstest2017.online-A.0.en-de.txt.gz",
           "newstest2017.PROMT-Rule-based.4735.en-de.txt.gz"]
SACREBLEU = str(Path(sys.executable).with_name("sacrebleu"))


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--check", action="store_true", help="compare with the committed fixture instead of writing it")
    args = parser.parse_args(argv)
    fixture = build()
    text = json.dumps(fixture, indent=1, ensure_ascii=False) + "\n"
    if args.check:
        if FIXTURE.read_text(encoding="utf-8") != text:
            print(f"{FIXTURE} is not what the tools print now: run {Path(__file__).name}", file=sys.stderr)
            return 1
        return 0
    FIXTURE.write_text(text, encoding="utf-8")
    print(FIXTURE)
    return 0


def build() -> dict:
    if not DATA.is_dir():
        raise SystemExit(f"{DATA} is absent: the fixture is built from the WMT17 files")
    numbers, signatures = [], []
    with tempfile.TemporaryDirectory(prefix="doctor-data-") as tmp:
        work = Path(tmp)
        ref = _plain(work, REFERENCE)
        for system in SYSTEMS:
            hyp = _plain(work, system)
            bom = _has_bom(hyp) or _has_bom(ref)
            nbsp = "\xa0" in hyp.read_text(encoding="utf-8") + ref.read_text(encoding="utf-8")
            files = {"system": system, "reference": REFERENCE}
            numbers += [dict(files, **entry) for entry in _sacrebleu_cli(work, hyp, ref, bom)]
            signatures += [dict(files, **entry) for entry in _sacrebleu_signatures(work, hyp, ref)]
            numbers += [dict(files, **entry) for entry in _multi_bleu(work, hyp, ref, bom, nbsp)]
            numbers += [dict(files, **entry) for entry in _mteval(work, hyp, ref, bom)]
            numbers += [dict(files, **entry) for entry in _python_tools(hyp, ref, bom)]
    return {
        "about": "BLEU numbers printed by real tools on WMT17 newstest2017 en-de; built by tests/doctor_data/make.py",
        "numbers": numbers,
        "signatures": signatures,
    }


# -- files ------------------------------------------------------------------------------------------------


def _plain(work: Path, name: str) -> Path:
    target = work / name[: -len(".gz")]
    if not target.exists():
        with gzip.open(DATA / name, "rb") as source, open(target, "wb") as out:
            shutil.copyfileobj(source, out)
    return target


def _has_bom(path: Path) -> bool:
    return path.read_bytes()[:3] == b"\xef\xbb\xbf"


def _lines(path: Path) -> list:
    """The lines as Python tools read them here: UTF-8 (a byte-order mark kept), split on "\\n" only."""
    with open(path, encoding="utf-8", newline="\n") as handle:
        return [line[:-1] if line.endswith("\n") else line for line in handle]


def _reading(profile: str, tokenize: str, lowercase: bool, **conventions) -> dict:
    return {"profile": profile, "tokenize": tokenize, "lowercase": lowercase,
            "conventions": {name: str(value) for name, value in conventions.items()}}


def _kept(bom: bool) -> dict:
    """A byte-order mark on line 1 that the tool keeps glued to the first token (it reads plain UTF-8 or bytes)."""
    return {"bom": "kept"} if bom else {}


def _run(command: list, cwd: Path, stdin: Path | None = None) -> str:
    with open(stdin, "rb") if stdin else open(Path("/dev/null"), "rb") as handle:
        done = subprocess.run(command, cwd=cwd, stdin=handle, capture_output=True, timeout=600)
    if done.returncode != 0:
        raise SystemExit(f"{command} exited {done.returncode}: {done.stderr.decode(errors='replace')[-500:]}")
    return done.stdout.decode("utf-8")


# -- sacrebleu's command line ----------------------------------------------------------------------------


def _sacrebleu_version() -> str:
    import sacrebleu

    return sacrebleu.__version__


def _sacrebleu_cli(work: Path, hyp: Path, ref: Path, bom: bool) -> list:
    out = []
    for tokenizer in ("13a", "intl", "char", "none"):
        for lowercase in (False, True):
            arguments = [ref.name, "-i", hyp.name, "-m", "bleu", "-tok", tokenizer, *(["-lc"] if lowercase else []),
                         "-w", "4", "-b"]
            printed = _run([SACREBLEU, *arguments], work).strip()
            out.append(
                {
                    "tool": "sacrebleu",
                    "version": _sacrebleu_version(),
                    "command": " ".join(["sacrebleu", *arguments]),
                    "printed": printed,
                    "number": printed,
                    "reading": _reading("sacrebleu", tokenizer, lowercase, **_kept(bom)),
                    "why": "sacrebleu's defaults (exp smoothing, closest reference); it reads UTF-8 without a "
                    "signature, so a byte-order mark stays on the first token",
                }
            )
    return out


def _sacrebleu_signatures(work: Path, hyp: Path, ref: Path) -> list:
    out = []
    for extra in ([], ["-tok", "intl", "-lc"]):
        arguments = [ref.name, "-i", hyp.name, "-m", "bleu", *extra]
        printed = _run([SACREBLEU, *arguments], work)
        result = json.loads(printed)
        out.append(
            {
                "tool": "sacrebleu",
                "version": _sacrebleu_version(),
                "command": " ".join(["sacrebleu", *arguments]),
                "printed": printed,
                "number": str(result["score"]),
                "signature": result["signature"],
                "reading": _reading("sacrebleu", result["tok"], result["case"] == "lc"),
            }
        )
    return out


# -- the Perl scripts ----------------------------------------------------------------------------------


def _script_version(script: Path) -> str:
    perl = _run(["perl", "-e", "print $^V"], ROOT).strip()
    return f"perl {perl}; {script.name} sha256:{hashlib.sha256(script.read_bytes()).hexdigest()[:12]}"


def _multi_bleu(work: Path, hyp: Path, ref: Path, bom: bool, nbsp: bool) -> list:
    from sacrebleu.tokenizers.tokenizer_13a import Tokenizer13a

    script = SCRIPTS / "multi-bleu.perl"
    tokenizer = Tokenizer13a()
    tokenized = {}
    for path in (hyp, ref):
        tokenized[path] = work / (path.name + ".tok13a")
        tokenized[path].write_text("".join(tokenizer(line) + "\n" for line in _lines(path)), encoding="utf-8")
    out = []
    for raw in (True, False):
        source_hyp, source_ref = (hyp, ref) if raw else (tokenized[hyp], tokenized[ref])
        for lowercase in (False, True):
            command = ["perl", str(script), *(["-lc"] if lowercase else []), source_ref.name]
            printed = _run(command, work, stdin=source_hyp).strip()
            number = printed.split("BLEU = ", 1)[1].split(",", 1)[0]
            shown = " ".join(["perl", "multi-bleu.perl", *command[2:], "<", source_hyp.name])
            if raw:
                reading = _reading("multi-bleu", "none", lowercase, **_kept(bom))
                why = "multi-bleu.perl on the raw text: its own conventions (ASCII split and folding on bytes)"
            else:
                # sacrebleu's 13a joins words with single spaces (' '.join(line.split())): a no-break space is a
                # separator by then, as str.split() has it, not multi-bleu's ASCII rule
                reading = _reading("multi-bleu", "13a", lowercase, **_kept(bom),
                                   **({"token_split": "str-split"} if nbsp else {}))
                why = ("multi-bleu.perl on text tokenized by sacrebleu's Tokenizer13a (python: "
                       "Tokenizer13a()(line) for each line of both files)")
            out.append({"tool": "multi-bleu.perl", "version": _script_version(script), "command": shown,
                        "printed": printed, "number": number, "reading": reading, "why": why})
    return out


def _sgml_escape(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def _mteval(work: Path, hyp: Path, ref: Path, bom: bool) -> list:
    script = SCRIPTS / "mteval-v13a.pl"
    header = 'setid="s" srclang="en"'

    def segments(lines):
        return "".join(f'<seg id="{i + 1}">{_sgml_escape(line)}</seg>\n' for i, line in enumerate(lines))

    hyp_lines, ref_lines = _lines(hyp), _lines(ref)
    (work / "src.sgm").write_text(f'<srcset {header}>\n<doc docid="d">\n{segments(["x"] * len(ref_lines))}</doc>\n'
                                  "</srcset>\n", encoding="utf-8")
    (work / "ref.sgm").write_text(f'<refset {header} trglang="de">\n<doc docid="d" sysid="ref">\n{segments(ref_lines)}'
                                  "</doc>\n</refset>\n", encoding="utf-8")
    (work / "tst.sgm").write_text(f'<tstset {header} trglang="de">\n<doc docid="d" sysid="sys">\n{segments(hyp_lines)}'
                                  "</doc>\n</tstset>\n", encoding="utf-8")
    out = []
    for lowercase in (False, True):
        arguments = ["-r", "ref.sgm", "-s", "src.sgm", "-t", "tst.sgm", "-b", *([] if lowercase else ["-c"])]
        printed = _run(["perl", str(script), *arguments], work)
        line = next(text for text in printed.splitlines() if "BLEU score = " in text)
        number = line.split("BLEU score = ", 1)[1].split()[0]
        out.append({"tool": "mteval-v13a.pl", "version": _script_version(script),
                    "command": " ".join(["perl", "mteval-v13a.pl", *arguments]) + "  (SGML: one <seg> per line, "
                    "XML-escaped)", "printed": line.strip(), "number": number,
                    "reading": _reading("mteval", "13a", lowercase, **_kept(bom)),
                    "why": "mteval-v13a.pl's defaults (13a, NIST smoothing); -c keeps case, without it A-Z are folded"})
    return out


# -- Python libraries ---------------------------------------------------------------------------------


def _python_tools(hyp: Path, ref: Path, bom: bool) -> list:
    import nltk
    import sacrebleu
    import torch
    import torchmetrics
    from nltk.translate.bleu_score import corpus_bleu
    from torchmetrics.text import BLEUScore

    hyps, refs = _lines(hyp), _lines(ref)
    out = []
    score = corpus_bleu([[r.split()] for r in refs], [h.split() for h in hyps])
    out.append(
        {
            "tool": "nltk",
            "version": nltk.__version__,
            "command": "nltk.translate.bleu_score.corpus_bleu([[r.split()] for r in refs], [h.split() for h in hyps])",
            "printed": repr(score),
            "number": repr(score),
            "reading": _reading("nltk", "none", False, **_kept(bom), segment_totals_floor=1),
            "why": "nltk's modified_precision floors each segment's n-gram total at 1: "
            "'denominator = max(1, sum(counts.values()))'",
        }
    )
    torch.set_num_threads(1)
    printed = str(BLEUScore()(hyps, [[r] for r in refs]))
    out.append({"tool": "torchmetrics", "version": f"{torchmetrics.__version__} (torch {torch.__version__})",
                "command": "print(torchmetrics.text.BLEUScore()(hyps, [[r] for r in refs]))",
                "printed": printed, "number": printed[len("tensor("):-1],
                "reading": _reading("papineni", "none", False, **_kept(bom)),
                "why": "torchmetrics BLEUScore: sentence.split() tokens, closest reference, no smoothing (documented "
                       "as Papineni's BLEU)"})
    mean = statistics.mean(sacrebleu.sentence_bleu(h, [r]).score for h, r in zip(hyps, refs, strict=True))
    out.append({"tool": "sacrebleu sentence_bleu, averaged", "version": sacrebleu.__version__,
                "command": "statistics.mean(sacrebleu.sentence_bleu(h, [r]).score for h, r in zip(hyps, refs))",
                "printed": repr(mean), "number": repr(mean),
                "reading": _reading("sacrebleu", "13a", False, **_kept(bom), aggregation="sentence-mean"),
                "why": "a mean of sentence scores, each sentence_bleu (13a, exp smoothing, effective order)"})
    return out


if __name__ == "__main__":
    sys.exit(main())
