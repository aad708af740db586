"""The process driver: handshake, requests with a timeout, restarts, stderr capture, protocol errors.

Holds: oracle.harness.transport, oracle.harness.inprocess, oracle.harness.replies, oracle.harness.stages
"""

from __future__ import annotations

import hashlib
import json
import sys
import textwrap

import pytest
from fakes.harness import fake_argv

from oracle.harness.transport import (
    HandshakeError,
    ImplementationProcess,
    Transport,
    parse_line,
    validate_handshake,
    validate_reply,
)
from oracle.models.wire import PiecedLine

SCORE = {
    "cmd": "score", "level": "corpus",
    "segments": [{"hypothesis": ["the", "cat"], "references": [["the", "cat"]]}],
    "weights": [0.5, 0.5], "smoothing": {"method": "none"}, "lowercase": False,
}


def score(seq):
    return {**SCORE, "seq": seq}


def handshake(**changes):
    out = {"protocol": 1, "implementation": {"name": "x", "version": "1", "language": "python"}, "profile": "papineni",
           "capabilities": {"levels": ["corpus"], "weights": "any", "max_order": 4, "smoothing": ["none"],
                            "statistics": False, "lowercase": False}}
    out.update(changes)
    return out


def script(tmp_path, body):
    """A tiny protocol process from Python source (reads commands, answers as `body` says)."""
    path = tmp_path / "impl.py"
    path.write_text(textwrap.dedent(body))
    return [sys.executable, str(path)]


def test_a_clean_implementation_answers_in_order():
    with ImplementationProcess(fake_argv("clean"), timeout=5) as process:
        hs = process.start()
        assert hs.protocol == 1 and hs.profile == "papineni"
        for seq in (1, 2, 3):
            reply = process.request(score(seq))
            assert reply.kind == "score", reply
            assert reply.parsed.seq == seq and reply.score == 1.0
            assert reply.statistics.matches == (2, 1)
            assert reply.duration >= 0
        assert process.restarts == 0
    assert not process.alive()


def test_a_rejection_is_a_rejected_reply():
    with ImplementationProcess(fake_argv("clean"), timeout=5) as process:
        process.start()
        reply = process.request({**score(1), "weights": [0.5, -0.5]})
        assert reply.kind == "rejected" and "non-negative" in reply.message


def test_a_crash_is_reported_with_its_stderr_and_the_process_is_restarted():
    with ImplementationProcess(fake_argv("crash_third"), timeout=5, max_restarts=3) as process:
        process.start()
        assert [process.request(score(s)).kind for s in (1, 2)] == ["score", "score"]
        crashed = process.request(score(3))
        assert crashed.kind == "crash"
        assert "exit status 1" in crashed.message
        assert "RuntimeError: crash-3rd" in crashed.stderr and "about to crash" in crashed.stderr
        again = process.request(score(4))
        assert again.kind == "score" and process.restarts == 1


def test_restarts_are_bounded_then_requests_are_not_attempted():
    with ImplementationProcess(fake_argv("crash_third"), timeout=5, max_restarts=1) as process:
        process.start()
        kinds = [process.request(score(s)).kind for s in range(1, 10)]
        # 1, 2 ok; 3 crashes; restart; 4, 5 ok; 6 crashes; the budget (1) is spent
        assert kinds == ["score", "score", "crash", "score", "score", "crash", "crash", "crash", "crash"]
        last = process.request(score(10))
        assert last.kind == "crash" and last.message.startswith("not attempted")
        assert process.restarts == 1


def test_a_hung_request_times_out_and_the_process_group_is_killed():
    with ImplementationProcess(fake_argv("hang_seq2"), timeout=1, max_restarts=3) as process:
        process.start()
        assert process.request(score(1)).kind == "score"
        hung_proc = process._proc
        reply = process.request(score(2))
        assert reply.kind == "timeout" and "no reply within 1 s" in reply.message
        assert hung_proc.poll() is not None  # killed, not left behind
        assert process.request(score(3)).kind == "score"
        assert process.restarts == 1


def test_a_submitted_request_is_answered_while_the_runner_works_and_keeps_its_own_duration():
    import time

    with ImplementationProcess(fake_argv("clean"), timeout=5) as process:
        process.start()
        pending = process.submit(score(1))
        time.sleep(0.5)  # the runner computing the oracle's expectation meanwhile
        reply = process.collect(pending)
        assert reply.kind == "score" and reply.parsed.seq == 1
        assert reply.duration < 0.4  # when the reply arrived, not when it was collected


def test_a_line_given_in_pieces_is_written_whole_and_in_order(tmp_path):
    """A `PiecedLine` (a 65,600-token run's line, never built whole: `searchcache.wire_line`) reaches the process
    as the one line its pieces make: this process answers with the sha256 of the line it read, as a fraction."""
    argv = script(tmp_path, f"""
        import hashlib, json, sys
        sys.stdin.buffer.readline()  # start
        print(json.dumps({handshake()!r}), flush=True)
        for line in sys.stdin.buffer:
            heard = int(hashlib.sha256(line).hexdigest()[:8], 16) / 2**32
            print(json.dumps({{"seq": json.loads(line)["seq"], "score": heard}}), flush=True)
    """)
    command = {**score(5), "segments": [{"hypothesis": ["caf\\u00e9"] * 70_000, "references": [["the"]]}]}
    line = (json.dumps(command, separators=(",", ":")) + "\n").encode("ascii")
    pieces = [line[at:at + 4096] for at in range(0, len(line), 4096)]
    with ImplementationProcess(argv, timeout=10) as process:
        process.start()
        reply = process.collect(process.submit({"seq": 5}, line=PiecedLine(lambda: iter(pieces))))
    assert reply.kind == "score" and reply.parsed.seq == 5, reply
    assert reply.score == int(hashlib.sha256(line).hexdigest()[:8], 16) / 2**32


def test_a_submitted_request_times_out_from_when_it_was_sent_however_long_the_runner_works():
    import time

    with ImplementationProcess(fake_argv("hang_seq2"), timeout=1, max_restarts=3) as process:
        process.start()
        assert process.collect(process.submit(score(1))).kind == "score"
        hung_proc = process._proc
        started = time.perf_counter()
        pending = process.submit(score(2))
        time.sleep(1.5)
        reply = process.collect(pending)
        assert reply.kind == "timeout" and time.perf_counter() - started < 2.5  # not another full second
        assert hung_proc.poll() is not None
        assert process.request(score(3)).kind == "score"


def test_garbage_is_a_protocol_error_not_a_runner_crash():
    with ImplementationProcess(fake_argv("garbage"), timeout=5) as process:
        process.start()
        reply = process.request(score(1))
        assert reply.kind == "protocol-error"
        assert reply.raw == "this is not JSON, sorry"
        assert process.request(score(2)).kind == "protocol-error"  # still in step: one line per request


def test_a_wrong_seq_is_a_protocol_error():
    with ImplementationProcess(fake_argv("wrong_seq"), timeout=5) as process:
        process.start()
        reply = process.request(score(5))
        assert reply.kind == "protocol-error" and "wrong seq: sent 5, the reply has 6" in reply.message


def test_no_handshake_times_out():
    process = ImplementationProcess(fake_argv("no_handshake"), timeout=1)
    with pytest.raises(HandshakeError, match="no handshake within 1 s"):
        process.start()
    assert not process.alive()


def test_another_protocol_version_cannot_be_driven():
    process = ImplementationProcess(fake_argv("protocol2"), timeout=5)
    with pytest.raises(HandshakeError, match="speaks protocol 2"):
        process.start()


def test_a_command_that_does_not_exist_cannot_be_driven(tmp_path):
    process = ImplementationProcess([str(tmp_path / "no-such-program")], timeout=5)
    with pytest.raises(HandshakeError, match="could not start"):
        process.start()


def test_a_process_that_exits_at_once_cannot_be_driven(tmp_path):
    argv = script(tmp_path, """
        import sys
        sys.stderr.write("missing library\\n")
        sys.exit(4)
    """)
    with pytest.raises(HandshakeError, match="exit status 4") as info:
        ImplementationProcess(argv, timeout=5).start()
    assert "missing library" in info.value.stderr


def test_a_chatty_implementation_never_deadlocks_and_its_stderr_is_kept_bounded():
    with ImplementationProcess(fake_argv("chatty"), timeout=10, stderr_limit=4096) as process:
        process.start()
        for seq in range(1, 6):  # 200 kB of stderr per request, far beyond a pipe buffer
            reply = process.request(score(seq))
            assert reply.kind == "score"
        assert "not kept" in reply.stderr and len(reply.stderr) < 6000
        assert "chatty stderr line" in reply.stderr


def test_extra_lines_after_a_reply_are_a_protocol_error_on_the_next_request(tmp_path):
    argv = script(tmp_path, """
        import json, sys, time
        for line in sys.stdin:
            cmd = json.loads(line)
            if cmd["cmd"] == "start":
                print(json.dumps(%r), flush=True)
            elif cmd["cmd"] == "score":
                print(json.dumps({"seq": cmd["seq"], "score": 0.5}), flush=True)
                if cmd["seq"] == 1:
                    print("debug output on stdout", flush=True)
                    time.sleep(0.3)
            else:
                break
    """ % handshake())  # noqa: UP031 -- the script's own braces would need doubling in an f-string
    with ImplementationProcess(argv, timeout=5) as process:
        process.start()
        assert process.request(score(1)).kind == "score"
        reply = process.request(score(2))
        assert reply.kind == "protocol-error" and "debug output on stdout" in reply.message
        assert process.request(score(3)).kind == "score"


def test_parse_line_refuses_non_json_bare_nan_and_non_utf8():
    assert parse_line(b'{"seq": 1, "score": "NaN"}\n') == {"seq": 1, "score": "NaN"}
    for raw in (b"not json\n", b'{"seq": 1, "score": NaN}\n', b'\xff{"seq": 1}\n', b"[1, 2]\n"):
        with pytest.raises(ValueError):
            parse_line(raw)


def test_validate_reply_names_what_is_wrong():
    assert validate_reply({"seq": 3, "score": 0.5}, 3) is None
    assert validate_reply({"seq": 3, "score": "NaN"}, 3) is None
    assert validate_reply({"seq": 3, "rejected": "no"}, 3) is None
    assert (
        validate_reply(
            {"seq": 3, "score": 0.5, "statistics": {"hyp_len": 1, "ref_len": 1, "matches": [1], "totals": [1]}}, 3
        )
        is None
    )
    assert "wrong seq" in validate_reply({"seq": 4, "score": 0.5}, 3)
    assert "exactly one" in validate_reply({"seq": 3, "score": 0.5, "error": "x"}, 3)
    assert "exactly one" in validate_reply({"seq": 3}, 3)
    assert validate_reply({"seq": 3, "score": True}, 3)
    assert validate_reply(
        {"seq": 3, "score": 0.5, "statistics": {"hyp_len": -1, "ref_len": 1, "matches": [], "totals": []}}, 3
    )
    assert validate_reply({"seq": 3, "score": 0.5, "extra": 1}, 3)
    assert "no seq" in validate_reply({"error": "could not read the command"}, 3)


def test_validate_handshake():
    assert validate_handshake(handshake()).to_json() == handshake()
    with pytest.raises(HandshakeError, match="protocol 2"):
        validate_handshake(handshake(protocol=2))
    with pytest.raises(HandshakeError, match="invalid handshake"):
        validate_handshake(handshake(profile=3))
    bad_caps = handshake()
    bad_caps["capabilities"] = {**bad_caps["capabilities"], "weights": "some"}
    with pytest.raises(HandshakeError, match="weights"):
        validate_handshake(bad_caps)
    with pytest.raises(HandshakeError, match="error"):
        validate_handshake({"error": "unsupported protocol version 1"})


def test_a_late_reply_after_a_garbage_line_is_discarded_not_taken_for_the_next(tmp_path):
    # the garbage line comes *before* the reply: request 2 sees garbage, its real reply comes late
    argv = script(tmp_path, """
        import json, sys, time
        for line in sys.stdin:
            cmd = json.loads(line)
            if cmd["cmd"] == "start":
                print(json.dumps(%r), flush=True)
            elif cmd["cmd"] == "score":
                if cmd["seq"] == 2:
                    print("warming up...", flush=True)
                    time.sleep(0.2)
                print(json.dumps({"seq": cmd["seq"], "score": 0.5}), flush=True)
            else:
                break
    """ % handshake())  # noqa: UP031 -- as above
    with ImplementationProcess(argv, timeout=5) as process:
        process.start()
        assert process.request(score(1)).kind == "score"
        garbled = process.request(score(2))
        assert garbled.kind == "protocol-error" and garbled.raw == "warming up..."
        reply = process.request(score(3))
        assert reply.kind == "score" and reply.parsed.seq == 3
        assert reply.notes == ["discarded a late reply to seq 2"]


# -- Hostile replies and processes: each fault class ends in its own outcome ---------------------

_ANSWERING = """
    import json, os, sys, time
    for line in sys.stdin:
        cmd = json.loads(line)
        if cmd["cmd"] == "start":
            print(json.dumps(%r), flush=True)
        elif cmd["cmd"] == "score":
            sys.stdout.write(%s + "\\n"); sys.stdout.flush()
        else:
            break
"""


@pytest.mark.parametrize("reply_expression,message", [
    ('\'{"seq": %d, "score": 1%s}\' % (cmd["seq"], "0" * 400)', "`score` must be a finite number"),
    ('\'{"seq": 1%s, "score": 0.5}\' % ("0" * 5000)', "cannot be read"),
    ('"[" * 100000', "nests deeper than"),
])
def test_a_reply_the_runner_cannot_use_is_a_protocol_error_never_a_crash(tmp_path, reply_expression, message):
    argv = script(tmp_path, _ANSWERING % (handshake(), reply_expression))
    with ImplementationProcess(argv, timeout=5) as process:
        process.start()
        reply = process.request(score(1))
    assert reply.kind == "protocol-error"
    assert message in reply.message or reply.message.startswith("malformed reply"), reply.message


def test_a_line_beyond_the_line_limit_is_a_protocol_error_and_not_kept_whole(tmp_path):
    argv = script(tmp_path, _ANSWERING % (handshake(), '\'{"seq": %d, "error": "%s"}\' % (cmd["seq"], "x" * 50000)'))
    with ImplementationProcess(argv, timeout=5, line_limit=10000) as process:
        process.start()
        reply = process.request(score(1))
        assert reply.kind == "protocol-error" and "exceeds the line limit" in reply.message
        assert len(reply.raw) <= 300
        # the next request is read from the next line, not from the rest of the long one
        assert process.request(score(2)).kind == "protocol-error"


def test_a_long_error_message_is_kept_bounded(tmp_path):
    argv = script(tmp_path, _ANSWERING % (handshake(), '\'{"seq": %d, "error": "%s"}\' % (cmd["seq"], "x" * 100000)'))
    with ImplementationProcess(argv, timeout=5) as process:
        process.start()
        reply = process.request(score(1))
    assert reply.kind == "error" and len(reply.message) < 5000 and "not kept" in reply.message
    assert len(reply.parsed.error) < 5000


def test_children_of_an_implementation_die_with_it_even_after_it_exited(tmp_path):
    marker = tmp_path / "child.pid"
    argv = script(tmp_path, """
        import json, subprocess, sys
        for line in sys.stdin:
            cmd = json.loads(line)
            if cmd["cmd"] == "start":
                child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
                open(%r, "w").write(str(child.pid))
                print(json.dumps(%r), flush=True)
            elif cmd["cmd"] == "score":
                sys.exit(3)  # the leader dies; its child lives on in the process group
    """ % (str(marker), handshake()))  # noqa: UP031 -- as above
    process = ImplementationProcess(argv, timeout=1, max_restarts=0)
    process.start()
    # the child holds the leader's stdout open, so the runner sees no end of file: a timeout
    assert process.request(score(1)).kind in ("crash", "timeout")
    process.stop()
    child = int(marker.read_text())
    import os
    import time
    for _ in range(50):  # SIGKILL is delivered asynchronously
        try:
            os.kill(child, 0)
        except ProcessLookupError:
            break
        if open(f"/proc/{child}/stat").read().split()[2] == "Z":  # a zombie waiting for init: dead
            break
        time.sleep(0.05)
    else:
        pytest.fail(f"the implementation's child {child} is still running")


def test_both_transports_are_the_transport_a_session_drives() -> None:
    """A process over protocol v1 and an adapter in process: one interface (typing.Protocol), the handshake
    a Handshake and each reply's line a ScoreReply either way."""
    from oracle.adapters.oracle_adapter import OracleImplementation
    from oracle.harness.inprocess import InProcessImplementation
    from oracle.models.protocol import Handshake, ScoreReply

    with ImplementationProcess(fake_argv("clean"), timeout=5) as process:
        in_process = InProcessImplementation(OracleImplementation())
        transports: list[Transport] = [process, in_process]
        for transport in transports:
            assert isinstance(transport, Transport)
            assert isinstance(transport.start(), Handshake) and isinstance(transport.handshake, Handshake)
            reply = transport.collect(transport.submit(score(1)))
            assert reply.kind == "score" and isinstance(reply.parsed, ScoreReply) and reply.parsed.seq == 1
            assert reply.score == 1.0 and reply.recorded() == reply.parsed
