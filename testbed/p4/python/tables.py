"""Match-action table state and lookup.

A lookup returns a :class:`Result` (the entry's action function and arguments, or the
default action). The lookup structure follows the keys: a dict for all-exact keys, one
dict per prefix length (longest first) for exact keys plus one lpm key, and a scan in
priority order otherwise. A key is an int for one-key tables and a tuple otherwise.
"""
from __future__ import annotations


from testbed.p4 import entries as E
from testbed.p4.entries import ControlPlaneError
from testbed.p4.python.externs import TokenMeter


class Result:
    __slots__ = ("fn", "args", "hit", "action", "counter", "meter", "entry", "encoded")

    def __init__(self, fn, args: tuple, hit: bool, action: str, entry=None):
        self.fn = fn
        self.args = args
        self.hit = hit
        self.action = action
        self.entry = entry
        self.counter = [0, 0] if hit else None
        self.meter = None
        self.encoded = None             # (owner, what the owner's encoder made of entry)


MATCH_CLASSES = {"exact": E.Exact, "lpm": E.Lpm, "ternary": E.Ternary, "range": E.Range,
                 "optional": E.Optional_}


class ActionInfo:
    """An action a table may run: its function and its action-data parameters."""

    def __init__(self, name: str, fn, params: list, table_only: bool, default_only: bool):
        self.name = name
        self.fn = fn
        self.params = params            # [(name, width)]
        self.param_names = {n for n, _ in params}
        self.table_only = table_only
        self.default_only = default_only


def check_action(where: str, actions: dict, call: E.ActionCall, default: bool) -> None:
    """``call`` may run from ``actions`` (name -> ActionInfo), its data fitting."""
    info = actions.get(call.action)
    if info is None:
        raise ControlPlaneError("INVALID_ARGUMENT", f"{where}: action {call.action!r} "
                                f"is not one of {sorted(actions)}")
    if default and info.table_only:
        raise ControlPlaneError("INVALID_ARGUMENT", f"{where}: {call.action} is "
                                "@tableonly and cannot be the default action")
    if not default and info.default_only:
        raise ControlPlaneError("INVALID_ARGUMENT", f"{where}: {call.action} is "
                                "@defaultonly and cannot be used in an entry")
    if call.params.keys() != info.param_names:
        names = [n for n, _ in info.params]
        raise ControlPlaneError("INVALID_ARGUMENT", f"{where}: {call.action} takes "
                                f"parameters {names}, got {sorted(call.params)}")
    for pname, width in info.params:
        value = call.params[pname]
        if not 0 <= value < (1 << width):
            raise ControlPlaneError("INVALID_ARGUMENT", f"{where}: {call.action} "
                                    f"parameter {pname}={value} does not fit bit<{width}>")


def _copied(action):
    """An entry's action as a new object (a member or group reference is immutable; a
    one-shot action set is copied too, as its profile keeps it by identity)."""
    if isinstance(action, E.ActionCall):
        return E.ActionCall(action.action, dict(action.params))
    if isinstance(action, E.ActionSet):
        return E.ActionSet(tuple((_copied(call), weight, watch)
                                 for call, weight, watch in action.actions))
    return action


class TableState:
    def __init__(self, name: str, keys: list, actions: dict, size: int,
                 default: E.ActionCall, default_const: bool, entries_const: bool,
                 direct_meter: bool, clock, profile=None):
        self.name = name
        # selector keys (an action selector's hash inputs) are passed to lookup with the
        # others but match nothing
        self.key_count = len(keys)
        self.selector_keys = [(i, w) for i, (k, w) in enumerate(keys) if k == "selector"]
        self.match_pos = [i for i, (k, _) in enumerate(keys) if k != "selector"]
        keys = [keys[i] for i in self.match_pos]
        self.keys = keys                # [(match_kind, width)]
        self.profile = profile          # a ProfileState when the table is indirect
        self.actions = actions          # action name -> ActionInfo
        self.size = size
        self.default_const = default_const
        self.entries_const = entries_const
        self.direct_meter = direct_meter
        self.clock = clock
        kinds = [k for k, _ in keys]
        self.needs_priority = any(k in ("ternary", "range", "optional") for k in kinds)
        self.entries = {}               # entry.key() -> Result
        self.lookups = True             # keep the structures lookup() reads
        self.default = self._result(default, hit=False)
        if not keys:
            self.mode = "none"
        elif all(k == "exact" for k in kinds):
            self.mode = "exact"
        elif kinds.count("lpm") == 1 and all(k in ("exact", "lpm") for k in kinds):
            self.mode = "lpm"
            self.lpm_pos = kinds.index("lpm")
        else:
            self.mode = "scan"
        self._rebuild()

    # ---------------------------------------------------------------- control plane
    def insert(self, entry: E.TableEntry, const: bool = False) -> E.TableEntry:
        """Add ``entry``; return it as stored (canonical match, own copy)."""
        if self.entries_const and not const:
            raise ControlPlaneError("PERMISSION_DENIED", f"table {self.name} has const entries; "
                                    "change them in the P4 source")
        entry = self.canonical(entry)
        key = entry.key()
        self._check_room(key)
        self._check_action(entry.action, default=False)
        result = self._result(entry.action, hit=True, entry=entry)
        self.entries[key] = result
        self._update(None, result)
        return entry

    def insert_checked(self, entry: E.TableEntry, encoded=None) -> E.TableEntry:
        """Add ``entry``, which the control plane's decoder has already checked as
        :meth:`insert` would: a match in canonical form (values fitting, prefixes clean,
        priority as the keys need), a direct action the table allows in entries, its data
        complete and fitting. It is stored as given (the caller keeps no reference).
        ``encoded``: (owner, the entry's encoding) for :meth:`read_encoded`, when the
        caller has it already. Room and duplicates are checked here."""
        if self.entries_const:
            raise ControlPlaneError("PERMISSION_DENIED", f"table {self.name} has const entries; "
                                    "change them in the P4 source")
        key = (entry.match, entry.priority)
        self._check_room(key)
        if self.lookups or self.direct_meter:
            result = self._result(entry.action, hit=True, entry=entry)
        else:                           # what only lookups read is left out
            result = Result(None, (), True, entry.action.action, entry)
        result.encoded = encoded
        self.entries[key] = result
        self._update(None, result)
        return entry

    def _check_room(self, key) -> None:
        if key in self.entries:
            raise ControlPlaneError("ALREADY_EXISTS", f"{self.name}: an entry with this match "
                                    "and priority exists; use modify")
        if len(self.entries) >= self.size:
            raise ControlPlaneError("RESOURCE_EXHAUSTED", f"{self.name} is full "
                                    f"({self.size} entries)")

    def modify(self, entry: E.TableEntry) -> E.TableEntry:
        """Replace the action of ``entry``'s key; return the entry as stored."""
        self._check_writable()
        entry = self.canonical(entry)
        old = self.entries.get(entry.key())
        if old is None:
            raise ControlPlaneError("NOT_FOUND", f"{self.name}: no entry with this match and "
                                    "priority; use insert")
        self._check_action(entry.action, default=False)
        result = self._result(entry.action, hit=True, entry=entry)
        self._release(old)
        result.counter = old.counter
        if entry.meter_config is None:
            result.meter = old.meter
            entry.meter_config = old.entry.meter_config
        self.entries[entry.key()] = result
        self._update(old, result)
        return entry

    def delete(self, entry: E.TableEntry) -> E.TableEntry:
        """Remove ``entry``'s key; return the entry that was stored."""
        self._check_writable()
        entry = self.canonical(entry)
        if entry.key() not in self.entries:
            raise ControlPlaneError("NOT_FOUND", f"{self.name}: no entry with this match and "
                                    "priority")
        old = self.entries.pop(entry.key())
        self._release(old)
        self._update(old, None)
        return old.entry

    def clear(self) -> None:
        self._check_writable()
        for r in self.entries.values():
            self._release(r)
        self.entries.clear()
        self._rebuild()

    def _release(self, r: Result) -> None:
        if self.profile is not None:
            self.profile.release(r.entry.action)

    def read(self) -> list:
        entry = E.TableEntry
        return [entry(e.table, e.match, _copied(e.action), e.priority, *r.counter,
                      e.meter_config)
                for r in self.entries.values() for e in (r.entry,)]

    def read_encoded(self, owner, encode) -> list:
        """(``encode(entry)``, stored entry, its [packets, bytes] counter) of every entry.
        The encoding is made once per stored entry and kept with it while it stays
        unchanged (a modify stores a new entry); ``owner`` names the encoding, so another
        encoder makes its own. The entries are the stored ones: not to be changed."""
        out = []
        for r in self.entries.values():
            cached = r.encoded
            if cached is None or cached[0] is not owner:
                cached = r.encoded = (owner, encode(r.entry))
            out.append((cached[1], r.entry, r.counter))
        return out

    def set_default(self, call: E.ActionCall) -> None:
        if self.default_const:
            raise ControlPlaneError("PERMISSION_DENIED", f"{self.name}: the default action is "
                                    "const in the P4 source")
        self._check_action(call, default=True)
        self.default = self._result(call, hit=False)

    def get_default(self) -> E.ActionCall:
        return E.ActionCall(self.default.action, dict(self.default.entry.params))

    # ---------------------------------------------------------------- validation
    def _check_writable(self) -> None:
        if self.entries_const:
            raise ControlPlaneError("PERMISSION_DENIED", f"table {self.name} has const entries")

    def _check_action(self, action, default: bool) -> None:
        """The action an entry runs: an ActionCall on a direct table, a member or (with
        a selector) a group of its profile on an indirect one, which it then names."""
        if self.profile is None or default:
            if not isinstance(action, E.ActionCall):
                why = ("its default action is an action" if default else
                       "it has no action profile; give the entry an action")
                raise ControlPlaneError("INVALID_ARGUMENT", f"{self.name}: {why}, not a "
                                        "member or group")
            check_action(self.name, self.actions, action, default)
            return
        if isinstance(action, E.ActionCall):
            raise ControlPlaneError("INVALID_ARGUMENT", f"{self.name} takes its actions from "
                                    f"the action profile {self.profile.name}: give a member "
                                    "or group, not an action")
        self.profile.acquire(action)

    def canonical(self, entry: E.TableEntry) -> E.TableEntry:
        if entry.table != self.name:
            raise ControlPlaneError("INVALID_ARGUMENT", f"entry for {entry.table} given to "
                                    f"{self.name}")
        if len(entry.match) != len(self.keys):
            raise ControlPlaneError("INVALID_ARGUMENT", f"{self.name} has {len(self.keys)} "
                                    f"key fields, the entry gives {len(entry.match)}")
        if self.needs_priority and entry.priority <= 0:
            raise ControlPlaneError("INVALID_ARGUMENT", f"{self.name} has ternary/range/"
                                    "optional keys: entries need a priority > 0")
        if not self.needs_priority and entry.priority != 0:
            raise ControlPlaneError("INVALID_ARGUMENT", f"{self.name} has no ternary/range/"
                                    "optional keys: entries must not have a priority")
        match = tuple([self._canonical_match(i, m) for i, m in enumerate(entry.match)])
        return E.TableEntry(self.name, match, _copied(entry.action), entry.priority, entry.counter_packets, entry.counter_bytes,
                            entry.meter_config)

    def _canonical_match(self, i: int, m):
        kind, width = self.keys[i]
        full = (1 << width) - 1
        cls = type(m)
        if cls is E.Exact and kind == "exact" and 0 <= m.value <= full:
            return m                                     # the common cases, checked
        if (cls is E.Lpm and kind == "lpm" and 0 < m.prefix_len <= width
                and 0 <= m.value <= full and not m.value & (full >> m.prefix_len)):
            return m
        where = f"{self.name} key {i} ({kind}, bit<{width}>)"

        def fits(v):
            if not 0 <= v <= full:
                raise ControlPlaneError("INVALID_ARGUMENT", f"{where}: value {v} out of range")

        if m is None:
            if kind == "exact":
                raise ControlPlaneError("INVALID_ARGUMENT", f"{where}: exact keys need a value")
            return None
        if not isinstance(m, MATCH_CLASSES.get(kind)):
            raise ControlPlaneError("INVALID_ARGUMENT", f"{where}: got a "
                                    f"{type(m).__name__} match")
        if isinstance(m, (E.Exact, E.Optional_)):
            fits(m.value)
            return m
        if isinstance(m, E.Lpm):
            fits(m.value)
            if not 0 <= m.prefix_len <= width:
                raise ControlPlaneError("INVALID_ARGUMENT", f"{where}: prefix length "
                                        f"{m.prefix_len} out of 0..{width}")
            if m.prefix_len == 0:
                return None
            mask = full ^ ((1 << (width - m.prefix_len)) - 1)
            if m.value & ~mask:
                raise ControlPlaneError("INVALID_ARGUMENT", f"{where}: value has bits set "
                                        f"beyond the /{m.prefix_len} prefix")
            return m
        if isinstance(m, E.Ternary):
            fits(m.value)
            fits(m.mask)
            if m.value & ~m.mask:
                raise ControlPlaneError("INVALID_ARGUMENT", f"{where}: value has bits set "
                                        "outside the mask")
            return None if m.mask == 0 else m
        fits(m.low)
        fits(m.high)
        if m.low > m.high:
            raise ControlPlaneError("INVALID_ARGUMENT", f"{where}: range low > high")
        return None if (m.low, m.high) == (0, full) else m

    # ---------------------------------------------------------------- lookup
    def _result(self, call, hit: bool, entry=None) -> Result:
        if not isinstance(call, E.ActionCall):          # a member or group: see lookup
            return Result(None, (), hit, "", entry)
        info = self.actions[call.action]
        args = tuple(call.params[n] for n, _ in info.params)
        r = Result(info.fn, args, hit, call.action, entry if hit else call)
        if hit and self.direct_meter:
            r.meter = TokenMeter()
            if entry.meter_config is not None:
                r.meter.configure(*entry.meter_config, now=self.clock())
        return r

    def bind(self, fns: dict) -> None:
        """Attach the compiled action functions (after code generation)."""
        for info in self.actions.values():
            info.fn = fns[info.name]
        for r in list(self.entries.values()) + [self.default]:
            if r.action:
                r.fn = self.actions[r.action].fn

    def drop_lookups(self) -> None:
        """Keep only the control plane's state (entries, default, counters' owners): a
        target that looks entries up in its own structures (the native one) never calls
        :meth:`lookup`, and keeping its structures up to date is a cost on every write."""
        self.lookups = False
        self._exact = self._lpm_by_len = self._lpm = None
        self.lookup = None

    def _update(self, old, new) -> None:
        """Replace ``old`` by ``new`` (either may be None) in the lookup structure: in
        place for exact and lpm tables, so bulk inserts stay linear; scans re-sort."""
        if not self.lookups:
            return
        if self.mode == "exact":
            if old is not None:
                del self._exact[self._exact_key(old.entry)]
            if new is not None:
                self._exact[self._exact_key(new.entry)] = new
        elif self.mode == "lpm":
            plen, key = self._lpm_slot(old or new)
            same_length = self._lpm_by_len.get(plen)
            had = bool(same_length)
            if old is not None:
                del same_length[key]
            if new is not None:
                if same_length is None:
                    same_length = self._lpm_by_len[plen] = {}
                same_length[key] = new
            if bool(same_length) != had:        # a prefix length appears or goes
                self._order_lpm()
        else:
            self._rebuild()

    def _rebuild(self) -> None:
        if not self.lookups:
            return
        if self.mode == "none":
            self.lookup = self._lookup_none
        elif self.mode == "exact":
            self._exact = {self._exact_key(r.entry): r for r in self.entries.values()}
            self.lookup = self._lookup_exact
        elif self.mode == "lpm":
            self._build_lpm()
        else:
            self._build_scan()
        if self.profile is not None or self.selector_keys:
            self._match_lookup, self.lookup = self.lookup, self._lookup_indirect

    def _lookup_indirect(self, key) -> Result:
        """Lookup of an indirect table: the match keys find the entry, whose member (or
        the member its group's hash over the selector keys picks) is what runs."""
        if self.key_count > 1:
            match = [key[i] for i in self.match_pos]
            r = self._match_lookup(match[0] if len(match) == 1 else tuple(match))
        else:
            r = self._match_lookup(key)
        if not r.hit or self.profile is None:
            return r
        chosen = self.profile.resolve(r.entry.action, [(key[i], w) for i, w in
                                                       self.selector_keys])
        return self.default if chosen is None else chosen

    def _lookup_none(self, key) -> Result:
        return self.default

    def _exact_key(self, entry):
        values = tuple(m.value for m in entry.match)
        return values[0] if len(values) == 1 else values

    def _lookup_exact(self, key) -> Result:
        return self._exact.get(key, self.default)

    def _lpm_slot(self, r) -> tuple:
        m = r.entry.match[self.lpm_pos]
        values = [x.value if x is not None else 0 for x in r.entry.match]
        return (0 if m is None else m.prefix_len,
                values[0] if len(values) == 1 else tuple(values))

    def _build_lpm(self) -> None:
        self._lpm_by_len = {}
        for r in self.entries.values():
            plen, key = self._lpm_slot(r)
            self._lpm_by_len.setdefault(plen, {})[key] = r
        self._order_lpm()
        self.lookup = self._lookup_lpm1 if len(self.keys) == 1 else self._lookup_lpm

    def _order_lpm(self) -> None:
        """Prefix lengths longest first, each with its mask; empty lengths left out."""
        width = self.keys[self.lpm_pos][1]
        full = (1 << width) - 1
        self._lpm = [(full ^ ((1 << (width - p)) - 1), d)
                     for p, d in sorted(self._lpm_by_len.items(), reverse=True) if d]

    def _lookup_lpm1(self, key) -> Result:
        for mask, d in self._lpm:
            r = d.get(key & mask)
            if r is not None:
                return r
        return self.default

    def _lookup_lpm(self, key) -> Result:
        pos = self.lpm_pos
        for mask, d in self._lpm:
            r = d.get(key[:pos] + (key[pos] & mask,) + key[pos + 1:])
            if r is not None:
                return r
        return self.default

    def _build_scan(self) -> None:
        order = sorted(self.entries.values(), key=lambda r: -r.entry.priority)
        self._scan = [(self._tests(r.entry.match), r) for r in order]
        self.lookup = self._lookup_scan

    @staticmethod
    def _tests(match: tuple) -> tuple:
        """Per non-wildcard key: (position, mask, value, low, high)."""
        tests = []
        for i, m in enumerate(match):
            if m is None:
                continue
            if isinstance(m, (E.Exact, E.Optional_)):
                tests.append((i, -1, m.value, None, None))
            elif isinstance(m, E.Ternary):
                tests.append((i, m.mask, m.value, None, None))
            elif isinstance(m, E.Lpm):
                tests.append((i, None, m, None, None))
            else:
                tests.append((i, 0, 0, m.low, m.high))
        return tuple(tests)

    def _lookup_scan(self, key) -> Result:
        if type(key) is not tuple:
            key = (key,)
        for tests, r in self._scan:
            for i, mask, value, lo, hi in tests:
                k = key[i]
                if lo is not None:
                    if not lo <= k <= hi:
                        break
                elif mask is None:
                    width = self.keys[i][1]
                    if k >> (width - value.prefix_len) != value.value >> (width - value.prefix_len):
                        break
                elif k & mask != value:
                    break
            else:
                return r
        return self.default
