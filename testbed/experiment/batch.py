"""The batch of an experiment, in Megatron-LM's and DeepSpeed's terms, mapped onto what
each strategy's workers take.

* ``global_batch``: sequences per optimizer step across every data-parallel replica
  (Megatron-LM's ``--global-batch-size``, DeepSpeed's ``train_batch_size``);
* ``micro_batch_size``: sequences one replica computes at a time (Megatron-LM's
  ``--micro-batch-size``, DeepSpeed's ``train_micro_batch_size_per_gpu``).

A strategy declares its data-parallel replicas (``StrategyInfo.timing(world).replicas``:
every worker for DDP, ZeRO, the parameter server and in-network aggregation; ``dp`` or
``g_data`` for the layouts of Megatron-LM, Holmes, AxoNN; one for a pipeline over every
worker). Its workers take the per-replica batch, ``global_batch / replicas`` (hosts.worker
``--batch``; every rank of a replica sees the same batch). A strategy that pipelines or
accumulates micro-batches takes ``per-replica batch / micro_batch_size`` of them (its
option ``micro_batch_size``, or ``micro_batches``: the pipelines, and the data-parallel
strategies that accumulate gradients, ``AccumulationOptions``); the others run the
replica's batch as one micro-batch, so their ``micro_batch_size`` is the per-replica batch.

Defaults as Megatron-LM's: without ``global_batch`` it is ``micro_batch_size x replicas``
(one micro-batch per replica and step), so a node sweep keeps the work per replica; with
neither, 8 sequences per replica and each strategy's own micro-batching.
"""
from __future__ import annotations

from dataclasses import dataclass

from testbed.errors import TrainetError

DEFAULT_REPLICA_BATCH = 8


class BatchError(TrainetError):
    """A batch value that does not fit a strategy; ``key`` is the workload key at fault,
    or with ``option`` the strategy's option of that name."""

    def __init__(self, key: str, message: str, option: bool = False):
        super().__init__(message)
        self.key, self.option = key, option


@dataclass(frozen=True)
class Batch:
    """One strategy's batch on ``replicas`` data-parallel replicas, and its options with
    the micro-batching filled in."""

    global_batch: int
    replicas: int
    options: dict
    micro_option: str | None = None     # the option that takes its micro-batching
    accumulates: bool = False           # a data-parallel strategy: one micro-batch unless given

    @property
    def replica_batch(self) -> int:
        return self.global_batch // self.replicas


def micro_option(info) -> str | None:
    """The option through which the strategy takes its micro-batching, if any."""
    fields = info.options.model_fields
    return next((k for k in ("micro_batch_size", "micro_batches") if k in fields), None)


def replicas_of(info, options: dict, world: int, sizes: dict | None = None) -> int:
    parsed = info.parse_options(options)
    return info.step_timing(world, options=parsed, sizes=sizes).replicas


def resolve(info, options: dict, world: int, global_batch: int | None,
            micro_batch_size: int | None, sizes: dict | None = None,
            replica_batch: int | None = None) -> Batch:
    """The strategy's batch on ``world`` workers; ``replica_batch``: an earlier version's
    recorded per-worker ``batch`` instead of the two keys (results folders)."""
    name, option = info.name, micro_option(info)
    accumulates = hasattr(info.options, "accumulation_steps")
    replicas = replicas_of(info, options, world, sizes)
    if replica_batch is not None:
        return Batch(replica_batch * replicas, replicas, dict(options), option, accumulates)
    if global_batch is None:
        global_batch = (micro_batch_size or DEFAULT_REPLICA_BATCH) * replicas
    if global_batch % replicas:
        raise BatchError("global_batch", f"global_batch={global_batch} does not split over "
                         f"the {replicas} data-parallel replicas of strategy {name} on "
                         f"{world} workers; accepted: a multiple of {replicas} "
                         f"({', '.join(str(replicas * k) for k in (1, 2, 3, 4))}, ...)")
    per_replica = global_batch // replicas
    own = options.get("micro_batch_size")
    if isinstance(own, int) and own > 0 and per_replica % own:
        raise BatchError("micro_batch_size", f"micro_batch_size={own} does not divide "
                         f"strategy {name}'s {per_replica} sequences per replica "
                         f"(global_batch {global_batch} / {replicas} replicas); accepted: "
                         f"{', '.join(map(str, _divisors(per_replica)))}", option=True)
    if micro_batch_size is None:
        return Batch(global_batch, replicas, dict(options), option, accumulates)
    if per_replica % micro_batch_size:
        raise BatchError("micro_batch_size", f"micro_batch_size={micro_batch_size} does not "
                         f"divide strategy {name}'s {per_replica} sequences per replica "
                         f"(global_batch {global_batch} / {replicas} replicas); accepted: "
                         f"{', '.join(map(str, _divisors(per_replica)))}")
    if option is None:
        if micro_batch_size != per_replica:
            raise BatchError("micro_batch_size", f"micro_batch_size={micro_batch_size}: "
                             f"strategy {name} runs each replica's batch as one micro-batch "
                             "(it accumulates no gradients over micro-batches); accepted: "
                             f"{per_replica}, its sequences per replica (global_batch "
                             f"{global_batch} / {replicas} replicas)")
        return Batch(global_batch, replicas, dict(options), option, accumulates)
    if "micro_batch_size" in options or "micro_batches" in options:
        return Batch(global_batch, replicas, dict(options), option,     # the strategy's own
                     accumulates)
    value = micro_batch_size if option == "micro_batch_size" \
        else per_replica // micro_batch_size
    return Batch(global_batch, replicas, {**options, option: value}, option, accumulates)


def _divisors(n: int) -> list[int]:
    return [d for d in range(1, n + 1) if n % d == 0]


def recorded_replica_batch(workload: dict, replicas: int) -> int:
    """Sequences per replica of a results folder's recorded workload (``config.yaml``):
    an earlier version's per-worker ``batch``, or the two keys."""
    if workload.get("batch"):
        return int(workload["batch"])
    if workload.get("global_batch"):
        return int(workload["global_batch"]) // max(1, replicas)
    return int(workload.get("micro_batch_size") or DEFAULT_REPLICA_BATCH)
