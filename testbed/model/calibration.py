"""The model's free terms, uncalibrated or fitted from the testbed's measured runs.

Uncalibrated (:data:`DEFAULT`):

* a link's bandwidth and one-way latency are its NIC or link profile's
  (testbed/topology/profiles.py, each with its source); a ring step costs one latency of
  the slowest tier it crosses;
* every collective reaches the whole bandwidth (efficiency 1): the alpha-beta bound;
* the CPU optimizer of ZeRO-Offload updates 1e8 parameters per second and core (the
  order of torch's AdamW on one core of a current server CPU; hosts/offload.py measures
  it on the machine a run uses);
* collectives on the GPU slow the compute they overlap by 18.9 % (hosts/shadow.py:
  Lee et al. 2025, arXiv 2507.03114).

Calibrated (``trainet model calibrate``, testbed/experiment/model_check.py): a latency
per switch a message traverses; per profile, a latency added to each ring step (what
the hosts' stacks add to the links' own) and a bandwidth factor; per collective
(operation and route), an efficiency; the CPU optimizer's rate. A calibration is a JSON file, written next to
the results it was fitted from (``calibration.json``) or by name under
``~/.trainet/calibrations/NAME.json``; ``--calibration`` takes either.
"""
from __future__ import annotations

import json
import os
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path

from hosts.shadow import DEFAULT_INTERFERENCE
from testbed.errors import TrainetError
from testbed.model.fabric import Route

FILE = "calibration.json"
DEFAULT_CPU_ADAM_RATE = 1e8        # parameters/s on one core (see the module docstring)


def store() -> Path:
    return Path(os.environ.get("TRAINET_CALIBRATIONS",
                               Path.home() / ".trainet" / "calibrations"))


@dataclass(frozen=True)
class Calibration:
    name: str = "uncalibrated"
    hop_latency_s: float = 0.0                                     # per switch traversed
    latency_s: dict[str, float] = field(default_factory=dict)      # profile -> added/step
    bandwidth: dict[str, float] = field(default_factory=dict)      # profile -> factor
    collectives: dict[str, float] = field(default_factory=dict)    # "op/route" -> eff.
    cpu_adam_rate: float = DEFAULT_CPU_ADAM_RATE
    interference: float = DEFAULT_INTERFERENCE
    sources: list[str] = field(default_factory=list)
    fit: dict = field(default_factory=dict)       # residuals and samples, as fitted

    def efficiency(self, op: str, route: str) -> float:
        """The collective's fitted efficiency, else its route's mean (``*/route``), else 1."""
        return self.collectives.get(f"{op}/{route}", self.collectives.get(f"*/{route}", 1.0))

    def adjust(self, route: Route) -> Route:
        """The route with this calibration's terms for its profile."""
        added = self.latency_s.get(route.profile, 0.0) + route.hops * self.hop_latency_s
        factor = self.bandwidth.get(route.profile, 1.0)
        if not added and factor == 1.0:
            return route
        return replace(route, bps=route.bps * factor, latency_s=route.latency_s + added)

    def save(self, path: Path) -> Path:
        path = Path(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(asdict(self), indent=2, sort_keys=True) + "\n")
        return path


DEFAULT = Calibration()


def load(spec: str | None) -> Calibration:
    """A calibration file, a results directory holding one, or a stored name; None:
    the uncalibrated defaults."""
    if not spec:
        return DEFAULT
    candidates = [Path(spec), Path(spec) / FILE, store() / f"{spec}.json"]
    path = next((p for p in candidates if p.is_file()), None)
    if path is None:
        known = sorted(p.stem for p in store().glob("*.json")) if store().is_dir() else []
        raise TrainetError(f"--calibration {spec!r}: no such file, no {FILE} in such a "
                           f"directory and no stored calibration of that name (stored: "
                           f"{', '.join(known) or 'none'}); run `trainet model calibrate "
                           "RESULTS_DIR...` first")
    try:
        data = json.loads(path.read_text())
        return Calibration(**data)
    except (ValueError, TypeError) as err:
        raise TrainetError(f"{path}: not a calibration written by `trainet model "
                           f"calibrate` ({err}); calibrate again") from None
