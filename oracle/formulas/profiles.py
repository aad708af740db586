"""Named presets of the conventions, each choice citing the document that states it.

A profile encodes what its documentation says, not what its code happens to do:
where the code departs from its own documentation, that is a discrepancy for
the reports. Where the documentation is silent we decide, and say "decided"
in the citation; a case in cases/ pins each decision down.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .conventions import Options, Smoothing
from .errors import BleuTypeError, BleuValueError

PAPER = "Papineni et al. 2002"
MATLAB = "MATLAB bleuEvaluationScore reference page"
NLTK = "NLTK nltk.translate.bleu_score documentation"
MLPACK = "mlpack BLEU class reference"
NMT = "tensorflow/nmt nmt/scripts/bleu.py (compute_bleu), copied by Hugging Face evaluate's bleu and keras-hub's Bleu"


@dataclass(frozen=True)
class Profile:
    name: str
    summary: str
    options: Options
    #: option name -> where it is stated (or why it was decided)
    citations: tuple

    def citation(self, option: str) -> str:
        return dict(self.citations).get(option, "")


def _profile(name: str, summary: str, citations: dict[str, str], **options: Any) -> Profile:
    return Profile(name, summary, Options(**options), tuple(citations.items()))


PROFILES = {
    p.name: p
    for p in (
        _profile(
            "papineni",
            "the paper: closest reference length, no smoothing, weights as given",
            {
                "reference_length": f"{PAPER} 2.2.2: 'best match length'; ties to the shorter decided (the paper is "
                                    "silent)",
                "empty_order": f"{PAPER} 2.3: a geometric mean with p_n = 0 is 0; 0/0 counted as 0 decided",
                "both_empty": f"{PAPER}: every p_n and r/c are 0/0, BLEU is undefined: NaN decided",
                "weight_normalisation": f"{PAPER} 2.3: 'positive weights w_n summing to one'; other weights used as "
                                        "given, decided",
                "smoothing": f"{PAPER}: no smoothing",
            },
        ),
        _profile(
            "nltk",
            "NLTK as documented: closest (ties shorter), no smoothing, weights as given",
            {
                "reference_length": f"{NLTK}, brevity_penalty: 'when two reference sentences are at the same "
                                    "distance, the shortest reference sentence length is used'",
                "empty_order": f"{NLTK}, sentence_bleu: 'If there is no ngrams overlap for any order of n-grams, BLEU "
                               "returns the value 0'",
                "both_empty": f"{NLTK}, sentence_bleu: no n-gram overlaps, 'BLEU returns the value 0'",
                "weight_normalisation": f"{NLTK}, corpus_bleu: 'weights for unigrams, bigrams, trigrams and so on'; "
                                        "no normalisation documented (auto_reweigh is off by default)",
                "segment_totals_floor": f"{NLTK}, corpus_bleu: 'summing the numerators and denominators for each "
                                        "hypothesis-reference(s) pairs before the division' -- no floor",
                "smoothing": f"{NLTK}: SmoothingFunction().method0 'No smoothing' is the default",
            },
            both_empty="zero",
        ),
        _profile(
            "sacrebleu",
            "sacrebleu: closest (ties shorter), exp smoothing, uniform weights, effective order at sentence level",
            {
                "reference_length": "sacrebleu _get_closest_ref_len: 'closest reference length'; ties to the shorter "
                                    "decided (its code; mteval-v13a's rule)",
                "empty_order": "sacrebleu BLEU(effective_order=False) is the corpus default: an order with no n-grams "
                               "is not left out, precision 0",
                "sentence_empty_order": "sacrebleu sentence_bleu: use_effective_order=True, 'Don't take into account "
                                        "n-gram orders without any match' -- read as orders without n-grams (decided: "
                                        "with smoothing 'exp', orders with n-grams but no match are smoothed, not "
                                        "left out)",
                "both_empty": "sacrebleu: documentation silent; 0 decided (its code returns 0.0 when nothing matches)",
                "no_match": "sacrebleu CHANGELOG, 2.0.0: 'BLEU: In case of no n-gram matches at all, skip smoothing "
                "and return 0.0 BLEU (#141).'",
                "uniform_weights_only": "sacrebleu: max_ngram_order only; the geometric mean is uniform",
                "smoothing": "sacrebleu BLEU: smooth_method='exp' is the default",
                "tokenizer": "sacrebleu BLEU: ':param tokenize: The tokenizer to use. If None, defaults to "
                "language-specific tokenizers with '13a' as the fallback default.'",
                "fold_stage": "sacrebleu BLEU._preprocess_segment: 'if self.lowercase: sent = sent.lower()' then "
                              "'return self.tokenizer(sent.rstrip())': the line is folded before the tokenizer "
                              "(documentation silent: its code; 'Given a sentence, lowercases (optionally) and "
                              "tokenizes it')",
            },
            both_empty="zero",
            no_match="zero",
            fold_stage="line",
            sentence_empty_order="skip",
            uniform_weights_only=True,
            smoothing=Smoothing("exp"),
            tokenizer="13a",
        ),
        _profile(
            "mteval",
            "NIST mteval-v13a.pl: closest (ties shorter), exp (NIST) smoothing, uniform BLEU-4",
            {
                "reference_length": f"{NLTK}, brevity_penalty: 'A test example from mteval-v13a.pl' (0.8668 for 7 "
                                    "against 11 and 8: closest); ties to the shorter decided",
                "empty_order": "mteval-v13a.pl, sub bleu_score (its default, smoothed): 'if ( $tst_ngrams->[ $j ] == "
                               "0 ) "
                "{ $iscore = 0; }' -- log p_n = 0, so an order with no hypothesis n-grams counts as p_n = 1",
                "unsmoothed_empty_order": "mteval-v13a.pl, sub bleu_score_nosmoothing (--no-smoothing): 'if "
                "($matching_ngrams->[ $j ] == 0) { $SCOREmt->{ $j }{ $sys }{ cum }=0; }' -- an "
                "order without matches, n-grams or not, makes the score 0",
                "both_empty": "mteval-v13a.pl: 0 decided (documentation silent)",
                "uniform_weights_only": "mteval-v13a.pl: uniform BLEU-4 only",
                "smoothing": "sacrebleu compute_bleu: 'exp: Method 3 (NIST smoothing method i.e. in use with "
                             "mteval-v13a.pl)'; the script's usage offers --no-smoothing, so smoothing is its default",
                "tokenizer": "mteval-v13a.pl usage: '--international-tokenization ... when not specified (default), "
                "uses default tokenization (some language-dependant rules)': its `sub tokenization`, 13a",
                "token_split": "mteval-v13a.pl, sub tokenization: '$norm_text =~ s/\\s+/ /g; # one space only between "
                "words' and sub score_segment: '@tst_wrds = split /\\s+/, $tst_seg;' on the character "
                "strings XML::Twig gives: Perl's \\s, Unicode White_Space (a no-break space splits, "
                "U+001C does not; checked against the script)",
                "case_fold": "mteval-v13a.pl, sub tokenization: '$norm_text =~ tr/[A-Z]/[a-z]/ unless "
                             "$preserve_case;': "
                "ASCII letters only",
            },
            empty_order="one",
            unsmoothed_empty_order="zero",
            both_empty="zero",
            uniform_weights_only=True,
            smoothing=Smoothing("exp"),
            tokenizer="13a",
            token_split="white-space",
            case_fold="ascii",
        ),
        _profile(
            "multi-bleu",
            "Moses multi-bleu.perl: closest (ties shorter), no smoothing, uniform BLEU-4",
            {
                "reference_length": "multi-bleu.perl (no documentation; its code): closest reference length, ties to "
                                    "the shorter",
                "empty_order": "multi-bleu.perl (its code): precision 0 for an order with no n-grams",
                "both_empty": "multi-bleu.perl (its code): prints 'BLEU = 0' when the reference length is 0",
                "uniform_weights_only": "multi-bleu.perl: uniform BLEU-4 only",
                "token_split": "multi-bleu.perl lines 62 and 69: 'my @WORD = split;' and 'split(' ',$reference)' on "
                               "the "
                "bytes it reads (no 'use utf8', no decoding): ASCII whitespace only, a no-break space "
                "stays inside a word",
                "case_fold": "multi-bleu.perl lines 61 and 68: '$_ = lc if $lowercase;' and 'lc($reference)' on bytes: "
                "Perl's lc folds A-Z only",
            },
            both_empty="zero",
            uniform_weights_only=True,
            token_split="ascii",
            case_fold="ascii",
        ),
        _profile(
            "multi-bleu-detok",
            "Moses multi-bleu-detok.perl: multi-bleu.perl's BLEU on mteval-v13a's tokenization (13a)",
            {
                "reference_length": "multi-bleu-detok.perl (its code, multi-bleu.perl's): closest reference "
                                    "length, 'take the *shorter* into account, not the \"first\" one'",
                "empty_order": "multi-bleu-detok.perl (its code): precision 0 for an order with no n-grams",
                "both_empty": "multi-bleu-detok.perl (its code): prints 'BLEU = 0' when the reference length is 0",
                "uniform_weights_only": "multi-bleu-detok.perl: uniform BLEU-4 only",
                "tokenizer": "multi-bleu-detok.perl, its header: 'This file uses the internal tokenization of "
                             "mteval-v13a.pl, giving the exact same (case-sensitive) results on untokenized text': "
                             "13a",
                "token_split": "the same header: mteval-v13a.pl's results, whose words are split by Perl's \\s on "
                               "character strings (Unicode White_Space; the mteval profile's token_split)",
                "case_fold": "multi-bleu-detok.perl: '$_ = lc if $lowercase;' and 'lc($reference)' on bytes: Perl's "
                             "lc folds A-Z only",
            },
            both_empty="zero",
            uniform_weights_only=True,
            tokenizer="13a",
            token_split="white-space",
            case_fold="ascii",
        ),
        _profile(
            "matlab",
            "MATLAB bleuEvaluationScore: closest reference, weights normalised, NaN for empty inputs",
            {
                "reference_length": f"{MATLAB}, Algorithms: 'the reference document with length closest to the "
                                    "candidate length'; ties to the shorter decided",
                "empty_order": f"{MATLAB}, Tip: 'If the number of words in candidate is smaller than the number of "
                               "elements in ngramWeights, then the resulting BLEU score is zero'",
                "both_empty": f"{MATLAB}, Output Arguments: 'If candidate and references are both empty documents, "
                              "then score is NaN'",
                "weight_normalisation": f"{MATLAB}, NgramWeights: 'The function normalizes the n-gram weights to sum "
                                        "to one'",
                "zero_weight": f"{MATLAB}, Tip: the zero score is stated by 'the number of elements in ngramWeights', "
                               "whatever their values",
                "lowercase": f"{MATLAB}, IgnoreCase: 0 (false) (default)",
            },
            weight_normalisation="normalise",
            zero_weight="counted",
        ),
        _profile(
            "mlpack",
            "mlpack BLEU: shortest reference (as tensorflow/nmt), ratio brevity penalty, lin-2004 when smooth",
            {
                "reference_length": f"{MLPACK}: 'ratio = translation to reference length ratio' does not say which "
                                    "reference; shortest decided, as in tensorflow/nmt's compute_bleu which mlpack's "
                                    "BLEU ports",
                "brevity penalty": f"{MLPACK}: 'exp(1 - 1/ratio)' if ratio <= 1 -- algebraically e^(1 - r/c), the "
                                   "paper's, so no option",
                "empty_order": f"{MLPACK}: modified precision of an order with no n-grams counted as 0 decided",
                "both_empty": f"{MLPACK}: ratio 0/0 is undefined: NaN decided",
                "uniform_weights_only": f"{MLPACK}: 'w = 1/maxOrder' -- uniform",
                "smoothing": f"{MLPACK}, Evaluate: 'smooth = false'; smooth=true is 'Lin et al. 2004 smoothing' "
                             "(method lin-2004)",
            },
            reference_length="shortest",
            uniform_weights_only=True,
        ),
        _profile(
            "tensorflow-nmt",
            "tensorflow/nmt compute_bleu (Hugging Face evaluate's bleu): shortest reference, ratio brevity penalty, "
            "add-one on every order when smooth",
            {
                "reference_length": f"{NMT}: 'reference_length += min(len(r) for r in references)' -- the shortest",
                "brevity penalty": f"{NMT}: 'bp = math.exp(1 - 1. / ratio)' unless 'ratio > 1.0' -- e^(1 - r/c), the "
                                   "paper's, so no option",
                "empty_order": f"{NMT}: 'precisions[i] = 0.0' when 'possible_matches_by_order[i]' is 0",
                "both_empty": f"{NMT}: 'ratio = float(translation_length) / reference_length' divides 0 by 0 "
                              "(ZeroDivisionError): NaN decided",
                "uniform_weights_only": f"{NMT}: '(1. / max_order) * math.log(p)' -- uniform",
                "smoothing": f"{NMT}: 'smooth: Whether or not to apply Lin et al. 2004 smoothing' -- "
                "'(matches_by_order[i] + 1.) / (possible_matches_by_order[i] + 1.)' on every order (method lin-2004)",
            },
            reference_length="shortest",
            uniform_weights_only=True,
        ),
    )
}


def get_profile(name: str | Profile) -> Profile:
    """The profile called `name`, or a clear error listing the known ones."""
    if isinstance(name, Profile):
        return name
    if not isinstance(name, str):
        raise BleuTypeError(f"`profile` must be a profile name (got {type(name).__name__} {name!r})")
    try:
        return PROFILES[name]
    except KeyError:
        raise BleuValueError(f"`profile` must be one of {sorted(PROFILES)} (got {name!r})") from None
