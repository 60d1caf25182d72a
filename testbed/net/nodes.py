"""Mininet node classes: P4 switches run as separate processes, hosts set up as the P4
tutorials do (no TX checksum offload, default route, static ARP).

Switch processes start in :meth:`P4Switch.start` without waiting; Mininet then calls
:meth:`P4Switch.batchStartup` with all switches of a class, which waits for every gRPC
port at once, so bring-up time does not grow with the number of switches.
"""
from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

from mininet.node import Host, Switch

from testbed.errors import TrainetError
from testbed.net.cleanup import RUN_MARKER
from testbed.switch.port_shape import port_shape_argument

REPO_ROOT = Path(__file__).resolve().parents[2]
READY_TIMEOUT_S = 60.0


def port_answers(port: int, host: str = "127.0.0.1") -> bool:
    try:
        with socket.create_connection((host, port), timeout=0.2):
            return True
    except OSError:
        return False


def _tail(path: Path, lines: int = 8) -> str:
    try:
        text = path.read_text(errors="replace").strip().splitlines()
    except OSError:
        return "(no log written)"
    return "\n".join("    " + line for line in text[-lines:]) or "(log is empty)"


class P4Switch(Switch):
    """A P4 switch process serving P4Runtime on ``grpc_port``, with the node's
    interfaces as its ports (port number = Mininet port number)."""

    def __init__(self, name, p4_path=None, grpc_port=9559, device_id=0, cpu_port=None,
                 results_dir="results", pcap=False, shapes=None, run_id=None, **params):
        params["inNamespace"] = False
        super().__init__(name, **params)
        if p4_path is None:
            raise TrainetError(f"switch {name}: no P4 program given")
        self.p4_path = Path(p4_path)
        self.grpc_port = int(grpc_port)
        self.device_id = int(device_id)
        self.cpu_port = cpu_port
        self.results_dir = Path(results_dir)
        self.pcap = pcap
        self.shapes = dict(shapes or {})          # port number -> shape text for the switch
        self.run_id = run_id
        self.process: subprocess.Popen | None = None
        self.log_path = self.results_dir / "logs" / f"{name}.log"
        self.stats_path = self.results_dir / "logs" / f"{name}.stats.json"  # trainet switch's
        self.pcap_dir = self.results_dir / "pcaps"

    @property
    def grpc_address(self) -> str:
        return f"127.0.0.1:{self.grpc_port}"

    def data_ports(self) -> dict:
        """{port number: interface name} of the data ports."""
        return {port: intf.name for port, intf in sorted(self.intfs.items())
                if intf.name != "lo"}

    def command(self) -> list[str]:
        """The switch's command line; each switch kind gives its own."""
        raise NotImplementedError(type(self).__name__)

    def start(self, controllers) -> None:
        if port_answers(self.grpc_port):
            raise TrainetError(f"switch {self.name}: gRPC port {self.grpc_port} is already in "
                               "use; run `trainet down` or choose another grpc port")
        self.log_path.parent.mkdir(parents=True, exist_ok=True)
        if self.pcap:
            self.pcap_dir.mkdir(parents=True, exist_ok=True)
        env = dict(os.environ)
        if self.run_id:
            env[RUN_MARKER] = self.run_id
        env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(REPO_ROOT),
                                                          env.get("PYTHONPATH")]))
        with open(self._stdout_path(), "wb") as out:
            self.process = subprocess.Popen(self.command(), stdout=out, stderr=subprocess.STDOUT,
                                            stdin=subprocess.DEVNULL, env=env, cwd=REPO_ROOT,
                                            start_new_session=True)

    def _stdout_path(self) -> Path:
        return self.results_dir / "logs" / f"{self.name}.stdout"

    def _output_tail(self) -> str:
        return _tail(self._stdout_path())

    def _ready(self) -> bool:
        return port_answers(self.grpc_port)

    def wait_ready(self, deadline: float) -> None:
        """Wait until the gRPC port answers; raise TrainetError with the log if the
        process exits or ``deadline`` (monotonic time) passes."""
        while True:
            if self.process.poll() is not None:
                raise TrainetError(
                    f"switch {self.name} exited with status {self.process.returncode} while "
                    f"starting; its output ({self._stdout_path()}):\n{self._output_tail()}\n"
                    f"log: {self.log_path}")
            if self._ready():
                return
            if time.monotonic() > deadline:
                raise TrainetError(f"switch {self.name}: gRPC port {self.grpc_port} does not "
                                   f"answer after {READY_TIMEOUT_S:g} s; see {self.log_path}")
            time.sleep(0.05)

    @classmethod
    def batchShutdown(cls, switches):
        """Stop all switch processes at once (SIGTERM, then SIGKILL after 3 s)."""
        cls.stop_processes(switches)
        for switch in switches:
            switch.stop_process()          # exited by now; releases what it held besides
            Switch.stop(switch, deleteIntfs=True)
        return switches

    @staticmethod
    def stop_processes(switches) -> None:
        """SIGTERM to every switch process at once, SIGKILL to those still running after
        3 s; each waited for. Called before Mininet deletes the links, so a switch never
        sees its ports' interfaces deleted under it at a normal tear-down."""
        procs = [s.process for s in switches if getattr(s, "process", None) is not None]
        for proc in procs:
            if proc.poll() is None:
                proc.send_signal(signal.SIGTERM)
        deadline = time.monotonic() + 3.0
        for proc in procs:
            try:
                proc.wait(timeout=max(deadline - time.monotonic(), 0.01))
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()

    @classmethod
    def batchStartup(cls, switches):
        deadline = time.monotonic() + READY_TIMEOUT_S
        for switch in switches:
            switch.wait_ready(deadline)
        return switches

    def stop_process(self) -> None:
        proc, self.process = self.process, None
        if proc is None or proc.poll() is not None:
            return
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(timeout=3)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()

    def stop(self, deleteIntfs=True):
        self.stop_process()
        super().stop(deleteIntfs)


class SoftwareP4Switch(P4Switch):
    """The testbed's own switch (``trainet switch``), run from this Python."""

    def command(self) -> list[str]:
        cmd = [sys.executable, "-m", "testbed.cli", "switch", str(self.p4_path),
               "--device-id", str(self.device_id), "--grpc-port", str(self.grpc_port),
               "--log", str(self.log_path), "--stats", str(self.stats_path)]
        for port, ifname in self.data_ports().items():
            cmd += ["-i", f"{port}@{ifname}"]
        if self.cpu_port is not None:
            cmd += ["--cpu-port", str(self.cpu_port)]
        if self.pcap:
            cmd += ["--pcap", str(self.pcap_dir)]
        for port, shape in sorted(self.shapes.items()):
            cmd += ["--port-shape", port_shape_argument(port, shape)]
        return cmd


class Bmv2Switch(P4Switch):
    """BMv2 ``simple_switch_grpc`` with the same P4 source, compiled by p4c to BMv2 JSON.

    Delay, jitter and loss of the software switch's egress model are not available in
    BMv2; links needing them require netem.
    """

    def start(self, controllers) -> None:
        self.json_path = self.compile()
        super().start(controllers)

    def compile(self) -> Path:
        if not shutil.which("simple_switch_grpc"):
            raise TrainetError(f"switch {self.name}: BMv2 simple_switch_grpc is not on PATH; "
                               "install BMv2 (vagrant/bmv2.sh) or use the software switch")
        p4c = shutil.which("p4c") or shutil.which("p4c-bm2-ss")
        if not p4c:
            raise TrainetError(f"switch {self.name}: BMv2 needs the program as BMv2 JSON, which "
                               "only p4c produces, and p4c is not on PATH; install p4c "
                               "(vagrant/bmv2.sh) or use the software switch")
        out_dir = self.results_dir / "build"
        out_dir.mkdir(parents=True, exist_ok=True)
        json_path = out_dir / f"{self.p4_path.stem}.json"
        done = subprocess.run([p4c, "--target", "bmv2", "--arch", "v1model", "-o", str(out_dir),
                               str(self.p4_path)] if p4c.endswith("p4c") else
                              [p4c, "-o", str(json_path), str(self.p4_path)],
                              capture_output=True, text=True)
        if done.returncode != 0 or not json_path.exists():
            raise TrainetError(f"switch {self.name}: p4c could not compile {self.p4_path}:\n"
                               f"{done.stderr.strip()}")
        return json_path

    def command(self) -> list[str]:
        cmd = ["simple_switch_grpc", "--device-id", str(self.device_id),
               "--log-file", str(self.log_path.with_suffix("")), "--log-flush"]
        for port, ifname in self.data_ports().items():
            cmd += ["-i", f"{port}@{ifname}"]
        if self.pcap:
            cmd += ["--pcap", str(self.pcap_dir)]
        cmd += [str(self.json_path), "--", "--grpc-server-addr", self.grpc_address]
        if self.cpu_port is not None:
            cmd += ["--cpu-port", str(self.cpu_port)]
        return cmd


def in_own_sysfs(command: str) -> str:
    """``command``, a shell command on ``$SYS`` as on /sys, run on a sysfs mounted fresh in
    a private mount namespace, which shows the interfaces of the shell's network
    namespace whatever /sys the shell has (the machine's, or the host's own), and leaves
    every other mount as it is."""
    return ("unshare -m sh -c 'SYS=$(mktemp -d) && mount -t sysfs sysfs $SYS && "
            f"{command}; umount $SYS; rmdir $SYS'")


def receive_in_own_thread(ifname: str) -> str:
    """The shell command that has the frames arriving on veth ``ifname`` delivered by the
    interface's own NAPI kernel thread: GRO on makes the veth queue them for NAPI (else
    the sender's system call runs the whole receive path, the receiver's wake-up
    included: a switch multicasting a result to eight hosts did their receiving on its
    own thread), ``threaded`` moves that NAPI poll out of the sender's soft interrupt.
    The interface must be up: a veth has NAPI instances to thread only then. Best
    effort: a kernel without it keeps delivering in the sender."""
    return (f"ip link set dev {ifname} up; ethtool -K {ifname} gro on >/dev/null 2>&1; "
            + in_own_sysfs(f"echo 1 > $SYS/class/net/{ifname}/threaded")
            + " >/dev/null 2>&1")


def napi_threads() -> set:
    """The process ids of the machine's threaded-NAPI kernel threads (named napi/IF-ID)."""
    found = set()
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            with open(f"/proc/{pid}/comm") as comm:
                if comm.read().startswith("napi/"):
                    found.add(int(pid))
        except OSError:             # gone meanwhile
            pass
    return found


def yield_to_senders(pids) -> None:
    """Run NAPI kernel threads ``pids`` as SCHED_BATCH: a frame that wakes one no longer
    preempts the thread sending it (a batch task does not preempt on wake-up), so a
    switch finishes its sendmmsg, and the frames it sends a host meanwhile find that
    host's NAPI already scheduled (a bit test, not a wake-up each). They keep their fair
    share of the CPU (SCHED_IDLE would starve them under load). Best effort: a thread
    gone or a kernel refusing keeps its policy."""
    for pid in pids:
        try:
            os.sched_setscheduler(pid, os.SCHED_BATCH, os.sched_param(0))
        except OSError:
            pass


class P4Host(Host):
    """A host as in the P4 tutorials: one interface named eth0, TX checksum offload off
    (frames pass a software switch that does not complete checksums), no IPv6 chatter,
    static ARP."""

    def config(self, **params):
        intf = self.defaultIntf()
        if intf is not None and intf.name != "eth0":
            intf.rename("eth0")        # the tutorials' host commands name "eth0"
        result = super().config(**params)
        self.cmd("sysctl -qw net.ipv6.conf.all.disable_ipv6=1 "
                 "net.ipv6.conf.default.disable_ipv6=1")
        for intf in self.intfList():
            if intf.name != "lo":
                self.cmd(f"ethtool -K {intf.name} tx off rx off sg off tso off gso off "
                         "gro off >/dev/null 2>&1")
        return result

    def receive_in_own_thread(self) -> bool:
        """:func:`receive_in_own_thread` on every interface, once the network is up (a
        MAC or link change before would take the setting away again); whether every
        interface took it."""
        names = [intf.name for intf in self.intfList() if intf.name != "lo"]
        before = napi_threads()
        for name in names:
            self.cmd(receive_in_own_thread(name))
        yield_to_senders(napi_threads() - before)
        states = [self.cmd(in_own_sysfs(f"cat $SYS/class/net/{n}/threaded")
                           + " 2>/dev/null").strip() for n in names]
        return states == ["1"] * len(names)

    def write_file(self, path: Path, text: str) -> str:
        """Write a file the host's commands read; its path as the host sees it."""
        Path(path).write_text(text)
        return str(path)

    def set_routes(self, gateway: str | None, gateway_mac: str | None, peers: dict,
                   batch_dir: Path) -> None:
        """Default route (via ``gateway`` when given, else on-link) and a static ARP
        entry for every other host (``peers``: {ip: mac}) and for the gateway, written
        by one ``ip -batch`` (one process per host, not one per entry)."""
        intf = self.defaultIntf().name
        lines = []
        if gateway:
            if gateway_mac:
                lines.append(f"neigh replace {gateway} lladdr {gateway_mac} dev {intf} "
                             "nud permanent")
            lines.append(f"route replace default via {gateway} dev {intf} onlink")
        else:
            lines.append(f"route replace default dev {intf}")
        lines += [f"neigh replace {ip} lladdr {mac} dev {intf} nud permanent"
                  for ip, mac in peers.items()]
        batch = self.write_file(batch_dir / f"{self.name}.ip", "\n".join(lines) + "\n")
        out = self.cmd(f"ip -batch {batch} 2>&1")
        if out.strip():
            raise TrainetError(f"host {self.name}: setting routes and ARP entries failed "
                               f"({batch}): {out.strip()}")
