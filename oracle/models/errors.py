"""Validation errors in the project's words, for every document the models read from outside.

pydantic reports a validation error as a location (`('cases', 3, 'input', 'segments', 0, 'hypothesis')`),
an error kind and the value that came. `explain` turns one into a sentence in the project's wording: the
field's path (`input.segments[0].hypothesis`), what was expected, what came. A protocol line
(`oracle.models.protocol`) and a case file (`oracle.models.case`) share it; a `Dialect` says only how each
shows a value and names its containers (a JSON object, a mapping). `explain_all` also finds the line of
the node each error is about in a document read from YAML (`line_at`), so that a case-file error names
file:line.

Validators write their own problems with `problem` (a phrase that follows the field's path: "must be a
non-empty token without whitespace (got 'a b')") or `sentence` (a whole sentence naming its fields), and
raise several at once with `raise_all`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, NoReturn

from pydantic import BaseModel, ValidationError
from pydantic_core import ErrorDetails, InitErrorDetails, PydanticCustomError

from oracle.escaping import close_name

#: A location in a document: mapping keys and list indexes, outermost first.
Loc = tuple[str | int, ...]

#: The error kind of a problem a validator words itself: the message follows the field's path.
PROBLEM = "problem"
#: The error kind of a whole sentence a validator words itself (it names its own fields).
SENTENCE = "sentence"


# -- Problems a validator words itself ------------------------------------------------------


def problem(message: str, *, whole: bool = False, also_at: Loc | None = None) -> PydanticCustomError:
    """A problem with the value at the validator's location, worded as what follows the field's path
    ("must be a list of tokens (got 3)"). `whole`: the problem is with a mapping as a whole (missing a
    field, inconsistent fields), so its line is the mapping's first, not its key's. `also_at`: another
    place of the same document the problem concerns (a duplicate's first occurrence)."""
    return _custom(PROBLEM, message, whole=whole, also_at=also_at)


def sentence(message: str, *, whole: bool = False, also_at: Loc | None = None) -> PydanticCustomError:
    """A problem worded as a whole sentence, which names the fields it is about."""
    return _custom(SENTENCE, message, whole=whole, also_at=also_at)


def _custom(kind: str, message: str, *, whole: bool, also_at: Loc | None) -> PydanticCustomError:
    context: dict[str, Any] = {"whole": whole}
    if also_at is not None:
        context["also_at"] = also_at
    # the message is the template: braces in it ("{order: value}") are not context keys, so stay as written
    return PydanticCustomError(kind, message, context)


def raise_all(title: str, found: Iterable[tuple[Loc, PydanticCustomError, object]]) -> None:
    """Raise every problem a validator found at once, each at its location relative to the validator's
    (`(loc, problem, value)`); nothing when there is none. pydantic prefixes the locations with the
    validator's own, so a model validator can point at each of its fields."""
    details = [InitErrorDetails(type=error, loc=loc, input=value) for loc, error, value in found]
    if details:
        raise ValidationError.from_exception_data(title, details)


def raise_again_with(exc: ValidationError, extra: Sequence[InitErrorDetails]) -> NoReturn:
    """Raise the errors of `exc` and `extra` together (a wrap validator adding what it found to the errors
    of the value it wraps); `exc` itself when there is nothing to add."""
    if not extra:
        raise exc
    kept = [InitErrorDetails(type=PydanticCustomError(e["type"], e["msg"], e.get("ctx")), loc=e["loc"],
                             input=e["input"]) for e in exc.errors(include_url=False)]
    raise ValidationError.from_exception_data(exc.title, [*kept, *extra]) from None


# -- Wording -------------------------------------------------------------------------------


@dataclass(frozen=True)
class Dialect:
    """How one kind of document is spoken of in errors."""

    #: What the whole document is called: "a 'score' command", "a case file".
    top: str
    #: A value as it came, short: JSON for a protocol line, the Python value read from YAML for a case file.
    show: Callable[[object], str]
    #: What a mapping is called: "a JSON object", "a mapping".
    mapping: str = "a JSON object"
    #: What a sequence is called: "an array", "a list".
    sequence: str = "an array"
    #: A part of the document whose fields are named relative to it, from a location: how many of the
    #: location's first parts name that part, and what the part is called (a case in a case file is
    #: `(2, "a case")`: its fields are `input.level`, not `cases[3].input.level`). None: the whole document.
    part: Callable[[Loc], tuple[int, str] | None] = lambda loc: None

    def relative(self, loc: Loc) -> tuple[Loc, str]:
        """`loc` relative to the part of the document it lies in, and what that part is called."""
        found = self.part(loc)
        if found is None:
            return loc, self.top
        length, name = found
        return loc[length:], name


_TYPES = {
    "int_type": "must be an integer", "int_parsing": "must be an integer", "int_from_float": "must be an integer",
    "string_type": "must be a string", "bool_type": "must be true or false", "float_type": "must be a number",
    "string_too_short": "must not be empty",
}


def field_path(loc: Loc) -> str:
    """A location as a field's path: `input.segments[0].hypothesis`."""
    out = ""
    for part in loc:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out


def explain(error: ErrorDetails, dialect: Dialect, model: type[BaseModel] | None = None) -> str:
    """One validation error as one sentence: the field's path, what was expected, what came. `model` (the
    model validated) lets an unknown field's message list the fields there are."""
    loc, top = dialect.relative(tuple(error["loc"]))
    kind, value, context = error["type"], error.get("input"), error.get("ctx") or {}
    path, parent = field_path(loc), field_path(loc[:-1])
    where = f"`{parent}`" if parent else top
    got = f"(got {dialect.show(value)})"
    if kind == SENTENCE:
        return error["msg"]
    if kind == PROBLEM:
        return _after(f"`{path}`" if path else top, error["msg"])
    if kind == "missing":
        return f"`{path}` is required in {where}"
    if kind == "extra_forbidden":
        fields = _fields_at(model, tuple(error["loc"])[:-1]) if model is not None else []
        listed = f" (its fields are {', '.join(f'`{name}`' for name in fields)})" if fields else ""
        name = tuple(error["loc"])[-1]
        meant = close_name(name, fields) if isinstance(name, str) else None
        guess = f"; did you mean `{meant}`?" if meant else ""
        return f"unknown field `{path}` in {where}{listed}{guess}{_belongs_beside(model, tuple(error['loc']))}"
    if kind in ("model_type", "model_attributes_type", "dict_type"):
        return f"`{path}` must be {dialect.mapping} {got}" if path else f"{top} must be {dialect.mapping} {got}"
    if kind in ("list_type", "tuple_type"):
        return f"`{path}` must be {dialect.sequence} {got}"
    if kind == "literal_error":
        return f"`{path}` {one_of(_literal_options(str(context.get('expected', ''))), value, dialect.show)}"
    return _after(f"`{path or top}`", _bound_or_type(kind, context, got, error["msg"]))


def _after(subject: str, said: str) -> str:
    """What is said of a field, after its name: "`x` must be ...", or "`x`: ..." for a message of its own."""
    return f"{subject}{'' if said.startswith(':') else ' '}{said}"


def _bound_or_type(kind: str, context: Mapping[str, Any], got: str, fallback: str) -> str:
    """What follows the path for a bound (at least, at most, how many items) or a wrong type; for an error
    of any other kind, pydantic's own message after a colon."""
    if kind == "greater_than_equal":
        return f"must be at least {context.get('ge')} {got}"
    if kind == "less_than_equal":  # a bound (`oracle.formulas.bounds`)
        return f"must be at most {context.get('le')} {got}"
    if kind == "too_long":
        most = context.get("max_length")
        return f"must hold at most {most} item{'s' if most != 1 else ''} (got {context.get('actual_length')})"
    if kind == "too_short":
        least = context.get("min_length", 1)
        return f"must hold at least {least} item{'s' if least != 1 else ''} {got}"
    if kind in _TYPES:
        return f"{_TYPES[kind]} {got}"
    return f": {fallback} {got}"


def one_of(options: Sequence[object], value: object, show: Callable[[object], str]) -> str:
    """"must be X" or "must be one of X, Y" and what came, each value shown as the document writes it; a misspelt
    name is given the close one ("did you mean ...?")."""
    if len(options) == 1:
        return f"must be {show(options[0])} (got {show(value)})"
    named = [option for option in options if isinstance(option, str)]
    meant = close_name(value, named) if isinstance(value, str) and value not in named else None
    guess = f"; did you mean {show(meant)}?" if meant is not None else ""
    return f"must be one of {', '.join(show(option) for option in options)} (got {show(value)}{guess})"


def _literal_options(expected: str) -> list[object]:
    """The choices of a Literal from pydantic's text of them ("'corpus' or 'sentence'", "1")."""
    options: list[object] = []
    for part in expected.replace(" or ", ", ").split(","):
        text = part.strip()
        if text:
            options.append(int(text) if text.lstrip("-").isdigit() else text.strip("'"))
    return options


def _fields_at(model: type[BaseModel], loc: Loc) -> list[str]:
    """The field names of the model found at `loc` inside `model` (for "its fields are ...")."""
    found = _model_at(model, loc)
    return [] if found is None else list(found.model_fields)


def _model_at(model: type[BaseModel], loc: Loc) -> type[BaseModel] | None:
    """The model found at `loc` inside `model` (None where `loc` leads to no model)."""
    current: type[BaseModel] = model
    for part in loc:
        if isinstance(part, int):
            continue
        field = current.model_fields.get(part)
        inner = next(iter(_models_in(field.annotation)), None) if field is not None else None
        if inner is None:
            return None
        current = inner
    return current


def _belongs_beside(model: type[BaseModel] | None, loc: Loc) -> str:
    """'; `weights` is a field of `options`': where an unknown field at `loc` is a field of a sibling of the model it
    was found in (one level off: a case's `input.weights` for its `options.weights`), "" where it is none's."""
    if model is None or len(loc) < 2 or not isinstance(loc[-1], str) or not isinstance(loc[-2], str):
        return ""
    name, holder, above = loc[-1], loc[-2], _model_at(model, loc[:-2])
    if above is None:
        return ""
    owners = [field for field, info in above.model_fields.items() if field != holder
              and any(name in inner.model_fields for inner in _models_in(info.annotation))]
    return f"; `{name}` is a field of {' and '.join(f'`{owner}`' for owner in owners)}" if owners else ""


def _models_in(annotation: object) -> Iterable[type[BaseModel]]:
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        yield annotation
        return
    for argument in getattr(annotation, "__args__", ()) or ():
        yield from _models_in(argument)


# -- Errors with their lines -------------------------------------------------------------------


@dataclass(frozen=True)
class Explained:
    """One validation error in the project's words, with where it is."""

    #: Where in the document (pydantic's location).
    loc: Loc
    message: str
    #: The line of the node it is about (None: the document carries no lines).
    line: int | None
    #: The line of the other place it concerns (a duplicate's first occurrence), if any.
    also_line: int | None = None


def explain_all(exc: ValidationError, dialect: Dialect, model: type[BaseModel], document: object = None
                ) -> list[Explained]:
    """Every error of `exc`, explained, with the line of its node in `document` (the value validated, as
    read from YAML: mappings and lists that know their lines, `line_at`), in the order of the document."""
    out = []
    for error in exc.errors(include_url=False):
        loc = tuple(error["loc"])
        context = error.get("ctx") or {}
        whole = error["type"] == "missing" or bool(context.get("whole"))
        also_at = context.get("also_at")
        out.append(Explained(loc, explain(error, dialect, model), line_at(document, loc, whole=whole),
                             line_at(document, tuple(also_at), whole=True) if also_at is not None else None))
    return sorted(out, key=lambda explained: explained.line or 0)


def line_at(document: object, loc: Loc, *, whole: bool = False) -> int | None:
    """The line of the node at `loc` in a document read from YAML: its key's line (an item's own line in a
    list); with `whole`, the node's own first line (a mapping whose value starts below its key). A part of
    `loc` that is not there (a missing field) gives the line of the mapping that lacks it.

    The document's mappings and lists carry their lines as the case-file loader reads them: `line` (their
    own), `key_lines` (a mapping's, per key) and `item_lines` (a list's, per item). A document without them
    gives None."""
    node, line = document, getattr(document, "line", None)
    for part in loc:
        child_line = _child_line(node, part)
        if child_line is None:
            return getattr(node, "line", None) or line
        node, line = _child(node, part), child_line
    return (getattr(node, "line", None) or line) if whole else line


def _child_line(node: object, part: str | int) -> int | None:
    key_lines = getattr(node, "key_lines", None)
    if isinstance(key_lines, dict):
        if part not in key_lines and isinstance(part, str) and part.isdigit():
            part = int(part)  # an n-gram order: a YAML integer key, named as text in a field's path
        found = key_lines.get(part)
        return found if isinstance(found, int) else None
    item_lines = getattr(node, "item_lines", None)
    if isinstance(item_lines, list) and isinstance(part, int) and 0 <= part < len(item_lines):
        found = item_lines[part]
        return found if isinstance(found, int) else None
    return None


def _child(node: object, part: str | int) -> object:
    if isinstance(node, dict):
        return node.get(part, node.get(int(part)) if isinstance(part, str) and part.isdigit() else None)
    if isinstance(node, list) and isinstance(part, int):
        return node[part]
    return None
