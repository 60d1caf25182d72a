"""Indexed meters: the two-rate configuration of each index, set on the target and kept
here for reads (the target holds buckets, not the configuration as written)."""
from __future__ import annotations

from p4.v1 import p4runtime_pb2

from testbed.p4runtime import convert as C
from testbed.switch.p4runtime_server.entities.base import Handler, indices, modify_only, selected


class Meters(Handler):
    kind = "meter_entry"

    def write(self, pipeline, target, utype: int, msg):
        modify_only(utype, "meter")
        meter = pipeline.index.lookup("meters", msg.meter_id)
        name = meter.preamble.name
        chosen = indices(meter, msg, "meter")
        c = msg.config
        C.meter_config_from_p4rt(c, f"meter {name}")
        old = {i: pipeline.meters.get((name, i)) for i in chosen}
        for i in chosen:
            target.meter_set(name, i, c.cir, c.cburst, c.pir, c.pburst)
            pipeline.meters[(name, i)] = p4runtime_pb2.MeterConfig(
                cir=c.cir, cburst=c.cburst, pir=c.pir, pburst=c.pburst)

        def undo():
            for i, cfg in old.items():
                cfg = cfg or p4runtime_pb2.MeterConfig()
                target.meter_set(name, i, cfg.cir, cfg.cburst, cfg.pir, cfg.pburst)
                if cfg.ByteSize():
                    pipeline.meters[(name, i)] = cfg
                else:
                    pipeline.meters.pop((name, i), None)
        return undo

    def read(self, pipeline, target, msg):
        for m in selected(pipeline.index, "meters", msg.meter_id):
            for i in indices(m, msg, "meter"):
                out = p4runtime_pb2.MeterEntry(meter_id=m.preamble.id)
                out.index.index = i
                cfg = pipeline.meters.get((m.preamble.name, i))
                if cfg is not None:
                    out.config.CopyFrom(cfg)
                yield out
