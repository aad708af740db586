"""The literal tokenizers: hand-derived from the scripts' regular expressions, then held to sacrebleu
(an independent implementation) on real text and on random text, and the score command's
--tokenize and signature.

Holds: oracle.formulas.tokenizers, oracle.formulas.unicode_ranges, oracle.signatures
"""

from __future__ import annotations

import gzip
import json
import sys
import unicodedata
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from oracle.formulas.errors import BleuValueError
from oracle.formulas.profiles import PROFILES
from oracle.formulas.tokenizers import TOKENIZERS, UNICODE_VERSION, fold_case, tokenize

WMT17 = Path(__file__).resolve().parents[3] / "shared" / "data" / "wmt17-en-de"


# -- by hand, from mteval-v13a.pl's `sub tokenization` ----------------------------------------------


@pytest.mark.parametrize("line, tokens", [
    # s/([\{-\~\[-\` -\&\(-\+\:-\@\/])/ $1 /g: ! " # $ % & ( ) * + : ; < = > ? @ / [ \ ] ^ _ ` { | } ~
    ("Hello, world!", ("Hello", ",", "world", "!")),
    ("(a)/b", ("(", "a", ")", "/", "b")),
    # period and comma split unless a digit is on that side; a dash after a digit is split
    ("3.14 and 1,000", ("3.14", "and", "1,000")),
    ("end. 1-2 a-b", ("end", ".", "1", "-", "2", "a-b")),
    # preceded by a non-digit: s/([^0-9])([\.,])/$1 $2 /g puts a space on both sides of the period
    ("x.5", ("x", ".", "5")),
    # the SGML entities are unescaped first, and "<skipped>" removed
    ("&quot;hi&quot; &amp; &lt;b&gt; <skipped>", ('"', "hi", '"', "&", "<", "b", ">")),
    ("can't", ("can't",)),  # the apostrophe (0x27) is not in the classes
    ("  a \t b  ", ("a", "b")),
])
def test_13a_by_hand(line, tokens):
    assert tokenize(line, "13a") == tokens


@pytest.mark.parametrize("line, tokens", [
    ("a,b", ("a", ",", "b")),
    ("1,000.5 kg", ("1,000.5", "kg")),  # punctuation between digits stays
    ("€5 + 3", ("€", "5", "+", "3")),  # symbols (\p{S}) are split off
    # sacrebleu's documentation: "a number (e.g., a year) followed by a dot at the end of sentence is NOT tokenized"
    ("in 2017.", ("in", "2017.")),
    ("«Ja»", ("«", "Ja", "»")),
])
def test_intl_by_hand(line, tokens):
    assert tokenize(line, "intl") == tokens


def test_char_and_none_by_hand():
    assert tokenize("ab c\u3000d", "char") == ("a", "b", "c", "d")
    assert tokenize("a  b\tc", "none") == ("a", "b", "c")
    with pytest.raises(BleuValueError, match="tokenizer"):
        tokenize("a", "14a")


def test_profiles_state_their_tokenizer():
    assert {name: p.options.tokenizer for name, p in PROFILES.items()} == {
        "papineni": "none", "nltk": "none", "sacrebleu": "13a", "mteval": "13a", "multi-bleu": "none",
        "multi-bleu-detok": "13a", "matlab": "none", "mlpack": "none", "tensorflow-nmt": "none"}
    assert "13a" in PROFILES["sacrebleu"].citation("tokenizer")
    assert set(TOKENIZERS) == {"none", "13a", "intl", "char"}


# -- against sacrebleu ----------------------------------------------------------------------------------


def _sacrebleu_tokenizers():
    pytest.importorskip("sacrebleu")
    from sacrebleu.tokenizers.tokenizer_13a import Tokenizer13a
    from sacrebleu.tokenizers.tokenizer_char import TokenizerChar
    from sacrebleu.tokenizers.tokenizer_intl import TokenizerV14International

    return {"13a": Tokenizer13a(), "intl": TokenizerV14International(), "char": TokenizerChar()}


def _same_classes_in_both_unicode_versions(text):
    """True when `regex` (sacrebleu's) and `unicodedata` agree on every character's P/S/N class."""
    import regex

    return all(bool(regex.match(rf"\p{{{c}}}", ch)) == unicodedata.category(ch).startswith(c)
               for ch in text for c in "PSN")


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=st.characters(blacklist_categories=("Cs",)), max_size=40))
def test_random_text_tokenizes_as_sacrebleu_does(line):
    theirs = _sacrebleu_tokenizers()
    for name, tokenizer in theirs.items():
        if name == "intl" and not _same_classes_in_both_unicode_versions(line):
            continue  # a character assigned after this Python's Unicode: see the next test
        assert tokenize(line, name) == tuple(tokenizer(line).split()), name


def test_the_unicode_versions_differ_only_on_characters_unassigned_here():
    regex = pytest.importorskip("regex")
    # one scan of a string of every code point a class (a regex call per code point took 14 s)
    every_code_point = "".join(map(chr, range(sys.maxunicode + 1)))
    differ = []
    for c in "PSN":
        theirs = {match.start() for match in regex.finditer(rf"\p{{{c}}}", every_code_point)}
        differ += [code for code in range(sys.maxunicode + 1)
                   if (code in theirs) != unicodedata.category(chr(code)).startswith(c)]
    # Python's unicodedata (Unicode UNICODE_VERSION) against the newer tables of the regex module: every
    # character intl classifies differently is one this Python does not know yet (category Cn)
    assert all(unicodedata.category(chr(code)) == "Cn" for code in differ), UNICODE_VERSION
    print(f"{len(differ)} code points classified differently (unassigned in Unicode {UNICODE_VERSION})")


def _wmt17_lines():
    if not WMT17.is_dir():
        pytest.skip(f"the WMT17 data is not available ({WMT17} is absent)")
    # "utf-8-sig": the text `score` reads. online-A's file starts with a byte-order mark, which `score`
    # drops (a BOM is not part of the first token) and sacrebleu, given the raw line, keeps: its first
    # token is then "\ufeff28", its unigram matches one fewer, and its BLEU 20.7965 for 20.7967.
    return {path.name: gzip.open(path, "rt", encoding="utf-8-sig").read().split("\n")
            for path in sorted(WMT17.glob("*.txt.gz"))}


@pytest.mark.slow
@pytest.mark.heavy  # every line of every WMT17 file: 6 s of CPU (CI runs it; the README command stays under 10 min)
def test_every_wmt17_line_tokenizes_as_sacrebleu_does():
    theirs = _sacrebleu_tokenizers()
    lines = [line for text in _wmt17_lines().values() for line in text]
    assert len(lines) > 50_000
    for name, tokenizer in theirs.items():
        differ = [line for line in lines if tokenize(line, name) != tuple(tokenizer(line).split())]
        assert not differ, (name, len(differ), differ[:3])


@pytest.mark.slow
@pytest.mark.heavy  # sacrebleu and the oracle on 16 systems x 3 tokenizers: minutes (CI runs it)
def test_score_on_wmt17_equals_sacrebleu_for_every_system_and_tokenizer(tmp_path):
    sacrebleu = pytest.importorskip("sacrebleu")
    files = _wmt17_lines()
    reference_name = next(n for n in files if ".reference." in n)
    reference = files[reference_name]
    systems = [n for n in files if n != reference_name]
    assert len(systems) == 16
    ref_path = WMT17 / reference_name
    agreed = 0
    for name in systems:
        for tokenizer in ("13a", "intl", "char"):
            ours = _score_json(["--hyp", str(WMT17 / name), "--ref", str(ref_path), "--profile", "sacrebleu",
                                "--tokenize", tokenizer])
            theirs = sacrebleu.corpus_bleu(files[name], [reference], tokenize=tokenizer).score
            assert ours["score_100"] == pytest.approx(theirs, rel=1e-12, abs=1e-12), (name, tokenizer)
            assert f"tok:{tokenizer}" in ours["signature"]
            agreed += 1
    assert agreed == 48


def _score_json(argv):
    import subprocess

    done = subprocess.run([sys.executable, "-m", "oracle", "score", *argv, "--json"], capture_output=True, text=True,
                          timeout=300)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


# -- the score command ----------------------------------------------------------------------------------


def test_score_tokenizes_raw_text_by_the_profile_and_prints_a_signature(tmp_path):
    hyp, ref = tmp_path / "hyp.txt", tmp_path / "ref.txt"
    hyp.write_text("The cat, sat.\n", encoding="utf-8")
    ref.write_text("The cat sat.\n", encoding="utf-8")
    # 13a: hypothesis The cat , sat . (5 tokens), reference The cat sat . (4): unigrams 4/5
    result = _score_json(["--hyp", str(hyp), "--ref", str(ref), "--profile", "sacrebleu"])
    assert result["statistics"]["hyp_len"] == 5 and result["statistics"]["ref_len"] == 4
    assert result["statistics"]["matches"][0] == 4
    assert result["signature"].startswith("profile:sacrebleu|nrefs:1|case:mixed|tok:13a|smooth:exp|")
    assert result["score_100"] == pytest.approx(result["score"] * 100)
    # no tokenizer: "cat," and "sat." are tokens of their own, 3 hypothesis tokens
    plain = _score_json(["--hyp", str(hyp), "--ref", str(ref), "--profile", "sacrebleu", "--tokenize", "none"])
    assert plain["statistics"]["hyp_len"] == 3 and "tok:none" in plain["signature"]
    import subprocess

    text = subprocess.run([sys.executable, "-m", "oracle", "score", "--hyp", str(hyp), "--ref", str(ref),
                           "--profile", "sacrebleu"], capture_output=True, text=True, timeout=60).stdout
    assert "signature: profile:sacrebleu|nrefs:1|case:mixed|tok:13a" in text and "0-100 scale" in text


@pytest.mark.slow
@pytest.mark.heavy  # the real Perl script on WMT17 text: 20 s (CI runs it)
def test_the_mteval_profile_equals_the_real_mteval_script_on_wmt17_text():
    """The unmodified mteval-v13a.pl (../shared/tools/moses) tokenizes and scores raw text itself; the oracle
    under the mteval profile tokenizes the same text literally. The script prints 4 decimals."""
    script = WMT17.parents[1] / "tools" / "moses" / "mteval-v13a.pl"
    if not script.is_file():
        pytest.skip(f"the reference script is not available ({script} is absent)")
    import os
    import shutil
    import subprocess

    if shutil.which("perl") is None or subprocess.run(["perl", "-MXML::Twig", "-e", "1"]).returncode != 0:
        pytest.skip("perl with XML::Twig is not installed (Debian: libxml-twig-perl)")
    os.environ.setdefault("BLEU_ORACLE_MTEVAL", str(script))
    from oracle.adapters.perl_adapter import MtevalImplementation
    from oracle.diagnose.expect import oracle_expected
    from oracle.models.protocol import ScoreRequest, Segment

    files = _wmt17_lines()
    reference = next(text for name, text in files.items() if ".reference." in name)[:-1]
    systems = sorted(name for name in files if ".reference." not in name)[:2]
    script_impl = MtevalImplementation()
    for name in systems:
        segments = [Segment(hypothesis=h, references=[r]) for h, r in zip(files[name][:-1], reference, strict=True)]
        request = ScoreRequest(level="corpus", segments=segments, weights=[0.25] * 4, smoothing="exp",
                               lowercase=False, tokenize="13a")
        printed = script_impl.score(request).score
        assert abs(printed - oracle_expected(request, "mteval").score) <= 0.00005, name


# -- which characters separate words, and how case is folded ------------------------------------


@pytest.mark.parametrize("split, words", [
    # str.split(): no-break space, U+001C and the ideographic space all separate
    ("str-split", ("a", "b", "c", "d", "e")),
    # Unicode White_Space (Perl's \s on characters): U+001C is not in it
    ("white-space", ("a", "b\x1cc", "d", "e")),
    # ASCII whitespace (Perl's split on bytes, C's isspace): only the tab and the space separate
    ("ascii", ("a\xa0b\x1cc", "d\u3000e")),
])
def test_each_split_rule_by_hand(split, words):
    line = "a\xa0b\x1cc\td\u3000e"
    assert tokenize(line, "none", split=split) == words
    assert tokenize(line.replace("\t", " "), "13a", split=split) == words


def test_an_unknown_split_rule_is_refused_by_name():
    with pytest.raises(BleuValueError, match="token_split"):
        tokenize("a b", "none", split="perl")


def test_ascii_case_folding_keeps_non_ascii_letters():
    """'ÉTÉ A B C' against 'été a b c', lowercased, unigrams only: Unicode folding matches all 4 tokens
    (BLEU-1 = 1); A-Z folding leaves 'ÉTÉ' as it is, 3 of 4 match (BLEU-1 = 3/4, c = r: no penalty)."""
    import oracle

    hypothesis, reference = "ÉTÉ A B C".split(), "été a b c".split()
    unicode = oracle.score([hypothesis], [[reference]], weights=[1], lowercase=True, profile="papineni")
    ascii_only = oracle.score([hypothesis], [[reference]], weights=[1], lowercase=True, profile="papineni",
                              case_fold="ascii")
    assert float(unicode.score) == 1.0 and abs(float(ascii_only.score) - 0.75) <= 1e-15


@pytest.mark.parametrize("line, tokenizer, fold, tokens", [
    # 13a unescapes &quot; case-sensitively: the line folded first, "&QUOT;" is a quote; kept, its punctuation is
    # split off (& and ; are in 13a's first class) and QUOT is a word
    ("&QUOT;", "13a", "unicode", ('"',)),
    ("&QUOT;", "13a", None, ("&", "QUOT", ";")),
    # 'İ'.lower() is i and U+0307 (Unicode's SpecialCasing), two characters: two char tokens
    ("İ", "char", "unicode", ("i", "\u0307")),
    ("İ", "char", None, ("İ",)),
    # a capital sigma at a word's end folds to the final form ς, by its neighbours: in "ΑΣ" it is ς
    ("ΑΣ", "char", "unicode", ("α", "ς")),
    # full case folding: ß is ss, two characters
    ("ß", "char", "casefold", ("s", "s")),
    # A-Z only: É kept
    ("ÉA", "char", "ascii", ("É", "a")),
])
def test_a_line_folded_before_the_tokenizer(line, tokenizer, fold, tokens):
    assert tokenize(line, tokenizer, fold=fold) == tokens


def test_a_final_sigma_folds_otherwise_as_a_token_alone():
    """The char token Σ has no neighbours: folded after tokenizing it is σ, not the ς the line's fold gives."""
    assert [fold_case(token) for token in tokenize("ΑΣ", "char")] == ["α", "σ"]


def test_an_unknown_case_fold_rule_is_refused_by_name():
    with pytest.raises(BleuValueError, match="case_fold"):
        fold_case("A", "turkish")


def test_the_sacrebleu_profile_folds_the_line_before_the_tokenizer_as_sacrebleu_does():
    """sacrebleu's BLEU._preprocess_segment lowercases the line, then tokenizes it. Hypothesis "İ" against
    reference "i\u0307" (i and a combining dot), char tokenizer, lowercase: the hypothesis's line folds to
    the same two characters, so c = r = 2, unigrams 2 of 2, the bigram 1 of 1, no trigram or 4-gram. Folded
    after tokenizing (the papineni profile), the one token "İ" folds to one two-character token: c = 1, no
    unigram matches, no bigram."""
    from oracle.diagnose.expect import oracle_options, oracle_result
    from oracle.models.protocol import ScoreRequest

    request = ScoreRequest.model_validate({
        "cmd": "score", "seq": 0, "level": "corpus", "tokenize": "char", "lowercase": True,
        "weights": [0.25] * 4, "smoothing": {"method": "none"},
        "segments": [{"hypothesis": "İ", "references": ["i\u0307"]}]})

    def counts(profile):
        statistics = oracle_result(request, oracle_options(profile, lowercase=True)).statistics
        return statistics.hyp_len, statistics.ref_len, tuple(statistics.matches), tuple(statistics.totals)

    assert counts("sacrebleu") == (2, 2, (2, 1, 0, 0), (2, 1, 0, 0))
    assert counts("papineni") == (1, 2, (0, 0, 0, 0), (1, 0, 0, 0))
    sacrebleu = pytest.importorskip("sacrebleu")
    real = sacrebleu.BLEU(tokenize="char", lowercase=True).corpus_score(["İ"], [["i\u0307"]])
    assert (real.sys_len, real.ref_len, tuple(real.counts), tuple(real.totals)) == counts("sacrebleu")


def test_the_script_profiles_state_their_split_and_folding():
    assert (PROFILES["multi-bleu"].options.token_split, PROFILES["multi-bleu"].options.case_fold) == ("ascii", "ascii")
    assert (PROFILES["mteval"].options.token_split, PROFILES["mteval"].options.case_fold) == ("white-space", "ascii")
    assert PROFILES["sacrebleu"].options.token_split == "str-split"


@pytest.mark.slow
@pytest.mark.heavy  # the real Perl script on WMT17 text: 16 s for both (CI runs it)
@pytest.mark.parametrize("lowercase", [False, True], ids=["cased", "lc"])
def test_the_multi_bleu_profile_prints_what_multi_bleu_perl_prints_on_wmt17(tmp_path, lowercase):
    """The unmodified multi-bleu.perl on every WMT17 system (1 reference), with and without -lc, against
    `score --profile multi-bleu` (ASCII splitting and folding: PROMT-Rule-based's 27 no-break spaces
    and the non-ASCII capitals are where the other conventions differ). The script prints 2 decimals."""
    import shutil
    import subprocess

    script = WMT17.parents[1] / "tools" / "moses" / "multi-bleu.perl"
    if not script.is_file():
        pytest.skip(f"the reference script is not available ({script} is absent)")
    if shutil.which("perl") is None:
        pytest.skip("perl is not installed")
    reference = tmp_path / "ref"
    systems = sorted(WMT17.glob("newstest2017.*.en-de.txt.gz"))
    reference.write_bytes(gzip.open(next(p for p in systems if ".reference." in p.name)).read())
    systems = [p for p in systems if ".reference." not in p.name]
    assert len(systems) == 16
    flags = ["--lowercase"] if lowercase else []
    for path in systems:
        hypothesis = tmp_path / "hyp"
        hypothesis.write_bytes(gzip.open(path).read())
        done = subprocess.run(["perl", str(script), *(["-lc"] if lowercase else []), str(reference)],
                              stdin=open(hypothesis, "rb"), capture_output=True, text=True, timeout=120)
        printed = done.stdout.split("BLEU = ", 1)[1].split(",", 1)[0]
        ours = _score_json(["--profile", "multi-bleu", *flags, "--hyp", str(hypothesis), "--ref", str(reference)])
        assert f"{ours['score_100']:.2f}" == printed, (path.name, ours["score_100"], printed)


def _literal_class(prefix: str, negate: bool = False) -> str:
    """intl's character class as first written: one code point at a time (the reference for the runs)."""
    import re

    ranges, start, previous = [], None, 0
    for code in range(sys.maxunicode + 1):
        if unicodedata.category(chr(code)).startswith(prefix):
            if start is None:
                start = code
            previous = code
        elif start is not None:
            ranges.append((start, previous))
            start = None
    if start is not None:
        ranges.append((start, previous))
    body = "".join(re.escape(chr(a)) if a == b else f"{re.escape(chr(a))}-{re.escape(chr(b))}" for a, b in ranges)
    return f"[{'^' if negate else ''}{body}]"


def test_intl_character_classes_read_from_category_runs_are_the_literal_ones():
    """The classes intl's rules use (punctuation, symbols, not a number), and one whose runs of two categories
    join (letters: Lu then Ll), read from the category runs, equal the code-point-by-code-point classes."""
    from oracle.formulas.tokenizers import _class

    for prefix, negate in (("P", False), ("S", False), ("N", True), ("L", False)):
        assert _class(prefix, negate) == _literal_class(prefix, negate)


def test_the_stored_intl_ranges_are_the_ones_unicodedata_gives():
    """intl's classes written out (`oracle.formulas.unicode_ranges`, so that no process reads every code point's
    category for them) are, range for range, those `unicodedata` gives under this Python's Unicode; under another
    version they are not used."""
    from oracle.formulas import unicode_ranges
    from oracle.formulas.tokenizers import STORED_CLASSES, _ranges, _read_ranges, stored_ranges_text

    read = _read_ranges()
    assert all(len(read[prefix]) > 50 for prefix in STORED_CLASSES)
    if unicode_ranges.UNICODE_VERSION != UNICODE_VERSION:
        assert all(_ranges(prefix) == read[prefix] for prefix in STORED_CLASSES)
        return
    assert set(unicode_ranges.RANGES) == set(STORED_CLASSES)
    for prefix in STORED_CLASSES:
        assert _ranges(prefix) == read[prefix], f"RANGES[{prefix!r}] under Unicode {UNICODE_VERSION}: " + \
            stored_ranges_text(read[prefix])


def test_intl_fast_classes_match_the_literal_classes_on_every_code_point():
    """The classes intl's rules are compiled from (`_fast_class`: a BMP part and an astral part, for speed) match
    exactly the code points the literal classes match, over the whole of Unicode (one findall each over a string of
    every code point), for each class intl uses (both number readings) and letters."""
    import re

    from oracle.formulas.tokenizers import _class, _fast_class

    every = "".join(map(chr, range(sys.maxunicode + 1)))
    for prefix, negate in (("P", False), ("S", False), ("N", True), ("Nd", True), ("L", False)):
        fast = re.findall(_fast_class(prefix, negate), every)
        assert "".join(fast) == "".join(re.findall(_class(prefix, negate), every)), (prefix, negate)
        assert len(fast) > 100


def _literal_13a(line: str, split: str = "str-split", padding: str = "spaces") -> tuple[str, ...]:
    """13a as first written (the reference for `substitute`): each rule of mteval-v13a.pl's `sub tokenization` by
    `re.sub` with its template, as the script's s///g lines read."""
    import re

    from oracle.formulas.tokenizers import RULES_13A, split_words

    for _, replacements in RULES_13A:
        for literal, replacement in replacements:
            line = line.replace(literal, replacement)
    if padding == "spaces":
        line = f" {line} "
    line = re.sub(r"([\{-\~\[-\` -\&\(-\+\:-\@\/])", r" \1 ", line)  # s/([\{-\~\[-\` -\&\(-\+\:-\@\/])/ $1 /g;
    line = re.sub(r"([^0-9])([\.,])", r"\1 \2 ", line)  # s/([^0-9])([\.,])/$1 $2 /g;
    line = re.sub(r"([\.,])([^0-9])", r" \1 \2", line)  # s/([\.,])([^0-9])/ $1 $2/g;
    line = re.sub(r"([0-9])(-)", r"\1 \2 ", line)  # s/([0-9])(-)/$1 $2 /g;
    return split_words(line, split)


def _literal_intl(line: str, split: str = "str-split", numbers: str = "N") -> tuple[str, ...]:
    """intl as first written: mteval-v14.pl's three rules by `re.sub` with their templates, on the literal classes
    (`_class`, one range list each)."""
    import re

    from oracle.formulas.tokenizers import _class, split_words

    punctuation, symbol, not_number = _class("P"), _class("S"), _class(numbers, negate=True)
    line = re.sub(f"({not_number})({punctuation})", r"\1 \2 ", line)  # s/(\P{N})(\p{P})/$1 $2 /g;
    line = re.sub(f"({punctuation})({not_number})", r" \1 \2", line)  # s/(\p{P})(\P{N})/ $1 $2/g;
    line = re.sub(f"({symbol})", r" \1 ", line)  # s/(\p{S})/ $1 /g;
    return split_words(line, split)


#: Text that meets the rules: their characters (digits, `.` `,` `-`, ASCII punctuation and spaces, Unicode
#: punctuation, symbols, numbers and spaces, the entities) often, in runs, next to any other character.
_RULE_TEXT = st.lists(st.one_of(
    st.sampled_from(list("09.,-- a'(&;/\t\n\xa0\u2028\x1c") + ["&quot;", "&amp;", "<skipped>", "...", ",,"]),
    st.sampled_from(list("«»€½²٣¡¿、。〃…–—•§¶©®™°±×÷")),
    st.characters(blacklist_categories=("Cs",)),
), max_size=40).map("".join)


@settings(max_examples=1000, deadline=None)
@given(_RULE_TEXT, st.sampled_from(["str-split", "white-space", "ascii"]), st.sampled_from(["spaces", "none"]))
def test_13a_gives_the_tokens_of_its_literal_substitutions(line, split, padding):
    """13a, whose rules build their output from `re.split` (`substitute`), tokenizes every line as the literal
    `re.sub` rules do, under every split and padding rule."""
    from oracle.formulas.tokenizers import tokenize_13a

    assert tokenize_13a(line, split, padding) == _literal_13a(line, split, padding)


@settings(max_examples=1000, deadline=None)
@given(_RULE_TEXT, st.sampled_from(["str-split", "white-space", "ascii"]), st.sampled_from(["N", "Nd"]))
def test_intl_gives_the_tokens_of_its_literal_substitutions(line, split, numbers):
    from oracle.formulas.tokenizers import tokenize_intl

    assert tokenize_intl(line, split, numbers) == _literal_intl(line, split, numbers)


def _every_step():
    from oracle.formulas.tokenizers import _13A_STEPS, _intl_steps

    return [*_13A_STEPS, *_intl_steps("N"), *_intl_steps("Nd")]


@settings(max_examples=1000, deadline=None)
@given(_RULE_TEXT)
def test_each_rule_substitutes_the_string_re_sub_gives(line):
    """Each rule's output string (not only the tokens) is the one `re.sub` with its template gives."""
    from oracle.formulas.tokenizers import substitute

    for pattern, template in _every_step():
        assert substitute(pattern, template, line) == pattern.sub(template, line), (pattern.pattern[:40], template)


def test_each_rule_substitutes_the_string_re_sub_gives_on_every_code_point():
    """The same over one string of every code point (each rule's class met everywhere it can be, one run each), and
    over the WMT17 lines the benchmarks tokenize."""
    from oracle.formulas.tokenizers import substitute

    every = "".join(map(chr, range(sys.maxunicode + 1)))
    by_hand = "a..b,,1.5 1,-2 x.5 1-2-3 .,a 2017. «Ja», 1,000.5 €5 ½. ٣.٣ ...x"
    texts = [every, by_hand]
    if WMT17.is_dir():
        texts += [line for text in _wmt17_lines().values() for line in text[:500]]
    for pattern, template in _every_step():
        assert any(pattern.search(text) for text in texts), pattern.pattern[:40]
        for text in texts:
            assert substitute(pattern, template, text) == pattern.sub(template, text), (pattern.pattern[:40], text[:80])


def test_every_13a_literal_holds_a_marker():
    """13a skips its literal replacements on a line without a marker character: each literal must hold one."""
    from oracle.formulas.tokenizers import _13A_MARKERS, RULES_13A

    literals = [literal for _, replacements in RULES_13A for literal, _ in replacements]
    assert len(literals) == 7
    assert all(any(marker in literal for marker in _13A_MARKERS) for literal in literals)


def test_a_template_substitute_cannot_build_is_refused():
    import re

    from oracle.formulas.tokenizers import substitute

    with pytest.raises(BleuValueError, match="template"):
        substitute(re.compile("(a)(b)"), r"\2\1", "ab")
    with pytest.raises(BleuValueError, match="template"):
        substitute(re.compile("(a)"), r"\1 \2 ", "ab")  # a template's shape with the wrong number of groups
