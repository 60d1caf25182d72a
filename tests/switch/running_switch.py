"""A SoftwareSwitch on a VethLab's ports, its packet loop in a thread, for the tests that
drive it with frames from the lab's namespaces."""
from __future__ import annotations

import threading
from contextlib import contextmanager

from testbed.switch.switch import SoftwareSwitch


@contextmanager
def running(lab, program, entries=(), **kw):
    """The switch running ``program`` with ``entries`` installed; stopped and closed on
    leaving, failing if its loop does not stop."""
    sw = SoftwareSwitch(lab.ports(), **kw)
    try:
        sw.load_pipeline(program)
        for e in entries:
            sw.target.table_insert(e)
        loop = threading.Thread(target=sw.run)
        loop.start()
        try:
            yield sw
        finally:
            sw.stop()
            loop.join(10)
            assert not loop.is_alive(), "the packet loop did not stop"
    finally:
        sw.close()
