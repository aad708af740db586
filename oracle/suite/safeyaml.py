"""Reading YAML documents the project trusts no further than their text: the safe loader (no code),
and no aliases (an alias bomb of a few hundred bytes expands to gigabytes), no nesting deeper than
`MAX_DEPTH`. Errors name the file and line."""

from __future__ import annotations

import yaml

from oracle.formulas.errors import BleuValueError

#: Deeper nesting than any document of ours needs; a deeper one is refused, not recursed into.
MAX_DEPTH = 64


class UnsafeYamlError(BleuValueError):
    """A YAML document uses an alias or nests too deeply; the message names the file and line."""

    def __init__(self, problem, *, name, line):
        super().__init__(f"{name}:{line}: {problem}")
        self.problem, self.line = problem, line


class StrictSafeLoader(yaml.SafeLoader):
    """SafeLoader that refuses aliases and deep nesting while composing, before anything expands."""

    def __init__(self, stream, *, name="<yaml>"):
        super().__init__(stream)
        self.source_name = name
        self._depth = 0

    def compose_node(self, parent, index):
        if self.check_event(yaml.AliasEvent):
            mark = self.peek_event().start_mark
            raise UnsafeYamlError("YAML aliases (*name) are not allowed in this file; write the value out",
                                  name=self.source_name, line=mark.line + 1)
        self._depth += 1
        try:
            if self._depth > MAX_DEPTH:
                mark = self.peek_event().start_mark
                raise UnsafeYamlError(f"nesting deeper than {MAX_DEPTH} levels", name=self.source_name,
                                      line=mark.line + 1)
            return super().compose_node(parent, index)
        finally:
            self._depth -= 1


def load_yaml(text, *, name="<yaml>"):
    """The one document in `text`, read strictly (see the module docstring); UnsafeYamlError or
    BleuValueError (not YAML) naming `name` and the line."""
    loader = StrictSafeLoader(text, name=name)
    try:
        return loader.get_single_data()
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f"{name}:{mark.line + 1}" if mark is not None else name
        raise BleuValueError(f"{where}: not valid YAML ({getattr(exc, 'problem', None) or exc})") from None
    finally:
        loader.dispose()
