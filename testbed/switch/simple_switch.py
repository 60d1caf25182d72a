"""``trainet-switch``: simple_switch_grpc's command line on trainet's switch, so Mininet
helpers and scripts that start simple_switch_grpc by path work when pointed at it.

``trainet-switch [options] [PROGRAM | --no-p4] [-- target options]``, PROGRAM being
trainet-p4c's ``.json``, P4 source or a device config file (``testbed.p4runtime.
device_config``). The target options after ``--`` are ``--grpc-server-addr ADDR:PORT``,
``--cpu-port N`` and TLS's: ``--grpc-server-ssl`` with ``--grpc-server-cert`` and
``--grpc-server-key``, ``--grpc-server-cacert`` (the CA of client certificates) and
``--grpc-server-with-client-auth`` (require one). Options of BMv2 features trainet has
no counterpart for (Thrift, nanomsg logs, the debugger, notifications) are accepted with a
one-line note. The switch itself is ``trainet switch``'s
(``testbed.switch.commands.switch``).
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

from testbed.errors import TrainetError, run_command
from testbed.p4.targets import BACKEND_HELP, BACKENDS
from testbed.switch.commands import switch

DEFAULT_GRPC = "127.0.0.1:9559"
LOG_LEVELS = {"trace": "debug", "debug": "debug", "info": "info", "warn": "warning",
              "error": "error", "critical": "error", "off": "critical"}
# accepted, without effect: option -> what to say
NO_COUNTERPART = {
    "thrift_port": "there is no Thrift server; program the switch over P4Runtime",
    "nanolog": "there is no nanomsg event log; use --log-console or --log-file",
    "debugger": "there is no BMv2 debugger; use --log-level debug for the pipeline trace",
    "debugger_addr": "there is no BMv2 debugger",
    "notifications_addr": "there are no nanomsg notifications; digests reach P4Runtime",
}


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="trainet-switch", allow_abbrev=False,
        description="trainet's P4 switch with simple_switch_grpc's options.",
        epilog="target options, after --: --grpc-server-addr ADDR:PORT (default "
        f"{DEFAULT_GRPC}; simple_switch_grpc listens on 0.0.0.0:9559), --cpu-port N, "
        "--grpc-server-ssl --grpc-server-cert PEM --grpc-server-key PEM "
        "[--grpc-server-cacert PEM [--grpc-server-with-client-auth]]")
    p.add_argument("program", nargs="?", help="trainet-p4c's .json, or P4 source")
    p.add_argument("-i", "--interface", action="append", default=[], metavar="PORT@IFACE")
    p.add_argument("--pcap", nargs="?", const=".", metavar="DIR",
                   help="write IFACE_in.pcap and IFACE_out.pcap per port into DIR (default .)")
    p.add_argument("--device-id", type=int, default=0)
    p.add_argument("--no-p4", action="store_true", help="wait for SetForwardingPipelineConfig")
    p.add_argument("--log-console", action="store_true", help="log to the console")
    p.add_argument("--log-file", metavar="FILE", help="log to FILE")
    p.add_argument("--log-level", "-L", choices=list(LOG_LEVELS), default="trace",
                   help="with --log-console or --log-file (default trace)")
    p.add_argument("--log-flush", action="store_true", help="flush the log file after "
                   "every message")
    p.add_argument("--dump-packet-data", type=int, default=0, metavar="N",
                   help="log the first N bytes of every packet in and out")
    p.add_argument("--priority-queues", type=int, default=1, metavar="N",
                   help="egress queues per port, by standard_metadata.priority, strict "
                   "priority (1..8; only ports with a rate ever queue)")
    p.add_argument("--cpu-port", type=int, help="also a target option")
    p.add_argument("--backend", choices=BACKENDS, default="auto", help=BACKEND_HELP)
    p.add_argument("--thrift-port", type=int)
    p.add_argument("--nanolog", metavar="ADDR")
    p.add_argument("--debugger", action="store_true")
    p.add_argument("--debugger-addr", metavar="ADDR")
    p.add_argument("--notifications-addr", metavar="ADDR")
    return p


def _target_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="trainet-switch ... --", allow_abbrev=False)
    p.add_argument("--grpc-server-addr", default=DEFAULT_GRPC, metavar="ADDR:PORT")
    p.add_argument("--cpu-port", type=int)
    p.add_argument("--grpc-server-ssl", action="store_true")
    p.add_argument("--grpc-server-cert", metavar="PEM")
    p.add_argument("--grpc-server-key", metavar="PEM")
    p.add_argument("--grpc-server-cacert", metavar="PEM")
    p.add_argument("--grpc-server-with-client-auth", action="store_true")
    return p


def _tls(target: argparse.Namespace):
    """simple_switch_grpc's TLS target options as a ``ServerTls``, or None."""
    tls_options = [f"--grpc-server-{n}" for n in ("cert", "key", "cacert")
                   if getattr(target, f"grpc_server_{n}")]
    if target.grpc_server_with_client_auth:
        tls_options.append("--grpc-server-with-client-auth")
    if not target.grpc_server_ssl:
        if tls_options:
            raise TrainetError(f"trainet-switch: {' '.join(tls_options)} without "
                               "--grpc-server-ssl: add it to serve TLS, or leave them out")
        return None
    if not target.grpc_server_cert or not target.grpc_server_key:
        raise TrainetError("trainet-switch: --grpc-server-ssl needs --grpc-server-cert and "
                           "--grpc-server-key (PEM files)")
    from testbed.p4runtime.tls import ServerTls
    ca = target.grpc_server_cacert
    return ServerTls(Path(target.grpc_server_cert), Path(target.grpc_server_key),
                     Path(ca) if ca else None, target.grpc_server_with_client_auth,
                     option_names=("--grpc-server-cert", "--grpc-server-key",
                                   "--grpc-server-cacert"))


def parse_args(argv) -> argparse.Namespace:
    """simple_switch_grpc's argv -> the arguments of ``trainet switch``'s handler."""
    argv = list(argv)
    cut = argv.index("--") if "--" in argv else len(argv)
    args = build_parser().parse_args(argv[:cut])
    target = _target_parser().parse_args(argv[cut + 1:])
    for option, why in NO_COUNTERPART.items():
        if getattr(args, option) not in (None, False):
            print(f"trainet-switch: note: --{option.replace('_', '-')} accepted; {why}",
                  file=sys.stderr)
    host, sep, port = target.grpc_server_addr.rpartition(":")
    if not sep or not host or not port.isdigit():
        raise TrainetError(f"trainet-switch: --grpc-server-addr {target.grpc_server_addr}: "
                           "expected ADDR:PORT, e.g. 0.0.0.0:9559")
    logging_on = args.log_console or args.log_file
    return argparse.Namespace(
        program=args.program, include=[], define=[], interface=args.interface,
        device_id=args.device_id, grpc_address=host, grpc_port=int(port), tls=_tls(target),
        cpu_port=target.cpu_port if target.cpu_port is not None else args.cpu_port,
        pcap=args.pcap, log=args.log_file,
        log_level=LOG_LEVELS[args.log_level] if logging_on else "warning",
        log_flush=args.log_flush or not args.log_file, no_p4=args.no_p4, port_shape=[],
        dump_packet_data=args.dump_packet_data, backend=args.backend,
        priority_queues=args.priority_queues)


def main(argv=None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    return run_command(lambda: switch(parse_args(argv)))


if __name__ == "__main__":
    sys.exit(main())
