"""Entity kinds the software target has none of: action profiles (a program with one
does not load) and extern entries (v1model declares none). Reads are empty; writes are
refused as not supported."""
from __future__ import annotations

from testbed.p4runtime import convert as C
from testbed.switch.p4runtime_server.entities.base import Handler


class ActionProfileMembers(Handler):
    kind = "action_profile_member"

    def read(self, pipeline, target, msg):
        if msg.action_profile_id:
            pipeline.index.lookup("action_profiles", msg.action_profile_id)
        return ()


class ActionProfileGroups(ActionProfileMembers):
    kind = "action_profile_group"


class ExternEntries(Handler):
    kind = "extern_entry"

    def read(self, pipeline, target, msg):
        if msg.extern_type_id:
            C.fail("NOT_FOUND", f"extern type id {msg.extern_type_id} is not in the P4Info")
        return ()
