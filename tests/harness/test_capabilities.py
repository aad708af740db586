"""Capabilities that state real limits (optional fields of the handshake): which maximum orders, the
same number of references in every segment, characters a token may not hold, empty tokens, sequences a raw
text may not hold (what an input format cannot carry). A request outside them is not applicable, never
sent; random examples are generated inside them.

Holds: oracle.harness.requests, oracle.harness.coverage
"""

from __future__ import annotations

import pytest

from oracle.harness.generate import example_request
from oracle.harness.requests import not_applicable_reason
from oracle.models.protocol import Capabilities, Handshake, ProtocolError, ScoreRequest, Segment

BASE = {"levels": ["corpus"], "weights": "uniform", "max_order": 4, "smoothing": ["none"], "statistics": False,
        "lowercase": False}


def declared(**changes) -> Capabilities:
    """The BASE capabilities with `changes`, as the runner reads them from a handshake."""
    return Capabilities.from_json({**BASE, **changes})


def handshake(**capabilities):
    return {"protocol": 1, "implementation": {"name": "x", "version": "1", "language": "perl"}, "profile": "multi-bleu",
            "capabilities": {**BASE, **capabilities}}


def request(segments, weights=(0.25,) * 4):
    return ScoreRequest(level="corpus", weights=weights,
                        segments=[Segment(hypothesis=h, references=refs) for h, refs in segments])


def test_a_handshake_without_the_optional_limits_is_still_valid_and_round_trips():
    assert Handshake.from_json(handshake()).to_json() == handshake()
    limited = handshake(orders=[4], same_reference_count=True, forbidden_token_characters=" \t", empty_tokens=False)
    assert Handshake.from_json(limited).to_json() == limited
    lines = handshake(tokenizers=["13a"], forbidden_text_sequences=["-\n", "\r"])
    assert Handshake.from_json(lines).to_json() == lines


@pytest.mark.parametrize("capabilities,message", [
    ({"orders": []}, "`capabilities.orders` must hold at least 1 item"),
    ({"orders": [4, 4]}, "must not repeat an item"),
    ({"orders": [0]}, "`capabilities.orders[0]` must be at least 1"),
    ({"same_reference_count": "yes"}, "must be true or false"),
    ({"max_references": 0}, "`capabilities.max_references` must be at least 1"),
    ({"forbidden_text_sequences": []}, "`capabilities.forbidden_text_sequences` must hold at least 1 item"),
    ({"forbidden_text_sequences": [""]}, "`capabilities.forbidden_text_sequences[0]` must"),
    ({"forbidden_text_sequences": ["\n", "\n"]}, "must not repeat an item"),
    ({"forbidden_text_sequences": "-\n"}, "`capabilities.forbidden_text_sequences`"),
])
def test_malformed_limits_are_protocol_errors(capabilities, message):
    with pytest.raises(ProtocolError, match=message.replace("[", r"\[").replace("]", r"\]")):
        Handshake.from_json(handshake(**capabilities))


def test_orders_as_a_set():
    caps = declared(**{"orders": [4]})
    assert not_applicable_reason(request([(["a"], [["a"]])]), caps) is None
    assert "not among the implementation's orders [4]" in not_applicable_reason(
        request([(["a"], [["a"]])], weights=(0.5, 0.5)), caps)


def test_the_same_number_of_references():
    caps = declared(**{"same_reference_count": True})
    same = request([(["a"], [["a"], ["b"]]), (["b"], [["b"], ["c"]])])
    varying = request([(["a"], [["a"], ["b"]]), (["b"], [["b"]])])
    assert not_applicable_reason(same, caps) is None
    assert "different numbers of references" in not_applicable_reason(varying, caps)
    assert not_applicable_reason(varying, declared()) is None


def test_at_most_max_references_references():
    caps = declared(**{"max_references": 1})
    assert not_applicable_reason(request([(["a"], [["a"]]), (["b"], [["b"]])]), caps) is None
    assert "more than the implementation's max_references 1" in not_applicable_reason(
        request([(["a"], [["a"]]), (["b"], [["b"], ["c"]])]), caps)


def test_random_examples_keep_the_first_references_within_max_references():
    caps = declared(**{"max_references": 2})
    requests = [example_request(0, index, caps, uniform_only=True) for index in range(100)]
    assert all(1 <= len(s.references) <= 2 for r in requests for s in r.segments)
    # the unlimited search reaches more references at the same seed: the limit is applied, not avoided
    assert any(
        len(s.references) > 2 for i in range(100) for s in example_request(0, i, declared(), uniform_only=True).segments
    )


def test_token_restrictions():
    caps = declared(**{"forbidden_token_characters": " \t", "empty_tokens": False})
    assert not_applicable_reason(request([(["a", "b"], [["a"]])]), caps) is None
    assert "holds ' '" in not_applicable_reason(request([(["a b"], [["a"]])]), caps)
    assert "holds '\\t'" in not_applicable_reason(request([(["a"], [["x\ty"]])]), caps)
    assert "empty" in not_applicable_reason(request([(["a", ""], [["a"]])]), caps)


def test_random_examples_are_generated_inside_the_limits():
    caps = declared(**{"orders": [4], "same_reference_count": True})
    requests = [example_request(0, index, caps, uniform_only=True) for index in range(100)]
    assert {len(r.weights) for r in requests} == {4}
    for r in requests:
        assert len({len(s.references) for s in r.segments}) == 1
        assert not_applicable_reason(r, caps) is None


def text_request(*texts):
    return ScoreRequest(level="corpus", weights=(0.25,) * 4, tokenize="13a",
                        segments=[Segment(hypothesis=t, references=["a reference"]) for t in texts])


def test_a_text_holding_a_sequence_the_input_format_cannot_carry_is_not_applicable():
    """mteval-v13a.pl's case: `-\\n` cannot reach its tokenizer, a hyphen before a space or a line feed alone can."""
    caps = declared(tokenizers=["13a"], forbidden_text_sequences=["-\n"])
    assert 'a text holds "-\\n"' in not_applicable_reason(text_request("fine", "re-\n"), caps)
    assert not_applicable_reason(text_request("re- \n", "line\nbreak", "well-known"), caps) is None
    assert not_applicable_reason(text_request("re-\n"), declared(tokenizers=["13a"])) is None  # undeclared: sent
    # tokens are forbidden_token_characters' business: a token request is never judged by text sequences
    assert not_applicable_reason(request([(["re-\n"], [["a"]])]), caps) is None


def test_the_line_based_scripts_declare_what_their_input_cannot_carry():
    """mteval-v13a.pl reads SGML that joins whitespace before its `s/-\\n//g` (oracle/adapters/perl_adapter.py,
    `_mteval_unsendable`); multi-bleu-detok.perl reads one segment a line (`<STDIN>`, `<REF>`)."""
    from oracle.adapters.perl_adapter import MtevalImplementation, MultiBleuDetokImplementation

    mteval = Capabilities.from_json(MtevalImplementation.capabilities)
    detok = Capabilities.from_json(MultiBleuDetokImplementation.capabilities)
    assert not_applicable_reason(text_request("re-\n"), mteval) is not None
    assert not_applicable_reason(text_request("line\nbreak"), mteval) is None  # a space to its tokenizer either way
    assert not_applicable_reason(text_request("line\nbreak"), detok) is not None


def test_the_coverage_table_says_which_tokenizer_rules_the_sequences_rule_out():
    from oracle.harness.coverage import unreachable

    caps = declared(tokenizers=["13a"], forbidden_text_sequences=["-\n"])
    ruled_out = unreachable(caps)
    assert ruled_out["13a:hyphen-newline"] == 'its texts may not hold "-\\n"'
    assert "13a:newline" not in ruled_out and "13a:hyphen-newline" not in unreachable(declared(tokenizers=["13a"]))
    assert "13a:newline" in unreachable(declared(tokenizers=["13a"], forbidden_text_sequences=["\n"]))


def test_check_records_such_a_text_not_applicable_where_undeclared_it_was_an_error(tmp_path):
    """tests/fakes/line_reader.py answers `unsupported` to a text holding `-\\n`. Declared, those random
    examples are not applicable and the run conforms (exit 0); undeclared, the same examples are errors."""
    from fakes.harness import check, fake, results

    assert check(tmp_path / "declared", fake("line_reader"), examples=60) == 0
    records = results(tmp_path / "declared").records
    uncarried = [r for r in records if r.outcome == "not-applicable"]
    assert uncarried and all("-\\n" in r.message and r.id.endswith("~text") for r in uncarried)
    assert not [r for r in records if r.outcome == "error"]

    assert check(tmp_path / "undeclared", fake("line_reader", "--undeclared"), examples=60) == 1
    errors = [r.id for r in results(tmp_path / "undeclared").records if r.outcome == "error"]
    assert errors == [r.id for r in uncarried]


def test_forbidden_token_characters_are_taken_literally():
    """Characters that mean something in a pattern's character class are forbidden as themselves: "a-c" forbids
    "a", "-" and "c", not the range a..c (so "b" is taken)."""
    caps = declared(forbidden_token_characters="a-c")
    assert not_applicable_reason(request([(["b", "bb"], [["b"]])]), caps) is None
    assert "holds '-'" in not_applicable_reason(request([(["b"], [["b-b"]])]), caps)
    for character in "]^\\":
        holding = request([(["x"], [["y", f"y{character}"]])])
        assert not_applicable_reason(holding, declared(forbidden_token_characters=character)) is not None
        assert not_applicable_reason(holding, declared(forbidden_token_characters="z" + character)) is not None
    assert not_applicable_reason(request([(["b"], [["b"]])]), declared(forbidden_token_characters="]^\\")) is None
    # empty tokens refused, no character forbidden: the empty token is found in a reference too
    assert "empty" in not_applicable_reason(request([(["b"], [["b", ""]])]), declared(empty_tokens=False))
