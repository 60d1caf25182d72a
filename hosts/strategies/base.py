"""The interface every data-parallel strategy implements, and what a step reports."""
from __future__ import annotations

import time
from dataclasses import asdict, dataclass

import torch

from testbed.errors import TrainetError


@dataclass
class StepMetrics:
    """One training step of one rank. Times in seconds, sizes in bytes.

    ``compute_s`` is the time the training thread was not blocked on communication,
    ``comm_s`` the time communication was running (overlapped or not), and
    ``exposed_comm_s`` the part of it the training thread waited for; ``offload_s`` is
    spent moving state to and from host memory or NVMe and in the CPU optimizer
    (hosts/offload.py), ``interference_s`` what collectives on the GPU added to the
    compute they overlapped (hosts/shadow.py), so ``step_s == compute_s +
    exposed_comm_s + offload_s + interference_s``; ``bubble_s`` is the part of the
    exposed communication a pipeline stage waited for its neighbours' activations and
    gradients. Logical bytes are the payload this rank's collectives sent and received."""

    loss: float | None
    step_s: float
    compute_s: float
    comm_s: float
    exposed_comm_s: float
    logical_sent_bytes: int
    logical_recv_bytes: int
    bubble_s: float | None = None
    offload_s: float = 0.0
    interference_s: float = 0.0

    def as_dict(self) -> dict:
        return asdict(self)


@dataclass
class Memory:
    """Bytes of tensors a strategy holds for training state on this rank; ``params``
    includes the peak of temporarily gathered parameters.

    The rest is for a strategy's declared nominal footprint (hosts/footprint.py):
    ``activations_bytes`` and ``buffers_bytes``, when not 0, replace the shared
    activation and communication-buffer models (a pipeline stage holds several
    micro-batches, tensor parallelism splits them); ``host_bytes`` and ``nvme_bytes``
    are what the rank keeps off the device (offloading)."""

    params_bytes: int
    grads_bytes: int
    optimizer_bytes: int
    activations_bytes: int = 0
    buffers_bytes: int = 0
    host_bytes: int = 0
    nvme_bytes: int = 0


def tensor_bytes(tensors) -> int:
    return sum(t.numel() * t.element_size() for t in tensors if t is not None)


def recompute_backward(model, unit, inp: torch.Tensor, y, grad_out, last: bool):
    """Backward of one unit from its saved input (per-unit activation checkpointing): run
    ``unit`` again with autograd and backpropagate from the loss (``last`` unit) or from
    ``grad_out``; the parameters' gradients accumulate as usual. Returns (the gradient
    of the input, None for integer inputs; the loss of the last unit, else None)."""
    if inp.is_floating_point():
        inp = inp.detach().requires_grad_()
    out = unit(inp)
    loss = None
    if last:
        loss = model.loss(out, y)
        loss.backward()
    else:
        out.backward(grad_out)
    return (inp.grad if inp.requires_grad else None), loss


def micro_batch_count(batch: int, size: int | None, strategy: str) -> int:
    """Micro-batches per step of ``batch`` sequences per replica in micro-batches of
    ``size`` (None: one micro-batch); a size that does not divide the batch is refused
    naming the sizes that do."""
    size = size or batch
    if batch % size:
        divisors = [d for d in range(1, batch + 1) if batch % d == 0]
        raise TrainetError(f"strategy {strategy}: micro_batch_size={size} does not divide "
                           f"the {batch} sequences per replica; accepted: "
                           f"{', '.join(map(str, divisors))}")
    return batch // size


def split_batch(batch, micro_batches: int) -> list[tuple]:
    """The step's (inputs, targets) as ``micro_batches`` equal micro-batches (a count
    :func:`micro_batch_count` gave)."""
    x, y = batch
    size = len(x) // micro_batches
    return list(zip(x.split(size), y.split(size)))


def optimizer_bytes(optimizer: torch.optim.Optimizer) -> int:
    return tensor_bytes(v for state in optimizer.state.values() for v in state.values()
                        if isinstance(v, torch.Tensor))


class Strategy:
    """``setup(model)`` once, then ``step(batch)`` per step, ``close()`` at the end.

    Subclasses implement ``_step(batch) -> loss`` using ``self.comm`` for every
    communication; this class turns the comm accounting into :class:`StepMetrics`."""

    name = "?"

    def __init__(self, comm, lr: float = 1e-3, weight_decay: float = 0.01):
        self.comm = comm
        self.lr = lr
        self.weight_decay = weight_decay
        self.model = None

    def setup(self, model) -> None:
        raise NotImplementedError

    def _step(self, batch) -> float | None:
        raise NotImplementedError

    def memory(self) -> Memory:
        raise NotImplementedError

    def data_shard(self) -> tuple[int, int]:
        """(index, count): this rank trains on slice ``index`` of ``count`` of each step's
        global batch; ranks that share a slice (the stages and tensor-parallel ranks of
        one model replica) say the same."""
        return self.comm.rank, self.comm.world

    def full_parameters(self) -> list[torch.Tensor]:
        """The model's parameters as a single process would hold them (for checks)."""
        return [p.detach().clone() for p in self.model.parameters()]

    def step(self, batch) -> StepMetrics:
        """One step; ``_step`` adds the seconds it spends offloading to ``offload_s``
        and those it adds for interference to ``interference_s``."""
        self.comm.begin_step()
        self.bubble_s = None         # pipeline stages count their waits here
        self.offload_s = self.interference_s = 0.0
        start = time.perf_counter()
        loss = self._step(batch)
        self._finish_step()
        step_s = time.perf_counter() - start
        exposed = min(self.comm.blocked_s, self.comm.busy_s, step_s)
        aside = self.offload_s + self.interference_s
        return StepMetrics(loss, step_s, max(0.0, step_s - exposed - aside), self.comm.busy_s,
                           exposed, self.comm.sent_bytes, self.comm.recv_bytes,
                           None if self.bubble_s is None else min(self.bubble_s, exposed),
                           self.offload_s, self.interference_s)

    def _finish_step(self) -> None:
        """Called at the end of every step, inside its time."""

    def close(self) -> None:
        self.comm.close()

    #: The update every rank applies: "adamw", what the strategies train with, or "sgd",
    #: plain SGD at ``lr``. SGD's update is proportional to the gradient, so a gradient
    #: summed where it should be averaged shows in the parameters, where AdamW's
    #: normalised update hides it; the equivalence tests set it before ``setup``.
    update = "adamw"

    def optimizer_for(self, params) -> torch.optim.Optimizer:
        if self.update == "sgd":
            return torch.optim.SGD(params, lr=self.lr)
        return torch.optim.AdamW(params, lr=self.lr, weight_decay=self.weight_decay)
