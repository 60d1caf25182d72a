"""Render p4/luwu_sgd.p4 from its template p4/luwu_sgd.p4.in: the lane count of
:mod:`testbed.proto.ina` (LANES 32-bit lanes a packet, or as many values in the int16
lanes of a 16-bit packet of half the words: the protocol's fields of both), the fixed
point of :mod:`testbed.proto.luwu_sgd` and the size of the parameter registers,
``model_chunks`` chunks of LANES parameters each. A test
checks that the checked-in p4/luwu_sgd.p4 is what this renders with the defaults. After
changing the template, LANES or the fixed point::

    python -m testbed.proto.luwu_sgd_p4 > p4/luwu_sgd.p4

and for a switch that holds a bigger model (a program of its own, not checked in)::

    python -m testbed.proto.luwu_sgd_p4 --model-chunks 4096 > /tmp/luwu_sgd_4096.p4
"""
from __future__ import annotations

import argparse
import sys

from testbed.proto import ina, ina_p4
from testbed.proto import luwu_sgd as fx

TEMPLATE = ina_p4.TEMPLATE.with_name("luwu_sgd.p4.in")
# 262144 parameters: room for the small GPT of hosts/models.py (528 chunks) or two MLPs
MODEL_CHUNKS = 1024

_CELL = "(int<64>)(int<32>)"


def _sgd_lines(n: str) -> list[str]:
    """One lane of the update (see the template's header and testbed/proto/luwu_sgd.py)."""
    return [
        f"        mom_{n}.read(v, meta.pidx); par_{n}.read(w, meta.pidx);",
        f"        g = ({_CELL}hdr.ina_data.{n} + meta.g_half) >> meta.g_shift;",
        f"        m = ({_CELL}v * meta.mu_mul + meta.mu_half) >> meta.mu_shift;",
        "        v = (bit<32>)((int<32>)m |+| (int<32>)g);",
        f"        step = ({_CELL}v * meta.lr_mul + meta.lr_half) >> meta.lr_shift;",
        "        w = (bit<32>)((int<32>)w |-| (int<32>)step);",
        f"        mom_{n}.write(meta.pidx, v); par_{n}.write(meta.pidx, w);",
        f"        lane_{n}.write(meta.idx, w); hdr.ina_data.{n} = w;",
    ]


def render(lanes: int = ina.LANES, model_chunks: int = MODEL_CHUNKS) -> str:
    if not 1 <= model_chunks < 2**31:
        raise ValueError(f"model_chunks = {model_chunks}: give 1 or more chunks (of {lanes} "
                         "parameters each)")
    if lanes < 2 or lanes % 2:
        raise ValueError(f"{lanes} lanes: a 16-bit packet carries the lanes' values in "
                         "half the words; give an even number")
    names = [f.name for f in ina.lane_fields(lanes, 32)]
    # the lanes' values in 16 bits, the protocol's fields of a packet of half the words
    narrow = [f.name for f in ina.lane_fields(lanes // 2, 16)]
    high = [f"((bit<32>)hdr.ina_data16.{h}) << {fx.NARROW_SHIFT}" for h in narrow]
    text = TEMPLATE.read_text()
    per_lane = {
        "@SGD_REGS@": [f"    register<bit<32>>(MODEL_CHUNKS) {kind}_{n};"
                       for kind in ("par", "mom") for n in names],
        "@SGD@": [line for n in names for line in _sgd_lines(n)],
        "@DATA16_FIELDS@": [f"    bit<16> {h};" for h in narrow],
        "@STORE16@": [f"        hdr.ina_data.{n} = {v}; lane_{n}.write(meta.idx, "
                      f"hdr.ina_data.{n});" for n, v in zip(names, high)],
        "@ADD16_HIGH@": [f"        lane_{n}.read(acc, meta.idx); acc = acc + ({v}); "
                         f"lane_{n}.write(meta.idx, acc); hdr.ina_data.{n} = acc;"
                         for n, v in zip(names, high)],
    }
    values = {"@MODEL_CHUNKS@": str(model_chunks), "@MODEL_PARAMS@": str(model_chunks * lanes),
              "@FRAC_BITS@": str(fx.FRAC_BITS), "@EXPONENT_MAX@": str(fx.EXPONENT_MAX),
              "@SHIFT_CAP@": str(fx.SHIFT_CAP),
              "@UDPLEN16@": str(8 + ina.HEADER_BYTES + 2 * lanes),
              "@IPLEN16@": str(20 + 8 + ina.HEADER_BYTES + 2 * lanes)}
    for key, lines in per_lane.items():
        text = text.replace(key, "\n".join(lines))
    for key, value in values.items():
        text = text.replace(key, value)
    return ina_p4.render(lanes, text)


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="python -m testbed.proto.luwu_sgd_p4",
                                description="print p4/luwu_sgd.p4 rendered from its template")
    p.add_argument("--model-chunks", type=int, default=MODEL_CHUNKS,
                   help=f"cells of each parameter register: chunks of {ina.LANES} parameters "
                        f"the switch holds (default {MODEL_CHUNKS})")
    args = p.parse_args(argv)
    try:
        sys.stdout.write(render(model_chunks=args.model_chunks))
    except ValueError as err:
        p.error(f"--model-chunks: {err}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
