"""What every job controller (``controllers.ina``, ``.luwu``, ``.luwu_sgd``) shares: the
error it raises, the P4Runtime device a job is written through, :func:`installed`, which
holds a job on a switch for the length of a block, jobs read from YAML and the
command-line frame.

A controller module is anything with ``setup(device, job, ...)`` and
``teardown(device, job)``; a device is anything with the methods of
:class:`P4RuntimeDevice` (:class:`TargetDevice` programs a Target in-process).
"""
from __future__ import annotations

import argparse
import sys
from contextlib import contextmanager
from pathlib import Path

from testbed.errors import TrainetError
from testbed.p4runtime.values import parse_ipv4, parse_mac

# Job controllers take election id 2, above the routing controller's and the `trainet up`
# console's 1, so a job is set up even while either of them is still connected.
ELECTION_ID = (0, 2)


class JobError(TrainetError):
    """A job description the switch cannot accept."""


def ipv4(text: str, where: str) -> int:
    try:
        return parse_ipv4(text)
    except ValueError as err:
        raise JobError(f"{where}: {err}") from None


def mac(text: str, where: str) -> int:
    try:
        return parse_mac(text)
    except ValueError as err:
        raise JobError(f"{where}: {err}") from None


class TargetDevice:
    """A Target programmed in-process."""

    def __init__(self, target):
        self.target = target
        self._actions = None      # the action names of the program's P4Info, when asked

    def insert(self, entry):
        self.target.table_insert(entry)

    def delete(self, entry):
        self.target.table_delete(entry)

    def entries(self, table):
        return self.target.table_entries(table)

    def set_group(self, group):
        self.target.mc_group_set(group)

    def delete_group(self, group_id):
        self.target.mc_group_delete(group_id)

    def write_register(self, name, index, value):
        self.target.register_write(name, index, value)

    def register_size(self, name) -> int:
        reg = self.target.compiled.registers.get(name)
        if reg is None:
            raise JobError(f"the target's program has no register {name}")
        return reg.size

    def register_names(self) -> list[str]:
        return list(self.target.compiled.registers)

    def write_registers(self, name, start, values):
        """Cells ``start``, ``start + 1``, ... of register ``name`` (unsigned values)."""
        for i, value in enumerate(values):
            self.target.register_write(name, start + i, int(value))

    def read_registers(self, name, start, count) -> list[int]:
        return [self.target.register_read(name, start + i) for i in range(count)]

    def read_counter(self, name, index):
        return self.target.counter_read(name, index)

    def reset_counter(self, name):
        """Every cell of counter ``name`` back to 0 packets, 0 bytes."""
        for index in range(self.target.compiled.counters[name].size):
            self.target.counter_write(name, index, 0, 0)

    def has_action(self, name) -> bool:
        """Whether the program's P4Info lists action ``name``, as a switch's would."""
        from testbed.p4.p4info import build
        if self._actions is None:
            self._actions = {a.preamble.name for a in build(self.target.program).actions}
        return name in self._actions

    def program_name(self) -> str:
        return Path(self.target.program.source).name


class P4RuntimeDevice:
    """A switch reached through a connected ``P4RuntimeClient`` (its pipeline loaded)."""

    def __init__(self, client):
        from p4.v1 import p4runtime_pb2 as pb

        from testbed.p4runtime import convert as conv
        self.pb, self.conv, self.client = pb, conv, client
        self.index = conv.P4InfoIndex(client.p4info or client.get_pipeline_p4info())

    def _id(self, kind: str, name: str) -> int:
        for item in getattr(self.index, kind).values():
            if item.preamble.name == name:
                return item.preamble.id
        raise JobError(f"the switch's pipeline has no {kind[:-1]} {name}; is it running "
                       "p4/ina.p4?")

    def _entity(self, entry):
        return self.pb.Entity(table_entry=self.conv.table_entry_to_p4rt(self.index, entry))

    def insert(self, entry):
        self.client.write([self._entity(entry)], self.pb.Update.INSERT)

    def delete(self, entry):
        self.client.write([self._entity(entry)], self.pb.Update.DELETE)

    def entries(self, table):
        wanted = self.pb.Entity(table_entry=self.pb.TableEntry(
            table_id=self.index.table_ids[table]))
        return [self.conv.table_entry_from_p4rt(self.index, e.table_entry)
                for e in self.client.read(wanted)]

    def _pre(self, group):
        return self.pb.Entity(packet_replication_engine_entry=self.pb.PacketReplicationEngineEntry(
            multicast_group_entry=group))

    def set_group(self, group):
        self.client.write([self._pre(self.conv.multicast_group_to_p4rt(group))],
                          self.pb.Update.INSERT)

    def delete_group(self, group_id):
        self.client.write([self._pre(self.pb.MulticastGroupEntry(multicast_group_id=group_id))],
                          self.pb.Update.DELETE)

    def write_register(self, name, index, value):
        from p4.v1 import p4data_pb2
        entry = self.pb.RegisterEntry(register_id=self._id("registers", name),
                                      index=self.pb.Index(index=index),
                                      data=p4data_pb2.P4Data(bitstring=self.conv.encode(value)))
        self.client.write([self.pb.Entity(register_entry=entry)], self.pb.Update.MODIFY)

    def register_size(self, name) -> int:
        reg_id = self._id("registers", name)
        return next(r.size for r in self.index.registers.values() if r.preamble.id == reg_id)

    def register_names(self) -> list[str]:
        return [r.preamble.name for r in self.index.registers.values()]

    def write_registers(self, name, start, values, batch=4096):
        """Cells ``start``, ``start + 1``, ... of register ``name`` (unsigned values), in
        write requests of ``batch`` updates (a request stays well below gRPC's 4 MB),
        built in place."""
        reg_id = self._id("registers", name)
        values = list(values)
        for at in range(0, len(values), batch):
            req = self.client.write_request()
            for i, value in enumerate(values[at:at + batch], start + at):
                update = req.updates.add()
                update.type = self.pb.Update.MODIFY
                cell = update.entity.register_entry
                cell.register_id = reg_id
                cell.index.index = i
                cell.data.bitstring = self.conv.encode(int(value))
            self.client.submit(req)

    def read_registers(self, name, start, count, batch=4096) -> list[int]:
        """Cells ``start`` .. ``start + count - 1`` of register ``name``, ``batch`` cells
        per read request."""
        reg_id = self._id("registers", name)
        cells = {}
        for at in range(start, start + count, batch):
            req = self.client.read_request()
            for i in range(at, min(at + batch, start + count)):
                cell = req.entities.add().register_entry
                cell.register_id = reg_id
                cell.index.index = i
            for e in self.client.fetch(req):
                cells[e.register_entry.index.index] = int.from_bytes(
                    e.register_entry.data.bitstring, "big")
        return [cells[i] for i in range(start, start + count)]

    def read_counter(self, name, index):
        wanted = self.pb.Entity(counter_entry=self.pb.CounterEntry(
            counter_id=self._id("counters", name), index=self.pb.Index(index=index)))
        data = self.client.read(wanted)[0].counter_entry.data
        return data.packet_count, data.byte_count

    def reset_counter(self, name):
        """Every cell of counter ``name`` back to 0 packets, 0 bytes (one entry that
        names no index: all of them)."""
        entry = self.pb.CounterEntry(counter_id=self._id("counters", name),
                                     data=self.pb.CounterData(packet_count=0, byte_count=0))
        self.client.write([self.pb.Entity(counter_entry=entry)], self.pb.Update.MODIFY)

    def has_action(self, name) -> bool:
        return name in self.index.action_ids

    def program_name(self) -> str:
        """P4Info's package name, or the device when the P4Info gives none."""
        name = self.index.p4info.pkg_info.name
        return name or f"(device {self.client.device_id} at {self.client.address})"


@contextmanager
def connected(address: str, device_id: int):
    """The switch at ``address`` as a P4RuntimeDevice, for the block."""
    from controllers.p4runtime_client import P4RuntimeClient
    with P4RuntimeClient(address, device_id, election_id=ELECTION_ID) as client:
        yield P4RuntimeDevice(client)


@contextmanager
def installed(address: str, device_id: int, controller, job, *setup_args):
    """``job`` set up by ``controller`` on the switch at ``address`` for the block and torn
    down after it, also when the block fails; yields the device, for counters and
    registers. Workers number their chunks from 0 when they start, so every run of
    workers needs its job installed afresh."""
    with connected(address, device_id) as device:
        controller.setup(device, job, *setup_args)
        try:
            yield device
        finally:
            controller.teardown(device, job)


def install_jobs(address: str, device_id: int, args: dict, job_from_dict, setup) -> None:
    """The body of a switch controller entry for topology specs (``controller: {entry:
    controllers.ina:install, args: {jobs: [...]}}``): set up every job in ``args``."""
    jobs = [job_from_dict(j, f"controller.args.jobs[{i}]")
            for i, j in enumerate(args.get("jobs", []))]
    with connected(address, device_id) as device:
        for job in jobs:
            setup(device, job)


def load_jobs(path: str, job_from_dict) -> list:
    """The jobs of a YAML file holding one job mapping or a list of them."""
    import yaml
    try:
        with open(path) as f:
            data = yaml.safe_load(f)
    except (OSError, yaml.YAMLError) as err:
        raise JobError(f"{path}: {err}") from None
    items = data if isinstance(data, list) else [data]
    return [job_from_dict(j, f"{path}: job[{i}]") for i, j in enumerate(items)]


def command_line(prog: str, description: str,
                 actions=("setup", "teardown", "counters")) -> argparse.ArgumentParser:
    """The arguments every controller command takes: an action, a jobs file, the switch
    (by default a topology's first switch)."""
    from testbed.topology.spec import FIRST_GRPC_PORT
    p = argparse.ArgumentParser(prog=prog, description=description)
    p.add_argument("action", choices=list(actions))
    p.add_argument("jobs", nargs="?", help="YAML file: a job mapping or a list of them")
    p.add_argument("--switch", default=f"127.0.0.1:{FIRST_GRPC_PORT}",
                   help="P4Runtime address")
    p.add_argument("--device-id", type=int, default=0)
    return p


def run_command(parser: argparse.ArgumentParser, args, job_from_dict, act, drop_counts,
                handled_counts) -> int:
    """A controller command: ``act(device, job, args, jobs)`` on every job of the jobs
    file (``jobs``: all of them; every action but counters needs the file), printing what
    it returns; for counters, the switch's ``drop_counts`` and ``handled_counts``."""
    if not args.jobs and args.action != "counters":
        parser.error(f"{args.action} needs a jobs file")
    jobs = load_jobs(args.jobs, job_from_dict) if args.jobs else []
    with connected(args.switch, args.device_id) as device:
        for job in jobs:
            print(act(device, job, args, jobs))
        if args.action == "counters":
            for what, counts in (("dropped", drop_counts), ("handled", handled_counts)):
                print(f"{what}:", ", ".join(f"{k} {v} packets"
                                            for k, v in counts(device).items()))
    return 0


def run_cli(main) -> None:
    """Exit with ``main()``'s code; a TrainetError prints its message and exits 2."""
    try:
        sys.exit(main())
    except TrainetError as err:
        print(err, file=sys.stderr)
        sys.exit(err.exit_code)
