"""P4Runtime v1 gRPC server for one device.

The *device* it serves has ``device_id``, ``cpu_port``, ``target`` (a
``testbed.p4.target.Target`` or None), ``load_pipeline(program)``, ``packet_out(frame)``
and a ``packet_in_handler`` attribute this server sets. When the device has a ``lock``
attribute, every call into its target holds it (the software switch's packet thread
takes the same lock).

Arbitration as the P4Runtime spec has it: the stream with the highest election id is
primary, and only requests that carry the primary's election id may write, set the
pipeline or send packets (anything else is PERMISSION_DENIED); every client may read.
The server listens where it is told, 127.0.0.1 by default, in plain TCP or, given a
``testbed.p4runtime.tls.ServerTls``, in TLS only.

The forwarding-pipeline "device config" holds the program in one of the forms
``testbed.p4runtime.device_config`` reads (P4 source, trainet-p4c's output, either wrapped
in p4.tmp.P4DeviceConfig); the target compiles the program itself.

What the software target cannot serve, each refused with a status that says so: roles
other than the default one (NOT_FOUND), action profiles (a program with one does not
load, so reads of members and groups are empty), extern entries (v1model declares none:
reads are empty), writes of direct counters, idle timeouts, per-color meter counters,
direct resources and metadata of default entries, and DATAPLANE_ATOMIC batches.
Reads of every other entity type are served; those the program does not declare are
empty.
"""
from __future__ import annotations

import importlib.metadata
import itertools
import logging
import queue
import threading
import time
from concurrent import futures
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path

import grpc
from google.rpc import code_pb2
from p4.config.v1 import p4info_pb2
from p4.v1 import p4runtime_pb2, p4runtime_pb2_grpc

from testbed.errors import TrainetError
from testbed.p4 import entries as E
from testbed.p4 import p4info as p4info_builder
from testbed.p4runtime import convert as C
from testbed.p4runtime.tls import ServerTls
from testbed.switch.rpc_status import batch_status, bounded
from testbed.p4runtime.device_config import DeviceConfigError, program_from_config

U = p4runtime_pb2.Update
PIPE = p4runtime_pb2.SetForwardingPipelineConfigRequest
GET = p4runtime_pb2.GetForwardingPipelineConfigRequest
API_VERSION = importlib.metadata.version("p4runtime")
READ_CHUNK_BYTES = 1 << 20    # a ReadResponse is cut after this many bytes of entities


class RpcError(Exception):
    """Ends an RPC with a gRPC status."""

    def __init__(self, code: str, message: str):
        self.code = code
        self.message = message
        super().__init__(f"{code}: {message}")


def _code(name: str) -> grpc.StatusCode:
    return getattr(grpc.StatusCode, name, grpc.StatusCode.UNKNOWN)


def _election(u: p4runtime_pb2.Uint128) -> int:
    return u.high << 64 | u.low


def _check_role(request) -> None:
    """Only the default role exists here: P4Runtime answers NOT_FOUND for any other."""
    role = request.role or str(getattr(request, "role_id", 0) or "")
    if role:
        raise RpcError("NOT_FOUND", f"role {bounded(role, 64)!r} is not configured on this "
                                    "device; leave role unset (the default role may do "
                                    "everything)")


@dataclass
class _Pipeline:
    p4info: p4info_pb2.P4Info
    source: bytes
    cookie: int
    program: object
    index: C.P4InfoIndex
    defaults: dict = field(default_factory=dict)        # table name -> initial ActionCall
    meters: dict = field(default_factory=dict)          # (name, index) -> MeterConfig
    value_sets: dict = field(default_factory=dict)      # name -> [ValueSetMember]
    digest_config: dict = field(default_factory=dict)   # digest id -> DigestEntry.Config
    cookies: dict = field(default_factory=dict)   # (table, entry key) -> (controller_metadata,
                                                  # metadata) of TableEntry


@dataclass
class _Stream:
    out: queue.Queue
    election_id: int | None = None


def _initial_defaults(program) -> dict:
    out = {}
    for control in program.controls.values():
        for table in control.tables.values():
            ref = table.default_action
            action = control.actions.get(ref.action) or program.actions.get(ref.action)
            names = [p.name for p in action.params if p.direction == ""] if action else []
            params = {n: a.value for n, a in zip(names, ref.args) if hasattr(a, "value")}
            out[table.name] = E.ActionCall(ref.action, params)
    return out


class _Servicer(p4runtime_pb2_grpc.P4RuntimeServicer):
    def __init__(self, device, log: logging.Logger):
        self.device = device
        self.log = log
        self.lock = threading.RLock()                 # server state: streams, pipeline
        self.target_lock = getattr(device, "lock", None) or threading.RLock()
        self.pipeline: _Pipeline | None = None
        self.saved: _Pipeline | None = None           # VERIFY_AND_SAVE, waiting for COMMIT
        self.streams: list[_Stream] = []
        self.digest_list_ids = itertools.count(1)
        device.packet_in_handler = self._packet_in
        if device.target is not None:
            self._adopt(device.target)

    def _adopt(self, target) -> None:
        """Serve a pipeline the device was started with: its P4Info is the generated one,
        its device config the file the device loaded (``device.program_file``, else the
        program's source file)."""
        program = target.program
        path = Path(getattr(self.device, "program_file", None) or program.source)
        info = p4info_builder.build(program)
        self.pipeline = _Pipeline(info, path.read_bytes() if path.is_file() else b"", 0,
                                  program, C.P4InfoIndex(info), _initial_defaults(program))
        target.digest_handler = self._digest

    # ------------------------------------------------------------ arbitration
    def _primary(self) -> _Stream | None:
        """The stream with the highest election id. Safe without ``self.lock``: the
        packet path calls it while holding the device lock."""
        live = [s for s in list(self.streams) if s.election_id is not None]
        return max(live, key=lambda s: s.election_id, default=None)

    def _check_primary(self, device_id: int, election_id: p4runtime_pb2.Uint128) -> None:
        self._check_device(device_id)
        primary = self._primary()
        if primary is None or primary.election_id != _election(election_id):
            raise RpcError("PERMISSION_DENIED",
                           f"election id {_election(election_id)} is not the primary's "
                           f"({primary.election_id if primary else 'none'}); only the primary "
                           "controller may write")

    def _check_device(self, device_id: int) -> None:
        if device_id != self.device.device_id:
            raise RpcError("NOT_FOUND", f"device id {device_id} is not served here "
                                        f"(this is device {self.device.device_id})")

    def _announce(self, only: _Stream | None = None) -> None:
        """Tell every arbitrated stream (or just ``only``) who is primary now."""
        primary = self._primary()
        for s in self.streams:
            if s.election_id is None or only is not None and s is not only:
                continue
            msg = p4runtime_pb2.StreamMessageResponse()
            a = msg.arbitration
            a.device_id = self.device.device_id
            if primary is not None:
                a.election_id.high = primary.election_id >> 64
                a.election_id.low = primary.election_id & (2 ** 64 - 1)
            a.status.code = code_pb2.OK if s is primary else code_pb2.ALREADY_EXISTS
            a.status.message = ("this controller is primary" if s is primary else
                                "a controller with a higher election id is primary")
            s.out.put(msg)

    def _arbitrate(self, stream: _Stream, req: p4runtime_pb2.MasterArbitrationUpdate) -> None:
        self._check_device(req.device_id)
        if req.role.name or req.role.id:
            raise RpcError("UNIMPLEMENTED", "only the default role is supported; leave "
                                            "role unset")
        election = _election(req.election_id)
        with self.lock:
            if any(s is not stream and s.election_id == election for s in self.streams):
                raise RpcError("INVALID_ARGUMENT", f"election id {election} is already used by "
                                                   "another controller; pick another")
            before = self._primary()
            stream.election_id = election
            # everybody hears of a new primary; otherwise only the sender gets an answer
            self._announce(None if self._primary() is not before else stream)

    def StreamChannel(self, request_iterator, context):
        stream = _Stream(queue.Queue())
        with self.lock:
            self.streams.append(stream)
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
                    context.abort(_code(item.code), bounded(item.message))
                yield item
        finally:
            with self.lock:
                was_primary = stream is self._primary()
                self.streams.remove(stream)
                if was_primary:
                    self._announce()

    def _stream_request(self, stream: _Stream, req) -> None:
        kind = req.WhichOneof("update")
        if kind == "arbitration":
            self._arbitrate(stream, req.arbitration)
            return
        if stream.election_id is None:
            raise RpcError("FAILED_PRECONDITION", "send a MasterArbitrationUpdate first")
        if kind == "packet":
            self._packet_out(stream, req.packet)
        elif kind == "digest_ack":
            pass                 # digests are never held back waiting for an ack
        else:
            self._stream_error(stream, "UNIMPLEMENTED", f"stream message {kind} is not supported")

    def _stream_error(self, stream: _Stream, code: str, message: str, packet=None) -> None:
        msg = p4runtime_pb2.StreamMessageResponse()
        msg.error.canonical_code = _code(code).value[0]
        msg.error.message = bounded(message)
        if packet is not None:
            msg.error.packet_out.packet_out.CopyFrom(packet)
        stream.out.put(msg)

    # ------------------------------------------------------------ packet IO
    def _packet_out(self, stream: _Stream, packet: p4runtime_pb2.PacketOut) -> None:
        with self.lock:
            pipeline = self.pipeline
            primary = self._primary()
        if stream is not primary:
            self._stream_error(stream, "PERMISSION_DENIED",
                               "only the primary controller may send packets", packet)
            return
        if pipeline is None:
            self._stream_error(stream, "FAILED_PRECONDITION",
                               "no forwarding pipeline; send SetForwardingPipelineConfig first",
                               packet)
            return
        try:
            frame = C.packet_out_frame(pipeline.index, packet)
            self.device.packet_out(frame)
        except E.ControlPlaneError as e:
            self._stream_error(stream, e.code, e.message, packet)

    # the packet path holds the device lock when it calls these two: taking self.lock
    # here would invert the lock order of Write (self.lock, then the device lock)
    def _packet_in(self, frame: bytes) -> None:
        pipeline, primary = self.pipeline, self._primary()
        if pipeline is None or primary is None:
            return
        msg = p4runtime_pb2.StreamMessageResponse()
        msg.packet.CopyFrom(C.packet_in_message(pipeline.index, frame))
        primary.out.put(msg)

    def _digest(self, type_name: str, values: tuple) -> None:
        pipeline, primary = self.pipeline, self._primary()
        if pipeline is None or primary is None:
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
        d.data.add().CopyFrom(C.digest_data(digest, values))
        primary.out.put(msg)

    # ------------------------------------------------------------ unary RPCs
    def _unary(self, context, fn, *args):
        try:
            return fn(*args)
        except (RpcError, E.ControlPlaneError) as e:
            context.abort(_code(e.code), bounded(e.message))

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
            context.abort(_code(e.code), bounded(e.message))
        yield from responses

    # ------------------------------------------------------------ pipeline config
    def _verify(self, config: p4runtime_pb2.ForwardingPipelineConfig) -> _Pipeline:
        data = config.p4_device_config
        try:
            program = program_from_config(data, "config.p4_device_config")
            expected = p4info_builder.build(program)
        except DeviceConfigError as e:
            raise RpcError("INVALID_ARGUMENT", str(e)) from None
        except TrainetError as e:
            raise RpcError("INVALID_ARGUMENT", f"the P4 program does not compile: {e}") from None
        given = config.p4info
        for kind in ("tables", "actions"):
            want = {o.preamble.name for o in getattr(expected, kind)}
            got = {o.preamble.name for o in getattr(given, kind)}
            if want != got:
                extra, missing = sorted(got - want), sorted(want - got)
                raise RpcError("INVALID_ARGUMENT",
                               f"config.p4info does not describe this program: {kind} "
                               f"only in the P4Info: {extra or 'none'}; only in the program: "
                               f"{missing or 'none'}; regenerate it with `trainet p4 info`")
        return _Pipeline(given, data, config.cookie.cookie, program, C.P4InfoIndex(given),
                         _initial_defaults(program))

    def _set_pipeline(self, request):
        with self.lock:
            self._check_primary(request.device_id, request.election_id)
            _check_role(request)
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
            pipeline = self._verify(request.config)
            if action in (PIPE.VERIFY, PIPE.VERIFY_AND_SAVE):
                self._check_target_accepts(pipeline.program)
            if action == PIPE.VERIFY_AND_SAVE:
                self.saved = pipeline
            elif action != PIPE.VERIFY:
                self._install(pipeline, reconcile=action == PIPE.RECONCILE_AND_COMMIT)
        return p4runtime_pb2.SetForwardingPipelineConfigResponse()

    @staticmethod
    def _check_target_accepts(program) -> None:
        """A trial compile: VERIFY must reject what COMMIT would fail to load."""
        from testbed.p4.targets import python_target
        try:
            python_target(program)
        except TrainetError as e:
            raise RpcError("INVALID_ARGUMENT", f"the target cannot run this program: {e}") \
                from None

    def _install(self, pipeline: _Pipeline, reconcile: bool) -> None:
        kept = self._snapshot() if reconcile and self.pipeline is not None else None
        with self.target_lock:
            try:
                self.device.load_pipeline(pipeline.program)
            except TrainetError as e:
                raise RpcError("INVALID_ARGUMENT", f"the target cannot run this program: {e}; "
                                                   "the previous pipeline stays") from None
            self.device.target.digest_handler = self._digest
        self.pipeline = pipeline
        if kept is not None:
            self._restore(pipeline, kept)
        self.log.info("forwarding pipeline installed (%d tables, cookie %d)",
                      len(pipeline.p4info.tables), pipeline.cookie)

    def _snapshot(self) -> tuple:
        target = self.device.target
        writable = [t for t in self.pipeline.index.tables.values() if not t.is_const]
        with self.target_lock:
            tables = {t.name: target.table_entries(t.name) for t in writable}
            defaults = {t.name: target.table_get_default(t.name) for t in writable
                        if not t.const_default_action_id}
            return tables, defaults, dict(target.mc_groups()), dict(target.clone_sessions())

    def _restore(self, pipeline: _Pipeline, kept: tuple) -> None:
        """RECONCILE_AND_COMMIT: carry over the entries the new program can still hold."""
        tables, defaults, groups, sessions = kept
        target = self.device.target
        with self.target_lock:
            for name, entries in tables.items():
                if name not in pipeline.index.table_ids:
                    continue
                for entry in entries:
                    try:
                        target.table_insert(entry)
                    except E.ControlPlaneError as e:
                        self.log.info("reconcile: dropped an entry of %s (%s)", name, e)
            for name, call in defaults.items():
                try:
                    target.table_set_default(name, call)
                except E.ControlPlaneError as e:
                    self.log.info("reconcile: kept the program's default of %s (%s)", name, e)
            for g in groups.values():
                target.mc_group_set(g)
            for s in sessions.values():
                target.clone_session_set(s)

    def _get_pipeline(self, request):
        self._check_device(request.device_id)
        with self.lock:
            pipeline = self.pipeline
        out = p4runtime_pb2.GetForwardingPipelineConfigResponse()
        if pipeline is None:
            return out
        config = out.config
        config.cookie.cookie = pipeline.cookie
        if request.response_type in (GET.ALL, GET.P4INFO_AND_COOKIE):
            config.p4info.CopyFrom(pipeline.p4info)
        if request.response_type in (GET.ALL, GET.DEVICE_CONFIG_AND_COOKIE):
            config.p4_device_config = pipeline.source
        return out

    # ------------------------------------------------------------ Write
    def _write(self, request, context):
        with self.lock:
            self._check_primary(request.device_id, request.election_id)
            _check_role(request)
            pipeline = self.pipeline
            if pipeline is None:
                raise RpcError("FAILED_PRECONDITION", "no forwarding pipeline; send "
                                                      "SetForwardingPipelineConfig first")
            atomicity = request.atomicity
            if atomicity == p4runtime_pb2.WriteRequest.DATAPLANE_ATOMIC:
                raise RpcError("UNIMPLEMENTED", "DATAPLANE_ATOMIC is not supported; use "
                                                "CONTINUE_ON_ERROR or ROLLBACK_ON_ERROR")
            rollback = atomicity == p4runtime_pb2.WriteRequest.ROLLBACK_ON_ERROR
            errors, undo = [], []
            with self.target_lock:
                for update in request.updates:
                    try:
                        undo.append(self._apply(pipeline, update))
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
                              + [skipped] * (len(request.updates) - len(errors)))
        if any(errors):
            self._fail_batch(context, errors)
        return p4runtime_pb2.WriteResponse()

    @staticmethod
    def _fail_batch(context, errors: list) -> None:
        """P4Runtime's batch error: status UNKNOWN whose details hold one p4.v1.Error per
        update, in request order (OK for those that were applied), within a size bound."""
        status = batch_status(errors, lambda name: _code(name).value[0])
        context.set_trailing_metadata((("grpc-status-details-bin", status.SerializeToString()),))
        context.abort(grpc.StatusCode.UNKNOWN, status.message)

    def _apply(self, pipeline: _Pipeline, update):
        """Apply one update; return a function that undoes it."""
        if update.type not in (U.INSERT, U.MODIFY, U.DELETE):
            C.fail("INVALID_ARGUMENT", "update type must be INSERT, MODIFY or DELETE")
        entity = update.entity
        kind = entity.WhichOneof("entity")
        handler = getattr(self, f"_write_{kind}", None) if kind else None
        if handler is None:
            C.fail("UNIMPLEMENTED", f"writing {kind or 'an empty entity'} is not supported "
                                    "by the software target")
        return handler(pipeline, update.type, getattr(entity, kind))

    def _write_table_entry(self, pipeline: _Pipeline, utype: int, msg):
        index, target = pipeline.index, self.device.target
        entry = C.table_entry_from_p4rt(index, msg, utype)
        table = index.table(msg.table_id)
        if msg.is_default_action:
            if table.const_default_action_id:
                C.fail("PERMISSION_DENIED", f"table {table.name} has a const default action")
            old = target.table_get_default(table.name)
            new = entry.action if entry.action.action else pipeline.defaults[table.name]
            target.table_set_default(table.name, new)
            return lambda: target.table_set_default(table.name, old)
        if table.is_const:
            C.fail("PERMISSION_DENIED", f"table {table.name} has const entries and cannot be "
                                        "written")
        if utype == U.INSERT:
            target.table_insert(entry)
            undo = partial(target.table_delete, entry)
        else:
            old = self._find_entry(index, entry)
            if utype == U.MODIFY:
                target.table_modify(entry)
                undo = partial(target.table_modify, old)
            else:
                target.table_delete(entry)
                undo = partial(target.table_insert, old)
        return self._keep_cookies(pipeline, entry, msg if utype != U.DELETE else None, undo)

    @staticmethod
    def _keep_cookies(pipeline: _Pipeline, entry: E.TableEntry, msg, undo):
        """Remember the entry's controller_metadata and metadata, which reads return."""
        key = (entry.table, entry.key())
        before = pipeline.cookies.get(key)
        if msg is not None and (msg.controller_metadata or msg.metadata):
            pipeline.cookies[key] = (msg.controller_metadata, msg.metadata)
        else:
            pipeline.cookies.pop(key, None)

        def undo_all():
            undo()
            if before is None:
                pipeline.cookies.pop(key, None)
            else:
                pipeline.cookies[key] = before
        return undo_all

    def _find_entry(self, index, entry: E.TableEntry) -> E.TableEntry:
        for e in self.device.target.table_entries(entry.table):
            if C.same_match(e, entry, index):
                return e
        C.fail("NOT_FOUND", f"table {entry.table}: no entry with this match and priority")

    def _write_packet_replication_engine_entry(self, pipeline, utype: int, msg):
        target = self.device.target
        if msg.WhichOneof("type") == "multicast_group_entry":
            obj = C.multicast_group_from_p4rt(msg.multicast_group_entry)
            key, what = obj.group_id, f"multicast group {obj.group_id}"
            existing, put, remove = target.mc_groups(), target.mc_group_set, target.mc_group_delete
        elif msg.WhichOneof("type") == "clone_session_entry":
            obj = C.clone_session_from_p4rt(msg.clone_session_entry)
            key, what = obj.session_id, f"clone session {obj.session_id}"
            existing = target.clone_sessions()
            put, remove = target.clone_session_set, target.clone_session_delete
        else:
            C.fail("INVALID_ARGUMENT", "packet_replication_engine_entry is empty")
        old = existing.get(key)
        if utype == U.INSERT and old is not None:
            C.fail("ALREADY_EXISTS", f"{what} exists; use MODIFY to change it")
        if utype != U.INSERT and old is None:
            C.fail("NOT_FOUND", f"{what} does not exist; INSERT it first")
        if utype == U.DELETE:
            remove(key)
            return lambda: put(old)
        put(obj)
        return (lambda: remove(key)) if old is None else (lambda: put(old))

    def _index_in(self, obj, index_msg, what: str) -> int:
        i = index_msg.index
        if i < 0:
            C.fail("INVALID_ARGUMENT", f"{what} {obj.preamble.name}: index {i} is negative; "
                                       f"give 0..{obj.size - 1}")
        if i >= obj.size:
            C.fail("OUT_OF_RANGE", f"{what} {obj.preamble.name}: index {i} is outside "
                                   f"0..{obj.size - 1}")
        return i

    @staticmethod
    def _modify_only(utype: int, what: str) -> None:
        if utype != U.MODIFY:
            C.fail("INVALID_ARGUMENT", f"{what} entries exist for every index; use MODIFY")

    def _write_register_entry(self, pipeline, utype: int, msg):
        self._modify_only(utype, "register")
        reg = pipeline.index.lookup("registers", msg.register_id)
        if not msg.HasField("index"):
            C.fail("INVALID_ARGUMENT", f"register {reg.preamble.name}: give an index to write")
        i = self._index_in(reg, msg.index, "register")
        if msg.data.WhichOneof("data") != "bitstring":
            C.fail("INVALID_ARGUMENT", f"register {reg.preamble.name}: data must be a bitstring")
        width = pipeline.index.register_width(reg)
        value = C.decode(msg.data.bitstring, width, f"register {reg.preamble.name}[{i}]")
        target, name = self.device.target, reg.preamble.name
        old = target.register_read(name, i)
        target.register_write(name, i, value)
        return lambda: target.register_write(name, i, old)

    def _write_counter_entry(self, pipeline, utype: int, msg):
        self._modify_only(utype, "counter")
        counter = pipeline.index.lookup("counters", msg.counter_id)
        target, name = self.device.target, counter.preamble.name
        indices = ([self._index_in(counter, msg.index, "counter")] if msg.HasField("index")
                   else range(counter.size))
        counts = C.counts_from_p4rt(msg.data, f"counter {name}")
        old = {i: target.counter_read(name, i) for i in indices}
        for i in indices:
            target.counter_write(name, i, *counts)
        return lambda: [target.counter_write(name, i, *v) for i, v in old.items()]

    def _write_direct_counter_entry(self, pipeline, utype: int, msg):
        C.fail("UNIMPLEMENTED", "the software target cannot set direct counters; read them "
                                "(they count from 0 when the entry is inserted)")

    def _write_direct_meter_entry(self, pipeline, utype: int, msg):
        self._modify_only(utype, "direct meter")
        index = pipeline.index
        table = index.table(msg.table_entry.table_id)
        if table.direct_meter is None:
            C.fail("INVALID_ARGUMENT", f"table {table.name} has no direct meter")
        old = self._find_entry(index, C.table_entry_from_p4rt(index, msg.table_entry))
        config = C.meter_config_from_p4rt(msg.config, f"table {table.name}")
        new = E.TableEntry(old.table, old.match, old.action, old.priority,
                           old.counter_packets, old.counter_bytes, meter_config=config)
        target = self.device.target
        target.table_modify(new)
        return lambda: target.table_modify(old)

    def _write_meter_entry(self, pipeline, utype: int, msg):
        self._modify_only(utype, "meter")
        meter = pipeline.index.lookup("meters", msg.meter_id)
        target, name = self.device.target, meter.preamble.name
        indices = ([self._index_in(meter, msg.index, "meter")] if msg.HasField("index")
                   else range(meter.size))
        c = msg.config
        C.meter_config_from_p4rt(c, f"meter {name}")
        old = {i: pipeline.meters.get((name, i)) for i in indices}
        for i in indices:
            target.meter_set(name, i, c.cir, c.cburst, c.pir, c.pburst)
            pipeline.meters[(name, i)] = p4runtime_pb2.MeterConfig(
                cir=c.cir, cburst=c.cburst, pir=c.pir, pburst=c.pburst)

        def undo():
            for i, cfg in old.items():
                cfg = cfg or p4runtime_pb2.MeterConfig()
                target.meter_set(name, i, cfg.cir, cfg.cburst, cfg.pir, cfg.pburst)
                if cfg.ByteSize():
                    pipeline.meters[(name, i)] = cfg
                else:
                    pipeline.meters.pop((name, i), None)
        return undo

    def _write_value_set_entry(self, pipeline, utype: int, msg):
        self._modify_only(utype, "value set")
        vs = pipeline.index.lookup("value_sets", msg.value_set_id)
        name = vs.preamble.name
        if len(msg.members) > vs.size:
            C.fail("RESOURCE_EXHAUSTED", f"value set {name} holds at most {vs.size} members")
        matches = C.value_set_from_p4rt(vs, msg.members)
        target = self.device.target
        old = pipeline.value_sets.get(name, [])
        old_matches = C.value_set_from_p4rt(vs, old)
        target.value_set_set(name, matches)
        pipeline.value_sets[name] = list(msg.members)

        def undo():
            target.value_set_set(name, old_matches)
            pipeline.value_sets[name] = old
        return undo

    def _write_digest_entry(self, pipeline, utype: int, msg):
        digest = pipeline.index.lookup("digests", msg.digest_id)
        configs = pipeline.digest_config
        old = configs.get(msg.digest_id)
        what = f"digest {digest.preamble.name}"
        if utype == U.INSERT and old is not None:
            C.fail("ALREADY_EXISTS", f"{what} is already configured; use MODIFY")
        if utype != U.INSERT and old is None:
            C.fail("NOT_FOUND", f"{what} is not configured; INSERT it first")
        if utype == U.DELETE:
            del configs[msg.digest_id]
        else:
            for name in ("max_timeout_ns", "max_list_size", "ack_timeout_ns"):
                C.check_range(getattr(msg.config, name), 0, 2 ** 63 - 1, f"{what}: {name}",
                              "INVALID_ARGUMENT")
            configs[msg.digest_id] = msg.config

        def undo():
            if old is None:
                configs.pop(msg.digest_id, None)
            else:
                configs[msg.digest_id] = old
        return undo

    # ------------------------------------------------------------ Read
    def _read(self, request) -> list:
        """The ReadResponses of ``request``: one per READ_CHUNK_BYTES of entities, so no
        response outgrows a client's default 4 MiB message limit."""
        self._check_device(request.device_id)
        _check_role(request)
        with self.lock:
            pipeline = self.pipeline
        if pipeline is None:
            raise RpcError("FAILED_PRECONDITION", "no forwarding pipeline; send "
                                                  "SetForwardingPipelineConfig first")
        responses, size = [p4runtime_pb2.ReadResponse()], 0
        with self.target_lock:
            for entity in request.entities:
                kind = entity.WhichOneof("entity")
                if kind is None:
                    raise RpcError("INVALID_ARGUMENT", "an entity of the ReadRequest is empty; "
                                                       "set one of its fields")
                reader = getattr(self, f"_read_{kind}")
                for item in reader(pipeline, getattr(entity, kind)):
                    if size > READ_CHUNK_BYTES:
                        responses.append(p4runtime_pb2.ReadResponse())
                        size = 0
                    added = responses[-1].entities.add()
                    getattr(added, kind).CopyFrom(item)
                    size += added.ByteSize()
        return responses

    def _read_action_profile_member(self, pipeline, msg):
        """Programs with action profiles do not load on this target: none to read."""
        if msg.action_profile_id:
            pipeline.index.lookup("action_profiles", msg.action_profile_id)
        return ()

    def _read_action_profile_group(self, pipeline, msg):
        return self._read_action_profile_member(pipeline, msg)

    def _read_extern_entry(self, pipeline, msg):
        """v1model declares no P4Info externs: none to read."""
        if msg.extern_type_id:
            C.fail("NOT_FOUND", f"extern type id {msg.extern_type_id} is not in the P4Info")
        return ()

    def _read_table_entry(self, pipeline, msg):
        index, target = pipeline.index, self.device.target
        tables = [index.table(msg.table_id)] if msg.table_id else list(index.tables.values())
        if msg.is_default_action:
            for t in tables:
                call = target.table_get_default(t.name)
                yield C.table_entry_to_p4rt(index, E.TableEntry(t.name, (), call),
                                            is_default=True)
            return
        probe = C.table_entry_from_p4rt(index, msg) if msg.table_id and msg.match else None
        for t in tables:
            for e in target.table_entries(t.name):
                if probe is not None and not C.same_match(e, probe, index):
                    continue
                if msg.priority and e.priority != msg.priority:
                    continue
                out = C.table_entry_to_p4rt(index, e)
                out.is_const = t.is_const
                cookies = pipeline.cookies.get((e.table, e.key()))
                if cookies is not None:
                    out.controller_metadata, out.metadata = cookies
                yield out

    def _read_counter_entry(self, pipeline, msg):
        index, target = pipeline.index, self.device.target
        counters = ([index.lookup("counters", msg.counter_id)] if msg.counter_id
                    else list(index.counters.values()))
        for c in counters:
            indices = ([self._index_in(c, msg.index, "counter")] if msg.HasField("index")
                       else range(c.size))
            for i in indices:
                packets, nbytes = target.counter_read(c.preamble.name, i)
                out = p4runtime_pb2.CounterEntry(counter_id=c.preamble.id)
                out.index.index = i
                out.data.packet_count, out.data.byte_count = packets, nbytes
                yield out

    def _direct_entries(self, pipeline, te: p4runtime_pb2.TableEntry, resource: str):
        """The entries a DirectCounterEntry or DirectMeterEntry read selects: those of the
        tables with that ``resource`` ("direct_counter" or "direct_meter"), each with its
        table entry as reads show it, without direct resource fields."""
        index = pipeline.index
        tables = [index.table(te.table_id)] if te.table_id else list(index.tables.values())
        probe = C.table_entry_from_p4rt(index, te) if te.table_id and te.match else None
        for t in tables:
            if getattr(t, resource) is None:
                continue
            for e in self.device.target.table_entries(t.name):
                if probe is None or C.same_match(e, probe, index):
                    shown = C.table_entry_to_p4rt(index, e)
                    for name in ("counter_data", "meter_config"):
                        shown.ClearField(name)
                    yield e, shown

    def _read_direct_counter_entry(self, pipeline, msg):
        for e, shown in self._direct_entries(pipeline, msg.table_entry, "direct_counter"):
            out = p4runtime_pb2.DirectCounterEntry(table_entry=shown)
            out.data.packet_count = e.counter_packets
            out.data.byte_count = e.counter_bytes
            yield out

    def _read_direct_meter_entry(self, pipeline, msg):
        for e, shown in self._direct_entries(pipeline, msg.table_entry, "direct_meter"):
            out = p4runtime_pb2.DirectMeterEntry(table_entry=shown)
            if e.meter_config is not None:
                cir, cburst, pir, pburst = e.meter_config
                out.config.CopyFrom(p4runtime_pb2.MeterConfig(cir=cir, cburst=cburst, pir=pir,
                                                              pburst=pburst))
            yield out

    def _read_register_entry(self, pipeline, msg):
        index, target = pipeline.index, self.device.target
        regs = ([index.lookup("registers", msg.register_id)] if msg.register_id
                else list(index.registers.values()))
        for r in regs:
            indices = ([self._index_in(r, msg.index, "register")] if msg.HasField("index")
                       else range(r.size))
            for i in indices:
                out = p4runtime_pb2.RegisterEntry(register_id=r.preamble.id)
                out.index.index = i
                out.data.bitstring = C.encode(target.register_read(r.preamble.name, i))
                yield out

    def _read_meter_entry(self, pipeline, msg):
        index = pipeline.index
        meters = ([index.lookup("meters", msg.meter_id)] if msg.meter_id
                  else list(index.meters.values()))
        for m in meters:
            indices = ([self._index_in(m, msg.index, "meter")] if msg.HasField("index")
                       else range(m.size))
            for i in indices:
                out = p4runtime_pb2.MeterEntry(meter_id=m.preamble.id)
                out.index.index = i
                cfg = pipeline.meters.get((m.preamble.name, i))
                if cfg is not None:
                    out.config.CopyFrom(cfg)
                yield out

    def _read_packet_replication_engine_entry(self, pipeline, msg):
        target = self.device.target
        kind = msg.WhichOneof("type")
        if kind in (None, "multicast_group_entry"):
            want = msg.multicast_group_entry.multicast_group_id if kind else 0
            for gid, g in sorted(target.mc_groups().items()):
                if not want or gid == want:
                    yield p4runtime_pb2.PacketReplicationEngineEntry(
                        multicast_group_entry=C.multicast_group_to_p4rt(g))
        if kind in (None, "clone_session_entry"):
            want = msg.clone_session_entry.session_id if kind else 0
            for sid, s in sorted(target.clone_sessions().items()):
                if not want or sid == want:
                    yield p4runtime_pb2.PacketReplicationEngineEntry(
                        clone_session_entry=C.clone_session_to_p4rt(s))

    def _read_value_set_entry(self, pipeline, msg):
        index = pipeline.index
        sets = ([index.lookup("value_sets", msg.value_set_id)] if msg.value_set_id
                else list(index.value_sets.values()))
        for vs in sets:
            out = p4runtime_pb2.ValueSetEntry(value_set_id=vs.preamble.id)
            out.members.extend(pipeline.value_sets.get(vs.preamble.name, []))
            yield out

    def _read_digest_entry(self, pipeline, msg):
        configs = pipeline.digest_config
        ids = [msg.digest_id] if msg.digest_id else sorted(configs)
        for did in ids:
            if did in configs:
                yield p4runtime_pb2.DigestEntry(digest_id=did, config=configs[did])


class P4RuntimeServer:
    """``P4RuntimeServer(device, "127.0.0.1:9559").start()``; ``port`` is the bound port
    (useful with ``address="127.0.0.1:0"``). With ``tls`` (a ``ServerTls``) it speaks
    only TLS."""

    def __init__(self, device, address: str = "127.0.0.1:9559",
                 log: logging.Logger | None = None, max_streams: int = 8,
                 tls: ServerTls | None = None):
        self.address = address
        self.tls = tls
        self.log = log or logging.getLogger(f"trainet.p4runtime.{device.device_id}")
        self.servicer = _Servicer(device, self.log)
        # each open StreamChannel holds a worker thread; keep some for unary calls
        self._executor = futures.ThreadPoolExecutor(max_workers=max_streams + 8,
                                                    thread_name_prefix="p4rt")
        # no SO_REUSEPORT: a second switch on the same port must fail, not share it
        self._server = grpc.server(self._executor, options=[("grpc.so_reuseport", 0)])
        p4runtime_pb2_grpc.add_P4RuntimeServicer_to_server(self.servicer, self._server)
        self.port = None

    def start(self) -> "P4RuntimeServer":
        credentials = self.tls.credentials() if self.tls is not None else None
        try:
            self.port = (self._server.add_secure_port(self.address, credentials) if credentials
                         else self._server.add_insecure_port(self.address))
        except RuntimeError as e:
            raise TrainetError(f"P4Runtime server: cannot listen on {self.address} ({e}); "
                               "pick a free port") from None
        if not self.port:
            raise TrainetError(f"P4Runtime server: cannot listen on {self.address}; "
                               "the port is probably in use, pick another")
        self._server.start()
        host = self.address.rsplit(":", 1)[0]
        self.log.info("P4Runtime server for device %d on %s:%d%s",
                      self.servicer.device.device_id, host, self.port,
                      " (TLS)" if self.tls is not None else "")
        return self

    def stop(self, grace: float = 0.5) -> None:
        """Stop serving; open streams are cancelled after ``grace`` seconds."""
        self._server.stop(grace).wait()
        self._executor.shutdown(wait=False)
