"""`bleu-oracle cases export`: the documented cases as flagged, language-neutral test vectors (Wycheproof-style).

Under `--profile P` every case the profile can express becomes one `oracle.models.export.Vector`, its
expectation recomputed under P exactly as `check` judges a P implementation (`case_expected`, and the rule by
which a case overriding a convention applies only to its own profiles: `not_applicable_reason`); without a
profile, each case under each of its own profiles. The minimal example behind every curated discrepancy
(oracle/diagnose/data/discrepancies.yaml) of the profile becomes a vector too, flagged known-bug, and so does one
input of each kind PROTOCOL.md refuses or leaves undefined (`origin: "protocol"`).

Each vector says what it `needs` of an implementation, its `result` (valid, rejected, or acceptable where the
profiles' conventions give different answers, each listed with the conventions it is right under) and its
`flags`, keys of the file's `notes`. The file validates against `suite.schema.json`, written beside it.

Why here and not in `oracle/suite/`: an expectation is the oracle's (`oracle.diagnose.expect`) and which cases
apply is the harness's rule (`oracle.harness.requests`); the suite layer sits below both.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, fields
from decimal import Decimal, InvalidOperation
from pathlib import Path

from oracle import __version__
from oracle.adapters.base import is_uniform
from oracle.diagnose import discrepancies
from oracle.diagnose.expect import case_expected, oracle_options, oracle_result
from oracle.diagnose.judge import DEFAULT_ABS, DEFAULT_REL, Contract
from oracle.files import write_atomically
from oracle.formulas.bleu import LEVELS
from oracle.formulas.bounds import MAX_ORDER
from oracle.formulas.conventions import REQUEST_CONVENTIONS, SMOOTHING_METHODS, Options
from oracle.formulas.errors import BleuOracleError
from oracle.formulas.profiles import PROFILES
from oracle.formulas.tokenizers import TOKENIZERS
from oracle.harness.refused import REFUSED_KINDS
from oracle.harness.requests import not_applicable_reason, request_from_json
from oracle.models import export
from oracle.models.discrepancy import Discrepancy
from oracle.models.jsonvalues import json_safe
from oracle.models.outcomes import Expected
from oracle.models.protocol import Capabilities, ScoreRequest
from oracle.suite import SUITE_VERSION

SUITE_FILE = "suite.json"
SCHEMA_FILE = "suite.schema.json"

#: Every capability protocol v1 can declare: with these, only the rules about the cases themselves (an input
#: protocol v1 cannot carry, a convention override for other profiles) keep a case from a profile.
EVERY_CAPABILITY = Capabilities(
    levels=tuple(LEVELS),
    weights="any",
    max_order=MAX_ORDER,
    smoothing=tuple(SMOOTHING_METHODS),
    statistics=True,
    lowercase=True,
    tokenizers=tuple(TOKENIZERS),
    conventions={name: tuple(rules) for name, rules in REQUEST_CONVENTIONS.items()},
)
#: Conventions a request carries itself (weights, smoothing, lowercase), or that its `needs` state (uniform
#: weights): never a split between profiles.
_CARRIED = {"smoothing", "lowercase", "default_max_order", "uniform_weights_only"}
#: A float's smallest normal number: below it, the zero rule accepts 0 (an underflow).
_SMALLEST_NORMAL = Decimal("2.2250738585072014e-308")

#: The notes whose text does not depend on the vector (the others: convention splits, known bugs, document errors).
#: A flag is printed in test titles of any language, so no flag is a word a language gives a meaning to (`undefined`
#: in a node test title reads as a missing variable): each says what its vectors have in common.
FIXED_NOTES: dict[str, export.Note] = {
    "exact-zero": export.Note(
        bug_type="edge-case",
        description="The exact value is 0 (an order with no match and no smoothing, or a weighted order with p_n = 0).",
        effect="The zero rule: an answer that is not exactly 0 fails whatever the tolerance; an epsilon inside "
        "a logarithm (log(p + 1e-13)) or sys.float_info.min in place of 0 is caught here.",
    ),
    "zero-over-zero": export.Note(
        bug_type="edge-case",
        description="BLEU is 0/0 here: the hypothesis length c and the reference length r are both 0, so every "
        "p_n and r/c are 0/0; the profile's both_empty convention says undefined, NaN.",
        effect="The NaN rule: only NaN matches; 0, 1 or a crash fail.",
    ),
    "underflow": export.Note(
        bug_type="numeric-precision",
        description="The exact value is positive but below a float's smallest normal number.",
        effect="0 is accepted (an underflow); any other answer is held to the tolerance.",
    ),
    "printed-rounded": export.Note(
        bug_type="numeric-precision",
        description="The document prints the value rounded; `expected` is exact "
        "and `printed.tolerance` is half a unit of its last digit.",
        effect="Compare with `expected` under the contract; the printed value only within its tolerance.",
    ),
    "empty-hypothesis": export.Note(
        bug_type="edge-case",
        description="A hypothesis is empty (c = 0 in its segment).",
        effect="Division by c = 0 in the brevity penalty or by a zero total: implementations crash, answer 0 or NaN.",
    ),
    "empty-reference": export.Note(
        bug_type="edge-case",
        description="A reference is empty.",
        effect="The reference length rule sees a length of 0; implementations skip it or crash.",
    ),
    "whitespace-token": export.Note(
        bug_type="layout",
        description="A token holds whitespace.",
        effect="An implementation that joins tokens with spaces and splits them again counts other n-grams.",
    ),
    "empty-token": export.Note(
        bug_type="layout",
        description="A token is the empty string.",
        effect="An implementation that joins tokens with spaces loses it: other lengths and n-grams.",
    ),
    "undefined-input": export.Note(
        bug_type="edge-case",
        description="The documents define no value for this input (PROTOCOL.md, \"Inputs the documents leave "
        "undefined\"): refusing it is recommended (`expected`), and the value of each named convention in "
        "`answers` is acceptable too.",
        effect="A consumer chooses: refusal only (as `check --strict`), or any listed answer; a crash or any other "
        "value is wrong either way.",
    ),
    "raw-text": export.Note(
        bug_type="layout",
        description="A text request: the implementation tokenizes raw text with the named "
        "tokenizer (`needs.tokenizer`).",
        effect="A tokenizer that differs in one rule gives other token counts.",
    ),
}

#: Flags renamed by format bleu-oracle-suite/3 (docs/vectors.md), old name -> new name: `zero` read as a count or
#: as 0/0, `undefined` as a JavaScript bug.
RENAMED_FLAGS = {"zero": "exact-zero", "undefined": "zero-over-zero"}

#: One input of each kind PROTOCOL.md refuses or leaves undefined (the kinds the search sends,
#: `oracle.harness.refused`), as the vectors of origin "protocol" carry it, with the section of PROTOCOL.md that
#: says so.
_THE_CAT = {"hypothesis": ["the", "cat", "sat", "the", "mat"],
            "references": [["the", "cat", "sat", "on", "the", "mat"]]}
_PLAIN = {"level": "corpus", "segments": [_THE_CAT], "weights": [0.5, 0.5], "smoothing": {"method": "none"},
          "lowercase": False}
_REFUSED, _UNDEFINED = "Inputs that are refused", "Inputs the documents leave undefined"
PROTOCOL_INPUTS: dict[str, tuple[dict[str, object], str]] = {
    "no-references": ({**_PLAIN, "segments": [{**_THE_CAT, "references": []}]}, _REFUSED),
    "negative-weight": ({**_PLAIN, "weights": [0.5, -0.5]}, _REFUSED),
    "negative-smoothing": ({**_PLAIN, "smoothing": {"method": "floor", "value": -0.1}}, _REFUSED),
    "empty-corpus": ({**_PLAIN, "segments": [], "weights": [0.25] * 4}, _UNDEFINED),
    "zero-weights": ({**_PLAIN, "weights": [0.0] * 4}, _UNDEFINED),
}

_CASE_MENTION = re.compile(r"\bcases? ([a-z0-9]+(?:-[a-z0-9]+)+)")


@dataclass(frozen=True)
class Candidate:
    """One input to export under one profile, with everything a vector says about it."""

    id: str
    origin: str
    title: str
    request: ScoreRequest
    overrides: dict[str, object]
    document: dict[str, object]
    case_profiles: tuple[str, ...]
    source: export.Source
    flags: tuple[str, ...] = ()


@dataclass
class Pack:
    """The vectors of one file, the notes they refer to, and what was left out."""

    vectors: list[export.Vector] = field(default_factory=list)
    notes: dict[str, export.Note] = field(default_factory=dict)
    left_out: list[export.LeftOut] = field(default_factory=list)


# -- what an input needs of an implementation -------------------------------------------------------------


def needs_of(request: ScoreRequest, overrides: dict[str, object] | None = None) -> export.Needs:
    """The capabilities `request` uses (what `not_applicable_reason` checks against an implementation's)."""
    tokens = (
        []
        if request.is_text
        else [token for s in request.segments for sequence in (s.hypothesis, *s.references) for token in sequence]
    )
    special = sorted({c for token in tokens for c in token if not c.isalnum()})
    return export.Needs(
        level=request.level,
        max_order=len(request.weights),
        weights="uniform" if is_uniform(request.weights) else "any",
        smoothing=request.smoothing.method,
        lowercase=request.lowercase,
        references=max((len(s.references) for s in request.segments), default=0),
        reference_counts_differ=len({len(s.references) for s in request.segments}) > 1,
        whitespace_in_tokens=any(c.isspace() for c in special),
        token_characters=special,
        empty_tokens=any(token == "" for token in tokens),
        tokenizer=request.tokenize,
        texts=_texts_of(request),
        conventions=request.conventions.to_json() if request.conventions is not None else {},
    )


def _texts_of(request: ScoreRequest) -> list[str]:
    """A text request's raw texts, each once in order of appearance ([] for a token request)."""
    texts = (text for s in request.segments for text in (s.hypothesis, *s.references) if isinstance(text, str))
    return list(dict.fromkeys(texts))


# -- convention splits -------------------------------------------------------------------------------------


def _answer_key(request: ScoreRequest, options: Options) -> tuple[str, str | None, float | None]:
    """("rejected", None, None) or ("score", exact, float) of the oracle on `request` under `options`."""
    try:
        result = oracle_result(request, options)
    except BleuOracleError:
        return ("rejected", None, None)
    return ("score", str(result.score), float(result.score))


def _same_answer(one: tuple[str, str | None, float | None], other: tuple[str, str | None, float | None]) -> bool:
    """Whether two answer keys are one answer under the default contract: both rejections, or scores within
    the tolerance that the zero rule does not tell apart (an exact 0 is never the same as a non-zero)."""
    if one[0] != other[0] or one[0] == "rejected":
        return one[0] == other[0]
    exact_zero = [key[1] is not None and key[1] != "NaN" and Decimal(key[1]) == 0 for key in (one, other)]
    return exact_zero[0] == exact_zero[1] and Contract().close(one[2], other[2])


def _profile_options(request: ScoreRequest, profile: str, overrides: dict[str, object]) -> Options:
    return oracle_options(profile, lowercase=request.lowercase, overrides=overrides)


def _splitting_conventions(request: ScoreRequest, profile: str, other: str, overrides: dict[str, object]) -> list[str]:
    """The conventions of `other` that, each changed alone in `profile`'s, change the answer; all the ones
    that differ when no single one does."""
    mine, theirs = _profile_options(request, profile, overrides), _profile_options(request, other, overrides)
    own = _answer_key(request, mine)
    differing = [
        f.name
        for f in fields(Options)
        if f.name not in _CARRIED and f.name not in overrides and getattr(mine, f.name) != getattr(theirs, f.name)
    ]
    alone = [
        name
        for name in differing
        if not _same_answer(_answer_key(request, mine.with_changes(**{name: getattr(theirs, name)})), own)
    ]
    return alone or differing


def _profiles_taking(request: ScoreRequest) -> list[str]:
    """The profiles whose implementations can be sent `request`: weights other than 1/N are outside a profile
    that takes uniform weights only (`needs.weights` says so; it is not a convention split)."""
    uniform = is_uniform(request.weights)
    return [name for name, profile in PROFILES.items() if uniform or not profile.options.uniform_weights_only]


def answers_of(
    request: ScoreRequest, profile: str, overrides: dict[str, object]
) -> tuple[list[export.Answer], list[str]]:
    """Every profile's answer to `request` when they differ (else none), and the conventions they split on."""
    groups: list[tuple[tuple[str, str | None, float | None], list[str]]] = []  # (the first profile's answer, profiles)
    for name in _profiles_taking(request):
        key = _answer_key(request, _profile_options(request, name, overrides))
        group = next((names for first, names in groups if _same_answer(first, key)), None)
        if group is None:
            groups.append((key, [name]))
        else:
            group.append(name)
    if len(groups) < 2:
        return [], []
    splitting = sorted(
        {
            convention
            for _, names in groups
            if profile not in names
            for convention in _splitting_conventions(request, profile, names[0], overrides)
        }
    )
    answers = []
    for (kind, exact, _), names in groups:
        shared = {}
        for convention in splitting:
            values = {
                json.dumps(json_safe(getattr(_profile_options(request, n, overrides), convention))) for n in names
            }
            if len(values) == 1:
                shared[convention] = json.loads(values.pop())
        score = None if exact is None else json_safe(float(Decimal(exact)) if exact != "NaN" else float("nan"))
        answers.append(
            export.Answer(
                profiles=names, conventions=shared, rejected=kind == "rejected", score=score, score_exact=exact
            )
        )
    return answers, splitting


def _split_note(convention: str) -> export.Note:
    values = "; ".join(
        f"{name}: {json.dumps(json_safe(getattr(profile.options, convention)))}" for name, profile in PROFILES.items()
    )
    return export.Note(
        bug_type="convention-split",
        description=f"The value depends on the convention `{convention}`, on which the profiles differ ({values}).",
        effect="Each answer is right under its own conventions (`answers`); an implementation of the file's "
        "profile gives `expected`. `bleu-oracle profiles` cites the document behind each choice.",
    )


# -- flags ---------------------------------------------------------------------------------------------------


def _exact(expected: Expected) -> Decimal | None:
    try:
        return None if expected.rejected or expected.score_exact is None else Decimal(expected.score_exact)
    except InvalidOperation:
        return None


def fixed_flags(request: ScoreRequest, expected: Expected, printed: export.Printed | None) -> list[str]:
    """The keys of `FIXED_NOTES` that describe this input and its expectation."""
    exact, flags = _exact(expected), []
    if exact is not None and exact.is_nan():
        flags.append("zero-over-zero")
    elif exact is not None and exact == 0:
        flags.append("exact-zero")
    elif exact is not None and abs(exact) < _SMALLEST_NORMAL:
        flags.append("underflow")
    if printed is not None and printed.tolerance is not None:
        flags.append("printed-rounded")
    if any(len(s.hypothesis) == 0 for s in request.segments):
        flags.append("empty-hypothesis")
    if any(len(r) == 0 for s in request.segments for r in s.references):
        flags.append("empty-reference")
    needs = needs_of(request)
    if needs.whitespace_in_tokens:
        flags.append("whitespace-token")
    if needs.empty_tokens:
        flags.append("empty-token")
    if request.is_text:
        flags.append("raw-text")
    return flags


def known_bug_note(entry: Discrepancy) -> export.Note:
    """A curated discrepancy as a note: what the library does, what it answers on the example, upstream."""
    links = [export.Link(url=thread.url, state=thread.state) for thread in entry.upstream.threads()]
    return export.Note(
        bug_type="known-bug",
        description=f"{entry.implementation} {entry.version}: {entry.summary}",
        effect=f"On the minimal example {entry.implementation} answers {json.dumps(entry.example.implementation)} "
        f"where profile {entry.profile} gives {json.dumps(entry.example.oracle)}.",
        links=links,
        upstream=entry.upstream.text(),
    )


def _cases_named(entry: Discrepancy) -> set[str]:
    """The case ids a curated discrepancy's text names (a documented case showing the same behaviour)."""
    return set(_CASE_MENTION.findall(" ".join(filter(None, (entry.summary, entry.note, entry.observed)))))


# -- the vectors ----------------------------------------------------------------------------------------------


def case_candidates(
    cases: Sequence, profile: str | None, pack: Pack, bugs_by_case: dict[str, list[str]]
) -> Iterable[tuple[str, Candidate]]:
    """(profile, Candidate) of every case under `profile` (each of its own when None); the rest left out."""
    for case in cases:
        for judged in [profile] if profile else case.profiles:
            item = case.request_under(judged)
            reason = item.invalid or not_applicable_reason(item.request, EVERY_CAPABILITY)
            if reason is not None:
                pack.left_out.append(export.LeftOut(id=item.case_id, profile=judged, reason=reason))
                continue
            flags = [f"known-bug:{name}" for name in bugs_by_case.get(case.id, ())]
            if case.kind == "document-error":
                flags.append(f"document-error:{case.id}")
                pack.notes[f"document-error:{case.id}"] = export.Note(
                    bug_type="document-error",
                    description=case.note or case.title,
                    effect="The document prints another value than the one its own definition gives; `printed` "
                    "is not the document's print but the corrected value.",
                )
            source = case.source
            yield (
                judged,
                Candidate(
                    id=item.case_id,
                    origin="case",
                    title=item.title,
                    request=item.request,
                    overrides=item.overrides,
                    document=item.document,
                    case_profiles=item.profiles,
                    flags=tuple(flags),
                    source=export.Source(document=source.document, section=source.section, quote=source.quote),
                ),
            )


def discrepancy_candidates(
    entries: Sequence[Discrepancy], profile: str | None, pack: Pack
) -> Iterable[tuple[str, Candidate]]:
    """(profile, Candidate) of the minimal example of every curated discrepancy of `profile` (all when None)."""
    for entry in entries:
        if profile is not None and entry.profile != profile:
            continue
        try:
            request = request_from_json(entry.example.request)
        except BleuOracleError as exc:
            pack.left_out.append(export.LeftOut(id=entry.id, profile=entry.profile, reason=str(exc)))
            continue
        if request.stateful is not None:  # a vector is one call of a scoring function; a plan is a metric's life
            reason = "its example is a stateful plan (update batches, merges, resets), which a vector cannot carry"
            pack.left_out.append(export.LeftOut(id=entry.id, profile=entry.profile, reason=reason))
            continue
        pack.notes[f"known-bug:{entry.id}"] = known_bug_note(entry)
        yield (
            entry.profile,
            Candidate(
                id=entry.id,
                origin="discrepancy",
                title=entry.summary,
                request=request,
                overrides={},
                document={},
                case_profiles=(entry.profile,),
                flags=(f"known-bug:{entry.id}",),
                source=export.Source(
                    document=entry.contradicts.source,
                    section=f"curated discrepancy {entry.id}",
                    quote=entry.contradicts.quote,
                ),
            ),
        )


def protocol_candidates() -> Iterable[Candidate]:
    """A Candidate of each input PROTOCOL.md refuses or leaves undefined (`PROTOCOL_INPUTS`)."""
    for kind, (request, section) in PROTOCOL_INPUTS.items():
        yield Candidate(
            id=f"protocol-{kind}",
            origin="protocol",
            title=REFUSED_KINDS[kind],
            request=request_from_json(request),
            overrides={},
            document={},
            case_profiles=(),
            source=export.Source(document="PROTOCOL.md (bleu-oracle protocol v1)", section=section,
                                 quote=REFUSED_KINDS[kind]),
        )


def _undefined_answers(request: ScoreRequest, expected: Expected) -> list[export.Answer]:
    """On an input the documents leave undefined: the recommended refusal (every profile's), then each named
    convention's value (no profile's: acceptable under all)."""
    refusal = export.Answer(profiles=_profiles_taking(request), conventions={}, rejected=True)
    return [refusal, *(export.Answer(profiles=[], conventions={}, rejected=False, score=json_safe(answer.score),
                                     score_exact=answer.score_exact, convention=answer.convention)
                       for answer in expected.acceptable or ())]


def vector(candidate: Candidate, profile: str, pack: Pack) -> export.Vector:
    """The vector of `candidate` judged under `profile`; the notes its flags refer to are added to `pack`."""
    request, overrides = candidate.request, candidate.overrides
    expected = case_expected(
        request, profile, overrides=overrides, document=candidate.document, profiles=candidate.case_profiles
    )
    printed = None
    if candidate.document:
        printed = export.Printed(
            **json_safe(
                {k: v for k, v in candidate.document.items() if k in ("score", "tolerance", "statistics", "rejected")}
            )
        )
    answers, splitting = answers_of(request, profile, overrides)
    flags = [*fixed_flags(request, expected, printed), *(f"convention-split:{c}" for c in splitting), *candidate.flags]
    if expected.acceptable:
        answers = answers or _undefined_answers(request, expected)
        flags.append("undefined-input")
    for flag in flags:
        if flag in FIXED_NOTES:
            pack.notes.setdefault(flag, FIXED_NOTES[flag])
        elif flag.startswith("convention-split:"):
            pack.notes.setdefault(flag, _split_note(flag.partition(":")[2]))
    result = "acceptable" if answers else ("rejected" if expected.rejected else "valid")
    conventions = oracle_options(profile, lowercase=request.lowercase, overrides=overrides).to_json()
    return export.Vector(
        id=candidate.id,
        origin=candidate.origin,
        title=candidate.title,
        profile=profile,
        conventions=json_safe(conventions),
        request=request.replay_payload(),
        needs=needs_of(request, overrides),
        result=result,
        answers=answers,
        flags=flags,
        printed=printed,
        source=candidate.source,
        expected=export.Expected(
            rejected=expected.rejected,
            reason=expected.reason or None,
            score=json_safe(expected.score),
            score_exact=expected.score_exact,
            statistics=expected.statistics.to_json() if expected.statistics else None,
            rel=DEFAULT_REL,
            abs=DEFAULT_ABS,
        ),
    )


def build(cases: Sequence, profile: str | None = None, entries: Sequence[Discrepancy] | None = None) -> export.Suite:
    """The vector file of `profile` (None: each case under its own profiles, each discrepancy under its own)."""
    entries = discrepancies.models() if entries is None else entries
    bugs_by_case: dict[str, list[str]] = {}
    for entry in entries:
        for case_id in _cases_named(entry):
            bugs_by_case.setdefault(case_id, []).append(entry.id)
    pack = Pack()
    for judged, candidate in [
        *case_candidates(cases, profile, pack, bugs_by_case),
        *discrepancy_candidates(entries, profile, pack),
        # each case under its own profiles: the protocol's inputs under papineni, the protocol's own example profile
        *((profile or "papineni", candidate) for candidate in protocol_candidates()),
    ]:
        pack.vectors.append(vector(candidate, judged, pack))
    for flag in {flag for v in pack.vectors for flag in v.flags if flag.startswith("known-bug:")}:
        if flag not in pack.notes:  # a case naming a discrepancy of another profile: its note all the same
            [entry] = [e for e in entries if f"known-bug:{e.id}" == flag]
            pack.notes[flag] = known_bug_note(entry)
    return export.Suite(
        suite_version=SUITE_VERSION,
        oracle_version=__version__,
        count=len(pack.vectors),
        profile=profile,
        contract=export.Contract(rel=DEFAULT_REL, abs=DEFAULT_ABS),
        notes=dict(sorted(pack.notes.items())),
        vectors=pack.vectors,
        left_out=pack.left_out,
    )


def profile_file(profile: str | None) -> str:
    """The file a profile's vectors go to: DIR/<profile>.json, or DIR/suite.json for each case's own profiles."""
    return SUITE_FILE if profile is None else f"{profile}.json"


def write_export(
    cases: Sequence, directory: str | Path, profiles: Sequence[str | None] = (None,)
) -> list[tuple[Path, export.Suite]]:
    """One vector file per profile (see `profile_file`) and DIR/suite.schema.json, each written atomically."""
    directory = Path(directory)
    written = []
    for profile in profiles:
        suite = build(cases, profile)
        path = write_atomically(
            directory / profile_file(profile),
            json.dumps(suite.model_dump(mode="json"), indent=1, ensure_ascii=False, allow_nan=False) + "\n",
        )
        written.append((path, suite))
    write_atomically(directory / SCHEMA_FILE, export.render_schema())
    return written
