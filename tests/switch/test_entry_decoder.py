"""The one-pass decoder of plain table-entry writes agrees with the general conversion:
for every table entry the request generator builds, it either answers None (the general
conversion decides, and names what is wrong) or exactly the general conversion's entry,
and it never accepts what the general conversion refuses."""
from hypothesis import given, settings
from hypothesis import strategies as st
from p4.v1 import p4runtime_pb2 as pb

from p4rt_requests import INDEX, table_entries
from testbed.bench.p4runtime import BASIC, _route
from testbed.p4 import entries as E
from testbed.p4 import p4info
from testbed.p4.lowering.program import load_program
from testbed.p4runtime import convert as C
from testbed.switch.p4runtime_server.entities.tables import _encoded

UPDATES = st.sampled_from([pb.Update.INSERT, pb.Update.MODIFY, pb.Update.DELETE])


@settings(max_examples=400, deadline=None)
@given(table_entries(), UPDATES)
def test_the_decoder_answers_the_general_conversion_or_leaves_it_to_it(entity, update_type):
    te = entity.table_entry
    fast = INDEX.decoders[te.table_id].decode(te, update_type)
    try:
        general = C.table_entry_from_p4rt(INDEX, te, update_type)
    except E.ControlPlaneError:
        assert fast is None
        return
    assert fast is None or fast == general


def test_the_decoder_takes_the_plain_routes_controllers_write():
    index = C.P4InfoIndex(p4info.build(load_program(BASIC)))
    for i in (0, 1, 255):
        msg = C.table_entry_to_p4rt(index, _route(i))
        for update_type in (pb.Update.INSERT, pb.Update.MODIFY):
            assert index.decoders[msg.table_id].decode(msg, update_type) == _route(i)
        deleted = index.decoders[msg.table_id].decode(msg, pb.Update.DELETE)
        assert deleted.key() == _route(i).key() and deleted.action == E.ActionCall("")


@settings(max_examples=400, deadline=None)
@given(table_entries(), UPDATES)
def test_a_message_the_decoder_calls_reusable_is_the_encoding_reads_return(entity, update_type):
    te = entity.table_entry
    entry, reusable = INDEX.decoders[te.table_id].decode_insert(te, update_type)
    if reusable:
        te.DiscardUnknownFields()
        assert te.SerializeToString() == _encoded(INDEX, entry)
