"""Whether a vector applies to an implementation: its `needs` against the implementation's protocol-v1
capabilities (PROTOCOL.md), the rule bleu-oracle's `check` applies before it sends a request."""

from __future__ import annotations

from typing import Any


def applies(needs: dict[str, Any], capabilities: dict[str, Any]) -> bool:
    """Whether an implementation with these protocol-v1 capabilities can take a vector that needs `needs`."""
    c = capabilities
    uncarried = c.get("forbidden_text_sequences") or ()  # texts: absent in files written before it
    return bool(needs["level"] in c["levels"]
                and (needs["weights"] == "uniform" or c["weights"] == "any")
                and needs["max_order"] <= c["max_order"] and needs["max_order"] in c.get("orders", [needs["max_order"]])
                and needs["smoothing"] in c["smoothing"]
                and (not needs["lowercase"] or c["lowercase"] is True)
                and (needs["tokenizer"] is None or needs["tokenizer"] in (c.get("tokenizers") or ()))
                and (not needs["reference_counts_differ"] or not c.get("same_reference_count"))
                and needs["references"] <= (c.get("max_references") or needs["references"])
                and not set(needs["token_characters"]) & set(c.get("forbidden_token_characters") or "")
                and (not needs["empty_tokens"] or c.get("empty_tokens") is not False)
                and not any(s in text for text in needs.get("texts", ()) for s in uncarried)
                and all(rule in (c.get("conventions") or {}).get(name, ()) for name, rule in needs["conventions"].items()))
