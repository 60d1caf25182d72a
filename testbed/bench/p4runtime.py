"""``trainet bench p4runtime``: control-plane rates of the P4Runtime server.

A gRPC client on 127.0.0.1 loads p4/basic.p4 with SetForwardingPipelineConfig and fills
``MyIngress.ipv4_lpm`` with /24 routes: one update per Write, then 100 updates per
Write, then reads them all back. The same-run baseline inserts the same entries through
the target's own API, so the ratio is what P4Runtime (gRPC, protobuf, validation) adds.
The updates are built before the clock starts: the rates are the server's, not the
client's message building.
"""
from __future__ import annotations

import json
import queue
import time
from pathlib import Path

import grpc
from p4.v1 import p4runtime_pb2 as pb
from p4.v1 import p4runtime_pb2_grpc

from testbed.errors import TrainetError
from testbed.p4 import entries as E
from testbed.p4 import p4info
from testbed.p4.lowering.program import load_program
from testbed.p4.python.target import Target
from testbed.p4runtime.convert import P4InfoIndex, table_entry_to_p4rt
from testbed.switch.p4runtime_server import P4RuntimeServer

BASIC = Path(__file__).resolve().parents[2] / "p4" / "basic.p4"
TABLE, ACTION = "MyIngress.ipv4_lpm", "MyIngress.ipv4_forward"
BATCH = 100
ROUNDS = 3
MAX_ENTRIES = 1024           # the size of MyIngress.ipv4_lpm


class PortlessDevice:
    """A device without ports: the server's writes land in a bare target."""

    def __init__(self):
        self.device_id, self.cpu_port, self.target = 1, None, None
        self.packet_in_handler = None

    def load_pipeline(self, program):
        self.target = Target(program)

    def packet_out(self, frame):
        raise E.ControlPlaneError("FAILED_PRECONDITION", "the benchmark device has no ports")


def _route(i: int) -> E.TableEntry:
    return E.TableEntry(TABLE, (E.Lpm((10 << 24) | (i << 8), 24),),
                        E.ActionCall(ACTION, {"dstAddr": 0x020000000000 + i, "port": i % 8}))


def _update(index, i: int) -> pb.Update:
    u = pb.Update(type=pb.Update.INSERT)
    u.entity.table_entry.CopyFrom(table_entry_to_p4rt(index, _route(i)))
    return u


def _rate(n: int, fn) -> float:
    t0 = time.perf_counter()
    fn()
    return n / (time.perf_counter() - t0)


def measure(n: int, rounds: int = ROUNDS) -> dict:
    """Entries/s of each way in; every way runs ``rounds`` times, turn about, and keeps its
    best round, which filters out other processes on a shared machine."""
    program = load_program(BASIC)
    info = p4info.build(program)
    index = P4InfoIndex(info)
    baseline = Target(program)
    device = PortlessDevice()
    server = P4RuntimeServer(device, "127.0.0.1:0").start()
    channel = grpc.insecure_channel(f"127.0.0.1:{server.port}")
    requests = queue.Queue()
    try:
        stub = p4runtime_pb2_grpc.P4RuntimeStub(channel)
        election = pb.Uint128(low=1)
        requests.put(pb.StreamMessageRequest(arbitration=pb.MasterArbitrationUpdate(
            device_id=1, election_id=election)))
        stream = stub.StreamChannel(iter(requests.get, None))
        next(stream)
        req = pb.SetForwardingPipelineConfigRequest(
            device_id=1, election_id=election,
            action=pb.SetForwardingPipelineConfigRequest.VERIFY_AND_COMMIT)
        req.config.p4info.CopyFrom(info)
        req.config.p4_device_config = BASIC.read_bytes()
        t0 = time.perf_counter()
        stub.SetForwardingPipelineConfig(req)
        set_ms = (time.perf_counter() - t0) * 1e3
        updates = [_update(index, i) for i in range(n)]

        def write(chunk):
            stub.Write(pb.WriteRequest(device_id=1, election_id=election, updates=chunk))

        def direct():
            for i in range(n):
                baseline.table_insert(_route(i))

        def single():
            for u in updates:
                write([u])

        def batched():
            for start in range(0, n, BATCH):
                write(updates[start:start + BATCH])

        best = {"direct": 0.0, "single": 0.0, "batched": 0.0}
        for _ in range(rounds):
            for name, fn in (("direct", direct), ("single", single), ("batched", batched)):
                baseline.table_clear(TABLE)
                device.target.table_clear(TABLE)
                best[name] = max(best[name], _rate(n, fn))
        read = pb.ReadRequest(device_id=1)
        read.entities.add().table_entry.table_id = index.table_ids[TABLE]
        read_rate = _rate(n, lambda: sum(len(r.entities) for r in stub.Read(read)))
    finally:
        requests.put(None)
        channel.close()
        server.stop()
    return {"entries": n, "rounds": rounds, "set_pipeline_ms": set_ms,
            "target_api_entries_per_s": best["direct"],
            "write_1_per_request_entries_per_s": best["single"],
            f"write_{BATCH}_per_request_entries_per_s": best["batched"],
            "read_entries_per_s": read_rate}


def main(args) -> int:
    if not 1 <= args.entries <= MAX_ENTRIES:
        raise TrainetError(f"--entries {args.entries}: give 1..{MAX_ENTRIES}, the size of "
                           f"{TABLE} in p4/basic.p4")
    r = measure(args.entries)
    if args.json:
        print(json.dumps(r, indent=2))
        return 0
    base = r["target_api_entries_per_s"]
    print(f"P4Runtime control plane, p4/basic.p4, {r['entries']} LPM entries, "
          f"best of {r['rounds']} rounds")
    print(f"  SetForwardingPipelineConfig          {r['set_pipeline_ms']:10.1f} ms")
    print(f"  baseline: target API inserts         {base:10.0f} entries/s")
    for key, label in (("write_1_per_request_entries_per_s", "Write, 1 update per request"),
                       (f"write_{BATCH}_per_request_entries_per_s",
                        f"Write, {BATCH} updates per request"),
                       ("read_entries_per_s", "Read, whole table")):
        print(f"  {label:<36} {r[key]:10.0f} entries/s ({r[key] / base:.2f}x baseline)")
    return 0
