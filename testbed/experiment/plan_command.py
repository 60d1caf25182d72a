"""``trainet plan``: rank layouts (plan.py) or, with ``--check RESULTS``, hold the ranking
against measured runs (plan_check.py, which builds on plan.py)."""
from __future__ import annotations


def main(args) -> int:
    if args.check:
        from testbed.experiment import plan_check
        return plan_check.main(args)
    from testbed.experiment import plan
    return plan.main(args)
