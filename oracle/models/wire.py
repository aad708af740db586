"""One protocol line in and out: JSON text to a dict and back, strictly (`ProtocolError` names what is
wrong). The typed messages that validate those dicts are in `oracle.models.protocol`."""

from __future__ import annotations

import json
import math

from pydantic import BaseModel

from oracle.formulas.errors import BleuValueError

#: JSON nesting deeper than this is refused before parsing (a protocol message nests 4 deep).
MAX_NESTING = 64


class ProtocolError(BleuValueError):
    """A message that does not follow protocol v1; the message names the offending field."""


# -- Encoding one line --------------------------------------------------------


def show(value):
    """A bad value as it would look in JSON, short."""
    try:
        text = json.dumps(value, ensure_ascii=False)
    except (TypeError, ValueError):
        text = repr(value)
    return text if len(text) <= 80 else text[:77] + "..."


def _kind(value):
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, (int, float)):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, (list, tuple)):
        return "an array"
    if isinstance(value, dict):
        return "an object"
    return type(value).__name__


def _jsonable(obj):
    if isinstance(obj, BaseModel):
        obj = obj.to_json()
    if isinstance(obj, float):
        if math.isnan(obj):
            return "NaN"
        if math.isinf(obj):
            raise ProtocolError(f"protocol v1 cannot carry an infinite number (got {obj})")
        return obj
    if isinstance(obj, dict):
        return {str(k): _jsonable(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        if all(type(v) is str for v in obj):  # a token sequence: the bulk of every request
            return obj
        return [_jsonable(v) for v in obj]
    return obj


def _model(obj):
    if isinstance(obj, BaseModel):
        return obj.to_json()
    raise TypeError(f"{type(obj).__name__} is not JSON")


def encode(obj, *, ensure_ascii=True):
    """One protocol line (without the newline): compact, ASCII-only JSON; a float NaN becomes
    the string "NaN" (JSON has no NaN); infinities are refused. Models are encoded via to_json().
    `ensure_ascii=False` keeps non-ASCII text as it is: the same line for a person to read (or hash)."""
    try:  # most lines hold no NaN and no odd key: json's C encoder alone, without a walk over every token
        return json.dumps(obj, ensure_ascii=ensure_ascii, allow_nan=False, separators=(",", ":"), default=_model)
    except (ValueError, TypeError):
        pass
    return json.dumps(_jsonable(obj), ensure_ascii=ensure_ascii, allow_nan=False, separators=(",", ":"))


def _refuse_constant(name):
    raise ProtocolError(f"a protocol line is JSON, and JSON has no {name} (send NaN as the string \"NaN\")")


def _no_duplicates(pairs):
    out = {}
    for key, value in pairs:
        if key in out:
            raise ProtocolError(f"field `{key}` appears twice in one object")
        out[key] = value
    return out


def _nesting(line):
    """The deepest bracket nesting of a JSON text (strings skipped), to refuse deep input before parsing."""
    depth = deepest = 0
    in_string = escaped = False
    for char in line:
        if in_string:
            if escaped:
                escaped = False
            elif char == "\\":
                escaped = True
            elif char == '"':
                in_string = False
        elif char == '"':
            in_string = True
        elif char in "[{":
            depth += 1
            deepest = max(deepest, depth)
        elif char in "]}":
            depth -= 1
    return deepest


def decode(line):
    """Parse one protocol line (str or UTF-8 bytes) into a dict; ProtocolError if it is not
    one JSON object (NaN/Infinity literals, duplicate keys, nesting deeper than MAX_NESTING and
    integers too long to read are refused)."""
    if isinstance(line, (bytes, bytearray)):
        try:
            line = bytes(line).decode("utf-8")
        except UnicodeDecodeError as exc:
            raise ProtocolError(f"a protocol line must be UTF-8 ({exc})") from None
    if not isinstance(line, str):
        raise ProtocolError(f"a protocol line must be text (got {type(line).__name__})")
    if line.count("[") + line.count("{") > MAX_NESTING and _nesting(line) > MAX_NESTING:  # counting is cheap
        raise ProtocolError(f"a protocol line nests deeper than {MAX_NESTING} levels")
    try:
        obj = json.loads(line, parse_constant=_refuse_constant, object_pairs_hook=_no_duplicates)
    except json.JSONDecodeError as exc:
        raise ProtocolError(f"a protocol line must be one JSON object: {exc.msg} at column {exc.colno} (got {show(line.strip())})") from None
    except RecursionError:
        raise ProtocolError("a protocol line nests too deeply") from None
    except ValueError as exc:  # an integer longer than Python reads (sys.get_int_max_str_digits)
        raise ProtocolError(f"a protocol line holds a number that cannot be read: {exc}") from None
    if not isinstance(obj, dict):
        raise ProtocolError(f"a protocol line must be a JSON object (got {_kind(obj)}: {show(obj)})")
    return obj
