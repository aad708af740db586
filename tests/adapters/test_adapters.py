"""The adapters translate requests faithfully: layout, scale, smoothing names, honest refusals.

Expected values are hand-derived from BLEU's definition for small inputs (or are the
libraries' own documented examples); tests needing a library skip without it.

Holds: oracle.adapters.base, oracle.adapters.tracebacks, oracle.adapters.nltk_adapter,
    oracle.adapters.sacrebleu_adapter, oracle.adapters.perl_adapter, oracle.adapters.pycocoevalcap_adapter,
    oracle.adapters.torchmetrics_adapter, oracle.adapters.torcheval_adapter, oracle.adapters.ignite_adapter,
    oracle.adapters.bleuscore_adapter, oracle.adapters.fastbleu_adapter
"""

from __future__ import annotations

import importlib
import io
import math
import shutil
import subprocess
import sys
import textwrap

import pytest
from conftest import load

from oracle.adapters.base import (
    AdapterUnavailable,
    Implementation,
    Rejected,
    ScoreAnswer,
    Unsupported,
    call,
    declare_capabilities,
)
from oracle.models.protocol import Handshake, ScoreRequest, Segment, SmoothingSpec

PERFECT = math.exp(1 - 5 / 4)  # all p_n = 1, c = 4 against r = 5


def request(level, segments, weights=(0.25,) * 4, smoothing=None, lowercase=False):
    segs = tuple(
        Segment(hypothesis=tuple(h.split()), references=tuple(tuple(r.split()) for r in refs)) for h, refs in segments
    )
    return ScoreRequest(
        seq=0,
        level=level,
        segments=segs,
        weights=tuple(weights),
        smoothing=smoothing or {"method": "none"},
        lowercase=lowercase,
    )


LIBRARY_ADAPTERS = ["nltk", "sacrebleu", "torchmetrics", "torcheval", "ignite", "ignite-micro", "pycocoevalcap",
                    "bleuscore", "fast-bleu"]


@pytest.mark.parametrize("name", LIBRARY_ADAPTERS)
def test_handshake_is_honest(name):
    impl = load(name)
    assert isinstance(impl, Implementation)
    hello = impl.handshake()
    assert hello["protocol"] == 1
    assert hello["implementation"]["name"] and hello["implementation"]["version"]
    assert hello["profile"] in ("papineni", "nltk", "sacrebleu", "mteval", "multi-bleu", "matlab", "mlpack")
    caps = hello["capabilities"]
    required = {"levels", "weights", "max_order", "smoothing", "statistics", "lowercase"}
    optional = {"orders", "same_reference_count", "forbidden_token_characters", "empty_tokens", "tokenizers",
                "conventions", "stateful"}
    assert required <= set(caps) <= required | optional
    Handshake.from_json(hello)  # as the runner reads it
    assert caps["weights"] in ("any", "uniform") and caps["max_order"] >= 1 and "none" in caps["smoothing"]


@pytest.mark.parametrize("name", LIBRARY_ADAPTERS)
def test_version_is_the_library_version(name):
    impl = load(name)
    from importlib.metadata import version

    distribution = {"ignite": "pytorch-ignite", "ignite-micro": "pytorch-ignite", "fast-bleu": "fast-bleu"}.get(
        name, name
    )
    assert impl.version == version(distribution)


@pytest.mark.parametrize("name", LIBRARY_ADAPTERS)
def test_perfect_match_with_brevity_penalty(name):
    """'a b c d' against 'a b c d e': every p_n = 1, BP = e^(1 - 5/4) at corpus or sentence level."""
    impl = load(name)
    level = impl.capabilities["levels"][0]
    weights = (0.5, 0.5)
    answer = impl.score(request(level, [("a b c d", ["a b c d e"])], weights=weights))
    # torchmetrics computes in float32; pycocoevalcap adds 1e-9 to totals and lengths (coco-epsilon)
    tolerance = {"torchmetrics": 1e-6, "pycocoevalcap": 1e-8}.get(name, 1e-12)
    assert answer.score == pytest.approx(PERFECT, rel=tolerance)


@pytest.mark.parametrize("name", LIBRARY_ADAPTERS)
def test_request_is_not_mutated_and_nothing_is_printed(name, capsys):
    impl = load(name)
    level = impl.capabilities["levels"][0]
    r = request(level, [("a b c", ["d e f"])], weights=(0.5, 0.5))  # no overlap: nltk warns
    before = repr(r)
    call(impl, r)  # whatever the answer (fast-bleu cannot enable faulthandler on a captured stderr: an error)
    assert repr(r) == before
    assert capsys.readouterr().out == ""


@pytest.mark.parametrize("name", LIBRARY_ADAPTERS)
def test_lowercase_only_where_declared(name):
    impl = load(name)
    level = impl.capabilities["levels"][0]
    r = request(level, [("A B", ["a b"])], weights=(0.5, 0.5), lowercase=True)
    if impl.capabilities["lowercase"]:
        assert impl.score(r).score == pytest.approx(1.0, rel=1e-12)
    else:
        with pytest.raises(Unsupported):
            impl.score(r)


def test_adapter_unavailable_names_the_extra(monkeypatch):
    monkeypatch.setitem(sys.modules, "pycocoevalcap", None)
    monkeypatch.setitem(sys.modules, "pycocoevalcap.bleu", None)
    monkeypatch.setitem(sys.modules, "pycocoevalcap.bleu.bleu", None)
    from oracle.adapters.pycocoevalcap_adapter import PycocoevalcapImplementation

    with pytest.raises(AdapterUnavailable, match=r"pip install 'bleu-oracle\[pycocoevalcap\]'"):
        PycocoevalcapImplementation()


@pytest.mark.parametrize("module,cls,missing", [
    ("nltk_adapter", "NltkImplementation", "nltk"),
    ("sacrebleu_adapter", "SacrebleuImplementation", "sacrebleu"),
    ("torchmetrics_adapter", "TorchmetricsImplementation", "torchmetrics"),
    ("torcheval_adapter", "TorchevalImplementation", "torcheval"),
    ("ignite_adapter", "IgniteImplementation", "ignite"),
    ("bleuscore_adapter", "BleuscoreImplementation", "bleuscore"),
    ("fastbleu_adapter", "FastbleuImplementation", "fast_bleu"),
])
def test_every_adapter_is_unavailable_without_its_library(monkeypatch, module, cls, missing):
    monkeypatch.setitem(sys.modules, missing, None)
    adapter = getattr(importlib.import_module(f"oracle.adapters.{module}"), cls)
    with pytest.raises(AdapterUnavailable, match="pip install"):
        adapter()


# -- sacrebleu ------------------------------------------------------------------------------------


def test_sacrebleu_reference_streams_are_padded_with_none():
    from oracle.adapters.sacrebleu_adapter import reference_streams

    segs = request("corpus", [("a", ["a", "b c"]), ("d", ["d"])]).segments
    assert reference_streams(segs) == [["a", "d"], ["b c", None]]


def test_sacrebleu_variable_reference_counts_score_like_the_definition():
    impl = load("sacrebleu")
    # segment 1: 'a b' vs 'a b' and 'x'; segment 2: 'c d' vs 'c d' only; BLEU-2, no smoothing
    r = request("corpus", [("a b", ["a b", "x"]), ("c d", ["c d"])], weights=(0.5, 0.5))
    answer = impl.score(r)
    assert answer.score == pytest.approx(1.0, rel=1e-12)
    assert answer.statistics == {"hyp_len": 4, "ref_len": 4, "matches": [4, 2], "totals": [4, 2], "bp": 1.0}


def test_sacrebleu_the_the_the_table():
    """The sacrebleu table in shared/seeds/001: counts [2, 0, 0, 0], totals [6, 5, 4, 3], score 0."""
    impl = load("sacrebleu")
    r = request("corpus", [("the the the the the the", ["the cat is on the mat"])],
                smoothing={"method": "floor", "value": 0.0})
    answer = impl.score(r)
    assert answer.score == 0.0
    assert answer.statistics == {"hyp_len": 6, "ref_len": 6, "matches": [2, 0, 0, 0], "totals": [6, 5, 4, 3],
                                 "bp": 1.0}


@pytest.mark.parametrize("k", [1.0, 0.5])
def test_sacrebleu_add_k_reports_the_score_and_no_statistics(k):
    """sacrebleu adds k to its count lists in place, so under add-k they are not the sufficient
    statistics; the adapter passes the score on and no statistics (it does not recompute them).

    'a' against 'a', BLEU-2: one unigram, matched; no bigram. add-k: p1 = 1/1, p2 = (0 + k)/(0 + k) = 1, so 1.
    """
    impl = load("sacrebleu")
    r = request("corpus", [("a", ["a"])], weights=(0.5, 0.5), smoothing={"method": "add-k", "k": k})
    answer = impl.score(r)
    assert answer.statistics is None
    assert answer.score == pytest.approx(1.0, rel=1e-12)


def test_sacrebleu_add_k_score_is_smoothed_on_orders_above_one():
    """'a b c' against 'a b d', BLEU-4, add-k k=1. Raw: matches [2, 1, 0, 0], totals [3, 2, 1, 0].
    Smoothed p_n: 2/3, (1+1)/(2+1), (0+1)/(1+1), (0+1)/(0+1); BLEU = (2/3 * 2/3 * 1/2 * 1) ** (1/4)."""
    impl = load("sacrebleu")
    r = request("corpus", [("a b c", ["a b d"])], smoothing={"method": "add-k", "k": 1.0})
    assert impl.score(r).score == pytest.approx((2 / 3 * 2 / 3 * 1 / 2 * 1) ** 0.25, rel=1e-12)


def test_bleuscore_reports_no_statistics():
    """bleuscore exposes no matched counts or totals; partial statistics would break protocol v1."""
    impl = load("bleuscore")
    assert impl.capabilities["statistics"] is False
    assert impl.score(request("corpus", [("a b", ["a b"])], weights=(0.5, 0.5))).statistics is None


def test_sacrebleu_refuses_what_it_cannot_express():
    impl = load("sacrebleu")
    with pytest.raises(Unsupported, match="max_ngram_order"):
        impl.score(request("corpus", [("a b", ["a b"])], weights=(0.7, 0.3)))
    with pytest.raises(Unsupported, match="max_ngram_order"):
        impl.score(request("corpus", [("a b", ["a b"])], weights=(0.5,) * 4))  # uniform but not 1/N
    with pytest.raises(Unsupported):
        impl.score(request("corpus", [("a b", ["a b"])], smoothing={"method": "chen-cherry-5"}))


def test_sacrebleu_smoothing_value_reaches_the_library():
    impl = load("sacrebleu")
    # 'a b c' vs 'a b d', BLEU-3, floor 0.5: p = 2/3, 1/2, 0.5/1
    r = request("corpus", [("a b c", ["a b d"])], weights=(1 / 3,) * 3, smoothing={"method": "floor", "value": 0.5})
    assert impl.score(r).score == pytest.approx((2 / 3 * 1 / 2 * 1 / 2) ** (1 / 3), rel=1e-12)


def test_sacrebleu_sentence_level_uses_effective_order():
    impl = load("sacrebleu")
    # 'a b' vs 'a b', BLEU-4: orders 3 and 4 have no n-grams; effective order leaves them out
    assert impl.score(request("sentence", [("a b", ["a b"])])).score == pytest.approx(1.0, rel=1e-12)
    assert impl.score(request("corpus", [("a b", ["a b"])])).score == 0.0


# -- nltk -----------------------------------------------------------------------------------------


def test_nltk_smoothing_mapping():
    pytest.importorskip("nltk")
    from nltk.translate import bleu_score

    from oracle.adapters.nltk_adapter import smoothing_function

    f = smoothing_function(bleu_score, SmoothingSpec.of("floor", value=0.3))
    assert f.__name__ == "method1" and f.__self__.epsilon == 0.3
    assert smoothing_function(bleu_score, SmoothingSpec.of("exp")).__name__ == "method3"
    assert smoothing_function(bleu_score, SmoothingSpec.of("none")).__name__ == "method0"
    f = smoothing_function(bleu_score, SmoothingSpec.of("chen-cherry-6", alpha=2.0))
    assert f.__name__ == "method6" and f.__self__.alpha == 2.0
    f = smoothing_function(bleu_score, SmoothingSpec.of("chen-cherry-7", k=3.0))
    assert f.__name__ == "method7" and f.__self__.k == 3.0
    with pytest.raises(Unsupported, match="nltk smooths with none, floor, exp and chen-cherry-1 to -7 only; got"):
        smoothing_function(bleu_score, SmoothingSpec.of("add-k", k=1.0))
    with pytest.raises(Unsupported):
        smoothing_function(bleu_score, SmoothingSpec.of("lin-2004"))


def test_a_smoothing_table_matches_its_rows_fixed_values_and_passes_the_others() -> None:
    from oracle.adapters.base import SmoothingRow, SmoothingTable

    table = SmoothingTable("lib smooths so and so only", (
        SmoothingRow("none", "plain"), SmoothingRow("chen-cherry-1", "eps", fixed={"epsilon": 0.1}),
        SmoothingRow("floor", "floor", passes={"value": "floor_value"})))
    assert table.declared == ["none", "floor"]  # a row that fixes a parameter cannot be declared by method
    assert table.setting(SmoothingSpec.of("chen-cherry-1")) == "eps"  # epsilon 0.1, the default
    assert table.arguments(SmoothingSpec.of("floor", value=0.25)) == ("floor", {"floor_value": 0.25})
    with pytest.raises(Unsupported, match=r"^lib smooths so and so only; got .*epsilon=0.2"):
        table.setting(SmoothingSpec.of("chen-cherry-1", epsilon=0.2))
    with pytest.raises(Unsupported):
        table.setting(SmoothingSpec.of("add-k"))


def test_nltk_weights_as_given(recwarn):
    impl = load("nltk")
    # p1 = 2/3, p2 = 1/2 with weights (1, 1): 1/3 (no normalisation)
    assert impl.score(request("corpus", [("a b c", ["a b d"])], weights=(1.0, 1.0))).score == pytest.approx(1 / 3)
    impl.score(request("sentence", [("a b c", ["d e f"])]))
    assert not [w for w in recwarn if "nltk" in str(w.filename)]


def test_nltk_library_errors_become_rejections():
    impl = load("nltk")
    r = request("sentence", [("a b c", ["a b d"])], weights=(1 / 3,) * 3, smoothing={"method": "chen-cherry-6"})
    with pytest.raises(Rejected, match="AssertionError"):
        impl.score(r)


# -- the others -----------------------------------------------------------------------------------


def test_torcheval_shortest_reference_and_too_short_rejection():
    impl = load("torcheval")
    answer = impl.score(request("corpus", [("a b c d", ["a b c d e", "a b"])], weights=(1.0,)))
    assert answer.statistics["ref_len"] == 2 and answer.score == pytest.approx(1.0)
    with pytest.raises(Rejected, match="too short"):
        impl.score(request("corpus", [("a b c", ["a b c"])]))


def test_ignite_macro_and_micro():
    macro, micro = load("ignite"), load("ignite-micro")
    r = request("corpus", [("a b", ["a b"]), ("a c", ["a d"])], weights=(0.5, 0.5))
    assert macro.score(r).score == pytest.approx(0.5)  # mean of 1 and 0
    assert micro.score(r).score == pytest.approx(math.sqrt(3 / 4 * 1 / 2))  # p1 = 3/4, p2 = 1/2
    with pytest.raises(Unsupported):
        macro.score(request("corpus", [("a b", ["a b"])], weights=(0.7, 0.3)))


def test_pycocoevalcap_orders_above_four_are_unsupported():
    impl = load("pycocoevalcap")
    with pytest.raises(Unsupported, match="order 4"):
        impl.score(request("corpus", [("a b c d e", ["a b c d e"])], weights=(0.2,) * 5))


def test_bleuscore_refuses_tokens_13a_would_split():
    impl = load("bleuscore")
    with pytest.raises(Unsupported, match="13a"):
        impl.score(request("corpus", [("a b.", ["a b."])], weights=(0.5, 0.5)))


def test_bleuscore_panics_are_errors(monkeypatch):
    """A Rust panic is a crash, not a refusal of the input: the protocol answer is `error`."""
    impl = load("bleuscore")

    class PanicException(BaseException):
        pass

    def panic(*args, **kwargs):
        raise PanicException("called `Option::unwrap()` on a `None` value")

    monkeypatch.setattr(impl._lib, "compute", panic)
    assert call(impl, request("corpus", [("a b", ["a b"])], weights=(0.5, 0.5))) == \
        ("error", "PanicException: called `Option::unwrap()` on a `None` value")


def test_bleuscore_lin_2004_smoothing():
    impl = load("bleuscore")
    # 'a b d' vs 'a b c', BLEU-4, add one everywhere: 3/4, 2/3, 1/2, 1/1
    r = request("corpus", [("a b d", ["a b c"])], smoothing={"method": "lin-2004"})
    assert impl.score(r).score == pytest.approx((3 / 4 * 2 / 3 * 1 / 2) ** 0.25, rel=1e-12)


def test_fast_bleu_scope():
    impl = load("fast-bleu")
    with pytest.raises(Unsupported, match="sentences only"):
        impl.score(request("corpus", [("a b", ["a b"])], weights=(0.5, 0.5)))
    with pytest.raises(Unsupported, match="sum to one"):
        impl.score(request("sentence", [("a b", ["a b"])], weights=(1.0, 1.0)))
    # BLEU-1 goes as weights (1.0, 0.0): 'a b c' against 'a b d' has p1 = 2/3 and BP = 1
    assert impl.score(request("sentence", [("a b c", ["a b d"])], weights=(1.0,))).score == pytest.approx(
        2 / 3, rel=1e-12
    )
    # p1 = 2/2 with no bigram match (a zero p2 under weight 0 changes nothing); BP = e^(1 - 5/2)
    assert impl.score(request("sentence", [("b a", ["a b c d e"])], weights=(1.0,))).score == \
        pytest.approx(math.exp(1 - 5 / 2), rel=1e-12)


def test_torchmetrics_statistics_and_smoothing():
    impl = load("torchmetrics")
    r = request("corpus", [("a b c", ["a b c d"])], weights=(0.5, 0.5), smoothing={"method": "chen-cherry-2"})
    answer = impl.score(r)
    assert answer.statistics == {"hyp_len": 3, "ref_len": 4, "matches": [3, 2], "totals": [3, 2]}
    # p1 = 3/3, p2 = (2+1)/(2+1); BP = e^(1 - 4/3)
    assert answer.score == pytest.approx(math.exp(1 - 4 / 3), rel=1e-6)
    with pytest.raises(Unsupported):
        impl.score(request("corpus", [("a b", ["a b"])], weights=(0.2,) * 5))


# -- the Perl scripts -----------------------------------------------------------------------------


def test_perl_adapters_unavailable_without_a_path(monkeypatch):
    from oracle.adapters.perl_adapter import (
        MtevalImplementation,
        MultiBleuImplementation,
    )

    monkeypatch.delenv("BLEU_ORACLE_MULTI_BLEU", raising=False)
    monkeypatch.delenv("BLEU_ORACLE_MTEVAL", raising=False)
    with pytest.raises(AdapterUnavailable, match="BLEU_ORACLE_MULTI_BLEU"):
        MultiBleuImplementation()
    with pytest.raises(AdapterUnavailable, match="BLEU_ORACLE_MTEVAL"):
        MtevalImplementation()


@pytest.fixture
def fake_multi_bleu(tmp_path, monkeypatch):
    """A stand-in for multi-bleu.perl that prints its output format and echoes what it was given."""
    if shutil.which("perl") is None:
        pytest.skip("perl is not installed")
    script = tmp_path / "multi-bleu.perl"
    script.write_text(
        textwrap.dedent(r"""
        my $lc = 0; if ($ARGV[0] eq "-lc") { $lc = 1; shift; }
        my $stem = $ARGV[0]; my $refs = 0; $refs++ while -e "$stem$refs";
        my ($hyp, $lines) = (0, 0);
        while (<STDIN>) { chop; my @w = split; $hyp += scalar(@w); $lines++; }
        open(R, "${stem}0"); my $ref = 0; while (<R>) { chop; my @w = split(' ', $_); $ref += scalar(@w); } close(R);
        printf "BLEU = %.2f, 1.0/1.0/1.0/1.0 (BP=1.000, ratio=1.000, hyp_len=%d, ref_len=%d)\n",
            12.25 + $refs + 10 * $lc, $hyp, $ref;
    """),
        encoding="utf-8",
    )
    monkeypatch.setenv("BLEU_ORACLE_MULTI_BLEU", str(script))
    return script


def test_multi_bleu_plumbing(fake_multi_bleu):
    from oracle.adapters.perl_adapter import MultiBleuImplementation

    impl = MultiBleuImplementation()
    r = request("corpus", [("a b c", ["a b", "x"]), ("é d", ["d", "y y"])])
    answer = impl.score(r)
    assert answer.score == pytest.approx(0.1425, rel=1e-12)  # two reference files, read back from the output
    assert answer.statistics is None  # hyp_len and ref_len alone are not protocol statistics
    assert impl.score(request("corpus", [("a B", ["a b"])], lowercase=True)).score == pytest.approx(0.2325, rel=1e-12)
    with pytest.raises(Unsupported):
        impl.score(request("corpus", [("a", ["a", "b"]), ("c", ["c"])]))  # reference counts differ
    with pytest.raises(Unsupported):
        impl.score(request("corpus", [("a b", ["a b"])], weights=(0.5, 0.5)))
    # non-ASCII text is the script's to fold (A-Z only, the multi-bleu profile's case_fold): passed on with -lc
    assert impl.score(request("corpus", [("É", ["é"])], lowercase=True)).score == pytest.approx(0.2325, rel=1e-12)


def test_mteval_refuses_punctuation(tmp_path, monkeypatch):
    script = tmp_path / "mteval-v13a.pl"
    script.write_text("print 'BLEU score = 0.5000 for system \"sys\"\\n';\n", encoding="utf-8")
    monkeypatch.setenv("BLEU_ORACLE_MTEVAL", str(script))
    if shutil.which("perl") is None:
        pytest.skip("perl is not installed")
    from oracle.adapters import perl_adapter

    monkeypatch.setattr(perl_adapter, "_require_twig", lambda perl: None)  # the stand-in reads no SGML
    impl = perl_adapter.MtevalImplementation()
    with pytest.raises(Unsupported, match="punctuation"):
        impl.score(request("corpus", [("a b.", ["a b."])]))
    assert impl.score(request("corpus", [("a b", ["a b"])])).score == 0.5


def test_mteval_receives_raw_text_as_written_and_refuses_what_its_sgml_reader_would_change():
    """The script's tokenizer is what unescapes `&quot;` (`s/&quot;/"/g`), so a text goes into its SGML file as
    written: `a &quot;b&quot;` and `a "b"` are both the 4 tokens a " b " to it, BLEU 1 (escaped to
    `&amp;quot;`, as the driver once did, the tokenizer would leave `&quot;` and split it into & quot ;).
    Its SGML reader joins whitespace before the tokenizer, so `-` before a line break cannot be sent (the
    tokenizer's `s/-\\n//g` is never reached); neither can a `</seg>` inside a text."""
    impl = load("mteval")  # skips with the reason where the script, perl or XML::Twig is missing

    def text(hypothesis, reference):
        return ScoreRequest.model_validate({"cmd": "score", "seq": 1, "level": "corpus", "tokenize": "13a",
                                           "segments": [{"hypothesis": hypothesis, "references": [reference]}],
                                           "weights": [0.25] * 4})

    assert impl.score(text('a &quot;b&quot;', 'a "b"')).score == 1.0
    assert impl.score(text("a &amp; b c", "a & b c")).score == 1.0
    with pytest.raises(Unsupported, match="hyphenation"):
        impl.score(text("a well-\nknown b c", "a wellknown b c"))
    with pytest.raises(Unsupported, match="markup"):
        impl.score(text("a b </seg> c", "a b c d"))


def test_mteval_without_xml_twig_says_what_to_install(monkeypatch, tmp_path):
    from oracle.adapters import perl_adapter

    if shutil.which("perl") is None:
        pytest.skip("perl is not installed")
    script = tmp_path / "mteval-v13a.pl"
    script.write_text("1;\n", encoding="utf-8")
    monkeypatch.setenv("BLEU_ORACLE_MTEVAL", str(script))
    monkeypatch.setattr(perl_adapter.subprocess, "run",
                        lambda *a, **k: subprocess.CompletedProcess(a, 2, b"", b"Can't locate XML/Twig.pm"))
    with pytest.raises(AdapterUnavailable, match="libxml-twig-perl"):
        perl_adapter.MtevalImplementation()


def test_a_signal_while_an_adapter_scores_stops_the_run_and_is_never_its_answer() -> None:
    """SIGTERM's handler raises `Interrupted` wherever the main thread is, an in-process adapter's library
    call too (`report`): it propagates, so the run stops (exit 143) instead of recording an error reply
    "Interrupted" and going on to exit 0. A native panic (a BaseException of another kind) is still an error."""
    from oracle.adapters.base import call
    from oracle.harness.inprocess import InProcessImplementation
    from oracle.signals import Interrupted

    class Stopped(Implementation):
        name, version, capabilities = "stopped", "1", declare_capabilities()

        def __init__(self, raised: BaseException) -> None:
            self.raised = raised

        def score(self, request: ScoreRequest) -> ScoreAnswer:
            raise self.raised

    sentence = request("sentence", [("a b", ["a b"])])
    with pytest.raises(Interrupted):
        call(Stopped(Interrupted(143)), sentence)
    transport = InProcessImplementation(Stopped(Interrupted(143)))
    transport.start()
    with pytest.raises(Interrupted):
        transport.request(sentence.with_seq(1).to_json())

    class Panic(BaseException):
        pass

    assert call(Stopped(Panic("thread panicked")), sentence) == ("error", "Panic: thread panicked")


class _Raising(Implementation):
    """An implementation whose score() runs `work` (raising through whatever it calls)."""

    name, version, capabilities = "raising", "1", declare_capabilities()

    def __init__(self, work) -> None:
        self.work = work

    def score(self, request: ScoreRequest) -> ScoreAnswer:
        return self.work()


def _logged(work) -> str:
    """What `call` writes to its log when the implementation's score() runs `work`."""
    log = io.StringIO()
    outcome, _ = call(_Raising(work), request("sentence", [("a b", ["a b"])]), log=log)
    assert outcome == "error"
    return log.getvalue()


def test_a_traceback_through_this_package_names_its_file_from_the_project_root():
    """A record's stderr held `File "/tmp/regen11/p/oracle/adapters/base.py", line 145, in call`: the clone's folder.
    This package's files are named from the folder holding the package (`oracle/adapters/base.py`); a file of the
    project outside the package (this test's) is named as it is, and the standard library's (fractions.py, which
    raises ZeroDivisionError for a zero denominator) from its folder's name on: nltk's committed records named
    `/root/.pyenv/versions/3.11.7/lib/python3.11/fractions.py`, the interpreter's home folder."""
    import fractions
    import sys
    from pathlib import Path

    text = _logged(lambda: fractions.Fraction(1, 0))
    assert text.startswith("Traceback (most recent call last):\n")
    assert '\n  File "oracle/adapters/base.py", line ' in text and text.endswith("ZeroDivisionError: Fraction(1, 0)\n")
    frames = [line for line in text.splitlines() if line.startswith("  File ")]
    assert frames[0].startswith('  File "oracle/adapters/base.py", line ') and frames[0].endswith(", in call")
    assert str(Path(call.__code__.co_filename)) not in text  # (the absolute path of base.py)
    assert f'  File "{__file__}", line ' in text
    stdlib = f"python{sys.version_info.major}.{sys.version_info.minor}/fractions.py"  # (lib/python3.11/ on POSIX)
    assert f'  File "{stdlib}", line ' in text and fractions.__file__ not in text


def test_a_traceback_through_an_installed_library_names_its_file_from_site_packages():
    """A library's frame (pydantic's TypeAdapter.validate_python, in the venv's site-packages) is named from its
    site-packages folder on; a cause's frames (the chain) are renamed too, and nothing else of the traceback changes:
    it is what traceback.print_exc writes with the folder above site-packages removed."""
    import traceback

    import pydantic

    def through_pydantic():
        try:
            pydantic.TypeAdapter(int).validate_python("x")
        except pydantic.ValidationError as exc:
            raise RuntimeError("wrapped") from exc

    text = _logged(through_pydantic)
    assert '\n  File "site-packages/pydantic/type_adapter.py", line ' in text
    assert "\nThe above exception was the direct cause of the following exception:\n" in text
    assert text.endswith("RuntimeError: wrapped\n") and "/site-packages/" not in text
    from oracle.adapters.tracebacks import print_traceback

    site = pydantic.__file__.rsplit("/site-packages/", 1)[0] + "/"  # the venv's lib/pythonX.Y/ folder
    plain, ours = io.StringIO(), io.StringIO()
    try:
        through_pydantic()
    except RuntimeError:
        traceback.print_exc(file=plain)
        print_traceback(ours)
    assert site in plain.getvalue() and ours.getvalue() == plain.getvalue().replace(site, "")
