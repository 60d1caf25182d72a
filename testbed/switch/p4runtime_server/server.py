"""The gRPC server that carries one device's P4Runtime service.

It listens where it is told, 127.0.0.1 by default, in plain TCP or, given a
``testbed.p4runtime.tls.ServerTls``, in TLS only.
"""
from __future__ import annotations

import logging
from concurrent import futures

import grpc
from p4.v1 import p4runtime_pb2_grpc

from testbed.errors import TrainetError
from testbed.p4runtime.tls import ServerTls
from testbed.switch.p4runtime_server.service import P4RuntimeService


class P4RuntimeServer:
    """``P4RuntimeServer(device, "127.0.0.1:9559").start()``; ``port`` is the bound port
    (useful with ``address="127.0.0.1:0"``). With ``tls`` (a ``ServerTls``) it speaks
    only TLS."""

    def __init__(self, device, address: str = "127.0.0.1:9559",
                 log: logging.Logger | None = None, max_streams: int = 8,
                 tls: ServerTls | None = None):
        self.address = address
        self.tls = tls
        self.log = log or logging.getLogger(f"trainet.p4runtime.{device.device_id}")
        self.servicer = P4RuntimeService(device, self.log)
        # each open StreamChannel holds a worker thread; keep some for unary calls
        self._executor = futures.ThreadPoolExecutor(max_workers=max_streams + 8,
                                                    thread_name_prefix="p4rt")
        # no SO_REUSEPORT: a second switch on the same port must fail, not share it
        self._server = grpc.server(self._executor, options=[("grpc.so_reuseport", 0)])
        p4runtime_pb2_grpc.add_P4RuntimeServicer_to_server(self.servicer, self._server)
        self.port = None

    def start(self) -> "P4RuntimeServer":
        credentials = self.tls.credentials() if self.tls is not None else None
        try:
            self.port = (self._server.add_secure_port(self.address, credentials) if credentials
                         else self._server.add_insecure_port(self.address))
        except RuntimeError as e:
            raise TrainetError(f"P4Runtime server: cannot listen on {self.address} ({e}); "
                               "pick a free port") from None
        if not self.port:
            raise TrainetError(f"P4Runtime server: cannot listen on {self.address}; "
                               "the port is probably in use, pick another")
        self._server.start()
        host = self.address.rsplit(":", 1)[0]
        self.log.info("P4Runtime server for device %d on %s:%d%s",
                      self.servicer.device.device_id, host, self.port,
                      " (TLS)" if self.tls is not None else "")
        return self

    def stop(self, grace: float = 0.5) -> None:
        """Stop serving; open streams are cancelled after ``grace`` seconds."""
        self._server.stop(grace).wait()
        self._executor.shutdown(wait=False)
