"""What a mechanism is: one root cause the diagnosis can name, declared once (`Mechanism`).

A mechanism is what an implementation's code does where it departs from the formulas (a convention's other rule,
another counting, a tokenizer rule left out, a state kept wrongly, a computation on the oracle's values, an input
it errs on), never a library. Its name is what records, baselines and reports carry; its description is what they
show beside the name; its kind says which of the diagnosis's steps finds it; its layers say which part of an answer
it can account for; its cost says what trying it spends; its routes say how it is computed.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

#: The kinds of mechanism (docs/mechanisms.md says what each means).
CONVENTION = "convention"
SMOOTHING = "smoothing"
COUNTING = "counting"
TEXT = "text"
STRUCTURE = "structure"
STATE = "state"
COMBINATION = "combination"
COMPUTATION = "computation"
ERROR = "error"
KINDS = (CONVENTION, SMOOTHING, COUNTING, TEXT, STRUCTURE, STATE, COMBINATION, COMPUTATION, ERROR)

#: What trying a mechanism costs, cheapest first: a comparison of values already at hand; arithmetic on the
#: oracle's own values or the oracle recomputed (each try charged one pass over the request's tokens, the
#: classifier's budget unit); the implementation asked again (a neighbouring input, or a probe).
FREE = "free"
RECOMPUTE = "recompute"
PROBE = "probe"
COSTS = (FREE, RECOMPUTE, PROBE)

#: The layers of an answer a mechanism can account for: the statistics' fields, the score, or an error answer.
COUNT_LAYERS = frozenset({"hyp_len", "ref_len", "matches", "totals"})
SCORE = frozenset({"score"})
BP = frozenset({"bp"})
EVERY_LAYER = COUNT_LAYERS | BP | SCORE
ERROR_ANSWER = frozenset({"error"})


@dataclass(frozen=True)
class Route:
    """One way the diagnosis computes a mechanism: `via` which declaration (`computation`: a function of the
    request's context and the oracle's result, `mechanisms.computations.COMPUTATIONS`; `counting`: counts compared as
    integers, `mechanisms.counting.COUNTING_ALTERNATIVES`; `departure`: a tokenizer departure,
    `mechanisms.text.DEPARTURES`; `statistics`: the statistics a metric state ends with; `options`: the oracle under
    changed options; `smoothing`: under another smoothing; `history`: the process's earlier requests; `probe`:
    neighbouring inputs asked), `how` (the function, the declaration's entry or the option changes) and the `words`
    a record found this way shows (some mechanisms are worded twice, and a record keeps the words of the route that
    found it)."""

    via: str
    how: object
    words: str


@dataclass(frozen=True)
class Mechanism:
    """One root cause the diagnosis can name.

    `name` is the name records carry (a `family`'s is a stem: every name starting with it is the family's, e.g.
    `smoothing=` or `error-when-`); `description` is what a report shows for it where no record gave its own words
    (`describe`); `layers` what it can account for (`COUNT_LAYERS`, `SCORE`, `BP`, `ERROR_ANSWER`); `cost` one of
    COSTS; `routes` how it is computed, the first one's words being its description unless given."""

    name: str
    kind: str
    description: str
    layers: frozenset[str]
    cost: str
    routes: tuple[Route, ...] = ()
    #: a stem naming a family of mechanisms: every name that starts with it
    family: bool = False
    #: for a family: the words of one of its names (None: the family's description)
    words_of: Callable[[str], str] | None = None
    #: named for a run's records only with evidence (two records or a probe: `oracle.diagnose.cover`)
    needs_evidence: bool = False
    #: a computation the classifier also tries with a convention or two (`classify._tiers`), not only alone
    pairs_with_conventions: bool = True
    #: False for a computation whose counts are not modelled (a token's own reading of the text): only the lengths it
    #: keeps (c and r, the oracle's) are compared with the statistics an implementation returns (`classify`)
    counts_modelled: bool = True

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise ValueError(f"mechanism {self.name!r}: kind {self.kind!r} is not one of {KINDS}")
        if self.cost not in COSTS:
            raise ValueError(f"mechanism {self.name!r}: cost {self.cost!r} is not one of {COSTS}")
        if not self.description.strip():
            raise ValueError(f"mechanism {self.name!r} has no description to show in reports")

    def words(self, via: str) -> str:
        """The words a record found by route `via` shows (the description where no route is `via`)."""
        return next((route.words for route in self.routes if route.via == via), self.description)

    def route(self, via: str) -> Route | None:
        return next((route for route in self.routes if route.via == via), None)

    def describe(self, name: str) -> str:
        """What `name` (this mechanism's, or one of its family's) means, in words."""
        return self.words_of(name) if self.family and self.words_of is not None else self.description


def docstring_words(function: Callable) -> str:
    """A function's docstring on one line, the words reports show for the mechanism it computes (a computation without
    one is a bug: TypeError)."""
    if not function.__doc__:
        raise TypeError(f"computation {function.__name__} has no docstring to describe it in reports")
    return " ".join(function.__doc__.split())


__all__ = ["BP", "COMBINATION", "COMPUTATION", "CONVENTION", "COSTS", "COUNTING", "COUNT_LAYERS", "ERROR",
           "ERROR_ANSWER", "EVERY_LAYER", "FREE", "KINDS", "PROBE", "RECOMPUTE", "Mechanism", "Route", "SCORE",
           "SMOOTHING", "STATE", "STRUCTURE", "TEXT", "docstring_words"]
