"""``trainet bench allreduce``'s worker part: the CPU time an INA worker spends per packet
in its window loop (send a chunk, take its result, keep the timers), in C
(hosts/ina_client.c) and in the Python reference, on one UDP socket against a loopback
peer that answers each packet at once with it as the result. The worker's thread CPU
time is counted (time.thread_time: the C loop runs on the calling thread), not the
peer's; on the emulated star eight workers share the machine's cores with the switch.
"""
from __future__ import annotations

import socket
import threading
import time

import numpy as np

from hosts.ina_allreduce import UdpTransport, run_exchange
from hosts.ina_session import Exchange, JobStream
from testbed.errors import TrainetError
from testbed.proto import ina


class _Echo(threading.Thread):
    """Answers every INA payload with itself, flagged as a result."""

    def __init__(self):
        super().__init__(daemon=True)
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4 << 20)
        self.sock.bind(("127.0.0.1", 0))
        self.address = self.sock.getsockname()

    def run(self):
        while True:
            data, peer = self.sock.recvfrom(4096)
            if not data:
                return
            answer = bytearray(data)
            answer[2] = ina.FLAG_RESULT
            self.sock.sendto(answer, peer)

    def stop(self):
        self.sock.sendto(b"", self.address)
        self.join(5)
        self.sock.close()


def client_cost(clients: list, chunks: int = 3000, slots: int = 32, repeats: int = 3) -> list:
    """Per client: the least worker CPU time per packet over ``repeats`` exchanges of
    ``chunks`` chunks (the machine's other load only ever adds to it)."""
    lanes = np.random.default_rng(0).integers(-2**31, 2**31 - 1, (chunks, ina.LANES),
                                              dtype=np.int32)
    echo = _Echo()
    echo.start()
    rows = []
    try:
        for client in clients:
            transport = UdpTransport("127.0.0.1", bind="127.0.0.1", port=0, client=client)
            transport.peer = echo.address
            stream = JobStream(1, 0, slots)
            best = None
            for _ in range(repeats + 1):          # the first warms up (and builds the C)
                start = time.thread_time()
                ex = run_exchange(Exchange(stream, lanes, 0), transport)
                cpu = time.thread_time() - start
                if not np.array_equal(ex.result, lanes):
                    raise TrainetError(f"client benchmark: the {client} client's results "
                                       "differ from what the echo returned")
                best = cpu if best is None else min(best, cpu)
            transport.close()
            rows.append({"client": client, "chunks": chunks, "slots": slots,
                         "cpu_s": best, "cpu_us_per_packet": best / chunks * 1e6})
    finally:
        echo.stop()
    return rows
