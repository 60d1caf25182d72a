"""The C decoder of plain inserts (testbed/p4runtime/entry_wire.c) agrees with the Python
decoders: every update it takes is an INSERT the general conversion accepts, giving the
same entry, and its encoding is the bytes a read of that entry returns; it takes every
plain route a controller writes, and garbled wire bytes never make it take what the
parsed message does not say."""
from hypothesis import given, settings
from hypothesis import strategies as st
from p4.config.v1 import p4info_pb2
from p4.v1 import p4runtime_pb2 as pb

from p4rt_requests import INDEX, table_entries
from testbed.bench.p4runtime import BASIC, _route, _update
from testbed.p4 import entries as E
from testbed.p4 import p4info
from testbed.p4.lowering.program import load_program
from testbed.p4runtime import convert as C
from testbed.p4runtime.entry_wire import wire_decoder
from testbed.switch.p4runtime_server.entities.tables import _encoded

WIRE = wire_decoder(INDEX)
UPDATES = st.sampled_from([pb.Update.INSERT, pb.Update.MODIFY, pb.Update.DELETE])


def _check(index, wire, request: pb.WriteRequest) -> int:
    """Hold the C decoder's answer for ``request`` to the Python decoders'; the number of
    updates it took."""
    got = wire.decode(request.SerializeToString(), len(request.updates))
    if got is None:
        return 0
    assert len(got) == len(request.updates)
    taken = 0
    for update, decoded in zip(request.updates, got):
        if decoded is None:
            continue
        entry, encoding = decoded
        te = update.entity.table_entry
        assert update.type == pb.Update.INSERT and update.entity.WhichOneof("entity") == \
            "table_entry"
        assert C.table_entry_from_p4rt(index, te, pb.Update.INSERT) == entry
        assert index.decoders[te.table_id].decode(te, pb.Update.INSERT) == entry
        assert encoding == _encoded(index, entry)
        taken += 1
    return taken


@settings(max_examples=300, deadline=None)
@given(st.lists(st.tuples(table_entries(), UPDATES), min_size=1, max_size=4))
def test_what_the_c_decoder_takes_the_general_conversion_gives_alike(updates):
    request = pb.WriteRequest(device_id=1)
    for entity, update_type in updates:
        request.updates.add(type=update_type).entity.CopyFrom(entity)
    _check(INDEX, WIRE, request)


BASIC_INDEX = C.P4InfoIndex(p4info.build(load_program(BASIC)))
BASIC_WIRE = wire_decoder(BASIC_INDEX)


@settings(max_examples=400, deadline=None)
@given(st.integers(0, 1023), st.integers(0, 80), st.binary(min_size=1, max_size=3),
       st.booleans())
def test_garbled_bytes_never_make_the_c_decoder_disagree(i, at, junk, insert):
    """A route's wire bytes with bytes replaced or inserted: whatever protobuf still
    parses, the C decoder either leaves to the general path or reads as protobuf does."""
    request = pb.WriteRequest(device_id=1, updates=[_update(BASIC_INDEX, i)])
    data = request.SerializeToString()
    at = min(at, len(data))
    garbled = data[:at] + junk + data[at + (0 if insert else len(junk)):]
    try:
        parsed = pb.WriteRequest.FromString(garbled)
    except Exception:                           # not a WriteRequest: never decoded
        return
    got = BASIC_WIRE.decode(garbled, len(parsed.updates))
    for update, decoded in zip(parsed.updates, got or ()):
        if decoded is not None:
            assert update.type == pb.Update.INSERT
            te = update.entity.table_entry
            assert C.table_entry_from_p4rt(BASIC_INDEX, te, pb.Update.INSERT) == decoded[0]
            assert decoded[1] == _encoded(BASIC_INDEX, decoded[0])


def test_the_c_decoder_takes_the_routes_controllers_write():
    index = C.P4InfoIndex(p4info.build(load_program(BASIC)))
    request = pb.WriteRequest(device_id=1, updates=[_update(index, i) for i in range(300)])
    request.updates[7].type = pb.Update.MODIFY           # left to the per-update path
    request.updates[8].entity.table_entry.metadata = b"cookie"
    got = wire_decoder(index).decode(request.SerializeToString(), 300)
    assert got[7] is None and got[8] is None
    assert [e for e, _ in got[:7]] == [_route(i) for i in range(7)]
    assert _check(index, wire_decoder(index), request) == 298


def test_several_keys_padded_values_and_a_dont_care_prefix():
    """A table of an exact and two lpm keys, as a P4Info alone: padded values are read and
    encoded shortest, an lpm key left out is a don't-care."""
    info = p4info_pb2.P4Info()
    a = info.actions.add()
    a.preamble.id, a.preamble.name = 0x01000001, "set"
    a.params.add(id=1, name="port", bitwidth=9)
    a.params.add(id=2, name="mac", bitwidth=48)
    t = info.tables.add()
    t.preamble.id, t.preamble.name, t.size = 0x02000001, "routes", 64
    t.match_fields.add(id=1, name="vrf", bitwidth=12, match_type=p4info_pb2.MatchField.EXACT)
    t.match_fields.add(id=2, name="dst", bitwidth=32, match_type=p4info_pb2.MatchField.LPM)
    t.match_fields.add(id=3, name="src", bitwidth=64, match_type=p4info_pb2.MatchField.LPM)
    t.action_refs.add(id=a.preamble.id)
    index = C.P4InfoIndex(info)
    request = pb.WriteRequest(device_id=1)
    for vrf, dst, plen, src in ((0, 10 << 24, 8, None), (4095, 0xC0A80100, 24, 1 << 63)):
        te = request.updates.add(type=pb.Update.INSERT).entity.table_entry
        te.table_id = t.preamble.id
        if src is not None:               # out of key order, as a client may send them
            te.match.add(field_id=3).lpm.CopyFrom(
                pb.FieldMatch.LPM(value=src.to_bytes(9, "big"), prefix_len=1))
        te.match.add(field_id=1).exact.value = vrf.to_bytes(4, "big")
        te.match.add(field_id=2).lpm.CopyFrom(pb.FieldMatch.LPM(value=dst.to_bytes(4, "big"),
                                                               prefix_len=plen))
        action = te.action.action
        action.action_id = a.preamble.id
        action.params.add(param_id=2, value=bytes(6))
        action.params.add(param_id=1, value=b"\x00\x07")
    got = wire_decoder(index).decode(request.SerializeToString(), 2)
    assert got[0][0].match == (E.Exact(0), E.Lpm(10 << 24, 8), None)
    assert got[1][0].match == (E.Exact(4095), E.Lpm(0xC0A80100, 24), E.Lpm(1 << 63, 1))
    assert got[1][0].action == E.ActionCall("set", {"port": 7, "mac": 0})
    assert _check(index, wire_decoder(index), request) == 2
