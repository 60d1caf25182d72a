"""A second server on this machine, for the cluster tests.

An sshd runs in a network namespace of its own, reached over a veth pair at
``ADDRESS``; root logs in with a key pair generated for the test. It shares this
machine's filesystem (so the same trainet install), except that its view of
``hidden`` is an empty tmpfs: a program started there that wrote to a path of this
machine's results instead of its own run directory would leave nothing here.

The trainet command under test runs through :meth:`EmulatedServer.command`: in a
private mount namespace whose ``~root/.ssh`` is the test's key directory, so neither
the machine's ssh configuration is used nor changed. Everything is removed on exit,
also when the test fails.
"""
from __future__ import annotations

import os
import shlex
import shutil
import subprocess
import time
from pathlib import Path

ADDRESS = "10.250.0.2"
LOCAL_ADDRESS = "10.250.0.1"
NETNS = "trainet-srv2"
VETH = "tnsrv0"
ROOT_SSH = Path("/root/.ssh")


def _run(*argv: str) -> str:
    return subprocess.run(argv, check=True, capture_output=True, text=True).stdout


class EmulatedServer:
    def __init__(self, workdir: Path, hidden: Path):
        self.dir = workdir
        self.hidden = hidden
        self.keys = workdir / "client-ssh"
        self.sshd: subprocess.Popen | None = None
        self.made_root_ssh = False

    # -- life ------------------------------------------------------------------------
    def __enter__(self) -> "EmulatedServer":
        try:
            self._start()
        except BaseException:
            self.stop()
            raise
        return self

    def __exit__(self, *exc) -> None:
        self.stop()

    def _start(self) -> None:
        srv = self.dir / "sshd"
        srv.mkdir(parents=True)
        self.keys.mkdir(mode=0o700)
        _run("ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", str(self.keys / "id_ed25519"))
        _run("ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", str(srv / "host_key"))
        shutil.copy(self.keys / "id_ed25519.pub", srv / "authorized_keys")
        host_key = (srv / "host_key.pub").read_text().split()[:2]
        (self.keys / "known_hosts").write_text(f"{ADDRESS} {' '.join(host_key)}\n")
        (srv / "sshd_config").write_text("\n".join([
            f"ListenAddress {ADDRESS}", f"HostKey {srv / 'host_key'}",
            f"AuthorizedKeysFile {srv / 'authorized_keys'}", f"PidFile {srv / 'sshd.pid'}",
            "PermitRootLogin prohibit-password", "PasswordAuthentication no",
            "KbdInteractiveAuthentication no", "UsePAM no", "StrictModes no",
            "PermitTunnel ethernet", "UseDNS no", "MaxStartups 100", "MaxSessions 100", ""]))
        _run("ip", "netns", "add", NETNS)
        _run("ip", "link", "add", VETH, "type", "veth", "peer", "name", "tnsrv1",
             "netns", NETNS)
        _run("ip", "addr", "add", f"{LOCAL_ADDRESS}/30", "dev", VETH)
        _run("ip", "link", "set", VETH, "up")
        _run("ip", "-n", NETNS, "addr", "add", f"{ADDRESS}/30", "dev", "tnsrv1")
        _run("ip", "-n", NETNS, "link", "set", "tnsrv1", "up")
        _run("ip", "-n", NETNS, "link", "set", "lo", "up")
        Path("/run/sshd").mkdir(exist_ok=True)          # sshd's privilege separation dir
        # ip netns exec gives the server a mount namespace of its own: hide ``hidden``
        script = (f"mount -t tmpfs trainet-hidden {shlex.quote(str(self.hidden))} && "
                  f"exec /usr/sbin/sshd -D -f {srv / 'sshd_config'} -E {srv / 'sshd.log'}")
        self.hidden.mkdir(parents=True, exist_ok=True)
        self.sshd = subprocess.Popen(["ip", "netns", "exec", NETNS, "sh", "-c", script],
                                     stdin=subprocess.DEVNULL)
        if not ROOT_SSH.exists():
            ROOT_SSH.mkdir(mode=0o700)
            self.made_root_ssh = True
        deadline = time.monotonic() + 10
        while subprocess.run(self.command(["ssh", "-o", "BatchMode=yes", f"root@{ADDRESS}",
                                           "true"]), capture_output=True).returncode != 0:
            if self.sshd.poll() is not None or time.monotonic() > deadline:
                log = (srv / "sshd.log").read_text() if (srv / "sshd.log").exists() else ""
                raise RuntimeError(f"the emulated server's sshd does not answer: {log}")
            time.sleep(0.1)

    def stop(self) -> None:
        if self.sshd is not None and self.sshd.poll() is None:
            self.sshd.terminate()
            self.sshd.wait(timeout=10)
        subprocess.run(["ip", "netns", "del", NETNS], capture_output=True)
        subprocess.run(["ip", "link", "del", VETH], capture_output=True)
        if self.made_root_ssh:
            try:
                ROOT_SSH.rmdir()
            except OSError:
                pass

    # -- use -------------------------------------------------------------------------
    def command(self, argv: list[str]) -> list[str]:
        """``argv`` run with the test's keys as root's ssh configuration."""
        inner = (f"mount --bind {shlex.quote(str(self.keys))} {ROOT_SSH} && exec " +
                 " ".join(shlex.quote(a) for a in argv))
        return ["unshare", "--mount", "--propagation", "private", "sh", "-c", inner]

    def on_server(self, script: str) -> str:
        """Run a shell script in the server's network namespace (as the test, not over
        ssh, to look at what is left there)."""
        return subprocess.run(["ip", "netns", "exec", NETNS, "sh", "-c", script],
                              capture_output=True, text=True).stdout


def interfaces(netns: str | None = None) -> set[str]:
    argv = ["ip", "-o", "link", "show"] if netns is None else \
        ["ip", "-n", netns, "-o", "link", "show"]
    out = subprocess.run(argv, capture_output=True, text=True).stdout
    return {line.split(": ", 2)[1].split("@")[0] for line in out.splitlines()
            if line.count(": ") >= 2}


def marked_processes() -> list[str]:
    """Command lines of processes carrying any trainet run marker."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit() or int(entry.name) == os.getpid():
            continue
        try:
            env = (entry / "environ").read_bytes()
            cmd = (entry / "cmdline").read_bytes()
        except OSError:
            continue
        if b"TRAINET_RUN=" in env:
            found.append(cmd.replace(b"\0", b" ").decode(errors="replace"))
    return found
