"""The machinery under `doctor`, held to the oracle's plain path: the shared counting of every token stream
(variants kept as differences from their base) gives the statistics `oracle.corpus_statistics` gives on the
same lines tokenized one reading at a time; sentence scores in floating point agree with the exact
`bleu_from_statistics` at sentence level; a waterfall ends exactly at its target reading.

Holds: oracle.doctor.streams, oracle.doctor.sentences, oracle.doctor.waterfall, oracle.doctor.readings
"""

from __future__ import annotations

import gzip
import math
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from oracle.doctor.readings import UNIFORM, Reading, Scorer
from oracle.doctor.sentences import SCREENED_METHODS, mean_sentence_score
from oracle.doctor.streams import RULES, StreamTable, _count_in_python
from oracle.doctor.waterfall import Point, waterfall
from oracle.formulas import bleu
from oracle.formulas.conventions import Options, Smoothing
from oracle.formulas.profiles import PROFILES
from oracle.formulas.tokenizers import tokenize

WMT17 = Path(__file__).resolve().parents[3] / "shared" / "data" / "wmt17-en-de"

#: Lines where the streams differ: a byte-order mark, non-ASCII capitals (folding rules), a no-break space and
#: U+001C (split rules), punctuation (tokenizers), references of different lengths (reference-length rules),
#: a short and an empty hypothesis (floors, empty orders).
HYP = [
    "\ufeffÄrger über Öl, sagt er.",
    "Der\xa0Mann ging nach Hause .",
    "a\x1cb c d",
    "Ja",
    "",
    "STRASSE straße Straße",
]
REFS = [["Ärger über das Öl , sagt er .", "ÄRGER über Öl, sagte er."],
        ["Der Mann ging heim.", "der\xa0mann ging nach hause"],
        ["a b c d", "a\x1cb c d e f"],
        ["Ja .", "Ja"],
        ["nichts", "gar nichts hier"],
        ["Straße STRASSE", "strasse"]]


def _table(hyp: list, refs: list, limit: int | None = None) -> StreamTable:
    table = StreamTable(len(refs[0]), bom=True) if limit is None else StreamTable(len(refs[0]), bom=True, limit=limit)
    for h, r in zip(hyp, refs, strict=True):
        table.add((h, *r))
    return table


def _plain_statistics(key, rule: str, floor: int, hyp: list, refs: list) -> bleu.Statistics:
    """The oracle's own path: each line tokenized for this stream alone, then `corpus_statistics`."""
    def tokens(text, first):
        if first and key.bom == "dropped":
            text = text.removeprefix("\ufeff")
        return tokenize(text, key.tokenizer, split=key.split)

    options = Options(reference_length=rule, segment_totals_floor=floor, lowercase=key.lowercase, case_fold=key.fold)
    hyps = [tokens(h, i == 0) for i, h in enumerate(hyp)]
    references = [[tokens(r, i == 0) for r in segment] for i, segment in enumerate(refs)]
    return bleu.corpus_statistics(hyps, references, max_order=4, options=options)


def test_every_stream_counts_what_the_plain_oracle_counts():
    table = _table(HYP, REFS)
    assert len(table.keys) == 4 * (3 * 2 + 3 * 2 * 2)
    differing = set()
    for key in table.keys:
        for rule in RULES:
            for floor in (0, 1):
                shared = table.statistics(key, rule, floor)
                assert shared == _plain_statistics(key, rule, floor, HYP, REFS), (key, rule, floor)
                differing.add((key.tokenizer, shared))
        assert list(table.segments_of(key)) and len(list(table.segments_of(key))) == len(HYP)
    assert len(differing) > 4 * 6  # the variants do differ from their bases on these lines


def test_segments_past_the_kept_ones_are_summed_alike():
    """Past its limit a table keeps no segment's statistics (a base stream's sums are then its kept segments' and
    running sums of the others): every stream's corpus statistics are still the plain oracle's."""
    table = _table(HYP, REFS, limit=2)
    assert not table.sentence_level
    for key in table.keys:
        for rule in RULES:
            assert table.statistics(key, rule, 1) == _plain_statistics(key, rule, 1, HYP, REFS), (key, rule)


@settings(max_examples=500, deadline=None)
@given(st.text(alphabet=st.one_of(st.characters(), st.sampled_from("AZaz@[`{ÄÉİΣ\ud83d\ude00")), max_size=30))
def test_ascii_folding_through_bytes_folds_what_the_table_folds(text):
    """`streams._ascii_lower` (through UTF-8 bytes) folds any str, lone surrogates included, as `str.translate`
    with the A-Z table does."""
    from oracle.doctor.streams import _ASCII_LOWER, _ascii_lower

    assert _ascii_lower(text) == text.translate(_ASCII_LOWER)


@pytest.mark.skipif(not WMT17.is_dir(), reason=f"the WMT17 files are not available ({WMT17} is absent)")
def test_on_wmt17_lines_too():
    def lines(name, count=150):
        with gzip.open(WMT17 / name, "rt", encoding="utf-8", newline="\n") as handle:
            return [next(handle)[:-1] for _ in range(count)]

    hyp = lines("newstest2017.PROMT-Rule-based.4735.en-de.txt.gz")  # no-break spaces
    refs = list(
        zip(
            lines("newstest2017.reference.en-de.txt.gz"), lines("newstest2017.uedin-nmt.4722.en-de.txt.gz"), strict=True
        )
    )
    table = _table(hyp, refs)
    for key in table.keys:
        assert table.statistics(key, "closest", 0) == _plain_statistics(key, "closest", 0, hyp, refs), key


#: Token lists from a small alphabet, so that n-grams repeat in the hypothesis, in a reference, in both and in
#: neither: the cases where `_count_in_python` takes its shortcuts (sets where no count can exceed 1 in the minimum).
TOKEN_LISTS = st.lists(st.sampled_from(["a", "b", "c", "A"]), max_size=14).map(tuple)


@settings(max_examples=1000, deadline=None)
@given(hypothesis=TOKEN_LISTS, references=st.lists(TOKEN_LISTS, min_size=1, max_size=3))
def test_the_shared_counting_gives_the_oracles_clipped_matches(hypothesis, references):
    """`streams._count_in_python` (one order at a time, minimums in C, sets once no n-gram repeats on both sides)
    equals the oracle's literal counting: `bleu.clipped_matches` over `bleu.count`, per order."""
    counted = _count_in_python((hypothesis, *references))
    literal = bleu.clipped_matches(bleu.count(hypothesis, 4), [bleu.count(r, 4) for r in references], 4)
    assert counted.matches == tuple(literal)
    assert (counted.hyp_len, counted.ref_lens) == (len(hypothesis), tuple(len(r) for r in references))


def _options():
    """Each profile under each smoothing computed in floating point, with each floor."""
    return [PROFILES[name].options.with_changes(smoothing=Smoothing(method), segment_totals_floor=floor)
            for name in PROFILES for method in SCREENED_METHODS for floor in (0, 1)]


OPTIONS = _options()


@st.composite
def rows(draw):
    c = draw(st.integers(0, 12))
    r = draw(st.integers(0, 14))
    matches = [draw(st.integers(0, max(c - n, 0))) for n in range(4)]
    return (c, r, *matches)


@settings(max_examples=1000, deadline=None)
@given(row=rows(), index=st.integers(0, len(OPTIONS) - 1))
def test_sentence_scores_in_floating_point_agree_with_the_exact_oracle(row, index):
    options = OPTIONS[index]
    c, r, *matches = row
    totals = tuple(max(c - n, 0, options.segment_totals_floor) for n in range(4))
    exact = bleu.bleu_from_statistics(bleu.Statistics(c, r, tuple(matches), totals), weights=UNIFORM,
                                      options=options, level="sentence").score
    fast = mean_sentence_score([row], options)
    if exact.is_nan():
        assert math.isnan(fast)
    else:
        assert abs(fast - float(exact)) <= 1e-13 * max(1.0, float(exact)) + 1e-15, (row, options, fast, exact)


def test_a_waterfall_ends_at_its_target_and_its_steps_add_up():
    table = _table(HYP, REFS)
    scorer = Scorer(table)
    start = Reading("mteval", "char", True, (("bom", "kept"),))
    end = Reading("nltk", "none", False, (("segment_totals_floor", 1), ("aggregation", "sentence-mean"),
                                          ("reference_length", "shortest"), ("smoothing", Smoothing("add-k"))))
    path = waterfall(Point("a", start, "0-100"), Point("b", end, "0-1"), scorer)
    assert [s.step for s in path.steps] == ["bom", "tokenizer", "case", "reference_length", "smoothing",
                                            "empty_order", "segment_totals_floor", "other", "aggregation", "scale"]
    assert path.start_score == scorer.value(start).score * 100
    assert path.end_score == scorer.value(end).score * 100
    assert abs(sum(s.delta for s in path.steps) - path.computed) <= 1e-12
