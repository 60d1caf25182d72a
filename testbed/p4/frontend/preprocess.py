"""A C-like preprocessor for P4_16 sources.

Supports ``#include "f"`` / ``#include <f>``, object-like and function-like ``#define``,
``#undef``, ``#if``/``#elif`` (``defined``, integer expressions), ``#ifdef``/``#ifndef``,
``#else``/``#endif``, ``#error``, ``#pragma once``, line continuation and comments.

Every character of the output remembers where it came from (file, line, column), so a
diagnostic on preprocessed text points at the original source, through includes and
macro expansions (text produced by a macro maps to the macro's use).
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from testbed.errors import P4Error
from testbed.p4.frontend import cexpr
from testbed.p4.ir import Loc

BUILTIN_INCLUDE = Path(__file__).resolve().parents[1] / "include"

_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_TOKEN = re.compile(r'"(?:\\.|[^"\\])*"|[A-Za-z_][A-Za-z0-9_]*|\d[\w.]*|\s+|.')
_MAX_INCLUDE_DEPTH = 64


@dataclass
class _Line:
    """A logical line: its text and, per character, the origin (file index, line, col)."""
    text: str
    origin: list      # list[tuple[int, int, int]], one per character of text
    end: tuple        # origin just past the last character


class _UnterminatedCall(Exception):
    """A function-like macro call whose arguments continue on the next line."""

    def __init__(self, name: str, at):
        super().__init__(name)
        self.name = name
        self.at = at


@dataclass
class Macro:
    name: str
    body: str
    params: tuple | None = None   # None: object-like


@dataclass
class Preprocessed:
    """The preprocessed text with its map back to the original sources."""
    text: str
    origins: list = field(default_factory=list)   # per output line: list of origins
    ends: list = field(default_factory=list)      # per output line: origin past its end
    files: list = field(default_factory=list)     # file index -> path string
    sources: dict = field(default_factory=dict)   # path string -> list of lines

    def loc(self, line: int, col: int) -> Loc:
        """Original location of the 1-based (line, col) of the preprocessed text."""
        if not self.origins:
            return Loc(self.files[0] if self.files else "<source>", 1, 1)
        i = min(max(line - 1, 0), len(self.origins) - 1)
        row = self.origins[i]
        if 0 <= col - 1 < len(row):
            f, ln, c = row[col - 1]
        else:
            f, ln, c = self.ends[i]
        return Loc(self.files[f], ln, c)

    def source_line(self, loc: Loc) -> str | None:
        lines = self.sources.get(loc.file)
        if lines is None or not 1 <= loc.line <= len(lines):
            return None
        return lines[loc.line - 1]

    def error(self, message: str, line: int, col: int) -> P4Error:
        loc = self.loc(line, col)
        return P4Error(message, loc, self.source_line(loc))


class Preprocessor:
    def __init__(self, include_dirs=(), defines=None):
        self.include_dirs = [Path(d) for d in include_dirs]
        self.macros: dict[str, Macro] = {}
        for name, value in (defines or {}).items():
            self.macros[name] = Macro(name, str(value))
        self.out = Preprocessed("")
        self._out_lines: list[str] = []
        self._once: set[str] = set()

    # ------------------------------------------------------------ entry points
    def run_file(self, path) -> Preprocessed:
        path = Path(path)
        self._process(str(path), self._read(path, None), path.resolve().parent, 0)
        return self._finish()

    def run_text(self, text: str, filename: str = "<source>") -> Preprocessed:
        self._process(filename, text, Path.cwd(), 0)
        return self._finish()

    def _finish(self) -> Preprocessed:
        self.out.text = "\n".join(self._out_lines) + "\n"
        return self.out

    # ------------------------------------------------------------ files
    def _file_index(self, name: str, text: str) -> int:
        if name not in self.out.sources:
            self.out.sources[name] = text.split("\n")
        self.out.files.append(name)
        return len(self.out.files) - 1

    def _process(self, name: str, text: str, directory: Path, depth: int) -> None:
        text = text.replace("\r\n", "\n")         # Windows line ends
        fidx = self._file_index(name, text)
        lines = self._logical_lines(fidx, text)
        # stack of [active, some_branch_taken, else_seen, loc]
        conds: list[list] = []
        i = 0
        while i < len(lines):
            ln = lines[i]
            stripped = ln.text.lstrip()
            active = all(c[0] for c in conds)
            if stripped.startswith("#"):
                self._directive(ln, stripped, conds, active, name, directory, depth)
                self._emit(_Line("", [], ln.origin[0] if ln.origin else ln.end))
            elif active:
                joined = 0
                while True:
                    try:
                        self._emit(self._expand_line(ln))
                        break
                    except _UnterminatedCall as u:
                        # the macro's arguments continue on the next line
                        if i + 1 >= len(lines) or lines[i + 1].text.lstrip().startswith("#"):
                            raise self._err_at(u.at, f"unterminated call of macro {u.name}; "
                                                     "add the closing ')'") from None
                        i += 1
                        joined += 1
                        nxt = lines[i]
                        ln = _Line(ln.text + " " + nxt.text, ln.origin + [ln.end] + nxt.origin,
                                   nxt.end)
                for _ in range(joined):
                    self._emit(_Line("", [], ln.end))
            else:
                self._emit(_Line("", [], ln.origin[0] if ln.origin else ln.end))
            i += 1
        if conds:
            raise self._err_at(conds[-1][3], "unterminated conditional directive; add #endif")

    def _emit(self, ln: _Line) -> None:
        self._out_lines.append(ln.text)
        self.out.origins.append(ln.origin)
        self.out.ends.append(ln.end)

    def _err_at(self, origin, message: str) -> P4Error:
        f, line, col = origin
        loc = Loc(self.out.files[f], line, col)
        src = self.out.sources.get(loc.file)
        return P4Error(message, loc, src[line - 1] if src and 0 < line <= len(src) else None)

    def _logical_lines(self, fidx: int, text: str) -> list[_Line]:
        """Split into lines, removing comments and joining backslash continuations."""
        out: list[_Line] = []
        cur_text: list[str] = []
        cur_org: list[tuple] = []
        i, n = 0, len(text)
        line, col = 1, 1
        in_block = None           # origin of an open block comment
        in_string = False
        while i < n:
            ch = text[i]
            if in_block is not None:
                if ch == "*" and text.startswith("*/", i):
                    i += 2
                    col += 2
                    in_block = None
                    continue
                if ch == "\n":
                    # keep line structure: a block comment ends the current line
                    out.append(_Line("".join(cur_text), cur_org, (fidx, line, col)))
                    cur_text, cur_org = [], []
                    line, col = line + 1, 1
                else:
                    col += 1
                i += 1
                continue
            if ch == "\\" and text.startswith("\\\n", i):
                i += 2
                line, col = line + 1, 1
                continue
            if ch == "\n":
                out.append(_Line("".join(cur_text), cur_org, (fidx, line, col)))
                cur_text, cur_org = [], []
                in_string = False
                line, col = line + 1, 1
                i += 1
                continue
            if not in_string and ch == "/" and i + 1 < n and text[i + 1] in "/*":
                if text[i + 1] == "/":
                    j = text.find("\n", i)
                    j = n if j < 0 else j
                    col += j - i
                    i = j
                    continue
                in_block = (fidx, line, col)
                cur_text.append(" ")
                cur_org.append((fidx, line, col))
                i += 2
                col += 2
                continue
            if ch == '"':
                in_string = not in_string
            elif ch == "\\" and in_string and i + 1 < n:
                cur_text.append(ch)
                cur_org.append((fidx, line, col))
                i += 1
                col += 1
                ch = text[i]
            cur_text.append(ch)
            cur_org.append((fidx, line, col))
            i += 1
            col += 1
        if in_block is not None:
            raise self._err_at(in_block, "unterminated comment; add */")
        if cur_text or not out:
            out.append(_Line("".join(cur_text), cur_org, (fidx, line, col)))
        return out

    # ------------------------------------------------------------ directives
    def _directive(self, ln: _Line, stripped: str, conds, active, name, directory, depth):
        lead = len(ln.text) - len(stripped)
        m = re.match(r"#\s*([A-Za-z_]\w*)?", stripped)
        word = m.group(1) or ""
        rest_start = lead + m.end()
        rest = ln.text[rest_start:].strip()
        origin = ln.origin[lead] if ln.origin else ln.end

        if word in ("if", "ifdef", "ifndef"):
            if not active:
                conds.append([False, True, False, origin])
                return
            if word == "if":
                val = self._eval_if(ln, rest_start, origin)
            else:
                ident = _IDENT.match(rest)
                if not ident:
                    raise self._err_at(origin, f"#{word} needs a macro name")
                val = (ident.group(0) in self.macros) == (word == "ifdef")
            conds.append([val, val, False, origin])
            return
        if word in ("elif", "else", "endif"):
            if not conds:
                raise self._err_at(origin, f"#{word} without a matching #if")
            top = conds[-1]
            parent_active = all(c[0] for c in conds[:-1])
            if word == "endif":
                conds.pop()
            elif word == "else":
                if top[2]:
                    raise self._err_at(origin, "#else after #else; remove one")
                top[2] = True
                top[0] = parent_active and not top[1]
                top[1] = top[1] or top[0]
            else:
                if top[2]:
                    raise self._err_at(origin, "#elif after #else; reorder the branches")
                if parent_active and not top[1]:
                    top[0] = self._eval_if(ln, rest_start, origin)
                    top[1] = top[0]
                else:
                    top[0] = False
            return
        if not active:
            return
        if word == "define":
            self._define(ln, rest_start, origin)
        elif word == "undef":
            ident = _IDENT.match(rest)
            if not ident:
                raise self._err_at(origin, "#undef needs a macro name")
            self.macros.pop(ident.group(0), None)
        elif word == "include":
            self._include(rest, origin, name, directory, depth)
        elif word == "error":
            raise self._err_at(origin, f"#error {rest}")
        elif word == "pragma":
            if rest == "once":
                self._once.add(name)
            else:
                raise self._err_at(origin, f"unsupported: #pragma {rest}; remove it")
        elif word == "warning" or word == "line":
            return
        elif word == "":
            return                # null directive
        else:
            raise self._err_at(origin, f"unknown preprocessor directive #{word}")

    def _define(self, ln: _Line, start: int, origin) -> None:
        text = ln.text
        m = re.compile(r"\s*([A-Za-z_]\w*)").match(text, start)
        if not m:
            raise self._err_at(origin, "#define needs a macro name")
        name = m.group(1)
        pos = m.end()
        params = None
        if pos < len(text) and text[pos] == "(":
            close = text.find(")", pos)
            if close < 0:
                raise self._err_at(origin, f"missing ')' in the parameter list of macro {name}")
            raw = text[pos + 1:close].strip()
            params = tuple(p.strip() for p in raw.split(",")) if raw else ()
            for p in params:
                if not _IDENT.fullmatch(p):
                    raise self._err_at(origin, f"bad macro parameter {p!r} in #define {name}")
            pos = close + 1
        self.macros[name] = Macro(name, text[pos:].strip(), params)

    def _include(self, rest: str, origin, name: str, directory: Path, depth: int) -> None:
        m = re.match(r'"([^"]+)"|<([^>]+)>', rest)
        if not m:
            raise self._err_at(origin, '#include expects "file" or <file>')
        target = m.group(1) or m.group(2)
        # as the C preprocessor: "file" looks next to the including file first, <file> only in
        # the -I directories and the built-in ones (so include/bmv2/psa.p4's <psa.p4> is not itself)
        search = self.include_dirs + [BUILTIN_INCLUDE]
        if m.group(1):
            search = [directory] + search
        for d in search:
            cand = d / target
            if cand.is_file():
                break
        else:
            where = ", ".join(str(d) for d in search)
            raise self._err_at(origin, f"cannot find include file {target!r} (searched {where}); "
                                       "add its directory with -I")
        if depth >= _MAX_INCLUDE_DEPTH:
            raise self._err_at(origin, "#include nested too deeply "
                                       f"(> {_MAX_INCLUDE_DEPTH} levels)")
        key = str(cand)
        if key in self._once:
            return
        self._process(key, self._read(cand, origin), cand.resolve().parent, depth + 1)

    def _read(self, path: Path, origin) -> str:
        try:
            return path.read_text(encoding="utf-8-sig")      # tolerate a byte-order mark
        except OSError as e:
            message = f"cannot read {path}: {e.strerror}; check the path"
        except UnicodeDecodeError as e:
            message = f"{path} is not UTF-8 text (at byte offset {e.start}); save it as UTF-8"
        if origin is None:
            raise P4Error(message)
        raise self._err_at(origin, message)

    def _eval_if(self, ln: _Line, start: int, origin) -> bool:
        text = ln.text[start:]
        text = re.sub(r"\bdefined\s*\(\s*([A-Za-z_]\w*)\s*\)|\bdefined\s+([A-Za-z_]\w*)",
                      lambda m: "1" if (m.group(1) or m.group(2)) in self.macros else "0", text)
        sub = _Line(text, [origin] * len(text), origin)
        try:
            expanded = self._expand_line(sub).text
        except _UnterminatedCall as u:
            raise self._err_at(origin, f"unterminated call of macro {u.name} in #if") from None
        expanded = re.sub(r"\b(\d+)[uUlL]+\b", r"\1", expanded)
        try:
            return bool(cexpr.evaluate(expanded))
        except ValueError as e:
            raise self._err_at(origin, f"cannot evaluate #if expression "
                                       f"'{text.strip()}': {e}") from None

    # ------------------------------------------------------------ macro expansion
    def _expand_line(self, ln: _Line) -> _Line:
        if not self.macros or not any(m in ln.text for m in self.macros):
            return ln
        text, origin = self._expand(ln.text, ln.origin, ln.end, frozenset())
        return _Line(text, origin, ln.end)

    def _expand(self, text: str, origin: list, end, disabled: frozenset):
        out_t: list[str] = []
        out_o: list = []
        pos = 0
        n = len(text)
        for m in _TOKEN.finditer(text):
            if m.start() < pos:
                continue
            tok = m.group(0)
            macro = self.macros.get(tok)
            if macro is None or tok in disabled:
                out_t.append(tok)
                out_o.extend(origin[m.start():m.end()])
                pos = m.end()
                continue
            at = origin[m.start()] if m.start() < len(origin) else end
            if macro.params is None:
                body = _replace_params(macro.body, {}) if "##" in macro.body else macro.body
                pos = m.end()
            else:
                j = m.end()
                while j < n and text[j].isspace():
                    j += 1
                if j >= n or text[j] != "(":
                    out_t.append(tok)
                    out_o.extend(origin[m.start():m.end()])
                    pos = m.end()
                    continue
                args, pos = self._macro_args(text, j, at, macro)
                body = self._substitute(macro, args, at)
            exp_t, exp_o = self._expand(body, [at] * len(body), at, disabled | {tok})
            out_t.append(exp_t)
            out_o.extend(exp_o)
        return "".join(out_t), out_o

    def _macro_args(self, text: str, start: int, at, macro: Macro):
        depth, args, cur = 0, [], []
        i = start + 1
        while i < len(text):
            ch = text[i]
            if ch == "(":
                depth += 1
            elif ch == ")":
                if depth == 0:
                    args.append("".join(cur).strip())
                    if macro.params == () and args == [""]:
                        args = []
                    return args, i + 1
                depth -= 1
            elif ch == "," and depth == 0:
                args.append("".join(cur).strip())
                cur = []
                i += 1
                continue
            cur.append(ch)
            i += 1
        raise _UnterminatedCall(macro.name, at)

    def _substitute(self, macro: Macro, args: list, at) -> str:
        if len(args) != len(macro.params):
            raise self._err_at(at, f"macro {macro.name} takes {len(macro.params)} arguments, "
                                   f"{len(args)} given")
        return _replace_params(macro.body, dict(zip(macro.params, args)))


def _replace_params(body: str, values: dict) -> str:
    """Substitute macro parameters in body, with C's ``#param`` (make a string literal)
    and ``a ## b`` (paste two tokens into one)."""
    toks = _TOKEN.findall(body)
    out: list[str] = []
    i, n = 0, len(toks)

    def next_token(k):
        while k < n and toks[k].isspace():
            k += 1
        return k

    while i < n:
        t = toks[i]
        if t == "#" and i + 1 < n and toks[i + 1] == "#":
            while out and out[-1].isspace():
                out.pop()
            j = next_token(i + 2)
            if j < n:
                out.append(values.get(toks[j], toks[j]))
            i = j + 1
            continue
        if t == "#":
            j = next_token(i + 1)
            if j < n and toks[j] in values:
                text = values[toks[j]].replace("\\", "\\\\").replace('"', '\\"')
                out.append(f'"{text}"')
                i = j + 1
                continue
        out.append(values.get(t, t))
        i += 1
    return "".join(out)


def parse_defines(texts) -> dict:
    """``-D`` arguments (``NAME`` or ``NAME=VALUE``) -> {name: value}; ``NAME`` alone is 1."""
    out = {}
    for d in texts:
        name, _, value = d.partition("=")
        out[name] = value or "1"
    return out


def preprocess_file(path, include_dirs=(), defines=None) -> Preprocessed:
    return Preprocessor(include_dirs, defines).run_file(path)


def preprocess_text(text: str, filename="<source>", include_dirs=(), defines=None) -> Preprocessed:
    return Preprocessor(include_dirs, defines).run_text(text, filename)
