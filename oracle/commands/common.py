"""Argument groups shared by the verbs: profile, weights, smoothing, case folding."""

from __future__ import annotations

from ..conventions import SMOOTHING_METHODS, Smoothing
from ..errors import BleuValueError
from ..profiles import PROFILES


def parse_smoothing(text):
    """`METHOD` or `METHOD:param=value[,param=value]`, e.g. `floor:value=0.1`."""
    method, _, params = text.partition(":")
    spec = {"method": method}
    for item in filter(None, params.split(",")):
        name, sep, value = item.partition("=")
        if not sep:
            raise BleuValueError(f"`--smoothing` parameters are name=value (got {item!r} in {text!r})")
        spec[name.strip()] = value.strip()
    return Smoothing.parse(spec)


def add_scoring_arguments(parser, *, profile_default="papineni"):
    parser.add_argument(
        "--profile", choices=sorted(PROFILES), default=profile_default,
        help=f"the conventions to score under (default: {profile_default}); `bleu-oracle profiles` lists them",
    )
    parser.add_argument(
        "--weights", nargs="+", metavar="W",
        help="n-gram weights w_1 .. w_N; their count is the maximum order (default: the profile's, 4 uniform)",
    )
    parser.add_argument(
        "--smoothing", type=parse_smoothing, metavar="METHOD[:PARAM=VALUE,...]",
        help=f"smoothing method and parameters, e.g. floor:value=0.1 (methods: {', '.join(SMOOTHING_METHODS)}; "
        "default: the profile's)",
    )
    parser.add_argument("--lowercase", action="store_true", default=None, help="fold case before counting")
