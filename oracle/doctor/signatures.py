"""Signatures read back into readings: sacrebleu's (2.x and 1.x, long and short) and this project's.

sacrebleu 2.x prints `nrefs:1|case:mixed|eff:no|tok:13a|smooth:exp|version:2.6.0` (short form
`#:1|c:mixed|e:no|tok:13a|s:exp|v:2.6.0`; `smooth:floor[0.10]` with a value), sacrebleu 1.x
`BLEU+case.mixed+numrefs.1+smooth.exp+tok.13a+version.1.4.14`; `bleu-oracle score` prints
`profile:sacrebleu|nrefs:1|case:mixed|tok:13a|smooth:exp|weights:0.25,0.25,0.25,0.25|version:bleu-oracle-0.1.0`,
and `doctor` appends the conventions a reading changes (`|segment_totals_floor:1`). A sacrebleu signature
is read under the sacrebleu profile: `eff:yes` is its effective order at corpus level (empty_order skip).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from fractions import Fraction

from oracle.formulas.conventions import EMPTY_ORDER_RULES, NO_MATCH_RULES, REFERENCE_LENGTH_RULES, Smoothing
from oracle.formulas.errors import BleuOracleError, BleuValueError
from oracle.formulas.profiles import PROFILES
from oracle.formulas.tokenizers import TOKEN_SPLIT_RULES, TOKENIZERS

from .readings import AGGREGATIONS, BOM_RULES, Reading

_SACREBLEU_SHORT = {"#": "nrefs", "c": "case", "e": "eff", "s": "smooth", "v": "version", "t": "test", "l": "lang",
                    "S": "subset", "o": "origlang", "numrefs": "nrefs"}
#: Fields of a sacrebleu signature that say nothing about how the number was computed from the files.
_SACREBLEU_INERT = {"version", "test", "lang", "subset", "origlang", "bs", "ar", "seed", "rs"}
#: sacrebleu's smoothing names and parameters -> this oracle's.
_SACREBLEU_SMOOTHING = {
    "exp": ("exp", None),
    "none": ("none", None),
    "floor": ("floor", "value"),
    "add-k": ("add-k", "k"),
}
#: This project's extra fields: a convention and how its value is read.
_CONVENTION_VALUES = {
    "reference_length": tuple(REFERENCE_LENGTH_RULES), "empty_order": tuple(EMPTY_ORDER_RULES),
    "sentence_empty_order": tuple(EMPTY_ORDER_RULES), "no_match": tuple(NO_MATCH_RULES),
    "segment_totals_floor": ("0", "1"), "aggregation": tuple(AGGREGATIONS), "bom": tuple(BOM_RULES),
}


@dataclass(frozen=True)
class ParsedSignature:
    """A signature and the reading it names."""

    text: str
    #: "sacrebleu", "sacrebleu-1" or "bleu-oracle"
    format: str
    reading: Reading
    #: the number of references it was computed with, when it says
    references: int | None
    #: what was read and is worth saying (a version, a field without effect here)
    notes: tuple = ()


def parse_signature(text: str) -> ParsedSignature:
    """The reading a signature names; a BleuValueError naming the field for anything else."""
    cleaned = str(text).strip()
    if cleaned.startswith("BLEU+"):
        fields = _fields(cleaned[len("BLEU+"):], "+", ".", cleaned)
        return _sacrebleu(cleaned, fields, "sacrebleu-1")
    if cleaned.startswith("BLEU|"):  # sacrebleu's text format prefixes the signature with the metric's name
        cleaned = cleaned[len("BLEU|"):]
    fields = _fields(cleaned, "|", ":", cleaned)
    if "profile" in fields:
        return _oracle(cleaned, fields)
    return _sacrebleu(cleaned, fields, "sacrebleu")


def _fields(text: str, separator: str, assign: str, whole: str) -> dict:
    fields = {}
    for item in filter(None, text.split(separator)):
        name, found, value = item.partition(assign)
        if not found:
            raise BleuValueError(f"`--signature {whole}`: `{item}` is not NAME{assign}VALUE")
        fields[name.strip()] = value.strip()
    if not fields:
        raise BleuValueError(f"`--signature {whole}`: no fields")
    return fields


def _sacrebleu(text: str, raw: dict, form: str) -> ParsedSignature:
    fields = {_SACREBLEU_SHORT.get(name, name): value for name, value in raw.items()}
    tokenizer = fields.get("tok", "13a")
    if tokenizer not in TOKENIZERS:
        raise BleuValueError(f"`--signature {text}`: tokenizer `{tokenizer}` is not one the oracle transcribes "
                             f"({', '.join(TOKENIZERS)})")
    case = fields.get("case", "mixed")
    if case not in ("mixed", "lc"):
        raise BleuValueError(f"`--signature {text}`: case `{case}` must be mixed or lc")
    reading = Reading("sacrebleu", tokenizer, case == "lc")
    smoothing = _sacrebleu_smoothing(fields.get("smooth", "exp"), text)
    reading = reading.changed("smoothing", smoothing)
    eff = fields.get("eff", "no")
    if eff not in ("yes", "no"):
        raise BleuValueError(f"`--signature {text}`: eff `{eff}` must be yes or no")
    if eff == "yes":
        reading = reading.changed("empty_order", "skip")
    notes = [f"{name}:{value} (no effect on the number)" for name, value in fields.items() if name in _SACREBLEU_INERT]
    unknown = sorted(set(fields) - {"nrefs", "tok", "case", "smooth", "eff"} - _SACREBLEU_INERT)
    if unknown:
        raise BleuValueError(f"`--signature {text}`: unknown field(s) {unknown}")
    return ParsedSignature(text, form, reading, _references(fields.get("nrefs"), text), tuple(notes))


def _sacrebleu_smoothing(value: str, text: str) -> Smoothing:
    match = re.fullmatch(r"([a-z-]+?)(?:\[([0-9.]+)\]|-([0-9.]+))?", value)
    if not match or match.group(1) not in _SACREBLEU_SMOOTHING:
        raise BleuValueError(f"`--signature {text}`: smoothing `{value}` is not one of sacrebleu's "
                             f"({', '.join(_SACREBLEU_SMOOTHING)})")
    method, parameter = _SACREBLEU_SMOOTHING[match.group(1)]
    given = match.group(2) or match.group(3)
    try:
        return Smoothing(method, **({parameter: Fraction(given)} if parameter and given else {}))
    except BleuOracleError as exc:
        raise BleuValueError(f"`--signature {text}`: smoothing `{value}`: {exc}") from None


def _references(value: str | None, text: str) -> int | None:
    if value is None:
        return None
    if not value.isdigit() or int(value) < 1:
        raise BleuValueError(f"`--signature {text}`: nrefs `{value}` must be a positive integer")
    return int(value)


def _oracle(text: str, fields: dict) -> ParsedSignature:
    profile = fields["profile"]
    if profile not in PROFILES:
        raise BleuValueError(f"`--signature {text}`: profile `{profile}` must be one of {sorted(PROFILES)}")
    tokenizer = fields.get("tok", PROFILES[profile].options.tokenizer)
    if tokenizer not in TOKENIZERS:
        raise BleuValueError(f"`--signature {text}`: tokenizer `{tokenizer}` must be one of {list(TOKENIZERS)}")
    case = fields.get("case", "mixed")
    if case not in ("mixed", "lc", "lc-ascii", "lc-unicode"):
        raise BleuValueError(f"`--signature {text}`: case `{case}` must be mixed, lc or lc-ascii")
    reading = Reading(profile, tokenizer, case != "mixed")
    if case != "mixed":
        reading = reading.changed("case_fold", "ascii" if case == "lc-ascii" else "unicode")
    split = fields.get("split", "str-split")
    if split not in TOKEN_SPLIT_RULES:
        raise BleuValueError(f"`--signature {text}`: split `{split}` must be one of {list(TOKEN_SPLIT_RULES)}")
    reading = reading.changed("token_split", split)
    if "smooth" in fields:
        reading = reading.changed("smoothing", _oracle_smoothing(fields["smooth"], text))
    weights = fields.get("weights", "0.25,0.25,0.25,0.25")
    if [w.strip() for w in weights.split(",")] != ["0.25"] * 4:
        raise BleuValueError(f"`--signature {text}`: weights `{weights}`: doctor reads uniform BLEU-4 only")
    for name, allowed in _CONVENTION_VALUES.items():
        if name in fields:
            if fields[name] not in allowed:
                raise BleuValueError(f"`--signature {text}`: {name} `{fields[name]}` must be one of {list(allowed)}")
            value = int(fields[name]) if name == "segment_totals_floor" else fields[name]
            reading = reading.changed(name, value)
    known = {"profile", "nrefs", "tok", "case", "split", "smooth", "weights", "version", *_CONVENTION_VALUES}
    unknown = sorted(set(fields) - known)
    if unknown:
        raise BleuValueError(f"`--signature {text}`: unknown field(s) {unknown}")
    notes = (f"version:{fields['version']}",) if "version" in fields else ()
    return ParsedSignature(text, "bleu-oracle", reading, _references(fields.get("nrefs"), text), notes)


def _oracle_smoothing(value: str, text: str) -> Smoothing:
    """`exp`, or `floor(value=1/10)`: `Smoothing.describe()`, as the signature prints it."""
    # the classifier's reader, imported with a signature only: it brings every mechanism (a third of doctor's imports)
    from oracle.diagnose.classify import smoothing_from_description

    try:
        return smoothing_from_description(value)
    except (BleuOracleError, TypeError) as exc:
        raise BleuValueError(f"`--signature {text}`: smoothing `{value}`: {exc}") from None
