"""Render p4/ina.p4 from its template p4/ina.p4.in for ``LANES`` lanes.

The program repeats one line per lane or per group of ``ina.GROUP_WORDS`` lanes in
several places (the group headers and their parser states, the lane registers, the
store / add / max / load actions of each group and the calls that apply them to the
groups a packet carries); the template writes each once, so the lane count lives in one
place, :data:`testbed.proto.ina.LANES`. The LuWu templates (p4/luwu*.p4.in), which take
full-size packets only, keep one ``ina_data_t`` of every lane (``@HDR_FIELDS@``,
``@STORE@``, ...). The fields of ``ina_t``
(``@INA_FIELDS@``) are those of the scapy layer :class:`testbed.proto.ina.INA`, the one
definition of the header that the codec, the C client and the Wireshark dissector also
follow. A test checks that the
checked-in p4/ina.p4 is what this renders. After changing the template or LANES::

    python -m testbed.proto.ina_p4 > p4/ina.p4
"""
from __future__ import annotations

import re
import sys
from pathlib import Path

from scapy.fields import ByteField, IntField, ShortField, SignedByteField

from testbed.proto import ina

TEMPLATE = Path(__file__).resolve().parents[2] / "p4" / "ina.p4.in"


_P4_TYPES = {ByteField: "bit<8>", SignedByteField: "int<8>", ShortField: "bit<16>",
             IntField: "bit<32>"}

_COMMENTS = {
    "flags": "FLAG_GRADIENT / FLAG_RESULT / ..., RETRANSMIT, LANES16, MAX, OVERFLOW",
    "n_workers": "in results: how many contributions the sum holds",
    "slot": "bit 15: shadow set; bits 14..0: slot index in the job",
    "exponent": "block exponent e: |value| <= 2^e; results carry the max",
    "next_exponent": "sender's exponent of its block for chunk + slots; results: the max",
    "chunk": "sequence number of the chunk in the job's stream",
    "groups": "lane groups the packet carries (0: header only)",
}


def header_fields() -> list[str]:
    """The lines of ``ina_t``, one per field of the scapy layer ``ina.INA``."""
    lines = []
    for f in ina.INA.fields_desc:
        kind = _P4_TYPES.get(type(f))
        if kind is None:
            raise TypeError(f"INA.{f.name}: no P4 type for {type(f).__name__}; add it to "
                            "testbed/proto/ina_p4.py's _P4_TYPES")
        line = f"    {kind} {f.name};"
        comment = _COMMENTS.get(f.name)
        lines.append(f"{line:<28}/* {comment} */" if comment else line)
    return lines


_KINDS = ("store", "add", "add16", "max", "load")


def _lane_lines(kind: str, names: list[str], fields: list[str]) -> list[str]:
    """One line per lane of action ``kind``: register ``lane_<name>`` against field."""
    lines = {
        "store": "lane_{n}.write(meta.idx, {f});",
        "add": "lane_{n}.read(acc, meta.idx); acc = acc + {f}; lane_{n}.write(meta.idx, acc); "
               "{f} = acc;",
        # two int16 lanes per word: the halves added apart, no carry between them
        "add16": "lane_{n}.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + ({f} & 0xFFFF0000)) "
                 "| ((acc + {f}) & 0xFFFF); lane_{n}.write(meta.idx, acc); {f} = acc;",
        # FLAG_MAX rounds: the lanes are signed 32-bit values and the slot keeps the max
        "max": "lane_{n}.read(acc, meta.idx); acc = ((int<32>){f} > (int<32>)acc) ? {f} : acc; "
               "lane_{n}.write(meta.idx, acc); {f} = acc;",
        "load": "lane_{n}.read({f}, meta.idx);",
    }[kind]
    return ["        " + lines.format(n=n, f=f) for n, f in zip(names, fields)]


def _group_parts(lanes: int, names: list[str]) -> dict[str, list[str]]:
    """The per-group placeholders of p4/ina.p4.in."""
    groups = ina.check_grouped(lanes) // ina.GROUP_WORDS
    word = [f"w{i:02d}" for i in range(ina.GROUP_WORDS)]
    g = [f"g{k:02d}" for k in range(groups)]
    states, actions = [], []
    for k, h in enumerate(g):
        nxt = ([f"        transition select(hdr.ina.groups) {{",
                f"            {k + 1}: accept;",
                f"            default: parse_{g[k + 1]};",
                "        }"] if k + 1 < groups else ["        transition accept;"])
        states += [f"    state parse_{h} {{", f"        packet.extract(hdr.{h});", *nxt,
                   "    }", ""]
        own = names[k * ina.GROUP_WORDS:(k + 1) * ina.GROUP_WORDS]
        for kind in _KINDS:
            actions += [f"    action lanes_{kind}_{h}() {{",
                        *_lane_lines(kind, own, [f"hdr.{h}.{w}" for w in word]), "    }", ""]
    parts = {
        "@GROUP_FIELDS@": [f"    bit<32> {w};" for w in word],
        "@GROUP_HEADERS@": [f"    ina_group_t {h};" for h in g],
        "@GROUP_STATES@": states[:-1],
        "@GROUP_ACTIONS@": actions[:-1],
        "@GROUP_EMIT@": [f"        packet.emit(hdr.{h});" for h in g],
    }
    for kind in _KINDS:
        parts[f"@{kind.upper()}_CALLS@"] = [f"if (hdr.{h}.isValid()) {{ lanes_{kind}_{h}(); }}"
                                             for h in g]
    return parts


def render(lanes: int = ina.LANES, template: str | None = None) -> str:
    """The program for packets of up to ``lanes`` 32-bit lane words (``ina.lanes_for_mtu``
    gives a link's; p4/ina.p4.in takes whole groups of ``ina.GROUP_WORDS``), its lanes
    named as the protocol's layer names them."""
    text = TEMPLATE.read_text() if template is None else template
    names = [f.name for f in ina.lane_fields(lanes, 32)]
    if "@GROUP_FIELDS@" in text:
        for key, lines in _group_parts(lanes, names).items():
            if key.endswith("_CALLS@"):      # indented as the placeholder is
                text = re.sub(rf"^( *){key}$",
                              lambda m: "\n".join(m.group(1) + line for line in lines),
                              text, flags=re.M)
            else:
                text = text.replace(key, "\n".join(lines))
    per_lane = {
        "@INA_FIELDS@": header_fields(),
        "@HDR_FIELDS@": [f"    bit<32> {n};" for n in names],
        "@REGS@": [f"    register<bit<32>>(REG_CELLS) lane_{n};" for n in names],
        **{f"@{kind.upper()}@": _lane_lines(kind, names, [f"hdr.ina_data.{n}" for n in names])
           for kind in _KINDS},
    }
    values = {"@LANES@": str(lanes), "@UDPLEN@": str(8 + ina.HEADER_BYTES + 4 * lanes),
              "@IPLEN@": str(20 + 8 + ina.HEADER_BYTES + 4 * lanes),
              "@GROUPS@": str(ina.groups_of(lanes)), "@GROUP_WORDS@": str(ina.GROUP_WORDS),
              "@GROUP_BYTES@": str(4 * ina.GROUP_WORDS), "@HEADER_BYTES@": str(ina.HEADER_BYTES),
              "@UDPBASE@": str(8 + ina.HEADER_BYTES), "@IPBASE@": str(20 + 8 + ina.HEADER_BYTES),
              "@HDR_UDPLEN@": str(8 + ina.HEADER_BYTES),
              "@HDR_IPLEN@": str(20 + 8 + ina.HEADER_BYTES)}
    for key, lines in per_lane.items():
        text = text.replace(key, "\n".join(lines))
    for key, value in values.items():
        text = text.replace(key, value)
    return text


def main(argv=None) -> int:
    import argparse
    p = argparse.ArgumentParser(prog="python -m testbed.proto.ina_p4",
                                description="print p4/ina.p4 for a lane count")
    p.add_argument("--lanes", type=int, default=ina.LANES,
                   help=f"32-bit lane words per packet, whole groups of {ina.GROUP_WORDS} "
                   f"(default {ina.LANES}, p4/ina.p4's)")
    p.add_argument("--mtu", type=int, help="as many lanes as links of this MTU carry "
                   "(instead of --lanes)")
    args = p.parse_args(argv)
    try:
        lanes = ina.lanes_for_mtu(args.mtu) if args.mtu else ina.check_grouped(args.lanes)
    except ValueError as e:
        p.error(str(e))
    sys.stdout.write(render(lanes))
    return 0


if __name__ == "__main__":
    sys.exit(main())
