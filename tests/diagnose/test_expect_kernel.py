"""The oracle's expectation counted by the compiled kernel against the same expectation counted literally.

`oracle.diagnose.expect.oracle_result` passes the kernel (`oracle.counting`) to the formulas as `count_matches`
where it was built; without it, the formulas count with `bleu.clipped_matches` over `bleu.count`, the reference.
These tests draw the search's own inputs (`oracle.harness.generate`: every focus of FOCI, the text companion under
each tokenizer, the refused companion, a series' steps, the brackets and line-ends companions), score each under a
drawn profile (its case fold, fold stage, token split and line padding) with the kernel and with the literal
counting, and require the same expectation: the statistics' exact integers, the exact score, the notes, the
rejection and its reason.

Holds: oracle.diagnose.expect
"""

from __future__ import annotations

from unittest import mock

import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from oracle import counting
from oracle.diagnose.expect import oracle_expected, oracle_result
from oracle.formulas import bleu
from oracle.formulas.errors import BleuOracleError
from oracle.formulas.profiles import PROFILES
from oracle.formulas.tokenizers import TOKENIZERS
from oracle.harness.generate import (
    FOCI,
    bracket_request,
    companion_rng,
    example_rng,
    generate_request,
    line_end_request,
    text_request,
)
from oracle.harness.refused import refused_request
from oracle.harness.work.series import series_steps
from oracle.models.protocol import Capabilities, ScoreRequest, Segment

pytest.importorskip("oracle._counting", reason="the counting kernel was not built here (no C compiler)")

#: Everything the search can send: both levels, any weights up to its largest generated order, every smoothing,
#: lowercase; the text companion under one tokenizer at a time (drawn), so each is drawn as often.
_WIDE = dict(levels=["corpus", "sentence"], weights="any", max_order=12,
             smoothing=["none", "floor", "add-k", "exp", "chen-cherry-1", "chen-cherry-2", "chen-cherry-3",
                        "chen-cherry-4", "chen-cherry-5", "chen-cherry-6", "chen-cherry-7", "lin-2004"],
             statistics=True, lowercase=True)
CAPABILITIES = {tokenizer: Capabilities(**_WIDE, tokenizers=[tokenizer]) for tokenizer in TOKENIZERS}


def _literal():
    """The kernel out of use, as where it was not built: every caller counts with the formulas' own counting."""
    return mock.patch.object(counting, "_KERNEL", None)


def _both(request, profile):
    """(with the kernel, literally): the expectation, and the result counted through a caller's `counted` dict
    (the classifier's path, `_result_from_counts`), its statistics and exact score, or the rejection's text."""

    def counted_result():
        try:
            result = oracle_result(request, PROFILES[profile].options, counted={})
        except BleuOracleError as exc:
            return str(exc)
        return result.statistics, result.score, result.notes

    kernel = (oracle_expected(request, profile), counted_result())
    with _literal():
        literal = (oracle_expected(request, profile), counted_result())
    return kernel, literal


@st.composite
def search_inputs(draw, profile):
    """An input the search sends when judging against `profile`: an example of a drawn focus, or one of its
    companions (text, refused, a step of a series, brackets, line ends), each from the search's own generator and
    seeded random streams, with uniform weights where the profile takes no others (as the runner draws for such an
    implementation)."""
    seed, index = draw(st.integers(0, 2**16)), draw(st.integers(0, 2**16))
    capabilities = CAPABILITIES[draw(st.sampled_from(tuple(TOKENIZERS)))]
    uniform_only = PROFILES[profile].options.uniform_weights_only
    kind = draw(st.sampled_from(("example", "text", "refused", "series", "brackets", "line-ends")))
    if kind == "example":
        return generate_request(example_rng(seed, index), capabilities, uniform_only=uniform_only,
                                focus=draw(st.sampled_from(FOCI)))
    rng = companion_rng(seed, index, kind)
    if kind == "text":
        return text_request(rng, capabilities, uniform_only=uniform_only)
    if kind == "refused":
        return refused_request(rng, capabilities, uniform_only=uniform_only)
    if kind == "brackets":
        return bracket_request(rng, capabilities, uniform_only=uniform_only)
    if kind == "line-ends":
        return line_end_request(rng, capabilities, uniform_only=uniform_only)
    return draw(st.sampled_from(series_steps(rng, capabilities, length=8, uniform_only=uniform_only))).request


@settings(max_examples=1000, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data(), profile=st.sampled_from(tuple(PROFILES)))
def test_the_expectation_is_the_same_counted_by_the_kernel_or_literally(data, profile):
    assert counting.kernel_clipped_matches() is not None, "the kernel is built but out of use (BLEU_ORACLE_KERNEL=0?)"
    request = data.draw(search_inputs(profile))
    kernel, literal = _both(request, profile)
    event("rejected" if kernel[0].rejected else "scored")
    assert repr(kernel) == repr(literal)  # repr: a NaN score (an undefined input's acceptable values) equals itself


def test_the_expectation_counts_with_the_kernel_where_it_is_in_use():
    """The expectation does call the kernel (a spy in its place): otherwise the test above compares the literal
    counting with itself."""
    calls = []

    class Spy:
        @staticmethod
        def clipped_matches(hypothesis, references, max_order):
            calls.append((hypothesis, tuple(references), max_order))
            return counting.literal_clipped_matches(hypothesis, references, max_order)

    request = ScoreRequest(seq=0, level="sentence", weights=(0.5, 0.5),
                           segments=(Segment(hypothesis=("a", "b"), references=(("a", "b"),)),))
    with mock.patch.object(counting, "_KERNEL", Spy):
        expected = oracle_expected(request, "papineni")
    assert calls == [(("a", "b"), (("a", "b"),), 2)]
    # "a b" against itself: 2 of 2 unigrams and 1 of 1 bigram match; BP 1, BLEU 1
    assert (expected.statistics.matches, expected.statistics.totals, expected.score_exact) == ((2, 1), (2, 1), "1")


def test_the_literal_path_scores_where_the_kernel_is_out_of_use():
    """Without the kernel (not built, or BLEU_ORACLE_KERNEL=0) the expectation counts with the formulas: the
    paper's example (Papineni et al. 2002, section 2.1), "the the the the the the the" against "The cat is on the
    mat" and "There is a cat on the mat", lowercased: "the" clipped to 2 (its count in the first reference), so 2
    of 7 unigrams match; no bigram "the the" is in a reference: 0 of 6."""
    request = ScoreRequest(seq=0, level="sentence", weights=(0.5, 0.5), lowercase=True, segments=(Segment(
        hypothesis=("the",) * 7,
        references=(tuple("The cat is on the mat".split()), tuple("There is a cat on the mat".split()))),))
    with _literal(), mock.patch.object(bleu, "count", wraps=bleu.count) as literal_count:
        expected = oracle_expected(request, "papineni")
    assert literal_count.called  # the formulas' own counting, not the kernel
    assert (expected.statistics.matches, expected.statistics.totals) == ((2, 0), (7, 6))
