"""Reading YAML documents the project trusts no further than their text: the safe loader (no code),
no key given twice in a mapping (YAML keeps the last, silently), and no aliases (an alias bomb of a few
hundred bytes expands to gigabytes), no nesting deeper than `MAX_DEPTH`. Errors name the file and line.

libyaml's loader (`yaml.CSafeLoader`) is used where PyYAML has it: it reads the project's documents
about ten times faster than the pure-Python one. Its composer is C and calls back into Python for
nothing but tags, so aliases and depth cannot be refused while it composes (and its recursion on a
deeply nested document is C recursion, unguarded). They are refused before: a pass over the
parser's events (a state machine with its own stack, in C too) looks for an alias and counts
the nesting, and only a document that passes is composed."""

from __future__ import annotations

from typing import TYPE_CHECKING

import yaml

from oracle.formulas.bounds import MAX_DIGITS
from oracle.formulas.errors import BleuValueError

#: Deeper nesting than any document of ours needs; a deeper one is refused, not recursed into.
MAX_DEPTH = 64
#: The fastest safe loader this PyYAML has: libyaml's when it was built with it.
if TYPE_CHECKING:  # mypy subclasses a name, not a value chosen at run time; both loaders share SafeLoader's interface
    from yaml import SafeLoader as BaseSafeLoader
else:
    BaseSafeLoader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)

_OPEN = (yaml.SequenceStartEvent, yaml.MappingStartEvent)
_CLOSE = (yaml.SequenceEndEvent, yaml.MappingEndEvent)


class UnsafeYamlError(BleuValueError):
    """A YAML document uses an alias or nests too deeply; the message names the file and line."""

    def __init__(self, problem, *, name, line):
        super().__init__(f"{name}:{line}: {problem}")
        self.problem, self.line = problem, line


class DuplicateKeyError(BleuValueError):
    """A YAML mapping gives one key twice; the message names the file, the line and the first one's line."""

    def __init__(self, key, *, first_line, name, line):
        super().__init__(f"{name}:{line}: duplicate key `{key}` (first at line {first_line}): give each key once")
        self.line = line


def refuse_unsafe(text, *, name="<yaml>"):
    """Raise UnsafeYamlError at the first alias or the first collection nested deeper than MAX_DEPTH
    in `text`, reading parser events only (nothing is composed or expanded); a YAML syntax error
    propagates as yaml.YAMLError."""
    depth = 0
    for event in yaml.parse(text, Loader=BaseSafeLoader):
        if isinstance(event, yaml.AliasEvent):
            raise UnsafeYamlError("YAML aliases (*name) are not allowed in this file; write the value out",
                                  name=name, line=event.start_mark.line + 1)
        if isinstance(event, _OPEN):
            depth += 1
            if depth > MAX_DEPTH:
                raise UnsafeYamlError(f"nesting deeper than {MAX_DEPTH} levels", name=name,
                                      line=event.start_mark.line + 1)
        elif isinstance(event, _CLOSE):
            depth -= 1


class StrictSafeLoader(BaseSafeLoader):
    """The safe loader (libyaml's where present) that refuses aliases and deep nesting
    (`refuse_unsafe`) before it composes anything."""

    def __init__(self, stream, *, name="<yaml>"):
        if not isinstance(stream, str):
            raise TypeError(f"StrictSafeLoader reads a str (got {type(stream).__name__})")
        super().__init__(stream)
        self.source_name = name
        self._text = stream

    def get_single_data(self):
        refuse_unsafe(self._text, name=self.source_name)
        return super().get_single_data()

    def construct_mapping(self, node, deep=False):
        """A mapping whose keys are each given once: YAML reads a repeated key as its last value, silently (a
        baseline's reviewed `reason:` lost to a second one below it), so a repeated key is refused with its line."""
        if isinstance(node, yaml.MappingNode):
            first_lines: dict[object, int] = {}
            for key_node, _ in node.value:
                if not isinstance(key_node, yaml.ScalarNode):
                    continue
                key = self.construct_object(key_node)
                if key in first_lines:
                    raise DuplicateKeyError(key, first_line=first_lines[key], name=self.source_name,
                                            line=key_node.start_mark.line + 1)
                first_lines[key] = key_node.start_mark.line + 1
        return super().construct_mapping(node, deep=deep)


def _construct_int(loader: StrictSafeLoader, node: yaml.ScalarNode) -> int:
    """An integer within MAX_DIGITS digits (`oracle.formulas.bounds`); a longer one is refused with its line
    before it is converted (int() of 5,000 digits is an error, of a million a long wait)."""
    digits = len(loader.construct_scalar(node).replace("_", "").lstrip("+-"))
    if digits > MAX_DIGITS:
        raise UnsafeYamlError(f"an integer of {digits} digits, more than the {MAX_DIGITS} a number may have",
                              name=loader.source_name, line=node.start_mark.line + 1)
    return yaml.constructor.SafeConstructor.construct_yaml_int(loader, node)


StrictSafeLoader.add_constructor("tag:yaml.org,2002:int", _construct_int)


def load_yaml(text, *, name="<yaml>"):
    """The one document in `text`, read strictly (see the module docstring); UnsafeYamlError or
    BleuValueError (not YAML) naming `name` and the line."""
    loader = StrictSafeLoader(text, name=name)
    try:
        return loader.get_single_data()
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f"{name}:{mark.line + 1}" if mark is not None else name
        problem = getattr(exc, "problem", None) or exc
        if mark is not None and _indented_with_a_tab(text, mark.line) and "tab" not in str(problem):
            problem = f"{problem}: a tab in the indentation; YAML indents with spaces only"
        raise BleuValueError(f"{where}: not valid YAML ({problem})") from None
    finally:
        loader.dispose()


def _indented_with_a_tab(text: str, line: int) -> bool:
    """Line `line` (0-based) of `text` has a tab among its leading whitespace (PyYAML's error there speaks of a
    "character that cannot start any token")."""
    lines = text.split("\n")
    if not 0 <= line < len(lines):
        return False
    content = lines[line]
    return "\t" in content[:len(content) - len(content.lstrip(" \t"))]
