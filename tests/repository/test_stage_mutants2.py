"""benchmarks/stage_mutants.py --fake stagedbleu2 and tests/fakes/stagedbleu2.py (issue 36, stage-mutants2, set B):
the second BLEU's clean mode answers a two-segment corpus derived by hand, its mutants are listed deterministically
(the committed pre-registered list is the selection's) and each one's source differs, set A's list is unchanged by
the second fake, an unknown mutant is one line and exit 2, and set B is judged by set A's rule per stage. No `check`
is run here."""

import ast
import json
import math
import subprocess
import sys

from fakes.harness import FAKES, benchmark_module

STAGED2 = FAKES / "stagedbleu2.py"
EVIDENCE = FAKES.parents[1] / "benchmarks" / "evidence"


def _modules():
    stage_mutants = benchmark_module("stage_mutants")
    return stage_mutants, stage_mutants.fake_module("stagedbleu2")


def _serve(*argv, requests=()):
    lines = [json.dumps({"cmd": "start", "protocol": 1}), *map(json.dumps, requests), json.dumps({"cmd": "stop"})]
    return subprocess.run([sys.executable, str(STAGED2), *argv], input="\n".join(lines) + "\n", capture_output=True,
                          text=True, timeout=60)


def test_the_clean_mode_answers_a_two_segment_corpus_derived_by_hand():
    # segment 1: "the the cat" against "the cat" (2 tokens) and "the the dog cat" (4): c 3, r 2 (a tie at distance
    # 1, to the shorter); unigrams: "the" clipped to 2 (the second reference's count, the larger), "cat" 1: 3/3;
    # bigrams "the the" (second reference) and "the cat" (first): 2/2.
    # segment 2: "a dog ran" against 5 and 6 tokens: c 3, r 5 (the closest); unigrams a (first), dog, ran (second):
    # 3/3; bigrams "a dog" unmatched, "dog ran" (second): 1/2.
    # Corpus: c 6, r 7, matches [6, 3], totals [6, 4]; BP = e^(1 - 7/6); weights 1/4, 3/4:
    # BLEU = e^(-1/6) * 1^(1/4) * (3/4)^(3/4)
    request = {"cmd": "score", "seq": 1, "level": "corpus", "weights": [0.25, 0.75], "smoothing": {"method": "none"},
               "lowercase": False,
               "segments": [{"hypothesis": ["the", "the", "cat"],
                             "references": [["the", "cat"], ["the", "the", "dog", "cat"]]},
                            {"hypothesis": ["a", "dog", "ran"],
                             "references": [["a", "cat", "x", "y", "z"], ["the", "dog", "ran", "off", "now", "ok"]]}]}
    done = _serve("clean", requests=[request])
    assert done.returncode == 0, done.stderr
    reply = json.loads(done.stdout.strip().split("\n")[-1])
    statistics = reply["statistics"]
    assert (statistics["hyp_len"], statistics["ref_len"], statistics["matches"], statistics["totals"]) == (
        6, 7, [6, 3], [6, 4])
    assert math.isclose(statistics["bp"], math.exp(-1 / 6), rel_tol=1e-12)
    assert math.isclose(reply["score"], math.exp(-1 / 6) * 0.75 ** 0.75, rel_tol=1e-12)


def test_the_mutant_list_is_deterministic_and_the_committed_selection_is_its_subset():
    stage_mutants, fake = _modules()
    first, second = fake.mutants(), fake.mutants()
    assert first == second
    assert len({ident for ident, _, _ in first}) == len(first) == 112
    assert {stage for _, stage, _ in first} == set(fake.STAGES.values())  # every stage has a site
    assert set(stage_mutants.RULE_OF["stagedbleu2"]) == set(fake.STAGES)
    chosen = stage_mutants.selected(first)
    committed = (EVIDENCE / "stage-mutants2-preregistered.tsv").read_text(encoding="utf-8").split("\n")
    assert [tuple(line.split("\t")) for line in committed if line] == chosen
    assert len(chosen) == 86


def test_each_mutant_source_differs_from_the_clean_source_and_compiles():
    _, fake = _modules()
    clean = ast.unparse(ast.parse(STAGED2.read_text(encoding="utf-8")))
    for ident, _, _ in fake.mutants():
        assert fake.mutated_source(ident) != clean, ident
        assert set(fake.stages_of(ident)) == set(fake.STAGES)


def test_set_a_is_unchanged_by_the_second_fake():
    stage_mutants = benchmark_module("stage_mutants")
    fake = stage_mutants.fake_module()  # the default: set A
    idents = [ident for ident, _, _ in fake.mutants()]
    assert len(idents) == 166
    assert {"constant:stage_fold:79:7", "offbyone:stage_ngrams:87:19:0", "swap:stage_clip:98:26",
            "return:stage_scale:205:4:1", "boundary:stage_weights:175:73"} <= set(idents)
    committed = (EVIDENCE / "stage-mutants-preregistered.tsv").read_text(encoding="utf-8").split("\n")
    assert [tuple(line.split("\t")) for line in committed if line] == stage_mutants.selected(fake.mutants())


def test_an_unknown_mutant_is_one_line_and_exit_2():
    done = _serve("--mutant", "swap:stage_nowhere:1:1")
    assert done.returncode == 2
    assert done.stdout == ""
    assert len(done.stderr.strip().split("\n")) == 1 and "unknown mutant" in done.stderr


def test_equivalence_tells_an_equivalent_mutant_from_a_missed_one():
    stage_mutants, fake = _modules()
    # abs(c - length) for abs(length - c) in the key of the closest length: the same number
    swapped = next(i for i, _, operator in fake.mutants() if operator == "swap" and ":stage_closest_ref_length:" in i
                   and ":78:57" in i)
    assert stage_mutants.equivalence(swapped, requests=300, fake_name="stagedbleu2") is None
    zero = next(i for i, _, operator in fake.mutants() if operator == "return" and ":stage_scale:" in i
                and i.endswith(":0"))
    difference = stage_mutants.equivalence(zero, requests=300, fake_name="stagedbleu2")
    assert difference is not None and difference["mutant"]["score"] == 0 != difference["clean"]["score"]


def test_set_b_is_judged_by_set_a_rule_of_the_same_stage():
    stage_mutants, _ = _modules()
    verdict = stage_mutants.verdict
    for function in stage_mutants.RULE_OF["stagedbleu2"]:
        for cause in ("no-brevity-penalty", "other-counting-of-matches", "unclipped-matches", "error-when-x", None):
            assert verdict(cause, function, "stagedbleu2") == verdict(cause, function), (cause, function)
    assert verdict("length-ratio-floored", "stage_brevity_penalty", "stagedbleu2") == "fits"
    assert verdict("other-counting-of-matches", "stage_mean", "stagedbleu2") == "other-stage"
    assert stage_mutants.post_hoc_verdict("error", "stage_corpus", "stagedbleu2") == "error"
