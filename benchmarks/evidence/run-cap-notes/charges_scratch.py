# ruff: noqa  -- a scratch count kept as run (evidence of run-cap's arithmetic, benchmarks/README.md), not a maintained script
"""Scratch (run-cap): per block, the tokens every judged item carried and what the diagnosis spent (thread CPU too)."""
import collections
import os
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "benchmarks")); sys.path.insert(0, str(ROOT))
from attribution import command_of

from oracle.harness import budget, transport
from oracle.harness import session as sess

LAST = [0]
def run(command):
    judged = collections.Counter(); spent = collections.Counter(); failures = collections.Counter()
    orig_judge = sess.Session.judge
    def judge(self, item):
        j = orig_judge(self, item)
        b = self.budget.example // budget.SHRINK_BLOCK
        judged[b] += j.request.token_count
        return j
    orig_charge = transport.RestartBudget.searches_charged
    def charged(self, kind, net):
        if kind == budget.DIAGNOSIS_KIND:
            spent[self.example // budget.SHRINK_BLOCK] += net + budget.diagnosis_tokens_earned(LAST[0])
            failures[self.example // budget.SHRINK_BLOCK] += 1
        return orig_charge(self, kind, net)
    from oracle.harness import diagnosis as dg
    orig_earned = dg._diagnosis_earned
    def earned(request):
        LAST[0] = request.token_count
        return orig_earned(request)
    dg._diagnosis_earned = earned
    sess.Session.judge = judge; transport.RestartBudget.searches_charged = charged
    from oracle.cli import main
    with tempfile.TemporaryDirectory() as report:
        os.environ["BLEU_ORACLE_SEARCH_CACHE"] = str(Path(report) / "cache")
        t = time.process_time()
        try:
            main(["check", "--command", command, "--no-cases", "--seed", "0", "--report", str(Path(report) / "r"),
                  "--quiet", "--jobs", "1", "--allow-empty"])
        except SystemExit:
            pass
        cpu = time.process_time() - t
    sess.Session.judge = orig_judge; transport.RestartBudget.searches_charged = orig_charge
    return judged, spent, failures, cpu

for name in sys.argv[1:]:
    failing, fixed = command_of(name)
    j, s, f, cpu = run(failing)
    jf, _, _, cpuf = run(fixed)
    print(name, f"cpu {cpu:.2f}/{cpuf:.2f}")
    for b in sorted(set(j) | set(jf)):
        print(f"  block {b}: judged failing {j[b]:,} fixed {jf[b]:,}; failures {f[b]}; diagnosis net spent {s[b]:,}")
