"""Render p4/luwu.p4 from its template p4/luwu.p4.in with the lane count of
:mod:`testbed.proto.ina` (the same placeholders as p4/ina.p4.in). A test checks that the
checked-in p4/luwu.p4 is what this renders. After changing the template or LANES::

    python -m testbed.proto.luwu_p4 > p4/luwu.p4
"""
from __future__ import annotations

import sys

from testbed.proto import ina, ina_p4

TEMPLATE = ina_p4.TEMPLATE.with_name("luwu.p4.in")


def render(lanes: int = ina.LANES) -> str:
    return ina_p4.render(lanes, TEMPLATE.read_text())


if __name__ == "__main__":
    sys.stdout.write(render())
