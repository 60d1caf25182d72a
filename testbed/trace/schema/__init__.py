"""The Chakra execution-trace schema and its generated Python bindings.

``et_def.proto`` is MLCommons Chakra's schema (package ``ChakraProtoMsg``), kept
byte for byte as published in github.com/mlcommons/chakra, path
``schema/protobuf/et_def.proto``, commit f5124d76bb7c3ba2ad67cb8386ad0f450a88e88e, under
the MIT license in ``LICENSE`` beside it. No package registry ships the schema, so it
lives here as the interface definition it is; trainet's own code is elsewhere.

``et_def_pb2.py`` is protoc's output for it (libprotoc 3.21.6, from grpcio-tools 1.51.1,
whose generated code protobuf 3.20 and newer load):

    python -m grpc_tools.protoc -Itestbed/trace/schema --python_out=testbed/trace/schema \\
        testbed/trace/schema/et_def.proto

``tests/trace/test_chakra.py`` checks that every message, field and enum value of the
schema is in the bindings with its number.
"""
