"""The README starts where a user starts (issue 37): what bleu-oracle is, then the two commands, verbatim as CI and
users run them, then using it (check, doctor, a CI gate, the vectors), each pointing at its page in docs/. What
changed lives in CHANGELOG.md, in Keep a Changelog's form. Every relative link of the two resolves to a file of the
repository, and every `#anchor` to a heading of its page.
"""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
README = ROOT / "README.md"
CHANGELOG = ROOT / "CHANGELOG.md"
#: The two commands, verbatim: the main job (what CI's users run) and the test command (.ci/run runs it)
COMMANDS = ("bash scripts/setup && .venv/bin/bleu-oracle check --impl sacrebleu --baseline baselines/sacrebleu.yaml "
            "--report bleu-oracle-report", "bash scripts/test")
#: Keep a Changelog 1.1.0's kinds of change
KINDS = {"Added", "Changed", "Deprecated", "Removed", "Fixed", "Security"}
#: A markdown link or image: [text](target), the target without a title
LINK = re.compile(r"!?\[[^\]]*\]\(([^)\s]+)\)")


def headings(text: str) -> list[str]:
    """The headings of `text` (## and deeper, and the title), outside fenced blocks."""
    found, fenced = [], False
    for line in text.splitlines():
        if line.startswith("```"):
            fenced = not fenced
        elif not fenced and line.startswith("#"):
            found.append(line)
    return found


def anchor(heading: str) -> str:
    """GitHub's anchor of a heading: lower case, punctuation dropped, spaces as hyphens."""
    return re.sub(r"[^\w\- ]", "", heading.lstrip("#").strip().lower()).replace(" ", "-")


def section(text: str, title: str) -> str:
    """The text of the `## title` section, up to the next `## `."""
    start = text.index(f"\n## {title}\n")
    end = text.find("\n## ", start + 1)
    return text[start:end if end != -1 else len(text)]


def test_the_readme_opens_with_what_it_is_then_the_two_commands_then_using_it():
    text = README.read_text(encoding="utf-8")
    sections = [line for line in headings(text) if line.startswith("## ")]
    assert sections[:2] == ["## The two commands", "## Using it"], sections
    assert not any(line.lower().startswith("## what changed") for line in sections), "it belongs in CHANGELOG.md"
    before = text[:text.index("\n## The two commands\n")]
    assert len(before.split()) < 120, "a few sentences on what it is, then the commands"


def test_the_two_commands_are_there_verbatim_and_nothing_else_is_run():
    block = section(README.read_text(encoding="utf-8"), "The two commands")
    fenced = block.split("```sh\n", 1)[1].split("```", 1)[0]
    commands = tuple(line for line in fenced.splitlines() if line.strip() and not line.startswith("#"))
    assert commands == COMMANDS
    assert "minutes" in block, "say how long each takes"


def test_using_it_points_each_task_at_its_page_in_docs():
    using = section(README.read_text(encoding="utf-8"), "Using it")
    tasks = {line.removeprefix("### ") for line in headings(using) if line.startswith("### ")}
    pages = {"Check your implementation": "docs/checking.md", "Explain a number: `doctor`": "docs/doctor.md",
             "Gate CI with a baseline": "docs/checking.md", "Use the vectors in another language": "docs/vectors.md"}
    assert tasks == set(pages)
    for task, page in pages.items():
        start = using.index(f"### {task}\n")
        end = using.find("\n### ", start + 1)
        assert f"]({page})" in using[start:end if end != -1 else len(using)], f"{task}: no link to {page}"


def test_the_changelog_is_in_keep_a_changelog_form():
    text = CHANGELOG.read_text(encoding="utf-8")
    versions = [line for line in headings(text) if line.startswith("## ")]
    assert versions and versions[0] == "## [Unreleased]", versions
    assert all(re.fullmatch(r"## \[(Unreleased|\d+\.\d+\.\d+)\]( - \d{4}-\d{2}-\d{2})?", line) for line in versions)
    kinds = [line.removeprefix("### ") for line in headings(text) if line.startswith("### ")]
    assert kinds and set(kinds) <= KINDS, kinds
    assert "keepachangelog.com" in text


def test_every_link_resolves_in_the_repository():
    broken = []
    for page in (README, CHANGELOG):
        text = page.read_text(encoding="utf-8")
        anchors = {anchor(line) for line in headings(text)}
        for target in LINK.findall(text):
            if re.match(r"[a-z]+:", target):  # https:, mailto:: outside the repository
                continue
            path, _, fragment = target.partition("#")
            if path and not (page.parent / path).exists():
                broken.append(f"{page.name}: {target} (no such file)")
            elif not path and fragment not in anchors:
                broken.append(f"{page.name}: {target} (no such heading)")
    assert not broken, broken
