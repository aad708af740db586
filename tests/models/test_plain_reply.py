"""A plain score reply read in one step (`oracle.models.protocol.plain_score_reply`, pydantic's JSON parser) decides as
the strict reader does (`decode`, then `ScoreReply.from_json`: Python's json with the protocol's checks): every line
it reads, the strict reader reads into the same model (the same fields, the same float bits), and every line the
strict reader refuses, it leaves to the strict reader (None). What the strict reader decides is the expectation:
Python's own json module, not the code under test."""

from __future__ import annotations

import math
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from oracle.harness.transport import reply_from_line
from oracle.models.protocol import ProtocolError, ScoreReply, decode, plain_score_reply


def strict(line: bytes) -> ScoreReply | None:
    try:
        return ScoreReply.from_json(decode(line.rstrip(b"\r\n")))
    except ProtocolError:
        return None


def same(a: ScoreReply, b: ScoreReply) -> bool:
    """The same model: fields set, values, their types and every float's bits."""

    def bits(value: object) -> object:
        if isinstance(value, float):
            return ("float", value.hex() if not math.isnan(value) else "nan")
        if isinstance(value, dict):
            return {k: bits(v) for k, v in value.items()}
        if isinstance(value, (list, tuple)):
            return (type(value).__name__, [bits(v) for v in value])
        return (type(value).__name__, value)

    return (a.model_fields_set == b.model_fields_set
            and (a.statistics is None) == (b.statistics is None)
            and (a.statistics is None or a.statistics.model_fields_set == b.statistics.model_fields_set)
            and bits(a.model_dump()) == bits(b.model_dump()))


def check(line: bytes) -> ScoreReply | None:
    """The fast reading of `line` agrees with the strict one; returns it."""
    fast, slow = plain_score_reply(line), strict(line)
    if fast is not None:
        assert slow is not None, f"read in one step, refused by the strict reader: {line!r}"
        assert same(fast, slow), (line, fast, slow)
    return fast


TYPICAL = (b'{"seq": 1234, "score": 0.4316796217430341, "statistics": {"hyp_len": 57, "ref_len": 61, '
           b'"matches": [48, 30, 19, 12], "totals": [57, 56, 55, 54], "bp": 0.9323938199059483}}\n')


def test_a_typical_score_reply_is_read_in_one_step_as_the_strict_reader_reads_it() -> None:
    assert check(TYPICAL) is not None
    assert check(b'{"seq":1,"score":0}') is not None and check(b'{"seq": 1, "score": 1e-05}\r\n') is not None
    reply = reply_from_line(TYPICAL, 1234)
    assert reply.kind == "score" and reply.score == 0.4316796217430341 and reply.raw == TYPICAL.decode().rstrip()


# Each a line the strict reader refuses, or reads differently from what a JSON parser might: Python's json and the
# protocol (PROTOCOL.md: a reply is one JSON object, no NaN or Infinity literal, no duplicate key)
REFUSED = [
    b'{"seq": 1, "score": 0.5, "score": 0.25}',  # a duplicate key (a parser may keep the last)
    b'{"seq": 1, "seq": 2, "score": 0.5}',
    b'{"seq": 1, "score": 0.5, "statistics": {"hyp_len": 1, "hyp_len": 1, "ref_len": 1, "matches": [1], '
    b'"totals": [1]}}',
    b'{"seq": 1, "score": NaN}', b'{"seq": 1, "score": Infinity}', b'{"seq": 1, "score": -Infinity}',
    b'{"seq": 1, "score": 1e999}', b'{"seq": 1, "score": -1e400}',  # inf: not a finite number
    b'{"seq": 1, "score": 01}', b'{"seq": 1, "score": .5}', b'{"seq": 1, "score": 5.}', b'{"seq": 1, "score": +1}',
    b'{"seq": 1, "score": 1e}', b'{"seq": 1, "score": 1e+}', b'{"seq": 1, "score": -}', b'{"seq": 1, "score": --1}',
    b'{"seq": 1, "score": 1.e5}', b'{"seq": 1, "score": 0x10}', b'{"seq": 1, "score": 1_0}',
    b'{"seq": 1.0, "score": 0.5}', b'{"seq": 1e0, "score": 0.5}', b'{"seq": -0.0, "score": 0.5}',
    b'{"seq": 1, "score": 0.5, "statistics": {"hyp_len": 1.0, "ref_len": 1, "matches": [1], "totals": [1]}}',
    b'{"seq": 1, "score": 0.5, "statistics": {"hyp_len": 1, "ref_len": 1, "matches": [1E0], "totals": [1]}}',
    b'{"seq": 1, "score": 0.5,}', b'{"seq": 1, "score": 0.5', b'{"seq": 1 "score": 0.5}', b'{"seq": 1, "score": 0.5}}',
    b'{"seq": 1, "score": 0.5} {"seq": 1, "score": 0.5}', b'[{"seq": 1, "score": 0.5}]', b'{}', b'',
    b'{"seq": 1, "score": true}', b'{"seq": 1, "score": null}', b'{"seq": 1, "score": "0.5"}',
    b'{"seq": 1, "score": 0.5, "error": "x"}', b'{"seq": 1, "score": 0.5, "extra": 1}',
    b'\xef\xbb\xbf{"seq": 1, "score": 0.5}', b'{"seq": 1, "score": 0.5}\x00', b'{"seq": 1, "score": 0.5}\x0c',
    b'{"seq": 1, "score": 0.5}\x85', b'{"seq": 1, "score": 0.5}\xe2\x80\xa8',
    b'{"seq": 1, "score": 0.5, "statistics": {"hyp_len": 1, "ref_len": 1, "matches": [[1]], "totals": [1]}}',
    b'{"seq": 1%s, "score": 0.5}' % (b"0" * 40), b'{"seq": 1, "score": 0.%s}' % (b"1" * 2000),
    b'{"seq": 9007199254740993, "score": 0.5}', b'{"seq": -9007199254740993, "score": 0.5}',
    b'{"seq": 1, "score": 0.5, "statistics": {"hyp_len": -1, "ref_len": 1, "matches": [1], "totals": [1]}}',
    b'{"seq": 1, "score": 0.5, "statistics": {"hyp_len": 1, "ref_len": 1, "matches": [1,2,3,4,5,6,7,8,9,10], '
    b'"totals": [1]}}',
    b'{"seq": 1, "statistics": {"hyp_len": 1, "ref_len": 1, "matches": [1], "totals": [1]}}',
    b'[' * 100 + b']' * 100, b'{"seq": 1, "score": 0.5}\r', b'{"seq": 1,\r"score": 0.5}',
]


@pytest.mark.parametrize("line", REFUSED)
def test_a_line_the_strict_reader_refuses_or_reads_with_its_own_checks_is_left_to_it(line: bytes) -> None:
    check(line)
    reply = reply_from_line(line, 1)
    if strict(line) is None:
        assert plain_score_reply(line) is None and reply.kind == "protocol-error", (line, reply)


def test_a_duplicate_key_or_a_literal_is_refused_with_the_strict_readers_words() -> None:
    assert "appears twice" in reply_from_line(REFUSED[0], 1).message
    assert "JSON has no NaN" in reply_from_line(REFUSED[3], 1).message


def test_floats_round_as_jsons_do() -> None:
    """Random decimal texts of every length a fast line may hold (up to 32 characters): shortest reprs, 17 to 30
    significant digits (the rounding cases), halfway points, exponents, subnormals."""
    rng = random.Random(20261130)
    texts = []
    for _ in range(3000):
        value = rng.random() * 10 ** rng.randint(-320, 5)
        texts.append(repr(value))
        digits = "".join(rng.choice("0123456789") for _ in range(rng.randint(17, 28)))
        texts.append(f"0.{digits}")
        texts.append(f"{digits[0]}.{digits[1:20]}e{rng.randint(-330, 300)}")
        texts.append(f"{digits[:3]}.{digits[3:]}")
    texts += ["0.1", "2.2250738585072014e-308", "4.9e-324", "2e-324", "2.4703282292062328e-324",
              "9007199254740993", "9007199254740993.0", "1.7976931348623157e308", "0.30000000000000004", "-0.0",
              "1e-400", "0E0", "0e+1", "1E-1", "7.2057594037927933e16"]
    taken = 0
    for text in texts:
        line = b'{"seq": 3, "score": %s}' % text.encode()
        if check(line) is not None:
            taken += 1
    assert taken > len(texts) * 0.9  # the floats are read in one step, not left to the strict reader


_TOKENS = [b'"seq"', b'"score"', b'"statistics"', b'"hyp_len"', b'"ref_len"', b'"matches"', b'"totals"', b'"bp"',
           b'"error"', b'"NaN"', b'{', b'}', b'[', b']', b':', b',', b' ', b'\t', b'0', b'1', b'7', b'-', b'+', b'.',
           b'e', b'E', b'N', b'\\', b'"']


@settings(max_examples=3000, deadline=None)
@given(st.lists(st.sampled_from(_TOKENS), max_size=40))
def test_any_line_of_a_replys_pieces_is_read_alike(pieces: list[bytes]) -> None:
    check(b"".join(pieces))


_NUMBER = st.one_of(st.integers(-3, 10**6).map(str), st.floats(allow_nan=False, allow_infinity=False).map(repr),
                    st.sampled_from(["-0", "0.0", "1e5", "1E+2", "1.5e-3", "00", "1.", "-", "1e400", "9" * 20]))


@settings(max_examples=3000, deadline=None)
@given(seq=_NUMBER, score=_NUMBER, counts=st.lists(_NUMBER, min_size=6, max_size=6), bp=st.none() | _NUMBER,
       statistics=st.booleans(), spaces=st.sampled_from([b" ", b"", b"\t", b"  "]))
def test_any_score_reply_shaped_line_is_read_alike(seq: str, score: str, counts: list[str], bp: str | None,
                                                   statistics: bool, spaces: bytes) -> None:
    s = spaces
    fields = [b'"seq":%s%s' % (s, seq.encode()), b'"score":%s%s' % (s, score.encode())]
    if statistics:
        stats = [b'"hyp_len": %s' % counts[0].encode(), b'"ref_len": %s' % counts[1].encode(),
                 b'"matches": [%s]' % b", ".join(c.encode() for c in counts[2:4]),
                 b'"totals": [%s]' % b",".join(c.encode() for c in counts[4:6])]
        if bp is not None:
            stats.append(b'"bp": %s' % bp.encode())
        fields.append(b'"statistics": {%s}' % (b"," + s).join(stats))
    check(b"{" + (b"," + s).join(fields) + b"}")
