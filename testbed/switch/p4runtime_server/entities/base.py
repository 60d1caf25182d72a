"""What every entity kind's handler is, and the checks several of them share.

A handler serves one kind of P4Runtime entity (the name of its field in ``p4.v1.Entity``)
on the software target: ``write`` validates one update and applies it, returning what
undoes it (a batch that rolls back calls these in reverse); ``read`` yields the entities
a read of that kind selects, which ``read_into`` puts into the response (a kind with many
entities fills them in place instead). The caller holds the target's lock around both.
"""
from __future__ import annotations

from typing import Callable, Iterable

from p4.v1 import p4runtime_pb2

from testbed.p4runtime import convert as C

U = p4runtime_pb2.Update
Undo = Callable[[], None]


class Handler:
    kind = ""

    def write(self, pipeline, target, utype: int, msg) -> Undo:
        C.fail("UNIMPLEMENTED", f"writing {self.kind} is not supported by the software "
                                "target")

    def read(self, pipeline, target, msg) -> Iterable:
        return ()

    def read_into(self, pipeline, target, msg, add: Callable) -> None:
        """Put what a read of ``msg`` selects into the response: ``add(size)`` gives the
        next fresh ``p4.v1.Entity`` for an entity of at most ``size`` encoded bytes;
        ``add.serialized(field, data)`` adds an Entity whose field ``field`` holds the
        serialised message ``data``.
        Kinds with many entities override this to fill the entities in place."""
        for item in self.read(pipeline, target, msg):
            getattr(add(item.ByteSize()), self.kind).CopyFrom(item)


def index_in(obj, index_msg, what: str) -> int:
    """The index an entry names, within its array of ``obj.size``."""
    i = index_msg.index
    if i < 0:
        C.fail("INVALID_ARGUMENT", f"{what} {obj.preamble.name}: index {i} is negative; "
                                   f"give 0..{obj.size - 1}")
    if i >= obj.size:
        C.fail("OUT_OF_RANGE", f"{what} {obj.preamble.name}: index {i} is outside "
                               f"0..{obj.size - 1}")
    return i


def indices(obj, msg, what: str):
    """The one index the entry names, or every index of the array when it names none."""
    return [index_in(obj, msg.index, what)] if msg.HasField("index") else range(obj.size)


def selected(index: C.P4InfoIndex, kind: str, obj_id: int) -> list:
    """The P4Info objects of ``kind`` a read names: the one of ``obj_id``, or all (0)."""
    return [index.lookup(kind, obj_id)] if obj_id else list(getattr(index, kind).values())


def modify_only(utype: int, what: str) -> None:
    if utype != U.MODIFY:
        C.fail("INVALID_ARGUMENT", f"{what} entries exist for every index; use MODIFY")


def find_entry(index: C.P4InfoIndex, target, entry):
    """The installed entry with ``entry``'s match and priority."""
    for e in target.table_entries(entry.table):
        if C.same_match(e, entry, index):
            return e
    C.fail("NOT_FOUND", f"table {entry.table}: no entry with this match and priority")
