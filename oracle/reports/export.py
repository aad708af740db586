"""`bleu-oracle cases export`: the documented cases as a versioned, language-neutral JSON suite.

Each case under each of its profiles becomes one `oracle.models.export.ExportedCase`: the input as
protocol v1 carries it, every convention of the profile with the case's overrides, what a conforming
implementation answers (the oracle's exact expectation, under the default numeric contract), what
the document prints (within its tolerance), and where the case comes from. The file validates
against `suite.schema.json`, written beside it.
"""

from __future__ import annotations

import json
from pathlib import Path

from oracle import __version__
from oracle.diagnose.expect import oracle_expected, oracle_options
from oracle.diagnose.judge import DEFAULT_ABS, DEFAULT_REL
from oracle.harness.requests import case_to_request
from oracle.models import export
from oracle.models.jsonvalues import json_safe
from oracle.suite import SUITE_VERSION

from .staging import write_atomically

SUITE_FILE = "suite.json"
SCHEMA_FILE = "suite.schema.json"


def exported_cases(cases):
    """(ExportedCase models, one per case and profile; LeftOut models for those protocol v1 cannot carry)."""
    out, left_out = [], []
    for case in cases:
        source = case.source
        for profile in case.profiles:
            item = case_to_request(case, seq=0, profile=profile)
            if item.request is None:
                left_out.append(export.LeftOut(id=item.case_id, profile=profile, reason=item.invalid or ""))
                continue
            expected = oracle_expected(item.request, profile, overrides=item.overrides)
            conventions = oracle_options(profile, lowercase=item.request.lowercase, overrides=item.overrides).to_json()
            printed = None
            if item.document:
                printed = export.Printed(**json_safe({k: v for k, v in item.document.items()
                                                      if k in ("score", "tolerance", "statistics", "rejected")}))
            out.append(export.ExportedCase(
                id=item.case_id, title=item.title, profile=profile, conventions=json_safe(conventions),
                request=item.request.replay_payload(),
                expected=export.Expected(rejected=expected.rejected, reason=expected.reason or None,
                                         score=json_safe(expected.score), score_exact=expected.score_exact,
                                         statistics=expected.statistics.to_json() if expected.statistics else None,
                                         rel=DEFAULT_REL, abs=DEFAULT_ABS),
                printed=printed,
                source=export.Source(document=source.document, section=source.section, quote=source.quote),
            ))
    return out, left_out


def write_export(cases, directory):
    """DIR/suite.json and DIR/suite.schema.json (each written atomically); returns the Suite."""
    directory = Path(directory)
    directory.mkdir(parents=True, exist_ok=True)
    exported, left_out = exported_cases(cases)
    suite = export.Suite(suite_version=SUITE_VERSION, oracle_version=__version__, cases=exported, left_out=left_out)
    write_atomically(directory / SUITE_FILE, json.dumps(suite.model_dump(mode="json"), indent=1, ensure_ascii=False,
                                                        allow_nan=False) + "\n")
    write_atomically(directory / SCHEMA_FILE, export.render_schema())
    return suite
