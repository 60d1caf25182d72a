"""Registers: one bitstring per index, of the register's width."""
from __future__ import annotations

from p4.v1 import p4runtime_pb2

from testbed.p4runtime import convert as C
from testbed.switch.p4runtime_server.entities.base import (Handler, index_in, indices, modify_only,
                                                    selected)


class Registers(Handler):
    kind = "register_entry"

    def write(self, pipeline, target, utype: int, msg):
        modify_only(utype, "register")
        reg = pipeline.index.lookup("registers", msg.register_id)
        if not msg.HasField("index"):
            C.fail("INVALID_ARGUMENT", f"register {reg.preamble.name}: give an index to write")
        i = index_in(reg, msg.index, "register")
        if msg.data.WhichOneof("data") != "bitstring":
            C.fail("INVALID_ARGUMENT", f"register {reg.preamble.name}: data must be a bitstring")
        width = pipeline.index.register_width(reg)
        value = C.decode(msg.data.bitstring, width, f"register {reg.preamble.name}[{i}]")
        name = reg.preamble.name
        old = target.register_read(name, i)
        target.register_write(name, i, value)
        return lambda: target.register_write(name, i, old)

    def read(self, pipeline, target, msg):
        for r in selected(pipeline.index, "registers", msg.register_id):
            for i in indices(r, msg, "register"):
                out = p4runtime_pb2.RegisterEntry(register_id=r.preamble.id)
                out.index.index = i
                out.data.bitstring = C.encode(target.register_read(r.preamble.name, i))
                yield out
