"""The sentence-cut rule of the diagnosis: where a segmenter cuts a token sequence into sentences.

One rule for the two places that read it: the error feature "sentence counts differ" (`errorcauses`) counts the
sentences it cuts, and the structural alternative "texts cut into sentences paired by position" (`structure`) scores
them. Both ask one question of it, so the count the feature holds is the number of pieces the alternative pairs;
it sits apart from both because `structure` reads `errorcauses` and `errorcauses` cannot read it back (an import
cycle)."""

from __future__ import annotations

from collections.abc import Sequence

#: The characters a sentence segmenter takes a token ending in for a sentence's end (nltk's sent_tokenize,
#: `text.split(". ")`).
SENTENCE_ENDS = (".", "!", "?")


def sentences(tokens: Sequence[str]) -> list[tuple[str, ...]]:
    """`tokens` cut after every token ending a sentence; tokens after the last end are one more sentence, and a
    sequence without tokens is one empty sentence."""
    pieces: list[tuple[str, ...]] = []
    start = 0
    for i, token in enumerate(tokens):
        if token.endswith(SENTENCE_ENDS):
            pieces.append(tuple(tokens[start:i + 1]))
            start = i + 1
    if start < len(tokens) or not pieces:
        pieces.append(tuple(tokens[start:]))
    return pieces
