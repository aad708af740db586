"""The cases of a case file, and the inputs a user replays: each judged as one `Item` on the session's channel.

`run_cases` judges the cases `--id` selects that this run's shard owns (`oracle.harness.shards`), in their order,
each under its own context (`Item.of_case`: its overrides, document and profiles); a case file that is not the
bundled suite's is remembered for the reproduction line (`oracle.harness.reproduction`). `run_replay` judges the
inputs of `check --replay` (or `history`'s extra inputs), each a record of kind "replay".
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import Any

from oracle.formulas.errors import BleuOracleError, BleuValueError
from oracle.models.protocol import ScoreRequest

from ..requests import case_to_request
from ..shards import Shard
from ..stages import Item, selected


def run_cases(session: Any, cases: Iterable[Any]) -> None:
    """The cases `only` selects and this run's shard owns (`oracle.harness.shards`), in their order."""
    settings = session.settings
    shard = Shard(settings.shard[0] + 1, settings.shard[1])
    position = -1
    for case in cases:
        try:
            item = case_to_request(case, seq=0, profile=session.profile)
        except BleuOracleError as exc:
            raise BleuValueError(f"case {getattr(case, 'id', '?')}: {exc}") from None
        if not selected(item.case_id, settings.only):
            continue
        position += 1
        if not shard.owns(position):
            continue
        if not bundled(case.path):
            session.case_files[item.case_id] = case.path
        session.channel.start_unit()
        session.evaluate(Item.of_case(item))


def run_replay(session: Any, inputs: Iterable[tuple[str, ScoreRequest]]) -> None:
    """Each (label, request) of `inputs` judged as a record of kind "replay"."""
    for label, request in inputs:
        session.evaluate(Item(label, "replay", request))


def bundled(path: Any) -> bool:
    """A case file of the suite bundled with bleu-oracle (reproduced without --cases)."""
    from oracle.suite.cases import DEFAULT_CASES_DIR

    try:
        Path(path).resolve().relative_to(Path(DEFAULT_CASES_DIR).resolve())
    except ValueError:
        return False
    return True
