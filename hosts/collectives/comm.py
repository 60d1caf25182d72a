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

Every collective also runs over a *group*: a list of ranks, in the order that numbers
their chunks (``ranks=``; default every rank). A group's collectives are rings or pairwise
exchanges of send/recv over the world's process group, so they need no process group of
their own (gloo builds one only through the default group, which ranks run as threads do
not have) and are accounted like the world's: a group of n ranks all-gathers and
reduce-scatters (n-1)/n, all-to-alls (n-1)/n of the tensor; its all-reduce is a ring
reduce-scatter followed by a ring all-gather. Ranks of different groups run their groups'
collectives at the same time; every rank issues the same sequence of collectives, each
over the group it belongs to.

Point-to-point :meth:`Comm.send` and :meth:`Comm.recv` (pipeline stages passing
activations and gradients) run on the lane their caller names and are matched by tag;
their tags start at ``P2P_TAG``, clear of the step numbers the rings use as tags.

Each step also keeps a timeline (:meth:`Comm.timeline`) for execution traces
(testbed/trace): every operation with its kind, group, lane, payload and when it was
submitted, started and ended, and every wait of the training thread with the operation
it waited for; times in seconds from the step's start. Recording is a few list appends
per operation.
"""
from __future__ import annotations

import re
import threading
import time
from concurrent.futures import Future, ThreadPoolExecutor

import torch

from hosts.collectives.hierarchy import hierarchical, hierarchical_bytes


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
            self._step_start = self._busy_since
            self._ops: list[dict] = []
            self._waits: list[dict] = []
        self.blocked_s = 0.0

    def timeline(self) -> dict:
        """This step's operations and waits so far (see the module's docstring)."""
        with self._lock:
            return {"ops": [dict(op) for op in self._ops],
                    "waits": [dict(w) for w in self._waits]}

    def submit(self, what: str, fn, *args, sent: int = 0, recv: int = 0,
               lane: str = "comm", op: str | None = None, nbytes: int | None = None,
               ranks=None, peer: int | None = None, route: str = "ring") -> Future:
        """Run ``fn(*args)`` on the thread of ``lane``; count its time and bytes. For the
        timeline: ``op``, the operation's kind (those of hosts/collectives/pattern.py, or
        ``send``/``recv`` with their ``peer``; default ``what``), ``nbytes`` its payload
        as the pattern counts it (default the larger of sent and received), ``ranks`` its
        group (default every rank) and ``route``."""
        now = time.perf_counter()
        record = {"op": op or what, "lane": lane, "route": route,
                  "group": list(range(self.world)) if ranks is None else list(ranks),
                  "bytes": max(sent, recv) if nbytes is None else nbytes,
                  "sent": sent, "recv": recv, "submit_s": now - self._step_start}
        if peer is not None:
            record["peer"] = peer
        with self._lock:
            index, ops, start = len(self._ops), self._ops, self._step_start
            ops.append(record)

        def run():
            with self._lock:
                if self._running == 0:
                    self._busy_since = time.perf_counter()
                self._running += 1
            record["start_s"] = time.perf_counter() - start
            try:
                return fn(*args)
            except Exception as err:
                peer = name_peer(str(err), self.addresses)
                gone = f" ({peer} is gone or unreachable)" if peer else ""
                raise CommError(f"rank {self.rank}: {what} failed{gone}: {err}") from err
            finally:
                record["end_s"] = time.perf_counter() - start
                with self._lock:
                    self._running -= 1
                    if self._running == 0:
                        self.busy_s += time.perf_counter() - self._busy_since
                    self.sent_bytes += sent
                    self.recv_bytes += recv
        if lane not in self._pools:
            self._pools[lane] = ThreadPoolExecutor(1, thread_name_prefix=f"{lane}{self.rank}")
        future = self._pools[lane].submit(run)
        future.timeline_op = (ops, index)
        return future

    def wait(self, future: Future):
        start = time.perf_counter()
        try:
            return future.result()
        finally:
            end = time.perf_counter()
            self.blocked_s += end - start
            ops, index = getattr(future, "timeline_op", (None, None))
            with self._lock:     # an operation of an earlier step: no index
                self._waits.append({"op": index if ops is self._ops else None,
                                    "start_s": start - self._step_start,
                                    "end_s": end - self._step_start})

    def close(self) -> None:
        for pool in self._pools.values():
            pool.shutdown(wait=False, cancel_futures=True)

    # ------------------------------------------------------------ collectives
    def all_reduce(self, tensor: torch.Tensor, ranks=None) -> Future:
        """Sum ``tensor`` across the group (in place for the world's); the future's result
        is the sum."""
        ranks = self._group(ranks)
        nbytes = _ring_bytes(tensor, len(ranks)) * 2
        size = tensor.numel() * tensor.element_size()
        if len(ranks) == self.world:
            return self.submit("all-reduce", self._all_reduce, tensor, sent=nbytes,
                               recv=nbytes, nbytes=size)
        return self.submit("all-reduce", ring_all_reduce, self.pg, ranks, self.rank, tensor,
                           sent=nbytes, recv=nbytes, nbytes=size, ranks=ranks)

    def _all_reduce(self, tensor):
        if self.world > 1:
            self.pg.allreduce([tensor]).wait()
        return tensor

    def _group(self, ranks) -> list[int]:
        ranks = list(range(self.world)) if ranks is None else list(ranks)
        if self.rank not in ranks:
            raise ValueError(f"rank {self.rank} runs a collective of group {ranks} it is "
                             "not a member of")
        return ranks

    def all_gather(self, shard: torch.Tensor, ranks=None, lane: str = "comm") -> Future:
        """The concatenation of every group member's (equal-sized) ``shard``, in the
        group's order. A group's collectives may run on a ``lane`` of their own when no
        other lane talks to its members meanwhile (ring steps reuse their tags)."""
        ranks = self._group(ranks)
        nbytes = shard.numel() * shard.element_size() * (len(ranks) - 1)
        size = shard.numel() * shard.element_size() * len(ranks)
        if len(ranks) == self.world:
            return self.submit("all-gather", self._all_gather, shard, sent=nbytes,
                               recv=nbytes, lane=lane, nbytes=size)
        return self.submit("all-gather", ring_all_gather, self.pg, ranks, self.rank, shard,
                           sent=nbytes, recv=nbytes, lane=lane, nbytes=size, ranks=ranks)

    def _all_gather(self, shard):
        if self.world == 1:
            return shard.clone()
        out = [torch.empty_like(shard) for _ in range(self.world)]
        self.pg.allgather([out], [shard]).wait()
        return torch.cat(out)

    def reduce_scatter(self, flat: torch.Tensor, ranks=None, lane: str = "comm") -> Future:
        """This rank's chunk of the sum over the group of ``flat`` (length a multiple of
        the group's size; chunk ``i`` goes to the group's ``i``-th rank); ``lane`` as for
        :meth:`all_gather`."""
        ranks = self._group(ranks)
        nbytes = _ring_bytes(flat, len(ranks))
        return self.submit("reduce-scatter", ring_reduce_scatter, self.pg, ranks, self.rank,
                           flat, sent=nbytes, recv=nbytes, lane=lane,
                           nbytes=flat.numel() * flat.element_size(), ranks=ranks)

    def all_to_all(self, flat: torch.Tensor, ranks=None) -> Future:
        """Chunk ``i`` of ``flat`` (n equal chunks for a group of n) goes to the group's
        ``i``-th rank; the result holds, as its chunk ``i``, what the ``i``-th rank sent
        to this one."""
        ranks = self._group(ranks)
        nbytes = _ring_bytes(flat, len(ranks))
        return self.submit("all-to-all", pairwise_all_to_all, self.pg, ranks, self.rank,
                           flat, sent=nbytes, recv=nbytes,
                           nbytes=flat.numel() * flat.element_size(), ranks=ranks)

    def send(self, tensor: torch.Tensor, dst: int, tag: int, lane: str) -> Future:
        """Send ``tensor`` to rank ``dst`` on ``lane`` (point to point; the receiver posts
        a :meth:`recv` with the same tag)."""
        nbytes = tensor.numel() * tensor.element_size()
        return self.submit(f"send to rank {dst}", _send, self.pg, tensor.contiguous(), dst,
                           P2P_TAG + tag, sent=nbytes, lane=lane, op="send",
                           ranks=[self.rank, dst], peer=dst)

    def recv(self, shape, src: int, tag: int, lane: str, dtype=torch.float32) -> Future:
        """A tensor of ``shape`` from rank ``src`` (the future's result)."""
        out = torch.empty(shape, dtype=dtype)
        nbytes = out.numel() * out.element_size()
        return self.submit(f"receive from rank {src}", _recv, self.pg, out, src,
                           P2P_TAG + tag, recv=nbytes, lane=lane, op="recv",
                           ranks=[src, self.rank], peer=src)

    def reduce_scatter_levels(self, flat: torch.Tensor, levels: list[list[int]],
                              stage=None, wire=None) -> Future:
        """This rank's chunk of the sum over every rank of ``flat``, reduced level by
        level (:func:`hosts.collectives.hierarchy.hierarchical`): ``stage`` is the
        reduce-scatter of one level (default the ring), ``wire(numel)`` the bytes of a
        piece of ``numel`` elements as that stage sends it (default their size)."""
        wire = wire or (lambda numel: numel * flat.element_size())
        nbytes = hierarchical_bytes(flat.numel(), levels, wire)
        return self.submit("reduce-scatter", hierarchical, stage or ring_reduce_scatter,
                           self.pg, levels, self.rank, flat, sent=nbytes, recv=nbytes,
                           nbytes=flat.numel() * flat.element_size())


P2P_TAG = 1 << 20       # point-to-point tags start here, above the rings' step numbers


def _send(pg, tensor, dst, tag):
    pg.send([tensor], dst, tag).wait()


def _recv(pg, out, src, tag):
    pg.recv([out], src, tag).wait()
    return out


def _ring_bytes(tensor: torch.Tensor, world: int) -> int:
    return tensor.numel() * tensor.element_size() * (world - 1) // world


def _chunks(flat: torch.Tensor, n: int, what: str) -> torch.Tensor:
    if flat.numel() % n:
        raise ValueError(f"{what} of {flat.numel()} elements over {n} ranks: pad to a "
                         f"multiple of the group size")
    return flat.detach().clone().view(n, -1)


def ring_reduce_scatter(pg, ranks: list[int], rank: int, flat: torch.Tensor) -> torch.Tensor:
    """Ring reduce-scatter from point-to-point sends over the group ``ranks``: at step
    ``s`` the member at position ``i`` sends its running sum of chunk ``i-s-1`` to the
    member at ``i+1`` and adds what the member at ``i-1`` sends into chunk ``i-s-2``;
    after n-1 steps chunk ``i`` holds every member's contribution."""
    n, i = len(ranks), ranks.index(rank)
    chunks = _chunks(flat, n, "reduce-scatter")
    if n == 1:
        return chunks[0]
    right, left = ranks[(i + 1) % n], ranks[(i - 1) % n]
    incoming = torch.empty_like(chunks[0])
    for s in range(n - 1):
        send = pg.send([chunks[(i - s - 1) % n].contiguous()], right, s)
        recv = pg.recv([incoming], left, s)
        send.wait()
        recv.wait()
        chunks[(i - s - 2) % n] += incoming
    return chunks[i].clone()


def ring_all_gather(pg, ranks: list[int], rank: int, shard: torch.Tensor) -> torch.Tensor:
    """Ring all-gather over the group ``ranks``: at step ``s`` the member at position
    ``i`` passes chunk ``i-s`` to the member at ``i+1`` and receives chunk ``i-s-1``."""
    n, i = len(ranks), ranks.index(rank)
    out = torch.empty((n,) + tuple(shard.shape), dtype=shard.dtype)
    out[i] = shard
    right, left = ranks[(i + 1) % n], ranks[(i - 1) % n]
    for s in range(n - 1):
        send = pg.send([out[(i - s) % n]], right, s)
        recv = pg.recv([out[(i - s - 1) % n]], left, s)
        send.wait()
        recv.wait()
    return out.reshape(-1)


def ring_all_reduce(pg, ranks: list[int], rank: int, flat: torch.Tensor) -> torch.Tensor:
    """All-reduce over the group ``ranks``: a ring reduce-scatter then a ring all-gather,
    on ``flat`` padded to a multiple of the group's size (2 (n-1)/n of it each way)."""
    n = len(ranks)
    if n == 1:
        return flat
    numel = flat.numel()
    padded = torch.nn.functional.pad(flat.reshape(-1), (0, -numel % n))
    shard = ring_reduce_scatter(pg, ranks, rank, padded)
    return ring_all_gather(pg, ranks, rank, shard)[:numel].view(flat.shape)


def pairwise_all_to_all(pg, ranks: list[int], rank: int, flat: torch.Tensor) -> torch.Tensor:
    """All-to-all over the group ``ranks`` in n-1 rounds: in round ``s`` the member at
    position ``i`` sends its chunk for ``i+s`` and receives from ``i-s``, so every round
    loads each member's link once in each direction."""
    n, i = len(ranks), ranks.index(rank)
    chunks = _chunks(flat, n, "all-to-all")
    out = torch.empty_like(chunks)
    out[i] = chunks[i]
    for s in range(1, n):
        send = pg.send([chunks[(i + s) % n].contiguous()], ranks[(i + s) % n], s)
        recv = pg.recv([out[(i - s) % n]], ranks[(i - s) % n], s)
        send.wait()
        recv.wait()
    return out.reshape(-1)
