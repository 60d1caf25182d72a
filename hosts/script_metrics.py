"""Per-step records of a user's training script, taken without changing the script.

``install(recorder)`` wraps the collectives of ``torch.distributed`` (module functions,
so DeepSpeed, FSDP and hand-written calls are seen alike) and gives every
DistributedDataParallel a timed all-reduce comm hook (its C++ reducer calls the process
group directly, past the Python functions). A step ends at the optimizer's step (torch's
global optimizer step hook), or at ``testbed.hooks.step(loss=...)`` when the script calls
it. Each step's record, in the shape of hosts.worker's lines (testbed/experiment/results.py):

- ``step_s``: wall time between two step boundaries;
- ``comm_s``: the collectives' time from issue to completion, summed;
- ``exposed_comm_s``: the time the training thread was blocked by them: a synchronous
  collective's whole duration, the ``wait()`` of an asynchronous one and, for DDP, the
  wait at the end of backward. That wait is reconstructed: from the last bucket's
  all-reduce issue (backward's compute is then done) to the completion of the last
  bucket's all-reduce;
- ``compute_s``: ``step_s - exposed_comm_s``;
- ``logical_sent_bytes``: what gloo (torch 2.13) sends per rank for the step's
  collectives: all-reduce 2(n-1)/n of the payload, all-gather (n-1)/n of the full
  tensor, reduce-scatter 2(n-1)/n of the full tensor (gloo runs it as an all-reduce and
  keeps a chunk: measured on the loopback, 4 ranks, 6.30 x the payload over all ranks
  like the all-reduce, against 3.15 x for the all-gather), all-to-all (n-1)/n of the
  input, send: all of it; ``payload_bytes``: the collectives' tensors as given, and
  ``payload_by_collective`` by function name and group size (``all_reduce@4``);
- ``wire_tx_bytes`` / ``wire_rx_bytes``: the host interface's counters;
- ``loss``: ``hooks.step``'s, else the last scalar ``backward()`` was called on.
"""
from __future__ import annotations

import functools
import json
import resource
import statistics
import threading
import time
from pathlib import Path

import torch
import torch.distributed as dist

# name -> the rank's sent bytes under gloo from (payload, group size)
_RING = {
    "all_reduce": lambda s, n: 2 * (n - 1) / n * s,
    "all_gather": lambda s, n: (n - 1) / n * s, "all_gather_into_tensor": lambda s, n: (n - 1) / n * s,
    "all_gather_single": lambda s, n: (n - 1) / n * s, "_all_gather_base": lambda s, n: (n - 1) / n * s,
    "reduce_scatter": lambda s, n: 2 * (n - 1) / n * s,        # gloo: an all-reduce
    "reduce_scatter_tensor": lambda s, n: 2 * (n - 1) / n * s,
    "reduce_scatter_single": lambda s, n: 2 * (n - 1) / n * s,
    "_reduce_scatter_base": lambda s, n: 2 * (n - 1) / n * s,
    "broadcast": lambda s, n: (n - 1) / n * s, "reduce": lambda s, n: (n - 1) / n * s,
    "all_to_all": lambda s, n: (n - 1) / n * s, "all_to_all_single": lambda s, n: (n - 1) / n * s,
    "gather": lambda s, n: (n - 1) / n * s, "scatter": lambda s, n: (n - 1) / n * s,
    "send": lambda s, n: s, "isend": lambda s, n: s, "recv": lambda s, n: 0,
    "irecv": lambda s, n: 0, "barrier": lambda s, n: 0,
}
# the argument holding the full tensor (output for gathers, input for scatters)
_FULL = {"all_gather": 0, "all_gather_into_tensor": 0, "all_gather_single": 0,
         "_all_gather_base": 0, "reduce_scatter": 1, "reduce_scatter_tensor": 1,
         "reduce_scatter_single": 1, "_reduce_scatter_base": 1, "all_to_all": 1,
         "all_to_all_single": 1, "scatter": 1}


def _nbytes(value) -> int:
    if isinstance(value, torch.Tensor):
        return value.numel() * value.element_size()
    if isinstance(value, (list, tuple)):
        return sum(_nbytes(v) for v in value)
    return 0


def interface_bytes(iface: str | None) -> tuple[int, int]:
    """(tx, rx) bytes of ``iface`` in this network namespace; (0, 0) without one."""
    if not iface:
        return 0, 0
    for line in Path("/proc/net/dev").read_text().splitlines()[2:]:
        name, _, fields = line.partition(":")
        if name.strip() == iface:
            values = fields.split()
            return int(values[8]), int(values[0])
    return 0, 0


class Recorder:
    """Accumulates one step's collectives and writes a JSON line per step."""

    def __init__(self, rank: int, out: Path, iface: str | None = None):
        self.rank, self.iface = rank, iface
        self.out = Path(out)
        self.out.parent.mkdir(parents=True, exist_ok=True)
        self._file = self.out.open("w")
        self._lock = threading.Lock()
        self.rows: list[dict] = []
        self.hook_mode = False          # the script calls hooks.step: it ends the steps
        self._pending: dict | None = None
        self._last_loss: float | None = None
        self.first_collective = threading.Event()
        self._begin()

    def _begin(self) -> None:
        self._t0 = time.perf_counter()
        self._tx0, self._rx0 = interface_bytes(self.iface)
        self._comm = self._exposed = self._sent = self._payload = 0.0
        self._count = 0
        self._kinds: dict[str, int] = {}
        self._ddp_last_issue = self._ddp_last_done = None

    # -- what the wrappers report ------------------------------------------------------
    def collective(self, name: str, payload: int, sent: float, duration_s: float,
                   blocked_s: float, group_size: int) -> None:
        with self._lock:
            self._count += 1
            self._payload += payload
            kind = f"{name}@{group_size}"
            self._kinds[kind] = self._kinds.get(kind, 0) + payload
            self._sent += sent
            self._comm += duration_s
            self._exposed += blocked_s
        self.first_collective.set()

    def blocked(self, seconds: float) -> None:
        with self._lock:
            self._exposed += seconds

    def ddp_issue(self, t: float) -> None:
        with self._lock:
            self._ddp_last_issue = t

    def ddp_done(self, t: float) -> None:
        with self._lock:
            self._ddp_last_done = max(self._ddp_last_done or t, t)

    def backward(self, loss: float) -> None:
        self._last_loss = loss

    # -- step boundaries ---------------------------------------------------------------
    def optimizer_step(self) -> None:
        if self.hook_mode:
            return
        self._write_pending()
        self._pending = self._close(self._last_loss, "optimizer")

    def hook_step(self, loss=None) -> None:
        value = float(loss.item() if isinstance(loss, torch.Tensor) else loss) \
            if loss is not None else None
        if self._pending is not None:      # called after optimizer.step(): its step's loss
            if value is not None:
                self._pending["loss"] = value
            self._write_pending()
            return
        self.hook_mode = True
        self._write(self._close(value if value is not None else self._last_loss, "hook"))

    def _close(self, loss, boundary: str) -> dict:
        now = time.perf_counter()
        tx, rx = interface_bytes(self.iface)
        with self._lock:
            exposed = self._exposed
            if self._ddp_last_issue is not None and self._ddp_last_done is not None:
                exposed += max(0.0, self._ddp_last_done - self._ddp_last_issue)
            step_s = now - self._t0
            row = {"step": None, "rank": self.rank,
                   "loss": loss, "step_s": step_s, "compute_s": max(0.0, step_s - exposed),
                   "comm_s": self._comm, "exposed_comm_s": min(exposed, step_s),
                   "logical_sent_bytes": round(self._sent),
                   "logical_recv_bytes": round(self._sent),
                   "nominal_sent_bytes": round(self._sent), "payload_bytes": round(self._payload),
                   "collectives": self._count, "payload_by_collective": self._kinds, "wire_tx_bytes": tx - self._tx0,
                   "wire_rx_bytes": rx - self._rx0, "boundary": boundary,
                   "rss_peak_bytes": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024,
                   "time_unix_s": time.time()}
        self._begin()
        return row

    def _write_pending(self) -> None:
        if self._pending is not None:
            row, self._pending = self._pending, None
            self._write(row)

    def _write(self, row: dict) -> None:
        row["step"] = len(self.rows)
        self.rows.append(row)
        self._file.write(json.dumps(row) + "\n")
        self._file.flush()

    def finish(self, world_size: int | None) -> dict:
        """Write the step still pending and the summary next to the records."""
        self._write_pending()
        self._file.close()
        timed = self.rows[1:] if len(self.rows) > 1 else self.rows

        def mean(key):
            values = [r[key] for r in timed if r.get(key) is not None]
            return statistics.fmean(values) if values else None

        summary = {"rank": self.rank, "world_size": world_size, "strategy": "script",
                   "mode": "real", "steps": len(self.rows),
                   "warmup_steps_excluded": len(self.rows) - len(timed),
                   "time_units": "wall-clock",
                   "boundary": "hooks.step" if self.hook_mode else "optimizer step",
                   **{f"mean_{k}": mean(k) for k in (
                       "step_s", "compute_s", "comm_s", "exposed_comm_s",
                       "logical_sent_bytes", "wire_tx_bytes", "wire_rx_bytes")}}
        if self.rows and self.rows[0]["loss"] is not None:
            summary["first_loss"], summary["last_loss"] = (self.rows[0]["loss"],
                                                           self.rows[-1]["loss"])
        self.out.with_suffix(".summary.json").write_text(json.dumps(summary, indent=2) + "\n")
        return summary


# ---------------------------------------------------------------------- instrumentation
RECORDER: Recorder | None = None        # the one install() set up (testbed.hooks reads it)
_inside = threading.local()


def _group_size(kwargs, args, name) -> int:
    group = kwargs.get("group")
    if group is None:
        for a in args:
            if isinstance(a, dist.ProcessGroup):
                group = a
    try:
        return dist.get_world_size(group) if dist.is_initialized() else 1
    except (RuntimeError, ValueError):
        return 1


class _TimedWork:
    """An asynchronous collective's handle: its ``wait()`` is the training thread's
    blocked time; issue to completion is the collective's."""

    def __init__(self, work, recorder: Recorder, name: str, payload: int, sent: float,
                 t0: float, group_size: int):
        self._work, self._rec = work, recorder
        self._info = (name, payload, sent, t0, group_size)
        self._counted = False

    def wait(self, *args, **kwargs):
        t = time.perf_counter()
        out = self._work.wait(*args, **kwargs)
        done = time.perf_counter()
        self._count(done, done - t)
        return out

    def _count(self, done: float, blocked: float) -> None:
        if not self._counted:
            self._counted = True
            name, payload, sent, t0, n = self._info
            self._rec.collective(name, payload, sent, done - t0, blocked, n)

    def __getattr__(self, name):
        return getattr(self._work, name)


def _wrap(name: str, fn, recorder: Recorder):
    ring = _RING[name]
    full = _FULL.get(name)

    @functools.wraps(fn)
    def timed(*args, **kwargs):
        if getattr(_inside, "depth", 0):        # a collective built on another one
            return fn(*args, **kwargs)
        _inside.depth = 1
        try:
            tensor = args[full] if full is not None and len(args) > full else \
                (args[0] if args else kwargs.get("tensor"))
            if full is not None and len(args) <= full:
                tensor = kwargs.get("output_tensor" if full == 0 else "input_tensor",
                                    kwargs.get("tensor_list", kwargs.get("output")))
            payload = _nbytes(tensor)
            n = _group_size(kwargs, args, name)
            sent = ring(payload, n)
            t0 = time.perf_counter()
            out = fn(*args, **kwargs)
            if kwargs.get("async_op") and out is not None:
                return _TimedWork(out, recorder, name, payload, sent, t0, n)
            t = time.perf_counter() - t0
            recorder.collective(name, payload, sent, t, t, n)
            return out
        finally:
            _inside.depth = 0

    timed.__trainet_original__ = fn
    return timed


def _ddp_hook(recorder: Recorder, original_all_reduce):
    """DDP's default all-reduce (average) of a gradient bucket, timed."""
    def hook(process_group, bucket):
        group = process_group if process_group is not None else dist.group.WORLD
        tensor = bucket.buffer()
        tensor.div_(dist.get_world_size(group))
        payload = _nbytes(tensor)
        n = dist.get_world_size(group)
        t0 = time.perf_counter()
        recorder.ddp_issue(t0)
        future = original_all_reduce(tensor, group=group, async_op=True).get_future()

        def done(f):
            t = time.perf_counter()
            recorder.ddp_done(t)
            recorder.collective("all_reduce", payload, _RING["all_reduce"](payload, n),
                                t - t0, 0.0, n)
            return f.value()[0]
        return future.then(done)
    return hook


def install(recorder: Recorder) -> None:
    """Wrap the collectives, DDP's reducer, backward and the optimizer's step."""
    global RECORDER
    RECORDER = recorder
    from torch.distributed import distributed_c10d as c10d
    from torch.nn.parallel import DistributedDataParallel as DDP
    for name in _RING:
        fn = getattr(dist, name, None)
        if fn is None or hasattr(fn, "__trainet_original__"):
            continue
        timed = _wrap(name, fn, recorder)
        setattr(dist, name, timed)
        if getattr(c10d, name, None) is fn:
            setattr(c10d, name, timed)
    original_all_reduce = dist.all_reduce.__trainet_original__

    own_hook = DDP.register_comm_hook
    original_forward = DDP.forward

    def register_comm_hook(self, *args, **kwargs):
        self._trainet_hooked = True             # the script's own hook: keep it
        return own_hook(self, *args, **kwargs)

    def forward(self, *args, **kwargs):
        if not getattr(self, "_trainet_hooked", False):
            self._trainet_hooked = True
            own_hook(self, None, _ddp_hook(recorder, original_all_reduce))
        return original_forward(self, *args, **kwargs)

    DDP.register_comm_hook = register_comm_hook
    DDP.forward = forward

    original_backward = torch.Tensor.backward

    def backward(self, *args, **kwargs):
        if self.numel() == 1:
            recorder.backward(float(self.detach().float().item()))
        return original_backward(self, *args, **kwargs)

    torch.Tensor.backward = backward
    from torch.optim.optimizer import register_optimizer_step_post_hook
    register_optimizer_step_post_hook(
        lambda optimizer, args, kwargs: recorder.optimizer_step())
