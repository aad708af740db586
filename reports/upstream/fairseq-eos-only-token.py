"""fairseq's libbleu counts an eos-only sentence as one token (bleu_rtrim never trims index 0), so an empty
hypothesis adds 1 to the system length and the unigram total. Draft report: fairseq-eos-only-token.md.

libbleu is compiled from fairseq's own sources (FAIRSEQ_LIBBLEU: the directory holding libbleu.cpp; by default
the copy `bleu-oracle install fairseq` takes out of the fairseq 0.12.2 sdist) and driven as
fairseq/scoring/bleu.py's Scorer drives it: BleuStat, bleu_zero_init, bleu_add(ref, pred, pad, eos), score().
"""

import ctypes
import math
import os
import shutil
import subprocess
import tempfile
from pathlib import Path

DISTRIBUTION = "fairseq"
PAD, EOS = 1, 2
#: "a b c d" against itself, then an empty hypothesis against "e f": c = 4, r = 6, every precision 1:
#: BP = exp(1 - 6/4)
DOCUMENTED = math.exp(1 - 6 / 4)


def _sources():
    explicit = os.environ.get("FAIRSEQ_LIBBLEU")
    if explicit:
        return Path(explicit)
    base = os.environ.get("BLEU_ORACLE_IMPLEMENTATIONS") or os.path.join(
        os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache"),
        "bleu-oracle", "implementations")
    return Path(base) / "sdist" / "fairseq-0.12.2" / "fairseq" / "clib" / "libbleu"


def unavailable():
    if shutil.which("g++") is None:
        return "needs g++ to build libbleu"
    if not (_sources() / "libbleu.cpp").is_file():
        return f"needs fairseq's libbleu.cpp in {_sources()} (bleu-oracle install fairseq, or FAIRSEQ_LIBBLEU)"
    return None


class BleuStat(ctypes.Structure):  # fairseq/scoring/bleu.py
    _fields_ = [(name, ctypes.c_size_t) for name in (
        "reflen", "predlen", "match1", "count1", "match2", "count2", "match3", "count3", "match4", "count4")]


def score(stat, order=4):  # fairseq/scoring/bleu.py, Scorer.score / precision / brevity (on the 0-1 scale)
    counts = [(stat.match1, stat.count1), (stat.match2, stat.count2), (stat.match3, stat.count3),
              (stat.match4, stat.count4)]
    precision = [m / c if c > 0 else 0 for m, c in counts]
    psum = sum(math.log(p) if p > 0 else float("-Inf") for p in precision[:order])
    brevity = min(1, math.exp(1 - stat.reflen / stat.predlen))
    return brevity * math.exp(psum / order)


def reproduce():
    with tempfile.TemporaryDirectory() as tmp:
        library = Path(tmp) / "libbleu.so"
        subprocess.run(["g++", "-std=c++11", "-O3", "-shared", "-fPIC", str(_sources() / "libbleu.cpp"), "-o",
                        str(library)], check=True, capture_output=True)
        C = ctypes.cdll.LoadLibrary(str(library))
        stat = BleuStat()
        C.bleu_zero_init(ctypes.byref(stat))
        # token ids as a fairseq Dictionary gives them (4 on), each sentence ending with eos as encode_line's
        for ref, pred in (([4, 5, 6, 7, EOS], [4, 5, 6, 7, EOS]), ([8, 9, EOS], [EOS])):
            ref_ids, pred_ids = (ctypes.c_int * len(ref))(*ref), (ctypes.c_int * len(pred))(*pred)
            C.bleu_add(ctypes.byref(stat), ctypes.c_size_t(len(ref)), ref_ids, ctypes.c_size_t(len(pred)), pred_ids,
                       ctypes.c_int(PAD), ctypes.c_int(EOS))
        return score(stat)


if __name__ == "__main__":
    print(reproduce())
