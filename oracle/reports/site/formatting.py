"""The formatting every report page shares: numbers for reading, Markdown and HTML escaping, a request in words.

Every text of the data (an implementation's messages and answers, the tokens of a minimal example) is outside
text: a character that is not printable is shown as its escape (`oracle.escaping`), never written raw."""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Mapping
from typing import Any

from oracle.escaping import escape_character, html_text, json_shown, shown
from oracle.models.outcomes import parse_number as number


def _reading(value: Any, shown: Callable[[float], str], *, zero: str | None = None) -> str:
    """A number for reading: '—' for none, NaN, `zero` for 0 when given, else `shown(x)`."""
    x = number(value)
    if x is None:
        return "—"
    if math.isnan(x):
        return "NaN"
    if zero is not None and x == 0:
        return zero
    return shown(x)


def fmt(value: Any, digits: int | None = 10) -> str:
    """A score for reading: NaN, infinities, `digits` significant digits (None: every digit, the
    shortest repr that reads back as the same float); '—' for none."""

    def shown(x: float) -> str:
        if math.isinf(x):
            return "inf" if x > 0 else "-inf"
        return repr(x) if digits is None else f"{x:.{digits}g}"

    return _reading(value, shown, zero="0")


def fmt_points(value: Any) -> str:
    """BLEU x 100 with 8 decimals (real data)."""
    return _reading(value, lambda x: f"{100 * x:.8f}")


def fmt_delta(value: Any) -> str:
    """A difference in BLEU points (x 100), signed, 2 significant digits; '0' when exactly equal."""
    return _reading(value, lambda x: f"{100 * x:+.2e}", zero="0")


def md(text: Any) -> str:
    """Text safe inside a Markdown table cell: on one line, its controls shown as escapes (whose backslash, as any,
    is doubled: Markdown shows `\\\\x00` as `\\x00`)."""
    return shown(str(text).replace("\n", " ")).replace("\\", "\\\\").replace("|", "\\|")


def esc(text: Any) -> str:
    """Text for HTML (`oracle.escaping.html_text`)."""
    return html_text(text)


def compact_json(obj: Any) -> str:
    """JSON for reading, every character that is not printable as its \\u escape (`oracle.escaping.json_shown`)."""
    return json_shown(json.dumps(obj, ensure_ascii=False, sort_keys=False, separators=(", ", ": ")))


#: How whitespace inside a token is shown (a token "a b" must not read like the tokens "a", "b").
VISIBLE_WHITESPACE = {" ": "␣", "\t": "⇥", "\n": "↵", "\r": "␍"}
#: An empty token, shown (joined with spaces it would be invisible).
EMPTY_TOKEN = "⟨⟩"


def visible_token(token: str) -> str:
    """A token for reading among others separated by spaces: whitespace inside it made visible (␣ for a space,
    other whitespace by its code point), any other character that is not printable as its escape (\\x00, U+202E),
    an empty token as ⟨⟩."""
    if not token:
        return EMPTY_TOKEN
    return "".join(_visible_character(c) for c in token)


def _visible_character(c: str) -> str:
    if c.isspace():
        return VISIBLE_WHITESPACE.get(c, f"⟨U+{ord(c):04X}⟩")
    return c if c.isprintable() else escape_character(c)


def tokens_text(tokens: Any) -> str:
    """A token list for reading: the tokens separated by spaces, each made visible; ∅ for none."""
    return " ".join(visible_token(str(token)) for token in tokens or ()) or "∅"


def sentence_text(value: Any) -> str:
    """A hypothesis or reference for reading: a text request's raw text as it is (whitespace other than a space
    made visible, ∅ for an empty text), a token list as `tokens_text` shows it."""
    if isinstance(value, str):
        return "".join(c if c == " " else _visible_character(c) for c in value) or "∅"
    return tokens_text(value)


def request_text(request: Mapping[str, Any]) -> str:
    """A one-line human form of a small request: hyp | refs, weights, smoothing."""
    parts = []
    for segment in request.get("segments", []):
        hypothesis = sentence_text(segment.get("hypothesis"))
        references = " / ".join(sentence_text(r) for r in segment.get("references", []))
        parts.append(f"“{hypothesis}” vs “{references}”")
    extra = [f"{request.get('level', 'corpus')}", "weights " + ", ".join(fmt(w, 4) for w in request.get("weights", []))]
    smoothing = request.get("smoothing") or {"method": "none"}
    if smoothing.get("method") != "none":
        extra.append(
            "smoothing " + ", ".join(f"{k}={v}" for k, v in smoothing.items() if k != "method")
            if len(smoothing) > 1
            else f"smoothing {smoothing['method']}"
        )
        if len(smoothing) > 1:
            extra[-1] = f"smoothing {smoothing['method']} (" + extra[-1][len("smoothing ") :] + ")"
    if request.get("lowercase"):
        extra.append("lowercase")
    if request.get("tokenize"):
        extra.append(f"raw text, tokenized {request['tokenize']}")
    return "; ".join(parts) + " [" + "; ".join(extra) + "]"
