"""Per-lane register arithmetic rolled into C loops (cgen_loops) against the reference
backend: wrapping and saturating, unsigned and signed, 16 and 32 bits, a register row
in and out of range, at the values where they overflow; a lane that differs from its
neighbours stays out of the loop, and a run split by it is rolled on both sides."""
from __future__ import annotations

import random

import pytest

from testbed.p4.lowering.program import load_source
from testbed.p4.native.cgen import generate
from testbed.p4.native.target import NativeTarget
from testbed.p4.python.target import Target

from test_native_stf import state

LANES = 8
ROWS = 4                          # the index runs 0..7: half the packets out of range
KINDS = {                         # header: (field type, register type, prefix)
    "u16": ("bit<16>", "bit<16>", "a"), "u32": ("bit<32>", "bit<32>", "b"),
    "s16": ("int<16>", "int<16>", "c"), "s32": ("int<32>", "int<32>", "d"),
}
OPS = [("u16", "+"), ("u16", "|+|"), ("u32", "+"), ("u32", "|-|"), ("s16", "|+|"),
       ("s16", "-"), ("s32", "|-|"), ("s32", "|+|")]
ODD_LANE = 5                      # in the last action, one lane adds 1 more


def lanes_action(n: int, kind: str, op: str, odd: bool = False) -> str:
    _, _, prefix = KINDS[kind]
    body = []
    for k in range(LANES):
        extra = " + 1" if odd and k == ODD_LANE else ""
        body.append(f"r_{kind}_{k}.read(t_{kind}, meta.idx); t_{kind} = t_{kind} {op} "
                    f"hdr.{kind}.{prefix}{k}{extra}; r_{kind}_{k}.write(meta.idx, t_{kind}); "
                    f"hdr.{kind}.{prefix}{k} = t_{kind};")
    return f"    action op{n}() {{\n        " + "\n        ".join(body) + "\n    }"


def program() -> str:
    headers = "\n".join(
        f"header {kind}_t {{ {' '.join(f'{t} {p}{k};' for k in range(LANES))} }}"
        for kind, (t, _, p) in KINDS.items())
    registers = "\n".join(f"    register<{r}>({ROWS}) r_{kind}_{k};"
                          for kind, (_, r, _) in KINDS.items() for k in range(LANES))
    temps = " ".join(f"{r} t_{kind};" for kind, (_, r, _) in KINDS.items())
    actions = [lanes_action(n, kind, op) for n, (kind, op) in enumerate(OPS)]
    actions.append(lanes_action(len(OPS), "u16", "+", odd=True))
    calls = "\n".join(f"            {n}: {{ op{n}(); }}" for n in range(len(OPS) + 1))
    return f"""
#include <core.p4>
#include <v1model.p4>
header eth_t {{ bit<48> dst; bit<48> src; bit<16> type; }}
header ctl_t {{ bit<8> i; bit<8> op; }}
{headers}
struct headers_t {{ eth_t eth; ctl_t ctl; u16_t u16; u32_t u32; s16_t s16; s32_t s32; }}
struct meta_t {{ bit<32> idx; }}
parser P(packet_in pkt, out headers_t hdr, inout meta_t meta,
         inout standard_metadata_t sm) {{
    state start {{
        pkt.extract(hdr.eth); pkt.extract(hdr.ctl); pkt.extract(hdr.u16);
        pkt.extract(hdr.u32); pkt.extract(hdr.s16); pkt.extract(hdr.s32);
        transition accept;
    }}
}}
control V(inout headers_t hdr, inout meta_t meta) {{ apply {{ }} }}
control I(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {{
{registers}
    {temps}
{chr(10).join(actions)}
    apply {{
        sm.egress_spec = 1;
        meta.idx = (bit<32>)hdr.ctl.i;
        switch (hdr.ctl.op) {{
{calls}
            default: {{ }}
        }}
    }}
}}
control E(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {{
    apply {{ }}
}}
control C(inout headers_t hdr, inout meta_t meta) {{ apply {{ }} }}
control D(packet_out pkt, in headers_t hdr) {{
    apply {{
        pkt.emit(hdr.eth); pkt.emit(hdr.ctl); pkt.emit(hdr.u16); pkt.emit(hdr.u32);
        pkt.emit(hdr.s16); pkt.emit(hdr.s32);
    }}
}}
V1Switch(P(), V(), I(), E(), C(), D()) main;
"""


EDGES = {16: [0, 1, 2, 0x7FFE, 0x7FFF, 0x8000, 0x8001, 0xFFFE, 0xFFFF],
         32: [0, 1, 0x7FFFFFFF, 0x80000000, 0x80000001, 0xFFFFFFFE, 0xFFFFFFFF]}


def lane_values(rng: random.Random, bits: int) -> bytes:
    return b"".join((rng.choice(EDGES[bits]) if rng.random() < 0.8 else
                     rng.getrandbits(bits)).to_bytes(bits // 8, "big") for _ in range(LANES))


def frames(rng: random.Random, n: int) -> list:
    out = []
    for _ in range(n):
        ctl = bytes([rng.randrange(2 * ROWS), rng.randrange(len(OPS) + 2)])
        body = b"".join(lane_values(rng, bits) for bits in (16, 32, 16, 32))
        out.append(bytes(12) + b"\x88\xb5" + ctl + body)
    return out


@pytest.fixture(scope="module")
def prog():
    return load_source(program(), "lanes.p4")


def test_rolled_lane_arithmetic_equals_the_reference_at_its_edges(prog):
    ref, native = Target(prog), NativeTarget(prog)
    for i, frame in enumerate(frames(random.Random(3), 1200)):
        out = native.process(frame, 0)
        assert out == ref.process(frame, 0), f"packet {i}"
    cells = state(ref)["registers"]
    assert state(native) == state(ref)
    # rows filled at the edges: some lane of each kind saturated, some wrapped negative
    assert any(0x7FFF in cells[f"I.r_s16_{k}"] for k in range(LANES))
    assert any(0xFFFFFFFF in cells[f"I.r_u32_{k}"] or 0 in cells[f"I.r_u32_{k}"]
               for k in range(LANES))


def test_every_run_is_a_loop_and_the_odd_lane_is_not_in_one(prog):
    c = generate(prog, []).source
    actions = {}
    for n in range(len(OPS) + 1):
        body = c[c.index(f"_I_op{n}(pkt_t *P) {{"):]
        actions[n] = body[:body.index("\n}\n")]
    for n in range(len(OPS)):
        assert actions[n].count(f"for (uint32_t _lane = 0; _lane < {LANES}; _lane++)") == 1
    odd = actions[len(OPS)]
    # lanes 0-4 rolled, lane 5 as written, lanes 6-7 too few for a loop
    assert odd.count("for (uint32_t _lane = 0; _lane < 5; _lane++)") == 1
    assert odd.count("for (") == 1
    assert "P->hdr.f_u16.f_a5) & UINT64_C(0xffff)) + UINT64_C(0x1))" in odd
    assert "f_a6" in odd and "f_a7" in odd and "f_a0" not in odd


def test_a_field_name_in_a_run_of_one_header_and_not_of_another_is_never_rolled():
    """b_t's v0..v4 are not a run (v2 is wider), a_t's are: the same names in b_t's
    same-shape statements must not index a_t's array, nor an array b_t lacks."""
    fields_a = " ".join(f"bit<16> v{k};" for k in range(5))
    fields_b = " ".join(f"bit<{32 if k == 2 else 16}> v{k};" for k in range(5))
    copies = " ".join(f"hdr.b.v{k} = hdr.b.v{k} + 1;" for k in range(5))
    adds = " ".join(f"hdr.a.v{k} = hdr.a.v{k} + 1;" for k in range(5))
    source = f"""
#include <core.p4>
#include <v1model.p4>
header a_t {{ {fields_a} }}
header b_t {{ {fields_b} }}
struct headers_t {{ b_t b; a_t a; }}     /* b_t first: its names seen first */
struct meta_t {{ }}
parser P(packet_in pkt, out headers_t hdr, inout meta_t meta,
         inout standard_metadata_t sm) {{
    state start {{ pkt.extract(hdr.a); pkt.extract(hdr.b); transition accept; }}
}}
control V(inout headers_t hdr, inout meta_t meta) {{ apply {{ }} }}
control I(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {{
    action both() {{ {copies} {adds} }}
    apply {{ sm.egress_spec = 1; both(); }}
}}
control E(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {{
    apply {{ }}
}}
control C(inout headers_t hdr, inout meta_t meta) {{ apply {{ }} }}
control D(packet_out pkt, in headers_t hdr) {{ apply {{ pkt.emit(hdr.a); pkt.emit(hdr.b); }} }}
V1Switch(P(), V(), I(), E(), C(), D()) main;
"""
    prog = load_source(source, "names.p4")
    c = generate(prog, []).source
    action = c[c.index("_I_both(pkt_t *P) {"):]
    assert "for (" not in action[:action.index("\n}\n")]
    ref, native = Target(prog), NativeTarget(prog)
    rng = random.Random(5)
    for _ in range(50):
        frame = rng.randbytes(22)
        assert native.process(frame, 0) == ref.process(frame, 0)
