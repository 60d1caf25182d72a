"""Syntax of STF (simple test framework) files, the test format of p4c's BMv2 backend.

One command per line; ``#`` starts a comment. This module turns a file into a list of
command objects, each with the :class:`~testbed.p4.ir.Loc` of every token, and reports
malformed lines as :class:`~testbed.errors.P4Error` (``file:line:col: error: ...``).
Resolving names against a program and running the commands is :mod:`testbed.p4.stf.runner`.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Optional

from testbed.errors import P4Error
from testbed.p4.ir import Loc


@dataclass
class Token:
    kind: str                     # "name", "value", "punct"
    text: str
    loc: Loc


@dataclass
class Packet:
    loc: Loc
    port: int
    data: bytes


@dataclass
class Expect:
    loc: Loc
    port: int
    pattern: Optional[str]        # upper-case hex nibbles and '*'; None: any packets
    exact_end: bool = False       # '$': the packet must end where the pattern ends


@dataclass
class ActionSpec:
    name: Token
    args: list                    # list[(Token name, Token value)]


@dataclass
class AddEntry:
    loc: Loc
    table: Token
    priority: Optional[Token]
    keys: list                    # list[(Token name, Token value)]
    action: ActionSpec
    handle: Optional[Token] = None   # "= NAME": lets check_counter name the entry


@dataclass
class SetDefault:
    loc: Loc
    table: Token
    action: ActionSpec


@dataclass
class CheckCounter:
    loc: Loc
    counter: Token
    index: Token                  # a number, or an entry handle name from "add ... = NAME"
    kind: str = "packets"         # "packets" or "bytes"
    op: str = "=="
    value: Optional[Token] = None  # None: the count must be 0


@dataclass
class Simple:
    """Every other command: a verb and its already arity-checked operands."""
    loc: Loc
    verb: str
    args: list = field(default_factory=list)   # list[Token]


Command = object  # one of the dataclasses above

# Operand shapes of the simple commands: n = number, q = name, r = rate "R:B",
# v = key-like value (v, v&&&m, lo..hi), o = optional comparison operator,
# + = one or more of the previous shape.
_SIMPLE = {
    "wait": "", "no_packet": "", "remove": "q",
    "mirroring_add": "nn", "mirroring_add_mc": "nn", "mirroring_delete": "n",
    "mirroring_get": "n",
    "mc_mgrp_create": "n", "mc_mgrp_destroy": "n", "mc_node_create": "nn+",
    "mc_node_update": "nn+", "mc_node_associate": "nn", "mc_node_dissociate": "nn",
    "mc_node_destroy": "n",
    "counter_read": "qn", "counter_write": "qnnn", "counter_reset": "q",
    "register_read": "qn", "register_write": "qnn", "register_reset": "q",
    "check_register": "qnon",
    "meter_get_rates": "qn", "meter_set_rates": "qnrr", "meter_array_set_rates": "qrr",
    "check_digest": "qn+", "value_set_set": "qv+",
}

_NAME = r"[A-Za-z_$][\w$]*(?:\[\d+\])?(?:\.[A-Za-z_$][\w$]*(?:\[\d+\])?)*"
_INT = r"(?:0[xX][0-9a-fA-F*]+|0[bB][01*]+|0[oO][0-7*]+|\d+)"
_NUM = rf"(?:\d+(?:\.\d+){{3}}|\d+\.\d+|{_INT})"   # dotted IPv4 and rates too
_VALUE = rf"(?:\*|{_NUM}(?:(?:/|&&&|\.\.){_NUM})?)"
_TOKEN = re.compile(
    rf"(?P<ws>\s+)|(?P<value>{_VALUE})(?![\w$])|(?P<name>{_NAME})"
    r"|(?P<punct>==|!=|<=|>=|[<>():,=])")
_OPS = ("==", "!=", "<=", ">=", "<", ">")


def parse_file(path: str) -> list:
    try:
        with open(path) as f:
            text = f.read()
    except OSError as e:
        raise P4Error(f"cannot read STF file {path}: {e.strerror}; check the path") from None
    return parse_text(text, path)


def parse_text(text: str, filename: str = "<stf>") -> list:
    commands = []
    for lineno, raw in enumerate(text.splitlines(), 1):
        line = raw.split("#", 1)[0]
        if line.strip():
            commands.append(_Line(filename, lineno, raw, line).parse())
    return commands


class _Line:
    def __init__(self, filename: str, lineno: int, raw: str, text: str):
        self.filename, self.lineno, self.raw, self.text = filename, lineno, raw, text

    def loc(self, col0: int) -> Loc:
        return Loc(self.filename, self.lineno, col0 + 1)

    def error(self, message: str, col0: int) -> P4Error:
        return P4Error(message, self.loc(col0), self.raw)

    def parse(self):
        m = re.match(r"\s*(\S+)", self.text)
        verb, start = m.group(1).lower(), m.start(1)
        rest_at = m.end(1)
        if verb in ("packet", "expect"):
            return self._packet_or_expect(verb, start, rest_at)
        tokens = self._tokens(rest_at)
        if verb == "add":
            return self._add(start, tokens)
        if verb == "setdefault":
            return self._setdefault(start, tokens)
        if verb == "check_counter":
            return self._check_counter(start, tokens)
        if verb in _SIMPLE:
            return Simple(self.loc(start), verb, self._operands(verb, _SIMPLE[verb], start,
                                                                  tokens))
        raise self.error(f"unknown STF command '{m.group(1)}'; expected packet, expect, add, "
                         "setdefault, check_counter or one of " + ", ".join(sorted(_SIMPLE)),
                         start)

    # ------------------------------------------------------------ packet data
    def _packet_or_expect(self, verb: str, start: int, at: int):
        m = re.compile(r"\s*(\d+)").match(self.text, at)
        if not m:
            raise self.error(f"'{verb}' needs a port number", at)
        port = int(m.group(1))
        data_at = m.end() + len(self.text[m.end():]) - len(self.text[m.end():].lstrip())
        body = self.text[data_at:]
        allowed = "0123456789abcdefABCDEF" + ("*$" if verb == "expect" else "")
        digits = []
        for i, ch in enumerate(body):
            if ch.isspace():
                continue
            if ch not in allowed:
                what = "hex digits" if verb == "packet" else "hex digits, '*' or a final '$'"
                raise self.error(f"invalid character '{ch}' in {verb} data; use {what}",
                                 data_at + i)
            if digits and digits[-1] == "$":
                raise self.error("'$' must be the last character of the expected data",
                                 data_at + body.index("$"))
            digits.append(ch)
        hexdata = "".join(digits).upper()
        if verb == "packet":
            if not hexdata:
                raise self.error("'packet' needs data: packet <port> <hex bytes>", start)
            if len(hexdata) % 2:
                raise self.error(f"packet data has an odd number of hex digits "
                                 f"({len(hexdata)}); give whole bytes", data_at)
            return Packet(self.loc(start), port, bytes.fromhex(hexdata))
        exact_end = hexdata.endswith("$")
        pattern = hexdata.rstrip("$")
        if exact_end and not pattern:
            raise self.error("'$' needs expected data before it", data_at)
        return Expect(self.loc(start), port, pattern or None, exact_end)

    # ------------------------------------------------------------ control lines
    def _tokens(self, at: int) -> list:
        out, pos = [], at
        while pos < len(self.text):
            m = _TOKEN.match(self.text, pos)
            if not m or m.end() == pos:
                raise self.error(f"unexpected character '{self.text[pos]}'", pos)
            if m.lastgroup != "ws":
                out.append(Token(m.lastgroup, m.group(), self.loc(pos)))
            pos = m.end()
        return out

    def _end_col(self) -> int:
        return len(self.text.rstrip())

    def _expect(self, tokens: list, i: int, kind: str, what: str, text: str = None) -> Token:
        if i >= len(tokens):
            raise self.error(f"expected {what} at end of line", self._end_col())
        tok = tokens[i]
        if tok.kind != kind or (text is not None and tok.text != text):
            raise P4Error(f"expected {what}, found '{tok.text}'", tok.loc, self.raw)
        return tok

    def _action(self, tokens: list, i: int) -> tuple:
        name = self._expect(tokens, i, "name", "an action name followed by '(...)'")
        self._expect(tokens, i + 1, "punct", f"'(' after action {name.text}", "(")
        i += 2
        args = []
        while not (i < len(tokens) and tokens[i].text == ")"):
            if args:
                self._expect(tokens, i, "punct", "',' or ')'", ",")
                i += 1
            pname = self._expect(tokens, i, "name", "an action parameter name")
            self._expect(tokens, i + 1, "punct", f"':' after parameter {pname.text}", ":")
            value = self._expect(tokens, i + 2, "value", f"a value for parameter {pname.text}")
            args.append((pname, value))
            i += 3
        return ActionSpec(name, args), i + 1

    def _add(self, start: int, tokens: list) -> AddEntry:
        table = self._expect(tokens, 0, "name", "a table name after 'add'")
        i, priority = 1, None
        if i < len(tokens) and tokens[i].kind == "value" and tokens[i].text.isdigit():
            priority, i = tokens[i], 2
        keys = []
        while i + 1 < len(tokens) and tokens[i + 1].text == ":":
            kname = self._expect(tokens, i, "name", "a key field name")
            value = self._expect(tokens, i + 2, "value", f"a value for key {kname.text}")
            keys.append((kname, value))
            i += 3
        action, i = self._action(tokens, i)
        handle = None
        if i < len(tokens):
            self._expect(tokens, i, "punct", "'= NAME' or the end of the line", "=")
            handle = self._expect(tokens, i + 1, "name", "an entry name after '='")
            i += 2
        self._no_more(tokens, i)
        return AddEntry(self.loc(start), table, priority, keys, action, handle)

    def _setdefault(self, start: int, tokens: list) -> SetDefault:
        table = self._expect(tokens, 0, "name", "a table name after 'setdefault'")
        action, i = self._action(tokens, 1)
        self._no_more(tokens, i)
        return SetDefault(self.loc(start), table, action)

    def _check_counter(self, start: int, tokens: list) -> CheckCounter:
        name = self._expect(tokens, 0, "name", "a counter name")
        self._expect(tokens, 1, "punct", "'(' after the counter name", "(")
        if len(tokens) > 2 and tokens[2].kind in ("name", "value"):
            index = tokens[2]
        else:
            index = self._expect(tokens, 2, "value", "an index or entry name")
        self._expect(tokens, 3, "punct", "')'", ")")
        cmd = CheckCounter(self.loc(start), name, index)
        if len(tokens) > 4:
            kind = self._expect(tokens, 4, "name", "'packets' or 'bytes'")
            if kind.text.lower() not in ("packets", "bytes"):
                raise P4Error(f"expected 'packets' or 'bytes', found '{kind.text}'", kind.loc,
                              self.raw)
            op = self._expect(tokens, 5, "punct", "a comparison (== != < <= > >=)")
            if op.text not in _OPS:
                raise P4Error(f"expected a comparison (== != < <= > >=), found '{op.text}'",
                              op.loc, self.raw)
            cmd.kind, cmd.op = kind.text.lower(), op.text
            cmd.value = self._expect(tokens, 6, "value", "a number")
            self._no_more(tokens, 7)
        return cmd

    def _operands(self, verb: str, shape: str, start: int, tokens: list) -> list:
        out, i = [], 0
        for j, s in enumerate(shape):
            if s == "+":
                while i < len(tokens):
                    out.append(self._operand(verb, shape[j - 1], tokens, i))
                    i += 1
            elif s == "o":
                if i < len(tokens) and tokens[i].text in _OPS:
                    out.append(tokens[i])
                    i += 1
                else:
                    out.append(Token("punct", "==", self.loc(start)))
            else:
                out.append(self._operand(verb, s, tokens, i))
                i += 1 + (2 if s == "r" else 0)
        self._no_more(tokens, i)
        return out

    def _operand(self, verb: str, s: str, tokens: list, i: int) -> Token:
        if s == "q":
            return self._expect(tokens, i, "name", f"a name ({verb})")
        if s == "v":
            return self._expect(tokens, i, "value", f"a value ({verb})")
        if s == "n":
            tok = self._expect(tokens, i, "value", f"a number ({verb})")
            if not re.fullmatch(_INT, tok.text) or "*" in tok.text:
                raise P4Error(f"expected a number, found '{tok.text}'", tok.loc, self.raw)
            return tok
        rate = self._expect(tokens, i, "value", f"a rate RATE:BURST ({verb})")
        self._expect(tokens, i + 1, "punct", "':' between rate and burst", ":")
        burst = self._expect(tokens, i + 2, "value", "a burst size")
        return Token("rate", f"{rate.text}:{burst.text}", rate.loc)

    def _no_more(self, tokens: list, i: int) -> None:
        if i < len(tokens):
            raise P4Error(f"unexpected '{tokens[i].text}' at the end of the command",
                          tokens[i].loc, self.raw)
