"""Runs of same-shape statements rolled into C loops the compiler can vectorize.

A P4 program has no loops over registers or header fields, so per-lane work is written
out lane by lane (INA's ``lane_v00.read(acc, meta.idx); acc = acc + hdr.g00.w00; ...``,
a register and a field per lane). The generated C of such a run differs from one group
of statements to the next only in the column of a register row and in a field of a run
of consecutive fields of one C type, which the header's C struct also exposes as an
array (:func:`field_runs`). :func:`roll` finds groups of statements whose C is exactly
the first group's with those integers stepping by a constant and those fields stepping
through such an array, checks every group against that (the C of each is compared as
text, so nothing the generator did differently for one lane is ever folded in), and
writes them as one ``for`` loop over the group's C with the integers and fields
indexed by the loop variable.
"""
from __future__ import annotations

import re

MIN_RUN = 4              # fields of one type in a row that get an array; groups rolled
MAX_PERIOD = 8           # statements per group
LOOP = "_lane"           # the loop variable
TOKEN = re.compile(r"0[xX][0-9a-fA-F]+|\d+|[A-Za-z_]\w*|\s+|.")


def field_runs(fields: list) -> list:
    """Runs of at least MIN_RUN consecutive fields of one C scalar type: (first index,
    count) in ``fields``, a list of (C type or None, name)."""
    runs, i = [], 0
    while i < len(fields):
        j = i
        while j + 1 < len(fields) and fields[i][0] and fields[j + 1][0] == fields[i][0]:
            j += 1
        if j - i + 1 >= MIN_RUN:
            runs.append((i, j - i + 1))
        i = j + 1
    return runs


def _tokens(text: str) -> list:
    return TOKEN.findall(text)


def _addend(tokens: list, k: int) -> bool:
    """Whether the integer at ``tokens[k]`` may become ``k + step * i``: a whole
    subscript (``[5]``) or the last term of a sum (``p + 5,``). Elsewhere (a case label,
    a macro's argument, a factor) a constant may not become an expression."""
    before = next((t for t in reversed(tokens[:k]) if not t.isspace()), "")
    after = next((t for t in tokens[k + 1:] if not t.isspace()), "")
    return (before, after) == ("[", "]") or before == "+" and after in (")", "]", ",", ";")


class Roller:
    """Rolls the C of a statement sequence; ``arrays`` maps a C field name (``f_w00``)
    to its (array, position), for fields that are in an array-backed run in every C
    struct that has a field of that name."""

    def __init__(self, arrays: dict):
        self.arrays = arrays

    def template(self, first: list, second: list):
        """The varying tokens between two groups' token lists: {position: (kind,
        start, step)}, or None when they differ otherwise."""
        if len(first) != len(second):
            return None
        varying = {}
        for k, (a, b) in enumerate(zip(first, second)):
            if a == b:
                continue
            prev = first[k - 1] if k else ""
            if a.isdigit() and b.isdigit():
                if not _addend(first, k):
                    return None
                varying[k] = ("int", int(a), int(b) - int(a))
                continue
            fa, fb = self.arrays.get(a), self.arrays.get(b)
            if prev not in (".", ">") or not fa or not fb or fa[0] != fb[0] \
                    or fb[1] != fa[1] + 1:
                return None
            varying[k] = ("field", fa[0], fa[1])
        return varying or None

    def instance(self, first: list, varying: dict, j: int) -> str:
        out = list(first)
        for k, (kind, start, step) in varying.items():
            if kind == "int":
                out[k] = str(start + step * j)
            else:
                out[k] = self.names.get((start, step + j), "\0")
        return "".join(out)

    def loop_body(self, first: list, varying: dict) -> str:
        out = list(first)
        for k, (kind, start, step) in varying.items():
            if kind == "int":
                out[k] = f"{start} + {step} * {LOOP}" if step else str(start)
            else:
                out[k] = f"{start}[{step} + {LOOP}]"
        return "".join(out)

    def roll(self, chunks: list) -> list:
        """``chunks``: the C lines of each statement in order. Returns a list of
        (first statement, statements, lines): a loop over a run, or a statement as
        it was."""
        self.names = {v: k for k, v in self.arrays.items()}
        texts = ["\n".join(c) for c in chunks]
        out, i, n = [], 0, len(chunks)
        while i < n:
            best = None
            for period in range(1, MAX_PERIOD + 1):
                run = self.run_at(texts, i, period)
                if run and (best is None or run[0] * period > best[0] * best[1]):
                    best = (run[0], period, run[1])
            if best is None:
                out.append((i, 1, chunks[i]))
                i += 1
                continue
            count, period, body = best
            lines = [f"for (uint32_t {LOOP} = 0; {LOOP} < {count}; {LOOP}++) {{"]
            lines += ["    " + x for x in body.split("\n")] + ["}"]
            out.append((i, count * period, lines))
            i += count * period
        return out

    def run_at(self, texts: list, i: int, period: int):
        """(groups, loop body) of the longest run of at least MIN_RUN groups of
        ``period`` statements from statement ``i``, or None."""
        if i + 2 * period > len(texts):
            return None
        group = ["\n".join(texts[i + g * period:i + (g + 1) * period]) for g in range(2)]
        first = _tokens(group[0])
        if LOOP in first:
            return None
        varying = self.template(first, _tokens(group[1]))
        if varying is None:
            return None
        count = 2
        while i + (count + 1) * period <= len(texts):
            text = "\n".join(texts[i + count * period:i + (count + 1) * period])
            if self.instance(first, varying, count) != text:
                break
            count += 1
        if count < MIN_RUN:
            return None
        return count, self.loop_body(first, varying)
