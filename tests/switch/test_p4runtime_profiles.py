"""Action profiles and selectors through a real gRPC client: members, groups with
weights, indirect table entries, packets spread by the selector's hash, reads, and bad
input refused with the spec's code, naming the field, the state unchanged."""
import collections
import struct
from pathlib import Path

import grpc
import pytest
from p4.v1 import p4runtime_pb2 as pb

from p4rt_client import Client, batch_errors
from p4rt_device import NativeDevice, PipelineDevice, object_id, p4info_of
from testbed.p4.lowering.program import load_program
from testbed.switch.p4runtime_server import P4RuntimeServer

SELECTOR = Path(__file__).parent / "data" / "selector.p4"
INS, MOD, DEL = pb.Update.INSERT, pb.Update.MODIFY, pb.Update.DELETE


def _info():
    return p4info_of(SELECTOR)


def _id(kind, name):
    return object_id(_info(), kind, name)


ECMP = _id("tables", "MyIngress.ecmp")
SEL = _id("action_profiles", "MyIngress.ecmp_selector")
NEXTHOPS = _id("action_profiles", "MyIngress.nexthops")
SET_PORT = _id("actions", "MyIngress.set_port")
SET_DMAC = _id("actions", "MyIngress.set_dmac")


@pytest.fixture(params=["python", "native"])
def switch(request):
    device = (PipelineDevice if request.param == "python" else NativeDevice)(device_id=1)
    server = P4RuntimeServer(device, "127.0.0.1:0").start()
    client = Client(f"127.0.0.1:{server.port}", 1, 5)
    client.arbitrate()
    client.set_pipeline(_info(), SELECTOR.read_bytes())
    yield client, device
    client.close()
    server.stop()


def member(mid, port=None, profile=SEL, dmac=None):
    m = pb.ActionProfileMember(action_profile_id=profile, member_id=mid)
    if dmac is None:
        m.action.action_id = SET_PORT
        m.action.params.add(param_id=1, value=bytes([port]))
    else:
        m.action.action_id = SET_DMAC
        m.action.params.add(param_id=1, value=dmac.to_bytes(6, "big"))
    return pb.Entity(action_profile_member=m)


def group(gid, members, max_size=0, profile=SEL):
    g = pb.ActionProfileGroup(action_profile_id=profile, group_id=gid, max_size=max_size)
    for mid, weight in members:
        g.members.add(member_id=mid, weight=weight)
    return pb.Entity(action_profile_group=g)


def ecmp_entry(**action):
    te = pb.TableEntry(table_id=ECMP)
    m = te.match.add(field_id=1)
    m.lpm.value, m.lpm.prefix_len = bytes([10, 0, 0, 0]), 8
    for name, value in action.items():
        if name == "action":
            te.action.action.CopyFrom(value)
        else:
            setattr(te.action, name, value)
    return pb.Entity(table_entry=te)


def frame(src: int, proto: int = 17) -> bytes:
    ip = struct.pack("!BBHHHBBH4s4s", 0x45, 0, 20, 0, 0, 64, proto, 0, src.to_bytes(4, "big"),
                     bytes([10, 1, 2, 3]))
    return bytes(6) + bytes(6) + b"\x08\x00" + ip


def ports_for(device, sources) -> collections.Counter:
    device.sent.clear()
    for s in sources:
        device.receive(frame(s), 1)
    return collections.Counter(port for port, _ in device.sent)


def state(client):
    """Everything a read shows of the profiles and the indirect table."""
    return (client.read(pb.Entity(action_profile_member=pb.ActionProfileMember())),
            client.read(pb.Entity(action_profile_group=pb.ActionProfileGroup())),
            client.read(pb.Entity(table_entry=pb.TableEntry(table_id=ECMP))))


def test_a_selector_group_spreads_flows_by_weight_and_follows_its_members(switch):
    client, device = switch
    client.write((INS, member(1, 1)), (INS, member(2, 2)), (INS, member(3, 3)),
                 (INS, group(7, [(1, 1), (2, 1), (3, 2)])),
                 (INS, ecmp_entry(action_profile_group_id=7)))
    sources = [0xC0A80000 + i for i in range(400)]
    spread = ports_for(device, sources)
    assert set(spread) == {1, 2, 3} and sum(spread.values()) == 400
    assert spread[3] > spread[1] and spread[3] > spread[2]          # weight 2
    again = ports_for(device, sources)
    assert again == spread                                           # a flow keeps its port
    client.write((MOD, member(3, 9)))                                # the member moves
    moved = ports_for(device, sources)
    assert moved[9] == spread[3] and 3 not in moved
    members, groups, entries = state(client)
    assert sorted(m.action_profile_member.member_id for m in members) == [1, 2, 3]
    g, = [e.action_profile_group for e in groups]
    assert [(m.member_id, m.weight) for m in g.members] == [(1, 1), (2, 1), (3, 2)]
    assert entries[0].table_entry.action.action_profile_group_id == 7


def test_a_member_entry_runs_the_member_and_an_empty_group_the_default(switch):
    client, device = switch
    client.write((INS, member(4, 6)), (INS, ecmp_entry(action_profile_member_id=4)))
    assert ports_for(device, [1, 2, 3]) == {6: 3}
    client.write((INS, group(8, [])), (MOD, ecmp_entry(action_profile_group_id=8)))
    assert ports_for(device, [1, 2, 3]) == {}                        # default: drop


def _refused(client, *updates, code):
    before = state(client)
    with pytest.raises(grpc.RpcError) as e:
        client.write(*updates, atomicity=pb.WriteRequest.ROLLBACK_ON_ERROR)
    errors = batch_errors(e.value)
    failed = [x for x in errors if x.canonical_code not in (0, grpc.StatusCode.ABORTED.value[0])]
    assert [x.canonical_code for x in failed] == [code.value[0]], errors
    assert state(client) == before
    return failed[0].message


def test_bad_members_groups_and_references_are_refused_naming_the_field(switch):
    client, _ = switch
    client.write((INS, member(1, 1)), (INS, member(2, 2)),
                 (INS, member(1, dmac=0x0200000000AA, profile=NEXTHOPS)),
                 (INS, group(7, [(1, 1)])), (INS, ecmp_entry(action_profile_group_id=7)))
    assert "action profile id 4242" in _refused(
        client, (INS, member(3, 3, profile=4242)), code=grpc.StatusCode.NOT_FOUND)
    assert "member 9" in _refused(client, (INS, member(5, 5)), (INS, group(8, [(9, 1)])),
                                  code=grpc.StatusCode.NOT_FOUND)
    assert "max_size 9" in _refused(client, (INS, group(8, [(1, 1)], max_size=9)),
                                    code=grpc.StatusCode.INVALID_ARGUMENT)
    assert "total weight 9" in _refused(client, (INS, group(8, [(1, 4), (2, 5)])),
                                        code=grpc.StatusCode.RESOURCE_EXHAUSTED)
    assert "weight 0" in _refused(client, (INS, group(8, [(1, 0)])),
                                  code=grpc.StatusCode.INVALID_ARGUMENT)
    assert "set_dmac" in _refused(client, (INS, member(3, dmac=1)),
                                  code=grpc.StatusCode.INVALID_ARGUMENT)
    assert "no groups" in _refused(client, (INS, group(1, [(1, 1)], profile=NEXTHOPS)),
                                   code=grpc.StatusCode.INVALID_ARGUMENT)
    assert "still named" in _refused(client, (DEL, member(1, 1)),
                                     code=grpc.StatusCode.FAILED_PRECONDITION)
    assert "still named" in _refused(client, (DEL, group(7, [])),
                                     code=grpc.StatusCode.FAILED_PRECONDITION)
    assert "exists" in _refused(client, (INS, member(2, 2)),
                                code=grpc.StatusCode.ALREADY_EXISTS)
    action = pb.Action(action_id=SET_PORT)
    action.params.add(param_id=1, value=b"\x01")
    assert "member or group" in _refused(client, (MOD, ecmp_entry(action=action)),
                                         code=grpc.StatusCode.INVALID_ARGUMENT)
    assert "no group 99" in _refused(client, (MOD, ecmp_entry(action_profile_group_id=99)),
                                     code=grpc.StatusCode.NOT_FOUND)
    assert "weight 0" in _refused(client, (MOD, one_shot_entry((1, 1), (2, 0))),
                                  code=grpc.StatusCode.INVALID_ARGUMENT)
    assert "total weight 9" in _refused(client, (MOD, one_shot_entry((1, 4), (2, 5))),
                                        code=grpc.StatusCode.RESOURCE_EXHAUSTED)


def one_shot_entry(*ports_weights):
    entry = ecmp_entry()
    for port, weight in ports_weights:
        a = entry.table_entry.action.action_profile_action_set.action_profile_actions.add(
            weight=weight)
        a.action.action_id = SET_PORT
        a.action.params.add(param_id=1, value=bytes([port]))
    return entry


def test_a_one_shot_action_set_acts_as_the_entrys_own_group(switch):
    client, device = switch
    client.write((INS, one_shot_entry((1, 1), (2, 3))))
    sources = [0xC0A80000 + i for i in range(400)]
    spread = ports_for(device, sources)
    assert set(spread) == {1, 2} and spread[2] > 2 * spread[1]
    entries = client.read(pb.Entity(table_entry=pb.TableEntry(table_id=ECMP)))
    shown = entries[0].table_entry.action.action_profile_action_set.action_profile_actions
    assert [(a.action.params[0].value, a.weight) for a in shown] == [(b"\x01", 1), (b"\x02", 3)]
    client.write((MOD, one_shot_entry((5, 1))))
    assert ports_for(device, sources) == {5: 400}
    client.write((MOD, entries[0]))                     # back, from what the read returned
    assert ports_for(device, sources) == spread
    assert client.read(pb.Entity(action_profile_member=pb.ActionProfileMember())) == []
    client.write((DEL, one_shot_entry()))
    assert ports_for(device, sources) == {}


def test_auto_runs_indirect_tables_on_the_native_backend():
    from testbed.p4.targets import make_target
    assert make_target(load_program(SELECTOR), "auto").backend == "native"


def test_p4info_describes_the_profiles_as_p4c_does():
    info = _info()
    sel, nh = (next(p for p in info.action_profiles if p.preamble.id == i)
               for i in (SEL, NEXTHOPS))
    assert sel.with_selector and sel.size == 64 and sel.max_group_size == 8
    assert not nh.with_selector and nh.size == 16
    ecmp = next(t for t in info.tables if t.preamble.id == ECMP)
    assert ecmp.implementation_id == SEL and list(sel.table_ids) == [ECMP]
    assert [m.name for m in ecmp.match_fields] == ["hdr.ipv4.dstAddr"]   # no selector keys


def test_a_psa_action_selector_spreads_flows_over_its_group():
    from testbed.p4 import entries as E
    from testbed.p4.targets import make_target
    target = make_target(load_program(Path(__file__).parent / "data" / "psa_selector.p4"),
                         "python")
    profile = target.profile("ingress.sel")
    for i in range(3):
        profile.member_insert(E.ProfileMember(i, E.ActionCall("ingress.fwd", {"port": i + 1})))
    profile.group_insert(E.ProfileGroup(1, [E.GroupMember(i) for i in range(3)]))
    target.table_insert(E.TableEntry("ingress.t", (E.Exact(5),), E.GroupRef(1)))
    ports = collections.Counter()
    for src in range(200):
        frame_ = (5).to_bytes(6, "big") + src.to_bytes(6, "big") + b"\x08\x00" + bytes(30)
        ports.update(port for port, _ in target.process(frame_, 1))
    assert set(ports) == {1, 2, 3} and sum(ports.values()) == 200
