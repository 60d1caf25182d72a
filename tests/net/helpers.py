"""What the network tests share: free gRPC ports and a check that a run left nothing."""
import os
import re
import socket
import subprocess
from pathlib import Path

from testbed.net.cleanup import RUN_MARKER, STATE_DIR, existing_interfaces

DATA = Path(__file__).resolve().parent / "data"
REPO = Path(__file__).resolve().parents[2]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def use_free_ports(blueprint, prefix: str = "t") -> None:
    """Give every switch of ``blueprint`` an unused gRPC port and a prefixed name (its
    interfaces live in the root namespace, next to other networks of this machine)."""
    names = {}
    for switch in blueprint.switches:
        switch.grpc_port = free_port()
        names[switch.name] = switch.name = prefix + switch.name
    for link in blueprint.links:
        link.a = names.get(link.a, link.a)
        link.b = names.get(link.b, link.b)


def marked_pids(ours_only: bool = False) -> set[int]:
    """Switch processes of any run; with ``ours_only``, of runs started by this process
    or by a process that is gone (not other live networks of the machine)."""
    found = set()
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                env = (entry / "environ").read_bytes().split(b"\0")
            except OSError:
                continue
            marker = next((e for e in env if e.startswith(f"{RUN_MARKER}=".encode())), None)
            if marker is None:
                continue
            owner = int(marker.split(b"=", 1)[1].split(b"-")[0])
            if not ours_only or owner == os.getpid() or not Path(f"/proc/{owner}").exists():
                found.add(int(entry.name))
    return found


def mininet_shells(names) -> list[int]:
    out = subprocess.run(["ps", "-eo", "pid,args"], capture_output=True, text=True).stdout
    return [int(line.split()[0]) for line in out.splitlines()[1:]
            if any(f"mininet:{n}" == line.split()[-1] for n in names)]


class Snapshot:
    """Interfaces, run records and marked processes before a test; ``leftovers()`` lists
    what the test added and did not remove."""

    def __init__(self, prefix: str = ""):
        self.prefix = prefix          # only interfaces of nodes named so: others' networks
        self.interfaces = existing_interfaces()   # may come and go meanwhile
        self.runs = self._our_runs()
        self.pids = marked_pids(ours_only=True)

    @staticmethod
    def _our_runs() -> set:
        """Run records of networks brought up by this process."""
        if not STATE_DIR.is_dir():
            return set()
        return set(STATE_DIR.glob(f"run-{os.getpid()}-*.json"))

    def leftovers(self) -> dict:
        runs = self._our_runs()
        return {k: v for k, v in {
            "interfaces": sorted(i for i in existing_interfaces() - self.interfaces
                                 if i.startswith(self.prefix)
                                 and re.search(r"-eth[0-9]+$", i)),
            "runs": sorted(map(str, runs - self.runs)),
            "processes": sorted(marked_pids(ours_only=True) - self.pids),
        }.items() if v}
