"""The program in a forwarding-pipeline device config, in the forms BMv2 clients send.

``ForwardingPipelineConfig.p4_device_config`` (and a switch's program file) may hold:

* the P4_16 source text of the program;
* trainet-p4c's compiled artefact (the ``.json`` it writes, ``testbed.p4.artifact``);
* BMv2 JSON, p4c-bm2-ss's output (``testbed.p4.bmv2.loader``), whose P4Info the client
  sends, as with BMv2;
* any of those wrapped in ``p4.tmp.P4DeviceConfig``, PI's wrapper whose
  ``device_data`` holds the config: the p4lang tutorials' p4runtime_lib and ptf's
  P4Runtime tests send it, as BMv2's server expects.

Anything else is refused with a :class:`DeviceConfigError` naming the accepted forms.

``p4.tmp.p4config_pb2`` comes with trainet's distribution (``compat/p4/tmp``, installed
into the p4 package of p4runtime). Run from a checkout whose install predates it, this
module adds ``compat/p4`` to that package's search path, so the import works in this
process too.
"""
from __future__ import annotations

import json
from pathlib import Path

from google.protobuf.message import DecodeError

from testbed.errors import TrainetError
from testbed.p4 import artifact, ir
from testbed.p4.bmv2 import loader as bmv2_json
from testbed.p4.lowering.program import load_program, load_source

try:
    from p4.tmp import p4config_pb2
except ModuleNotFoundError:
    import p4
    p4.__path__.append(str(Path(__file__).resolve().parents[2] / "compat" / "p4"))
    from p4.tmp import p4config_pb2

ACCEPTED = ("the P4_16 source text, trainet-p4c's compiled .json, BMv2 JSON "
            "(p4c-bm2-ss's output), or any of them wrapped in p4.tmp.P4DeviceConfig "
            "(in device_data)")
# first byte of a serialized P4DeviceConfig: the tag of reassign, extras or device_data
_WRAPPER_TAGS = (0x08, 0x12, 0x1A)


class DeviceConfigError(TrainetError):
    """A device config that holds no program trainet can load."""


def program_from_config(data: bytes, where: str = "p4_device_config") -> ir.Program:
    """The checked program of a device config; ``where`` names it in errors."""
    if data[:1] and data[0] in _WRAPPER_TAGS:
        wrapper = p4config_pb2.P4DeviceConfig()
        try:
            wrapper.ParseFromString(data)
        except DecodeError:
            raise DeviceConfigError(f"{where} is neither text nor a p4.tmp.P4DeviceConfig; "
                                    f"send {ACCEPTED}") from None
        if not wrapper.device_data:
            raise DeviceConfigError(f"{where} is a p4.tmp.P4DeviceConfig with empty "
                                    f"device_data; put the program in it: {ACCEPTED}")
        return _unwrapped(wrapper.device_data, f"{where} (P4DeviceConfig.device_data)")
    return _unwrapped(data, where)


def extras(data: bytes) -> dict:
    """The ``extras.kv`` of a device config wrapped in p4.tmp.P4DeviceConfig ({} for the
    other forms)."""
    if not (data[:1] and data[0] in _WRAPPER_TAGS):
        return {}
    wrapper = p4config_pb2.P4DeviceConfig()
    try:
        wrapper.ParseFromString(data)
    except DecodeError:
        return {}
    return dict(wrapper.extras.kv)


def program_from_file(path, include_dirs=(), defines=None) -> ir.Program:
    """The program of a switch's program file: P4 source (``.p4``, read with its include
    path and definitions) or any device config form :func:`program_from_config` takes."""
    path = Path(path)
    if path.suffix == ".p4":
        return load_program(path, include_dirs=include_dirs, defines=defines)
    try:
        data = path.read_bytes()
    except OSError as e:
        raise DeviceConfigError(f"{path}: cannot read the program ({e.strerror}); check "
                                "the path") from None
    return program_from_config(data, str(path))


def _unwrapped(data: bytes, where: str) -> ir.Program:
    if not data.strip():
        raise DeviceConfigError(f"{where} is empty; send {ACCEPTED}")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        raise DeviceConfigError(f"{where} is binary data, not a program; send "
                                f"{ACCEPTED}") from None
    if text.lstrip().startswith("{"):
        return _from_json(text, where)
    return load_source(text, filename=where)


def _from_json(text: str, where: str) -> ir.Program:
    try:
        doc = json.loads(text)
    except ValueError as e:
        raise DeviceConfigError(f"{where} starts like JSON but is not JSON ({e}); send "
                                f"{ACCEPTED}") from None
    if artifact.is_artifact(doc):
        return artifact.load(doc, where)
    if bmv2_json.is_bmv2_json(doc):
        return bmv2_json.load(doc, where)
    raise DeviceConfigError(f"{where} is JSON but not trainet-p4c's output; send {ACCEPTED}")
