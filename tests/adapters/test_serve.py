"""The protocol server, the oracle adapter, and `bleu-oracle serve` driven as a real process.

Expected values are derived by hand in the comments (Papineni et al. 2002, section 2).

Holds: oracle.adapters.server, oracle.adapters.oracle_adapter, oracle.commands.serve
"""

from __future__ import annotations

import io
import math
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from protocol_client import Client

from oracle.adapters import registry
from oracle.adapters import server as protocol_server
from oracle.adapters.base import (
    Implementation,
    Rejected,
    ScoreAnswer,
    Unsupported,
)
from oracle.adapters.oracle_adapter import OracleImplementation
from oracle.adapters.server import handle_line, serve
from oracle.diagnose.judge import Contract
from oracle.formulas.errors import BleuTypeError, BleuValueError
from oracle.models.protocol import (
    Handshake,
    ProtocolError,
    ScoreReply,
    ScoreRequest,
    Segment,
    decode,
    encode,
)

ROOT = Path(__file__).resolve().parents[2]
#: a safety net so a hung server fails the test instead of hanging it (not a timing assertion)
REPLY_TIMEOUT = 60

# MATLAB bleuEvaluationScore documentation example.
MATLAB_HYP = "The fast brown fox jumped over the lazy dog .".split()
MATLAB_REFS = [
    "The quick brown animal jumped over the lazy dog .".split(),
    "The quick brown fox jumped over the lazy dog .".split(),
]
# Clipped matches by hand: unigrams 9/10 (not "fast"); bigrams 7/9 ("The fast", "fast brown" miss);
# trigrams 6/8; 4-grams 5/7; c = r = 10 so BP = 1. BLEU-4 = (9/10 * 7/9 * 6/8 * 5/7)^(1/4) = 0.375^(1/4).
MATLAB_BLEU4 = 0.375 ** 0.25  # 0.7825 in the MATLAB documentation
MATLAB_BLEU2 = (9 / 10 * 7 / 9) ** 0.5  # 0.8367 in the MATLAB documentation
THE_HYP = "the the the the the the".split()
THE_REF = "the cat is on the mat".split()  # Papineni 2.1: "the" clipped to 2 of 6


def score_command(seq, segments, weights=(0.25,) * 4, level="corpus", smoothing=None, lowercase=False):
    return {
        "cmd": "score", "seq": seq, "level": level,
        "segments": [{"hypothesis": list(h), "references": [list(r) for r in refs]} for h, refs in segments],
        "weights": list(weights), "smoothing": smoothing or {"method": "none"}, "lowercase": lowercase,
    }


def serve_argv(*extra):
    return [sys.executable, "-m", "oracle", "serve", *extra]


@pytest.fixture(scope="module")
def server():
    client = Client(serve_argv("--impl", "oracle"))
    handshake = client.ask({"cmd": "start", "protocol": 1})
    client.handshake = handshake
    yield client
    code, rest = client.finish()
    assert code == 0 and rest == []


# -- `bleu-oracle serve --impl oracle` as a process ------------------------------------------


def test_handshake_declares_honest_capabilities(server):
    handshake = Handshake.from_json(server.handshake)
    assert handshake.profile == "papineni"
    assert handshake.implementation.name == "bleu-oracle"
    caps = handshake.capabilities
    assert caps.levels == ("corpus", "sentence") and caps.weights == "any"
    assert caps.statistics and caps.lowercase and caps.max_order >= 4
    assert "chen-cherry-7" in caps.smoothing and "none" in caps.smoothing


@pytest.mark.parametrize("level", ["corpus", "sentence"])
def test_matlab_example(server, level):
    reply = ScoreReply.from_json(server.ask(score_command(11, [(MATLAB_HYP, MATLAB_REFS)], level=level)))
    assert reply.seq == 11
    assert abs(reply.score - 0.7825) <= 5e-5  # the documented value, 4 decimals
    assert Contract().close(reply.score, MATLAB_BLEU4)
    stats = reply.statistics
    assert (stats.hyp_len, stats.ref_len, stats.matches, stats.totals, stats.bp) == (
        10,
        10,
        (9, 7, 6, 5),
        (10, 9, 8, 7),
        1.0,
    )


def test_matlab_example_bigram_weights(server):
    reply = server.ask(score_command(12, [(MATLAB_HYP, MATLAB_REFS)], weights=[0.5, 0.5]))
    assert abs(reply["score"] - 0.8367) <= 5e-5 and Contract().close(reply["score"], MATLAB_BLEU2)
    assert reply["statistics"]["matches"] == [9, 7] and reply["statistics"]["totals"] == [10, 9]


def test_clipping_example(server):
    reply = server.ask(score_command(13, [(THE_HYP, [THE_REF])]))
    assert reply == {
        "seq": 13,
        "score": 0.0,
        "statistics": {"hyp_len": 6, "ref_len": 6, "matches": [2, 0, 0, 0], "totals": [6, 5, 4, 3], "bp": 1.0},
    }


def test_empty_hypothesis_and_references_score_nan(server):
    # papineni profile: c = r = 0, every p_n is 0/0: NaN, sent as the string "NaN"
    reply = server.ask(score_command(14, [([], [[]])]))
    assert reply["score"] == "NaN" and reply["statistics"]["bp"] == "NaN"


def test_brevity_penalty_and_lowercase(server):
    # "The cat" against "the cat sat on the mat", folded: p1 = 2/2, p2 = 1/1, c = 2, r = 6: BP = e^(1 - 3)
    reply = server.ask(
        score_command(15, [(["The", "cat"], ["the cat sat on the mat".split()])], weights=[0.5, 0.5], lowercase=True)
    )
    assert Contract().close(reply["score"], math.exp(-2))


def test_invalid_input_is_rejected(server):
    reply = server.ask(score_command(16, [(MATLAB_HYP, MATLAB_REFS)], weights=[0.5, -0.5]))
    assert set(reply) == {"seq", "rejected"} and reply["seq"] == 16
    assert "`weights` must be non-negative" in reply["rejected"]
    reply = server.ask(score_command(17, [(MATLAB_HYP, [])]))
    assert reply["seq"] == 17 and "`references`" in reply["rejected"]
    reply = server.ask(score_command(18, []))
    assert reply["seq"] == 18 and "at least one segment" in reply["rejected"]


def test_server_survives_garbage_and_malformed_commands(server):
    reply = server.ask("this is not json")
    assert set(reply) == {"error"} and reply["error"].startswith("protocol error:")
    reply = server.ask('{"cmd": "score", "seq": 21, "level": "corpus"}')
    assert reply["seq"] == 21 and "`segments` is required" in reply["error"]
    reply = server.ask(score_command(22, [(["a", 1], [["a"]])]))
    assert reply["seq"] == 22 and "`segments[0].hypothesis[1]` must be a string" in reply["error"]
    reply = server.ask('{"cmd": "dance", "seq": 23}')
    assert reply == {"seq": 23, "error": 'protocol error: `cmd` must be one of "start", "score", "stop" (got "dance")'}
    server.send("")  # a blank line gets no reply
    # numbers no float holds, and integers too long to read, are protocol errors, not a dead server
    reply = server.ask('{"cmd": "score", "seq": 25, "level": "corpus", "segments": [], "weights": [1%s], '
                       '"smoothing": {"method": "none"}, "lowercase": false}' % ("0" * 400))
    assert reply["seq"] == 25 and "`weights[0]` must be a finite number" in reply["error"]
    reply = server.ask('{"cmd": "score", "seq": 1%s}' % ("0" * 5000))
    assert set(reply) == {"error"} and "cannot be read" in reply["error"]
    reply = server.ask(score_command(24, [(MATLAB_HYP, MATLAB_REFS)]))
    assert reply["seq"] == 24 and Contract().close(reply["score"], MATLAB_BLEU4)


def test_unknown_protocol_version_is_an_error_and_serving_goes_on(server):
    reply = server.ask({"cmd": "start", "protocol": 2})
    assert reply == {"error": "unsupported protocol version 2: this implementation speaks protocol 1"}
    assert server.ask({"cmd": "start", "protocol": 1}) == server.handshake


def test_exits_on_stop():
    client = Client(serve_argv("--impl", "oracle"))
    assert client.ask({"cmd": "start", "protocol": 1})["protocol"] == 1
    # one write, so both lines are in the pipe before the server reads stop; the second is never answered
    client.send('{"cmd": "stop"}\n{"cmd": "start", "protocol": 1}')
    code, rest = client.finish(stop=False)
    assert code == 0 and rest == []


def test_exits_on_end_of_input():
    client = Client(serve_argv("--impl", "oracle", "--profile", "sacrebleu"))
    handshake = Handshake.from_json(client.ask({"cmd": "start", "protocol": 1}))
    assert handshake.profile == "sacrebleu" and handshake.capabilities.weights == "uniform"
    code, rest = client.finish(stop=False)
    assert code == 0 and rest == []


def _run(*args, stdin=""):
    return subprocess.run(
        serve_argv(*args), cwd=ROOT, input=stdin, capture_output=True, text=True, timeout=REPLY_TIMEOUT
    )


def test_serve_list_and_usage_errors():
    listed = _run("--list")
    assert listed.returncode == 0 and listed.stdout.split() == registry.names()
    unknown = _run("--impl", "bleurt")
    assert unknown.returncode == 2 and "unknown implementation 'bleurt'; known: oracle, nltk," in unknown.stderr
    assert unknown.stdout == "" and unknown.stderr.count("\n") == 1
    assert _run().returncode == 2
    # a library adapter declares its own profile: asking for another is a usage error
    mismatch = _run("--impl", "oracle.adapters.base:Implementation", "--profile", "nltk")
    assert mismatch.returncode == 2 and "does not apply" in mismatch.stderr
    missing = _run("--impl", "no_such_module_for_bleu_oracle:Thing")
    assert missing.returncode == 3 and "cannot load implementation" in missing.stderr and missing.stdout == ""
    # MODULE:CLASS names a class with score(): anything else is refused before it is called (exit 4 before)
    for target, says in [("os:path", "'path' is not a class with score()"), (":", "names a module and a class"),
                         ("os:getcwd", "'getcwd' is not a class with score()")]:
        refused = _run("--impl", target)
        assert refused.returncode == 2 and says in refused.stderr and "Traceback" not in refused.stderr, target


def test_serve_by_module_and_class_path():
    done = _run("--impl", "oracle.adapters.oracle_adapter:OracleImplementation", "--profile", "nltk",
                stdin='{"cmd":"start","protocol":1}\n{"cmd":"stop"}\n')
    assert done.returncode == 0
    assert decode(done.stdout)["profile"] == "nltk"


# -- serve() in process: how answers and exceptions become replies --------------------------


class PanicException(BaseException):
    """What a Rust panic surfaces as through PyO3."""


class Fake(Implementation):
    name, version, language, profile = "fake", "0", "python", "papineni"
    capabilities = {
        "levels": ["corpus"],
        "weights": "any",
        "max_order": 4,
        "smoothing": ["none"],
        "statistics": False,
        "lowercase": False,
    }

    def score(self, request):
        behaviour = request.segments[0].hypothesis[0]
        if behaviour == "rejected":
            raise Rejected("no thanks")
        if behaviour == "unsupported":
            raise Unsupported("cannot")
        if behaviour == "value":
            raise BleuValueError("`weights` must be non-negative")
        if behaviour == "type":
            raise BleuTypeError("`hypothesis` must be a list")
        if behaviour == "runtime":
            raise RuntimeError("boom")
        if behaviour == "panic":
            raise PanicException("index out of bounds")
        if behaviour == "interrupt":
            raise KeyboardInterrupt
        if behaviour == "chatter":
            print("library chatter on stdout")
            return ScoreAnswer(0.5)
        if behaviour == "bad-statistics":
            return ScoreAnswer(0.5, {"hyp_len": 1, "ref_len": 1, "matches": [1], "totals": [1], "precisions": [1.0]})
        if behaviour == "infinite":
            return ScoreAnswer(float("inf"))
        if behaviour == "nan":
            return ScoreAnswer(float("nan"), {"hyp_len": 0, "ref_len": 0, "matches": [0], "totals": [0], "bp": None})
        return ScoreAnswer(0.25)


def fake_score(word, seq=1):
    return encode(score_command(seq, [([word], [["x"]])], weights=[1])) + "\n"


@pytest.mark.parametrize("word,expected", [
    ("rejected", {"seq": 1, "rejected": "no thanks"}),
    ("unsupported", {"seq": 1, "unsupported": "cannot"}),
    ("value", {"seq": 1, "rejected": "`weights` must be non-negative"}),
    ("type", {"seq": 1, "rejected": "`hypothesis` must be a list"}),
    ("runtime", {"seq": 1, "error": "RuntimeError: boom"}),
    ("panic", {"seq": 1, "error": "PanicException: index out of bounds"}),
    ("ok", {"seq": 1, "score": 0.25}),
    ("nan", {"seq": 1, "score": "NaN", "statistics": {"hyp_len": 0, "ref_len": 0, "matches": [0], "totals": [0]}}),
])
def test_answers_and_exceptions_become_replies(word, expected):
    reply, stop = handle_line(Fake(), fake_score(word))
    assert not stop
    assert decode(encode(reply)) == expected


def test_answers_that_break_the_protocol_become_errors():
    reply, _ = handle_line(Fake(), fake_score("bad-statistics"))
    assert reply["seq"] == 1 and "unknown field `statistics.precisions`" in reply["error"]
    reply, _ = handle_line(Fake(), fake_score("infinite"))
    assert reply["seq"] == 1 and "`score` must be a finite number" in reply["error"]


def test_keyboard_interrupt_is_not_swallowed():
    with pytest.raises(KeyboardInterrupt):
        handle_line(Fake(), fake_score("interrupt"))


def test_serve_writes_only_protocol_lines(capsys):
    lines = io.StringIO(
        '{"cmd":"start","protocol":1}\n' + fake_score("chatter", 1) + "\n" + fake_score("ok", 2)
        + '{"cmd":"stop"}\n' + fake_score("ok", 3)
    )
    out = io.StringIO()
    assert serve(Fake(), lines, out) == 0
    replies = [decode(line) for line in out.getvalue().splitlines()]
    assert [r.get("seq") for r in replies] == [None, 1, 2]  # handshake, two scores; nothing after stop
    assert Handshake.from_json(replies[0]).implementation.name == "fake"
    captured = capsys.readouterr()
    assert "library chatter on stdout" in captured.err and captured.out == ""


def test_serve_reads_bytes_and_writes_bytes():
    out = io.BytesIO()
    assert serve(Fake(), io.BytesIO(fake_score("ok").encode() + b'{"cmd":"\xff"}\n'), out) == 0  # ends at EOF
    first, second = out.getvalue().splitlines()
    assert decode(first) == {"seq": 1, "score": 0.25}
    assert "UTF-8" in decode(second)["error"]


def test_a_handshake_that_breaks_the_protocol_is_an_error():
    class Sloppy(Fake):
        capabilities = {"levels": ["corpus"], "weights": "any"}

    reply, _ = handle_line(Sloppy(), '{"cmd":"start","protocol":1}')
    assert set(reply) == {"error"} and "`capabilities.max_order` is required" in reply["error"]


# -- The oracle adapter in process ------------------------------------------------------------


def request(segments, weights=(0.25,) * 4, level="corpus", smoothing=None, lowercase=False):
    return ScoreRequest(
        seq=1, level=level, weights=tuple(weights), lowercase=lowercase,
        segments=tuple(Segment(hypothesis=tuple(h), references=tuple(tuple(r) for r in refs)) for h, refs in segments),
        smoothing=smoothing or {"method": "none"},
    )


@pytest.mark.parametrize("profile,weights", [
    ("papineni", "any"), ("nltk", "any"), ("matlab", "any"),
    ("sacrebleu", "uniform"), ("mteval", "uniform"), ("multi-bleu", "uniform"), ("mlpack", "uniform"),
])
def test_oracle_adapter_capabilities_per_profile(profile, weights):
    handshake = Handshake.from_json(OracleImplementation(profile).handshake())
    assert handshake.profile == profile and handshake.capabilities.weights == weights


def test_oracle_adapter_answers_with_statistics():
    answer = OracleImplementation().score(request([(MATLAB_HYP, MATLAB_REFS)]))
    assert Contract().close(answer.score, MATLAB_BLEU4)
    assert answer.statistics == {
        "hyp_len": 10,
        "ref_len": 10,
        "matches": [9, 7, 6, 5],
        "totals": [10, 9, 8, 7],
        "bp": 1.0,
    }
    assert type(answer.score) is float


def test_oracle_adapter_reports_orders_one_to_n_even_when_smoothing_counts_further():
    # chen-cherry-5 averages in order N+1, so the oracle counts 3 orders for N = 2
    answer = OracleImplementation().score(
        request([(THE_HYP, [THE_REF])], weights=[0.5, 0.5], smoothing={"method": "chen-cherry-5"})
    )
    assert answer.statistics["matches"] == [2, 0] and answer.statistics["totals"] == [6, 5]


def test_oracle_adapter_follows_the_request_not_the_profile_for_smoothing_and_case():
    # exp smoothing on the clipping example: p = 2/6, (1/2)/5, (1/4)/4, (1/8)/3 (the k-th zero order gets 1/2^k)
    answer = OracleImplementation("papineni").score(request([(THE_HYP, [THE_REF])], smoothing={"method": "exp"}))
    assert Contract().close(answer.score, (2 / 6 * 0.5 / 5 * 0.25 / 4 * 0.125 / 3) ** 0.25)
    # sacrebleu's profile smooths with exp by default, but the request says none
    answer = OracleImplementation("sacrebleu").score(request([(THE_HYP, [THE_REF])]))
    assert answer.score == 0.0
    folded = OracleImplementation().score(
        request([(["The", "Cat"], [["the", "cat"]])], weights=[0.5, 0.5], lowercase=True)
    )
    assert folded.score == 1.0


@pytest.mark.parametrize(
    "req,message",
    [
        (request([(MATLAB_HYP, MATLAB_REFS)], weights=[0, 0]), "`weights` must not be all zero"),
        (
            request([(MATLAB_HYP, MATLAB_REFS)], smoothing={"method": "floor", "value": -1.0}),
            "`smoothing.value` must be non-negative",
        ),
        (ScoreRequest(seq=1, level="corpus", segments=(), weights=(1.0,)), "at least one segment"),
    ],
)
def test_oracle_adapter_rejects_invalid_input(req, message):
    # (a sentence-level request with two segments cannot be built: the protocol model refuses it)
    with pytest.raises(Rejected) as raised:
        OracleImplementation().score(req)
    assert message in str(raised.value)


def test_oracle_adapter_rejects_non_uniform_weights_under_uniform_profiles():
    with pytest.raises(Rejected, match="uniform"):
        OracleImplementation("sacrebleu").score(request([(MATLAB_HYP, MATLAB_REFS)], weights=[0.5, 0.25]))


# -- The reply written without the model: the same reply, or the model's own check ------------------------------

#: floats with their edges drawn often: hypothesis alone rarely draws an infinity or a NaN in 400 examples
_float = st.one_of(st.sampled_from([math.inf, -math.inf, math.nan, 0.0, -0.0, 1.0]), st.floats())
_count = st.one_of(st.integers(0, 5), st.just(2**53 - 1))
#: values a count must not be: negative, beyond 2**53 - 1, a bool, fractional, a string
_bad_count = st.sampled_from([-1, 2**53, True, 1.5, 2.0, "3"])


def _counts(draw, order):
    """`order` counts: the first few drawn, the rest 0 (a long list is only for its length)."""
    drawn = draw(st.lists(_count, min_size=min(order, 4), max_size=min(order, 4)))
    return drawn + [0] * (order - len(drawn))


@st.composite
def _answers(draw):
    """Answers an adapter may return: plainly valid statistics (orders 0 to 101: 100 is the most a reply may
    carry), or the same broken in one place: a bad count, a missing or an unknown field, an odd bp or score."""
    score = draw(st.one_of(_float, st.integers(-2, 2), st.just(True)))
    if draw(st.booleans()):
        return ScoreAnswer(score)
    order = draw(st.sampled_from([0, 1, 2, 4, 100, 101]))
    statistics = {"hyp_len": draw(_count), "ref_len": draw(_count),
                  "matches": _counts(draw, order), "totals": _counts(draw, order),
                  "bp": draw(st.one_of(st.none(), _float, st.integers(0, 2), st.just("NaN")))}
    fault = draw(st.sampled_from(["none", "count", "listed count", "missing", "unknown"]))
    if fault == "count":
        statistics[draw(st.sampled_from(["hyp_len", "ref_len"]))] = draw(_bad_count)
    elif fault == "listed count" and order:
        listed = statistics[draw(st.sampled_from(["matches", "totals"]))]
        listed[draw(st.integers(0, order - 1))] = draw(_bad_count)
    elif fault == "missing":
        del statistics[draw(st.sampled_from(sorted(statistics)))]
    elif fault == "unknown":
        statistics["precisions"] = [1.0]
    return ScoreAnswer(score, statistics)


class _Answering(Implementation):
    name, capabilities = "answering", {}

    def __init__(self, answer):
        self.answer = answer

    def score(self, request):
        return self.answer


@settings(max_examples=400, deadline=None)
@given(_answers())
def test_a_reply_is_what_the_reply_model_writes(answer):
    # the expectation is the model's own path (validate the reply, then dump it), which the server took for
    # every reply before it wrote plain ones itself; an answer the model refuses is the same error either way
    command = ScoreRequest.from_json(decode(fake_score("x", seq=7)))
    try:
        expected = ScoreReply.from_json(protocol_server._answer_to_json(7, answer)).to_json()
    except (ProtocolError, TypeError, ValueError, OverflowError) as exc:
        expected = {"seq": 7, "error": f"the implementation's answer breaks protocol v1: {exc}"}
    reply = protocol_server.score_reply(_Answering(answer), command)
    assert encode(reply) == encode(expected)
    assert [type(value) for value in reply.get("statistics", {}).values()] == [
        type(value) for value in expected.get("statistics", {}).values()]


def test_plain_answers_are_written_without_the_model(monkeypatch):
    # what every library adapter returns takes the plain path: a model built here would fail the test
    def refuse(obj):
        raise AssertionError("the reply model was built for a plain answer")

    monkeypatch.setattr(ScoreReply, "from_json", refuse)
    command = ScoreRequest.from_json(decode(fake_score("x", seq=3)))
    answer = ScoreAnswer(0.5, {"hyp_len": 3, "ref_len": 6, "matches": [3, 2], "totals": [3, 2], "bp": math.exp(-1)})
    assert protocol_server.score_reply(_Answering(answer), command) == {
        "seq": 3, "score": 0.5,
        "statistics": {"hyp_len": 3, "ref_len": 6, "matches": [3, 2], "totals": [3, 2], "bp": math.exp(-1)}}
    assert protocol_server.score_reply(_Answering(ScoreAnswer(math.nan)), command) == {"seq": 3, "score": "NaN"}


def test_sacrebleu_through_serve_answers_what_it_answers_in_process():
    # the property the serve side's speed must keep: the runner's own examples (seed 0, as `check` draws them
    # for sacrebleu's capabilities), each through the adapter directly and through `serve`, give the same reply;
    # the expected reply is the direct answer written by protocol v1's rule (NaN as the string "NaN")
    pytest.importorskip("sacrebleu")
    from oracle.adapters.base import call
    from oracle.adapters.sacrebleu_adapter import SacrebleuImplementation
    from oracle.harness.generate import example_request
    from oracle.models.protocol import Capabilities

    def wire(value):
        return "NaN" if isinstance(value, float) and math.isnan(value) else value

    implementation = SacrebleuImplementation()
    capabilities = Capabilities.from_json(implementation.capabilities)
    requests = [example_request(0, index, capabilities, uniform_only=True, seq=index + 1) for index in range(80)]
    expected = []
    for request in requests:
        kind, answer = call(implementation, request)
        if kind != "score":
            expected.append({"seq": request.seq, kind: answer})
            continue
        reply = {"seq": request.seq, "score": wire(answer.score)}
        if answer.statistics is not None:
            reply["statistics"] = {name: wire(value) for name, value in answer.statistics.items()}
        expected.append(reply)
    out = io.BytesIO()
    serve(implementation, io.BytesIO("".join(encode(request) + "\n" for request in requests).encode()), out)
    assert [decode(line) for line in out.getvalue().splitlines()] == expected
    assert {"score", "statistics"} <= set().union(*expected)  # statistics were compared, not only scores
