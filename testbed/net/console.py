"""The Mininet CLI of ``trainet up``, with verbs for the P4 side of the network:

* ``tables s1``: every table entry of s1, read back over P4Runtime;
* ``shape s1-eth1 rate=10mbit delay=5ms jitter=1ms loss=1%``: change a link's shaping;
* ``pcap on|off [iface]``: capture an interface (default: every switch port) to
  ``<results>/pcaps/<iface>.pcap`` (tcpdump, both directions).
"""
from __future__ import annotations

import ipaddress
import subprocess

from mininet.cli import CLI
from mininet.log import setLogLevel

from testbed.errors import TrainetError
from testbed.p4 import entries as E
from testbed.units import (UnitError, format_duration, format_rate, parse_duration,
                           parse_fraction, parse_rate)


def _value(value: int, width: int) -> str:
    if width == 32:
        return str(ipaddress.IPv4Address(value))
    if width == 48:
        return ":".join(f"{b:02x}" for b in value.to_bytes(6, "big"))
    return str(value) if value < 1024 else hex(value)


def format_entry(entry: E.TableEntry, fields: list, param_widths: dict,
                 counted: bool = False) -> str:
    keys = []
    for m, f in zip(entry.match, fields):
        w = f.bitwidth
        if m is None:
            keys.append(f"{f.name}=*")
        elif isinstance(m, E.Lpm):
            keys.append(f"{f.name}={_value(m.value, w)}/{m.prefix_len}")
        elif isinstance(m, E.Ternary):
            keys.append(f"{f.name}={_value(m.value, w)}&&&{_value(m.mask, w)}")
        elif isinstance(m, E.Range):
            keys.append(f"{f.name}={_value(m.low, w)}..{_value(m.high, w)}")
        else:
            keys.append(f"{f.name}={_value(m.value, w)}")
    params = ", ".join(f"{k}={_value(v, param_widths.get(k, 0))}"
                       for k, v in entry.action.params.items())
    prio = f" priority {entry.priority}" if entry.priority else ""
    counters = f"  [{entry.counter_packets} packets, {entry.counter_bytes} bytes]" \
        if counted else ""
    return f"  {' '.join(keys) or '(empty key)'}{prio} -> {entry.action.action}({params})" \
           f"{counters}"


def dump_tables(address: str, device_id: int = 0) -> str:
    from controllers.p4runtime_client import P4RuntimeClient
    client = P4RuntimeClient(address, device_id, timeout_s=5.0)
    try:
        index = client.p4info_index()
        lines = []
        for name in client.table_names():
            info = index.tables[index.table_ids[name]]
            fields = info.fields
            found = client.table_entries(name)
            lines.append(f"{name}: {len(found)} entries")
            for e in found:
                action = index.actions[index.action_ids[e.action.action]]
                widths = {p.name: p.bitwidth for p in action.params}
                lines.append(format_entry(e, fields, widths, info.direct_counter is not None))
        return "\n".join(lines)
    finally:
        client.close()


def parse_shape_args(words: list[str]) -> dict:
    """``rate=10mbit delay=5ms jitter=1ms loss=1%`` -> Network.reshape keyword arguments."""
    out = {}
    for word in words:
        key, eq, value = word.partition("=")
        if not eq:
            raise TrainetError(f"shape: {word!r} is not KEY=VALUE (keys: rate, delay, jitter, "
                               "loss)")
        if key == "rate":
            out["rate_bps"] = parse_rate(value)
        elif key in ("delay", "jitter"):
            out[f"{key}_s"] = parse_duration(value)
        elif key == "loss":
            try:
                out["loss"] = parse_fraction(value)
            except UnitError as err:
                raise TrainetError(f"shape: loss={value!r}: {err}") from None
        else:
            raise TrainetError(f"shape: unknown key {key!r}; keys: rate, delay, jitter, loss")
    if not out:
        raise TrainetError("shape: give at least one of rate=, delay=, jitter=, loss=")
    return out


def port_of(iface: str) -> int:
    return int(iface.rsplit("-eth", 1)[1])


class TrainetCLI(CLI):
    prompt = "trainet> "

    def __init__(self, network, **kwargs):
        setLogLevel("output")      # Mininet prints command results at this level
        self.network = network
        self.captures: dict = {}          # iface -> tcpdump Popen
        try:
            super().__init__(network.net, **kwargs)
        finally:
            self._stop_captures(list(self.captures))

    def _run(self, action) -> None:
        try:
            action()
        except TrainetError as err:
            self.stdout.write(f"{err}\n")

    def do_tables(self, line):
        """tables SWITCH: dump the switch's table entries (P4Runtime Read)."""
        def action():
            name = line.strip()
            switches = {s.name: s for s in self.network.blueprint.switches}
            if name not in switches:
                raise TrainetError(f"tables: no switch {name!r}; switches: "
                                   f"{', '.join(switches)}")
            s = switches[name]
            self.stdout.write(dump_tables(f"127.0.0.1:{s.grpc_port}", s.device_id) + "\n")
        self._run(action)

    def do_shape(self, line):
        """shape IFACE rate=10mbit delay=5ms jitter=1ms loss=1%: change an interface's
        egress shaping (the direction leaving IFACE)."""
        def action():
            words = line.split()
            if not words:
                raise TrainetError("shape: usage: shape IFACE rate=10mbit delay=5ms")
            side = self.network.reshape(words[0], **parse_shape_args(words[1:]))
            rate = side.kernel_rate_bps or side.switch_rate_bps
            delay = side.kernel_delay_s or side.switch_delay_s
            self.stdout.write(f"{words[0]}: rate {format_rate(rate) if rate else 'unlimited'}, "
                              f"delay {format_duration(delay)}\n")
        self._run(action)

    def do_pcap(self, line):
        """pcap on|off [IFACE]: capture frames of IFACE (default: all switch ports)."""
        def action():
            words = line.split()
            if not words or words[0] not in ("on", "off"):
                raise TrainetError("pcap: usage: pcap on|off [IFACE]")
            ifaces = words[1:] or self.network.switch_interfaces()
            if words[0] == "on":
                self._start_captures(ifaces)
            else:
                self._stop_captures(ifaces)
        self._run(action)

    def _start_captures(self, ifaces) -> None:
        out_dir = self.network.results_dir / "pcaps"
        out_dir.mkdir(parents=True, exist_ok=True)
        for iface in ifaces:
            if iface in self.captures:
                continue
            node = self.network.node_of(iface)
            if getattr(node, "site", None) is not None:
                raise TrainetError(f"pcap on {iface}: {node.name} runs on "
                                   f"{node.site.server.name}; bring the network up with "
                                   "--pcap to capture there (the captures come back here)")
            path = out_dir / f"{iface}.pcap"
            device = node.intfs[port_of(iface)].name
            proc = node.popen(["tcpdump", "-q", "-U", "--immediate-mode", "-i", device,
                               "-w", str(path)], stdout=subprocess.DEVNULL,
                              stderr=subprocess.PIPE, text=True)
            first = proc.stderr.readline()      # "listening on ...": capture has begun
            if proc.poll() is not None or "listening" not in first:
                proc.kill()
                raise TrainetError(f"pcap on {iface}: tcpdump failed: {first.strip()}")
            proc.stderr.close()
            self.captures[iface] = proc
            self.stdout.write(f"capturing {iface} to {path}\n")

    def _stop_captures(self, ifaces) -> None:
        for iface in ifaces:
            proc = self.captures.pop(iface, None)
            if proc is not None:
                proc.terminate()
                proc.wait(timeout=5)
                self.stdout.write(f"stopped capturing {iface}\n")
