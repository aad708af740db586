"""Counting alternatives, declared here (`COUNTING_ALTERNATIVES`, in the order the search tries them; the capped
families, `CAPPED_SIDES`): other ways of counting c, r, matches and totals, recognised by statistics an
implementation returns exactly (their countings, the how, are `oracle.diagnose.counting`'s functions); and
`other-counting-of-<layer>`, the family named where the implementation's counts differ and no alternative gives
them (its own counts, scored by the formulas, giving its answer; its score agreeing; or no score for them to test:
each record's own words say which, the family's only what is known of them all)."""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable, Sequence
from typing import Any

from oracle.diagnose import countfit, counting
from oracle.diagnose.counting import (
    ALL_LAYERS,
    MATCHES,
    TRUNCATION_LENGTHS,
    best_single_reference_matches,
    bpe_merged,
    capped_counts,
    case_changed_matches,
    character_length_counts,
    chopped_counts,
    counts_of_segments,
    counts_of_tokens,
    cut_at_first_line_break,
    distance_reference_lengths,
    distinct_ngram_counts,
    empty_reference_totals,
    end_token_counts,
    equal_direction_counts,
    first_reference_counts,
    folding,
    joined_key_matches,
    last_ngram_dropped_counts,
    length_of_one_segment,
    matches_moved_by_spaces,
    normalised_fraction_counts,
    nul_padded_array_counts,
    object_member_unigrams_unmatched,
    one_layer,
    one_reference_length,
    order_read_from_spaces,
    pad_and_eos_trimmed,
    parenthesised_text_removed,
    reference_count_matches,
    reference_recall_counts,
    reference_sum_matches,
    running_length_reference_counts,
    strict_clip_matches,
    totals_one_short,
    truncated_counts,
    unclipped_matches,
    unk_never_matched,
    unless_options,
    wrapped_count_matches,
)

from .model import COUNT_LAYERS, COUNTING, RECOMPUTE, SCORE, Mechanism, Route
from .structure import ONE_SIDE_COUNTINGS

#: name -> (what the code does, the layers it may change, how to count: the layers it changes as
#: {layer: counts}, or None where the
#: alternative does not apply to the request). Layers: "ref_len", "matches", "totals".
COUNTING_ALTERNATIVES: dict[
    str, tuple[str, frozenset[str], Callable[[Sequence[Any], int, Any], dict[str, Any] | None]]
] = {
    # first, the case mechanisms: where a request's case decides its matches, a clipping alternative can fit a
    # single record by chance (strict-clipping: "The" against "the" counts 0); the flag ignored before one side
    # folded alone, which it is where that side has nothing to fold
    "case-not-folded": (
        "the request's lowercase flag ignored: case kept where the request folds it",
        MATCHES,
        one_layer(
            "matches",
            unless_options(
                lambda options: options.lowercase,
                lambda segments, n, options: case_changed_matches(segments, n, options, lowercase=False),
            ),
        ),
    ),
    "case-folded-unasked": (
        "case folded though the request keeps it (an implementation that always lowercases)",
        MATCHES,
        one_layer(
            "matches",
            unless_options(
                lambda options: not options.lowercase,
                lambda segments, n, options: case_changed_matches(segments, n, options, lowercase=True),
            ),
        ),
    ),
    **ONE_SIDE_COUNTINGS,  # (the structure kind's, declared in mechanisms/structure.py)
    "unclipped-matches": (
        "matches are not clipped: every hypothesis n-gram that occurs in some reference counts, however often "
        "(section 2.1's 'modified' precision left out)",
        MATCHES,
        one_layer("matches", folding(unclipped_matches)),
    ),
    "clipped-to-reference-sum": (
        "matches are clipped to the sum of the references' counts, not to the largest count in any single "
        "reference (Max_Ref_Count)",
        MATCHES,
        one_layer("matches", folding(reference_sum_matches)),
    ),
    "best-single-reference-clipping": (
        "each order's matches are clipped against the one reference that gives the most on its own, not against "
        "each n-gram's largest count over all references",
        MATCHES,
        one_layer("matches", folding(best_single_reference_matches)),
    ),
    "strict-clipping": (
        "clipping compares with < where <= is meant: a count at the reference maximum m counts m - 1",
        MATCHES,
        one_layer("matches", folding(strict_clip_matches)),
    ),
    "totals-one-short": (
        "each order's total is len - n, not len - n + 1 (an off-by-one in the n-gram loop)",
        frozenset({"totals"}),
        one_layer("totals", lambda segments, n, options: totals_one_short(segments, n)),
    ),
    "empty-reference-batch-uncounted": (
        "a batch whose references are all empty counts its hypotheses' lengths and none of their n-grams (tfma)",
        frozenset({"totals"}),
        one_layer("totals", empty_reference_totals),
    ),
    "first-reference-only": (
        "only each segment's first reference is used, for clipping and for the reference length",
        frozenset({"matches", "ref_len"}),
        first_reference_counts,
    ),
    "ngram-keys-joined-by-space": (
        "an n-gram is keyed by its tokens joined with a space, so n-grams of tokens that hold spaces collide: "
        "('a b', 'c') matches ('a', 'b c')",
        MATCHES,
        one_layer("matches", folding(joined_key_matches(" "))),
    ),
    "ngram-keys-concatenated": (
        "an n-gram is keyed by its tokens concatenated with no separator, so ('ab', 'c') matches ('a', 'bc')",
        MATCHES,
        one_layer("matches", folding(joined_key_matches(""))),
    ),
    "order-read-from-spaces": (
        "n-grams of every order are counted in one map keyed by their tokens joined with a space, and a key's "
        "order is read back as its number of spaces plus one: a token holding a space moves its n-gram to a "
        "higher order (or out of range)",
        frozenset({"matches", "totals"}),
        order_read_from_spaces,
    ),
    "matches-moved-by-spaces": (
        "n-grams of every order are counted in one map keyed by their tokens joined with a space, and each "
        "match is added to the order read back from its key (split on spaces again), the totals counted from "
        "the lengths: a token holding a space moves its match to a higher order",
        MATCHES,
        one_layer("matches", folding(matches_moved_by_spaces)),
    ),
    "reference-length-is-the-distance": (
        "r is the distance |len(ref) - c| to the closest reference, not that reference's length",
        frozenset({"ref_len"}),
        distance_reference_lengths,
    ),
    "last-segment-dropped": (
        "the corpus's last segment is left out of every count (hypotheses and references paired by a zip over "
        "lists of different lengths)",
        frozenset({"hyp_len", "ref_len", "matches", "totals"}),
        counts_of_segments(lambda segments: list(segments)[:-1] if len(segments) > 1 else None),
    ),
    "empty-hypotheses-dropped": (
        "segments whose hypothesis is empty are left out of the corpus (their references' lengths too)",
        frozenset({"hyp_len", "ref_len", "matches", "totals"}),
        counts_of_segments(lambda segments: [s for s in segments if len(s.hypothesis) > 0]),
    ),
    # after empty-hypotheses-dropped, the narrower claim: where no first reference is empty both give the same
    # counts and a record is named by that one (this among its fits); a run's records with an empty reference beside
    # a non-empty hypothesis tell them apart (a run's cause covers every record: `cover.minimal_cover`)
    "segments-with-empty-text-dropped": (
        "segments whose hypothesis or (first) reference is empty are left out of the corpus: a wrapper's `if not "
        "prediction or not reference: continue` over (prediction, reference) pairs",
        frozenset({"hyp_len", "ref_len", "matches", "totals"}),
        counts_of_segments(lambda segments: [s for s in segments if len(s.hypothesis) > 0
                                             and (not s.references or len(s.references[0]) > 0)]),
    ),
    "pad-and-eos-trimmed": (
        "leading <pad> and trailing </s> or <pad> tokens are dropped from every sequence before counting (a "
        "token-id scorer that trims its padding and end-of-sentence symbols, as fairseq's libbleu does)",
        ALL_LAYERS,
        counts_of_tokens(pad_and_eos_trimmed),
    ),
    "bpe-marks-merged": (
        "BPE continuation marks are undone before counting: a token ending in @@ is glued to the next one "
        "(subword-nmt's \"@@ \" removed, as --remove-bpe does)",
        ALL_LAYERS,
        counts_of_tokens(bpe_merged),
    ),
    # before the re-split, which also drops empty tokens and outer whitespace: where both fit (no token holds
    # whitespace inside), the narrower mechanism names the record and the wider one stays among its fits
    "empty-tokens-dropped": (
        "empty tokens are filtered out before counting: they count in no length and no n-gram",
        ALL_LAYERS,
        counts_of_tokens(lambda tokens: tuple(t for t in tokens if t)),
    ),
    "tokens-stripped": (
        "each token's leading and trailing whitespace is stripped before counting (a per-token trim()), so \" a\" "
        "matches \"a\" and a blank token becomes an empty one",
        ALL_LAYERS,
        counts_of_tokens(lambda tokens: tuple(t.strip() for t in tokens)),
    ),
    "tokens-resplit-on-whitespace": (
        "the tokens are joined with spaces and split again on whitespace before counting, so a token holding "
        "whitespace becomes several and an empty or blank token disappears",
        ALL_LAYERS,
        counts_of_tokens(lambda tokens: tuple(" ".join(tokens).split())),
    ),
    "tokens-nfkc-normalised": (
        "every token is NFKC-normalised before counting (compatibility characters such as ﬁ, ² or full-width "
        "letters become their plain forms and then match them)",
        ALL_LAYERS,
        counts_of_tokens(lambda tokens: tuple(unicodedata.normalize("NFKC", t) for t in tokens)),
    ),
    # a normaliser's deletion of bracketed asides (speech events, utterance ids) from both sides before scoring:
    # gated by a "(...)" span in some line, after the re-split, which it includes where a span is deleted
    "text-between-parentheses-removed": (
        "every span from '(' to the next ')' (at least one character between) is deleted from each hypothesis and "
        "reference line before it is split into words, as a transcript normaliser removes asides such as "
        "'(applause)' (openai/whisper's BasicTextNormalizer: re.sub(r'\\(([^)]+?)\\)', '', s)): the words inside "
        "count in no length and no n-gram",
        ALL_LAYERS,
        counts_of_tokens(parenthesised_text_removed),
    ),
    # only the text before its first line break scored, on one side or both: a text read as one line, or split at its
    # breaks and zipped with the other side's pieces; gated by a token holding "\n"
    **{
        f"{side}-cut-at-first-line-break": (
            f"{where} cut at its first line break before counting: the token holding the first '\\n' keeps what "
            f"stands before it (and goes where nothing does), every later token is lost{kept}",
            ALL_LAYERS,
            counts_of_tokens(cut_at_first_line_break, references_only=side == "references",
                             hypotheses_only=side == "hypotheses"),
        )
        for side, where, kept in (
            ("references", "each reference", "; the hypotheses are kept whole"),
            ("hypotheses", "each hypothesis", "; the references are kept whole"),
            ("text", "each hypothesis and each reference", ""),
        )
    },
    "trailing-nuls-dropped": (
        "each line kept in a fixed-width numpy unicode array loses its trailing U+0000 characters before it is split "
        "into words (numpy pads such strings with NULs and reads trailing ones as padding: np.array(['a a\\x00'])[0] "
        "== 'a a'): every hypothesis, and the references where every segment has as many (a reference stream "
        "holding None for a missing reference is an object array, whose strings are kept whole)",
        ALL_LAYERS,
        nul_padded_array_counts,
    ),
    "reference-unk-never-matches": (
        "a reference <unk> never matches, so no n-gram holding it counts (a scorer that masks unknown words in "
        "the reference, as fairseq's `rref[rref.eq(self.unk)] = -999`)",
        MATCHES,
        counts_of_tokens(unk_never_matched, references_only=True),
    ),
    "object-member-unigrams-never-match": (
        "unigrams named like JavaScript Object.prototype members (constructor, __proto__, toString, ...) never "
        "match: n-grams counted in a plain object `{}` find the inherited member instead of their own count",
        MATCHES,
        one_layer("matches", folding(object_member_unigrams_unmatched)),
    ),
    "empty-sentence-end-token": (
        "an empty hypothesis or reference is counted as one token, its end-of-sentence symbol: the library appends "
        "eos to every sentence and trims trailing eos but never the first position (fairseq's bleu_rtrim stops at "
        "index 1), so an eos-only sentence keeps it, and two of them match",
        frozenset({"hyp_len", "ref_len", "matches", "totals"}),
        end_token_counts,
    ),
    # after the end token, which gives the same counts wherever no hypothesis is empty (an empty hypothesis tells
    # them apart: one token there, none here)
    "empty-reference-one-token": (
        "an empty reference is split into one empty token (Python's and JavaScript's ''.split(' ') is ['']): its "
        "length is 1, not 0, and its one n-gram is the empty token; the hypothesis side is guarded",
        ALL_LAYERS,
        counts_of_tokens(lambda tokens: tokens if tokens else ("",), references_only=True),
    ),
    # a newline removed where there was none: `chop` (or `line[:-1]`) on the last line of a file that does not end in
    # one; a last token of one character disappears
    "last-character-of-last-hypothesis-chopped": (
        "the last hypothesis line loses its last character before it is split into tokens (Perl's chop, or "
        "line[:-1], where its file does not end in a newline): its last token loses its last character, and a last "
        "token of one character disappears",
        ALL_LAYERS,
        chopped_counts("hypotheses"),
    ),
    "last-character-of-last-reference-chopped": (
        "the last line of each reference file (the last segment's references) loses its last character before it "
        "is split into tokens (Perl's chop, or line[:-1], where the file does not end in a newline): its last token "
        "loses its last character, and a last token of one character disappears",
        ALL_LAYERS,
        chopped_counts("references"),
    ),
    # a corpus's length taken from one segment, not summed: assigned in the loop where `+=` was meant (the last
    # segment's), or read from the first segment alone
    "hypothesis-length-of-first-segment-only": (
        "the corpus's hypothesis length c is the first segment's alone, not the sum over the segments",
        frozenset({"hyp_len"}),
        length_of_one_segment("hyp_len", 0),
    ),
    "hypothesis-length-of-last-segment-only": (
        "the corpus's hypothesis length c is the last segment's alone, not the sum over the segments (assigned in "
        "the loop over the segments where += was meant)",
        frozenset({"hyp_len"}),
        length_of_one_segment("hyp_len", -1),
    ),
    "reference-length-of-first-segment-only": (
        "the corpus's reference length r is the first segment's alone, not the sum over the segments",
        frozenset({"ref_len"}),
        length_of_one_segment("ref_len", 0),
    ),
    "reference-length-of-last-segment-only": (
        "the corpus's reference length r is the last segment's alone, not the sum over the segments (assigned in "
        "the loop over the segments where += was meant)",
        frozenset({"ref_len"}),
        length_of_one_segment("ref_len", -1),
    ),
    **{
        f"ngram-counts-wrapped-at-{bits}-bits": (
            f"each n-gram's count is kept in an unsigned {bits}-bit integer, so a count past {2**bits - 1} wraps "
            f"(modulo {2**bits}) before clipping",
            MATCHES,
            one_layer("matches", folding(wrapped_count_matches(bits))),
        )
        for bits in (8, 16)
    },
    **{
        f"truncated-to-{length}-tokens": (
            f"each hypothesis and reference cut to its first {length} tokens before counting (a maximum length "
            "applied to the input, so a long segment is scored on its beginning only)",
            frozenset({"hyp_len", "ref_len", "matches", "totals"}),
            truncated_counts(length),
        )
        for length in TRUNCATION_LENGTHS
    },
    # last, the variants of the counting stage that any corpus may fit by its numbers alone (a perfect segment's
    # m/t reduces to 1/1, which a fake keying n-grams by spaces also gives): a mechanism gated by a feature of the
    # input (a space in a token, an empty text) names such a record first, these among its fits
    "recall-instead-of-precision": (
        "n-gram recall in place of precision: per order, the references' n-grams matched against the hypothesis "
        "(min of the two counts, each reference on its own, summed) over the references' n-gram counts (each at "
        "least 1)",
        frozenset({"matches", "totals"}),
        reference_recall_counts,
    ),
    "precision-fractions-normalised": (
        "each segment's matches and total of an order are kept as a normalised fraction (reduced by their gcd, 0 of t "
        "becoming 0 of 1) before the corpus sums them: Python's Fraction(m, t) where _normalize=False was meant",
        frozenset({"matches", "totals"}),
        normalised_fraction_counts,
    ),
    # the cells of issue 36's stage matrix filled by stage-coverage (docs/stages.md), after every reading above: each
    # defers to the readings above that can give its counts on a record (`counting.EARLIER_READINGS`), so that no
    # record they name changes
    # the n-gram extraction's loop stopping one short on every side (SmoothNLP #26: `for i in
    # range(0, len(text) - n)` "misses each sentence's last n-gram"; explosion/thinc #512: Ops.ngrams returns K - N
    # n-grams of K tokens, "always missing the final ngram"): a BLEU counting with such an extractor loses the last
    # n-gram of the hypothesis and of each reference alike, its matches with them (issue 36: the stage matrix,
    # docs/stages.md)
    "last-ngram-dropped": (
        "the n-gram extraction's loop stops one short (range(len - n) where range(len - n + 1) is meant), on the "
        "hypothesis and the references alike: every token sequence loses its last n-gram of every order, so each "
        "total is len - n and the matches are clipped without the references' last n-grams; c and r unchanged",
        frozenset({"matches", "totals"}),
        last_ngram_dropped_counts,
    ),
    # a constant where the clipping's count belongs (issue 36's stage matrix, docs/stages.md: clipping and the totals
    # at 1 per distinct n-gram): louissmit/SSLP project/bleu.py, `len(set(gold) & set(out)) / len(set(out))` over the
    # n-gram lists
    "ngrams-counted-as-sets": (
        "n-grams counted as sets: each order's total is the number of distinct n-grams in the hypothesis and its "
        "matches those of them found in some reference (len(set(hyp) & set(ref)) / len(set(hyp))), so an n-gram "
        "repeated in the hypothesis counts once",
        frozenset({"matches", "totals"}),
        distinct_ngram_counts,
    ),
    # last, so that no record an earlier alternative names changes name: the clipping's other operand left out,
    # min(h, r) read as r, each distinct hypothesis n-gram credited with its count in the reference however often the
    # hypothesis has it (matches may exceed the totals: scored as returned counts are, `OVER_TOTALS`). Where the
    # reference never has an n-gram more often than the hypothesis the counts are the clipped ones, so it never fits
    # a correct answer
    "matches-credited-with-reference-counts": (
        "each distinct hypothesis n-gram is credited with its count in the reference (the largest over the "
        "references), never capped at the hypothesis's own count: min(h, r) with h left out, so matches can exceed "
        "the totals",
        MATCHES,
        one_layer("matches", folding(reference_count_matches)),
    ),
}

#: The n-gram comparison's variants by mutation operator: an equality test that always holds at an order (the same
#: shape as `COUNTING_ALTERNATIVES`' entries, each changing the matches alone). Tried only where no other explanation
#: gives the returned counts (`classify._from_returned_counts`, after every reading the search held before them):
#: every unigram matched is a count many other bugs reach on one record (BLEU-1 with c <= r and every hypothesis token
#: matched: a tokenizer's departure that joins a token, tests/diagnose/test_classify.py), so no record an earlier
#: reading names changes. Not `needs_evidence`: that keeps `other-counting-of-matches` among every such record's fits,
#: and a run whose other records only it names (real 30's cosine bug: the ids made non-constant n-grams equal on
#: some) is then named by it alone, however many records the variant accounts for exactly.
IDENTITY_IGNORED: dict[
    str, tuple[str, frozenset[str], Callable[[Sequence[Any], int, Any], dict[str, Any] | None]]
] = {
    # an equality test that always holds at an order (a counting-stage variant by mutation operator: the n-gram
    # comparison replaced by one that takes unequal n-grams as equal), as CoNT's cosine test of id vectors does at order
    # 1 (Shark-NLP/CoNT issue 4); written after real 30's cosine-ngram-equality had been named
    # other-counting-of-matches for sessions: coverage, not generalisation
    "unigrams-always-match": (
        "every hypothesis unigram matches every reference unigram (an equality test that always holds at order 1: "
        "Shark-NLP/CoNT's torch_bleu compares n-grams of token ids by cosine similarity, and any two one-element id "
        "vectors point the same way): a segment's unigram matches are min(c, its longest reference's length); "
        "higher orders compared by identity",
        MATCHES,
        equal_direction_counts(constant=False),
    ),
    "ngrams-equal-when-proportional": (
        "n-grams compared by the direction of their token-id vectors, not by identity (Shark-NLP/CoNT's torch_bleu: "
        "cosine similarity of 1 is equality): every unigram matches every other, and an n-gram of one repeated "
        "token matches every such n-gram of its order, whatever the ids; counted where the request decides it (other "
        "n-grams are equal only where their ids are proportional, which the request does not give: a record where the "
        "implementation's ids made two equal is read by what is known)",
        MATCHES,
        equal_direction_counts(constant=True),
    ),
}


#: The lengths stage's variants (issue 36's stage matrix, docs/stages.md, stage 4: the per-segment statistics c and r),
#: in the order the search tries them: the same shape as `COUNTING_ALTERNATIVES`' entries, each changing c or r alone,
#: the n-grams counted as the formulas count them. Tried only where no single explanation gives the returned counts
#: (`classify._from_returned_counts`, after every counting alternative, departure, state and structure), so that no
#: record an earlier reading names changes; and, where the n-gram counts differ as well, paired with a clipping
#: (`PAIRED_CLIPPINGS`): two stages wrong in one diff, named by both.
LENGTH_READINGS: dict[
    str, tuple[str, frozenset[str], Callable[[Sequence[Any], int, Any], dict[str, Any] | None]]
] = {
    # the length unit (stage 4, a constant for a parameter: the unit): a line's length in characters where its token
    # count was meant (Perl's `length($line)`, PHP's `strlen($line)`, Python's `len(line)` on the string before it is
    # split), the n-grams counted over the tokens; on c and r together, or on one of them. No public instance found
    # by the `search` tool (issues and code, 2026-11-30) but the seventh held-out set's, which its own file cites
    # (the project's rule): the cell is filled by its operator (docs/stages.md)
    "lengths-counted-in-characters": (
        "the hypothesis and reference lengths c and r are the lines' lengths in characters (tokens joined by single "
        "spaces), not their token counts, the closest reference picked among those character lengths; the n-grams "
        "are counted over the tokens",
        frozenset({"hyp_len", "ref_len"}),
        character_length_counts("text"),
    ),
    "hypothesis-length-counted-in-characters": (
        "the hypothesis length c is the line's length in characters (tokens joined by single spaces), not its token "
        "count; r and the n-grams as the formulas count them",
        frozenset({"hyp_len"}),
        character_length_counts("hypotheses"),
    ),
    "reference-length-counted-in-characters": (
        "the reference length r is the picked reference line's length in characters (tokens joined by single "
        "spaces), the references' character lengths compared with the hypothesis's token count; c and the n-grams "
        "as the formulas count them",
        frozenset({"ref_len"}),
        character_length_counts("references"),
    ),
    # the reference-length rule's target (stage 4, a constant for a parameter): a running total read where the
    # segment's own length was meant; the instance seen is the seventh held-out set's (cited in its own file only)
    "closest-reference-to-running-hypothesis-length": (
        "each segment's reference length is picked against the running sum of the hypothesis lengths so far (a "
        "metric state's accumulated length read where the segment's own was meant), not against the segment's own "
        "hypothesis length",
        frozenset({"ref_len"}),
        running_length_reference_counts,
    ),
    # r from one fixed reference (stage 4, the first or last element for all), the n-grams of all: none found in
    # public code but the seventh held-out set's (cited in its own file only); `first-reference-only` and
    # `last-reference-only` drop the other references from the clipping too
    "reference-length-of-first-reference": (
        "r is each segment's first reference's length whatever the rule (an index into the references never "
        "updated), the matches clipped against every reference",
        frozenset({"ref_len"}),
        one_reference_length(0),
    ),
    "reference-length-of-last-reference": (
        "r is each segment's last reference's length whatever the rule (the loop's last value kept), the matches "
        "clipped against every reference",
        frozenset({"ref_len"}),
        one_reference_length(-1),
    ),
}

#: The counting stages' variants by kind (issue 36's list of operators applied to stages 2, 3 and 5's own expressions,
#: docs/stages.md, "The counting stages by kind"): the same shape as `COUNTING_ALTERNATIVES`' entries. Tried only where
#: no other explanation gives the returned counts (`classify._from_returned_counts`, after `IDENTITY_IGNORED`), so that
#: no record an earlier reading names changes; each is bounded by what the returned counts can be before it counts
#: anything (`possible`). Written after the machine-made mutants of tests/fakes/stagedbleu.py had been named
#: `other-counting-of-<layer>` (benchmarks/README.md): post hoc, the kinds from the formula, the mutants guiding them.
STAGE_KINDS: dict[
    str, tuple[str, frozenset[str], Callable[[Sequence[Any], int, Any], dict[str, Any] | None]]
] = {
    # stage 2, the extractor's window `tokens[i:i + n] for i in range(len - n + 1)` with a bound or index moved
    # (Python's slices never raise: a window past the end is short); no public instance found (docs/stages.md)
    "ngram-windows-at-every-position": (
        "the n-gram loop runs over every token position (range(len) where range(len - n + 1) is meant) and slices "
        "tokens[i:i + n]: at order n the last n - 1 windows are short (n - 1, ..., 1 tokens), so each total is len and "
        "the short windows match the references' short ones",
        frozenset({"matches", "totals"}),
        counting.window_counts(lambda n: (0, 0, n - 1)),
    ),
    "ngram-loop-one-long": (
        "the n-gram loop runs one step too far (range(len - n + 2)) and slices tokens[i:i + n]: every sequence gains "
        "one short window of its last n - 1 tokens (the empty one at order 1), on the hypothesis and the references "
        "alike",
        frozenset({"matches", "totals"}),
        counting.window_counts(lambda n: (0, 0, 1)),
    ),
    "ngram-width-one-more": (
        "the slice's end is off by one long (tokens[i:i + n + 1]): at order n the windows are n + 1 tokens wide (the "
        "last one n), as many as the order's n-grams, so the totals are right and the matches are those of the wider "
        "windows",
        MATCHES,
        counting.window_counts(lambda n: (0, 1, 0)),
    ),
    "ngram-width-one-less": (
        "the slice's end is off by one short (tokens[i:i + n - 1]): at order n the windows are n - 1 tokens wide (the "
        "empty one at order 1), as many as the order's n-grams, so the totals are right and the matches are those of "
        "the narrower windows",
        MATCHES,
        counting.window_counts(lambda n: (0, -1, 0)),
    ),
    "ngram-window-starts-one-late": (
        "the slice's start is off by one (tokens[i + 1:i + n]): at order n the windows are the n - 1 tokens after "
        "each n-gram's first (the empty one at order 1), as many as the order's n-grams",
        MATCHES,
        counting.window_counts(lambda n: (1, 0, 0)),
    ),
    "orders-counted-from-zero": (
        "the orders' loop starts at 0 (range(N) where range(1, N + 1) is meant) with an extractor of range(len - n + "
        "1) windows tokens[i:i + n]: the statistics of order k are the formulas' of order k - 1, order 1's being len "
        "+ 1 empty windows (matches min(c + 1, the longest reference's length + 1))",
        frozenset({"matches", "totals"}),
        counting.window_counts(lambda n: (0, -1, 1)),
    ),
    "unigrams-counted-at-every-order": (
        "the slice's width is a constant 1 (tokens[i:i + 1] where tokens[i:i + n] is meant): at order n the windows "
        "are the unigrams of the first len - n + 1 positions",
        MATCHES,
        counting.window_counts(lambda n: (0, 1 - n, 0)),
    ),
    "ngrams-always-match": (
        "every n-gram key is the same (an empty slice tokens[i:i], or an equality test that always holds at every "
        "order): each order's matches are min(the hypothesis's total, the reference's largest total) per segment",
        MATCHES,
        counting.window_counts(lambda n: (0, -n, 0)),
    ),
    # stage 3: min and max exchanged in the clip; or in the limit, whose running max starts at 0 (a Counter's
    # default), so that min keeps it 0 and no n-gram ever matches (also keys of two types, ids against strings)
    "clipped-with-max-for-min": (
        "each hypothesis n-gram's count is clipped with max where min is meant: max(its count, its largest count in "
        "any one reference), so matches are never below the totals",
        MATCHES,
        one_layer("matches", folding(counting.max_clip_matches)),
    ),
    "no-ngram-ever-matches": (
        "no n-gram ever matches: every order's matches are 0, the totals and lengths right (the clipping limit built "
        "with min where max is meant from a default of 0, never raised; or hypothesis and reference keys of types "
        "that never compare equal)",
        MATCHES,
        counting.no_matches,
    ),
    # stage 5: one segment's n-gram counts for the corpus's (assigned in the loop where += was meant, or read from one
    # segment): `length_of_one_segment`'s kind at the matches and totals
    **{
        f"{layer}-of-{which}-segment-only": (
            f"the corpus's {layer} of every order are the {which} segment's alone, not summed over the segments; the "
            f"{other} and the lengths summed",
            frozenset({layer}),
            counting.counts_of_one_segment(layer, position),
        )
        for layer, other in (("matches", "totals"), ("totals", "matches"))
        for which, position in (("first", 0), ("last", -1))
    },
    # stage 5: a segment's statistics record (c, r, matches, totals) read at the neighbouring field
    "hypothesis-length-read-from-reference-length": (
        "the corpus's hypothesis length c is the sum of the segments' reference lengths r (a statistics record's "
        "field read at the neighbouring index): c = r",
        frozenset({"hyp_len"}),
        counting.field_read_for("hyp_len", "ref_len"),
    ),
    "reference-length-read-from-hypothesis-length": (
        "the corpus's reference length r is the sum of the segments' hypothesis lengths c (a statistics record's "
        "field read at the neighbouring index): r = c, so the brevity penalty is 1",
        frozenset({"ref_len"}),
        counting.field_read_for("ref_len", "hyp_len"),
    ),
    "matches-read-from-totals": (
        "each order's matches are the totals (a statistics record's field read at the neighbouring index): every "
        "precision 1",
        MATCHES,
        counting.field_read_for("matches", "totals"),
    ),
    "totals-read-from-matches": (
        "each order's totals are the matches (a statistics record's field read at the neighbouring index): every "
        "precision with a match 1, an order without one empty",
        frozenset({"totals"}),
        counting.field_read_for("totals", "matches"),
    ),
}
#: `STAGE_KINDS` names one record's numbers can fit by chance (`Mechanism.needs_evidence`): one segment's counts; no
#: match at all, which many bugs give.
STAGE_KINDS_NEEDING_EVIDENCE = frozenset({"matches-of-first-segment-only", "matches-of-last-segment-only",
                                          "totals-of-first-segment-only", "totals-of-last-segment-only",
                                          "no-ngram-ever-matches"})

#: Counting alternatives whose matches may exceed their totals: their counts are scored as an implementation's
#: returned ones are (`oracle.diagnose.combination.ReturnedStatistics`), each precision m/t as it comes.
OVER_TOTALS = frozenset({"matches-credited-with-reference-counts", "clipped-with-max-for-min",
                         "totals-of-first-segment-only", "totals-of-last-segment-only"})

#: The clipping stage's alternatives a length reading is paired with (`matching_pairs`): stage 3's variants, each
#: changing the matches alone.
PAIRED_CLIPPINGS = ("unclipped-matches", "clipped-to-reference-sum", "best-single-reference-clipping",
                    "strict-clipping")


def covers_its_parts(parts: Sequence[str]) -> bool:
    """Whether a cause (its parts) is a length reading with a clipping (`matching_pairs`): two stages wrong in one
    implementation, which accounts for a run's records where either stage alone differs as well as those where both
    do (`oracle.diagnose.cover.minimal_cover`, where the pair has records of its own)."""
    return len(parts) == 2 and parts[0] in LENGTH_READINGS and parts[1] in PAIRED_CLIPPINGS


def matching_length_readings(segments: Sequence[Any], n: int, options: Any, reported: Any, oracle_counts: Any,
                             **search: Any) -> list[str]:
    """The length readings whose counts are exactly the reported ones (`counting.matching_alternatives` over
    `LENGTH_READINGS`, no capped family)."""
    return counting.matching_alternatives(
        segments, n, options, reported, oracle_counts,
        [(name, layers, count) for name, (_, layers, count) in LENGTH_READINGS.items()], [], **search)


def matching_identity_ignored(segments: Sequence[Any], n: int, options: Any, reported: Any, oracle_counts: Any,
                              **search: Any) -> list[str]:
    """The n-gram comparison's variants whose counts are exactly the reported ones (`counting.matching_alternatives`
    over `IDENTITY_IGNORED`, no capped family)."""
    return counting.matching_alternatives(
        segments, n, options, reported, oracle_counts,
        [(name, layers, count) for name, (_, layers, count) in IDENTITY_IGNORED.items()], [], **search)


def matching_stage_kinds(segments: Sequence[Any], n: int, options: Any, reported: Any, oracle_counts: Any,
                         **search: Any) -> list[str]:
    """The counting stages' variants by kind whose counts are exactly the reported ones
    (`counting.matching_alternatives` over `STAGE_KINDS`, no capped family)."""
    return counting.matching_alternatives(
        segments, n, options, reported, oracle_counts,
        [(name, layers, count) for name, (_, layers, count) in STAGE_KINDS.items()], [], **search)


def matching_pairs(segments: Sequence[Any], n: int, options: Any, reported: Any, oracle_counts: Any,
                   **search: Any) -> list[tuple[str, str]]:
    """(length reading, clipping) pairs whose counts together are exactly the reported ones
    (`counting.matching_pairs` over `LENGTH_READINGS` and `PAIRED_CLIPPINGS`)."""
    return counting.matching_pairs(
        segments, n, options, reported, oracle_counts,
        [(name, layers, count) for name, (_, layers, count) in LENGTH_READINGS.items()],
        [(name, COUNTING_ALTERNATIVES[name][1], COUNTING_ALTERNATIVES[name][2]) for name in PAIRED_CLIPPINGS],
        **search)


#: A maximum length applied to one side's tokens before counting, its cap found from the returned counts (not one
#: of `TRUNCATION_LENGTHS`): the stem of each family's names (`<stem><cap>-tokens`) -> the side it cuts, and words.
#: Test labels cut to a collator's fixed maximum length (alexa/massive#25: "labels for testing are also truncated to
#: a fixed max length ... additional labels will be ignored during evaluation"); predictions cut before scoring
#: (microsoft/unilm#8, `--trunc_len 70`).
CAPPED_SIDES: dict[str, tuple[str, str]] = {
    "references-truncated-to-": (
        "references",
        "every reference is cut to its first {cap} tokens before counting, the hypotheses kept whole (a maximum "
        "length applied to the targets alone, as a vectoriser's maximum length, less the places of its start and "
        "end tokens, cuts them)",
    ),
    "hypotheses-truncated-to-": (
        "hypotheses",
        "every hypothesis is cut to its first {cap} tokens before counting, the references kept whole (a maximum "
        "length applied to the system's output alone, as a generation limit or a decoder's maximum length cuts it)",
    ),
}
_CAPPED = re.compile(r"(?P<stem>.+-truncated-to-)(?P<cap>[1-9][0-9]*)-tokens")


def parse_capped(name: str) -> tuple[str, int] | None:
    """(stem, cap) of a name of a `CAPPED_SIDES` family, else None."""
    match = _CAPPED.fullmatch(name)
    if match is None or match["stem"] not in CAPPED_SIDES:
        return None
    return match["stem"], int(match["cap"])


#: Counting alternatives of a line's characters (a newline removed where there was none): tried on token requests
#: only, whose tokens are the line's words; a text request's line is the text before its tokenizer, which they do
#: not model.
LINE_CHOPS = frozenset({"last-character-of-last-hypothesis-chopped", "last-character-of-last-reference-chopped"})


#: Counting alternatives never tried together with a convention (`classify._counting_under_conventions`): each
#: changes one length by a little where it applies (a last character, one segment's length, a cap searched for), so
#: beside a convention's own change of r or c the pair fits a record's lengths by chance (a reference length the
#: first closest reference gives, less a chopped one-character token, gave a subword segmenter's r).
UNPAIRED = LINE_CHOPS | frozenset({"hypothesis-length-of-first-segment-only", "hypothesis-length-of-last-segment-only",
                                   "reference-length-of-first-segment-only", "reference-length-of-last-segment-only"})
#: Counting alternatives that name a run's records only with evidence (`Mechanism.needs_evidence`): a corpus's length
#: taken from one segment is one number, which one record's length can equal by chance.
ONE_SEGMENT_LENGTHS = frozenset({"hypothesis-length-of-first-segment-only", "hypothesis-length-of-last-segment-only",
                                 "reference-length-of-first-segment-only", "reference-length-of-last-segment-only"})


def pairs_with_conventions(name: str) -> bool:
    """Whether counting alternative `name` is tried on top of a convention (not one of `UNPAIRED`, nor a cap)."""
    return name not in UNPAIRED and parse_capped(name) is None


def counting_of(name: str) -> Callable[[Sequence[Any], int, Any], dict[str, Any] | None] | None:
    """How counting alternative `name` counts: a `COUNTING_ALTERNATIVES` entry's, or a capped family member's (its
    cap read from the name); None for a name that is neither."""
    if name in COUNTING_ALTERNATIVES:
        return COUNTING_ALTERNATIVES[name][2]
    if name in LENGTH_READINGS:
        return LENGTH_READINGS[name][2]
    if name in IDENTITY_IGNORED:
        return IDENTITY_IGNORED[name][2]
    if name in STAGE_KINDS:
        return STAGE_KINDS[name][2]
    if countfit.is_fitted(name):
        return countfit.fitted_counts(name)
    capped = parse_capped(name)
    return None if capped is None else capped_counts(CAPPED_SIDES[capped[0]][0], capped[1])


def leaves_no_segment(name: str, segments: Sequence[Any]) -> bool:
    """Whether counting alternative `name` drops every one of `segments` (an empty corpus: the formulas have no
    score for it, and protocol v1 refuses a request without segments)."""
    test = getattr(COUNTING_ALTERNATIVES[name][2], "leaves_no_segment", None) if name in COUNTING_ALTERNATIVES else None
    return test is not None and test(segments)


def matching_alternatives(segments: Sequence[Any], n: int, options: Any, reported: Any, oracle_counts: Any,
                          **search: Any) -> list[str]:
    """The catalogue's counting alternatives (then its capped families) whose counts are exactly the reported ones
    (`oracle.diagnose.counting.matching_alternatives`, which the `search` keywords are passed on to)."""
    return counting.matching_alternatives(
        segments, n, options, reported, oracle_counts,
        [(name, layers, count) for name, (_, layers, count) in COUNTING_ALTERNATIVES.items()],
        [(stem, side) for stem, (side, _) in CAPPED_SIDES.items()], **search)


#: Every name of counting the classifier has no model of starts so, the layer that differs after it.
OTHER_COUNTING = "other-counting-of-"


def other_counting_words(layer: str) -> str:
    """What `other-counting-of-<layer>` says of a record whose returned counts, scored, give its answer (its own
    words: `classify._from_returned_counts`)."""
    return (f"the implementation's own statistics, scored by the judged profile's formulas, give its answer: it "
            f"counts {layer} differently from section 2.1, in a way no known counting alternative reproduces")


def other_counting_known_words(layer: str) -> str:
    """What the name `other-counting-of-<layer>` says wherever a record's own words are not read (the catalogue's
    description: a run's cause no record named first, a fit, a group whose records said different things): what is
    known of every record so named, the counts differing, and nothing of the score. A record's own words say more
    where more is known: its returned counts, scored, give its answer (`other_counting_words`); its score agrees
    beside them; or the judged formulas have no score for them, so whether the score follows from them is not known
    (`classify._what_is_known`); beside a score stage (`+ other-combination`, ...), it does not follow."""
    return (f"the implementation's statistics differ from section 2.1's counts at {layer}, counted in a way no known "
            "counting alternative reproduces (what is known of its counts; whether its answer follows from them is "
            "each record's own finding)")


def capped_words(stem: str, words: str) -> Callable[[str], str]:
    """The words of a capped family's member: its family's, the cap read from the name."""
    return lambda name: words.format(cap=name.removeprefix(stem).removesuffix("-tokens"))


#: What a fitted counting's family says (`oracle.diagnose.countfit`): each member's own words say which expression.
FITTED_COUNTING_WORDS = (
    "the implementation's {field} is, at every order and exactly, an expression of the counting grammar "
    "(oracle/diagnose/countfit.py) other than the formulas': a fit of the returned integers where no named counting "
    "variant gives them, not a line of code read")

MECHANISMS = [
    *(Mechanism(name, COUNTING, description, layers | SCORE, RECOMPUTE, (Route("counting", count, description),),
                needs_evidence=name in ONE_SEGMENT_LENGTHS)
      for name, (description, layers, count) in COUNTING_ALTERNATIVES.items()
      if name not in ONE_SIDE_COUNTINGS),  # a text transformation on one side: the structure kind declares it
    *(Mechanism(name, COUNTING, description, layers | SCORE, RECOMPUTE, (Route("counting", count, description),))
      for name, (description, layers, count) in LENGTH_READINGS.items()),
    *(Mechanism(name, COUNTING, description, layers | SCORE, RECOMPUTE, (Route("counting", count, description),))
      for name, (description, layers, count) in IDENTITY_IGNORED.items()),
    *(Mechanism(name, COUNTING, description, layers | SCORE, RECOMPUTE, (Route("counting", count, description),),
                needs_evidence=name in STAGE_KINDS_NEEDING_EVIDENCE)
      for name, (description, layers, count) in STAGE_KINDS.items()),
    # a cap found from the returned counts: one record can fit one cap by the choice of cap (`needs_evidence`)
    *(Mechanism(stem, COUNTING, words.format(cap="<N>"), COUNT_LAYERS | SCORE, RECOMPUTE,
                (Route("counting", None, words.format(cap="<N>")),), family=True, needs_evidence=True,
                words_of=capped_words(stem, words))
      for stem, (_, words) in CAPPED_SIDES.items()),
    # a counting stage's arithmetic fitted to the returned integers (`oracle.diagnose.countfit`): one family a field,
    # each member an expression of the grammar; one record's small integers can fit one by chance (`needs_evidence`)
    *(Mechanism(f"{field}{countfit.FITTED}", COUNTING, FITTED_COUNTING_WORDS.format(field=field),
                frozenset({field}) | SCORE, RECOMPUTE,
                (Route("counting", None, FITTED_COUNTING_WORDS.format(field=field)),), family=True,
                needs_evidence=True, words_of=countfit.fitted_words)
      for field in countfit.FIELDS),
    # described by what is known of every record so named (a record's own words say whether its score follows)
    Mechanism(OTHER_COUNTING, COUNTING, other_counting_known_words("<layer>"), COUNT_LAYERS | SCORE, RECOMPUTE,
              (Route("statistics", None, other_counting_words("<layer>")),), family=True,
              words_of=lambda name: other_counting_known_words(name.removeprefix(OTHER_COUNTING))),
]

__all__ = ["CAPPED_SIDES", "COUNTING_ALTERNATIVES", "FITTED_COUNTING_WORDS",
           "IDENTITY_IGNORED", "LENGTH_READINGS", "LINE_CHOPS", "MECHANISMS",
           "ONE_SEGMENT_LENGTHS", "OTHER_COUNTING", "OVER_TOTALS", "PAIRED_CLIPPINGS", "STAGE_KINDS",
           "STAGE_KINDS_NEEDING_EVIDENCE", "UNPAIRED",
           "capped_words", "counting_of", "covers_its_parts", "leaves_no_segment", "matching_alternatives",
           "matching_identity_ignored", "matching_length_readings", "matching_stage_kinds",
           "matching_pairs", "other_counting_known_words", "other_counting_words",
           "pairs_with_conventions", "parse_capped"]
