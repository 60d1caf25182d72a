"""The v1model target with its per-packet path in native code.

:class:`NativeTarget` keeps the reference target's control plane: every table write,
register write, multicast group and clone session is validated by the Python objects
(same checks, same errors, same reads) and, once accepted, mirrored into the native
switch, whose tables and externs the packets see. Table writes reach the native lookup
structures on the next packet, so a batch of writes is one rebuild.
"""
from __future__ import annotations

import logging
import select
import time
from contextlib import contextmanager
from functools import partial
from itertools import accumulate, chain

from testbed.p4 import entries as E
from testbed.p4 import ir
from testbed.p4.native.build import load
from testbed.p4.native.cgen import MAX_ACTION_DATA, MAX_KEYS, generate
from testbed.p4.python.externs import format_log
from testbed.p4.python.target import Target

DROP_REASONS = ("assert", "loop_limit", "unknown_multicast_group", "ingress_drop",
                "egress_drop", "unknown_clone_session",
                "stack_out_of_bounds", "priority_out_of_range")      # runtime.c's order
ASSERTS, STACK = DROP_REASONS.index("assert"), DROP_REASONS.index("stack_out_of_bounds")
# what process_rings counts, in runtime.c's order
LOOP_STATS = ("calls", "sweeps", "frames_in", "frames_out", "pipeline_ns", "send_ns",
              "sends", "empty_calls")
MASK64 = (1 << 64) - 1
# why run_loop returned (pipeline.c's LOOP_*): outputs or events for Python; the wake-up
# file descriptor readable (or a signal); a ring's socket in error (its interface down or
# deleted)
LOOP_PYTHON, LOOP_WAKE, LOOP_PORT_ERROR = 1, 2, 3


class NativeTarget(Target):
    backend = "native"

    def __init__(self, program: ir.Program, cpu_port: int | None = None,
                 log: logging.Logger | None = None):
        super().__init__(program, cpu_port, log)
        self.native = generate(program, self.compiled.errors)
        self.ffi, self.lib = load(self.native.source, self.native.locate)
        self.sw = self.ffi.gc(self.lib.sw_new(), self.lib.sw_free)
        self._out = [self.ffi.new(f"{t} **") for t in ("uint32_t", "uint32_t", "uint32_t",
                                                       "uint8_t")]
        self._drops = self.lib.sw_drops(self.sw)
        self._events_at = self.ffi.new("uint64_t **")
        self._direct_counts = self.lib.sw_direct_counts(self.sw)
        self._direct_ports = set()
        self._digest_names = [getattr(t, "name", "digest") for t in program.digests]
        self._asserts_seen = self._stack_drops_seen = 0
        self._slots = {}                # table -> {entry key: slot}
        self._put_arrays = (self.ffi.new(f"uint64_t[{MAX_KEYS}]"),
                            self.ffi.new(f"uint64_t[{MAX_KEYS}]"),
                            self.ffi.new(f"uint64_t[{MAX_KEYS}]"),
                            self.ffi.new(f"uint8_t[{MAX_KEYS}]"),
                            self.ffi.new(f"uint64_t[{MAX_ACTION_DATA}]"))
        self._free = {}                 # table -> slots below len(slots) left by deletes
        self._pending = None            # inside batch(): table -> inserts waiting
        self._layouts = {}              # table -> its key words, see _layout
        self._action_layouts = {info.index: {} for info in self.native.tables.values()}
        self._plain = {}                # table -> its keys' (lpm?, exact mask, lpm masks)
        for name, state in self.compiled.tables.items():
            state.drop_lookups()        # packets are looked up in C
            self._slots[name], self._free[name] = {}, []
            self._layouts[name] = self._layout(self.native.tables[name], state)
            plain = self._plain_keys(self.native.tables[name], state)
            if plain is not None:
                self._plain[name] = plain
            self._put_default(name)
            for result in state.entries.values():
                self._put(name, result.entry, keep=False)
        by_profile = {}                 # an indirect table's entries run its profile's members
        for name, state in self.compiled.tables.items():
            if state.profile is not None:
                by_profile.setdefault(state.profile.name, []).append(name)
        for profile, tables in by_profile.items():
            self.compiled.profiles[profile].on_change = partial(self._refresh_choices, tables)

    @property
    def drop_counts(self) -> dict:
        """Drops by reason, counted by the native pipeline."""
        return {r: self._drops[i] for i, r in enumerate(DROP_REASONS) if self._drops[i]}

    @drop_counts.setter
    def drop_counts(self, value: dict) -> None:
        """The reference target's constructor starts its own count; the native one is
        the switch's."""

    # ---------------------------------------------------------------- data plane
    def process(self, frame: bytes, ingress_port: int) -> list:
        n = self.lib.sw_process(self.sw, frame, len(frame), ingress_port, self._timestamp())
        return self._outputs(n)

    def process_many(self, frames: list, ingress_port: int) -> list:
        """The outputs (port, frame) of ``frames`` received on ``ingress_port``, in order:
        one native call for the whole batch."""
        lens = [len(f) for f in frames]
        offs = [0, *accumulate(lens)]
        n = self.lib.sw_process_many(self.sw, b"".join(frames), offs, lens, len(frames),
                                     ingress_port, self._timestamp())
        return self._outputs(n)

    def ring_set(self, rings: list) -> "RingSet":
        """``rings`` ((ring, ingress port) pairs; a ring is a PACKET_MMAP receive ring:
        ``memory``, ``slot_bytes``, ``slots``, ``next_slot``) prepared once for
        :meth:`process_rings`; release it before the rings' memory closes."""
        return RingSet(self.ffi, rings)

    def process_rings(self, rings: "RingSet", limit: int, budget: int) -> tuple:
        """Every ring of ``rings`` in one native call, each frame run where it lies:
        swept in order, at most ``limit`` frames from each per sweep, what a sweep sends
        directly leaving in one sendmmsg batch across ports, sweeps repeated while they
        find frames and fewer than ``budget`` have run; the rings' ``next_slot`` advance.
        (outputs not sent directly, [(frames run, frames skipped) per ring])."""
        nxt = rings.next
        for i, ring in enumerate(rings.rings):
            nxt[i] = ring.next_slot
        out = self.lib.sw_process_rings(self.sw, len(rings.rings), rings.memory,
                                        rings.slot_bytes, rings.slots, nxt, rings.ports,
                                        limit, budget, self._timestamp(), rings.counts)
        counts = rings.counts
        for i, ring in enumerate(rings.rings):
            ring.next_slot = nxt[i]
        return self._outputs(out), [(counts[2 * i], counts[2 * i + 1])
                                    for i in range(len(rings.rings))]

    def loop_ready(self) -> bool:
        """Whether :meth:`run_loop` can keep this target's time: its clock is the
        monotonic clock the native loop reads (tests replace it to drive meters)."""
        return self._clock is time.monotonic

    def run_loop(self, rings: "RingSet", wake_fd: int, limit: int, budget: int) -> tuple:
        """The packet loop in native code, :meth:`process_rings` over and over with a
        wait (epoll) on the rings' sockets and ``wake_fd`` between, until Python has work: the
        outputs not sent directly, a digest, a log line or an assert (handled here, as
        :meth:`process_rings` does), or ``wake_fd`` readable or a signal. The caller holds
        the switch's lock; every thread that takes it must write to ``wake_fd`` first.
        (outputs, LOOP_PYTHON, LOOP_WAKE or LOOP_PORT_ERROR, [(frames run, frames
        skipped) per ring], waits that returned, with LOOP_PORT_ERROR the ring whose
        socket reported an error or a hang-up (its index), else None)."""
        nxt, counts, loop = rings.next, rings.counts, rings.loop
        for i, ring in enumerate(rings.rings):
            nxt[i] = ring.next_slot
            counts[2 * i] = counts[2 * i + 1] = 0
        self._timestamp()           # inserts waiting in a batch are written first
        loop[0] = 0
        out = self.lib.sw_loop(self.sw, len(rings.rings), rings.memory, rings.slot_bytes,
                               rings.slots, nxt, rings.ports, rings.waiter(wake_fd), wake_fd,
                               limit, budget, round(self._t0 * 1e9), counts, loop)
        ran = []
        for i, ring in enumerate(rings.rings):
            ring.next_slot = nxt[i]
            ran.append((counts[2 * i], counts[2 * i + 1]))
        failed = None
        if loop[1] == LOOP_PORT_ERROR:
            failed = next(i for i, ring in enumerate(rings.rings) if ring.fileno() == loop[2])
        return self._outputs(out), loop[1], ran, loop[0], failed

    def loop_stats(self) -> dict:
        """What :meth:`process_rings` did since this target was made (LOOP_STATS)."""
        stats = self.lib.sw_loop_stats(self.sw)
        return {name: stats[i] for i, name in enumerate(LOOP_STATS)}

    def send_directly(self, port: int, fd: int) -> None:
        """From now on the outputs ``process_many`` and ``process_rings`` send to ``port``
        leave on the socket ``fd`` from native code, batched with sendmmsg, and are not
        returned (``fd`` -1: returned again); :meth:`direct_counts` counts them."""
        self.lib.sw_direct(self.sw, port, fd)
        (self._direct_ports.add if fd >= 0 else self._direct_ports.discard)(port)

    def send_shared(self, fd: int, ifindex: dict) -> None:
        """From now on the ports sending directly send together on ``fd``, a packet socket
        bound to no interface, with one sendmmsg per batch across ports (port p's frames
        to interface ``ifindex[p]``); ``fd`` -1: each on its own socket again."""
        for port, index in ifindex.items():
            self.lib.sw_ifindex(self.sw, port, index)
        self.lib.sw_direct_shared(self.sw, fd)

    def port_gone(self, port: int) -> None:
        """``port``'s interface is gone: what the pipeline sends it directly is counted as
        refused (:meth:`direct_counts`) without a system call."""
        self.lib.sw_ifindex(self.sw, port, -1)

    def direct_counts(self) -> dict:
        """{port: (frames sent, their bytes, frames the kernel refused, their bytes)}
        on the ports sending directly, since the last call, which resets them."""
        counts = self._direct_counts
        taken = {}
        for port in self._direct_ports:
            i = 4 * port
            taken[port] = tuple(counts[i:i + 4])
            counts[i] = counts[i + 1] = counts[i + 2] = counts[i + 3] = 0
        return taken

    def _timestamp(self) -> int:
        """Microseconds since the clock was set, for the timestamps; the meters get
        the clock's seconds. Every packet path passes here, so inserts waiting in a
        batch are written first."""
        if self._pending:
            self._flush()
        secs = self._clock()
        if self.native.meters or self.native.direct_meters:
            self.lib.sw_clock(self.sw, secs)
        return round((secs - self._t0) * 1e6) & 0xFFFFFFFFFFFF

    def _outputs(self, n: int) -> list:
        """The ``n`` frames in the output arena; logs the packets an assert or a stack
        index dropped, then the log_msg lines, and hands over the digests."""
        if self._drops[ASSERTS] != self._asserts_seen:
            where = self.native.asserts[self.lib.sw_failed_at(self.sw) - 1]
            self.log.error("%s failed: %d packet(s) dropped", where,
                           self._drops[ASSERTS] - self._asserts_seen)
            self._asserts_seen = self._drops[ASSERTS]
        if self._drops[STACK] != self._stack_drops_seen:
            self.log.error("header stack index out of bounds in a control: %d packet(s) "
                           "dropped", self._drops[STACK] - self._stack_drops_seen)
            self._stack_drops_seen = self._drops[STACK]
        self._events()
        if not n:
            return []
        self.lib.sw_outputs(self.sw, *self._out)
        ports, offs, sizes, data = (p[0] for p in self._out)
        buf = self.ffi.buffer(data, offs[n - 1] + sizes[n - 1])[:]
        return [(ports[i], buf[offs[i]:offs[i] + sizes[i]]) for i in range(n)]

    def _events(self) -> None:
        """The log_msg lines and digests of the last call, in order."""
        if self.native.log_formats:
            for id_, values in self._records(1):
                self.log.info("%s", format_log(self.native.log_formats[id_], values))
        if self.digest_handler is not None and self._digest_names:
            for id_, values in self._records(0):
                self.digest_handler(self._digest_names[id_], values)

    def _records(self, logs: int):
        n = self.lib.sw_events(self.sw, logs, self._events_at)
        v, i = self._events_at[0], 0
        kind = "logs" if logs else "digests"
        while i < n:
            id_, count = v[i], v[i + 1]
            words, values, j = self.native.event_words.get((kind, id_), ()), [], i + 2
            for n_words in words:           # a value over 64 bits came as two words
                values.append(v[j] << 64 | v[j + 1] if n_words == 2 else v[j])
                j += n_words
            yield id_, tuple(values) if words else tuple(v[i + 2:i + 2 + count])
            i += 2 + count

    def process_batch(self, frames: list, repeat: int = 1) -> int:
        """Run every (port, frame) of ``frames`` ``repeat`` times in one native call;
        the number of frames that left (the benchmark's inner loop)."""
        return self.process_packed(self.pack(frames), repeat)

    def pack(self, frames: list) -> tuple:
        """``frames`` as the arrays :meth:`process_packed` takes, built once, so that a
        benchmark times the pipeline and not their conversion."""
        lens = [len(f) for _, f in frames]
        new = self.ffi.new
        return (new("uint8_t[]", b"".join(f for _, f in frames)),
                new("uint32_t[]", [0, *accumulate(lens)]), new("uint32_t[]", lens),
                new("uint32_t[]", [p for p, _ in frames]), len(frames))

    def process_packed(self, packed: tuple, repeat: int = 1) -> int:
        """:meth:`process_batch` of frames :meth:`pack` packed."""
        data, offs, lens, ports, n = packed
        return self.lib.sw_process_batch(self.sw, data, offs, lens, ports, n, repeat,
                                         self._timestamp())

    # ---------------------------------------------------------------- tables
    def _put(self, table: str, entry: E.TableEntry, keep: bool, meter=None) -> None:
        """Write ``entry`` into its native slot; ``keep``: its counters and direct meter
        stay, unless ``meter`` (cir, cburst, pir, pburst) configures a fresh one. Inside
        :meth:`batch`, a fresh direct entry waits for the batch's one native call."""
        info = self.native.tables[table]
        slots = self._slots[table]
        key = entry.key()
        slot = slots.get(key)
        if slot is None:
            free = self._free[table]
            slot = slots[key] = free.pop() if free else len(slots)
        state = self.compiled.tables[table]
        indirect = state.profile is not None
        fields = self._fields(self._layouts[table], entry.match)
        priority = fields[4] if info.scan_lpm else entry.priority     # fields[4]: the plen
        action, data = ((0, [0] * MAX_ACTION_DATA) if indirect else
                        self._action(info, entry.action))
        pending = self._pending
        if pending is not None and not keep and meter is None and not indirect:
            rows = pending.get(table)
            if rows is None:
                rows = pending[table] = []
            rows.append((slot, fields, priority, action, data))
            return
        self._flush()
        # C arrays made once and refilled (the C side copies the table's key count):
        # converting Python lists on every call cost as much as the rest of the write
        v, m, hi, rng, args = self._put_arrays
        n = len(info.widths)
        (v[0:n], m[0:n], hi[0:n], rng[0:n], plen) = fields
        args[0:MAX_ACTION_DATA] = data
        self.lib.sw_tbl_put(self.sw, info.index, slot, v, m, hi, rng, priority, plen,
                            action, args, int(keep),
                            self.ffi.NULL if meter is None else list(meter), self._clock())
        if indirect:
            self._put_choices(table, slot, entry.action)

    @staticmethod
    def _layout(info, state) -> tuple:
        """A table's key words: their count, and per matched key (selector keys, hash
        inputs that match nothing, have none) its first word, its words (a key over 64
        bits is two, high then low) and its width."""
        first = [0, *accumulate(info.parts)]
        return len(info.widths), [(first[k], info.parts[k],
                                   sum(info.widths[first[k]:first[k] + info.parts[k]]))
                                  for k in state.match_pos]

    @staticmethod
    def _fields(layout: tuple, match: tuple) -> tuple:
        """The native form of a key: value, mask, high and range flag per key word (a
        range is never over 64 bits) and the prefix length."""
        n, keys = layout
        v, m, hi, rng = [0] * n, [0] * n, [0] * n, [0] * n
        plen = 0
        for (i, words, w), match in zip(keys, match):
            if match is None:                             # a wildcard
                continue
            cls = type(match)
            high = ranged = 0
            if cls is E.Exact or cls is E.Optional_:
                value, mask = match.value, (1 << w) - 1
            elif cls is E.Lpm:
                plen = match.prefix_len
                value, mask = match.value, ((1 << w) - 1) ^ ((1 << (w - plen)) - 1)
            elif cls is E.Ternary:
                value, mask = match.value, match.mask
            else:
                value, mask, high, ranged = match.low, 0, match.high, 1
            if words == 1:
                v[i], m[i], hi[i], rng[i] = value, mask, high, ranged
                continue
            for j, shift in enumerate((64, 0)):
                v[i + j], m[i + j] = (value >> shift) & MASK64, (mask >> shift) & MASK64
                hi[i + j], rng[i + j] = high, ranged
        return v, m, hi, rng, plen

    @contextmanager
    def batch(self):
        """Fresh direct entries inserted inside the block reach the native tables
        together when it ends, one native call per table; any other native table
        operation inside first writes those waiting. The Python tables, which validate,
        change at once; packets, which hold the same lock as the writer, see only the
        whole batch."""
        if self._pending is not None:
            yield
            return
        self._pending = {}
        try:
            yield
        finally:
            self._flush()
            self._pending = None

    def _flush(self) -> None:
        pending = self._pending
        if not pending:
            return
        flat = chain.from_iterable
        for table, rows in pending.items():
            keys = [fields for _, fields, _, _, _ in rows]
            self.lib.sw_tbl_put_many(
                self.sw, self.native.tables[table].index, len(rows),
                [row[0] for row in rows], *(list(flat(k[i] for k in keys)) for i in range(4)),
                [row[2] for row in rows], [k[4] for k in keys], [row[3] for row in rows],
                list(flat(row[4] for row in rows)), self._clock())
        pending.clear()

    def _put_choices(self, table: str, slot: int, ref) -> None:
        """What an indirect entry may run, in the order the Python target picks from: its
        member; its group's members, each as often as its weight; its one-shot actions."""
        info, profile = self.native.tables[table], self.compiled.tables[table].profile
        if isinstance(ref, E.MemberRef):
            calls = [profile.members[ref.member_id][0].action]
        elif isinstance(ref, E.GroupRef):
            calls = [profile.members[m.member_id][0].action
                     for m in profile.groups[ref.group_id][0].members for _ in range(m.weight)]
        else:
            calls = [call for call, weight, _ in ref.actions for _ in range(weight)]
        actions, data = [], []
        for call in calls:
            action, args = self._action(info, call)
            actions.append(action)
            data.extend(args)
        self.lib.sw_tbl_choices(self.sw, info.index, slot, len(actions), actions or [0],
                                data or [0])

    def _refresh_choices(self, tables: list) -> None:
        """A member or group changed in place: every entry naming the profile again."""
        for table in tables:
            slots = self._slots[table]
            for result in self.compiled.tables[table].entries.values():
                self._put_choices(table, slots[result.entry.key()], result.entry.action)

    def _action(self, info, call: E.ActionCall) -> tuple:
        """(the action's position in the native table, its data words padded to
        MAX_ACTION_DATA); how an action's data lies is worked out once per table."""
        known = self._action_layouts[info.index]
        layout = known.get(call.action)
        if layout is None:
            layout = known[call.action] = (
                info.actions.index(call.action),
                list(zip(info.params[call.action], info.data_words[call.action])),
                all(n == 1 for n in info.data_words[call.action]),
                [0] * (MAX_ACTION_DATA - sum(info.data_words[call.action])))
        index, params, narrow, pad = layout
        values = call.params
        if narrow:
            return index, [values[name] for name, _ in params] + pad
        args = []
        for name, n in params:
            value = values[name]
            args += [value >> 64, value & MASK64] if n == 2 else [value]
        return index, args + pad

    def _put_default(self, table: str) -> None:
        info = self.native.tables[table]
        action, args = self._action(info, self.compiled.tables[table].get_default())
        self.lib.sw_tbl_default(self.sw, info.index, action, args)

    def table_insert(self, entry: E.TableEntry) -> E.TableEntry:
        stored = super().table_insert(entry)
        self._put(entry.table, stored, keep=False, meter=stored.meter_config)
        return stored

    def table_insert_checked(self, entry: E.TableEntry, encoded=None) -> E.TableEntry:
        stored = super().table_insert_checked(entry, encoded)
        table = entry.table
        keys = self._plain.get(table)
        if keys is None or self._pending is None or stored.meter_config is not None:
            self._put(table, stored, keep=False, meter=stored.meter_config)
            return stored
        # a batch's plain entry: its key words straight from the checked match
        slots, free = self._slots[table], self._free[table]
        slot = slots[stored.key()] = free.pop() if free else len(slots)
        values, masks, plen = [], [], 0
        for (lpm, exact_mask, lpm_masks), m in zip(keys, stored.match):
            if m is None:
                values.append(0)
                masks.append(0)
            elif lpm:
                plen = m.prefix_len
                values.append(m.value)
                masks.append(lpm_masks[plen])
            else:
                values.append(m.value)
                masks.append(exact_mask)
        zeros = [0] * len(keys)
        action, data = self._action(self.native.tables[table], stored.action)
        rows = self._pending.get(table)
        if rows is None:
            rows = self._pending[table] = []
        rows.append((slot, (values, masks, zeros, zeros, plen), 0, action, data))
        return stored

    @staticmethod
    def _plain_keys(info, state):
        """A direct table whose keys are each one exact or lpm word (no wide lpm scan):
        per key (is it lpm, the exact mask, the mask of each prefix length); else None."""
        if (state.profile is not None or info.scan_lpm or state.needs_priority
                or not state.keys or any(n != 1 for n in info.parts)
                or len(info.parts) != len(state.keys)
                or any(kind not in ("exact", "lpm") for kind, _ in state.keys)):
            return None
        out = []
        for kind, width in state.keys:
            full = (1 << width) - 1
            out.append((kind == "lpm", full,
                        [full ^ ((1 << (width - p)) - 1) for p in range(width + 1)]))
        return out

    def table_modify(self, entry: E.TableEntry) -> E.TableEntry:
        meter = entry.meter_config          # None: the entry keeps its meter
        stored = super().table_modify(entry)
        self._put(entry.table, stored, keep=True, meter=meter)
        return stored

    def table_delete(self, entry: E.TableEntry) -> E.TableEntry:
        stored = super().table_delete(entry)
        self._flush()
        slot = self._slots[entry.table].pop(stored.key())
        self._free[entry.table].append(slot)
        self.lib.sw_tbl_del(self.sw, self.native.tables[entry.table].index, slot)
        return stored

    def table_clear(self, table: str) -> None:
        super().table_clear(table)
        self._flush()
        for slot in self._slots[table].values():
            self.lib.sw_tbl_del(self.sw, self.native.tables[table].index, slot)
        self._slots[table].clear()
        self._free[table].clear()

    def table_set_default(self, table: str, call: E.ActionCall) -> None:
        super().table_set_default(table, call)
        self._put_default(table)

    def table_entries(self, table: str) -> list:
        entries = super().table_entries(table)
        self._flush()
        index = self.native.tables[table].index
        for e in entries:
            counts = self.lib.sw_tbl_counters(self.sw, index, self._slots[table][e.key()])
            e.counter_packets, e.counter_bytes = counts[0], counts[1]
        return entries

    def table_entries_encoded(self, table: str, owner, encode, counters: bool) -> list:
        rows = super().table_entries_encoded(table, owner, encode, False)
        if not counters:
            return rows
        self._flush()
        index, slots = self.native.tables[table].index, self._slots[table]
        counts = self.lib.sw_tbl_counters
        return [(data, entry, *counts(self.sw, index, slots[entry.key()])[0:2])
                for data, entry, _, _ in rows]

    # ---------------------------------------------------------------- externs
    def _counter_cells(self, name: str, index: int, which: int):
        self._indexed("counter", self.compiled.counters, name, index)
        return self.lib.sw_cnt(self.sw, self.native.counters[name], which)

    def _register_cell(self, name: str, index: int) -> tuple:
        """(the cells of register ``name``'s column, the position of cell ``index``)."""
        self._indexed("register", self.compiled.registers, name, index)
        k = self.native.registers[name]
        _, _, stride, ctype = self.native.register_cells[k]
        return self.ffi.cast(f"{ctype} *", self.lib.sw_reg(self.sw, k, 0)), index * stride

    def register_read(self, name: str, index: int) -> int:
        cells, at = self._register_cell(name, index)
        value = cells[at]
        reg = self.compiled.registers[name]
        if reg.signed and value >> (reg.width - 1):
            value -= 1 << reg.width
        return value

    def register_write(self, name: str, index: int, value: int) -> None:
        super().register_write(name, index, value)
        width = self.compiled.registers[name].width
        cells, at = self._register_cell(name, index)
        cells[at] = value & ((1 << width) - 1)

    def counter_read(self, name: str, index: int) -> tuple:
        return (self._counter_cells(name, index, 0)[index],
                self._counter_cells(name, index, 1)[index])

    def counter_write(self, name: str, index: int, packets: int, bytes_: int) -> None:
        super().counter_write(name, index, packets, bytes_)
        self._counter_cells(name, index, 0)[index] = packets
        self._counter_cells(name, index, 1)[index] = bytes_

    def meter_set(self, name: str, index: int, cir: int, cburst: int, pir: int,
                  pburst: int) -> None:
        super().meter_set(name, index, cir, cburst, pir, pburst)
        self.lib.sw_meter_set(self.sw, self.native.meters[name], index, cir, cburst, pir,
                              pburst, self._clock())

    def value_set_set(self, name: str, matches) -> None:
        super().value_set_set(name, matches)
        members = self.compiled.value_sets[name]
        nkeys = max((len(m) for m in members), default=1)
        kinds, a, b = [], [], []
        for member in members:
            for m in (*member, *[None] * (nkeys - len(member))):
                kind, lo, hi = ((3, 0, 0) if m is None or isinstance(m, E.Lpm) else
                                (1, m.value, m.mask) if isinstance(m, E.Ternary) else
                                (2, m.low, m.high) if isinstance(m, E.Range) else
                                (0, m.value, 0))
                kinds.append(kind)
                a.append(lo)
                b.append(hi)
        self.lib.sw_vset_set(self.sw, self.native.value_sets[name], len(members), nkeys,
                             kinds or [0], a or [0], b or [0])

    # ---------------------------------------------------------------- packet replication
    def _replicas(self, replicas) -> tuple:
        return ([r.port for r in replicas] or [0], [r.rid for r in replicas] or [0])

    def mc_group_set(self, group: E.MulticastGroup) -> None:
        super().mc_group_set(group)
        ports, rids = self._replicas(group.replicas)
        self.lib.sw_mc_set(self.sw, group.group_id, len(group.replicas),
                           self.ffi.new("uint16_t[]", ports), self.ffi.new("uint16_t[]", rids))

    def mc_group_delete(self, group_id: int) -> None:
        super().mc_group_delete(group_id)
        self.lib.sw_mc_del(self.sw, group_id)

    def clone_session_set(self, session: E.CloneSession) -> None:
        super().clone_session_set(session)
        ports, rids = self._replicas(session.replicas)
        self.lib.sw_clone_set(self.sw, session.session_id, len(session.replicas),
                              self.ffi.new("uint16_t[]", ports),
                              self.ffi.new("uint16_t[]", rids), session.packet_length_bytes)

    def clone_session_delete(self, session_id: int) -> None:
        super().clone_session_delete(session_id)
        self.lib.sw_clone_del(self.sw, session_id)



class RingSet:
    """Receive rings held for :meth:`NativeTarget.process_rings`: their memory pinned and
    the arrays that describe them built once, so a call per wake-up converts nothing."""

    def __init__(self, ffi, rings: list):
        self.ffi = ffi
        self.rings = [ring for ring, _ in rings]
        self._buffers = [ffi.from_buffer("uint8_t[]", ring.memory) for ring in self.rings]
        self.memory = ffi.new("uint8_t *[]", self._buffers)
        self.slot_bytes = ffi.new("uint32_t[]", [ring.slot_bytes for ring in self.rings])
        self.slots = ffi.new("uint32_t[]", [ring.slots for ring in self.rings])
        self.ports = ffi.new("uint32_t[]", [port for _, port in rings])
        self.next = ffi.new("uint32_t[]", max(len(rings), 1))
        self.counts = ffi.new("uint32_t[]", max(2 * len(rings), 1))
        self.loop = ffi.new("uint64_t[3]")
        self._epoll = None            # run_loop's wait: the rings' sockets and its wake-up fd

    def waiter(self, wake_fd: int) -> int:
        """An epoll file descriptor for the rings' sockets and ``wake_fd`` (made once)."""
        if self._epoll is None:
            self._epoll = select.epoll()
            for fd in (*(ring.fileno() for ring in self.rings), wake_fd):
                self._epoll.register(fd, select.EPOLLIN)
        return self._epoll.fileno()

    def release(self) -> None:
        """Unpin the rings' memory (an mmap cannot close while it is pinned); close the
        epoll of :meth:`waiter`."""
        for buffer in self._buffers:
            self.ffi.release(buffer)
        self._buffers = []
        if self._epoll is not None:
            self._epoll.close()
            self._epoll = None
