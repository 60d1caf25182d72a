"""A controller's whole session with finsy, the asyncio P4Runtime client from PyPI.

Run by tests/switch/test_finsy.py under the client venv's Python (.venv-clients: finsy
needs a newer protobuf than trainet's venv): ``python finsy_flow.py ADDR P4INFO SOURCE
[CA]``, over TLS trusting the certificate CA when it is given.
It prints one line per step; the test reads them.
"""
import asyncio
import sys
from pathlib import Path

import finsy as fy


def ports(entries) -> list:
    return sorted(e.action.args["port"] for e in entries)


async def flow(address: str, p4info: Path, source: Path, ca: Path | None) -> None:
    tls = fy.GRPCCredentialsTLS(cacert=ca, cert=None, private_key=None) if ca else None
    options = fy.SwitchOptions(p4info=p4info, p4blob=source, device_id=1,
                               channel_credentials=tls)
    async with fy.Switch("s1", address, options) as sw:
        print("PRIMARY", sw.is_primary)
        route = fy.P4TableEntry("routes",
                                match=fy.Match({"hdr.ethernet.dstAddr": "0x0a0000000000/8"}),
                                action=fy.Action("forward", port=3, mac=1))
        fwd = fy.P4TableEntry("fwd", match=fy.Match({"hdr.ethernet.dstAddr": 1, "src": "2/&3"}),
                              action=fy.Action("forward", port=2, mac=5), priority=5)
        await sw.insert([route, fwd])
        print("READ", ports([e async for e in sw.read(fy.P4TableEntry())
                             if e.table_id in ("routes", "fwd")]))
        await sw.modify([fy.P4TableEntry("routes", match=route.match,
                                         action=fy.Action("forward", port=4, mac=1))])
        print("MODIFIED", ports([e async for e in sw.read(fy.P4TableEntry("routes"))]))
        await sw.delete([fwd])
        print("DELETED", len([e async for e in sw.read(fy.P4TableEntry("fwd"))]))

        await sw.modify([fy.P4CounterEntry("port_counter", index=2,
                                           data=fy.P4CounterData(packet_count=7))])
        counters = [e async for e in sw.read(fy.P4CounterEntry("port_counter", index=2))]
        print("COUNTER", [c.packet_count for c in counters])
        await sw.modify([fy.P4RegisterEntry("last_seen", index=3, data=256)])
        registers = [e async for e in sw.read(fy.P4RegisterEntry("last_seen", index=3))]
        print("REGISTER", [r.data for r in registers])

        await sw.insert([fy.P4MulticastGroupEntry(1, replicas=[(1, 1), (2, 1)]),
                         fy.P4CloneSessionEntry(5, replicas=[255])])
        await sw.modify([fy.P4TableEntry("fwd", is_default_action=True,
                                         action=fy.Action("forward", port=6, mac=9))])
        await sw.delete_all()
        print("TABLES", sorted([e.table_id async for e in sw.read(fy.P4TableEntry())]))
        default = [e async for e in sw.read(fy.P4TableEntry("fwd", is_default_action=True))]
        print("DEFAULT", [e.action.name for e in default])
        # finsy 0.30.0's delete_many (switch.py), given a P4Info with a const table, keeps
        # only the table entries of what its wildcard read returned, so delete_all leaves
        # the multicast group and the clone session: shown here, then deleted as read
        replication = [fy.P4MulticastGroupEntry(), fy.P4CloneSessionEntry()]
        left = [e async for e in sw.read(replication)]
        print("LEFT BY DELETE_ALL", sorted(type(e).__name__ for e in left))
        await sw.delete(left)
        print("REPLICATION", len([e async for e in sw.read(replication)]))


if __name__ == "__main__":
    address, p4info_path, source_path, *ca = sys.argv[1:]
    asyncio.run(asyncio.wait_for(flow(address, Path(p4info_path), Path(source_path),
                                      Path(ca[0]) if ca else None), 60))
