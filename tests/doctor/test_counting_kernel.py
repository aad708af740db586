"""The counting kernel (oracle/_counting.c) against the literal counting it replaces where it is built.

Holds: oracle.counting
"""

import os
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from oracle import counting
from oracle.formulas import bleu
from oracle.formulas.profiles import PROFILES
from oracle.formulas.tokenizers import TOKENIZERS, tokenize
from oracle.harness.generate import MAX_GENERATED_ORDER
from tests.strategies import MAX_ORDER, segments

ROOT = Path(__file__).resolve().parents[2]
kernel = pytest.importorskip("oracle._counting", reason="the counting kernel was not built here (no C compiler)")


def _fresh(tokens):
    """The same tokens as new string objects: tokenized text never shares objects between the two sides, so the
    kernel must compare tokens by value, not identity."""
    return tuple("".join(list(token)) for token in tokens)


@settings(max_examples=1500, deadline=None)
@given(segment=segments(max_length=14), max_order=st.integers(0, MAX_ORDER))
def test_the_kernel_counts_what_the_literal_counting_counts(segment, max_order):
    """Every segment the search draws (tests/strategies.py: repeated tokens, empty sides, 1-4 references, case
    variants, non-ASCII tokens), at every order up to the search's maximum: the same clipped matches per order as
    `bleu.clipped_matches` over `bleu.count`."""
    references = [_fresh(reference) for reference in segment.references]
    literal = counting.literal_clipped_matches(segment.hypothesis, references, max_order)
    assert kernel.clipped_matches(segment.hypothesis, references, max_order) == literal


@settings(max_examples=1000, deadline=None)
@given(segment=segments(max_length=14), tokenizer=st.sampled_from(tuple(TOKENIZERS)),
       profile=st.sampled_from(tuple(PROFILES)), lowercase=st.booleans(), max_order=st.integers(1, MAX_GENERATED_ORDER))
def test_the_statistics_are_the_same_counted_by_the_kernel_under_every_tokenizer_fold_and_order(
        segment, tokenizer, profile, lowercase, max_order):
    """What `score` and the oracle's expectation count with the kernel (`count_matches`): the search's segments
    (tests/strategies.py) as text, tokenized by each tokenizer under a profile's token split, line padding and
    case fold (folded before the tokenizer where the profile's fold stage is the line, after it otherwise), at every
    order the search draws: the same statistics as the formulas' own counting."""
    options = PROFILES[profile].options.with_changes(lowercase=lowercase)
    fold = options.case_fold if lowercase and options.fold_stage == "line" else None

    def tokens(sentence):
        return tokenize(" ".join(sentence), tokenizer, split=options.token_split, padding=options.line_padding,
                        fold=fold)

    hypothesis, references = tokens(segment.hypothesis), [tokens(reference) for reference in segment.references]
    literal = bleu.segment_statistics(hypothesis, references, max_order=max_order, options=options)
    assert bleu.segment_statistics(hypothesis, references, max_order=max_order, options=options,
                                   count_matches=kernel.clipped_matches) == literal


#: Long token lists from 2 tokens: n-grams repeat many times on both sides, and the kernel's table probes
#: past collisions (hash equal slots, n-grams that differ only in their last token).
REPEATING = st.lists(st.sampled_from(["x", "y"]), max_size=60).map(tuple)


@settings(max_examples=500, deadline=None)
@given(hypothesis=REPEATING, references=st.lists(REPEATING, min_size=1, max_size=4))
def test_the_kernel_clips_repeated_ngrams_as_the_literal_counting_does(hypothesis, references):
    assert kernel.clipped_matches(hypothesis, references, 4) == counting.literal_clipped_matches(
        hypothesis, references, 4)


def test_the_papers_example_clips_the_to_its_count_in_one_reference():
    """Papineni et al. (2002), section 2.1: the candidate "the the the the the the the" against "The cat is on
    the mat" and "There is a cat on the mat" has modified unigram precision 2/7: "the" is clipped to 2, its count
    in the first reference (lowercased here, as the paper's example counts "The" and "the" as one word). No
    bigram of the candidate ("the the") is in a reference: 0."""
    candidate = ("the",) * 7
    references = ["the cat is on the mat".split(), "there is a cat on the mat".split()]
    assert kernel.clipped_matches(candidate, references, 2) == (2, 0)


def test_an_error_in_a_token_comparison_is_raised_not_swallowed():
    class Unequal(str):
        def __eq__(self, other):
            raise ValueError("compared")

        __hash__ = str.__hash__

    with pytest.raises(ValueError, match="compared"):
        kernel.clipped_matches((Unequal("a"),), [("a",)], 1)


def test_the_switch_turns_the_kernel_off():
    """BLEU_ORACLE_KERNEL=0: every caller counts in Python (the reference), whether or not the kernel was built."""
    probe = "import oracle.counting as c; print(c.KERNEL, c.kernel_clipped_matches())"
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    on = subprocess.run([sys.executable, "-c", probe], env=env, capture_output=True, text=True, check=True, cwd=ROOT)
    env["BLEU_ORACLE_KERNEL"] = "0"
    off = subprocess.run([sys.executable, "-c", probe], env=env, capture_output=True, text=True, check=True, cwd=ROOT)
    assert (on.stdout.split()[0], off.stdout.split()) == ("True", ["False", "None"])


class _Colliding(str):
    """A token whose hash is every other's: only comparing tokens tells n-grams apart."""

    def __hash__(self):
        return 1


@settings(max_examples=300, deadline=None)
@given(hypothesis=REPEATING, references=st.lists(REPEATING, min_size=1, max_size=3))
def test_ngrams_of_equal_hash_are_told_apart_by_their_tokens(hypothesis, references):
    hypothesis = tuple(map(_Colliding, hypothesis))
    references = [tuple(map(_Colliding, reference)) for reference in references]
    assert kernel.clipped_matches(hypothesis, references, 4) == counting.literal_clipped_matches(
        hypothesis, references, 4)
