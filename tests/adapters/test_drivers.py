"""The drivers of the libraries outside this Python speak protocol v1 themselves, and the runner drives
them as it drives any implementation (`oracle.harness.transport.ImplementationProcess`): one process,
one protocol. A driver that crashes, hangs, floods, answers twice or out of turn, or with garbage ends in
that request's outcome (crash, timeout, protocol error), the next request gets a new driver or its own
answer, and nothing it started is left running.

The real drivers run here with a fake library in place of the real one, whose behaviour the hypothesis
chooses: a `metrax` module on PYTHONPATH for `drivers/venv_bleu.py`, a bleu-score package directory for
`drivers/npm_bleu.js` (node must be installed; those tests skip without it). What a misbehaving driver
itself does (garbage, floods, twice, stale seqs) is a fake driver script.

Holds: oracle.adapters.driven, oracle.adapters.venv_adapters, oracle.adapters.npm_adapters,
    oracle.adapters.drivers.venv_bleu, oracle.adapters.lifetimes, oracle.harness.transport,
    oracle.adapters.drivers.libraries.metrax
"""

from __future__ import annotations

import json
import math
import os
import shutil
import subprocess
import sys
import textwrap
import time
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import pytest
from fakes.processes import descendants, gone_within, wait_for, with_marker

from oracle.adapters.driven import DriverImplementation, driver_script
from oracle.adapters.npm_adapters import BleuScoreNpmImplementation, PromptfooImplementation
from oracle.adapters.venv_adapters import KerasHubImplementation, MetraxImplementation
from oracle.harness.transport import ImplementationProcess, Reply
from oracle.models.protocol import Handshake, ScoreRequest

FAKE_METRAX = """
import math, os, subprocess, sys, time

class BLEU:
    def __init__(self, value, max_order=4):
        self.value, self.max_order = value, max_order

    def merge(self, other):  # the values add up: a score of 0.5 per batch says how many were merged
        return BLEU(self.value + other.value, self.max_order)

    @classmethod
    def from_model_output(cls, predictions, references, max_order):
        do = predictions[0].split(" ")[0]
        if do.startswith("spawn-"):  # leave a child behind, named by the test's marker
            subprocess.Popen([sys.executable, "-c", "import time; time.sleep(120)", os.environ["FAKE_MARKER"]])
            do = do[len("spawn-"):]
        if do == "crash":
            os._exit(7)
        if do == "hang":
            time.sleep(120)
        if do == "raise":
            raise ValueError("no n-grams of order 4")
        if do == "echo":  # what arrived, as the error's message
            raise ValueError(repr((predictions, references, max_order)))
        if do == "print":
            print("chatter on stdout", flush=True)
            os.write(1, b"written below Python\\n")
        return cls({"nan": math.nan, "inf": math.inf}.get(do, 0.5))

    def compute(self):
        return self.value
"""

FAKE_BLEU_SCORE = """
exports.bleu = function (reference, candidate, maxN) {
  const doing = candidate.split(" ")[0];
  if (doing.startsWith("spawn-")) {
    require("child_process").spawn(process.execPath, ["-e", "setTimeout(() => {}, 120000)", process.env.FAKE_MARKER],
                                   { stdio: "ignore" });
  }
  if (doing.endsWith("crash")) process.exit(7);
  if (doing.endsWith("hang")) { const end = Date.now() + 120000; while (Date.now() < end) {} }
  if (doing === "throw") throw new TypeError("cannot read properties of undefined");
  if (doing === "echo") throw new Error(JSON.stringify([reference, candidate, maxN]));
  if (doing === "print") { console.log("chatter"); process.stdout.write("more chatter\\n"); }
  return { nan: NaN, inf: Infinity, text: "0.5" }[doing] ?? 0.25;
};
"""


def request(hypothesis: list[str], references: list[list[str]], weights: Sequence[float] = (0.5, 0.5), *,
            level: str = "corpus", **more: Any) -> ScoreRequest:
    segments = [{"hypothesis": hypothesis, "references": references}]
    return ScoreRequest.model_validate({"level": level, "segments": segments, "weights": weights, **more})


class Drivers:
    """Starts driver processes of one argv (timeout 10 s unless told), and stops them all at the end."""

    def __init__(self, argv: list[str], env: dict[str, str]) -> None:
        self.argv, self.env = argv, env
        self.started: list[ImplementationProcess] = []

    def __call__(self, **options: Any) -> ImplementationProcess:
        process = ImplementationProcess(self.argv, env=self.env, **{"timeout": 10, **options})
        self.started.append(process)
        process.start()
        return process

    def stop(self) -> None:
        for process in self.started:
            process.stop()


@pytest.fixture
def metrax(tmp_path: Path) -> Iterator[Drivers]:
    """The real venv driver with a fake metrax."""
    library = tmp_path / "fake-site" / "metrax"
    library.mkdir(parents=True)
    (library / "__init__.py").write_text(FAKE_METRAX)
    env = {**os.environ, "PYTHONPATH": str(library.parent), "FAKE_MARKER": str(tmp_path)}
    argv = [sys.executable, driver_script("venv_bleu.py"), "metrax", MetraxImplementation.handshake_json()]
    drivers = Drivers(argv, env)
    yield drivers
    drivers.stop()


@pytest.fixture
def bleu_score(tmp_path: Path) -> Iterator[Drivers]:
    """The real node driver with a fake bleu-score package."""
    node = shutil.which("node")
    if node is None:
        pytest.skip("node is not installed")
    package = tmp_path / "bleu-score"
    (package / "js").mkdir(parents=True)
    (package / "package.json").write_text('{"name": "bleu-score", "version": "1.0.4", "main": "js/bleu.js"}')
    (package / "js" / "bleu.js").write_text(FAKE_BLEU_SCORE)
    drivers = Drivers([node, driver_script("npm_bleu.js"), "bleu-score", str(package),
                       BleuScoreNpmImplementation.handshake_json()], {**os.environ, "FAKE_MARKER": str(tmp_path)})
    yield drivers
    drivers.stop()


def ask(process: ImplementationProcess, seq: int, hypothesis: Sequence[str],
        references: Sequence[Sequence[str]] = (("a", "b"),), **more: Any) -> Reply:
    levels = process.handshake.capabilities.levels if process.handshake is not None else ("corpus",)
    level = "corpus" if "corpus" in levels else "sentence"  # (bleu-score scores sentences only)
    return process.request(request(list(hypothesis), [list(r) for r in references], level=level, **more)
                           .with_seq(seq).to_json())


# -- protocol v1, spoken by the drivers ------------------------------------------------------------------


@pytest.mark.parametrize("declared", [MetraxImplementation, KerasHubImplementation, PromptfooImplementation,
                                      BleuScoreNpmImplementation])
def test_a_drivers_handshake_is_the_declaration_it_was_given(declared: type[DriverImplementation]) -> None:
    """The handshake a driver answers is its class's declaration, passed as one JSON argument."""
    handshake = Handshake.from_json(json.loads(declared.handshake_json()))
    assert handshake.implementation.name == declared.name and handshake.implementation.version == declared.version
    assert handshake.profile == declared.profile
    assert handshake.capabilities.to_json() == Handshake.from_json(
        {"protocol": 1, "implementation": {"name": "x", "version": "1", "language": "x"}, "profile": "papineni",
         "capabilities": declared.capabilities}).capabilities.to_json()


def test_the_venv_driver_answers_with_seq_and_passes_tokens_joined_by_spaces(metrax: Drivers) -> None:
    process = metrax()
    assert process.handshake is not None and process.handshake.implementation.name == "metrax"
    assert process.handshake.profile == "papineni"
    reply = ask(process, 7, ["x", "y"])
    assert reply.kind == "score" and reply.parsed is not None and reply.parsed.seq == 7 and reply.score == 0.5
    echoed = ask(process, 8, ["echo", "the", "cat"], [["the", "cat"], ["a", "cat"]], weights=[1 / 3] * 3)
    assert echoed.kind == "error" and echoed.parsed is not None and echoed.parsed.seq == 8
    assert echoed.message == "ValueError: (['echo the cat'], [['the cat', 'a cat']], 3)"
    # the library's traceback is kept with a record: with this reply's, or (stderr is a pipe unordered with
    # stdout, and a loaded machine delivers it late) with the next one's
    stderr = echoed.stderr
    for seq in range(9, 29):  # a bounded wait for the pipe, never a verdict on timing
        if "Traceback" in stderr:
            break
        time.sleep(0.1)
        stderr += ask(process, seq, ["x", "y"]).stderr
    assert "Traceback" in stderr


def test_the_venv_driver_runs_a_stateful_plan_on_the_librarys_merge_and_refuses_what_it_lacks(metrax: Drivers) -> None:
    """metrax accumulates by merging each batch's metric, and merges shards so: the fake's values add up."""
    process = metrax()
    segments = [{"hypothesis": [w], "references": [[w]]} for w in ("x", "y", "z")]
    plain = {"level": "corpus", "segments": segments, "weights": [0.5, 0.5]}
    for seq, (plan, score) in enumerate([(None, 0.5), ({"shards": [[1, 2]]}, 1.0),
                                         ({"shards": [[1], [1, 1]], "merge": [1, 0]}, 1.5)], start=1):
        command = ScoreRequest.model_validate({**plain, **({"stateful": plan} if plan else {})}).with_seq(seq)
        reply = process.request(command.to_json())
        assert (reply.kind, reply.score) == ("score", score), reply.message
    reset = {**plain, "stateful": {"shards": [[3]], "previous": [segments]}}
    reply = process.request(ScoreRequest.model_validate(reset).with_seq(9).to_json())
    assert (reply.kind, reply.message) == ("unsupported", "metrax cannot run a stateful plan that needs reset")


def test_the_node_driver_answers_with_seq_and_passes_tokens_joined_by_spaces(bleu_score: Drivers) -> None:
    process = bleu_score()
    assert process.handshake is not None and process.handshake.implementation.name == "bleu-score"
    reply = ask(process, 3, ["x"])
    assert reply.kind == "score" and reply.parsed is not None and reply.parsed.seq == 3 and reply.score == 0.25
    echoed = ask(process, 4, ["echo", "the", "cat"], [["the", "cat"]], weights=[1 / 3] * 3)
    assert echoed.kind == "error" and echoed.parsed is not None and echoed.parsed.seq == 4
    assert echoed.message == 'Error: ["the cat","echo the cat",3]'


@pytest.fixture
def driver(request: pytest.FixtureRequest) -> Drivers:
    """Either real driver (parametrized by name), started with its fake library."""
    return request.getfixturevalue(request.param)


@pytest.mark.parametrize("driver", ["metrax", "bleu_score"], indirect=True)
def test_nan_infinity_exceptions_and_chatter_are_answered_in_the_protocols_terms(driver: Drivers) -> None:
    process = driver()
    nan = ask(process, 1, ["nan"])
    assert nan.kind == "score" and nan.score is not None and math.isnan(nan.score)
    infinite = ask(process, 2, ["inf"])
    assert infinite.kind == "error" and "finite number" in infinite.message
    thrown = ask(process, 3, ["raise" if "metrax" in process.argv else "throw"])
    assert thrown.kind == "error"
    assert "ValueError: no n-grams" in thrown.message or "TypeError: cannot read" in thrown.message
    chatty = ask(process, 4, ["print"])  # a library writing on stdout: the protocol stays clean
    assert chatty.kind == "score"
    after = ask(process, 5, ["x"])
    assert after.kind == "score" and process.restarts == 0
    # the chatter is kept, on stderr: with its own reply, or (the two pipes are not ordered with each other,
    # oracle/harness/transport.py) with a later one when the machine is loaded; stopping joins the reader
    process.stop()
    assert "chatter" in chatty.stderr + after.stderr + process.take_stderr()


@pytest.mark.parametrize("driver", ["metrax", "bleu_score"], indirect=True)
@pytest.mark.parametrize("change,message", [
    ({"weights": [0.7, 0.3]}, "weighs every order 1/N (got weights [0.7, 0.3])"),
    ({"smoothing": "floor"}, 'smooths with ["none"] only (got "floor")'),
    ({"lowercase": True}, "does not fold case"),
    ({"weights": [1 / 13] * 13}, "takes at most 12 orders (got 13 weights)"),
])
def test_a_request_outside_the_declared_capabilities_is_unsupported(driver: Drivers, change: dict[str, Any],
                                                                    message: str) -> None:
    process = driver()
    reply = ask(process, 1, ["a", "b"], **change)
    assert reply.kind == "unsupported" and message.replace(", ", ",") in reply.message.replace(", ", ","), reply.message


def test_the_node_driver_refuses_what_bleu_score_cannot_express(bleu_score: Drivers) -> None:
    process = bleu_score()
    assert ask(process, 1, ["a"], [["a"], ["b"]]).message == "bleu-score takes at most 1 reference(s) a segment (got 2)"
    corpus = {"cmd": "score", "seq": 2, "level": "corpus", "weights": [1.0], "smoothing": {"method": "none"},
              "lowercase": False, "segments": [{"hypothesis": ["a"], "references": [["a"]]}]}
    assert process.request(corpus).message == 'bleu-score scores at sentence level only (got "corpus")'


@pytest.mark.parametrize("argv_of", ["venv", "node"])
def test_a_line_that_is_no_command_gets_an_error_reply_and_serving_goes_on(argv_of: str, tmp_path: Path) -> None:
    node = shutil.which("node")
    if argv_of == "node" and node is None:
        pytest.skip("node is not installed")
    argv = [sys.executable, driver_script("venv_bleu.py"), "metrax", MetraxImplementation.handshake_json()] \
        if argv_of == "venv" else [str(node), driver_script("npm_bleu.js"), "bleu-score", str(tmp_path),
                                   BleuScoreNpmImplementation.handshake_json()]
    lines = ["not json", "[1, 2]", '{"cmd": "score", "seq": "one"}', '{"cmd": "dance", "seq": 4}',
             '{"cmd": "start", "protocol": 2}', "", '{"cmd": "start", "protocol": 1}', '{"cmd": "stop"}',
             '{"cmd": "start", "protocol": 1}']
    done = subprocess.run(argv, input="\n".join(lines) + "\n", capture_output=True, text=True, timeout=60)
    replies = [json.loads(line) for line in done.stdout.splitlines()]
    assert done.returncode == 0 and len(replies) == 6, done.stdout  # nothing after stop; no reply to a blank line
    assert all(set(r) == {"error"} for r in replies[:3]) and "not JSON" in replies[0]["error"]
    assert "`seq` must be an integer" in replies[2]["error"]
    assert replies[3]["seq"] == 4 and "`cmd` must be one of" in replies[3]["error"]
    assert "unsupported protocol version 2" in replies[4]["error"]
    assert replies[5]["protocol"] == 1 and replies[5]["implementation"]["name"] in ("metrax", "bleu-score")


# -- a driver whose library crashes or hangs: the outcome of that request, nothing left -------------------


@pytest.mark.parametrize("driver", ["metrax", "bleu_score"], indirect=True)
def test_a_crashing_library_is_a_crash_of_that_request_and_the_next_gets_a_new_driver(driver: Drivers) -> None:
    process = driver()
    assert ask(process, 1, ["x"]).kind == "score"
    crashed = ask(process, 2, ["crash"])
    assert crashed.kind == "crash" and "exit status 7" in crashed.message
    assert ask(process, 3, ["x"]).kind == "score" and process.restarts == 1


@pytest.mark.parametrize("driver", ["metrax", "bleu_score"], indirect=True)
def test_a_hanging_library_times_out_and_its_driver_is_killed(driver: Drivers) -> None:
    process = driver(timeout=1.5)
    hung = ask(process, 1, ["hang"])
    assert hung.kind == "timeout" and "was killed" in hung.message
    assert ask(process, 2, ["x"]).kind == "score" and process.restarts == 1


@pytest.mark.parametrize("driver", ["metrax", "bleu_score"], indirect=True)
@pytest.mark.parametrize("do", ["spawn-crash", "spawn-hang", "spawn-x"])
def test_nothing_a_driver_started_outlives_it(driver: Drivers, tmp_path: Path, do: str) -> None:
    """The driver runs in a process group of its own, killed whole when it is replaced (after a crash or a
    timeout) or stopped (the run ends), so a child its library started does not outlive it."""
    process = driver(timeout=1.5)
    ask(process, 1, [do])
    process.stop()
    left = gone_within(with_marker(str(tmp_path)), 10)
    assert not left, f"left running: {sorted(left.values())}"


# -- a driver that breaks the protocol: the transport's faults, each that request's outcome ------------

# a protocol-v1 driver whose answer to a score is chosen by its first token; it counts its requests, so a
# restart shows
MISBEHAVING = r"""
import json, subprocess, sys, time
count = 0
for line in sys.stdin:
    command = json.loads(line)
    if command["cmd"] == "start":
        print(json.dumps(%r), flush=True)
        continue
    if command["cmd"] == "stop":
        break
    count += 1
    seq, do = command["seq"], command["segments"][0]["hypothesis"][0]
    def say(**answer):
        print(json.dumps(answer), flush=True)
    if do == "spawn":
        subprocess.Popen([sys.executable, "-c", "import time; time.sleep(120)", %r])
        do = "garbage"
    if do == "garbage":
        print("this is not json", flush=True)
    elif do == "flood":
        print("x" * 5000, flush=True)
    elif do == "twice":
        say(seq=seq, score=0.5 + count / 1000)
        say(seq=seq, score=0.5 + count / 1000)
    elif do == "stale":
        say(seq=seq - 1, score=0.25)
    elif do == "unnumbered":
        say(score=0.25)
    elif do == "unterminated":
        sys.stdout.write('{"seq": %%d, "score": 1.0}' %% seq); sys.stdout.flush(); sys.exit(0)
    else:
        say(seq=seq, score=0.5 + count / 1000)
"""


@pytest.fixture
def misbehaving(tmp_path: Path) -> Iterator[ImplementationProcess]:
    handshake = json.loads(MetraxImplementation.handshake_json())
    script = tmp_path / "driver.py"
    script.write_text(MISBEHAVING % (handshake, str(tmp_path)))
    process = ImplementationProcess([sys.executable, str(script)], timeout=5, line_limit=1000)
    process.start()
    yield process
    process.stop()


@pytest.mark.parametrize("do,kind,message", [
    ("garbage", "protocol-error", "must be one JSON object"),
    ("flood", "protocol-error", "exceeds the line limit"),
    ("stale", "protocol-error", "wrong seq: sent 2, the reply has 1"),
    ("unnumbered", "protocol-error", "`seq` is required"),
])
def test_a_driver_answering_outside_the_protocol_is_that_requests_outcome(misbehaving: ImplementationProcess, do: str,
                                                                          kind: str, message: str) -> None:
    assert ask(misbehaving, 1, ["x"]).score == pytest.approx(0.501)
    reply = ask(misbehaving, 2, [do])
    assert reply.kind == kind and message in reply.message, reply
    after = ask(misbehaving, 3, ["x"])
    assert after.kind == "score" and after.parsed is not None
    assert after.parsed.seq == 3  # its own answer, not a late one


def test_a_driver_whose_last_words_are_an_unterminated_reply_is_started_again(
        misbehaving: ImplementationProcess) -> None:
    """The line is a whole reply to this request, taken; the driver exited after it, which the next request
    finds (before it is written: a new driver answers; or after: a crash of that request, then a new one)."""
    assert ask(misbehaving, 1, ["unterminated"]).score == 1.0
    replies = [ask(misbehaving, seq, ["x"]) for seq in (2, 3)]
    assert [r.kind for r in replies] in (["score", "score"], ["crash", "score"]), replies
    first = next(r for r in replies if r.kind == "score")
    assert misbehaving.restarts == 1 and first.score == pytest.approx(0.501)  # a new driver's first answer


def test_a_driver_that_answers_twice_makes_the_next_request_a_protocol_error_and_shifts_nothing(
        misbehaving: ImplementationProcess) -> None:
    assert ask(misbehaving, 1, ["twice"]).score == pytest.approx(0.501)
    extra = ask(misbehaving, 2, ["x"])  # the repeated line came before this reply, or was read as it
    assert extra.kind == "protocol-error" and ("unexpected line(s) on stdout" in extra.message
                                               or "wrong seq: sent 2, the reply has 1" in extra.message)
    after = ask(misbehaving, 3, ["x"])
    assert after.kind == "score" and after.parsed is not None and after.parsed.seq == 3
    assert after.score == pytest.approx(0.503)  # in step


def test_a_replaced_driver_leaves_nothing_it_spawned(misbehaving: ImplementationProcess, tmp_path: Path) -> None:
    ask(misbehaving, 1, ["spawn"])  # a child, then a garbage line
    misbehaving.stop()
    assert not gone_within(with_marker(str(tmp_path)), 10)


def test_a_driver_that_cannot_start_cannot_be_driven_and_says_which(tmp_path: Path) -> None:
    from oracle.harness.transport import HandshakeError

    with pytest.raises(HandshakeError, match="could not start"):
        ImplementationProcess([str(tmp_path / "no-node"), driver_script("npm_bleu.js")]).start()


def test_a_runner_killed_leaves_no_driver(tmp_path: Path, metrax: Drivers) -> None:
    """A runner killed with SIGKILL (no clean-up of its own) while its driver is busy: the driver, started
    with the kernel's parent-death signal, is gone too."""
    library = tmp_path / "fake-site"
    script = textwrap.dedent(f"""
        import os, sys
        from oracle.harness.transport import ImplementationProcess, Reply
        from oracle.models.protocol import ScoreRequest
        argv = [sys.executable, {driver_script('venv_bleu.py')!r}, "metrax", {MetraxImplementation.handshake_json()!r}]
        process = ImplementationProcess(argv, env={{**os.environ, "PYTHONPATH": {str(library)!r}}}, timeout=60)
        process.start()
        request = ScoreRequest(level="corpus", segments=[{{"hypothesis": ["hang"], "references": [["a"]]}}],
                               weights=[1.0], seq=1)
        process.request(request.to_json())
    """)
    runner = subprocess.Popen([sys.executable, "-c", script],
                              env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)})
    try:
        drivers = wait_for(lambda: {pid: line for pid, line in descendants(runner.pid).items()
                                    if "venv_bleu.py" in line},
                           60, "the runner's driver starting")
        runner.kill()
        runner.wait(timeout=10)
    finally:
        if runner.poll() is None:
            runner.kill()
    left = gone_within(drivers, 10)
    assert not left, f"left running: {sorted(left.values())}"


def _venv_driver_module():
    """drivers/venv_bleu.py imported as a module (it needs nothing but the standard library)."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("venv_bleu_under_test", driver_script("venv_bleu.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_a_preloaded_library_loads_once_from_the_start_and_the_handshake_waits_for_it(monkeypatch):
    venv_bleu = _venv_driver_module()
    loads = []

    def slow_library(settings):  # an import that takes a while, then its scoring function
        time.sleep(0.2)
        loads.append(settings)
        return lambda command: 0.25

    monkeypatch.setattr(venv_bleu, "library", {"ragas": slow_library}.__getitem__)
    handshake = json.loads(MetraxImplementation.handshake_json())
    driver = venv_bleu.Driver("ragas", handshake, {"smoothing": {}})
    driver.preload()
    reply, stop = driver.answer(json.dumps({"cmd": "start", "protocol": 1}))
    assert reply == handshake and not stop
    assert loads == [{"smoothing": {}}]  # loaded before the handshake was answered (well within its wait)
    command = {"cmd": "score", "seq": 1, "level": "corpus", "weights": [0.5, 0.5], "smoothing": {"method": "none"},
               "lowercase": False, "segments": [{"hypothesis": ["a"], "references": [["a"]]}]}
    assert driver.answer(json.dumps(command))[0] == {"seq": 1, "score": 0.25}
    assert len(loads) == 1  # the score used what the start loaded


def test_a_preloaded_library_that_fails_to_load_answers_error_to_the_first_score(monkeypatch):
    venv_bleu = _venv_driver_module()

    def broken_library(settings):
        raise ImportError("No module named 'langchain_community.chat_models.vertexai'")

    monkeypatch.setattr(venv_bleu, "library", {"ragas": broken_library}.__getitem__)
    handshake = json.loads(MetraxImplementation.handshake_json())
    driver = venv_bleu.Driver("ragas", handshake)
    driver.preload()
    assert driver.answer(json.dumps({"cmd": "start", "protocol": 1}))[0] == handshake
    command = {"cmd": "score", "seq": 2, "level": "corpus", "weights": [1.0], "smoothing": {"method": "none"},
               "lowercase": False, "segments": [{"hypothesis": ["a"], "references": [["a"]]}]}
    reply = driver.answer(json.dumps(command))[0]
    assert reply["seq"] == 2 and "vertexai" in reply["error"]


# -- the venv driver's libraries: one module each, found by name ------------------------------------------------------

#: A library module of the driver's form (drivers/libraries/__init__.py): a `scorer(settings)` whose score is the
#: number of segments over 4, so that what it answers is known without any BLEU.
TOY_LIBRARY = '''
from . import text_segments


def scorer(settings):
    def score(command):
        return len(text_segments(command)) / 4

    return score
'''


def test_a_new_library_is_one_module_of_drivers_libraries_and_nothing_in_the_driver(tmp_path: Path) -> None:
    """docs/extending.md: a venv library's call is a module of drivers/libraries/ named after its registry entry's
    `driver_library` (`-` as `_`); the driver finds it by that name, its own file untouched. A copy of the driver's
    directory with one module added, `toy_counter.py`, serves `toy-counter`."""
    drivers = tmp_path / "drivers"
    shutil.copytree(Path(driver_script("venv_bleu.py")).parent, drivers,
                    ignore=shutil.ignore_patterns("__pycache__", "*.js"))
    (drivers / "libraries" / "toy_counter.py").write_text(TOY_LIBRARY, encoding="utf-8")
    handshake = MetraxImplementation.handshake_json()
    commands = [{"cmd": "start", "protocol": 1},
                {"cmd": "score", "seq": 1, "level": "corpus", "weights": [0.5, 0.5], "smoothing": {"method": "none"},
                 "lowercase": False, "segments": [{"hypothesis": ["a"], "references": [["a"]]},
                                                  {"hypothesis": ["b"], "references": [["c"]]}]},
                {"cmd": "stop"}]
    run = subprocess.run([sys.executable, str(drivers / "venv_bleu.py"), "toy-counter", handshake],
                         input="".join(json.dumps(command) + "\n" for command in commands), capture_output=True,
                         text=True, timeout=60, check=False)
    assert run.returncode == 0, run.stderr
    assert [json.loads(line) for line in run.stdout.splitlines()] == [json.loads(handshake), {"seq": 1, "score": 0.5}]
    # (2 segments / 4 = 0.5); a name with no module is a usage error naming those there are, the new one among them
    unknown = subprocess.run([sys.executable, str(drivers / "venv_bleu.py"), "toy_counter", handshake],
                             capture_output=True, text=True, timeout=60, check=False)
    assert unknown.returncode == 2 and unknown.stdout == ""
    assert unknown.stderr.startswith("usage: venv_bleu.py ") and "toy-counter" in unknown.stderr.split()[2].split("|")


def test_the_venv_driver_and_its_library_modules_import_only_the_standard_library_at_load() -> None:
    """They run in the library's environment, where bleu-oracle is not installed, and under history's old Pythons:
    the driver imports the standard library only; a library module imports the standard library and its siblings
    (`from . import ...`) at load, its library only inside `scorer`, when it is asked for."""
    import ast

    directory = Path(driver_script("venv_bleu.py")).parent
    outside = []
    for path in [directory / "venv_bleu.py", *sorted((directory / "libraries").glob("*.py"))]:
        tree = ast.parse(path.read_text(encoding="utf-8"))
        nodes = ast.walk(tree) if path.name == "venv_bleu.py" else iter(tree.body)
        for node in nodes:
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and not node.level:
                names = [node.module or ""]
            else:
                continue
            outside += [f"{path.name}: {name}" for name in names if name.split(".")[0] not in sys.stdlib_module_names]
    assert outside == []


#: Every library module loaded as the driver loads it, in a Python without site-packages (`-S -I`: no bleu-oracle,
#: no library), and the modules its loading imported that are not the standard library's.
LOADED_WITHOUT_SITE = '''
import importlib, importlib.util, json, sys
spec = importlib.util.spec_from_file_location("venv_bleu", sys.argv[1])
driver = importlib.util.module_from_spec(spec)
spec.loader.exec_module(driver)
declared = {}
for name in driver.library_names():
    module = importlib.import_module(driver.LIBRARIES_PACKAGE + "." + name.replace("-", "_"))
    declared[name] = [implementation["name"] for implementation in getattr(module, "IMPLEMENTATIONS", [])]
outside = sorted(name for name in sys.modules if name.split(".")[0] not in sys.stdlib_module_names
                 and name.split(".")[0] not in (driver.LIBRARIES_PACKAGE, "__main__", "venv_bleu"))
print(json.dumps({"declared": declared, "outside": outside}))
'''


def test_every_library_module_loads_with_the_standard_library_alone() -> None:
    """The registry imports every module of drivers/libraries/ to read its declaration, and the driver imports one in
    an environment without bleu-oracle: loading one, its declaration included, must need nothing but the standard
    library (its library is imported by `scorer()`). Each loads under `python -S -I`, and what it declares is what the
    registry reads (the venv entries, by module)."""
    from oracle.adapters import registry

    run = subprocess.run([sys.executable, "-S", "-I", "-c", LOADED_WITHOUT_SITE, driver_script("venv_bleu.py")],
                         capture_output=True, text=True, timeout=60, check=False)
    assert run.returncode == 0, run.stderr
    seen = json.loads(run.stdout)
    assert seen["outside"] == []
    by_module: dict[str, list[str]] = {}
    for entry in registry.of_kind("venv"):
        by_module.setdefault(entry.driver_library, []).append(entry.name)
    assert {name: names for name, names in seen["declared"].items() if names} == by_module


def test_the_split_characters_written_out_are_every_character_str_isspace_holds_in_all_of_unicode():
    from oracle.adapters.drivers.libraries import SPLIT_CHARACTERS

    assert SPLIT_CHARACTERS == "".join(chr(code) for code in range(0x110000) if chr(code).isspace())
    assert "a b\x1cc\u3000d".split() == ["a", "b", "c", "d"]  # str.split() splits on them (U+001C, U+3000)
