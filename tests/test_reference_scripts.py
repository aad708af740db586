"""The unmodified reference scripts (../shared/tools/moses), driven through the harness with their reviewed
baselines: each run completes, gates green, and answers (errors under 5% of records); the tests skip, with
the reason, where the scripts, perl or XML::Twig are absent."""

from __future__ import annotations

import pytest
from conftest import load
from fakes.harness import results, run_cli


@pytest.mark.slow
@pytest.mark.parametrize("name", ["multi-bleu", "mteval"])
def test_the_script_conforms_to_its_reviewed_baseline_and_answers(name, tmp_path, repo_root):
    load(name)  # skips with the reason when the script (or perl, or XML::Twig) is missing
    report = tmp_path / "report"
    code = run_cli("check", "--impl", name, "--baseline", repo_root / "baselines" / f"{name}.yaml",
                   "--report", report, "--quiet")
    records = results(report).records
    errors = [r for r in records if r["outcome"] in ("error", "crash", "timeout", "protocol-error")]
    assert code == 0, [r["id"] for r in records if (r.get("baseline") or {}).get("status") not in (None, "known")]
    assert len(errors) < 0.05 * len(records), [(r["id"], r["message"]) for r in errors[:5]]
    assert sum(r["outcome"] == "pass" for r in records) > 50
