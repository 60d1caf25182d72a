"""A small P4Runtime client for the server tests: a real gRPC channel and stub, a
StreamChannel fed from a queue, helpers for the common requests."""
import queue
import threading

import grpc
from google.rpc import status_pb2
from p4.v1 import p4runtime_pb2, p4runtime_pb2_grpc


class Client:
    def __init__(self, address, device_id, election_id, role=""):
        self.role = role                  # the P4Runtime role its requests name
        self.channel = grpc.insecure_channel(address)
        self.stub = p4runtime_pb2_grpc.P4RuntimeStub(self.channel)
        self.device_id = device_id
        self.election_id = election_id
        self._requests = queue.Queue()
        self.responses = queue.Queue()
        self._call = self.stub.StreamChannel(iter(self._requests.get, None))
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def _read(self):
        try:
            for msg in self._call:
                self.responses.put(msg)
        except grpc.RpcError as e:
            self.responses.put(e)

    def send(self, msg):
        self._requests.put(msg)

    def arbitrate(self, election_id=None, role_config=None):
        """Arbitrate for ``self.role``; ``role_config`` is packed into role.config."""
        if election_id is not None:
            self.election_id = election_id
        msg = p4runtime_pb2.StreamMessageRequest()
        msg.arbitration.device_id = self.device_id
        msg.arbitration.election_id.low = self.election_id
        msg.arbitration.role.name = self.role
        if role_config is not None:
            msg.arbitration.role.config.Pack(role_config)
        self.send(msg)
        return self.next("arbitration")

    def next(self, kind, timeout=5.0):
        """The next stream response of ``kind`` (others are skipped)."""
        while True:
            msg = self.responses.get(timeout=timeout)
            if isinstance(msg, grpc.RpcError):
                raise msg
            if msg.WhichOneof("update") == kind:
                return getattr(msg, kind)

    def set_pipeline(self, p4info, source, action=None, cookie=7):
        req = p4runtime_pb2.SetForwardingPipelineConfigRequest(
            device_id=self.device_id, role=self.role,
            action=action or p4runtime_pb2.SetForwardingPipelineConfigRequest.VERIFY_AND_COMMIT)
        req.election_id.low = self.election_id
        req.config.p4info.CopyFrom(p4info)
        req.config.p4_device_config = source
        req.config.cookie.cookie = cookie
        return self.stub.SetForwardingPipelineConfig(req)

    def write(self, *updates, atomicity=0):
        req = p4runtime_pb2.WriteRequest(device_id=self.device_id, atomicity=atomicity,
                                         role=self.role)
        req.election_id.low = self.election_id
        for utype, entity in updates:
            u = req.updates.add(type=utype)
            u.entity.CopyFrom(entity)
        return self.stub.Write(req)

    def read(self, *entities):
        req = p4runtime_pb2.ReadRequest(device_id=self.device_id)
        req.entities.extend(entities)
        return [e for resp in self.stub.Read(req) for e in resp.entities]

    def close(self):
        self._requests.put(None)
        self._call.cancel()
        self.channel.close()


def batch_errors(err: grpc.RpcError) -> list:
    """The p4.v1.Error list of a failed batch write."""
    for key, value in err.trailing_metadata() or ():
        if key == "grpc-status-details-bin":
            status = status_pb2.Status.FromString(value)
            out = []
            for detail in status.details:
                e = p4runtime_pb2.Error()
                detail.Unpack(e)
                out.append(e)
            return out
    raise AssertionError("no grpc-status-details-bin in the trailing metadata")
