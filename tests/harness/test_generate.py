"""The random inputs of the differential search: deterministic, valid, safe tokens, and aimed at the differences.

Holds: oracle.harness.generate
"""

from __future__ import annotations

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from strategies import segments as drawn_segments

from oracle.diagnose.expect import oracle_expected
from oracle.formulas.profiles import PROFILES
from oracle.harness.generate import (
    ALPHABET,
    FOCI,
    FORBIDDEN_CHARACTERS,
    LINE_END_CHARACTERS,
    SPLIT_CHARACTERS,
    VOCABULARY,
    bracket_request,
    companion_rng,
    companions,
    example_id,
    example_request,
    fit_to_capabilities,
    is_safe_token,
    line_end_request,
    text_request,
    uniform_weights,
)
from oracle.harness.requests import is_uniform, not_applicable_reason
from oracle.models.protocol import Capabilities, ScoreRequest, Segment

ALL = Capabilities(
    levels=["corpus", "sentence"], weights="any", max_order=12,
    smoothing=["none", "floor", "add-k", "exp", "chen-cherry-1", "chen-cherry-2", "chen-cherry-3",
               "chen-cherry-4", "chen-cherry-5", "chen-cherry-6", "chen-cherry-7", "lin-2004"],
    statistics=True, lowercase=True,
)
NARROW = Capabilities(levels=["sentence"], weights="uniform", max_order=2, smoothing=["floor"], statistics=False,
                      lowercase=False)


def sample(capabilities=ALL, seed=0, n=300, **kw):
    return [example_request(seed, i, capabilities, **kw) for i in range(n)]


def all_tokens(request):
    for segment in request.segments:
        yield from segment.hypothesis
        for reference in segment.references:
            yield from reference


def test_the_same_seed_and_index_give_the_same_request_and_others_differ():
    assert sample(seed=7, n=50) == sample(seed=7, n=50)
    assert sample(seed=7, n=50) != sample(seed=8, n=50)
    # example i does not depend on the examples before it
    assert example_request(7, 33, ALL) == sample(seed=7, n=40)[33]
    assert example_id(7, 33) == "random-7-33"


def test_split_characters_include_the_surprising_ones():
    for ch in ("\x1c", "\x1d", "\x1e", "\x1f", "\x85", "\xa0", "\u2028", "\u3000", " ", "\t"):
        assert ch in SPLIT_CHARACTERS, repr(ch)
        assert ch.join(["a", "b"]).split() == ["a", "b"]
    assert SPLIT_CHARACTERS <= FORBIDDEN_CHARACTERS
    assert all(is_safe_token(t) for t in VOCABULARY)
    assert all(is_safe_token(ch) for ch in ALPHABET)
    assert (
        not is_safe_token("") and not is_safe_token("a\x85b") and not is_safe_token("a\x1fb") and not is_safe_token(3)
    )


#: A span from "(" to the next ")" with something between, as a script removing utterance ids deletes from every
#: hypothesis and reference line (tests/fakes/realbleu_heldout3.py's `parenthesised-text-removed`).
PARENTHESISED_SPAN = re.compile(r"\([^)]+\)")
#: What tests/fakes/realbleu_heldout3.py declares (no tokenizer: only token requests), and the same with sacrebleu's
#: tokenizers declared (text companions too).
TOKENS_ONLY = Capabilities(levels=["corpus", "sentence"], weights="any", max_order=12,
                           smoothing=["none", "floor", "add-k", "exp", "chen-cherry-4"], statistics=True,
                           lowercase=True)
WITH_TOKENIZERS = TOKENS_ONLY.model_copy(update={"tokenizers": ["13a", "intl", "char", "none"]})
#: A text library's adapter: every character str.split() splits on forbidden in a token (so every line end), its
#: tokenizers declared.
TEXT_WITH_TOKENIZERS = WITH_TOKENIZERS.model_copy(update={
    "forbidden_token_characters": "".join(sorted(SPLIT_CHARACTERS)), "empty_tokens": False})


def _requests_sent(capabilities, seed=0, n=200):
    """The score requests the search draws for the first `n` examples of `seed`: each example, its text companion
    and its brackets companion (as `oracle.harness.work.examples.judge_companions` draws them)."""
    for index in range(n):
        yield example_request(seed, index, capabilities)
        kinds = companions(index, capabilities)
        if "text" in kinds:
            yield text_request(companion_rng(seed, index, "text"), capabilities)
        if "brackets" in kinds:
            yield bracket_request(companion_rng(seed, index, "brackets"), capabilities)


@pytest.mark.parametrize("capabilities", [TOKENS_ONLY, WITH_TOKENIZERS], ids=["tokens-only", "with-tokenizers"])
def test_the_default_search_sends_bracket_pairs(capabilities):
    """A script that reads a line as text before counting (deleting every "(...)" span) is seen only by a request
    whose lines hold one; before the "brackets" companion, no token request of the default 200 examples held one
    (0 of 200 at seeds 0 to 4), and an implementation without tokenizers gets no text request. Expected count, by
    hand: the companion comes on indices 2, 12, ..., 192 (20 of 200); its vocabulary is k plain tokens (k <= 7) and
    the 9 BRACKET_TOKENS, 3 of which hold a pair alone ("(a)", "(b)", "x(y)z"), so each token of a line is one of them
    with probability >= 3/16; a hypothesis has 71/15 (about 4.7) tokens on average (HYPOTHESIS_LENGTHS) and 1 to 4
    references beside it, so a request misses every such token with probability at most about (13/16)^4.7 = 0.38
    (fewer: "(" ... ")" across tokens counts too): at least about 12 of 20 expected, 10 asserted."""
    lines = [[" ".join(line) for segment in request.segments for line in (segment.hypothesis, *segment.references)]
             for request in _requests_sent(capabilities)]
    assert sum(any(PARENTHESISED_SPAN.search(line) for line in request) for request in lines) >= 10


def test_the_brackets_companion_only_where_brackets_are_taken():
    """No brackets companion where "(" or ")" is a forbidden token character (the pairs would be stripped from its
    tokens); where it comes, it is a token request within the capabilities, the same each time it is drawn."""
    plain_words = TOKENS_ONLY.model_copy(update={"forbidden_token_characters": "()"})
    assert "brackets" in companions(2, TOKENS_ONLY) and "brackets" not in companions(3, TOKENS_ONLY)
    assert "brackets" not in companions(2, plain_words)
    request = bracket_request(companion_rng(0, 2, "brackets"), TOKENS_ONLY)
    assert request == bracket_request(companion_rng(0, 2, "brackets"), TOKENS_ONLY)
    assert not request.is_text and not_applicable_reason(request, TOKENS_ONLY) is None


#: Where str.splitlines ends a line and str.split("\n") does not (Python's documentation of str.splitlines), CR LF
#: aside: what a caller writing one segment a line and reading it back cuts a segment at.
LINE_ENDS = re.compile("[\r\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029]")


def _holds_line_end(request):
    return any(LINE_ENDS.search(piece) for segment in request.segments
               for side in (segment.hypothesis, *segment.references)
               for piece in ((side,) if request.is_text else side))


def test_the_default_search_sends_line_ends_in_tokens_and_in_texts():
    """Issue 36, fifth held-out set: before the "line-ends" companion no token request held a line end other than LF,
    so a caller reading its files back with str.splitlines or universal newlines passed. The companion comes on
    indices 4, 14, ..., 194 (20 of 200). Tokens only: its vocabulary is k <= 7 plain tokens and LINE_END_TOKENS, 13 of
    whose 15 hold a line end, so a token holds one with probability >= 13/22; a request holds none only if its every
    hypothesis and reference does, at most about P(hypothesis without one) = sum over HYPOTHESIS_LENGTHS of
    (9/22)^L / 15 = 0.16 (references ignored): about 17 of 20 expected, 14 asserted. Every token character forbidden
    (a text library's adapter) with tokenizers declared: a text request whose every hypothesis gets one: 20 of 20."""
    tokens = [line_end_request(companion_rng(0, i, "line-ends"), TOKENS_ONLY) for i in range(200)
              if "line-ends" in companions(i, TOKENS_ONLY)]
    assert len(tokens) == 20 and all(not r.is_text for r in tokens)
    assert sum(map(_holds_line_end, tokens)) >= 14
    texts = [line_end_request(companion_rng(0, i, "line-ends"), TEXT_WITH_TOKENIZERS) for i in range(200)
             if "line-ends" in companions(i, TEXT_WITH_TOKENIZERS)]
    assert len(texts) == 20 and all(r.is_text for r in texts) and all(map(_holds_line_end, texts))


def test_the_line_ends_companion_only_where_a_line_end_can_be_sent():
    """No companion where every line end is a forbidden token character and no tokenizer is declared; where it comes,
    a request within the capabilities, the same each time it is drawn."""
    no_line_ends = TOKENS_ONLY.model_copy(update={"forbidden_token_characters": LINE_END_CHARACTERS})
    assert "line-ends" in companions(4, TOKENS_ONLY) and "line-ends" not in companions(5, TOKENS_ONLY)
    assert "line-ends" not in companions(4, no_line_ends)
    assert "line-ends" in companions(4, no_line_ends.model_copy(update={"tokenizers": ["13a"]}))
    for capabilities in (TOKENS_ONLY, TEXT_WITH_TOKENIZERS):
        request = line_end_request(companion_rng(0, 4, "line-ends"), capabilities)
        assert request == line_end_request(companion_rng(0, 4, "line-ends"), capabilities)
        assert not_applicable_reason(request, capabilities) is None


def test_the_examples_themselves_hold_no_line_end_in_a_token():
    """The companion draws from its own generator: the examples are what they were, and (as before it) none of the
    first 200 of seed 0 holds a line end other than LF in a token (the whitespace family's "a\nb" is LF)."""
    examples = (example_request(0, i, TOKENS_ONLY) for i in range(200))
    assert not any(_holds_line_end(request) for request in examples if not request.is_text)


#: What a text-based library's adapter declares: tokens joined by spaces and split again.
TEXT = ALL.model_copy(update={"forbidden_token_characters": "".join(sorted(SPLIT_CHARACTERS)), "empty_tokens": False})


def test_tokens_within_declared_limits_survive_joining_with_spaces():
    for request in sample(TEXT):
        assert not_applicable_reason(request, TEXT) is None
        for segment in request.segments:
            for sequence in (segment.hypothesis, *segment.references):
                assert " ".join(sequence).split() == list(sequence)


def _literal_fit(request, capabilities):
    """`fit_to_capabilities`' token rule as it reads, a token at a time: every forbidden character removed, a token
    emptied so "x" where empty tokens are not taken."""
    forbidden = set(capabilities.forbidden_token_characters or "")

    def fit(token):
        clean = "".join(ch for ch in token if ch not in forbidden)
        return "x" if capabilities.empty_tokens is False and not clean else clean

    return request.model_copy(update={"segments": tuple(
        Segment(hypothesis=tuple(map(fit, s.hypothesis)), references=tuple(tuple(map(fit, r)) for r in s.references))
        for s in request.segments)})


def test_examples_fitted_to_forbidden_characters_are_fitted_token_by_token():
    """Drawing reads no capability fitting changes: example i drawn for TEXT (split characters forbidden, no empty
    token) is example i drawn for ALL with each token fitted literally, the 65,600-token run (example 29) among them;
    fitting each distinct token once and keeping the segments it leaves alone changes no token."""
    for index in range(30):
        assert example_request(3, index, TEXT) == _literal_fit(example_request(3, index, ALL), TEXT), index


@given(data=st.data(), forbidden=st.text("ab \t\x00", max_size=3), empty_tokens=st.sampled_from([None, False, True]))
@settings(max_examples=200, deadline=None)
def test_fitting_a_request_is_fitting_each_token(data, forbidden, empty_tokens):
    """`fit_to_capabilities` on tokens holding forbidden characters in some segments and not in others, some tokens
    emptied: the literal fit, token by token; a segment holding no token that changes comes back equal."""
    vocabulary = data.draw(st.lists(st.text("ab \t\x00c", max_size=3), min_size=1, max_size=6, unique=True))
    segments = data.draw(st.lists(drawn_segments(vocabulary), min_size=1, max_size=4))
    request = ScoreRequest(level="corpus", segments=tuple(segments), weights=(0.5, 0.5))
    capabilities = ALL.model_copy(update={"forbidden_token_characters": forbidden, "empty_tokens": empty_tokens})
    fitted = fit_to_capabilities(request, capabilities)
    if forbidden or empty_tokens is False:
        assert fitted == _literal_fit(request, capabilities)
    else:
        assert fitted is request


def test_without_limits_every_token_family_is_sent():
    tokens = {t for r in sample(n=200) for t in all_tokens(r)}
    assert "" in tokens and "a b" in tokens and "\x00" in tokens and "__proto__" in tokens and "<unk>" in tokens
    assert any(ord(ch) > 0xFFFF for t in tokens for ch in t)
    assert {"e\u0301", "é"} <= tokens and {"ß", "SS", "ss"} <= tokens and {"ab", "c", "a", "bc"} <= tokens
    assert not all(is_safe_token(t) for t in tokens)


def test_each_focus_appears_within_one_cycle_of_any_seed():
    for seed in (0, 1, 17):
        requests = [example_request(seed, i, ALL) for i in range(len(FOCI))]
        assert max(max(len(s.hypothesis) for s in r.segments) for r in requests) >= 100
        assert max(len(r.segments) for r in requests) >= 100
        assert max(len(s.references) for r in requests for s in r.segments) >= 5
        assert any(0 < w <= 0.01 for r in requests for w in r.weights)


@pytest.mark.parametrize("profile", sorted(PROFILES))
def test_every_generated_request_is_valid_under_the_profile_and_travels_in_protocol_v1(profile):
    uniform_only = PROFILES[profile].options.uniform_weights_only
    for request in sample(n=120, uniform_only=uniform_only):
        expected = oracle_expected(request, profile)
        assert not expected.rejected, (request, expected.reason)
        ScoreRequest.from_json(request.to_json())  # the wire form reads back: ProtocolError if it could not be sent
        assert not_applicable_reason(request, ALL) is None


def test_narrow_capabilities_are_respected():
    for request in sample(NARROW, n=200):
        assert request.level == "sentence" and len(request.segments) == 1
        assert len(request.weights) <= 2 and is_uniform(request.weights)
        assert request.smoothing.method == "floor" and "value" in request.smoothing.parameters
        assert request.lowercase is False
        assert not_applicable_reason(request, NARROW) is None


def test_uniform_only_profiles_get_uniform_weights_even_from_any_capabilities():
    assert all(is_uniform(r.weights) for r in sample(n=200, uniform_only=True))
    assert uniform_weights(3) == (1 / 3,) * 3


def test_the_inputs_cover_the_places_where_implementations_differ():
    requests = sample(n=400)
    segments = [s for r in requests for s in r.segments]
    assert any(not s.hypothesis for s in segments), "empty hypotheses"
    assert any(any(not ref for ref in s.references) for s in segments), "empty references"
    assert any(0 < len(s.hypothesis) < 4 for s in segments), "segments shorter than the max order"
    assert {len(s.references) for s in segments} >= {1, 2, 3, 4}
    ties = 0
    for s in segments:
        c = len(s.hypothesis)
        distances = sorted((abs(len(ref) - c), len(ref)) for ref in s.references)
        if len(distances) > 1 and distances[0][0] == distances[1][0] and distances[0][1] != distances[1][1]:
            ties += 1
    assert ties >= 10, "reference-length ties between a shorter and a longer reference"
    assert any(len(s.hypothesis) >= 3 and len(set(s.hypothesis)) == 1 for s in segments), "repeated tokens"
    assert any(not all(t.isascii() for t in all_tokens(r)) for r in requests), "non-ASCII tokens"
    assert any(r.lowercase and any(t != t.lower() for t in all_tokens(r)) for r in requests), (
        "mixed case with lowercase"
    )
    assert any(0.0 in r.weights for r in requests), "zero weights"
    assert any(abs(sum(r.weights) - 1) > 1e-9 for r in requests), "weights not summing to one"
    assert {len(r.weights) for r in requests} >= set(range(1, 13))
    assert {r.smoothing.method for r in requests} == set(ALL.smoothing)
    assert {r.level for r in requests} == {"corpus", "sentence"}
    assert any(all(not s.hypothesis and not any(s.references) for s in r.segments) for r in requests), "c = r = 0"


@given(seed=st.integers(0, 2**32), size=st.integers(0, 300), count=st.integers(0, 400))
@settings(max_examples=200, deadline=None)
def test_choices_of_draws_what_choice_draws_and_leaves_the_generator_alike(seed, size, count):
    """The generator's fast path of `[rng.choice(population) for _ in range(count)]`: the same tokens, and the
    generator in the same state afterwards (every later draw of the example unchanged); an empty population
    raises as `choice` does."""
    import random

    from oracle.harness.generate import choices_of

    population = [f"t{i}" for i in range(size)]
    fast, literal = random.Random(seed), random.Random(seed)
    if size == 0 and count:
        with pytest.raises(IndexError):
            choices_of(fast, population, count)
        return
    assert choices_of(fast, population, count) == [literal.choice(population) for _ in range(count)]
    assert fast.getstate() == literal.getstate()
