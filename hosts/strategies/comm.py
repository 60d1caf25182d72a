"""A rank's communication: collectives over a gloo process group, run on one background
thread so they overlap the training thread's compute, with time and bytes accounted.

Operations run in submission order on a single thread, so every rank issues its
collectives in the same order (gloo matches them by order). A strategy whose traffic
goes both ways at once (LuWu: gradients out, parameters in) names a ``lane`` per
direction; each lane is a thread of its own, still in submission order. The
communication time of a step is the time at least one operation was running. The time
the training thread spends blocked waiting for a result is the *exposed* communication.

Logical bytes are what the algorithm moves per rank (payload, no headers): ring
all-reduce sends and receives 2 (N-1)/N of the tensor, ring all-gather (N-1)/N of the
result, ring reduce-scatter (N-1)/N of the input.

gloo has no reduce-scatter; :meth:`Comm.reduce_scatter` builds one as a ring of
send/recv pairs (N-1 steps, each passing one chunk to the next rank and adding the chunk
received from the previous one), which moves (N-1)/N of the tensor, half of what an
all-reduce followed by a slice would.
"""
from __future__ import annotations

import re
import threading
import time
from concurrent.futures import Future, ThreadPoolExecutor

import torch


class CommError(RuntimeError):
    """A collective failed: a peer died, timed out or closed its connection."""


_ADDRESS = re.compile(r"(\d+\.\d+\.\d+\.\d+)")


def name_peer(message: str, addresses: dict[str, int]) -> str | None:
    """'rank 2 (10.0.1.3)' for the first known address in a gloo error message."""
    for ip in _ADDRESS.findall(message):
        if ip in addresses:
            return f"rank {addresses[ip]} ({ip})"
    return None


class Comm:
    def __init__(self, pg, rank: int, world: int, addresses: dict[str, int] | None = None):
        self.pg, self.rank, self.world = pg, rank, world
        self.addresses = addresses or {}        # peer IPv4 -> rank, to name dead peers
        self._pools: dict[str, ThreadPoolExecutor] = {}
        self._lock = threading.Lock()
        self._running = 0
        self._busy_since = 0.0
        self.begin_step()

    # ------------------------------------------------------------ accounting
    def begin_step(self) -> None:
        with self._lock:
            self.busy_s = 0.0
            self.sent_bytes = 0
            self.recv_bytes = 0
            self._busy_since = time.perf_counter()
        self.blocked_s = 0.0

    def submit(self, what: str, fn, *args, sent: int = 0, recv: int = 0,
               lane: str = "comm") -> Future:
        """Run ``fn(*args)`` on the thread of ``lane``; count its time and bytes."""
        def run():
            with self._lock:
                if self._running == 0:
                    self._busy_since = time.perf_counter()
                self._running += 1
            try:
                return fn(*args)
            except Exception as err:
                peer = name_peer(str(err), self.addresses)
                gone = f" ({peer} is gone or unreachable)" if peer else ""
                raise CommError(f"rank {self.rank}: {what} failed{gone}: {err}") from err
            finally:
                with self._lock:
                    self._running -= 1
                    if self._running == 0:
                        self.busy_s += time.perf_counter() - self._busy_since
                    self.sent_bytes += sent
                    self.recv_bytes += recv
        if lane not in self._pools:
            self._pools[lane] = ThreadPoolExecutor(1, thread_name_prefix=f"{lane}{self.rank}")
        return self._pools[lane].submit(run)

    def wait(self, future: Future):
        start = time.perf_counter()
        try:
            return future.result()
        finally:
            self.blocked_s += time.perf_counter() - start

    def close(self) -> None:
        for pool in self._pools.values():
            pool.shutdown(wait=False, cancel_futures=True)

    # ------------------------------------------------------------ collectives
    def all_reduce(self, tensor: torch.Tensor) -> Future:
        """Sum ``tensor`` in place across ranks; the future's result is the tensor."""
        nbytes = _ring_bytes(tensor, self.world) * 2
        return self.submit("all-reduce", self._all_reduce, tensor, sent=nbytes, recv=nbytes)

    def _all_reduce(self, tensor):
        if self.world > 1:
            self.pg.allreduce([tensor]).wait()
        return tensor

    def all_gather(self, shard: torch.Tensor) -> Future:
        """The concatenation of every rank's (equal-sized) ``shard``, in rank order."""
        nbytes = shard.numel() * shard.element_size() * (self.world - 1)
        return self.submit("all-gather", self._all_gather, shard, sent=nbytes, recv=nbytes)

    def _all_gather(self, shard):
        if self.world == 1:
            return shard.clone()
        out = [torch.empty_like(shard) for _ in range(self.world)]
        self.pg.allgather([out], [shard]).wait()
        return torch.cat(out)

    def reduce_scatter(self, flat: torch.Tensor) -> Future:
        """This rank's chunk of the sum over ranks of ``flat`` (length a multiple of the
        world size; chunk ``r`` goes to rank ``r``)."""
        nbytes = _ring_bytes(flat, self.world)
        return self.submit("reduce-scatter", ring_reduce_scatter, self.pg, self.rank,
                           self.world, flat, sent=nbytes, recv=nbytes)


def _ring_bytes(tensor: torch.Tensor, world: int) -> int:
    return tensor.numel() * tensor.element_size() * (world - 1) // world


def ring_reduce_scatter(pg, rank: int, world: int, flat: torch.Tensor) -> torch.Tensor:
    """Ring reduce-scatter from point-to-point sends: at step ``s`` rank ``r`` sends its
    running sum of chunk ``r-s-1`` to rank ``r+1`` and adds what rank ``r-1`` sends into
    chunk ``r-s-2``; after N-1 steps chunk ``r`` holds every rank's contribution."""
    if flat.numel() % world:
        raise ValueError(f"reduce-scatter of {flat.numel()} elements over {world} ranks: "
                         "pad to a multiple of the world size")
    chunks = flat.detach().clone().view(world, -1)
    if world == 1:
        return chunks[0]
    right, left = (rank + 1) % world, (rank - 1) % world
    incoming = torch.empty_like(chunks[0])
    for s in range(world - 1):
        send = pg.send([chunks[(rank - s - 1) % world].contiguous()], right, s)
        recv = pg.recv([incoming], left, s)
        send.wait()
        recv.wait()
        chunks[(rank - s - 2) % world] += incoming
    return chunks[rank].clone()
