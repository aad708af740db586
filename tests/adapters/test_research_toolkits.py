"""The research toolkits' BLEU: fairseq's libbleu (C++ from the fairseq sdist, built with g++ on first use and
driven through ctypes as fairseq's Scorer drives it), compare-mt's BleuScorer and SentBleuScorer, and mmeval's
BLEU (virtual environments of their own). Each answer below is derived by hand from the library's code, cited
beside it; `check --impl NAME` then runs end to end against the reviewed baseline (slow; the venv-hosted ones
heavy). fairseq's by-hand test skips, with the reason, where its sdist is not installed (`bleu-oracle install
fairseq`) or g++ is missing; the rest prepare what they need first, as `check` does.

Holds: oracle.adapters.fairseq_adapter, oracle.adapters.drivers.libraries.compare_mt,
    oracle.adapters.drivers.libraries.mmeval
"""

from __future__ import annotations

import io
import json
import math
import tarfile
from pathlib import Path

import pytest
from conftest import load, prepared
from fakes.harness import check_against_baseline

from oracle.adapters import environments
from oracle.adapters.base import AdapterUnavailable, ScoreAnswer, call
from oracle.diagnose.classify import classify
from oracle.diagnose.counting import with_end_tokens
from oracle.models.protocol import ScoreRequest


def _request(segments, weights, *, level="corpus", smoothing="none", lowercase=False):
    """Segments as (hypothesis, [reference, ...]) strings, split on spaces."""
    parts = [{"hypothesis": h.split(), "references": [r.split() for r in rs]} for h, rs in segments]
    return ScoreRequest(level=level, weights=weights, smoothing=smoothing, lowercase=lowercase, segments=parts)




BLEU4 = [0.25] * 4
#: "a b c d" matched whole, then an empty hypothesis against "e f" (see test_fairseq_by_hand)
EMPTY_HYPOTHESIS_CORPUS = [("a b c d", ["a b c d"]), ("", ["e f"])]


# -- fairseq -----------------------------------------------------------------------------------------------


def test_fairseq_by_hand():
    fairseq = load("fairseq")
    # p = 5/6, 3/5, 2/4, 1/3 (the two "the" clip against one), c = r = 6: (1/12)^(1/4)
    answer = fairseq.score(_request([("the cat sat on the mat", ["the cat sat on a mat"])], BLEU4))
    assert answer.score == pytest.approx((1 / 12) ** 0.25, rel=1e-12)
    assert answer.statistics == {"hyp_len": 6, "ref_len": 6, "matches": [5, 3, 2, 1], "totals": [6, 5, 4, 3],
                                 "bp": 1.0}
    # both empty: each is [eos], bleu_rtrim never trims index 0, so one token each, and they match: BLEU-1 = 1
    empty = fairseq.score(_request([("", [""])], [1.0]))
    assert empty.score == 1.0 and empty.statistics["hyp_len"] == 1 and empty.statistics["matches"] == [1]
    # the empty hypothesis adds its eos to c and the unigram total: c = 5, r = 6, p1 = 4/5, p2..p4 = 1:
    # exp(1 - 6/5) * (4/5)^(1/4); counted as the paper does, c = 4: exp(1 - 6/4)
    corpus = fairseq.score(_request(EMPTY_HYPOTHESIS_CORPUS, BLEU4))
    assert corpus.score == pytest.approx(math.exp(1 - 6 / 5) * 0.8 ** 0.25, rel=1e-12)
    # reset(one_init=True): orders 2-4 start at 1/1: "a b" against "a c", BLEU-2: p1 = 1/2, p2 = (0+1)/(1+1)
    smoothed = fairseq.score(_request([("a b", ["a c"])], [0.5, 0.5], smoothing="chen-cherry-2"))
    assert smoothed.score == pytest.approx(0.5, rel=1e-12) and smoothed.statistics is None
    # the ids are the request's own: a token spelled "</s>" is a word here, not eos
    assert fairseq.score(_request([("a </s>", ["a </s>"])], [0.5, 0.5])).score == pytest.approx(1.0, abs=1e-15)


def test_fairseq_refuses_what_its_scorer_cannot_take():
    fairseq = load("fairseq")
    no_reference = ScoreRequest(level="corpus", weights=[1.0], segments=[{"hypothesis": ["a"], "references": []}])
    assert call(fairseq, no_reference)[0] == "rejected"
    assert call(fairseq, _request([("a", ["a", "a b"])], [1.0]))[0] == "unsupported"  # one reference a segment
    assert call(fairseq, _request([("a b c d e", ["a b c d e"])], [0.2] * 5))[0] == "unsupported"  # orders 1-4
    # an empty corpus: Scorer.brevity divides by predlen = 0, as fairseq's Python does (no refusal of its own)
    kind, message = call(fairseq, ScoreRequest(level="corpus", weights=[1.0], segments=[]))
    assert kind == "error" and "ZeroDivisionError" in message


def test_an_empty_sentence_counted_as_its_end_token_is_named():
    """The counting alternative, without fairseq: the statistics of the corpus above, derived by hand."""
    request = _request(EMPTY_HYPOTHESIS_CORPUS, BLEU4)
    answer = ScoreAnswer(math.exp(1 - 6 / 5) * 0.8 ** 0.25,
                         {"hyp_len": 5, "ref_len": 6, "matches": [4, 3, 2, 1], "totals": [5, 3, 2, 1]})
    assert classify(request, answer, "papineni").name == "empty-sentence-end-token"
    # without statistics, the score alone: both empty under BLEU-1 is 1 (one matching end token)
    assert classify(_request([("", [""])], [1.0]), 1.0, "papineni").name == "empty-sentence-end-token"
    changed = with_end_tokens(_request([("", ["</s>"])], [1.0]).segments)
    assert changed is not None and changed[0].hypothesis == ("</s>'",)  # unlike any token of the request
    assert with_end_tokens(_request([("a", ["a"])], [1.0]).segments) is None


def _fake_sdist(root: Path, sources: dict[str, bytes]) -> Path:
    """fairseq's sdist as `bleu-oracle install fairseq` leaves it: the files and a manifest of their sha256."""
    spec = environments.SDISTS["fairseq"]
    import hashlib

    where = root / "sdist" / f"{spec.distribution}-{spec.version}"
    for relative, content in sources.items():
        (where / relative).parent.mkdir(parents=True, exist_ok=True)
        (where / relative).write_bytes(content)
    manifest = {"sha256": spec.sha256, "files": {r: hashlib.sha256(c).hexdigest() for r, c in sources.items()}}
    (where / environments.MANIFEST).write_text(json.dumps(manifest))
    return where


def test_the_sdist_sources_are_verified_before_each_use(tmp_path, monkeypatch):
    monkeypatch.setenv("BLEU_ORACLE_IMPLEMENTATIONS", str(tmp_path))
    assert not environments.is_prepared("fairseq")
    with pytest.raises(AdapterUnavailable, match="fairseq's source files is not installed"):
        environments.require("fairseq")
    spec = environments.SDISTS["fairseq"]
    where = _fake_sdist(tmp_path, {relative: b"// c++\n" for relative in spec.files})
    environments.require("fairseq")  # prepared and unchanged
    (where / spec.files[0]).write_bytes(b"// changed\n")
    with pytest.raises(AdapterUnavailable, match=r"libbleu.cpp has changed .*bleu-oracle install fairseq"):
        environments.require("fairseq")
    (where / spec.files[0]).unlink()
    with pytest.raises(AdapterUnavailable, match="libbleu.cpp is missing"):
        environments.require("fairseq")


def test_only_the_pinned_files_are_taken_out_of_the_sdist(tmp_path):
    spec = environments.SDISTS["fairseq"]
    tarball = tmp_path / "fairseq.tar.gz"
    with tarfile.open(tarball, "w:gz") as archive:
        for relative in (*spec.files, "setup.py"):
            data = f"// {relative}\n".encode()
            member = tarfile.TarInfo(f"fairseq-{spec.version}/{relative}")
            member.size = len(data)
            archive.addfile(member, io.BytesIO(data))
    environments._unpack_files(spec, tarball, tmp_path / "out")
    assert sorted(p.relative_to(tmp_path / "out").as_posix() for p in (tmp_path / "out").rglob("*.cpp")) == sorted(
        spec.files)
    assert not (tmp_path / "out" / "setup.py").exists()
    with tarfile.open(tarball, "w:gz"):
        pass  # an sdist without the files
    with pytest.raises(AdapterUnavailable, match="does not hold"):
        environments._unpack_files(spec, tarball, tmp_path / "none")


def _fake_pip_download(contents: dict[str, bytes]):
    """A `run_in_group` that stands for `pip download`: it writes an sdist holding `contents` where pip would."""
    import subprocess

    spec = environments.SDISTS["fairseq"]

    def run(argv, *, timeout, cwd=None, env=None):
        target = Path(argv[argv.index("-d") + 1]) / f"{spec.distribution}-{spec.version}.tar.gz"
        with tarfile.open(target, "w:gz") as archive:
            for relative, data in contents.items():
                member = tarfile.TarInfo(f"{spec.distribution}-{spec.version}/{relative}")
                member.size = len(data)
                archive.addfile(member, io.BytesIO(data))
        return subprocess.CompletedProcess(argv, 0, "", "")

    return run


def test_an_sdist_whose_sha256_is_not_the_pinned_one_is_refused_and_nothing_is_left(tmp_path, monkeypatch):
    monkeypatch.setenv("BLEU_ORACLE_IMPLEMENTATIONS", str(tmp_path))
    spec = environments.SDISTS["fairseq"]
    monkeypatch.setattr(environments, "run_in_group", _fake_pip_download({r: b"// c++\n" for r in spec.files}))
    with pytest.raises(AdapterUnavailable, match=f"sdist has sha256 [0-9a-f]{{64}}, not the pinned {spec.sha256}"):
        environments.prepare("fairseq", log=io.StringIO())
    assert not environments.is_prepared("fairseq") and list((tmp_path / "sdist").iterdir()) == []


def test_the_sdist_is_kept_when_its_sha256_is_the_pinned_one(tmp_path, monkeypatch):
    """The pin swapped for the fake tarball's own digest: the pinned files, and only they, are kept and verified."""
    import dataclasses
    import hashlib

    monkeypatch.setenv("BLEU_ORACLE_IMPLEMENTATIONS", str(tmp_path))
    spec = environments.SDISTS["fairseq"]
    fake = _fake_pip_download({**{r: b"// c++\n" for r in spec.files}, "setup.py": b"#\n"})
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    fake(["pip", "-d", str(scratch)], timeout=1)
    digest = hashlib.sha256(next(scratch.iterdir()).read_bytes()).hexdigest()
    monkeypatch.setitem(environments.SDISTS, "fairseq", dataclasses.replace(spec, sha256=digest))
    monkeypatch.setattr(environments, "run_in_group", fake)
    environments.prepare("fairseq", log=io.StringIO())
    environments.require("fairseq")
    kept = environments.sdist_dir("fairseq")
    assert sorted(p.relative_to(kept).as_posix() for p in kept.rglob("*") if p.is_file()) == sorted(
        [*spec.files, environments.MANIFEST])


def test_check_prepares_compare_mt_sentence_in_compare_mts_environment(monkeypatch):
    from oracle.commands.common import prepare_implementations

    asked = []
    monkeypatch.setattr(environments, "ready", lambda name, log: asked.append(name))
    assert prepare_implementations("check", ["compare-mt-sentence", "mmeval", "fairseq", "nltk"], quiet=True) is None
    assert asked == ["compare-mt", "mmeval", "fairseq", "nltk"]


# -- compare-mt and mmeval (their own environments) --------------------------------------------------------


@pytest.mark.slow
@pytest.mark.heavy
def test_compare_mt_by_hand():
    compare_mt = prepared("compare-mt")
    # BLEU-2 of "a b" against "a c": p1 = 1/2, p2 = 0/1 taken as log 0 (`math.log(p) if p > 0 else 0`):
    # sqrt(1/2), not 0
    assert compare_mt.score(_request([("a b", ["a c"])], [0.5, 0.5])).score == pytest.approx(math.sqrt(0.5))
    # each segment's total floored at 1 (`denom = max(1, denom)`): the 2-token segment adds 1 to the trigram and
    # 4-gram totals, p3 = 4/5, p4 = 3/4, every precision otherwise 1: (3/5)^(1/4)
    perfect = [("a b", ["a b"]), ("c d e f g h", ["c d e f g h"])]
    assert compare_mt.score(_request(perfect, BLEU4)).score == pytest.approx(0.6 ** 0.25, rel=1e-12)
    # case_insensitive lowercases both sides
    assert compare_mt.score(_request([("The cat", ["the CAT"])], [1.0], lowercase=True)).score == pytest.approx(1.0)


@pytest.mark.slow
@pytest.mark.heavy
def test_compare_mt_sentence_by_hand():
    sentence = prepared("compare-mt-sentence")
    # nltk's sentence_bleu with method2 (add 1 to orders n > 1): "a b c" against "a b d": p1 = 2/3,
    # p2 = (1+1)/(2+1), p3 = (0+1)/(1+1), p4 = (0+1)/(1+1) (no 4-gram: nltk's total floored at 1): (1/9)^(1/4)
    request = _request([("a b c", ["a b d"])], BLEU4, level="sentence", smoothing="chen-cherry-2")
    assert sentence.score(request).score == pytest.approx((1 / 9) ** 0.25, rel=1e-12)


@pytest.mark.slow
@pytest.mark.heavy
def test_mmeval_by_hand():
    mmeval = prepared("mmeval")
    # the probe: 5 tokens against references of 6 and 4: the first closest (6) is taken, BP e^(1 - 6/5);
    # listed the other way round, 4, and c > r: BP 1
    assert mmeval.score(_request([("a b c d e", ["a b c d e f", "a b c d"])], [1.0])).score == pytest.approx(
        math.exp(1 - 6 / 5), rel=1e-12)
    assert mmeval.score(_request([("a b c d e", ["a b c d", "a b c d e f"])], [1.0])).score == pytest.approx(1.0)
    # smooth adds 1 to orders n > 1 but `if min(precision_matches) == 0.0: return 0` comes first: "a b c" against
    # "a b d" has no trigram match, so 0, where smoothing would give (2/3 * 2/3 * 1/2)^(1/3)
    smoothed = _request([("a b c", ["a b d"])], [1 / 3] * 3, smoothing="chen-cherry-2")
    assert mmeval.score(smoothed).score == 0.0
    # with every order matched, smoothing: "a b c" against "a b c d": p1 = 3/3, p2 = (2+1)/(2+1); c < r: e^(1 - 4/3)
    matched = _request([("a b c", ["a b c d"])], [0.5, 0.5], smoothing="chen-cherry-2")
    assert mmeval.score(matched).score == pytest.approx(math.exp(1 - 4 / 3), rel=1e-12)


@pytest.mark.slow
@pytest.mark.parametrize("name", [
    "fairseq",
    pytest.param("compare-mt", marks=pytest.mark.heavy),
    pytest.param("compare-mt-sentence", marks=pytest.mark.heavy),
    pytest.param("mmeval", marks=pytest.mark.heavy),
])
def test_check_runs_to_a_complete_report_within_its_baseline(name, tmp_path, repo_root):
    prepared("compare-mt" if name == "compare-mt-sentence" else name)
    code, records, errors, gating = check_against_baseline(
        name, tmp_path / "report", repo_root / "baselines" / f"{name}.yaml")
    assert code == 0, gating
    assert records and len(errors) <= 0.05 * len(records), [r.id for r in errors][:10]
