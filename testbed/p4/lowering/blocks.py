"""Block lowering of the frontend (mixin of ``Lowering``): the V1Switch or PSA_Switch
package, its parsers and controls, their locals, actions, extern instances, and inlined
sub-parsers and sub-controls."""
from __future__ import annotations

from dataclasses import dataclass, field

from lark import Token, Tree

from testbed.p4 import ir
from testbed.p4.frontend.p4types import show
from testbed.p4.lowering.symbols import (ActionSym, ConstSym, InstanceSym, Scope, SubBlockSym,
                                         SubParserSym, TopInstanceSym, ValueSetSym, VarSym)
from testbed.p4.lowering.syntax import annotations_of, name_of

# the packages the target runs: name -> (architecture, the roles of their blocks in order)
PACKAGES = {"V1Switch": ("v1model", ir.V1SWITCH_ROLES), "PSA_Switch": ("psa", ir.PSA_ROLES)}
# the architecture's metadata the target reads and writes, by (role, parameter position):
# a program that declares these structs itself must keep these fields
_V1MODEL_SM = ("ingress_port", "egress_spec", "egress_port", "instance_type",
               "packet_length", "enq_timestamp", "ingress_global_timestamp",
               "egress_global_timestamp", "mcast_grp", "egress_rid", "checksum_error",
               "parser_error", "priority")
ARCH_FIELDS = {
    "v1model": {("ingress", 2): _V1MODEL_SM, ("egress", 2): _V1MODEL_SM},
    "psa": {("ingress_parser", 3): ("ingress_port", "packet_path"),
            ("ingress", 2): ("ingress_port", "packet_path", "ingress_timestamp",
                             "parser_error"),
            ("ingress", 3): ("class_of_service", "clone", "clone_session_id", "drop",
                             "resubmit", "multicast_group", "egress_port"),
            ("egress_parser", 3): ("egress_port", "packet_path"),
            ("egress", 2): ("class_of_service", "egress_port", "packet_path", "instance",
                            "egress_timestamp", "parser_error"),
            ("egress", 3): ("clone", "clone_session_id", "drop"),
            ("egress_deparser", 6): ("egress_port",)},
}



@dataclass
class BlockCtx:
    """What one package block (with its inlined sub-controls) collects while lowered."""
    prefix: str
    used: set = field(default_factory=set)
    locals: list = field(default_factory=list)
    instances: list = field(default_factory=list)
    actions: dict = field(default_factory=dict)
    tables: dict = field(default_factory=dict)
    value_sets: list = field(default_factory=list)
    var_syms: dict = field(default_factory=dict)
    in_subcontrol: int = 0            # nesting depth of inlined sub-controls
    in_sub_apply: bool = False        # lowering an inlined sub-control's apply block
    in_parser: bool = False
    packet: VarSym | None = None      # the parser's packet_in parameter

    def fresh(self, name: str) -> str:
        if name not in self.used:
            self.used.add(name)
            return name
        i = 1
        while f"{name}_{i}" in self.used:
            i += 1
        self.used.add(f"{name}_{i}")
        return f"{name}_{i}"


class Blocks:
    """Mixin of ``Lowering``: the package and its blocks."""
    # ------------------------------------------------------------------ package
    def instantiate_package(self, t):
        """The ``main`` package: its parsers and controls (nested packages such as PSA's
        IngressPipeline flattened, in order) lowered under the roles of its architecture."""
        ctor = t.children[1]
        pname = str(ctor.children[0].children[0])
        if pname not in PACKAGES:
            self.err(f"unsupported: package {pname}; this target implements v1model's "
                     "V1Switch and PSA's PSA_Switch", ctor)
        self.package = pname
        self.package_loc = self.loc(t)
        self.arch, roles = PACKAGES[pname]
        leaves = list(self._package_blocks(self.block_decls[pname], self.arg_trees(t.children[2]),
                                           {}, t))
        used = {}
        bindings: dict = {}
        for role, (psig, want, arg, names) in zip(roles, leaves):
            decl, ctor_args = self._package_arg(arg)
            if decl.kind != want.kind:
                self.err(f"argument '{psig.name}' of {pname} must be a {want.kind}, "
                         f"{decl.name} is a {decl.kind}", arg)
            if len(decl.params) != len(want.params):
                self.err(f"{decl.name} is used as {pname}'s {psig.name} ({want.name}), which has "
                         f"{len(want.params)} parameters; {decl.name} has {len(decl.params)}",
                         arg)
            self._check_block_params(decl, want, bindings, names)
            if decl.name in used:
                # one IR block serves both roles; only sound when it keeps no state
                ctl = self.controls[decl.name]
                if ctl.tables or ctl.instances or ctor_args or used[decl.name][1]:
                    self.err(f"unsupported: {decl.name} used twice in {pname} with tables, "
                             "extern instances or constructor arguments; declare a second "
                             "control for one of the roles", arg)
                self.blocks[role] = decl.name
                continue
            used[decl.name] = (role, bool(ctor_args))
            self.blocks[role] = decl.name
            if decl.kind == "parser":
                self.parsers[decl.name] = self.lower_parser(decl, ctor_args, arg)
            else:
                self.controls[decl.name] = self.lower_control(decl, ctor_args, arg)
        self._check_arch_metadata()

    def _check_arch_metadata(self):
        """The target reads and writes the architecture's metadata by field name; a
        program that declares those types itself (its own copy of v1model.p4) must keep
        the fields, or the target would fail on the first packet."""
        blocks = {**self.parsers, **self.controls}
        include = "v1model.p4" if self.arch == "v1model" else "psa.p4"
        for (role, index), names in ARCH_FIELDS[self.arch].items():
            param = blocks[self.blocks[role]].params[index]
            fields = {f.name for f in getattr(param.type, "fields", ())}
            missing = [n for n in names if n not in fields]
            if missing:
                self.err(f"parameter '{param.name}' has type {show(param.type)}, which lacks "
                         f"the field{'s' if len(missing) > 1 else ''} {', '.join(missing)} "
                         f"that the {self.arch} target sets and reads; declare the type as "
                         f"{include} does", param.loc)
        path = self.types.get("PSA_PacketPath_t")
        if self.arch == "psa" and isinstance(path, ir.EnumT):
            missing = [m for m in ir.PSA_PATHS if m not in path.members]
            if missing:
                self.err(f"enum PSA_PacketPath_t lacks {', '.join(missing)}, which the psa "
                         "target gives packets; declare it as psa.p4 does",
                         blocks[self.blocks["ingress"]].params[2].loc)

    def _package_blocks(self, pdecl, args, names: dict, node):
        """(parameter, block type, argument, type parameter names) per parser or control
        of package ``pdecl`` given ``args``, nested packages' blocks in their place. The
        names map each block type's type parameters (Ingress's H) to the outermost
        package's (PSA_Switch's IH), so the blocks that share one are checked together.
        Extern arguments (PSA's PacketReplicationEngine()) are checked and skipped.
        Named arguments (``V1Switch(p = P(), ...)``) are put in parameter order."""
        args = self.align_args(pdecl.params, args, node, pdecl.name)
        if len(args) != len(pdecl.params):
            self.err(f"{pdecl.name} takes {len(pdecl.params)} arguments, {len(args)} given", node)
        for psig, arg in zip(pdecl.params, args):
            base = str(self._base_type_name(psig.type_tree))
            if base in self.externs:
                if not (isinstance(arg, Tree) and arg.data == "ctor_call"
                        and str(arg.children[0].children[0].children[0]) == base):
                    self.err(f"argument '{psig.name}' of {pdecl.name} must be {base}()", arg)
                continue
            want = self.block_decls[base]
            inner = self._type_arg_names(psig.type_tree)
            sub = {tp: names.get(n, n) for tp, n in zip(want.type_params, inner) if n}
            if want.kind != "package":
                yield psig, want, arg, sub
                continue
            decl, ctor_args = self._package_arg(arg)
            if decl.name != want.name:
                self.err(f"argument '{psig.name}' of {pdecl.name} must be a {want.name}, "
                         f"not {decl.name}", arg)
            yield from self._package_blocks(want, ctor_args, sub, arg)

    @staticmethod
    def _type_arg_names(type_tree) -> list:
        """The names of a specialized type's arguments (None where one is not a name)."""
        if type_tree.data != "specialized_type":
            return []
        return [str(a.children[0]) if isinstance(a, Tree) and a.data == "type_name" else None
                for a in type_tree.children[2].children]

    def _check_block_params(self, decl, want, bindings: dict, names: dict):
        """A block's parameters must match the package's block type (v1model's Ingress<H, M>
        ...): same directions and types, with a type parameter of the package (``names``
        maps the block type's to the package's) the same type in every block."""
        for p, w in zip(decl.params, want.params):
            typ = self.resolve_type(p.type_tree, {})
            if p.direction != w.direction:
                self.err(f"{decl.name}: parameter '{p.name}' must be "
                         f"{w.direction or 'directionless'} (as in {want.name}), not "
                         f"{p.direction or 'directionless'}", p.type_tree)
            generic = want.type_params
            wname = str(w.type_tree.children[0]) if w.type_tree.data == "type_name" else None
            if wname in generic:
                wname = names.get(wname, wname)
                if wname in bindings and bindings[wname][0] != typ:
                    self.err(f"{decl.name}: parameter '{p.name}' has type {show(typ)}, but "
                             f"{bindings[wname][1]} uses {show(bindings[wname][0])}", p.type_tree)
                bindings.setdefault(wname, (typ, decl.name))
                continue
            wtype = self.resolve_type(w.type_tree, {})
            if typ != wtype:
                self.err(f"{decl.name}: parameter '{p.name}' must have type {show(wtype)} "
                         f"(as in {want.name}), not {show(typ)}", p.type_tree)

    def _base_type_name(self, type_tree):
        t = type_tree
        if t.data == "specialized_type":
            t = t.children[0]
        return t.children[0]

    def _package_arg(self, arg):
        if isinstance(arg, Tree) and arg.data == "ctor_call":
            tname = str(arg.children[0].children[0].children[0])
            decl = self.block_decls.get(tname)
            if decl is None or (decl.tree is None and decl.kind != "package"):
                self.err(f"'{tname}' is not a parser or control declared in this program", arg)
            return decl, self.arg_trees(arg.children[1])
        if isinstance(arg, Tree) and arg.data == "var":
            sym = self.global_scope.lookup(name_of(arg.children[0]))
            if isinstance(sym, TopInstanceSym):
                return sym.decl, sym.args
        self.err("a package argument must be a parser or control instance, e.g. MyIngress()",
                 arg)

    def bind_ctor_params(self, decl, ctor_args, scope, node, arg_scope=None):
        """Bind a block's constructor parameters in ``scope`` to ``ctor_args``, evaluated in
        ``arg_scope``: the instantiating block's (its own constructor parameters and
        constants are in reach), or the global scope for the package's blocks."""
        ctor_args = self.align_args(decl.ctor_params, ctor_args, node, decl.name)
        if len(ctor_args) != len(decl.ctor_params):
            self.err(f"{decl.name} takes {len(decl.ctor_params)} constructor arguments, "
                     f"{len(ctor_args)} given", node)
        for p, a in zip(decl.ctor_params, ctor_args):
            typ = self.resolve_type(p.type_tree, {})
            e = self.expr(a, arg_scope or self.global_scope, typ)
            if not isinstance(e, (ir.Const, ir.EnumConst, ir.ErrorConst, ir.StringLit)):
                self.err(f"constructor argument '{p.name}' must be a compile-time constant", a)
            scope.names[p.name] = ConstSym(e)

    def block_params(self, decl, scope, ctx, rename: bool):
        out = []
        for p in decl.params:
            typ = self.resolve_type(p.type_tree, {})
            uname = ctx.fresh(p.name) if rename else p.name
            if not rename:
                ctx.used.add(p.name)
            direction = p.direction
            writable = direction in ("out", "inout")
            vs = VarSym(uname, typ, writable, direction)
            ctx.var_syms[uname] = vs
            scope.names[p.name] = vs
            out.append(ir.Param(uname, direction, typ, self.loc(p.type_tree)))
        return out


    def lower_parser(self, decl, ctor_args, node) -> ir.Parser:
        t = decl.tree
        self.lowered.add(decl.name)
        if decl.type_params:
            self.err("unsupported: generic parser declarations", t.children[2])
        ctx = BlockCtx(prefix=decl.name, in_parser=True,
                       instances=list(self.global_instances))
        scope = Scope(self.global_scope)
        self.bind_ctor_params(decl, ctor_args, scope, node)
        params = self.block_params(decl, scope, ctx, rename=False)
        ctx.packet = next((ctx.var_syms[p.name] for p in params
                           if p.type == ir.ExternT("packet_in")), None)
        saved = self.var_syms
        self.var_syms = ctx.var_syms
        states_t = [c for c in t.children[5:] if isinstance(c, Tree) and c.data == "parser_state"]
        locals_t = [c for c in t.children[5:] if isinstance(c, Tree) and c.data != "parser_state"]
        for lt in locals_t:
            self.block_local(lt, scope, ctx, "parser")
        states = self.parser_states(states_t, scope, ctx, t)
        self.var_syms = saved
        return ir.Parser(decl.name, params, ctx.locals, ctx.instances, ctx.value_sets, states,
                         self.loc(t), annotations_of(t.children[0]))

    def lower_control(self, decl, ctor_args, node) -> ir.Control:
        t = decl.tree
        self.lowered.add(decl.name)
        if decl.type_params:
            self.err("unsupported: generic control declarations", t.children[2])
        ctx = BlockCtx(prefix=decl.name, instances=list(self.global_instances))
        scope = Scope(self.global_scope)
        self.bind_ctor_params(decl, ctor_args, scope, node)
        params = self.block_params(decl, scope, ctx, rename=False)
        self._reserve_action_params(t, ctx)
        saved = self.var_syms
        self.var_syms = ctx.var_syms
        body = self.control_body(t, scope, ctx)
        self.var_syms = saved
        return ir.Control(decl.name, params, ctx.locals, ctx.instances, ctx.actions, ctx.tables,
                          body, self.loc(t), annotations_of(t.children[0]))

    def _reserve_action_params(self, t, ctx):
        """Action parameters keep their source names (P4Info uses them), so block-level
        variables are renamed around them instead."""
        for c in t.iter_subtrees():
            if c.data == "action_decl":
                for p in self.param_sigs(c.children[2]):
                    ctx.used.add(p.name)

    def control_body(self, t, scope, ctx, inlined: bool = False) -> ir.Block:
        """Lower a control's locals and return its apply block."""
        kids = t.children[5:]
        apply_at = next(i for i, c in enumerate(kids) if isinstance(c, Token) and c.type == "APPLY")
        for lt in kids[:apply_at]:
            self.block_local(lt, scope, ctx, "control")
        saved, ctx.in_sub_apply = ctx.in_sub_apply, inlined
        body = self.block(kids[apply_at + 1], scope, ctx)
        ctx.in_sub_apply = saved
        return body

    def block_local(self, t, scope, ctx, kind: str):
        if t.data == "const_decl":
            self._d_const_decl(t, scope)
        elif t.data == "var_decl":
            ctx.locals.append(self.var_decl(t, scope, ctx))
        elif t.data == "instantiation":
            self.instantiation(t, scope, ctx, kind)
        elif t.data == "action_decl":
            action = self.action(t, scope, ctx, ctx.prefix)
            ctx.actions[action.name] = action
        elif t.data == "table_decl":
            table = self.table(t, scope, ctx)
            ctx.tables[table.name] = table
        elif t.data == "value_set_decl":
            self.value_set(t, scope, ctx)
        else:
            self.err(f"unsupported: {t.data.replace('_', ' ')} in a {kind}", t)

    def qualified(self, prefix, local: str, annos) -> str:
        a = ir.annotation(annos, "name")
        if a is not None and a.body:
            n = str(a.body[0])
            if n.startswith("."):
                return n[1:]
            local = n
        return f"{prefix}.{local}" if prefix else local

    def value_set(self, t, scope, ctx):
        annos = annotations_of(t.children[0])
        typ = self.resolve_type(t.children[2], {})
        size = self.const_int(t.children[4], scope, "the size of a value_set")
        local = name_of(t.children[5])
        vs = ir.ValueSet(self.qualified(ctx.prefix, local, annos), local, typ, size,
                         self.loc(t), annos)
        ctx.value_sets.append(vs)
        self.declare(scope, local, ValueSetSym(vs), t.children[5])

    def instantiation(self, t, scope, ctx, kind):
        ctor = t.children[1]
        tname = str(ctor.children[0].children[0])
        local = name_of(t.children[3])
        args = self.arg_trees(t.children[2])
        if tname in self.externs:
            sym = self.extern_instance(t, scope, ctx.prefix)
            ctx.instances.append(sym.inst)
            self.declare(scope, local, sym, t.children[3])
            return
        decl = self.block_decls.get(tname)
        if decl is not None and decl.tree is not None:
            if decl.kind != kind:
                self.err(f"a {kind} can only instantiate {kind}s here; {tname} is a {decl.kind}",
                         t)
            if kind == "parser":
                sub = self.inline_parser(decl, args, local, ctx, t, scope)
            else:
                sub = self.inline_control(decl, args, local, ctx, t, scope)
            self.declare(scope, local, sub, t.children[3])
            return
        self.err(f"unknown type '{tname}'; cannot instantiate it", ctor)

    def extern_instance(self, t, scope, prefix: str) -> InstanceSym:
        """An extern instance from ``T<type args>(ctor args) name;``."""
        annos = annotations_of(t.children[0])
        ctor = t.children[1]
        tname = str(ctor.children[0].children[0])
        local = name_of(t.children[3])
        args = self.arg_trees(t.children[2])
        decl = self.externs[tname]
        type_args = ()
        if len(ctor.children) > 1:
            type_args = tuple(self.resolve_type(a, {}) for a in ctor.children[2].children)
        if len(type_args) != len(decl.type_params):
            self.err(f"{tname} takes {len(decl.type_params)} type argument"
                     f"{'s' if len(decl.type_params) != 1 else ''}, {len(type_args)} given",
                     ctor)
        if not decl.ctors:
            self.err(f"extern {tname} has no constructor; it cannot be instantiated", ctor)
        sig = self._pick_overload(decl.ctors, len(args), tname, t)
        tenv = dict(zip(decl.type_params, type_args))
        cargs = []
        for p, a in zip(sig.params, args):
            ptype = self.resolve_type(p.type_tree, tenv)
            e = self.expr(a, scope, ptype)
            if not isinstance(e, (ir.Const, ir.EnumConst, ir.StringLit, ir.ErrorConst)):
                self.err(f"constructor argument '{p.name}' of {tname} must be a "
                         "compile-time constant", a)
            cargs.append(e)
        inst = ir.Instance(self.qualified(prefix, local, annos), local, tname,
                           list(type_args), cargs, self.loc(t), annos)
        return InstanceSym(inst, decl, type_args)

    def inline_parser(self, decl, ctor_args, local, ctx, node, arg_scope=None):
        """Lower a sub-parser's states (spliced into the caller at each apply)."""
        t = decl.tree
        self.lowered.add(decl.name)
        scope = Scope(self.global_scope)
        self.bind_ctor_params(decl, ctor_args, scope, node, arg_scope)
        params = []
        for p in decl.params:
            typ = self.resolve_type(p.type_tree, {})
            if typ == ir.ExternT("packet_in"):
                if ctx.packet is None:
                    self.err("the calling parser has no packet_in parameter", node)
                scope.names[p.name] = ctx.packet
                params.append((ctx.packet, p.direction))
                continue
            vs = VarSym(ctx.fresh(f"{local}_{p.name}"), typ, p.direction in ("out", "inout"),
                        p.direction)
            ctx.var_syms[vs.name] = vs
            scope.names[p.name] = vs
            ctx.locals.append(ir.VarDecl(self.loc(p.type_tree), vs.name, typ))
            params.append((vs, p.direction))
        saved_prefix = ctx.prefix
        ctx.prefix = f"{ctx.prefix}.{local}"
        states_t = [c for c in t.children[5:] if isinstance(c, Tree) and c.data == "parser_state"]
        for lt in t.children[5:]:
            if isinstance(lt, Tree) and lt.data != "parser_state":
                self.block_local(lt, scope, ctx, "parser")
        states = self.parser_states(states_t, scope, ctx, t)
        ctx.prefix = saved_prefix
        return SubParserSym(f"{ctx.prefix}.{local}", local, params, states)

    def inline_control(self, decl, ctor_args, local, ctx, node, arg_scope=None):
        """Lower a sub-control into the enclosing block under ``prefix.local``."""
        t = decl.tree
        self.lowered.add(decl.name)
        if ctx.in_subcontrol > 16:
            self.err(f"control {decl.name} instantiates itself", node)
        sub_ctx_prefix = f"{ctx.prefix}.{local}"
        scope = Scope(self.global_scope)
        self.bind_ctor_params(decl, ctor_args, scope, node, arg_scope)
        params = self.block_params(decl, scope, ctx, rename=True)
        for p in params:
            ctx.locals.append(ir.VarDecl(p.loc, p.name, p.type))
        saved_prefix = ctx.prefix
        ctx.prefix = sub_ctx_prefix
        ctx.in_subcontrol += 1
        self._reserve_action_params(t, ctx)
        body = self.control_body(t, scope, ctx, inlined=True)
        ctx.in_subcontrol -= 1
        ctx.prefix = saved_prefix
        if _may_return(body):
            flag = ir.Var(ir.BoolT(), body.loc, ctx.fresh(f"{local}_returned"))
            ctx.locals.append(ir.VarDecl(body.loc, flag.name, flag.type))
            body = ir.Block(body.loc, [ir.Assign(body.loc, flag, _bool(False, body.loc)),
                                       *_without_returns(body.stmts, flag, False)])
        return SubBlockSym(sub_ctx_prefix, [(ctx.var_syms[p.name], p.direction) for p in params],
                           body)

    # ------------------------------------------------------------------ actions
    def action(self, t, scope, ctx, prefix) -> ir.Action:
        annos = annotations_of(t.children[0])
        local = name_of(t.children[1])
        name = self.qualified(prefix, local, annos)
        ascope = Scope(scope)
        params = []
        seen_data = False
        for p_tree in (t.children[2].children if t.children[2] is not None else []):
            if p_tree is None:
                continue
            pannos = annotations_of(p_tree.children[0])
            direction = str(p_tree.children[1].children[0]) if p_tree.children[1] else ""
            typ = self.resolve_type(p_tree.children[2], {})
            pname = name_of(p_tree.children[3])
            if direction and seen_data:
                self.err(f"action {local}: directional parameter '{pname}' must come before "
                         "the directionless (action data) parameters", p_tree)
            seen_data = seen_data or not direction
            if ascope.local(pname) is not None:
                self.err(f"duplicate parameter '{pname}'", p_tree.children[3])
            vs = VarSym(pname, typ, direction in ("out", "inout"), direction)
            ctx.var_syms.setdefault(pname, vs)
            ascope.names[pname] = vs
            params.append(ir.Param(pname, direction, typ, self.loc(p_tree), pannos))
        action = ir.Action(name, local, params, ir.Block(self.loc(t), []), self.loc(t), annos)
        self.declare(scope, local, ActionSym(action), t.children[1])
        saved = dict(ctx.var_syms)
        for p in params:
            ctx.var_syms[p.name] = ascope.names[p.name]
        action.body = self.block(t.children[3], ascope, ctx)
        for p in params:
            if p.name in saved:
                ctx.var_syms[p.name] = saved[p.name]
        return action


# ``return`` in an inlined sub-control's apply block ends that block, not the caller's: a
# flag set by the return guards what follows it, as p4c's RemoveReturns pass does
def _may_return(st) -> bool:
    if isinstance(st, ir.Return):
        return True
    if isinstance(st, ir.Block):
        return any(_may_return(x) for x in st.stmts)
    if isinstance(st, ir.If):
        return _may_return(st.then) or (st.other is not None and _may_return(st.other))
    if isinstance(st, ir.Switch):
        return any(c.body is not None and _may_return(c.body) for c in st.cases)
    if isinstance(st, ir.For):
        return _may_return(st.body)
    return False


def _bool(value: bool, loc) -> ir.Const:
    return ir.Const(ir.BoolT(), loc, int(value))


def _without_returns(stmts: list, flag: ir.Var, in_loop: bool) -> list:
    """``stmts`` with each return setting ``flag``: in a loop the loop ends there (break,
    and after an inner loop that returned, ``if (flag) break;``); elsewhere what follows
    runs only while ``flag`` is false."""
    out = []
    for i, st in enumerate(stmts):
        out.append(_rewritten(st, flag, in_loop))
        if isinstance(st, ir.Return):
            break                                  # what follows it never runs
        rest = stmts[i + 1:]
        if rest and _may_return(st):
            if in_loop:
                out.append(ir.If(st.loc, flag, ir.Break(st.loc)))
                continue
            guard = ir.Unary(ir.BoolT(), st.loc, "!", flag)
            out.append(ir.If(st.loc, guard, ir.Block(st.loc,
                                                    _without_returns(rest, flag, in_loop))))
            break
    return out


def _rewritten(st, flag: ir.Var, in_loop: bool):
    if not _may_return(st):
        return st
    if isinstance(st, ir.Return):
        done = ir.Assign(st.loc, flag, _bool(True, st.loc))
        return ir.Block(st.loc, [done, ir.Break(st.loc)]) if in_loop else done
    if isinstance(st, ir.Block):
        return ir.Block(st.loc, _without_returns(st.stmts, flag, in_loop))
    if isinstance(st, ir.If):
        other = _rewritten(st.other, flag, in_loop) if st.other is not None else None
        return ir.If(st.loc, st.cond, _rewritten(st.then, flag, in_loop), other)
    if isinstance(st, ir.Switch):
        cases = [ir.SwitchCase(c.labels, _rewritten(c.body, flag, in_loop)
                               if c.body is not None else None) for c in st.cases]
        return ir.Switch(st.loc, st.expr, cases)
    # a loop: the return leaves it (break), and the guard skips the rest after it
    return ir.For(st.loc, st.init, st.cond, st.update, _rewritten(st.body, flag, True))
