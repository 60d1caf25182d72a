"""The controllers' P4Runtime client through a controller's whole flow against the
server: connect, set the pipeline, insert, read, modify, delete, counters, registers,
then delete_all, after which wildcard reads of every entity type find only what the
program always holds."""
from collections import Counter
from pathlib import Path

from p4.v1 import p4runtime_pb2 as pb

from controllers.p4runtime_client import P4RuntimeClient
from p4rt_device import PipelineDevice
from testbed.p4 import entries as E
from testbed.p4 import p4info
from testbed.p4.lowering.program import load_program
from testbed.switch.p4runtime_server import P4RuntimeServer

FEATURES = Path(__file__).parent / "data" / "p4info_features.p4"


def test_a_controller_programs_reads_and_clears_the_switch():
    device = PipelineDevice(device_id=1)
    server = P4RuntimeServer(device, "127.0.0.1:0").start()
    ctl = P4RuntimeClient(f"127.0.0.1:{server.port}", device_id=1, election_id=(0, 3))
    try:
        ctl.connect()
        ctl.set_pipeline(p4info.build(load_program(FEATURES)), FEATURES)
        route = E.TableEntry("MyIngress.routes", (E.Lpm(0x0A0000000000, 8),),
                             E.ActionCall("MyIngress.forward", {"port": 3, "mac": 1}))
        fwd = E.TableEntry("MyIngress.fwd", (E.Exact(1), E.Ternary(2, 3), None, None),
                           E.ActionCall("MyIngress.forward", {"port": 2, "mac": 5}), 5)
        ctl.insert_entry(route)
        ctl.insert_entry(fwd)
        assert [e.action.params["port"] for e in ctl.table_entries("MyIngress.routes")] == [3]
        route.action.params["port"] = 4
        ctl.modify_entry(route)
        assert [e.action.params["port"] for e in ctl.table_entries("MyIngress.routes")] == [4]
        ctl.delete_entry(fwd)
        assert ctl.table_entries("MyIngress.fwd") == []

        index = ctl.p4info_index()
        ids = {o.preamble.name: o.preamble.id for o in (*index.counters.values(),
                                                        *index.registers.values())}
        counter = pb.CounterEntry(counter_id=ids["MyIngress.port_counter"], index=pb.Index(index=2))
        counter.data.packet_count = 7
        register = pb.RegisterEntry(register_id=ids["MyIngress.last_seen"],
                                    index=pb.Index(index=3))
        register.data.bitstring = (256).to_bytes(2, "big")
        ctl.write([pb.Entity(counter_entry=counter), pb.Entity(register_entry=register)],
                  pb.Update.MODIFY)
        assert ctl.read(pb.Entity(counter_entry=counter))[0].counter_entry.data.packet_count == 7
        assert ctl.read(pb.Entity(register_entry=register))[0].register_entry.data.bitstring \
            == b"\x01\x00"
        ctl.set_multicast_group(E.MulticastGroup(1, [E.Replica(1, 1), E.Replica(2, 1)]))
        ctl.set_clone_session(E.CloneSession(5, [E.Replica(255)]))
        ctl.set_default("MyIngress.fwd", E.ActionCall("MyIngress.forward", {"port": 2, "mac": 3}))

        ctl.delete_all()
        left = Counter(e.WhichOneof("entity") for e in ctl.read_everything())
        tables = len(index.tables)
        assert left == {"table_entry": 2 + tables,             # classify's const entries
                        "counter_entry": 64, "register_entry": 128 + 16, "meter_entry": 32,
                        "value_set_entry": 2}, left
        assert device.target.table_get_default("MyIngress.fwd").action == "MyIngress.drop"
        assert device.target.mc_groups() == {} and device.target.clone_sessions() == {}
    finally:
        ctl.close()
        server.stop()
