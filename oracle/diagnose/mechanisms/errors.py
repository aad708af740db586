"""Triggers: the input feature an implementation answers `error` on, or whose request kills or hangs its process
(`oracle.diagnose.errorcauses`, `oracle.harness.crashcauses`), named `<error|crash|timeout>-when-<feature>[-and-
<feature>...]`, a family per prefix (`TRIGGER_PREFIXES`) confirmed by asking neighbouring inputs; and a process that
dies (or hangs) after a number of requests whatever they hold, or on an input no feature separates.

The input features are declared here (`FEATURES`, of the input's shape, `LAST_RESORT`, of what its tokens give, and
`HALVES`, asked only as a half of a disjunction `<a>-or-<b>`, each in the order the search asks them; `FACES` and
`ORDER_FACES`, the narrower faces of a cause found, asked only then), with the edits that take each away; the
search that asks them and the edits' functions are `oracle.diagnose.errorcauses`'s, which never imports the
catalogue: the callers (the harness's diagnosis and crash causes) ask through `error_cause`, `holds`, `hinted` and
`describe` here. A cause found carries its features (`errorcauses.ErrorCause.features`); a name is read back into
features (`errorcauses.parts`) only where it comes as text: a record's name described, or a hint, a name a shrunk
failure of the kind was given (across `check --jobs` workers, as records carry it)."""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence

from oracle.diagnose import errorcauses
from oracle.diagnose.errorcauses import (
    CRASH_PREFIX,
    EVERY_INPUT,
    EVERY_INPUT_WORDS,
    FILLER,
    PREFIX,
    TIMEOUT_PREFIX,
    UNLESS,
    Exemption,
    Feature,
    all_empty_references_joined,
    closest_reference_tied,
    closest_reference_tied_longer_first,
    corpus_given_a_segment,
    countable,
    holds_line_end,
    holds_whitespace,
    hypotheses_as_references,
    hypotheses_lengthened,
    hypotheses_unmatched,
    length_of,
    lengthened_unmatched,
    longest_text_one_token,
    one_neighbour,
    one_reference_doubled,
    one_segment_made_two,
    one_text_lengthened,
    one_token_hypotheses_lengthened,
    order_past_hypotheses,
    other_level,
    picked_reference_given,
    precisions_all_one,
    reference_length_zero,
    references_all_empty,
    references_given,
    references_lengthened,
    references_made_hypotheses,
    references_not_as_many_as_segments,
    segments_as_many_as_references,
    sentence_counts_differ,
    single_references,
    single_segments,
    smoothing_made_valid,
    text_longer_than,
    texts_changed,
    texts_cut,
    texts_of,
    tie_broken,
    tied_references_swapped,
    tokens_changed,
    tokens_of,
    uniform_weights,
    unigram_precision_zero,
    without_line_breaks,
    without_line_ends,
    without_sentence_ends,
    without_whitespace,
    zero_precision,
    zero_precision_before_last,
    zero_precision_in_force,
    zero_weights_raised,
)
from oracle.models.protocol import ScoreRequest

from .model import ERROR, PROBE, Mechanism, Route

#: What the implementation does where the features of a name of each prefix hold (the families, in this order).
TRIGGER_PREFIXES = {PREFIX: "the implementation answers error", CRASH_PREFIX: "the implementation's process dies",
                    TIMEOUT_PREFIX: "the implementation's process hangs"}

FEATURES: tuple[Feature, ...] = (
    Feature("corpus-empty", "the corpus has no segments", "corpus",
            lambda r: r.level == "corpus" and not r.segments, one_neighbour(corpus_given_a_segment)),
    Feature("references-missing", "a segment has no references", "references-missing",
            lambda r: any(not s.references for s in r.segments), one_neighbour(references_given)),
    Feature("weight-negative", "a weight is negative", "weight-sign",
            lambda r: any(w < 0 for w in r.weights),
            one_neighbour(lambda r: r.model_copy(update={"weights": tuple(abs(w) for w in r.weights)}))),
    Feature("weights-all-zero", "every weight is zero", "weight-zero",
            lambda r: not any(r.weights),
            one_neighbour(lambda r: r.model_copy(update={"weights": uniform_weights(len(r.weights))}))),
    Feature("smoothing-parameter-negative", "a smoothing parameter is negative", "smoothing-parameter",
            lambda r: any(v < 0 for v in r.smoothing.parameters.values()), one_neighbour(smoothing_made_valid)),
    Feature("hypothesis-empty", "a hypothesis is empty", "hypothesis-length",
            lambda r: any(not length_of(s.hypothesis) for s in r.segments),
            one_neighbour(lambda r: hypotheses_lengthened(r, 1)),
            unmatched=lambda r: lengthened_unmatched(r, 1, side="hypothesis")),
    Feature("hypothesis-shorter-than-order", "a hypothesis has fewer tokens than the order", "hypothesis-length",
            lambda r: any(length_of(s.hypothesis) < len(r.weights) for s in r.segments),
            one_neighbour(lambda r: hypotheses_lengthened(r, len(r.weights))),
            unmatched=lambda r: lengthened_unmatched(r, len(r.weights), side="hypothesis")),
    # after "shorter than the order", which names a one-token hypothesis at an order above 1: one token is the
    # length a logarithm of c divides by zero at (nltk #2204, chen-cherry-4's ln(1)), whatever the order
    Feature("hypothesis-one-token", "a hypothesis has exactly one token", "hypothesis-length",
            lambda r: any(length_of(s.hypothesis) == 1 for s in r.segments),
            one_neighbour(one_token_hypotheses_lengthened)),
    # before "a reference is empty", which it implies: sacrebleu 2.0 drops a segment's empty references and refuses a
    # segment left with none (mjpost/sacrebleu #175, the code it fixes: `if len(lines) == 0: raise RuntimeError`;
    # espnet #4715, references left blank; sacrebleu #154's "No valid references for a sentence!"), so one reference
    # more (matching nothing) beside the empty one is answered
    Feature("references-all-empty", "a segment's every reference is empty", "reference-length",
            references_all_empty, one_neighbour(all_empty_references_joined)),
    Feature("reference-empty", "a reference is empty", "reference-length",
            lambda r: any(not length_of(x) for s in r.segments for x in s.references),
            one_neighbour(lambda r: references_lengthened(r, 1)),
            unmatched=lambda r: lengthened_unmatched(r, 1, side="references")),
    Feature("reference-shorter-than-order", "a reference has fewer tokens than the order", "reference-length",
            lambda r: any(length_of(x) < len(r.weights) for s in r.segments for x in s.references),
            one_neighbour(lambda r: references_lengthened(r, len(r.weights))),
            unmatched=lambda r: lengthened_unmatched(r, len(r.weights), side="references")),
    Feature("token-empty", "a token is the empty string", "token-empty",
            lambda r: "" in tokens_of(r), one_neighbour(lambda r: tokens_changed(r, lambda t: t or FILLER))),
    # before "a token holds whitespace", which it implies: a caller writing each segment as a line and reading the
    # lines back with `str.splitlines` or universal newlines cuts a segment at such a token, and errs where the
    # sides' line counts then differ (an assertion on them, zip_longest's EOFError). Its neighbour makes each such
    # line end a space: whitespace still, a line end for no reader
    Feature("token-with-line-end", "a token holds a line end other than LF (CR, VT, FF, U+001C-U+001E, NEL, "
            "U+2028, U+2029)", "token-whitespace", lambda r: any(map(holds_line_end, tokens_of(r))),
            one_neighbour(lambda r: tokens_changed(r, without_line_ends))),
    Feature("token-with-whitespace", "a token holds whitespace", "token-whitespace",
            lambda r: any(map(holds_whitespace, tokens_of(r))),
            one_neighbour(lambda r: tokens_changed(r, without_whitespace))),
    # raw text: 13a joins "-\n" before turning line breaks into spaces; a reader of one segment a line, or one that
    # joins whitespace first, cannot be sent either (the hyphen's neighbour keeps the line break, a space between)
    Feature("text-hyphen-before-line-break", "a text holds a hyphen before a line break (-\\n)", "text-line-break",
            lambda r: any("-\n" in t for t in texts_of(r)),
            one_neighbour(lambda r: texts_changed(r, lambda t: t.replace("-\n", "- \n")))),
    Feature("text-line-break", "a text holds a line break", "text-line-break",
            lambda r: any("\n" in t or "\r" in t for t in texts_of(r)),
            one_neighbour(lambda r: texts_changed(r, without_line_breaks))),
    # after it (a text's LF and CR keep their name): the other line ends a file reader may cut a text at
    Feature("text-line-end", "a text holds a line end other than LF and CR (VT, FF, U+001C-U+001E, NEL, U+2028, "
            "U+2029)", "text-line-break",
            lambda r: any(holds_line_end(t, carriage_return=False) for t in texts_of(r)),
            one_neighbour(lambda r: texts_changed(r, lambda t: without_line_ends(t, carriage_return=False)))),
    Feature("weight-zero", "a weight is zero (not every one)", "weight-zero",
            lambda r: 0 in r.weights and any(r.weights), one_neighbour(zero_weights_raised)),
    # callers cut each text into sentences and pass the pieces on as a corpus paired by position (ragas' BleuScore
    # splits on ". ", vibrantlabsai/ragas#2888 and #2809); a corpus scorer refuses sides of different lengths (nltk's
    # corpus_bleu asserts one reference list per hypothesis; Maluuba/nlg-eval#46, `assert len(refs) == len(hyps)`
    # on files of different line counts), so such a caller errs where the two sides' sentence counts differ. Its
    # neighbour makes every sentence end a comma: one sentence each side, every token kept
    Feature("sentence-counts-differ", "a reference has another number of sentences than its hypothesis (cut after "
            "each token ending in '.', '!' or '?')", "sentences", sentence_counts_differ,
            one_neighbour(without_sentence_ends)),
    Feature("segments-several", "the corpus has several segments", "segments",
            lambda r: len(r.segments) > 1, single_segments),
    Feature("references-several", "a segment has several references", "references",
            lambda r: any(len(s.references) > 1 for s in r.segments), single_references),
    # pycocoevalcap's sanity check `assert(len(ref) > 1)` (tylin/coco-caption #15 changed it to support "scoring
    # against one or more references"; the held-out bug error-on-one-reference): its neighbour gives the one
    # reference twice, which changes no count, no length and no match
    Feature("references-one", "a segment has exactly one reference", "references-one",
            lambda r: any(len(s.references) == 1 for s in r.segments), one_neighbour(one_reference_doubled)),
    Feature("lowercase", "case is folded (lowercase)", "lowercase",
            lambda r: r.lowercase, one_neighbour(lambda r: r.model_copy(update={"lowercase": False}))),
    Feature("level-sentence", "the level is sentence", "level",
            lambda r: r.level == "sentence", one_neighbour(other_level)),
    Feature("level-corpus", "the level is corpus", "level",
            lambda r: r.level == "corpus", one_neighbour(other_level)),
    # -- the batch's and the lengths' shapes (issue 36's "errors get a cause", coverage of the fifth held-out set's
    # crashes: a crash named by a necessary condition or not at all; each is general, none a bug's own spelling) --
    # an in-graph metric squeezing every axis of size 1 (tensor2tensor's `tf.squeeze(outputs)` before compute_bleu)
    # loses the batch axis on a batch of one segment; so does a reader that takes a single item for a list of them.
    # Its neighbours give the one segment twice (at corpus level): every count doubled, each segment's features kept;
    # and the one segment beside one of an empty hypothesis: c and the hypothesis n-grams kept, so that a trigger on
    # a corpus total (nltk's chen-cherry-4 dividing by ln(c), c = 1) is not named by the count (error-boundaries)
    Feature("segments-one", "the corpus has exactly one segment (a sentence request's one, or a corpus of one)",
            "segments", lambda r: len(r.segments) == 1, one_segment_made_two),
    # a length rule that walks the references keeping the closest so far, and misbehaves on a tie with a shorter one
    # met later (sacrebleu 1.0.x's `closest_len = len` stored the built-in on it); its neighbour swaps the two tied
    # references, the tie kept, so its answer is about their order
    Feature("closest-reference-tied-longer-first", "two references are the closest to the hypothesis length, one "
            "shorter and one longer by as many tokens, the longer listed first", "closest-tie",
            closest_reference_tied_longer_first, one_neighbour(tied_references_swapped)),
    # the tie itself, whatever the order (a rule that cannot choose, a `min` over (distance, length) pairs compared
    # wrongly); its neighbour gives the longer tied reference(s) a token found nowhere in the input: the shorter is
    # then the one closest, and r under closest (ties to the shorter) the same
    Feature("closest-reference-tied", "two references are the closest to the hypothesis length, one shorter and one "
            "longer by as many tokens (a tie for the closest reference length)", "closest-tie",
            closest_reference_tied, one_neighbour(tie_broken)),
)
#: Features of what the input's tokens give rather than of its shape, asked after the features of `FEATURES`: a
#: zero precision follows from the tokens, so another feature's neighbour often adds a match as well (a reference
#: lengthened by its own tokens, a line break read as a space); r follows from every length and the rule, so a
#: hypothesis lengthened or a reference given changes it. Held among the others they would block their neighbours
#: (`_Probing.keeps_the_others`) or share their names.
LAST_RESORT: tuple[Feature, ...] = (
    # an order counted with none of its n-grams matched: where an implementation takes log p_n unguarded (w_n log
    # p_n summed over every order, nltk #1268 and #1545's `math.log(p_i)`: "ValueError means log(0.0)")
    Feature("precision-zero", "an order's precision is 0 (none of its hypothesis n-grams matches, or it has none)",
            "precision-zero", zero_precision, one_neighbour(hypotheses_as_references)),
    # the brevity penalty's ratio c / r taken unguarded (tensorflow/nmt PR #483 "divided by 0 when reference_length
    # is zero", huggingface/evaluate PR #764): r follows from the lengths and the rule, not from any one reference,
    # so a hypothesis's length changes it (under closest) and it stands beside the shape's features, not among them
    Feature("reference-length-zero",
            "the reference length r is 0: in every segment the reference the length rule picks is empty",
            "reference-length-zero", reference_length_zero, one_neighbour(picked_reference_given)),
    # the per-segment reference lists passed as reference streams (a sacrebleu wrapper's mistake, realbleu's
    # `references-transposed`; sacrebleu 1.4 zips them with the hypotheses by `zip_longest` and raises on streams
    # of other lengths): a
    # relation of two counts, so a segment's reference cut or a segment dropped changes it; held among the shape's
    # features it would block their neighbours. Its neighbour makes the two counts agree by the segments alone,
    # cycled up to as many as each one's references where every segment has as many, more than the segments: every
    # segment and reference kept (references added or cut, or segments dropped, would change what they give: a
    # match, an empty reference, an order's n-grams; a corpus of one reference a segment has no such neighbour)
    Feature("references-not-as-many-as-segments", "a segment has another number of references than the corpus has "
            "segments (what a reader of each segment's references as one stream cannot zip)", "reference-streams",
            references_not_as_many_as_segments, one_neighbour(segments_as_many_as_references)),
)

#: Features asked only as one half of a disjunction (`a-or-b`, where no feature alone separates the failing input
#: and two do together, each half confirmed by probes on both sides: `errorcauses._disjunction`), after `FEATURES`.
#: A shrunk input's texts are mostly one token long, so a feature every lengthening takes away is held by nearly
#: every one: among `FEATURES` it would block their neighbours (a hypothesis given a second token would no longer be
#: asked about its one token alone).
HALVES: tuple[Feature, ...] = (
    # tensor2tensor's `tf.squeeze(outputs)` on the length axis as on the batch axis (`segments-one`): a padded batch
    # whose longest text is one token long. Its neighbour gives one text of one token a second, found nowhere in the
    # input, before it (a reference first: c and the hypothesis's n-grams stay)
    Feature("longest-text-one-token", "the longest hypothesis or reference has exactly one token (every text at "
            "most one)", "longest-text", longest_text_one_token, one_text_lengthened),
)

#: Narrower faces of the features above, each asked only once a cause naming the broader one is found, by one probe
#: on the other side of the boundary the broader reading draws (`errorcauses._faces`; issue 36, error-faces: a
#: cause's quantifier and its order bound told from their broader and narrower neighbours). A per-segment feature
#: ("some segment ...") has an every-quantified face (`errorcauses.every_segment`), whose neighbour is the failing
#: input with one more segment without the feature, every other feature kept: a corpus of one segment, where "some"
#: and "every" are the same input, cannot tell them apart.
FACES: tuple[Feature, ...] = (
    # c = 0 over the corpus: a brevity penalty's r / c or c / r taken on the corpus's summed lengths unguarded
    # (PaddlePaddle/PaddleNLP #8761, BLEU.accumulate's `math.exp(min(1 - self.bp_r / float(self.bp_c), 0))`, bp_c
    # summed over the corpus; tensorflow/nmt's compute_bleu, `ratio = translation_length / reference_length` then
    # `math.exp(1 - 1. / ratio)`): one non-empty hypothesis anywhere in the corpus answers
    errorcauses.every_segment(next(f for f in FEATURES if f.name == "hypothesis-empty"), "hypotheses-all-empty",
                              "every hypothesis of the corpus is empty (c = 0)"),
    # a token's line end: which reader cuts there and on which side. A caller that writes each side's segments one a
    # line and reads them back cuts a segment at a line end its reader takes: `str.splitlines` at every one of
    # OTHER_LINE_ENDS, universal newlines at a lone CR only (a file opened in text mode without `newline='\n'`), and
    # only the side it reads so (the reference files of a scorer taking the hypotheses from a stream). Narrowest
    # first: a side's lone CR (a hypothesis's, then a reference's), a lone CR on either side, a side's line end
    *errorcauses.line_end_faces(next(f for f in FEATURES if f.name == "token-with-line-end")),
    # a text's line end, as a token's where its probes can be built (`errorcauses.text_line_end_faces` says which
    # cannot): a text request's caller writes each text as a line and reads it back the same ways
    *errorcauses.text_line_end_faces(next(f for f in FEATURES if f.name == "text-line-break"),
                                     next(f for f in FEATURES if f.name == "text-line-end")),
)

#: Features bounded by an order bound found beside them (`errorcauses.OrderFace`): an order only matters where some
#: text is as long as it, so `order-above-<k>` (the order lowered to k answered) may be a threshold on the n-grams
#: formed; asked, once such a bound is found, by the failing input with every text cut to k tokens, the order kept.
#: No code the project cites raises on forming an n-gram of an order above 1 (an n-gram builder that errs for such
#: an order does so only where a text is long enough to form one); the kind is general: any computation done per
#: n-gram of the orders above k and wrong there.
ORDER_FACES: tuple[errorcauses.OrderFace, ...] = (
    errorcauses.OrderFace(
        "text-longer-than-",
        lambda k: (f"a hypothesis or reference has more than {k} token(s) (with the order above {k}, an n-gram of "
                   f"order {k + 1} is formed)"),
        text_longer_than, texts_cut),
)

#: What an implementation erring on nearly every input may be answered for (`errorcauses.Exemption`; issue 36,
#: near-every-errors): asked only where no feature separates a failing input and some input asked was answered, and
#: named `error-unless-<a>[-or-<b>]` only where every answered input holds one and no erring input holds any
#: (`errorcauses._unless`). Each is what a guard met before the erring code, or a value the erring code survives,
#: gives: a zero precision answered 0 before the logarithm is taken (nltk's `corpus_bleu` returns 0 where an order
#: has no match, `if no_match: return 0` before `math.log(p_i)`: nltk #1268's guard; the staged fake's
#: `stage_zero_orders`), and every precision 1, whose logarithm is 0 however p_n was divided (an integer division
#: `m // l` gives 0 below 1, and log 0 raises: the planted precision-int-division's `//`, answered where m = l).
EXEMPTIONS: tuple[Exemption, ...] = (
    # given by every hypothesis token made one found nowhere (every order unmatched), and by the order raised past the
    # longest hypothesis (the orders the input had keep their matches): a guard on "some order" answers both
    Exemption("precision-zero", "an order in force (its weight above 0) has a precision of 0 once smoothed as the "
              "request says (none of its hypothesis n-grams matches and the smoothing gives it none, or it has none)",
              zero_precision_in_force,
              lambda r: [n for n in (hypotheses_unmatched(r), order_past_hypotheses(r)) if n], disqualifies=True,
              judged=countable),
    # nltk's corpus_bleu guards order 1 alone ("We only need to check for p_numerators[1] == 0, since if there's no
    # unigrams, there won't be any higher order ngrams": `if p_numerators[1] == 0: return 0`)
    Exemption("unigram-precision-zero", "order 1 is in force and its precision is 0 once smoothed (no unigram "
              "matches)", unigram_precision_zero, lambda r: [n for n in (hypotheses_unmatched(r),) if n],
              disqualifies=True, judged=countable),
    # a guard walking the orders that stops at the first without a match, before an order whose statistics are
    # missing is read (a statistics list one order short: the staged fake's `stage_zero_orders` before `m[n]`)
    Exemption("precision-zero-before-last-order", "an order in force before the last in force has a precision of 0 "
              "once smoothed", zero_precision_before_last, lambda r: [n for n in (hypotheses_unmatched(r),) if n]),
    Exemption("precisions-all-one", "every order in force has a precision of 1 once smoothed (each has n-grams, "
              "and every one matches)", precisions_all_one, references_made_hypotheses),
)

#: The features and triggers as the search reads them (`oracle.diagnose.errorcauses.Features`).
DECLARED = errorcauses.Features(FEATURES, LAST_RESORT, TRIGGER_PREFIXES, HALVES, FACES, ORDER_FACES, EXEMPTIONS)


def describe(name: str) -> str:
    """What an error (or crash, or hang) cause's name means, in words (`errorcauses.describe`)."""
    return errorcauses.describe(name, DECLARED)


def holds(name: str, request: ScoreRequest) -> bool:
    """Whether `request` has every feature the error cause `name` names (`errorcauses.holds`)."""
    return errorcauses.holds(name, request, DECLARED)


def hinted(request: ScoreRequest, hints: Iterable[tuple[str, ...]]) -> str | None:
    """The first of `hints` (causes, their parts) that is an error cause `request` holds, or None
    (`errorcauses.hinted`)."""
    return errorcauses.hinted(request, hints, DECLARED)


def error_cause(failing: ScoreRequest, ask: errorcauses.Ask, *, also_failing: Sequence[ScoreRequest] = (),
                methods: Sequence[str] = (), prefix: str = PREFIX, known: list[str] | None = None
                ) -> errorcauses.ErrorCause | None:
    """The cause of an error on `failing`, confirmed by asking its neighbours about the declared features
    (`errorcauses.error_cause`); where none is, what is known appended to `known`."""
    return errorcauses.error_cause(failing, ask, DECLARED, also_failing=also_failing, methods=methods, prefix=prefix,
                                   known=known)


#: What each trigger accounts for: an error answer, or the process's death or hang (`oracle.harness.crashcauses`).
_ANSWERS = {PREFIX: "error", CRASH_PREFIX: "crash", TIMEOUT_PREFIX: "timeout"}
#: The prefix of the names of a process that dies (hangs) after answering a number of requests
#: (`crash-after-<n>-requests`), and the name of an input no feature separates (`crash-no-input-feature`).
_AFTER = "-after-"
_NO_FEATURE = "-no-input-feature"
_AFTER_NAME = re.compile(rf"(crash|timeout){_AFTER}(\d+)-requests$")


def after_requests_name(word: str, answered: int) -> str:
    """The name of a process that dies (`word` "crash") or hangs ("timeout") on its request after answering
    `answered` requests, whatever they hold (`crash-after-<n>-requests`)."""
    return f"{word}{_AFTER}{answered}-requests"


def no_feature_name(word: str) -> str:
    """The name of an input that kills (`word` "crash") or hangs ("timeout") a process where no feature of the
    catalogue separates it (`crash-no-input-feature`)."""
    return f"{word}{_NO_FEATURE}"


def after_requests(name: str) -> int | None:
    """The requests a process answered before dying, for a `crash-after-<n>-requests` name (as a record or a hint
    carries it); else None."""
    match = _AFTER_NAME.match(name)
    return int(match.group(2)) if match else None


def _after_words(name: str) -> str:
    word, _, rest = name.partition(_AFTER)
    what = "dies" if word == "crash" else "hangs"
    return (f"the implementation's process {what} on the request after answering {rest.removesuffix('-requests')} "
            "request(s), whatever the request holds: the input alone is answered by a fresh process")


MECHANISMS = [
    *(Mechanism(prefix, ERROR, f"{what} where the input has the features the name joins (each confirmed by a "
                               "neighbouring input without it that is answered)",
                frozenset({_ANSWERS.get(prefix, "error")}), PROBE,
                (Route("probe", error_cause, what),), family=True, words_of=describe)
      for prefix, what in TRIGGER_PREFIXES.items()),
    *(Mechanism(f"{word}{_AFTER}", ERROR, _after_words(f"{word}{_AFTER}<n>-requests"), frozenset({word}), PROBE,
                family=True, words_of=_after_words)
      for word in ("crash", "timeout")),
    # what the probes found where no feature separates an error and every input asked erred, the failing input's
    # floor among them (`errorcauses.floor_requests`): a name of what is known, not a trigger (issue 36: "when nothing
    # fits, the name says what is known"); later errors of its kind in its block are named by it without probes
    Mechanism(EVERY_INPUT, ERROR, EVERY_INPUT_WORDS, frozenset({"error"}), PROBE),
    # an error on nearly every input, answered where an exemption holds (`EXEMPTIONS`): what the probes found on both
    # sides of that boundary; later errors of its kind that lack the exemptions are named by it (`hinted`)
    Mechanism(UNLESS, ERROR, f"{errorcauses.UNLESS_WORDS} an exemption holds (the name's: a zero precision, every "
              "precision 1)", frozenset({"error"}), PROBE, family=True, words_of=describe),
    *(Mechanism(no_feature_name(word), ERROR,
                f"no input feature separates it: the input {'kills' if word == 'crash' else 'hangs'} a fresh process "
                "as its first request, and no feature of the catalogue is confirmed", frozenset({word}), PROBE)
      for word in ("crash", "timeout")),
]

__all__ = ["DECLARED", "EVERY_INPUT", "EXEMPTIONS", "FACES", "FEATURES", "HALVES", "LAST_RESORT", "MECHANISMS",
           "ORDER_FACES", "TRIGGER_PREFIXES", "after_requests", "after_requests_name", "describe", "error_cause",
           "hinted", "holds", "no_feature_name"]
