"""A small P4Runtime client: one connection to one device, as its primary controller.

It arbitrates with an election id on the stream channel, pushes the pipeline (the
P4Info built from the P4 source, with the source itself as the device config), writes
and reads control-plane objects of :mod:`testbed.p4.entries`, and sends/receives
packets on the stream.
"""
from __future__ import annotations

import queue
import threading
from pathlib import Path

import grpc
from p4.v1 import p4runtime_pb2 as pb
from p4.v1 import p4runtime_pb2_grpc as pb_grpc

from testbed.errors import TrainetError
from testbed.p4 import entries as E
from testbed.p4runtime import convert as conv


# every entity type a ReadRequest can ask for, in the order delete_all removes them
# (table entries before the action profile groups and members they use)
ENTITY_KINDS = ("table_entry", "action_profile_group", "action_profile_member",
                "packet_replication_engine_entry", "digest_entry", "value_set_entry",
                "register_entry", "counter_entry", "direct_counter_entry", "meter_entry",
                "direct_meter_entry", "extern_entry")
DELETABLE = ("table_entry", "action_profile_group", "action_profile_member",
             "packet_replication_engine_entry", "digest_entry")


class P4RuntimeError(TrainetError):
    """A request the device refused or a device that cannot be reached."""


def _status_text(err: grpc.RpcError) -> str:
    return f"{err.code().name}: {err.details()}"


# The software switch lowers and compiles a pipeline before it answers its set-up: tens
# of seconds for a large program (p4/ina.p4 rendered with 2048 lanes for a 9000 B MTU
# took 36 s uncached on a loaded 2-core machine), far over the other calls' timeout.
PIPELINE_TIMEOUT_S = 180.0


class P4RuntimeClient:
    def __init__(self, address: str, device_id: int = 0, election_id: tuple = (0, 1),
                 timeout_s: float = 10.0, credentials: grpc.ChannelCredentials | None = None):
        """``credentials``: TLS (``testbed.p4runtime.tls.channel_credentials``); without
        them the channel is plain TCP."""
        self.address = address
        self.device_id = device_id
        self.election_id = pb.Uint128(high=election_id[0], low=election_id[1])
        self.timeout_s = timeout_s
        self.p4info = None
        self._p4info_index = None
        self.channel = (grpc.secure_channel(address, credentials) if credentials
                        else grpc.insecure_channel(address))
        self.stub = pb_grpc.P4RuntimeStub(self.channel)
        self._requests: queue.Queue = queue.Queue()
        self._arbitration: queue.Queue = queue.Queue()
        self.packets_in: queue.Queue = queue.Queue()
        self.stream_errors: list = []
        self._stream = None
        self._reader = None

    # ------------------------------------------------------------ connection
    def connect(self) -> "P4RuntimeClient":
        """Open the stream and become primary; raise P4RuntimeError otherwise."""
        try:
            grpc.channel_ready_future(self.channel).result(timeout=self.timeout_s)
        except grpc.FutureTimeoutError:
            raise P4RuntimeError(f"{self.address}: no P4Runtime server answers within "
                                 f"{self.timeout_s:g} s; is the switch running?") from None
        self._stream = self.stub.StreamChannel(iter(self._requests.get, None))
        self._reader = threading.Thread(target=self._read_stream, daemon=True,
                                        name=f"p4rt-stream-{self.address}")
        self._reader.start()
        req = pb.StreamMessageRequest()
        req.arbitration.device_id = self.device_id
        req.arbitration.election_id.CopyFrom(self.election_id)
        self._requests.put(req)
        try:
            reply = self._arbitration.get(timeout=self.timeout_s)
        except queue.Empty:
            raise P4RuntimeError(f"{self.address}: no arbitration reply within "
                                 f"{self.timeout_s:g} s") from None
        if isinstance(reply, Exception):
            raise P4RuntimeError(f"{self.address}: stream closed during arbitration: "
                                 f"{reply}") from None
        if reply.status.code != 0:
            raise P4RuntimeError(f"{self.address}: not primary for device {self.device_id} "
                                 f"(status {reply.status.code}: {reply.status.message}); "
                                 "another controller holds a higher election id")
        return self

    def _read_stream(self) -> None:
        try:
            for msg in self._stream:
                kind = msg.WhichOneof("update")
                if kind == "arbitration":
                    self._arbitration.put(msg.arbitration)
                elif kind == "packet":
                    self.packets_in.put(msg.packet)
                elif kind == "error":
                    self.stream_errors.append(msg.error)
        except grpc.RpcError as err:
            if err.code() != grpc.StatusCode.CANCELLED:
                self._arbitration.put(err)

    def close(self) -> None:
        self._requests.put(None)
        if self._stream is not None:
            self._stream.cancel()
        self.channel.close()

    def __enter__(self):
        return self.connect()

    def __exit__(self, *exc):
        self.close()

    # ------------------------------------------------------------ pipeline
    def set_pipeline(self, p4info, p4_source: str | Path) -> None:
        """SetForwardingPipelineConfig (VERIFY_AND_COMMIT). The device config is the file
        ``p4_source``: the P4 source for the software switch (it compiles it itself), the
        BMv2 JSON for BMv2."""
        req = pb.SetForwardingPipelineConfigRequest(
            device_id=self.device_id, election_id=self.election_id,
            action=pb.SetForwardingPipelineConfigRequest.VERIFY_AND_COMMIT)
        req.config.p4info.CopyFrom(p4info)
        req.config.p4_device_config = Path(p4_source).read_bytes()
        try:
            self.stub.SetForwardingPipelineConfig(
                req, timeout=max(self.timeout_s, PIPELINE_TIMEOUT_S))
        except grpc.RpcError as err:
            raise P4RuntimeError(f"{self.address}: pipeline {p4_source} refused: "
                                 f"{_status_text(err)}") from None
        self.p4info = p4info

    def get_pipeline_p4info(self):
        req = pb.GetForwardingPipelineConfigRequest(
            device_id=self.device_id,
            response_type=pb.GetForwardingPipelineConfigRequest.P4INFO_AND_COOKIE)
        try:
            reply = self.stub.GetForwardingPipelineConfig(req, timeout=self.timeout_s)
        except grpc.RpcError as err:
            raise P4RuntimeError(f"{self.address}: {_status_text(err)}") from None
        self.p4info = reply.config.p4info
        return self.p4info

    # ------------------------------------------------------------ write / read
    def write(self, entities: list, update_type=pb.Update.INSERT) -> None:
        req = self.write_request()
        for entity in entities:
            req.updates.add(type=update_type, entity=entity)
        self.submit(req)

    def write_request(self) -> pb.WriteRequest:
        """An empty WriteRequest of this client, to fill in place: much faster than
        building entities and copying them in with :meth:`write`."""
        return pb.WriteRequest(device_id=self.device_id, election_id=self.election_id)

    def submit(self, req: pb.WriteRequest) -> None:
        try:
            self.stub.Write(req, timeout=self.timeout_s)
        except grpc.RpcError as err:
            raise P4RuntimeError(f"{self.address}: write refused: {_status_text(err)}") from None

    def read(self, entity) -> list:
        req = self.read_request()
        req.entities.add().CopyFrom(entity)
        return self.fetch(req)

    def read_request(self) -> pb.ReadRequest:
        """An empty ReadRequest of this client, to fill in place (see write_request)."""
        return pb.ReadRequest(device_id=self.device_id)

    def fetch(self, req: pb.ReadRequest) -> list:
        """The entities answering ``req``."""
        out = []
        try:
            for reply in self.stub.Read(req, timeout=self.timeout_s):
                out.extend(reply.entities)
        except grpc.RpcError as err:
            raise P4RuntimeError(f"{self.address}: read refused: {_status_text(err)}") from None
        return out

    def read_everything(self) -> list:
        """One wildcard Read of every entity type, default entries included."""
        req = self.read_request()
        for kind in ENTITY_KINDS:
            getattr(req.entities.add(), kind).SetInParent()
        req.entities.add().table_entry.is_default_action = True
        return self.fetch(req)

    def delete_all(self) -> None:
        """Bring the device back to its program's initial state: delete what a wildcard
        read shows (table entries outside const tables, action profile groups and
        members, multicast groups, clone sessions, digest configurations), reset every
        default entry and empty every value set. Registers, counters and meters keep
        their values: P4Runtime can only modify them."""
        found = [e for e in self.read_everything()
                 if e.WhichOneof("entity") in DELETABLE and not e.table_entry.is_const
                 and not e.table_entry.is_default_action]
        for kind in DELETABLE:
            doomed = [e for e in found if e.WhichOneof("entity") == kind]
            if doomed:
                self.write(doomed, pb.Update.DELETE)
        index = self.p4info_index()
        resets = []
        for table in index.tables.values():
            if not table.const_default_action_id:
                resets.append(pb.Entity(table_entry=pb.TableEntry(table_id=table.id,
                                                                  is_default_action=True)))
        for vs_id in index.value_sets:
            resets.append(pb.Entity(value_set_entry=pb.ValueSetEntry(value_set_id=vs_id)))
        if resets:
            self.write(resets, pb.Update.MODIFY)

    def p4info_index(self) -> conv.P4InfoIndex:
        if self.p4info is None:
            self.get_pipeline_p4info()
        if self._p4info_index is None or self._p4info_index.p4info is not self.p4info:
            self._p4info_index = conv.P4InfoIndex(self.p4info)
        return self._p4info_index

    def _table_entity(self, entry: E.TableEntry, is_default: bool = False) -> pb.Entity:
        index = self.p4info_index()
        if entry.table not in index.table_ids:
            raise P4RuntimeError(f"{self.address}: no table {entry.table!r} in the pipeline")
        if entry.action.action and entry.action.action not in index.action_ids:
            raise P4RuntimeError(f"{self.address}: no action {entry.action.action!r} in the "
                                 "pipeline")
        entity = pb.Entity()
        entity.table_entry.CopyFrom(conv.table_entry_to_p4rt(index, entry, is_default))
        return entity

    def insert_entry(self, entry: E.TableEntry) -> None:
        self.write([self._table_entity(entry)])

    def modify_entry(self, entry: E.TableEntry) -> None:
        self.write([self._table_entity(entry)], pb.Update.MODIFY)

    def delete_entry(self, entry: E.TableEntry) -> None:
        self.write([self._table_entity(entry)], pb.Update.DELETE)

    def set_default(self, table: str, action: E.ActionCall) -> None:
        entity = self._table_entity(E.TableEntry(table, (), action), is_default=True)
        self.write([entity], pb.Update.MODIFY)

    def table_entries(self, table: str) -> list[E.TableEntry]:
        """The entries of ``table`` (not its default action), with counter values."""
        index = self.p4info_index()
        if table not in index.table_ids:
            known = ", ".join(sorted(index.table_ids))
            raise P4RuntimeError(f"{self.address}: no table {table!r} (tables: {known})")
        wanted = pb.Entity()
        wanted.table_entry.table_id = index.table_ids[table]
        return [conv.table_entry_from_p4rt(index, e.table_entry) for e in self.read(wanted)
                if e.HasField("table_entry") and not e.table_entry.is_default_action]

    def table_names(self) -> list[str]:
        return sorted(self.p4info_index().table_ids)

    def set_multicast_group(self, group: E.MulticastGroup, update_type=pb.Update.INSERT) -> None:
        entity = pb.Entity()
        entity.packet_replication_engine_entry.multicast_group_entry.CopyFrom(
            conv.multicast_group_to_p4rt(group))
        self.write([entity], update_type)

    def set_clone_session(self, session: E.CloneSession, update_type=pb.Update.INSERT) -> None:
        entity = pb.Entity()
        entity.packet_replication_engine_entry.clone_session_entry.CopyFrom(
            conv.clone_session_to_p4rt(session))
        self.write([entity], update_type)

    # ------------------------------------------------------------ packets
    def packet_out(self, payload: bytes, metadata: dict | None = None) -> None:
        """Send a packet to the switch's CPU port; ``metadata`` maps packet_out header
        field names to ints."""
        req = pb.StreamMessageRequest()
        req.packet.payload = payload
        header = self.p4info_index().controller.get("packet_out")
        fields = {f.name: f.id for f in header.metadata} if header is not None else {}
        for name, value in (metadata or {}).items():
            if name not in fields:
                raise P4RuntimeError(f"{self.address}: the program's packet_out header has no "
                                     f"field {name!r} (fields: {', '.join(fields) or 'none'})")
            req.packet.metadata.add(metadata_id=fields[name], value=conv.encode(value))
        self._requests.put(req)

    def packet_in(self, timeout_s: float = 1.0):
        """The next packet from the switch (PacketIn message), or None after the timeout."""
        try:
            return self.packets_in.get(timeout=timeout_s)
        except queue.Empty:
            return None
