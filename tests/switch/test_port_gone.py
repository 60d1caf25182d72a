"""A switch port whose interface is deleted while the switch runs (a host torn down): the
packet loop, native or in Python, says so once and stops watching the port instead of
spinning on its socket's error, and the other ports keep forwarding."""
import logging
import os
import subprocess
import time
from pathlib import Path

import pytest

from testbed.switch.lab import VethLab
from testbed.switch.traffic import udp_frame
from testbed.topology.routing import route_entry

from running_switch import running

pytestmark = [pytest.mark.root, pytest.mark.slow]

BASIC = Path(__file__).resolve().parents[2] / "p4" / "basic.p4"
_labs = iter(range(1000))


def frames_to(src, dst, n: int) -> list:
    return [udp_frame(src.mac, "02:00:00:00:00:fe", src.ip, dst.ip, 100, seq=seq)
            for seq in range(n)]


def receive(sock, n: int, seconds: float = 5) -> int:
    """How many of ``n`` test frames ``sock`` receives within ``seconds``."""
    got, until = 0, time.monotonic() + seconds
    sock.settimeout(0.05)
    while got < n and time.monotonic() < until:
        try:
            got += b"TRNT" in sock.recv(65536)
        except OSError:
            pass
    return got


def turns(sw) -> int:
    """The packet loop's turns so far: returns from poll, from the native loop, and the
    native loop's sweeps of the rings (each wait that returns makes one)."""
    stats = sw.loop_stats()
    return stats["wakeups"] + stats["native_turns"] + stats.get("calls", 0)


@pytest.mark.parametrize("backend", ["native", "python"])
def test_a_deleted_port_is_dropped_once_and_the_others_forward(backend, caplog):
    from testbed.p4.lowering.program import load_program
    with VethLab(n_hosts=3, prefix=f"tg{os.getpid() % 0xFFF:03x}{next(_labs)}") as lab:
        h1, h2, h3 = lab.hosts
        entries = [route_entry(h2.ip, h2.mac, 2), route_entry(h3.ip, h3.mac, 3)]
        log = logging.getLogger(f"trainet.switch.portgone.{backend}")
        with caplog.at_level(logging.WARNING, logger=log.name), \
                running(lab, load_program(str(BASIC)), entries, backend=backend,
                        log=log) as sw:
            s1, s2, s3 = h1.socket(), h2.socket(), h3.socket()
            for f in frames_to(h1, h3, 5):
                s1.send(f)
            assert receive(s3, 5) == 5
            subprocess.run(["ip", "link", "del", h3.switch_if], check=True)
            time.sleep(0.3)                   # the loop has seen the error and dealt with it
            before = turns(sw)
            time.sleep(1.0)
            idle = turns(sw) - before         # a loop spinning on the error: ~10^5
            errors_before = sw.drop_counts()["tx_error"]
            for f in frames_to(h1, h3, 4):    # to the gone port: dropped, counted
                s1.send(f)
            sent = frames_to(h1, h2, 20)
            for f in sent:
                s1.send(f)
            assert receive(s2, 20) == 20
            time.sleep(0.1)
            counters = sw.port_counters()
            errors = sw.drop_counts()["tx_error"] - errors_before
            gone = set(sw.gone)
            for s in (s1, s2, s3):
                s.close()
        assert idle <= 10, f"the packet loop turned {idle} times in an idle second"
        assert gone == {3}
        assert counters[1]["rx_packets"] == 5 + 4 + 20
        assert errors == 4
        said = [r.getMessage() for r in caplog.records if h3.switch_if in r.getMessage()]
        assert len(said) == 1, said
        assert "the interface was deleted" in said[0] and "no longer watched" in said[0]
