"""Topology errors: each issue names the field path (``links[3].bw``), and the file and
line when the spec came from a file."""
from __future__ import annotations

from dataclasses import dataclass

from pydantic import ValidationError

from testbed.errors import TrainetError


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
        if e["type"] == "unknown_field":
            loc += (ctx["field"],)
            message = e["msg"]
        elif e["type"] == "value_error":
            message = str(ctx.get("error", e["msg"]))
        else:
            message = e["msg"]
            value = e.get("input")
            if not isinstance(value, (dict, list)) and e["type"] != "missing":
                message += f" (got {value!r})"
        issues.append(Issue(loc, message))
    return TopologyError(issues)
