"""A BMv2 JSON pipeline's graph of tables and conditionals as structured IR (part of
:mod:`testbed.p4.bmv2.loader`).

Every node's successors rejoin at its immediate post-dominator (the nearest node that
every path from it to the end passes through), so a node becomes an ``if``, a table
apply or a ``switch`` on the action it ran, followed by the code from that join point
on. p4c writes the graph from structured source, where this gives back the source's
shape; a graph that is not structured still comes out right, with shared parts
generated once per path that reaches them.
"""
from __future__ import annotations

from testbed.p4 import ir
from testbed.p4.bmv2.actions import NOLOC, as_bool, const

_END = None
DUMMY_TABLE_PREFIX = "tbl_"    # p4c's name for a table that stands for an action call
MATCH_TYPES = ("exact", "lpm", "ternary", "range", "valid")


class Flow:
    def __init__(self, loader, pipe: dict, path: str):
        self.ld = loader
        self.path = path
        self.pipe = pipe
        self.tables = {}          # real tables, IR
        self.calls = {}           # dummy table name -> action call statement
        self.used_actions = []
        self.succ = {}            # node -> successors (None: end of pipeline)
        self.nodes = {}           # node -> (kind, JSON object, path)
        for i, t in enumerate(loader.items_of(pipe, "tables", path)):
            self._table(t, f"{path}.tables[{i}]")
        for i, c in enumerate(loader.items_of(pipe, "conditionals", path)):
            cp = f"{path}.conditionals[{i}]"
            name = loader.need(c, "name", cp)
            self._node(name, ("cond", c, cp), [c.get("true_next"), c.get("false_next")])
        for i, a in enumerate(loader.items_of(pipe, "action_calls", path)):
            ap = f"{path}.action_calls[{i}]"
            act = loader.action(a.get("action_id"), f"{ap}.action_id")
            self._use(act)
            self.calls[loader.need(a, "name", ap)] = self._call(act, [])
            self._node(a["name"], ("call", a, ap), [a.get("next_node")])
        for name, succ in self.succ.items():
            for s in succ:
                if s is not _END and s not in self.succ:
                    self.ld.fail(self.nodes[name][2], f"next node {s!r} is not a table, "
                                 "conditional or action call of this pipeline")
        self.pdom = {_END: frozenset([_END])}

    def _node(self, name, what, succ) -> None:
        if name in self.succ:
            self.ld.fail(what[2], f"a second node named {name!r}")
        self.nodes[name] = what
        self.succ[name] = succ

    def _use(self, act: ir.Action) -> None:
        if all(a is not act for a in self.used_actions):
            self.used_actions.append(act)

    @staticmethod
    def _call(act: ir.Action, args: list) -> ir.Stmt:
        return ir.CallStmt(NOLOC, ir.Call(ir.VoidT(), NOLOC, "action", act.name, args))

    # ------------------------------------------------------------------ tables
    def _table(self, t: dict, path: str) -> None:
        ld = self.ld
        name = ld.need(t, "name", path)
        keys = t.get("key") or []
        default = t.get("default_entry")
        names = ld.need(t, "actions", path, list)
        if "action_ids" in t:
            action_ids = ld.need(t, "action_ids", path, list)
            if len(names) != len(action_ids):
                ld.fail(f"{path}.actions", "actions and action_ids differ in length")
            acts = [ld.action(a, f"{path}.action_ids[{k}]") for k, a in enumerate(action_ids)]
        else:               # older compilers name the actions only
            acts = [ld.action_named(n, f"{path}.actions[{k}]") for k, n in enumerate(names)]
        kind = t.get("type", "simple")
        if kind not in ("simple", "indirect", "indirect_ws"):
            ld.fail(f"{path}.type", f"table type {kind!r}; BMv2 has simple, indirect and "
                    "indirect_ws")
        defaultonly = ()
        if default is None and kind != "simple":
            no_action = ld.no_action()        # BMv2 runs nothing on a miss
            if all(a is not no_action for a in acts):
                defaultonly = (ir.ActionRef(no_action.name, [], (ir.Annotation("defaultonly"),)),)
            self._use(no_action)
            ref = ir.ActionRef(no_action.name, [])
        elif default is None:
            ld.fail(path, "no default_entry; p4c writes one for every table")
        else:
            ref = ld.action_ref(default, f"{path}.default_entry")
            self._use(ld.action(default.get("action_id"), path))
        for act in acts:
            self._use(act)
        nxt = t.get("next_tables") or {}
        if "__HIT__" in nxt or "__MISS__" in nxt:
            succ = [nxt.get("__HIT__"), nxt.get("__MISS__")]
            branch = ("hit", succ)
        else:
            base = t.get("base_default_next")
            succ = [nxt.get(n, base) for n in names]
            branch = ("action", list(zip([a.name for a in acts], succ)))
        if name.startswith(DUMMY_TABLE_PREFIX) and not keys and kind == "simple" \
                and default.get("action_const") and len(acts) == 1:
            self.calls[name] = self._call(ld.action(default["action_id"], path), ref.args)
            self._node(name, ("call", t, path), [succ[0]])
            return
        ir_keys = [self._key(k, f"{path}.key[{j}]") for j, k in enumerate(keys)]
        implementation = None
        if kind != "simple":
            implementation = ld.need(t, "action_profile", path)
            if implementation not in ld.profiles:
                ld.fail(f"{path}.action_profile", f"no action profile named "
                        f"{implementation!r} in this pipeline's action_profiles")
            selector_keys = ld.profiles[implementation][1]
            if (kind == "indirect_ws") != bool(selector_keys):
                ld.fail(f"{path}.type", f"an {kind} table needs an action profile "
                        f"{'with' if kind == 'indirect_ws' else 'without'} a selector; "
                        f"{implementation} has {'one' if selector_keys else 'none'}")
            ir_keys += selector_keys
        direct = ld.direct.get(name, {})
        if t.get("with_counters") and "counters" not in direct:
            ld.fail(f"{path}.with_counters", "no direct counter array is bound to the table")
        meters = direct.get("meters")
        if meters is not None:
            for act in acts:
                self._read_meter(act, *meters)
        table = ir.Table(
            name, name.rsplit(".", 1)[-1], ir_keys,
            [ir.ActionRef(a.name) for a in acts] + list(defaultonly), ref,
            bool(default and default.get("action_const")),
            entries=[self._entry(e, ir_keys, acts, f"{path}.entries[{j}]")
                     for j, e in enumerate(t.get("entries") or [])],
            entries_const=True, size=ld.need(t, "max_size", path, int) if "max_size" in t
            else 1024,
            counters=direct.get("counters") if t.get("with_counters") else None,
            meters=meters[0] if meters else None, largest_priority_wins=False,
            implementation=implementation)
        self.tables[name] = table
        self._node(name, ("table", (table, branch), path), succ)

    @staticmethod
    def _read_meter(act: ir.Action, meter: str, target: ir.Expr) -> None:
        """BMv2 writes a direct meter's color to its result field on a hit; in the IR an
        action reads it."""
        read = ir.CallStmt(NOLOC, ir.Call(ir.VoidT(), NOLOC, "extern_method", "read",
                                          [target], target=ir.Var(
                                              ir.ExternT("direct_meter"), NOLOC, meter),
                                          extern="direct_meter"))
        stmts = act.body.stmts
        if not any(s is read or (isinstance(s, ir.CallStmt) and s.call.extern ==
                                 "direct_meter") for s in stmts):
            stmts.insert(0, read)

    def _key(self, k: dict, path: str) -> ir.Key:
        ld = self.ld
        kind = k.get("match_type")
        if kind not in MATCH_TYPES:
            ld.fail(f"{path}.match_type", f"match type {kind!r} is not supported; this "
                    f"target has {', '.join(MATCH_TYPES)}")
        target = k.get("target")
        if kind == "valid":
            expr = ir.Cast(ir.BitT(1), NOLOC, ld.is_valid(ld.header(target, f"{path}.target")))
            kind = "exact"
        else:
            expr = ld.field(target, f"{path}.target")
        if k.get("mask") is not None:
            mask = ld.value({"type": "hexstr", "value": k["mask"]}, f"{path}.mask")
            mask.type = expr.type
            expr = ir.Binary(expr.type, NOLOC, "&", expr, mask)
        name = k.get("name") or ".".join(target if isinstance(target, list) else [target])
        return ir.Key(expr, kind, name)

    def _entry(self, e: dict, keys: list, acts: list, path: str) -> ir.Entry:
        ld = self.ld
        match = e.get("match_key") or []
        if len(match) != len(keys):
            ld.fail(f"{path}.match_key", f"{len(match)} fields for a key of {len(keys)}")
        out = []
        for j, (m, k) in enumerate(zip(match, keys)):
            mp = f"{path}.match_key[{j}]"
            t = k.expr.type
            w = t.width

            def val(field):
                c = const(ld.value({"type": "hexstr", "value": m.get(field)},
                                   f"{mp}.{field}").value & ((1 << w) - 1), w)
                c.type = t
                return c

            kind = m.get("match_type")
            expected = "valid" if isinstance(k.expr, ir.Cast) and kind == "valid" else \
                k.match_kind
            if kind != expected:
                ld.fail(f"{mp}.match_type", f"{kind!r} in an entry of a {k.match_kind} key")
            if kind == "valid":
                c = const(int(bool(m.get("key"))), 1)
                out.append(c)
            elif kind == "exact":
                out.append(val("key"))
            elif kind == "lpm":
                plen = m.get("prefix_length")
                if not isinstance(plen, int) or not 0 <= plen <= w:
                    ld.fail(f"{mp}.prefix_length", f"expected 0..{w}")
                mask = ir.Const(t, NOLOC, ((1 << plen) - 1) << (w - plen))
                out.append(ir.Mask(t, NOLOC, val("key"), mask))
            elif kind == "ternary":
                out.append(ir.Mask(t, NOLOC, val("key"), val("mask")))
            else:
                out.append(ir.Range(t, NOLOC, val("start"), val("end")))
        action = e.get("action_entry")
        if not isinstance(action, dict):
            ld.fail(f"{path}.action_entry", "expected an object with action_id and "
                    "action_data")
        prio = e.get("priority")
        ref = ld.action_ref(action, f"{path}.action_entry")
        if all(a.name != ref.action for a in acts):
            ld.fail(f"{path}.action_entry.action_id", f"{ref.action} is not one of the "
                    "table's actions")
        return ir.Entry(out, ref, prio if isinstance(prio, int) else None)

    # ------------------------------------------------------------------ structure
    def _postdoms(self, node) -> frozenset:
        """The nodes every path from ``node`` to the end passes through (with itself)."""
        if node in self.pdom:
            done = self.pdom[node]
            if done is None:
                self.ld.fail(self.nodes[node][2], f"the pipeline loops back to {node!r}")
            return done
        self.pdom[node] = None
        common = frozenset.intersection(*[self._postdoms(s) for s in self.succ[node]])
        self.pdom[node] = common | {node}
        return self.pdom[node]

    def _join(self, node):
        rest = self._postdoms(node) - {node}
        return max(rest, key=lambda n: len(self._postdoms(n)))

    def body(self) -> list:
        start = self.pipe.get("init_table")
        if start is not None and start not in self.succ:
            self.ld.fail(f"{self.path}.init_table", f"no table or conditional named {start!r}")
        return self._code(start, _END)

    def _code(self, node, stop) -> list:
        out = []
        while node is not _END and node != stop:
            join = self._join(node)
            kind, obj, path = self.nodes[node]
            if kind == "cond":
                cond = as_bool(self.ld.value(obj.get("expression"), f"{path}.expression"))
                out.append(self._if(cond, self._code(obj.get("true_next"), join),
                                    self._code(obj.get("false_next"), join)))
            elif kind == "call":
                out.append(self.calls[node])
            else:
                out.append(self._apply(obj, join))
            node = join
        return out

    @staticmethod
    def _if(cond: ir.Expr, then: list, other: list) -> ir.Stmt:
        return ir.If(NOLOC, cond, ir.Block(NOLOC, then),
                     ir.Block(NOLOC, other) if other else None)

    def _apply(self, obj, join) -> ir.Stmt:
        table, (how, succ) = obj
        apply = ir.Call(ir.TableResultT(table.name), NOLOC, "table_apply", table.name)
        if how == "hit":
            hit, miss = succ
            if hit == miss == join:
                return ir.CallStmt(NOLOC, apply)
            return self._if(ir.Member(ir.BoolT(), NOLOC, apply, "hit"),
                            self._code(hit, join), self._code(miss, join))
        branches = {}
        for action, nxt in succ:
            if nxt != join:
                branches.setdefault(nxt, []).append(action)
        if not branches:
            return ir.CallStmt(NOLOC, apply)
        cases = []
        for nxt, actions in branches.items():
            labels = [ir.ActionName(ir.ActionEnumT(table.name), NOLOC, a) for a in actions]
            cases += [ir.SwitchCase([lb], None) for lb in labels[:-1]]
            cases.append(ir.SwitchCase([labels[-1]], ir.Block(NOLOC, self._code(nxt, join))))
        return ir.Switch(NOLOC, ir.Member(ir.ActionEnumT(table.name), NOLOC, apply,
                                          "action_run"), cases)
