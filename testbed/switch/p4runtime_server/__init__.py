"""P4Runtime v1 gRPC server for one device: :mod:`server` listens, :mod:`service` answers
the RPCs and dispatches each entity to its kind's handler (:mod:`entities`), after
:mod:`arbitration` says who may write and :mod:`pipeline` holds the program set.

What the software target cannot serve, each refused with a status that says so: roles
other than the default one (NOT_FOUND), action profiles (a program with one does not
load, so reads of members and groups are empty), extern entries (v1model declares none:
reads are empty), writes of direct counters, idle timeouts, per-color meter counters,
direct resources and metadata of default entries, and DATAPLANE_ATOMIC batches.
Reads of every other entity type are served; those the program does not declare are
empty.
"""
from testbed.switch.p4runtime_server.server import P4RuntimeServer

__all__ = ["P4RuntimeServer"]
