"""The LuWu optimizer node: parameters and optimizer state live here, not on the workers.

It sits on a switch port (an emulated SmartNIC host) behind p4/luwu.p4. The switch sends
it each complete slot of the gradient job: the int32 sum of every worker's fixed-point
gradient chunk, with the block exponent the workers agreed on. The node turns the sum
back into the average gradient (float64, then float32), applies one optimizer step to
the ``LANES`` parameters of that chunk (see :mod:`hosts.luwu_layout`) and answers with a
parameter packet for the same job, slot and chunk: the new fp32 parameters as raw bit
patterns, which the switch multicasts to the workers.

With 16-bit lanes (``--lane-bits 16``: bf16 workers) a sum holds ``2 * LANES`` int16
lanes, each packet's block at its own exponent, and the node answers each chunk's
``2 * LANES`` parameters as bf16 copies (rounded to nearest even) of its fp32 values,
flagged FLAG_LANES16: fp32 parameters and optimizer state stay here, the workers get
what a bf16 worker holds (see :mod:`hosts.luwu_layout` for the chunk mapping). A sum of
the other width than the node's is not applied: it is an error that names the option.

Both optimizers are element-wise, so updating chunk by chunk is the same as one update
of the whole model: AdamW (decoupled weight decay, bias correction with the step count
of the chunk) and SGD with momentum (and optional coupled weight decay), written after
the formulas of ``torch.optim.AdamW`` / ``torch.optim.SGD`` and checked against them.

Workers that stream their parameters (``--params streamed``) keep none between uses
(but the last layers that fit their ``--memory-budget``, whose gradient chunks are
answered with parameters as above): the node answers their gradient chunks with a
header-only acknowledgement, and their
pulls (the pull job: complete slots of header-only requests, see
:mod:`hosts.luwu_layout` for which chunk a pull names) with the chunk's current
parameters. A pull for step ``s`` is answered only once the chunk has had ``s`` updates
(until then it is ignored and the workers ask again), so no worker trains on parameters
older than the last step's.

Each chunk is applied once: a repeated sum (flags RETRANSMIT: a worker retransmitted
while the slot had no answer, because the sum or the answer was lost) is answered with
the parameters already computed for that chunk. The node keeps the last answer of every
slot of both shadow sets, which is all a repeat can ask for: workers never run more than
one round per slot ahead of the answers they have.

    python -m hosts.optimizer_node --job 1 --workers 3 --aggregator 10.0.255.1 \
        --model mlp --seed 0 --optimizer adamw --lr 1e-3 --steps 10

In shadow mode (``--mode shadow --shadow-model gpt-175b --scale 1e-5``) the node stands
for the optimizer of the target model: its parameters are the shadow workers' flat
buffer (:func:`hosts.luwu_layout.shadow_layout`, zeros at the start; one bucket, or with
streamed parameters one per layer), updated chunk by chunk with the same optimizer, so
every chunk is applied and answered.
"""
from __future__ import annotations

import argparse
import json
import math
import socket
import sys
import time

import numpy as np
import torch

from hosts import ina_fixedpoint as fx
from hosts.luwu_layout import DEFAULT_BUCKET_BYTES, Layout
from testbed.errors import TrainetError
from testbed.units import parse_size
from testbed.proto import ina


class AdamW:
    """AdamW over a flat fp32 parameter vector, one chunk at a time."""

    def __init__(self, params: torch.Tensor, lr=1e-3, betas=(0.9, 0.999), eps=1e-8,
                 weight_decay=0.01):
        self.params, self.lr, self.betas, self.eps, self.wd = params, lr, betas, eps, weight_decay
        self.exp_avg = torch.zeros_like(params)
        self.exp_avg_sq = torch.zeros_like(params)

    def update(self, lo: int, hi: int, grad: torch.Tensor, step: int) -> None:
        p, m, v = self.params[lo:hi], self.exp_avg[lo:hi], self.exp_avg_sq[lo:hi]
        beta1, beta2 = self.betas
        p.mul_(1 - self.lr * self.wd)
        m.lerp_(grad, 1 - beta1)
        v.mul_(beta2).addcmul_(grad, grad, value=1 - beta2)
        step_size = self.lr / (1 - beta1 ** step)
        denom = (v.sqrt() / math.sqrt(1 - beta2 ** step)).add_(self.eps)
        p.addcdiv_(m, denom, value=-step_size)

    def state_bytes(self) -> int:
        return (self.exp_avg.numel() + self.exp_avg_sq.numel()) * 4


class SGDMomentum:
    """SGD with momentum (torch's: the first step's buffer is the gradient itself)."""

    def __init__(self, params: torch.Tensor, lr=1e-2, momentum=0.9, weight_decay=0.0):
        self.params, self.lr, self.momentum, self.wd = params, lr, momentum, weight_decay
        self.buf = torch.zeros_like(params)

    def update(self, lo: int, hi: int, grad: torch.Tensor, step: int) -> None:
        p, buf = self.params[lo:hi], self.buf[lo:hi]
        if self.wd:
            grad = grad.add(p, alpha=self.wd)
        if step == 1:
            buf.copy_(grad)
        else:
            buf.mul_(self.momentum).add_(grad)
        p.add_(buf, alpha=-self.lr)

    def state_bytes(self) -> int:
        return self.buf.numel() * 4


def make_optimizer(name: str, params: torch.Tensor, lr: float, weight_decay: float,
                   momentum: float = 0.9):
    if name == "adamw":
        return AdamW(params, lr=lr, weight_decay=weight_decay)
    if name == "sgd":
        return SGDMomentum(params, lr=lr, momentum=momentum, weight_decay=weight_decay)
    raise TrainetError(f"--optimizer {name!r}: use adamw or sgd")


class OptimizerNode:
    """Gradient sums in, parameter payloads out; no I/O (see :func:`serve`)."""

    def __init__(self, job_id: int, n_workers: int, layout: Layout, initial: np.ndarray,
                 optimizer: str = "adamw", lr: float = 1e-3, weight_decay: float = 0.01,
                 momentum: float = 0.9, pull_job: int | None = None, lane_bits: int = 32):
        """``pull_job``: the job id workers that stream their parameters pull from; with
        it, gradient chunks are acknowledged instead of answered with parameters.
        ``lane_bits``: the workers' lanes, 32 (fp32) or 16 (bf16); ``layout``'s chunks
        must hold one packet's values of that width."""
        if layout.chunk_values != ina.lanes_per_packet(lane_bits):
            raise ValueError(f"a layout of {layout.chunk_values} values per chunk does not "
                             f"fit {lane_bits}-bit lanes")
        self.job_id, self.n_workers, self.layout = job_id, n_workers, layout
        self.lane_bits, self.lane_flag = lane_bits, ina.lane_flag(lane_bits)
        self.pull_job = pull_job
        self.params = torch.from_numpy(np.array(initial, dtype=np.float32))
        self.optimizer = make_optimizer(optimizer, self.params, lr, weight_decay, momentum)
        self.answers: dict[tuple, tuple[int, bytes]] = {}  # (job, slot) -> (chunk, payload)
        self.updates = np.zeros(layout.chunks_per_step, dtype=np.int64)   # per position
        self.pull_positions = layout.pull_positions() if pull_job is not None else None
        self.answer_params = (layout.returns_params() if pull_job is not None
                              else np.ones(layout.chunks_per_step, dtype=bool))
        self.applied = 0
        self.pulls = 0
        self.repeats = 0
        self.early = 0
        self.ignored = 0

    def steps_done(self) -> int:
        """Steps whose every chunk has been applied (chunks arrive in any order within
        the window, so this is a lower bound while a step is under way)."""
        return self.applied // self.layout.chunks_per_step

    def handle(self, payload: bytes) -> bytes | None:
        """The payload answering a gradient sum or a complete pull, or None to ignore it."""
        try:
            header, lanes = ina.decode_any(payload)
        except ValueError:
            self.ignored += 1
            return None
        pull = header.flags & ina.FLAG_PULL
        if (not header.flags & ina.FLAG_RESULT or (lanes is None) != bool(pull)
                or header.job_id != (self.pull_job if pull else self.job_id)):
            self.ignored += 1
            return None
        if header.flags & ina.FLAG_LANES16 != self.lane_flag:
            raise TrainetError(
                f"optimizer node: job {header.job_id} sent "
                f"{16 if header.flags & ina.FLAG_LANES16 else 32}-bit lanes, the node "
                f"expects {self.lane_bits}-bit ones: give it the job's --lane-bits")
        key = (header.job_id, header.slot)
        last = self.answers.get(key)
        if last is not None:
            age = (header.chunk - last[0]) & 0xFFFFFFFF
            if age == 0:
                self.repeats += 1
                return last[1]
            if age >= 0x80000000:          # older than what the slot has answered
                self.ignored += 1
                return None
        answer = self._pull(header) if pull else self._apply(header, lanes)
        if answer is not None:
            self.answers[key] = (header.chunk, answer)
        return answer

    def _apply(self, header: ina.Header, lanes: np.ndarray) -> bytes:
        step, position = divmod(header.chunk, self.layout.chunks_per_step)
        width = self.layout.chunk_values
        lo = position * width
        sums = lanes if self.lane_bits == 32 else ina.unpack16(lanes)
        grad = fx.dequantize(sums, header.exponent, self.n_workers,
                             self.lane_bits) / self.n_workers
        self.optimizer.update(lo, lo + width, torch.from_numpy(grad.astype(np.float32)),
                              step + 1)
        self.updates[position] += 1
        self.applied += 1
        bits = self._bits(position) if self.answer_params[position] else None
        return ina.encode(self.job_id, 0, ina.FLAG_PARAMS | self.lane_flag, header.slot, 0,
                          header.chunk, bits, n_workers=self.n_workers)

    def _pull(self, header: ina.Header) -> bytes | None:
        step, k = divmod(header.chunk, len(self.pull_positions))
        position = int(self.pull_positions[k])
        if self.updates[position] < step:    # last step's update has not arrived yet
            self.early += 1
            return None
        self.pulls += 1
        return ina.encode(self.pull_job, 0, ina.FLAG_PARAMS | self.lane_flag, header.slot, 0,
                          header.chunk, self._bits(position), n_workers=self.n_workers)

    def _bits(self, position: int) -> np.ndarray:
        """The words of chunk ``position``'s parameters: fp32 bit patterns, or with
        16-bit lanes their bf16 copies two per word."""
        width = self.layout.chunk_values
        chunk = self.params[position * width:(position + 1) * width]
        if self.lane_bits == 32:
            return chunk.numpy().view(np.int32)
        return ina.pack16(chunk.to(torch.bfloat16).view(torch.int16).numpy())

    def memory(self) -> dict:
        return {"params_bytes": self.params.numel() * 4,
                "optimizer_bytes": self.optimizer.state_bytes()}


def serve(node: OptimizerNode, sock: socket.socket, steps: int, linger_s: float,
          give_up_s: float) -> None:
    """Answer sums until ``steps`` steps are applied, then ``linger_s`` more seconds of
    quiet (workers may still retransmit for answers they lost)."""
    target = steps * node.layout.chunks_per_step
    last = time.monotonic()
    while True:
        done = node.applied >= target
        sock.settimeout(linger_s if done else 1.0)
        try:
            payload, peer = sock.recvfrom(4096)
        except socket.timeout:
            if done:
                return
            if time.monotonic() - last > give_up_s:
                raise TrainetError(
                    f"optimizer node: no gradient for {give_up_s:.0f} s after "
                    f"{node.applied} of {target} chunks; check that the switch runs "
                    "luwu.p4 with the job set up (controllers/luwu.py) and the workers run")
            continue
        last = time.monotonic()
        answer = node.handle(payload)
        if answer is not None:
            sock.sendto(answer, (peer[0], ina.UDP_PORT))


def _parameters(args) -> tuple[Layout, np.ndarray]:
    """The chunk layout and initial fp32 parameters: the workers' model, or in shadow
    mode their flat buffer of zeros."""
    streamed = args.params == "streamed"
    if args.mode == "shadow":
        from hosts import shadow
        from hosts.luwu_layout import layers_resident, shadow_layout
        target = shadow.shadow_model(args.shadow_model)
        layout = shadow_layout(target, args.scale, streamed,
                               layers_resident(target, args.memory_budget) if streamed else 0,
                               args.lane_bits)
        return layout, np.zeros(layout.chunks_per_step * layout.chunk_values,
                                dtype=np.float32)
    from hosts.luwu_layout import units_resident
    from hosts.models import build_model
    model = build_model(args.model, args.seed, args.seq)
    params = [q for q in model.parameters() if q.requires_grad]
    per_chunk = ina.lanes_per_packet(args.lane_bits)
    layout = (Layout.of_units(params, model.units,
                              units_resident(model.units, args.memory_budget), per_chunk)
              if streamed else Layout.of(params, args.bucket_bytes, per_chunk))
    return layout, layout.flatten(params)


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="python -m hosts.optimizer_node",
                                description="LuWu optimizer node behind p4/luwu.p4")
    p.add_argument("--job", type=int, required=True, help="the LuWu gradient job id")
    p.add_argument("--params", choices=("streamed", "resident"), default="streamed",
                   help="streamed: workers pull each unit's parameters when they need "
                        "them (from --pull-job); resident: they keep a full copy, updated "
                        "by the answers to their gradients")
    p.add_argument("--pull-job", type=int, help="the LuWu pull job id (default: --job + 2)")
    p.add_argument("--memory-budget", type=parse_size, metavar="SIZE",
                   help="streamed: the workers keep the last layers that fit in SIZE, "
                        "answered with parameters instead of pulled (as their option)")
    p.add_argument("--workers", type=int, required=True)
    p.add_argument("--model", choices=("gpt", "mlp"), default="gpt")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--seq", type=int, default=32)
    p.add_argument("--optimizer", choices=("adamw", "sgd"), default="adamw")
    p.add_argument("--lr", type=float, default=1e-3)
    p.add_argument("--weight-decay", type=float, default=0.01)
    p.add_argument("--momentum", type=float, default=0.9)
    p.add_argument("--bucket-bytes", type=int, default=DEFAULT_BUCKET_BYTES)
    p.add_argument("--lane-bits", type=int, choices=ina.LANE_BITS, default=32,
                   help="the workers' lanes: 32 (fp32 workers) or 16 (bf16 workers: "
                        "gradients in 16-bit lanes, parameters answered as bf16 copies)")
    p.add_argument("--steps", type=int, default=10)
    p.add_argument("--mode", choices=("real", "shadow"), default="real")
    p.add_argument("--shadow-model", default="gpt-1.3b",
                   help="the target model of the shadow workers (shadow mode)")
    p.add_argument("--scale", type=float, default=1.0,
                   help="co-scaling factor of the shadow workers' volumes (shadow mode)")
    p.add_argument("--bind", default="127.0.0.1", help="address to receive sums on: on an "
                   "emulated host, the host's own (default 127.0.0.1)")
    p.add_argument("--linger", type=float, default=3.0,
                   help="seconds of quiet after the last step before exiting")
    p.add_argument("--timeout", type=float, default=60.0,
                   help="seconds without any gradient before giving up")
    p.add_argument("--summary-out", metavar="FILE.json")
    p.add_argument("--params-out", metavar="FILE.npy",
                   help="write the final parameters (float32, the chunk layout of "
                        "hosts/luwu_layout.py) at the end")
    args = p.parse_args(argv)
    torch.set_num_threads(1)
    try:
        layout, initial = _parameters(args)
    except TrainetError as err:
        print(f"error: optimizer node: {err}", file=sys.stderr)
        return 1
    pull_job = None
    if args.params == "streamed":
        pull_job = (args.job + 2) % 256 if args.pull_job is None else args.pull_job
    node = OptimizerNode(args.job, args.workers, layout, initial,
                         args.optimizer, args.lr, args.weight_decay, args.momentum, pull_job,
                         args.lane_bits)
    sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4 << 20)
    try:
        try:
            sock.bind((args.bind, ina.UDP_PORT))
        except OSError as err:
            raise TrainetError(f"--bind {args.bind}: cannot receive on UDP port "
                               f"{ina.UDP_PORT} ({err.strerror}); give an address of this "
                               "host") from None
        serve(node, sock, args.steps, args.linger, args.timeout)
    except (TrainetError, OSError) as err:
        print(f"error: optimizer node: {err}", file=sys.stderr)
        return 1
    finally:
        sock.close()
    summary = {"job": args.job, "steps": node.steps_done(), "chunks_applied": node.applied,
               "pulls_answered": node.pulls, "early_pulls_ignored": node.early,
               "repeats_answered": node.repeats, "ignored_packets": node.ignored,
               **node.memory()}
    if args.params_out:
        np.save(args.params_out, node.params.numpy())
    if args.summary_out:
        with open(args.summary_out, "w") as f:
            json.dump(summary, f, indent=2)
    print(json.dumps(summary))
    return 0


if __name__ == "__main__":
    sys.exit(main())
