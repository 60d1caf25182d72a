"""A topology brought up as a Mininet network of P4 switches, programmed over P4Runtime.

``with Network(blueprint, "results") as net:`` builds the hosts, switches and links, shapes
the links, starts the switch processes in parallel, pushes each switch's pipeline and
runtime config, and on exit (or on any failure during bring-up) removes everything.
"""
from __future__ import annotations

import os
import signal
import time
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from pathlib import Path

from mininet.link import Link
from mininet.log import setLogLevel
from mininet.net import Mininet

from testbed.errors import TrainetError
from testbed.net import shaping
from testbed.net.cleanup import (RUN_MARKER, RunState, existing_interfaces, remove_orphans,
                                  remove_run, wait_interfaces_gone)
from testbed.net.cluster import LOCAL
from testbed.net.limits import raise_limits
from testbed.net.nodes import Bmv2Switch, P4Host, P4Switch, SoftwareP4Switch
from testbed.net.blueprint import NetBlueprint
from testbed.net.probe import Capabilities, probe

SWITCH_CLASSES = {"software": SoftwareP4Switch, "bmv2": Bmv2Switch}
TUNNEL_TAP = "tap9"     # the name mininet.examples.cluster's RemoteSSHLink creates first


def host_intf_name(host: str, port: int) -> str:
    return f"{host}-eth{port}"


def run_controller(s) -> None:
    """Call a switch's own control program: ``function(address, device_id, args)``."""
    import importlib
    module_name, _, func_name = s.controller.entry.partition(":")
    try:
        func = getattr(importlib.import_module(module_name), func_name)
    except (ImportError, AttributeError) as err:
        raise TrainetError(f"switch {s.name}: controller {s.controller.entry!r} cannot be "
                           f"loaded ({err}); give an importable 'package.module:function'")
    func(f"127.0.0.1:{s.grpc_port}", s.device_id, dict(s.controller.args))


@contextmanager
def _marked(run_id: str):
    """Processes started in the block carry ``run_id`` as their RUN_MARKER (Mininet's
    host shells among them), so a run killed before it recorded them is still cleaned."""
    previous = os.environ.get(RUN_MARKER)
    os.environ[RUN_MARKER] = run_id
    try:
        yield
    finally:
        if previous is None:
            del os.environ[RUN_MARKER]
        else:
            os.environ[RUN_MARKER] = previous


def proc_net_dev(text: str, names: list[str]) -> dict:
    """{interface: (rx bytes, tx bytes)} of ``names`` in the text of /proc/net/dev."""
    out = {}
    for line in text.splitlines()[2:]:
        name, sep, rest = line.partition(":")
        fields = rest.split()
        if sep and name.strip() in names and len(fields) >= 9:
            out[name.strip()] = (int(fields[0]), int(fields[8]))
    return out


class Network:
    def __init__(self, blueprint: NetBlueprint, results_dir: str | Path = "results",
                 caps: Capabilities | None = None, pcap: bool = False, log=print,
                 cluster=None):
        self.blueprint = blueprint
        self.cluster = cluster             # cluster.Cluster, or None: all on this machine
        self.placement: dict = {}          # node -> server name (cluster mode)
        self.sites: dict = {}              # server name -> remote.Site (cluster mode)
        self.results_dir = Path(results_dir).resolve()
        self.caps = caps or probe()
        self.shaping = self.caps.shaping_mode()
        self.pcap = pcap
        self.log = log
        self.net: Mininet | None = None
        self.state: RunState | None = None
        self.timings: dict = {}            # phase -> seconds
        self.endpoint_shapes: dict = {}    # interface name -> shaping.EndpointShape
        self.programmed: dict = {}         # switch name -> objects written
        self.p4infos: dict = {}            # P4 path -> P4Info
        self.runtime_configs: dict = {}    # switch name -> controllers.runtime_config.RuntimeConfig
        self._artifacts: dict = {}         # remote switch name -> its program's artefact

    # ------------------------------------------------------------ bring-up
    def __enter__(self) -> "Network":
        self.start()
        return self

    def __exit__(self, *exc) -> None:
        self.stop()

    def start(self) -> "Network":
        t0 = time.monotonic()
        try:
            if self.cluster is not None:
                self.cluster.check()
                self.placement = self.cluster.place(self.blueprint)
            self._prepare_programs()
            for line in remove_orphans():
                self.log(f"note: removed what a run that is gone left behind: {line}")
            self._check_free()
            self.state = RunState.new(str(self.results_dir))
            self.state.interfaces = sorted(self._root_interfaces())
            self._record_sites()
            self.state.save()
            with _marked(self.state.run_id):
                self._build()
            self.timings["build"] = time.monotonic() - t0
            t1 = time.monotonic()
            self.net.start()
            self._receive_in_own_threads()
            self.state.switches = {s.name: s.process.pid for s in self.net.switches
                                   if s.process is not None}
            self.state.save()
            self.timings["switches"] = time.monotonic() - t1
            t2 = time.monotonic()
            self._program_switches()
            self.timings["program"] = time.monotonic() - t2
        except BaseException as err:
            self.stop()
            if isinstance(err, TrainetError):
                raise TrainetError(f"{err}\n(bring-up stopped; everything it made was "
                                   "removed)") from None
            if isinstance(err, Exception):
                raise TrainetError(f"bring-up of {self.blueprint.source} failed: "
                                   f"{type(err).__name__}: {err}\n(everything it made was "
                                   "removed; run `trainet down` if anything is left)") from err
            raise
        self.timings["total"] = time.monotonic() - t0
        return self

    def server_of(self, node: str) -> str:
        return self.placement.get(node, LOCAL)

    def _root_interfaces(self, server: str = LOCAL) -> set[str]:
        """Interfaces this network creates in ``server``'s root namespace (the
        switches')."""
        names = set()
        for link in self.blueprint.links:
            for node, port in ((link.a, link.a_port), (link.b, link.b_port)):
                names.add(host_intf_name(node, port))
        hosts = {h.name for h in self.blueprint.hosts}
        return {n for n in names if n.rsplit("-eth", 1)[0] not in hosts
                and self.server_of(n.rsplit("-eth", 1)[0]) == server}

    def _check_free(self) -> None:
        taken = sorted(self._root_interfaces() & existing_interfaces())
        if taken:
            raise TrainetError(f"interface(s) {', '.join(taken[:5])} already exist: another "
                               "network is up; stop it (`trainet down`) before starting this one")
        for name in sorted(set(self.placement.values()) - {LOCAL}):
            server = self.cluster.server(name)
            out = server.run("ip -o link show").stdout.decode(errors="replace")
            present = {line.split(": ", 2)[1].split("@")[0] for line in out.splitlines()
                       if line.count(": ") >= 2}
            taken = sorted((self._root_interfaces(name) | {TUNNEL_TAP}) & present)
            if taken:
                raise TrainetError(f"server {name}: interface(s) {', '.join(taken[:5])} already "
                                   "exist there (another network, or a tunnel left behind); "
                                   "run `trainet down` there first")

    def _record_sites(self) -> None:
        """Sites of the servers this network uses besides this one, in the run state
        before anything exists there, so `trainet down` can reach them after a crash."""
        if self.cluster is None:
            return
        from dataclasses import asdict

        from testbed.net.remote import Site
        # Mininet's SSH tunnels start as tap9 on both ends and are renamed once up
        spare = [TUNNEL_TAP] if self.cluster.link == "ssh" else []
        for name in sorted(set(self.placement.values()) - {LOCAL}):
            site = Site(self.cluster.server(name), self.state.run_id)
            self.sites[name] = site
            self.state.servers[name] = {"server": asdict(site.server), "shells": {},
                                        "interfaces": sorted(self._root_interfaces(name))
                                        + spare}
        if self.sites:
            self.state.interfaces += spare
            # every process this one starts (Mininet's ssh clients and tunnels among
            # them) carries the marker, so the local cleanup finds them too
            os.environ[RUN_MARKER] = self.state.run_id

    def _receive_in_own_threads(self) -> None:
        """Every local host's interfaces deliver what arrives in their own NAPI threads
        (testbed/net/nodes.py); one note when the kernel does not let them."""
        hosts = [h for h in self.net.hosts
                 if not hasattr(h, "site") and hasattr(h, "receive_in_own_thread")]
        refused = [h.name for h in hosts if not h.receive_in_own_thread()]
        if refused:
            self.log(f"note: {', '.join(refused)}: no threaded NAPI on their interfaces; "
                     "what a switch sends them is delivered on the switch's thread")

    def _build(self) -> None:
        setLogLevel("warning")
        raise_limits(self.log)   # one plain line, not Mininet's warning, where limits stay
        self.net = Mininet(topo=None, build=False, controller=None, host=P4Host,
                           link=self._link_class(), autoSetMacs=False, autoStaticArp=False,
                           waitConnected=False)
        is_switch = {s.name for s in self.blueprint.switches}
        shapes_at = {}   # (node, port) -> EndpointShape
        for link in self.blueprint.links:
            a, b = shaping.endpoint_shapes(link.shape, link.a in is_switch, link.b in is_switch,
                                           self.shaping)
            shapes_at[(link.a, link.a_port)] = a
            shapes_at[(link.b, link.b_port)] = b
        for h in self.blueprint.hosts:
            self.net.addHost(h.name, ip=h.ip, mac=h.mac, **self._remote_params(h.name))
        for index, s in enumerate(self.blueprint.switches, start=1):
            if s.kind == "bmv2" and not self.caps.bmv2:
                self.log(f"note: {s.name} asks for BMv2, which is not installed; it runs the "
                         "software switch")
                s.kind = "software"
            remote = self._remote_params(s.name, switch=s)
            cls = remote.pop("cls", SWITCH_CLASSES[s.kind])
            switch_shapes = {port: shaping.switch_shape_text(side)
                             for (node, port), side in shapes_at.items()
                             if node == s.name and side.switch_shaped}
            # Mininet derives a datapath id from the digits of a switch's name and refuses
            # names without any ("spine"); P4 switches do not use it, so give one.
            self.net.addSwitch(s.name, cls=cls, dpid=f"{index:016x}", p4_path=s.p4,
                               grpc_port=s.grpc_port,
                               device_id=s.device_id, cpu_port=s.cpu_port,
                               results_dir=str(self.results_dir), pcap=self.pcap,
                               shapes=switch_shapes, run_id=self.state.run_id, **remote)
        for link in self.blueprint.links:
            self.net.addLink(link.a, link.b, port1=link.a_port, port2=link.b_port,
                             intfName1=host_intf_name(link.a, link.a_port),
                             intfName2=host_intf_name(link.b, link.b_port))
        self.net.build()
        self.state.hosts = {h.name: h.pid for h in self.net.hosts if not hasattr(h, "site")}
        for node in self.net.hosts + self.net.switches:
            if hasattr(node, "site"):
                self.state.servers[node.server]["shells"][node.name] = node.pid
        self.state.save()
        for (node, port), side in shapes_at.items():
            intf = host_intf_name(node, port)
            self.endpoint_shapes[intf] = side
            self._apply_mtu(node, intf, side)
            self._apply_tc(node, intf, side)
        self._configure_hosts()

    def _link_class(self):
        if not self.sites:
            return Link
        from mininet.examples.cluster import RemoteGRELink, RemoteSSHLink
        return RemoteGRELink if self.cluster.link == "gre" else RemoteSSHLink

    def _remote_params(self, node: str, switch=None) -> dict:
        """Node parameters that put ``node`` on its server in cluster mode."""
        if not self.sites:
            return {}
        from testbed.net import remote
        site = self.sites.get(self.server_of(node))
        if site is None:
            cls = P4Host if switch is None else SWITCH_CLASSES[switch.kind]
            return {"cls": remote.on_this_machine(cls), "server": LOCAL}
        if switch is None:
            return {"cls": remote.RemoteP4Host, "site": site}
        if switch.kind != "software":
            raise TrainetError(f"switch {switch.name}: only the software switch runs on "
                               "another server; place this one on localhost")
        return {"cls": remote.RemoteSoftwareP4Switch, "site": site,
                "json_path": str(self._artifacts[switch.name])}

    def device_name(self, intf: str) -> str:
        """The Linux name of a link interface ``NODE-ethPORT`` (hosts' is eth0)."""
        node, port = intf.rsplit("-eth", 1)
        return self.net[node].intfs[int(port)].name

    def _apply_mtu(self, node: str, intf: str, side: shaping.EndpointShape) -> None:
        """The link's MTU on this end (both ends of a link get it, before the switches
        start: a switch port sizes its receive ring by its interface's MTU)."""
        for cmd in shaping.mtu_commands(self.device_name(intf), side):
            out = self.net[node].cmd(cmd + " 2>&1")
            if out.strip():
                raise TrainetError(f"MTU {side.mtu} B on {intf}: ip said: {out.strip()}")

    def _apply_tc(self, node: str, intf: str, side: shaping.EndpointShape) -> None:
        cmds = shaping.tc_commands(self.device_name(intf), side, self.shaping.rate_qdisc)
        if len(cmds) == 1:
            return
        out = self.net[node].cmd("; ".join(cmds[:1] + [c + " 2>&1" for c in cmds[1:]]))
        if out.strip():
            raise TrainetError(f"shaping {intf}: tc said: {out.strip()}")

    def _configure_hosts(self) -> None:
        peers = {h.address: h.mac for h in self.blueprint.hosts}
        batch_dir = self.results_dir / "hosts"
        batch_dir.mkdir(parents=True, exist_ok=True)
        for h in self.blueprint.hosts:
            node = self.net[h.name]
            node.set_routes(h.gateway, h.gateway_mac,
                            {ip: mac for ip, mac in peers.items() if ip != h.address},
                            batch_dir)
            for command in h.commands:
                node.cmd(command)

    def _prepare_programs(self) -> None:
        """Compile every P4 program and resolve every runtime config against its P4Info
        before anything is created, so input errors leave nothing to clean up."""
        if not self.blueprint.switches:
            return
        from controllers.runtime_config import RuntimeConfig
        from testbed.p4 import p4info as p4info_builder
        from testbed.p4.lowering.program import load_program

        infos = self.p4infos
        for s in self.blueprint.switches:
            if s.p4 not in infos:
                infos[s.p4] = p4info_builder.build(load_program(s.p4))
            if self.server_of(s.name) != LOCAL:
                self._artifacts[s.name] = self._write_artifact(s)
        for s in self.blueprint.switches:
            runtime, where = s.runtime, f"switch {s.name} runtime"
            if isinstance(runtime, dict) or runtime is None:
                config = RuntimeConfig(infos[s.p4], runtime or {}, where)
            else:
                config = RuntimeConfig.load(infos[s.p4], runtime)
            self.runtime_configs[s.name] = config

    def _write_artifact(self, s) -> Path:
        """trainet-p4c's self-contained form of a remote switch's program, the device
        config this machine sends it (no P4 file or include needs to exist there)."""
        from testbed.p4 import artifact
        path = self.results_dir / "build" / f"{s.name}.json"
        path.parent.mkdir(parents=True, exist_ok=True)
        artifact.write(artifact.compile_file(s.p4)[1], path)
        return path

    def _device_config(self, s) -> str:
        return str(getattr(self.net[s.name], "json_path", None) or s.p4)

    def _program_switches(self) -> None:
        if not self.blueprint.switches:
            return
        from controllers.runtime_config import program_switch
        infos, configs = self.p4infos, self.runtime_configs

        def program(s):
            return s.name, program_switch(f"127.0.0.1:{s.grpc_port}", s.p4, configs[s.name],
                                          s.device_id, p4info=infos[s.p4],
                                          device_config=self._device_config(s))

        with ThreadPoolExecutor(max_workers=min(8, len(self.blueprint.switches) or 1)) as pool:
            self.programmed = dict(pool.map(program, self.blueprint.switches))
        for s in self.blueprint.switches:
            if s.controller is not None:
                run_controller(s)


    # ------------------------------------------------------------ run time
    def node_of(self, intf: str):
        node = intf.rsplit("-eth", 1)[0]
        if self.net is None or node not in self.net:
            raise TrainetError(f"no interface {intf!r}: interfaces are NODE-ethPORT, e.g. "
                               f"{next(iter(self.endpoint_shapes), 's1-eth1')}")
        return self.net[node]

    def failure(self) -> str | None:
        """What of the running network has died, or None: a switch process that exited,
        a link whose switch-side interface is gone or down, on this server. Cheap
        enough to poll (one sysfs read per switch port)."""
        if self.net is None:
            return None
        for switch in self.net.switches:
            if self.server_of(switch.name) != LOCAL:
                continue
            proc = getattr(switch, "process", None)
            if proc is not None and proc.poll() is not None:
                rc = proc.returncode
                how = (f"was killed by signal {-rc} ({signal.Signals(-rc).name})" if rc < 0
                       else f"exited with code {rc}")
                return f"switch {switch.name} {how}; its log: {switch.log_path}"
        switches = {s.name for s in self.blueprint.switches}
        for link in self.blueprint.links:
            for node, port, peer in ((link.a, link.a_port, link.b), (link.b, link.b_port, link.a)):
                if node not in switches or self.server_of(node) != LOCAL:
                    continue
                intf = host_intf_name(node, port)
                try:
                    state = Path(f"/sys/class/net/{intf}/operstate").read_text().strip()
                except OSError:
                    return f"link {intf} -- {peer} is gone (its interface {intf} was removed)"
                if state not in ("up", "unknown"):
                    return f"link {intf} -- {peer} is down (interface {intf}: {state})"
        return None

    def interface_counters(self, names: list[str]) -> dict:
        """{interface: (rx bytes, tx bytes)} of switch interfaces, on whichever server
        each is (a remote one is read from /proc/net/dev through its switch's shell)."""
        counters, remote = {}, {}
        for name in names:
            node = name.rsplit("-eth", 1)[0]
            if self.server_of(node) == LOCAL:
                try:
                    base = Path(f"/sys/class/net/{name}/statistics")
                    counters[name] = (int((base / "rx_bytes").read_text()),
                                      int((base / "tx_bytes").read_text()))
                except (OSError, ValueError):
                    pass
            else:
                remote.setdefault(self.server_of(node), []).append(name)
        for server, wanted in remote.items():
            switch = self.net[wanted[0].rsplit("-eth", 1)[0]]
            counters.update(proc_net_dev(switch.cmd("cat /proc/net/dev"), wanted))
        return counters

    def switch_interfaces(self) -> list[str]:
        switches = {s.name for s in self.blueprint.switches}
        return sorted(i for i in self.endpoint_shapes if i.rsplit("-eth", 1)[0] in switches)

    def reshape(self, intf: str, rate_bps=None, delay_s=None, jitter_s=None,
                loss=None) -> shaping.EndpointShape:
        """Change the shaping of the frames leaving ``intf``. Kernel parts change in
        place; a change to the switch egress model restarts that switch with the new
        model and reinstalls its runtime config (entries written by other controllers
        since bring-up are lost)."""
        from dataclasses import replace
        if intf not in self.endpoint_shapes:
            known = ", ".join(sorted(self.endpoint_shapes)[:8])
            raise TrainetError(f"shape: no link interface {intf!r} (e.g. {known})")
        node = self.node_of(intf)
        is_switch = intf in self.switch_interfaces()
        old = side = self.endpoint_shapes[intf]
        if rate_bps is not None:
            key = "kernel_rate_bps" if self.shaping.rate_in_kernel else "switch_rate_bps"
            if key == "switch_rate_bps" and not is_switch:
                raise TrainetError(f"shape {intf}: without htb a host cannot limit its rate; "
                                   "shape the switch side of the link")
            side = replace(side, **{key: rate_bps})
        timing = {k: v for k, v in (("delay_s", delay_s), ("jitter_s", jitter_s),
                                    ("loss", loss)) if v is not None}
        if timing:
            prefix = "kernel_" if self.shaping.delay_in_kernel else "switch_"
            if prefix == "switch_" and not is_switch:
                raise TrainetError(f"shape {intf}: without netem a host cannot delay or drop; "
                                   "shape the switch side of the link (on host links it "
                                   "carries both directions)")
            side = replace(side, **{prefix + k: v for k, v in timing.items()})
        if side.switch_jitter_s and not side.switch_delay_s:
            raise TrainetError(f"shape {intf}: jitter needs a delay (e.g. delay=5ms)")
        self._apply_tc(node.name, intf, side)
        self.endpoint_shapes[intf] = side
        if shaping.switch_shape_text(side) != shaping.switch_shape_text(old):
            self._restart_switch(node, int(intf.rsplit("-eth", 1)[1]), side)
        return side

    def _restart_switch(self, switch, port: int, side: shaping.EndpointShape) -> None:
        from controllers.runtime_config import program_switch
        from testbed.net.nodes import READY_TIMEOUT_S
        text = shaping.switch_shape_text(side)
        if text:
            switch.shapes[port] = text
        else:
            switch.shapes.pop(port, None)
        switch.stop_process()
        switch.start(None)
        switch.wait_ready(time.monotonic() + READY_TIMEOUT_S)
        self.state.switches[switch.name] = switch.process.pid
        self.state.save()
        spec = next(s for s in self.blueprint.switches if s.name == switch.name)
        program_switch(switch.grpc_address, spec.p4, self.runtime_configs[spec.name],
                       spec.device_id, p4info=self.p4infos[spec.p4],
                       device_config=self._device_config(spec))

    # ------------------------------------------------------------ teardown
    def fetch(self, local_dir) -> None:
        """Copy what the programs on other servers wrote under ``local_dir`` here."""
        for site in self.sites.values():
            site.fetch(local_dir)

    def stop(self) -> None:
        net, self.net = self.net, None
        if net is not None:
            try:
                P4Switch.stop_processes(net.switches)    # before Mininet deletes the links
                net.stop()
            except Exception as err:     # keep removing: the state file lists the rest
                self.log(f"warning: Mininet stop failed ({err}); removing from the record")
            else:
                if self.state is not None:
                    # The kernel tears veths down with their namespaces asynchronously;
                    # wait for that, so the next network can reuse the names, and let
                    # remove_run delete whatever is still there after the wait.
                    self.state.interfaces = wait_interfaces_gone(self.state.interfaces)
        if self.state is not None:
            for site in self.sites.values():
                try:
                    site.fetch(self.results_dir)
                except TrainetError as err:
                    self.log(f"warning: {err}")
            remove_run(self.state)
            self.state = None
        if self.sites and os.environ.get(RUN_MARKER):
            del os.environ[RUN_MARKER]
