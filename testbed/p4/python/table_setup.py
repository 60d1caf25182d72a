"""The run-time state of a table from its IR: the actions it may run with their data
widths, its key, its default action and its constant entries.

What this target cannot run (action profiles and selectors, match kinds beyond
v1model's) and constant entries it cannot install are reported here, as ``P4Error`` at
the table or entry.
"""
from __future__ import annotations

from testbed.errors import P4Error
from testbed.p4 import entries as E
from testbed.p4 import ir
from testbed.p4.python.gen_expr import _mask
from testbed.p4.python.tables import ActionInfo, TableState

MATCH_KINDS = ("exact", "lpm", "ternary", "range", "optional")


def table_state(t: ir.Table, actions: dict, clock) -> TableState:
    """``actions``: every action the table's control can run, by name."""
    infos = {}
    for ref in t.actions:
        act = actions[ref.action]
        data = [(p.name, ir.fixed_width(p.type)) for p in act.params if p.direction == ""]
        infos[ref.action] = ActionInfo(
            ref.action, None, data,
            table_only=ir.annotation(ref.annotations, "tableonly") is not None,
            default_only=ir.annotation(ref.annotations, "defaultonly") is not None)
    if t.default_action.action not in infos:
        act = actions[t.default_action.action]
        data = [(p.name, ir.fixed_width(p.type)) for p in act.params if p.direction == ""]
        infos[t.default_action.action] = ActionInfo(t.default_action.action, None, data,
                                                    False, True)
    if t.implementation is not None:
        raise P4Error(f"table {t.name} uses {t.implementation} as its implementation "
                      "(action profile/selector); this target runs direct tables only: "
                      "remove the implementation property", t.loc)
    keys = [(k.match_kind, ir.fixed_width(k.expr.type)) for k in t.keys]
    for k in t.keys:
        if k.match_kind not in MATCH_KINDS:
            raise P4Error(f"match kind {k.match_kind} (not supported by the v1model target)",
                          k.loc)
    default = _action_call(t.default_action, actions)
    state = TableState(t.name, keys, infos, t.size, default, t.default_const,
                       t.entries_const and bool(t.entries), t.meters is not None, clock)
    priorities = entry_priorities(t) if state.needs_priority else [0] * len(t.entries)
    for ent, prio in zip(t.entries, priorities):
        match = tuple(_entry_match(ks, kind, w) for ks, (kind, w) in zip(ent.keys, keys))
        call = _action_call(ent.action, actions)
        try:
            state.insert(E.TableEntry(t.name, match, call, prio), const=True)
        except E.ControlPlaneError as e:
            raise P4Error(f"bad entry in table {t.name}: {e.message}", ent.loc)
    return state


_LOWEST = 1 << 24     # priorities in "the smaller wins" order become _LOWEST - p


def entry_priorities(t: ir.Table) -> list:
    """The target's priority (the larger wins) of each entry of ``t``, by p4c's rules:

    * ``@priority(N)`` on any entry (p4c's BMv2 backend's annotation): N as BMv2 reads
      it, the smaller wins; an entry without one has its position, 1, 2, ...;
    * no ``priority = N`` anywhere: the first entry wins over the later ones;
    * otherwise the first entry has one, and an entry without one has the previous
      entry's minus ``priority_delta`` (plus, with ``largest_priority_wins = false``).
    """
    if any(e.bmv2_priority is not None for e in t.entries):
        return [_LOWEST - (e.bmv2_priority if e.bmv2_priority is not None else i + 1)
                for i, e in enumerate(t.entries)]
    n, delta = len(t.entries), t.priority_delta
    if all(e.priority is None for e in t.entries):
        return [n - i for i in range(n)]
    if t.entries[0].priority is None:
        raise P4Error(f"table {t.name}: the first entry needs a priority when later ones "
                      "have one", t.entries[0].loc)
    out, current = [], 0
    for e in t.entries:
        if e.priority is not None:
            current = e.priority
        prio = current if t.largest_priority_wins else _LOWEST - current
        if not 0 < prio <= _LOWEST:
            raise P4Error(f"table {t.name}: entry priority {current} is out of range (1 "
                          f"to {_LOWEST})", e.loc)
        out.append(prio)
        current = current - delta if t.largest_priority_wins else current + delta
    return out


def _action_call(ref: ir.ActionRef, actions: dict) -> E.ActionCall:
    act = actions[ref.action]
    data = [p for p in act.params if p.direction == ""]
    bound = len(act.params) - len(data)
    params = {}
    for p, a in zip(data, ref.args[bound:]):
        if not isinstance(a, ir.Const):
            raise P4Error(f"action argument of {ref.action} must be a constant", ref.loc)
        params[p.name] = a.value & _mask(ir.fixed_width(p.type))
    return E.ActionCall(ref.action, params)


def _entry_match(ks, kind: str, w: int):
    full = _mask(w)
    if isinstance(ks, (ir.Default, ir.DontCare)):
        return None

    def val(e):
        if not isinstance(e, ir.Const):
            raise P4Error("table entry keys must be constants", e.loc)
        return e.value & full

    if isinstance(ks, ir.Mask):
        v, m = val(ks.value), val(ks.mask)
        if kind == "lpm":
            plen = bin(m).count("1")
            return E.Lpm(v & m, plen)
        return E.Ternary(v & m, m)
    if isinstance(ks, ir.Range):
        return E.Range(val(ks.lo), val(ks.hi))
    v = val(ks)
    return {"exact": E.Exact(v), "lpm": E.Lpm(v, w), "ternary": E.Ternary(v, full),
            "optional": E.Optional_(v), "range": E.Range(v, v)}[kind]
