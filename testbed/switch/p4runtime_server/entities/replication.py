"""The packet replication engine: multicast groups and clone sessions."""
from __future__ import annotations

from p4.v1 import p4runtime_pb2

from testbed.p4runtime import convert as C
from testbed.switch.p4runtime_server.entities.base import U, Handler


class Replication(Handler):
    kind = "packet_replication_engine_entry"

    def write(self, pipeline, target, utype: int, msg):
        if msg.WhichOneof("type") == "multicast_group_entry":
            obj = C.multicast_group_from_p4rt(msg.multicast_group_entry)
            key, what = obj.group_id, f"multicast group {obj.group_id}"
            existing, put, remove = target.mc_groups(), target.mc_group_set, target.mc_group_delete
        elif msg.WhichOneof("type") == "clone_session_entry":
            obj = C.clone_session_from_p4rt(msg.clone_session_entry)
            key, what = obj.session_id, f"clone session {obj.session_id}"
            existing = target.clone_sessions()
            put, remove = target.clone_session_set, target.clone_session_delete
        else:
            C.fail("INVALID_ARGUMENT", "packet_replication_engine_entry is empty")
        old = existing.get(key)
        if utype == U.INSERT and old is not None:
            C.fail("ALREADY_EXISTS", f"{what} exists; use MODIFY to change it")
        if utype != U.INSERT and old is None:
            C.fail("NOT_FOUND", f"{what} does not exist; INSERT it first")
        if utype == U.DELETE:
            remove(key)
            return lambda: put(old)
        put(obj)
        return (lambda: remove(key)) if old is None else (lambda: put(old))

    def read(self, pipeline, target, msg):
        kind = msg.WhichOneof("type")
        if kind in (None, "multicast_group_entry"):
            want = msg.multicast_group_entry.multicast_group_id if kind else 0
            for gid, g in sorted(target.mc_groups().items()):
                if not want or gid == want:
                    yield p4runtime_pb2.PacketReplicationEngineEntry(
                        multicast_group_entry=C.multicast_group_to_p4rt(g))
        if kind in (None, "clone_session_entry"):
            want = msg.clone_session_entry.session_id if kind else 0
            for sid, s in sorted(target.clone_sessions().items()):
                if not want or sid == want:
                    yield p4runtime_pb2.PacketReplicationEngineEntry(
                        clone_session_entry=C.clone_session_to_p4rt(s))
