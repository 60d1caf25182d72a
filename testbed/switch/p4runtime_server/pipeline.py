"""The forwarding pipeline a P4Runtime client sets: its P4Info, device config and cookie,
the program compiled from it, and the state P4Runtime keeps beside the target's (meter
configs, value set members, digest configs, entries' metadata).

The device config holds the program in one of the forms
``testbed.p4runtime.device_config`` reads (P4 source, trainet-p4c's output, either wrapped
in p4.tmp.P4DeviceConfig); the target compiles the program itself.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from p4.config.v1 import p4info_pb2
from p4.v1 import p4runtime_pb2

from testbed.errors import TrainetError
from testbed.p4 import entries as E
from testbed.p4 import p4info as p4info_builder
from testbed.p4runtime import convert as C
from testbed.p4runtime.device_config import DeviceConfigError, program_from_config
from testbed.p4runtime.entry_wire import WireDecoder, wire_decoder
from testbed.switch.p4runtime_server.status import RpcError
from testbed.switch.p4runtime_server.translation import Translation

GET = p4runtime_pb2.GetForwardingPipelineConfigRequest


@dataclass
class ForwardingPipeline:
    p4info: p4info_pb2.P4Info
    source: bytes
    cookie: int
    program: object
    index: C.P4InfoIndex                # over the data-plane widths of translated types
    translation: Translation
    defaults: dict = field(default_factory=dict)        # table name -> initial ActionCall
    meters: dict = field(default_factory=dict)          # (name, index) -> MeterConfig
    value_sets: dict = field(default_factory=dict)      # name -> [ValueSetMember]
    digest_config: dict = field(default_factory=dict)   # digest id -> DigestEntry.Config
    cookies: dict = field(default_factory=dict)   # (table, entry key) -> (controller_metadata,
                                                  # metadata) of TableEntry
    # the C decoder of plain inserts; None when values are translated (it reads them as
    # data-plane values) or no C compiler is there
    wire: WireDecoder | None = None
    # (the target, {table id: whether its decoder checks what the target's table checks}),
    # see entities.tables.checks_as_target
    agreed: tuple = (None, {})

    def __post_init__(self):
        if not self.translation.active:
            self.wire = wire_decoder(self.index)


def initial_defaults(program) -> dict:
    out = {}
    for control in program.controls.values():
        for table in control.tables.values():
            ref = table.default_action
            action = control.actions.get(ref.action) or program.actions.get(ref.action)
            names = [p.name for p in action.params if p.direction == ""] if action else []
            params = {n: a.value for n, a in zip(names, ref.args) if hasattr(a, "value")}
            out[table.name] = E.ActionCall(ref.action, params)
    return out


def adopted(program, program_file: str | None) -> ForwardingPipeline:
    """A pipeline the device was started with: its P4Info is the generated one, its
    device config the file the device loaded (``program_file``, else the program's source
    file)."""
    path = Path(program_file or program.source)
    info = p4info_builder.build(program)
    translation = Translation(info, program)
    return ForwardingPipeline(info, path.read_bytes() if path.is_file() else b"", 0, program,
                              C.P4InfoIndex(translation.dataplane(info)), translation,
                              initial_defaults(program))


def verified(config: p4runtime_pb2.ForwardingPipelineConfig) -> ForwardingPipeline:
    """The pipeline of a SetForwardingPipelineConfig: its program compiles and its P4Info
    describes that program's tables and actions."""
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
    try:
        translation = Translation(given, program, data, expected)
        index = C.P4InfoIndex(translation.dataplane(given))
    except E.ControlPlaneError as e:
        raise RpcError(e.code, e.message) from None
    return ForwardingPipeline(given, data, config.cookie.cookie, program, index, translation,
                              initial_defaults(program))


def check_target_accepts(program) -> None:
    """A trial compile: VERIFY must reject what COMMIT would fail to load."""
    from testbed.p4.targets import python_target
    try:
        python_target(program)
    except TrainetError as e:
        raise RpcError("INVALID_ARGUMENT", f"the target cannot run this program: {e}") \
            from None


def snapshot(pipeline: ForwardingPipeline, target) -> tuple:
    """What RECONCILE_AND_COMMIT carries over: action profiles' members and groups, the
    writable tables' entries and defaults, multicast groups and clone sessions (the
    caller holds the target's lock)."""
    writable = [t for t in pipeline.index.tables.values() if not t.is_const]
    tables = {t.name: target.table_entries(t.name) for t in writable}
    defaults = {t.name: target.table_get_default(t.name) for t in writable
                if not t.const_default_action_id}
    profiles = {}
    for info in pipeline.index.action_profiles.values():
        p = target.profile(info.preamble.name)
        profiles[info.preamble.name] = ([m for m, _ in p.members.values()],
                                        [g for g, _ in p.groups.values()])
    return profiles, tables, defaults, dict(target.mc_groups()), dict(target.clone_sessions())


def restore(pipeline: ForwardingPipeline, target, kept: tuple, log) -> None:
    """RECONCILE_AND_COMMIT: carry over the entries the new program can still hold (the
    caller holds the target's lock)."""
    profiles, tables, defaults, groups, sessions = kept
    for name, (members, profile_groups) in profiles.items():
        if name not in pipeline.index.action_profile_ids:
            continue
        profile = target.profile(name)
        for write, items in ((profile.member_insert, members),
                             (profile.group_insert, profile_groups)):
            for item in items:
                try:
                    write(item)
                except E.ControlPlaneError as e:
                    log.info("reconcile: dropped a member or group of %s (%s)", name, e)
    for name, entries in tables.items():
        if name not in pipeline.index.table_ids:
            continue
        for entry in entries:
            try:
                target.table_insert(entry)
            except E.ControlPlaneError as e:
                log.info("reconcile: dropped an entry of %s (%s)", name, e)
    for name, call in defaults.items():
        try:
            target.table_set_default(name, call)
        except E.ControlPlaneError as e:
            log.info("reconcile: kept the program's default of %s (%s)", name, e)
    for g in groups.values():
        target.mc_group_set(g)
    for s in sessions.values():
        target.clone_session_set(s)


def config_response(pipeline: ForwardingPipeline | None,
                    response_type: int) -> p4runtime_pb2.GetForwardingPipelineConfigResponse:
    out = p4runtime_pb2.GetForwardingPipelineConfigResponse()
    if pipeline is None:
        return out
    config = out.config
    config.cookie.cookie = pipeline.cookie
    if response_type in (GET.ALL, GET.P4INFO_AND_COOKIE):
        config.p4info.CopyFrom(pipeline.p4info)
    if response_type in (GET.ALL, GET.DEVICE_CONFIG_AND_COOKIE):
        config.p4_device_config = pipeline.source
    return out
