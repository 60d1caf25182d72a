"""``trainet bench links``: how closely emulated links match their configuration.

* rate: TCP (iperf3) over a link shaped to 1 Mb/s ... 1 Gb/s, and at 10 and 100 Mb/s
  through the software P4 switch; the measured rate is the receiver's Ethernet byte
  counter over the steady part of the transfer (the unit tc shapes), the TCP goodput is
  shown next to it;
* co-scaling: a 100 Gb/s and a 200 Gb/s link at scale 1e-3 (100 and 200 Mb/s) must keep
  their 1:2 ratio;
* RTT: ping through a P4 switch with a one-way delay per link; the round trip added to
  a same-run baseline without delay (the switch's own forwarding time) is compared with
  the configured 4 x delay (two links, both directions);
* bring-up: 64 hosts and 9 switches (leaf-spine, 8 leaves x 8 hosts, 1 spine).
"""
from __future__ import annotations

import json
import re
import socket
import statistics
import time

from testbed.errors import TrainetError
from testbed.net.network import Network
from testbed.net.probe import probe, render
from testbed.net.topology import blueprint_from_topology
from testbed.units import format_duration, format_rate

RATE_TOLERANCE = 0.03
RTT_TOLERANCE = 0.05
RTT_SLACK_S = 0.2e-3
RESULTS_DIR = "results/bench-links"


def _pair(bw: str | None = None, profile: str | None = None, scale: float = 1.0,
          switch: bool = False, delay: str | None = None) -> dict:
    """Spec data: h1 and h2, joined directly or through the switch bs1 (a name that
    does not clash with the usual s1 of a network already up)."""
    data = {"name": "bench-pair", "scale": scale, "routing": "shortest-path",
            "hosts": [{"name": "h1", "ip": "10.0.0.1/24", "mac": "08:00:00:00:00:01"},
                      {"name": "h2", "ip": "10.0.0.2/24", "mac": "08:00:00:00:00:02"}]}
    link = {k: v for k, v in (("bw", bw), ("profile", profile), ("delay", delay)) if v}
    if switch:
        data["switches"] = [{"name": "bs1"}]
        data["links"] = [{"a": "h1", "b": "bs1-p1", **link}, {"a": "h2", "b": "bs1-p2", **link}]
    else:
        data["links"] = [{"a": "h1", "b": "h2", **link}]
    return data


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _with_free_ports(blueprint):
    """The bench's networks take unused gRPC ports, whatever else runs on the machine."""
    for switch in blueprint.switches:
        switch.grpc_port = _free_port()
    return blueprint


def _blueprint(data: dict):
    from testbed.topology.spec import Topology
    return _with_free_ports(blueprint_from_topology(Topology.from_data(data), data["name"]))


def _rx_bytes(host, ifname: str = "eth0") -> tuple[int, float]:
    text = host.cmd("cat /proc/net/dev")
    t = time.monotonic()
    for line in text.splitlines():
        name, _, rest = line.partition(":")
        if name.strip() == ifname:
            return int(rest.split()[0]), t
    raise TrainetError(f"{host.name}: no interface {ifname} in /proc/net/dev")


def measure_rate(net, src: str, dst: str, dst_ip: str, seconds: float,
                 port: int = 5201) -> dict:
    """TCP from ``src`` to ``dst``: Ethernet-level rate at the receiver over the steady
    part (after the first 1.5 s) and the iperf3 goodput."""
    a, b = net.net[src], net.net[dst]
    server = b.popen(["iperf3", "-s", "-1", "-p", str(port)])
    try:
        time.sleep(0.3)
        client = a.popen(["iperf3", "-c", dst_ip, "-p", str(port), "-t", f"{seconds:g}", "-J"])
        time.sleep(1.5)
        b0, t0 = _rx_bytes(b)
        time.sleep(max(seconds - 2.0, 0.5))
        b1, t1 = _rx_bytes(b)
        out, _ = client.communicate(timeout=seconds + 30)
    finally:
        server.kill()
        server.wait()
    try:
        goodput = json.loads(out)["end"]["sum_received"]["bits_per_second"]
    except (ValueError, KeyError):
        goodput = 0.0
    return {"wire_bps": (b1 - b0) * 8 / (t1 - t0), "goodput_bps": goodput}


def measure_rtt(net, src: str, dst_ip: str, count: int = 30) -> dict:
    """Ping round trips: min, mean and median (the median is what targets use: a busy
    machine delays a few packets by milliseconds, which moves the mean)."""
    text = net.net[src].cmd(f"ping -c {count} -i 0.05 {dst_ip}")
    times = sorted(float(t) / 1e3 for t in re.findall(r"time=([\d.]+) ms", text))
    loss = re.search(r"([\d.]+)% packet loss", text)
    if not times:
        raise TrainetError(f"ping {dst_ip} from {src} failed:\n{text.strip()}")
    return {"min_s": times[0], "avg_s": sum(times) / len(times),
            "median_s": statistics.median(times),
            "loss_pct": float(loss.group(1)) if loss else 100.0}


def _rate_row(name: str, configured: float, got: dict) -> dict:
    ratio = got["wire_bps"] / configured
    return {"test": name, "configured_bps": configured, **got, "ratio": ratio,
            "ok": abs(ratio - 1) <= RATE_TOLERANCE}


def bench_rates(caps, rates, seconds: float, log, switch: bool = False) -> list[dict]:
    """TCP over h1-h2 shaped to each rate, joined directly (the kernel shaping alone)
    or through the software P4 switch (shaping plus forwarding)."""
    rows = []
    where = " via the switch" if switch else ""
    for rate in rates:
        blueprint = _blueprint(_pair(bw=f"{rate:g}bit", switch=switch))
        with Network(blueprint, RESULTS_DIR, caps, log=log) as net:
            rows.append(_rate_row(f"rate {format_rate(rate)}{where}", rate,
                                  measure_rate(net, "h1", "h2", "10.0.0.2", seconds)))
        log(_format_row(rows[-1]))
    return rows


def bench_coscaled(caps, seconds: float, log) -> list[dict]:
    rows = []
    for profile in ("roce-100g", "roce-200g"):
        blueprint = _blueprint(_pair(profile=profile, scale=1e-3))
        with Network(blueprint, RESULTS_DIR, caps, log=log) as net:
            emulated = blueprint.links[0].shape.rate_bps
            rows.append(_rate_row(f"{profile} x 1e-3", emulated,
                                  measure_rate(net, "h1", "h2", "10.0.0.2", seconds)))
        log(_format_row(rows[-1]))
    ratio = rows[1]["wire_bps"] / rows[0]["wire_bps"]
    rows.append({"test": "200:100 Gb/s ratio at scale 1e-3", "configured_ratio": 2.0,
                 "ratio": ratio / 2.0, "measured_ratio": ratio,
                 "ok": abs(ratio / 2.0 - 1) <= RATE_TOLERANCE})
    log(_format_row(rows[-1]))
    return rows


def bench_rtt(caps, delays, log) -> list[dict]:
    """Round trips through the switch for each one-way delay per link. The first measurement
    (no delay) is the same-run baseline: the switch's own forwarding time, which the
    configured delays come on top of; the target applies to the added round trip."""
    rows, baseline = [], None
    for delay in (0.0,) + tuple(d for d in delays if d):
        data = _pair(switch=True, delay=f"{delay * 1e6:g}us" if delay else None)
        with Network(_blueprint(data), RESULTS_DIR, caps, log=log) as net:
            got = measure_rtt(net, "h1", "10.0.0.2")
        if baseline is None:
            baseline = got["median_s"]
            rows.append({"test": "RTT baseline via the switch (no delay)", "configured_s": 0.0,
                         **got, "ok": got["loss_pct"] == 0})
            log(_format_row(rows[-1]))
            continue
        configured = 4 * delay
        added = got["median_s"] - baseline
        rows.append({"test": f"RTT, {format_duration(delay)} per link via the switch",
                     "configured_s": configured, **got, "added_s": added,
                     "ratio": added / configured,
                     "ok": abs(added - configured) <= max(RTT_TOLERANCE * configured,
                                                          RTT_SLACK_S)})
        log(_format_row(rows[-1]))
    return rows


def bench_bringup(caps, log) -> dict:
    from testbed.topology.generators import leaf_spine
    topo = leaf_spine(leaves=8, spines=1, hosts_per_leaf=8, scale=1e-3)
    blueprint = _with_free_ports(blueprint_from_topology(topo, "leaf-spine 8x8+1"))
    net = Network(blueprint, RESULTS_DIR, caps, log=log)
    try:
        net.start()
        probe_host = blueprint.hosts[-1]
        reach = measure_rtt(net, blueprint.hosts[0].name, probe_host.address, count=5)
    finally:
        t0 = time.monotonic()
        net.stop()
        teardown = time.monotonic() - t0
    row = {"test": f"bring-up {len(blueprint.hosts)} hosts, {len(blueprint.switches)} switches",
           "seconds": net.timings["total"], "phases_s": dict(net.timings),
           "teardown_s": teardown, "first_to_last_host_rtt_s": reach["avg_s"],
           "ok": net.timings["total"] <= 15.0 and reach["loss_pct"] < 100}
    log(_format_row(row))
    return row


def _format_row(row: dict) -> str:
    mark = "ok  " if row["ok"] else "MISS"
    if "wire_bps" in row:
        return (f"{mark} {row['test']}: configured {format_rate(row['configured_bps'])}, "
                f"measured {format_rate(row['wire_bps'])} on the wire (ratio "
                f"{row['ratio']:.3f}), TCP goodput {format_rate(row['goodput_bps'])}")
    if "measured_ratio" in row:
        return (f"{mark} {row['test']}: measured {row['measured_ratio']:.3f} : 1, "
                f"configured 2 : 1 (off by {abs(row['ratio'] - 1) * 100:.1f} %)")
    if "added_s" in row:
        return (f"{mark} {row['test']}: configured {format_duration(row['configured_s'])}, "
                f"measured median {format_duration(row['median_s'])} (min "
                f"{format_duration(row['min_s'])}, mean {format_duration(row['avg_s'])}), "
                f"added to the baseline {format_duration(row['added_s'])} (ratio "
                f"{row['ratio']:.3f})")
    if "configured_s" in row:
        return (f"{mark} {row['test']}: median {format_duration(row['median_s'])} (min "
                f"{format_duration(row['min_s'])}, mean {format_duration(row['avg_s'])}), "
                f"{row['loss_pct']:g} % loss")
    phases = ", ".join(f"{k} {v:.2f} s" for k, v in row["phases_s"].items() if k != "total")
    return (f"{mark} {row['test']}: {row['seconds']:.2f} s ({phases}); teardown "
            f"{row['teardown_s']:.2f} s; h1 -> last host RTT "
            f"{format_duration(row['first_to_last_host_rtt_s'])}")


def main(args) -> int:
    caps = probe()
    quiet = args.json

    def log(line: str) -> None:
        if not quiet:
            print(line, flush=True)

    log(render(caps))
    if not caps.root:
        raise TrainetError("trainet bench links needs root (network namespaces, tc)")
    if not caps.iperf3:
        raise TrainetError("trainet bench links needs iperf3; install it (apt install iperf3)")
    rates = (10e6, 100e6) if args.quick else (1e6, 10e6, 100e6, 1e9)
    delays = (5e-3,) if args.quick else (1e-3, 5e-3, 20e-3)
    report = {"capabilities": {"qdiscs": caps.qdiscs, "plan": vars(caps.shaping_mode())}}
    report["rates"] = bench_rates(caps, rates, args.seconds, log)
    report["rates"] += bench_rates(caps, (100e6,) if args.quick else (10e6, 100e6),
                                   args.seconds, log, switch=True)
    report["coscaled"] = bench_coscaled(caps, args.seconds, log)
    report["rtt"] = bench_rtt(caps, delays, log)
    if not args.quick:
        report["bringup"] = bench_bringup(caps, log)
    rows = report["rates"] + report["coscaled"] + report["rtt"] + (
        [report["bringup"]] if "bringup" in report else [])
    missed = [r["test"] for r in rows if not r["ok"]]
    if args.json:
        print(json.dumps(report, indent=1, default=str))
    else:
        print(f"{len(rows) - len(missed)} of {len(rows)} within target"
              + (f"; missed: {', '.join(missed)}" if missed else ""))
    return 0
