"""benchmarks/replay_impl.py, the near-free implementation the runner's own throughput is measured with: what it
records it replays, seq for seq, and a request it never recorded ends it (so a replay run cannot pass for a
measurement of requests other than the recorded ones). Also jobs_throughput's CPU ceiling arithmetic."""

import subprocess
import sys
from pathlib import Path

from fakes.harness import benchmark_module

ROOT = Path(__file__).resolve().parents[2]
REPLAY = ROOT / "benchmarks" / "replay_impl.py"
#: a stand-in implementation: answers each score request with its seq times 0.25, the start with a handshake
ECHO = ("import json,sys\nfor line in sys.stdin:\n    m=json.loads(line)\n    if m['cmd']=='stop': break\n"
        "    r={'protocol':1} if m['cmd']=='start' else {'seq':m['seq'],'score':m['seq']*0.25}\n"
        "    print(json.dumps(r),flush=True)\n")
START = '{"cmd":"start","protocol":1}\n'


def _score(seq, tokens):
    segments = f'[{{"hypothesis":{tokens},"references":[{tokens}]}}]'
    options = '"weights":[1.0],"smoothing":{"method":"none"},"lowercase":false'
    return f'{{"cmd":"score","seq":{seq},"level":"corpus","segments":{segments},{options}}}\n'


def _run(args, lines):
    return subprocess.run([sys.executable, str(REPLAY), *args], input="".join(lines), capture_output=True, text=True,
                          timeout=60)


def test_replay_answers_what_was_recorded_under_the_new_seq(tmp_path):
    table = tmp_path / "table"
    recorded = _run(["record", str(table), "--", sys.executable, "-c", ECHO],
                    [START, _score(1, '["a"]'), _score(2, '["b"]'), '{"cmd":"stop"}\n'])
    assert recorded.returncode == 0, recorded.stderr
    assert recorded.stdout.splitlines() == ['{"protocol": 1}', '{"seq": 1, "score": 0.25}', '{"seq": 2, "score": 0.5}']
    # the same requests under other seq numbers, in another order: the recorded answer of each, with its new seq
    replayed = _run(["replay", str(table)], [START, _score(7, '["b"]'), _score(9, '["a"]'), '{"cmd":"stop"}\n'])
    assert replayed.returncode == 0, replayed.stderr
    assert replayed.stdout.splitlines() == ['{"protocol": 1}', '{"seq":7, "score": 0.5}', '{"seq":9, "score": 0.25}']


def test_a_request_never_recorded_ends_the_replay(tmp_path):
    table = tmp_path / "table"
    _run(["record", str(table), "--", sys.executable, "-c", ECHO], [START, _score(1, '["a"]'), '{"cmd":"stop"}\n'])
    replayed = _run(["replay", str(table)], [START, _score(2, '["c"]')])
    assert replayed.returncode == 3
    assert "not recorded" in replayed.stderr


def test_the_ceiling_is_two_cores_over_the_cpu_a_record_costs():
    ceiling = benchmark_module("jobs_throughput").ceiling
    # by hand: 4 s of CPU (1 + 2 + 1) for 2,000 records is 2 ms a record, so 2 cores give 1,000 records/s; the runner's
    # 3 s over 6,000 requests is 0.5 ms a request, the implementation's 1 s 0.167 ms
    run = {"cpu": {"parent": 1.0, "workers": 2.0, "implementation": 1.0}, "records": 2000, "requests": 6000}
    assert ceiling([run]) == ("CPU per record 2.00 ms, so at most 1,000 records/s on 2 idle cores; per request: "
                              "runner 0.500 ms, implementation 0.167 ms")
