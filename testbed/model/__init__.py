"""The analytical model of one training step at any scale (``trainet model``).

The API other tools use::

    from testbed.model import Workload, get_fabric, predict
    p = predict("megatron", Workload(shadow.shadow_model("gpt-175b"),
                                     shadow.device("a100-80gb"), global_batch=1536),
                get_fabric("dgx-a100", 1024), 1024, {"tp": 8, "pp": 8})
    p.step_s, p.exposed_by_tier, p.roles[0].events

``predict`` returns a :class:`~testbed.model.prediction.StepPrediction` (see
testbed/model/prediction.py for its fields: per rank role, the compute phases and
collectives in order with their dependencies).
"""
from testbed.model.fabric import fabric as get_fabric
from testbed.model.prediction import Event, Role, StepPrediction
from testbed.model.step import Workload, predict

__all__ = ["Event", "Role", "StepPrediction", "Workload", "get_fabric", "predict"]
