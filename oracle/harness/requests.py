"""Requests: a case becomes a protocol-v1 score request; a request travels as JSON;
capabilities decide whether a request applies; the oracle says what to expect.

A case gives its request under a profile itself (`oracle.models.case.Case.request_under`);
`case_to_request` is that call for the runner.
"""

from __future__ import annotations

import re
from dataclasses import replace
from functools import cache
from typing import TYPE_CHECKING

from oracle.escaping import shown
from oracle.formulas.errors import BleuValueError, describe
from oracle.models.protocol import Capabilities, ScoreRequest, is_uniform
from oracle.models.wire import refuse_lone_surrogates

if TYPE_CHECKING:  # annotations only: a search's processes never import the case model (about 20 ms of CPU each)
    from oracle.models.case import Case, CaseRequest

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


def case_to_request(case: Case, *, seq: int = 0, profile: str) -> CaseRequest:
    """A Case as a CaseRequest judged under `profile`: `Case.request_under` (the one place a case becomes a
    request), its request numbered `seq`."""
    item = case.request_under(profile)
    return item if seq == 0 or item.request is None else replace(item, request=item.request.with_seq(seq))


# -- applicability -------------------------------------------------------------


def not_applicable_reason(request: ScoreRequest, capabilities: Capabilities) -> str | None:
    """Why `request` is outside the implementation's declared `capabilities`, or None if it applies.

    A request carrying conventions (a case whose overrides differ from the judged profile's, under every
    profile alike) applies when the implementation can switch each to the rule asked for.
    """
    if request.level not in capabilities.levels:
        return f"level {request.level!r} is not among the implementation's levels {list(capabilities.levels)}"
    weights = request.weights
    if capabilities.weights == "uniform" and not is_uniform(weights):
        return f"weights {list(weights)} are not 1/N each and the implementation takes uniform weights only"
    if len(weights) > capabilities.max_order:
        return f"maximum order {len(weights)} exceeds the implementation's max_order {capabilities.max_order}"
    method = request.smoothing.method
    if method not in capabilities.smoothing:
        return f"smoothing {method!r} is not among the implementation's methods {list(capabilities.smoothing)}"
    if request.lowercase and not capabilities.lowercase:
        return "the request folds case and the implementation does not declare lowercase"
    if request.is_text and request.tokenize not in (capabilities.tokenizers or ()):
        return (f"a text request for tokenizer {request.tokenize!r}, and the implementation's tokenizers are "
                f"{list(capabilities.tokenizers or ())}")
    orders = capabilities.orders
    if orders and len(weights) not in orders:
        return f"maximum order {len(weights)} is not among the implementation's orders {list(orders)}"
    if capabilities.same_reference_count and len({len(s.references) for s in request.segments}) > 1:
        return "segments have different numbers of references and the implementation needs the same number in each"
    most = capabilities.max_references
    if most and any(len(s.references) > most for s in request.segments):
        return f"a segment has more than the implementation's max_references {most} references"
    reason = _token_reason(request, capabilities) or _text_reason(request, capabilities)
    reason = reason or _plan_reason(request, capabilities)
    return reason if reason is not None else capabilities.cannot_switch(request.conventions)


def _plan_reason(request: ScoreRequest, capabilities: Capabilities) -> str | None:
    """Why a request's stateful plan is not for this implementation, or None."""
    if request.stateful is None:
        return None
    declared = capabilities.stateful or ()
    if not declared:
        return "a stateful plan, and the implementation declares no stateful abilities"
    missing = [name for name in request.stateful.needs() if name not in declared]
    if missing:
        return f"a stateful plan needs {', '.join(missing)}, which the implementation does not declare"
    return None


def _text_reason(request: ScoreRequest, capabilities: Capabilities) -> str | None:
    """Why a raw text of `request` holds a sequence the implementation's input format cannot carry, or None."""
    forbidden = capabilities.forbidden_text_sequences or ()
    if not forbidden or not request.is_text:
        return None
    for segment in request.segments:
        for text in (segment.hypothesis, *segment.references):
            held = next((sequence for sequence in forbidden if sequence in text), None)
            if held is not None:
                return (f'a text holds "{shown(held)}", a sequence the implementation\'s input format cannot '
                        "carry (forbidden_text_sequences)")
    return None


def _token_reason(request: ScoreRequest, capabilities: Capabilities) -> str | None:
    """Why a token of `request` is one the implementation does not take, or None."""
    forbidden = capabilities.forbidden_token_characters or ""
    empty_allowed = capabilities.empty_tokens is not False
    if (not forbidden and empty_allowed) or request.is_text:  # raw text is the implementation's to tokenize
        return None
    # the common case, every token acceptable, is told in C (one character class over each token list); only a
    # request that holds an unacceptable token is walked token by token, for the first one to name
    if not _holds_unacceptable_token(request, _forbidden_class(forbidden), empty_allowed):
        return None
    for segment in request.segments:
        for tokens in (segment.hypothesis, *segment.references):
            for token in tokens:
                if not token and not empty_allowed:
                    return "a token is empty and the implementation does not take empty tokens"
                bad = next((c for c in token if c in forbidden), None)
                if bad is not None:
                    return f"token {token!r} holds {bad!r}, a character the implementation does not take in tokens"
    return None


@cache
def _forbidden_class(forbidden: str) -> re.Pattern[str] | None:
    """A pattern that finds any of the characters `forbidden` (None when there are none)."""
    return re.compile("[" + "".join(map(re.escape, forbidden)) + "]") if forbidden else None


def _holds_unacceptable_token(request: ScoreRequest, forbidden: re.Pattern[str] | None, empty_allowed: bool) -> bool:
    """Whether a token of `request` is empty (where empty tokens are refused) or holds a `forbidden` character."""
    for segment in request.segments:
        for tokens in (segment.hypothesis, *segment.references):
            if not empty_allowed and "" in tokens:
                return True
            # (a token holds a forbidden character exactly when the tokens written one after another do: one
            # search in C over the joined text, not one call a token)
            if forbidden is not None and forbidden.search("".join(tokens)):
                return True
    return False
