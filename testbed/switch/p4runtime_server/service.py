"""The P4Runtime service of one device: the RPCs, arbitration, the forwarding pipeline,
and a dispatcher that hands each entity of a Write or Read to its kind's handler
(:mod:`testbed.switch.p4runtime_server.entities`) and owns the batch: a Write's updates are
applied in order under the target's lock, as one atomic batch with ROLLBACK_ON_ERROR
(the applied ones undone when one fails), each on its own with CONTINUE_ON_ERROR; a
Read's entities are answered in responses of at most ``READ_CHUNK_BYTES``.

The *device* it serves has ``device_id``, ``cpu_port``, ``target`` (a
``testbed.p4.target.Target`` or None), ``load_pipeline(program)``, ``packet_out(frame)``
and a ``packet_in_handler`` attribute this service sets. When the device has a ``lock``
attribute, every call into its target holds it (the software switch's packet thread
takes the same lock).
"""
from __future__ import annotations

import gc
import importlib.metadata
import itertools
import logging
import threading
import time

import grpc
from p4.v1 import p4runtime_pb2, p4runtime_pb2_grpc

from testbed.errors import TrainetError
from testbed.p4 import entries as E
from testbed.p4runtime import convert as C
from testbed.switch.p4runtime_server import pipeline as P
from testbed.switch.p4runtime_server.arbitration import Arbiter, Stream, request_role
from testbed.switch.p4runtime_server.entities import HANDLERS
from testbed.switch.p4runtime_server.roles import denied
from testbed.switch.p4runtime_server.status import RpcError, bounded, fail_batch, grpc_code

U = p4runtime_pb2.Update
PIPE = p4runtime_pb2.SetForwardingPipelineConfigRequest
API_VERSION = importlib.metadata.version("p4runtime")
READ_CHUNK_BYTES = 1 << 20    # a ReadResponse is cut after this many bytes of entities
NO_PIPELINE = "no forwarding pipeline; send SetForwardingPipelineConfig first"


class P4RuntimeService(p4runtime_pb2_grpc.P4RuntimeServicer):
    def __init__(self, device, log: logging.Logger):
        self.device = device
        self.log = log
        self.lock = threading.RLock()                 # server state: streams, pipeline
        self.target_lock = getattr(device, "lock", None) or threading.RLock()
        self.arbiter = Arbiter(device.device_id, self.lock)
        self.pipeline: P.ForwardingPipeline | None = None
        self.saved: P.ForwardingPipeline | None = None   # VERIFY_AND_SAVE, waiting for COMMIT
        self.digest_list_ids = itertools.count(1)
        device.packet_in_handler = self._packet_in
        if device.target is not None:
            self.pipeline = P.adopted(device.target.program,
                                      getattr(device, "program_file", None))
            device.target.digest_handler = self._digest
            _settle_heap()

    # ------------------------------------------------------------ stream channel
    def StreamChannel(self, request_iterator, context):
        stream = self.arbiter.open()
        done = object()

        def reader():
            try:
                for req in request_iterator:
                    self._stream_request(stream, req)
            except RpcError as e:
                stream.out.put(e)
            except grpc.RpcError:
                pass                     # the client went away
            except Exception as e:       # never let a bad message kill the server
                self.log.exception("stream request failed")
                stream.out.put(RpcError("INTERNAL", f"{type(e).__name__}: {e}"))
            finally:
                stream.out.put(done)

        threading.Thread(target=reader, daemon=True, name="p4rt-stream").start()
        try:
            while True:
                item = stream.out.get()
                if item is done:
                    return
                if isinstance(item, RpcError):
                    context.abort(grpc_code(item.code), bounded(item.message))
                yield item
        finally:
            self.arbiter.close(stream)

    def _stream_request(self, stream: Stream, req) -> None:
        kind = req.WhichOneof("update")
        if kind == "arbitration":
            self.arbiter.arbitrate(stream, req.arbitration)
            return
        if stream.election_id is None:
            raise RpcError("FAILED_PRECONDITION", "send a MasterArbitrationUpdate first")
        if kind == "packet":
            self._packet_out(stream, req.packet)
        elif kind == "digest_ack":
            pass                 # digests are never held back waiting for an ack
        else:
            _stream_error(stream, "UNIMPLEMENTED", f"stream message {kind} is not supported")

    def _packet_out(self, stream: Stream, packet: p4runtime_pb2.PacketOut) -> None:
        with self.lock:
            pipeline = self.pipeline
            primary = self.arbiter.primary(stream.role)
        if stream is not primary:
            _stream_error(stream, "PERMISSION_DENIED",
                          "only the primary controller may send packets", packet)
            return
        if pipeline is None:
            _stream_error(stream, "FAILED_PRECONDITION", NO_PIPELINE, packet)
            return
        try:
            self.device.packet_out(C.packet_out_frame(
                pipeline.index, pipeline.translation.packet_out(packet)))
        except E.ControlPlaneError as e:
            _stream_error(stream, e.code, e.message, packet)

    # the packet path holds the device lock when it calls these two: taking self.lock
    # here would invert the lock order of Write (self.lock, then the device lock)
    def _packet_in(self, frame: bytes) -> None:
        pipeline, receivers = self.pipeline, self.arbiter.packet_in_receivers()
        if pipeline is None or not receivers:
            return
        msg = p4runtime_pb2.StreamMessageResponse()
        msg.packet.CopyFrom(C.packet_in_message(pipeline.index, frame))
        pipeline.translation.packet_in(msg.packet)
        for primary in receivers:
            primary.out.put(msg)

    def _digest(self, type_name: str, values: tuple) -> None:
        pipeline, receivers = self.pipeline, self.arbiter.packet_in_receivers()
        if pipeline is None or not receivers:
            return
        digest = next((d for d in pipeline.index.digests.values()
                       if d.preamble.name == type_name), None)
        if digest is None or digest.preamble.id not in pipeline.digest_config:
            return               # P4Runtime delivers only digests a DigestEntry enabled
        msg = p4runtime_pb2.StreamMessageResponse()
        d = msg.digest
        d.digest_id = digest.preamble.id
        d.list_id = next(self.digest_list_ids)
        d.timestamp = time.time_ns()
        data = d.data.add()
        data.CopyFrom(C.digest_data(digest, values))
        pipeline.translation.digest_out(d.digest_id, data)
        for primary in receivers:
            primary.out.put(msg)

    # ------------------------------------------------------------ unary RPCs
    def _unary(self, context, fn, *args):
        try:
            return fn(*args)
        except (RpcError, E.ControlPlaneError) as e:
            context.abort(grpc_code(e.code), bounded(e.message))

    def Capabilities(self, request, context):
        return p4runtime_pb2.CapabilitiesResponse(p4runtime_api_version=API_VERSION)

    def SetForwardingPipelineConfig(self, request, context):
        return self._unary(context, self._set_pipeline, request)

    def GetForwardingPipelineConfig(self, request, context):
        return self._unary(context, self._get_pipeline, request)

    def Write(self, request, context):
        return self._unary(context, self._write, request, context)

    def Read(self, request, context):
        try:
            responses = self._read(request)
        except (RpcError, E.ControlPlaneError) as e:
            context.abort(grpc_code(e.code), bounded(e.message))
        yield from responses

    # ------------------------------------------------------------ pipeline config
    def _set_pipeline(self, request):
        with self.lock:
            role = request_role(request)
            primary = self.arbiter.check_primary(request.device_id, request.election_id, role)
            if primary.scope is not None:
                raise RpcError("PERMISSION_DENIED", f"role {role[:64]!r} has a role config "
                                                    "limiting what it controls, so it may not "
                                                    "set the forwarding pipeline; the default "
                                                    "role or a role without config may")
            action = request.action
            if action == PIPE.COMMIT:
                if self.saved is None:
                    raise RpcError("FAILED_PRECONDITION", "COMMIT without a saved config; "
                                                          "send VERIFY_AND_SAVE first")
                self._install(self.saved, reconcile=False)
                self.saved = None
                return p4runtime_pb2.SetForwardingPipelineConfigResponse()
            if action not in (PIPE.VERIFY, PIPE.VERIFY_AND_SAVE, PIPE.VERIFY_AND_COMMIT,
                              PIPE.RECONCILE_AND_COMMIT):
                raise RpcError("INVALID_ARGUMENT", f"unknown action {action}; use VERIFY, "
                                                   "VERIFY_AND_SAVE, VERIFY_AND_COMMIT, COMMIT "
                                                   "or RECONCILE_AND_COMMIT")
            pipeline = P.verified(request.config)
            if action in (PIPE.VERIFY, PIPE.VERIFY_AND_SAVE):
                P.check_target_accepts(pipeline.program)
            if action == PIPE.VERIFY_AND_SAVE:
                self.saved = pipeline
            elif action != PIPE.VERIFY:
                self._install(pipeline, reconcile=action == PIPE.RECONCILE_AND_COMMIT)
        return p4runtime_pb2.SetForwardingPipelineConfigResponse()

    def _install(self, pipeline: P.ForwardingPipeline, reconcile: bool) -> None:
        kept = None
        if reconcile and self.pipeline is not None:
            with self.target_lock:
                kept = P.snapshot(self.pipeline, self.device.target)
        with self.target_lock:
            try:
                self.device.load_pipeline(pipeline.program)
            except TrainetError as e:
                raise RpcError("INVALID_ARGUMENT", f"the target cannot run this program: {e}; "
                                                   "the previous pipeline stays") from None
            self.device.target.digest_handler = self._digest
        self.pipeline = pipeline
        if kept is not None:
            with self.target_lock:
                P.restore(pipeline, self.device.target, kept, self.log)
        _settle_heap()
        self.log.info("forwarding pipeline installed (%d tables, cookie %d)",
                      len(pipeline.p4info.tables), pipeline.cookie)

    def _get_pipeline(self, request):
        self.arbiter.check_device(request.device_id)
        with self.lock:
            pipeline = self.pipeline
        return P.config_response(pipeline, request.response_type)

    # ------------------------------------------------------------ Write
    def _write(self, request, context):
        with self.lock:
            role = request_role(request)
            primary = self.arbiter.check_primary(request.device_id, request.election_id, role)
            pipeline = self.pipeline
            if pipeline is None:
                raise RpcError("FAILED_PRECONDITION", NO_PIPELINE)
            atomicity = request.atomicity
            if atomicity == p4runtime_pb2.WriteRequest.DATAPLANE_ATOMIC:
                raise RpcError("UNIMPLEMENTED", "DATAPLANE_ATOMIC is not supported; use "
                                                "CONTINUE_ON_ERROR or ROLLBACK_ON_ERROR")
            rollback = atomicity == p4runtime_pb2.WriteRequest.ROLLBACK_ON_ERROR
            updates = request.updates
            plain = (pipeline.wire.decode(request.SerializeToString(), len(updates))
                     if pipeline.wire is not None and len(updates) > 1 else None)
            with self.target_lock, self.device.target.batch():
                errors = self._apply_batch(pipeline, updates, rollback, primary, plain)
        if any(errors):
            fail_batch(context, errors)
        return p4runtime_pb2.WriteResponse()

    def _apply_batch(self, pipeline: P.ForwardingPipeline, updates, rollback: bool,
                     writer: Stream | None = None, plain: list | None = None) -> list:
        """Apply ``updates`` in order; one entry per update: None or its error. With
        ``rollback`` the first failure undoes those applied before it and skips the rest.
        ``writer`` is the primary whose role's scope bounds what may be written; ``plain``
        what the C decoder made of each update (see ``entry_wire``), None where the
        update takes the general path."""
        errors, undo = [], []
        scope, role = (writer.scope, writer.role) if writer is not None else (None, "")
        insert = HANDLERS["table_entry"].insert_decoded
        target = self.device.target
        for i in range(len(updates)):
            try:
                decoded = plain[i] if plain is not None else None
                if scope is not None:
                    why = denied(scope, role, updates[i].entity)
                    if why:
                        raise E.ControlPlaneError("PERMISSION_DENIED", why)
                undo.append(insert(pipeline, target, *decoded) if decoded is not None
                            else self._apply(pipeline, updates[i]))
                errors.append(None)
            except E.ControlPlaneError as e:
                errors.append(e)
            except Exception as e:       # a target bug must not take the server down
                self.log.exception("write failed")
                errors.append(E.ControlPlaneError("INTERNAL", f"{type(e).__name__}: {e}"))
            if rollback and errors[-1] is not None:
                break
        if rollback and errors and errors[-1] is not None:
            for step in reversed(undo):
                step()
            rolled = E.ControlPlaneError("ABORTED", "rolled back: a later update failed")
            skipped = E.ControlPlaneError("ABORTED", "not tried: an earlier update failed")
            errors = ([rolled] * (len(errors) - 1) + errors[-1:]
                      + [skipped] * (len(updates) - len(errors)))
        return errors

    def _apply(self, pipeline: P.ForwardingPipeline, update):
        """Apply one update through its entity's handler; return what undoes it."""
        if update.type not in (U.INSERT, U.MODIFY, U.DELETE):
            C.fail("INVALID_ARGUMENT", "update type must be INSERT, MODIFY or DELETE")
        entity = update.entity
        kind = entity.WhichOneof("entity")
        if kind is None:
            C.fail("UNIMPLEMENTED", "writing an empty entity is not supported by the "
                                    "software target")
        msg = pipeline.translation.entity_in(kind, getattr(entity, kind))
        return HANDLERS[kind].write(pipeline, self.device.target, update.type, msg)

    # ------------------------------------------------------------ Read
    def _read(self, request) -> list:
        """The ReadResponses of ``request``: one per READ_CHUNK_BYTES of entities, so no
        response outgrows a client's default 4 MiB message limit."""
        self.arbiter.check_device(request.device_id)
        self.arbiter.check_role(request_role(request))
        with self.lock:
            pipeline = self.pipeline
        if pipeline is None:
            raise RpcError("FAILED_PRECONDITION", NO_PIPELINE)
        add = ReadResponses()
        with self.target_lock:
            for entity in request.entities:
                kind = entity.WhichOneof("entity")
                if kind is None:
                    raise RpcError("INVALID_ARGUMENT", "an entity of the ReadRequest is empty; "
                                                       "set one of its fields")
                try:
                    msg = pipeline.translation.entity_in(kind, getattr(entity, kind))
                except E.ControlPlaneError as e:
                    raise RpcError(e.code, e.message) from None
                HANDLERS[kind].read_into(pipeline, self.device.target, msg, add)
        responses = add.done()
        if pipeline.translation.active:
            for response in responses:
                for entity in response.entities:
                    pipeline.translation.entity_out(entity)
        return responses


class ReadResponses:
    """The ReadResponses of one Read, filled in order: calling it with an entity's size
    bound gives the next fresh ``p4.v1.Entity``; :meth:`serialized` adds one already
    serialised, which waits as bytes and joins the response in one parse. A response
    is closed once it holds more than READ_CHUNK_BYTES."""

    def __init__(self):
        self.responses = [p4runtime_pb2.ReadResponse()]
        self.size = 0
        self.waiting = []           # serialised ReadResponse.entities, in order

    def __call__(self, entity_bytes: int):
        self._join()
        self._chunk(entity_bytes)
        return self.responses[-1].entities.add()

    def serialized(self, field: int, data: bytes) -> None:
        """Add an Entity whose field number ``field`` holds the serialised ``data``."""
        entity = _length_delimited(field, data)
        self._chunk(len(entity))
        self.waiting.append(_length_delimited(ENTITIES, entity))

    def done(self) -> list:
        self._join()
        return self.responses

    def _chunk(self, entity_bytes: int) -> None:
        if self.size > READ_CHUNK_BYTES:
            self._join()
            self.responses.append(p4runtime_pb2.ReadResponse())
            self.size = 0
        self.size += entity_bytes

    def _join(self) -> None:
        if self.waiting:
            self.responses[-1].MergeFromString(b"".join(self.waiting))
            self.waiting.clear()


ENTITIES = p4runtime_pb2.ReadResponse.DESCRIPTOR.fields_by_name["entities"].number


def _length_delimited(field: int, data: bytes) -> bytes:
    """A length-delimited protobuf field: its key, the length as a varint, the bytes."""
    n, head = len(data), bytearray([field << 3 | 2])
    while n > 0x7F:
        head.append(n & 0x7F | 0x80)
        n >>= 7
    head.append(n)
    return bytes(head) + data


def _settle_heap() -> None:
    """Leave the objects alive now (the compiled program, its tables, the server) out of
    Python's cyclic collector. A write that stores many entries makes the collector run
    full collections, and each would walk the whole program again: with batches of 1000
    updates that cost more than the writes themselves. The previous pipeline's garbage is
    collected first; the next install does the same, so nothing stays frozen for good."""
    gc.unfreeze()
    gc.collect()
    gc.freeze()


def _stream_error(stream: Stream, code: str, message: str, packet=None) -> None:
    msg = p4runtime_pb2.StreamMessageResponse()
    msg.error.canonical_code = grpc_code(code).value[0]
    msg.error.message = bounded(message)
    if packet is not None:
        msg.error.packet_out.packet_out.CopyFrom(packet)
    stream.out.put(msg)
