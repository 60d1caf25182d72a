"""Run an STF test file against the target (v1model or PSA) and report each expectation.

Semantics follow p4c's BMv2 test driver (``backends/bmv2/bmv2stf.py``):

* Commands run in file order; every ``packet`` goes through the whole pipeline at once,
  with the tables as the commands before it left them.
* ``expect <port> <hex>`` lines are collected per port, wherever they are in the file.
  The packets leaving on a port are compared with that port's expectations in order, and
  their numbers must be equal. ``*`` matches any nibble; the packet may be longer than
  the pattern unless the pattern ends with ``$``.
* ``expect <port>`` without data accepts any packets on that port.
* A port named by no ``packet`` or ``expect`` line is not captured (BMv2's driver only
  opens pcap files for those), so packets leaving there are listed but are not failures.
* ``add <table> [<priority>] <key>:<value>... <action>(<param>:<value>, ...) [= NAME]``.
  The driver hands BMv2 ``10000 - priority`` and BMv2 prefers the smallest value, so in
  STF the larger priority wins -- the P4Runtime convention entries.py uses. STF allows
  priority 0 where P4Runtime needs > 0, so the target gets ``priority + 1`` (same order).
  Tables with ternary/range/optional keys need a priority; for other tables it is
  ignored, as the reference driver does.
* Key values: ``v/len`` (lpm), ``v&&&mask`` (ternary), ``lo..hi`` (range), ``*`` (any).
  A hex or binary ternary value sets one mask nibble/bit per digit (``*`` clears it),
  so ``0x**01`` on a 16-bit key means value 0x0001, mask 0x00FF. An lpm value without
  ``/len`` gets a prefix of the digits written (``0x0a****** `` = /8). Values may also be
  dotted IPv4 addresses. Keys are named like P4Info (``hdr.ipv4.dstAddr``) or by a unique
  ``.``-suffix (``dstAddr``); ``X.$valid$``, ``X.valid`` and ``X.isValid()`` name an
  ``X.isValid()`` key, whose name is ``X.$valid$`` as p4c names it.
* Table, action and extern names are fully qualified or a unique suffix.
* Extensions: ``check_counter`` compares (BMv2's driver ignores it); ``check_register
  <reg> <index> [op] <value>``; ``check_digest <type> <value>...`` (digests in order);
  ``no_packet``: the previous ``packet`` produced no packet at all; ``value_set_set
  <value_set> <member>...`` replaces the members of a bit<W> value_set, each member a
  value, ``v&&&mask`` or ``lo..hi``.
"""
from __future__ import annotations

import ipaddress
import operator
import re
from dataclasses import dataclass, field
from typing import Optional

from testbed.errors import P4Error
from testbed.p4 import entries as E
from testbed.p4 import ir
from testbed.p4.frontend.p4types import show
from testbed.p4.stf.syntax import (AddEntry, CheckCounter, Expect, Packet, SetDefault, Simple,
                                   Token, parse_file)

_COMPARE = {"==": operator.eq, "!=": operator.ne, "<": operator.lt, "<=": operator.le,
            ">": operator.gt, ">=": operator.ge}


# ---------------------------------------------------------------- report
@dataclass
class Check:
    """One expectation and its outcome."""
    loc: Optional[ir.Loc]
    title: str                    # "port 2 packet 1", "counter MyIngress.c[3]", ...
    passed: bool
    expected: Optional[str] = None  # hex pattern, or a value description
    actual: Optional[str] = None
    note: str = ""


@dataclass
class Report:
    stf: str
    checks: list = field(default_factory=list)
    packets_in: int = 0
    packets_out: int = 0
    uncaptured: list = field(default_factory=list)   # (port, hex) on ports not in the file
    notes: list = field(default_factory=list)        # register_read / counter_read output

    @property
    def passed(self) -> bool:
        return all(c.passed for c in self.checks)

    def render(self, verbose: bool = False) -> str:
        lines = []
        for c in self.checks:
            if c.passed and not verbose:
                continue
            where = f"{c.loc}: " if c.loc else ""
            lines.append(f"{'PASS' if c.passed else 'FAIL'} {where}{c.title}"
                         + (f" -- {c.note}" if c.note else ""))
            lines.extend(_side_by_side(c))
        if verbose:
            lines.extend(f"note: {n}" for n in self.notes)
            lines.extend(f"not captured: port {p} (no packet/expect line names it): {h}"
                         for p, h in self.uncaptured)
        failed = sum(not c.passed for c in self.checks)
        lines.append(f"{self.stf}: {'PASS' if self.passed else 'FAIL'}: "
                     f"{len(self.checks) - failed}/{len(self.checks)} checks passed, "
                     f"{self.packets_in} packets in, {self.packets_out} packets out")
        return "\n".join(lines)


_ROW = 32   # nibbles (16 bytes) per row of the side-by-side dump


def _spaced(nibbles: str) -> str:
    return " ".join(nibbles[i:i + 2] for i in range(0, len(nibbles), 2))


def _side_by_side(c: Check) -> list:
    """Expected and actual bytes in aligned 16-byte rows, '^' under differing nibbles."""
    if c.expected is None and c.actual is None:
        return []
    exp, act = c.expected or "", c.actual or ""
    absent = "(no packet)" if c.actual is None else "(empty packet: 0 bytes)"
    if not re.fullmatch(r"[0-9A-F*$]*", exp) or not re.fullmatch(r"[0-9A-F]*", act):
        return [f"    expected: {exp or '-'}", f"    actual:   {act or '-'}"]
    exact_end = exp.endswith("$")
    pattern = exp.rstrip("$")
    width = max(len(pattern), len(act)) if exact_end or not pattern else len(pattern)
    marks = "".join(
        " " if i < len(pattern) and i < len(act) and pattern[i] in ("*", act[i]) else "^"
        for i in range(width))
    out = []
    for row in range(0, max(len(pattern), len(act), 1), _ROW):
        e, a = pattern[row:row + _ROW], act[row:row + _ROW]
        m = marks[row:row + _ROW] if c.expected and c.actual is not None else ""
        last = row + _ROW >= max(len(pattern), len(act))
        out.append(f"    {row // 2:04x} expected: {_spaced(e) or '-'}"
                   + (" $" if exact_end and last and e else ""))
        out.append(f"         actual:   {_spaced(a) or (absent if not act else '-')}")
        if "^" in m:
            out.append("                   "
                       + "".join(ch + (" " if i % 2 else "") for i, ch in enumerate(m)).rstrip())
    return out


def match_packet(pattern: str, exact_end: bool, data: bytes) -> bool:
    """True when ``data`` matches an STF expectation (nibbles, '*' don't-care)."""
    actual = data.hex().upper()
    if len(actual) < len(pattern) or (exact_end and len(actual) != len(pattern)):
        return False
    return all(p == "*" or p == a for p, a in zip(pattern, actual))


def _mismatch(frame: Optional[bytes]) -> str:
    if frame is None:
        return "packet missing"
    return "bytes differ" if frame else "empty packet: the deparsers emitted nothing and no payload was left"


# ---------------------------------------------------------------- running
def run_file(program: ir.Program, path: str, target=None) -> Report:
    """Parse ``path`` and run it against ``target`` (default: a fresh
    :class:`~testbed.p4.python.target.Target` for ``program``); report each check."""
    commands = parse_file(path)
    if target is None:
        from testbed.p4.targets import python_target
        target = python_target(program)
    try:
        return _Run(program, target, path).run(commands)
    except P4Error as e:
        if e.loc is None or e.source_line is not None:
            raise
        with open(path) as f:
            lines = f.read().splitlines()
        raise P4Error(e.message, e.loc, lines[e.loc.line - 1]) from None


class _Run:
    def __init__(self, program: ir.Program, target, path: str):
        self.program, self.target = program, target
        self.report = Report(path)
        self.tables = {t.name: (t, c) for c in program.controls.values()
                       for t in c.tables.values()}
        self.instances = {i.name: i for b in (*program.controls.values(),
                                              *program.parsers.values())
                          for i in b.instances}
        self.value_sets = {v.name: v for p in program.parsers.values() for v in p.value_sets}
        self.received: dict = {}        # port -> [bytes]
        self.expects: dict = {}         # port -> [Expect]
        self.any_ports: set = set()
        self.named_ports: set = set()   # ports of packet/expect lines: the captured ones
        self.last_packet: Optional[tuple] = None   # (Packet, outputs)
        self.handles: dict = {}         # "= NAME" of add -> TableEntry
        self.mc_nodes: dict = {}        # handle -> (rid, [ports])
        self.mc_groups: dict = {}       # group -> [node handles]
        self.digests: list = []
        self.digest_checks: list = []
        target.digest_handler = lambda name, values: self.digests.append((name, values))

    def run(self, commands: list) -> Report:
        for cmd in commands:
            handler = getattr(self, "_do_" + type(cmd).__name__.lower())
            handler(cmd)
        self._compare_packets()
        self._compare_digests()
        self.report.checks.sort(key=lambda c: (c.loc is None, c.loc.line if c.loc else 0))
        return self.report

    # ------------------------------------------------------------ packets
    def _do_packet(self, cmd: Packet) -> None:
        outputs = self.target.process(cmd.data, cmd.port)
        self.report.packets_in += 1
        self.report.packets_out += len(outputs)
        for port, frame in outputs:
            self.received.setdefault(port, []).append(frame)
        self.last_packet = (cmd, outputs)
        self.named_ports.add(cmd.port)

    def _do_expect(self, cmd: Expect) -> None:
        if cmd.pattern is None:
            self.any_ports.add(cmd.port)
        else:
            self.expects.setdefault(cmd.port, []).append(cmd)
        if cmd.port in self.any_ports and cmd.port in self.expects:
            raise P4Error(f"port {cmd.port} has both 'expect {cmd.port}' without data "
                          "(any packets) and expected packets; keep one kind", cmd.loc)
        self.named_ports.add(cmd.port)

    def _compare_packets(self) -> None:
        for port in sorted(self.named_ports):
            got = self.received.get(port, [])
            if port in self.any_ports:
                self.report.checks.append(Check(None, f"port {port}: any packets", True,
                                                note=f"{len(got)} packets"))
                continue
            want = self.expects.get(port, [])
            for i, exp in enumerate(want):
                frame = got[i] if i < len(got) else None
                ok = frame is not None and match_packet(exp.pattern, exp.exact_end, frame)
                self.report.checks.append(Check(
                    exp.loc, f"port {port} packet {i + 1}", ok,
                    exp.pattern + ("$" if exp.exact_end else ""),
                    frame.hex().upper() if frame is not None else None,
                    "" if ok else _mismatch(frame)))
            for i, frame in enumerate(got[len(want):], len(want) + 1):
                self.report.checks.append(Check(
                    None, f"port {port} packet {i}", False, None, frame.hex().upper(),
                    "unexpected packet (no expect line for it)"))
        for port, frames in sorted(self.received.items()):
            if port not in self.named_ports:
                self.report.uncaptured.extend((port, f.hex().upper()) for f in frames)

    # ------------------------------------------------------------ tables
    def _do_addentry(self, cmd: AddEntry) -> None:
        table, control = self._table(cmd.table)
        match = self._match(table, cmd.keys, cmd.loc)
        needs_priority = any(k.match_kind in ("ternary", "range", "optional")
                             for k in table.keys)
        if needs_priority and cmd.priority is None:
            raise P4Error(f"table {table.name} has ternary/range/optional keys: give a "
                          f"priority (add {cmd.table.text} <priority> key:value ...)", cmd.loc)
        priority = int(cmd.priority.text) + 1 if needs_priority else 0   # see docstring
        entry = E.TableEntry(table.name, match, self._action(table, control, cmd.action),
                             priority)
        self._control_plane(cmd.loc, self.target.table_insert, entry)
        if cmd.handle is not None:
            self.handles[cmd.handle.text.lstrip("$")] = entry

    def _do_setdefault(self, cmd: SetDefault) -> None:
        table, control = self._table(cmd.table)
        call = self._action(table, control, cmd.action)
        self._control_plane(cmd.loc, self.target.table_set_default, table.name, call)

    def _control_plane(self, loc: ir.Loc, fn, *args):
        try:
            return fn(*args)
        except E.ControlPlaneError as e:
            raise P4Error(f"the target rejected this command: {e.code}: {e.message}",
                          loc) from None

    def _table(self, tok: Token) -> tuple:
        name = _resolve(tok, "table", list(self.tables))
        return self.tables[name]

    def _action(self, table: ir.Table, control: ir.Control, spec) -> E.ActionCall:
        names = [r.action for r in table.actions]
        name = _resolve(spec.name, f"action of table {table.name}", names)
        action = control.actions.get(name) or self.program.actions.get(name)
        data = [p for p in action.params if p.direction == ""]
        params = {}
        for pname, value in spec.args:
            param = next((p for p in data if p.name == pname.text), None)
            if param is None:
                raise P4Error(f"action {name} has no parameter '{pname.text}'; its "
                              f"parameters are: {', '.join(p.name for p in data) or 'none'}",
                              pname.loc)
            params[param.name] = _number(value, _width(param.type, value))
        missing = [p.name for p in data if p.name not in params]
        if missing:
            raise P4Error(f"action {name} needs a value for {', '.join(missing)}",
                          spec.name.loc)
        return E.ActionCall(name, params)

    def _match(self, table: ir.Table, keys: list, loc: ir.Loc) -> tuple:
        values = [None] * len(table.keys)
        names = [k.name for k in table.keys]
        for kname, value in keys:
            i = _key_index(kname, names)
            key = table.keys[i]
            values[i] = _key_value(key.match_kind, value, _width(key.expr.type, value))
        for i, key in enumerate(table.keys):
            if values[i] is None and key.match_kind == "exact":
                raise P4Error(f"missing value for exact key '{key.name}' of table "
                              f"{table.name}", loc)
        return tuple(values)

    def _do_simple(self, cmd: Simple) -> None:
        getattr(self, "_" + cmd.verb)(cmd, *cmd.args)

    def _remove(self, cmd, what):
        if what.text.lower() != "all":
            raise P4Error("only 'remove all' is supported", what.loc)
        for name, (table, _) in self.tables.items():
            if not (table.entries and table.entries_const):
                self._control_plane(cmd.loc, self.target.table_clear, name)

    def _wait(self, cmd):
        """Packets are processed synchronously: nothing to wait for."""

    def _no_packet(self, cmd):
        if self.last_packet is None:
            raise P4Error("'no_packet' must follow a 'packet' command", cmd.loc)
        sent, outputs = self.last_packet
        self.report.checks.append(Check(
            cmd.loc, f"no packet out for the packet of line {sent.loc.line}", not outputs,
            "no packet", ", ".join(f"port {p}: {f.hex().upper()}" for p, f in outputs) or
            "no packet"))

    # ------------------------------------------------------------ PRE
    def _mirroring_add(self, cmd, session, port):
        self._control_plane(cmd.loc, self.target.clone_session_set,
                            E.CloneSession(_int(session), [E.Replica(_int(port), 0)]))

    def _mirroring_add_mc(self, cmd, session, group):
        replicas = self._group_replicas(_int(group), group)
        self._control_plane(cmd.loc, self.target.clone_session_set,
                            E.CloneSession(_int(session), replicas))

    def _mirroring_delete(self, cmd, session):
        self._control_plane(cmd.loc, self.target.clone_session_delete, _int(session))

    def _mirroring_get(self, cmd, session):
        self.report.notes.append(f"{cmd.loc}: clone session {_int(session)}: "
                                 f"{self.target.clone_sessions().get(_int(session))}")

    def _mc_mgrp_create(self, cmd, group):
        if _int(group) in self.mc_groups:
            raise P4Error(f"multicast group {_int(group)} already exists", group.loc)
        self.mc_groups[_int(group)] = []
        self._push_group(cmd, _int(group))

    def _mc_mgrp_destroy(self, cmd, group):
        self._group(group)
        del self.mc_groups[_int(group)]
        self._control_plane(cmd.loc, self.target.mc_group_delete, _int(group))

    def _mc_node_create(self, cmd, rid, *ports):
        handle = len(self.mc_nodes)     # BMv2 hands out node handles from 0
        self.mc_nodes[handle] = (_int(rid), [_int(p) for p in ports])
        self.report.notes.append(f"{cmd.loc}: multicast node {handle} created")

    def _mc_node_update(self, cmd, handle, *ports):
        rid, _ = self._node(handle)
        self.mc_nodes[_int(handle)] = (rid, [_int(p) for p in ports])
        for group, nodes in self.mc_groups.items():
            if _int(handle) in nodes:
                self._push_group(cmd, group)

    def _mc_node_destroy(self, cmd, handle):
        self._node(handle)
        del self.mc_nodes[_int(handle)]
        for group, nodes in self.mc_groups.items():
            if _int(handle) in nodes:
                nodes.remove(_int(handle))
                self._push_group(cmd, group)

    def _mc_node_associate(self, cmd, group, handle):
        self._node(handle)
        self._group(group).append(_int(handle))
        self._push_group(cmd, _int(group))

    def _mc_node_dissociate(self, cmd, group, handle):
        nodes = self._group(group)
        if _int(handle) not in nodes:
            raise P4Error(f"node {_int(handle)} is not in group {_int(group)}", handle.loc)
        nodes.remove(_int(handle))
        self._push_group(cmd, _int(group))

    def _group(self, tok: Token) -> list:
        if _int(tok) not in self.mc_groups:
            raise P4Error(f"multicast group {_int(tok)} does not exist; create it with "
                          "mc_mgrp_create", tok.loc)
        return self.mc_groups[_int(tok)]

    def _node(self, tok: Token) -> tuple:
        if _int(tok) not in self.mc_nodes:
            raise P4Error(f"multicast node {_int(tok)} does not exist; mc_node_create "
                          "returns handles 0, 1, ... in order", tok.loc)
        return self.mc_nodes[_int(tok)]

    def _group_replicas(self, group: int, tok: Token) -> list:
        """BMv2 replicates node by node in association order, ports ascending."""
        return [E.Replica(port, rid) for h in self._group(tok) if h in self.mc_nodes
                for rid, ports in [self.mc_nodes[h]] for port in sorted(set(ports))]

    def _push_group(self, cmd, group: int) -> None:
        tok = Token("value", str(group), cmd.loc)
        self._control_plane(cmd.loc, self.target.mc_group_set,
                            E.MulticastGroup(group, self._group_replicas(group, tok)))

    # ------------------------------------------------------------ externs
    def _extern(self, tok: Token, kinds: tuple) -> ir.Instance:
        names = [n for n, i in self.instances.items() if ir.resource_kind(i.extern) in kinds]
        return self.instances[_resolve(tok, " or ".join(kinds), names)]

    def _counter_read(self, cmd, name, index):
        inst = self._extern(name, ("counter",))
        pkts, nbytes = self._control_plane(cmd.loc, self.target.counter_read, inst.name,
                                           _int(index))
        self.report.notes.append(f"{cmd.loc}: {inst.name}[{_int(index)}] = {pkts} packets, "
                                 f"{nbytes} bytes")

    def _counter_write(self, cmd, name, index, pkts, nbytes):
        inst = self._extern(name, ("counter",))
        self._control_plane(cmd.loc, self.target.counter_write, inst.name, _int(index),
                            _int(pkts), _int(nbytes))

    def _counter_reset(self, cmd, name):
        inst = self._extern(name, ("counter",))
        for i in range(_instance_size(inst)):
            self._control_plane(cmd.loc, self.target.counter_write, inst.name, i, 0, 0)

    def _register_read(self, cmd, name, index):
        inst = self._extern(name, ("register",))
        value = self._control_plane(cmd.loc, self.target.register_read, inst.name,
                                    _int(index))
        self.report.notes.append(f"{cmd.loc}: {inst.name}[{_int(index)}] = {value}")

    def _register_write(self, cmd, name, index, value):
        inst = self._extern(name, ("register",))
        self._control_plane(cmd.loc, self.target.register_write, inst.name, _int(index),
                            _int(value))

    def _register_reset(self, cmd, name):
        inst = self._extern(name, ("register",))
        for i in range(_instance_size(inst)):
            self._control_plane(cmd.loc, self.target.register_write, inst.name, i, 0)

    def _check_register(self, cmd, name, index, op, value):
        inst = self._extern(name, ("register",))
        got = self._control_plane(cmd.loc, self.target.register_read, inst.name, _int(index))
        ok = _COMPARE[op.text](got, _int(value))
        self.report.checks.append(Check(cmd.loc, f"register {inst.name}[{_int(index)}]", ok,
                                        f"{op.text} {_int(value)}", str(got)))

    def _value_set_set(self, cmd, name, *members):
        vs = self.value_sets[_resolve(name, "value_set", list(self.value_sets))]
        member_t = vs.type
        if isinstance(member_t, ir.StructT) and len(member_t.fields) == 1:
            member_t = member_t.fields[0].type       # a struct of one field: the field's
        if not isinstance(member_t, ir.BitT):
            raise P4Error(f"value_set {vs.name} has members of type {show(vs.type)}; STF can "
                          "set only value sets of bit<W> (or of a struct of one bit<W>)",
                          name.loc)
        if len(members) > vs.size:
            raise P4Error(f"value_set {vs.name} holds at most {vs.size} members, "
                          f"{len(members)} given", members[vs.size].loc)
        matches = []
        for tok in members:
            kind = "range" if ".." in tok.text else "ternary" if (
                "&&&" in tok.text or "*" in tok.text) else "exact"
            matches.append((_key_value(kind, tok, member_t.width),))
        self._control_plane(cmd.loc, self.target.value_set_set, vs.name, matches)

    def _meter_get_rates(self, cmd, name, index):
        self._extern(name, ("meter", "direct_meter"))

    def _meter_set_rates(self, cmd, name, index, committed, peak):
        inst = self._extern(name, ("meter",))
        self._set_meter(cmd, inst, _int(index), committed, peak)

    def _meter_array_set_rates(self, cmd, name, committed, peak):
        inst = self._extern(name, ("meter",))
        for i in range(_instance_size(inst)):
            self._set_meter(cmd, inst, i, committed, peak)

    def _set_meter(self, cmd, inst, index, committed, peak):
        """BMv2 rates are units (packets or bytes) per microsecond; the target takes
        units per second, as P4Runtime does."""
        (cir, cburst), (pir, pburst) = (_rate(committed), _rate(peak))
        self._control_plane(cmd.loc, self.target.meter_set, inst.name, index, cir, cburst,
                            pir, pburst)

    def _do_checkcounter(self, cmd: CheckCounter) -> None:
        want = _int(cmd.value) if cmd.value is not None else 0
        if cmd.index.kind == "name":
            entry = self.handles.get(cmd.index.text.lstrip("$"))
            if entry is None:
                raise P4Error(f"no entry named '{cmd.index.text.lstrip('$')}'; name one with "
                              "'add ... = NAME'", cmd.index.loc)
            current = next((e for e in self.target.table_entries(entry.table)
                            if e.key() == entry.key()), None)
            if current is None:
                raise P4Error(f"entry '{cmd.index.text}' is no longer in {entry.table}",
                              cmd.index.loc)
            pkts, nbytes = current.counter_packets, current.counter_bytes
            title = f"counter of entry {cmd.index.text.lstrip('$')} in {entry.table}"
        else:
            inst = self._extern(cmd.counter, ("counter",))
            pkts, nbytes = self._control_plane(cmd.loc, self.target.counter_read, inst.name,
                                               _int(cmd.index))
            title = f"counter {inst.name}[{_int(cmd.index)}]"
        got = pkts if cmd.kind == "packets" else nbytes
        self.report.checks.append(Check(cmd.loc, f"{title} {cmd.kind}",
                                        _COMPARE[cmd.op](got, want),
                                        f"{cmd.op} {want}", str(got)))

    def _check_digest(self, cmd, name, *values):
        self.digest_checks.append((cmd, name.text, tuple(_int(v) for v in values)))

    def _compare_digests(self) -> None:
        if not self.digest_checks:
            return
        for i, (cmd, name, values) in enumerate(self.digest_checks):
            got = self.digests[i] if i < len(self.digests) else None
            ok = got is not None and (got[0] == name or got[0].endswith("." + name)) \
                and tuple(got[1]) == values
            self.report.checks.append(Check(
                cmd.loc, f"digest {i + 1}", ok, f"{name}{values}",
                f"{got[0]}{tuple(got[1])}" if got else "no digest"))
        for i, (name, values) in enumerate(self.digests[len(self.digest_checks):],
                                           len(self.digest_checks) + 1):
            self.report.checks.append(Check(None, f"digest {i}", False, None,
                                            f"{name}{tuple(values)}", "unexpected digest"))


# ---------------------------------------------------------------- values
def _resolve(tok: Token, what: str, names: list) -> str:
    """Exact name, else the unique name ending in '.'+name, else the unique name ending
    in name (the reference driver's suffix rule)."""
    text = tok.text
    if text in names:
        return text
    for rule in (lambda n: n.endswith("." + text), lambda n: n.endswith(text)):
        found = [n for n in names if rule(n)]
        if len(found) == 1:
            return found[0]
        if len(found) > 1:
            raise P4Error(f"{what} name '{text}' is ambiguous: {', '.join(sorted(found))}; "
                          "write the fully-qualified name", tok.loc)
    known = ", ".join(sorted(names)) or "none"
    raise P4Error(f"no {what} named '{text}'; known: {known}", tok.loc)


def _key_index(tok: Token, names: list) -> int:
    text = re.sub(r"\$(\d+)", r"[\1]", tok.text)
    for suffix in ("$valid$", ".valid", ".isValid()"):
        if text.endswith(suffix):
            text = text[:-len(suffix)].rstrip(".") + ".$valid$"
            break
    name = _resolve(Token(tok.kind, text, tok.loc), "key field", names)
    return names.index(name)


def _width(t: ir.Type, tok: Token) -> int:
    if isinstance(t, (ir.BitT, ir.IntT)):
        return t.width
    if isinstance(t, ir.BoolT):
        return 1
    if isinstance(t, ir.EnumT) and t.underlying is not None:
        return _width(t.underlying, tok)
    raise P4Error(f"STF cannot give a value of type {t}; only bit<W>, int<W>, bool and "
                  "serializable enums", tok.loc)


def _int(tok: Token) -> int:
    return _parse_int(tok.text, tok)


def _parse_int(text: str, tok: Token) -> int:
    if re.fullmatch(r"\d+(\.\d+){3}", text):
        try:
            return int(ipaddress.IPv4Address(text))
        except ValueError:
            raise P4Error(f"'{text}' is not an IPv4 address", tok.loc) from None
    try:
        return int(text.replace("*", "0"), 0 if text[:2].lower() in ("0x", "0b", "0o") else 10)
    except ValueError:
        raise P4Error(f"'{text}' is not a number (decimal, 0x hex, 0b binary, 0o octal)",
                      tok.loc) from None


def _fit(value: int, width: int, tok: Token) -> int:
    if value >= 1 << width:
        raise P4Error(f"value {tok.text} does not fit in {width} bits", tok.loc)
    return value


def _number(tok: Token, width: int) -> int:
    if not re.fullmatch(r"(0[xXbBoO])?[0-9a-fA-F]+|\d+(\.\d+){3}", tok.text):
        raise P4Error(f"expected a plain number, found '{tok.text}'", tok.loc)
    return _fit(_parse_int(tok.text, tok), width, tok)


def _digits_mask(text: str) -> Optional[int]:
    """Mask of a hex/binary/octal literal: all ones per written digit, zero per '*'."""
    prefix = text[:2].lower()
    bits = {"0x": 4, "0b": 1, "0o": 3}.get(prefix)
    if bits is None:
        return None
    mask = 0
    for ch in text[2:]:
        mask = (mask << bits) | (0 if ch == "*" else (1 << bits) - 1)
    return mask


def _key_value(kind: str, tok: Token, width: int):
    text = tok.text
    full = (1 << width) - 1
    if text == "*":
        if kind == "exact":
            raise P4Error("an exact key needs a value, not '*'", tok.loc)
        return None
    if kind == "lpm":
        if "/" in text:
            v, plen = text.split("/")
            plen = _parse_int(plen, tok)
            if plen > width:
                raise P4Error(f"prefix length {plen} is longer than the key ({width} bits)",
                              tok.loc)
            value = _fit(_parse_int(v, tok), width, tok)
        else:
            value = _fit(_parse_int(text, tok), width, tok)
            mask = _digits_mask(text)
            digits = text[2:]
            bits = {"0x": 4, "0b": 1, "0o": 3}.get(text[:2].lower())
            plen = width if mask is None else bits * (len(digits) - digits.count("*"))
            plen = min(plen, width)
        prefix_mask = full ^ ((1 << (width - plen)) - 1)
        return E.Lpm(value & prefix_mask, plen) if plen else None
    if kind == "ternary":
        if "&&&" in text:
            v, m = text.split("&&&")
            value, mask = _parse_int(v, tok), _parse_int(m, tok)
        else:
            value = _parse_int(text, tok)
            mask = _digits_mask(text)
            mask = full if mask is None else mask & full
        _fit(value, width, tok)
        _fit(mask, width, tok)
        return E.Ternary(value & mask, mask) if mask else None
    if kind == "range":
        if ".." in text:
            lo, hi = (_fit(_parse_int(x, tok), width, tok) for x in text.split(".."))
        else:
            lo = hi = _fit(_parse_int(text, tok), width, tok)
        if lo > hi:
            raise P4Error(f"empty range {text}: low end is above high end", tok.loc)
        return E.Range(lo, hi)
    if any(s in text for s in ("/", "&&&", "..")) or "*" in text:
        article = "an" if kind[0] in "aeiou" else "a"
        raise P4Error(f"{article} {kind} key takes a plain value, not '{text}'", tok.loc)
    value = _fit(_parse_int(text, tok), width, tok)
    return E.Optional_(value) if kind == "optional" else E.Exact(value)


def _instance_size(inst: ir.Instance) -> int:
    return inst.args[0].value if inst.args else 0


def _rate(tok: Token) -> tuple:
    rate, burst = tok.text.split(":")
    return int(round(float(rate) * 1_000_000)), int(burst, 0)
