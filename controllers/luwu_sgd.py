"""Set up, checkpoint and tear down LuWu jobs whose optimizer is the switch (p4/luwu_sgd.p4).

Like a LuWu job (:mod:`controllers.luwu`) an SGD job is two jobs on one aggregator
address: the gradient job (``luwu_sgd``: complete slots update the parameters in the
switch, which multicasts them to the workers) and an INA exponent job (taking the slots
right after the gradient job's) through which the workers agree on each bucket's block
exponent. Set-up also writes the model's initial parameters, in the chunk layout of
:mod:`hosts.luwu_layout`, as fixed point into the parameter registers at cells
``[model_base, model_base + chunks)`` and gives the switch the learning rate and momentum
as (multiplier, shift) pairs (:mod:`testbed.proto.luwu_sgd`). A job's ``lane_bits``
says how its workers push gradients: 32-bit lanes at one exponent per bucket, or 16
(bf16/fp16 workers) in 16-bit lanes, ``LANES`` values a packet in half the words, each
packet's block at the exponent agreed in FLAG_MAX rounds of the exponent job; set-up
refuses a program without either (the pattern of :mod:`controllers.luwu`). The
parameters are int32 fixed point whatever the width. The momentum needs no
writing: the switch starts it at 0 in the job's first step. :func:`read_params` reads the
parameters back (checkpoints; like a model saved without its optimizer's state, a job set
up from one starts its momentum again). Tear-down removes the job's entries and leaves the
registers to the next set-up, which overwrites them.

Over P4Runtime every parameter is one register entry: the small GPT (135168 parameters)
is that many entries each way.

Workers and their routes come from a routing controller as for any host; the job needs no
optimizer node.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from controllers import ina as ctl
from controllers.jobs import JobError, command_line, ipv4, run_cli, run_command
from controllers.luwu import JobPair
from testbed.p4 import entries as E
from testbed.proto import ina
from testbed.proto import luwu_sgd as fx

ACTION = "MyIngress.luwu_sgd"
PROGRAM = ctl.Program("p4/luwu_sgd.p4", "python -m testbed.proto.luwu_sgd_p4 "
                      "[--model-chunks N], at the protocol's LANES")
LANE_NAMES = [f"v{i:02d}" for i in range(ina.LANES)]
PARAM_REGISTERS = [f"MyIngress.par_{n}" for n in LANE_NAMES]
MOMENTUM_REGISTERS = [f"MyIngress.mom_{n}" for n in LANE_NAMES]


@dataclass
class SgdJob(JobPair):
    job_id: int
    aggregator_ip: str
    workers: list
    lr: float
    momentum: float = 0.9
    model_base: int = 0         # first cell of the parameter registers the job uses
    slot_base: int = 0
    slot_count: int = 32
    exponent_job_id: int = 0    # 0: job_id + 1
    exponent_slots: int = 2
    # 16: bf16/fp16 workers push gradients in 16-bit lanes (testbed/proto/luwu_sgd.py)
    lane_bits: int = 32
    where: str = field(default="job", compare=False)


def _factors(job: SgdJob) -> dict:
    """The job's momentum and learning rate as the switch's (multiplier, shift) pairs."""
    if not 0.0 <= job.momentum < 1.0:
        raise JobError(f"{job.where}.momentum: {job.momentum} is outside [0, 1)")
    if not 0.0 < job.lr <= 1.0:
        raise JobError(f"{job.where}.lr: {job.lr} is outside (0, 1]; the switch "
                       "multiplies by factors up to 1")
    mu_mul, mu_shift = fx.multiplier(job.momentum, "momentum")
    lr_mul, lr_shift = fx.multiplier(job.lr, "lr")
    return {"mu_mul": mu_mul, "mu_shift": mu_shift, "lr_mul": lr_mul, "lr_shift": lr_shift}


def validate(job: SgdJob) -> None:
    ctl.validate(job.gradient_job())
    ctl.validate(job.exponent_job())
    if job.exponent_job().job_id == job.job_id:
        raise JobError(f"{job.where}.exponent_job_id: must differ from job_id")
    if job.model_base < 0:
        raise JobError(f"{job.where}.model_base: {job.model_base} is negative")
    _factors(job)


def gradient_entries(job: SgdJob, model_chunks: int) -> list[E.TableEntry]:
    g = job.gradient_job()
    agg = ipv4(job.aggregator_ip, job.where)
    out = [E.TableEntry(ctl.JOB_TABLE, (E.Exact(agg), E.Exact(job.job_id)),
                        E.ActionCall(ACTION, {
                            "slot_base": g.slot_base, "slot_count": g.slot_count,
                            "n_workers": len(g.workers), "mcast_grp": g.group_id,
                            "model_base": job.model_base, "model_chunks": model_chunks,
                            **_factors(job)}))]
    return out + ctl.worker_entries(g)


def _chunks_of(initial: np.ndarray, where: str) -> np.ndarray:
    """(chunks, LANES) int32 fixed point of the flat initial parameters."""
    flat = np.asarray(initial).reshape(-1)
    if flat.size == 0 or flat.size % ina.LANES:
        raise JobError(f"{where}: {flat.size} initial parameters; give whole chunks of "
                       f"{ina.LANES} (hosts/luwu_layout.py Layout.flatten pads them)")
    try:
        return fx.to_fixed(flat, f"{where}: initial parameter").reshape(-1, ina.LANES)
    except ValueError as err:
        raise JobError(str(err)) from None


def _check_room(device, job: SgdJob, chunks: int) -> None:
    """The job's cells fit the registers and no other SGD job's; JobError if not."""
    try:
        size = device.register_size(PARAM_REGISTERS[0])
    except JobError:
        raise JobError(f"{job.where}: the switch has no parameter registers "
                       f"({PARAM_REGISTERS[0]}); load p4/luwu_sgd.p4 on it") from None
    lo, hi = job.model_base, job.model_base + chunks
    if hi > size:
        raise JobError(f"{job.where}: the model needs parameter cells [{lo}, {hi}) "
                       f"({chunks} chunks of {ina.LANES}) but this switch's luwu_sgd.p4 "
                       f"holds {size}; render a bigger program (python -m "
                       f"testbed.proto.luwu_sgd_p4 --model-chunks {hi}) or lower "
                       "model_base")
    for e in ctl.installed_jobs(device):
        p = e.action.params
        if e.action.action == ACTION and lo < p["model_base"] + p["model_chunks"] \
                and p["model_base"] < hi:
            raise JobError(f"{job.where}: parameter cells [{lo}, {hi}) overlap job "
                           f"{e.match[1].value}'s [{p['model_base']}, "
                           f"{p['model_base'] + p['model_chunks']}); pick a model_base "
                           f"at or above {p['model_base'] + p['model_chunks']}")


def setup(device, job: SgdJob, initial: np.ndarray) -> None:
    """Install ``job`` with the flat fp32 ``initial`` parameters (whole chunks, the
    layout's order); JobError if they do not fit or the job clashes with another. On a
    switch with no job yet it zeroes the drop and handled counters, so they count from
    the job's first packet; beside another job they keep counting (they are the
    switch's, not a job's)."""
    validate(job)
    chunks = _chunks_of(initial, job.where)
    _check_room(device, job, chunks.shape[0])
    # a 16-bit job needs a luwu_sgd.p4 with 16-bit rounds (not one rendered before it
    # had them: no register of the rounds' widths)
    ctl.check_lanes(device, job.gradient_job(), PROGRAM)
    ctl.check_free(device, job.gradient_job())
    idle = not ctl.installed_jobs(device)
    # the exponent job's set-up checks its id and slot range against the device, and,
    # with 16-bit lanes, that the program keeps each lane's max in FLAG_MAX rounds
    ctl.setup(device, job.exponent_job(), max_rounds=job.lane_bits == 16, program=PROGRAM)
    try:
        for cell in ctl.slot_cells(job.gradient_job()):
            for reg in ctl.SLOT_REGISTERS:
                device.write_register(reg, cell, 0)
        unsigned = chunks.view(np.uint32)
        for lane in range(ina.LANES):
            device.write_registers(PARAM_REGISTERS[lane], job.model_base,
                                   unsigned[:, lane].tolist())
        if idle:            # the counters count from the first job of an idle switch
            for counter in (ctl.DROP_COUNTER, ctl.HANDLED_COUNTER):
                device.reset_counter(counter)
    except Exception:
        ctl.teardown(device, job.exponent_job())   # leave nothing of a failed set-up
        raise
    device.set_group(ctl.multicast_group(job.gradient_job()))
    for entry in gradient_entries(job, chunks.shape[0]):
        device.insert(entry)


def _installed(device, job: SgdJob) -> E.TableEntry:
    agg = ipv4(job.aggregator_ip, job.where)
    for e in device.entries(ctl.JOB_TABLE):
        if e.match[0].value == agg and e.match[1].value == job.job_id and e.action.action == ACTION:
            return e
    raise JobError(f"{job.where}: no SGD job {job.job_id} at {job.aggregator_ip} on this "
                   "switch; set it up first (python -m controllers.luwu_sgd setup)")


def read_fixed(device, job: SgdJob, registers=PARAM_REGISTERS) -> np.ndarray:
    """The job's parameters (or, with MOMENTUM_REGISTERS, its momentum) as the switch
    holds them: int32 fixed point, flat in the chunk layout."""
    p = _installed(device, job).action.params
    lanes = [device.read_registers(registers[lane], p["model_base"], p["model_chunks"])
             for lane in range(ina.LANES)]
    return np.array(lanes, dtype=np.uint32).T.reshape(-1).view(np.int32)


def read_params(device, job: SgdJob) -> np.ndarray:
    """The job's parameters (float64, exact), flat in the chunk layout: a checkpoint."""
    return fx.from_fixed(read_fixed(device, job))


def teardown(device, job: SgdJob) -> None:
    chunks = _installed(device, job).action.params["model_chunks"]
    for entry in gradient_entries(job, chunks):
        device.delete(entry)
    device.delete_group(job.gradient_job().group_id)
    ctl.teardown(device, job.exponent_job())


def drop_counts(device) -> dict:
    """Packets luwu_sgd.p4 dropped, by reason."""
    return ctl.named_counts(device, ctl.DROP_COUNTER, ina.LUWU_SGD_DROP_REASONS)


def handled_counts(device) -> dict:
    return ctl.named_counts(device, ctl.HANDLED_COUNTER, ina.LUWU_SGD_HANDLED_KINDS)


def job_from_dict(data: dict, where: str = "job") -> SgdJob:
    """An SgdJob from plain data (YAML/JSON): the fields of an INA job
    (:func:`controllers.ina.job_from_dict`, without upstream and mcast_group; with
    ``lane_bits``) plus ``lr`` and optionally ``momentum``, ``model_base``,
    ``exponent_job_id``, ``exponent_slots``."""
    if not isinstance(data, dict):
        raise JobError(f"{where}: expected a mapping with job_id, aggregator_ip, workers "
                       "and lr")
    rest = dict(data)
    for key in ("upstream", "mcast_group"):
        if key in rest:
            raise JobError(f"{where}.{key}: not for SGD jobs (one switch, the group of "
                           "the job id); remove it")
    if "lr" not in rest:
        raise JobError(f"{where}.lr: missing (the learning rate, in (0, 1])")
    extra = {}
    for key in ("lr", "momentum", "model_base", "exponent_job_id", "exponent_slots"):
        if key in rest:
            value = rest.pop(key)
            numeric = (int, float) if key in ("lr", "momentum") else (int,)
            if isinstance(value, bool) or not isinstance(value, numeric):
                raise JobError(f"{where}.{key}: {value!r} is not a number")
            extra[key] = value
    base = ctl.job_from_dict(rest, where)
    job = SgdJob(base.job_id, base.aggregator_ip, base.workers, slot_base=base.slot_base,
                 slot_count=base.slot_count, lane_bits=base.lane_bits, where=where, **extra)
    validate(job)
    return job


def _act(device, job: SgdJob, args, jobs: list) -> str:
    if args.action == "setup":
        from hosts.luwu_layout import initial_parameters   # torch: only when setting up
        setup(device, job, initial_parameters(args.model, args.seed, args.seq))
    elif args.action == "teardown":
        teardown(device, job)
    else:
        out = (args.out if len(jobs) == 1 else
               str(Path(args.out).with_suffix(f".job{job.job_id}.npy")))
        np.save(out, read_params(device, job))
    return (f"SGD job {job.job_id} at {job.aggregator_ip}: {args.action} done "
            f"({len(job.workers)} workers, lr {job.lr}, momentum {job.momentum}, "
            f"{job.lane_bits}-bit gradient lanes, slots [{job.slot_base}, "
            f"{job.slot_base + job.slot_count}), exponent job {job.exponent_job().job_id})")


def main(argv=None) -> int:
    parser = command_line("python -m controllers.luwu_sgd",
                          "set up, checkpoint or tear down LuWu jobs on a switch running "
                          "p4/luwu_sgd.p4", ("setup", "teardown", "counters", "checkpoint"))
    parser.add_argument("--model", choices=("gpt", "mlp"), default="gpt",
                        help="setup: the workers' model, for the initial parameters")
    parser.add_argument("--seed", type=int, default=0, help="setup: the workers' seed")
    parser.add_argument("--seq", type=int, default=32,
                        help="setup: the workers' sequence length")
    parser.add_argument("--out", metavar="FILE.npy",
                        help="checkpoint: where to write the parameters (float64, chunk "
                             "layout; with several jobs FILE.job<id>.npy each)")
    args = parser.parse_args(argv)
    if args.action == "checkpoint" and args.jobs and not args.out:
        parser.error("checkpoint needs --out FILE.npy")
    return run_command(parser, args, job_from_dict, _act, drop_counts, handled_counts)


if __name__ == "__main__":
    run_cli(main)
