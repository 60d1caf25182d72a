"""Handlers of ``trainet up`` and ``trainet down``."""
from __future__ import annotations

import signal

from testbed.errors import TrainetError
from testbed.units import format_duration, format_rate


def _interrupt(signum, frame):
    raise KeyboardInterrupt


def table(rows: list[list[str]], header: list[str]) -> str:
    widths = [max(len(str(r[i])) for r in [header] + rows) for i in range(len(header))]
    lines = ["  ".join(str(c).ljust(w) for c, w in zip(header, widths)).rstrip()]
    lines.append("  ".join("-" * w for w in widths))
    lines += ["  ".join(str(c).ljust(w) for c, w in zip(r, widths)).rstrip() for r in rows]
    return "\n".join(lines)


def summary(network) -> str:
    blueprint = network.blueprint
    nodes = [[h.name, "host", h.ip, h.mac, ""] for h in blueprint.hosts]
    nodes += [[s.name, f"P4 switch ({s.kind})", f"gRPC 127.0.0.1:{s.grpc_port}",
               f"device {s.device_id}", s.p4] for s in blueprint.switches]
    header = ["node", "kind", "address", "id", "program"]
    if network.placement:                    # cluster mode: where each node runs
        nodes = [row + [network.server_of(row[0])] for row in nodes]
        header.append("server")
    links = []
    for link in blueprint.links:
        sh = link.shape
        links.append([f"{link.a}-eth{link.a_port} <-> {link.b}-eth{link.b_port}",
                      format_rate(sh.nominal_bps) if sh.nominal_bps else "unlimited",
                      format_rate(sh.rate_bps) if sh.rate_bps else "unlimited",
                      format_duration(sh.delay_s), format_duration(sh.jitter_s),
                      f"{sh.loss * 100:g} %"])
    timings = ", ".join(f"{k} {v:.2f} s" for k, v in network.timings.items())
    return "\n".join([
        f"{blueprint.source}: {len(blueprint.hosts)} hosts, {len(blueprint.switches)} switches, "
        f"{len(blueprint.links)} links, co-scaling factor {blueprint.scale:g}",
        table(nodes, header), "",
        table(links, ["link", "nominal rate", "emulated rate", "one-way delay", "jitter",
                      "loss"]), "",
        f"bring-up: {timings}",
        f"results: {network.results_dir}"])


def up(args) -> int:
    from testbed.net.cluster import cluster_from
    from testbed.net.network import Network
    from testbed.net.probe import probe, render
    from testbed.net.topology import load_blueprint

    caps = probe()
    print(render(caps), flush=True)
    if not caps.root:
        raise TrainetError("trainet up needs root (network namespaces, tc); run it with sudo")
    if not caps.mininet:
        raise TrainetError("trainet up needs Mininet; install it (vagrant/install.sh)")
    blueprint = load_blueprint(args.topology, p4=args.p4)
    cluster = cluster_from(None, args.servers, args.placement, args.link)
    signal.signal(signal.SIGTERM, _interrupt)
    with Network(blueprint, args.results, caps, pcap=args.pcap, cluster=cluster) as network:
        print(summary(network), flush=True)
        if args.no_cli:
            print("network up; stop it with Ctrl-C, SIGTERM or `trainet down`", flush=True)
            try:
                while True:
                    signal.pause()
            except KeyboardInterrupt:
                pass
        else:
            from testbed.net.console import TrainetCLI
            TrainetCLI(network)
    print("network removed")
    return 0


def down(args) -> int:
    from testbed.net.cleanup import down as remove_all
    report = remove_all(mininet_cleanup=args.mininet)
    for line in report:
        print(line)
    if not report:
        print("nothing to remove")
    return 0
