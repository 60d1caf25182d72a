"""Integer expressions of preprocessor ``#if`` lines, evaluated with C's operators and
precedence (identifiers left after macro expansion count as 0, as in C)."""
from __future__ import annotations

import re

_TOKEN = re.compile(r"\s*(0[xX][0-9a-fA-F]+|\d+|[A-Za-z_]\w*|\|\||&&|==|!=|<=|>=|<<|>>|"
                    r"[-+*/%<>&|^!~()?:])")

# binary operators by precedence level, loosest first
_LEVELS = [("||",), ("&&",), ("|",), ("^",), ("&",), ("==", "!="), ("<", "<=", ">", ">="),
           ("<<", ">>"), ("+", "-"), ("*", "/", "%")]


def _tokens(text: str) -> list:
    out, pos = [], 0
    text = text.rstrip()
    while pos < len(text):
        m = _TOKEN.match(text, pos)
        if not m:
            raise ValueError(f"unexpected {text[pos:].strip()[:10]!r}")
        tok = m.group(1)
        if tok[0].isdigit():
            out.append(int(tok, 16) if tok[:2] in ("0x", "0X") else int(tok, 8 if (
                tok.startswith("0") and len(tok) > 1) else 10))
        elif tok[0].isalpha() or tok[0] == "_":
            out.append(0)
        else:
            out.append(tok)
        pos = m.end()
    return out


class _Parser:
    def __init__(self, toks):
        self.toks = toks
        self.i = 0

    def peek(self):
        return self.toks[self.i] if self.i < len(self.toks) else None

    def take(self, want=None):
        tok = self.peek()
        if tok is None or (want is not None and tok != want):
            raise ValueError(f"expected {want or 'a value'}")
        self.i += 1
        return tok

    def conditional(self) -> int:
        cond = self.binary(0)
        if self.peek() == "?":
            self.take("?")
            a = self.conditional()
            self.take(":")
            b = self.conditional()
            return a if cond else b
        return cond

    def binary(self, level: int) -> int:
        if level == len(_LEVELS):
            return self.unary()
        left = self.binary(level + 1)
        while isinstance(self.peek(), str) and self.peek() in _LEVELS[level]:
            op = self.take()
            right = self.binary(level + 1)
            left = _apply(op, left, right)
        return left

    def unary(self) -> int:
        tok = self.peek()
        if tok in ("!", "~", "-", "+"):
            self.take()
            v = self.unary()
            return {"!": int(not v), "~": ~v, "-": -v, "+": v}[tok]
        if tok == "(":
            self.take("(")
            v = self.conditional()
            self.take(")")
            return v
        if isinstance(tok, int):
            self.take()
            return tok
        raise ValueError("expected a value")


def _apply(op: str, a: int, b: int) -> int:
    if op in ("/", "%") and b == 0:
        raise ValueError("division by zero")
    return {
        "||": lambda: int(bool(a) or bool(b)), "&&": lambda: int(bool(a) and bool(b)),
        "|": lambda: a | b, "^": lambda: a ^ b, "&": lambda: a & b,
        "==": lambda: int(a == b), "!=": lambda: int(a != b), "<": lambda: int(a < b),
        "<=": lambda: int(a <= b), ">": lambda: int(a > b), ">=": lambda: int(a >= b),
        "<<": lambda: a << b, ">>": lambda: a >> b, "+": lambda: a + b, "-": lambda: a - b,
        "*": lambda: a * b, "/": lambda: int(a / b), "%": lambda: a - b * int(a / b),
    }[op]()


def evaluate(text: str) -> int:
    """Value of a C integer expression; ValueError says what is wrong."""
    p = _Parser(_tokens(text))
    value = p.conditional()
    if p.peek() is not None:
        raise ValueError(f"unexpected {p.peek()!r}")
    return value
