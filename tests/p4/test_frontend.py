"""The P4_16 frontend: real-looking v1model programs lowered to the typed IR."""
from pathlib import Path

import pytest

from testbed import cli
from testbed.p4 import ir
from testbed.p4.lowering.program import load_program, load_source
from testbed.p4.python.target import Target

REPO = Path(__file__).resolve().parents[2]
BASIC = REPO / "p4" / "basic.p4"
FEATURES = Path(__file__).parent / "programs" / "features.p4"


@pytest.fixture(scope="module")
def basic():
    return load_program(str(BASIC))


@pytest.fixture(scope="module")
def features():
    return load_program(str(FEATURES))


def walk(node):
    """Every IR node reachable from node (depth first)."""
    seen = []
    stack = [node]
    while stack:
        n = stack.pop()
        if isinstance(n, list):
            stack.extend(reversed(n))
            continue
        if isinstance(n, dict):
            stack.extend(reversed(list(n.values())))
            continue
        if not isinstance(n, (ir.Expr, ir.Stmt, ir.SwitchCase)):
            continue
        seen.append(n)
        for v in vars(n).values():
            if isinstance(v, (ir.Expr, ir.Stmt, ir.SwitchCase, list, dict)):
                stack.append(v)
    return seen


def calls(block, kind=None):
    return [n for n in walk(block) if isinstance(n, ir.Call) and (kind is None or n.kind == kind)]


# ---------------------------------------------------------------- tutorials basic.p4
def test_basic_blocks_map_to_v1switch_roles(basic):
    assert basic.arch == "v1model" and basic.package == "V1Switch"
    assert basic.blocks == {"parser": "MyParser", "verify_checksum": "MyVerifyChecksum",
                            "ingress": "MyIngress", "egress": "MyEgress",
                            "compute_checksum": "MyComputeChecksum", "deparser": "MyDeparser"}
    assert set(basic.parsers) == {"MyParser"}
    assert set(basic.controls) == {"MyVerifyChecksum", "MyIngress", "MyEgress",
                                   "MyComputeChecksum", "MyDeparser"}
    assert basic.errors[:3] == ["NoError", "PacketTooShort", "NoMatch"]
    assert basic.match_kinds == ["exact", "ternary", "lpm", "range", "optional", "selector"]


def test_basic_table_names_keys_and_actions(basic):
    ingress = basic.controls["MyIngress"]
    table = ingress.tables["MyIngress.ipv4_lpm"]
    assert table.local_name == "ipv4_lpm" and table.size == 1024
    [key] = table.keys
    assert (key.name, key.match_kind, key.expr.type) == ("hdr.ipv4.dstAddr", "lpm", ir.BitT(32))
    assert [a.action for a in table.actions] == ["MyIngress.ipv4_forward", "MyIngress.drop",
                                                 "NoAction"]
    assert table.default_action.action == "MyIngress.drop" and not table.default_const
    assert set(ingress.actions) == {"MyIngress.ipv4_forward", "MyIngress.drop", "NoAction"}
    fwd = ingress.actions["MyIngress.ipv4_forward"]
    assert [(p.name, p.direction, p.type) for p in fwd.params] == [
        ("dstAddr", "", ir.BitT(48)), ("port", "", ir.BitT(9))]


def test_basic_ttl_decrement_gives_the_literal_the_field_width(basic):
    fwd = basic.controls["MyIngress"].actions["MyIngress.ipv4_forward"]
    ttl = fwd.body.stmts[3]
    assert isinstance(ttl, ir.Assign)
    assert isinstance(ttl.rhs, ir.Binary) and ttl.rhs.op == "-"
    assert ttl.rhs.type == ir.BitT(8)
    assert ttl.rhs.right == ir.Const(ir.BitT(8), ttl.rhs.right.loc, 1)
    assert ttl.loc.file == str(BASIC) and ttl.loc.line == 96
    assert ttl.lhs.field == "ttl" and ttl.lhs.expr.field == "ipv4"
    assert isinstance(ttl.lhs.expr.expr, ir.Var) and ttl.lhs.expr.expr.name == "hdr"


def test_basic_parser_select_and_extract(basic):
    parser = basic.parsers["MyParser"]
    assert [p.name for p in parser.params] == ["packet", "hdr", "meta", "standard_metadata"]
    assert parser.params[0].type == ir.ExternT("packet_in")
    assert parser.params[1].direction == "out"
    assert set(parser.states) == {"start", "parse_ethernet", "parse_ipv4"}
    start = parser.states["start"].transition
    assert start.exprs == [] and start.cases[0].next_state == "parse_ethernet"
    eth = parser.states["parse_ethernet"]
    [extract] = [s.call for s in eth.stmts]
    assert (extract.kind, extract.method, extract.extern) == ("extern_method", "extract",
                                                              "packet_in")
    assert extract.target.name == "packet" and extract.type_args[0].name == "ethernet_t"
    sel = eth.transition
    assert sel.exprs[0].type == ir.BitT(16)
    assert sel.cases[0].keysets == [ir.Const(ir.BitT(16), sel.cases[0].keysets[0].loc, 0x0800)]
    assert isinstance(sel.cases[1].keysets[0], ir.Default)
    assert sel.cases[1].next_state == "accept"


def test_basic_checksum_call_is_typed(basic):
    [stmt] = basic.controls["MyComputeChecksum"].body.stmts
    call = stmt.call
    assert (call.kind, call.method) == ("extern_function", "update_checksum")
    cond, data, csum, algo = call.args
    assert cond.type == ir.BoolT() and cond.method == "isValid"
    assert isinstance(data, ir.ListExpr) and len(data.elems) == 11
    assert data.type.elems[:3] == (ir.BitT(4), ir.BitT(4), ir.BitT(8))
    assert csum.type == ir.BitT(16)
    assert isinstance(algo, ir.EnumConst) and algo.member == "csum16"
    assert algo.type.name == "HashAlgorithm"
    assert call.type_args == [data.type, ir.BitT(16)]


def test_basic_standard_metadata_has_bmv2_fields(basic):
    sm = basic.types["standard_metadata_t"]
    names = {f.name: f.type for f in sm.fields}
    assert names["ingress_port"] == ir.BitT(9) and names["egress_spec"] == ir.BitT(9)
    assert names["parser_error"] == ir.ErrorT()
    for f in ("instance_type", "packet_length", "enq_timestamp", "enq_qdepth", "deq_timedelta",
              "deq_qdepth", "ingress_global_timestamp", "egress_global_timestamp", "mcast_grp",
              "egress_rid", "checksum_error", "priority"):
        assert f in names
    assert basic.constants["TYPE_IPV4"] == ir.Const(ir.BitT(16), basic.constants["TYPE_IPV4"].loc,
                                                    0x0800)


# ---------------------------------------------------------------- language coverage
def test_types_enums_stacks_unions(features):
    t = features.types
    assert t["Proto"] == ir.EnumT("Proto", ("TCP", "UDP", "ICMP"), ir.BitT(8), (6, 17, 1))
    assert t["Verdict"].members == ("Pass", "Drop", "Punt") and t["Verdict"].underlying is None
    assert t["ip_t"] == ir.BitT(32) and t["mac_t"] == ir.BitT(48)
    hdrs = {f.name: f.type for f in t["headers_t"].fields}
    assert hdrs["labels"] == ir.StackT(t["label_h"], 4)
    assert isinstance(hdrs["l4"], ir.UnionT)
    assert [f.name for f in hdrs["l4"].fields] == ["tcp", "udp"]
    assert t["opts_h"].fields[0].type == ir.VarbitT(320)
    assert features.errors[-2:] == ["BadLabel", "TooManyLabels"]
    meta = {f.name: f for f in t["meta_t"].fields}
    assert meta["preserved"].annotations == (ir.Annotation("field_list", (1,)),)


def test_constants_are_folded_with_their_types(features):
    c = features.constants
    assert (c["SUMMED"].type, c["SUMMED"].value) == (ir.BitT(16), 3)
    assert (c["NEG"].type, c["NEG"].value) == (ir.IntT(8), -1)
    assert (c["BIG"].type, c["BIG"].value) == (ir.BitT(32), 0xDEADBEEF)
    assert (c["FLAG"].type, c["FLAG"].value) == (ir.BoolT(), 1)
    assert c["LABEL_DEPTH"].value == 4           # the #if branch taken


def test_parser_select_keysets(features):
    p = features.parsers["FeatureParser"]
    eth = p.states["parse_eth"].transition.cases
    assert isinstance(eth[0].keysets[0], ir.Mask)
    assert (eth[0].keysets[0].value.value, eth[0].keysets[0].mask.value) == (0x8847, 0xFFFF)
    assert eth[1].keysets[0].value == 0x0800
    assert isinstance(eth[2].keysets[0], ir.Range)
    assert (eth[2].keysets[0].lo.value, eth[2].keysets[0].hi.value) == (0x9000, 0x90FF)
    assert eth[3].keysets == [ir.ValueSetRef(ir.BitT(16), eth[3].keysets[0].loc,
                                             "FeatureParser.custom_types")]
    assert isinstance(eth[4].keysets[0], ir.DontCare) and eth[4].next_state == "reject"
    [vs] = p.value_sets
    assert (vs.name, vs.type, vs.size) == ("FeatureParser.custom_types", ir.BitT(16), 4)
    ip = p.states["parse_ipv4"].transition
    assert ip.cases[0].keysets[0] == ir.Const(ir.BitT(8), ip.cases[0].keysets[0].loc, 6)


def test_parser_lookahead_tuples_stacks_and_locals(features):
    p = features.parsers["FeatureParser"]
    assert [d.name for d in p.locals] == ["depth"]
    check = p.states["check_ip"]
    decl = check.stmts[0]
    assert isinstance(decl, ir.VarDecl) and decl.type == ir.BitT(4)
    assert decl.init.method == "lookahead" and decl.init.type_args == [ir.BitT(4)]
    e0, e1 = check.transition.exprs
    assert e1.type == ir.BitT(4) and e1.expr.method == "lookahead"
    cases = check.transition.cases
    assert [k.value for k in cases[0].keysets] == [4, 5]
    assert isinstance(cases[1].keysets[1], ir.Range)
    assert all(isinstance(k, ir.DontCare) for k in cases[2].keysets)
    label = p.states["parse_label"]
    extract = label.stmts[0].call
    assert isinstance(extract.args[0], ir.Member) and extract.args[0].field == "next"
    verify = label.stmts[2].call
    assert (verify.kind, verify.method) == ("extern_function", "verify")
    assert verify.args[1] == ir.ErrorConst(ir.ErrorT(), verify.args[1].loc, "TooManyLabels")
    opts = p.states["parse_ipv4_opts"].stmts[1].call
    assert len(opts.args) == 2 and opts.args[1].type == ir.BitT(32)


def test_subcontrol_is_inlined_under_qualified_names(features):
    ing = features.controls["FeatureIngress"]
    assert "FeatureIngress.counting.count_tbl" in ing.tables
    assert "FeatureIngress.counting.count_it" in ing.actions
    inst = {i.name: i for i in ing.instances}
    hits = inst["FeatureIngress.counting.hits"]
    assert hits.extern == "counter" and hits.args[0].value == 256   # constructor argument
    assert hits.args[1].member == "packets_and_bytes"
    count_tbl = ing.tables["FeatureIngress.counting.count_tbl"]
    assert count_tbl.counters == "FeatureIngress.counting.t_hits"
    assert count_tbl.keys[0].name == "index" and count_tbl.default_const
    # the sub-control's parameters are block locals, renamed away from action parameters
    local_names = [d.name for d in ing.locals]
    assert "tmp" in local_names and "meta_1" in local_names and "idx_1" in local_names
    applies = calls(ing.body, "table_apply")
    assert "FeatureIngress.counting.count_tbl" in [c.method for c in applies]


def test_tables_properties_entries_and_priorities(features):
    ing = features.controls["FeatureIngress"]
    lpm = ing.tables["FeatureIngress.ipv4_lpm"]
    assert [k.name for k in lpm.keys] == ["hdr.ipv4.dst", "hdr.ipv4.$valid$"]
    assert lpm.meters == "FeatureIngress.lpm_meter" and lpm.size == 2048
    assert [a.action for a in lpm.actions] == ["FeatureIngress.set_port", "FeatureIngress.drop",
                                               "FeatureIngress.to_cpu"]
    acl = ing.tables["FeatureIngress.acl"]
    assert [k.match_kind for k in acl.keys] == ["ternary", "exact", "range", "optional"]
    assert acl.entries_const and len(acl.entries) == 3
    e0, e1, e2 = acl.entries
    assert isinstance(e0.keys[0], ir.Mask) and e0.keys[0].value.type == ir.BitT(48)
    assert e0.keys[1] == ir.Const(ir.BitT(8), e0.keys[1].loc, 6)
    assert isinstance(e0.keys[2], ir.Range) and e0.keys[3].value == 1
    assert e0.priority is None and e1.bmv2_priority == 5 and e2.priority == 7
    assert e0.action.action == "FeatureIngress.drop"
    assert acl.largest_priority_wins is False and acl.priority_delta == 10
    assert acl.default_action.action == "NoAction"
    nexthop = ing.tables["FeatureIngress.nexthop"]
    assert nexthop.implementation == "FeatureIngress.nh_profile"
    assert nexthop.keys[1].name == "hdr.ipv4.dst[7:0]" and nexthop.keys[1].expr.type == ir.BitT(8)
    assert nexthop.properties["support_timeout"].value == 1
    # no default_action: NoAction, added to the actions as default-only
    assert nexthop.default_action.action == "NoAction"
    assert nexthop.actions[-1].annotations == (ir.Annotation("defaultonly"),)
    switched = ing.tables["FeatureIngress.switched"]
    args = switched.default_action.args
    assert [(a.type, a.value) for a in args] == [(ir.BitT(9), 1), (ir.BitT(48), 0xAABBCCDDEEFF)]


def test_actions_names_params_and_annotations(features):
    ing = features.controls["FeatureIngress"]
    fwd = ing.actions["FeatureIngress.set_port"]        # @name("set_port") action forward
    assert fwd.local_name == "forward"
    assert fwd.params[1].annotations == (ir.Annotation("name", ("smac",)),)
    sat = fwd.body.stmts[2].rhs
    assert sat.op == "|-|" and sat.right.type == ir.BitT(8)
    meter_read = fwd.body.stmts[3].call
    assert (meter_read.extern, meter_read.method) == ("direct_meter", "read")
    assert meter_read.target.name == "FeatureIngress.lpm_meter"
    top = features.actions["global_set_verdict"]
    assert [p.direction for p in top.params] == ["inout", ""]
    drop = ing.actions["FeatureIngress.drop"]
    assert isinstance(drop.body.stmts[1], ir.Exit)


def test_externs_registers_counters_meters_hash_clone_digest(features):
    ing = features.controls["FeatureIngress"]
    inst = {i.local_name: i for i in ing.instances}
    assert inst["flow_reg"].type_args == [ir.BitT(32)] and inst["flow_reg"].args[0].value == 1024
    assert inst["flow_reg"].args[0].type == ir.BitT(32)
    assert inst["port_meter"].extern == "meter" and inst["port_meter"].args[1].member == "bytes"
    assert inst["lpm_meter"].type_args == [ir.BitT(8)]
    methods = {(c.extern, c.method): c for c in calls(ing.body, "extern_method")}
    read = methods[("register", "read")]
    assert read.args[0].type == ir.BitT(32) and read.args[1].type == ir.BitT(32)
    assert read.args[1].op == "&" and read.args[1].right.type == ir.BitT(32)
    execute = methods[("meter", "execute_meter")]
    assert execute.type_args == [ir.BitT(8)] and isinstance(execute.args[0], ir.Cast)
    funcs = {c.method: c for c in calls(ing.body, "extern_function")}
    h = funcs["hash"]
    assert h.type_args == [ir.BitT(32), ir.BitT(32), h.args[3].type, ir.BitT(32)]
    assert h.args[1].member == "crc32"
    rnd = funcs["random"]
    assert [a.type for a in rnd.args] == [ir.BitT(8)] * 3 and rnd.args[2].value == 255
    dig = funcs["digest"]
    assert dig.args[0] == ir.Const(ir.BitT(32), dig.args[0].loc, 1)
    assert dig.args[1].type == features.types["digest_t"]
    assert features.digests == [features.types["digest_t"]]
    clone3 = calls(ing.actions["FeatureIngress.to_cpu"].body, "extern_function")[0]
    assert clone3.method == "clone3" and clone3.args[1].value == 100
    for name in ("clone_preserving_field_list", "resubmit_preserving_field_list",
                 "recirculate_preserving_field_list", "truncate", "assert", "assume", "log_msg"):
        assert name in funcs
    assert funcs["log_msg"].args[0].value in ("forwarding port {}", "done")
    assert [h.annotations[0].body[0] for h in features.controller_headers] == ["packet_in",
                                                                              "packet_out"]


def test_switch_statements(features):
    ing = features.controls["FeatureIngress"]
    switches = [n for n in walk(ing.body) if isinstance(n, ir.Switch)]
    action_run, on_enum, on_bits = switches
    assert isinstance(action_run.expr.type, ir.ActionEnumT)
    assert action_run.expr.expr.method == "FeatureIngress.ipv4_lpm"
    labels = [c.labels[0].action for c in action_run.cases]
    assert labels == ["FeatureIngress.set_port", "FeatureIngress.to_cpu", "FeatureIngress.drop"]
    assert action_run.cases[0].body is None          # falls through to to_cpu
    assert on_enum.cases[0].labels[0].member == "Punt"
    assert isinstance(on_enum.cases[1].labels[0], ir.Default)
    assert [c.labels[0].value for c in on_bits.cases] == [0, 1, 2]
    assert on_bits.cases[1].body is None
    folded = on_bits.cases[2].body.stmts[0].rhs
    assert folded == ir.Const(ir.BitT(8), folded.loc, 2)     # 8w1 << 2 >> 1


def test_functions_casts_slices_concat_and_mux(features):
    fold = features.functions["fold16"]
    assert fold.return_type == ir.BitT(16) and fold.params[0].direction == "in"
    ret = fold.body.stmts[1]
    assert isinstance(ret, ir.Return) and ret.expr.op == "|+|"
    assert isinstance(ret.expr.left, ir.Slice) and (ret.expr.left.hi, ret.expr.left.lo) == (15, 0)
    ing = features.controls["FeatureIngress"]
    [call] = [c for c in calls(ing.body, "function")]
    assert call.method == "fold16" and call.args[0].op == "^"
    assigns = [n for n in walk(ing.body) if isinstance(n, ir.Assign)]
    signed = next(a for a in assigns if getattr(a.lhs, "field", "") == "signed_val")
    assert signed.rhs.type == ir.IntT(16) and signed.rhs.right.value == 300
    assert isinstance(signed.rhs.left, ir.Cast) and signed.rhs.left.expr.type == ir.BitT(16)
    seen = next(a for a in assigns if getattr(a.lhs, "field", "") == "seen")
    assert isinstance(seen.rhs, ir.Mux) and seen.rhs.type == ir.BoolT()
    tos = next(a for a in assigns if getattr(a.lhs, "field", "") == "tos" and
               isinstance(a.rhs, ir.Const) and a.rhs.value == 3)
    assert tos.rhs.type == ir.BitT(8)      # (bit<8>)(SUMMED ++ 8w0)[15:8]: 0x000300 -> 3
    stack_init = next(a for a in assigns if isinstance(a.lhs, ir.Index))
    assert isinstance(stack_init.rhs, ir.ListExpr)
    assert [e.type for e in stack_init.rhs.elems] == [ir.BitT(20), ir.BitT(3), ir.BitT(1),
                                                      ir.BitT(8)]
    builtins = {c.method for c in calls(ing.body, "builtin")}
    assert {"isValid", "setValid", "setInvalid", "push_front", "pop_front"} <= builtins


# ---------------------------------------------------------------- grammar corner cases
V1_TAIL = """
parser P(packet_in pkt, out H hdr, inout M meta, inout standard_metadata_t sm) {
    state start { pkt.extract(hdr.h); transition accept; }
}
control VC(inout H hdr, inout M meta) { apply { } }
control E(inout H hdr, inout M meta, inout standard_metadata_t sm) { apply { } }
control CC(inout H hdr, inout M meta) { apply { } }
control D(packet_out pkt, in H hdr) { apply { pkt.emit(hdr.h); } }
V1Switch(P(), VC(), I(), E(), CC(), D()) main;
"""


def program(decls, ingress):
    return ("#include <core.p4>\n#include <v1model.p4>\n"
            "header h_t { bit<8> a; bit<8> b; bit<16> c; bit<32> d; }\n"
            "struct H { h_t h; }\nstruct M { bit<32> x; bit<8> y; int<8> s; }\n"
            + decls +
            "\ncontrol I(inout H hdr, inout M meta, inout standard_metadata_t sm) {\n"
            + ingress + "\n}\n" + V1_TAIL)


def ingress_stmts(src_decls, body, locals_=""):
    prog = load_source(program(src_decls, locals_ + "\napply {\n" + body + "\n}"))
    return prog, prog.controls["I"].body.stmts


def test_shift_and_nested_type_arguments_are_told_apart():
    prog, stmts = ingress_stmts(
        "typedef tuple<bit<8>, tuple<bit<4>, bit<4>>> nested_t;",
        "r.read(meta.x, 0);\n"
        "meta.x = meta.x >> 2;\n"
        "meta.y = (bit<8>)(meta.x >> 24);\n"
        "if (meta.y < 3 && meta.y > 1) { meta.y = 1; }\n",
        "register<bit<32>>(16) r;\n")
    assert prog.types["nested_t"] == ir.TupleT((ir.BitT(8), ir.TupleT((ir.BitT(4), ir.BitT(4)))))
    shift = stmts[1].rhs
    assert (shift.op, shift.type, shift.right.value) == (">>", ir.BitT(32), 2)
    cond = stmts[3].cond
    assert cond.op == "&&" and cond.left.op == "<" and cond.right.op == ">"


def test_p4_operator_precedence_and_folding():
    prog, stmts = ingress_stmts(
        "",
        "meta.y = 1 + 2 * 3;\n"
        "meta.x = 1 << 2 + 1;\n"
        "if (hdr.h.a & 0xF == 2) { meta.y = 0; }\n"
        "meta.y = hdr.h.a | hdr.h.b ^ 3 & hdr.h.a;\n"
        "meta.s = -8s1 - 1;\n"
        "meta.x = hdr.h.c ++ hdr.h.c;\n"
        "meta.y = 8w200 + 8w100;\n")
    assert stmts[0].rhs == ir.Const(ir.BitT(8), stmts[0].rhs.loc, 7)
    assert stmts[1].rhs.value == 8            # shifts bind looser than +
    cond = stmts[2].cond                      # & binds tighter than == in P4
    assert cond.op == "==" and cond.left.op == "&"
    bor = stmts[3].rhs
    assert bor.op == "|" and bor.right.op == "^" and bor.right.right.op == "&"
    assert stmts[4].rhs == ir.Const(ir.IntT(8), stmts[4].rhs.loc, -2)
    assert stmts[5].rhs.type == ir.BitT(32) and stmts[5].rhs.op == "++"
    assert stmts[6].rhs.value == 44           # wraps modulo 2^8


def test_integer_literal_forms():
    prog = load_source(program(
        "const bit<8> A = 8w0b1010_1010;\nconst bit<16> B = 0o17;\nconst bit<32> C = 1_000;\n"
        "const int<16> D = 16s-1;\nconst bit<8> E = 0d99;\nconst int F = 0xFF_FF;\n"
        "const bit<4> G = (bit<4>)-1;\nconst bit<12> W = 12;\ntypedef bit<W> w_t;\n",
        "apply { }"))
    c = prog.constants
    assert [c[n].value for n in "ABCDEFG"] == [0xAA, 15, 1000, -1, 99, 0xFFFF, 15]
    assert c["D"].type == ir.IntT(16) and c["F"].type == ir.InfIntT()
    assert prog.types["w_t"] == ir.BitT(12)


def test_generic_calls_with_explicit_type_arguments():
    prog, stmts = ingress_stmts(
        "struct dg_t { bit<8> a; bit<32> x; }",
        "digest<dg_t>(1, { hdr.h.a, meta.x });\n"
        "hash<bit<16>, bit<16>, tuple<bit<8>>, bit<32>>(hdr.h.c, HashAlgorithm.crc16, 0,"
        " { hdr.h.a }, 1024);\n")
    dig = stmts[0].call
    assert dig.type_args == [prog.types["dg_t"]] and dig.args[1].type == prog.types["dg_t"]
    h = stmts[1].call
    assert h.args[2] == ir.Const(ir.BitT(16), h.args[2].loc, 0)
    assert h.args[4] == ir.Const(ir.BitT(32), h.args[4].loc, 1024)


def test_names_that_are_keywords_elsewhere_and_type_names_as_fields():
    prog, stmts = ingress_stmts(
        "header kw_t { bit<8> type; bit<8> state; bit<8> key; bit<8> entries; bit<8> priority; }\n"
        "struct H2 { kw_t kw_t; }",
        "H2 v;\nv.kw_t.type = v.kw_t.state + v.kw_t.key;\nv.kw_t.priority = v.kw_t.entries;\n")
    assert stmts[1].lhs.field == "type" and stmts[1].rhs.left.field == "state"


def test_selector_match_kind_with_action_selector_inline():
    prog = load_source(program("", """
    action a(bit<9> port) { sm.egress_spec = port; }
    table ecmp {
        key = { hdr.h.d: exact; hdr.h.a: selector; hdr.h.b: selector; }
        actions = { a; }
        implementation = action_selector(HashAlgorithm.crc16, 32w128, 32w10);
    }
    apply { ecmp.apply(); }"""))
    ctl = prog.controls["I"]
    t = ctl.tables["I.ecmp"]
    assert [k.match_kind for k in t.keys] == ["exact", "selector", "selector"]
    [inst] = ctl.instances
    assert t.implementation == inst.name and inst.extern == "action_selector"
    assert [a.value for a in inst.args[1:]] == [128, 10]


def test_header_union_and_stack_operations():
    prog, stmts = ingress_stmts(
        "header u1_t { bit<8> v; }\nheader u2_t { bit<16> v; }\n"
        "header_union u_t { u1_t a; u2_t b; }\nstruct S { u_t u; u1_t[3] st; }",
        "S s;\nif (s.u.isValid()) { s.u.a.setInvalid(); }\n"
        "s.st.push_front(2);\ns.st[1].v = (bit<8>)s.st.lastIndex;\n"
        "meta.x = s.st.size;\n"
        "meta.x = (bit<32>)hdr.h.minSizeInBytes() + hdr.h.minSizeInBits();\n")
    if_ = stmts[1]
    assert if_.cond.method == "isValid" and isinstance(if_.cond.target.type, ir.UnionT)
    assert stmts[2].call.args[0].value == 2
    assert stmts[3].rhs.expr.type == ir.BitT(32)
    assert stmts[4].rhs == ir.Const(ir.BitT(32), stmts[4].rhs.loc, 3)
    assert stmts[5].rhs == ir.Const(ir.BitT(32), stmts[5].rhs.loc, 8 + 64)


def test_locals_shadowing_are_renamed_uniquely():
    prog, stmts = ingress_stmts(
        "",
        "bit<8> t = 1;\n{ bit<8> t = 2; meta.y = t; }\nmeta.y = t;\n",
        "action set(bit<8> t) { meta.y = t; }\n")
    outer, inner, after = stmts
    assert outer.name != "t"               # 't' is an action parameter name
    inner_decl, inner_use = inner.stmts
    assert inner_decl.name not in (outer.name, "t")
    assert inner_use.rhs.name == inner_decl.name
    assert after.rhs.name == outer.name
    action = prog.controls["I"].actions["I.set"]
    assert action.body.stmts[0].rhs.name == "t"


def test_calc_style_program_with_lookahead_and_enum_switch():
    src = """#include <core.p4>
#include <v1model.p4>
header ethernet_t { bit<48> dst; bit<48> src; bit<16> etherType; }
const bit<16> P4CALC_ETYPE = 0x1234;
const bit<8>  P4CALC_P = 0x50;
const bit<8>  P4CALC_4 = 0x34;
const bit<8>  P4CALC_VER = 0x01;
const bit<8>  P4CALC_PLUS = 0x2b;
const bit<8>  P4CALC_MINUS = 0x2d;
header p4calc_t {
    bit<8> p; bit<8> four; bit<8> ver; bit<8> op;
    bit<32> operand_a; bit<32> operand_b; bit<32> res;
}
struct headers { ethernet_t ethernet; p4calc_t p4calc; }
struct metadata { }
parser MyParser(packet_in packet, out headers hdr, inout metadata meta,
                inout standard_metadata_t standard_metadata) {
    state start {
        packet.extract(hdr.ethernet);
        transition select(hdr.ethernet.etherType) {
            P4CALC_ETYPE : check_p4calc;
            default      : accept;
        }
    }
    state check_p4calc {
        transition select(packet.lookahead<p4calc_t>().p,
                          packet.lookahead<p4calc_t>().four,
                          packet.lookahead<p4calc_t>().ver) {
            (P4CALC_P, P4CALC_4, P4CALC_VER) : parse_p4calc;
            default                          : accept;
        }
    }
    state parse_p4calc { packet.extract(hdr.p4calc); transition accept; }
}
control MyVerifyChecksum(inout headers hdr, inout metadata meta) { apply { } }
control MyIngress(inout headers hdr, inout metadata meta,
                  inout standard_metadata_t standard_metadata) {
    action send_back(bit<32> result) {
        bit<48> tmp;
        hdr.p4calc.res = result;
        tmp = hdr.ethernet.dst;
        hdr.ethernet.dst = hdr.ethernet.src;
        hdr.ethernet.src = tmp;
        standard_metadata.egress_spec = standard_metadata.ingress_port;
    }
    action operation_add() { send_back(hdr.p4calc.operand_a + hdr.p4calc.operand_b); }
    action operation_sub() { send_back(hdr.p4calc.operand_a - hdr.p4calc.operand_b); }
    action operation_drop() { mark_to_drop(standard_metadata); }
    table calculate {
        key = { hdr.p4calc.op : exact; }
        actions = { operation_add; operation_sub; operation_drop; }
        const default_action = operation_drop();
        const entries = {
            P4CALC_PLUS : operation_add();
            P4CALC_MINUS: operation_sub();
        }
    }
    apply {
        if (hdr.p4calc.isValid()) { calculate.apply(); } else { operation_drop(); }
    }
}
control MyEgress(inout headers hdr, inout metadata meta,
                 inout standard_metadata_t standard_metadata) { apply { } }
control MyComputeChecksum(inout headers hdr, inout metadata meta) { apply { } }
control MyDeparser(packet_out packet, in headers hdr) {
    apply { packet.emit(hdr.ethernet); packet.emit(hdr.p4calc); }
}
V1Switch(MyParser(), MyVerifyChecksum(), MyIngress(), MyEgress(), MyComputeChecksum(),
         MyDeparser()) main;
"""
    prog = load_source(src, "calc.p4")
    check = prog.parsers["MyParser"].states["check_p4calc"].transition
    assert len(check.exprs) == 3 and all(e.type == ir.BitT(8) for e in check.exprs)
    assert check.exprs[0].expr.type_args == [prog.types["p4calc_t"]]
    assert [k.value for k in check.cases[0].keysets] == [0x50, 0x34, 0x01]
    assert isinstance(check.cases[1].keysets[0], ir.Default) and len(check.cases[1].keysets) == 1
    ing = prog.controls["MyIngress"]
    t = ing.tables["MyIngress.calculate"]
    assert t.default_const and t.default_action.action == "MyIngress.operation_drop"
    assert [(e.keys[0].value, e.action.action) for e in t.entries] == [
        (0x2b, "MyIngress.operation_add"), (0x2d, "MyIngress.operation_sub")]
    add = ing.actions["MyIngress.operation_add"].body.stmts[0].call
    assert (add.kind, add.method) == ("action", "MyIngress.send_back")
    assert add.args[0].type == ir.BitT(32)
    else_call = ing.body.stmts[0].other.stmts[0].call
    assert (else_call.kind, else_call.method) == ("action", "MyIngress.operation_drop")
    send_back = ing.actions["MyIngress.send_back"]
    assert isinstance(send_back.body.stmts[0], ir.VarDecl)


def test_v1model_version_selects_generic_register_index():
    src = "#define V1MODEL_VERSION 20200408\n" + program(
        "", "register<bit<8>, bit<4>>(16) r;\napply { r.write(4w3, 8w1); }")
    prog = load_source(src)
    [inst] = prog.controls["I"].instances
    assert inst.type_args == [ir.BitT(8), ir.BitT(4)]
    call = prog.controls["I"].body.stmts[0].call
    assert call.args[0].type == ir.BitT(4)


ALL_PROGRAMS = sorted((Path(__file__).parent / "corpus").glob("*.p4")) + sorted(
    (REPO / "p4").glob("*.p4"))


@pytest.mark.parametrize("path", ALL_PROGRAMS, ids=lambda p: p.name)
def test_every_corpus_and_repository_program_loads(path):
    prog = load_program(str(path))
    assert set(prog.blocks) == {"parser", "verify_checksum", "ingress", "egress",
                                "compute_checksum", "deparser"}
    assert prog.parsers[prog.blocks["parser"]].states["start"].name == "start"


def test_cli_check_prints_ok_and_exit_code_0(capsys):
    assert cli.main(["p4", "check", str(BASIC)]) == 0
    assert capsys.readouterr().out.strip() == f"{BASIC}: ok (v1model, 5 controls, 1 tables)"


def test_named_arguments_are_put_in_parameter_order():
    prog, stmts = ingress_stmts(
        "",
        "set(other = 16w5, val = 8w3);\n"
        "hash(result = hdr.h.c, algo = HashAlgorithm.crc16, base = 16w0, data = { hdr.h.a },"
        " max = 32w100);\n"
        "mark_to_drop(standard_metadata = sm);\n",
        "action set(bit<8> val, bit<16> other) { meta.y = val; hdr.h.c = other; }\n")
    set_call, hash_call, drop = (s.call for s in stmts)
    assert [a.value for a in set_call.args] == [3, 5]
    assert [a.type for a in set_call.args] == [ir.BitT(8), ir.BitT(16)]
    assert hash_call.args[0].field == "c" and hash_call.args[4].value == 100
    assert drop.args[0].name == "sm"


def test_direct_application_of_controls_and_parsers():
    src = program(
        "control Sub(inout bit<8> v) {\n"
        "    action bump() { v = v + 1; return; }\n"
        "    table t { key = { v: exact; } actions = { bump; } }\n"
        "    apply { t.apply(); }\n}\n"
        "header tail_t { bit<8> t; }\n"
        "parser Tail(packet_in pkt, out tail_t tl) {\n"
        "    state start { pkt.extract(tl);\n"
        "        transition select(tl.t) { 0: accept; default: reject; } }\n}\n"
        "parser P2(packet_in pkt, out H hdr, inout M meta, inout standard_metadata_t sm) {\n"
        "    tail_t tl;\n"
        "    state start { pkt.extract(hdr.h); Tail.apply(pkt, tl); transition accept; }\n}\n",
        "apply { Sub.apply(meta.y); Sub.apply(hdr.h.a); }").replace(
        "V1Switch(P(),", "V1Switch(P2(),")
    prog = load_source(src)
    ing = prog.controls["I"]
    assert set(ing.tables) == {"I.Sub.t", "I.Sub_1.t"}
    assert set(ing.actions) >= {"I.Sub.bump", "I.Sub_1.bump"}
    first, second = ing.body.stmts
    assert isinstance(first, ir.Block) and first.stmts[0].rhs.field == "y"
    assert second.stmts[-1].lhs.field == "a"       # copied out to hdr.h.a
    states = prog.parsers["P2"].states
    assert states["start"].transition.cases[0].next_state == "Tail_start"
    tail = states["Tail_start"].transition.cases
    assert [c.next_state for c in tail] == ["start_after_Tail", "reject"]
    after = states["start_after_Tail"]
    assert after.stmts[0].lhs.name == "tl" and after.transition.cases[0].next_state == "accept"


def test_generic_parameter_names_are_scoped_to_their_declaration():
    # v1model declares hash<O, T, D, M> and Parser<H, M>; a program may still use those
    # letters for its own values, and declare its own generic externs
    prog, stmts = ingress_stmts(
        "const bit<8> T = 5;\nextern Pick<K> { Pick(); K get<V>(in V v); }",
        "meta.y = T + O;\nmeta.y = p.get(hdr.h.c);\n",
        "bit<8> O = 1;\nPick<bit<8>>() p;\n")
    assert stmts[0].rhs.left.value == 5 and stmts[0].rhs.right.name == "O"
    get = stmts[1].rhs
    assert (get.kind, get.extern, get.method, get.type) == ("extern_method", "Pick", "get",
                                                            ir.BitT(8))
    assert get.type_args == [ir.BitT(16)]


def test_serializable_enum_converts_implicitly_to_its_underlying_type():
    prog, stmts = ingress_stmts(
        "enum bit<8> Op { ADD = 1, SUB = 2 }\nheader op_t { Op op; }\nstruct S { op_t o; }",
        "S s;\nmeta.y = Op.SUB;\nif (s.o.op == 1) { meta.y = s.o.op; }\n"
        "if (s.o.op == Op.ADD) { meta.y = 0; }\n")
    assert stmts[1].rhs == ir.Const(ir.BitT(8), stmts[1].rhs.loc, 2)
    cond = stmts[2].cond
    assert isinstance(cond.left, ir.Cast) and cond.left.type == ir.BitT(8)
    assert cond.right == ir.Const(ir.BitT(8), cond.right.loc, 1)
    assert isinstance(stmts[2].then.stmts[0].rhs, ir.Cast)
    same = stmts[3].cond
    assert isinstance(same.left.type, ir.EnumT) and isinstance(same.right, ir.EnumConst)


def test_lone_default_or_dontcare_keyset_for_several_keys():
    prog = load_source(program("", """
    action a() { }
    table t {
        key = { hdr.h.a: ternary; hdr.h.b: exact; }
        actions = { a; }
        const entries = { (1, 2): a(); _: a(); }
    }
    apply { t.apply(); }""").replace(
        "state start { pkt.extract(hdr.h); transition accept; }",
        "state start { pkt.extract(hdr.h); transition select(hdr.h.a, hdr.h.b) {"
        " (1, 2): accept; _: reject; } }"))
    entries = prog.controls["I"].tables["I.t"].entries
    assert [type(k).__name__ for k in entries[1].keys] == ["DontCare", "DontCare"]
    assert [k.type for k in entries[1].keys] == [ir.BitT(8), ir.BitT(8)]
    cases = prog.parsers["P"].states["start"].transition.cases
    assert len(cases[1].keysets) == 1 and isinstance(cases[1].keysets[0], ir.Default)


def test_state_without_transition_rejects():
    prog = load_source(program("", "apply { }").replace(
        "state start { pkt.extract(hdr.h); transition accept; }",
        "state start { pkt.extract(hdr.h); }"))
    start = prog.parsers["P"].states["start"]
    assert len(start.stmts) == 1
    assert [c.next_state for c in start.transition.cases] == ["reject"]


def test_default_and_entry_actions_carry_the_bound_directional_arguments():
    prog = load_source(program("", """
    action add(inout bit<32> target, bit<32> amount) { target = target + amount; }
    table t {
        key = { hdr.h.a: exact; }
        actions = { add(meta.x); }
        default_action = add(meta.x, 7);
        const entries = { 1: add(5); }
    }
    apply { t.apply(); }"""))
    t = prog.controls["I"].tables["I.t"]
    assert t.actions[0].args[0].field == "x"
    default = t.default_action.args
    assert default[0].field == "x" and default[1] == ir.Const(ir.BitT(32), default[1].loc, 7)
    entry = t.entries[0].action.args
    assert entry[0].field == "x" and entry[1].value == 5


def test_top_level_extern_instance_is_shared_by_the_blocks():
    src = program("register<bit<32>>(8) shared_reg;",
                  "apply { shared_reg.write(0, 7); }").replace(
        "control E(inout H hdr, inout M meta, inout standard_metadata_t sm) { apply { } }",
        "control E(inout H hdr, inout M meta, inout standard_metadata_t sm) {\n"
        "    apply { shared_reg.read(meta.x, 0); }\n}")
    prog = load_source(src)
    ing, eg = prog.controls["I"], prog.controls["E"]
    assert [i.name for i in ing.instances] == ["shared_reg"]
    assert ing.instances[0] is eg.instances[0]
    assert eg.body.stmts[0].call.target.name == "shared_reg"
    target = Target(prog)
    target.process(bytes(8), 1)
    assert target.register_read("shared_reg", 0) == 7


def test_a_stateless_control_can_serve_two_package_roles():
    prog = load_source(program("", "apply { }").replace("V1Switch(P(), VC(), I(), E(), CC(), D())",
                                                        "V1Switch(P(), VC(), I(), E(), VC(), D())"))
    assert prog.blocks["verify_checksum"] == prog.blocks["compute_checksum"] == "VC"
    assert "CC" not in prog.blocks.values()


def test_a_table_declared_with_an_empty_parameter_list():
    # older P4_16 programs (p4c's own samples among them) write ``table t() { ... }``
    prog, _ = ingress_stmts("", "t.apply();",
                            "action a() { }\ntable t() { actions = { a; } default_action = a; }")
    assert list(prog.controls["I"].tables) == ["I.t"]
