"""bleu-oracle's BLEU test vectors, one file per profile (vectors/<profile>.json), with the JSON Schema they
validate against (suite.schema.json). Data only: this module finds the files, says whether a vector applies
to an implementation, which convention's answer an implementation gave and which named convention's value
it gave on an input the documents leave undefined (bleu-oracle's docs/vectors.md
describes a vector)."""

from __future__ import annotations

import json
from importlib.resources import files
from typing import Any

from .answers import acceptable_convention, is_answer, whose_answer
from .needs import applies

__all__ = ["PROFILES", "VERSION", "acceptable_convention", "applies", "is_answer", "load", "schema", "whose_answer"]

_PACK = json.loads(files(__name__).joinpath("pack.json").read_text(encoding="utf-8"))
VERSION: str = _PACK["version"]
PROFILES: tuple[str, ...] = tuple(_PACK["profiles"])


def load(profile: str) -> dict[str, Any]:
    """The vector file of one profile (papineni, nltk, sacrebleu, ...), parsed."""
    if profile not in PROFILES:
        raise ValueError(f"unknown profile {profile!r}: one of {', '.join(PROFILES)}")
    return json.loads(files(__name__).joinpath("vectors").joinpath(f"{profile}.json").read_text(encoding="utf-8"))


def schema() -> dict[str, Any]:
    """The JSON Schema every vector file validates against."""
    return json.loads(files(__name__).joinpath("suite.schema.json").read_text(encoding="utf-8"))
