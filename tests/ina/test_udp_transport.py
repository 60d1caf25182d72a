"""The workers' UDP transport on a socket whose send buffer is full."""
import socket

import numpy as np

from hosts.ina_allreduce import UdpTransport


def test_send_waits_for_a_full_send_buffer_instead_of_failing():
    receiver = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    receiver.bind(("127.0.0.1", 0))
    receiver.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 1 << 20)
    transport = UdpTransport("127.0.0.1", bind="127.0.0.1", port=0)
    transport.peer = receiver.getsockname()
    sent = []

    class FullOnce:
        """A socket whose first sendto times out, as a full send buffer does."""
        def __init__(self, sock):
            self.sock, self.calls = sock, 0

        def sendto(self, payload, peer):
            self.calls += 1
            if self.calls == 1:
                raise socket.timeout("timed out")
            sent.append(payload)
            return self.sock.sendto(payload, peer)

        def fileno(self):
            return self.sock.fileno()

    real = transport.sock
    transport.sock = FullOnce(real)
    try:
        payload = np.arange(16, dtype=np.int32).tobytes()
        transport.send(payload)
        assert sent == [payload] and transport.sock.calls == 2
        assert receiver.recv(4096) == payload
    finally:
        real.close()
        receiver.close()
