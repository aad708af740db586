"""Conventions a request may carry (`conventions` in a score command, `capabilities.conventions` in a
handshake): the oracle conforms to itself under every profile with no baseline, the adapters honour the
switches their libraries have (each value derived by hand below), and an adapter asked for a rule it cannot
switch answers `unsupported` rather than a number under its own rule.

Holds: oracle.adapters.oracle_adapter, oracle.formulas.conventions
"""

from __future__ import annotations

import json
import math
import sys

import pytest
from conftest import load
from fakes.harness import results, run_cli

from oracle.adapters.base import call
from oracle.adapters.oracle_adapter import OracleImplementation
from oracle.adapters.server import handle_line
from oracle.formulas.profiles import PROFILES
from oracle.models.protocol import RequestConventions, ScoreRequest, Segment


def request(
    hypothesis, references, *, weights=(1.0,), level="corpus", smoothing="none", lowercase=False, **conventions
):
    return ScoreRequest(
        level=level,
        segments=[Segment(hypothesis=hypothesis.split(), references=[r.split() for r in references])],
        weights=weights,
        smoothing=smoothing,
        lowercase=lowercase,
        conventions=conventions or None,
    )


@pytest.mark.parametrize("profile", sorted(PROFILES))
def test_the_oracle_conforms_to_itself_under_every_profile_with_no_baseline(tmp_path, profile):
    report = tmp_path / "report"
    code = run_cli("check", "--impl", "oracle", "--profile", profile, "--examples", 8, "--report", report, "--quiet")
    records = results(report).records
    assert code == 0, [(r.id, r.outcome, r.message) for r in records if not r.good]
    # a case whose overrides differ from the profile's is sent with them and judged, never set aside
    asked = [r for r in records if r.kind == "case" and r.request is not None and r.request.conventions is not None]
    assert asked and all(r.outcome.value == "pass" for r in asked)
    assert not [r for r in records if "cannot switch" in (r.message or "")]


# -- the oracle as an implementation switches every convention ----------------------------------------

#: (request, the value under the profile's own rule, the value under the rule asked for), each by hand
SWITCHES = [
    # "a b" against "a b", BLEU-4: orders 3 and 4 have no n-grams. papineni counts them p_n = 0, score 0;
    # left out (effective order), p1 = p2 = 1 and c = r = 2, BP = 1: score 1
    (request("a b", ["a b"], weights=(0.25,) * 4), 0.0, ("empty_order", "skip", 1.0)),
    # c = 3 against r = 4 (closest) or 5 (longest); p1 = 1: e^(1 - 4/3), e^(1 - 5/3)
    (
        request("a b c", ["a b c d e", "a b c d"]),
        math.exp(1 - 4 / 3),
        ("reference_length", "longest", math.exp(1 - 5 / 3)),
    ),
    # nothing matches; floor 0.1 gives m_1 = 0.1 of 1, c = r = 1: 0.1 smoothed, 0 before smoothing
    (request("x", ["a"], smoothing={"method": "floor", "value": 0.1}), 0.1, ("no_match", "zero", 0.0)),
    # "É" against "é" folded: str.lower() makes them one (1), Perl's A-Z lc leaves them two (0)
    (request("É", ["é"], lowercase=True), 1.0, ("case_fold", "ascii", 0.0)),
]


@pytest.mark.parametrize("item", SWITCHES, ids=[switch[0] for _, _, switch in SWITCHES])
def test_the_oracle_adapter_honours_each_convention_a_request_asks_for(item):
    plain, own, (name, rule, switched) = item
    oracle = OracleImplementation("papineni")
    assert rule in oracle.capabilities["conventions"][name]
    kind, answer = call(oracle, plain)
    assert kind == "score" and answer.score == pytest.approx(own, rel=1e-12, abs=1e-15)
    kind, answer = call(oracle, plain.model_copy(update={"conventions": RequestConventions(**{name: rule})}))
    assert kind == "score" and answer.score == pytest.approx(switched, rel=1e-12, abs=1e-15)


def test_an_adapter_asked_for_a_rule_it_cannot_switch_answers_unsupported():
    class NoSwitches(OracleImplementation):
        def __init__(self):
            super().__init__("papineni")
            self.capabilities = {**self.capabilities, "conventions": {"empty_order": ["zero"]}}

    kind, message = call(NoSwitches(), request("a b", ["a b"], weights=(0.25,) * 4, empty_order="skip"))
    assert kind == "unsupported" and message == "bleu-oracle cannot switch empty_order to skip"


# -- sacrebleu's effective order, at either level ----------------------------------------------------


@pytest.mark.parametrize("level", ["corpus", "sentence"])
def test_sacrebleu_switches_effective_order_at_either_level(level):
    sacrebleu = load("sacrebleu")
    assert sacrebleu.capabilities["conventions"] == {"empty_order": ["zero", "skip"]}
    short = request("a b", ["a b"], weights=(0.25,) * 4, level=level)  # orders 3 and 4 have no n-grams
    default = 1.0 if level == "sentence" else 0.0  # sentence_bleu's effective order; corpus_bleu's none
    assert sacrebleu.score(short).score == pytest.approx(default, abs=1e-12)
    for rule, value in (("skip", 1.0), ("zero", 0.0)):
        answer = sacrebleu.score(short.model_copy(update={"conventions": RequestConventions(empty_order=rule)}))
        assert answer.score == pytest.approx(value, abs=1e-12), rule


def test_sacrebleus_corpus_effective_order_cases_pass_with_no_baseline(tmp_path):
    """sacrebleu's own raw_corpus_bleu tests (use_effective_order=True at corpus level), its printed values."""
    load("sacrebleu")  # skips when sacrebleu is not installed
    report = tmp_path / "report"
    code = run_cli(
        "check",
        "--impl",
        "sacrebleu",
        "--id",
        "sacrebleu-test-effective-order-*",
        "--examples",
        0,
        "--report",
        report,
        "--quiet",
    )
    records = results(report).records
    assert code == 0 and len(records) == 3
    assert all(r.outcome.value == "pass" and r.request.conventions.empty_order == "skip" for r in records)


# -- a bad `conventions` value is an input error, named (docs/FAULTS.md, "Requests to `serve`", "The handshake")

BAD_HANDSHAKE = """\
import json, sys
print(json.dumps({"protocol": 1, "implementation": {"name": "x", "version": "1", "language": "python"},
                  "profile": "papineni",
                  "capabilities": {"levels": ["corpus"], "weights": "any", "max_order": 4, "smoothing": ["none"],
                                   "statistics": False, "lowercase": False,
                                   "conventions": {"empty_order": ["effective"]}}}), flush=True)
sys.stdin.read()
"""


def test_a_handshake_declaring_an_unknown_rule_cannot_be_driven_and_says_which(tmp_path, capsys):
    program = tmp_path / "bad_handshake.py"
    program.write_text(BAD_HANDSHAKE, encoding="utf-8")
    code = run_cli(
        "check",
        "--command",
        f"{sys.executable} {program}",
        "--no-cases",
        "--examples",
        1,
        "--report",
        tmp_path / "report",
        "--quiet",
    )
    [line] = [line for line in capsys.readouterr().err.splitlines() if "could not be driven" in line]
    assert code == 3
    assert '`capabilities.conventions.empty_order[0]` must be one of "zero", "skip", "one" (got "effective")' in line


def test_a_replayed_request_with_an_unknown_convention_is_an_input_error(tmp_path, capsys):
    replay = {
        "level": "corpus",
        "segments": [{"hypothesis": ["a"], "references": [["a"]]}],
        "weights": [1.0],
        "smoothing": {"method": "none"},
        "lowercase": False,
        "conventions": {"tokenizer": "13a"},
    }
    code = run_cli("check", "--impl", "oracle", "--replay", json.dumps(replay), "--report", tmp_path / "report")
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2 and len(err) == 1 and "unknown field `conventions.tokenizer`" in err[0]


def test_serve_answers_a_bad_convention_with_an_error_and_an_undeclared_rule_as_unsupported():
    oracle, words = OracleImplementation("papineni"), request("a", ["a"]).to_json()
    reply, stop = handle_line(oracle, json.dumps({**words, "seq": 1, "conventions": {"empty_order": "effective"}}))
    assert not stop and reply["seq"] == 1
    assert reply["error"].endswith('`conventions.empty_order` must be one of "zero", "skip", "one" (got "effective")')
    narrow = OracleImplementation("papineni")
    narrow.capabilities = {**narrow.capabilities, "conventions": {"empty_order": ["zero"]}}
    reply, stop = handle_line(narrow, json.dumps({**words, "seq": 2, "conventions": {"empty_order": "skip"}}))
    assert not stop and reply == {"seq": 2, "unsupported": "bleu-oracle cannot switch empty_order to skip"}
