"""The bridge to a library in another process (node, a venv of its own): one JSON line out, one back.
A driver that crashes, hangs, floods or answers garbage is an error of that request, and the next
request gets a new driver; nothing is left running."""

from __future__ import annotations

import math
import sys

import pytest

from oracle.adapters import bridge
from oracle.adapters.base import Rejected
from oracle.adapters.bridge import Bridge, DriverError
from oracle.formulas.errors import BleuOracleError

# a driver whose answer to {"do": X} is chosen by X; it counts its requests, so a restart shows
DRIVER = r'''
import json, sys, time
count = 0
for line in sys.stdin:
    count += 1
    do = json.loads(line)["do"]
    if do == "score":
        print(json.dumps({"score": repr(0.5 + count / 1000)}), flush=True)
    elif do == "nan":
        print(json.dumps({"score": "nan"}), flush=True)
    elif do == "rejected":
        print(json.dumps({"rejected": "ValueError: empty"}), flush=True)
    elif do == "error":
        print(json.dumps({"error": "IndexError: index 2 is out of bounds"}), flush=True)
    elif do == "crash":
        sys.exit(7)
    elif do == "hang":
        time.sleep(60)
    elif do == "garbage":
        print("this is not json", flush=True)
    elif do == "other":
        print(json.dumps({"score": 0.5}), flush=True)
    elif do == "flood":
        print("x" * 5000, flush=True)
    elif do == "unterminated":
        sys.stdout.write('{"score": "1.0"}'); sys.stdout.flush(); sys.exit(0)
'''


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
    ("other", "test driver answered '{\"score\": 0.5}"),
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
