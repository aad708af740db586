"""Every number read from outside is bounded at the door; nothing runs inside one uninterruptible C call
on a declared size; counting is linear in the order; a lone surrogate is refused, never a crash.

The bounds are `oracle/formulas/bounds.py` (PROTOCOL.md, "Bounds"). Expected values are derived by hand
in the comments; no test asserts on timing (a subprocess timeout is a safety net that turns a hang
into a failure, never a measurement).

Holds: oracle.formulas.bounds
"""

from __future__ import annotations

import json
import subprocess
import sys
import tracemalloc
from decimal import Decimal
from fractions import Fraction
from pathlib import Path

import pytest
from fakes.harness import fake, fake_argv, run_cli

from oracle.adapters.oracle_adapter import OracleImplementation
from oracle.adapters.server import handle_line
from oracle.cli import main
from oracle.formulas import bleu
from oracle.formulas.bounds import MAX_COUNT, MAX_DIGITS, MAX_EXPONENT, MAX_ORDER, MAX_REFERENCES
from oracle.formulas.errors import BleuValueError
from oracle.formulas.tokenizers import tokenize
from oracle.harness.gate import load_baseline
from oracle.harness.transport import HandshakeError, ImplementationProcess, reply_from_line, validate_handshake
from oracle.models.protocol import ProtocolError, ScoreRequest, json_schemas
from oracle.suite.cases import load_case_file

ROOT = Path(__file__).resolve().parents[2]
#: a safety net: a run that hangs (as one did on a declared max_order of 10**12) fails instead of hanging
#: the test suite. Not a timing assertion: the run ends within a second when it ends at all.
HANG_GUARD = 120


def _handshake(**capabilities):
    return {"protocol": 1, "implementation": {"name": "x", "version": "1", "language": "python"},
            "profile": "papineni",
            "capabilities": {"levels": ["corpus", "sentence"], "weights": "any", "max_order": 4,
                             "smoothing": ["none"], "statistics": True, "lowercase": False, **capabilities}}


def _score_command(**changes):
    return {"cmd": "score", "seq": 1, "level": "sentence",
            "segments": [{"hypothesis": ["a", "b"], "references": [["a", "b"]]}],
            "weights": [0.5, 0.5], "smoothing": {"method": "none"}, "lowercase": False, **changes}


def _records(report):
    """header, records, footer of a report's results.jsonl, each line read as JSON (and UTF-8 checked)."""
    lines = (Path(report) / "results.jsonl").read_bytes().decode("utf-8").split("\n")
    objects = [json.loads(line) for line in lines if line]
    return objects[0], objects[1:-1], objects[-1]


def _complete_report(report, exit_code):
    """The report holds a whole stream (header, records, footer saying `exit_code`), summary.md and junit.xml."""
    header, records, footer = _records(report)
    assert header["type"] == "header" and footer["type"] == "footer", (header, footer)
    assert all(record["type"] == "record" for record in records)
    assert footer["exit_code"] == exit_code
    for name in ("summary.md", "junit.xml"):
        assert (Path(report) / name).read_bytes().decode("utf-8").strip(), name
    return header, records, footer


# -- 1. a handshake beyond a bound: HandshakeError, exit 3 -------------------------------------------------


def test_a_declared_max_order_of_10_to_the_12_ends_at_once_in_exit_3_naming_the_bound(tmp_path):
    """Issue 22: the footer's coverage computed max(range(1, 10**12 + 1)), one C loop no signal interrupts.
    The handshake is refused at the door, so the run ends (exit 3) with a complete report."""
    report = tmp_path / "report"
    done = subprocess.run([sys.executable, "-m", "oracle", "check", "--command", fake("huge_order"), "--no-cases",
                           "--examples", "3", "--report", str(report), "--quiet"],
                          capture_output=True, text=True, timeout=HANG_GUARD, cwd=ROOT)
    assert done.returncode == 3, done.stderr
    [line] = [line for line in done.stderr.splitlines() if "could not be driven" in line]
    assert "`capabilities.max_order` must be at most 100 (got 1000000000000)" in line
    header, records, footer = _complete_report(report, 3)
    assert "`capabilities.max_order` must be at most 100" in header["handshake_error"] and records == []


@pytest.mark.parametrize("capabilities,message", [
    ({"orders": [4, 1000]}, "`capabilities.orders[1]` must be at most 100 (got 1000)"),
    ({"orders": list(range(1, 5001))}, "`capabilities.orders` must hold at most 100 distinct items (got 5000)"),
    ({"max_references": 10**9}, "`capabilities.max_references` must be at most 1000 (got 1000000000)"),
    ({"max_order": MAX_ORDER + 1}, f"`capabilities.max_order` must be at most {MAX_ORDER} (got {MAX_ORDER + 1})"),
])
def test_a_handshake_beyond_a_bound_cannot_be_driven_and_says_which_field(capabilities, message):
    assert validate_handshake(_handshake(max_order=MAX_ORDER, orders=[1, MAX_ORDER], max_references=MAX_REFERENCES))
    with pytest.raises(HandshakeError) as info:
        validate_handshake(_handshake(**capabilities))
    assert message in str(info.value) and "\n" not in str(info.value)


def test_coverage_reads_a_declared_order_without_iterating_up_to_it(tmp_path):
    """The coverage footer's `unreachable` of a max_order of 10**15, in a process of its own (on the code
    before, one C loop of 10**15 steps that no signal stops: the guard below kills it)."""
    # built unvalidated: a handshake's max_order is bounded (100), the footer must not rely on it
    program = ("from oracle.harness.coverage import unreachable\n"
               "from oracle.models.protocol import Capabilities\n"
               "out = unreachable(Capabilities.model_construct(max_order=10**15, levels=('corpus', 'sentence'), "
               "weights='any', smoothing=('none',), lowercase=False))\n"
               "print('high-order' in out, 'order-1' in out)\n")
    done = subprocess.run([sys.executable, "-c", program], capture_output=True, text=True, timeout=HANG_GUARD,
                          cwd=ROOT)
    assert done.returncode == 0 and done.stdout.split() == ["False", "False"], done.stderr


# -- 1. a reply beyond a bound: a protocol-error record ----------------------------------------------------


@pytest.mark.parametrize("reply,message", [
    ({"seq": 1, "score": 0.5, "statistics": {"hyp_len": 2**60, "ref_len": 2, "matches": [2], "totals": [2]}},
     f"`statistics.hyp_len` must be at most {MAX_COUNT}"),
    ({"seq": 1, "score": 0.5, "statistics": {"hyp_len": 2, "ref_len": 2, "matches": [0] * 101, "totals": [0] * 101}},
     "`statistics.matches` must hold at most 100 items (got 101)"),
    ({"seq": 2**60, "score": 0.5}, f"`seq` must be at most {MAX_COUNT}"),
])
def test_a_reply_beyond_a_bound_is_a_protocol_error(reply, message):
    answer = reply_from_line(json.dumps(reply).encode(), 1)
    assert answer.kind == "protocol-error" and message in answer.message, answer.message


def test_a_number_of_more_than_1000_characters_is_a_protocol_error_before_it_is_read():
    # 0.111... with 2,000 digits is a number float() reads; the protocol bounds its text first
    answer = reply_from_line(b'{"seq": 1, "score": 0.' + b"1" * 2000 + b"}", 1)
    assert answer.kind == "protocol-error"
    assert "2002 characters, more than the 1000 a number may have" in answer.message, answer.message


# -- 1. a request beyond a bound -------------------------------------------------------------------------------


@pytest.mark.parametrize("changes,message", [
    ({"weights": [0.01] * (MAX_ORDER + 1)}, f"`weights` must hold at most {MAX_ORDER} items (got {MAX_ORDER + 1})"),
    ({"segments": [{"hypothesis": ["a"], "references": [[]] * (MAX_REFERENCES + 1)}]},
     f"`segments[0].references` must hold at most {MAX_REFERENCES} items (got {MAX_REFERENCES + 1})"),
    ({"seq": -(2**60)}, f"`seq` must be at least {-MAX_COUNT}"),
])
def test_a_request_beyond_a_bound_is_refused_by_the_server(changes, message):
    """The oracle's own server (serve --impl oracle) answers an error and goes on serving: its handshake says
    max_order 10, and before the bound it computed any order (3,000 orders took 689 MB)."""
    with pytest.raises(ProtocolError, match="must hold at most|must be at"):
        ScoreRequest.from_json(_score_command(**changes))
    reply, _ = handle_line(OracleImplementation(), json.dumps(_score_command(**changes)))
    assert set(reply) == {"seq", "error"} and message in reply["error"], reply


def test_a_start_beyond_the_bound_gets_an_error_reply_naming_it():
    reply, _ = handle_line(OracleImplementation(), json.dumps({"cmd": "start", "protocol": 2**60}))
    assert set(reply) == {"error"} and f"`protocol` must be at most {MAX_COUNT}" in reply["error"], reply


def test_the_generated_schemas_state_the_bounds():
    schemas = json_schemas()
    capabilities = schemas["handshake"]["$defs"]["Capabilities"]["properties"]
    assert capabilities["max_order"]["maximum"] == MAX_ORDER
    assert capabilities["max_references"]["anyOf"][0]["maximum"] == MAX_REFERENCES
    assert schemas["score"]["properties"]["weights"]["maxItems"] == MAX_ORDER
    statistics = schemas["reply"]["$defs"]["Statistics"]["properties"]
    assert statistics["hyp_len"]["maximum"] == MAX_COUNT and statistics["matches"]["maxItems"] == MAX_ORDER
    case_schema = json.loads((ROOT / "oracle/models/schemas/case.schema.json").read_text(encoding="utf-8"))
    options = case_schema["$defs"]["CaseOptions"]["properties"]
    assert options["weights"]["maxItems"] == MAX_ORDER and options["default_max_order"]["maximum"] == MAX_ORDER
    assert case_schema["$defs"]["count"]["maximum"] == MAX_COUNT
    assert case_schema["$defs"]["CaseExpect"]["properties"]["tolerance"]["maximum"] == 1
    assert f"{{0,{MAX_DIGITS - 1}}}" in case_schema["$defs"]["fraction"]["pattern"]


# -- 3. memory linear in the order -------------------------------------------------------------------------


def test_a_4_token_sentence_with_3000_weights_counts_its_4_orders_in_little_memory():
    """Hypothesis a b c d, reference a b c e, weights 1/2, 1/2 and 2,998 zeros. By hand: unigrams 3 of 4
    match (d does not), bigrams 2 of 3 (a b, b c), trigrams 1 of 2 (a b c), the 4-gram 0 of 1; no order
    beyond 4 has an n-gram (0 of 0). c = r = 4, BP = 1. Only orders 1 and 2 weigh:
    BLEU = (3/4)^(1/2) * (2/3)^(1/2) = (1/2)^(1/2) = 0.70710678118654752440...
    Before, counting held 3,000 * 3,001 / 2 iterators at once (689 MB); the bound below is generous."""
    weights = [Fraction(1, 2), Fraction(1, 2)] + [0] * 2998
    tracemalloc.start()
    try:
        result = bleu.sentence_bleu(["a", "b", "c", "d"], [["a", "b", "c", "e"]], weights=weights)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert result.statistics.matches == (3, 2, 1, 0) + (0,) * 2996
    assert result.statistics.totals == (4, 3, 2, 1) + (0,) * 2996
    assert (result.statistics.hyp_len, result.statistics.ref_len) == (4, 4)
    assert abs(result.score - Decimal("0.70710678118654752440084436210484903928483593768847")) < Decimal("1e-45")
    assert peak < 8 * 1024 * 1024, f"{peak} bytes"


def test_the_derivation_of_many_orders_counts_each_sentence_once(monkeypatch):
    """--explain counted each sentence again for every order (to order n, for n = 1..N): N^3/6 iterators
    for a short sentence, hours for 3,000 orders. Now each order of each sentence is read at most twice
    (once for the statistics, once for the tables), and no order the sentence does not have."""
    from collections import Counter

    from oracle.formulas import explain
    from oracle.formulas.conventions import Options

    readings = Counter()
    reading = bleu.ngrams

    def ngrams(tokens, n):
        readings[(tuple(tokens), n)] += 1
        return reading(tokens, n)

    monkeypatch.setattr(bleu, "ngrams", ngrams)
    text = explain.explain_segment(["a", "b", "c", "d"], [["a", "b", "c", "e"]], max_order=300, options=Options())
    # order 3 by hand: a b c matches, b c d does not; order 300: no n-grams
    assert "matches/totals for this segment = 1/2" in text and "order 300:" in text
    assert {n for _, n in readings} == {1, 2, 3, 4} and max(readings.values()) <= 2, readings


def test_a_long_segment_is_counted_one_order_at_a_time():
    """50,000 characters of CJK text against 50,000 others, as `--tokenize char` makes of a long line: nearly
    every n-gram distinct. Counting every order at once kept 321 bytes a token (884 MB for a million
    characters); one order at a time keeps about 140. By hand: c = r = 50,000 and totals 50,000 - n + 1."""
    import random

    rng = random.Random(5)
    hypothesis = tuple(chr(0x4E00 + rng.randrange(20000)) for _ in range(50_000))
    reference = tuple(chr(0x4E00 + rng.randrange(20000)) for _ in range(50_000))
    tracemalloc.start()
    try:
        statistics = bleu.segment_statistics(hypothesis, [reference], max_order=4)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert (statistics.hyp_len, statistics.ref_len) == (50_000, 50_000)
    assert statistics.totals == (50_000, 49_999, 49_998, 49_997)
    assert peak < 220 * 100_000, f"{peak / 100_000:.0f} bytes a token"


def test_counting_one_order_at_a_time_clips_as_the_paper_does(monkeypatch):
    """Papineni et al. (2002), section 2.1: candidate "the the the the the the the" against "The cat is on the
    mat" and "There is a cat on the mat" (lowercased): "the" clips to 2, the modified unigram precision is
    2/7. Distinct tokens t0 .. t5999 against themselves (12,000 tokens, past ORDER_BY_ORDER): every n-gram
    matches, 6,000 - n + 1 of each order."""
    monkeypatch.setattr(bleu, "ORDER_BY_ORDER", 0)
    statistics = bleu.segment_statistics(["the"] * 7, [["the", "cat", "is", "on", "the", "mat"],
                                                      ["there", "is", "a", "cat", "on", "the", "mat"]], max_order=2)
    assert statistics.matches == (2, 0) and statistics.totals == (7, 6) and statistics.ref_len == 7
    monkeypatch.undo()
    tokens = [f"t{i}" for i in range(6000)]
    statistics = bleu.segment_statistics(tokens, [tokens], max_order=4)
    assert statistics.matches == statistics.totals == (6000, 5999, 5998, 5997)


def test_the_char_tokenizer_keeps_a_few_bytes_per_character():
    """200,000 characters beyond Latin-1 (each read out of a str is a new 76-byte object): before, every
    one was kept (78 bytes a character, 4.5 GB for 4 million characters under counting); now each
    distinct character is one string and a token is a tuple slot."""
    text = "".join(chr(0x4E00 + (i * 7919) % 3000) + (" " if i % 5 == 4 else "") for i in range(200_000))
    tracemalloc.start()
    try:
        tokens = tokenize(text, "char")
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert len(tokens) == 200_000 and tokens[:2] == (chr(0x4E00), chr(0x4E00 + 7919 % 3000))
    assert peak < 32 * len(text), f"{peak / len(text):.1f} bytes a character"


# -- 5. case-file numbers: exit 2 naming file:line, case id and field ---------------------------------------


_CASE = """\
document: "my notes"
cases:
  - id: {case_id}
    title: a case of my own
    source: {{document: "my notes", section: "1", quote: "q"}}
    profiles: [papineni]
    kind: value
    input:
      level: sentence
      segments:
        - hypothesis: [a, b]
          references: [[a, b]]
    options:
      weights: {weights}
    expect:
{expect}
"""
_EXACT = '      score: "1"\n      exact: true'
CASE_NUMBERS = [  # (id, weights, expect, the field named, what the message says)
    ("huge-exponent", "[1.0e999]", _EXACT, "options.weights[0]", "lies beyond the bounds of a number"),
    ("long-fraction", '["' + "9" * 4000 + '/1"]', _EXACT, "options.weights[0]", "has 4000 digits"),
    ("wide-tolerance", "[1]", "      score: 1.0\n      tolerance: 1.0e400", "expect.tolerance", "must be at most 1"),
    ("long-integer", "[" + "9" * 5000 + "]", _EXACT, "options.weights[0]", "has 5000 digits"),
    ("long-denominator", '["1/' + "9" * 5000 + '"]', _EXACT, "options.weights[0]", "has 5000 digits"),
    ("hundred-million-exponent", "[1.0e100000000]", _EXACT, "options.weights[0]", "lies beyond the bounds"),
]


def _case_file(tmp_path, case_id, weights, expect):
    path = tmp_path / f"{case_id}.yaml"
    path.write_text(_CASE.format(case_id=case_id, weights=weights, expect=expect), encoding="utf-8")
    return path


def _line_with(path, needle):
    return next(n for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1) if needle in line)


@pytest.mark.parametrize("case_id,weights,expect,field,says", CASE_NUMBERS, ids=[c[0] for c in CASE_NUMBERS])
def test_a_case_file_number_beyond_the_bounds_is_an_input_error_everywhere(tmp_path, capsys, case_id, weights,
                                                                             expect, field, says):
    path = _case_file(tmp_path, case_id, weights, expect)
    line = _line_with(path, "tolerance:" if field == "expect.tolerance" else "weights:")
    where = f"{path}:{line}, case {case_id}: `{field}` "
    for argv in (["cases", "validate", "--cases", path], ["cases", "export", "--cases", path, "--out", tmp_path / "x"],
                 ["check", "--impl", "oracle", "--cases", path, "--examples", "0", "--report", tmp_path / "r",
                  "--quiet"]):
        code = main([str(a) for a in argv]) if argv[0] == "cases" else run_cli(*argv)
        err = capsys.readouterr().err
        errors = [line for line in err.splitlines() if "error:" in line]
        assert code == 2, (argv[:2], err)
        assert len(errors) == 1 and where in errors[0] and says in errors[0], (argv[:2], err)


@pytest.mark.parametrize("block,field,says", [
    ("    options:\n      weights: [1]\n      default_max_order: 1000000000000\n", "options.default_max_order",
     "must be at most 100"),
    ("    options:\n      weights: [" + ", ".join(["0.01"] * 101) + "]\n", "options.weights",
     "must hold at most 100 weights"),
    ("    options:\n      weights: [1]\n      smoothing: {method: floor, value: 1.0e-400}\n",
     "options.smoothing.value", "lies beyond the bounds"),
])
def test_case_options_beyond_a_bound_name_the_field(tmp_path, block, field, says):
    text = _CASE.format(case_id="bounded", weights="[1]", expect=_EXACT).replace("    options:\n      weights: [1]\n",
                                                                                  block)
    path = tmp_path / "bounded.yaml"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(BleuValueError) as info:
        load_case_file(path)
    assert f"case bounded: `{field}" in str(info.value) and says in str(info.value), str(info.value)


def test_case_statistics_beyond_a_bound_name_the_field(tmp_path):
    expect = "      statistics: {hyp_len: " + "9" * 120 + ", matches: [1], totals: [1]}"
    path = _case_file(tmp_path, "long-count", "[1]", expect)
    with pytest.raises(BleuValueError) as info:
        load_case_file(path)
    assert "case long-count: `expect.statistics.hyp_len` has 120 digits" in str(info.value)
    expect = f"      statistics: {{hyp_len: {MAX_COUNT + 1}, matches: [1], totals: [1]}}"
    path = _case_file(tmp_path, "big-count", "[1]", expect)
    with pytest.raises(BleuValueError) as info:
        load_case_file(path)
    assert f"case big-count: `expect.statistics.hyp_len` must be at most {MAX_COUNT}" in str(info.value)


# -- 1. baselines ------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("text,says", [
    ("seed: " + "9" * 5000 + "\nentries:\n  - {id: x, outcome: fail, reason: ok}\n",
     ":1: an integer of 5000 digits, more than the 100 a number may have"),
    ("seed: 1\nentries:\n  - {id: x, outcome: fail, reason: ok, count: " + "9" * 5000 + "}\n",
     ":3: an integer of 5000 digits"),
    ("seed: " + "9" * 40 + "\nentries:\n  - {id: x, outcome: fail, reason: ok}\n", "`seed`"),
    ("seed: 1\nentries:\n  - {id: x, outcome: fail, reason: ok, count: 1.0e+400}\n",
     "entry 1 (x): `count` must be a finite number"),
])
def test_a_baseline_number_beyond_the_bounds_is_an_input_error(tmp_path, text, says):
    path = tmp_path / "baseline.yaml"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(BleuValueError) as info:
        load_baseline(path)
    assert str(path) in str(info.value) and says in str(info.value), str(info.value)


# -- 1. score --weights and --smoothing ------------------------------------------------------------------------


@pytest.mark.parametrize("options,says", [
    (["--weights", *["0.01"] * (MAX_ORDER + 1)], f"`--weights` must hold at most {MAX_ORDER} weights"),
    (["--weights", "1e999", "1"], f"magnitude between 1e-{MAX_EXPONENT} and 1e{MAX_EXPONENT}"),
    (["--weights", "9" * 5000], "has 5000 digits, more than the 100 a number may have"),
    (["--smoothing", "floor:value=1e999"], "argument --smoothing: `smoothing.value` lies beyond the bounds"),
    (["--smoothing", "chen-cherry-4:k=" + "9" * 200], "argument --smoothing: `smoothing.k` has 200 digits"),
])
def test_score_weights_and_smoothing_take_the_same_bounds(tmp_path, capsys, options, says):
    text = tmp_path / "a.txt"
    text.write_text("a b c d\n", encoding="utf-8")
    try:
        code = main(["score", "--hyp", str(text), "--ref", str(text), *options])
    except SystemExit as exc:  # argparse's usage error
        code = exc.code
    err = capsys.readouterr().err
    assert code == 2 and says in err and "Traceback" not in err, err


# -- 4. lone surrogates: refused as protocol errors, never exit 4 ------------------------------------------


@pytest.mark.parametrize("where,field", [("error", "`error`"), ("rejected", "`rejected`"), ("score", "`score`"),
                                         ("key", "the field name `note \\ud83d`")])
def test_a_lone_surrogate_in_a_reply_is_a_protocol_error_with_a_complete_report(tmp_path, where, field):
    report = tmp_path / "report"
    code = run_cli("check", "--command", fake("lone_surrogate", where), "--no-cases", "--examples", "4",
                   "--shrink-budget", "0", "--report", report, "--quiet")
    assert code == 1
    _, records, footer = _complete_report(report, 1)
    # the 4 examples, and example 2's brackets companion (`generate.BRACKETS_FIRST`): every record refused alike
    assert [r["id"] for r in records if "~" not in r["id"]] == [f"random-0-{i}" for i in range(4)]
    assert len(records) == 5 and {r["outcome"] for r in records} == {"protocol-error"}
    assert f"{field} holds a lone surrogate \\ud83d" in records[0]["message"], records[0]["message"]
    assert footer["counts"]["protocol-error"] == 5


def test_a_lone_surrogate_in_the_handshake_cannot_be_driven_with_a_complete_report(tmp_path, capsys):
    report = tmp_path / "report"
    code = run_cli("check", "--command", fake("lone_surrogate", "handshake"), "--no-cases", "--examples", "2",
                   "--report", report, "--quiet")
    err = capsys.readouterr().err
    assert code == 3 and "`implementation.version` holds a lone surrogate \\ud83d" in err, err
    header, records, _ = _complete_report(report, 3)
    assert "lone surrogate" in header["handshake_error"] and records == []


def test_a_lone_surrogate_in_a_replayed_token_is_an_input_error(tmp_path, capsys):
    replay = json.dumps({"level": "sentence", "segments": [{"hypothesis": ["\ud83d"], "references": [["a"]]}],
                         "weights": [1.0], "smoothing": {"method": "none"}, "lowercase": False})  # ASCII: the escape
    code = run_cli("check", "--impl", "oracle", "--replay", replay, "--report", tmp_path / "r", "--quiet")
    err = capsys.readouterr().err
    assert code == 2 and "`segments[0].hypothesis[0]` holds a lone surrogate \\ud83d" in err, err


def test_a_lone_surrogate_in_a_requested_token_gets_an_error_reply_and_serving_goes_on():
    implementation = OracleImplementation()
    line = json.dumps(_score_command(segments=[{"hypothesis": ["\ud83d", "b"], "references": [["a", "b"]]}]))
    reply, _ = handle_line(implementation, line)
    assert set(reply) == {"seq", "error"} or set(reply) == {"error"}, reply
    assert "`segments[0].hypothesis[0]` holds a lone surrogate \\ud83d" in reply["error"]
    reply, _ = handle_line(implementation, json.dumps(_score_command(seq=2)))
    assert reply["seq"] == 2 and reply["score"] == 1.0


def test_a_lone_surrogate_in_a_baseline_is_an_input_error(tmp_path):
    path = tmp_path / "baseline.json"
    path.write_text(json.dumps({"entries": [{"id": "x", "outcome": "fail", "reason": "ok \ud83d"}]}), encoding="utf-8")
    with pytest.raises(BleuValueError, match=r"`entries\[0\].reason` holds a lone surrogate"):
        load_baseline(path)


def test_a_command_line_argument_no_utf_8_holds_is_written_as_its_escape(tmp_path):
    """Python reads a command-line byte that is not UTF-8 (0xff) as the lone surrogate \\udcff; the header that
    records the command keeps it as the text of its escape, and every report is written."""
    report = tmp_path / "report"
    command = fake("clean", "\udcff")
    code = run_cli("check", "--command", command, "--no-cases", "--examples", "2", "--report", report, "--quiet")
    assert code == 0
    header, records, _ = _complete_report(report, 0)
    assert "clean.py '\\udcff'" in header["settings"]["command"] and len(records) >= 2


def test_the_runner_process_reads_a_lone_surrogate_reply_as_a_protocol_error(tmp_path):
    with ImplementationProcess(fake_argv("lone_surrogate", "error"), timeout=10) as process:
        process.start()
        reply = process.request(_score_command())
    assert reply.kind == "protocol-error" and "`error` holds a lone surrogate \\ud83d" in reply.message
    assert "\\ud83d" in reply.raw and reply.raw.isascii()


# -- files read from outside: too deep, too long a number, not UTF-8: input errors naming the file ---------------

DEEP = "[" * 100_000 + "]" * 100_000  # Python's JSON reader gives up long before (RecursionError)


def _one_line_error(capsys, *fragments):
    err = capsys.readouterr().err
    assert "Traceback" not in err and "internal error" not in err and len(err.strip().splitlines()) == 1, err
    for fragment in fragments:
        assert fragment in err, err
    return err


def test_a_baseline_or_replay_too_deep_or_with_a_huge_integer_is_an_input_error(tmp_path, capsys):
    deep = tmp_path / "deep.json"
    deep.write_text(DEEP)
    huge = tmp_path / "huge.json"
    huge.write_text('{"entries": [{"id": "x", "outcome": "fail", "reason": "r", "n": ' + "1" * 5000 + "}]}")
    report = tmp_path / "r"
    assert run_cli("check", "--command", fake("clean"), "--no-cases", "--examples", 1, "--report", report,
                   "--baseline", deep) == 2
    _one_line_error(capsys, f"baseline {deep} is not valid JSON: it nests too deeply to be read")
    assert run_cli("check", "--command", fake("clean"), "--no-cases", "--examples", 1, "--report", report,
                   "--baseline", huge) == 2
    _one_line_error(capsys, "an integer of more than 4300 digits")  # never "use sys.set_int_max_str_digits()"
    assert run_cli("check", "--command", fake("clean"), "--report", report, "--replay", deep) == 2
    _one_line_error(capsys, f"{deep}:1: not JSON (it nests too deeply to be read)")
    assert run_cli("check", "--command", fake("clean"), "--report", report, "--replay", "[" * 100_000) == 2
    _one_line_error(capsys, "`--replay` is neither a file nor JSON (it nests too deeply to be read)")


def test_a_results_stream_too_deep_or_not_utf_8_is_an_input_error_naming_the_line(tmp_path, capsys):
    shards = [tmp_path / "s1", tmp_path / "s2"]
    for number, shard in enumerate(shards, 1):
        assert run_cli("check", "--command", fake("clean"), "--no-cases", "--examples", 2, "--shard", f"{number}/2",
                       "--report", shard, "--quiet") == 0
    stream = shards[0] / "results.jsonl"
    lines = stream.read_bytes().count(b"\n")
    with open(stream, "a", encoding="utf-8") as out:
        out.write(DEEP + "\n")
    assert run_cli("merge", *shards, "--report", tmp_path / "all", "--quiet") == 2
    _one_line_error(capsys, f"{stream}:{lines + 1}: not a JSON line (it nests too deeply to be read)")
    other = shards[1] / "results.jsonl"
    lines = other.read_bytes().count(b"\n")
    with open(other, "ab") as out:
        out.write(b"\xff\xfe\n")
    assert run_cli("baseline", "write", "--from", shards[1], "--out", tmp_path / "b.yaml") == 2
    _one_line_error(capsys, f"{other}:{lines + 1}: not UTF-8 text (byte 1)")


def test_a_case_file_that_is_not_utf_8_is_an_input_error(tmp_path):
    bad = tmp_path / "bad.yaml"
    bad.write_bytes(b"document: x\n\xff\xfe cases: []\n")
    for verb in (["cases", "validate", "--cases", str(bad)], ["cases", "list", "--cases", str(bad)]):
        done = subprocess.run([sys.executable, "-m", "oracle", *verb], capture_output=True, text=True, timeout=120)
        assert done.returncode == 2 and "Traceback" not in done.stderr, done.stderr
        assert f"{bad}: not UTF-8 text (byte 13): a case file is UTF-8 YAML" in done.stderr
