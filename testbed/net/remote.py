"""Nodes of a network that live on another server (cluster mode, see cluster.py).

Hosts and switches are Mininet's ``RemoteMixin`` over the testbed's own node classes:
their shells, interfaces and ``tc`` run on their server over SSH. What the testbed adds
is its programs' side of it:

* a run directory per server, ``/tmp/trainet-<run id>``, under which every local path
  a program would write to is mirrored (a switch log at ``/r/s2.log`` here is
  ``/tmp/trainet-<id>/r/s2.log`` there); :meth:`Site.fetch` copies a tree back;
* the software switch started in the server's root namespace through the switch's
  shell, without a program (``--no-p4``): the pipeline arrives over P4Runtime as
  trainet-p4c's self-contained artefact, so no P4 file or include needs to exist there;
  its P4Runtime port stays on the server's loopback and an ``ssh -L`` forward makes it
  the same port on this machine's loopback, so every controller is unchanged;
* programs on remote hosts (workers, services) started over SSH with the environment the
  launcher gives locally; stopping one kills its process group on the server.

Every process started on a server carries the run's ``TRAINET_RUN`` marker, so the
per-server cleanup (``python -m testbed.net.cleanup --remote``) finds what is left.
"""
from __future__ import annotations

import os
import shlex
import subprocess
import time
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from mininet.examples.cluster import RemoteMixin

from testbed.errors import TrainetError
from testbed.net.cleanup import RUN_MARKER, remote_base
from testbed.net.cluster import Server
from testbed.net.nodes import P4Host, SoftwareP4Switch, port_answers

#: environment variables a program started on a server gets from the local one
FORWARDED_ENV = ("PYTHONPATH", "OMP_NUM_THREADS", RUN_MARKER, "TRAINET_STRATEGY_MODULES")


@dataclass(frozen=True)
class Site:
    """One server as one network run uses it."""
    server: Server
    run_id: str

    @property
    def base(self) -> str:
        return remote_base(self.run_id)

    def path(self, local) -> str:
        """Where the local absolute path ``local`` is mirrored on the server."""
        return self.base + str(Path(local).resolve())

    def fetch(self, local_dir) -> None:
        self.server.fetch(self.path(local_dir), Path(local_dir))

    def env_line(self, env: dict) -> str:
        """``K=V ...`` of the forwarded variables, PYTHONPATH led by the server's root."""
        values = {k: env[k] for k in FORWARDED_ENV if env.get(k)}
        values["PYTHONPATH"] = self.server.root
        return " ".join(f"{k}={shlex.quote(v)}" for k, v in values.items())


@lru_cache(maxsize=None)
def on_this_machine(cls):
    """``cls`` as a node of a cluster network on this machine: Mininet's tunnels ask
    every node for its server and run commands through its RemoteMixin methods."""
    return type(f"Cluster{cls.__name__}", (RemoteMixin, cls), {})


def site_of(node) -> Site | None:
    """The remote site of a Mininet node, None for a node on this machine."""
    return getattr(node, "site", None)


class RemoteProgram:
    """A program on a server started through a node's shell, with Popen's polling
    interface (``poll``, ``returncode``, ``pid``, ``send_signal``, ``wait``, ``kill``)
    so the switch code that watches local processes watches it unchanged."""

    def __init__(self, node, argv: list[str], stdout_path: str, env: dict):
        self.node, self.returncode = node, None
        site = node.site
        self.rc_path = stdout_path + ".rc"
        command = " ".join(shlex.quote(a) for a in argv)
        script = (f"mkdir -p {shlex.quote(str(Path(stdout_path).parent))} && "
                  f"cd {shlex.quote(site.server.root)} && "
                  f"{{ env {site.env_line(env)} {command} > {shlex.quote(stdout_path)} "
                  f"2>&1 < /dev/null; echo $? > {shlex.quote(self.rc_path)}; }}")
        out = node.cmd(f"rm -f {shlex.quote(self.rc_path)}; setsid sh -c "
                       f"{shlex.quote(script)} > /dev/null 2>&1 & echo $!")
        pids = [w for w in out.split() if w.isdigit()]
        if not pids:
            raise TrainetError(f"{node.name} on {site.server.name}: could not start "
                               f"{argv[0]}: {out.strip()}")
        self.pid = int(pids[-1])          # also its process group (setsid)

    def poll(self):
        if self.returncode is None:
            out = self.node.cmd(f"cat {shlex.quote(self.rc_path)} 2>/dev/null || "
                                f"{{ kill -0 {self.pid} 2>/dev/null && echo running; }}")
            words = out.split()
            if not words or words[-1] != "running":
                self.returncode = int(words[-1]) if words and words[-1].isdigit() else -9
        return self.returncode

    def send_signal(self, sig) -> None:
        self.node.cmd(f"kill -{int(sig)} -- -{self.pid} 2>/dev/null")

    def kill(self) -> None:
        self.send_signal(9)

    def wait(self, timeout=None):
        deadline = None if timeout is None else time.monotonic() + timeout
        while self.poll() is None:
            if deadline is not None and time.monotonic() > deadline:
                raise subprocess.TimeoutExpired("remote program", timeout)
            time.sleep(0.1)
        return self.returncode


class RemoteSoftwareP4Switch(RemoteMixin, SoftwareP4Switch):
    """The software switch on another server (see the module doc)."""

    def __init__(self, name, site: Site = None, json_path=None, **params):
        self.site = site
        self.json_path = json_path              # the artefact sent as device config
        self.forward: subprocess.Popen | None = None
        super().__init__(name, server=site.server.name, serverIP=site.server.ip,
                         user=site.server.user, **params)

    def command(self) -> list[str]:
        cmd = super().command()
        cmd[0] = self.site.server.python
        cmd[cmd.index(str(self.p4_path))] = "--no-p4"
        for flag in ("--log", "--pcap"):
            if flag in cmd:
                i = cmd.index(flag) + 1
                cmd[i] = self.site.path(cmd[i])
        return cmd

    def _remote_port_open(self) -> bool:
        out = self.cmd(f"(exec 3<>/dev/tcp/127.0.0.1/{self.grpc_port}) 2>/dev/null && "
                       "echo open")
        return "open" in out

    def start(self, controllers) -> None:
        if port_answers(self.grpc_port) or self._remote_port_open():
            raise TrainetError(f"switch {self.name}: gRPC port {self.grpc_port} is in use here "
                               f"or on {self.site.server.name}; run `trainet down` or choose "
                               "another grpc port")
        if self.pcap:
            self.cmd(f"mkdir -p {shlex.quote(self.site.path(self.pcap_dir))}")
        self.log_path.parent.mkdir(parents=True, exist_ok=True)
        env = {**os.environ, RUN_MARKER: self.run_id or ""}
        self.process = RemoteProgram(self, self.command(),
                                     self.site.path(self._stdout_path()), env)

    def _output_tail(self) -> str:
        out = self.cmd(f"tail -n 8 {shlex.quote(self.site.path(self._stdout_path()))}")
        return "\n".join("    " + line for line in out.strip().splitlines()) or "(no output)"

    def _ready(self) -> bool:
        if not self._remote_port_open():
            return False
        if self.forward is None:
            self.forward = subprocess.Popen(
                self.site.server.ssh("-N", "-o", "ExitOnForwardFailure=yes", "-L",
                                     f"127.0.0.1:{self.grpc_port}:127.0.0.1:{self.grpc_port}"),
                stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        if self.forward.poll() is not None:
            raise TrainetError(f"switch {self.name}: forwarding its P4Runtime port "
                               f"{self.grpc_port} from {self.site.server.name} failed: "
                               f"{self.forward.stderr.read().decode(errors='replace').strip()}")
        return port_answers(self.grpc_port)

    def stop_process(self) -> None:
        super().stop_process()
        forward, self.forward = self.forward, None
        if forward is not None and forward.poll() is None:
            forward.terminate()
            forward.wait()


class RemoteP4Host(RemoteMixin, P4Host):
    """A host on another server; programs it runs go through :meth:`popen`."""

    def __init__(self, name, site: Site = None, **params):
        self.site = site
        super().__init__(name, server=site.server.name, serverIP=site.server.ip,
                         user=site.server.user, **params)

    def write_file(self, path, text: str) -> str:
        remote = self.site.path(path)
        self.site.server.put(remote, text.encode())
        return remote

    def popen(self, cmd, stdout=None, stderr=None, stdin=None, env=None, cwd=None, **_):
        """Run ``cmd`` (argv, paths already the server's) in this host's namespace on
        its server with the forwarded part of ``env``; the Popen of its ssh client,
        whose ``kill`` kills the program's process group there first."""
        env = env or os.environ
        pid_file = f"{self.site.base}/pids/{self.name}-{time.monotonic_ns()}"
        script = (f"mkdir -p {self.site.base}/pids && echo $$ > {pid_file} && "
                  f"cd {shlex.quote(self.site.server.root)} && exec env "
                  f"{self.site.env_line(env)} " + " ".join(shlex.quote(a) for a in cmd))
        argv = self.site.server.ssh() + [self.site.server.shell(
            f"exec mnexec -da {self.pid} sh -c {shlex.quote(script)}")]
        popen = subprocess.Popen(argv, stdout=stdout, stderr=stderr,
                                 stdin=stdin or subprocess.DEVNULL)
        server = self.site.server

        def kill():
            server.run(f"test -f {pid_file} && kill -9 -- -$(cat {pid_file}) "
                       f"2>/dev/null; rm -f {pid_file}", timeout=30)
            if popen.poll() is None:
                subprocess.Popen.kill(popen)
        popen.kill = kill
        return popen

    def follow(self, remote_path: str, local_path: Path) -> subprocess.Popen:
        """Stream a file the program writes on the server into ``local_path``."""
        out = open(local_path, "ab")
        proc = self.site.server.spawn(f"exec tail -n +1 -F {shlex.quote(remote_path)} "
                                      "2>/dev/null", stdout=out, stderr=subprocess.DEVNULL)
        out.close()
        return proc
