"""Render p4/ina.p4 from its template p4/ina.p4.in for ``LANES`` lanes.

The program repeats one line per lane in four places (the ina_data_t header, the lane
registers and the store / add / load actions); the template writes each once, so the
lane count lives in one place, :data:`testbed.proto.ina.LANES`. A test checks that the
checked-in p4/ina.p4 is what this renders. After changing the template or LANES::

    python -m testbed.proto.ina_p4 > p4/ina.p4
"""
from __future__ import annotations

import sys
from pathlib import Path

from testbed.proto import ina

TEMPLATE = Path(__file__).resolve().parents[2] / "p4" / "ina.p4.in"


def render(lanes: int = ina.LANES, template: str | None = None) -> str:
    text = TEMPLATE.read_text() if template is None else template
    names = [f"v{i:02d}" for i in range(lanes)]
    per_lane = {
        "@HDR_FIELDS@": [f"    bit<32> {n};" for n in names],
        "@REGS@": [f"    register<bit<32>>(REG_CELLS) lane_{n};" for n in names],
        "@STORE@": [f"        lane_{n}.write(meta.idx, hdr.ina_data.{n});" for n in names],
        "@ADD@": [f"        lane_{n}.read(acc, meta.idx); acc = acc + hdr.ina_data.{n}; "
                  f"lane_{n}.write(meta.idx, acc); hdr.ina_data.{n} = acc;" for n in names],
        # two int16 lanes per word: the halves added apart, no carry between them
        "@ADD16@": [f"        lane_{n}.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + "
                    f"(hdr.ina_data.{n} & 0xFFFF0000)) | ((acc + hdr.ina_data.{n}) & 0xFFFF); "
                    f"lane_{n}.write(meta.idx, acc); hdr.ina_data.{n} = acc;" for n in names],
        "@LOAD@": [f"        lane_{n}.read(hdr.ina_data.{n}, meta.idx);" for n in names],
    }
    values = {"@LANES@": str(lanes), "@UDPLEN@": str(8 + ina.HEADER_BYTES + 4 * lanes),
              "@IPLEN@": str(20 + 8 + ina.HEADER_BYTES + 4 * lanes)}
    for key, lines in per_lane.items():
        text = text.replace(key, "\n".join(lines))
    for key, value in values.items():
        text = text.replace(key, value)
    return text


if __name__ == "__main__":
    sys.stdout.write(render())
