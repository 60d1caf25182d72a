"""Rebuild the P4Runtime package's generated modules for protobuf 4 and newer.

p4runtime 1.4.1 (like every release on PyPI up to 1.6.0) ships ``_pb2`` modules in the
protoc 3.19 style, which builds each descriptor field by field; protobuf 4 and newer
refuse that style with their compiled runtime (upb), leaving only the pure-Python one,
which bounds a P4Runtime server to a few thousand messages per second. Each old module
carries its whole ``.proto`` file as a serialized FileDescriptorProto (``serialized_pb``),
which is all that protoc's current style needs: this script writes that style from it —
the same dependencies, the same serialized descriptor, the module filled by protobuf's
own ``builder`` — so the messages, enums and wire format are the 1.4.1 ones, byte for
byte. The ``_grpc`` modules do not depend on the style and stay as they are.

Run with the Python of the environment to fix: ``python vagrant/p4runtime_bindings.py``.
It rewrites only old-style modules, so running it again changes nothing.
"""
import ast
import importlib.util
import sys
from pathlib import Path

MARK = "# Rebuilt from p4runtime's serialized descriptor (vagrant/p4runtime_bindings.py)."
TEMPLATE = '''\
# -*- coding: utf-8 -*-
{mark}
"""Generated protocol buffer code."""
from google.protobuf import descriptor_pool as _descriptor_pool
from google.protobuf import symbol_database as _symbol_database
from google.protobuf.internal import builder as _builder

_sym_db = _symbol_database.Default()

{imports}

DESCRIPTOR = _descriptor_pool.Default().AddSerializedFile({serialized!r})
_builder.BuildMessageAndEnumDescriptors(DESCRIPTOR, globals())
_builder.BuildTopDescriptorsAndMessages(DESCRIPTOR, {module!r}, globals())
'''


def rebuild(source: str, module: str) -> str | None:
    """The current-style text of an old-style generated module, or None if it is not one."""
    if MARK in source:
        return None
    tree = ast.parse(source)
    serialized = None
    imports = []
    for node in tree.body:
        if isinstance(node, ast.ImportFrom) and node.module and (
                node.module.endswith("_pb2") or any(a.name.endswith("_pb2") for a in node.names)):
            imports.append(ast.unparse(node))
        if isinstance(node, ast.Assign) and isinstance(node.value, ast.Call) \
                and [t.id for t in node.targets if isinstance(t, ast.Name)] == ["DESCRIPTOR"]:
            for keyword in node.value.keywords:
                if keyword.arg == "serialized_pb":
                    serialized = ast.literal_eval(keyword.value)
    if not isinstance(serialized, bytes):
        return None
    return TEMPLATE.format(mark=MARK, imports="\n".join(imports), serialized=serialized,
                           module=module)


def rebuild_package(root: Path) -> list[Path]:
    """Rewrite every old-style ``_pb2`` module under the ``p4`` package at ``root``."""
    changed = []
    for path in sorted(root.rglob("*_pb2.py")):
        module = ".".join(("p4",) + path.relative_to(root).with_suffix("").parts)
        text = rebuild(path.read_text(), module)
        if text is not None:
            path.write_text(text)
            for cached in path.parent.glob(f"__pycache__/{path.stem}.*.pyc"):
                cached.unlink()
            changed.append(path)
    return changed


def main() -> int:
    spec = importlib.util.find_spec("p4")
    if spec is None or not spec.submodule_search_locations:
        print("error: the p4runtime package is not installed in this environment "
              f"({sys.executable})", file=sys.stderr)
        return 2
    changed = []
    for location in spec.submodule_search_locations:
        changed += rebuild_package(Path(location))
    if changed:
        print(f"rebuilt {len(changed)} P4Runtime modules for this protobuf: "
              + ", ".join(p.name for p in changed))
    return 0


if __name__ == "__main__":
    sys.exit(main())
