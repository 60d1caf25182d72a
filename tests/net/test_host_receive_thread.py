"""A host's veth delivers what arrives in its own NAPI kernel thread (GRO on, threaded
NAPI, the thread made a batch task), set from inside the host's network namespace as the
Mininet host does, and frames still arrive."""
import os
import socket
import subprocess
import sys

import pytest

from testbed.net.nodes import napi_threads, receive_in_own_thread, yield_to_senders

pytestmark = pytest.mark.root

ETHERTYPE = 0x88B5                # local experimental
RECEIVER = """
import socket, sys, time
s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, socket.htons(0x88B5))
s.bind((sys.argv[1], 0))
s.settimeout(0.1)
print("ready", flush=True)
got, end = 0, time.monotonic() + 10
while got < 3 and time.monotonic() < end:
    try:
        got += s.recv(2048)[12:14] == bytes.fromhex("88b5")
    except socket.timeout:
        pass
print(got, flush=True)
"""


def read_comm(pid: int) -> str:
    with open(f"/proc/{pid}/comm") as comm:
        return comm.read()


def sh(*cmd, ns=None):
    full = (["ip", "netns", "exec", ns] if ns else []) + list(cmd)
    return subprocess.run(full, check=True, capture_output=True, text=True).stdout


def test_a_hosts_interface_receives_in_its_own_napi_thread():
    tag = f"r{os.getpid() % 0xFFF:03x}"
    ns, outer, inner = f"{tag}ns", f"{tag}a", f"{tag}b"
    sh("ip", "netns", "add", ns)
    try:
        sh("ip", "link", "add", outer, "type", "veth", "peer", "name", inner, "netns", ns)
        sh("ip", "link", "set", outer, "up")
        # as a Mininet host's shell: in the namespace, with the machine's /sys mounted
        before = napi_threads()
        subprocess.run(["nsenter", f"--net=/run/netns/{ns}", "sh", "-c",
                        receive_in_own_thread(inner)], check=True)
        made = napi_threads() - before
        if not os.path.exists(f"/sys/class/net/{outer}/threaded"):
            pytest.skip("this kernel has no threaded NAPI (/sys/class/net/IF/threaded, "
                        "Linux 5.12 or later; run `uname -r` to see this machine's)")
        assert sh("cat", f"/sys/class/net/{inner}/threaded", ns=ns).strip() == "1"
        assert "generic-receive-offload: on" in sh("ethtool", "-k", inner, ns=ns)
        threads = subprocess.run(["ps", "-eo", "comm"], capture_output=True,
                                 text=True).stdout.split()
        assert any(t.startswith(f"napi/{inner}-") for t in threads), threads
        # the interface's NAPI threads found and made batch tasks (no wake-up preemption)
        assert made and all(read_comm(pid).startswith(f"napi/{inner}-") for pid in made)
        assert all(os.sched_getscheduler(pid) == os.SCHED_OTHER for pid in made)
        yield_to_senders(made)
        assert all(os.sched_getscheduler(pid) == os.SCHED_BATCH for pid in made)
        receiver = subprocess.Popen(["ip", "netns", "exec", ns, sys.executable, "-c",
                                     RECEIVER, inner], stdout=subprocess.PIPE, text=True)
        try:
            assert receiver.stdout.readline().strip() == "ready"
            with socket.socket(socket.AF_PACKET, socket.SOCK_RAW) as tx:
                tx.bind((outer, 0))
                frame = (b"\xff" * 6 + bytes.fromhex("020000000001")
                         + ETHERTYPE.to_bytes(2, "big") + b"x" * 50)
                for _ in range(3):
                    tx.send(frame)
            assert receiver.communicate(timeout=15)[0].strip() == "3"
        finally:
            if receiver.poll() is None:
                receiver.kill()
                receiver.communicate()
    finally:
        subprocess.run(["ip", "link", "del", outer], capture_output=True)
        subprocess.run(["ip", "netns", "del", ns], capture_output=True)
