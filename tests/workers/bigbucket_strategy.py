"""A strategy from outside hosts/strategies/: DDP with 4 MiB gradient buckets. It shows
that adding a strategy touches only its own module; the tests load it through
TRAINET_STRATEGY_MODULES as a user's plug-in would be."""
from hosts import shadow
from hosts.strategies.ddp import DDP, ShadowDDP, pattern
from hosts.strategies.registry import StrategyInfo, register

INFO = register(StrategyInfo(
    name="ddp-4mb",
    description="DDP with 4 MiB gradient buckets",
    real=lambda c: DDP(c.comm, lr=c.lr, bucket_bytes=4 << 20),
    shadow=ShadowDDP,
    pattern=pattern,
    memory=lambda params, world, layers: shadow.adam_memory(params)))
