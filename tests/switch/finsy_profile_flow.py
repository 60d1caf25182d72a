"""A controller's session with finsy on tests/switch/data/selector.p4: action profile
members, a weighted group named by an indirect table's entry, a one-shot action set,
reads of each, and delete_all.

Run by tests/switch/test_finsy.py under the client venv's Python: ``python
finsy_profile_flow.py ADDR P4INFO SOURCE``. It prints one line per step.
"""
import asyncio
import sys
from pathlib import Path

import finsy as fy

SELECTOR = "ecmp_selector"


async def flow(address: str, p4info: Path, source: Path) -> None:
    options = fy.SwitchOptions(p4info=p4info, p4blob=source, device_id=1)
    async with fy.Switch("s1", address, options) as sw:
        await sw.insert([fy.P4ActionProfileMember(SELECTOR, member_id=i,
                                                  action=fy.Action("set_port", port=i))
                         for i in (1, 2, 3)])
        await sw.insert([fy.P4ActionProfileGroup(
            SELECTOR, group_id=7, members=[fy.P4Member(1, weight=1),
                                           fy.P4Member(2, weight=(2, 5)),
                                           fy.P4Member(3, weight=1)])])
        route = fy.Match({"hdr.ipv4.dstAddr": "10.0.0.0/8"})
        await sw.insert([fy.P4TableEntry("ecmp", match=route,
                                         action=fy.P4IndirectAction(group_id=7))])
        members = [e async for e in sw.read(fy.P4ActionProfileMember(SELECTOR))]
        print("MEMBERS", sorted(m.member_id for m in members))
        groups = [e async for e in sw.read(fy.P4ActionProfileGroup(SELECTOR))]
        print("GROUP", [(m.member_id, m.weight) for g in groups for m in g.members or []])
        entries = [e async for e in sw.read(fy.P4TableEntry("ecmp"))]
        print("ENTRY GROUP", [e.action.group_id for e in entries])
        await sw.modify([fy.P4TableEntry("ecmp", match=route, action=fy.P4IndirectAction(
            [2 * fy.Action("set_port", port=4), 1 * fy.Action("set_port", port=5)]))])
        entries = [e async for e in sw.read(fy.P4TableEntry("ecmp"))]
        print("ONE-SHOT", [(w, a.args["port"]) for e in entries
                           for w, a in e.action.action_set])
        await sw.delete_all()
        left = [e async for e in sw.read([fy.P4TableEntry("ecmp"),
                                          fy.P4ActionProfileGroup(SELECTOR),
                                          fy.P4ActionProfileMember(SELECTOR)])]
        print("LEFT", len(left))


if __name__ == "__main__":
    address, p4info_path, source_path = sys.argv[1:]
    asyncio.run(asyncio.wait_for(flow(address, Path(p4info_path), Path(source_path)), 60))
