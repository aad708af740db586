"""The runner's fast paths give exactly what the literal code gives, as property tests: counting by runs
(oracle.formulas.runs) against the literal count (`bleu.count`, section 2.1) over sentences built of runs of one
token, short and long, and over whole segments, whose statistics must equal those the literal formulas (count,
clipped_matches, effective_reference_length) give; the coverage table's reading of runs; the wire encoding of
long token sequences (oracle.models.wire), whole and in pieces, against json's own encoder.
"""

from __future__ import annotations

import json
from collections import Counter

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from oracle.formulas import bleu, runs
from oracle.formulas.conventions import Options
from oracle.harness import coverage
from oracle.models import wire
from oracle.models.protocol import ScoreRequest, Segment

SETTINGS = settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
#: for the properties over long sentences (hundreds of tokens each): fewer examples keep the file within seconds
LONG_SETTINGS = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])

TOKENS = st.sampled_from(["a", "b", "c", "", "a b", "日本"])


def run_sentences(longest_run: int, most_runs: int):
    """Token sequences made of runs: up to `most_runs` runs of 1..`longest_run` copies of a token."""
    return st.lists(st.tuples(TOKENS, st.integers(1, longest_run)), max_size=most_runs).map(
        lambda pairs: tuple(token for token, run in pairs for _ in range(run))
    )


@SETTINGS
@given(run_sentences(12, 12), st.integers(1, 14))
def test_count_by_runs_is_the_literal_count(tokens, max_order):
    assert runs.count_by_runs(tokens, max_order) == bleu.count(tokens, max_order)


@LONG_SETTINGS
@given(run_sentences(700, 5), st.integers(1, 12))
def test_count_by_runs_is_the_literal_count_on_long_runs(tokens, max_order):
    assert runs.count_by_runs(tokens, max_order) == bleu.count(tokens, max_order)


def literal_statistics(hypothesis, references, max_order, options):
    """The segment's statistics from the literal formulas alone."""
    hypothesis, references = bleu._prepare(hypothesis, references, options)
    orders = min(max_order, len(hypothesis))
    matches = bleu.clipped_matches(bleu.count(hypothesis, orders), [bleu.count(r, orders) for r in references],
                                   max_order)
    totals = [max(len(hypothesis) - n + 1, 0, options.segment_totals_floor) for n in range(1, max_order + 1)]
    r = bleu.effective_reference_length(len(hypothesis), [len(ref) for ref in references], options.reference_length)
    return bleu.Statistics(len(hypothesis), r, tuple(matches), tuple(totals), 1)


@LONG_SETTINGS
@given(run_sentences(400, 4), st.lists(run_sentences(400, 4), min_size=1, max_size=3), st.integers(1, 9),
       st.booleans())
def test_segment_statistics_by_runs_are_the_literal_ones(hypothesis, references, max_order, lowercase):
    options = Options(lowercase=lowercase)
    assert bleu.segment_statistics(hypothesis, references, max_order=max_order, options=options) == \
        literal_statistics(hypothesis, references, max_order, options)


def test_a_very_long_run_is_counted_by_runs_and_exactly():
    """The generator's shape: a run of 65,600 copies, its reference one token shorter (hand derivation: a run of
    L tokens holds L - n + 1 n-grams of order n; clipped by the reference's 65,599 - n + 1)."""
    hypothesis, reference = ("the",) * 65_600, ("the",) * 65_599
    assert runs.mostly_runs(hypothesis, 4)
    counts = runs.count_by_runs(hypothesis, 4)
    assert counts == Counter({("the",) * n: 65_600 - n + 1 for n in range(1, 5)})
    stats = bleu.segment_statistics(hypothesis, [reference], max_order=4)
    assert stats.matches == tuple(65_599 - n + 1 for n in range(1, 5))
    assert stats.totals == tuple(65_600 - n + 1 for n in range(1, 5))


def test_a_sentence_of_many_runs_is_counted_literally():
    assert not runs.mostly_runs(("a", "b") * 500, 4)
    assert not runs.mostly_runs(("a",) * 100, 4)  # short: the literal count is cheap


@LONG_SETTINGS
@given(st.one_of(run_sentences(12, 12), run_sentences(700, 5)))
def test_coverage_reads_runs_as_it_reads_tokens(tokens):
    """The coverage table's fast paths on runs: the same adjacent pairs and token counts as read token by token."""
    assert coverage._adjacent_pairs(tokens, runs.run_lengths(tokens)) == set(zip(tokens, tokens[1:], strict=False))
    assert coverage._token_counts(tokens) == Counter(tokens)
    assert coverage._token_counts(tokens, runs.run_lengths(tokens)) == Counter(tokens)  # (its runs already read)


@pytest.mark.parametrize(("references", "clipped"), [
    ((("a",) * 300,), True),  # the reference holds "a" 300 times, as the hypothesis does: clipped at the maximum
    ((("a",) * 299 + ("b",),), False),  # 299 times: fewer than the hypothesis's 300
    ((("a",) * 299 + ("b",), ("a", "b") * 150), False),  # 299 and 150 times (the second read token by token)
    ((("a", "b") * 150, ("a",) * 300), True),  # the second reference reaches 300
])
def test_clipping_at_the_maximum_read_from_each_sequences_own_runs(references, clipped):
    """A long segment's clipping feature counts each sequence by its own runs (read once, by `_sequence_features`):
    the hypothesis is 300 copies of "a", so the feature is there exactly when a reference holds "a" 300 times."""
    request = ScoreRequest(seq=0, level="sentence", weights=(0.25,) * 4, smoothing="none", lowercase=False,
                           segments=(Segment(hypothesis=("a",) * 300, references=references),))
    assert ("clip-at-maximum" in coverage.segment_features(request)) is clipped


LONG = wire.LONG_SEQUENCE + 1


@LONG_SETTINGS
@given(st.lists(st.text(max_size=4), min_size=1, max_size=4), st.integers(0, 3), st.lists(st.text(max_size=3)),
       st.booleans(), st.booleans())
def test_a_long_sequence_is_encoded_as_json_encodes_it(pool, rotate, short, ensure_ascii, as_tuple):
    """A request line with long token sequences (built from their distinct tokens) is the line json's own encoder
    writes, character for character; NUL and tokens spelled like the stand-ins included."""
    long = [pool[(i + rotate) % len(pool)] for i in range(LONG)]
    pool_tokens = tuple(long) if as_tuple else long
    command = {"cmd": "score", "seq": 3, "segments": [
        {"hypothesis": pool_tokens, "references": [short, long[:LONG - rotate], ["\x000\x00", *long]]},
        {"hypothesis": short, "references": [["\x001\x00"]]},
    ], "weights": [0.25] * 4}
    plain = json.dumps(command, ensure_ascii=ensure_ascii, allow_nan=False, separators=(",", ":"))
    assert wire.encode(command, ensure_ascii=ensure_ascii) == plain
    assert "".join(wire.encoded_pieces(command, ensure_ascii=ensure_ascii)) == plain  # (what a record digest hashes)


def test_a_line_of_a_long_run_is_given_in_pieces():
    """65,600 copies of one token (the search's longest run): the line in pieces of PIECE_TOKENS tokens, no piece a
    whole sequence; joined, json's own encoding of the command."""
    command = {"cmd": "score", "segments": [{"hypothesis": ["\u00e9t\u00e9"] * 65_600, "references": [["a"] * 65_599]}]}
    pieces = list(wire.encoded_pieces(command, ensure_ascii=False))
    assert "".join(pieces) == json.dumps(command, ensure_ascii=False, separators=(",", ":"))
    # '"été",' is 6 characters a token: a piece of 4,096 tokens is 24,575 (its last comma is the next piece's)
    assert max(map(len, pieces)) == wire.PIECE_TOKENS * 6 - 1


@pytest.mark.parametrize("period", [1, 2, 3, 4097], ids=["run", "pairs-aligned", "threes-shifting", "no-repeat"])
def test_the_pieces_of_a_long_sequence_are_shared_where_they_repeat(period):
    """A piece of the same tokens as the piece before it is that piece's string again (a run's line joined from
    pieces takes the room of one piece beside it, not of the line again); a piece of other tokens is its own text.
    Joined, every piece is json's own encoding of the command."""
    tokens = [f"t\u00e9{i % period}" for i in range(3 * wire.PIECE_TOKENS + 5)]
    command = {"cmd": "score", "segments": [{"hypothesis": tokens, "references": [tokens[:-1]]}]}
    for ensure_ascii in (True, False):
        pieces = list(wire.encoded_pieces(command, ensure_ascii=ensure_ascii))
        plain = json.dumps(command, ensure_ascii=ensure_ascii, separators=(",", ":"))
        assert "".join(pieces) == plain and wire.encode(command, ensure_ascii=ensure_ascii) == plain
        full = [piece for piece in pieces if len(piece) > 1000]  # the hypothesis's 3 whole pieces, the reference's
        assert len(full) == 6
        same_tokens = wire.PIECE_TOKENS % period == 0  # each piece starts at the same place of the period
        assert (full[0] is full[1] is full[2]) == same_tokens and (full[3] is full[4] is full[5]) == same_tokens


@SETTINGS
@given(st.lists(st.tuples(run_sentences(3, 4), st.lists(run_sentences(3, 4), min_size=1, max_size=2)), min_size=1,
                max_size=3))
def test_concatenations_are_found_as_defined(segments):
    """"two different n-grams whose tokens concatenate to the same string": any two distinct adjacent pairs of the
    request's sequences, compared once over the whole request."""
    request = ScoreRequest(seq=0, level="corpus", weights=(0.25,) * 4, smoothing="none", lowercase=False,
                           segments=tuple(Segment(hypothesis=h, references=tuple(r)) for h, r in segments))
    pairs = {pair for h, refs in segments for tokens in (h, *refs) for pair in zip(tokens, tokens[1:], strict=False)}
    colliding = any(a != b and "".join(a) == "".join(b) for a in pairs for b in pairs)
    assert ("concatenations" in coverage.features(request)) == colliding
