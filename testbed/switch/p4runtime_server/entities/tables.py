"""Table entries: match-action entries and each table's default action, with the
controller's metadata kept beside them for reads to return."""
from __future__ import annotations

from functools import partial

from p4.v1 import p4runtime_pb2

from testbed.p4 import entries as E
from testbed.p4runtime import convert as C
from testbed.switch.p4runtime_server.entities.base import U, Handler, find_entry

ENTITY_TABLE_ENTRY = p4runtime_pb2.Entity.DESCRIPTOR.fields_by_name["table_entry"].number


class TableEntries(Handler):
    kind = "table_entry"

    def write(self, pipeline, target, utype: int, msg):
        index = pipeline.index
        decoder = index.decoders.get(msg.table_id)
        entry, reusable = (decoder.decode_insert(msg, utype) if decoder is not None
                           else (None, False))
        if entry is None:                   # not a plain entry, or a check fails
            entry = C.table_entry_from_p4rt(index, msg, utype)
        elif utype == U.INSERT and checks_as_target(pipeline, target, msg.table_id):
            return self._insert_plain(pipeline, target, entry, msg, reusable)
        table = index.tables[msg.table_id]
        if msg.is_default_action:
            if table.const_default_action_id:
                C.fail("PERMISSION_DENIED", f"table {table.name} has a const default action")
            old = target.table_get_default(table.name)
            new = entry.action if entry.action.action else pipeline.defaults[table.name]
            target.table_set_default(table.name, new)
            return lambda: target.table_set_default(table.name, old)
        _check_writable(table)
        if utype == U.INSERT:
            target.table_insert(entry)
            undo = partial(target.table_delete, entry)
        else:
            old = find_entry(index, target, entry)
            if utype == U.MODIFY:
                target.table_modify(entry)
                undo = partial(target.table_modify, old)
            else:
                target.table_delete(entry)
                undo = partial(target.table_insert, old)
        return _keep_cookies(pipeline, entry, msg if utype != U.DELETE else None, undo)

    @staticmethod
    def _insert_plain(pipeline, target, entry: E.TableEntry, msg, reusable: bool):
        """Insert a plain entry the table's decoder has checked (a direct table's match
        and action, values fitting): the table checks only room and duplicates. When the
        message is the entry's encoding (``reusable``; unknown fields dropped, as the
        server reads none) the table keeps its bytes for reads."""
        _check_writable(pipeline.index.tables[msg.table_id])
        if reusable:
            msg.DiscardUnknownFields()
        target.table_insert_checked(
            entry, (pipeline.index, msg.SerializeToString()) if reusable else None)
        undo = partial(target.table_delete, entry)
        if not (pipeline.cookies or msg.controller_metadata or msg.metadata):
            return undo                     # no cookies before or after: nothing to keep
        return _keep_cookies(pipeline, entry, msg, undo)

    @staticmethod
    def insert_decoded(pipeline, target, entry: E.TableEntry, encoding: bytes):
        """Insert a plain entry the C decoder has checked, with the encoding reads return
        (see ``testbed.p4runtime.entry_wire``); what undoes it."""
        table_id = pipeline.index.table_ids[entry.table]
        _check_writable(pipeline.index.tables[table_id])
        if checks_as_target(pipeline, target, table_id):
            target.table_insert_checked(entry, (pipeline.index, encoding))
        else:                               # the target checks what its table holds
            target.table_insert(entry)
        if pipeline.cookies:                # a cookie left under this key goes with it
            return _keep_cookies(pipeline, entry, None, partial(target.table_delete, entry))
        return partial(target.table_delete, entry)

    def read_into(self, pipeline, target, msg, add) -> None:
        """Each selected entry filled in place into the response's next entity: reads of
        whole tables build no message twice and measure none."""
        index = pipeline.index
        tables = [index.table(msg.table_id)] if msg.table_id else list(index.tables.values())
        if msg.is_default_action:
            for t in tables:
                call = target.table_get_default(t.name)
                C.table_entry_to_p4rt(index, E.TableEntry(t.name, (), call), is_default=True,
                                      out=add(C.entry_size_bound(index, t)).table_entry)
            return
        probe = C.table_entry_from_p4rt(index, msg) if msg.table_id and msg.match else None
        if probe is None and not msg.priority:
            for t in tables:
                self._read_whole(pipeline, target, t, add)
            return
        for t in tables:
            bound = C.entry_size_bound(index, t)
            for e in target.table_entries(t.name):
                if probe is not None and not C.same_match(e, probe, index):
                    continue
                if msg.priority and e.priority != msg.priority:
                    continue
                cookies = pipeline.cookies.get((e.table, e.key()))
                out = add(bound + (len(cookies[1]) if cookies else 0)).table_entry
                C.table_entry_to_p4rt(index, e, out=out)
                if t.is_const:
                    out.is_const = True
                if cookies is not None:
                    out.controller_metadata, out.metadata = cookies

    @staticmethod
    def _read_whole(pipeline, target, t: C.TableInfo, add) -> None:
        """Every entry of table ``t`` from the encoding the target keeps with it, plus
        what changes without a write: direct counters (read now), cookies and is_const."""
        index, cookies = pipeline.index, pipeline.cookies
        counters = t.direct_counter is not None
        rows = target.table_entries_encoded(t.name, index, partial(_encoded, index), counters)
        for data, entry, packets, nbytes in rows:
            kept = cookies.get((t.name, entry.key())) if cookies else None
            if counters or kept is not None or t.is_const:
                live = p4runtime_pb2.TableEntry(is_const=t.is_const)
                if counters:
                    live.counter_data.packet_count = packets
                    live.counter_data.byte_count = nbytes
                if kept is not None:
                    live.controller_metadata, live.metadata = kept
                data += live.SerializeToString()    # serialised fields concatenate
            add.serialized(ENTITY_TABLE_ENTRY, data)


def checks_as_target(pipeline, target, table_id: int) -> bool:
    """May an entry of ``table_id`` the P4Info's decoders accepted skip the target's own
    checks? Only when the P4Info describes the table as the program has it (a client's
    P4Info is checked for names only); found out once per table and target."""
    known_target, agreed = pipeline.agreed
    if known_target is not target:
        agreed = {}
        pipeline.agreed = (target, agreed)
    ok = agreed.get(table_id)
    if ok is None:
        decoder = pipeline.index.decoders[table_id]
        ok = agreed[table_id] = decoder.checks_as(target.table_checks(decoder.name))
    return ok


def _check_writable(table: C.TableInfo) -> None:
    if table.is_const:
        C.fail("PERMISSION_DENIED", f"table {table.name} has const entries and cannot be "
                                    "written")


def _encoded(index, entry) -> bytes:
    """A stored entry's serialised TableEntry without its direct counter, which reads
    fill in as it is then."""
    msg = C.table_entry_to_p4rt(index, entry)
    msg.ClearField("counter_data")
    return msg.SerializeToString()


def _keep_cookies(pipeline, entry: E.TableEntry, msg, undo):
    """Remember the entry's controller_metadata and metadata, which reads return."""
    key = (entry.table, entry.key())
    before = pipeline.cookies.get(key)
    if msg is not None and (msg.controller_metadata or msg.metadata):
        pipeline.cookies[key] = (msg.controller_metadata, msg.metadata)
    elif before is None:
        return undo                     # no cookies before or after: nothing to restore
    else:
        pipeline.cookies.pop(key, None)

    def undo_all():
        undo()
        if before is None:
            pipeline.cookies.pop(key, None)
        else:
            pipeline.cookies[key] = before
    return undo_all
