"""The bridge to a library in another process (node, a venv of its own): one JSON line out, one back.
A driver that crashes, hangs, floods or answers garbage is an error of that request, and the next
request gets a new driver; nothing is left running."""

from __future__ import annotations

import importlib.util
import json
import math
import subprocess
import sys
from pathlib import Path

import pytest

from oracle.adapters import bridge
from oracle.adapters.base import Rejected
from oracle.adapters.bridge import Bridge, DriverError
from oracle.formulas.errors import BleuOracleError

sys.path.insert(0, str(Path(__file__).parent))
from fakes.processes import gone_within, with_marker  # noqa: E402

# a driver whose answer to {"do": X} is chosen by X; it counts its requests, so a restart shows, and
# echoes each request's id as the bridge asks (except where X says otherwise)
DRIVER = r"""
import json, subprocess, sys, time
count = 0
def say(ident, **answer):
    print(json.dumps({"id": ident, **answer}), flush=True)
for line in sys.stdin:
    count += 1
    message = json.loads(line)
    do, ident = message["do"], message.get("id")
    if do.startswith("spawn-"):  # leave a child behind, named by the test's marker
        subprocess.Popen([sys.executable, "-c", "import time; time.sleep(120)", message["marker"]])
        do = do[len("spawn-"):]
    if do == "score":
        say(ident, score=repr(0.5 + count / 1000))
    elif do == "nan":
        say(ident, score="nan")
    elif do == "rejected":
        say(ident, rejected="ValueError: empty")
    elif do == "error":
        say(ident, error="IndexError: index 2 is out of bounds")
    elif do == "crash":
        sys.exit(7)
    elif do == "hang":
        time.sleep(60)
    elif do == "garbage":
        print("this is not json", flush=True)
    elif do == "other":
        say(ident, score=0.5)
    elif do == "flood":
        print("x" * 5000, flush=True)
    elif do == "unterminated":
        sys.stdout.write('{"id": %d, "score": "1.0"}' % ident); sys.stdout.flush(); sys.exit(0)
    elif do == "twice":
        say(ident, score=repr(0.5 + count / 1000))
        say(ident, score=repr(0.5 + count / 1000))
    elif do == "stale":
        say(ident - 1, score="0.25")
    elif do == "unnumbered":
        print(json.dumps({"score": "0.25"}), flush=True)
"""


@pytest.fixture
def driver():
    b = Bridge([sys.executable, "-c", DRIVER], what="test driver")
    yield b
    b.close()


def test_scores_rejections_and_errors_travel(driver):
    assert driver.call({"do": "score"}) == pytest.approx(0.501)
    assert math.isnan(driver.call({"do": "nan"}))
    with pytest.raises(Rejected, match="ValueError: empty"):
        driver.call({"do": "rejected"})
    with pytest.raises(DriverError, match="IndexError"):
        driver.call({"do": "error"})
    assert driver.call({"do": "score"}) == pytest.approx(0.505)  # the same process all along


@pytest.mark.parametrize("do,message", [
    ("crash", "test driver exited with 7 before answering"),
    ("garbage", "answered a line that is not JSON: 'this is not json"),
    ("other", "test driver answered '{\"id\": 1, \"score\": 0.5}"),
    ("unterminated", "ended its output in the middle of a line"),
])
def test_a_failing_driver_is_an_error_of_that_request_and_the_next_gets_a_new_one(driver, do, message):
    with pytest.raises(DriverError, match=message.replace("(", r"\(")) as raised:
        driver.call({"do": do})
    assert isinstance(raised.value, BleuOracleError) and isinstance(raised.value, RuntimeError)
    assert driver.call({"do": "score"}) == pytest.approx(0.501)  # count restarted: a new driver


def test_a_hanging_driver_times_out_and_is_killed(driver, monkeypatch):
    monkeypatch.setattr(bridge, "TIMEOUT", 0.5)
    driver.call({"do": "score"})
    hung = driver._proc
    with pytest.raises(DriverError, match="gave no answer"):
        driver.call({"do": "hang"})
    assert hung.poll() is not None  # killed, not left running
    assert driver.call({"do": "score"}) == pytest.approx(0.501)


def test_a_flooding_driver_is_cut_at_max_line(driver, monkeypatch):
    monkeypatch.setattr(bridge, "MAX_LINE", 1000)
    with pytest.raises(DriverError, match="longer than 1000 characters"):
        driver.call({"do": "flood"})
    assert driver.call({"do": "score"}) == pytest.approx(0.501)


def test_a_driver_that_cannot_start_is_an_error_naming_it():
    b = Bridge(["/nonexistent/driver"], what="missing driver")
    with pytest.raises(DriverError, match=r"missing driver could not start \(/nonexistent/driver\)"):
        b.call({"do": "score"})
    b.close()


def test_a_driver_that_answers_twice_is_an_error_of_the_next_request_and_shifts_nothing(driver):
    """The repeated answer carries the first request's id: the second request fails (its driver is
    replaced), and the third gets its own answer from a new driver, not the second's, one late."""
    assert driver.call({"do": "twice"}) == pytest.approx(0.501)
    with pytest.raises(DriverError, match=r"answered request 1 while request 2 was pending|when no request was pending"):
        driver.call({"do": "score"})
    assert driver.call({"do": "score"}) == pytest.approx(0.501)  # a new driver's first answer
    assert driver.call({"do": "score"}) == pytest.approx(0.502)  # and its second: in step


@pytest.mark.parametrize("do,message", [("stale", "answered request 1 while request 2 was pending"),
                                        ("unnumbered", "answered request None while request 2 was pending")])
def test_an_answer_naming_another_request_is_never_taken(driver, do, message):
    assert driver.call({"do": "score"}) == pytest.approx(0.501)
    with pytest.raises(DriverError, match=message):
        driver.call({"do": do})
    assert driver.call({"do": "score"}) == pytest.approx(0.501)  # replaced


@pytest.mark.parametrize("do", ["spawn-crash", "spawn-garbage", "spawn-hang", "spawn-stale"])
def test_a_replaced_driver_leaves_nothing_it_spawned(driver, monkeypatch, tmp_path, do):
    """The driver runs in a process group of its own, killed whole when it is replaced (after a crash,
    a timeout, an answer out of protocol), so a child it started does not outlive it."""
    monkeypatch.setattr(bridge, "TIMEOUT", 1.0)
    driver.call({"do": "score"})
    with pytest.raises(DriverError):
        driver.call({"do": do, "marker": str(tmp_path)})
    children = with_marker(str(tmp_path))
    assert not gone_within(children, 10)
    assert not with_marker(str(tmp_path))


def test_a_process_that_ends_leaves_no_driver_and_nothing_the_driver_spawned(tmp_path):
    """`serve --impl promptfoo` ends (end of input, stop) without closing its bridge: the driver and
    its children are stopped as the process exits."""
    script = f"""
import sys
from oracle.adapters.bridge import Bridge
bridge = Bridge([sys.executable, "-c", {DRIVER!r}])
print(bridge.call({{"do": "spawn-score", "marker": {str(tmp_path)!r}}}), flush=True)
"""
    done = subprocess.run([sys.executable, "-c", script, str(tmp_path / "server")], capture_output=True, text=True,
                          timeout=60)
    assert done.returncode == 0, done.stderr
    assert float(done.stdout) == pytest.approx(0.501)
    left = gone_within(with_marker(str(tmp_path)), 10)
    assert not left, f"left running after the process ended: {sorted(left.values())}"


def test_the_venv_driver_echoes_the_request_id():
    path = Path(bridge.__file__).parent / "drivers" / "venv_bleu.py"
    spec = importlib.util.spec_from_file_location("venv_bleu_driver", path)
    driver = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(driver)
    assert driver.reply('{"id": 4, "segments": []}', lambda message: 0.25) == {"id": 4, "score": "0.25"}
    assert driver.reply('{"id": 5}', lambda message: 1 / 0) == {"id": 5, "error": "ZeroDivisionError: division by zero"}
    assert driver.reply("not json", lambda message: 0.25)["id"] is None


def test_the_npm_driver_echoes_the_request_id():
    import shutil

    node = shutil.which("node")
    if node is None:
        pytest.skip("node is not installed")
    path = Path(bridge.__file__).parent / "drivers" / "npm_bleu.js"
    done = subprocess.run([node, str(path), "-", "-"], input='{"id": 9, "package": "left-pad"}\nnot json\n',
                          capture_output=True, text=True, timeout=60)
    answers = [json.loads(line) for line in done.stdout.splitlines()]
    assert [a["id"] for a in answers] == [9, None]
    assert "unknown package" in answers[0]["error"]
