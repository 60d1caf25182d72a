"""P4_16 frontend for v1model and PSA: source -> preprocessed text -> syntax tree -> typed IR.

``load_program``/``load_source`` are the entry points. The lowering resolves names and
types, folds constants, instantiates the ``main`` package's parser and controls (inlining
sub-parsers and sub-controls under fully-qualified names, as p4c names them for P4Info)
and reports every problem as a ``P4Error`` at its original file:line:col.
"""
from __future__ import annotations

import re

from lark import Token, Tree

from testbed.errors import P4Error
from testbed.p4 import ir
from testbed.p4.frontend.parser import parse
from testbed.p4.frontend.preprocess import Preprocessed, preprocess_file, preprocess_text
from testbed.p4.lowering.blocks import Blocks
from testbed.p4.lowering.declarations import Declarations
from testbed.p4.lowering.expressions import Expressions
from testbed.p4.lowering.loops import Loops
from testbed.p4.lowering.statements import Statements
from testbed.p4.lowering.symbols import Scope
from testbed.p4.lowering.syntax import name_of


def load_program(path, include_dirs=(), defines=None) -> ir.Program:
    """Parse and check the P4_16 program in ``path``; raise P4Error on any problem (one
    that belongs to no line, such as a missing ``main``, is placed at the file's start)."""
    try:
        return lower_preprocessed(preprocess_file(path, include_dirs, defines), str(path))
    except P4Error as e:
        if e.loc is not None:
            raise
        raise P4Error(e.message, ir.Loc(str(path), 1, 1)) from None


def lower_preprocessed(pre: Preprocessed, source: str) -> ir.Program:
    """The program of preprocessed text; ``source`` names it in diagnostics."""
    return Lowering(pre, source).program(parse(pre))


def load_source(text: str, filename: str = "<source>", include_dirs=(), defines=None) -> ir.Program:
    """Same as load_program for source text; ``filename`` is used in diagnostics."""
    return lower_preprocessed(preprocess_text(text, filename, include_dirs, defines), filename)


class Lowering(Declarations, Blocks, Expressions, Statements, Loops):
    """The syntax tree of one program lowered to the IR in one walk, by ``program``:

    1. the top-level declarations in source order (``declarations``): types, constants,
       externs, functions and actions become IR; parsers and controls are recorded;
    2. the package ``main`` (``blocks``): its parser and controls are lowered with
       the arguments it gives them, sub-parsers and sub-controls inlined;
    3. the parsers and controls it does not use (and that need no constructor or type
       arguments) are checked too, and their IR dropped.

    Statements (``statements``, loops and compound assignments in ``loops``) and
    expressions (``expressions``) are lowered where the walk meets them. Names, types and
    constants are resolved in the same walk, not in passes of their own: P4 declares
    before it uses, and a width or a stack size is a constant expression that a type
    needs, so each is known when it is reached. The five mixins are parts of this walk
    that call one another and share its symbol tables.
    """

    def __init__(self, pre: Preprocessed, source: str):
        self.pre = pre
        self.source = source
        self.types: dict = {}
        self.generic_types: dict = {}   # name -> declaration tree of a generic struct/header
        self.specialized: dict = {}     # (name, type arguments) -> the specialized type
        self.externs: dict = {}
        self.block_decls: dict = {}
        self.error_names: list = []
        self.match_kinds: list = []
        self.constants: dict = {}
        self.functions: dict = {}
        self.actions: dict = {}
        self.global_scope = Scope()
        self.digests: list = []
        self.new_types: dict = {}
        self.parsers: dict = {}
        self.controls: dict = {}
        self.var_syms: dict = {}
        self.type_env: dict = {}        # type parameters of the generic function lowered
        self.package = None
        self.package_loc = None
        self.arch = None
        self.package_instances: list = []   # package instances other than main
        self.blocks: dict = {}
        self.lowered: set = set()        # parser/control declarations lowered at least once
        self.global_instances: list = []  # top-level extern instances

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

    # ------------------------------------------------------------------ program
    def program(self, tree: Tree) -> ir.Program:
        main = None
        for decl in tree.children:
            if decl.data == "instantiation" and self._is_package(decl) \
                    and name_of(decl.children[3]) == "main":
                if main is not None:
                    self.err("a program has one package instance named 'main'; rename or "
                             "remove this one", decl)
                main = decl
                continue
            self.declaration(decl)
        if main is None:
            if self.package_instances:
                self.err("the package instance must be named 'main'",
                         self.package_instances[0].children[3])
            self.err("no package instantiation; add e.g. V1Switch(MyParser(), ...) main;", None)
        self.instantiate_package(main)
        self._check_unused_blocks()
        controller_headers = [t for t in self.types.values() if isinstance(t, ir.HeaderT)
                              and ir.annotation(t.annotations, "controller_header")]
        return ir.Program(
            source=self.source, arch=self.arch, types=self.types, errors=self.error_names,
            match_kinds=self.match_kinds, constants=self.constants, functions=self.functions,
            actions=self.actions, parsers=self.parsers, controls=self.controls,
            package=self.package, blocks=self.blocks, digests=self.digests,
            controller_headers=controller_headers, new_types=self.new_types,
            package_loc=self.package_loc)

    def _check_unused_blocks(self):
        """Type-check parsers and controls the package does not use, so their errors are
        reported too; their IR is discarded."""
        digests = list(self.digests)
        for decl in list(self.block_decls.values()):
            if decl.tree is None or decl.name in self.lowered or decl.ctor_params or \
                    decl.type_params:
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

