"""The plain table-entry inserts of a WriteRequest, decoded from its wire bytes in C.

Batches of route inserts are the bulk of what controllers write. ``entry_wire.c`` walks
a serialised WriteRequest once and, for every update that is a plain insert (a direct
table's exact and lpm keys of at most 64 bits, a direct action, no priority, metadata or
direct resources, nothing unknown or repeated), checks it as
:class:`testbed.p4runtime.entry_decoder.EntryDecoder` does and writes its keys, action
data and canonical encoding (the bytes a read of the stored entry returns). Every other
update is left to the per-update path, which decodes the parsed message and names what is
wrong, so errors are the same either way; a property test holds the two decoders to the
same entries and the encoding to the general conversion's. Without a C compiler (or
cffi) :func:`wire_decoder` answers None and every update takes the per-update path.
"""
from __future__ import annotations

from functools import lru_cache
from pathlib import Path

from p4.config.v1 import p4info_pb2

from testbed.errors import TrainetError
from testbed.p4 import entries as E

MF = p4info_pb2.MatchField
EW_MAX = 16             # keys per table, parameters per action (entry_wire.c)
EW_EXACT = 255          # the prefix length entry_wire.c gives an exact key
WIDEST = 64             # bits of a key or parameter the C decodes


@lru_cache(maxsize=1)
def _library():
    """(ffi, lib) of entry_wire.c, or None when it cannot be built here."""
    from testbed.p4.native import build
    source = Path(__file__).with_name("entry_wire.c").read_text()
    try:
        return build.load(source, declarations=build.interface(source))
    except TrainetError:
        return None


class WireDecoder:
    """The C decoder's view of one P4Info: a spec per table it can decode."""

    def __init__(self, ffi, lib, index):
        self.ffi, self.lib = ffi, lib
        tables, actions = [], []
        self.tables, self.actions = [], []        # what Python builds entries from
        for table_id, decoder in index.decoders.items():
            info = index.tables[table_id]
            fields = info.fields
            if (not decoder.plain or not decoder.checks_all or decoder.needs_priority
                    or len(fields) > EW_MAX
                    or any(f.match_type not in (MF.EXACT, MF.LPM)
                           or not 0 < f.bitwidth <= WIDEST for f in fields)):
                continue
            first = len(actions)
            for aid, (name, by_id) in decoder.actions.items():
                if len(by_id) > EW_MAX or any(not 0 < w <= WIDEST for _, w in by_id.values()):
                    continue                          # its entries take the per-update path
                actions.append({"id": aid, "nparams": len(by_id), "param_id": list(by_id),
                                "width": [w for _, w in by_id.values()]})
                self.actions.append((name, tuple(n for n, _ in by_id.values())))
            tables.append({"id": table_id, "nfields": len(fields),
                           "field_id": [f.id for f in fields],
                           "kind": [int(f.match_type == MF.LPM) for f in fields],
                           "width": [f.bitwidth for f in fields],
                           "first_action": first, "nactions": len(actions) - first})
            self.tables.append(info.name)
        self._tables = ffi.new("ew_table_t[]", tables or [{}])
        self._actions = ffi.new("ew_action_t[]", actions or [{}])
        self.nfields = [t["nfields"] for t in tables]
        self.nparams = [a["nparams"] for a in actions]
        self._capacity = self._enc_bytes = 0

    def _arrays(self, n: int, nbytes: int) -> tuple:
        """The C decoder's output arrays for ``n`` updates of ``nbytes``, made anew only
        when a request outgrows them."""
        if n > self._capacity or nbytes > self._enc_bytes:
            new = self.ffi.new
            self._capacity = n = max(n, self._capacity)
            self._enc_bytes = nbytes = max(nbytes, self._enc_bytes)
            self._out = (new("uint8_t[]", n), new("uint32_t[]", n),
                         new("uint64_t[]", n * EW_MAX), new("uint8_t[]", n * EW_MAX),
                         new("uint32_t[]", n), new("uint64_t[]", n * EW_MAX),
                         new("uint8_t[]", nbytes), new("uint32_t[]", n))
        return self._out

    def decode(self, data: bytes, count: int) -> list | None:
        """Per update of the serialised WriteRequest ``data`` (``count`` updates): None,
        or (the TableEntry it inserts, that entry's encoding) when it is a plain insert;
        None for the whole request when there is nothing to decode."""
        if not count or not self.tables:
            return None
        plain, table, values, plens, action, args, encoded, ends = self._arrays(count,
                                                                                 len(data))
        got = self.lib.ew_decode(data, len(data), self._tables, len(self.tables),
                                 self._actions, count, plain, table, values, plens, action,
                                 args, encoded, ends)
        if got != count:
            return None
        unpack = self.ffi.unpack
        flags = unpack(plain, count)
        if not any(flags):
            return None
        ends = unpack(ends, count)
        enc = self.ffi.buffer(encoded, ends[-1])[:]
        tables, actions = unpack(table, count), unpack(action, count)
        names, calls, nfields = self.tables, self.actions, self.nfields
        nkeys = sum(nfields[t] for t, f in zip(tables, flags) if f)
        nargs = sum(self.nparams[a] for a, f in zip(actions, flags) if f)
        keys, lens, data_words = unpack(values, nkeys), unpack(plens, nkeys), unpack(args, nargs)
        exact, lpm, entry, call = E.Exact, E.Lpm, E.TableEntry, E.ActionCall
        out, k, a, start = [], 0, 0, 0
        for i in range(count):
            end = ends[i]
            if not flags[i]:
                out.append(None)
                continue
            nk = nfields[tables[i]]
            if nk == 1:                               # most tables: one key
                v, p = keys[k], lens[k]
                match = (exact(v) if p == EW_EXACT else lpm(v, p) if p else None,)
            else:
                match = tuple([exact(v) if p == EW_EXACT else lpm(v, p) if p else None
                               for v, p in zip(keys[k:k + nk], lens[k:k + nk])])
            k += nk
            name, params = calls[actions[i]]
            np = len(params)
            out.append((entry(names[tables[i]], match,
                              call(name, dict(zip(params, data_words[a:a + np])))),
                        enc[start:end]))
            a += np
            start = end
        return out


def wire_decoder(index) -> WireDecoder | None:
    """The C decoder of plain inserts for ``index`` (a P4InfoIndex), or None when the C
    cannot be built on this machine."""
    lib = _library()
    return WireDecoder(*lib, index) if lib is not None else None
