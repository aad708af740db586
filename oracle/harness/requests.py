"""Requests: a case becomes a protocol-v1 score request; a request travels as JSON;
capabilities decide whether a request applies; the oracle says what to expect.

`case_to_request` is the one seam between the case loader (`oracle.suite.cases`) and
the runner: it reads a Case by attribute or by key, so a loader that returns
dataclasses or plain mappings both work.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, fields
from decimal import Decimal
from fractions import Fraction

from oracle.adapters.base import is_uniform
from oracle.formulas.bleu import LEVELS
from oracle.formulas.conventions import (
    SMOOTHING_METHODS,
    Options,
    Smoothing,
    exact_number,
)
from oracle.formulas.errors import BleuOracleError, BleuValueError, describe
from oracle.formulas.profiles import get_profile
from oracle.models.outcomes import parse_number
from oracle.models.protocol import ProtocolError, ScoreRequest
from oracle.models.wire import refuse_lone_surrogates

#: Case option keys that travel in the request itself; every other Options field is a convention override.
REQUEST_OPTION_KEYS = ("weights", "smoothing", "lowercase")
CONVENTION_FIELDS = tuple(f.name for f in fields(Options) if f.name not in REQUEST_OPTION_KEYS)
#: Case option keys for the `Options.weights` rule (the `weights` key itself is the weight list).
WEIGHT_RULE_KEYS = ("weight_rule", "weights_rule")


def _get(obj, name, default=None):
    """Attribute or mapping access, whichever the object offers."""
    if obj is None:
        return default
    if isinstance(obj, dict):
        return obj.get(name, default)
    return getattr(obj, name, default)


# -- protocol JSON ------------------------------------------------------------


def request_from_json(data, *, seq=None):
    """A ScoreRequest from a protocol score command or a replay payload (cmd and seq optional),
    validated strictly by `oracle.models.protocol` (ProtocolError, a BleuValueError, names the field)."""
    if not isinstance(data, dict):
        raise BleuValueError(f"a request must be a JSON object (got {describe(data)})")
    refuse_lone_surrogates(data)  # read by json.loads, not `decode`: a replayed token must be Unicode text too
    obj = {"cmd": "score", "seq": 0, **data}
    if seq is not None:
        obj["seq"] = seq
    return ScoreRequest.from_json(obj)


# -- cases ---------------------------------------------------------------------


@dataclass
class CaseRequest:
    """A case turned into a request, with what the runner needs to judge it."""

    case_id: str
    title: str
    request: ScoreRequest | None
    profiles: tuple
    #: convention overrides from the case's options (reference_length, ...)
    overrides: dict = field(default_factory=dict)
    #: the document's printed expectation: {"score", "tolerance"}, {"statistics"}, {"rejected": True}
    document: dict = field(default_factory=dict)
    #: set (and `request` None) when the case's input cannot be expressed in protocol v1: why
    invalid: str | None = None


def _number(value, name):
    """A weight or smoothing parameter as a float for the protocol ("1/3" and Fractions allowed)."""
    if isinstance(value, float):
        return value
    if isinstance(value, Decimal) and not value.is_finite():
        return float(value)  # the protocol refuses it, naming the field
    if isinstance(value, bool):
        return value  # left for the implementation (and the oracle) to reject
    try:
        return float(exact_number(value, name=name))
    except BleuOracleError:
        return value


def case_to_request(case, *, seq, profile):
    """A Case (from `oracle.suite.cases.load_cases`) as a CaseRequest judged under `profile`.

    Options the case leaves out take the judged profile's defaults: weights are
    uniform to the profile's default maximum order, smoothing the profile's
    method. `weights`, `smoothing` and `lowercase` travel in the request; the
    case's convention overrides (reference_length, empty_order, ...) are seen
    only by the oracle, and make the case apply only to the profiles it lists.

    A case found by fuzzing (`found_by`) carries no document expectation: its
    `expect` is an implementation's observed value. Otherwise the document's
    expectation is kept as {"score", "tolerance"} (tolerance
    None: the score is an exact fraction, compared under the run's numeric
    contract), {"statistics"} (hyp_len, ref_len, matches, totals) and
    {"rejected": True}.
    """
    profile = get_profile(profile)
    case_id = str(_get(case, "id", "?"))
    data = _get(case, "input", {})
    options = _get(case, "options", {}) or {}
    level = _get(data, "level", "corpus")
    segments = [
        {"hypothesis": _listed(_get(segment, "hypothesis", ())),
         "references": [_listed(r) for r in _get(segment, "references", ())]
         if isinstance(_get(segment, "references", ()), (list, tuple)) else _get(segment, "references")}
        for segment in _get(data, "segments", ()) or ()
    ]
    weights = _get(options, "weights")
    if weights is None:
        n = profile.options.default_max_order
        weights = (1.0 / n,) * n
    elif isinstance(weights, (list, tuple)):
        weights = tuple(_number(w, "weights") for w in weights)
    smoothing = _smoothing_json(_get(options, "smoothing"), profile)
    lowercase = _get(options, "lowercase")
    if lowercase is None:
        lowercase = profile.options.lowercase
    overrides = {}
    if hasattr(case, "convention_overrides"):
        overrides.update(case.convention_overrides())
    else:
        conventions = _get(options, "conventions")
        if conventions:
            overrides.update(dict(conventions))
        if isinstance(options, dict):
            overrides.update({k: v for k, v in options.items() if k in CONVENTION_FIELDS})
            for key in WEIGHT_RULE_KEYS:
                if key in options:
                    overrides["weights"] = options[key]
    invalid = None
    try:
        request = ScoreRequest.from_json({"cmd": "score", "seq": seq, "level": level, "segments": segments,
                                          "weights": _listed(weights), "smoothing": smoothing, "lowercase": lowercase})
    except ProtocolError as exc:
        request, invalid = None, f"the input cannot be expressed in protocol v1: {exc}"
    profiles = _get(case, "profiles", ()) or ()
    if isinstance(profiles, str):
        profiles = (profiles,)
    # A case found by `bleu-oracle fuzz` expects what one implementation answered, not what a
    # document prints: the runner judges its input against the oracle only.
    document = {} if _get(case, "found_by") else _document(_get(case, "expect", {}) or {})
    return CaseRequest(case_id, str(_get(case, "title", "") or ""), request, tuple(profiles), overrides, document,
                       invalid)


def _listed(value):
    return list(value) if isinstance(value, (list, tuple)) else value


def _smoothing_json(smoothing, profile):
    """The protocol form {"method", every parameter as a float}; parameters left out take their defaults."""
    if smoothing is None:
        return profile.options.smoothing.to_json()
    if isinstance(smoothing, Smoothing):
        return smoothing.to_json()
    if isinstance(smoothing, str):
        smoothing = {"method": smoothing}
    elif isinstance(smoothing, (list, tuple)):
        smoothing = dict(smoothing)  # the loader's (name, value) pairs, method first
    if not isinstance(smoothing, dict):
        return smoothing
    out = {k: (v if k == "method" else _number(v, f"smoothing.{k}")) for k, v in smoothing.items()}
    for name, default in SMOOTHING_METHODS.get(out.get("method"), {}).items():
        out.setdefault(name, float(default))
    return out


def _document(expect):
    document = {}
    if _get(expect, "rejected"):
        document["rejected"] = True
        return document
    score = _get(expect, "score")
    if score is not None:
        tolerance = _get(expect, "tolerance")
        exact = _get(expect, "exact") is True or isinstance(score, Fraction)
        document["score"] = _as_float(score)
        document["tolerance"] = None if exact or tolerance is None else float(tolerance)
    statistics = _get(expect, "statistics")
    if statistics:
        stats = {}
        for name in ("hyp_len", "ref_len", "matches", "totals"):
            value = _get(statistics, name)
            if value is not None:
                stats[name] = list(value) if isinstance(value, (list, tuple)) else value
        if stats:
            document["statistics"] = stats
    return document


def _as_float(value):
    if isinstance(value, str):
        if value.strip().lower() == "nan":
            return math.nan
        number = parse_number(value)
        return number if number is not None else float(Fraction(value))
    return float(value)


# -- applicability -------------------------------------------------------------


def not_applicable_reason(request, capabilities, *, profile=None, case_profiles=None, overrides=None):
    """Why `request` is outside the implementation's capabilities, or None if it applies.

    A case overriding a convention applies only when the judged profile is
    among the case's profiles: the override says what that profile does.
    """
    levels = capabilities.get("levels", [])
    if request.level in LEVELS and request.level not in levels:
        return f"level {request.level!r} is not among the implementation's levels {levels}"
    weights = request.weights
    if isinstance(weights, (list, tuple)) and weights:
        if capabilities.get("weights") == "uniform" and not is_uniform(weights):
            return f"weights {list(weights)} are not 1/N each and the implementation takes uniform weights only"
        max_order = capabilities.get("max_order")
        if isinstance(max_order, int) and len(weights) > max_order:
            return f"maximum order {len(weights)} exceeds the implementation's max_order {max_order}"
    method = request.smoothing.method
    if method not in capabilities.get("smoothing", []):
        return f"smoothing {method!r} is not among the implementation's methods {capabilities.get('smoothing', [])}"
    if request.lowercase is True and not capabilities.get("lowercase"):
        return "the request folds case and the implementation does not declare lowercase"
    if request.is_text and request.tokenize not in (capabilities.get("tokenizers") or ()):
        return (f"a text request for tokenizer {request.tokenize!r}, and the implementation's tokenizers are "
                f"{list(capabilities.get('tokenizers') or [])}")
    orders = capabilities.get("orders")
    if orders and len(weights) not in orders:
        return f"maximum order {len(weights)} is not among the implementation's orders {list(orders)}"
    if capabilities.get("same_reference_count") and len({len(s.references) for s in request.segments}) > 1:
        return "segments have different numbers of references and the implementation needs the same number in each"
    most = capabilities.get("max_references")
    if most and any(len(s.references) > most for s in request.segments):
        return f"a segment has more than the implementation's max_references {most} references"
    forbidden = capabilities.get("forbidden_token_characters") or ""
    empty_allowed = capabilities.get("empty_tokens", True) is not False
    if (forbidden or not empty_allowed) and not request.is_text:  # raw text is the implementation's to tokenize
        for segment in request.segments:
            for tokens in (segment.hypothesis, *segment.references):
                for token in tokens:
                    if not token and not empty_allowed:
                        return "a token is empty and the implementation does not take empty tokens"
                    bad = next((c for c in token if c in forbidden), None)
                    if bad is not None:
                        return f"token {token!r} holds {bad!r}, a character the implementation does not take in tokens"
    if overrides and profile is not None and profile not in (case_profiles or ()):
        return (f"the case overrides {sorted(overrides)} for profiles {list(case_profiles or ())}, "
                f"not the judged profile {profile!r}")
    return None
