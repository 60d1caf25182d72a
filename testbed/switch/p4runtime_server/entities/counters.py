"""Indexed counters: packets and bytes per index, read and (re)set by the controller."""
from __future__ import annotations

from p4.v1 import p4runtime_pb2

from testbed.p4runtime import convert as C
from testbed.switch.p4runtime_server.entities.base import Handler, indices, modify_only, selected


class Counters(Handler):
    kind = "counter_entry"

    def write(self, pipeline, target, utype: int, msg):
        modify_only(utype, "counter")
        counter = pipeline.index.lookup("counters", msg.counter_id)
        name = counter.preamble.name
        chosen = indices(counter, msg, "counter")
        counts = C.counts_from_p4rt(msg.data, f"counter {name}")
        old = {i: target.counter_read(name, i) for i in chosen}
        for i in chosen:
            target.counter_write(name, i, *counts)
        return lambda: [target.counter_write(name, i, *v) for i, v in old.items()]

    def read(self, pipeline, target, msg):
        for c in selected(pipeline.index, "counters", msg.counter_id):
            for i in indices(c, msg, "counter"):
                packets, nbytes = target.counter_read(c.preamble.name, i)
                out = p4runtime_pb2.CounterEntry(counter_id=c.preamble.id)
                out.index.index = i
                out.data.packet_count, out.data.byte_count = packets, nbytes
                yield out
