"""What a block of examples affords its failures (`oracle.harness.budget`): each rule is a function of the failures
judged before an example within its block, hand-derived here; the runs that show one process, `--jobs` and shards
deciding alike are in tests/harness/test_jobs.py, tests/harness/test_shards.py and tests/diagnose/test_confirm.py.

Holds: oracle.harness.budget, oracle.harness.diagnosis
"""

from __future__ import annotations

import json
import sys

from oracle.harness.budget import SHRINK_BLOCK, failure_kind, shrink_allowed

SCORE = ("fail", "score", None)


def test_a_series_step_and_an_example_failing_alike_are_kinds_apart():
    # an example's kind is (outcome, layer, order); a series step's has "series" first: one shrink each per block
    assert failure_kind("example", "fail", "score", None) == SCORE
    series = failure_kind("series", "fail", "score", None)
    assert series == ("series", "fail", "score", None)
    assert shrink_allowed(3, series, {1: [SCORE]}, 1) is True
    assert shrink_allowed(3, SCORE, {1: [SCORE]}, 1) is False
    assert shrink_allowed(SHRINK_BLOCK, SCORE, {1: [SCORE]}, 1) is True  # example 50 starts the next block


# -- the searches among every explanation --------------------------------------------------------------------


def test_the_first_failure_of_a_kind_the_hints_leave_unexplained_is_searched_in_full_and_no_later_one():
    """Hand-derived, with one search a kind a block (--shrink-first 1): example 3 (kind score) was searched, so
    example 8 of the kind is not; another kind, or the same kind in the next block, is; failures of example 3 itself
    (a companion failing alike) are, since only examples before it count; a later search never changes an earlier
    answer. --shrink-first 0 still allows one: a block's bug gets one full search beyond its shrunk failures."""
    from oracle.harness.budget import full_search_allowed

    matches2 = ("fail", "matches", 2)
    searched = {3: [SCORE]}
    assert full_search_allowed(3, SCORE, searched, 1) is True
    assert full_search_allowed(8, SCORE, searched, 1) is False
    assert full_search_allowed(8, matches2, searched, 1) is True
    assert full_search_allowed(8, SCORE, searched, 2) is True  # --shrink-first 2: two a block
    assert full_search_allowed(8, SCORE, {3: [SCORE], 5: [SCORE]}, 2) is False
    assert full_search_allowed(SHRINK_BLOCK + 8, SCORE, searched, 1) is True
    assert full_search_allowed(2, SCORE, searched, 1) is True
    assert full_search_allowed(8, SCORE, {}, 0) is True
    assert full_search_allowed(8, SCORE, searched, 0) is False


def test_the_names_a_full_search_finds_are_hints_for_its_kind_after_those_of_the_shrunk_failure():
    """One process's bookkeeping (`RestartBudget`): example 1 shrunk and named A; example 4, searched in full, named
    B (fitting C as well): example 9 of the kind is tested against A, then B and C, each once; another kind is not.
    Causes are kept as their parts (B is a combined one)."""
    from oracle.harness.transport import RestartBudget

    a, b, c = ("A",), ("B1", "B2"), ("C",)
    budget = RestartBudget(3)
    budget.example_started(1)
    assert budget.may_shrink(SCORE) == (True, ())
    budget.classified((a,))
    budget.example_started(4)
    assert budget.may_shrink(SCORE) == (False, (a,))
    assert budget.may_search_all(SCORE) is True
    budget.searched_named(SCORE, (b, c))
    budget.searched_named(SCORE, (a, b))  # (a companion of example 4 searched too: nothing new)
    budget.example_started(9)
    assert budget.may_shrink(SCORE) == (False, (a, b, c))
    assert budget.may_search_all(SCORE) is False
    assert budget.may_shrink(("fail", "bp", None)) == (True, ())


def test_a_cut_failure_is_tested_against_the_root_causes_its_block_named_for_other_kinds():
    """Hand-derived from the rule (`block_causes`): at example 9, the block's causes named before it for kinds other
    than the score's, in example order, the first name of each (never the others that fitted as well: C), each once:
    example 1's 2-gram matches A, example 2's bp B, example 4's A again (told once), example 5's ref_len D; not the
    score's own (example 3's S: its hints), not example 9's own or later ones (E, F), not the next block's (G, example
    52, which example 53 of that block is told, and example 103 of the block after it is not)."""
    from oracle.harness.budget import block_causes

    bp, matches2, ref_len = ("fail", "bp", None), ("fail", "matches", 2), ("fail", "ref_len", None)
    a, b, c, d, s, e, f, g = (("A",), ("B",), ("C",), ("D1", "D2"), ("S",), ("E",), ("F",), ("G",))  # (their parts)
    causes = {(5, ref_len): (d,), (2, bp): (b, c), (1, matches2): (a,), (4, matches2): (a,),
              (3, SCORE): (s,), (9, bp): (e,), (12, bp): (f,), (52, bp): (g,)}
    assert block_causes(9, SCORE, causes) == (a, b, d)
    assert block_causes(9, bp, causes) == (a, s, d)
    assert block_causes(1, SCORE, causes) == ()
    assert block_causes(SHRINK_BLOCK + 3, SCORE, causes) == (g,)  # (example 53: its block's own, 52)
    assert block_causes(SHRINK_BLOCK + 53, SCORE, causes) == ()  # (example 103: a block of its own)
    assert block_causes(SHRINK_BLOCK + 2 + 1, bp, causes) == ()


def test_a_worker_asks_the_parent_which_root_causes_its_block_named_for_other_kinds():
    """One process (`RestartBudget.block_causes`) and the relay (`SharedBudget`, `BudgetKeeper`) answer alike: example 1
    shrunk at the bp and named B, example 4's score failure searched in full and named A: example 7's score failure
    is told B only (A is its own kind's hint), its bp failure A only."""
    import io
    import queue

    from oracle.harness.transport import RestartBudget
    from oracle.harness.worker import BudgetKeeper, SharedBudget

    bp = ("fail", "bp", None)
    a, b, c = ("A1", "A2"), ("B",), ("C",)  # (causes as their parts: A a combined one)
    budget = RestartBudget(3)
    budget.example_started(1)
    budget.may_shrink(bp)
    budget.classified((b, c))
    budget.example_started(4)
    budget.searched_named(SCORE, (a,))
    budget.example_started(7)
    assert budget.block_causes(SCORE) == (b,)
    assert budget.block_causes(bp) == (a,)
    keeper = BudgetKeeper([], 3)
    keeper.causes[(1, bp)] = (b, c)  # (as `BudgetKeeper.read` keeps a shrunk record's)
    keeper.heard(None, {"named": 4, "kind": list(SCORE), "names": [list(a)]})
    answers: queue.Queue = queue.Queue()
    worker = SharedBudget(3, io.StringIO(), answers)
    worker.example_started(7)
    answers.put(keeper._answer(7, SCORE, "others"))
    assert worker.block_causes(SCORE) == (b,)
    answers.put(keeper._answer(7, bp, "others"))
    assert worker.block_causes(bp) == (a,)


# -- the token computations a kind's searches share ----------------------------------------------------------------


def test_the_searches_of_a_kind_in_a_block_share_one_budget_of_token_computations():
    """Hand-derived from the rule (`search_tokens_left`): SEARCH_TOKENS_PER_BLOCK (400,000) less what the failures of
    the kind in earlier examples of the block spent beyond what they earned. Example 3 spent 30,000 beyond its share
    at the score, example 5 2,000 less than its share (-2,000) and 50,000 beyond it at the 2-gram matches: at example
    8 the score has 400,000 - 30,000 + 2,000 = 372,000 left and the matches 400,000 - 50,000 = 350,000; example 5
    itself sees example 3 only (370,000: its own charges are its process's to add); example 58 starts afresh in the
    next block (400,000), and example 61 sees example 60's 10,000 (390,000). A failure earns 8 candidates on its own
    input: 8 x 250 = 2,000 for 250 tokens, and 8 x 1 for an empty one (a candidate costs one token at least, as
    `classify` charges it)."""
    from oracle.harness.budget import SEARCH_TOKENS_PER_BLOCK, search_tokens_earned, search_tokens_left

    assert SEARCH_TOKENS_PER_BLOCK == 400_000
    matches2 = ("fail", "matches", 2)
    charged = {3: [(SCORE, 30_000)], 5: [(SCORE, -2_000), (matches2, 50_000)], 60: [(SCORE, 10_000)]}
    assert search_tokens_left(8, SCORE, charged) == 372_000
    assert search_tokens_left(8, matches2, charged) == 350_000
    assert search_tokens_left(5, SCORE, charged) == 370_000
    assert search_tokens_left(58, SCORE, charged) == 400_000
    assert search_tokens_left(61, SCORE, charged) == 390_000
    assert search_tokens_left(8, ("fail", "bp", None), charged) == 400_000
    assert search_tokens_earned(250) == 2_000
    assert search_tokens_earned(0) == 8


def test_one_process_adds_its_own_examples_earlier_charges():
    """`RestartBudget.search_tokens`: example 3 spent 30,000 beyond its share; in example 5 a first failure of the
    kind sees 370,000, and after it spent 20,000 beyond its share a second failure of the kind in example 5 sees
    350,000; example 9 sees both examples' charges (350,000), another kind the whole 400,000."""
    from oracle.harness.transport import RestartBudget

    budget = RestartBudget(3)
    budget.example_started(3)
    budget.searches_charged(SCORE, 30_000)
    budget.example_started(5)
    assert budget.search_tokens(SCORE) == 370_000
    budget.searches_charged(SCORE, 20_000)
    assert budget.search_tokens(SCORE) == 350_000
    budget.example_started(9)
    assert budget.search_tokens(SCORE) == 350_000
    assert budget.search_tokens(("fail", "bp", None)) == 400_000


def test_hints_reach_a_worker_as_the_parts_of_their_causes_through_the_pipe():
    """The parent reads a shrunk record's cause from its line (`BudgetKeeper.read`): the written name
    `reference_length=closest-first + float32` and the fit `no_match=smoothed + float32` are read into their parts
    once, by the model; a worker's full search tells the parent a cause it named (`searched_named`). A later failure
    of the kind in the block is told both (`shrink_hints`, in example order) on the pipe's JSON as the lists of their
    parts, never as written names a worker would split again, and its budget holds them as parts."""
    import io
    import queue

    from oracle.harness.events import ResultsWriter
    from oracle.harness.worker import BudgetKeeper, SharedBudget
    from oracle.models.outcomes import Outcome
    from oracle.models.protocol import ScoreRequest, Segment
    from oracle.models.results import Classification, Record, Shrunk, parse_line

    request = ScoreRequest(seq=0, level="sentence", weights=(1.0,), smoothing={"method": "none"},
                           segments=(Segment(hypothesis=("a",), references=(("b",),)),))
    classification = Classification(parts=("reference_length=closest-first", "float32"),
                                    fit_parts=(("no_match=smoothed", "float32"),))
    written = Record(id="random-0-1", kind="example", outcome=Outcome.FAIL, layer="score",
                     shrunk=Shrunk(request=request), classification=classification)
    line = json.loads(ResultsWriter.text(written))
    assert line["classification"]["name"] == "reference_length=closest-first + float32"  # (written joined)
    assert "parts" not in line["classification"] and "fit_parts" not in line["classification"]
    keeper = BudgetKeeper([], 3)
    assert keeper._answer(1, SCORE, "shrink") == {"shrink": True, "hints": []}
    keeper.read(parse_line(line))
    assert keeper._answer(3, SCORE, "shrink")["shrink"] is False  # (example 3 fails too, not shrunk: searched)
    searcher_said = io.StringIO()
    searcher = SharedBudget(3, searcher_said, queue.Queue())
    searcher.example_started(3)
    searcher.searched_named(SCORE, (("weights-not-passed-on",),))
    keeper.heard(None, json.loads(searcher_said.getvalue()))
    message = json.loads(json.dumps(keeper._answer(5, SCORE, "shrink")))  # (what the pipe carries, as JSON)
    closest_float32 = ("reference_length=closest-first", "float32")
    no_match_float32 = ("no_match=smoothed", "float32")
    assert message["hints"] == [list(closest_float32), list(no_match_float32), ["weights-not-passed-on"]]
    answers: queue.Queue = queue.Queue()
    worker = SharedBudget(3, io.StringIO(), answers)
    worker.example_started(5)
    answers.put(message)
    assert worker.may_shrink(SCORE) == (False, (closest_float32, no_match_float32, ("weights-not-passed-on",)))


def test_a_worker_asks_the_parent_what_earlier_examples_spent_and_adds_its_own_example():
    """The relay (`SharedBudget` and `BudgetKeeper`): the parent answers from the charges workers told it for examples
    before the one asking (example 3: 30,000); the worker subtracts what its own example spent (20,000), and tells
    the parent each charge, which later examples' answers include."""
    import io
    import queue

    from oracle.harness.worker import BudgetKeeper, SharedBudget

    keeper = BudgetKeeper([], 3)
    keeper.heard(None, {"spent": 3, "kind": list(SCORE), "net": 30_000})
    answers: queue.Queue = queue.Queue()
    told = io.StringIO()
    worker = SharedBudget(3, told, answers)
    worker.example_started(5)
    worker.searches_charged(SCORE, 20_000)
    answers.put(keeper._answer(5, SCORE, "spend"))
    assert worker.search_tokens(SCORE) == 400_000 - 30_000 - 20_000
    for line in told.getvalue().splitlines():
        keeper.heard(None, json.loads(line))
    assert keeper._answer(9, SCORE, "spend") == {"left": 400_000 - 30_000 - 20_000}


# -- sending a failure once more -------------------------------------------------------------------------------


def test_a_failure_is_sent_again_until_the_first_of_its_kind_in_its_block_was_answered_alike():
    """Hand-derived, --shrink-first 1: example 1 failed at score and was answered alike (charged as its kind), so
    example 3 of that kind is not sent again; another kind is, the same kind in the next block is, and example 1
    itself was. After an example answered two ways (charged as NONDETERMINISTIC_KIND), every later failure of the
    block is sent again. --shrink-first 0: the first failure of a kind is still sent again."""
    from oracle.harness.budget import NONDETERMINISTIC_KIND, resend_waived

    earlier = {1: [SCORE]}
    assert resend_waived(3, SCORE, earlier, 1) is True
    assert resend_waived(1, SCORE, earlier, 1) is False
    assert resend_waived(3, ("fail", "bp", None), earlier, 1) is False
    assert resend_waived(SHRINK_BLOCK + 3, SCORE, earlier, 1) is False
    assert resend_waived(3, SCORE, earlier, 2) is False  # --shrink-first 2: two sent again first
    assert resend_waived(3, SCORE, {0: [SCORE], 1: [SCORE]}, 2) is True
    assert resend_waived(3, SCORE, {0: [NONDETERMINISTIC_KIND], 1: [SCORE]}, 1) is False
    assert resend_waived(3, SCORE, {1: [SCORE], 2: [NONDETERMINISTIC_KIND]}, 1) is False
    assert resend_waived(3, SCORE, {}, 0) is False
    assert resend_waived(3, SCORE, earlier, 0) is True


# -- in a run ------------------------------------------------------------------------------------------------------


def _index(record):
    return int(record.id.split("~")[0].rsplit("-", 1)[1])


def comparable(report):
    """A run's records without clock readings, seq numbers and the report's own path."""
    import json

    def clean(value):
        if isinstance(value, dict):
            return {k: clean(v) for k, v in value.items() if k not in ("seq", "duration", "wall")}
        if isinstance(value, list):
            return [clean(v) for v in value]
        return value.replace(str(report), "REPORT") if isinstance(value, str) else value

    lines = (report / "results.jsonl").read_text(encoding="utf-8").split("\n")[:-1]
    return [clean(line) for line in map(json.loads, lines) if line.get("type") == "record"]


def test_a_deterministic_failure_is_not_sent_again_after_the_first_of_its_kind_in_its_block(tmp_path):
    """mutant_no_clipping answers every request alike and most examples fail at the matches: the first failing
    example of each kind in each block is sent again (its message says nothing of it), every failure of that kind in
    a later example of the block is not, and says so; none is named nondeterministic; --jobs 2 writes the same."""
    from fakes.harness import check, deviations, fake

    command = fake("mutant_no_clipping")
    assert check(tmp_path / "one", command, "--seed", 7, examples=SHRINK_BLOCK + 20) == 1
    found = deviations(tmp_path / "one")
    first = {}
    for record in found:  # (in the stream's order: by example, an example's companions after it)
        kind = failure_kind(record.kind, record.outcome.value, record.layer, record.order), _index(record) // 50
        later = first.setdefault(kind, _index(record)) < _index(record)
        assert ("not sent again: the first failure(s) of its kind" in record.message) == later, record.id
    assert sum("not sent again" in r.message for r in found) >= 10
    assert "nondeterministic" not in {r.cause for r in found}
    assert check(tmp_path / "two", command, "--seed", 7, "--jobs", 2, examples=SHRINK_BLOCK + 20) == 1
    assert comparable(tmp_path / "two") == comparable(tmp_path / "one")


def test_a_kind_whose_shrunk_name_fits_few_later_failures_is_searched_in_full_once_a_block(tmp_path, monkeypatch):
    """realbleu.py mean-of-smoothed-sentence-bleu (tests/fakes/realbleu.py): the mean of smoothed sentence scores,
    which the shrunk failure of a kind is named by while some later failures fit no explanation. Over one block of
    examples, at most one failure of each kind not shrunk is searched among every explanation (`attribute` with no
    `among`, counted here); the later ones the shrunk failure's name does not explain say the search was not run,
    and why; a full search that spends its kind's share of token computations in the block is cut and says so
    (`budget.search_tokens_left`: random-0-51 of seed 0, a 1,195-token input that no explanation names, in the second
    block); --jobs 2 writes the same records, its workers asking the parent."""
    from fakes.harness import FAKES, check, deviations

    import oracle.harness.diagnosis as diagnosis

    searches = []
    real = diagnosis.attribute

    def counted(*args, **kwargs):
        if kwargs.get("among") is None and kwargs.get("search_all", True):
            searches.append(1)
        return real(*args, **kwargs)

    monkeypatch.setattr(diagnosis, "attribute", counted)
    command = f"{sys.executable} {FAKES / 'realbleu.py'} mean-of-smoothed-sentence-bleu"
    assert check(tmp_path / "one", command, examples=2 * SHRINK_BLOCK, timeout=30) == 1
    found = deviations(tmp_path / "one")
    kinds = {(failure_kind(r.kind, r.outcome.value, r.layer, r.order), _index(r) // SHRINK_BLOCK) for r in found
             if r.shrunk is None}
    cut = [r for r in found if "went to earlier failures" in r.classification.description]
    assert cut and all(r.shrunk is None for r in cut)
    assert 1 <= len(searches) <= len(kinds)
    cut_short = [r for r in found if "the search among every explanation was cut" in r.classification.description]
    assert cut_short and all(r.shrunk is None and r.classification.name != "unexplained" for r in cut_short)
    assert check(tmp_path / "two", command, "--jobs", 2, examples=2 * SHRINK_BLOCK, timeout=30) == 1
    assert comparable(tmp_path / "two") == comparable(tmp_path / "one")


def test_a_failure_whose_search_was_not_run_is_named_by_its_blocks_mechanism_where_it_explains_it(tmp_path,
                                                                                                  monkeypatch):
    """realbleu.py reference-streams-of-characters (sacrebleu issue 272: a flat list of reference strings passed as
    the reference streams) fails at the reference length for most examples and at the hypothesis length for some
    (the corpus cut to the shortest string); the shrunk failure at the hypothesis length is named by what is known
    only, so its kind's later failures are not searched (`search_among_all`), while the reference length's kind is
    named by a mechanism in the same block. Such a failure is tested against that mechanism (`block_causes`) and
    named by it where it explains it, its description saying on what evidence; where it does not, it keeps what is
    known. So is a failure whose kind's hints fit it only by what is known (the ref_len series failures of examples
    50-99, whose first is named by a level operator with what is known beside it). Derived from the run's records:
    every record so named took a name the block named before it for another kind of failure, and is, in a run with
    `block_causes` answering nothing, a record named by what is known; every other record is the same in both runs; a
    record of a kind tested so keeps what is known where the mechanism does not explain it; --jobs 2 writes the same
    records."""
    from fakes.harness import FAKES, check, deviations

    from oracle.harness.transport import RestartBudget

    command = f"{sys.executable} {FAKES / 'realbleu.py'} reference-streams-of-characters"
    examples = 2 * SHRINK_BLOCK
    assert check(tmp_path / "with", command, examples=examples, timeout=30) == 1
    found = deviations(tmp_path / "with")
    by_evidence = [r for r in found if "evidence from other records" in r.classification.description]
    assert by_evidence

    def kind(record):
        return failure_kind(record.kind, record.outcome.value, record.layer, record.order)

    def named_before_for_another_kind(record):
        return {r.classification.name for r in found if r.shrunk is not None and kind(r) != kind(record)
                and _index(r) < _index(record) and _index(r) // SHRINK_BLOCK == _index(record) // SHRINK_BLOCK}

    for record in by_evidence:
        assert record.shrunk is None
        assert record.classification.name in named_before_for_another_kind(record), record.id
        assert "the search among every explanation was not run" in record.classification.description
    evidence_ids = {r.id for r in by_evidence}
    kept = [r for r in found if r.id not in evidence_ids and "was not run" in r.classification.description
            and {kind(e) for e in by_evidence if _index(e) // SHRINK_BLOCK == _index(r) // SHRINK_BLOCK} & {kind(r)}]
    assert kept and all(r.classification.name.startswith("other-counting-of-") for r in kept)

    monkeypatch.setattr(RestartBudget, "block_causes", lambda self, kind: ())
    assert check(tmp_path / "without", command, examples=examples, timeout=30) == 1
    monkeypatch.undo()
    without = {r.id: r for r in deviations(tmp_path / "without")}
    # (named by what is known: where its kind's hints fit it only so, by them, its description saying what fits)
    assert all(without[i].classification.name.startswith("other-counting-of-") for i in evidence_ids)
    same = [r for r in comparable(tmp_path / "with") if r["id"] not in evidence_ids]
    assert same == [r for r in comparable(tmp_path / "without") if r["id"] not in evidence_ids]
    assert check(tmp_path / "two", command, "--jobs", 2, examples=examples, timeout=30) == 1
    assert comparable(tmp_path / "two") == comparable(tmp_path / "with")


def test_a_name_that_needs_evidence_is_never_given_to_a_cut_failure_on_its_blocks_word(monkeypatch):
    """`_named_by_block_causes`: of the block's names for other kinds, a partial name (what is known), a state or
    precision name (`float32`, `earlier-answer-returned`: `mechanisms.needs_evidence`) and a name the failure's own
    search already tried are not tested; a mechanism is, once, among its own parts, and names the failure only where
    the classification explains it (here it does not: None)."""
    from types import SimpleNamespace

    import oracle.harness.diagnosis as diagnosis
    from oracle.diagnose.classify import TokenMeter

    tried = []

    def attribute(*_judged, among=None, meter=None, **_kwargs):
        tried.append(tuple(among))
        return SimpleNamespace(change=False, name="unexplained")

    monkeypatch.setattr(diagnosis, "attribute", attribute)
    names = (("other-counting-of-hyp_len", "other-combination"), ("float32",), ("earlier-answer-returned",), ("A",),
             ("B", "C"))
    context = SimpleNamespace(budget=SimpleNamespace(block_causes=lambda kind: names, example=7),
                              profile="papineni", documented=())
    judged = (SimpleNamespace(token_count=10), None, None, None)
    assert diagnosis._named_by_block_causes(judged, None, SCORE, ("A",), context, TokenMeter(1_000)) is None
    assert tried == [("B", "C")]


def test_a_failure_its_hints_name_only_by_what_is_known_is_tested_against_its_blocks_mechanisms(monkeypatch):
    """`_attribute_within`: realbleu.py reference-streams-of-characters, check at seed 0, examples 50-99. The first
    series failure at ref_len there (random-0-55~series) is named by a level operator,
    `last-token-only-in-references`, fitting `other-counting-of-ref_len` as well; those are its kind's hints. A later
    one, random-0-65~series (hypothesis Cat ÉTÉ ça ÉTÉ ça, one reference Cat Cat Cat), was answered c = 5, r = 1,
    matches 0 0 0 0: the reference's last token, Cat, would match one unigram, so of the hints only what is known fits
    it. The block named
    `reference-strings-as-streams` for another kind, and that explains it by hand: the reference string's first
    character, C, is segment 1's one reference (r = 1), and matches none of the hypothesis's tokens. A hint naming
    only what is known must not hide it: it is tested, and names the record, as where no hint names a mechanism."""
    from types import SimpleNamespace

    import oracle.harness.diagnosis as diagnosis
    from oracle.diagnose.classify import TokenMeter
    from oracle.models.results import Classification

    streams, partial = ("reference-strings-as-streams",), ("other-counting-of-ref_len",)
    tried = []

    def attribute(*_judged, among=None, meter=None, **_kwargs):  # the classifier, as it answered these candidates
        tried.append(tuple(among))
        if set(streams) <= set(among):
            return Classification(parts=streams, change=(("computation", streams[0]),))
        return Classification(parts=partial, change=(("computation", partial[0]),))

    monkeypatch.setattr(diagnosis, "attribute", attribute)
    hints = (("last-token-only-in-references",), partial)
    context = SimpleNamespace(budget=SimpleNamespace(block_causes=lambda kind: (streams,), example=65),
                              profile="papineni", documented=())
    verdict = SimpleNamespace(layer="ref_len", outcome=SimpleNamespace(value="fail"))
    judged = (SimpleNamespace(token_count=8), None, verdict, None)
    named = diagnosis._attribute_within(judged, hints, None, context, search_all=True,
                                        kind=("series", "fail", "ref_len", None), meter=TokenMeter(1_000))
    assert named.parts == streams and "evidence from other records" in named.description
    assert "the search among every explanation was not run" in named.description
    assert tried == [("last-token-only-in-references", "other-counting-of-ref_len"), streams]
    # where the block named nothing that explains it, what is known stays its name
    context.budget.block_causes = lambda kind: ()
    assert diagnosis._attribute_within(judged, hints, None, context, search_all=True, kind=("series",),
                                       meter=TokenMeter(1_000)).parts == partial


def test_a_failure_whose_search_was_cut_is_still_searched_among_its_documented_classes_whole(monkeypatch):
    """`_named_without_full_search` with its kind's token computations spent (a meter with nothing left): the
    implementation's documented classes are still searched, unmetered, and name the record. They are few, and they
    are what names a baseline's known deviations: metered, a spent block left keras-hub's curated classes
    (`reference_length=shortest + float32`, ...) untried on 12 records of `check --impl keras-hub --seed 2`, whose
    descriptions then said "no documented class of this implementation explains it" and whose gate failed."""
    from types import SimpleNamespace

    import oracle.harness.diagnosis as diagnosis
    from oracle.diagnose.attribute import SearchClass
    from oracle.diagnose.classify import TokenMeter

    meters = []

    def attribute(*_judged, among=None, meter=None, **_kwargs):
        meters.append(meter)
        if meter is not None and meter.left() <= 0:  # a metered search with nothing left is cut: names nothing
            meter.cut = True
            return SimpleNamespace(change=False, name="unexplained")
        return SimpleNamespace(change=True, name="reference_length=shortest + float32")

    monkeypatch.setattr(diagnosis, "attribute", attribute)
    curated = SearchClass(("reference_length=shortest", "float32"), id="keras-hub-shortest-float32")
    context = SimpleNamespace(documented=(curated,), profile="papineni")
    spent = TokenMeter(0)
    named = diagnosis._named_without_full_search((None, None, None, None), None, True, "its budget was spent",
                                                 context, spent)
    assert named.name == "reference_length=shortest + float32"
    assert meters == [None] and not spent.cut


def test_a_failure_named_by_what_is_known_alone_is_not_tried_against_the_zero_variants(monkeypatch):
    """`_named_without_full_search` (a failure whose search was cut or not run, no documented class and no cause of
    its block explaining it) names it by what is known without the score stage's variants that give 0 (cost-bound:
    some thirty candidates a record, a search for its other fits that the run did not run; 98 such records of a
    bug answering 0 spent about 1 s of runner CPU on them)."""
    from types import SimpleNamespace

    import oracle.harness.diagnosis as diagnosis
    from oracle.diagnose.classify import TokenMeter
    from oracle.models.results import Classification

    asked = []

    def what_is_known(request, reply, profile, **kwargs):
        asked.append(kwargs.get("zero_variants", True))
        return SimpleNamespace(name="unexplained")

    monkeypatch.setattr(diagnosis, "attribute", lambda *_a, **_k: Classification(parts=("unexplained",)))
    monkeypatch.setattr(diagnosis, "what_is_known", what_is_known)
    context = SimpleNamespace(documented=(), profile="papineni")
    diagnosis._named_without_full_search((None, None, None, None), None, True, "its search was not run", context,
                                         TokenMeter(0))
    assert asked == [False]


def test_one_budget_for_a_blocks_whole_diagnosis_is_off_unless_set_and_counts_judged_tokens(monkeypatch):
    """run-cap, hand-derived from the rule (`diagnosis_tokens_per_block`, `diagnosis_tokens_earned`): off by default
    (DIAGNOSIS_CANDIDATES_PER_TOKEN 0: no budget, no meter, main's records); at K = 2 (BLEU_ORACLE_RUN_CAP) a block
    starts with its 50 examples at the floor of 100 tokens, 2 x 50 x 100 = 10,000, and a failing example of 350
    tokens adds 2 x (350 - 100) = 500 (judging it cost that beyond the floor it was counted at), one of 50 tokens
    nothing. The block's ledger is kept under DIAGNOSIS_KIND beside the kinds': at example 8, 10,000 less example 3's
    4,000 and example 5's -1,000 = 7,000, the kinds' charges apart; example 58 starts afresh; a value that is not a
    whole number leaves the constant."""
    from oracle.harness import budget
    from oracle.harness.budget import (
        DIAGNOSIS_KIND,
        diagnosis_candidates_per_token,
        diagnosis_tokens_earned,
        diagnosis_tokens_per_block,
        search_tokens_left,
    )

    monkeypatch.delenv(budget.RUN_CAP_VARIABLE, raising=False)
    assert budget.DIAGNOSIS_CANDIDATES_PER_TOKEN == 0
    assert diagnosis_tokens_per_block() == 0 and diagnosis_tokens_earned(350) == 0
    monkeypatch.setenv(budget.RUN_CAP_VARIABLE, "2")
    assert diagnosis_candidates_per_token() == 2
    assert diagnosis_tokens_per_block() == 10_000
    assert diagnosis_tokens_earned(350) == 500
    assert diagnosis_tokens_earned(50) == 0
    charged = {3: [(DIAGNOSIS_KIND, 4_000), (SCORE, 90_000)], 5: [(DIAGNOSIS_KIND, -1_000)]}
    assert search_tokens_left(8, DIAGNOSIS_KIND, charged) == 7_000
    assert search_tokens_left(8, SCORE, charged) == 310_000
    assert search_tokens_left(58, DIAGNOSIS_KIND, charged) == 10_000
    monkeypatch.setenv(budget.RUN_CAP_VARIABLE, "two")
    assert diagnosis_candidates_per_token() == 0


def test_the_blocks_diagnosis_budget_cuts_a_search_its_record_says_so_and_jobs_write_the_same(tmp_path, monkeypatch):
    """run-cap at K = 1 (BLEU_ORACLE_RUN_CAP): realbleu.py mean-of-smoothed-sentence-bleu over two blocks, whose
    searches spend far more than one candidate at the floor per token its examples judged (a full search alone
    charges hundreds of candidates), so the block's budget cuts searches, and each record it cut says so, naming
    the diagnosis budget of its block: never `unexplained` (what is known names it, or a cause its block found). The
    same run with the setting off mentions no such budget. --jobs 2 (its workers inherit the setting and ask the
    parent what the block left, as for a kind's share) writes the same records."""
    from fakes.harness import FAKES, check, deviations

    from oracle.harness import budget

    command = f"{sys.executable} {FAKES / 'realbleu.py'} mean-of-smoothed-sentence-bleu"
    examples = 2 * SHRINK_BLOCK
    monkeypatch.delenv(budget.RUN_CAP_VARIABLE, raising=False)
    assert check(tmp_path / "off", command, examples=examples, timeout=30) == 1
    assert not any("the diagnosis budget of examples" in r.classification.description
                   for r in deviations(tmp_path / "off"))
    monkeypatch.setenv(budget.RUN_CAP_VARIABLE, "1")
    assert check(tmp_path / "one", command, examples=examples, timeout=30) == 1
    found = deviations(tmp_path / "one")
    cut = [r for r in found if "the diagnosis budget of examples" in r.classification.description]
    assert cut
    assert all(r.classification.name != "unexplained" for r in cut)
    assert any("was cut" in r.classification.description or "was spent" in r.classification.description
               for r in cut)
    assert {_index(r) // SHRINK_BLOCK for r in cut} == {0, 1}
    assert check(tmp_path / "two", command, "--jobs", 2, examples=examples, timeout=30) == 1
    assert comparable(tmp_path / "two") == comparable(tmp_path / "one")
