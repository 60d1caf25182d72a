"""Entity kinds the software target has none of: extern entries (v1model declares
none). Reads are empty; writes are refused as not supported."""
from __future__ import annotations

from testbed.p4runtime import convert as C
from testbed.switch.p4runtime_server.entities.base import Handler


class ExternEntries(Handler):
    kind = "extern_entry"

    def read(self, pipeline, target, msg):
        if msg.extern_type_id:
            C.fail("NOT_FOUND", f"extern type id {msg.extern_type_id} is not in the P4Info")
        return ()
