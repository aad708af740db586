"""The search's text generator: each tokenizer's rules targeted and read back off the text.

Holds: oracle.harness.refused, oracle.harness.work.series
"""

from __future__ import annotations

import random

from oracle.formulas.tokenizers import tokenize
from oracle.harness.generate import PARTS, companion_rng
from oracle.harness.refused import REFUSED_KINDS, possible_kinds, refused_kind, refused_request
from oracle.harness.textgen import PIECES, generate_text_segments, rules_of, text_rules
from oracle.harness.work.series import series_steps
from oracle.models.protocol import Capabilities

CAPABILITIES = Capabilities(levels=["corpus", "sentence"], weights="any", max_order=12,
                            smoothing=["none", "floor", "add-k", "exp"], statistics=True, lowercase=True)


def test_every_piece_exercises_the_rule_it_is_filed_under():
    for tokenizer, rules in PIECES.items():
        for rule, pieces in rules.items():
            for piece in pieces:
                assert rule in text_rules(piece, tokenizer), (tokenizer, rule, piece)


def test_the_13a_rules_read_off_a_text_are_those_the_literal_tokenizer_acts_on():
    text = "in 1995.\nstate-\nof &amp; <skipped>"
    assert {"digit-at-line-end", "hyphen-newline", "entity-amp", "skipped", "newline"} <= text_rules(text, "13a")
    assert tokenize(text, "13a") == ("in", "1995", ".", "stateof", "&")


def test_special_casings_and_whitespace_kinds_are_rules_of_every_tokenizer():
    for tokenizer in ("13a", "intl", "char", "none"):
        assert {"case-dotted-i", "whitespace-other"} <= set(rules_of(tokenizer))
        assert text_rules("İ\x85ß", tokenizer) >= {"case-dotted-i", "case-sharp-s", "whitespace-other"}


def test_text_segments_cover_every_rule_of_each_tokenizer_within_a_few_hundred_draws():
    for tokenizer in ("13a", "intl", "char", "none"):
        seen = set()
        for i in range(300):
            for segment in generate_text_segments(random.Random(i), "corpus", tokenizer):
                for text in (segment.hypothesis, *segment.references):
                    seen |= text_rules(text, tokenizer)
        assert seen == set(rules_of(tokenizer)), (tokenizer, set(rules_of(tokenizer)) - seen)


def test_each_refused_input_breaks_exactly_the_part_its_kind_names_and_every_kind_comes_in_turn():
    kinds = possible_kinds(CAPABILITIES)
    assert kinds == list(REFUSED_KINDS)
    for turn in range(len(kinds) * 3):
        request = refused_request(companion_rng(0, turn, "refused"), CAPABILITIES, turn=turn)
        assert refused_kind(request) == kinds[turn % len(kinds)]


def test_uniform_weights_rule_out_the_weight_kinds():
    uniform = CAPABILITIES.model_copy(update={"weights": "uniform"})
    assert "negative-weight" not in possible_kinds(uniform) and "zero-weights" not in possible_kinds(uniform)


def test_a_series_repeats_its_two_bases_with_one_part_changed_at_a_time():
    steps = series_steps(random.Random(3), CAPABILITIES, length=36)
    assert len(steps) == 36 and {s.base for s in steps} == {0, 1}
    assert {s.changed for s in steps} == {"", *PARTS}
    bases = {s.base: s.request for s in steps[:2]}
    for step in steps:
        base = bases[step.base]
        if step.changed == "":
            assert step.request == base
        elif step.changed == "lowercase":
            assert step.request == base.model_copy(update={"lowercase": not base.lowercase})
        elif step.changed == "references":
            assert step.request.segments[0].references != base.segments[0].references
            assert step.request.weights == base.weights and step.request.lowercase == base.lowercase


def test_a_check_sends_refused_inputs_and_series_and_the_coverage_table_counts_them(tmp_path):
    from fakes.harness import check, fake, results

    report = tmp_path / "report"
    # series at 5, refused at 11 (and brackets at 2: clean.py takes "(" in a token; line-ends at 4: it takes a CR)
    assert check(report, fake("clean"), "--series-length", 8, examples=12) == 0
    done = results(report)
    kinds = {r.id.split("~")[1] for r in done.records if "~" in r.id and r.kind != "metamorphic"}
    assert kinds == {"refused", "series", "brackets", "line-ends"}
    [refused] = [r for r in done.records if r.id.endswith("~refused")]
    assert refused.outcome == "rejected"
    coverage = done.footer.coverage
    assert coverage.features["series"] == 1 and coverage.features["series-request"] == 8
    assert coverage.longest_series == 8 and coverage.features["refused-refused"] == 1
    summary = (report / "summary.md").read_text(encoding="utf-8")
    assert "Inputs that must be refused: 1 sent, 1 refused." in summary
    assert "Series: 1 series of 8 requests (the longest 8)" in summary
