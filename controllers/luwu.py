"""Set up and tear down LuWu jobs on switches running p4/luwu.p4.

A LuWu job is three jobs on one aggregator address: the gradient job
(``luwu_aggregate``: complete slots go to the optimizer node, its answers are multicast
to the workers), an INA exponent job (``ina_aggregate``, set up by
:mod:`controllers.ina`) through which the workers agree on each bucket's block exponent
before pushing it, and the pull job (``luwu_aggregate`` too) through which workers that
stream their parameters ask for them. The exponent job takes the slots right after the
gradient job's, the pull job those after the exponent job's. Set-up installs the
aggregator address, each LuWu job's entry with the optimizer's address, the workers'
multicast groups and egress rewrites, zeroes the slots, and, when the optimizer's switch
port is given, a /32 route to it (leave the port out where a routing controller already
routes every host).
"""
from __future__ import annotations

from dataclasses import dataclass, field

from controllers import ina as ctl
from controllers.jobs import (JobError, command_line, install_jobs, ipv4, mac, run_cli,
                              run_command)
from testbed.p4 import entries as E
from testbed.proto import ina
from testbed.topology.routing import route_entry

LUWU_REGISTERS = ctl.SLOT_REGISTERS + ("MyIngress.slot_answered",)
PROGRAM = ctl.Program("p4/luwu.p4", "python -m testbed.proto.luwu_p4 > p4/luwu.p4, at the "
                      "protocol's LANES")


@dataclass(frozen=True)
class Optimizer:
    ip: str
    port: int | None = None     # switch port towards it: install a route
    mac: str | None = None      # its MAC on that port (needed with port)


class JobPair:
    """The two INA jobs of a LuWu job on one aggregator address: the gradient job and,
    in the slots right after it, the exponent job the workers agree on block exponents
    through. Mixed into job dataclasses with the fields used here."""

    def gradient_job(self) -> ctl.Job:
        return ctl.Job(self.job_id, self.aggregator_ip, self.workers, self.slot_base,
                       self.slot_count, lane_bits=getattr(self, "lane_bits", 32),
                       where=self.where)

    def exponent_job(self) -> ctl.Job:
        return ctl.Job(self.exponent_job_id or (self.job_id + 1) % 256, self.aggregator_ip,
                       self.workers, self.slot_base + self.slot_count, self.exponent_slots,
                       where=f"{self.where}.exponent_job")


@dataclass
class LuwuJob(JobPair):
    job_id: int
    aggregator_ip: str
    workers: list
    optimizer: Optimizer
    slot_base: int = 0
    slot_count: int = 32
    exponent_job_id: int = 0    # 0: job_id + 1
    exponent_slots: int = 2
    pull_job_id: int = 0        # 0: job_id + 2
    pull_slots: int = 0         # 0: slot_count
    # 16: the workers are bf16 workers, gradients in 16-bit lanes and parameters back as
    # bf16 copies, 2 * LANES values a chunk (hosts/luwu_layout.py); 32: fp32, LANES
    lane_bits: int = 32
    where: str = field(default="job", compare=False)

    def pull_job(self) -> ctl.Job:
        return ctl.Job(self.pull_job_id or (self.job_id + 2) % 256, self.aggregator_ip,
                       self.workers, self.slot_base + self.slot_count + self.exponent_slots,
                       self.pull_slots or self.slot_count, where=f"{self.where}.pull_job")

    def luwu_jobs(self) -> list[ctl.Job]:
        """The jobs whose complete slots go to the optimizer node."""
        return [self.gradient_job(), self.pull_job()]


def validate(job: LuwuJob) -> None:
    for j in (job.gradient_job(), job.exponent_job(), job.pull_job()):
        ctl.validate(j)
    ipv4(job.optimizer.ip, f"{job.where}.optimizer.ip")
    if job.optimizer.port is not None:
        if job.optimizer.mac is None:
            raise JobError(f"{job.where}.optimizer.mac: needed with optimizer.port (the "
                           "route rewrites the destination MAC)")
        mac(job.optimizer.mac, f"{job.where}.optimizer.mac")
    ids = [job.job_id, job.exponent_job().job_id, job.pull_job().job_id]
    if len(set(ids)) != 3:
        raise JobError(f"{job.where}: job_id, exponent_job_id and pull_job_id must "
                       f"differ, got {ids}")


def luwu_entries(job: LuwuJob, j: ctl.Job) -> list[E.TableEntry]:
    """The entries of one of the job's LuWu jobs: its ``luwu_aggregate`` entry and the
    egress rewrites of its multicast replicas."""
    agg = ipv4(job.aggregator_ip, job.where)
    out = [E.TableEntry(ctl.JOB_TABLE, (E.Exact(agg), E.Exact(j.job_id)),
                        E.ActionCall("MyIngress.luwu_aggregate", {
                            "slot_base": j.slot_base, "slot_count": j.slot_count,
                            "n_workers": len(j.workers), "mcast_grp": j.group_id,
                            "opt_addr": ipv4(job.optimizer.ip, job.where)}))]
    return out + ctl.worker_entries(j)


def optimizer_route(job: LuwuJob) -> E.TableEntry:
    o = job.optimizer
    return route_entry(o.ip, o.mac, o.port)


def setup(device, job: LuwuJob) -> None:
    """Install ``job``; JobError if it clashes with a job already on the device or asks
    for lanes the program does not have."""
    validate(job)
    ctl.check_lanes(device, job.gradient_job(), PROGRAM)
    for j in job.luwu_jobs():
        ctl.check_free(device, j)
    # the exponent job's set-up checks its own id and slots against the device
    # its workers agree block exponents in FLAG_MAX rounds with 16-bit gradient lanes
    ctl.setup(device, job.exponent_job(), max_rounds=job.lane_bits == 16, program=PROGRAM)
    for j in job.luwu_jobs():
        for cell in ctl.slot_cells(j):
            for reg in LUWU_REGISTERS:
                device.write_register(reg, cell, 0)
        device.set_group(ctl.multicast_group(j))
        for entry in luwu_entries(job, j):
            device.insert(entry)
    if job.optimizer.port is not None:
        device.insert(optimizer_route(job))


def teardown(device, job: LuwuJob) -> None:
    for j in job.luwu_jobs():
        for entry in luwu_entries(job, j):
            device.delete(entry)
        device.delete_group(j.group_id)
    if job.optimizer.port is not None:
        device.delete(optimizer_route(job))
    ctl.teardown(device, job.exponent_job())


def drop_counts(device) -> dict:
    """Packets luwu.p4 dropped, by reason."""
    return ctl.named_counts(device, ctl.DROP_COUNTER, ina.LUWU_DROP_REASONS)


def handled_counts(device) -> dict:
    return ctl.named_counts(device, ctl.HANDLED_COUNTER, ina.LUWU_HANDLED_KINDS)


def job_from_dict(data: dict, where: str = "job") -> LuwuJob:
    """A LuwuJob from plain data (YAML/JSON): the fields of an INA job
    (:func:`controllers.ina.job_from_dict`, without upstream) plus ``optimizer: {ip: ...,
    port: ..., mac: ...}`` and optionally ``exponent_job_id``, ``exponent_slots``,
    ``pull_job_id``, ``pull_slots``."""
    if not isinstance(data, dict):
        raise JobError(f"{where}: expected a mapping with job_id, aggregator_ip, "
                       "workers and optimizer")
    rest = dict(data)
    if "upstream" in rest:
        raise JobError(f"{where}.upstream: LuWu jobs aggregate on one switch; remove it")
    opt = rest.pop("optimizer", None)
    if not isinstance(opt, dict) or "ip" not in opt or set(opt) - {"ip", "port", "mac"}:
        raise JobError(f"{where}.optimizer: needs ip (and port with mac to install a "
                       "route to it)")
    extra = {k: rest.pop(k) for k in ("exponent_job_id", "exponent_slots", "pull_job_id",
                                       "pull_slots") if k in rest}
    for key, value in extra.items():
        if isinstance(value, bool) or not isinstance(value, int):
            raise JobError(f"{where}.{key}: {value!r} is not an integer")
    if "mcast_group" in rest:
        raise JobError(f"{where}.mcast_group: LuWu jobs use the group of their job id; "
                       "remove it")
    base = ctl.job_from_dict(rest, where)
    port = opt.get("port")
    if port is not None and (isinstance(port, bool) or not isinstance(port, int)):
        raise JobError(f"{where}.optimizer.port: {port!r} is not an integer")
    job = LuwuJob(base.job_id, base.aggregator_ip, base.workers,
                  Optimizer(str(opt["ip"]), port, None if opt.get("mac") is None
                            else str(opt["mac"])),
                  base.slot_base, base.slot_count, lane_bits=base.lane_bits, where=where,
                  **extra)
    validate(job)
    return job


def install(address: str, device_id: int, args: dict) -> None:
    """Switch controller entry for topology specs (``controller: {entry:
    controllers.luwu:install, args: {jobs: [...]}}``): set up every job in ``args``."""
    install_jobs(address, device_id, args, job_from_dict, setup)


def _act(device, job: LuwuJob, args, jobs: list) -> str:
    (setup if args.action == "setup" else teardown)(device, job)
    return (f"LuWu job {job.job_id} at {job.aggregator_ip}: {args.action} done "
            f"({len(job.workers)} workers, optimizer {job.optimizer.ip}, slots "
            f"[{job.slot_base}, {job.slot_base + job.slot_count}), exponent job "
            f"{job.exponent_job().job_id}, pull job {job.pull_job().job_id})")


def main(argv=None) -> int:
    parser = command_line("python -m controllers.luwu",
                          "set up or tear down LuWu jobs on a switch running p4/luwu.p4")
    return run_command(parser, parser.parse_args(argv), job_from_dict, _act, drop_counts,
                       handled_counts)


if __name__ == "__main__":
    run_cli(main)
