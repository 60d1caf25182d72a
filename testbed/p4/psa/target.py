"""The PSA target: PSA_Switch's packet path around a compiled PSA program.

The control plane (tables, registers, counters, meters, multicast groups, clone
sessions) is the v1model target's; what differs is the path a packet takes, which
follows the PSA specification (v1.2, "Packet paths") and BMv2's psa_switch:

* ingress: the ingress parser (``packet_path`` NORMAL, RESUBMIT or RECIRCULATE, with the
  resubmit or recirculate metadata), the Ingress control with ``ostd`` as the
  specification initialises it (``drop`` true, so a packet nobody sends is dropped),
  then the ingress deparser, whose output (emitted headers + unparsed payload) is what
  egress receives. A parser error does not drop the packet: Ingress sees it in
  ``istd.parser_error``.
* after ingress, in this order: ``clone`` makes one CLONE_I2E copy per replica of clone
  session ``clone_session_id`` of the packet as the ingress parser received it, not of
  the deparser's output (as BMv2's psa_switch does; dropped packets are cloned too),
  with the class of service the clone session configures (PSA's pseudocode for the end
  of ingress and egress; the same for CLONE_E2E);
  ``drop`` ends the packet; ``resubmit`` sends the packet as it was received back to the
  ingress parser with the deparser's ``resubmit_meta``; a non-zero ``multicast_group``
  sends one NORMAL_MULTICAST copy per group member (``instance`` = its replica id); else
  one NORMAL_UNICAST packet goes to ``egress_port``. Egress copies carry
  ``normal_meta`` or ``clone_i2e_meta``.
* egress: the egress parser, the Egress control (``ostd.drop`` false), the egress
  deparser; then ``clone`` makes CLONE_E2E copies of the deparsed packet (with
  ``clone_e2e_meta``), ``drop`` ends it, an ``egress_port`` of PSA_PORT_RECIRCULATE sends
  it to the ingress parser (RECIRCULATE, ingress port PSA_PORT_RECIRCULATE, with
  ``recirculate_meta``), and any other port transmits it.

A frame from the CPU port enters with ingress port PSA_PORT_CPU, and a packet sent to
PSA_PORT_CPU leaves on the CPU port, when the target has one. A clone session's
``packet_length_bytes`` truncates its copies. User metadata starts zeroed in both
parsers (PSA leaves it undefined). At most MAX_PASSES ingress passes per frame, as for
v1model.
"""
from __future__ import annotations

from testbed.p4 import ir
from testbed.p4.psa.compiler import PsaCompiler
from testbed.p4.python.runtime import AssertFailed, PacketState, ParserError
from testbed.p4.python.target import MAX_PASSES, Target

PSA_PORT_RECIRCULATE = 0xFFFFFFFA
PSA_PORT_CPU = 0xFFFFFFFD


class PsaTarget(Target):
    """One PSA_Switch pipeline; the same API as the v1model :class:`Target`."""
    compiler = PsaCompiler

    def _bind(self, ns: dict) -> None:
        self._fn = {role: ns[role] for role in ir.PSA_ROLES}
        self._new = ns["NEW"]
        consts = self.program.constants
        self.recirculate_port = _const(consts, "PSA_PORT_RECIRCULATE", PSA_PORT_RECIRCULATE)
        self.psa_cpu_port = _const(consts, "PSA_PORT_CPU", PSA_PORT_CPU)
        path_t = self.program.types.get("PSA_PacketPath_t")
        members = path_t.members if isinstance(path_t, ir.EnumT) else ir.PSA_PATHS
        self.path = {name: members.index(name) for name in ir.PSA_PATHS}

    # ---------------------------------------------------------------- data plane
    def process(self, frame: bytes, ingress_port: int) -> list:
        """Run one frame through PSA_Switch; return the (port, frame) pairs leaving."""
        if self.trace:
            self.log.debug("Processing packet received on port %d (%d bytes)",
                           ingress_port, len(frame))
        self._now = round((self._clock() - self._t0) * 1e6) & 0xFFFFFFFFFFFFFFFF
        port = self.psa_cpu_port if ingress_port == self.cpu_port else ingress_port
        out, jobs = [], []
        passes = [(frame, port, self.path["NORMAL"], None, None)]
        count = 0
        while passes:
            count += 1
            if count > MAX_PASSES:
                self._drop("loop_limit")
                break
            self._ingress_pass(*passes.pop(0), jobs, passes)
            while jobs:
                self._egress_pass(jobs.pop(0), jobs, passes, out)
        return out

    def _ingress_pass(self, frame, port, path, resubmit_meta, recirculate_meta, jobs,
                      passes) -> None:
        new_p, new_i, new_d = (self._new[r] for r in ("ingress_parser", "ingress",
                                                       "ingress_deparser"))
        hdr, meta, pistd = new_p[1](), new_p[2](), new_p[3]()
        pistd.ingress_port, pistd.packet_path = port, path
        st = PacketState(len(frame))
        self._ns["_P"] = st
        istd, ostd = new_i[2](), new_i[3]()
        clone_meta, resubmit_out, normal_meta = new_d[1](), new_d[2](), new_d[3]()
        try:
            off, err = self._fn["ingress_parser"](frame, hdr, meta, pistd,
                                                  resubmit_meta or new_p[4](),
                                                  recirculate_meta or new_p[5]())
            istd.ingress_port, istd.packet_path = port, path
            istd.ingress_timestamp, istd.parser_error = self._now, err
            ostd.drop = True
            self._fn["ingress"](hdr, meta, istd, ostd)
            data = self._fn["ingress_deparser"](clone_meta, resubmit_out, normal_meta, hdr,
                                                meta, ostd, frame[off >> 3:])
        except (AssertFailed, ParserError) as e:
            self._failed(e)
            return
        self._digests(st)
        cos = ostd.class_of_service
        if ostd.clone:
            for rep, session in self._clone_replicas(ostd.clone_session_id):
                jobs.append((frame, rep.port, self.path["CLONE_I2E"], rep.rid,
                             session.class_of_service, clone_meta,
                             session.packet_length_bytes))
        if ostd.drop:
            self._drop("ingress_drop")
            return
        if ostd.resubmit:
            passes.append((frame, port, self.path["RESUBMIT"], resubmit_out, None))
            return
        if ostd.multicast_group:
            group = self._mc.get(ostd.multicast_group)
            if group is None:
                self._drop("unknown_multicast_group")
                return
            for rep in group.replicas:
                jobs.append((data, rep.port, self.path["NORMAL_MULTICAST"], rep.rid, cos,
                             normal_meta, 0))
            return
        jobs.append((data, ostd.egress_port, self.path["NORMAL_UNICAST"], 0, cos,
                     normal_meta, 0))

    def _egress_pass(self, job, jobs, passes, out) -> None:
        data, port, path, instance, cos, carried, trunc = job
        if cos >= self.priority_queues > 1:
            self._drop("priority_out_of_range")
            return
        if self.trace:
            self.log.debug("Egress port is %d (packet path %d, instance %d)", port, path,
                           instance)
        new_p, new_e, new_d = (self._new[r] for r in ("egress_parser", "egress",
                                                       "egress_deparser"))
        hdr, meta, pistd = new_p[1](), new_p[2](), new_p[3]()
        pistd.egress_port, pistd.packet_path = port, path
        by_path = {self.path["CLONE_I2E"]: 5, self.path["CLONE_E2E"]: 6}
        carried_in = [new_p[i]() for i in (4, 5, 6)]
        carried_in[by_path.get(path, 4) - 4] = carried
        st = PacketState(len(data))
        self._ns["_P"] = st
        istd, ostd = new_e[2](), new_e[3]()
        clone_meta, recirculate_meta, edstd = new_d[1](), new_d[2](), new_d[6]()
        try:
            off, err = self._fn["egress_parser"](data, hdr, meta, pistd, *carried_in)
            istd.class_of_service, istd.egress_port, istd.packet_path = cos, port, path
            istd.instance, istd.egress_timestamp, istd.parser_error = instance, self._now, err
            self._fn["egress"](hdr, meta, istd, ostd)
            edstd.egress_port = port
            data = self._fn["egress_deparser"](clone_meta, recirculate_meta, hdr, meta, ostd,
                                               edstd, data[off >> 3:])
        except (AssertFailed, ParserError) as e:
            self._failed(e)
            return
        self._digests(st)
        if ostd.clone:
            for rep, session in self._clone_replicas(ostd.clone_session_id):
                jobs.append((data, rep.port, self.path["CLONE_E2E"], rep.rid,
                             session.class_of_service, clone_meta,
                             session.packet_length_bytes))
        if ostd.drop:
            self._drop("egress_drop")
            return
        if port == self.recirculate_port:
            passes.append((data, port, self.path["RECIRCULATE"], None, recirculate_meta))
            return
        if trunc:
            data = data[:trunc]
        if port == self.psa_cpu_port and self.cpu_port is not None:
            port = self.cpu_port
        if self.trace:
            self.log.debug("Transmitting packet of size %d out of port %d", len(data), port)
        out.append((port, data) if self.priority_queues == 1 else (port, data, cos))

    def _digests(self, st: PacketState) -> None:
        if st.digests and self.digest_handler is not None:
            for name, values in st.digests:
                self.digest_handler(name, tuple(values))


def _const(constants: dict, name: str, default: int) -> int:
    c = constants.get(name)
    return c.value if isinstance(c, ir.Const) else default
