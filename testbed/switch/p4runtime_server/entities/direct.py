"""Direct counters and direct meters: the resources a table holds per entry, read (and
for meters configured) through the entry they belong to."""
from __future__ import annotations

from p4.v1 import p4runtime_pb2

from testbed.p4 import entries as E
from testbed.p4runtime import convert as C
from testbed.switch.p4runtime_server.entities.base import Handler, find_entry, modify_only


def _direct_entries(pipeline, target, te: p4runtime_pb2.TableEntry, resource: str):
    """The entries a DirectCounterEntry or DirectMeterEntry read selects: those of the
    tables with that ``resource`` ("direct_counter" or "direct_meter"), each with its
    table entry as reads show it, without direct resource fields."""
    index = pipeline.index
    tables = [index.table(te.table_id)] if te.table_id else list(index.tables.values())
    probe = C.table_entry_from_p4rt(index, te) if te.table_id and te.match else None
    for t in tables:
        if getattr(t, resource) is None:
            continue
        for e in target.table_entries(t.name):
            if probe is None or C.same_match(e, probe, index):
                shown = C.table_entry_to_p4rt(index, e)
                for name in ("counter_data", "meter_config"):
                    shown.ClearField(name)
                yield e, shown


class DirectCounters(Handler):
    kind = "direct_counter_entry"

    def write(self, pipeline, target, utype: int, msg):
        C.fail("UNIMPLEMENTED", "the software target cannot set direct counters; read them "
                                "(they count from 0 when the entry is inserted)")

    def read(self, pipeline, target, msg):
        for e, shown in _direct_entries(pipeline, target, msg.table_entry, "direct_counter"):
            out = p4runtime_pb2.DirectCounterEntry(table_entry=shown)
            out.data.packet_count = e.counter_packets
            out.data.byte_count = e.counter_bytes
            yield out


class DirectMeters(Handler):
    kind = "direct_meter_entry"

    def write(self, pipeline, target, utype: int, msg):
        modify_only(utype, "direct meter")
        index = pipeline.index
        table = index.table(msg.table_entry.table_id)
        if table.direct_meter is None:
            C.fail("INVALID_ARGUMENT", f"table {table.name} has no direct meter")
        old = find_entry(index, target, C.table_entry_from_p4rt(index, msg.table_entry))
        config = C.meter_config_from_p4rt(msg.config, f"table {table.name}")
        new = E.TableEntry(old.table, old.match, old.action, old.priority,
                           old.counter_packets, old.counter_bytes, meter_config=config)
        target.table_modify(new)
        return lambda: target.table_modify(old)

    def read(self, pipeline, target, msg):
        for e, shown in _direct_entries(pipeline, target, msg.table_entry, "direct_meter"):
            out = p4runtime_pb2.DirectMeterEntry(table_entry=shown)
            if e.meter_config is not None:
                cir, cburst, pir, pburst = e.meter_config
                out.config.CopyFrom(p4runtime_pb2.MeterConfig(cir=cir, cburst=cburst, pir=pir,
                                                              pburst=pburst))
            yield out
