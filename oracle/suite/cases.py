"""Documented cases: the case files in `cases/`, their loader, and their check against the oracle.

A case file holds the cases taken from one source document::

    document: "MATLAB Text Analytics Toolbox, bleuEvaluationScore reference page"
    seed: "000_57c522b03cf4596a.txt"
    cases:
      - id: matlab-summary-bleu4
        title: ...
        source: {document: ..., section: ..., quote: "score = 0.7825"}
        profiles: [matlab]
        kind: value
        input: {level: corpus, segments: [{hypothesis: [...], references: [[...]]}]}
        options: {weights: [0.5, 0.5]}
        expect: {score: 0.7825, tolerance: 0.00005}
        note: ...

`oracle/schemas/case.schema.json` describes the same format; a test keeps the
two in step. Reading is strict: plain YAML through `yaml.SafeLoader` only
(no tags that build Python objects), no duplicate keys, no unknown fields, and
every problem names the file, the line and the case id. Numbers are read as
exact decimals (`0.7825` is `Decimal("0.7825")`, never a binary float), and
strings such as `"3/5"` are exact fractions.

Retired ids are listed in `cases/retired.yaml` (`retired: [{id, reason}]`)
and may never be used again: other tools key their baselines on case ids.

Cases found by `bleu-oracle fuzz --write-cases` have another provenance: the
file says `found_by: fuzz` instead of naming a seed (there is no document to
quote), each case's `expect` holds the value an implementation *answered*
(an independent implementation, never the oracle), and each case names the
root cause `oracle.diagnose.classify` found for it in `explained_by: {name, change}`.
`check_case` (and so `cases validate`) recomputes the oracle under that
explanation and compares it with the implementation's value; `bleu-oracle
check` judges such a case against the oracle only (the observed value is not a
documented one)::

    document: "bleu-oracle fuzz against nltk 3.10.4"
    found_by: fuzz
    cases:
      - id: fuzz-nltk-segment-totals-floor-1-5d41402a
        ...
        expect: {score: 0.8801117367933934, tolerance: 8.9e-10}
        explained_by: {name: segment_totals_floor=1, change: [[segment_totals_floor, 1]]}
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, fields
from decimal import Decimal, InvalidOperation
from fractions import Fraction
from pathlib import Path

import yaml

from oracle.formulas.bleu import LEVELS
from oracle.formulas.conventions import (
    SMOOTHING_METHODS,
    SMOOTHING_PARAMETERS,
    Options,
    Smoothing,
)
from oracle.formulas.errors import BleuOracleError, CaseFileError, describe
from oracle.formulas.profiles import PROFILES

#: The repository's case directory: `cases/` next to the `oracle` package.
DEFAULT_CASES_DIR = Path(__file__).resolve().parents[2] / "cases"
#: The source documents, `../shared/seeds` seen from the repository root.
DEFAULT_SEEDS_DIR = Path(__file__).resolve().parents[3] / "shared" / "seeds"
RETIRED_FILE = "retired.yaml"

KINDS = ("value", "statement", "document-error")

# Allowed fields per mapping (the schema lists the same; tests/test_cases.py checks).
FILE_FIELDS = ("document", "seed", "found_by", "cases")
#: Provenance other than a seed document: cases written by `bleu-oracle fuzz --write-cases`.
FOUND_BY = ("fuzz",)
CASE_FIELDS = ("id", "title", "source", "profiles", "kind", "input", "options", "expect", "explained_by", "note")
CASE_REQUIRED = ("id", "title", "source", "profiles", "kind", "input", "expect")
SOURCE_FIELDS = ("document", "section", "quote", "seed")
SOURCE_REQUIRED = ("document", "section", "quote")
INPUT_FIELDS = ("level", "segments")
SEGMENT_FIELDS = ("hypothesis", "references")
#: Options that travel in a protocol request.
PROTOCOL_OPTION_FIELDS = ("weights", "smoothing", "lowercase")
#: Options that override a profile's conventions: `Options` fields, except the three
#: above (the normalisation rule is the convention `weight_normalisation`).
CONVENTION_OPTION_FIELDS = tuple(f.name for f in fields(Options) if f.name not in ("weights", "smoothing", "lowercase"))
OPTION_FIELDS = PROTOCOL_OPTION_FIELDS + CONVENTION_OPTION_FIELDS
SMOOTHING_FIELDS = ("method",) + tuple(SMOOTHING_PARAMETERS)
EXPECT_FIELDS = ("score", "tolerance", "exact", "statistics", "rejected")
STATISTICS_FIELDS = ("hyp_len", "ref_len", "matches", "totals", "bp", "precisions")
EXPLAINED_BY_FIELDS = ("name", "change")
RETIRED_FILE_FIELDS = ("retired",)
RETIRED_ENTRY_FIELDS = ("id", "reason")

ID_PATTERN = re.compile(r"^[a-z][a-z0-9]*(-[a-z0-9]+)*$")
SEED_PATTERN = re.compile(r"^[A-Za-z0-9_.-]+\.txt$")
_FRACTION = re.compile(r"^(0|[1-9][0-9]*)(/[1-9][0-9]*)?$")
_SIGNED_FRACTION = re.compile(r"^-?(0|[1-9][0-9]*)(/[1-9][0-9]*)?$")

#: An exact expectation ("3/5") is met when the oracle's value is within this of it
#: (the oracle carries 50 significant digits; ln/exp round in the last ones).
EXACT_SLACK = Decimal("1e-45")


# -- YAML: SafeLoader, line numbers, no duplicate keys, exact numbers ---------


class _Map(dict):
    """A mapping from the file, remembering its own line and each key's line."""

    line = None
    key_lines: dict


class _Seq(list):
    """A sequence from the file, remembering its own line and each item's line."""

    line = None
    item_lines: list


class CaseLoader(yaml.SafeLoader):
    """`yaml.SafeLoader`, stricter: duplicate keys and merge keys are errors, floats are
    exact `Decimal`s, `5e-5` is a number, and every mapping/sequence knows its lines."""

    path = None


# YAML 1.1 (PyYAML) needs a dot in a float; accept 5e-5 as well (YAML 1.2).
CaseLoader.add_implicit_resolver(
    "tag:yaml.org,2002:float",
    re.compile(r"^[-+]?[0-9][0-9_]*(\.[0-9_]*)?[eE][-+]?[0-9]+$"),
    list("-+0123456789"),
)


def _line(node):
    return node.start_mark.line + 1


def _construct_map(loader, node):
    if not isinstance(node, yaml.MappingNode):  # pragma: no cover - the resolver guarantees it
        raise CaseFileError("expected a mapping", path=loader.path, line=_line(node))
    result = _Map()
    result.line, result.key_lines = _line(node), {}
    for key_node, value_node in node.value:
        if key_node.tag == "tag:yaml.org,2002:merge":
            raise CaseFileError("YAML merge keys (`<<`) are not allowed in case files", path=loader.path, line=_line(key_node))
        key = loader.construct_object(key_node, deep=True)
        if isinstance(key, bool) or not isinstance(key, (str, int)):
            raise CaseFileError(f"mapping keys must be names or n-gram orders (got {describe(_plain(key))})", path=loader.path, line=_line(key_node))
        if key in result:
            raise CaseFileError(
                f"duplicate key `{key}` (first at line {result.key_lines[key]})", path=loader.path, line=_line(key_node)
            )
        result[key] = loader.construct_object(value_node, deep=True)
        result.key_lines[key] = _line(key_node)
    return result


def _construct_seq(loader, node):
    result = _Seq(loader.construct_object(child, deep=True) for child in node.value)
    result.line, result.item_lines = _line(node), [_line(child) for child in node.value]
    return result


def _construct_float(loader, node):
    text = loader.construct_scalar(node).replace("_", "").lower()
    special = {".inf": "Infinity", "+.inf": "Infinity", "-.inf": "-Infinity", ".nan": "NaN"}
    try:
        return Decimal(special.get(text, text))
    except InvalidOperation:
        raise CaseFileError(f"cannot read {node.value!r} as a number", path=loader.path, line=_line(node)) from None


CaseLoader.add_constructor("tag:yaml.org,2002:map", _construct_map)
CaseLoader.add_constructor("tag:yaml.org,2002:seq", _construct_seq)
CaseLoader.add_constructor("tag:yaml.org,2002:float", _construct_float)


def _read_yaml(path):
    """The document in `path`, through CaseLoader; YAML errors become CaseFileError with the line."""
    try:
        text = Path(path).read_text(encoding="utf-8")
    except OSError as exc:
        raise CaseFileError(f"cannot read the file ({exc.strerror or exc})", path=path) from None
    loader = CaseLoader(text)
    loader.path = path
    try:
        return loader.get_single_data()
    except yaml.constructor.ConstructorError as exc:
        mark = exc.problem_mark or exc.context_mark
        tag = re.search(r"tag '([^']*)'", str(exc.problem))
        if tag:
            shown = tag.group(1).replace("tag:yaml.org,2002:", "!!")
            message = f"YAML tag `{shown}` is not allowed: case files are plain YAML (mappings, lists, strings, numbers, booleans)"
        else:
            message = f"invalid YAML: {exc.problem}"
        raise CaseFileError(message, path=path, line=mark.line + 1 if mark else None) from None
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        problem = getattr(exc, "problem", None) or str(exc)
        raise CaseFileError(f"invalid YAML: {problem}", path=path, line=mark.line + 1 if mark else None) from None
    finally:
        loader.dispose()


# -- The case model ----------------------------------------------------------


@dataclass(frozen=True)
class CaseSource:
    """Where a case comes from: document, section, and a quote found verbatim in `seed`."""

    document: str
    section: str
    quote: str
    #: The seed file holding the quote (the case file's `seed` unless the case names another);
    #: None in a `found_by` file (no document to quote).
    seed: str | None


@dataclass(frozen=True)
class ExplainedBy:
    """The root cause `oracle.diagnose.classify` named for an implementation's value (a `found_by: fuzz` case):
    `change` is `Explanation.change` -- (option, value) pairs, ("smoothing", mapping) and
    ("computation", name) -- replayed by `oracle.diagnose.classify.explained_value`."""

    name: str
    change: tuple

    def convention_changes(self):
        """The convention overrides among the changes (no smoothing, no computation), as `oracle.score`
        keywords; like `oracle.diagnose.classify`, a changed empty-order rule applies at sentence level too."""
        changes = {k: v for k, v in self.change if k not in ("smoothing", "computation")}
        if "empty_order" in changes:
            changes.setdefault("sentence_empty_order", None)
        if "weight_normalisation" in changes:
            changes.setdefault("uniform_weights_only", False)
        return changes

    @property
    def computations(self):
        return tuple(v for k, v in self.change if k == "computation")


@dataclass(frozen=True)
class CaseSegment:
    hypothesis: tuple
    references: tuple


@dataclass(frozen=True)
class CaseInput:
    level: str
    segments: tuple

    def oracle_arguments(self):
        """(hypotheses, references) as `oracle.score` takes them at this level."""
        if self.level == "sentence":
            segment = self.segments[0]
            return list(segment.hypothesis), [list(r) for r in segment.references]
        return (
            [list(s.hypothesis) for s in self.segments],
            [[list(r) for r in s.references] for s in self.segments],
        )


@dataclass(frozen=True)
class CaseOptions:
    """Options a case sets. `weights` entries are exact (int, Decimal or Fraction);
    `smoothing` is a tuple of (name, value) pairs, method first; `conventions` too."""

    weights: tuple | None = None
    smoothing: tuple | None = None
    lowercase: bool | None = None
    conventions: tuple = ()


@dataclass(frozen=True)
class ExpectedStatistics:
    """Any subset of the sufficient statistics, BP and precisions a document states.

    `bp` and each precision are a Fraction (exact) or a Decimal (compared within
    the case's tolerance); `precisions` is a tuple of (order, value) pairs, value
    None meaning "the order is left out (0/0)"."""

    hyp_len: int | None = None
    ref_len: int | None = None
    matches: tuple | None = None
    totals: tuple | None = None
    bp: Fraction | Decimal | None = None
    precisions: tuple | None = None


@dataclass(frozen=True)
class CaseExpect:
    """`score` is a Fraction (exact), a Decimal (within `tolerance`), Decimal NaN, or None."""

    score: Fraction | Decimal | None = None
    tolerance: Decimal | None = None
    exact: bool = False
    statistics: ExpectedStatistics | None = None
    rejected: bool = False


@dataclass(frozen=True)
class Case:
    id: str
    title: str
    source: CaseSource
    profiles: tuple
    kind: str
    input: CaseInput
    options: CaseOptions
    expect: CaseExpect
    note: str | None
    path: Path = field(compare=False)
    line: int = field(compare=False)
    #: The case file's `document`.
    document: str = field(compare=False, default="")
    #: The case file's `found_by` (None: the case is taken from a seed document).
    found_by: str | None = field(compare=False, default=None)
    #: The root cause of the observed value (`found_by` cases only).
    explained_by: ExplainedBy | None = None

    @property
    def level(self):
        return self.input.level

    def convention_overrides(self):
        """The convention overrides (Options fields) this case sets, as a dict."""
        return dict(self.options.conventions)

    def oracle_kwargs(self):
        """Keyword arguments for `oracle.score` besides hypotheses, references and profile:
        level, the protocol fields the case sets (exact values) and convention overrides."""
        kwargs = {"level": self.input.level}
        if self.options.weights is not None:
            kwargs["weights"] = list(self.options.weights)
        if self.options.smoothing is not None:
            kwargs["smoothing"] = dict(self.options.smoothing)
        if self.options.lowercase is not None:
            kwargs["lowercase"] = self.options.lowercase
        kwargs.update(self.convention_overrides())
        return kwargs

    def options_for_oracle(self, profile):
        """The `Options` the oracle uses for this case under `profile` (profile + overrides)."""
        from oracle import resolve_options

        return resolve_options(profile=profile, lowercase=self.options.lowercase, **self.convention_overrides())

    def request_fields(self, profile=None):
        """The protocol-v1 request fields (JSON-ready): level, segments, and weights, smoothing
        and lowercase. Without `profile`, only the protocol fields the case sets are given;
        with one, unset fields take that profile's defaults. Convention overrides are not
        protocol fields: see `convention_overrides()`."""
        out = {
            "level": self.input.level,
            "segments": [
                {"hypothesis": list(s.hypothesis), "references": [list(r) for r in s.references]}
                for s in self.input.segments
            ],
        }
        options = self.options_for_oracle(profile) if profile is not None else None
        if self.options.weights is not None:
            # float() of a Fraction, Decimal or int; .inf / .nan stay as they are (a case may expect a rejection)
            out["weights"] = [float(w) for w in self.options.weights]
        elif options is not None:
            out["weights"] = [1.0 / options.default_max_order] * options.default_max_order
        if self.options.smoothing is not None:
            try:  # the protocol form, with the method's default parameters filled in
                out["smoothing"] = Smoothing.parse(dict(self.options.smoothing)).to_json()
            except BleuOracleError:  # a value the oracle refuses: pass it on as written
                out["smoothing"] = {k: (v if k == "method" else float(v)) for k, v in self.options.smoothing}
        elif options is not None:
            out["smoothing"] = options.smoothing.to_json()
        if self.options.lowercase is not None:
            out["lowercase"] = self.options.lowercase
        elif options is not None:
            out["lowercase"] = options.lowercase
        return out


@dataclass(frozen=True)
class RetiredId:
    id: str
    reason: str
    path: Path = field(compare=False)
    line: int = field(compare=False)


# -- Validation helpers ------------------------------------------------------


class _Context:
    """Where we are: file, case id, and a field path prefix for messages."""

    def __init__(self, path, case_id=None):
        self.path, self.case_id = path, case_id

    def error(self, message, line):
        return CaseFileError(message, path=self.path, line=line, case_id=self.case_id)


def _line_of(container, key, default):
    if isinstance(container, _Map):
        return container.key_lines.get(key, container.line)
    if isinstance(container, _Seq) and isinstance(key, int) and key < len(container.item_lines):
        return container.item_lines[key]
    return default


def _mapping(value, name, ctx, line, allowed, required=(), *, what=None):
    what = what or f"`{name}`"
    if not isinstance(value, dict):
        raise ctx.error(f"{what} must be a mapping (got {_kind(value)} {describe(_plain(value))})", line)
    line = getattr(value, "line", None) or line
    unknown = [k for k in value if k not in allowed]
    if unknown:
        key = unknown[0]
        where = what
        raise ctx.error(
            f"unknown field `{_join(name, key)}` in {where} (allowed: {', '.join(allowed)})", _line_of(value, key, line)
        )
    for key in required:
        if key not in value:
            raise ctx.error(f"missing required field `{_join(name, key)}`", line)
    return value


def _join(name, key):
    return f"{name}.{key}" if name else key


def _kind(value):
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, (int, Decimal)):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "list"
    if isinstance(value, dict):
        return "mapping"
    if value is None:
        return "null"
    return type(value).__name__


def _plain(value):
    """A loaded value without the line bookkeeping, for messages."""
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_plain(v) for v in value]
    if isinstance(value, Decimal):
        return float(value) if value.is_finite() else str(value)
    return value


def _show(value):
    return describe(_plain(value))


def _string(value, name, ctx, line, *, one_line=False):
    if not isinstance(value, str) or not value.strip():
        raise ctx.error(f"`{name}` must be a non-empty string (got {_show(value)})", line)
    if one_line and "\n" in value.strip():
        raise ctx.error(f"`{name}` must be one line (got {_show(value)})", line)
    return value


def _is_number(value):
    return isinstance(value, (int, Decimal)) and not isinstance(value, bool)


def _count(value, name, ctx, line):
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise ctx.error(f"`{name}` must be a non-negative integer (got {_show(value)})", line)
    return value


def _expected_value(value, name, ctx, line):
    """An expected p_n or BP: a fraction string (exact) or a finite non-negative number."""
    if isinstance(value, str):
        if not _FRACTION.match(value.strip()):
            raise ctx.error(
                f"`{name}` must be a number or an exact fraction string like \"3/5\" (got {_show(value)})", line
            )
        return Fraction(value.strip())
    if _is_number(value):
        value = Decimal(value)
        if not value.is_finite() or value < 0:
            raise ctx.error(f"`{name}` must be a finite non-negative number (got {_show(value)})", line)
        return value
    raise ctx.error(f"`{name}` must be a number or an exact fraction string like \"3/5\" (got {_show(value)})", line)


def _tokens(value, name, ctx, line):
    if not isinstance(value, list):
        raise ctx.error(f"`{name}` must be a list of tokens (got {_show(value)})", line)
    for i, token in enumerate(value):
        token_line = _line_of(value, i, line)
        if not isinstance(token, str):
            raise ctx.error(
                f"`{name}[{i}]` must be a string token (got {_kind(token)} {_show(token)}; quote it in YAML)", token_line
            )
        if token.split() != [token]:
            raise ctx.error(f"`{name}[{i}]` must be a non-empty token without whitespace (got {token!r})", token_line)
    return tuple(value)


# -- Parsing one case --------------------------------------------------------


def _parse_source(value, ctx, line, file_seed):
    source = _mapping(value, "source", ctx, line, SOURCE_FIELDS, SOURCE_REQUIRED)
    line = source.line
    values = {}
    for key in SOURCE_REQUIRED:
        values[key] = _string(source[key], f"source.{key}", ctx, _line_of(source, key, line))
    seed = file_seed
    if "seed" in source and file_seed is None:
        raise ctx.error("`source.seed` names a seed document; a `found_by` file quotes no document", _line_of(source, "seed", line))
    if "seed" in source:
        seed = _string(source["seed"], "source.seed", ctx, _line_of(source, "seed", line))
        if not SEED_PATTERN.match(seed):
            raise ctx.error(f"`source.seed` must be a seed file name like \"000_57c522b03cf4596a.txt\" (got {seed!r})", _line_of(source, "seed", line))
    return CaseSource(values["document"], values["section"], values["quote"], seed)


def _parse_profiles(value, ctx, line):
    if not isinstance(value, list) or not value:
        raise ctx.error(f"`profiles` must be a non-empty list of profile names (got {_show(value)})", line)
    seen = set()
    for i, name in enumerate(value):
        item_line = _line_of(value, i, line)
        if not isinstance(name, str) or name not in PROFILES:
            raise ctx.error(f"`profiles[{i}]` must be one of {sorted(PROFILES)} (got {_show(name)})", item_line)
        if name in seen:
            raise ctx.error(f"`profiles[{i}]` repeats {name!r}", item_line)
        seen.add(name)
    return tuple(value)


def _parse_input(value, ctx, line):
    data = _mapping(value, "input", ctx, line, INPUT_FIELDS, INPUT_FIELDS)
    line = data.line
    level = data["level"]
    if level not in LEVELS:
        raise ctx.error(f"`input.level` must be one of {list(LEVELS)} (got {_show(level)})", _line_of(data, "level", line))
    segments = data["segments"]
    seg_line = _line_of(data, "segments", line)
    if not isinstance(segments, list) or not segments:
        raise ctx.error(f"`input.segments` must be a non-empty list of segments (got {_show(segments)})", seg_line)
    if level == "sentence" and len(segments) != 1:
        raise ctx.error(f"`input.segments` must hold exactly one segment at sentence level (got {len(segments)})", seg_line)
    parsed = []
    for i, segment in enumerate(segments):
        name = f"input.segments[{i}]"
        segment = _mapping(segment, name, ctx, _line_of(segments, i, seg_line), SEGMENT_FIELDS, SEGMENT_FIELDS)
        s_line = segment.line
        hypothesis = _tokens(segment["hypothesis"], f"{name}.hypothesis", ctx, _line_of(segment, "hypothesis", s_line))
        references = segment["references"]
        r_line = _line_of(segment, "references", s_line)
        if not isinstance(references, list) or not references:
            raise ctx.error(f"`{name}.references` must be a non-empty list of token lists (got {_show(references)})", r_line)
        refs = tuple(
            _tokens(reference, f"{name}.references[{j}]", ctx, _line_of(references, j, r_line))
            for j, reference in enumerate(references)
        )
        parsed.append(CaseSegment(hypothesis, refs))
    return CaseInput(level, tuple(parsed))


def _parse_options(value, ctx, line):
    if value is None:
        return CaseOptions()
    data = _mapping(value, "options", ctx, line, OPTION_FIELDS)
    line = data.line
    weights = smoothing = lowercase = None
    if "weights" in data:
        w_line = _line_of(data, "weights", line)
        raw = data["weights"]
        if not isinstance(raw, list) or not raw:
            raise ctx.error(f"`options.weights` must be a non-empty list of numbers (got {_show(raw)})", w_line)
        parsed = []
        for i, w in enumerate(raw):
            if isinstance(w, str) and _SIGNED_FRACTION.match(w.strip()):
                parsed.append(Fraction(w.strip()))
            elif _is_number(w):
                parsed.append(w)  # sign and finiteness are the oracle's to judge (cases may expect a rejection)
            else:
                raise ctx.error(
                    f"`options.weights[{i}]` must be a number or a fraction string like \"1/3\" (got {_show(w)})",
                    _line_of(raw, i, w_line),
                )
        weights = tuple(parsed)
    if "smoothing" in data:
        s_line = _line_of(data, "smoothing", line)
        spec = _mapping(data["smoothing"], "options.smoothing", ctx, s_line, SMOOTHING_FIELDS, ("method",))
        method = spec["method"]
        if method not in SMOOTHING_METHODS:
            raise ctx.error(
                f"`options.smoothing.method` must be one of {sorted(SMOOTHING_METHODS)} (got {_show(method)})",
                _line_of(spec, "method", s_line),
            )
        pairs = [("method", method)]
        for name in SMOOTHING_PARAMETERS:
            if name in spec:
                if name not in SMOOTHING_METHODS[method]:
                    raise ctx.error(
                        f"`options.smoothing.{name}` is not a parameter of {method!r} "
                        f"(it takes {sorted(SMOOTHING_METHODS[method]) or 'no parameters'})",
                        _line_of(spec, name, s_line),
                    )
                if not _is_number(spec[name]):
                    raise ctx.error(f"`options.smoothing.{name}` must be a number (got {_show(spec[name])})", _line_of(spec, name, s_line))
                pairs.append((name, spec[name]))
        smoothing = tuple(pairs)
    if "lowercase" in data:
        if not isinstance(data["lowercase"], bool):
            raise ctx.error(f"`options.lowercase` must be true or false (got {_show(data['lowercase'])})", _line_of(data, "lowercase", line))
        lowercase = data["lowercase"]
    conventions = tuple((name, data[name]) for name in CONVENTION_OPTION_FIELDS if name in data)
    for name, value in conventions:
        try:
            Options().with_changes(**{name: value})
        except BleuOracleError as exc:
            raise ctx.error(f"`options.{name}`: {exc}", _line_of(data, name, line)) from None
    return CaseOptions(weights, smoothing, lowercase, conventions)


def _parse_precisions(value, ctx, line):
    name = "expect.statistics.precisions"
    if isinstance(value, list):
        if not value:
            raise ctx.error(f"`{name}` must not be empty", line)
        return tuple(
            (n + 1, None if p is None else _expected_value(p, f"{name}[{n}]", ctx, _line_of(value, n, line)))
            for n, p in enumerate(value)
        )
    if isinstance(value, dict):
        if not value:
            raise ctx.error(f"`{name}` must not be empty", line)
        out = []
        for order, p in value.items():
            p_line = _line_of(value, order, line)
            if not re.fullmatch(r"[1-9][0-9]*", str(order)):
                raise ctx.error(f"`{name}` keys must be n-gram orders 1, 2, ... (got {order!r})", p_line)
            if int(order) in {n for n, _ in out}:
                raise ctx.error(f"`{name}` states order {order} twice", p_line)
            out.append((int(order), None if p is None else _expected_value(p, f"{name}.{order}", ctx, p_line)))
        return tuple(sorted(out, key=lambda pair: pair[0]))
    raise ctx.error(
        f"`{name}` must be a list (one entry per order) or a mapping {{order: value}} (got {_show(value)})", line
    )


def _parse_statistics(value, ctx, line):
    data = _mapping(value, "expect.statistics", ctx, line, STATISTICS_FIELDS)
    line = data.line
    if not data:
        raise ctx.error("`expect.statistics` must state at least one of " + ", ".join(STATISTICS_FIELDS), line)
    values = {}
    for key in ("hyp_len", "ref_len"):
        if key in data:
            values[key] = _count(data[key], f"expect.statistics.{key}", ctx, _line_of(data, key, line))
    for key in ("matches", "totals"):
        if key in data:
            k_line = _line_of(data, key, line)
            raw = data[key]
            if not isinstance(raw, list) or not raw:
                raise ctx.error(f"`expect.statistics.{key}` must be a non-empty list of counts (got {_show(raw)})", k_line)
            values[key] = tuple(
                _count(x, f"expect.statistics.{key}[{i}]", ctx, _line_of(raw, i, k_line)) for i, x in enumerate(raw)
            )
    if "matches" in values and "totals" in values:
        m, t = values["matches"], values["totals"]
        if len(m) != len(t):
            raise ctx.error(f"`expect.statistics.matches` and `totals` must have one entry per order (got {len(m)} and {len(t)})", line)
        bad = [i for i in range(len(m)) if m[i] > t[i]]
        if bad:
            raise ctx.error(f"`expect.statistics.matches[{bad[0]}]` must not exceed `totals[{bad[0]}]` (got {m[bad[0]]} > {t[bad[0]]})", line)
    if "bp" in data:
        values["bp"] = _expected_value(data["bp"], "expect.statistics.bp", ctx, _line_of(data, "bp", line))
    if "precisions" in data:
        values["precisions"] = _parse_precisions(data["precisions"], ctx, _line_of(data, "precisions", line))
    return ExpectedStatistics(**values)


def _parse_expect(value, ctx, line):
    data = _mapping(value, "expect", ctx, line, EXPECT_FIELDS)
    line = data.line
    at = lambda key: _line_of(data, key, line)  # noqa: E731
    if not any(key in data for key in ("score", "statistics", "rejected")):
        raise ctx.error("`expect` must state at least one of `score`, `statistics`, `rejected`", line)
    if "rejected" in data:
        if data["rejected"] is not True:
            raise ctx.error(f"`expect.rejected` must be true when given (got {_show(data['rejected'])})", at("rejected"))
        others = [key for key in ("score", "tolerance", "exact", "statistics") if key in data]
        if others:
            raise ctx.error(f"`expect.rejected` cannot be combined with `expect.{others[0]}`: a rejected input has no value", at(others[0]))
        return CaseExpect(rejected=True)
    exact = False
    if "exact" in data:
        if not isinstance(data["exact"], bool):
            raise ctx.error(f"`expect.exact` must be true or false (got {_show(data['exact'])})", at("exact"))
        exact = data["exact"]
    tolerance = None
    if "tolerance" in data:
        t = data["tolerance"]
        if not _is_number(t) or not Decimal(t).is_finite() or Decimal(t) < 0:
            hint = " (write 0.00005 or 5.0e-5)" if isinstance(t, str) else ""
            raise ctx.error(f"`expect.tolerance` must be a non-negative number (got {_show(t)}){hint}", at("tolerance"))
        tolerance = Decimal(t)
    score = None
    if "score" in data:
        s = data["score"]
        if isinstance(s, str) and s.strip() == "NaN":
            score = Decimal("NaN")
            if exact:
                raise ctx.error("`expect.exact` does not apply to a NaN score", at("exact"))
        elif isinstance(s, str):
            if not _FRACTION.match(s.strip()):
                raise ctx.error(
                    f"`expect.score` must be a number, \"NaN\", or an exact fraction string like \"1\" or \"7/10\" (got {_show(s)})",
                    at("score"),
                )
            if not exact:
                raise ctx.error(f"`expect.score` {s!r} is an exact fraction: add `exact: true` (or give a number and a tolerance)", at("score"))
            score = Fraction(s.strip())
        elif _is_number(s):
            score = Decimal(s)
            if not score.is_finite() or score < 0:
                raise ctx.error(f"`expect.score` must be a finite non-negative number or \"NaN\" (got {_show(s)})", at("score"))
            if exact:
                raise ctx.error(f"`expect.exact: true` needs the score as a fraction string (write \"{s}\")", at("exact"))
        else:
            raise ctx.error(f"`expect.score` must be a number, \"NaN\", or an exact fraction string (got {_show(s)})", at("score"))
    elif exact:
        raise ctx.error("`expect.exact` is about `expect.score`, which is missing", at("exact"))
    statistics = None
    if "statistics" in data:
        statistics = _parse_statistics(data["statistics"], ctx, at("statistics"))
    approximate = [name for name, v in _expected_numbers(score, statistics) if isinstance(v, Decimal) and not v.is_nan()]
    if approximate and tolerance is None:
        raise ctx.error(
            f"`expect.{approximate[0]}` is a number: `expect.tolerance` is required (or give an exact fraction string)",
            at(approximate[0].split(".")[0]),
        )
    if tolerance is not None and not approximate:
        raise ctx.error("`expect.tolerance` is given but no expected value is an approximate number", at("tolerance"))
    return CaseExpect(score, tolerance, exact, statistics, False)


def _expected_numbers(score, statistics):
    if score is not None:
        yield "score", score
    if statistics is not None:
        if statistics.bp is not None:
            yield "statistics.bp", statistics.bp
        for order, p in statistics.precisions or ():
            if p is not None:
                yield f"statistics.precisions.{order}", p


def _parse_explained_by(value, ctx, line):
    from oracle.formulas.conventions import Smoothing

    data = _mapping(value, "explained_by", ctx, line, EXPLAINED_BY_FIELDS, EXPLAINED_BY_FIELDS)
    line = data.line
    name = _string(data["name"], "explained_by.name", ctx, _line_of(data, "name", line), one_line=True)
    raw = data["change"]
    c_line = _line_of(data, "change", line)
    if not isinstance(raw, list) or not raw:
        raise ctx.error(f"`explained_by.change` must be a non-empty list of [what, value] pairs (got {_show(raw)})", c_line)
    change = []
    for i, item in enumerate(raw):
        where = f"explained_by.change[{i}]"
        i_line = _line_of(raw, i, c_line)
        if not isinstance(item, list) or len(item) != 2 or not isinstance(item[0], str):
            raise ctx.error(f"`{where}` must be a pair [what, value] (got {_show(item)})", i_line)
        key, val = item
        if key == "computation":  # whether the classifier knows it is checked by `cases validate`
            if not isinstance(val, str) or not val:
                raise ctx.error(f"`{where}`: a computation is named by a string (got {_show(val)})", i_line)
        elif key == "smoothing":
            if not isinstance(val, dict):
                raise ctx.error(f"`{where}`: a smoothing must be a mapping {{method, parameters}} (got {_show(val)})", i_line)
            try:
                val = Smoothing.parse({k: (v if k == "method" else _exact(v)) for k, v in val.items()})
            except (BleuOracleError, ValueError, ZeroDivisionError) as exc:
                raise ctx.error(f"`{where}`: {exc}", i_line) from None
        elif key in CONVENTION_OPTION_FIELDS:
            try:
                Options().with_changes(**{key: val})
            except (BleuOracleError, TypeError) as exc:
                raise ctx.error(f"`{where}`: {exc}", i_line) from None
        else:
            raise ctx.error(
                f"`{where}` changes {key!r}, which is neither a convention ({', '.join(CONVENTION_OPTION_FIELDS)}), "
                "`smoothing` nor `computation`", i_line)
        change.append((key, val))
    return ExplainedBy(name, tuple(change))


def _exact(value):
    """A number or fraction string as an exact Fraction (smoothing parameters in `explained_by`)."""
    if isinstance(value, str):
        return Fraction(value.strip())
    return Fraction(value)


def _parse_case(raw, path, line, file_seed, document, found_by=None):
    ctx = _Context(path)
    if isinstance(raw, dict) and isinstance(raw.get("id"), str):
        ctx.case_id = raw["id"]
    data = _mapping(raw, "", ctx, line, CASE_FIELDS, CASE_REQUIRED, what="a case")
    line = data.line
    at = lambda key: _line_of(data, key, line)  # noqa: E731
    case_id = data["id"]
    if not isinstance(case_id, str) or not ID_PATTERN.match(case_id):
        raise ctx.error(
            f"`id` must be lowercase letters, digits and single '-', starting with a letter (got {_show(case_id)})", at("id")
        )
    title = _string(data["title"], "title", ctx, at("title"), one_line=True)
    source = _parse_source(data["source"], ctx, at("source"), file_seed)
    profiles = _parse_profiles(data["profiles"], ctx, at("profiles"))
    kind = data["kind"]
    if kind not in KINDS:
        raise ctx.error(f"`kind` must be one of {list(KINDS)} (got {_show(kind)})", at("kind"))
    case_input = _parse_input(data["input"], ctx, at("input"))
    options = _parse_options(data.get("options"), ctx, at("options"))
    expect = _parse_expect(data["expect"], ctx, at("expect"))
    explained_by = None
    if "explained_by" in data:
        if found_by is None:
            raise ctx.error("`explained_by` belongs to cases found by `bleu-oracle fuzz` (a file with `found_by`); "
                            "a documented case states what its document says", at("explained_by"))
        explained_by = _parse_explained_by(data["explained_by"], ctx, at("explained_by"))
    elif found_by is not None:
        raise ctx.error("missing required field `explained_by`: a case found by fuzzing names the root cause of "
                        "the implementation's value (what `cases validate` recomputes)", line)
    if found_by is not None and expect.rejected:
        raise ctx.error("`expect.rejected`: a case found by fuzzing records a value the implementation answered", at("expect"))
    note = None
    if "note" in data:
        note = _string(data["note"], "note", ctx, at("note"))
    elif kind in ("statement", "document-error"):
        raise ctx.error(
            f"missing required field `note`: a {kind} case must say how its expected value was derived"
            + (" and what the document got wrong" if kind == "document-error" else ""),
            line,
        )
    return Case(case_id, title.strip(), source, profiles, kind, case_input, options, expect, note, Path(path), line,
                document, found_by, explained_by)


# -- Files and directories ---------------------------------------------------


def _parse_file(path, problems):
    """Cases of one file; every problem found is appended to `problems` (a case with a
    problem is left out; a problem with the file itself stops the file)."""
    ctx = _Context(path)
    try:
        data = _read_yaml(path)
        if data is None:
            raise ctx.error("the file is empty (expected `document`, `seed` and `cases`)", 1)
        data = _mapping(data, "", ctx, 1, FILE_FIELDS, ("document",), what="a case file")
        document = _string(data["document"], "document", ctx, _line_of(data, "document", 1), one_line=True)
        seed = found_by = None
        if "seed" in data and "found_by" in data:
            raise ctx.error("a case file has either `seed` (its source document) or `found_by` (how its cases were "
                            "found), not both", _line_of(data, "found_by", 1))
        if "found_by" in data:
            found_by = data["found_by"]
            if found_by not in FOUND_BY:
                raise ctx.error(f"`found_by` must be one of {list(FOUND_BY)} (got {_show(found_by)})", _line_of(data, "found_by", 1))
        else:
            if "seed" not in data:
                raise ctx.error("missing required field `seed` (or `found_by: fuzz` for cases written by "
                                "`bleu-oracle fuzz --write-cases`)", data.line)
            seed = _string(data["seed"], "seed", ctx, _line_of(data, "seed", 1))
            if not SEED_PATTERN.match(seed):
                raise ctx.error(f"`seed` must be a seed file name like \"000_57c522b03cf4596a.txt\" (got {seed!r})", _line_of(data, "seed", 1))
        if "cases" not in data:
            raise ctx.error("missing required field `cases`", data.line)
        raw_cases = data["cases"]
        if not isinstance(raw_cases, list) or not raw_cases:
            raise ctx.error(f"`cases` must be a non-empty list of cases (got {_show(raw_cases)})", _line_of(data, "cases", 1))
    except CaseFileError as exc:
        problems.append(exc)
        return []
    cases = []
    for i, raw in enumerate(raw_cases):
        try:
            cases.append(_parse_case(raw, path, _line_of(raw_cases, i, raw_cases.line), seed, document, found_by))
        except CaseFileError as exc:
            problems.append(exc)
    seen = {}
    for case in cases:
        if case.id in seen:
            problems.append(
                CaseFileError(f"duplicate case id `{case.id}` (also at {path}:{seen[case.id].line})", path=path, line=case.line, case_id=case.id)
            )
        else:
            seen[case.id] = case
    return [c for c in cases if seen.get(c.id) is c]


def load_case_file(path):
    """The cases of one file; raises CaseFileError on the first problem."""
    problems = []
    cases = _parse_file(Path(path), problems)
    if problems:
        raise problems[0]
    return cases


def load_retired(path):
    """Retired ids from `retired.yaml`: `retired: [{id, reason}]` (the list may be empty)."""
    path = Path(path)
    ctx = _Context(path)
    data = _read_yaml(path)
    if data is None:
        raise ctx.error("the file is empty (expected `retired: []`)", 1)
    data = _mapping(data, "", ctx, 1, RETIRED_FILE_FIELDS, RETIRED_FILE_FIELDS, what="the retired-ids file")
    entries = data["retired"]
    e_line = _line_of(data, "retired", 1)
    if not isinstance(entries, list):
        raise ctx.error(f"`retired` must be a list of {{id, reason}} (got {_show(entries)})", e_line)
    out, seen = [], {}
    for i, entry in enumerate(entries):
        entry = _mapping(entry, f"retired[{i}]", ctx, _line_of(entries, i, e_line), RETIRED_ENTRY_FIELDS, RETIRED_ENTRY_FIELDS)
        line = entry.line
        retired_id = entry["id"]
        if not isinstance(retired_id, str) or not ID_PATTERN.match(retired_id):
            raise ctx.error(f"`retired[{i}].id` must be a case id (got {_show(retired_id)})", _line_of(entry, "id", line))
        if retired_id in seen:
            raise ctx.error(f"`retired[{i}].id` `{retired_id}` is listed twice (also at line {seen[retired_id]})", line)
        seen[retired_id] = line
        reason = _string(entry["reason"], f"retired[{i}].reason", ctx, _line_of(entry, "reason", line))
        out.append(RetiredId(retired_id, reason, path, line))
    return out


def _resolve_directory(directory):
    directory = Path(directory) if directory is not None else DEFAULT_CASES_DIR
    if not directory.is_dir():
        raise CaseFileError(
            "the case directory does not exist (pass the directory holding the *.yaml case files, e.g. --cases cases/)",
            path=directory,
        )
    return directory


def case_files(directory=None):
    """The case files of a directory: every `*.yaml` except `retired.yaml`, sorted by name."""
    directory = _resolve_directory(directory)
    return sorted(p for p in directory.glob("*.yaml") if p.name != RETIRED_FILE)


def validate(directory=None):
    """Every problem in a case directory (empty list: all good), each a CaseFileError."""
    try:
        directory = _resolve_directory(directory)
    except CaseFileError as exc:
        return [exc]
    problems = []
    _load_directory(directory, problems)
    return problems


def _load_directory(directory, problems):
    retired = {}
    retired_path = directory / RETIRED_FILE
    if retired_path.exists():
        try:
            retired = {r.id: r for r in load_retired(retired_path)}
        except CaseFileError as exc:
            problems.append(exc)
    files = case_files(directory)
    if not files:
        problems.append(CaseFileError("no case files (*.yaml) in the directory", path=directory))
    seen, cases = {}, []
    for path in files:
        for case in _parse_file(path, problems):
            if case.id in retired:
                r = retired[case.id]
                problems.append(
                    CaseFileError(
                        f"case id `{case.id}` is retired ({r.path}:{r.line}: {r.reason}); ids are never reused, choose a new one",
                        path=path, line=case.line, case_id=case.id,
                    )
                )
            elif case.id in seen and seen[case.id].path != case.path:
                other = seen[case.id]
                problems.append(
                    CaseFileError(
                        f"duplicate case id `{case.id}` (also at {other.path}:{other.line})",
                        path=path, line=case.line, case_id=case.id,
                    )
                )
            else:
                seen[case.id] = case
                cases.append(case)
    return cases


def load_cases(directory=None):
    """Every case in `directory` (default: the repository's `cases/`), in file and then
    file order. Raises CaseFileError on the first problem; `validate` lists them all."""
    directory = _resolve_directory(directory)
    problems = []
    cases = _load_directory(directory, problems)
    if problems:
        raise problems[0]
    return cases


def read_plain(path):
    """A case (or retired) file as plain JSON-compatible data, for JSON Schema validation:
    numbers as int/float, mapping keys as strings. YAML problems raise CaseFileError."""

    def plain(value):
        if isinstance(value, dict):
            return {str(k): plain(v) for k, v in value.items()}
        if isinstance(value, list):
            return [plain(v) for v in value]
        if isinstance(value, Decimal):
            return float(value)
        return value

    return plain(_read_yaml(Path(path)))


# -- Provenance: quotes appear in their seeds ---------------------------------


def normalise_whitespace(text):
    return " ".join(text.split())


def quote_problems(cases, seeds_dir=None):
    """Cases whose quote is not found (modulo whitespace runs) in their seed file. Cases from a
    `found_by` file name no seed and quote no document: they are not checked here."""
    seeds_dir = Path(seeds_dir) if seeds_dir is not None else DEFAULT_SEEDS_DIR
    texts, problems = {}, []
    for case in cases:
        seed = case.source.seed
        if seed is None:
            continue
        if seed not in texts:
            path = seeds_dir / seed
            texts[seed] = normalise_whitespace(path.read_text(encoding="utf-8")) if path.is_file() else None
        if texts[seed] is None:
            problems.append(CaseFileError(f"seed file {seed!r} not found in {seeds_dir}", path=case.path, line=case.line, case_id=case.id))
        elif normalise_whitespace(case.source.quote) not in texts[seed]:
            problems.append(
                CaseFileError(
                    f"`source.quote` {case.source.quote!r} does not appear in seed {seed}", path=case.path, line=case.line, case_id=case.id
                )
            )
    return problems


__all__ = [
    "Case", "CaseExpect", "CaseInput", "CaseLoader", "CaseOptions", "CaseSegment", "CaseSource",
    "ExplainedBy", "FOUND_BY",
    "DEFAULT_CASES_DIR", "DEFAULT_SEEDS_DIR", "ExpectedStatistics", "RetiredId", "case_files", "load_case_file", "load_cases", "load_retired", "quote_problems", "validate",
]
