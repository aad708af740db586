"""Parsing one case of a case file: each field checked, every problem naming the file, line and case id."""

from __future__ import annotations

import re
from decimal import Decimal
from fractions import Fraction
from pathlib import Path

from oracle.formulas.bleu import LEVELS
from oracle.formulas.bounds import MAX_DIGITS, MAX_ORDER, MAX_REFERENCES, count_problem, number_problem
from oracle.formulas.conventions import (
    SMOOTHING_METHODS,
    SMOOTHING_PARAMETERS,
    Options,
)
from oracle.formulas.errors import BleuOracleError, CaseFileError, describe
from oracle.formulas.profiles import PROFILES
from oracle.models.case import (
    Case,
    CaseExpect,
    CaseInput,
    CaseOptions,
    CaseSegment,
    CaseSource,
    ExpectedStatistics,
    ExplainedBy,
)

from .caseformat import (
    _FRACTION,
    _SIGNED_FRACTION,
    CASE_FIELDS,
    CASE_REQUIRED,
    CONVENTION_OPTION_FIELDS,
    EXPECT_FIELDS,
    EXPLAINED_BY_FIELDS,
    ID_PATTERN,
    INPUT_FIELDS,
    KINDS,
    OPTION_FIELDS,
    SEED_PATTERN,
    SEGMENT_FIELDS,
    SMOOTHING_FIELDS,
    SOURCE_FIELDS,
    SOURCE_REQUIRED,
    STATISTICS_FIELDS,
    HugeNumber,
    _Map,
    _plain,
    _Seq,
)

# -- Validation helpers ------------------------------------------------------


class CaseFileErrors(CaseFileError):
    """Every problem found in one case (`errors`, each a CaseFileError): `cases validate` lists them all
    at once; the message is the first, with how many more."""

    def __init__(self, errors):
        first = errors[0]
        super().__init__(f"{first.bare_message} (and {len(errors) - 1} more problem(s) in this case)",
                         path=first.path, line=first.line, case_id=first.case_id)
        self.errors = list(errors)


def raise_all(errors):
    """Raise the problems found (nothing when there are none): one as itself, several as CaseFileErrors."""
    if errors:
        raise errors[0] if len(errors) == 1 else CaseFileErrors(errors)


class _Problems:
    """Problems collected while parsing: `attempt(parse, ...)` runs one check and keeps what it raises
    (every problem of a CaseFileErrors), so one mistake does not hide the next."""

    def __init__(self):
        self.errors = []

    def attempt(self, parse, *args):
        try:
            return parse(*args)
        except CaseFileErrors as exc:
            self.errors.extend(exc.errors)
        except CaseFileError as exc:
            self.errors.append(exc)
        return None

    def add(self, error):
        self.errors.append(error)

    def raise_any(self):
        raise_all(self.errors)


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


def mapping_problems(value, name, ctx, line, allowed, required=(), *, what=None):
    """Every unknown and every missing field of a mapping, each a CaseFileError (a list, possibly empty);
    a value that is no mapping at all is raised, since nothing inside it can be checked."""
    what = what or f"`{name}`"
    if not isinstance(value, dict):
        raise ctx.error(f"{what} must be a mapping (got {_kind(value)} {describe(_plain(value))})", line)
    line = getattr(value, "line", None) or line
    problems = [ctx.error(f"unknown field `{_join(name, key)}` in {what} (allowed: {', '.join(allowed)})",
                          _line_of(value, key, line)) for key in value if key not in allowed]
    problems += [ctx.error(f"missing required field `{_join(name, key)}`", line) for key in required if key not in value]
    return problems


def _mapping(value, name, ctx, line, allowed, required=(), *, what=None):
    """`value`, checked to be a mapping with only `allowed` fields and all `required` ones; every problem raised."""
    raise_all(mapping_problems(value, name, ctx, line, allowed, required, what=what))
    return value


def _join(name, key):
    return f"{name}.{key}" if name else key


def _kind(value):
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, (int, Decimal, HugeNumber)):
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




def _show(value):
    return describe(_plain(value))


def _string(value, name, ctx, line, *, one_line=False):
    if not isinstance(value, str) or not value.strip():
        raise ctx.error(f"`{name}` must be a non-empty string (got {_show(value)})", line)
    if one_line and "\n" in value.strip():
        raise ctx.error(f"`{name}` must be one line (got {_show(value)})", line)
    return value


def _is_number(value):
    return isinstance(value, (int, Decimal, HugeNumber)) and not isinstance(value, bool)


def _within_bounds(value: object, name: str, ctx: _Context, line: int | None) -> object:
    """`value` (a number or a number's text) when it lies within the bounds of a number
    (`oracle.formulas.bounds`); a CaseFileError naming the field otherwise. Checked before any
    conversion: Fraction("1/" + 5,000 digits) is an error, and Fraction("1e100000000") a long wait.
    An infinity or NaN is left to the field's own check (a case may expect infinite weights rejected)."""
    if isinstance(value, HugeNumber):
        problem = f"has {value.digits} digits, more than the {MAX_DIGITS} a number may have"
    elif isinstance(value, Decimal) and not value.is_finite():
        problem = None
    else:
        problem = number_problem(value)
    if problem is not None:
        raise ctx.error(f"`{name}` {problem} (got {_show(value)})", line)
    return value


def _fraction(text: str, name: str, ctx: _Context, line: int | None) -> Fraction:
    """A fraction string ("3/5", "-1/3") as an exact Fraction, its digits checked first."""
    return Fraction(_within_bounds(text.strip(), name, ctx, line))


def _at_most(items: list, most: int, name: str, ctx: _Context, line: int | None, what: str = "items") -> list:
    """`items` when there are at most `most` of them (a bound of `oracle.formulas.bounds`)."""
    if len(items) > most:
        raise ctx.error(f"`{name}` must hold at most {most} {what} (got {len(items)})", line)
    return items


def _count(value, name, ctx, line):
    if isinstance(value, HugeNumber):
        _within_bounds(value, name, ctx, line)
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise ctx.error(f"`{name}` must be a non-negative integer (got {_show(value)})", line)
    problem = count_problem(value)
    if problem is not None:
        raise ctx.error(f"`{name}` {problem} (got {_show(value)})", line)
    return value


def _expected_value(value, name, ctx, line):
    """An expected p_n or BP: a fraction string (exact) or a finite non-negative number."""
    if isinstance(value, str):
        if not _FRACTION.match(value.strip()):
            raise ctx.error(
                f"`{name}` must be a number or an exact fraction string like \"3/5\" (got {_show(value)})", line
            )
        return _fraction(value, name, ctx, line)
    if _is_number(value):
        value = Decimal(_within_bounds(value, name, ctx, line))
        if not value.is_finite() or value < 0:
            raise ctx.error(f"`{name}` must be a finite non-negative number (got {_show(value)})", line)
        return value
    raise ctx.error(f"`{name}` must be a number or an exact fraction string like \"3/5\" (got {_show(value)})", line)


def _tokens(value, name, ctx, line):
    if not isinstance(value, list):
        raise ctx.error(f"`{name}` must be a list of tokens (got {_show(value)})", line)
    problems = _Problems()
    for i, token in enumerate(value):
        token_line = _line_of(value, i, line)
        if not isinstance(token, str):
            problems.add(ctx.error(
                f"`{name}[{i}]` must be a string token (got {_kind(token)} {_show(token)}; quote it in YAML)", token_line))
        elif token.split() != [token]:
            problems.add(ctx.error(f"`{name}[{i}]` must be a non-empty token without whitespace (got {token!r})", token_line))
    problems.raise_any()
    return tuple(value)


# -- Parsing one case --------------------------------------------------------


def _parse_source(value, ctx, line, file_seed, found_by=None):
    """A case's provenance: the document (a title or a URL), section and quote; `seed` only when the
    document is one of the bundled seed files (then the quote is checked against its text)."""
    problems = _Problems()
    problems.errors += mapping_problems(value, "source", ctx, line, SOURCE_FIELDS, SOURCE_REQUIRED)
    source = value
    line = source.line or line
    values = {}
    for key in SOURCE_REQUIRED:
        if key in source:
            values[key] = problems.attempt(_string, source[key], f"source.{key}", ctx, _line_of(source, key, line))
    seed = file_seed
    if "seed" in source and found_by is not None:
        problems.add(ctx.error("`source.seed` names a seed document; a `found_by` file quotes no document",
                               _line_of(source, "seed", line)))
    elif "seed" in source:
        seed = problems.attempt(_string, source["seed"], "source.seed", ctx, _line_of(source, "seed", line))
        if seed is not None and not SEED_PATTERN.match(seed):
            problems.add(ctx.error(f"`source.seed` must be a seed file name like \"000_57c522b03cf4596a.txt\" "
                                   f"(got {seed!r})", _line_of(source, "seed", line)))
    problems.raise_any()
    return CaseSource(values["document"], values["section"], values["quote"], seed)


def _parse_profiles(value, ctx, line):
    if not isinstance(value, list) or not value:
        raise ctx.error(f"`profiles` must be a non-empty list of profile names (got {_show(value)})", line)
    problems, seen = _Problems(), set()
    for i, name in enumerate(value):
        item_line = _line_of(value, i, line)
        if not isinstance(name, str) or name not in PROFILES:
            problems.add(ctx.error(f"`profiles[{i}]` must be one of {sorted(PROFILES)} (got {_show(name)})", item_line))
        elif name in seen:
            problems.add(ctx.error(f"`profiles[{i}]` repeats {name!r}", item_line))
        seen.add(name)
    problems.raise_any()
    return tuple(value)


def _parse_input(value, ctx, line):
    problems = _Problems()
    problems.errors += mapping_problems(value, "input", ctx, line, INPUT_FIELDS, INPUT_FIELDS)
    data = value
    line = data.line or line
    level = data.get("level")
    if "level" in data and level not in LEVELS:
        problems.add(ctx.error(f"`input.level` must be one of {list(LEVELS)} (got {_show(level)})", _line_of(data, "level", line)))
    if "segments" not in data:
        problems.raise_any()
    segments = data["segments"]
    seg_line = _line_of(data, "segments", line)
    if not isinstance(segments, list) or not segments:
        problems.add(ctx.error(f"`input.segments` must be a non-empty list of segments (got {_show(segments)})", seg_line))
        problems.raise_any()
    if level == "sentence" and len(segments) != 1:
        problems.add(ctx.error(f"`input.segments` must hold exactly one segment at sentence level (got {len(segments)})", seg_line))
    parsed = [problems.attempt(_parse_segment, segment, f"input.segments[{i}]", ctx, _line_of(segments, i, seg_line))
              for i, segment in enumerate(segments)]
    problems.raise_any()
    return CaseInput(level, tuple(parsed))


def _parse_segment(segment, name, ctx, line):
    problems = _Problems()
    problems.errors += mapping_problems(segment, name, ctx, line, SEGMENT_FIELDS, SEGMENT_FIELDS)
    s_line = segment.line or line
    hypothesis = refs = None
    if "hypothesis" in segment:
        hypothesis = problems.attempt(_tokens, segment["hypothesis"], f"{name}.hypothesis", ctx,
                                      _line_of(segment, "hypothesis", s_line))
    if "references" in segment:
        references = segment["references"]
        r_line = _line_of(segment, "references", s_line)
        if not isinstance(references, list) or not references:
            problems.add(ctx.error(f"`{name}.references` must be a non-empty list of token lists "
                                   f"(got {_show(references)})", r_line))
        elif len(references) > MAX_REFERENCES:
            problems.add(ctx.error(f"`{name}.references` must hold at most {MAX_REFERENCES} references "
                                   f"(got {len(references)})", r_line))
        else:
            refs = tuple(problems.attempt(_tokens, reference, f"{name}.references[{j}]", ctx,
                                          _line_of(references, j, r_line)) for j, reference in enumerate(references))
    problems.raise_any()
    return CaseSegment(hypothesis, refs)


def _parse_options(value, ctx, line):
    if value is None:
        return CaseOptions()
    problems = _Problems()
    problems.errors += mapping_problems(value, "options", ctx, line, OPTION_FIELDS)
    data = value
    line = data.line or line
    weights = smoothing = lowercase = None
    if "weights" in data:
        weights = problems.attempt(_parse_weights, data["weights"], ctx, _line_of(data, "weights", line))
    if "smoothing" in data:
        smoothing = problems.attempt(_parse_smoothing, data["smoothing"], ctx, _line_of(data, "smoothing", line))
    if "lowercase" in data:
        if not isinstance(data["lowercase"], bool):
            problems.add(ctx.error(f"`options.lowercase` must be true or false (got {_show(data['lowercase'])})",
                                   _line_of(data, "lowercase", line)))
        lowercase = data["lowercase"]
    conventions = tuple((name, data[name]) for name in CONVENTION_OPTION_FIELDS if name in data)
    for name, value in conventions:
        try:
            Options().with_changes(**{name: value})
        except BleuOracleError as exc:
            problems.add(ctx.error(f"`options.{name}`: {exc}", _line_of(data, name, line)))
    problems.raise_any()
    return CaseOptions(weights, smoothing, lowercase, conventions)


def _parse_weights(raw, ctx, w_line):
    if not isinstance(raw, list) or not raw:
        raise ctx.error(f"`options.weights` must be a non-empty list of numbers (got {_show(raw)})", w_line)
    _at_most(raw, MAX_ORDER, "options.weights", ctx, w_line, "weights: their count is the maximum order")
    problems, parsed = _Problems(), []
    for i, w in enumerate(raw):
        name, line = f"options.weights[{i}]", _line_of(raw, i, w_line)
        if isinstance(w, str) and _SIGNED_FRACTION.match(w.strip()):
            parsed.append(problems.attempt(_fraction, w, name, ctx, line))
        elif _is_number(w):
            # within the bounds of a number (a request carries it as a double); its sign and finiteness are
            # the oracle's to judge (cases may expect a rejection)
            parsed.append(problems.attempt(_within_bounds, w, name, ctx, line))
        else:
            problems.add(ctx.error(
                f"`options.weights[{i}]` must be a number or a fraction string like \"1/3\" (got {_show(w)})",
                _line_of(raw, i, w_line)))
    problems.raise_any()
    return tuple(parsed)


def _parse_smoothing(value, ctx, s_line):
    spec = _mapping(value, "options.smoothing", ctx, s_line, SMOOTHING_FIELDS, ("method",))
    method = spec["method"]
    if method not in SMOOTHING_METHODS:
        raise ctx.error(
            f"`options.smoothing.method` must be one of {sorted(SMOOTHING_METHODS)} (got {_show(method)})",
            _line_of(spec, "method", s_line),
        )
    problems, pairs = _Problems(), [("method", method)]
    for name in SMOOTHING_PARAMETERS:
        if name in spec:
            if name not in SMOOTHING_METHODS[method]:
                problems.add(ctx.error(
                    f"`options.smoothing.{name}` is not a parameter of {method!r} "
                    f"(it takes {sorted(SMOOTHING_METHODS[method]) or 'no parameters'})",
                    _line_of(spec, name, s_line),
                ))
            elif not _is_number(spec[name]):
                problems.add(ctx.error(f"`options.smoothing.{name}` must be a number (got {_show(spec[name])})",
                                       _line_of(spec, name, s_line)))
            elif problems.attempt(_within_bounds, spec[name], f"options.smoothing.{name}", ctx,
                                  _line_of(spec, name, s_line)) is not None:
                pairs.append((name, spec[name]))
    problems.raise_any()
    return tuple(pairs)


def _parse_precisions(value, ctx, line):
    name = "expect.statistics.precisions"
    if isinstance(value, list):
        if not value:
            raise ctx.error(f"`{name}` must not be empty", line)
        _at_most(value, MAX_ORDER, name, ctx, line, "orders")
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
            if int(order) > MAX_ORDER:
                raise ctx.error(f"`{name}` keys must be orders up to {MAX_ORDER}, the largest order bleu-oracle "
                                f"reads (got {order})", p_line)
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
            _at_most(raw, MAX_ORDER, f"expect.statistics.{key}", ctx, k_line, "counts, one per order")
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
        if not _is_number(t) or isinstance(t, HugeNumber) or not Decimal(t).is_finite() or Decimal(t) < 0:
            hint = " (write 0.00005 or 5.0e-5)" if isinstance(t, str) else ""
            raise ctx.error(f"`expect.tolerance` must be a non-negative number (got {_show(t)}){hint}", at("tolerance"))
        if Decimal(t) > 1:  # a score, BP and p_n lie in [0, 1]: a wider tolerance would pass anything
            raise ctx.error(f"`expect.tolerance` must be at most 1: a score lies between 0 and 1 and a wider "
                            f"tolerance would pass any value (got {_show(t)})", at("tolerance"))
        tolerance = Decimal(_within_bounds(t, "expect.tolerance", ctx, at("tolerance")))
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
            score = _fraction(s, "expect.score", ctx, at("score"))
        elif _is_number(s):
            score = Decimal(_within_bounds(s, "expect.score", ctx, at("score")))
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
                for k, v in val.items():
                    if k != "method":
                        _within_bounds(v, f"{where}.{k}", ctx, i_line)
                val = Smoothing.parse({k: (v if k == "method" else _exact(v)) for k, v in val.items()})
            except CaseFileError:
                raise
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
    # every problem of the case, each field checked on its own: unknown and missing fields too
    problems = _Problems()
    problems.errors += mapping_problems(raw, "", ctx, line, CASE_FIELDS, CASE_REQUIRED, what="a case")
    data = raw
    line = data.line or line
    at = lambda key: _line_of(data, key, line)  # noqa: E731
    errors = problems.errors

    def field(key, parse, *args):
        """The parsed field `key` (None when it is missing or has a problem, which is kept)."""
        if key not in data:
            return None
        return problems.attempt(parse, data[key], *args)

    def check(condition, message, where):
        if condition:
            errors.append(ctx.error(message, where))

    case_id = data.get("id")
    check("id" in data and (not isinstance(case_id, str) or not ID_PATTERN.match(case_id)),
          f"`id` must be lowercase letters, digits and single '-', starting with a letter (got {_show(case_id)})", at("id"))
    title = field("title", lambda value: _string(value, "title", ctx, at("title"), one_line=True))
    source = field("source", _parse_source, ctx, at("source"), file_seed, found_by)
    profiles = field("profiles", _parse_profiles, ctx, at("profiles"))
    kind = data.get("kind")
    check("kind" in data and kind not in KINDS, f"`kind` must be one of {list(KINDS)} (got {_show(kind)})", at("kind"))
    case_input = field("input", _parse_input, ctx, at("input"))
    options = CaseOptions() if "options" not in data else field("options", _parse_options, ctx, at("options"))
    expect = field("expect", _parse_expect, ctx, at("expect"))
    explained_by = None
    if "explained_by" in data:
        check(found_by is None, "`explained_by` belongs to cases found by `bleu-oracle fuzz` (a file with `found_by`); "
              "a documented case states what its document says", at("explained_by"))
        if found_by is not None:
            explained_by = field("explained_by", _parse_explained_by, ctx, at("explained_by"))
    else:
        check(found_by is not None, "missing required field `explained_by`: a case found by fuzzing names the root "
              "cause of the implementation's value (what `cases validate` recomputes)", line)
    check(found_by is not None and expect is not None and expect.rejected,
          "`expect.rejected`: a case found by fuzzing records a value the implementation answered", at("expect"))
    note = None
    if "note" in data:
        note = field("note", _string, "note", ctx, at("note"))
    else:
        check(kind in ("statement", "document-error"),
              f"missing required field `note`: a {kind} case must say how its expected value was derived"
              + (" and what the document got wrong" if kind == "document-error" else ""), line)
    errors.sort(key=lambda error: error.line or 0)  # in the order of the file
    problems.raise_any()
    return Case(case_id, title.strip(), source, profiles, kind, case_input, options, expect, note, Path(path), line,
                document, found_by, explained_by)


