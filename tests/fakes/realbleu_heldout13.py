#!/usr/bin/env python3
"""Thirteenth held-out real-bug BLEU: a bug from a new source, planted in realbleu.py's library and wrapper.

Issue 36, thirteenth held-out set: realbleu.py and the first twelve held-out sets (`realbleu_heldout.py` ..
`realbleu_heldout12.py`) cite the repositories listed in benchmarks/README.md ("Thirteenth held-out set, blind"), and
the earlier sets' sections list the repositories they read and rejected; this set cites none of those: a Haskell
evaluation tool's corpus BLEU (amu-cai/geval, GEval, the scorer of the Gonito challenge platform). It was found by the
`search` tool's `code` corpus (a query for BLEU written in Haskell named `GEval.BLEU`), its history read with
`git log --all -i --grep=bleu` and `git log -G` on the BLEU code. A bug counts when a diff shows the wrong code and its
fix; `url` is the fix commit (pushed without a pull request that the history names). No repository here, and no fix
commit, is cited anywhere in the project (`oracle/`, `docs/`, `tests/`, `benchmarks/`, `cases/`, `baselines/`, README,
CHANGELOG; searched by owner, repository name, the author's name and the fix commit's hash prefix before the
pre-registration).

One bug, a control labelled before the run (`planted_twin`): GEval's BLEU scoring an all-empty output 1, the one-bug
fake `mutant_empty_hypothesis_one.py` and the second held-out set's `empty-hypothesis-scores-one` (a hypothesis with
no tokens scored 1), the catalogue's `empty-hypothesis-scores-one`. No bug of a mechanism the catalogue does not hold
was found in the time (the search, and what was left out, below and in the README section); none was added to reach a
count. Its `fits`, the cause names that would count as naming its mechanism (the catalogue's name, and the names an
ideal cause would have), were judged from the diff alone and committed before any run of `check` on this fake's buggy
mode.

Gathered and left out before this pre-registration (read in their diffs; never by a guess at what the tool would
name): tarowatanabe/cicada's corpus BLEU (C++, cicada/eval/bleu.hpp `Bleu::score`, fixed in its commit 'bugfix for
correct normalization for shorter hypothesis length': `score += p > 0.0 ? std::log(p) : 0.0` over every order, an
order without hypothesis n-grams given p = 0 and so a log term of 0, then `score /= ngrams_hypothesis.size()`; the
fix divides by the number of orders with n-grams): a second control, the catalogue's `empty_order=one`
(`mutant_empty_order_one.py`), and the brief allows one; cicada's sentence BLEU (`BleuS`, add-one on every order, the
unigrams too, then on orders 2 and up: the third set's `add-one-on-unigrams-too`, a third control) and its other BLEU
commits (the decoder's BLEU features, expected-BLEU training, RIBES and TER fixes: no evaluation score); GEval's
clipping (`precisionCount` takes, for each distinct hypothesis n-gram, the smallest of its clipped counts over the
references that hold it, `minimumOrZero $ filter (> 0) ...`, where the largest is meant: never changed in the stored
history to 2024, no diff); nrc-cnrc/Portage-SMT-TAS's eval/bleu.cc (migration commits only; its smoothing 3's
`result1 += result1 + ...`, never fixed); melisgl/mgl's Common Lisp BLEU (its signature and second return value
changed, no score fixed); and the histories below in the README section, none with a fix of a BLEU score.

    python tests/fakes/realbleu_heldout13.py clean            # the control: correct under papineni
    python tests/fakes/realbleu_heldout13.py BUG              # one held-out bug (names in HELDOUT13_BUGS)
    python tests/fakes/realbleu_heldout13.py clean --no-stats # no statistics in the replies

Written without `oracle` (stdlib only). The library, the wrapper and the protocol loop are realbleu.py's (imported,
not copied): `Heldout13Wrapper` switches the bug on and otherwise defers to realbleu.py's, so the clean twin is
realbleu.py's clean twin. The plant is the diff's wrong code alone, translated into Python:

- GEval (Haskell, src/GEval/Core.hs `gevalCore' BLEU`, from 8a944c1 'BLEU done', August 2015, to its fix, October
  2017): `bleuFinal (p1, p2, p3, p4, rl, l1, l2, l3, l4) = ((p1 /. l1) * (p2 /. l2) * (p3 /. l3) * (p4 /. l4)) ** 0.25
  * (brevityPenalty l1 rl)` with `brevityPenalty c r | c >= r = 1.0 | otherwise = exp (1.0 - (r /. c))`, where
  src/GEval/Common.hs defines `x /. 0 = 1.0`. With no hypothesis token in the corpus (c = l1 = 0) and some reference
  token (r > 0), every `p /. l` is 0 /. 0 = 1 and the penalty is exp(1 - r /. 0) = exp(1 - 1) = 1: the score is 1.
  The fix adds `| c == 0 && r > 0 = 0.0` to `brevityPenalty` (and a test, 'empty translation', expecting 0). The plant
  answers exactly those inputs (c = 0, r > 0) with score 1 and BP 1, at either level (GEval scored a test set as one
  corpus; a sentence-level request is a corpus of one segment, the same arithmetic). Not planted, as the fix kept
  them or they are the library's own conventions: the same division's 1 for an order without hypothesis n-grams where
  c > 0 (the clean twin's p_n = 0 stands for it), and for c = r = 0 (the clean twin's NaN); four orders with uniform
  weights, the whitespace split of each line, its clipping over several references (above).

The clean twin's conventions (the request's orders, weights and smoothing, closest reference length with ties to the
shorter, tokens and case as the request sends and asks) stand for the source's own.
"""

from __future__ import annotations

if __package__:  # imported as fakes.realbleu_heldout13 (the tests)
    from .realbleu import KINDS, Library, RealBug, Wrapper, answer
    from .realbleu import main as serve
else:  # run as a script: its directory is on sys.path
    from realbleu import KINDS, Library, RealBug, Wrapper, answer
    from realbleu import main as serve

__all__ = ["HELDOUT13_BUGS", "KINDS", "Heldout13Wrapper", "OneForZeroDenominatorLibrary", "answer", "main"]

HELDOUT13_BUGS: dict[str, RealBug] = {
    # -- a control (labelled before the run) ----------------------------------------------------------------------
    "empty-output-scored-one-by-a-safe-division": RealBug(
        url="https://github.com/amu-cai/geval/commit/c10f3579c66a3cabad0b9baecb8f9fc9a579ed69",
        where="amu-cai/geval (GEval, the Gonito platform's evaluation tool) src/GEval/Core.hs gevalCore' BLEU "
              "(Haskell), from 8a944c1 ('BLEU done', August 2015): `bleuFinal (p1, p2, p3, p4, rl, l1, l2, l3, l4) = "
              "((p1 /. l1) * (p2 /. l2) * (p3 /. l3) * (p4 /. l4)) ** 0.25 * (brevityPenalty l1 rl)`, "
              "`brevityPenalty c r | c >= r = 1.0 | otherwise = exp (1.0 - (r /. c))`, with src/GEval/Common.hs's "
              "`x /. 0 = 1.0`; the fix ('fix BLEU for empty output', October 2017) adds "
              "`| c == 0 && r > 0 = 0.0` to brevityPenalty and a test, 'empty translation', expecting 0",
        symptom="fix BLEU for empty output",
        mechanism="a division that returns 1 for a zero denominator makes an output with no tokens at all (c = 0, "
                  "some reference token) score 1, a perfect score: every precision is 0/0 taken as 1 and the brevity "
                  "penalty exp(1 - r/c) has r/0 taken as 1, so BP = 1; any hypothesis token anywhere in the corpus "
                  "gives the right score",
        kind="conventions", stage="combination",
        fits=("empty-hypothesis-scores-one", "empty-hypothesis-perfect-score", "empty-output-scores-one",
              "zero-denominator-taken-as-one"),
        planted_twin="mutant_empty_hypothesis_one"),
}


class OneForZeroDenominatorLibrary(Library):
    """realbleu.py's library scoring a corpus without hypothesis tokens as GEval's BLEU did before its fix: `x /. 0 =
    1.0` in every precision and in the brevity penalty's r / c."""

    def bleu_from_stats(self, stats, weights, smoothing, last_hypothesis_length=0):
        if stats.c == 0 and stats.r > 0:
            # ((0 /. 0) * ... ) ** 0.25 * exp (1.0 - (r /. 0)) = 1 * exp(1 - 1); the fix: BP 0 where c == 0 && r > 0
            return 1.0, 1.0
        return super().bleu_from_stats(stats, weights, smoothing, last_hypothesis_length)


class Heldout13Wrapper(Wrapper):
    """realbleu.py's wrapper with one held-out bug switched on."""

    def __init__(self, bug):
        super().__init__(bug)
        if bug == "empty-output-scored-one-by-a-safe-division":
            self.library = OneForZeroDenominatorLibrary()


def main(argv=None):
    serve(argv, bugs=HELDOUT13_BUGS, make_wrapper=Heldout13Wrapper, prog="realbleu_heldout13")


if __name__ == "__main__":
    main()
