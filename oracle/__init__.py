"""bleu-oracle: a literal, exact reference implementation of BLEU.

    >>> import oracle
    >>> result = oracle.score([["the", "cat"]], [[["the", "cat"]]], weights=[1, 1])
    >>> float(result.score)
    1.0

The formulas live in `oracle.formulas.bleu` (standard library only); conventions in
`oracle.formulas.conventions`; named presets in `oracle.formulas.profiles`.
"""

from oracle.formulas.bleu import (
    LEVELS,
    BleuResult,
    Statistics,
    bleu_from_statistics,
    corpus_bleu,
    corpus_statistics,
    segment_statistics,
    sentence_bleu,
)
from oracle.formulas.conventions import Options, Smoothing
from oracle.formulas.errors import (
    BleuOracleError,
    BleuTypeError,
    BleuValueError,
    CaseFileError,
)
from oracle.formulas.profiles import PROFILES, Profile, get_profile

__version__ = "0.1.0"


def resolve_options(*, profile="papineni", lowercase=None, **overrides):
    """The options of a profile, with explicit overrides (never mutating the profile)."""
    options = get_profile(profile).options
    if lowercase is not None:
        overrides["lowercase"] = lowercase
    return options.with_changes(**overrides) if overrides else options


def score(
    hypotheses,
    references,
    *,
    level="corpus",
    profile="papineni",
    weights=None,
    smoothing=None,
    lowercase=None,
    **overrides,
):
    """Score under a profile. Corpus level: a list of token lists and a list of reference lists.
    Sentence level: one token list and its list of references."""
    options = resolve_options(profile=profile, lowercase=lowercase, **overrides)
    if level == "corpus":
        return corpus_bleu(hypotheses, references, weights=weights, options=options, smoothing=smoothing)
    if level == "sentence":
        return sentence_bleu(hypotheses, references, weights=weights, options=options, smoothing=smoothing)
    raise BleuValueError(f"`level` must be one of {list(LEVELS)} (got {level!r})")


__all__ = [
    "BleuOracleError", "BleuResult", "BleuTypeError", "BleuValueError", "CaseFileError",
    "LEVELS", "Options", "PROFILES", "Profile", "Smoothing", "Statistics", "__version__",
    "bleu_from_statistics", "corpus_bleu", "corpus_statistics", "get_profile", "resolve_options",
    "score", "segment_statistics", "sentence_bleu",
]
