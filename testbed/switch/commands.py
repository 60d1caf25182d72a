"""Handler of ``trainet switch`` and the parsing of its port arguments (the shaping
ones are :mod:`testbed.switch.port_shape`'s)."""
from __future__ import annotations

import logging
import signal
import sys
from pathlib import Path

from testbed.errors import TrainetError
from testbed.switch import stats as switch_stats
from testbed.switch.port_shape import parse_port_shape

def parse_interface(text: str) -> tuple:
    """``PORT@IFACE`` -> (port, iface)."""
    port, sep, ifname = text.partition("@")
    if not sep or not port.isdigit() or not ifname:
        raise TrainetError(f"-i {text!r}: expected PORT@IFACE, e.g. -i 1@s1-eth1")
    return int(port), ifname


def _logger(device_id: int, path: str | None, level: str, flush: bool = True) -> logging.Logger:
    log = logging.getLogger(f"trainet.switch.{device_id}")
    log.setLevel(getattr(logging, level.upper()))
    log.propagate = False
    try:
        handler = (_FileHandler(path, flush) if path else logging.StreamHandler(sys.stderr))
    except OSError as e:
        raise TrainetError(f"--log {path}: cannot open: {e.strerror}") from None
    handler.setFormatter(logging.Formatter("%(asctime)s.%(msecs)03d %(name)s "
                                           "%(levelname)s %(message)s", "%H:%M:%S"))
    log.addHandler(handler)
    return log


class _FileHandler(logging.FileHandler):
    """A log file flushed after every record, or only when its buffer fills
    (``flush=False``: fewer writes on a busy switch)."""

    def __init__(self, path: str, flush: bool):
        super().__init__(path)
        self.flush_each = flush

    def flush(self) -> None:
        if self.flush_each:
            super().flush()


def server_tls(args):
    """The ``ServerTls`` of ``--grpc-cert``/``--grpc-key``/``--grpc-client-ca``, or None;
    ``trainet-switch`` hands over a ready one as ``args.tls``."""
    if hasattr(args, "tls"):
        return args.tls
    if not args.grpc_cert and not args.grpc_key:
        if args.grpc_client_ca:
            raise TrainetError("--grpc-client-ca needs TLS: give --grpc-cert and --grpc-key "
                               "too")
        return None
    if not args.grpc_cert or not args.grpc_key:
        missing = "--grpc-key" if args.grpc_cert else "--grpc-cert"
        raise TrainetError(f"TLS needs both --grpc-cert and --grpc-key: give {missing} too")
    from testbed.p4runtime.tls import ServerTls
    return ServerTls(Path(args.grpc_cert), Path(args.grpc_key),
                     Path(args.grpc_client_ca) if args.grpc_client_ca else None,
                     require_client_auth=bool(args.grpc_client_ca))


def _grpc_server(switch, address: str, tls):
    try:
        from testbed.switch.p4runtime_server import P4RuntimeServer
    except ModuleNotFoundError as e:
        if e.name != "testbed.switch.p4runtime_server":
            raise
        switch.log.warning("P4Runtime server not available; running without gRPC")
        return None
    server = P4RuntimeServer(switch, address, tls=tls)
    server.start()
    return server


def switch(args) -> int:
    from testbed.switch.switch import SoftwareSwitch

    if not 1 <= args.priority_queues <= 8:
        raise TrainetError(f"--priority-queues {args.priority_queues}: give 1 to 8 "
                           "(standard_metadata.priority has 3 bits)")
    ports = dict(parse_interface(t) for t in args.interface)
    if len(ports) != len(args.interface):
        raise TrainetError("-i: a port number is given twice; give each port once")
    shapes = dict(parse_port_shape(t) for t in args.port_shape)
    tls = server_tls(args)
    if args.no_p4 == bool(args.program):
        raise TrainetError("trainet switch: give a P4 program or --no-p4 (to wait for "
                           "SetForwardingPipelineConfig), not both or neither")
    program = None
    if args.program:
        from testbed.p4.frontend.preprocess import parse_defines
        from testbed.p4runtime.device_config import program_from_file
        program = program_from_file(args.program, args.include, parse_defines(args.define))
    log = _logger(args.device_id, args.log, args.log_level, args.log_flush)
    sw = SoftwareSwitch(ports, device_id=args.device_id, cpu_port=args.cpu_port,
                        shapes=shapes, pcap_dir=args.pcap, log=log,
                        dump_bytes=args.dump_packet_data, backend=args.backend,
                        priority_queues=args.priority_queues)
    sw.program_file = args.program
    server = None
    try:
        if program is not None:
            sw.load_pipeline(program)
        address = f"{args.grpc_address}:{args.grpc_port}"
        server = _grpc_server(sw, address, tls)
        for sig in (signal.SIGTERM, signal.SIGINT):
            signal.signal(sig, lambda *_: sw.stop())
        # a signal lands on any thread (gRPC's too), and Python runs its handler only
        # once the main thread runs Python: the byte Python writes for it wakes the packet
        # loop where it waits in native code
        signal.set_wakeup_fd(sw.wakeup_fd)
        if getattr(args, "stats", None):
            sw.stats_path = args.stats
            signal.signal(switch_stats.SIGNAL, lambda *_: sw.request_stats())
        port_list = " ".join(f"{n}@{i}" for n, i in sorted(ports.items()))
        grpc_text = (f"P4Runtime on {args.grpc_address}:{server.port}"
                     f"{' over TLS' if tls else ''}" if server else "no P4Runtime")
        print(f"trainet switch: device {args.device_id} running; ports {port_list}; "
              f"{grpc_text}", flush=True)
        sw.run()
    finally:
        signal.set_wakeup_fd(-1)
        if server is not None:
            server.stop()
        sw.close()
    drops = {k: v for k, v in sw.drop_counts().items() if v}
    counters = sw.port_counters()
    print(f"trainet switch: device {args.device_id} stopped; "
          + ", ".join(f"port {n}: {c['rx_packets']} packets in, {c['tx_packets']} packets "
                      f"out" for n, c in counters.items())
          + f"; drops (packets): {drops or 'none'}", flush=True)
    return 0
