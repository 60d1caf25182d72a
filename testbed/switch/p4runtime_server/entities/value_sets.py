"""Parser value sets: the members a parser matches, replaced as a whole by each write."""
from __future__ import annotations

from p4.v1 import p4runtime_pb2

from testbed.p4runtime import convert as C
from testbed.switch.p4runtime_server.entities.base import Handler, modify_only, selected


class ValueSets(Handler):
    kind = "value_set_entry"

    def write(self, pipeline, target, utype: int, msg):
        modify_only(utype, "value set")
        vs = pipeline.index.lookup("value_sets", msg.value_set_id)
        name = vs.preamble.name
        if len(msg.members) > vs.size:
            C.fail("RESOURCE_EXHAUSTED", f"value set {name} holds at most {vs.size} members")
        matches = C.value_set_from_p4rt(vs, msg.members)
        old = pipeline.value_sets.get(name, [])
        old_matches = C.value_set_from_p4rt(vs, old)
        target.value_set_set(name, matches)
        pipeline.value_sets[name] = list(msg.members)

        def undo():
            target.value_set_set(name, old_matches)
            pipeline.value_sets[name] = old
        return undo

    def read(self, pipeline, target, msg):
        for vs in selected(pipeline.index, "value_sets", msg.value_set_id):
            out = p4runtime_pb2.ValueSetEntry(value_set_id=vs.preamble.id)
            out.members.extend(pipeline.value_sets.get(vs.preamble.name, []))
            yield out
