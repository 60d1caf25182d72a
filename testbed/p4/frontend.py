"""P4_16 frontend for v1model: source -> preprocessed text -> syntax tree -> typed IR.

``load_program``/``load_source`` are the entry points. The lowering resolves names and
types, folds constants, instantiates the ``main`` package's parser and controls (inlining
sub-controls under fully-qualified names, as p4c names them for P4Info) and reports every
problem as a ``P4Error`` at its original file:line:col.
"""
from __future__ import annotations

import copy
import re
from dataclasses import dataclass, field
from pathlib import Path

from lark import Token, Tree

from testbed.errors import P4Error
from testbed.p4 import ir
from testbed.p4.lower_expr import Expressions, parse_int
from testbed.p4.p4types import BlockT, show
from testbed.p4.parser import parse
from testbed.p4.preprocess import Preprocessed, preprocess_file, preprocess_text
from testbed.p4.lower_stmt import Statements
from testbed.p4.symbols import (ActionSym, BlockDeclSym, ConstSym, ExternDecl, ExternFuncSym,
                                FunctionSym, InstanceSym, ParamSig, Scope, Sig, SubBlockSym,
                                SubParserSym, TopInstanceSym, ValueSetSym, VarSym)

V1SWITCH_ROLES = ("parser", "verify_checksum", "ingress", "egress", "compute_checksum",
                  "deparser")


def load_program(path, include_dirs=(), defines=None) -> ir.Program:
    """Parse and check the P4_16 program in ``path``; raise P4Error on any problem."""
    pre = preprocess_file(path, include_dirs, defines)
    return Lowering(pre, str(path)).program(parse(pre))


def load_source(text: str, filename: str = "<source>", include_dirs=(), defines=None) -> ir.Program:
    pre = preprocess_text(text, filename, include_dirs, defines)
    return Lowering(pre, filename).program(parse(pre))


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


def _opt(children, i):
    return children[i] if i < len(children) else None


class Lowering(Expressions, Statements):
    def __init__(self, pre: Preprocessed, source: str):
        self.pre = pre
        self.source = source
        self.types: dict = {}
        self.externs: dict = {}
        self.block_decls: dict = {}
        self.error_names: list = []
        self.match_kinds: list = []
        self.constants: dict = {}
        self.functions: dict = {}
        self.actions: dict = {}
        self.global_scope = Scope()
        self.digests: list = []
        self.parsers: dict = {}
        self.controls: dict = {}
        self.var_syms: dict = {}
        self.package = None
        self.blocks: dict = {}
        self.lowered: set = set()        # parser/control declarations lowered at least once

    # ------------------------------------------------------------------ diagnostics
    def loc(self, node) -> ir.Loc:
        if isinstance(node, ir.Loc):
            return node
        if isinstance(node, Token):
            if node.line is None:
                return ir.Loc(self.source, 1, 1)
            return self.pre.loc(node.line, node.column)
        if isinstance(node, Tree):
            if not node.meta.empty:
                return self.pre.loc(node.meta.line, node.meta.column)
            for c in node.children:
                if c is not None:
                    return self.loc(c)
        return ir.Loc(self.source, 1, 1)

    def err(self, message: str, node):
        """Raise a P4Error at node (a syntax tree, token or ir.Loc)."""
        loc = self.loc(node) if node is not None else None
        raise P4Error(message, loc, self.pre.source_line(loc) if loc else None)

    def source_text(self, node) -> str:
        text = self.pre.text[node.meta.start_pos:node.meta.end_pos]
        return re.sub(r"\s+", " ", text).strip()

    def name_of(self, t) -> str:
        if isinstance(t, Tree):
            return str(t.children[0])
        return str(t)

    def annotations(self, t) -> tuple:
        if t is None:
            return ()
        out = []
        for a in t.children:
            name = str(a.children[0])
            body = a.children[1]
            values = []
            if body is not None:
                for tok in body.items:
                    if tok.type == "STRING":
                        values.append(str(tok)[1:-1])
                    elif tok.type == "INTEGER":
                        values.append(int(str(tok).replace("_", ""), 0)
                                      if str(tok).isdigit() or str(tok).lower().startswith("0x")
                                      else str(tok))
                    elif str(tok) != ",":
                        values.append(str(tok))
            out.append(ir.Annotation(name, tuple(values)))
        return tuple(out)

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
            if name in self.types:
                return self.types[name]
            if name in self.externs:
                return ir.ExternT(name)
            if name in self.block_decls:
                d = self.block_decls[name]
                return BlockT(d.kind, name)
            self.err(f"unknown type '{name}'", t)
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
            return {"bit_type": ir.BitT, "int_type": ir.IntT, "varbit_type": ir.VarbitT}[kind](width)
        if kind == "dontcare_type":
            self.err("unsupported: '_' as a type argument", t)
        self.err(f"unsupported: type {kind}", t)

    def _width(self, t) -> int:
        if isinstance(t, Tree) and t.data == "width_literal":
            return parse_int(str(t.children[0]))[0]
        if isinstance(t, Tree) and t.data == "width_name":
            e = self.name_ref(self.name_of(t.children[0]), t, self.global_scope)
            if not isinstance(e, ir.Const):
                self.err("a width must be a compile-time constant", t)
            return e.value
        return self.const_int(t, self.global_scope, "a width")

    # ------------------------------------------------------------------ program
    def program(self, tree: Tree) -> ir.Program:
        main = None
        for decl in tree.children:
            if decl.data == "instantiation" and self._is_package(decl):
                if main is not None:
                    self.err("a program has one package instantiation; remove this one", decl)
                main = decl
                continue
            self.declaration(decl)
        if main is None:
            self.err("no package instantiation; add e.g. V1Switch(MyParser(), ...) main;", None)
        self.instantiate_package(main)
        self._check_unused_blocks()
        controller_headers = [t for t in self.types.values() if isinstance(t, ir.HeaderT)
                              and ir.annotation(t.annotations, "controller_header")]
        return ir.Program(
            source=self.source, arch="v1model", types=self.types, errors=self.error_names,
            match_kinds=self.match_kinds, constants=self.constants, functions=self.functions,
            actions=self.actions, parsers=self.parsers, controls=self.controls,
            package=self.package, blocks=self.blocks, digests=self.digests,
            controller_headers=controller_headers)

    def _check_unused_blocks(self):
        """Type-check parsers and controls the package does not use, so their errors are
        reported too; their IR is discarded."""
        digests = list(self.digests)
        for decl in list(self.block_decls.values()):
            if decl.tree is None or decl.name in self.lowered or decl.ctor_params or \
                    getattr(decl, "type_params", ()):
                continue
            if decl.kind == "parser":
                self.lower_parser(decl, [], decl.tree)
            else:
                self.lower_control(decl, [], decl.tree)
        self.digests[:] = digests

    def _is_package(self, t) -> bool:
        name = str(t.children[1].children[0].children[0])
        d = self.block_decls.get(name)
        return d is not None and d.kind == "package"

    def declare(self, scope: Scope, name: str, sym, node):
        if scope.local(name) is not None:
            self.err(f"'{name}' is already declared in this scope; rename one of them", node)
        scope.names[name] = sym

    def declare_type(self, name: str, typ, node):
        if name in self.types or name in self.externs or name in self.block_decls:
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
        return [self.name_of(c) for c in t.children if isinstance(c, Tree) and c.data == "name"]

    def _fields(self, children, what: str) -> tuple:
        fields, seen = [], set()
        for f in children:
            annos = self.annotations(f.children[0])
            typ = self.resolve_type(f.children[1], {})
            name = self.name_of(f.children[2])
            if name in seen:
                self.err(f"duplicate field '{name}' in {what}", f.children[2])
            seen.add(name)
            fields.append(ir.Field(name, typ, annos))
        return tuple(fields)

    def _d_header_decl(self, t):
        annos, name = self.annotations(t.children[0]), self.name_of(t.children[1])
        if t.children[2] is not None:
            self.err("unsupported: generic header declarations", t.children[2])
        fields = self._fields(t.children[3:], f"header {name}")
        for f, node in zip(fields, t.children[3:]):
            ok = isinstance(f.type, (ir.BitT, ir.IntT, ir.VarbitT, ir.BoolT)) or (
                isinstance(f.type, ir.EnumT) and f.type.underlying is not None)
            if not ok:
                self.err(f"header field '{f.name}' has type {show(f.type)}; header fields must "
                         "be bit<W>, int<W>, varbit<W>, bool or a serializable enum", node)
        if sum(1 for f in fields if isinstance(f.type, ir.VarbitT)) > 1:
            self.err(f"header {name} has more than one varbit field", t)
        self.declare_type(name, ir.HeaderT(name, fields, annos), t.children[1])

    def _d_struct_decl(self, t):
        annos, name = self.annotations(t.children[0]), self.name_of(t.children[1])
        if t.children[2] is not None:
            self.err("unsupported: generic struct declarations", t.children[2])
        self.declare_type(name, ir.StructT(name, self._fields(t.children[3:], f"struct {name}"),
                                           annos), t.children[1])

    def _d_union_decl(self, t):
        name = self.name_of(t.children[1])
        if t.children[2] is not None:
            self.err("unsupported: generic header unions", t.children[2])
        fields = self._fields(t.children[3:], f"header_union {name}")
        for f, node in zip(fields, t.children[3:]):
            if not isinstance(f.type, ir.HeaderT):
                self.err(f"header_union members must be headers; '{f.name}' is {show(f.type)}",
                         node)
        self.declare_type(name, ir.UnionT(name, fields), t.children[1])

    def _d_enum_decl(self, t):
        name = self.name_of(t.children[1])
        members = self._id_list(t.children[2])
        if len(set(members)) != len(members):
            self.err(f"enum {name} has a duplicate member", t)
        self.declare_type(name, ir.EnumT(name, tuple(members)), t.children[1])

    def _d_serializable_enum_decl(self, t):
        under = self.resolve_type(t.children[1], {})
        name = self.name_of(t.children[2])
        if not isinstance(under, (ir.BitT, ir.IntT)):
            self.err(f"the underlying type of enum {name} must be bit<W> or int<W>, not "
                     f"{show(under)}", t.children[1])
        members, values = [], []
        for init in t.children[3:]:
            m = self.name_of(init.children[1])
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
        self.declare_type(self.name_of(t.children[3]), typ, t.children[3])

    def _d_const_decl(self, t, scope=None):
        scope = scope or self.global_scope
        typ = self.resolve_type(t.children[1], {})
        name = self.name_of(t.children[2])
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
            out.append(ParamSig(self.name_of(p.children[3]), direction, p.children[2],
                                p.children[4] is not None))
        return out

    def _type_params(self, t) -> tuple:
        if t is None:
            return ()
        return tuple(self.name_of(c) for c in t.children if isinstance(c, Tree))

    def _sig(self, proto, annos=()) -> Sig:
        ret_t, name_t, tp_t, params_t = proto.children
        ret = None if (isinstance(ret_t, Tree) and ret_t.data == "void_type") else ret_t
        return Sig(self.name_of(name_t), self._type_params(tp_t), self.param_sigs(params_t),
                   ret, annos)

    def _d_extern_object(self, t):
        name = str(t.children[1])
        if name in self.externs or name in self.types:
            self.err(f"type '{name}' is already declared", t.children[1])
        decl = ExternDecl(name, self._type_params(t.children[2]))
        self.externs[name] = decl
        for m in t.children[3:]:
            annos = self.annotations(m.children[0])
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
        sig = self._sig(t.children[1], self.annotations(t.children[0]))
        sym = self.global_scope.local(sig.name)
        if sym is None:
            sym = self.global_scope.names[sig.name] = ExternFuncSym([])
        elif not isinstance(sym, ExternFuncSym):
            self.err(f"'{sig.name}' is already declared", t)
        sym.overloads.append(sig)

    def _d_function_decl(self, t):
        sig = self._sig(t.children[1], self.annotations(t.children[0]))
        if sig.type_params:
            self.err("unsupported: generic functions", t.children[1])
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
        fn = ir.Function(sig.name, params, ret, ir.Block(self.loc(t), []), self.loc(t))
        self.declare(self.global_scope, sig.name, FunctionSym(fn, sig), t.children[1])
        self.functions[sig.name] = fn
        saved = self.var_syms
        self.var_syms = ctx.var_syms
        self.return_type = ret
        fn.body = self.block(t.children[2], scope, ctx)
        self.return_type = None
        self.var_syms = saved

    def _d_action_decl(self, t):
        ctx = BlockCtx(prefix="")
        action = self.action(t, self.global_scope, ctx, prefix=None)
        self.actions[action.name] = action

    # ------------------------------------------------------------------ parser/control decls
    def _block_decl(self, t, kind: str, with_body: bool):
        name = self.name_of(t.children[1])
        if name in self.block_decls or name in self.types or name in self.externs:
            self.err(f"'{name}' is already declared; rename one of them", t.children[1])
        tp = self._type_params(t.children[2])
        params = self.param_sigs(t.children[3])
        ctor = self.param_sigs(t.children[4].children[0]) if with_body else []
        self.block_decls[name] = BlockDeclSym(kind, name, t if with_body else None, params, ctor)
        self.block_decls[name].type_params = tp

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
        name = self.name_of(t.children[3])
        decl = self.block_decls.get(tname)
        if decl is not None and decl.tree is not None:
            self.declare(self.global_scope, name,
                         TopInstanceSym(decl, self.arg_trees(t.children[2])), t.children[3])
            return
        self.err(f"unsupported: top-level instance of {tname}; instantiate it inside the "
                 "control or parser that uses it", t)

    # ------------------------------------------------------------------ package
    def instantiate_package(self, t):
        ctor = t.children[1]
        pname = str(ctor.children[0].children[0])
        if pname != "V1Switch":
            self.err(f"unsupported: package {pname}; this target implements v1model's V1Switch",
                     ctor)
        if self.name_of(t.children[3]) != "main":
            self.err("the package instance must be named 'main'", t.children[3])
        self.package = pname
        pdecl = self.block_decls[pname]
        args = self.arg_trees(t.children[2])
        if len(args) != len(pdecl.params):
            self.err(f"{pname} takes {len(pdecl.params)} arguments, {len(args)} given", t)
        used = {}
        for role, psig, arg in zip(V1SWITCH_ROLES, pdecl.params, args):
            decl, ctor_args = self._package_arg(arg)
            want = self.block_decls[str(self._base_type_name(psig.type_tree))]
            if decl.kind != want.kind:
                self.err(f"argument '{psig.name}' of {pname} must be a {want.kind}, "
                         f"{decl.name} is a {decl.kind}", arg)
            if len(decl.params) != len(want.params):
                self.err(f"{decl.name} is used as {pname}'s {psig.name} ({want.name}), which has "
                         f"{len(want.params)} parameters; {decl.name} has {len(decl.params)}",
                         arg)
            if decl.name in used:
                self.err(f"unsupported: {decl.name} used twice in {pname}", arg)
            used[decl.name] = role
            self.blocks[role] = decl.name
            if decl.kind == "parser":
                self.parsers[decl.name] = self.lower_parser(decl, ctor_args, arg)
            else:
                self.controls[decl.name] = self.lower_control(decl, ctor_args, arg)
        self._check_block_types()

    def _check_block_types(self):
        """All blocks must agree on the headers and metadata types (V1Switch's H and M)."""
        first = {}
        for role in V1SWITCH_ROLES:
            name = self.blocks.get(role)
            block = self.parsers.get(name) or self.controls.get(name)
            if block is None:
                continue
            params = [p for p in block.params if not isinstance(p.type, ir.ExternT)]
            for key, p in zip(("H", "M"), params):
                if key in first and first[key][0] != p.type:
                    self.err(f"{block.name}: parameter '{p.name}' has type {show(p.type)}, but "
                             f"{first[key][1]} uses {show(first[key][0])}", p.loc)
                first.setdefault(key, (p.type, block.name))

    def _base_type_name(self, type_tree):
        t = type_tree
        if t.data == "specialized_type":
            t = t.children[0]
        return t.children[0]

    def _package_arg(self, arg):
        if isinstance(arg, Tree) and arg.data == "ctor_call":
            tname = str(arg.children[0].children[0].children[0])
            decl = self.block_decls.get(tname)
            if decl is None or decl.tree is None:
                self.err(f"'{tname}' is not a parser or control declared in this program", arg)
            return decl, self.arg_trees(arg.children[1])
        if isinstance(arg, Tree) and arg.data == "var":
            sym = self.global_scope.lookup(self.name_of(arg.children[0]))
            if isinstance(sym, TopInstanceSym):
                return sym.decl, sym.args
        self.err("a package argument must be a parser or control instance, e.g. MyIngress()",
                 arg)

    def bind_ctor_params(self, decl, ctor_args, scope, node):
        if len(ctor_args) != len(decl.ctor_params):
            self.err(f"{decl.name} takes {len(decl.ctor_params)} constructor arguments, "
                     f"{len(ctor_args)} given", node)
        for p, a in zip(decl.ctor_params, ctor_args):
            typ = self.resolve_type(p.type_tree, {})
            e = self.expr(a, self.global_scope, typ)
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
        if getattr(decl, "type_params", ()):
            self.err("unsupported: generic parser declarations", t.children[2])
        ctx = BlockCtx(prefix=decl.name)
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
                         self.loc(t), self.annotations(t.children[0]))

    def lower_control(self, decl, ctor_args, node) -> ir.Control:
        t = decl.tree
        self.lowered.add(decl.name)
        if getattr(decl, "type_params", ()):
            self.err("unsupported: generic control declarations", t.children[2])
        ctx = BlockCtx(prefix=decl.name)
        scope = Scope(self.global_scope)
        self.bind_ctor_params(decl, ctor_args, scope, node)
        params = self.block_params(decl, scope, ctx, rename=False)
        self._reserve_action_params(t, ctx)
        saved = self.var_syms
        self.var_syms = ctx.var_syms
        body = self.control_body(t, scope, ctx)
        self.var_syms = saved
        return ir.Control(decl.name, params, ctx.locals, ctx.instances, ctx.actions, ctx.tables,
                          body, self.loc(t), self.annotations(t.children[0]))

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
        annos = self.annotations(t.children[0])
        typ = self.resolve_type(t.children[2], {})
        size = self.const_int(t.children[4], scope, "the size of a value_set")
        local = self.name_of(t.children[5])
        vs = ir.ValueSet(self.qualified(ctx.prefix, local, annos), local, typ, size,
                         self.loc(t), annos)
        ctx.value_sets.append(vs)
        self.declare(scope, local, ValueSetSym(vs), t.children[5])

    def instantiation(self, t, scope, ctx, kind):
        annos = self.annotations(t.children[0])
        ctor = t.children[1]
        tname = str(ctor.children[0].children[0])
        local = self.name_of(t.children[3])
        args = self.arg_trees(t.children[2])
        if tname in self.externs:
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
            inst = ir.Instance(self.qualified(ctx.prefix, local, annos), local, tname,
                               list(type_args), cargs, self.loc(t), annos)
            ctx.instances.append(inst)
            self.declare(scope, local, InstanceSym(inst, decl, type_args), t.children[3])
            return
        decl = self.block_decls.get(tname)
        if decl is not None and decl.tree is not None:
            if decl.kind != kind:
                self.err(f"a {kind} can only instantiate {kind}s here; {tname} is a {decl.kind}",
                         t)
            if kind == "parser":
                sub = self.inline_parser(decl, args, local, ctx, t)
            else:
                sub = self.inline_control(decl, args, local, ctx, t)
            self.declare(scope, local, sub, t.children[3])
            return
        self.err(f"unknown type '{tname}'; cannot instantiate it", ctor)

    def inline_parser(self, decl, ctor_args, local, ctx, node):
        """Lower a sub-parser's states (spliced into the caller at each apply)."""
        t = decl.tree
        self.lowered.add(decl.name)
        scope = Scope(self.global_scope)
        self.bind_ctor_params(decl, ctor_args, scope, node)
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

    def inline_control(self, decl, ctor_args, local, ctx, node):
        """Lower a sub-control into the enclosing block under ``prefix.local``."""
        t = decl.tree
        self.lowered.add(decl.name)
        if ctx.in_subcontrol > 16:
            self.err(f"control {decl.name} instantiates itself", node)
        sub_ctx_prefix = f"{ctx.prefix}.{local}"
        scope = Scope(self.global_scope)
        self.bind_ctor_params(decl, ctor_args, scope, node)
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
        return SubBlockSym(sub_ctx_prefix, [(ctx.var_syms[p.name], p.direction) for p in params],
                           body)

    # ------------------------------------------------------------------ actions
    def action(self, t, scope, ctx, prefix) -> ir.Action:
        annos = self.annotations(t.children[0])
        local = self.name_of(t.children[1])
        name = self.qualified(prefix, local, annos)
        ascope = Scope(scope)
        params = []
        seen_data = False
        for p_tree in (t.children[2].children if t.children[2] is not None else []):
            if p_tree is None:
                continue
            pannos = self.annotations(p_tree.children[0])
            direction = str(p_tree.children[1].children[0]) if p_tree.children[1] else ""
            typ = self.resolve_type(p_tree.children[2], {})
            pname = self.name_of(p_tree.children[3])
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
