"""The unmodified reference scripts (../shared/tools/moses), driven through the harness with their reviewed
baselines: each run completes, gates green, and answers (errors under 5% of records); the tests skip, with
the reason, where the scripts, perl or XML::Twig are absent.

Holds: oracle.adapters.perl_adapter
"""

from __future__ import annotations

import pytest
from conftest import load
from fakes.harness import check_against_baseline


@pytest.mark.slow
# mteval-v13a.pl is a Perl process and an XML parse per request, shrinking included: minutes (CI runs it)
@pytest.mark.parametrize("name", ["multi-bleu", pytest.param("mteval", marks=pytest.mark.heavy)])
def test_the_script_conforms_to_its_reviewed_baseline_and_answers(name, tmp_path, repo_root):
    load(name)  # skips with the reason when the script (or perl, or XML::Twig) is missing
    code, records, errors, gating = check_against_baseline(name, tmp_path / "report",
                                                           repo_root / "baselines" / f"{name}.yaml")
    assert code == 0, gating
    assert len(errors) < 0.05 * len(records), [(r.id, r.message) for r in errors[:5]]
    assert sum(r.outcome == "pass" for r in records) > 50
