"""A controller's session with finsy on tests/switch/data/translation.p4, whose ports and
VRFs the controller sees translated (a 32-bit port number, a VRF name): an entry written
and read back in controller values, one whose VRF does not map refused naming the field,
and a packet-out to a controller port.

Run by tests/switch/test_finsy.py under the client venv's Python: ``python
finsy_translation_flow.py ADDR P4INFO DEVICE_CONFIG`` (the device config carries the
controller's mapping). It prints one line per step.
"""
import asyncio
import sys
from pathlib import Path

import finsy as fy


async def flow(address: str, p4info: Path, config: Path) -> None:
    options = fy.SwitchOptions(p4info=p4info, p4blob=config, device_id=1)
    async with fy.Switch("s1", address, options) as sw:
        match = fy.Match({"meta.in_port": 1000, "meta.vrf": "blue"})
        await sw.insert([fy.P4TableEntry("routes", match=match, priority=10,
                                         action=fy.Action("forward", port=2000))])
        [entry] = [e async for e in sw.read(fy.P4TableEntry("routes"))]
        print("READ", dict(entry.match), entry.action.args)
        try:
            await sw.insert([fy.P4TableEntry(
                "routes", match=fy.Match({"meta.in_port": 1000, "meta.vrf": "green"}),
                priority=10, action=fy.Action("forward", port=2000))])
            print("REFUSED none")
        except fy.P4ClientError as err:
            [detail] = err.details.values()
            print("REFUSED", detail.canonical_code.name, detail.message)
        await sw.write([fy.P4PacketOut(b"\x00" * 14 + b"out", egress_port=3000, _pad=0)])
        await asyncio.sleep(0.5)
        print("PACKET_OUT sent")


if __name__ == "__main__":
    address, p4info_path, config_path = sys.argv[1:]
    asyncio.run(asyncio.wait_for(flow(address, Path(p4info_path), Path(config_path)), 60))
