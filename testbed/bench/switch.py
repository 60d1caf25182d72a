"""``trainet bench switch``: forwarding rate of the software switch running p4/basic.p4,
with a Linux bridge on the same veths in the same run as the baseline.

Layout: namespace h1 -- veth -- port 1 [switch in this namespace] port 2 -- veth -- h2.
A raw-socket sender in h1 (testbed/switch/traffic.py: sendmmsg from native code, past
the qdisc of its unshaped link) offers UDP frames as fast as it can; the offered rate is
what h1's interface sends, the forwarded rate what h2's receives, both over the same
steady part of the run. h2 has no address, so its stack drops the frames silently (no
ICMP comes back through the switch).

On a veth the kernel runs the receiving side of a frame on the core that sent it: the
bridge forwards (and h2's stack drops) each frame on the sender's core, so the bridge's
rate is also what that core can offer; the switch takes the frames off the sender's core
at its port and forwards them on its own.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
import time
from pathlib import Path

from testbed.errors import TrainetError
from testbed.p4.entries import ActionCall, Lpm, TableEntry
from testbed.p4runtime.values import parse_ipv4, parse_mac
from testbed.switch.lab import VethLab

SIZES = (64, 512, 1500)
BASIC_P4 = Path(__file__).resolve().parents[2] / "p4" / "basic.p4"
DST_IP = "10.0.0.2"


def measure(lab: VethLab, size: int, seconds: float, rate_pps: float = 0) -> dict:
    """Offer frames from h1 for ``seconds`` (at ``rate_pps``, 0: as fast as the sender
    can); the rate received by h2 after a warm-up."""
    h1, h2 = lab.hosts
    sender = h1.popen(sys.executable, "-m", "testbed.switch.traffic", "send",
                      "--iface", h1.ifname, "--src-mac", h1.mac, "--dst-mac", h2.mac,
                      "--src-ip", h1.ip, "--dst-ip", DST_IP, "--size", str(size),
                      "--duration", str(seconds + 0.8), "--rate-pps", str(rate_pps),
                      "--qdisc-bypass", stdout=subprocess.PIPE, text=True,
                      cwd=str(Path(__file__).resolve().parents[2]))
    try:
        time.sleep(0.5)
        o0, p0, t0 = h1.tx_stats()[0], h2.rx_stats()[0], time.monotonic()
        time.sleep(seconds)
        o1, p1, t1 = h1.tx_stats()[0], h2.rx_stats()[0], time.monotonic()
        out, _ = sender.communicate(timeout=seconds + 30)
    finally:
        if sender.poll() is None:
            sender.kill()
            sender.wait()
    if sender.returncode != 0:
        raise TrainetError(f"bench switch: the traffic sender failed (exit "
                           f"{sender.returncode}); run as root")
    pps = (p1 - p0) / (t1 - t0)
    return {"pps": pps, "gbps": pps * size * 8 / 1e9, "offered_pps": (o1 - o0) / (t1 - t0),
            "sender": json.loads(out)["sender"]}


def _bridge(lab: VethLab, size: int, seconds: float) -> dict:
    bridge = f"{lab.prefix}br"
    subprocess.run(["ip", "link", "add", bridge, "type", "bridge"], check=True)
    try:
        for ifname in lab.ports().values():
            subprocess.run(["ip", "link", "set", ifname, "master", bridge], check=True)
        subprocess.run(["ip", "link", "set", bridge, "up"], check=True)
        return measure(lab, size, seconds)
    finally:
        subprocess.run(["ip", "link", "del", bridge], check=True)


def _switch(lab: VethLab, program, size: int, seconds: float, backend: str) -> dict:
    from testbed.switch.switch import SoftwareSwitch
    h2 = lab.hosts[1]
    sw = SoftwareSwitch(lab.ports(), backend=backend)
    try:
        sw.load_pipeline(program)
        sw.target.table_insert(TableEntry(
            "MyIngress.ipv4_lpm", (Lpm(parse_ipv4(DST_IP), 32),),
            ActionCall("MyIngress.ipv4_forward", {"dstAddr": parse_mac(h2.mac), "port": 2})))
        cpu = {}

        def run() -> None:
            start = time.thread_time()
            sw.run()
            cpu["seconds"] = time.thread_time() - start

        loop = threading.Thread(target=run, name="switch")
        loop.start()
        try:
            result = measure(lab, size, seconds)
        finally:
            sw.stop()
            loop.join()
        received = sw.port_counters()[1]["rx_packets"]
        # CPU time of the switch thread (user + system) per frame it received: what the
        # switch would forward with a core of its own, whatever else the machine runs
        result["cpu_us_per_packet"] = cpu["seconds"] / received * 1e6 if received else None
        result["drops"] = {k: v for k, v in sw.drop_counts().items() if v}
        result["backend"] = sw.target.backend
        result["transmit"] = sw.transmit_line
        return result
    finally:
        sw.close()


def run(seconds: float = 3.0, sizes=SIZES, backend: str = "auto") -> list:
    from testbed.p4.lowering.program import load_program
    if os.geteuid() != 0:
        raise TrainetError("bench switch: needs root (network namespaces, raw sockets)")
    program = load_program(str(BASIC_P4))
    rows = []
    with VethLab(n_hosts=2, addresses=False) as lab:
        for size in sizes:
            bridge = _bridge(lab, size, seconds)
            switch = _switch(lab, program, size, seconds, backend)
            rows.append({"frame_bytes": size, "switch": switch, "bridge": bridge,
                         "ratio": switch["pps"] / bridge["pps"] if bridge["pps"] else None})
    return rows


def main(args) -> int:
    rows = run(args.seconds, backend=args.backend)
    if args.json:
        print(json.dumps({"program": "p4/basic.p4", "seconds": args.seconds, "rows": rows},
                         indent=2))
        return 0
    first = rows[0]["switch"]
    print(f"software switch (p4/basic.p4, {first['backend']} backend; {first['transmit']}) "
          f"vs Linux bridge, {args.seconds:g} s per point; sender: {first['sender']} "
          "sendmmsg in h1; rates: h1's and h2's interface counters")
    print(f"{'frame':>7} {'bridge offered':>15} {'bridge':>21} {'switch offered':>15} "
          f"{'switch':>21} {'switch CPU':>14} {'ratio':>6}")
    for r in rows:
        s, b = r["switch"], r["bridge"]
        print(f"{r['frame_bytes']:>5} B {b['offered_pps'] / 1e3:>10.1f} kpps "
              f"{b['pps'] / 1e3:>8.1f} kpps {b['gbps']:>6.3f} Gb/s "
              f"{s['offered_pps'] / 1e3:>10.1f} kpps "
              f"{s['pps'] / 1e3:>8.1f} kpps {s['gbps']:>6.3f} Gb/s "
              f"{s['cpu_us_per_packet']:>6.2f} us/pkt {r['ratio']:>6.3f}")
    print("offered: what h1 sent; bridge, switch: what h2 received (forwarded); switch CPU: "
          "CPU time of the switch's packet thread per received frame; ratio: switch/bridge "
          "forwarded")
    return 0
