"""Parameter server on a dedicated host: workers push gradients, pull parameters.

    python -m hosts.param_server --port 29600 --workers 4 [--timeout 30]

Synchronous: each step the server reads one gradient vector from every worker (rank
order), averages them, applies AdamW (or plain SGD, as the hello says) to its fp32 copy
of the parameters and sends the new parameters back to every worker. It holds no model:
the flat parameter vector and the optimizer settings come from the workers' hello
messages (rank 0 sends the initial parameters), so the same server serves a real model
or a shadow volume.

Wire format over TCP, per message: an 8-byte big-endian length, then the payload. Hello:
JSON ``{"rank", "elements", "lr", "weight_decay", "update"}`` (``update``: "adamw", the
default, or "sgd"); tensors: raw little-endian float32; an empty message means "done".
A worker that disconnects or stays silent for ``--timeout`` seconds stops the server with
a message naming its rank.
"""
from __future__ import annotations

import argparse
import json
import socket
import struct
import sys
import time

import torch

_LEN = struct.Struct(">Q")


class PeerGone(ConnectionError):
    pass


def send_msg(sock: socket.socket, payload) -> None:
    """Send bytes, a numpy array or a (CPU, contiguous) tensor as one message."""
    if isinstance(payload, torch.Tensor):
        payload = payload.detach().numpy()
    view = memoryview(payload).cast("B")
    sock.sendall(_LEN.pack(len(view)))
    if len(view):
        sock.sendall(view)


def _recv_exact(sock: socket.socket, buf: memoryview) -> None:
    got = 0
    while got < len(buf):
        n = sock.recv_into(buf[got:])
        if n == 0:
            raise PeerGone("connection closed")
        got += n


def recv_msg(sock: socket.socket, into: torch.Tensor | None = None) -> bytes | torch.Tensor:
    """The next message: into ``into`` (a float32 tensor of the expected size) when given,
    else as bytes; an empty message returns ``b""``."""
    head = bytearray(_LEN.size)
    _recv_exact(sock, memoryview(head))
    (length,) = _LEN.unpack(head)
    if length == 0:
        return b""
    if into is not None:
        expected = into.numel() * 4
        if length != expected:
            raise PeerGone(f"sent {length} bytes where {expected} were expected")
        _recv_exact(sock, memoryview(into.numpy()).cast("B"))
        return into
    data = bytearray(length)
    _recv_exact(sock, memoryview(data))
    return bytes(data)


class ServerError(RuntimeError):
    pass


class ParameterServer:
    def __init__(self, port: int, workers: int, timeout_s: float, bind: str = "127.0.0.1"):
        self.port, self.workers, self.timeout_s = port, workers, timeout_s
        self.listener = socket.create_server((bind, port), reuse_port=False)
        self.conns: dict[int, tuple[socket.socket, str]] = {}
        self.steps = 0

    def _who(self, rank: int) -> str:
        return f"worker rank {rank} ({self.conns[rank][1]})"

    def accept(self) -> dict:
        deadline = time.monotonic() + self.timeout_s
        hellos = {}
        while len(hellos) < self.workers:
            self.listener.settimeout(max(deadline - time.monotonic(), 0.01))
            try:
                conn, (addr, _) = self.listener.accept()
            except socket.timeout:
                missing = sorted(set(range(self.workers)) - set(hellos))
                raise ServerError(f"parameter server: ranks {missing} did not connect within "
                                  f"{self.timeout_s:g} s") from None
            conn.settimeout(self.timeout_s)
            conn.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            hello = json.loads(recv_msg(conn))
            rank = int(hello["rank"])
            if not 0 <= rank < self.workers or rank in hellos:
                raise ServerError(f"parameter server: a worker at {addr} says it is rank "
                                  f"{rank}; expected distinct ranks 0..{self.workers - 1}")
            self.conns[rank] = (conn, addr)
            hellos[rank] = hello
        sizes = {h["elements"] for h in hellos.values()}
        if len(sizes) != 1:
            raise ServerError(f"parameter server: workers disagree on the parameter count "
                              f"({sorted(sizes)} elements); start them with the same model")
        return hellos

    def _recv(self, rank: int, into: torch.Tensor):
        try:
            return recv_msg(self.conns[rank][0], into)
        except socket.timeout:
            raise ServerError(f"parameter server: {self._who(rank)} sent nothing for "
                              f"{self.timeout_s:g} s during step {self.steps}") from None
        except (PeerGone, OSError) as err:
            raise ServerError(f"parameter server: {self._who(rank)} is gone during step "
                              f"{self.steps} ({err})") from None

    def _send(self, rank: int, payload) -> None:
        try:
            send_msg(self.conns[rank][0], payload)
        except OSError as err:
            raise ServerError(f"parameter server: {self._who(rank)} is gone during step "
                              f"{self.steps} ({err})") from None

    def serve(self) -> int:
        hellos = self.accept()
        first = hellos[0]
        params = torch.nn.Parameter(torch.zeros(int(first["elements"])))
        self._recv(0, params.data)
        if first.get("update", "adamw") == "sgd":
            optimizer = torch.optim.SGD([params], lr=first["lr"])
        else:
            optimizer = torch.optim.AdamW([params], lr=first["lr"],
                                          weight_decay=first["weight_decay"])
        incoming = torch.empty_like(params.data)
        while True:
            total = torch.zeros_like(params.data)
            done = []
            for rank in range(self.workers):
                if self._recv(rank, incoming) == b"":
                    done.append(rank)
                else:
                    total += incoming
            if done:
                if len(done) != self.workers:
                    raise ServerError(f"parameter server: ranks {done} finished after "
                                      f"{self.steps} steps while the others sent gradients")
                return self.steps
            params.grad = total / self.workers
            optimizer.step()
            for rank in range(self.workers):
                self._send(rank, params.data)
            self.steps += 1

    def close(self) -> None:
        for conn, _ in self.conns.values():
            conn.close()
        self.listener.close()


class ParameterServerClient:
    """A worker's connection to the server."""

    def __init__(self, address: str, rank: int, timeout_s: float):
        host, _, port = address.rpartition(":")
        self.where = f"parameter server {address}"
        deadline = time.monotonic() + timeout_s
        while True:
            try:
                self.sock = socket.create_connection((host, int(port)), timeout=timeout_s)
                break
            except OSError as err:
                if time.monotonic() > deadline:
                    raise ConnectionError(f"rank {rank}: cannot reach the {self.where} "
                                          f"within {timeout_s:g} s ({err})") from None
                time.sleep(0.2)
        self.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self.rank = rank

    def hello(self, elements: int, lr: float, weight_decay: float,
              initial: torch.Tensor | None, update: str = "adamw") -> None:
        send_msg(self.sock, json.dumps({"rank": self.rank, "elements": elements, "lr": lr,
                                        "weight_decay": weight_decay,
                                        "update": update}).encode())
        if initial is not None:
            send_msg(self.sock, initial)

    def push_pull(self, grad: torch.Tensor, params_out: torch.Tensor) -> torch.Tensor:
        try:
            send_msg(self.sock, grad)
            if recv_msg(self.sock, params_out) == b"":
                raise PeerGone("it ended the run")
        except (PeerGone, OSError) as err:
            raise ConnectionError(f"the {self.where} is gone ({err})") from None
        return params_out

    def close(self) -> None:
        try:
            send_msg(self.sock, b"")
        except OSError:
            pass
        self.sock.close()


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="python -m hosts.param_server", description=__doc__)
    p.add_argument("--port", type=int, default=29600)
    p.add_argument("--bind", default="127.0.0.1", help="address to listen on: on an "
                   "emulated host, the host's own (default 127.0.0.1)")
    p.add_argument("--workers", type=int, required=True)
    p.add_argument("--timeout", type=float, default=60.0,
                   help="seconds to wait for a worker before giving up on it")
    args = p.parse_args(argv)
    torch.set_num_threads(1)
    server = ParameterServer(args.port, args.workers, args.timeout, args.bind)
    try:
        steps = server.serve()
    except ServerError as err:
        print(err, file=sys.stderr)
        return 1
    finally:
        server.close()
    print(json.dumps({"steps": steps, "workers": args.workers}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
