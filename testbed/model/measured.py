"""Bandwidth tables: per group placement and collective, the latency and bandwidth the
testbed measured on a fabric (``trainet model measure``, testbed/experiment/
bandwidth.py), which the model then uses instead of the links' nominal figures
(``--bandwidth-table FILE`` of ``trainet plan`` and ``trainet model predict``).

A placement is a group kind as the strategies declare it (hosts/collectives/timing.py):
groups of ``size`` ranks ``stride`` apart, rank ``i`` on the fabric's ``i``-th worker,
every group of the kind running at once. An entry holds the collective's points (nominal
payload in bytes, measured seconds of the slowest group) and their least-squares line
``t = latency_s + factor x S / bandwidth_Bps``, ``factor`` the ring's share of the
payload a rank sends (2 (n-1)/n for all-reduce, (n-1)/n for all-gather and
reduce-scatter): ``bandwidth_Bps`` is the bus bandwidth (nominal bytes/s of a rank's
ring hop, comparable with the link rate), ``latency_s`` the whole collective's fixed
cost (every ring step's latency together), both as measured, so neither needs a latency
model of the switches and hosts' stacks.

A placement or collective the table lacks is timed from the fabric's links as without a
table; the lookups that missed are kept (:attr:`BandwidthTable.misses`) for the note the
commands print.
"""
from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from pathlib import Path

from hosts.collectives.timing import Placement
from testbed.errors import TrainetError

OPS = ("all-reduce", "all-gather", "reduce-scatter")


def ring_factor(op: str, n: int) -> float:
    """The share of the payload a rank of a ring of ``n`` sends."""
    share = (n - 1) / n
    return 2 * share if op == "all-reduce" else share


@dataclass(frozen=True)
class Entry:
    op: str
    size: int
    stride: int
    latency_s: float
    bandwidth_Bps: float                # nominal bus bandwidth, bytes/s
    points: tuple = ()                  # (nominal bytes, seconds) as measured
    groups: str = ""                    # the placement on the fabric, for people

    def seconds(self, nbytes: float) -> tuple[float, float]:
        """(latency part, bandwidth part) of one collective of ``nbytes``."""
        return self.latency_s, ring_factor(self.op, self.size) * nbytes / self.bandwidth_Bps


def fit_entry(op: str, size: int, stride: int, points: list[tuple[float, float]],
              groups: str = "") -> Entry:
    """The least-squares line through ``points`` (nominal bytes, seconds), its intercept
    held at zero or above; a line that does not rise (noise over too close sizes) is
    replaced by the largest point's throughput with no latency."""
    xs, ys = [p[0] for p in points], [p[1] for p in points]
    n = len(points)
    mx, my = sum(xs) / n, sum(ys) / n
    var = sum((x - mx) ** 2 for x in xs)
    slope = sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / var if var else 0.0
    latency = my - slope * mx
    if latency < 0:
        latency, slope = 0.0, sum(x * y for x, y in zip(xs, ys)) / sum(x * x for x in xs)
    if slope <= 0:
        largest = max(points)
        latency, slope = 0.0, largest[1] / largest[0]
    return Entry(op, size, stride, latency, ring_factor(op, size) / slope,
                 tuple(tuple(p) for p in points), groups)


@dataclass
class BandwidthTable:
    fabric: str                         # the topology or experiment file measured
    hosts: tuple[str, ...]              # worker hosts, rank order
    scale: float                        # co-scaling of the run (emulated = nominal x scale)
    entries: dict[str, Entry]           # "OP SIZExSTRIDE" -> entry
    source: str = ""
    misses: set = field(default_factory=set, compare=False)

    @property
    def world(self) -> int:
        return len(self.hosts)

    @staticmethod
    def key(op: str, size: int, stride: int) -> str:
        return f"{op} {size}x{stride}"

    def entry(self, op: str, kind: Placement, world: int) -> Entry | None:
        """The measured entry of ``op`` over groups placed as ``kind`` on ``world``
        ranks, else None (and the miss is noted)."""
        if op not in OPS:
            return None
        found = self.entries.get(self.key(op, kind.size, kind.stride)) \
            if world == self.world else None
        if found is None:
            self.misses.add(f"{op} over groups of {kind.size} ranks {kind.stride} apart "
                            f"of {world}")
        return found

    def note(self) -> str | None:
        """One line on the lookups the table could not answer, or None."""
        if not self.misses:
            return None
        return (f"note: bandwidth table {self.source} (measured on {self.world} ranks) "
                f"has no {'; no '.join(sorted(self.misses))}: those are timed from the "
                "fabric's nominal link figures")

    def save(self, path: Path) -> Path:
        path = Path(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        data = {"fabric": self.fabric, "hosts": list(self.hosts), "scale": self.scale,
                "entries": [asdict(e) for e in self.entries.values()]}
        path.write_text(json.dumps(data, indent=1) + "\n")
        return path


def load(path: str | None) -> BandwidthTable | None:
    """The table of a file written by ``trainet model measure``; None for no path."""
    if not path:
        return None
    try:
        data = json.loads(Path(path).read_text())
        entries = [Entry(**{**e, "points": tuple(map(tuple, e["points"]))})
                   for e in data["entries"]]
        table = BandwidthTable(data["fabric"], tuple(data["hosts"]), float(data["scale"]),
                               {BandwidthTable.key(e.op, e.size, e.stride): e
                                for e in entries}, source=str(path))
    except OSError as err:
        raise TrainetError(f"--bandwidth-table {path}: cannot read it ({err.strerror}); "
                           "write one with `trainet model measure FABRIC -o FILE`") from None
    except (ValueError, KeyError, TypeError) as err:
        raise TrainetError(f"--bandwidth-table {path}: not a table written by `trainet "
                           f"model measure` ({type(err).__name__}: {err}); measure "
                           "again") from None
    return table


def attach(fabric, table: BandwidthTable | None):
    """``fabric`` timing its collectives from ``table`` where it has them. The table
    must come from the same workers in the same order."""
    if table is None:
        return fabric
    gpus = tuple(getattr(fabric, "gpus", ()))
    if gpus[:table.world] != table.hosts and gpus != table.hosts[:len(gpus)]:
        raise TrainetError(f"--bandwidth-table {table.source}: measured on the workers "
                           f"{', '.join(table.hosts)} of {table.fabric}, but fabric "
                           f"{fabric.name} has {', '.join(gpus) or 'no worker hosts'}; "
                           f"measure this fabric: trainet model measure FABRIC -o FILE")
    fabric.table = table
    return fabric
