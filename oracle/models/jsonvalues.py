"""Plain JSON values for the event stream and the protocol: tuples as lists, NaN and the
infinities as strings, Fractions as strings, enums by value."""

from __future__ import annotations

import math
from enum import Enum
from fractions import Fraction
from typing import Annotated

from pydantic import BeforeValidator, PlainSerializer, WithJsonSchema


def json_safe(value):
    """Plain JSON data: tuples as lists, NaN/Infinity as the protocol's strings, Fractions as strings."""
    if isinstance(value, float):
        if math.isnan(value):
            return "NaN"
        if math.isinf(value):
            return "Infinity" if value > 0 else "-Infinity"
        return value
    if isinstance(value, dict):
        return {str(k): json_safe(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        if all(type(v) is str for v in value):  # a token sequence: the bulk of every record, nothing to convert
            return list(value)
        return [json_safe(v) for v in value]
    if isinstance(value, Fraction):
        return str(value)
    if isinstance(value, Enum):
        return value.value  # an Outcome
    if value is None or isinstance(value, (str, int, bool)):
        return value
    return str(value)


def _special_float(value):
    """A float from a number or one of the strings json_safe writes ("NaN", "Infinity", "-Infinity")."""
    if isinstance(value, str) and value in ("NaN", "Infinity", "-Infinity"):
        return float(value.replace("Infinity", "inf"))
    return value


#: A float of the event stream that may be NaN or infinite: read from a number or json_safe's strings, written
#: back as json_safe writes it.
JsonFloat = Annotated[float, BeforeValidator(_special_float), PlainSerializer(json_safe, when_used="json"),
                      WithJsonSchema({"oneOf": [{"type": "number"}, {"enum": ["NaN", "Infinity", "-Infinity"]}]})]
