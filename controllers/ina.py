"""Set up and tear down in-network aggregation jobs on switches running p4/ina.p4.

A job is a set of workers that sum tensors through one aggregator address of a switch.
Setting it up installs: the aggregator address (``ina_aggregator``), the job entry with
its slot range and worker count (``ina_job``), the multicast group of its workers (one
replica per worker, ``rid`` = :func:`worker_rid`) and, per worker, the egress rewrite
from that rid to the worker's addresses (``ina_worker``); then it zeroes the bitmaps and
counts of its slots in both shadow sets, so a new job never sees an old job's rounds.
Workers number their chunks from 0 when they start; worker processes that restart
within a job would meet their predecessors' rounds in the slots (stale drops, or old
results answered as retransmissions), so restarting a job's workers means tearing the
job down and setting it up again.

For two-level aggregation a rack job names an :class:`Upstream`: the rack switch sends
each complete slot to the parent job's aggregator as worker ``worker_id`` of that job,
and multicasts the parent's results (``ina_relay``) to the rack's workers.

Devices: :class:`controllers.jobs.TargetDevice` programs a
``testbed.p4.python.target.Target`` directly (tests, benchmarks);
``controllers.jobs.P4RuntimeDevice`` a running switch over P4Runtime.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from controllers.jobs import (JobError, command_line, install_jobs, ipv4, mac, run_cli,
                             run_command)
from testbed.p4 import entries as E
from testbed.proto import ina

AGGREGATOR_TABLE = "MyIngress.ina_aggregator"
JOB_TABLE = "MyIngress.ina_job"
WORKER_TABLE = "MyEgress.ina_worker"
SLOT_REGISTERS = ("MyIngress.slot_bitmap", "MyIngress.slot_count")
LANES16_REGISTER = "MyIngress.slot_lanes"
# FLAG_MAX rounds: LuWu's programs keep every lane's max in one action, p4/ina.p4 in one
# per lane group, the first of which every packet carries
MAX_ACTIONS = ("MyIngress.lanes_max", "MyIngress.lanes_max_g00")
DROP_COUNTER = "MyIngress.ina_dropped"
HANDLED_COUNTER = "MyIngress.ina_handled"
MCAST_GROUP_BASE = 0x1000


@dataclass(frozen=True)
class Program:
    """The P4 program a controller's jobs need, as its refusals name it: the checked-in
    file and the command that renders it."""

    path: str
    render: str


PROGRAM = Program("p4/ina.p4", "python -m testbed.proto.ina_p4 --lanes N")


@dataclass(frozen=True)
class Worker:
    worker_id: int
    port: int              # switch port towards the worker
    mac: str               # destination MAC on that port (the worker's, when attached)
    ip: str                # the worker's IPv4 address


@dataclass(frozen=True)
class Upstream:
    aggregator_ip: str     # the parent job's aggregator address (on another switch)
    job_id: int            # the parent job
    worker_id: int         # this switch's worker id in the parent job


@dataclass
class Job:
    job_id: int
    aggregator_ip: str
    workers: list
    slot_base: int = 0
    slot_count: int = 32
    upstream: Upstream | None = None
    mcast_group: int = 0   # 0: MCAST_GROUP_BASE + job_id
    # the narrowest lanes the job's workers send: 16 (bf16/fp16 gradients in 16-bit
    # lanes, the program must have them) or 32 (every gradient in 32-bit lanes)
    lane_bits: int = 32
    # 32-bit lane words per packet the workers send: the program's (one register per
    # lane word; p4/ina.p4 has ina.LANES, a program rendered for a jumbo MTU more)
    lanes: int = ina.LANES
    where: str = field(default="job", compare=False)

    @property
    def group_id(self) -> int:
        return self.mcast_group or MCAST_GROUP_BASE + self.job_id


def worker_rid(job_id: int, worker_id: int) -> int:
    """Replica id of a worker in its job's multicast group (0 is left for unicast)."""
    return 1 + job_id * ina.MAX_WORKERS + worker_id


def validate(job: Job) -> None:
    w = job.where
    if not 0 <= job.job_id <= 255:
        raise JobError(f"{w}.job_id: {job.job_id} is outside 0..255")
    n = len(job.workers)
    if not 1 <= n <= ina.MAX_WORKERS:
        raise JobError(f"{w}.workers: {n} workers; a job has 1..{ina.MAX_WORKERS}")
    ids = sorted(x.worker_id for x in job.workers)
    if ids != list(range(n)):
        raise JobError(f"{w}.workers: worker ids must be 0..{n - 1} once each, got {ids}")
    if job.slot_count < 1 or job.slot_base < 0 or job.slot_base + job.slot_count > ina.POOL:
        raise JobError(f"{w}: slots [{job.slot_base}, {job.slot_base + job.slot_count}) must "
                       f"lie within the switch's pool [0, {ina.POOL})")
    if job.lane_bits not in ina.LANE_BITS:
        raise JobError(f"{w}.lane_bits: {job.lane_bits} is not a lane width; accepted: "
                       + ", ".join(str(b) for b in sorted(ina.LANE_BITS)))
    try:
        ina.check_lanes(job.lanes)
    except ValueError as e:
        raise JobError(f"{w}.lanes: {e}") from None
    ipv4(job.aggregator_ip, f"{w}.aggregator_ip")
    for i, x in enumerate(job.workers):
        ipv4(x.ip, f"{w}.workers[{i}].ip")
        mac(x.mac, f"{w}.workers[{i}].mac")
    if job.upstream is not None:
        up = job.upstream
        ipv4(up.aggregator_ip, f"{w}.upstream.aggregator_ip")
        if not 0 <= up.job_id <= 255 or up.job_id == job.job_id:
            raise JobError(f"{w}.upstream.job_id: {up.job_id} must be within 0..255 and "
                           "differ from the rack job's id")
        if not 0 <= up.worker_id < ina.MAX_WORKERS:
            raise JobError(f"{w}.upstream.worker_id: {up.worker_id} is outside "
                           f"0..{ina.MAX_WORKERS - 1}")


def job_entries(job: Job) -> list[E.TableEntry]:
    """The ina_job (and, for a rack job, relay) and ina_worker entries of a job."""
    agg = ipv4(job.aggregator_ip, job.where)
    n = len(job.workers)
    if job.upstream is None:
        action = E.ActionCall("MyIngress.ina_aggregate", {
            "slot_base": job.slot_base, "slot_count": job.slot_count, "n_workers": n,
            "mcast_grp": job.group_id})
    else:
        action = E.ActionCall("MyIngress.ina_aggregate_upstream", {
            "slot_base": job.slot_base, "slot_count": job.slot_count, "n_workers": n,
            "up_addr": ipv4(job.upstream.aggregator_ip, job.where),
            "up_job": job.upstream.job_id, "up_worker": job.upstream.worker_id})
    out = [E.TableEntry(JOB_TABLE, (E.Exact(agg), E.Exact(job.job_id)), action)]
    if job.upstream is not None:
        out.append(E.TableEntry(JOB_TABLE, (E.Exact(agg), E.Exact(job.upstream.job_id)),
                                E.ActionCall("MyIngress.ina_relay", {
                                    "local_job": job.job_id, "mcast_grp": job.group_id})))
    return out + worker_entries(job)


def worker_entries(job: Job) -> list[E.TableEntry]:
    """The ina_worker entries: egress addresses of the job's multicast replicas."""
    return [E.TableEntry(WORKER_TABLE, (E.Exact(worker_rid(job.job_id, x.worker_id)),),
                         E.ActionCall("MyEgress.set_worker_address",
                                      {"dstMac": mac(x.mac, job.where),
                                       "dstAddr": ipv4(x.ip, job.where)}))
            for x in job.workers]


def aggregator_entry(job: Job) -> E.TableEntry:
    return E.TableEntry(AGGREGATOR_TABLE, (E.Exact(ipv4(job.aggregator_ip, job.where)),),
                        E.ActionCall("MyIngress.aggregator_address"))


def multicast_group(job: Job) -> E.MulticastGroup:
    return E.MulticastGroup(job.group_id, [E.Replica(x.port, worker_rid(job.job_id, x.worker_id))
                                           for x in sorted(job.workers,
                                                           key=lambda x: x.worker_id)])


def slot_cells(job: Job) -> list[int]:
    """Register cells of the job's slots in both shadow sets."""
    cells = range(job.slot_base, job.slot_base + job.slot_count)
    return [c + s * ina.POOL for s in (0, 1) for c in cells]


def installed_jobs(device) -> list[E.TableEntry]:
    """The device's job entries (the relay entries of rack jobs left out)."""
    return [e for e in device.entries(JOB_TABLE)
            if e.action.action != "MyIngress.ina_relay"]


def check_free(device, job: Job) -> None:
    """JobError if the device already has a job of ``job``'s id or one whose slots
    overlap ``job``'s."""
    lo, hi = job.slot_base, job.slot_base + job.slot_count
    for e in installed_jobs(device):
        other = e.match[1].value
        if other == job.job_id:    # rids and the multicast group derive from the id
            raise JobError(f"{job.where}: job {job.job_id} already exists on this switch; "
                           "tear it down first or pick another job_id")
        o_lo = e.action.params["slot_base"]
        o_hi = o_lo + e.action.params["slot_count"]
        if lo < o_hi and o_lo < hi:
            raise JobError(f"{job.where}: slots [{lo}, {hi}) overlap job {other}'s "
                           f"[{o_lo}, {o_hi}); pick a slot_base at or above {o_hi}")


LANE_REGISTER_PREFIX = "MyIngress.lane_"


def program_lanes(device, program: Program = PROGRAM) -> int:
    """32-bit lane words per packet of the device's program: its lane registers, one per
    word (named after the protocol's lane fields)."""
    names = set(device.register_names())
    count = sum(n.startswith(LANE_REGISTER_PREFIX) for n in names)
    expected = {LANE_REGISTER_PREFIX + f.name for f in ina.lane_fields(count, 32)} \
        if 1 <= count <= ina.MAX_LANES else set()
    if not expected or not expected <= names:
        raise JobError("the switch's program has no INA lane registers "
                       f"({LANE_REGISTER_PREFIX}v00, ...); is it running {program.path}?")
    return count


def check_max_rounds(device, job: Job, program: Program = PROGRAM) -> None:
    """JobError unless the device's program has FLAG_MAX rounds (one of MAX_ACTIONS
    keeps each lane's largest value), in which an all-reduce agrees its blocks'
    exponents; named with the program and the flag."""
    if not any(device.has_action(name) for name in MAX_ACTIONS):
        raise JobError(f"{job.where}: the switch's program {device.program_name()} has no "
                       f"FLAG_MAX rounds (flag 0x{ina.FLAG_MAX:02x}, action "
                       f"{' or '.join(MAX_ACTIONS)}), "
                       "which agree each block's exponent before it is summed; run "
                       f"{program.path}")


def check_lanes(device, job: Job, program: Program = PROGRAM) -> None:
    """JobError unless the device's program has ``job``'s lanes: as many lane words per
    packet (a packet of another size would be dropped as bad_length, every round lost),
    and as narrow (a program with 16-bit lanes keeps each round's width in the register
    LANES16_REGISTER); the error names ``program``, the one the job needs."""
    if job.lane_bits != 32:
        try:
            device.register_size(LANES16_REGISTER)
        except JobError:
            raise JobError(f"{job.where}.lane_bits: the job asks for {job.lane_bits}-bit "
                           f"lanes; the switch's program {device.program_name()} has only "
                           f"32-bit ones (no FLAG_LANES16 rounds: it lacks "
                           f"{LANES16_REGISTER}); run {program.path} as rendered now "
                           f"({program.render}) or set lane_bits: 32") from None
    have = program_lanes(device, program)
    if have != job.lanes:
        raise JobError(f"{job.where}.lanes: the job's workers send {job.lanes} lanes per "
                       f"packet; the switch's program takes {have} (its frames: "
                       f"{ina.FRAME_OFFSET + ina.payload_bytes(have)} B); set lanes: {have} "
                       f"or run {program.path} rendered for the job's ({program.render})")


def setup(device, job: Job, max_rounds: bool = True, program: Program = PROGRAM) -> None:
    """Install ``job``; JobError if it clashes with a job already on the device or needs
    what the program does not have: its lane width, and FLAG_MAX rounds unless
    ``max_rounds`` is False (a job that only agrees one exponent per round, as LuWu's
    exponent jobs). Refusals name ``program`` (LuWu's exponent jobs: LuWu's)."""
    validate(job)
    if max_rounds:
        check_max_rounds(device, job, program)
    check_lanes(device, job, program)
    check_free(device, job)
    agg = ipv4(job.aggregator_ip, job.where)
    for cell in slot_cells(job):
        for reg in SLOT_REGISTERS:
            device.write_register(reg, cell, 0)
    device.set_group(multicast_group(job))
    if not any(e.match[0].value == agg for e in device.entries(AGGREGATOR_TABLE)):
        device.insert(aggregator_entry(job))
    for entry in job_entries(job):
        device.insert(entry)


def teardown(device, job: Job) -> None:
    """Remove ``job``; the aggregator address goes when no other job uses it."""
    for entry in job_entries(job):
        device.delete(entry)
    device.delete_group(job.group_id)
    agg = ipv4(job.aggregator_ip, job.where)
    if not any(e.match[0].value == agg for e in device.entries(JOB_TABLE)):
        device.delete(aggregator_entry(job))


def named_counts(device, counter: str, names) -> dict:
    """Packet counts of ``counter``'s cells 0, 1, ..., by the names of those cells."""
    return {n: device.read_counter(counter, i)[0] for i, n in enumerate(names)}


def drop_counts(device) -> dict:
    """Packets ina.p4 dropped, by reason."""
    return named_counts(device, DROP_COUNTER, ina.DROP_REASONS)


def handled_counts(device) -> dict:
    return named_counts(device, HANDLED_COUNTER, ina.HANDLED_KINDS)


def job_from_dict(data: dict, where: str = "job") -> Job:
    """A Job from plain data (YAML/JSON), e.g. ``{job_id: 1, aggregator_ip: 10.0.255.1,
    slot_count: 32, workers: [{worker_id: 0, port: 1, mac: ..., ip: ...}, ...],
    upstream: {aggregator_ip: ..., job_id: 10, worker_id: 0}}``."""
    if not isinstance(data, dict):
        raise JobError(f"{where}: expected a mapping with job_id, aggregator_ip and workers")
    known = {"job_id", "aggregator_ip", "workers", "slot_base", "slot_count", "upstream",
             "mcast_group", "lane_bits", "lanes"}
    unknown = sorted(set(data) - known)
    if unknown:
        raise JobError(f"{where}.{unknown[0]}: unknown field; fields: {', '.join(sorted(known))}")
    for name in ("job_id", "aggregator_ip", "workers"):
        if name not in data:
            raise JobError(f"{where}.{name}: missing")

    def integer(value, path):
        if isinstance(value, bool) or not isinstance(value, int):
            raise JobError(f"{path}: {value!r} is not an integer")
        return value

    workers = []
    for i, w in enumerate(data["workers"] or []):
        path = f"{where}.workers[{i}]"
        if not isinstance(w, dict) or {"worker_id", "port", "mac", "ip"} - set(w):
            raise JobError(f"{path}: needs worker_id, port, mac and ip")
        workers.append(Worker(integer(w["worker_id"], f"{path}.worker_id"),
                              integer(w["port"], f"{path}.port"), str(w["mac"]), str(w["ip"])))
    upstream = None
    if data.get("upstream") is not None:
        up, path = data["upstream"], f"{where}.upstream"
        if not isinstance(up, dict) or {"aggregator_ip", "job_id", "worker_id"} - set(up):
            raise JobError(f"{path}: needs aggregator_ip, job_id and worker_id")
        upstream = Upstream(str(up["aggregator_ip"]), integer(up["job_id"], f"{path}.job_id"),
                            integer(up["worker_id"], f"{path}.worker_id"))
    job = Job(integer(data["job_id"], f"{where}.job_id"), str(data["aggregator_ip"]), workers,
              integer(data.get("slot_base", 0), f"{where}.slot_base"),
              integer(data.get("slot_count", 32), f"{where}.slot_count"), upstream,
              integer(data.get("mcast_group", 0), f"{where}.mcast_group"),
              integer(data.get("lane_bits", 32), f"{where}.lane_bits"),
              integer(data.get("lanes", ina.LANES), f"{where}.lanes"), where=where)
    validate(job)
    return job


def install(address: str, device_id: int, args: dict) -> None:
    """Switch controller entry for topology specs (``controller: {entry:
    controllers.ina:install, args: {jobs: [...]}}``): set up every job in ``args``."""
    install_jobs(address, device_id, args, job_from_dict, setup)


def _act(device, job: Job, args, jobs: list) -> str:
    (setup if args.action == "setup" else teardown)(device, job)
    return (f"job {job.job_id} at {job.aggregator_ip}: {args.action} done "
            f"({len(job.workers)} workers, slots [{job.slot_base}, "
            f"{job.slot_base + job.slot_count}))")


def main(argv=None) -> int:
    parser = command_line("python -m controllers.ina",
                          "set up or tear down INA jobs on a switch running p4/ina.p4")
    return run_command(parser, parser.parse_args(argv), job_from_dict, _act, drop_counts,
                       handled_counts)


if __name__ == "__main__":
    run_cli(main)
