"""The resource limits Mininet raises at start, with one plain line when the system refuses.

Mininet raises limits once per process (processes, open files, socket buffers, ARP cache,
routes, PTYs). Where the kernel refuses, as in containers and unprivileged VMs, Mininet 2.3
prints "*** Error setting resource limits. Mininet's performance may be affected." and goes
on, which a newcomer reads as a failure. Here each limit is raised on its own, Mininet is
told that its start-up is done, and what could not be raised is named in one line.
"""
from __future__ import annotations

from resource import RLIMIT_NOFILE, RLIMIT_NPROC

from mininet.net import Mininet
from mininet.util import ensureRoot, rlimitTestAndSet, sysctlTestAndSet

# Mininet 2.3's own values (mininet/util.py, fixLimits).
RLIMITS = {"max user processes": (RLIMIT_NPROC, 8192), "open files": (RLIMIT_NOFILE, 16384)}
SYSCTLS = {
    "fs.file-max": 10000,
    "net.core.wmem_max": 16777216,
    "net.core.rmem_max": 16777216,
    "net.ipv4.tcp_rmem": "10240 87380 16777216",
    "net.ipv4.tcp_wmem": "10240 87380 16777216",
    "net.core.netdev_max_backlog": 5000,
    "net.ipv4.neigh.default.gc_thresh1": 4096,
    "net.ipv4.neigh.default.gc_thresh2": 8192,
    "net.ipv4.neigh.default.gc_thresh3": 16384,
    "net.ipv4.route.max_size": 32768,
    "kernel.pty.max": 20000,
}


def raise_limits(log=print) -> list[str]:
    """Do Mininet's start-up (root check, limits) once per process; return the limits
    the system would not raise, after saying in one line what that means."""
    if Mininet.inited:
        return []
    ensureRoot()
    failed = []
    for name, (resource, value) in RLIMITS.items():
        try:
            rlimitTestAndSet(resource, value)
        except (OSError, ValueError):
            failed.append(name)
    for name, value in SYSCTLS.items():
        try:
            sysctlTestAndSet(name, value)
        except (OSError, ValueError):
            failed.append(name)
    Mininet.inited = True
    if failed:
        named = ", ".join(failed[:3]) + (f" and {len(failed) - 3} more" if len(failed) > 3 else "")
        log(f"note: this system keeps Mininet from raising {named} (usual in a container or "
            "an unprivileged VM); the run goes on with the current limits, which only very "
            "large networks may reach")
    return failed
