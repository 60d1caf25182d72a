"""Cluster mode: one network spread over several servers, on Mininet's cluster edition.

``Cluster(servers=["localhost", "10.0.0.2"], placement="switch-bin")`` is the one
configuration call; the experiment file's ``cluster:`` section and ``--servers`` /
``--placement`` on the command line both end in it. Mininet's
``mininet.examples.cluster`` supplies the mechanism: nodes on other servers are
``RemoteMixin`` nodes whose shells run over SSH, links between servers are its
``RemoteSSHLink`` (an Ethernet tunnel of OpenSSH) or ``RemoteGRELink`` (a gretap pair),
and the default placement is its ``SwitchBinPlacer``: switches spread evenly over the
servers, each host on its switch's server, so only switch-to-switch links cross.

Before anything is built, :meth:`Cluster.check` reaches every server over SSH (key-based,
``BatchMode``: a password prompt is an error), runs ``sudo -n`` there, and compares the
server's trainet and Mininet (:mod:`testbed.net.install_id`) with this machine's; any
mismatch is a TrainetError naming the server and what differs, and nothing has been
created yet. As in Mininet, the SSH login is the same account name as the local user
(root by default under sudo) and a server's commands run under ``sudo -E``.
"""
from __future__ import annotations

import getpass
import json
import shlex
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

from testbed.errors import TrainetError
from testbed.net.install_id import REPO_ROOT, install_id

LOCAL = "localhost"
PLACEMENTS = ("switch-bin", "round-robin")
LINKS = ("ssh", "gre")
CONNECT_TIMEOUT_S = 10
COMPARED = ("trainet", "sources", "mininet")


def _placer(name: str):
    from mininet.examples.cluster import RoundRobinPlacer, SwitchBinPlacer
    return {"switch-bin": SwitchBinPlacer, "round-robin": RoundRobinPlacer}[name]


@dataclass(frozen=True)
class Server:
    """A machine that runs part of the network. ``name`` is as given (``localhost``,
    an address or a host name); ``ip`` is what SSH and the tunnels connect to."""
    name: str
    ip: str
    user: str
    python: str
    root: str

    @property
    def local(self) -> bool:
        return self.name == LOCAL

    @property
    def dest(self) -> str:
        return f"{self.user}@{self.ip}"

    def ssh(self, *options: str) -> list[str]:
        """argv of ``ssh`` to this server up to its destination, as Mininet's remote
        nodes run it (as ``user`` when that is not who runs trainet)."""
        sudo = [] if self.user == getpass.getuser() else ["sudo", "-E", "-u", self.user]
        return sudo + ["ssh", "-o", "BatchMode=yes", "-o", f"ConnectTimeout={CONNECT_TIMEOUT_S}",
                       *options, self.dest]

    def shell(self, script: str) -> str:
        """``script`` as the remote command line: under ``sudo -n`` unless root."""
        return ("" if self.user == "root" else "sudo -n -E ") + "sh -c " + shlex.quote(script)

    def run(self, script: str, input: bytes | None = None, timeout: float = 120.0):
        """Run a shell script on the server; the CompletedProcess (bytes)."""
        try:
            return subprocess.run(self.ssh() + [self.shell(script)], input=input,
                                  capture_output=True, timeout=timeout)
        except subprocess.TimeoutExpired:
            raise TrainetError(f"server {self.name}: no answer within {timeout:g} s to "
                               f"{script[:60]!r}") from None

    def spawn(self, script: str, **popen) -> subprocess.Popen:
        """Start a shell script on the server; its ssh client's Popen."""
        return subprocess.Popen(self.ssh() + [self.shell(script)], stdin=subprocess.DEVNULL,
                                **popen)

    def python_line(self, module_args: str) -> str:
        """Shell line running ``python -m MODULE_ARGS`` of this server's trainet."""
        root = shlex.quote(self.root)
        return f"cd {root} && PYTHONPATH={root} exec {shlex.quote(self.python)} -m {module_args}"

    def put(self, path: str, data: bytes) -> None:
        done = self.run(f"mkdir -p {shlex.quote(str(Path(path).parent))} && "
                        f"cat > {shlex.quote(path)}", input=data)
        if done.returncode != 0:
            raise TrainetError(f"server {self.name}: cannot write {path}: "
                               f"{done.stderr.decode(errors='replace').strip()}")

    def fetch(self, remote_dir: str, local_dir: Path) -> None:
        """Copy the tree under ``remote_dir`` into ``local_dir`` (tar over ssh)."""
        local_dir.mkdir(parents=True, exist_ok=True)
        script = f"test ! -d {shlex.quote(remote_dir)} || tar -C {shlex.quote(remote_dir)} -cf - ."
        sender = subprocess.Popen(self.ssh() + [self.shell(script)], stdout=subprocess.PIPE,
                                  stderr=subprocess.PIPE, stdin=subprocess.DEVNULL)
        receiver = subprocess.run(["tar", "-C", str(local_dir), "-xf", "-"],
                                  stdin=sender.stdout, capture_output=True)
        sender.stdout.close()
        err = sender.stderr.read().decode(errors="replace").strip()
        if sender.wait() != 0:
            raise TrainetError(f"server {self.name}: copying {remote_dir} back failed: {err}")
        # an empty stream (nothing there) is not an archive; anything else is an error
        if receiver.returncode != 0 and b"does not look like" not in receiver.stderr:
            raise TrainetError(f"server {self.name}: unpacking {remote_dir} into {local_dir} "
                               f"failed: {receiver.stderr.decode(errors='replace').strip()}")


@dataclass
class Cluster:
    """Servers, a placement and how to reach trainet on them (see the module doc).

    ``placement``: ``switch-bin`` (Mininet's SwitchBinPlacer, the default),
    ``round-robin`` (its RoundRobinPlacer: every node in turn, so host links cross), or
    a mapping node -> server that fixes those nodes (unnamed switches are binned, unnamed
    hosts follow their switch). ``python`` and ``root`` are the interpreter and the
    trainet directory on the servers (default: this machine's paths); ``link`` is
    ``ssh`` (OpenSSH Ethernet tunnels, sshd needs ``PermitTunnel yes``) or ``gre``."""
    servers: list[str]
    placement: str | dict = "switch-bin"
    user: str | None = None
    python: str | None = None
    root: str | None = None
    link: str = "ssh"
    checked: dict = field(default_factory=dict, repr=False)   # server name -> install id

    def __post_init__(self):
        names = [s.strip() for s in self.servers if s and s.strip()]
        if not names:
            raise TrainetError("cluster: no servers given; e.g. --servers localhost,10.0.0.2")
        if len(set(names)) != len(names):
            raise TrainetError(f"cluster: a server is listed twice in {', '.join(names)}")
        self.servers = names
        if self.link not in LINKS:
            raise TrainetError(f"cluster: link {self.link!r} is not one of {', '.join(LINKS)}")
        if isinstance(self.placement, str) and self.placement not in PLACEMENTS:
            raise TrainetError(f"cluster: placement {self.placement!r} is not one of "
                               f"{', '.join(PLACEMENTS)} or a mapping node: server")
        if isinstance(self.placement, dict):
            unknown = sorted({str(s) for s in self.placement.values()} - set(names))
            if unknown:
                raise TrainetError(f"cluster: placement names server(s) {', '.join(unknown)} "
                                   f"that are not in servers ({', '.join(names)})")
        if self.user is None:
            from mininet.examples.cluster import findUser
            self.user = findUser()
        self.python = self.python or sys.executable
        self.root = self.root or str(REPO_ROOT)

    @property
    def remote(self) -> bool:
        return any(name != LOCAL for name in self.servers)

    def server(self, name: str) -> Server:
        from mininet.examples.cluster import RemoteMixin
        if name == LOCAL:
            return Server(LOCAL, "127.0.0.1", self.user, sys.executable, str(REPO_ROOT))
        ip = RemoteMixin.findServerIP(name)
        if not ip:
            raise TrainetError(f"cluster: server {name!r} has no IPv4 address (getent "
                               "ahostsv4 found none); give an address or a resolvable name")
        return Server(name, ip, self.user, self.python, self.root)

    # -- before anything starts ------------------------------------------------------
    def check(self) -> None:
        """Reach every server and compare its trainet and Mininet with this machine's;
        a TrainetError naming every server that fails. Done once per Cluster."""
        todo = [n for n in self.servers if n != LOCAL and n not in self.checked]
        if not todo:
            return
        servers = [self.server(n) for n in todo]
        mine = install_id()
        with ThreadPoolExecutor(max_workers=min(8, len(servers))) as pool:
            problems = list(pool.map(lambda s: self._check_one(s, mine), servers))
        errors = [p for p in problems if p]
        if errors:
            raise TrainetError("cluster pre-check failed; nothing was started:\n  " +
                               "\n  ".join(errors))

    def _check_one(self, server: Server, mine: dict) -> str | None:
        done = server.run(server.python_line("testbed.net.install_id"), timeout=60)
        out = done.stdout.decode(errors="replace").strip()
        err = done.stderr.decode(errors="replace").strip()
        if done.returncode == 255:
            return (f"server {server.name} ({server.dest}) is unreachable over ssh: "
                    f"{err.splitlines()[-1] if err else 'no answer'}. It needs sshd, this "
                    f"user's public key in {server.user}'s authorized_keys and its host key "
                    "in known_hosts (see README, Cluster mode)")
        if done.returncode != 0:
            last = err.splitlines()[-1] if err else out or f"exit status {done.returncode}"
            if "password is required" in err:
                return (f"server {server.name}: sudo asks for a password; give {server.user} "
                        "passwordless sudo there or log in as root")
            return (f"server {server.name}: trainet does not run there with {server.python} "
                    f"in {server.root}: {last}. Install the same trainet at the same path, "
                    "or set the cluster's python and root")
        try:
            theirs = json.loads(out.splitlines()[-1])
        except (ValueError, IndexError):
            return f"server {server.name}: unreadable answer to the version check: {out[:200]!r}"
        differ = [f"{key} {theirs.get(key)!r} there, {mine[key]!r} here" for key in COMPARED
                  if theirs.get(key) != mine[key]]
        if differ:
            return (f"server {server.name} runs a different install ({'; '.join(differ)}); "
                    "install the same trainet and Mininet on every server")
        self.checked[server.name] = theirs
        return None

    # -- placement -------------------------------------------------------------------
    def place(self, blueprint) -> dict[str, str]:
        """node name -> server name for every host and switch of a NetBlueprint."""
        hosts = [h.name for h in blueprint.hosts]
        switches = [s.name for s in blueprint.switches]
        nodes = hosts + switches
        links = [(link.a, link.b) for link in blueprint.links]
        fixed = dict(self.placement) if isinstance(self.placement, dict) else {}
        unknown = sorted(set(fixed) - set(nodes))
        if unknown:
            raise TrainetError(f"cluster placement names node(s) {', '.join(unknown)} that "
                               f"{blueprint.source} does not have; its nodes: {', '.join(nodes)}")
        where = dict(fixed)
        if self.placement == "round-robin":
            placer = _placer("round-robin")(servers=self.servers)
            where.update({n: placer.place(n) for n in nodes if n not in fixed})
        else:   # switches in even bins (SwitchBinPlacer's), hosts follow their switch
            free = [s for s in switches if s not in fixed]
            where.update(_placer("switch-bin").bin(free, self.servers))
        switch_of = {}
        for a, b in links:
            if a in hosts and b in switches:
                switch_of[a] = b
            if b in hosts and a in switches:
                switch_of[b] = a
        for host in hosts:
            if host in where:
                continue
            if host not in switch_of:
                raise TrainetError(f"cluster placement: host {host} has no switch to follow; "
                                   f"place it by name (placement: {{{host}: SERVER}})")
            where[host] = where[switch_of[host]]
        return {node: str(where[node]) for node in nodes}


def cluster_from(section: dict | None, servers: str | None = None,
                 placement: str | None = None, link: str | None = None) -> Cluster | None:
    """The Cluster of an experiment's ``cluster`` section (a dict, or None) with the
    command line's ``--servers a,b``, ``--placement NAME|node=server,...`` and
    ``--link`` over it; None when neither names servers."""
    options = dict(section or {})
    if servers:
        options["servers"] = [s for s in servers.split(",") if s.strip()]
    if placement:
        options["placement"] = placement if "=" not in placement else \
            dict(item.split("=", 1) for item in placement.split(",") if item.strip())
    if link:
        options["link"] = link
    if not options.get("servers"):
        if placement or link:
            raise TrainetError("--placement and --link need servers: --servers a,b")
        return None
    return Cluster(**options)

