"""`Channel`: what the process had returned before the reply read last (`returned_before`), which a failure's diagnosis
reads (`oracle.diagnose.stale.accumulated_statistics`, the order probes' `Seen`).

Holds: oracle.harness.channel
"""

from __future__ import annotations

from oracle.harness.channel import Channel
from oracle.harness.replies import Reply
from oracle.models.protocol import ScoreReply, ScoreRequest, Statistics

REQUEST = ScoreRequest.model_validate({"cmd": "score", "seq": 1, "level": "sentence", "weights": [0.5, 0.5],
                                       "segments": [{"hypothesis": ["a", "b"], "references": [["a", "b"]]}]})


class Answers:
    """A transport that answers each request with the next of `replies` (a list of `Reply`)."""

    restarts = 0

    def __init__(self, replies: list[Reply]) -> None:
        self.replies = list(replies)

    def submit(self, command, line=None):
        return command

    def collect(self, pending) -> Reply:
        return self.replies.pop(0)


def _score(matches: tuple[int, ...], with_statistics: bool = True) -> Reply:
    statistics = Statistics(hyp_len=2, ref_len=2, matches=matches, totals=(2, 1, 0, 0)[:len(matches)])
    return Reply("score", ScoreReply(seq=1, score=1.0, statistics=statistics if with_statistics else None))


def test_returned_before_is_what_the_process_had_returned_before_the_last_reply() -> None:
    two, other_two, four = _score((2, 1)), _score((1, 0)), _score((2, 1, 0, 0))
    replies = [two, other_two, four, _score((2, 1), with_statistics=False), two, Reply("crash"), two]
    channel = Channel(Answers(replies), "papineni")
    seen = []
    for _ in replies:
        channel.send(REQUEST)
        seen.append(channel.returned_before)
    assert seen == [
        (),                                                        # nothing returned before the first reply
        ((2, two.statistics),),                                    # the first reply's, by its two orders
        ((2, other_two.statistics),),                              # the second replaced it (as many orders)
        ((2, other_two.statistics), (4, four.statistics)),         # four orders beside two, sorted by orders
        None,                                                      # a score without statistics: unknown since
        (),                                                        # a crash: the process is gone, and what it kept
        (),                                                        # the new process had returned nothing
    ]
    assert channel.returned == {2: two.statistics}
