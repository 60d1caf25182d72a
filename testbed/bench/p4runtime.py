"""``trainet bench p4runtime``: control-plane rates of the P4Runtime server.

A gRPC client on 127.0.0.1 loads p4/basic.p4 with SetForwardingPipelineConfig and fills
``MyIngress.ipv4_lpm`` with /24 routes in Writes of 1, 100 and 1000 updates, then reads
the table back with wildcard Reads: the first after the writes, and one again (a
controller polling its tables), which finds every entry's encoding kept. Single-update
Writes also go pipelined, as asynchronous controllers send them: up to ``PIPELINE_DEPTH``
unary calls in flight from one client (grpc futures). In the same run, and over the same
channel kind,
the same messages go to a transport-only server: a servicer that answers every Write
with an empty WriteResponse and every Read with a prebuilt response holding as many
entries. Its rates are what gRPC and protobuf alone allow on this machine, so the ratio
of the two is what the server itself costs. A third column calls the server's service in
the same process with the same (already parsed) requests: what the server would reach
over a free transport. The updates are built before the clock starts: the rates are the
server's, not the client's message building.
"""
from __future__ import annotations

import json
import queue
import time
from collections import deque
from pathlib import Path

import grpc
from p4.v1 import p4runtime_pb2 as pb
from p4.v1 import p4runtime_pb2_grpc

from testbed.errors import TrainetError
from testbed.p4 import entries as E
from testbed.p4 import p4info
from testbed.p4.lowering.program import load_program
from testbed.p4.targets import make_target
from testbed.p4runtime.convert import P4InfoIndex, table_entry_to_p4rt
from testbed.switch.p4runtime_server import P4RuntimeServer

BASIC = Path(__file__).resolve().parents[2] / "p4" / "basic.p4"
TABLE, ACTION = "MyIngress.ipv4_lpm", "MyIngress.ipv4_forward"
BATCHES = (1, 100, 1000)
ROUNDS = 3
PIPELINE_DEPTH = 32          # single-update Writes in flight in the pipelined row
MAX_ENTRIES = 1024           # the size of MyIngress.ipv4_lpm


class PortlessDevice:
    """A device without ports: the server's writes land in a bare target."""

    def __init__(self, backend: str = "python"):
        self.device_id, self.cpu_port, self.target = 1, None, None
        self.backend = backend
        self.packet_in_handler = None

    def load_pipeline(self, program):
        self.target = make_target(program, self.backend)

    def packet_out(self, frame):
        raise E.ControlPlaneError("FAILED_PRECONDITION", "the benchmark device has no ports")


class TransportOnly(p4runtime_pb2_grpc.P4RuntimeServicer):
    """Answers the benchmark's messages without looking at them: the transport's bound."""

    def __init__(self):
        self.read_responses = []          # the server's answer to the same Read

    def Write(self, request, context):
        return pb.WriteResponse()

    def Read(self, request, context):
        yield from self.read_responses


def _route(i: int) -> E.TableEntry:
    return E.TableEntry(TABLE, (E.Lpm((10 << 24) | (i << 8), 24),),
                        E.ActionCall(ACTION, {"dstAddr": 0x020000000000 + i, "port": i % 8}))


def _update(index, i: int) -> pb.Update:
    u = pb.Update(type=pb.Update.INSERT)
    u.entity.table_entry.CopyFrom(table_entry_to_p4rt(index, _route(i)))
    return u


def _seconds(fn) -> float:
    t0 = time.perf_counter()
    fn()
    return time.perf_counter() - t0


class _Client:
    """The benchmark's client of one server: writes in batches and one wildcard read."""

    def __init__(self, port: int, updates: list, read: pb.ReadRequest):
        self.channel = grpc.insecure_channel(f"127.0.0.1:{port}")
        self.stub = p4runtime_pb2_grpc.P4RuntimeStub(self.channel)
        self.updates, self.read = updates, read
        self.election = pb.Uint128(low=1)

    def write_all(self, batch: int) -> None:
        for start in range(0, len(self.updates), batch):
            self.stub.Write(pb.WriteRequest(device_id=1, election_id=self.election,
                                            updates=self.updates[start:start + batch]))

    def write_pipelined(self, depth: int = PIPELINE_DEPTH) -> None:
        """Single-update Writes with up to ``depth`` in flight: each waits only for the
        answer ``depth`` requests back."""
        in_flight = deque()
        for u in self.updates:
            if len(in_flight) >= depth:
                in_flight.popleft().result()
            in_flight.append(self.stub.Write.future(pb.WriteRequest(
                device_id=1, election_id=self.election, updates=[u])))
        for call in in_flight:
            call.result()

    def read_all(self) -> int:
        return sum(len(r.entities) for r in self.stub.Read(self.read))


class _InProcess:
    """The same requests handed to the service's RPC methods directly, without gRPC."""

    def __init__(self, service, updates: list, read: pb.ReadRequest):
        self.service, self.updates, self.read = service, updates, read
        self.election = pb.Uint128(low=1)
        self.requests = {}

    def write_all(self, batch: int) -> None:
        if batch not in self.requests:             # parsed messages, as gRPC hands them
            self.requests[batch] = [
                pb.WriteRequest(device_id=1, election_id=self.election,
                                updates=self.updates[start:start + batch])
                for start in range(0, len(self.updates), batch)]
        for request in self.requests[batch]:
            self.service.Write(request, None)

    def read_all(self) -> int:
        return sum(len(r.entities) for r in self.service.Read(self.read, None))


def _start(servicer) -> tuple:
    from concurrent import futures
    executor = futures.ThreadPoolExecutor(max_workers=4)
    server = grpc.server(executor)
    p4runtime_pb2_grpc.add_P4RuntimeServicer_to_server(servicer, server)
    port = server.add_insecure_port("127.0.0.1:0")
    server.start()
    return server, port


def measure(n: int, rounds: int = ROUNDS, backend: str = "native") -> dict:
    """Entries/s of every way in, on the server and on the transport alone; every
    measurement runs ``rounds`` times, turn about, and keeps its best round, which filters
    out other processes on a shared machine."""
    program = load_program(BASIC)
    info = p4info.build(program)
    index = P4InfoIndex(info)
    device = PortlessDevice(backend)
    server = P4RuntimeServer(device, "127.0.0.1:0").start()
    empty = TransportOnly()
    bare, bare_port = _start(empty)
    updates = [_update(index, i) for i in range(n)]
    read = pb.ReadRequest(device_id=1)
    read.entities.add().table_entry.table_id = index.table_ids[TABLE]
    client, transport = _Client(server.port, updates, read), _Client(bare_port, updates, read)
    local = _InProcess(server.servicer, updates, read)
    requests = queue.Queue()
    try:
        requests.put(pb.StreamMessageRequest(arbitration=pb.MasterArbitrationUpdate(
            device_id=1, election_id=client.election)))
        stream = client.stub.StreamChannel(iter(requests.get, None))
        next(stream)
        req = pb.SetForwardingPipelineConfigRequest(
            device_id=1, election_id=client.election,
            action=pb.SetForwardingPipelineConfigRequest.VERIFY_AND_COMMIT)
        req.config.p4info.CopyFrom(info)
        req.config.p4_device_config = BASIC.read_bytes()
        set_ms = _seconds(lambda: client.stub.SetForwardingPipelineConfig(req)) * 1e3
        target = device.target
        # the server writes last, so the reads find its entries
        ways = {"in_process": local, "transport": transport, "server": client}
        best = {(who, k): 0.0 for who in ways for k, _ in ROWS}

        def keep(who: str, key: str, seconds: float) -> None:
            best[who, key] = max(best[who, key], n / seconds)

        for _ in range(rounds):
            for key, write in _writes():
                for who, way in ways.items():
                    if who == "in_process" and key == "write_pipelined":
                        continue           # nothing to pipeline without a transport
                    target.table_clear(TABLE)
                    keep(who, key, _seconds(lambda: write(way)))
            got = []
            keep("server", "read_first", _seconds(lambda: got.append(client.read_all())))
            if got != [n]:
                raise TrainetError(f"the benchmark read {got[0]} entries back, wrote {n}")
            answer = [r.SerializeToString() for r in client.stub.Read(read)]
            for who, way in ways.items():
                # a fresh copy of the server's answer each time: protobuf caches the sizes
                # of a message it has serialised, which the server's new answers lack
                empty.read_responses = [pb.ReadResponse.FromString(r) for r in answer]
                keep(who, "read", _seconds(way.read_all))
        best["transport", "read_first"] = best["transport", "read"]     # the same answer
    finally:
        requests.put(None)
        client.channel.close()
        transport.channel.close()
        server.stop()
        bare.stop(0).wait()
    out = {"entries": n, "rounds": rounds, "backend": target.backend,
           "set_pipeline_ms": set_ms}
    for k, _ in ROWS:
        out[f"{k}_entries_per_s"] = best["server", k]
        out[f"in_process_{k}_entries_per_s"] = best["in_process", k] or None
        out[f"transport_{k}_entries_per_s"] = best["transport", k]
    return out


def _writes() -> list:
    """(row key, how a way writes every update) in the order they run; the server's
    batches of 1000 come last, so the reads that follow find its entries."""
    out = [("write_1", lambda way: way.write_all(1)),
           ("write_pipelined", lambda way: way.write_pipelined())]
    return out + [(f"write_{b}", lambda way, b=b: way.write_all(b)) for b in BATCHES[1:]]


ROWS = [("write_1", "Write, 1 update per request"),
        ("write_pipelined", f"Write, 1 update, {PIPELINE_DEPTH} in flight"),
        *((f"write_{b}", f"Write, {b} updates per request") for b in BATCHES[1:]),
        ("read_first", "Read, whole table, first"),
        ("read", "Read, whole table, again")]


def main(args) -> int:
    if not 1 <= args.entries <= MAX_ENTRIES:
        raise TrainetError(f"--entries {args.entries}: give 1..{MAX_ENTRIES}, the size of "
                           f"{TABLE} in p4/basic.p4")
    r = measure(args.entries, backend=args.backend)
    if args.json:
        print(json.dumps(r, indent=2))
        return 0
    print(f"P4Runtime control plane, p4/basic.p4 on the {r['backend']} backend, "
          f"{r['entries']} LPM entries, best of {r['rounds']} rounds")
    print(f"  SetForwardingPipelineConfig {r['set_pipeline_ms']:10.1f} ms")
    print(f"  {'entries/s':<34} {'server':>10} {'transport':>10} {'ratio':>6} "
          f"{'no gRPC':>10}")
    for key, label in ROWS:
        own, bound = r[f"{key}_entries_per_s"], r[f"transport_{key}_entries_per_s"]
        alone = r[f"in_process_{key}_entries_per_s"]
        alone = f"{alone:10.0f}" if alone else f"{'-':>10}"
        print(f"  {label:<34} {own:10.0f} {bound:10.0f} {own / bound:6.2f} {alone}")
    print("  transport: a servicer answering the same messages without looking at them;")
    print("  no gRPC: the server's service called in this process with the parsed requests;")
    print(f"  {PIPELINE_DEPTH} in flight: one client's unary calls as grpc futures; first: the")
    print("  read right after the writes, again: a repeated read (entries' encodings kept)")
    return 0
