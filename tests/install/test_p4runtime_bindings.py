"""vagrant/p4runtime_bindings.py rewrites p4runtime's old-style generated modules in the
style protobuf's compiled runtime loads, keeping the descriptor byte for byte."""
import importlib.util
from pathlib import Path

from google.protobuf import descriptor_pb2
from google.protobuf.internal import api_implementation

from p4.v1 import p4runtime_pb2

SCRIPT = Path(__file__).resolve().parents[2] / "vagrant" / "p4runtime_bindings.py"
spec = importlib.util.spec_from_file_location("p4runtime_bindings", SCRIPT)
bindings = importlib.util.module_from_spec(spec)
spec.loader.exec_module(bindings)

# what protoc 3.19 writes for a small file, cut to the parts the rewrite reads
OLD_STYLE = '''\
from google.protobuf import descriptor as _descriptor
from google.protobuf.internal import enum_type_wrapper
from google.protobuf import any_pb2 as google_dot_protobuf_dot_any__pb2

DESCRIPTOR = _descriptor.FileDescriptor(
  name='demo/v1/demo.proto',
  package='demo.v1',
  syntax='proto3',
  serialized_pb=SERIALIZED,
  dependencies=[google_dot_protobuf_dot_any__pb2.DESCRIPTOR,])
_THING = _descriptor.Descriptor(name='Thing')
'''


def _demo_file() -> bytes:
    proto = descriptor_pb2.FileDescriptorProto(
        name="demo/v1/demo.proto", package="demo.v1", syntax="proto3",
        dependency=["google/protobuf/any.proto"])
    thing = proto.message_type.add(name="Thing")
    thing.field.add(name="id", number=1, type=descriptor_pb2.FieldDescriptorProto.TYPE_UINT32,
                    label=descriptor_pb2.FieldDescriptorProto.LABEL_OPTIONAL)
    thing.field.add(name="extra", number=2, type_name=".google.protobuf.Any",
                    type=descriptor_pb2.FieldDescriptorProto.TYPE_MESSAGE,
                    label=descriptor_pb2.FieldDescriptorProto.LABEL_OPTIONAL)
    kind = proto.enum_type.add(name="Kind")
    kind.value.add(name="KIND_NONE", number=0)
    kind.value.add(name="KIND_ONE", number=1)
    return proto.SerializeToString()


def test_an_old_style_module_is_rewritten_and_loads(tmp_path, monkeypatch):
    serialized = _demo_file()
    root = tmp_path / "p4"
    (root / "demo").mkdir(parents=True)
    (root / "__init__.py").write_text("")
    (root / "demo" / "__init__.py").write_text("")
    module = root / "demo" / "demo_pb2.py"
    module.write_text(OLD_STYLE.replace("SERIALIZED", repr(serialized)))

    assert bindings.rebuild_package(root) == [module]
    assert bindings.rebuild_package(root) == []          # a second run changes nothing
    source = module.read_text()
    assert "_descriptor.Descriptor(" not in source and "enum_type_wrapper" not in source

    namespace: dict = {"__name__": "p4.demo.demo_pb2"}
    exec(compile(source, str(module), "exec"), namespace)
    assert namespace["DESCRIPTOR"].serialized_pb == serialized
    thing = namespace["Thing"](id=7)
    assert namespace["Thing"].FromString(thing.SerializeToString()).id == 7
    assert namespace["KIND_ONE"] == 1 and namespace["Kind"].Name(1) == "KIND_ONE"


def test_a_module_in_the_current_style_is_left_alone():
    current = Path(importlib.util.find_spec("p4.tmp.p4config_pb2").origin)
    assert bindings.rebuild(current.read_text(), "p4.tmp.p4config_pb2") is None


def test_the_installed_bindings_run_on_the_compiled_runtime():
    """What vagrant/install.sh leaves: p4runtime's modules rewritten, protobuf compiled."""
    assert bindings.MARK in Path(p4runtime_pb2.__file__).read_text()
    assert api_implementation.Type() != "python"
