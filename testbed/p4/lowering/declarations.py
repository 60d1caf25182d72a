"""Declaration lowering of the frontend (mixin of ``Lowering``): types, constants, error
and match_kind members, externs, functions, top-level actions, and the parser, control
and package declarations (instantiated later by ``blocks``)."""
from __future__ import annotations

from lark import Token, Tree

from testbed.p4 import ir
from testbed.p4.frontend.p4types import BlockT, show, unknown_type
from testbed.p4.lowering.blocks import BlockCtx
from testbed.p4.lowering.expressions import parse_int
from testbed.p4.lowering.symbols import (BlockDeclSym, ConstSym, ExternDecl, ExternFuncSym,
                                         FunctionSym, GenericFunctionSym, ParamSig, Scope, Sig,
                                         TopInstanceSym,
                                         VarSym)
from testbed.p4.lowering.syntax import annotations_of, name_of


class Declarations:
    """Mixin of ``Lowering``: top-level declarations and type resolution."""
    # ------------------------------------------------------------------ types
    def resolve_type(self, t, tenv: dict):
        if isinstance(t, Token):
            self.err(f"unexpected {t}", t)
        kind = t.data
        if kind == "type_or_void":
            return self.resolve_type(t.children[0], tenv)
        if kind in ("type_name", "dot_type_name"):
            name = str(t.children[0])
            if name in tenv and kind == "type_name":
                return tenv[name]
            if name in self.type_env and kind == "type_name":
                return self.type_env[name]
            if name in self.types:
                return self.types[name]
            if name in self.generic_types:
                self.err(f"'{name}' is generic; give its type arguments, e.g. {name}<bit<8>>", t)
            if name in self.externs:
                return ir.ExternT(name)
            if name in self.block_decls:
                d = self.block_decls[name]
                return BlockT(d.kind, name)
            self.err(unknown_type(name), t)
        if kind == "specialized_type":
            base = str(t.children[0].children[0])
            args = tuple(self.resolve_type(a, tenv) for a in t.children[2].children)
            if base in self.externs:
                decl = self.externs[base]
                if len(args) != len(decl.type_params):
                    self.err(f"{base} takes {len(decl.type_params)} type argument"
                             f"{'s' if len(decl.type_params) != 1 else ''}, {len(args)} given", t)
                return ir.ExternT(base, args)
            if base in self.block_decls:
                return BlockT(self.block_decls[base].kind, base)
            if base in self.generic_types:
                return self._specialize(base, args, t)
            self.err(f"unsupported: type arguments for '{base}'", t)
        if kind == "stack_type":
            elem = self.resolve_type(t.children[0], tenv)
            if not isinstance(elem, (ir.HeaderT, ir.UnionT)):
                self.err(f"header stacks hold headers or header unions, not {show(elem)}", t)
            size = self.const_int(t.children[1], self.global_scope, "a header stack size")
            if size <= 0:
                self.err(f"header stack size must be positive, not {size}", t.children[1])
            return ir.StackT(elem, size)
        if kind == "tuple_type":
            return ir.TupleT(tuple(self.resolve_type(a, tenv) for a in t.children[1].children))
        if kind == "bool_type":
            return ir.BoolT()
        if kind == "error_type":
            return ir.ErrorT()
        if kind == "match_kind_type":
            return ir.MatchKindT()
        if kind == "string_type":
            return ir.StringT()
        if kind == "void_type":
            return ir.VoidT()
        if kind in ("bit_type", "int_type", "varbit_type"):
            if len(t.children) == 1:
                return ir.BitT(1) if kind == "bit_type" else ir.InfIntT()
            width = self._width(t.children[2])
            if width < (1 if kind != "bit_type" else 0) or (kind == "varbit_type" and width == 0):
                self.err(f"invalid width {width}", t.children[2])
            make = {"bit_type": ir.BitT, "int_type": ir.IntT, "varbit_type": ir.VarbitT}[kind]
            return make(width)
        if kind == "dontcare_type":
            self.err("unsupported: '_' as a type argument", t)
        self.err(f"unsupported: type {kind}", t)

    def _width(self, t) -> int:
        if isinstance(t, Tree) and t.data == "width_literal":
            return parse_int(str(t.children[0]))[0]
        if isinstance(t, Tree) and t.data == "width_name":
            e = self.name_ref(name_of(t.children[0]), t, self.global_scope)
            if not isinstance(e, ir.Const):
                self.err("a width must be a compile-time constant", t)
            return e.value
        return self.const_int(t, self.global_scope, "a width")


    def declare(self, scope: Scope, name: str, sym, node):
        if scope.local(name) is not None:
            self.err(f"'{name}' is already declared in this scope; rename one of them", node)
        scope.names[name] = sym

    def declare_type(self, name: str, typ, node):
        if (name in self.types or name in self.externs or name in self.block_decls
                or name in self.generic_types):
            self.err(f"type '{name}' is already declared; rename one of them", node)
        self.types[name] = typ

    def declaration(self, t):
        handler = getattr(self, "_d_" + t.data, None)
        if handler is None:
            self.err(f"unsupported: top-level {t.data.replace('_', ' ')}", t)
        handler(t)

    def _d_empty_decl(self, t):
        return

    def _d_error_decl(self, t):
        for name in self._id_list(t.children[0]):
            if name in self.error_names:
                self.err(f"error '{name}' is already declared", t)
            self.error_names.append(name)

    def _d_match_kind_decl(self, t):
        for name in self._id_list(t.children[0]):
            if name in self.match_kinds:
                self.err(f"match_kind '{name}' is already declared", t)
            self.match_kinds.append(name)
            self.global_scope.names[name] = ConstSym(
                ir.EnumConst(ir.MatchKindT(), self.loc(t), name))

    def _id_list(self, t) -> list:
        return [name_of(c) for c in t.children if isinstance(c, Tree) and c.data == "name"]

    def _fields(self, children, what: str, tenv=None) -> tuple:
        fields, seen = [], set()
        for f in children:
            annos = annotations_of(f.children[0])
            typ = self.resolve_type(f.children[1], tenv or {})
            name = name_of(f.children[2])
            if name in seen:
                self.err(f"duplicate field '{name}' in {what}", f.children[2])
            seen.add(name)
            fields.append(ir.Field(name, typ, annos))
        return tuple(fields)

    def _declare_generic(self, t) -> bool:
        """A struct, header or header union with type parameters is kept as its syntax and
        specialized where a type names it with arguments (``h_t<bit<16>>``)."""
        if t.children[2] is None:
            return False
        name = name_of(t.children[1])
        if name in self.types or name in self.generic_types or name in self.externs:
            self.err(f"type '{name}' is already declared; rename one of them", t.children[1])
        self.generic_types[name] = t
        return True

    def _specialize(self, base: str, args: tuple, node):
        """The struct/header/union ``base`` with its type parameters bound to ``args``,
        one type per distinct argument list, named ``base_N`` as p4c names its
        specializations."""
        key = (base, args)
        if key in self.specialized:
            return self.specialized[key]
        t = self.generic_types[base]
        params = self._id_list(t.children[2])
        if len(params) != len(args):
            self.err(f"{base} takes {len(params)} type argument{'s' if len(params) != 1 else ''}"
                     f", {len(args)} given", node)
        n = len(self.specialized)
        while f"{base}_{n}" in self.types:
            n += 1
        name = f"{base}_{n}"
        make = {"header_decl": self._header_type, "struct_decl": self._struct_type,
                "union_decl": self._union_type}[t.data]
        typ = make(t, name, dict(zip(params, args)))
        self.specialized[key] = typ
        self.types[name] = typ
        return typ

    def _d_header_decl(self, t):
        if not self._declare_generic(t):
            name = name_of(t.children[1])
            self.declare_type(name, self._header_type(t, name, {}), t.children[1])

    def _header_type(self, t, name: str, tenv: dict):
        annos = annotations_of(t.children[0])
        fields = self._fields(t.children[3:], f"header {name}", tenv)
        for f, node in zip(fields, t.children[3:]):
            if not (isinstance(f.type, ir.VarbitT) or _fixed_header_field(f.type)):
                self.err(f"header field '{f.name}' has type {show(f.type)}; header fields must "
                         "be bit<W>, int<W>, varbit<W>, bool, a serializable enum or a struct "
                         "of those (varbit aside)", node)
        varbits = sum(1 for f in fields if isinstance(f.type, ir.VarbitT))
        if varbits > 1:
            self.err(f"header {name} has more than one varbit field", t)
        if varbits and any(isinstance(f.type, ir.StructT) for f in fields):
            self.err(f"unsupported: header {name} has both a varbit field and a struct field",
                     t)
        return ir.HeaderT(name, fields, annos)

    def _d_struct_decl(self, t):
        if not self._declare_generic(t):
            name = name_of(t.children[1])
            self.declare_type(name, self._struct_type(t, name, {}), t.children[1])

    def _struct_type(self, t, name: str, tenv: dict):
        return ir.StructT(name, self._fields(t.children[3:], f"struct {name}", tenv),
                          annotations_of(t.children[0]))

    def _d_union_decl(self, t):
        if not self._declare_generic(t):
            name = name_of(t.children[1])
            self.declare_type(name, self._union_type(t, name, {}), t.children[1])

    def _union_type(self, t, name: str, tenv: dict):
        fields = self._fields(t.children[3:], f"header_union {name}", tenv)
        for f, node in zip(fields, t.children[3:]):
            if not isinstance(f.type, ir.HeaderT):
                self.err(f"header_union members must be headers; '{f.name}' is {show(f.type)}",
                         node)
        return ir.UnionT(name, fields)

    def _d_enum_decl(self, t):
        name = name_of(t.children[1])
        members = self._id_list(t.children[2])
        if len(set(members)) != len(members):
            self.err(f"enum {name} has a duplicate member", t)
        self.declare_type(name, ir.EnumT(name, tuple(members)), t.children[1])

    def _d_serializable_enum_decl(self, t):
        under = self.resolve_type(t.children[1], {})
        name = name_of(t.children[2])
        if not isinstance(under, (ir.BitT, ir.IntT)):
            self.err(f"the underlying type of enum {name} must be bit<W> or int<W>, not "
                     f"{show(under)}", t.children[1])
        members, values = [], []
        for init in t.children[3:]:
            m = name_of(init.children[1])
            if m in members:
                self.err(f"enum {name} has a duplicate member '{m}'", init)
            e = self.expr(init.children[2], self.global_scope, under)
            if not isinstance(e, ir.Const):
                self.err(f"value of {name}.{m} must be a compile-time constant", init.children[2])
            members.append(m)
            values.append(e.value)
        self.declare_type(name, ir.EnumT(name, tuple(members), under, tuple(values)),
                          t.children[2])

    def _d_typedef_decl(self, t):
        typ = self.resolve_type(t.children[2], {})
        name = name_of(t.children[3])
        if t.children[1].type == "TYPE":
            # a `type` checks as its base here; its name stays on bit<W> values for P4Info
            if isinstance(typ, ir.BitT):
                typ = ir.BitT(typ.width, name)
            self.new_types[name] = ir.NewType(name, typ, annotations_of(t.children[0]),
                                              self.loc(t.children[3]))
        self.declare_type(name, typ, t.children[3])

    def _d_const_decl(self, t, scope=None):
        scope = scope or self.global_scope
        typ = self.resolve_type(t.children[1], {})
        name = name_of(t.children[2])
        e = self.expr(t.children[3], scope, typ)
        if not isinstance(e, (ir.Const, ir.EnumConst, ir.ErrorConst, ir.StringLit, ir.ListExpr,
                              ir.StructInit)):
            self.err(f"the value of constant '{name}' must be known at compile time",
                     t.children[3])
        self.declare(scope, name, ConstSym(e), t.children[2])
        if scope is self.global_scope:
            self.constants[name] = e

    # ------------------------------------------------------------------ externs, functions
    def param_sigs(self, t) -> list:
        out = []
        if t is None:
            return out
        for p in t.children:
            if p is None:
                continue
            direction = str(p.children[1].children[0]) if p.children[1] is not None else ""
            optional = any(a.name == "optional" for a in annotations_of(p.children[0]))
            out.append(ParamSig(name_of(p.children[3]), direction, p.children[2],
                                p.children[4] is not None or optional, p.children[4]))
        return out

    def _type_params(self, t) -> tuple:
        if t is None:
            return ()
        return tuple(name_of(c) for c in t.children if isinstance(c, Tree))

    def _sig(self, proto, annos=()) -> Sig:
        ret_t, name_t, tp_t, params_t = proto.children
        ret = None if (isinstance(ret_t, Tree) and ret_t.data == "void_type") else ret_t
        return Sig(name_of(name_t), self._type_params(tp_t), self.param_sigs(params_t),
                   ret, annos)

    def _d_extern_object(self, t):
        name = str(t.children[1])
        if name in self.externs or name in self.types:
            self.err(f"type '{name}' is already declared", t.children[1])
        decl = ExternDecl(name, self._type_params(t.children[2]))
        self.externs[name] = decl
        for m in t.children[3:]:
            annos = annotations_of(m.children[0])
            if m.data == "constructor_proto":
                if str(m.children[1]) != name:
                    self.err(f"constructor of extern {name} must be named {name}", m.children[1])
                decl.ctors.append(Sig(name, (), self.param_sigs(m.children[2]), None, annos))
            elif m.data == "abstract_proto":
                self.err("unsupported: abstract extern methods", m)
            else:
                sig = self._sig(m.children[1], annos)
                decl.methods.setdefault(sig.name, []).append(sig)

    def _d_extern_function(self, t):
        sig = self._sig(t.children[1], annotations_of(t.children[0]))
        sym = self.global_scope.local(sig.name)
        if sym is None:
            sym = self.global_scope.names[sig.name] = ExternFuncSym([])
        elif not isinstance(sym, ExternFuncSym):
            self.err(f"'{sig.name}' is already declared", t)
        sym.overloads.append(sig)

    def _d_function_decl(self, t):
        sig = self._sig(t.children[1], annotations_of(t.children[0]))
        if sig.type_params:
            # lowered once per distinct list of type arguments, where it is called
            self.declare(self.global_scope, sig.name, GenericFunctionSym(t, sig, {}),
                         t.children[1])
            return
        self._lower_function(t, sig, sig.name, {})

    def specialize_function(self, sym, type_args: tuple):
        """The function of generic ``sym`` with its type parameters bound to
        ``type_args``, lowered at its first use under the name ``f_N``."""
        if type_args not in sym.specialized:
            n = len(sym.specialized)
            while f"{sym.sig.name}_{n}" in self.functions:
                n += 1
            saved = self.var_syms, self.return_type, self.type_env
            sym.specialized[type_args] = self._lower_function(
                sym.tree, sym.sig, f"{sym.sig.name}_{n}",
                dict(zip(sym.sig.type_params, type_args)), declare=False)
            self.var_syms, self.return_type, self.type_env = saved
        return sym.specialized[type_args]

    def _lower_function(self, t, sig, name: str, tenv: dict, declare: bool = True):
        self.type_env = tenv
        ctx = BlockCtx(prefix=sig.name)
        scope = Scope(self.global_scope)
        params = []
        for p in sig.params:
            typ = self.resolve_type(p.type_tree, {})
            if not p.direction:
                p.direction = "in"
            vs = VarSym(ctx.fresh(p.name), typ, p.direction in ("out", "inout"), p.direction)
            ctx.var_syms[vs.name] = vs
            scope.names[p.name] = vs
            params.append(ir.Param(vs.name, p.direction, typ))
        ret = ir.VoidT() if sig.ret is None else self.resolve_type(sig.ret, {})
        fn = ir.Function(name, params, ret, ir.Block(self.loc(t), []), self.loc(t))
        if declare:
            self.declare(self.global_scope, sig.name, FunctionSym(fn, sig), t.children[1])
        self.functions[name] = fn
        saved = self.var_syms
        self.var_syms = ctx.var_syms
        self.return_type = ret
        fn.body = self.block(t.children[2], scope, ctx)
        self.return_type = None
        self.var_syms = saved
        self.type_env = {}
        return fn

    def _d_action_decl(self, t):
        ctx = BlockCtx(prefix="")
        action = self.action(t, self.global_scope, ctx, prefix=None)
        self.actions[action.name] = action

    # ------------------------------------------------------------------ parser/control decls
    def _block_decl(self, t, kind: str, with_body: bool):
        name = name_of(t.children[1])
        if name in self.block_decls or name in self.types or name in self.externs:
            self.err(f"'{name}' is already declared; rename one of them", t.children[1])
        tp = self._type_params(t.children[2])
        params = self.param_sigs(t.children[3])
        ctor = self.param_sigs(t.children[4].children[0]) if with_body else []
        self.block_decls[name] = BlockDeclSym(kind, name, t if with_body else None, params, ctor,
                                              tp)

    def _d_parser_decl(self, t):
        self._block_decl(t, "parser", True)

    def _d_control_decl(self, t):
        self._block_decl(t, "control", True)

    def _d_parser_type_decl(self, t):
        self._block_decl(t, "parser", False)

    def _d_control_type_decl(self, t):
        self._block_decl(t, "control", False)

    def _d_package_decl(self, t):
        self._block_decl(t, "package", False)

    def _d_instantiation(self, t):
        ctor = t.children[1]
        tname = str(ctor.children[0].children[0])
        name = name_of(t.children[3])
        decl = self.block_decls.get(tname)
        if decl is not None and (decl.tree is not None or decl.kind == "package"):
            if decl.kind == "package":      # a part of main, e.g. PSA's IngressPipeline
                self.package_instances.append(t)
            self.declare(self.global_scope, name,
                         TopInstanceSym(decl, self.arg_trees(t.children[2])), t.children[3])
            return
        if tname in self.externs:
            # one object shared by every block (each block lists it among its instances)
            sym = self.extern_instance(t, self.global_scope, "")
            self.global_instances.append(sym.inst)
            self.declare(self.global_scope, name, sym, t.children[3])
            return
        self.err(f"unsupported: top-level instance of {tname}; instantiate it inside the "
                 "control or parser that uses it", t)


def _fixed_header_field(t) -> bool:
    """A header field type of fixed width: bit, int, bool, a serializable enum, or a
    struct (P4_16 1.2.2) whose fields are all such types."""
    if isinstance(t, ir.StructT):
        return all(_fixed_header_field(f.type) for f in t.fields)
    return isinstance(t, (ir.BitT, ir.IntT, ir.BoolT)) or (
        isinstance(t, ir.EnumT) and t.underlying is not None)
