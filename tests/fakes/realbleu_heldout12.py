#!/usr/bin/env python3
"""Twelfth held-out real-bug BLEU: bugs from new sources, planted in realbleu.py's library and wrapper.

Issue 36, twelfth held-out set: realbleu.py and the first eleven held-out sets (`realbleu_heldout.py` ..
`realbleu_heldout11.py`) cite the repositories listed in benchmarks/README.md ("Twelfth held-out set, blind"), and
the earlier sets' sections list the repositories they read and rejected; this set cites none of those: a Ruby NLP
library's sentence BLEU (pks/zipf, published as the gems nlp_ruby and then zipf) and a Java phrase-based MT toolkit's
BLEU scoring script (stanfordnlp/phrasal). The sixth set's section lists Phrasal among the repositories it fetched and
read with `git log --all -i --grep=bleu`; the fix here says "NIST scoring script", not BLEU, so that search could not
show it (it was found in the history of `BLEUMetric.java` and of the reference reader it calls). A bug counts when a
diff shows the wrong code and its fix; `url` is the fix commit (each pushed without a pull request that the history
names). No repository here, and no fix commit, is cited anywhere in the project (`oracle/`, `docs/`, `tests/`,
`benchmarks/`, `cases/`, `baselines/`, README, CHANGELOG; searched by owner, repository name and the fix commits'
hash prefixes before the pre-registration).

Two bugs, one of them a control labelled before the run (`planted_twin`): Phrasal's scoring script lowercasing the
hypotheses and not the references, the one-bug fake `mutant_hypothesis_always_lowercased.py` and the second held-out
set's `hypotheses-lowercased-always` (a benchmark's normalisation lowercasing the model's outputs and not the gold
answers), the catalogue's `case-folded-hypothesis-only`.
The new mechanism, `sentence-matches-credited-with-reference-counts` (zipf's per-sentence BLEU adding, for each
distinct hypothesis n-gram, its count in the reference, never the smaller of that and the hypothesis's own count), is
planted by no fake and named by no catalogue mechanism: its neighbours, read before the pre-registration, each clip
otherwise (`unclipped-matches`, the hypothesis's count wherever the n-gram occurs in some reference;
`clipped-to-reference-sum`, the minimum with the references' summed count; `recall-instead-of-precision`, the
references' n-grams over the references' totals); the eighth set's docstring saw the same arithmetic in neuralmonkey
and left it out (never fixed: no diff), so no fake and no catalogue entry holds it. The fix commit's message names
multi-reference support ("BLEU: support for multiple references, unit test"); its diff replaces
`counts_clipped += r_ng[i].count(j)` by the minimum of the hypothesis's count and the references' largest count,
a clip that support for several references does not need: the fix of the clip is read from the diff, not the message.
Each bug's `fits`, the cause names that would count as naming its mechanism (a catalogue name where the diff's
mechanism has one, else the name an ideal cause would have), were judged from the diff alone and committed before
any run of `check` on this fake's buggy modes.

Gathered and left out before this pre-registration (read in their diffs; never by a guess at what the tool would
name): bentrevett/pytorch-seq2seq's BLEU in its tutorials 4 to 6 (`bleu_score(trgs, pred_trgs)`, the references
passed as the candidates and the predictions as the references, fixed eight days later after its issue #62): a second
control (the catalogue's `hypothesis-and-references-swapped`, realbleu.py's `hypothesis-reference-swapped`), and the
brief allows one; zipf's other BLEU code (its corpus BLEU's `corpus_stats.sum == 0`, an array compared with 0, never
true but guarded by the clipped count's test before it: no score changes; its `best_match_length` that never updates
its minimum, so the last reference's length is taken, written in the fix commit and never fixed: no diff); Phrasal's
other BLEU commits (an option's name, `-nist` against `-no-nist`, fixed in the parser; a NullPointerException in
smoothed BLEU during MERT; smoothing forced for one reference: options and a crash outside scoring); marian-dev's
built-in BLEU validator (its history since 2018: detokenisation modes, refactors, no fix of its counts);
TextAnalysis.jl (one BLEU commit and a documentation fix); fast-bleu (memory and build fixes); LaTeX-OCR's evaluation
(a metric added and its reference alternatives, no fix); evidently (BLEU added on branches, no fix); axolotl's
generation benchmark callback (`score or compute(...)` made `score is None`: a retry of a metric's call, not BLEU's
arithmetic); Bleualign (BLEU as an alignment score, options only) and bitextor (submodule updates); tensorlayer (its
moses_multi_bleu wrapper, a logging typo); naturalcc, SummEval, flores, nlp-recipes, fmeval, langcheck,
Dive-into-DL-PyTorch, wmt2021_triangular_mt and multicaptioneval (no BLEU fix in their histories); simpletod,
UBAR-MultiWOZ, BMT, RelGAN and BigDL (incomplete snapshots, not read); torch/rnn (read by an earlier set).
Read after the pre-registration and its runs (17:14-17:16 UTC), none added (no second batch was pre-registered):
ufal/treex's Perl BLEU (`Treex::Tool::Eval::Bleu` and the blocks before it: printing, options and a tokenisation
mode, no fix of a score) and baiyyang/BLEU (its brevity penalty moved from per-order to per-corpus code within a day of
the script's writing: a day's development history).

    python tests/fakes/realbleu_heldout12.py clean            # the control: correct under papineni
    python tests/fakes/realbleu_heldout12.py BUG              # one held-out bug (names in HELDOUT12_BUGS)
    python tests/fakes/realbleu_heldout12.py clean --no-stats # no statistics in the replies

Written without `oracle` (stdlib only). The library, the wrapper and the protocol loop are realbleu.py's (imported,
not copied): `Heldout12Wrapper` switches on one bug each and otherwise defers to realbleu.py's, so the clean twin is
realbleu.py's clean twin. Each plant is the diff's wrong code alone, translated into Python:

- zipf (Ruby, lib/nlp_ruby/bleu.rb, then lib/zipf/bleu.rb, `BLEU::per_sentence_bleu`): `h_ng[i].uniq.each { |j|
  counts_clipped += r_ng[i].count(j) }` becomes, per order, the sum over the hypothesis's distinct n-grams of their
  count in the reference. Only the sentence-level BLEU had it (the library's corpus BLEU, `BLEU::get_counts`, took
  `[r.get_count(ng), count].min`), so the plant answers sentence-level requests so and corpus-level ones as the clean
  twin. The buggy function took one reference; for several, the plant takes each n-gram's largest count over them,
  as the fixed function does (`r_ng.map { |r| r[i].count(j) }.max`) without the minimum with the hypothesis's count.
  Its other conventions are not planted: add-one on the counts of orders 2 and up, an effective order min(N, the
  reference's length) with uniform weights, the brevity penalty in the log domain, each line split on whitespace.
- Phrasal (Java, BLEUMetric.main and Metrics.readReferences): `line = NISTTokenizer.tokenize(line)` on each
  hypothesis line (whose `if (lowercase) s = s.toLowerCase();` runs by default; the NIST normalisation after it is
  off by default since the option became `-nist`), against `referencesList.get(lineNumber - 1).add(
  IStrings.tokenize(line))` for each reference line (a whitespace split, no lowercasing). Python's `str.lower` stands
  for Java's `String.toLowerCase` (the same on every token the suite sends but for locale rules the suite does not
  draw). Not planted: its whitespace split of each line (the protocol sends tokens), its optional NIST
  normalisation, and the fixed behaviour's case-insensitive default (both sides lowercased, as the fix reads the
  references through the same tokenizer).

The clean twin's conventions (the request's orders, weights and smoothing, closest reference length with ties to the
shorter, tokens and case as the request sends and asks) stand for the sources' own.
"""

from __future__ import annotations

from collections import Counter

if __package__:  # imported as fakes.realbleu_heldout12 (the tests)
    from .realbleu import KINDS, Library, RealBug, Wrapper, answer
    from .realbleu import main as serve
else:  # run as a script: its directory is on sys.path
    from realbleu import KINDS, Library, RealBug, Wrapper, answer
    from realbleu import main as serve

__all__ = ["HELDOUT12_BUGS", "KINDS", "Heldout12Wrapper", "ReferenceCountLibrary", "answer", "main"]

HELDOUT12_BUGS: dict[str, RealBug] = {
    # -- counting ---------------------------------------------------------------------------------------------------
    "sentence-matches-credited-with-reference-counts": RealBug(
        url="https://github.com/pks/zipf/commit/4c08c31d6759bfc1cd9d31a051fe182827345e17",
        where="pks/zipf (the gem nlp_ruby until its renaming) lib/nlp_ruby/bleu.rb, then lib/zipf/bleu.rb, "
              "BLEU::per_sentence_bleu (Ruby), from 27bc315 ('per sentence bleu', February 2014, through the gemspec's "
              "versions 0.3 to 1.2): `h_ng[i].uniq.each { |j| counts_clipped += r_ng[i].count(j) }`, where "
              "h_ng[i] and r_ng[i] list the hypothesis's and the reference's n-grams of order i; the fix "
              "('BLEU: support for multiple references, unit test', January 2015) adds `[h_ng[i].count(j), "
              "r_ng.map { |r| r[i].count(j) }.max].min` for each distinct hypothesis n-gram j",
        symptom="BLEU: support for multiple references, unit test",
        mechanism="at sentence level, each order's matches are the sum, over the hypothesis's distinct n-grams, of "
                  "each one's count in the reference, never clipped to the hypothesis's own count: an n-gram the "
                  "hypothesis has once and the reference three times gives 3 matches, so matches can exceed the "
                  "total; where the reference has it no more often than the hypothesis the count is the clipped one. "
                  "The library's corpus BLEU clipped correctly: corpus-level scores are right",
        kind="counting", stage="counting",
        fits=("sentence-matches-credited-with-reference-counts", "matches-credited-with-reference-counts",
              "matches-are-reference-counts", "reference-counts-as-matches",
              "matches-not-clipped-to-hypothesis-counts", "clipped-to-reference-count-only")),
    # -- a control (labelled before the run) ----------------------------------------------------------------------
    "hypotheses-lowercased-by-the-scoring-script": RealBug(
        url="https://github.com/stanfordnlp/phrasal/commit/c506892bf38e8d374536ff937b462cac07942fa0",
        where="stanfordnlp/phrasal src/edu/stanford/nlp/mt/metrics/BLEUMetric.java main() (the BLEU scoring "
              "command) and Metrics.readReferences: after f253968 ('Remove NISTTokenizer dependencies, except from "
              "BLEUMetric and NISTMetric') readReferences read each reference line as `IStrings.tokenize(line)` (a "
              "whitespace split), while main() read each hypothesis line as `line = NISTTokenizer.tokenize(line)` "
              "then `IStrings.tokenize(line)`, and NISTTokenizer.tokenize begins `if (lowercase) s = "
              "s.toLowerCase();` with `lowercase = true` unless `-cased` is given; the fix ('Fix NIST scoring "
              "script') reads the references with `Metrics.readReferences(refs, true)`, through the same "
              "NISTTokenizer.tokenize",
        symptom="Fix NIST scoring script",
        mechanism="every hypothesis token is lowercased before counting (the script's default, whatever case the "
                  "evaluation is meant to keep), the references never are: a hypothesis token with an upper-case "
                  "letter matches no reference token spelled as written, and a reference token with an upper-case "
                  "letter is matched by no hypothesis token; lengths are unchanged",
        kind="text", stage="tokens",
        fits=("case-folded-hypothesis-only", "hypotheses-lowercased-regardless-of-request",
              "hypotheses-lowercased-always"),
        planted_twin="mutant_hypothesis_always_lowercased"),
}


class ReferenceCountLibrary(Library):
    """realbleu.py's library whose matches are each distinct hypothesis n-gram's reference count (zipf's
    per-sentence BLEU before its fix; the largest count over several references, as the fixed function reads them)."""

    def modified_precision(self, references, hypothesis, n):
        counts = self.ngram_counts(hypothesis, n)
        largest: Counter = Counter()
        for reference in references:
            for gram, k in self.ngram_counts(reference, n).items():
                largest[gram] = max(largest[gram], k)
        # `h_ng[i].uniq.each { |j| counts_clipped += r_ng[i].count(j) }`: no min with the hypothesis's count
        return sum(largest[gram] for gram in counts), sum(counts.values())


class Heldout12Wrapper(Wrapper):
    """realbleu.py's wrapper with one held-out bug switched on."""

    def __init__(self, bug):
        super().__init__(bug)
        self.sentence_library = ReferenceCountLibrary() if bug == "sentence-matches-credited-with-reference-counts" \
            else None

    def score(self, hypotheses, list_of_references, weights, smoothing, level):
        if self.sentence_library is not None and level == "sentence":
            # zipf between 27bc315 and its fix: BLEU::per_sentence_bleu; the corpus BLEU (get_counts) was right
            return self.sentence_library.corpus_bleu(list_of_references, hypotheses, weights, smoothing)
        if self.bug == "hypotheses-lowercased-by-the-scoring-script":
            # Phrasal between f253968 and c506892: NISTTokenizer.tokenize (toLowerCase by default) on the hypothesis
            # lines only; the references as read, split on whitespace
            hypotheses = [[token.lower() for token in h] for h in hypotheses]
        return super().score(hypotheses, list_of_references, weights, smoothing, level)


def main(argv=None):
    serve(argv, bugs=HELDOUT12_BUGS, make_wrapper=Heldout12Wrapper, prog="realbleu_heldout12")


if __name__ == "__main__":
    main()
