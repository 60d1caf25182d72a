"""One handler per P4Runtime entity kind, its validation, write and read side by side
(:mod:`base` says what a handler is); ``HANDLERS`` maps each kind to its handler."""
from testbed.switch.p4runtime_server.entities.counters import Counters
from testbed.switch.p4runtime_server.entities.digests import Digests
from testbed.switch.p4runtime_server.entities.direct import DirectCounters, DirectMeters
from testbed.switch.p4runtime_server.entities.meters import Meters
from testbed.switch.p4runtime_server.entities.registers import Registers
from testbed.switch.p4runtime_server.entities.replication import Replication
from testbed.switch.p4runtime_server.entities.tables import TableEntries
from testbed.switch.p4runtime_server.entities.unserved import (ActionProfileGroups,
                                                         ActionProfileMembers, ExternEntries)
from testbed.switch.p4runtime_server.entities.value_sets import ValueSets

HANDLERS = {h.kind: h for h in (TableEntries(), DirectCounters(), DirectMeters(), Counters(),
                                Meters(), Registers(), Replication(), ValueSets(), Digests(),
                                ActionProfileMembers(), ActionProfileGroups(),
                                ExternEntries())}
