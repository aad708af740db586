#!/usr/bin/env python3
"""Fake implementation: plantedbleu.py clean, with one special token added to every sequence of one side and
counted (the class of tests/fakes/realbleu.py's end-token-in-hypothesis and plantedbleu.py's eos-on-hypotheses).

    special_token.py SIDE TOKEN PLACE     SIDE: hypotheses | references; PLACE: end | start

Used by tests/diagnose/test_specialtoken.py to check the special-token probe (oracle/diagnose/specialtoken.py):
which token, at which end, and a token no convention lists left to the broad name."""
import sys

import plantedbleu

SIDE, TOKEN, PLACE = sys.argv[1:4]
_shape = plantedbleu.shape_segments


def _added(sequence):
    return [*sequence, TOKEN] if PLACE == "end" else [TOKEN, *sequence]


def shape_segments(segments, bugs):
    out = []
    for segment in _shape(segments, bugs):
        if SIDE == "hypotheses":
            out.append({"hypothesis": _added(segment["hypothesis"]), "references": segment["references"]})
        else:
            out.append({"hypothesis": segment["hypothesis"],
                        "references": [_added(reference) for reference in segment["references"]]})
    return out


plantedbleu.shape_segments = shape_segments
plantedbleu.main(["clean"])
