"""What an error's probe says (`oracle.harness.diagnosis._errs`, the `errorcauses.Ask` the error search is given): an
error, an answer, or nothing. Nothing, too, where the implementation refuses a probe the formulas refuse as well: its
validation answered before the code that errs could run. Set A's `average:stage_clip:99:14` (the clip's sum made a
mean, `ZeroDivisionError` where a segment has no window of an order) was named `error-when-order-above-2` because its
order lowered to 2 sent the weights (0, 0), which both it and the formulas refuse as all zero.

Holds: oracle.harness.diagnosis
"""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from oracle.harness.diagnosis import _errs
from oracle.harness.replies import Reply
from oracle.models.protocol import Capabilities, ScoreRequest

CAPABLE = Capabilities(levels=["corpus", "sentence"], weights="any", max_order=12, smoothing=["none"],
                       statistics=True, lowercase=True)


def _context(kind, raw=None):
    """A diagnosis context whose implementation answers every probe with a reply of `kind` (its line `raw`)."""
    channel = SimpleNamespace(transport=SimpleNamespace(given_up=False), submit=lambda probe: (probe, None),
                              collect=lambda sent, pending, kept: Reply(kind, message="a reply", raw=raw))
    return SimpleNamespace(process=channel.transport, capabilities=CAPABLE, channel=channel, profile="papineni")


def _probe(weights):
    return ScoreRequest.model_validate({"cmd": "score", "seq": 1, "level": "corpus", "weights": weights,
                                        "segments": [{"hypothesis": ["a", "b"], "references": [["a", "b"]]}]})


@pytest.mark.parametrize("kind, weights, says", [
    ("error", [0.5, 0.5], True),
    ("unsupported", [0.5, 0.5], True),
    ("rejected", [0.5, 0.5], False),  # a valid input refused: answered, not erred (the implementation's own answer)
    ("rejected", [0.0, 0.0], None),  # every weight 0: the formulas refuse it too, so the refusal says nothing
    ("error", [0.0, 0.0], True),  # an error there is still an error
    ("crash", [0.5, 0.5], None),
])
def test_a_probe_says_error_answered_or_nothing(kind, weights, says):
    assert _errs(_probe(weights), _context(kind)) is says


@pytest.mark.parametrize("raw, says", [
    # the same mutant's neighbour "a" / "a": its mean clipped count 1/1 written 1.0, a score answered
    ('{"seq": 1, "score": 1.0, "statistics": {"hyp_len": 1, "ref_len": 1, "matches": [1.0], "totals": [1]}}', False),
    # a line that is no score reply (a traceback printed on stdout, say): it may be an error; nothing is known
    ("Traceback (most recent call last):", None),
])
def test_a_protocol_error_is_an_answer_only_where_it_is_a_score_with_counts_written_as_floats(raw, says):
    assert _errs(_probe([1.0]), _context("protocol-error", raw)) is says
