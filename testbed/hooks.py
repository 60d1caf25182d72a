"""The one line a training script may add to tell trainet where its steps end.

    from testbed import hooks
    ...
    hooks.step(loss=loss)       # once per training step

Under ``trainet run`` / ``trainet launch`` (hosts/script_host.py) each call ends a step
record (time, collectives, bytes, loss); anywhere else it does nothing. Without it, a
step ends at the optimizer's step.
"""
from __future__ import annotations

import sys


def step(loss=None) -> None:
    """End the current training step; ``loss`` (a number or a one-element tensor) is
    recorded with it."""
    recorder = getattr(sys.modules.get("hosts.script_metrics"), "RECORDER", None)
    if recorder is not None:
        recorder.hook_step(loss)
