"""benchmarks/stage_mutants.py and tests/fakes/stagedbleu.py (issue 36, stage-mutants): the mutants are listed
deterministically (the committed pre-registered list is the selection's), each mutant's source differs from the
clean one, the clean mode answers a request derived by hand, an unknown mutant is one line and exit 2, and the
pre-registered verdicts read as written. No `check` is run here."""

import ast
import json
import math
import subprocess
import sys

from fakes.harness import FAKES, benchmark_module

STAGED = FAKES / "stagedbleu.py"


def _modules():
    stage_mutants = benchmark_module("stage_mutants")
    return stage_mutants, stage_mutants.fake_module()


def test_the_mutant_list_is_deterministic_and_the_committed_selection_is_its_subset():
    stage_mutants, fake = _modules()
    first, second = fake.mutants(), fake.mutants()
    assert first == second
    assert len({ident for ident, _, _ in first}) == len(first) > 100
    assert {operator for _, _, operator in first} == set(fake.OPERATORS)
    assert {stage for _, stage, _ in first} == set(fake.STAGES.values())  # every stage has a site
    chosen = stage_mutants.selected(first)
    assert chosen == stage_mutants.selected(fake.mutants())
    committed = (FAKES.parents[1] / "benchmarks" / "evidence" / "stage-mutants-preregistered.tsv").read_text(
        encoding="utf-8").split("\n")
    assert [tuple(line.split("\t")) for line in committed if line] == chosen


def test_each_mutant_source_differs_from_the_clean_source_and_compiles():
    _, fake = _modules()
    clean = ast.unparse(ast.parse(STAGED.read_text(encoding="utf-8")))
    for ident, _, _ in fake.mutants():
        assert fake.mutated_source(ident) != clean, ident
        assert set(fake.stages_of(ident)) == set(fake.STAGES)


def _serve(*argv, requests=()):
    lines = [json.dumps({"cmd": "start", "protocol": 1}), *map(json.dumps, requests), json.dumps({"cmd": "stop"})]
    return subprocess.run([sys.executable, str(STAGED), *argv], input="\n".join(lines) + "\n", capture_output=True,
                          text=True, timeout=60)


def test_the_clean_mode_answers_a_two_segment_corpus_derived_by_hand():
    # segment 1: "the cat sat" against "the cat sat down": c 3, r 4, unigrams 3/3, bigrams 2/2;
    # segment 2: "a dog" against "a cat" and "the dog ran": c 2, r 2 (the closest), unigrams 2/2 (a from the first
    # reference, dog from the second), bigrams 0/1. Corpus: c 5, r 6, p1 = 5/5, p2 = 2/3; weights 1/2, 1/2:
    # BLEU = e^(1 - 6/5) * (1 * 2/3)^(1/2)
    request = {"cmd": "score", "seq": 1, "level": "corpus", "weights": [0.5, 0.5], "smoothing": {"method": "none"},
               "lowercase": False,
               "segments": [{"hypothesis": ["the", "cat", "sat"], "references": [["the", "cat", "sat", "down"]]},
                            {"hypothesis": ["a", "dog"], "references": [["a", "cat"], ["the", "dog", "ran"]]}]}
    done = _serve("clean", requests=[request])
    assert done.returncode == 0, done.stderr
    reply = json.loads(done.stdout.strip().split("\n")[-1])
    statistics = reply["statistics"]
    assert (statistics["hyp_len"], statistics["ref_len"], statistics["matches"], statistics["totals"]) == (
        5, 6, [5, 2], [5, 3])
    assert math.isclose(statistics["bp"], math.exp(-0.2), rel_tol=1e-12)
    assert math.isclose(reply["score"], math.exp(-0.2) * math.sqrt(2 / 3), rel_tol=1e-12)


def test_an_unknown_mutant_is_one_line_and_exit_2():
    done = _serve("--mutant", "swap:stage_nowhere:1:1")
    assert done.returncode == 2
    assert done.stdout == ""
    assert len(done.stderr.strip().split("\n")) == 1 and "unknown mutant" in done.stderr


def test_a_mutant_is_served_with_its_mutation():
    # `return:stage_scale:...:0`: the score's return replaced by 0; the statistics are the clean ones
    _, fake = _modules()
    ident = next(i for i, _, operator in fake.mutants() if operator == "return" and ":stage_scale:" in i
                 and i.endswith(":0"))
    request = {"cmd": "score", "seq": 1, "level": "sentence", "weights": [1.0], "smoothing": {"method": "none"},
               "lowercase": False, "segments": [{"hypothesis": ["a", "b"], "references": [["a", "b"]]}]}
    reply = json.loads(_serve("--mutant", ident, requests=[request]).stdout.strip().split("\n")[-1])
    assert reply["score"] == 0 and reply["statistics"]["matches"] == [2]


def test_equivalence_tells_an_equivalent_mutant_from_a_missed_one():
    stage_mutants, fake = _modules()
    # |length - c| for |c - length|: the same number (an equivalent mutant)
    swapped = next(i for i, _, operator in fake.mutants() if operator == "swap" and ":stage_closest_ref_length:" in i)
    assert stage_mutants.equivalence(swapped, requests=300) is None
    zero = next(i for i, _, operator in fake.mutants() if operator == "return" and ":stage_scale:" in i
                and i.endswith(":0"))
    difference = stage_mutants.equivalence(zero, requests=300)
    assert difference is not None and difference["mutant"]["score"] == 0 != difference["clean"]["score"]


def test_the_pre_registered_verdicts():
    stage_mutants, _ = _modules()
    verdict = stage_mutants.verdict
    assert verdict("no-brevity-penalty", "stage_brevity_penalty") == "fits"
    assert verdict("brevity-penalty-when-longer", "stage_brevity_penalty") == "fits"
    assert verdict("reference-length-of-first-reference + clipped-to-reference-sum", "stage_clip") == "fits"
    assert verdict("other-brevity-penalty", "stage_brevity_penalty") == "known"
    assert verdict("other-counting-of-matches", "stage_clip") == "known"
    assert verdict("other-counting-of-matches", "stage_mean") == "other-stage"
    assert verdict("unclipped-matches", "stage_brevity_penalty") == "other-stage"
    assert verdict("error-when-hypothesis-empty", "stage_precision") == "error"
    assert verdict("unexplained", "stage_mean") == verdict(None, "stage_mean") == "none"
