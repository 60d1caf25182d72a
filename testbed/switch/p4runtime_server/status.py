"""Statuses the P4Runtime server sends, bounded in size, and what ends an RPC with one.

gRPC clients refuse trailing metadata over 16 KiB by default (and report
RESOURCE_EXHAUSTED instead of the status), so no message and no batch error may grow
with the request: a message is cut to ``MESSAGE_LIMIT`` characters, and a failed batch's
``grpc-status-details-bin`` (one p4.v1.Error per update) stays within ``DETAILS_BUDGET``
bytes. Codes come first: every update gets its code while they fit, then messages are
added in request order while the budget lasts.
"""
from __future__ import annotations

import grpc
from google.protobuf import any_pb2
from google.rpc import code_pb2, status_pb2
from p4.v1 import p4runtime_pb2

MESSAGE_LIMIT = 512           # characters of one status or error message
DETAILS_BUDGET = 8192         # bytes of one batch's serialized google.rpc.Status
ANY_OVERHEAD = 4              # tag and length bytes of one entry of Status.details


class RpcError(Exception):
    """Ends an RPC with a gRPC status."""

    def __init__(self, code: str, message: str):
        self.code = code
        self.message = message
        super().__init__(f"{code}: {message}")


def grpc_code(name: str) -> grpc.StatusCode:
    return getattr(grpc.StatusCode, name, grpc.StatusCode.UNKNOWN)


def check_role(request) -> None:
    """Only the default role exists here: P4Runtime answers NOT_FOUND for any other."""
    role = request.role or str(getattr(request, "role_id", 0) or "")
    if role:
        raise RpcError("NOT_FOUND", f"role {bounded(role, 64)!r} is not configured on this "
                                    "device; leave role unset (the default role may do "
                                    "everything)")


def bounded(message: str, limit: int = MESSAGE_LIMIT) -> str:
    """``message``, cut to ``limit`` characters with a note of its full length."""
    if len(message) <= limit:
        return message
    note = f"... ({len(message)} characters)"
    return message[:limit - len(note)] + note


def _packed(code: int, message: str = "") -> any_pb2.Any:
    out = any_pb2.Any()
    out.Pack(p4runtime_pb2.Error(canonical_code=code, message=message))
    return out


def batch_status(failures: list, code_of) -> status_pb2.Status:
    """The status of a Write whose updates did not all apply: ``failures`` holds one
    entry per update in request order, None or an error with ``code`` and ``message``;
    ``code_of`` maps a code name to its number."""
    failed = [(i, e) for i, e in enumerate(failures) if e is not None]
    first_at, first = failed[0]
    summary = (f"{len(failed)} of {len(failures)} updates failed; the first, update "
               f"{first_at}: {first.code}: {first.message}")
    details = [_packed(code_pb2.OK if e is None else code_of(e.code)) for e in failures]
    used = sum(d.ByteSize() + ANY_OVERHEAD for d in details) + 2 * MESSAGE_LIMIT
    if used > DETAILS_BUDGET:
        fits = _how_many_fit(details, DETAILS_BUDGET - 2 * MESSAGE_LIMIT)
        summary = (f"{summary}; the details hold the first {fits} updates' results only: "
                   f"send at most {fits} updates per batch to get every result")
        details = details[:fits]
    else:
        for i, e in failed:
            with_message = _packed(code_of(e.code), bounded(e.message, 200))
            extra = with_message.ByteSize() - details[i].ByteSize()
            if used + extra > DETAILS_BUDGET:
                break
            details[i], used = with_message, used + extra
    status = status_pb2.Status(code=code_pb2.UNKNOWN, message=bounded(summary))
    status.details.extend(details)
    return status


def fail_batch(context, errors: list) -> None:
    """P4Runtime's batch error: status UNKNOWN whose details hold one p4.v1.Error per
    update, in request order (OK for those that were applied), within a size bound."""
    status = batch_status(errors, lambda name: grpc_code(name).value[0])
    context.set_trailing_metadata((("grpc-status-details-bin", status.SerializeToString()),))
    context.abort(grpc.StatusCode.UNKNOWN, status.message)


def _how_many_fit(details: list, budget: int) -> int:
    used = 0
    for n, d in enumerate(details):
        used += d.ByteSize() + ANY_OVERHEAD
        if used > budget:
            return n
    return len(details)
