"""Action profile members and groups: the actions indirect tables' entries name, kept by
the target's profile state (testbed.p4.python.profiles), which checks them."""
from __future__ import annotations

from testbed.p4runtime import convert as C
from testbed.switch.p4runtime_server.entities.base import U, Handler, selected


def _profile(pipeline, target, profile_id: int):
    info = C.profile_from_p4rt(pipeline.index, profile_id)
    return target.profile(info.preamble.name)


class ActionProfileMembers(Handler):
    kind = "action_profile_member"

    def write(self, pipeline, target, utype: int, msg):
        profile = _profile(pipeline, target, msg.action_profile_id)
        if utype == U.DELETE:
            old = profile.member_delete(msg.member_id)
            return lambda: profile.member_insert(old)
        member = C.member_from_p4rt(pipeline.index, msg)
        if utype == U.INSERT:
            profile.member_insert(member)
            return lambda: profile.member_delete(member.member_id)
        old = profile.member(member.member_id)
        profile.member_modify(member)
        return lambda: profile.member_modify(old)

    def read(self, pipeline, target, msg):
        for info in selected(pipeline.index, "action_profiles", msg.action_profile_id):
            profile = target.profile(info.preamble.name)
            for member_id in sorted(profile.members):
                if msg.member_id in (0, member_id):
                    yield C.member_to_p4rt(pipeline.index, info.preamble.id,
                                           profile.member(member_id))


class ActionProfileGroups(Handler):
    kind = "action_profile_group"

    def write(self, pipeline, target, utype: int, msg):
        profile = _profile(pipeline, target, msg.action_profile_id)
        if utype == U.DELETE:
            old = profile.group_delete(msg.group_id)
            return lambda: profile.group_insert(old)
        group = C.group_from_p4rt(pipeline.index, msg)
        if utype == U.INSERT:
            profile.group_insert(group)
            return lambda: profile.group_delete(group.group_id)
        old = profile.group(group.group_id)
        profile.group_modify(group)
        return lambda: profile.group_modify(old)

    def read(self, pipeline, target, msg):
        for info in selected(pipeline.index, "action_profiles", msg.action_profile_id):
            profile = target.profile(info.preamble.name)
            for group_id in sorted(profile.groups):
                if msg.group_id in (0, group_id):
                    yield C.group_to_p4rt(info.preamble.id, profile.group(group_id))
