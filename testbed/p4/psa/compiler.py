"""Python code generation for PSA programs, the v1model compiler extended by the six
blocks of PSA_Switch and PSA's externs.

``generate`` writes one function per block (``ingress_parser``, ``ingress``,
``ingress_deparser``, ``egress_parser``, ``egress``, ``egress_deparser``) and ``NEW``: per
block, the class of each parameter (None for the packet), from which
:class:`testbed.p4.psa.target.PsaTarget` builds the metadata it passes. Every parameter
but the packet is a struct or header, passed by reference.
"""
from __future__ import annotations

from testbed.p4 import ir
from testbed.p4.frontend.p4types import show
from testbed.p4.psa import externs as psa_externs
from testbed.p4.python import externs
from testbed.p4.python.compiler import Compiler
from testbed.p4.python.gen_expr import _is_composite, _mask

PSA_EXTERNS = ("Register", "Counter", "DirectCounter", "Meter", "DirectMeter", "Hash",
               "Checksum", "InternetChecksum", "Random", "Digest", "ActionProfile",
               "ActionSelector")
PSA_FUNCTIONS = ("psa_clone_i2e", "psa_resubmit", "psa_normal", "psa_clone_e2e",
                 "psa_recirculate")
PER_PACKET = ("Checksum", "InternetChecksum")
PSA_PORT_RECIRCULATE = 0xFFFFFFFA      # psa.p4's value, if a program does not define it


class PsaCompiler(Compiler):
    def x_Call(self, e, s):
        if e.kind == "extern_method" and e.extern in PSA_EXTERNS:
            return self.psa_extern_expr(e, self._inst_name(e.target, s), s)
        if e.kind == "extern_function" and e.method in PSA_FUNCTIONS:
            return self.psa_function_expr(e, s)
        return super().x_Call(e, s)

    def generate(self) -> str:
        p = self.p
        self.setup_instances()
        for fn in p.functions.values():
            self.gen_function(fn)
        blocks = {role: p.controls.get(p.blocks[role]) or p.parsers[p.blocks[role]]
                  for role in ir.PSA_ROLES}
        for role in ("ingress", "egress"):
            self.gen_control(blocks[role], role)
        for role in ("ingress_parser", "egress_parser"):
            self.gen_parser(blocks[role], role)
        for role in ("ingress_deparser", "egress_deparser"):
            self.gen_deparser(blocks[role], role)
        new = []
        for role in ir.PSA_ROLES:
            classes = []
            for prm in blocks[role].params:
                if isinstance(prm.type, ir.ExternT):
                    classes.append("None")
                elif _is_composite(prm.type) and not isinstance(prm.type, ir.StackT):
                    classes.append(self.cls(prm.type))
                else:
                    self.fail(f"{blocks[role].name}: parameter '{prm.name}' of type "
                              f"{show(prm.type)}; give it a struct type (an empty struct "
                              "when unused)", prm.loc)
            new.append(f"{role!r}: ({', '.join(classes)},)")
        self.emit(0, "NEW = {" + ", ".join(new) + "}")
        return "\n\n".join(self.class_src) + "\n\n" + "\n".join(self.lines) + "\n"

    def runtime_namespace(self) -> dict:
        return {**super().runtime_namespace(), "_psa_color": psa_externs.meter_color}

    def clear_per_packet(self, blk, ind: int) -> None:
        """Checksum units start each run of the block that holds them cleared."""
        for inst in blk.instances:
            if inst.extern in PER_PACKET:
                self.emit(ind, f"{self.pyname('X', inst.name)}.clear()")

    def instance(self, inst: ir.Instance):
        """The run-time object of a PSA extern instance (registers, counters and meters
        are v1model's, so the control plane reaches them the same way)."""
        if inst.extern not in PSA_EXTERNS:
            return super().instance(inst)
        args = [a.value if isinstance(a, ir.Const) else a for a in inst.args]
        kind = inst.extern
        if kind == "Register":
            t = inst.type_args[0]
            if _is_composite(t):
                self.fail(f"Register {inst.name} of {show(t)}: use bit<W>, int<W> or bool "
                          "values", inst.loc)
            reg = externs.Register(inst.name, args[0], ir.fixed_width(t), isinstance(t, ir.IntT))
            if len(args) > 1:
                reg.cells[:] = [int(args[1])] * args[0]
            self.out.registers[inst.name] = reg
            return reg
        if kind == "Counter":
            obj = externs.Counter(inst.name, args[0], self._meter_kind(inst.args))
            self.out.counters[inst.name] = obj
            return obj
        if kind == "Meter":
            obj = externs.Meter(inst.name, args[0], self._meter_kind(inst.args), self.clock)
            self.out.meters[inst.name] = obj
            return obj
        if kind == "Checksum":
            return psa_externs.Checksum(self._psa_algorithm(inst.args[0]))
        if kind == "InternetChecksum":
            return psa_externs.InternetChecksum()
        return inst

    def _psa_algorithm(self, e) -> str:
        if not isinstance(e, ir.EnumConst) or e.member not in psa_externs.HASH_ALGORITHMS:
            self.fail("a hash algorithm that is not a PSA_HashAlgorithm_t constant", e.loc)
        return psa_externs.HASH_ALGORITHMS[e.member]

    def _colors(self, t: ir.EnumT) -> tuple:
        """The values of PSA_MeterColor_t's GREEN, YELLOW and RED."""
        return tuple(t.members.index(c) for c in ("GREEN", "YELLOW", "RED"))

    # ---------------------------------------------------------------- calls
    def instance_method(self, c: ir.Call, inst: ir.Instance, s, ind) -> None:
        """An extern method call as a statement."""
        if c.extern not in PSA_EXTERNS:
            return super().instance_method(c, inst, s, ind)
        g = self.pyname("X", inst.name)
        m, kind = c.method, c.extern
        if kind == "Register" and m == "write":
            cells, size = self._cells(inst)
            idx, value = self.expr(c.args[0], s), self.expr(c.args[1], s)
            if isinstance(c.args[0], ir.Const):
                if c.args[0].value < size:
                    self.emit(ind, f"{cells}[{idx}] = {value}")
            else:
                self.emit(ind, f"if {idx} < {size}: {cells}[{idx}] = {value}")
        elif kind == "Counter" and m == "count":
            self.emit(ind, f"{g}.count({self.expr(c.args[0], s)}, _P.plen)")
        elif kind == "DirectCounter" and m == "count":
            self.emit(ind, "pass")    # the table counts its entry on every hit
        elif kind in PER_PACKET and m in ("clear", "set_state"):
            self.emit(ind, f"{g}.{m}({''.join(self.expr(a, s) for a in c.args)})")
        elif kind in PER_PACKET and m in ("update", "add", "subtract"):
            value, bits = self._fieldlist(c.args[0], s)
            if kind == "InternetChecksum" and bits % 16:
                self.fail(f"InternetChecksum.{m} of {bits} bits: the data must be a "
                          "multiple of 16 bits", c.loc)
            self.emit(ind, f"{g}.{m}(_to_bytes({value}, {bits}))")
        elif kind == "Digest" and m == "pack":
            vals = self._flat_values(c.args[0], s)
            self.emit(ind, f"_P.add_digest({inst.name!r}, ({''.join(v + ', ' for v in vals)}))")
        elif c.type != ir.VoidT():
            self.emit(ind, self.psa_extern_expr(c, inst, s))     # result unused
        else:
            self.fail(f"{kind}.{m}", c.loc)

    def psa_extern_expr(self, c: ir.Call, inst: ir.Instance, s) -> str:
        """An extern method call that returns a value."""
        g = self.pyname("X", inst.name)
        m, kind = c.method, c.extern
        if kind == "Register" and m == "read":
            cells, size = self._cells(inst)
            idx = self.expr(c.args[0], s)
            if isinstance(c.args[0], ir.Const):
                return f"{cells}[{idx}]" if c.args[0].value < size else "0"
            return f"({cells}[{idx}] if {idx} < {size} else 0)"
        if kind == "Hash" and m == "get_hash":
            algo = self._psa_algorithm(inst.args[0])
            mask = _mask(ir.fixed_width(c.type))
            if len(c.args) == 1:
                value, bits = self._fieldlist(c.args[0], s)
                return f"(_hash({algo!r}, {value}, {bits}, 0, 0) & {mask})"
            value, bits = self._fieldlist(c.args[1], s)
            return (f"(_hash({algo!r}, {value}, {bits}, {self.expr(c.args[0], s)}, "
                    f"{self.expr(c.args[2], s)}) & {mask})")
        if kind == "Checksum" and m == "get":
            return f"({g}.get() & {_mask(ir.fixed_width(c.type))})"
        if kind == "InternetChecksum" and m in ("get", "get_state"):
            return f"{g}.get()" if m == "get" else f"{g}.state"
        if kind == "Random" and m == "read":
            lo, hi = (self.expr(a, s) for a in inst.args)
            return f"_random({lo}, {hi})"
        if kind in ("Meter", "DirectMeter") and m == "execute":
            colors = self._colors(c.type)
            if kind == "Meter":
                blind = f"{g}.execute({self.expr(c.args[0], s)}, _P.plen)"
                before = c.args[1:]
            else:
                blind = f"_P.color({inst.name!r})"
                before = c.args
            pre = f", {self.expr(before[0], s)}" if before else ""
            return f"_psa_color({blind}, {colors}{pre})"
        self.fail(f"{kind}.{m} as an expression", c.loc)

    def psa_function_expr(self, c: ir.Call, s) -> str:
        """psa_clone_i2e, psa_resubmit, psa_normal, psa_clone_e2e, psa_recirculate."""
        x = self.expr(c.args[0], s)
        if c.method in ("psa_clone_i2e", "psa_clone_e2e"):
            return f"{x}.clone"
        if c.method == "psa_resubmit":
            return f"((not {x}.drop) and {x}.resubmit)"
        if c.method == "psa_normal":
            return f"((not {x}.drop) and (not {x}.resubmit))"
        recirc = self.p.constants.get("PSA_PORT_RECIRCULATE")
        port = recirc.value if isinstance(recirc, ir.Const) else PSA_PORT_RECIRCULATE
        return f"((not {x}.drop) and {self.expr(c.args[1], s)}.egress_port == {port})"

    def _cells(self, inst: ir.Instance) -> tuple:
        reg = self.out.registers[inst.name]
        cells = self.pyname("R", inst.name)
        self.globals[cells] = reg.cells
        return cells, reg.size
