"""What a block of examples affords its failures: which are shrunk, which are searched among every explanation,
and which are sent once more to be confirmed.

Every decision here depends only on the examples: on the failures judged before an example within its block of
SHRINK_BLOCK consecutive indices, in example order, never on the clock or on how the run is split. One process
keeps that bookkeeping itself (`oracle.harness.transport.RestartBudget`); `check --jobs` workers ask the parent,
which alone hears every worker's failures (`oracle.harness.worker.BudgetKeeper`), and a shard holds whole blocks
(`oracle.harness.shards`): the three write the same records.

- **Shrinking** (`shrink_allowed`): the first `--shrink-first` failures of each kind in a block are shrunk (tens of
  requests each); the root causes of those are what the kind's later failures are tested against first
  (`shrink_hints`).
- **The search among every explanation** (`full_search_allowed`): a later failure that none of those root causes
  explains is searched among every explanation (up to `classify.ATTRIBUTION_BUDGET` candidates times tokens, some
  ten seconds on a large input) for the first `--shrink-first` such failures of its kind in its block, and the
  names that search finds join the hints of the kind's later failures; after that, among the implementation's
  documented classes only, and named by what is known of the difference (`other-combination`, ...), its record
  saying so. A bug whose shrunk failure was named by a coincidence, or one that takes two names, then costs a
  bounded number of full searches per block, not one per failing record.
- **The tokens those searches spend** (`search_tokens_left`): the searches for a kind's failures not shrunk in a
  block (among its hints, among every explanation, and what is known of a failure left unnamed) share one budget in
  candidates times tokens: `SEARCH_TOKENS_PER_BLOCK`, plus `SEARCH_CANDIDATES_PER_FAILURE` candidates on each such
  failure's own input, less what the kind's searches of the block spent before it (a failure may always spend what
  it earns, so that a full search that spent the block's share leaves later failures enough to test their kind's
  names, and the kind's searches in a block spend at most the share, what its failures earn, and the one
  candidate each search may charge beyond what it was left). A search never spends more
  than is left (nor more than `classify.ATTRIBUTION_BUDGET`); one cut is named by what is known of it, its record
  saying so. Counted in token computations, as the attribution budget is, never in seconds: a failing run's
  searches cost at most a few candidates per token the fixed run judges, beyond a bounded sum per kind and block.
  A candidate is charged what computing it costs in that unit: one candidate on the input (its tokens, at least
  `classify.SEARCH_CANDIDATE_FLOOR`), a request reshaped by a structure its size, and a variant that scores pieces of
  the input alone (each segment, a batch of segments, each reference of a segment: a mean of sentence scores, a batch
  mean, the smoothing per segment) each piece as a candidate on that piece, at the floor too, once a search
  (`classify._Search.piece`): such a variant on a 2,000-segment input was charged one candidate on the corpus for
  2,000 exact scorings (benchmarks/README.md, segment-meter).
  What is known of a failure left unnamed is the oracle once and a few exact tests: its answer of 0 is not searched
  for the score stage's variants that give 0 (`classify.what_is_known`), which cost some thirty candidates a record
  beyond the share. The budget bounds the searches of failures not shrunk only: the shrunk (or first) failure's own
  classification (and `attribute.attribute_shrunk`'s search of its original input, up to `ATTRIBUTION_BUDGET` each),
  the documented classes, shrinking, the probes, the records and the reports are outside it (benchmarks/README.md,
  cost-bound, measures each).
- **One budget for a block's whole diagnosis** (`diagnosis_tokens_per_block`, run-cap; **off by default**:
  DIAGNOSIS_CANDIDATES_PER_TOKEN is 0, and the records are what they are without it): where it is set (the constant,
  or the environment variable RUN_CAP_VARIABLE, for a measurement), every search of a block's failures, every kind
  together, shares K candidates per token its examples judged (`diagnosis_tokens_earned`: a passing example counted
  at the floor, `classify.SEARCH_CANDIDATE_FLOOR`, since a `--jobs` parent hears failures only; a failing one at its
  input's tokens, which it may always spend): the shrunk (or first) failure's classification with its original
  input's search, the searches among the hints and among every explanation (each within its kind's share as well),
  its block's causes (each tried only where the budget has a trial's worth left), the search among the documented
  classes of an implementation that has none (what is known with the zero variants) and what is known (charged,
  never refused), kept under DIAGNOSIS_KIND in the same ledger as the kinds' shares, so that workers and shards
  decide alike. A search it cuts is named by what is known (or by a cause its block found for another kind), its
  record naming the diagnosis budget; a shrunk input named before the search of its original input was cut keeps its
  name, its record saying the search was cut. Still outside it: the documented classes of an implementation that
  has some (searched whole, as above), the told-apart requests, the error and death causes, shrinking and
  the state, order and special-token probes (requests to the implementation, each judged by the oracle once: not
  charged in this unit here), the records and the reports. benchmarks/README.md (run-cap) has the trade measured.
- **Evidence from other kinds** (`block_causes`): a failure whose search was not run or was cut is tested, before it
  is named by what is known, against the root causes its block named before it for other kinds of failure, each
  once (`oracle.harness.diagnosis`): a bug whose records split between kinds is named by what was found on one.
- **Sending a failure once more** (`resend_waived`): a failure's request is sent again before it is reported, so that
  an implementation answering one request two ways is named `nondeterministic` (`oracle.diagnose.repeat`). The first
  `--shrink-first` failures of each kind in a block are; after those were answered alike, a later failure of the
  same kind in the block is not (its record says so): where nearly every example fails, sending each once more
  doubled the requests. Where an example of the block was answered two ways, every later failure is sent again.
"""

from __future__ import annotations

import os

from oracle.diagnose.classify import SEARCH_CANDIDATE_FLOOR
from oracle.diagnose.repeat import NONDETERMINISTIC

#: Examples are grouped in blocks of this many consecutive indices for the shrink allowance: which
#: examples are shrunk depends only on the failures within an example's own block, so a run split
#: into workers (`--jobs`) or into whole blocks shrinks exactly what one process shrinks.
SHRINK_BLOCK = 50
#: Failing examples shrunk per kind of failure (outcome, layer, order) in each block, by default.
DEFAULT_SHRINK_FIRST = 1


def failure_kind(record_kind: str, outcome: str, layer: str | None, order: int | None) -> tuple:
    """The kind of failure the shrink allowance counts: a random example's (outcome, layer, order); a series
    step's or a stateful plan's with its record kind first, so they are counted apart."""
    return (outcome, layer, order) if record_kind == "example" else (record_kind, outcome, layer, order)


def _same_kind_before(index: int, kind: tuple, earlier: dict[int, list[tuple]]) -> list[int]:
    block = index // SHRINK_BLOCK
    return sorted(other for other, kinds in earlier.items()
                  if other < index and other // SHRINK_BLOCK == block for k in kinds if k == kind)


#: The kind a record answered two ways is charged as (`nondeterministic_before`): not a failure to shrink.
NONDETERMINISTIC_KIND = (NONDETERMINISTIC,)


def nondeterministic_before(index: int, earlier: dict[int, list[tuple]]) -> bool:
    """Whether an example before `index` in its block had a record answered two ways (NONDETERMINISTIC_KIND among
    its kinds in `earlier`): in example order and within the block, as the shrink allowance is, so that workers and
    shards decide alike."""
    block = index // SHRINK_BLOCK
    return any(other < index and other // SHRINK_BLOCK == block and NONDETERMINISTIC_KIND in kinds
               for other, kinds in earlier.items())


def shrink_allowed(index: int, kind: tuple, earlier: dict[int, list[tuple]], first: int) -> bool:
    """May a failure of example `index` (or of an input it brings along) of `kind` be shrunk? Yes for the first
    `first` examples failing in that kind within its block (`earlier`: example index -> the kinds of its
    failures judged so far), unless an earlier example of the block was answered two ways (`nondeterministic_before`:
    no shrinking can be trusted on that implementation). Shrinking costs tens of requests per example; the later
    failures of a kind are classified as they are, the root causes of the shrunk ones tried first (`shrink_hints`)."""
    return not nondeterministic_before(index, earlier) and len(_same_kind_before(index, kind, earlier)) < first


#: A root cause as the budget keeps it: its mechanisms (`Classification.parts`), never its written name.
Cause = tuple[str, ...]
#: The hint that an earlier example of the block was answered two ways (`shrink_hints`).
NONDETERMINISTIC_HINT: Cause = (NONDETERMINISTIC,)


def shrink_hints(index: int, kind: tuple, earlier: dict[int, list[tuple]],
                 causes: dict[tuple[int, tuple], tuple[Cause, ...]]) -> tuple[Cause, ...]:
    """The root causes named for the failures of `kind` shrunk before `index` in its block, with every
    explanation that fitted them as well (`causes`: (index, kind) -> each cause's parts), in example order, each
    once: what a failure not shrunk is tested against first. NONDETERMINISTIC_HINT first when an earlier example of
    the block was answered two ways (`nondeterministic_before`): the failure is then classified cheaply, not
    searched for."""
    names = [name for other in _same_kind_before(index, kind, earlier) for name in causes.get((other, kind), ())]
    seen = [NONDETERMINISTIC_HINT] if nondeterministic_before(index, earlier) else []
    return tuple(dict.fromkeys(seen + names))


def block_causes(index: int, kind: tuple, causes: dict[tuple[int, tuple], tuple[Cause, ...]]) -> tuple[Cause, ...]:
    """The root causes named in `index`'s block for failures of kinds other than `kind` in examples before it (a
    shrunk failure's name, or what a search among every explanation named: the first of each entry of `causes`,
    never the others that fitted as well), in example order, each once: what a failure of `kind` whose search was
    cut or not run is tested against, one evaluation each, before it is named by what is known. Within the block
    and in example order, as the hints are, so that workers and shards decide alike."""
    block = index // SHRINK_BLOCK
    named = sorted((other, repr(other_kind), names[0]) for (other, other_kind), names in causes.items()
                   if names and other < index and other // SHRINK_BLOCK == block and other_kind != kind)
    return tuple(dict.fromkeys(name for _other, _kind, name in named))


def full_search_allowed(index: int, kind: tuple, searched: dict[int, list[tuple]], first: int) -> bool:
    """May a failure of example `index` of `kind`, which none of its kind's shrunk failures' root causes explains,
    be searched among every explanation? Yes for the first `first` of its kind within its block (`searched`: example
    index -> the kinds of its failures searched so; at least one a block), in example order."""
    return len(_same_kind_before(index, kind, searched)) < max(first, 1)


def resend_waived(index: int, kind: tuple, earlier: dict[int, list[tuple]], first: int) -> bool:
    """Is a failure of example `index` of `kind` reported without its request sent once more? Yes once the first
    `first` failures of its kind in its block (at least one) were answered alike when sent again (`earlier`, as
    `shrink_allowed` reads it: a failure answered two ways is charged as NONDETERMINISTIC_KIND, not as its kind),
    unless an example before it in the block was answered two ways (`nondeterministic_before`)."""
    return not nondeterministic_before(index, earlier) and len(_same_kind_before(index, kind, earlier)) >= max(first, 1)


#: Token computations (candidates times the tokens each is computed on, as `classify.ATTRIBUTION_BUDGET` counts them)
#: the searches for a kind's failures not shrunk in a block share before what each failure adds: some 300 candidates
#: on a 1,200-token input, which is what realbleu.py's weights-not-passed-on and bleu-1-reported need to name their
#: mechanism on random-0-51 of seed 0 (at 100,000 it was cut after 56-59 and 15 and 33 later records of the block
#: lost the name), where the whole attribution budget (4,000,000) let one search on a 4,225-token input run 60 s.
SEARCH_TOKENS_PER_BLOCK = 400_000
#: What each failure not shrunk adds to its kind's search budget in its block: this many candidates on its own
#: input, enough for the search among its kind's names (4 left two 130,000-token failures of realbleu.py's
#: padding-counted without their kind's name, for no time saved: its candidates reuse the counts), so that the
#: searches of a failing run cost a few candidates per failing input beyond SEARCH_TOKENS_PER_BLOCK per kind.
SEARCH_CANDIDATES_PER_FAILURE = 8


def search_tokens_earned(tokens: int) -> int:
    """What a failure not shrunk, of `tokens` tokens, adds to its kind's search budget in its block."""
    return SEARCH_CANDIDATES_PER_FAILURE * max(int(tokens), 1)


def search_tokens_left(index: int, kind: tuple, charged: dict[int, list[tuple[tuple, int]]]) -> int:
    """The token computations the searches for a failure of example `index`, of `kind`, not shrunk, may spend,
    before what its own example earned and spent: SEARCH_TOKENS_PER_BLOCK less what the failures of its kind in
    examples before it in its block spent beyond what they earned (`charged`: example index -> (kind, token
    computations spent less those earned) for each failure so charged), in example order, so that workers and
    shards decide alike. Negative where those searches spent more than their share (a search is never refused
    what is known, the oracle once and a few exact tests)."""
    block = index // SHRINK_BLOCK
    spent = sum(tokens for other, charges in charged.items() if other < index and other // SHRINK_BLOCK == block
                for charged_kind, tokens in charges if charged_kind == kind)
    return (diagnosis_tokens_per_block() if kind == DIAGNOSIS_KIND else SEARCH_TOKENS_PER_BLOCK) - spent


#: One budget for a block's whole diagnosis (run-cap, benchmarks/README.md): how many candidates, at the floor
#: (`classify.SEARCH_CANDIDATE_FLOOR`), each token the block's examples judged affords the searches of all its failures,
#: every kind together: the shrunk (or first) failure's own classification with its original input's, the searches
#: among the hints and among every explanation, the block's causes and what is known. 0: off, the default (no such
#: budget; the records are main's). The one constant both readings of issue 36's bound are measured with; the
#: environment variable RUN_CAP_VARIABLE overrides it, for a measurement (inherited by `check --jobs` workers).
DIAGNOSIS_CANDIDATES_PER_TOKEN = 0
RUN_CAP_VARIABLE = "BLEU_ORACLE_RUN_CAP"
#: The key the block's diagnosis budget is charged under in `charged` (`search_tokens_left`), beside the failure
#: kinds' (a tuple of three or four): one ledger for every kind of the block.
DIAGNOSIS_KIND = ("diagnosis",)


def diagnosis_candidates_per_token() -> int:
    """DIAGNOSIS_CANDIDATES_PER_TOKEN, or RUN_CAP_VARIABLE's value where it is set to a whole number (0: off)."""
    value = os.environ.get(RUN_CAP_VARIABLE, "").strip()
    return max(int(value), 0) if value.isdigit() else DIAGNOSIS_CANDIDATES_PER_TOKEN


def diagnosis_tokens_per_block() -> int:
    """What a block's diagnosis may spend before its failures earn theirs (`diagnosis_tokens_earned`): its
    SHRINK_BLOCK examples judged, each counted at the floor (the parent of `--jobs` hears failures only, so a
    passing example's tokens are not known to it: the floor is what judging any example costs at least), times
    `diagnosis_candidates_per_token`."""
    return diagnosis_candidates_per_token() * SHRINK_BLOCK * SEARCH_CANDIDATE_FLOOR


def diagnosis_tokens_earned(tokens: int) -> int:
    """What a failing example's input of `tokens` tokens adds to its block's diagnosis budget: what judging it cost
    beyond the floor `diagnosis_tokens_per_block` counted it at, times `diagnosis_candidates_per_token` (a failure
    may always spend it, as `search_tokens_earned`)."""
    return diagnosis_candidates_per_token() * max(int(tokens) - SEARCH_CANDIDATE_FLOOR, 0)
