"""p4runtime-shell, the P4 community's interactive P4Runtime client, programs our server.

p4runtime-shell pins a protobuf older than trainet's, so vagrant/install.sh installs it
into the outside clients' venv, .venv-clients (vagrant/clients-nodeps.txt says how). The
test runs the client under that venv's Python in a child process, as a user would run the
shell.
"""
import subprocess
import time
from pathlib import Path

import pytest
from p4.v1 import p4runtime_pb2 as pb

from p4rt_device import PipelineDevice, translation_pipeline_files
from testbed.p4 import p4info
from testbed.p4.lowering.program import load_program
from testbed.p4.p4c import main as p4c
from testbed.switch.p4runtime_server import P4RuntimeServer

REPO = Path(__file__).resolve().parents[2]
CLIENTS_PYTHON = REPO / ".venv-clients" / "bin" / "python"
BASIC = REPO / "p4" / "basic.p4"
FEATURES = Path(__file__).parent / "data" / "p4info_features.p4"

SCRIPT = r'''
import faulthandler
import sys
import p4runtime_sh.shell as sh

faulthandler.dump_traceback_later(60, exit=True)      # a hung client dumps its threads
addr, p4info_path, source_path = sys.argv[1:4]
sh.setup(device_id=1, grpc_addr=addr, election_id=(0, 1), verbose=False,
         config=sh.FwdPipeConfig(p4info_path, source_path))
try:
    te = sh.TableEntry("MyIngress.ipv4_lpm")(action="MyIngress.ipv4_forward")
    te.match["hdr.ipv4.dstAddr"] = "10.0.1.0/24"
    te.action["dstAddr"] = "00:00:00:00:01:01"
    te.action["port"] = "3"
    te.insert()
    for entry in sh.TableEntry("MyIngress.ipv4_lpm").read():
        print("ENTRY", entry.msg().SerializeToString().hex())
    sh.MulticastGroupEntry(1).add(1, 1).add(2, 1).insert()
    for group in sh.MulticastGroupEntry(1).read():
        replicas = group.msg().multicast_group_entry.replicas
        print("GROUP", [(r.egress_port, r.instance) for r in replicas])
finally:
    sh.teardown()
'''


def _shell_python() -> Path:
    if not CLIENTS_PYTHON.exists():
        pytest.skip(".venv-clients (p4runtime-shell) is not built: vagrant/install.sh skipped "
                    "it offline; run `make setup` with PyPI reachable")
    return CLIENTS_PYTHON


FULL_FLOW = r'''
import faulthandler
import sys
import p4runtime_sh.shell as sh
from p4.v1 import p4runtime_pb2 as pb

faulthandler.dump_traceback_later(60, exit=True)
addr, p4info_path, source_path = sys.argv[1:4]
sh.setup(device_id=1, grpc_addr=addr, election_id=(0, 1), verbose=False,
         config=sh.FwdPipeConfig(p4info_path, source_path))
ids = {o.preamble.name: o.preamble.id for o in sh.context.p4info.registers}


def entries(kind):
    """A wildcard read of one entity type, through the shell's client."""
    wildcard = pb.Entity()
    getattr(wildcard, kind).SetInParent()
    return [e for reply in sh.client.read_one(wildcard) for e in reply.entities]


def port(entry):
    return int.from_bytes(entry.action["port"].value, "big")


try:
    route = sh.TableEntry("MyIngress.routes")(action="MyIngress.forward")
    route.match["hdr.ethernet.dstAddr"] = "0x0a0000000000/8"
    route.action["port"], route.action["mac"] = "3", "0x1"
    route.insert()
    fwd = sh.TableEntry("MyIngress.fwd")(action="MyIngress.forward")
    fwd.match["hdr.ethernet.dstAddr"] = "0x1"
    fwd.match["src"] = "0x2&&&0x3"
    fwd.priority = 5
    fwd.action["port"], fwd.action["mac"] = "2", "0x5"
    fwd.insert()
    print("READ", sorted(port(e) for t in ("MyIngress.routes", "MyIngress.fwd")
                         for e in sh.TableEntry(t).read()))
    route.action["port"] = "4"
    route.modify()
    print("MODIFIED", [port(e) for e in sh.TableEntry("MyIngress.routes").read()])
    fwd.delete()
    print("DELETED", len(list(sh.TableEntry("MyIngress.fwd").read())))
    counter = sh.CounterEntry("MyIngress.port_counter")
    counter.index, counter.packet_count = 2, 7
    counter.modify()
    print("COUNTER", [c.packet_count for c in sh.CounterEntry("MyIngress.port_counter").read()
                      if c.index == 2])
    register = pb.RegisterEntry(register_id=ids["MyIngress.last_seen"], index=pb.Index(index=3))
    register.data.bitstring = (256).to_bytes(2, "big")
    sh.client.write_update(pb.Update(type=pb.Update.MODIFY,
                                     entity=pb.Entity(register_entry=register)))
    print("REGISTER", [int.from_bytes(e.register_entry.data.bitstring, "big")
                       for e in entries("register_entry") if e.register_entry.index.index == 3
                       and e.register_entry.register_id == ids["MyIngress.last_seen"]])
    sh.MulticastGroupEntry(1).add(1, 1).add(2, 1).insert()
    sh.CloneSessionEntry(5).add(255).insert()
    sh.TableEntry("MyIngress.routes").read(lambda e: e.delete())
    sh.MulticastGroupEntry().read(lambda g: g.delete())
    sh.CloneSessionEntry().read(lambda s: s.delete())
    kinds = [f.name for f in pb.Entity.DESCRIPTOR.oneofs_by_name["entity"].fields]
    left = {k: len(entries(k)) for k in kinds}
    print("LEFT", sorted((k, n) for k, n in left.items() if n))
finally:
    sh.teardown()
'''


PROFILE_FLOW = r'''
import faulthandler
import sys
import p4runtime_sh.shell as sh

faulthandler.dump_traceback_later(60, exit=True)
addr, p4info_path, source_path = sys.argv[1:4]
sh.setup(device_id=1, grpc_addr=addr, election_id=(0, 1), verbose=False,
         config=sh.FwdPipeConfig(p4info_path, source_path))
try:
    for i in (1, 2, 3):
        member = sh.ActionProfileMember("MyIngress.ecmp_selector")(
            member_id=i, action="MyIngress.set_port")
        member.action["port"] = str(i)
        member.insert()
    group = sh.ActionProfileGroup("MyIngress.ecmp_selector")(group_id=7)
    group.add(1).add(2, weight=2).add(3)
    group.insert()
    entry = sh.TableEntry("MyIngress.ecmp")
    entry.match["hdr.ipv4.dstAddr"] = "10.0.0.0/8"
    entry.group_id = 7
    entry.insert()
    print("MEMBERS", [m.member_id for m in
                      sh.ActionProfileMember("MyIngress.ecmp_selector").read()])
    print("GROUP", [(m.member_id, m.weight) for g in
                    sh.ActionProfileGroup("MyIngress.ecmp_selector").read()
                    for m in g.msg().members])
    print("ENTRY GROUP", [e.msg().action.action_profile_group_id
                          for e in sh.TableEntry("MyIngress.ecmp").read()])
    one_shot = sh.TableEntry("MyIngress.ecmp")
    one_shot.match["hdr.ipv4.dstAddr"] = "10.0.0.0/8"
    actions = []
    for port in ("4", "5"):
        a = sh.Action("MyIngress.set_port")
        a["port"] = port
        actions.append(a)
    one_shot.oneshot = sh.Oneshot("MyIngress.ecmp").add(actions[0], weight=3).add(actions[1])
    one_shot.modify()
    print("ONE-SHOT", [(a.weight, a.action.params[0].value.hex()) for e in
                       sh.TableEntry("MyIngress.ecmp").read()
                       for a in e.msg().action.action_profile_action_set.action_profile_actions])
    sh.TableEntry("MyIngress.ecmp").read(lambda e: e.delete())
    sh.ActionProfileGroup("MyIngress.ecmp_selector").read(lambda g: g.delete())
    sh.ActionProfileMember("MyIngress.ecmp_selector").read(lambda m: m.delete())
    print("LEFT", len(list(sh.ActionProfileMember("MyIngress.ecmp_selector").read())))
finally:
    sh.teardown()
'''


@pytest.mark.slow
def test_p4runtime_shell_programs_an_action_selector(tmp_path):
    """Members, a weighted group, an entry naming it, a one-shot action set, each read
    back as written through the shell's own entities, then all deleted as read."""
    python = _shell_python()
    selector = Path(__file__).parent / "data" / "selector.p4"
    info = tmp_path / "selector.p4info.txt"
    p4info.write(p4info.build(load_program(selector)), info)
    device = PipelineDevice(device_id=1)
    server = P4RuntimeServer(device, "127.0.0.1:0").start()
    try:
        run = subprocess.run([python, "-c", PROFILE_FLOW, f"127.0.0.1:{server.port}",
                              str(info), str(selector)],
                             capture_output=True, text=True, timeout=120)
    finally:
        server.stop()
    assert run.returncode == 0, run.stdout + run.stderr
    assert run.stdout.splitlines() == [
        "MEMBERS [1, 2, 3]", "GROUP [(1, 1), (2, 2), (3, 1)]", "ENTRY GROUP [7]",
        "ONE-SHOT [(3, '04'), (1, '05')]", "LEFT 0"], run.stdout + run.stderr
    assert device.target.table_entries("MyIngress.ecmp") == []


def _features_p4info(tmp_path):
    path = tmp_path / "features.p4info.txt"
    p4info.write(p4info.build(load_program(FEATURES)), path)
    return path


@pytest.mark.slow
def test_p4runtime_shell_full_flow(tmp_path):
    """Connect, set the pipeline, insert, read, modify, delete, counters, registers, then
    clear everything and find only what a program always holds in wildcard reads."""
    python = _shell_python()
    device = PipelineDevice(device_id=1)
    server = P4RuntimeServer(device, "127.0.0.1:0").start()
    try:
        run = subprocess.run([python, "-c", FULL_FLOW, f"127.0.0.1:{server.port}",
                              str(_features_p4info(tmp_path)), str(FEATURES)],
                             capture_output=True, text=True, timeout=120)
    finally:
        server.stop()
    assert run.returncode == 0, run.stdout + run.stderr
    lines = run.stdout.splitlines()
    assert "READ [2, 3]" in lines and "MODIFIED [4]" in lines, lines
    assert device.target.counter_read("MyIngress.port_counter", 2) == (7, 0)
    assert device.target.register_read("MyIngress.last_seen", 3) == 256
    assert "DELETED 0" in lines and "COUNTER [7]" in lines and "REGISTER [256]" in lines
    # what stays: const entries, counters, registers, meters, value sets (modify-only)
    left = next(line for line in lines if line.startswith("LEFT"))
    for kind in ("packet_replication_engine_entry", "digest_entry", "action_profile_member",
                 "direct_counter_entry", "direct_meter_entry"):
        assert kind not in left, left
    assert "('table_entry', 2)" in left, left              # classify's two const entries


@pytest.mark.slow
@pytest.mark.parametrize("device_config", ["P4 source", "trainet-p4c's .json"])
def test_p4runtime_shell_sets_the_pipeline_and_writes_entries(tmp_path, device_config):
    python = _shell_python()
    p4info_path = tmp_path / "basic.p4info.txt"
    config = BASIC
    if device_config == "P4 source":
        p4info.write(p4info.build(load_program(BASIC)), p4info_path)
    else:
        config = tmp_path / "basic.json"
        assert p4c(["--p4runtime-files", str(p4info_path), "-o", str(config), str(BASIC)]) == 0
    device = PipelineDevice(device_id=1)
    server = P4RuntimeServer(device, "127.0.0.1:0").start()
    try:
        run = subprocess.run([python, "-c", SCRIPT, f"127.0.0.1:{server.port}",
                              str(p4info_path), str(config)],
                             capture_output=True, text=True, timeout=120)
    finally:
        server.stop()
    assert run.returncode == 0, run.stdout + run.stderr
    entries = [pb.TableEntry.FromString(bytes.fromhex(line.split()[1]))
               for line in run.stdout.splitlines() if line.startswith("ENTRY ")]
    assert len(entries) == 1
    lpm = entries[0].match[0].lpm
    assert (lpm.value, lpm.prefix_len) == (bytes([10, 0, 1, 0]), 24)
    assert "GROUP [(1, 1), (2, 1)]" in run.stdout
    assert [(r.port, r.rid) for r in device.target.mc_groups()[1].replicas] == [(1, 1), (2, 1)]
    entry, = device.target.table_entries("MyIngress.ipv4_lpm")
    assert entry.action.action == "MyIngress.ipv4_forward"
    assert entry.action.params == {"dstAddr": 0x000000000101, "port": 3}


TRANSLATION_FLOW = r'''
import faulthandler
import sys
import p4runtime_sh.shell as sh

faulthandler.dump_traceback_later(60, exit=True)
addr, p4info_path, config_path = sys.argv[1:4]
sh.setup(device_id=1, grpc_addr=addr, election_id=(0, 1), verbose=False,
         config=sh.FwdPipeConfig(p4info_path, config_path))
try:
    route = sh.TableEntry("MyIngress.routes")(action="MyIngress.forward")
    route.match["meta.in_port"] = "1000"
    route.match["meta.vrf"] = "blue"
    route.priority = 10
    route.action["port"] = "2000"
    route.insert()
    for e in sh.TableEntry("MyIngress.routes").read():
        m = e.msg()
        print("READ", [f.exact.value.hex() for f in m.match],
              m.action.action.params[0].value.hex())
    sh.PacketOut(b"\x00" * 14 + b"out", egress_port="3000", _pad="0").send()
    print("PACKET_OUT sent")
finally:
    sh.teardown()
'''


@pytest.mark.slow
def test_p4runtime_shell_speaks_translated_types_in_controller_values(tmp_path):
    """The shell encodes a translated port by the P4Info's 32 bits and a VRF name as its
    string; the server maps both with the mapping sent in the device config and reads
    them back as written; a packet-out to controller port 3000 leaves by port 3."""
    python = _shell_python()
    info, config = translation_pipeline_files(tmp_path)
    device = PipelineDevice(device_id=1, cpu_port=255)
    server = P4RuntimeServer(device, "127.0.0.1:0").start()
    try:
        run = subprocess.run([python, "-c", TRANSLATION_FLOW, f"127.0.0.1:{server.port}",
                              str(info), str(config)],
                             capture_output=True, text=True, timeout=120)
        deadline = time.monotonic() + 5
        while not device.sent and time.monotonic() < deadline:
            time.sleep(0.01)
    finally:
        server.stop()
    assert run.returncode == 0, run.stdout + run.stderr
    assert run.stdout.splitlines() == [
        f"READ ['{(1000).to_bytes(2, 'big').hex()}', '{b'blue'.hex()}'] "
        f"{(2000).to_bytes(2, 'big').hex()}", "PACKET_OUT sent"], run.stdout + run.stderr
    [entry] = device.target.table_entries("MyIngress.routes")
    assert [m.value for m in entry.match[:2]] == [1, 7] and entry.action.params == {"port": 2}
    assert [port for port, _ in device.sent] == [3]
