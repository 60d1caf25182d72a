"""Asking a switch process for its counters (testbed/switch/stats.py)."""
import subprocess
import sys

from testbed.switch import stats

# a stand-in switch: on SIGUSR1 it writes its first snapshot, as `trainet switch --stats`
SWITCH = """
import os, signal, sys, time
from testbed.switch import stats
signal.signal(stats.SIGNAL, lambda *_: stats.write(sys.argv[1],
              {"pid": os.getpid(), "snapshot": 1, "ports": {}}))
print("ready", flush=True)
time.sleep(30)
"""


def test_a_file_a_former_switch_left_does_not_hide_the_new_ones_snapshot(tmp_path):
    """The benchmark run twice in one results folder: the first switch's last snapshot
    (number 9) is still in the file when the second switch writes its first."""
    path = tmp_path / "s1.stats.json"
    stats.write(str(path), {"pid": 1, "snapshot": 9, "ports": {}})
    switch = subprocess.Popen([sys.executable, "-c", SWITCH, str(path)],
                              stdout=subprocess.PIPE, text=True)
    try:
        assert switch.stdout.readline().strip() == "ready"
        got = stats.request(switch.pid, path)
        assert (got["pid"], got["snapshot"]) == (switch.pid, 1)
    finally:
        switch.kill()
        switch.wait()
