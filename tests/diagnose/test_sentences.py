"""The diagnosis's one sentence-cut rule: the error feature "sentence counts differ" counts the pieces the structural
alternative "texts cut into sentences paired by position" pairs. Every cut below is written by hand from the rule a
segmenter applies to tokens (nltk's sent_tokenize, `text.split(". ")`): a sentence ends after a token ending in '.',
'!' or '?'; tokens after the last end are one more sentence; no tokens at all are one empty sentence.

Holds: oracle.diagnose.sentences
"""

from __future__ import annotations

import pytest

from oracle.diagnose import errorcauses
from oracle.diagnose.sentences import sentences


@pytest.mark.parametrize("tokens, cut", [
    ((), [()]),  # a text without tokens: one empty sentence, not none
    (("a", "b"), [("a", "b")]),  # no end at all
    (("a", "b."), [("a", "b.")]),  # an end as the last token adds no sentence after it
    (("a.", "b."), [("a.",), ("b.",)]),
    (("It", "rained", ".", "We", "stayed", "in", "."), [("It", "rained", "."), ("We", "stayed", "in", ".")]),  # 13a
    (("Yes!", "Go"), [("Yes!",), ("Go",)]),  # tokens after the last end are one more sentence
    (("Why?", "Because", "...", "so"), [("Why?",), ("Because", "..."), ("so",)]),  # an ellipsis ends in '.'
    (("3.5", "kg", "e.g", "a,"), [("3.5", "kg", "e.g", "a,")]),  # a '.' inside a token, a ',' at its end: no end
])
def test_a_token_sequence_is_cut_after_each_sentence_end_and_counted_as_cut(tokens, cut):
    assert sentences(tokens) == cut
    # the error feature's count is the number of pieces the structural alternative pairs
    assert errorcauses._sentence_count(tokens) == len(cut)
