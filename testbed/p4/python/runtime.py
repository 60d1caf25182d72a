"""Support objects the generated pipeline code calls at run time."""
from __future__ import annotations

from operator import attrgetter

from testbed.p4 import entries as E


class ParserError(Exception):
    """Ends parsing; ``code`` is the index of the error in ``Program.errors``."""

    def __init__(self, code: int):
        self.code = code


class ExitControl(Exception):
    """The P4 ``exit`` statement: ends the current control block."""


class AssertFailed(Exception):
    """A failed ``assert``/``assume``: the packet is dropped."""


class PacketState:
    """Per-packet state of the v1model primitives that BMv2 keeps in hidden metadata.

    Defaults are class attributes so that a packet which uses none of them costs two
    assignments; the generated code sets instance attributes when a primitive runs.
    """

    clone_type = 0            # 0: none, 1: I2E, 2: E2E
    clone_session = 0
    clone_fl = None           # field-list index preserved in the clone, or None
    resubmit_fl = None        # None: not flagged; else the field-list index to preserve
    recirc_fl = None
    trunc = 0                 # truncate output to this many bytes; 0: no truncation
    digests = ()              # ((type name, values), ...)
    colors = None             # direct meter name -> colour of this packet's table hit
    checksum_error = 0        # set by verify_checksum, copied to standard_metadata

    def __init__(self, plen: int, payload: bytes = b""):
        self.plen = plen
        self.payload = payload

    def add_digest(self, name: str, values: tuple) -> None:
        self.digests = self.digests + ((name, values),)

    def set_color(self, meter: str, color: int) -> None:
        if self.colors is None:
            self.colors = {}
        self.colors[meter] = color

    def color(self, meter: str) -> int:
        return self.colors.get(meter, 0) if self.colors else 0


class Stack:
    """A header stack: ``h`` holds ``size`` elements, ``nextIndex`` as in P4_16."""

    __slots__ = ("h", "size", "nextIndex", "factory")

    def __init__(self, factory, size: int):
        self.factory = factory
        self.size = size
        self.h = [factory() for _ in range(size)]
        self.nextIndex = 0

    def _copy(self) -> "Stack":
        n = Stack.__new__(Stack)
        n.factory, n.size, n.nextIndex = self.factory, self.size, self.nextIndex
        n.h = [e._copy() for e in self.h]
        return n

    def _set(self, other: "Stack") -> None:
        for mine, theirs in zip(self.h, other.h):
            mine._set(theirs)
        self.nextIndex = other.nextIndex

    def push_front(self, count: int) -> None:
        count = min(count, self.size)
        self.h = [self.factory() for _ in range(count)] + self.h[:self.size - count]
        self.nextIndex = min(self.nextIndex + count, self.size)

    def pop_front(self, count: int) -> None:
        count = min(count, self.size)
        self.h = self.h[count:] + [self.factory() for _ in range(count)]
        self.nextIndex = max(self.nextIndex - count, 0)


def bits_at(data: bytes, offset: int, width: int) -> int:
    """``width`` bits of ``data`` starting at bit ``offset`` (most significant first)."""
    first = offset >> 3
    last = (offset + width + 7) >> 3
    chunk = int.from_bytes(data[first:last], "big")
    return (chunk >> ((last << 3) - offset - width)) & ((1 << width) - 1)


def union_set_valid(union, member: str) -> None:
    """``u.member.setValid()``: the member becomes valid (zeroed if it was not), the
    other members invalid."""
    for name in union.__slots__:
        if name == member:
            getattr(union, name)._setvalid()
        else:
            getattr(union, name)._v = False


class Locals:
    """Control-level local variables of one control invocation."""


def make(cls, is_header, values):
    obj = cls()
    for name, v in zip(cls.__slots__, values):
        if hasattr(v, "_copy"):
            getattr(obj, name)._set(v)
        else:
            setattr(obj, name, v)
    if is_header:
        obj._v = True
    return obj


def equal(a, b) -> bool:
    """P4 ``==`` of headers, structs, unions and stacks: two headers are equal when both
    are invalid, or both valid with equal fields (a varbit field's width counts); stacks
    element by element (not their nextIndex)."""
    if isinstance(a, Stack):
        return all(equal(x, y) for x, y in zip(a.h, b.h))
    valid = getattr(a, "_v", True)
    if valid != getattr(b, "_v", True):
        return False
    if not valid:
        return True
    for name in a.__slots__:
        x, y = getattr(a, name), getattr(b, name)
        if hasattr(x, "_copy"):
            if not equal(x, y):
                return False
        elif x != y:
            return False
    return True


def div(a: int, b: int) -> int:
    """P4 leaves x / 0 undefined; the target yields 0 rather than stopping the switch."""
    return a // b if b else 0


def mod(a: int, b: int) -> int:
    return a % b if b else 0


def stack_at(stack, i, code):
    if not 0 <= i < stack.size:
        raise ParserError(code)
    return stack.h[i]


def stack_last(stack, code):
    return stack_at(stack, stack.nextIndex - 1, code)


def stack_next(stack, code):
    return stack_at(stack, stack.nextIndex, code)


def lookahead(data, offset, width, code):
    if offset + width > len(data) * 8:
        raise ParserError(code)
    return bits_at(data, offset, width)


def unpack(cls, value, layout):
    obj = cls()
    shift = sum(w for _, w, _ in layout)
    for name, w, kind in layout:
        shift -= w
        v = (value >> shift) & ((1 << w) - 1)
        if kind == "i" and v >> (w - 1):
            v -= 1 << w
        owner, _, attr = name.rpartition(".")      # "p.hi": a field of a struct field
        setattr(attrgetter(owner)(obj) if owner else obj, attr, bool(v) if kind == "b" else v)
    obj._v = True
    return obj


def value_set_match(matches, key: tuple) -> bool:
    for entry in matches:
        for m, k in zip(entry, key):
            if m is None:
                continue
            if isinstance(m, E.Ternary):
                if k & m.mask != m.value:
                    break
            elif isinstance(m, E.Range):
                if not m.low <= k <= m.high:
                    break
            elif isinstance(m, E.Lpm):
                continue
            elif k != m.value:
                break
        else:
            return True
    return False
