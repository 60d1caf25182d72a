"""Errors a user can act on. The CLI prints them without a traceback and exits 2."""
from __future__ import annotations

import sys


class TrainetError(Exception):
    """A failure caused by input or environment, with a message saying what to do."""

    exit_code = 2


class P4Error(TrainetError):
    """A P4 diagnostic: ``file:line:col: error: message`` plus the source line and a caret."""

    def __init__(self, message: str, loc=None, source_line: str | None = None):
        self.message = message
        self.loc = loc
        self.source_line = source_line
        super().__init__(self.render())

    def render(self) -> str:
        if self.loc is None or getattr(self.loc, "line", 1) == 0:
            return f"error: {self.message}"      # no place in a source file (BMv2 JSON)
        text = f"{self.loc}: error: {self.message}"
        if self.source_line is not None:
            caret = " " * max(self.loc.col - 1, 0) + "^"
            text += f"\n{self.source_line.rstrip()}\n{caret}"
        return text


def run_command(fn, *args) -> int:
    """``fn(*args)`` as a command's body: its exit code (0 for None); a TrainetError is
    printed to stderr without a traceback and exits with its code, Ctrl-C with 130."""
    try:
        return fn(*args) or 0
    except TrainetError as e:
        print(str(e), file=sys.stderr)
        return e.exit_code
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130
