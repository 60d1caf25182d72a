"""The emulated switch of the in-process LuWu tests: a Target running a LuWu program, the
workers' inboxes and, for p4/luwu.p4, the optimizer node behind port OPT_PORT; frames
are handed over under one lock, the way a fabric would carry them, and lost on purpose.

Two ways to lose frames, together or apart:

* ``drop``: every n-th frame of each lossy leg (``lossy`` names them; 0: none). The legs
  are ``to_switch`` (a worker's frame), ``to_optimizer``, ``from_optimizer`` (its
  answer), ``params_to_worker`` (parameters with lanes) and ``to_worker`` (every other
  frame to a worker): counted apart, so some of each lossy leg are lost whatever order
  the workers' threads send in.
* ``lose``: named frames lost once: ``("in", worker, job, chunk)`` from a worker,
  ``("out", worker, job, chunk)`` to one; what is left of the list is what never
  happened.
"""
from __future__ import annotations

import queue
import threading

from luwu_setup import (AGG, OPT_IP, OPT_MAC, OPT_PORT, SWITCH_MAC, load_luwu_program, setup_job,
                        worker_ip, worker_mac)
from testbed.proto import ina

LEGS = ("to_switch", "to_optimizer", "from_optimizer", "params_to_worker", "to_worker")


class Hub:
    def __init__(self, target, n_workers: int, node=None, drop: int = 0,
                 lossy=LEGS, lose=()):
        unknown = set(lossy) - set(LEGS)
        assert not unknown, f"no legs {unknown}; the legs: {LEGS}"
        self.target, self.node, self.drop, self.lossy = target, node, drop, set(lossy)
        self.lose = list(lose)
        self.sent = dict.fromkeys(LEGS, 0)
        self.lock = threading.Lock()
        self.inbox = {w + 1: queue.Queue() for w in range(n_workers)}

    def _lost(self, leg: str, named=None) -> bool:
        self.sent[leg] += 1
        if named is not None and self.lose:
            way, worker, payload = named
            header, _ = ina.decode(payload)
            key = (way, worker, header.job_id, header.chunk)
            if key in self.lose:
                self.lose.remove(key)
                return True
        return bool(leg in self.lossy and self.drop and self.sent[leg] % self.drop == 0)

    def _deliver(self, out) -> None:
        for port, frame in out:
            payload = frame[ina.FRAME_OFFSET:]
            if self.node is None or port != OPT_PORT:
                params = (len(payload) > ina.HEADER_BYTES
                          and ina.peek_flags(payload) & ina.FLAG_PARAMS)
                leg = "params_to_worker" if params else "to_worker"
                if not self._lost(leg, ("out", port - 1, payload)):
                    self.inbox[port].put(payload)
                continue
            answer = None if self._lost("to_optimizer") else self.node.handle(payload)
            if answer is not None and not self._lost("from_optimizer"):
                self._deliver(self.target.process(
                    ina.frame(OPT_MAC, SWITCH_MAC, OPT_IP, AGG, answer), OPT_PORT))

    def transport(self, w: int):
        hub = self

        class Transport:
            def send(self, payload):
                frame = ina.frame(worker_mac(w), SWITCH_MAC, worker_ip(w), AGG, payload)
                with hub.lock:
                    if not hub._lost("to_switch", ("in", w, payload)):
                        hub._deliver(hub.target.process(frame, w + 1))

            def recv(self, timeout_s):
                try:
                    return hub.inbox[w + 1].get(timeout=max(timeout_s, 1e-4))
                except queue.Empty:
                    return None
        return Transport()


def luwu_hub(node, n_workers: int, drop: int = 0) -> Hub:
    """p4/luwu.p4 with one job of 4 slots set up and ``node`` behind it; ``drop``: every
    n-th frame of each leg but the workers' own."""
    from testbed.p4.python.target import Target
    target = Target(load_luwu_program())
    setup_job(target, n_workers=n_workers, slot_count=4)
    return Hub(target, n_workers, node, drop,
               lossy=("to_optimizer", "from_optimizer", "to_worker", "params_to_worker"))
