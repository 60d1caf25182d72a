"""Action profiles and selectors: the members (an action with its data) that the entries
of indirect tables name, and, for a selector, groups of members of which a packet runs
the one picked by the selector's hash over the table's selector keys, each member as
often as its weight. A packet that hits an entry whose group is empty runs the table's
default action. Members and groups named by a group or an entry cannot be deleted. An
entry written one-shot carries its own actions (an ``ActionSet``), which act as a group
of members only that entry has.
"""
from __future__ import annotations

from testbed.p4 import entries as E
from testbed.p4.entries import ControlPlaneError
from testbed.p4.python.externs import ALGORITHMS, to_bytes
from testbed.p4.python.tables import Result, check_action

# PSA's names of the algorithms v1model also has
PSA_ALGORITHMS = {"crc16": "crc16", "crc32": "crc32", "identity": "identity",
                  "ones_complement16": "csum16", "target_default": "crc16"}


def _fail(code: str, message: str):
    raise ControlPlaneError(code, message)


class ProfileState:
    def __init__(self, name: str, size: int, algorithm: str | None, output_width: int,
                 max_group_size: int = 0):
        self.name = name
        self.size = size
        self.selector = algorithm is not None
        self.algorithm = algorithm
        self.hash = ALGORITHMS[algorithm] if algorithm else None
        self.output_mask = (1 << output_width) - 1 if output_width else -1
        self.max_group_size = max_group_size
        self.actions = {}                 # action name -> ActionInfo, of every table using it
        self.members = {}                 # id -> (ProfileMember, Result)
        self.groups = {}                  # id -> (ProfileGroup, [Result] repeated by weight)
        self.uses = {}                    # MemberRef/GroupRef -> how many groups and entries
        self.one_shots = {}               # id(ActionSet) -> [Result] repeated by weight
        self.on_change = None             # called when a member or group changes in place

    # ---------------------------------------------------------------- members
    def member_insert(self, m: E.ProfileMember) -> None:
        if m.member_id in self.members:
            _fail("ALREADY_EXISTS", f"{self.name}: member {m.member_id} exists; use modify")
        if len(self.members) >= self.size:
            _fail("RESOURCE_EXHAUSTED", f"{self.name} is full ({self.size} members)")
        self.members[m.member_id] = (m, self._result(m.action))

    def member_modify(self, m: E.ProfileMember) -> None:
        self.member(m.member_id)
        self.members[m.member_id] = (m, self._result(m.action))
        for group, _ in list(self.groups.values()):
            if any(g.member_id == m.member_id for g in group.members):
                self.groups[group.group_id] = (group, self._expanded(group))
        if self.on_change is not None:
            self.on_change()

    def member_delete(self, member_id: int) -> E.ProfileMember:
        m = self.member(member_id)
        self._unused(E.MemberRef(member_id), f"member {member_id}")
        del self.members[member_id]
        return m

    def member(self, member_id: int) -> E.ProfileMember:
        if member_id not in self.members:
            _fail("NOT_FOUND", f"{self.name}: no member {member_id}")
        return self.members[member_id][0]

    def _result(self, call: E.ActionCall) -> Result:
        check_action(f"action profile {self.name}", self.actions, call, default=False)
        info = self.actions[call.action]
        args = tuple(call.params[n] for n, _ in info.params)
        return Result(info.fn, args, True, call.action, E.ActionCall(call.action,
                                                                     dict(call.params)))

    # ---------------------------------------------------------------- groups
    def group_insert(self, g: E.ProfileGroup) -> None:
        self._check_group(g)
        if g.group_id in self.groups:
            _fail("ALREADY_EXISTS", f"{self.name}: group {g.group_id} exists; use modify")
        if len(self.groups) >= self.size:
            _fail("RESOURCE_EXHAUSTED", f"{self.name} is full ({self.size} groups)")
        self._take(g)

    def group_modify(self, g: E.ProfileGroup) -> None:
        self._check_group(g)
        old = self.group(g.group_id)
        self._give_back(old)
        self._take(g)
        if self.on_change is not None:
            self.on_change()

    def group_delete(self, group_id: int) -> E.ProfileGroup:
        g = self.group(group_id)
        self._unused(E.GroupRef(group_id), f"group {group_id}")
        self._give_back(g)
        del self.groups[group_id]
        return g

    def group(self, group_id: int) -> E.ProfileGroup:
        if group_id not in self.groups:
            _fail("NOT_FOUND", f"{self.name}: no group {group_id}")
        return self.groups[group_id][0]

    def _check_group(self, g: E.ProfileGroup) -> None:
        if not self.selector:
            _fail("INVALID_ARGUMENT", f"{self.name} is an action profile without a selector: "
                                      "it has members only, no groups")
        seen = set()
        for m in g.members:
            if m.member_id in seen:
                _fail("INVALID_ARGUMENT", f"{self.name}: group {g.group_id} lists member "
                                          f"{m.member_id} twice")
            seen.add(m.member_id)
            if m.member_id not in self.members:
                _fail("NOT_FOUND", f"{self.name}: group {g.group_id} names member "
                                   f"{m.member_id}, which this profile does not have")
            if m.weight < 1:
                _fail("INVALID_ARGUMENT", f"{self.name}: group {g.group_id} member "
                                          f"{m.member_id} has weight {m.weight}; give 1 or more")
        if g.max_size < 0:
            _fail("INVALID_ARGUMENT", f"{self.name}: group {g.group_id} max_size {g.max_size} "
                                      "is negative")
        if self.max_group_size and g.max_size > self.max_group_size:
            _fail("INVALID_ARGUMENT", f"{self.name}: group {g.group_id} max_size {g.max_size} "
                                      f"is over the profile's max_group_size "
                                      f"{self.max_group_size}")
        limit = g.max_size or self.max_group_size
        weights = sum(m.weight for m in g.members)
        if limit and weights > limit:
            _fail("RESOURCE_EXHAUSTED", f"{self.name}: group {g.group_id} has members of "
                                        f"total weight {weights}, over its limit of {limit}")

    def _take(self, g: E.ProfileGroup) -> None:
        for m in g.members:
            self._use(E.MemberRef(m.member_id), 1)
        self.groups[g.group_id] = (g, self._expanded(g))

    def _give_back(self, g: E.ProfileGroup) -> None:
        for m in g.members:
            self._use(E.MemberRef(m.member_id), -1)

    def _expanded(self, g: E.ProfileGroup) -> list:
        return [self.members[m.member_id][1] for m in g.members for _ in range(m.weight)]

    # ---------------------------------------------------------------- entries' references
    def acquire(self, ref) -> None:
        """An entry names ``ref`` (a MemberRef or GroupRef): it must exist; or carries
        an ActionSet, whose actions must be the profile's."""
        if isinstance(ref, E.ActionSet):
            self.one_shots[id(ref)] = self._action_set(ref)
            return
        if isinstance(ref, E.GroupRef):
            if not self.selector:
                _fail("INVALID_ARGUMENT", f"{self.name} has no selector, so no groups; name "
                                          "a member")
            self.group(ref.group_id)
        else:
            self.member(ref.member_id)
        self._use(ref, 1)

    def release(self, ref) -> None:
        if isinstance(ref, E.ActionSet):
            del self.one_shots[id(ref)]
        else:
            self._use(ref, -1)

    def _action_set(self, s: E.ActionSet) -> list:
        if not s.actions:
            _fail("INVALID_ARGUMENT", f"{self.name}: a one-shot action set needs an action")
        if not self.selector and len(s.actions) > 1:
            _fail("INVALID_ARGUMENT", f"{self.name} has no selector: a one-shot action set "
                                      f"holds one action, not {len(s.actions)}")
        weights = 0
        for call, weight, _ in s.actions:
            if weight < 1:
                _fail("INVALID_ARGUMENT", f"{self.name}: one-shot action {call.action} has "
                                          f"weight {weight}; give 1 or more")
            weights += weight
        if self.max_group_size and weights > self.max_group_size:
            _fail("RESOURCE_EXHAUSTED", f"{self.name}: a one-shot action set of total weight "
                                        f"{weights} is over max_group_size "
                                        f"{self.max_group_size}")
        return [self._result(call) for call, weight, _ in s.actions for _ in range(weight)]

    def _use(self, ref, n: int) -> None:
        count = self.uses.get(ref, 0) + n
        if count:
            self.uses[ref] = count
        else:
            self.uses.pop(ref, None)

    def _unused(self, ref, what: str) -> None:
        if self.uses.get(ref):
            _fail("FAILED_PRECONDITION", f"{self.name}: {what} is still named by "
                                         f"{self.uses[ref]} group(s) or table entries; "
                                         "remove those first")

    def resolve(self, ref, selector_values: list):
        """The member's Result a packet runs for an entry's ``ref``; None for an empty
        group. ``selector_values``: (value, width) of the table's selector keys."""
        if type(ref) is E.MemberRef:
            return self.members[ref.member_id][1]
        choices = (self.one_shots[id(ref)] if type(ref) is E.ActionSet else
                   self.groups[ref.group_id][1])
        if not choices:
            return None
        value, bits = 0, 0
        for v, w in selector_values:
            value, bits = value << w | v, bits + w
        h = self.hash(to_bytes(value, bits)) & self.output_mask if bits else 0
        return choices[h % len(choices)]
