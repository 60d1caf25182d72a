"""The v1model target: a compiled P4 program, its traffic manager and control-plane API.

``process`` runs one frame through parser, verifyChecksum, ingress, the traffic manager
(clone, resubmit, multicast, unicast, in BMv2's order), egress, computeChecksum and
deparser, and returns every frame that leaves. Clone/resubmit/recirculate follow BMv2's
simple_switch: an ingress-to-egress clone and a resubmitted packet are the packet as
received, parsed again; an egress-to-egress clone keeps the egress headers; a
recirculated packet is the deparsed output. Only the ``@field_list`` fields of the user
metadata survive into those copies.

Assert/assume: BMv2 logs the failure and aborts the whole switch process. Here the
failure is logged as an error and the packet is dropped (``drop_counts["assert"]``), so
one bad packet does not stop the emulated network.
"""
from __future__ import annotations

import logging
import time
from contextlib import contextmanager

from testbed.p4 import entries as E
from testbed.p4 import ir
from testbed.p4.entries import ControlPlaneError
from testbed.p4.python.compiler import Compiler, compile_program
from testbed.p4.python.runtime import AssertFailed, PacketState, ParserError

DROP_PORT = 511
NORMAL, I2E, E2E, RECIRC, REPLICATION, RESUBMIT = 0, 1, 2, 4, 5, 6
MAX_PASSES = 16          # ingress passes per received frame (resubmit + recirculate)


class Target:
    """One v1model switch pipeline.

    ``cpu_port`` is the port that leads to the controller; the pipeline treats it like
    any other port (the P4Runtime server turns frames to and from it into packet-in and
    packet-out). When ``log`` is enabled for DEBUG at construction, the program is
    compiled with a per-packet trace (parser states, tables, actions, deparsing) in the
    manner of BMv2's console log; otherwise the trace costs nothing. ``clock`` (a
    function returning seconds) may be replaced, e.g. by tests, to drive meters and
    timestamps.
    """
    backend = "python"
    compiler = Compiler         # the architecture's code generator

    def __init__(self, program: ir.Program, cpu_port: int | None = None,
                 log: logging.Logger | None = None, priority_queues: int = 1):
        self.program = program
        self.cpu_port = cpu_port
        self.priority_queues = priority_queues
        self.log = log or logging.getLogger("testbed.p4.target")
        self.trace = self.log.isEnabledFor(logging.DEBUG)
        self.clock = time.monotonic
        self.compiled = compile_program(program, trace=self.trace, clock=lambda: self._clock(),
                                        priority_queues=priority_queues,
                                        compiler_class=self.compiler)
        ns = self.compiled.ns
        ns["_log"] = self.log
        self._ns = ns
        self._bind(ns)
        self._mc = {}
        self._clones = {}
        self.digest_handler = None
        self.drop_counts = {}

    def _bind(self, ns: dict) -> None:
        """Take the generated pipeline's entry points."""
        self._parse = ns["parse"]
        self._verify = ns["verify_checksum"]
        self._ingress = ns["ingress"]
        self._egress = ns["egress"]
        self._compute = ns["compute_checksum"]
        self._deparse = ns["deparse"]
        self._new_headers = ns["new_headers"]
        self._new_meta = ns["new_meta"]
        self._new_sm = ns["new_sm"]
        self._unicast = ns["unicast"]

    @property
    def clock(self):
        """Seconds; meters read it, and timestamps count microseconds since it was set."""
        return self._clock

    @clock.setter
    def clock(self, fn) -> None:
        self._clock = fn
        self._t0 = fn()

    # ---------------------------------------------------------------- data plane
    def process(self, frame: bytes, ingress_port: int) -> list:
        """Run one frame through the pipeline; return the (port, frame) pairs leaving.

        The generated ``unicast`` function runs the common case in one go; when a packet
        needs the traffic manager (clone, resubmit, multicast, digest, drop) or the end
        of egress (E2E clone, recirculate, drop), it hands over to the general path here.
        Not reentrant: one ``process`` at a time per Target.
        """
        if self.trace:
            self.log.debug("Processing packet received on port %d (%d bytes)",
                           ingress_port, len(frame))
        self._now = round((self._clock() - self._t0) * 1e6) & 0xFFFFFFFFFFFF
        try:
            r = self._unicast(frame, ingress_port, self._now)
        except (AssertFailed, ParserError) as e:
            self._failed(e)
            return []
        if type(r) is list:
            return r
        stage, hdr, meta, sm, st = r
        out, jobs, passes = [], [], []
        if stage == 0:
            self._traffic_manager(frame, ingress_port, hdr, meta, sm, st, jobs, passes)
        else:
            self._egress_tail(hdr, meta, sm, st, st.payload, sm.egress_port, 0, jobs, passes,
                              out)
        return self._finish(out, jobs, passes)

    def _finish(self, out, jobs, passes) -> list:
        count = 1
        while jobs or passes:
            while jobs:
                self._run_egress(jobs.pop(0), jobs, passes, out)
            if not passes:
                break
            count += 1
            if count > MAX_PASSES:
                self._drop("loop_limit")
                break
            self._run_ingress(*passes.pop(0), jobs, passes)
        return out

    def _failed(self, e: Exception) -> None:
        if isinstance(e, AssertFailed):
            self.log.error("%s failed: packet dropped", e)
            self._drop("assert")
        else:
            self.log.error("header stack index out of bounds in a control: packet dropped")
            self._drop("stack_out_of_bounds")

    def _drop(self, reason: str) -> None:
        self.drop_counts[reason] = self.drop_counts.get(reason, 0) + 1
        if self.trace:
            self.log.debug("Dropping packet (%s)", reason)

    def _parsed(self, frame: bytes, port: int, instance_type: int, preserved):
        hdr, meta, sm = self._new_headers(), self._new_meta(), self._new_sm()
        sm.ingress_port = port
        sm.packet_length = len(frame)
        sm.instance_type = instance_type
        sm.ingress_global_timestamp = self._now
        if preserved:
            _restore(meta, preserved)
        off, err = self._parse(frame, hdr, meta, sm)
        sm.parser_error = err
        return hdr, meta, sm, frame[off >> 3:]

    def _run_ingress(self, frame, port, instance_type, preserved, jobs, passes) -> None:
        hdr, meta, sm, payload = self._parsed(frame, port, instance_type, preserved)
        st = PacketState(len(frame), payload)
        if self._ingress_pipeline(hdr, meta, sm, st):
            self._traffic_manager(frame, port, hdr, meta, sm, st, jobs, passes)

    def _ingress_pipeline(self, hdr, meta, sm, st) -> bool:
        """verifyChecksum and ingress; False when the packet is dropped by a failure."""
        self._ns["_P"] = st
        try:
            self._verify(hdr, meta)
            sm.checksum_error = st.checksum_error
            self._ingress(hdr, meta, sm)
        except (AssertFailed, ParserError) as e:
            self._failed(e)
            return False
        return True

    def _traffic_manager(self, frame, port, hdr, meta, sm, st, jobs, passes) -> None:
        """End of ingress as BMv2: digests, I2E clone, resubmit, multicast, unicast/drop."""
        if st.digests and self.digest_handler is not None:
            for name, values in st.digests:
                self.digest_handler(name, tuple(values))
        if st.clone_type == I2E:
            kept = self._field_values(meta, st.clone_fl)
            for rep, session in self._clone_replicas(st.clone_session):
                c_hdr, c_meta, c_sm, c_payload = self._parsed(frame, port, I2E, kept)
                c_sm.egress_rid = rep.rid
                jobs.append((c_hdr, c_meta, c_sm, c_payload, rep.port,
                             session.packet_length_bytes))
        if st.resubmit_fl is not None:
            passes.append((frame, port, RESUBMIT, self._field_values(meta, st.resubmit_fl)))
            return
        if sm.mcast_grp:
            group = self._mc.get(sm.mcast_grp)
            if group is None:
                self._drop("unknown_multicast_group")
                return
            for rep in group.replicas:
                r_sm = sm._copy()
                r_sm.egress_rid = rep.rid
                r_sm.instance_type = REPLICATION
                jobs.append((hdr._copy(), meta._copy(), r_sm, st.payload, rep.port, st.trunc))
            return
        if sm.egress_spec == DROP_PORT:
            self._drop("ingress_drop")
            return
        jobs.append((hdr, meta, sm, st.payload, sm.egress_spec, st.trunc))

    def _run_egress(self, job, jobs, passes, out) -> None:
        hdr, meta, sm, payload, port, trunc = job
        if sm.priority >= self.priority_queues:
            self._drop("priority_out_of_range")     # BMv2 drops it at the egress queue
            return
        if self.trace:
            self.log.debug("Egress port is %d (instance type %d, rid %d)", port,
                           sm.instance_type, sm.egress_rid)
        sm.egress_port = port
        sm.egress_spec = 0
        sm.enq_timestamp = self._now & 0xFFFFFFFF
        sm.egress_global_timestamp = self._now
        st = PacketState(sm.packet_length, payload)
        self._ns["_P"] = st
        try:
            self._egress(hdr, meta, sm)
        except (AssertFailed, ParserError) as e:
            self._failed(e)
            return
        self._egress_tail(hdr, meta, sm, st, payload, port, trunc, jobs, passes, out)

    def _egress_tail(self, hdr, meta, sm, st, payload, port, trunc, jobs, passes, out):
        """End of egress as BMv2: E2E clone, drop, deparse, recirculate, transmit."""
        if st.clone_type == E2E:
            kept = self._field_values(meta, st.clone_fl)
            for rep, session in self._clone_replicas(st.clone_session):
                c_meta = self._new_meta()
                _restore(c_meta, kept)
                c_sm = self._new_sm()
                for name in ("ingress_port", "packet_length", "ingress_global_timestamp"):
                    setattr(c_sm, name, getattr(sm, name))
                c_sm.instance_type = E2E
                c_sm.egress_rid = rep.rid
                jobs.append((hdr._copy(), c_meta, c_sm, payload, rep.port,
                             session.packet_length_bytes))
        if sm.egress_spec == DROP_PORT:
            self._drop("egress_drop")
            return
        try:
            self._compute(hdr, meta)
        except (AssertFailed, ParserError) as e:
            self._failed(e)
            return
        data = self._deparse(hdr, payload)
        if st.recirc_fl is not None:
            passes.append((data, sm.ingress_port, RECIRC,
                           self._field_values(meta, st.recirc_fl)))
            return
        limit = min(x for x in (st.trunc, trunc) if x) if (st.trunc or trunc) else 0
        if limit:
            data = data[:limit]
        if self.trace:
            self.log.debug("Transmitting packet of size %d out of port %d", len(data), port)
        out.append((port, data) if self.priority_queues == 1 else (port, data, sm.priority))

    def _clone_replicas(self, session_id: int):
        session = self._clones.get(session_id)
        if session is None:
            self._drop("unknown_clone_session")
            return []
        return [(rep, session) for rep in session.replicas]

    def _field_values(self, meta, index) -> list:
        if index is None:
            return []
        values = []
        for path in self.compiled.field_lists.get(index, []):
            obj = meta
            for name in path:
                obj = getattr(obj, name)
            values.append((path, obj._copy() if hasattr(obj, "_copy") else obj))
        return values

    # ---------------------------------------------------------------- tables
    def _table(self, name: str):
        t = self.compiled.tables.get(name)
        if t is None:
            raise ControlPlaneError("NOT_FOUND", f"no table {name!r}; tables: "
                                    f"{sorted(self.compiled.tables)}")
        return t

    @contextmanager
    def batch(self):
        """A block of control-plane writes that packets may see only as a whole (the
        caller holds the lock packets take). Here every write is applied at once; a
        target with a costlier data-plane copy (the native one) gathers them."""
        yield

    def table_insert(self, entry: E.TableEntry) -> E.TableEntry:
        """Add ``entry``; return it as the table stores it."""
        return self._table(entry.table).insert(entry)

    def table_checks(self, table: str) -> tuple:
        """What ``table`` checks an entry against: its keys' (match kind, width), per
        action an entry may run its parameters' (name, width), sorted, and whether it
        takes its actions from an action profile."""
        t = self._table(table)
        return (list(t.keys), {a.name: sorted(a.params) for a in t.actions.values()
                               if not a.default_only}, t.profile is not None)

    def table_insert_checked(self, entry: E.TableEntry, encoded=None) -> E.TableEntry:
        """Add ``entry``, already checked by the control plane as the table would check
        it; see ``TableState.insert_checked``."""
        return self._table(entry.table).insert_checked(entry, encoded)

    def table_modify(self, entry: E.TableEntry) -> E.TableEntry:
        """Change the action of ``entry``'s key; return the entry as stored."""
        return self._table(entry.table).modify(entry)

    def table_delete(self, entry: E.TableEntry) -> E.TableEntry:
        """Remove ``entry``'s key; return the entry that was stored."""
        return self._table(entry.table).delete(entry)

    def table_entries(self, table: str) -> list:
        return self._table(table).read()

    def table_entries_encoded(self, table: str, owner, encode, counters: bool) -> list:
        """(``encode(entry)``, entry, packets, bytes) of every entry of ``table``, the
        encoding kept with the stored entry while it is unchanged (``owner`` names it);
        the entries are the stored ones, not to be changed; packets and bytes are the
        direct counter's now, 0 without ``counters``."""
        return [(data, entry, *counter) if counters else (data, entry, 0, 0)
                for data, entry, counter in self._table(table).read_encoded(owner, encode)]

    def profile(self, name: str):
        """The state of an action profile or selector (its members and groups)."""
        p = self.compiled.profiles.get(name)
        if p is None:
            raise ControlPlaneError("NOT_FOUND", f"no action profile {name!r}; profiles: "
                                    f"{sorted(self.compiled.profiles)}")
        return p

    def table_set_default(self, table: str, call: E.ActionCall) -> None:
        self._table(table).set_default(call)

    def table_get_default(self, table: str) -> E.ActionCall:
        return self._table(table).get_default()

    def table_clear(self, table: str) -> None:
        self._table(table).clear()

    # ---------------------------------------------------------------- externs
    def _indexed(self, kind: str, objects: dict, name: str, index: int):
        obj = objects.get(name)
        if obj is None:
            raise ControlPlaneError("NOT_FOUND", f"no {kind} {name!r}; {kind}s: "
                                    f"{sorted(objects)}")
        if not 0 <= index < obj.size:
            raise ControlPlaneError("OUT_OF_RANGE", f"{kind} {name} index {index} is outside "
                                    f"0..{obj.size - 1}")
        return obj

    def register_read(self, name: str, index: int) -> int:
        return self._indexed("register", self.compiled.registers, name, index).cells[index]

    def register_write(self, name: str, index: int, value: int) -> None:
        reg = self._indexed("register", self.compiled.registers, name, index)
        lo, hi = ((-(1 << (reg.width - 1)), (1 << (reg.width - 1)) - 1) if reg.signed
                  else (0, (1 << reg.width) - 1))
        if not lo <= value <= hi:
            raise ControlPlaneError("INVALID_ARGUMENT", f"register {name}: value {value} does "
                                    f"not fit its {reg.width}-bit cells")
        reg.cells[index] = value

    def counter_read(self, name: str, index: int) -> tuple:
        c = self._indexed("counter", self.compiled.counters, name, index)
        return c.packets[index], c.bytes[index]

    def counter_write(self, name: str, index: int, packets: int, bytes_: int) -> None:
        c = self._indexed("counter", self.compiled.counters, name, index)
        c.packets[index], c.bytes[index] = packets, bytes_

    def meter_set(self, name: str, index: int, cir: int, cburst: int, pir: int,
                  pburst: int) -> None:
        m = self._indexed("meter", self.compiled.meters, name, index)
        if cir > pir:
            raise ControlPlaneError("INVALID_ARGUMENT", f"meter {name}: committed rate {cir} "
                                    f"exceeds peak rate {pir}")
        m.cells[index].configure(cir, cburst, pir, pburst, self.clock())

    def value_set_set(self, name: str, matches) -> None:
        sets = self.compiled.value_sets
        if name not in sets:
            raise ControlPlaneError("NOT_FOUND", f"no value_set {name!r}; value sets: "
                                    f"{sorted(sets)}")
        members = [tuple(m) if isinstance(m, (tuple, list)) else (m,) for m in matches]
        mask = next((vs.mask for p in self.program.parsers.values() for vs in p.value_sets
                     if vs.name == name), None)
        if mask is not None:
            members = [tuple(_under_mask(m, k) for m, k in zip(member, mask))
                       for member in members]
        sets[name] = members

    # ---------------------------------------------------------------- packet replication
    def mc_group_set(self, group: E.MulticastGroup) -> None:
        if group.group_id <= 0 or group.group_id > 0xFFFF:
            raise ControlPlaneError("INVALID_ARGUMENT", f"multicast group id {group.group_id} "
                                    "must be in 1..65535")
        self._mc[group.group_id] = group

    def mc_group_delete(self, group_id: int) -> None:
        if self._mc.pop(group_id, None) is None:
            raise ControlPlaneError("NOT_FOUND", f"no multicast group {group_id}")

    def mc_groups(self) -> dict:
        return dict(self._mc)

    def clone_session_set(self, session: E.CloneSession) -> None:
        if session.session_id <= 0:
            raise ControlPlaneError("INVALID_ARGUMENT", f"clone session id "
                                    f"{session.session_id} must be > 0")
        self._clones[session.session_id] = session

    def clone_session_delete(self, session_id: int) -> None:
        if self._clones.pop(session_id, None) is None:
            raise ControlPlaneError("NOT_FOUND", f"no clone session {session_id}")

    def clone_sessions(self) -> dict:
        return dict(self._clones)


def _restore(meta, values) -> None:
    for path, value in values:
        obj = meta
        for name in path[:-1]:
            obj = getattr(obj, name)
        if hasattr(value, "_copy"):
            getattr(obj, path[-1])._set(value)
        else:
            setattr(obj, path[-1], value)


def _under_mask(match, mask: int):
    """A value set member's match for one key of a masked value set: an exact value
    matches where key & mask == value & mask."""
    if isinstance(match, E.Exact):
        return E.Ternary(match.value & mask, mask)
    if isinstance(match, E.Ternary):
        return E.Ternary(match.value & match.mask & mask, match.mask & mask)
    return match
