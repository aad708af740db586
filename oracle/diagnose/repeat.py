"""One request answered two ways: the root cause no mechanism of the request names.

Before a failing record is reported, the harness sends its request once more (`oracle.harness.session`). An
implementation whose answer depends on the request alone answers it alike; one that answers it otherwise (a
score beyond the numeric contract of its first, other statistics, or an error once and a score the other time)
is nondeterministic there, and no shrinking, classification or reproduction line can be trusted to show the
same thing twice: the record is named `nondeterministic`, with both answers, and goes no further.

Two answers of the same kind that are no score (two errors, two refusals) are alike whatever their text: a
message may carry an address or a time. A second request that got no answer at all (a crash, a timeout, a
protocol error) says nothing about the first answer, and is not compared.
"""

from __future__ import annotations

from oracle.models.results import Classification

from .judge import Answered, Contract

#: The root cause's name.
NONDETERMINISTIC = "nondeterministic"
#: The kinds of reply that are an answer (the others tell nothing about what the implementation would answer).
ANSWER_KINDS = ("score", "rejected", "unsupported", "error")
#: How much of a message an answer's description keeps (characters).
MESSAGE_SHOWN = 120


def shown(reply: Answered) -> str:
    """An answer in the user's words: its score (as the stream writes it), or its kind and message."""
    if reply.kind == "score":
        score = reply.score
        return "NaN" if score is None or score != score else repr(float(score))
    message = reply.message or ""
    cut = message if len(message) <= MESSAGE_SHOWN else message[:MESSAGE_SHOWN] + "..."
    return f"{reply.kind} ({cut})" if cut else reply.kind


def answered_otherwise(first: Answered, again: Answered, contract: Contract) -> bool:
    """Whether `again`, the answer to the same request sent once more, differs from `first`: another kind of
    answer, or a score beyond the numeric contract `contract` of the first (NaN alike only to NaN), or other
    statistics (counts unequal, bp beyond the contract, statistics once and none the other time). False when
    either is no answer at all (a crash, a timeout, a protocol error)."""
    if first.kind not in ANSWER_KINDS or again.kind not in ANSWER_KINDS:
        return False
    if first.kind != again.kind:
        return True
    if first.kind != "score":
        return False
    if not contract.close(again.score, first.score):
        return True
    one, other = first.statistics, again.statistics
    if one is None or other is None:
        return (one is None) != (other is None)
    if any(getattr(one, name) != getattr(other, name) for name in ("hyp_len", "ref_len", "matches", "totals")):
        return True
    return not ((one.bp is None and other.bp is None) or contract.close(other.bp, one.bp))


def described(first: Answered, again: Answered) -> str:
    """`nondeterministic: the same request answered A and B`: both answers in the order they came."""
    return f"{NONDETERMINISTIC}: the same request answered {shown(first)} and {shown(again)}"


def nondeterministic(first: Answered, again: Answered, expected: float | None) -> Classification:
    """The root cause of a record whose request was answered `first`, then `again` (`answered_otherwise`);
    `expected`: the oracle's score, when it has one."""
    return Classification(
        parts=(NONDETERMINISTIC,),
        description=f"the same request answered {shown(first)} and {shown(again)} (sent once more: the answer "
                    "depends on more than the request, such as randomness, a race or uninitialised memory; no "
                    "shrinking or classification can be trusted on it, and a reproduction may pass)",
        change=(("answered", shown(first)), ("answered again", shown(again))),
        expected=expected,
        scope="outcome",
    )


#: How a nondeterministic record's reproduction line's note begins (a shell comment after the command).
NOTE_MARK = f"  # {NONDETERMINISTIC}:"


def reproduction_note(first: Answered, again: Answered) -> str:
    """What a nondeterministic record's reproduction line adds (a shell comment, starting with NOTE_MARK): it may
    pass."""
    return f"  # {described(first, again)}: this line may pass; run it more than once"


def without_note(line: str) -> tuple[str, str]:
    """(the command, the note after it) of a reproduction line (`reproduction_note`; "" when it has none)."""
    command, mark, note = line.rpartition(NOTE_MARK)
    return (command, mark + note) if mark else (line, "")


__all__ = ["NONDETERMINISTIC", "NOTE_MARK", "answered_otherwise", "described", "nondeterministic", "reproduction_note",
           "shown", "without_note"]
