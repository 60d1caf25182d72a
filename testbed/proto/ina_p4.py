"""Render p4/ina.p4 from its template p4/ina.p4.in for ``LANES`` lanes.

The program repeats one line per lane in four places (the ina_data_t header, the lane
registers and the store / add / load actions); the template writes each once, so the
lane count lives in one place, :data:`testbed.proto.ina.LANES`. The fields of ``ina_t``
(``@INA_FIELDS@``) are those of the scapy layer :class:`testbed.proto.ina.INA`, the one
definition of the header that the codec, the C client and the Wireshark dissector also
follow. A test checks that the
checked-in p4/ina.p4 is what this renders. After changing the template or LANES::

    python -m testbed.proto.ina_p4 > p4/ina.p4
"""
from __future__ import annotations

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


def render(lanes: int = ina.LANES, template: str | None = None) -> str:
    """The program for packets of ``lanes`` 32-bit lane words (``ina.lanes_for_mtu``
    gives a link's), its lane fields named as the protocol's layer names them."""
    text = TEMPLATE.read_text() if template is None else template
    names = [f.name for f in ina.lane_fields(lanes, 32)]
    per_lane = {
        "@INA_FIELDS@": header_fields(),
        "@HDR_FIELDS@": [f"    bit<32> {n};" for n in names],
        "@REGS@": [f"    register<bit<32>>(REG_CELLS) lane_{n};" for n in names],
        "@STORE@": [f"        lane_{n}.write(meta.idx, hdr.ina_data.{n});" for n in names],
        "@ADD@": [f"        lane_{n}.read(acc, meta.idx); acc = acc + hdr.ina_data.{n}; "
                  f"lane_{n}.write(meta.idx, acc); hdr.ina_data.{n} = acc;" for n in names],
        # two int16 lanes per word: the halves added apart, no carry between them
        "@ADD16@": [f"        lane_{n}.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + "
                    f"(hdr.ina_data.{n} & 0xFFFF0000)) | ((acc + hdr.ina_data.{n}) & 0xFFFF); "
                    f"lane_{n}.write(meta.idx, acc); hdr.ina_data.{n} = acc;" for n in names],
        # FLAG_MAX rounds: the lanes are signed 32-bit values and the slot keeps the max
        "@MAX@": [f"        lane_{n}.read(acc, meta.idx); acc = ((int<32>)hdr.ina_data.{n} > "
                  f"(int<32>)acc) ? hdr.ina_data.{n} : acc; lane_{n}.write(meta.idx, acc); "
                  f"hdr.ina_data.{n} = acc;" for n in names],
        "@LOAD@": [f"        lane_{n}.read(hdr.ina_data.{n}, meta.idx);" for n in names],
    }
    values = {"@LANES@": str(lanes), "@UDPLEN@": str(8 + ina.HEADER_BYTES + 4 * lanes),
              "@IPLEN@": str(20 + 8 + ina.HEADER_BYTES + 4 * lanes)}
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
                   help=f"32-bit lane words per packet (default {ina.LANES}, p4/ina.p4's)")
    p.add_argument("--mtu", type=int, help="as many lanes as links of this MTU carry "
                   "(instead of --lanes)")
    args = p.parse_args(argv)
    try:
        lanes = ina.lanes_for_mtu(args.mtu) if args.mtu else ina.check_lanes(args.lanes)
    except ValueError as e:
        p.error(str(e))
    sys.stdout.write(render(lanes))
    return 0


if __name__ == "__main__":
    sys.exit(main())
