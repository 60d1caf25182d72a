"""The routing controller: install a switch's runtime config
(:mod:`controllers.runtime_config`) over P4Runtime.

Usable alone::

    python -m controllers.routing --grpc 127.0.0.1:9559 --p4 p4/basic.p4 --runtime s1-runtime.json
"""
from __future__ import annotations

import argparse
import sys

from controllers.runtime_config import program_switch
from testbed.errors import TrainetError


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m controllers.routing",
                                     description="install a runtime config over P4Runtime")
    parser.add_argument("--grpc", required=True, metavar="HOST:PORT",
                        help="P4Runtime address of the switch")
    parser.add_argument("--p4", required=True, help="P4_16 source the switch runs")
    parser.add_argument("--runtime", required=True, help="runtime config (sN-runtime.json)")
    parser.add_argument("--device-id", type=int, default=0)
    parser.add_argument("--election-id", type=int, default=1)
    parser.add_argument("--timeout", type=float, default=10.0,
                        help="seconds to wait for the switch (default: 10)")
    args = parser.parse_args(argv)
    try:
        n = program_switch(args.grpc, args.p4, args.runtime, args.device_id,
                           (0, args.election_id), timeout_s=args.timeout)
    except TrainetError as err:
        print(str(err), file=sys.stderr)
        return err.exit_code
    print(f"{args.grpc}: pipeline {args.p4} set, {n} object(s) written from {args.runtime}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
