"""fairseq's BLEU scorer (`fairseq/scoring/bleu.py`, registered as "bleu") behind protocol v1.

fairseq scores token ids with `libbleu`, a small C++ library (`fairseq/clib/libbleu/libbleu.cpp` and the
Python module shell `module.cpp`) that its `Scorer` loads with ctypes. Those two files, and nothing else,
are taken from the pinned fairseq sdist on PyPI (`bleu-oracle install fairseq`, or `check --impl fairseq`
before it starts: pinned in its `oracle.adapters.registry` entry, sha256-checked) and compiled with g++ on first use
as fairseq's setup.py builds them (`-std=c++11 -O3`), cached per source hash in $XDG_CACHE_HOME/bleu-oracle.
fairseq itself (and torch) is not imported: `Scorer` is driven here as fairseq drives it, literally:

- `reset()` is `bleu_zero_init`; `reset(one_init=True)` is `bleu_one_init`, which starts orders 2 to 4 at one
  match of one n-gram: add-one on the corpus totals of orders n > 1 (the oracle's chen-cherry-2);
- `add(ref, pred)` is `bleu_add(&stat, len(ref), ref, len(pred), pred, pad, eos)` on int32 arrays, after the
  reference's `unk` ids are made -999 ("don't match unknown words");
- `score(order)` is fairseq's Python, reimplemented line by line (importing fairseq is not wanted):
  `brevity() * exp(sum(log p or -inf for p in precision()[:order]) / order) * 100`, brevity
  `min(1, exp(1 - reflen / predlen))`, a precision with no n-grams 0.

Tokens become ids per request as a fairseq `Dictionary` numbers them: bos 0, pad 1, eos 2, unk 3 reserved,
each distinct token the next id in order of first appearance; every sentence ends with eos, as
`Dictionary.encode_line` and the generator's hypotheses do (libbleu trims trailing eos and pad). A token that
spells a special symbol ("</s>") is an ordinary token here: the per-request dictionary gives it an id of its
own. So no array is ever empty: libbleu's right trim reads index `len - 1` of an empty array (one int out of
bounds), and an eos-only sentence keeps its eos as one token (it never looks at index 0); the first never
happens here, the second is what an empty hypothesis or reference becomes (curated as fairseq-eos-only-token).
One reference a segment (libbleu takes one), orders 1 to 4 with weights 1/order (`score(order)`), no case
folding. Statistics are the BleuStat counters (lengths, matches, totals, and the brevity penalty).

Profile `papineni`: fairseq documents its scorer as BLEU (`result_string`: "BLEU4 = ..., BP, ratio, syslen,
reflen"), corpus-level with the paper's brevity penalty; its code has no other convention to claim.
"""

from __future__ import annotations

import ctypes
import hashlib
import math
import os
import shutil
import subprocess
import sysconfig
import tempfile
from collections.abc import Sequence
from pathlib import Path

from oracle.models.protocol import ScoreRequest

from . import environments
from .base import (
    AdapterUnavailable,
    Implementation,
    Rejected,
    ScoreAnswer,
    SmoothingRow,
    SmoothingTable,
    Unsupported,
    declare_capabilities,
    require_one_segment,
    require_uniform,
)
from .mlpack_adapter import BUILD_TIMEOUT, cache_dir
from .preparations import SdistSpec
from .registry import Registered

#: This module's implementations, as every verb knows them (docs/extending.md, "An implementation"): the
#: registry reads this statement from the source, without importing the module, so it holds plain data only.
IMPLEMENTATIONS = (
    # fairseq's libbleu (the C++ its `bleu` scorer loads through ctypes), from the 0.12.2 sdist (sha256 as pip
    # downloaded and verified it against PyPI's index on 2026-11-26); fairseq itself is never installed.
    Registered("fairseq", "sdist", "oracle.adapters.fairseq_adapter:FairseqImplementation",
               prepared=SdistSpec("fairseq", "fairseq", "0.12.2",
                                  "34f1b18426bf3844714534162f065ab733e049597476daa35fffb4d06a92b524",
                                  ("fairseq/clib/libbleu/libbleu.cpp", "fairseq/clib/libbleu/module.cpp")),
               listed=18),
)


#: fairseq's BleuConfig defaults (and a fresh Dictionary's numbering): bos 0, pad 1, eos 2, unk 3
BOS, PAD, EOS, UNK = 0, 1, 2, 3
#: `Scorer.reset(one_init)`: zero_init, or one_init (orders 2-4 start at 1/1: chen-cherry-2 on the corpus)
SMOOTHING = SmoothingTable("fairseq's Scorer starts its counts at zero or, reset(one_init=True), orders 2-4 at one",
                           (SmoothingRow("none", False), SmoothingRow("chen-cherry-2", True)))


class BleuStat(ctypes.Structure):
    """fairseq/scoring/bleu.py's BleuStat: libbleu's bleu_stat, ten size_t counters."""

    _fields_ = [(field, ctypes.c_size_t) for field in (
        "reflen", "predlen", "match1", "count1", "match2", "count2", "match3", "count3", "match4", "count4")]


def build() -> Path:
    """libbleu compiled from the sdist's two files (as fairseq's setup.py compiles its `fairseq.libbleu`
    extension), once per source hash; built beside its place and renamed into it."""
    spec = environments.SDISTS["fairseq"]
    sources = [environments.sdist_dir("fairseq") / relative for relative in spec.files]
    digest = hashlib.sha256(b"".join(path.read_bytes() for path in sources)).hexdigest()[:12]
    suffix = sysconfig.get_config_var("EXT_SUFFIX") or ".so"
    target = cache_dir() / f"fairseq-{spec.version}-{digest}" / f"libbleu{suffix}"
    if target.is_file():
        return target
    compiler = shutil.which("g++")
    if compiler is None:
        raise AdapterUnavailable("g++ is not installed (it builds fairseq's libbleu; Debian: apt-get install g++)")
    include = sysconfig.get_paths()["include"]
    if not (Path(include) / "Python.h").is_file():
        raise AdapterUnavailable(f"libbleu's module.cpp needs Python.h, not in {include} (Debian: python3-dev)")
    target.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=target.parent) as tmp:
        built = Path(tmp) / target.name
        done = subprocess.run([compiler, "-std=c++11", "-O3", "-shared", "-fPIC", f"-I{include}",
                               *map(str, sources), "-o", str(built)],
                              capture_output=True, text=True, timeout=BUILD_TIMEOUT)
        if done.returncode != 0:
            raise AdapterUnavailable(f"building fairseq's libbleu failed: {done.stderr.strip().splitlines()[-1:]}")
        os.replace(built, target)  # concurrent first uses: the last rename wins, every one whole
    return target


def encoded(tokens: Sequence[str], ids: dict[str, int]) -> ctypes.Array:
    """A sentence as fairseq's ids: each token its own id (from 4 on, in order of first appearance), then eos."""
    numbers = [ids.setdefault(token, len(ids) + UNK + 1) for token in tokens] + [EOS]
    return (ctypes.c_int * len(numbers))(*numbers)


class FairseqImplementation(Implementation):
    name = "fairseq"
    language = "c++"
    profile = "papineni"
    version = environments.SDISTS["fairseq"].version + " (libbleu)"
    capabilities = declare_capabilities(weights="uniform", max_order=4, smoothing=SMOOTHING.declared,
                                        statistics=True, max_references=1)

    def __init__(self) -> None:
        environments.require("fairseq")  # prepared and verified (AdapterUnavailable, saying why, otherwise)
        self._library = ctypes.cdll.LoadLibrary(str(build()))

    def score(self, request: ScoreRequest) -> ScoreAnswer:
        if request.lowercase:
            raise Unsupported("fairseq's Scorer does not fold case")
        order = require_uniform(request.weights, "fairseq's score(order) weighs orders 1 to order 1/order each")
        if order > 4:
            raise Unsupported(f"fairseq's libbleu counts orders 1 to 4 only (got {order} weights)")
        one_init = SMOOTHING.setting(request.smoothing)
        if any(not segment.references for segment in request.segments):
            raise Rejected("a segment without a reference: fairseq's Scorer.add(ref, pred) takes one")
        if any(len(segment.references) > 1 for segment in request.segments):
            raise Unsupported("fairseq's Scorer.add(ref, pred) takes one reference a segment")
        require_one_segment(request)
        stat = self._accumulated(request, one_init)
        value = score(stat, order)
        if one_init:  # the counters hold the one_init ones: not the request's statistics
            return ScoreAnswer(value)
        precision = [(getattr(stat, f"match{n}"), getattr(stat, f"count{n}")) for n in range(1, order + 1)]
        return ScoreAnswer(value, {"hyp_len": stat.predlen, "ref_len": stat.reflen,
                                   "matches": [m for m, _ in precision], "totals": [c for _, c in precision],
                                   "bp": float(brevity(stat))})

    def _accumulated(self, request: ScoreRequest, one_init: bool) -> BleuStat:
        """Scorer.reset(one_init) then Scorer.add(ref, pred) for each segment."""
        stat = BleuStat()
        (self._library.bleu_one_init if one_init else self._library.bleu_zero_init)(ctypes.byref(stat))
        ids: dict[str, int] = {}
        for segment in request.segments:
            reference = encoded(segment.references[0], ids)
            for index, number in enumerate(reference):  # "don't match unknown words" (none is unk here)
                reference[index] = -999 if number == UNK else number
            hypothesis = encoded(segment.hypothesis, ids)
            self._library.bleu_add(ctypes.byref(stat), ctypes.c_size_t(len(reference)), reference,
                                   ctypes.c_size_t(len(hypothesis)), hypothesis, ctypes.c_int(PAD),
                                   ctypes.c_int(EOS))
        return stat


def precision(stat: BleuStat) -> list[float]:
    """fairseq's Scorer.precision: match_n / count_n, 0 when count_n is 0."""
    def ratio(a: int, b: int) -> float:
        return a / b if b > 0 else 0

    return [ratio(stat.match1, stat.count1), ratio(stat.match2, stat.count2),
            ratio(stat.match3, stat.count3), ratio(stat.match4, stat.count4)]


def brevity(stat: BleuStat) -> float:
    """fairseq's Scorer.brevity: min(1, exp(1 - reflen / predlen)) (a ZeroDivisionError when predlen is 0:
    an empty corpus, since every sentence here holds at least its eos)."""
    r = stat.reflen / stat.predlen
    return min(1, math.exp(1 - r))


def score(stat: BleuStat, order: int) -> float:
    """fairseq's Scorer.score(order), on the 0-1 scale (fairseq's is 0-100)."""
    psum = sum(math.log(p) if p > 0 else float("-Inf") for p in precision(stat)[:order])
    return brevity(stat) * math.exp(psum / order) * 100 / 100
