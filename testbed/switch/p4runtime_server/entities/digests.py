"""Digest entries: which digests the server delivers to the primary controller, and how
(the configuration is kept; digests are sent as they come, never held for an ack)."""
from __future__ import annotations

from p4.v1 import p4runtime_pb2

from testbed.p4runtime import convert as C
from testbed.switch.p4runtime_server.entities.base import U, Handler


class Digests(Handler):
    kind = "digest_entry"

    def write(self, pipeline, target, utype: int, msg):
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

    def read(self, pipeline, target, msg):
        configs = pipeline.digest_config
        for did in [msg.digest_id] if msg.digest_id else sorted(configs):
            if did in configs:
                yield p4runtime_pb2.DigestEntry(digest_id=did, config=configs[did])
