"""One protocol line in and out: JSON text to a dict and back, strictly (`ProtocolError` names what is
wrong). The typed messages that validate those dicts are in `oracle.models.protocol`."""

from __future__ import annotations

import itertools
import json
import math
import re
import sys
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel

from oracle.escaping import json_shown, shown
from oracle.formulas.bounds import MAX_NUMBER_TEXT
from oracle.formulas.errors import BleuValueError

#: JSON nesting deeper than this is refused before parsing (a protocol message nests 4 deep).
MAX_NESTING = 64
#: A \u escape of a surrogate in a JSON text (the parser joins a pair into one character and keeps a
#: lone one as it is), and a surrogate itself (in a str that did not come from UTF-8 bytes).
_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F][0-9a-fA-F]{2}")
_SURROGATE = re.compile("[\ud800-\udfff]")


class ProtocolError(BleuValueError):
    """A message that does not follow protocol v1; the message names the offending field."""


# -- Encoding one line --------------------------------------------------------


def show(value):
    """A bad value as it would look in JSON, short, every character that is not printable as its JSON escape
    (a control character, U+202E, U+2028: `oracle.escaping.json_shown`)."""
    try:
        text = json_shown(json.dumps(value, ensure_ascii=False))
    except (TypeError, ValueError):
        text = shown(repr(value))
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


#: `json.dumps(obj, ensure_ascii=..., allow_nan=False, separators=(",", ":"), default=_model)`'s encoder, built once
#: for each `ensure_ascii` (json.dumps builds one a call; its `encode` is what json.dumps calls).
_ENCODERS = {ascii_only: json.JSONEncoder(ensure_ascii=ascii_only, allow_nan=False, separators=(",", ":"),
                                          default=_model) for ascii_only in (True, False)}


def encode(obj, *, ensure_ascii=True, long_sequences=True):
    """One protocol line (without the newline): compact, ASCII-only JSON; a float NaN becomes
    the string "NaN" (JSON has no NaN); infinities are refused. Models are encoded via to_json().
    `ensure_ascii=False` keeps non-ASCII text as it is: the same line for a person to read (or hash).
    `long_sequences=False`: the caller knows that no token sequence is longer than LONG_SEQUENCE, so none is looked
    for (the same line: a shorter one is never spliced)."""
    try:  # most lines hold no NaN and no odd key: json's C encoder alone, without a walk over every token
        spliced = _with_long_sequences(obj, ensure_ascii) if long_sequences else None
        if spliced is not None:  # joined from pieces: a long sequence's text is never held whole beside the line
            return "".join(spliced.pieces())
        return _ENCODERS[bool(ensure_ascii)].encode(obj)
    except (ValueError, TypeError):
        pass
    return json.dumps(_jsonable(obj), ensure_ascii=ensure_ascii, allow_nan=False, separators=(",", ":"))


def encoded_pieces(obj, *, ensure_ascii=True) -> Iterator[str]:
    """`encode(obj)` in pieces, in order (joined, they are its line): a token sequence longer than LONG_SEQUENCE in
    pieces of at most PIECE_TOKENS tokens, so that a line of 65,600 tokens is hashed without ever being held whole
    (a request's record digest: `oracle.harness.searchcache.request_digest`). Held whole, with the copies that
    splicing it made, such a line was the largest thing a `check` process allocated (a few MiB for a run of a
    token outside Latin-1, whose line Python stores at 2 or 4 bytes a character), and the peak memory of a long
    search grew with the widest such run it drew (benchmarks/README.md, "`check`'s memory: what grows with the
    examples")."""
    try:
        spliced = _with_long_sequences(obj, ensure_ascii)
    except (ValueError, TypeError):  # (encode's own fallback: the line is encoded the ordinary way)
        spliced = None
    if spliced is None:
        yield encode(obj, ensure_ascii=ensure_ascii)
        return
    yield from spliced.pieces()


#: A segment's token sequence longer than this is encoded from its distinct tokens: each one's JSON text once,
#: joined in C (a run of 65,600 copies of one token: one string encoded, not 65,600). The text is the same.
LONG_SEQUENCE = 2000
#: `encoded_pieces` gives a long sequence's text in pieces of this many tokens.
PIECE_TOKENS = 4096


@dataclass(frozen=True)
class _Spliced:
    """A line holding long token sequences: the rest of the line, encoded as usual, cut where each sequence goes
    (`around`: one more than `sequences`), and each sequence with its distinct tokens' JSON text (`quoted`)."""

    around: tuple[str, ...]
    sequences: tuple[tuple[Sequence[str], dict[str, str]], ...]

    def pieces(self, tokens_per_piece: int = PIECE_TOKENS) -> Iterator[str]:
        """The line's text in order, each sequence in pieces of at most `tokens_per_piece` tokens. A piece of the
        same tokens as the one before is that piece's text again, the same str: a run's pieces are one string, so
        that the pieces of a line joined whole (`encode`) take the room of one piece, not that of the line again."""
        for before, (tokens, quoted) in zip(self.around, self.sequences, strict=False):
            yield before
            yield "["
            rest, text = iter(tokens), ""
            last: tuple[str, ...] = ()
            for start in range(0, len(tokens), tokens_per_piece):
                if start:
                    yield ","
                chunk = tuple(itertools.islice(rest, tokens_per_piece))
                if chunk != last:
                    last, text = chunk, ",".join(map(quoted.__getitem__, chunk))
                yield text
            yield "]"
        yield self.around[-1]


def _with_long_sequences(obj, ensure_ascii) -> _Spliced | None:
    """The line of a score command holding token sequences longer than LONG_SEQUENCE, as the rest of the line
    (encoded as usual) and each sequence's tokens with their text; None when there is none (or a stand-in's text is
    not unique in the line: then the line is encoded the ordinary way)."""
    segments = obj.get("segments") if type(obj) is dict else None
    if type(segments) not in (list, tuple) or not segments:
        return None
    sequences: dict[str, tuple[Sequence[str], dict[str, str]]] = {}

    def stand_in(tokens):
        if type(tokens) not in (list, tuple) or len(tokens) <= LONG_SEQUENCE:
            return tokens
        distinct = set(tokens)
        if not all(type(token) is str for token in distinct):
            return tokens
        placeholder = f"\x00{len(sequences)}\x00"
        sequences[placeholder] = tokens, {token: json.dumps(token, ensure_ascii=ensure_ascii) for token in distinct}
        return placeholder

    skeleton = [_segment_stand_in(segment, stand_in) for segment in segments]
    if not sequences:
        return None
    line = json.dumps({**obj, "segments": skeleton}, ensure_ascii=ensure_ascii, allow_nan=False,
                      separators=(",", ":"), default=_model)
    at: dict[str, tuple[int, int]] = {}
    for placeholder in sequences:
        quoted_placeholder = json.dumps(placeholder)  # "\u0000N\u0000" under either ensure_ascii
        if line.count(quoted_placeholder) != 1:  # a token spelled like it: not worth being clever
            return None
        at[placeholder] = line.index(quoted_placeholder), len(quoted_placeholder)
    order = sorted(sequences, key=lambda placeholder: at[placeholder][0])
    around: list[str] = []
    start = 0
    for placeholder in order:
        where, length = at[placeholder]
        around.append(line[start:where])
        start = where + length
    around.append(line[start:])
    return _Spliced(tuple(around), tuple(sequences[placeholder] for placeholder in order))


def _segment_stand_in(segment, stand_in):
    if type(segment) is not dict:
        return segment
    out = dict(segment)
    if "hypothesis" in out:
        out["hypothesis"] = stand_in(out["hypothesis"])
    if type(out.get("references")) in (list, tuple):
        out["references"] = [stand_in(reference) for reference in out["references"]]
    return out


@dataclass(frozen=True)
class PiecedLine:
    """A protocol line too long to build whole (a 65,600-token run's: megabytes), given as a function of its pieces
    in order, the newline last (`oracle.harness.searchcache.wire_line`): written one piece after another
    (`oracle.harness.transport`), it never exists whole beside what it is made from. `bytes(line)` joins them."""

    pieces: Callable[[], Iterator[bytes]]

    def __bytes__(self) -> bytes:
        return b"".join(self.pieces())


#: A command's protocol line, encoded already: whole, or in pieces.
Line = bytes | bytearray | PiecedLine


def _refuse_constant(name):
    raise ProtocolError(f"a protocol line is JSON, and JSON has no {name} (send NaN as the string \"NaN\")")


def _no_duplicates(pairs):
    out = {}
    for key, value in pairs:
        if key in out:
            raise ProtocolError(f"field `{key}` appears twice in one object")
        out[key] = value
    return out


#: A JSON string as `_nesting` skips it: from its quote to its closing quote, a backslash escaping the character
#: after it, or to the end of the text when it is not closed (unrolled: runs of plain characters matched at once).
_STRING = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*(?:"|\\?\Z)', re.DOTALL)
#: Everything but a bracket.
_NOT_BRACKET = re.compile(r"[^\[\]{}]+")
_BRACKET_STEP = {"[": 1, "{": 1, "]": -1, "}": -1}


def _nesting(line):
    """The deepest bracket nesting of a JSON text (strings skipped), to refuse deep input before parsing: the
    highest running count of opening minus closing brackets, 0 at least. Strings and other characters are
    dropped by regular expressions and the count is summed in C, so a long line costs no Python step per
    character (`tests/models/test_wire.py` holds it equal to the literal character loop)."""
    brackets = _NOT_BRACKET.sub("", _STRING.sub("", line))
    return max(0, max(itertools.accumulate(map(_BRACKET_STEP.__getitem__, brackets)), default=0))


def _bounded_int(text: str) -> int:
    if len(text) > MAX_NUMBER_TEXT:  # before int(): converting costs time quadratic in the digits
        raise ProtocolError(f"a protocol line holds a number that cannot be read: an integer of {len(text)} digits, "
                            f"more than the {MAX_NUMBER_TEXT} characters a number may have")
    return int(text)


def _bounded_float(text: str) -> float:
    if len(text) > MAX_NUMBER_TEXT:
        raise ProtocolError(f"a protocol line holds a number that cannot be read: {len(text)} characters, "
                            f"more than the {MAX_NUMBER_TEXT} a number may have")
    return float(text)


def _escaped(text: str) -> str:
    """`text` with every lone surrogate written as the text of its escape (\\ud800) and nothing else changed: data
    to write as UTF-8 (a message shows text with `oracle.escaping.shown`, which escapes controls too)."""
    return text.encode("utf-8", "backslashreplace").decode("utf-8")


def _lone_surrogate(obj: object, path: str = "") -> tuple[str, str] | None:
    """Where the first lone surrogate in a decoded JSON value's strings is ("`error`", "the field name
    `statistics.\\ud800`") and its escape, or None. Keys are read too."""
    if isinstance(obj, str):
        found = _SURROGATE.search(obj)
        return (f"`{path}`" if path else "a string", shown(found.group())) if found else None
    items = obj.items() if isinstance(obj, dict) else enumerate(obj) if isinstance(obj, (list, tuple)) else ()
    for key, value in items:
        where = f"{path}[{key}]" if isinstance(key, int) else f"{path}.{shown(key)}" if path else shown(key)
        found = _SURROGATE.search(key) if isinstance(key, str) else None
        if found:
            return f"the field name `{where}`", shown(found.group())
        inside = _lone_surrogate(value, where)
        if inside:
            return inside
    return None


def without_lone_surrogates(obj: object) -> object:
    """A JSON-ready value with every lone surrogate in its strings (keys included) written out as the text of
    its escape (the six characters `\\ud800`): what a writer of UTF-8 falls back on for a string that did not
    pass `refuse_lone_surrogates` (a command-line argument, which Python reads with surrogateescape)."""
    if isinstance(obj, str):
        return _escaped(obj) if _SURROGATE.search(obj) else obj
    if isinstance(obj, dict):
        return {without_lone_surrogates(k): without_lone_surrogates(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [without_lone_surrogates(v) for v in obj]
    return obj


def refuse_lone_surrogates(obj: object) -> None:
    """Raise ProtocolError when a decoded JSON value holds a lone UTF-16 surrogate (`"\\ud800"`, valid JSON,
    what node prints for half an emoji): no Unicode text holds one, UTF-8 cannot encode it, and RFC 8259
    leaves its meaning open (I-JSON, RFC 7493, forbids it). Protocol v1 strings are Unicode text."""
    found = _lone_surrogate(obj)
    if found:
        where, escape = found
        raise ProtocolError(f"strings must be Unicode text: {where} holds a lone surrogate {escape} (half of a "
                            "UTF-16 pair: a character beyond U+FFFF is escaped as its two halves together)")


def json_value(text: str | bytes) -> Any:
    """The JSON value a file holds (a baseline, a replay, a line of a results.jsonl or of a report's data), as
    json reads it, with the two limits of the reader said in words rather than raised as they come: a value nested
    too deeply (RecursionError) and an integer longer than Python reads are a ValueError saying so, as any JSON
    the text does not hold is (callers name the file and line)."""
    try:
        return json.loads(text)
    except RecursionError:
        raise ValueError("it nests too deeply to be read") from None
    except ValueError as exc:  # (a JSONDecodeError is raised as it is)
        if "int_max_str_digits" in str(exc):
            raise ValueError(f"it holds an integer of more than {sys.get_int_max_str_digits()} digits") from None
        raise


#: The strict readers of a protocol line, built once: NaN/Infinity, duplicate keys (and, in the bounded one, numbers
#: longer than MAX_NUMBER_TEXT characters) refused.
_DECODER = json.JSONDecoder(parse_constant=_refuse_constant, object_pairs_hook=_no_duplicates)
_BOUNDED_DECODER = json.JSONDecoder(parse_constant=_refuse_constant, object_pairs_hook=_no_duplicates,
                                    parse_int=_bounded_int, parse_float=_bounded_float)
#: A run of the characters a JSON number is written with, longer than a number may be (in a string too: then the
#: bounded reader reads the line, which costs a Python call per number, and decides).
_LONG_NUMBER_RUN = re.compile(f"[-+.0-9eE]{{{MAX_NUMBER_TEXT + 1}}}")


def decode(line):
    """Parse one protocol line (str or UTF-8 bytes) into a dict; ProtocolError if it is not
    one JSON object (NaN/Infinity literals, duplicate keys, nesting deeper than MAX_NESTING, a number
    longer than MAX_NUMBER_TEXT characters and a string holding a lone surrogate are refused)."""
    if isinstance(line, (bytes, bytearray)):
        try:
            line = bytes(line).decode("utf-8")
        except UnicodeDecodeError as exc:
            raise ProtocolError(f"a protocol line must be UTF-8 ({exc})") from None
    if not isinstance(line, str):
        raise ProtocolError(f"a protocol line must be text (got {type(line).__name__})")
    if line.count("[") + line.count("{") > MAX_NESTING and _nesting(line) > MAX_NESTING:  # counting is cheap
        raise ProtocolError(f"a protocol line nests deeper than {MAX_NESTING} levels")
    # a line without a run of number characters longer than a number may be holds no number to bound: json's
    # own int and float (in C) read each one as the bounded readers would
    decoder = _BOUNDED_DECODER if _LONG_NUMBER_RUN.search(line) else _DECODER
    try:
        # (json.loads refuses a line that starts with a BOM before parsing; a decoder's own decode does not look)
        obj = json.loads(line) if line.startswith("\ufeff") else decoder.decode(line)
    except ProtocolError:
        raise
    except json.JSONDecodeError as exc:
        raise ProtocolError(
            f"a protocol line must be one JSON object: {exc.msg} at column {exc.colno} (got {show(line.strip())})"
        ) from None
    except RecursionError:
        raise ProtocolError("a protocol line nests too deeply") from None
    except ValueError as exc:  # an integer longer than Python reads (sys.get_int_max_str_digits)
        raise ProtocolError(f"a protocol line holds a number that cannot be read: {exc}") from None
    if not isinstance(obj, dict):
        raise ProtocolError(f"a protocol line must be a JSON object (got {_kind(obj)}: {show(obj)})")
    if _may_hold_lone_surrogate(line):  # only then is the value walked
        refuse_lone_surrogates(obj)
    return obj


def _may_hold_lone_surrogate(line: str) -> bool:
    """Whether a JSON text may decode to a string holding a lone surrogate. Scans in C, the cheapest first:
    an ASCII line without a \\u escape (the common case) costs a substring search and isascii()."""
    if "\\u" in line and _SURROGATE_ESCAPE.search(line):
        return True
    return not line.isascii() and _SURROGATE.search(line) is not None
