"""What every spec file shares, topologies and experiments alike: the strict model base
(unknown keys are errors), issues that name the field path (``links[3].bw``) and, when
the spec came from a file, its line and column, and YAML read with the position of
every value."""
from __future__ import annotations

import re
from dataclasses import dataclass

import yaml
from pydantic import BaseModel, ConfigDict, ValidationError, model_validator

from testbed.errors import TrainetError


class Spec(BaseModel):
    """Unknown keys are errors that name the key and the allowed keys; the other fields
    are still validated, so one pass reports every mistake of a file."""

    model_config = ConfigDict(extra="forbid")

    @model_validator(mode="before")
    @classmethod
    def _known_keys(cls, data):
        if isinstance(data, dict) and any(key not in cls.model_fields for key in data):
            allowed = ", ".join(cls.model_fields)
            return {key: value if key in cls.model_fields or isinstance(value, UnknownKey)
                    else UnknownKey(key, allowed) for key, value in data.items()}
        return data


@dataclass(frozen=True)
class UnknownKey:
    """Stands for the value of a key a spec does not have, so that pydantic's
    ``extra_forbidden`` error carries the allowed keys to :func:`from_validation`."""

    key: object
    allowed: str
    renamed: str = ""        # an earlier version's key: what it is now, and how to convert

    @property
    def message(self) -> str:
        return self.renamed or f"unknown field {str(self.key)!r}; allowed: {self.allowed}"


def path_text(path: tuple) -> str:
    """('links', 3, 'bw') -> 'links[3].bw'."""
    text = ""
    for part in path:
        if isinstance(part, int):
            text += f"[{part}]"
        elif part != "[key]":
            text += f".{part}" if text else str(part)
    return text


@dataclass
class Issue:
    path: tuple
    message: str
    line: int | None = None      # 1-based
    col: int | None = None


class TopologyError(TrainetError):
    def __init__(self, issues: list[Issue], source: str | None = None):
        self.issues = issues
        self.source = source
        super().__init__(self.render())

    def render(self) -> str:
        lines = []
        for issue in self.issues:
            where = ""
            if self.source:
                where = f"{self.source}:{issue.line}:{issue.col}: " if issue.line \
                    else f"{self.source}: "
            field = f"{path_text(issue.path)}: " if issue.path else ""
            lines.append(f"{where}{field}{issue.message}")
        return "\n".join(lines)

    def located(self, source: str, marks: dict[tuple, tuple[int, int]] | None = None
                ) -> "TopologyError":
        """The same issues attributed to ``source``, with the line and column of the
        deepest part of each path that ``marks`` knows."""
        marks = marks or {}
        issues = []
        for issue in self.issues:
            line = col = None
            for n in range(len(issue.path), -1, -1):
                if issue.path[:n] in marks:
                    line, col = marks[issue.path[:n]]
                    break
            issues.append(Issue(issue.path, issue.message, line, col))
        return TopologyError(issues, source)


def from_validation(err: ValidationError, prefix: tuple = ()) -> TopologyError:
    """Pydantic's errors as issues, with the offending value in the message."""
    issues = []
    for e in err.errors():
        loc = prefix + tuple(e["loc"])
        ctx = e.get("ctx") or {}
        if e["type"] == "extra_forbidden" and isinstance(e.get("input"), UnknownKey):
            message = e["input"].message
            loc += ("[key]",)                 # the key is what is wrong: point at it
        elif e["type"] == "value_error":
            message = str(ctx.get("error", e["msg"]))
        else:
            message = e["msg"]
            value = e.get("input")
            if not isinstance(value, (dict, list)) and e["type"] != "missing":
                message += f" (got {value!r})"
        issues.append(Issue(loc, message))
    return TopologyError(issues)


class _Loader(yaml.SafeLoader):
    """YAML 1.1 without base-60 numbers, so unquoted MAC addresses such as
    10:00:00:00:01:11 stay strings; ``1e-4`` is a float."""


_INT, _FLOAT = "tag:yaml.org,2002:int", "tag:yaml.org,2002:float"
_Loader.yaml_implicit_resolvers = {
    first: [(tag, rx) for tag, rx in resolvers if tag not in (_INT, _FLOAT)]
    for first, resolvers in yaml.SafeLoader.yaml_implicit_resolvers.items()}
_Loader.add_implicit_resolver(_INT, re.compile(
    r"^(?:[-+]?0b[0-1_]+|[-+]?0[0-7_]+|[-+]?(?:0|[1-9][0-9_]*)|[-+]?0x[0-9a-fA-F_]+)$"),
    list("-+0123456789"))
_Loader.add_implicit_resolver(_FLOAT, re.compile(
    r"^(?:[-+]?(?:[0-9][0-9_]*\.[0-9_]*(?:[eE][-+]?[0-9]+)?|[0-9][0-9_]*[eE][-+]?[0-9]+"
    r"|\.[0-9_]+(?:[eE][-+]?[0-9]+)?|\.(?:inf|Inf|INF))|\.(?:nan|NaN|NAN))$"),
    list("-+0123456789."))


def read_spec(path, what: str) -> tuple[object, dict[tuple, tuple[int, int]]]:
    """A spec file's data and marks (parse_yaml); a file that cannot be read, is not
    UTF-8 text or is empty is a one-line error naming it."""
    from pathlib import Path
    try:
        text = Path(path).read_text(encoding="utf-8")
    except OSError as e:
        raise TopologyError([Issue((), f"cannot read the {what} file: {e.strerror}")],
                            str(path)) from None
    except UnicodeDecodeError as e:
        line = Path(path).read_bytes()[:e.start].count(b"\n") + 1
        raise TopologyError([Issue((), f"not UTF-8 text (byte 0x{e.object[e.start]:02x}); "
                                   f"{what} files are YAML in UTF-8", line, 1)],
                            str(path)) from None
    if not text.strip():
        raise TopologyError([Issue((), f"the file is empty; {what} files are YAML "
                                   "mappings (README: Your first experiment)")], str(path))
    return parse_yaml(text, str(path))


def parse_yaml(text: str, source: str) -> tuple[object, dict[tuple, tuple[int, int]]]:
    """The data and, for every path in it, the (line, col) where its value starts (a
    block mapping or list: where its key starts, the line that introduces it); for a
    mapping's key, ``path + (key, "[key]")``, where the key starts."""
    loader = _Loader(text)
    try:
        node = loader.get_single_node()
        data = loader.construct_document(node) if node is not None else None
    except yaml.MarkedYAMLError as e:
        mark = e.problem_mark or e.context_mark
        where = f"{source}:{mark.line + 1}:{mark.column + 1}" if mark else source
        detail = " ".join(part for part in (e.context, e.problem) if part)
        raise TopologyError([Issue((), f"YAML syntax error: {detail}")], where) from None
    except yaml.YAMLError as e:          # a reader error: a character YAML does not allow
        raise TopologyError([Issue((), f"not YAML text: {e}")], source) from None
    finally:
        loader.dispose()
    marks: dict[tuple, tuple[int, int]] = {}
    if node is not None:
        _walk(node, (), marks)
    return data, marks


def _walk(node, path: tuple, marks: dict) -> None:
    marks[path] = (node.start_mark.line + 1, node.start_mark.column + 1)
    if isinstance(node, yaml.MappingNode):
        for key, value in node.value:
            _walk(value, path + (key.value,), marks)
            at_key = (key.start_mark.line + 1, key.start_mark.column + 1)
            marks[path + (key.value, "[key]")] = at_key
            if isinstance(value, (yaml.MappingNode, yaml.SequenceNode)) \
                    and not value.flow_style:
                marks[path + (key.value,)] = at_key
    elif isinstance(node, yaml.SequenceNode):
        for i, item in enumerate(node.value):
            _walk(item, path + (i,), marks)
