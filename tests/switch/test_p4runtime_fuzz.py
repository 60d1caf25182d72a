"""Random and malformed P4Runtime requests leave the server up and change nothing they
were refused: on p4info_features.p4 (every entity type) and on the programs with
@p4runtime_translation types, set with the controller's mapping (values that do not map
are refused too).

Hypothesis sends the server requests of every unary RPC: WriteRequests as
p4rt_requests.py builds them, and the bytes of valid Write, Read and
SetForwardingPipelineConfig requests with bytes flipped, inserted, deleted or cut off,
and bytes of no message at all. A twin server gets only what the fuzzed server accepted
(the accepted updates of each write, an accepted pipeline); after every request a
wildcard Read of both must agree, so a refused request or update changed nothing, and
no answer may be a crash (UNKNOWN) or a target error (INTERNAL).

TRAINET_P4RT_FUZZ_REQUESTS sets how many requests are sent (default 300); the counts
are printed at the end (``pytest -s`` shows them).
"""
import os
from collections import Counter

import grpc
import pytest
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st
from p4.v1 import p4runtime_pb2 as pb

from controllers.p4runtime_client import P4RuntimeClient
from p4rt_client import batch_errors
from p4rt_device import PipelineDevice
from p4rt_requests import FEATURES_PROGRAM, TRANSLATED_PROGRAMS, write_requests
from testbed.switch.p4runtime_server import P4RuntimeServer

REQUESTS = int(os.environ.get("TRAINET_P4RT_FUZZ_REQUESTS", "300"))
PER_EXAMPLE = 3
COUNTS = Counter()
RPC = "/p4.v1.P4Runtime/"
# gRPC's own answer to bytes that do not parse as the request message
UNPARSED = "Exception deserializing request!"


@st.composite
def mutated(draw, data: bytes) -> bytes:
    """``data`` with one to four byte-level edits."""
    data = bytearray(data)
    for _ in range(draw(st.integers(1, 4))):
        op = draw(st.sampled_from(["flip", "set", "insert", "delete", "cut"]))
        i = draw(st.integers(0, max(len(data) - 1, 0)))
        if op == "insert" or not data:
            data[i:i] = draw(st.binary(min_size=1, max_size=8))
        elif op == "flip":
            data[i] ^= 1 << draw(st.integers(0, 7))
        elif op == "set":
            data[i] = draw(st.sampled_from([0x00, 0x7F, 0x80, 0xFF]))
        elif op == "delete":
            del data[i:i + draw(st.integers(1, 8))]
        else:
            del data[i:]
    return bytes(data)


def _pipeline_request(prog, action=pb.SetForwardingPipelineConfigRequest.VERIFY_AND_COMMIT):
    req = pb.SetForwardingPipelineConfigRequest(device_id=1, action=action)
    req.election_id.low = 5
    req.config.p4info.CopyFrom(prog.info)
    req.config.p4_device_config = prog.config
    return req


def _read_request():
    req = pb.ReadRequest(device_id=1)
    for kind in ("table_entry", "packet_replication_engine_entry", "register_entry",
                 "counter_entry", "meter_entry", "value_set_entry", "digest_entry"):
        getattr(req.entities.add(), kind).SetInParent()
    return req


def _elected(req):
    req.election_id.low = 5
    return req


@st.composite
def fuzz_requests(draw, prog):
    """(RPC name, request bytes, whether they are a well-formed request)."""
    kind = draw(st.sampled_from(["write"] * 4 + ["write bytes"] * 3 + ["read bytes",
                                "pipeline bytes", "noise"]))
    if kind == "write":
        return "Write", _elected(draw(write_requests(prog))).SerializeToString(), True
    if kind == "write bytes":
        data = _elected(draw(write_requests(prog))).SerializeToString()
        return "Write", draw(mutated(data)), False
    if kind == "read bytes":
        return "Read", draw(mutated(_read_request().SerializeToString())), False
    if kind == "pipeline bytes":
        action = draw(st.sampled_from(list(pb.SetForwardingPipelineConfigRequest.Action.values())))
        data = _pipeline_request(prog, action).SerializeToString()
        return "SetForwardingPipelineConfig", draw(mutated(data)), False
    rpc = draw(st.sampled_from(["Write", "Read", "SetForwardingPipelineConfig",
                                "GetForwardingPipelineConfig", "Capabilities"]))
    return rpc, draw(st.binary(max_size=64)), False


# ---------------------------------------------------------------- the two servers
class Served:
    """A P4Runtime server on an in-process device, its primary controller, and a channel
    that sends raw bytes."""

    def __init__(self, prog, config_file):
        self.prog, self.config_file = prog, config_file
        self.device = PipelineDevice(device_id=1)
        self.server = P4RuntimeServer(self.device, "127.0.0.1:0").start()
        self.ctl = P4RuntimeClient(f"127.0.0.1:{self.server.port}", device_id=1,
                                   election_id=(0, 5))
        self.ctl.connect()
        self.set_pipeline()

    def set_pipeline(self):
        self.ctl.set_pipeline(self.prog.info, self.config_file)

    def call(self, rpc: str, data: bytes):
        """Send ``data`` as the request of ``rpc``: None, or the refusal's RpcError."""
        streams = rpc == "Read"
        call = (self.ctl.channel.unary_stream if streams else self.ctl.channel.unary_unary)(
            RPC + rpc, request_serializer=None, response_deserializer=None)
        try:
            reply = call(data, timeout=10)
            if streams:
                list(reply)
        except grpc.RpcError as err:
            return err
        return None

    def state(self) -> list[bytes]:
        """Every entity a wildcard Read shows, in a canonical order."""
        return sorted(e.SerializeToString(deterministic=True)
                      for e in self.ctl.read_everything())

    def close(self):
        self.ctl.close()
        self.server.stop()


PROGRAMS = [FEATURES_PROGRAM, *TRANSLATED_PROGRAMS]


@pytest.fixture(scope="module", params=PROGRAMS, ids=[p.path.name for p in PROGRAMS])
def servers(request, tmp_path_factory):
    prog = request.param
    config = tmp_path_factory.mktemp("fuzz") / "device_config"
    config.write_bytes(prog.config)
    COUNTS.clear()
    fuzzed, twin = Served(prog, config), Served(prog, config)
    yield fuzzed, twin
    fuzzed.close()
    twin.close()
    print(f"\nfuzz {prog.path.name}: {COUNTS['requests']} requests ({COUNTS['well-formed']} well-formed "
          f"writes, {COUNTS['mutated']} mutated or random bytes, of which "
          f"{COUNTS['unparsed']} did not parse): {COUNTS['refused']} refused, "
          f"{COUNTS['partly']} writes partly refused, {COUNTS['accepted']} accepted (of them "
          f"{COUNTS['pipelines taken']} pipelines); "
          f"{COUNTS['updates refused']} updates refused; after every request the state "
          f"matched the twin's ({COUNTS['reads']} wildcard reads, all served)")


def _refused_updates(err, n: int) -> list[bool]:
    """Which updates of a refused Write were refused (all, without per-update details)."""
    if not dict(err.trailing_metadata() or ()).get("grpc-status-details-bin"):
        return [True] * n
    return [e.canonical_code != 0 for e in batch_errors(err)]


def _check_refusal(err) -> None:
    """A refusal is a status a client can act on: never a crash (UNKNOWN, except as the
    overall status of a batch with per-update errors, as the spec has it) nor a failure
    of the target (INTERNAL), with a message under 1 KiB."""
    code, message = err.code(), err.details() or ""
    if code == grpc.StatusCode.INTERNAL and message == UNPARSED:
        COUNTS["unparsed"] += 1
        return
    if dict(err.trailing_metadata() or ()).get("grpc-status-details-bin"):
        statuses = [(e.canonical_code, e.message) for e in batch_errors(err)]
    else:
        statuses = [(code.value[0], message)]
    for code, message in statuses:
        assert code not in (grpc.StatusCode.UNKNOWN.value[0],
                            grpc.StatusCode.INTERNAL.value[0]), message
        assert len(message) < 1024, message


def _taken(rpc: str, data: bytes, err) -> bytes | None:
    """What the fuzzed server took of ``data``, as a request for the twin: the applied
    updates of a Write, an accepted pipeline, or None. Counts the outcome."""
    if rpc == "Write":
        try:
            req = pb.WriteRequest.FromString(data)
        except Exception:                           # the server cannot parse it either
            assert err is not None
            COUNTS["refused"] += 1
            return None
        refused = _refused_updates(err, len(req.updates)) if err else [False] * len(req.updates)
        kept = [u for u, r in zip(req.updates, refused) if not r]
        COUNTS["updates refused"] += sum(refused)
        COUNTS["accepted" if not any(refused) else "partly" if kept else "refused"] += 1
        if not kept:
            return None
        del req.updates[:]
        req.updates.extend(kept)
        return req.SerializeToString()
    COUNTS["refused" if err is not None else "accepted"] += 1
    return data if rpc == "SetForwardingPipelineConfig" and err is None else None


@pytest.mark.slow
@settings(max_examples=max(-(-REQUESTS // PER_EXAMPLE), 1), deadline=None, derandomize=True,
          phases=(Phase.explicit, Phase.generate),   # a failure names its request's bytes
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow,
                                 HealthCheck.data_too_large])
@given(data=st.data())
def test_refused_requests_change_nothing(servers, data):
    fuzzed, twin = servers
    for side in servers:
        if COUNTS["pipelines"]:           # a fuzzed pipeline was taken: back to the program
            side.set_pipeline()
        side.ctl.delete_all()
    COUNTS["pipelines"] = 0
    requests = data.draw(st.lists(fuzz_requests(fuzzed.prog), min_size=PER_EXAMPLE,
                                  max_size=PER_EXAMPLE))
    for rpc, data, well_formed in requests:
        COUNTS["requests"] += 1
        COUNTS["well-formed" if well_formed else "mutated"] += 1
        err = fuzzed.call(rpc, data)
        if err is not None:
            _check_refusal(err)
        taken = _taken(rpc, data, err)
        if taken is not None:
            if rpc == "SetForwardingPipelineConfig":
                COUNTS["pipelines"] += 1
                COUNTS["pipelines taken"] += 1
            assert twin.call(rpc, taken) is None, (rpc, taken.hex())
        COUNTS["reads"] += 2
        assert fuzzed.state() == twin.state(), (rpc, data.hex())
