"""bleu-oracle's BLEU test vectors, one file per profile (vectors/<profile>.json), with the JSON Schema they
validate against (suite.schema.json). Data only: this module finds the files and says whether a vector applies
to an implementation (bleu-oracle's docs/vectors.md describes a vector)."""

from __future__ import annotations

import json
from importlib.resources import files
from typing import Any

_PACK = json.loads(files(__name__).joinpath("pack.json").read_text(encoding="utf-8"))
VERSION: str = _PACK["version"]
PROFILES: tuple[str, ...] = tuple(_PACK["profiles"])


def load(profile: str) -> dict[str, Any]:
    """The vector file of one profile (papineni, nltk, sacrebleu, ...), parsed."""
    if profile not in PROFILES:
        raise ValueError(f"unknown profile {profile!r}: one of {', '.join(PROFILES)}")
    return json.loads(files(__name__).joinpath("vectors", f"{profile}.json").read_text(encoding="utf-8"))


def schema() -> dict[str, Any]:
    """The JSON Schema every vector file validates against."""
    return json.loads(files(__name__).joinpath("suite.schema.json").read_text(encoding="utf-8"))


def applies(needs: dict[str, Any], capabilities: dict[str, Any]) -> bool:
    """Whether an implementation with these protocol-v1 capabilities can take a vector that needs `needs`."""
    c = capabilities
    return bool(needs["level"] in c["levels"]
                and (needs["weights"] == "uniform" or c["weights"] == "any")
                and needs["max_order"] <= c["max_order"] and needs["max_order"] in c.get("orders", [needs["max_order"]])
                and needs["smoothing"] in c["smoothing"]
                and (not needs["lowercase"] or c["lowercase"] is True)
                and (needs["tokenizer"] is None or needs["tokenizer"] in (c.get("tokenizers") or ()))
                and (not needs["reference_counts_differ"] or not c.get("same_reference_count"))
                and needs["references"] <= (c.get("max_references") or needs["references"])
                and not set(needs["token_characters"]) & set(c.get("forbidden_token_characters") or "")
                and (not needs["empty_tokens"] or c.get("empty_tokens") is not False))
