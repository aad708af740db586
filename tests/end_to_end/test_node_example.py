"""examples/node-bleu/bleu.js, driven over protocol v1, against hand-derived values and the oracle.

Every expected value is derived by hand in its comment (Papineni et al. 2002, section 2;
MATLAB's bleuEvaluationScore documentation for the first two); the oracle must agree
with the same values, and the two must report the same statistics.
"""

from __future__ import annotations

import math
import shutil
from pathlib import Path

import pytest
from protocol_client import Client

from oracle.adapters.base import Rejected
from oracle.adapters.oracle_adapter import OracleImplementation
from oracle.diagnose.judge import Contract
from oracle.models.protocol import Handshake, ScoreReply, ScoreRequest, decode

ROOT = Path(__file__).resolve().parents[2]
BLEU_JS = ROOT / "examples" / "node-bleu" / "bleu.js"
NODE = shutil.which("node")
REPLY_TIMEOUT = 60  # a safety net against a hung process, not a timing assertion

pytestmark = pytest.mark.skipif(NODE is None, reason="node is not on PATH (needed to run examples/node-bleu/bleu.js)")

MATLAB_HYP = "The fast brown fox jumped over the lazy dog ."
MATLAB_REFS = ["The quick brown animal jumped over the lazy dog .", "The quick brown fox jumped over the lazy dog ."]
THE = ("the the the the the the", ["the cat is on the mat"])
NONE = {"method": "none"}

# id -> (segments [(hyp, [refs])], weights, level, smoothing, lowercase, expected score,
#        expected (c, r, matches, totals))
CASES = {
    # MATLAB: matches 9/10, 7/9, 6/8, 5/7, c = r = 10: (0.375)^(1/4) = 0.7825
    "matlab-bleu4": (
        [(MATLAB_HYP, MATLAB_REFS)],
        [0.25] * 4,
        "corpus",
        NONE,
        False,
        0.375**0.25,
        (10, 10, [9, 7, 6, 5], [10, 9, 8, 7]),
    ),
    # MATLAB: (9/10 * 7/9)^(1/2) = 0.8367
    "matlab-bleu2-sentence": (
        [(MATLAB_HYP, MATLAB_REFS)],
        [0.5, 0.5],
        "sentence",
        NONE,
        False,
        0.7**0.5,
        (10, 10, [9, 7], [10, 9]),
    ),
    # weights as given, not normalised: (9/10)^1 * (7/9)^1 = 0.7
    "weights-as-given": ([(MATLAB_HYP, MATLAB_REFS)], [1, 1], "corpus", NONE, False, 0.7, (10, 10, [9, 7], [10, 9])),
    # Papineni 2.1: "the" clipped to 2; no bigram matches: 0
    "clipping": ([THE], [0.25] * 4, "corpus", NONE, False, 0.0, (6, 6, [2, 0, 0, 0], [6, 5, 4, 3])),
    # a zero weight switches its order off: (2/6)^1
    "zero-weight-order": ([THE], [1, 0], "corpus", NONE, False, 1 / 3, (6, 6, [2, 0], [6, 5])),
    # floor 0.1: p = 2/6, 0.1/5, 0.1/4, 0.1/3
    "floor": (
        [THE],
        [0.25] * 4,
        "corpus",
        {"method": "floor", "value": 0.1},
        False,
        (2 / 6 * 0.1 / 5 * 0.1 / 4 * 0.1 / 3) ** 0.25,
        (6, 6, [2, 0, 0, 0], [6, 5, 4, 3]),
    ),
    # exp: the k-th order without matches gets 1/2^k: p = 2/6, (1/2)/5, (1/4)/4, (1/8)/3
    "exp": (
        [THE],
        [0.25] * 4,
        "sentence",
        {"method": "exp"},
        False,
        (2 / 6 * 0.5 / 5 * 0.25 / 4 * 0.125 / 3) ** 0.25,
        (6, 6, [2, 0, 0, 0], [6, 5, 4, 3]),
    ),
    # clipping takes the largest count in any single reference: "the" 2 (second ref), "the the" 1: (2/3 * 1/2)^(1/2)
    "clip-per-reference": (
        [("the the the", ["the cat", "the the dog"])],
        [0.5, 0.5],
        "corpus",
        NONE,
        False,
        (1 / 3) ** 0.5,
        (3, 3, [2, 1], [3, 2]),
    ),
    # brevity: c = 2, r = 6: BP = e^(1 - 6/2), precisions 1
    "brevity": (
        [("the cat", ["the cat sat on the mat"])],
        [0.5, 0.5],
        "corpus",
        NONE,
        False,
        math.exp(-2),
        (2, 6, [2, 1], [2, 1]),
    ),
    # r ties between 2 and 4 for c = 3 go to the shorter: r = 2 < c, BP = 1, p1 = 3/3
    "reference-length-tie": ([("a b c", ["a b c d", "a b"])], [1], "corpus", NONE, False, 1.0, (3, 2, [3], [3])),
    # corpus: sums before dividing: c = 3 + 2, r = 6 + 2, p1 = 5/5, p2 = 3/3: BP = e^(1 - 8/5)
    "corpus-sums": (
        [("the cat sat", ["the cat sat on the mat"]), ("a dog", ["a dog"])],
        [0.5, 0.5],
        "corpus",
        NONE,
        False,
        math.exp(1 - 8 / 5),
        (5, 8, [5, 3], [5, 3]),
    ),
    # an order with no hypothesis n-grams (3- and 4-grams of 2 tokens) counts p_n = 0: 0
    "order-without-ngrams": (
        [("a b", ["a b"])],
        [0.25] * 4,
        "corpus",
        NONE,
        False,
        0.0,
        (2, 2, [2, 1, 0, 0], [2, 1, 0, 0]),
    ),
    # case folding: "The Cat" matches "the cat" only when folded
    "lowercase": ([("The Cat", ["the cat"])], [0.5, 0.5], "corpus", NONE, True, 1.0, (2, 2, [2, 1], [2, 1])),
    "case-sensitive": ([("The Cat", ["the cat"])], [0.5, 0.5], "corpus", NONE, False, 0.0, (2, 2, [0, 0], [2, 1])),
    "unicode-tokens": ([("Straße 東京 ☃", ["Straße 東京 ☃"])], [1], "sentence", NONE, False, 1.0, (3, 3, [3], [3])),
    # an empty hypothesis scores 0 (BP is 0, the limit of e^(1 - r/c) as c -> 0)
    "empty-hypothesis": ([("", ["a b"])], [0.5, 0.5], "corpus", NONE, False, 0.0, (0, 2, [0, 0], [0, 0])),
    # nothing on either side: every p_n and r/c are 0/0: NaN (profile papineni)
    "all-empty": ([("", [""])], [0.25] * 4, "corpus", NONE, False, math.nan, (0, 0, [0, 0, 0, 0], [0, 0, 0, 0])),
}

REJECTED = {
    "negative-weight": ([(MATLAB_HYP, MATLAB_REFS)], [0.5, -0.5], "corpus", NONE),
    "all-zero-weights": ([(MATLAB_HYP, MATLAB_REFS)], [0, 0], "corpus", NONE),
    "no-references": ([(MATLAB_HYP, [])], [0.5, 0.5], "corpus", NONE),
    "no-segments": ([], [0.5, 0.5], "corpus", NONE),
    "negative-floor": ([(MATLAB_HYP, MATLAB_REFS)], [0.5, 0.5], "corpus", {"method": "floor", "value": -1}),
}


def command(seq, segments, weights, level, smoothing, lowercase=False):
    return {
        "cmd": "score", "seq": seq, "level": level,
        "segments": [{"hypothesis": h.split(), "references": [r.split() for r in refs]} for h, refs in segments],
        "weights": weights, "smoothing": smoothing, "lowercase": lowercase,
    }


@pytest.fixture(scope="module")
def node():
    process = Client([NODE, str(BLEU_JS)])
    yield process
    code, rest = process.finish()
    assert code == 0 and rest == []  # exits on stop, nothing after it


def test_handshake(node):
    handshake = Handshake.from_json(node.ask({"cmd": "start", "protocol": 1}))
    assert handshake.profile == "papineni"
    assert handshake.implementation.language == "javascript"
    assert set(handshake.capabilities.smoothing) == {"none", "floor", "exp"}
    assert handshake.capabilities.statistics


def test_unknown_protocol_version(node):
    assert set(node.ask({"cmd": "start", "protocol": 2})) == {"error"}


@pytest.mark.parametrize("case_id", list(CASES))
def test_node_scores_agree_with_hand_values_and_the_oracle(node, case_id):
    segments, weights, level, smoothing, lowercase, expected, (c, r, matches, totals) = CASES[case_id]
    message = command(len(case_id), segments, weights, level, smoothing, lowercase)
    reply = ScoreReply.from_json(node.ask(message))
    assert reply.seq == len(case_id) and reply.outcome == "score"
    assert Contract().close(reply.score, expected), (reply.score, expected)
    stats = reply.statistics
    assert (stats.hyp_len, stats.ref_len, list(stats.matches), list(stats.totals)) == (c, r, matches, totals)

    oracle = OracleImplementation("papineni").score(ScoreRequest.from_json(message))
    assert Contract().close(oracle.score, expected), (oracle.score, expected)
    assert {k: oracle.statistics[k] for k in ("hyp_len", "ref_len", "matches", "totals")} == {
        "hyp_len": c, "ref_len": r, "matches": matches, "totals": totals}
    assert Contract().close(stats.bp, oracle.statistics["bp"])


@pytest.mark.parametrize("case_id", list(REJECTED))
def test_node_rejects_what_the_oracle_rejects(node, case_id):
    message = command(99, *REJECTED[case_id])
    reply = ScoreReply.from_json(node.ask(message))
    assert reply.outcome == "rejected", reply
    with pytest.raises(Rejected):
        OracleImplementation("papineni").score(ScoreRequest.from_json(message))


def test_node_declines_smoothing_it_does_not_implement(node):
    reply = node.ask(
        command(5, [(MATLAB_HYP, MATLAB_REFS)], [0.5, 0.5], "corpus", {"method": "chen-cherry-1", "epsilon": 0.1})
    )
    assert reply["seq"] == 5 and "unsupported" in reply and "chen-cherry-1" in reply["unsupported"]


def test_node_survives_garbage(node):
    node.process.stdin.write(b"garbage\n")
    node.process.stdin.flush()
    reply = decode(node.lines.get(timeout=REPLY_TIMEOUT))
    assert set(reply) == {"error"}
    reply = node.ask(command(6, [(MATLAB_HYP, MATLAB_REFS)], [0.5, 0.5], "corpus", NONE))
    assert reply["seq"] == 6 and Contract().close(reply["score"], 0.7 ** 0.5)

