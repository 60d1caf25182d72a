"""P4_16 parser: preprocessed text -> syntax tree (lark ``Tree`` nodes named by grammar rule).

The grammar (``p4_16.lark``) is LALR(1). P4 needs lexer feedback to be LALR: whether an
identifier names a type, and whether ``<`` opens a type-argument list. ``TokenRewriter``
supplies both by looking at the whole token stream before the parser sees it.
"""
from __future__ import annotations

from functools import lru_cache
from pathlib import Path

from lark import Lark, Token, Tree
from lark.exceptions import UnexpectedCharacters, UnexpectedEOF, UnexpectedInput, UnexpectedToken

from testbed.p4.frontend.p4types import unknown_type
from testbed.p4.frontend.preprocess import Preprocessed

GRAMMAR = Path(__file__).resolve().parent / "p4_16.lark"

_TYPE_DECL_WORDS = {"header", "header_union", "struct", "parser", "control", "package"}
_TYPE_KEYWORDS = {"bit", "int", "varbit", "tuple", "value_set", "bool", "error", "string",
                  "void", "match_kind"}
_WIDTH_TYPES = {"bit", "int", "varbit"}
_GENERIC_OPENERS = {"bit", "int", "varbit", "tuple", "value_set"}


class AnnotationBody(Token):
    """An annotation's parenthesized body; ``items`` holds its tokens."""
    items: list


def _tok(type_: str, value: str, like: Token, col_shift: int = 0) -> Token:
    t = Token.new_borrow_pos(type_, value, like)
    if col_shift:
        t.column += col_shift
        t.start_pos = (t.start_pos or 0) + col_shift
    return t


class TokenRewriter:
    """Rewrites the token stream as the grammar header describes."""

    always_accept = ()

    tokens: list = []     # the last rewritten stream, for syntax-error messages

    def process(self, stream):
        toks = self._collapse_annotations(list(stream))
        types, scoped = self._collect_type_names(toks)
        self.tokens = self._rewrite(toks, types, scoped)
        return iter(self.tokens)

    def previous(self, tok, back: int = 1):
        """The token ``back`` positions before ``tok`` in the last stream, or None."""
        for i, t in enumerate(self.tokens):
            if t.start_pos == tok.start_pos and t.type == tok.type:
                return self.tokens[i - back] if i >= back else None
        return None

    # -------------------------------------------------------------- annotations
    @staticmethod
    def _collapse_annotations(toks: list) -> list:
        out = []
        i, n = 0, len(toks)
        while i < n:
            t = toks[i]
            out.append(t)
            if t == "@" and t.type != "STRING" and i + 1 < n:
                out.append(_tok("NAME", str(toks[i + 1]), toks[i + 1]))
                i += 2
                if i < n and toks[i] == "(" and toks[i].type != "STRING":
                    depth, j = 0, i
                    while j < n:
                        if toks[j].type != "STRING":
                            if toks[j] == "(":
                                depth += 1
                            elif toks[j] == ")":
                                depth -= 1
                                if depth == 0:
                                    break
                        j += 1
                    body = AnnotationBody.new_borrow_pos(
                        "ANNO_BODY", " ".join(str(x) for x in toks[i + 1:j]), toks[i])
                    body.items = toks[i + 1:j]
                    out.append(body)
                    i = j + 1
                continue
            i += 1
        return out

    # -------------------------------------------------------------- type names
    @staticmethod
    def _extent(toks: list, at: int) -> tuple:
        """Token range of the declaration containing toks[at]: from after the previous
        ';', '{' or '}' to its ';' or the '}' closing its body."""
        start = at
        while start > 0 and toks[start - 1] not in (";", "{", "}"):
            start -= 1
        depth, j, n = 0, at, len(toks)
        while j < n:
            v = toks[j]
            if toks[j].type != "STRING":
                if v in ("(", "{", "["):
                    depth += 1
                elif v in (")", "]"):
                    depth -= 1
                elif v == "}":
                    depth -= 1
                    if depth <= 0:
                        break
                elif v == ";" and depth == 0:
                    break
            j += 1
        return start, j

    @classmethod
    def _collect_type_names(cls, toks: list) -> tuple:
        """Names declared as types (global) and generic type parameters with the token
        ranges of the declarations they belong to."""
        types: set[str] = set()
        scoped: dict = {}
        n = len(toks)

        def is_name(k):
            return 0 <= k < n and toks[k].type == "NAME"

        for i, t in enumerate(toks):
            if t.type in ("NAME", "STRING", "INTEGER", "ANNO_BODY"):
                if t.type == "NAME" and i + 1 < n and toks[i + 1].type == "LT":
                    # NAME < A, B, ... > ( or {   : generic parameters (or type arguments)
                    j, params = i + 2, []
                    while is_name(j) or (j < n and toks[j].type == "TYPE_NAME"):
                        params.append(str(toks[j]))
                        if j + 1 < n and toks[j + 1] == ",":
                            j += 2
                            continue
                        j += 1
                        break
                    if (params and j + 1 < n and toks[j] == ">" and toks[j].type == "GT"
                            and toks[j + 1] in ("(", "{")):
                        extent = cls._extent(toks, i)
                        for p in params:
                            scoped.setdefault(p, []).append(extent)
                continue
            prev = toks[i - 1] if i > 0 else None
            if prev is not None and prev == "." and prev.type != "STRING":
                continue
            if t in _TYPE_DECL_WORDS and is_name(i + 1):
                types.add(str(toks[i + 1]))
            elif t == "extern" and is_name(i + 1) and i + 2 < n and toks[i + 2] in ("{", "<"):
                types.add(str(toks[i + 1]))
            elif t == "enum":
                j = i + 1
                while j < n and toks[j] not in ("{", ";"):
                    j += 1
                if is_name(j - 1) and j < n and toks[j] == "{":
                    types.add(str(toks[j - 1]))
            elif t in ("typedef", "type") and (prev is None or prev in (";", "}")
                                               or prev.type in ("ANNO_BODY", "NAME")):
                if t == "type" and prev is not None and prev.type == "NAME" and (
                        i < 2 or toks[i - 2] != "@"):
                    continue
                j = i + 1
                while j < n and toks[j] != ";":
                    j += 1
                if is_name(j - 1):
                    types.add(str(toks[j - 1]))
        return types, scoped

    # -------------------------------------------------------------- rewriting
    def _rewrite(self, toks: list, types: set, scoped: dict) -> list:
        toks = list(toks)
        n = len(toks)
        for i, t in enumerate(toks):
            if t.type == "NAME" and (str(t) in types or any(
                    a <= i <= b for a, b in scoped.get(str(t), ()))):
                prev = toks[i - 1] if i > 0 else None
                if prev is not None and prev.type != "STRING" and prev in (".", "@"):
                    if prev == "@" or (i > 1 and self._ends_value(toks[i - 2])):
                        continue
                toks[i] = _tok("TYPE_NAME", str(t), t)
        out: list = []
        i = 0
        pending_close: dict = {}    # index of a closing token -> list of replacement tokens
        while i < n:
            t = toks[i]
            if i in pending_close:
                out.extend(pending_close.pop(i))
                i += 1
                continue
            if t.type == "LT" and out:
                match = self._match_type_args(toks, i, out[-1])
                if match is not None:
                    closes, opens = match
                    out.append(_tok("TLT", "<", t))
                    pending_close.update(closes)
                    for j in opens:
                        pending_close[j] = [_tok("TLT", "<", toks[j])]
                    i += 1
                    continue
            out.append(t)
            i += 1
        return out

    @staticmethod
    def _ends_value(t: Token) -> bool:
        """True when ``t`` can end an expression (so a following '.' is member access)."""
        return t.type in ("NAME", "TYPE_NAME", "INTEGER") or t in (")", "]") or t.type in (
            "APPLY", "KEY", "ACTIONS", "STATE", "ENTRIES", "TYPE", "PRIORITY", "ERROR")

    @staticmethod
    def _typeish(t: Token) -> bool:
        return t.type == "TYPE_NAME" or (t.type != "STRING" and str(t) in _GENERIC_OPENERS)

    def _match_type_args(self, toks: list, start: int, before: Token):
        """If toks[start] ('<') opens type arguments, return the replacement tokens of the
        closing '>'s ({index: [tokens]}) and the indices of nested opening '<'s."""
        strict = not self._typeish(before)
        if strict and before.type not in ("NAME",):
            return None
        n = len(toks)
        if strict:
            first = toks[start + 1] if start + 1 < n else None
            if first is None or not (first.type == "TYPE_NAME" or str(first) in _TYPE_KEYWORDS):
                return None
        depth, paren = 1, 0
        stack_openers = [str(before)]
        repl: dict = {}
        opens = []
        j = start + 1
        while j < n:
            t = toks[j]
            v = str(t)
            if t.type == "STRING" or v in (";", "{", "}", "="):
                return None
            if v == "(":
                paren += 1
            elif v == ")":
                paren -= 1
                if paren < 0:
                    return None
            elif paren > 0:
                pass
            elif t.type == "LT":
                if not self._typeish(toks[j - 1]):
                    return None
                opens.append(j)
                stack_openers.append(str(toks[j - 1]))
                depth += 1
            elif t.type == "GT":
                repl[j] = [_tok("TGT", ">", t)]
                depth -= 1
                stack_openers.pop()
                if depth == 0:
                    break
            elif t.type == "SHR":
                if depth >= 2:
                    repl[j] = [_tok("TGT", ">", t), _tok("TGT", ">", t, 1)]
                    depth -= 2
                    stack_openers.pop()
                    stack_openers.pop()
                else:
                    repl[j] = [_tok("TGT", ">", t), _tok("GT", ">", t, 1)]
                    depth -= 1
                if depth == 0:
                    break
            elif strict and not (t.type in ("TYPE_NAME", "INTEGER") or v in _TYPE_KEYWORDS
                                 or v in (",", "_")
                                 or (t.type == "NAME" and stack_openers[-1] in _WIDTH_TYPES)):
                return None
            j += 1
        else:
            return None
        if strict and not (j + 1 < n and toks[j + 1] == "("):
            return None
        return repl, opens


@lru_cache(maxsize=1)
def _lark() -> Lark:
    return Lark(GRAMMAR.read_text(), parser="lalr", lexer="basic", postlex=TokenRewriter(),
                propagate_positions=True, maybe_placeholders=True, start="start",
                cache=True)


def _describe(token) -> str:
    if token is None or token.type == "$END":
        return "end of input"
    return repr(str(token))


_FIRST = ["';'", "')'", "'}'", "']'", "','", "':'", "'='", "'{'", "'('"]


def _expected(expected) -> str:
    parser = _lark()
    names = []
    for name in sorted(expected):
        if name in ("TYPE_NAME", "TLT", "TGT", "ANNO_BODY"):
            names.append({"TYPE_NAME": "a type name", "TLT": "'<'", "TGT": "'>'",
                          "ANNO_BODY": "'('"}[name])
            continue
        try:
            term = parser.get_terminal(name)
        except KeyError:
            continue
        pattern = term.pattern
        if pattern.type == "str":
            names.append(repr(pattern.value))
        elif name == "NAME":
            names.append("an identifier")
        elif name == "INTEGER":
            names.append("an integer")
        elif name == "STRING":
            names.append("a string")
    names = sorted(set(names), key=lambda n: (_FIRST.index(n) if n in _FIRST else len(_FIRST), n))
    if not names:
        return ""
    if len(names) > 8:
        names = names[:8] + ["..."]
    return "; expected " + ", ".join(names)


def _unknown_type(tok, expected):
    """An undeclared identifier where a type must be (``undefined_t x;``) is a syntax
    error to the grammar; name the identifier instead."""
    if tok.type != "NAME":
        return None
    if "TYPE_NAME" in expected and "NAME" not in expected:
        return tok
    rewriter = _lark().options.postlex
    prev = rewriter.previous(tok)
    before = rewriter.previous(tok, 2)
    starts = (";", "{", "}", "(", ",", "in", "out", "inout", "const", "typedef", "type")
    if prev is not None and prev.type == "NAME" and (
            before is None or before.type == "ANNO_BODY" or (before.type != "STRING"
                                                               and str(before) in starts)):
        return prev
    return None


def parse(pre: Preprocessed) -> Tree:
    """Parse preprocessed text; raise P4Error at the original location on a syntax error."""
    try:
        return _lark().parse(pre.text)
    except UnexpectedToken as e:
        tok = e.token
        if tok.type == "$END":
            raise pre.error("syntax error: unexpected end of input" + _expected(e.expected),
                            max(len(pre.origins), 1), 10 ** 6) from None
        unknown = _unknown_type(tok, e.expected)
        if unknown is not None:
            raise pre.error(unknown_type(str(unknown)), unknown.line, unknown.column) from None
        raise pre.error(f"syntax error: unexpected {_describe(tok)}" + _expected(e.expected),
                        tok.line, tok.column) from None
    except UnexpectedCharacters as e:
        ch = pre.text[e.pos_in_stream] if e.pos_in_stream < len(pre.text) else "?"
        raise pre.error(f"syntax error: unexpected character {ch!r}", e.line, e.column) from None
    except UnexpectedEOF as e:
        raise pre.error("syntax error: unexpected end of input" + _expected(e.expected),
                        max(len(pre.origins), 1), 10 ** 6) from None
    except UnexpectedInput as e:
        raise pre.error("syntax error", getattr(e, "line", 1), getattr(e, "column", 1)) from None
