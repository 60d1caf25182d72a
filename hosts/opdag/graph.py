"""The model as a directed acyclic graph of operators (FusionLLM's OP-DAG; a
reconstruction from the prose of arXiv 2410.12707, not the paper's code).

:func:`trace` turns a torch model into an :class:`OpDag` with torch.fx: one node per
operator (a leaf module such as a Linear or LayerNorm, a function such as
``scaled_dot_product_attention``, a tensor method such as ``view``), in the topological
order fx records. One profiling pass with a sample micro-batch gives each node its
forward FLOPs (torch's FLOP counter; an element-wise operator counts one FLOP per output
element), its output bytes and shape, the bytes of the parameters it owns, and, on real
tensors, its forward time on this host. A model built under a FakeTensorMode traces the
same way without memory: that is how shadow mode gets the DAG of a nominal GPT.

A *partition* cuts the topological order into contiguous segments, one per device. A cut
at position ``k`` carries every floating-point tensor produced before ``k`` and used at
or after it (the residual stream and, inside a block, the branch being computed); a
value used further on is relayed through the stages between. Values that are not tensors
(shapes, sizes) depend only on the micro-batch's shape, which is fixed, so each stage
takes them from the profiling pass instead of the wire. A cut may not fall where an
integer tensor is live, nor between two calls of one module (its parameters would live
on two hosts). The graph's inputs (token ids) are on every host: all stages see the
same batch.
"""
from __future__ import annotations

import threading
import time
import traceback
from dataclasses import dataclass, field
from pathlib import Path

import torch
import torch.fx as fx
from torch._subclasses.fake_tensor import FakeTensor
from torch.utils.flop_counter import FlopCounterMode

from testbed.errors import TrainetError

_TORCH_DIR = str(Path(torch.__file__).parent)
_TRACING = threading.Lock()    # fx patches nn.Module.__call__ process-wide while it traces


@dataclass
class OpNode:
    name: str
    kind: str                    # call_module, call_function, call_method, get_attr
    operator: str                # what it runs: a module path, a function or method name
    flops: float = 0.0           # forward
    param_bytes: int = 0
    out_bytes: int = 0
    out_shape: tuple | None = None   # None: not a floating-point tensor
    forward_s: float = 0.0       # profiled on this host (real tensors only)


@dataclass
class Cut:
    position: int                # the cut runs before node ``position``
    live: list[str]              # the tensors crossing it, in a fixed order
    elements: int


@dataclass
class OpDag:
    module: fx.GraphModule
    nodes: list[OpNode]
    inputs: list[str]
    output: str
    constants: dict = field(default_factory=dict)   # non-tensor values of the sample pass
    cuts: list[Cut] = field(default_factory=list)   # the positions a partition may cut at

    def cut_at(self, position: int) -> Cut:
        for c in self.cuts:
            if c.position == position:
                return c
        raise TrainetError(f"op-dag: no valid cut before node {position}")

    def describe(self) -> str:
        flops = sum(n.flops for n in self.nodes)
        return f"{len(self.nodes)} operators, {flops / 1e9:.3g} GFLOP forward, " \
               f"{len(self.cuts)} cut points"


class _NamingTracer(fx.Tracer):
    """Remembers the module being traced, so a failure can name where it happened."""

    def __init__(self):
        super().__init__()
        self.failed_in: str | None = None    # the innermost module of a failure

    def call_module(self, m, forward, args, kwargs):
        try:
            return super().call_module(m, forward, args, kwargs)
        except Exception:
            self.failed_in = self.failed_in or self.path_of_module(m)
            raise


def trace(model: torch.nn.Module, sample: torch.Tensor, what: str = "model") -> OpDag:
    """The OP-DAG of ``model`` profiled on ``sample`` (one micro-batch of inputs)."""
    tracer = _NamingTracer()
    with _TRACING:           # and no module runs in this process while another traces
        try:
            graph = tracer.trace(model)
        except Exception as err:
            raise TrainetError(_untraceable(what, tracer.failed_in, err)) from None
        module = fx.GraphModule(model, graph)
        dag = _profile(module, sample)
    dag.cuts = _cuts(dag)
    return dag


def _untraceable(what: str, module: str | None, err: Exception) -> str:
    frames = [f for f in traceback.extract_tb(err.__traceback__)
              if not f.filename.startswith(_TORCH_DIR)]
    where = f" at {frames[-1].filename}:{frames[-1].lineno} ({frames[-1].line})" \
        if frames else ""
    inside = f"operator in module {module!r}" if module else "operator"
    return (f"op-dag: cannot trace the {what}: the {inside}{where} is not symbolically "
            f"traceable ({type(err).__name__}: {str(err).splitlines()[0]}); write it "
            "without control flow on tensor values, or make it a leaf module")


class _Profiler(fx.Interpreter):
    """Runs the graph once, recording each node's FLOPs, output and time."""

    def __init__(self, module: fx.GraphModule, timed: bool):
        super().__init__(module)
        self.timed, self.records = timed, {}

    def run_node(self, n):
        counter = FlopCounterMode(display=False)
        start = time.perf_counter()
        with counter:
            out = super().run_node(n)
        elapsed = time.perf_counter() - start if self.timed else 0.0
        self.records[n.name] = (out, counter.get_total_flops(), elapsed)
        return out


def _profile(module: fx.GraphModule, sample: torch.Tensor) -> OpDag:
    fake = isinstance(sample, FakeTensor)
    profiler = _Profiler(module, timed=not fake)
    with torch.no_grad():
        profiler.run(sample)
    if not fake:                    # the second pass is timed (the first warms caches)
        profiler.run(sample)
    submodules = dict(module.named_modules())
    nodes, inputs, output, constants = [], [], None, {}
    for n in module.graph.nodes:
        if n.op == "placeholder":
            inputs.append(n.name)
            continue
        if n.op == "output":
            output = n.args[0].name if isinstance(n.args[0], fx.Node) else None
            continue
        out, flops, elapsed = profiler.records[n.name]
        node = OpNode(n.name, n.op, _operator_name(n), forward_s=elapsed)
        if isinstance(out, torch.Tensor):
            node.out_bytes = out.numel() * out.element_size()
            if out.is_floating_point():
                node.out_shape = tuple(out.shape)
            node.flops = float(flops) or float(out.numel() if n.op != "get_attr" else 0)
        elif not _holds_tensors(out):
            constants[n.name] = out
        if n.op == "call_module":
            node.param_bytes = sum(p.numel() * p.element_size()
                                   for p in submodules[n.target].parameters())
        nodes.append(node)
    if output is None:
        raise TrainetError("op-dag: the model must return one tensor (its logits)")
    return OpDag(module, nodes, inputs, output, constants)


def _holds_tensors(value) -> bool:
    if isinstance(value, (tuple, list)):
        return any(_holds_tensors(v) for v in value)
    return isinstance(value, torch.Tensor)


def _operator_name(n: fx.Node) -> str:
    if n.op in ("call_module", "get_attr", "call_method"):
        return str(n.target)
    return getattr(n.target, "__name__", str(n.target))


def _cuts(dag: OpDag) -> list[Cut]:
    """Every position a partition may cut at, with the tensors crossing it."""
    graph_nodes = {n.name: n for n in dag.module.graph.nodes}
    position = {n.name: i for i, n in enumerate(dag.nodes)}
    last_use = {}
    for n in dag.nodes:
        for user in graph_nodes[n.name].users:
            at = position.get(user.name, len(dag.nodes))     # the output node: the end
            last_use[n.name] = max(last_use.get(n.name, 0), at)
    module_span: dict[str, tuple[int, int]] = {}
    for i, n in enumerate(dag.nodes):
        if n.kind == "call_module":
            first, _ = module_span.get(n.operator, (i, i))
            module_span[n.operator] = (first, i)
    cuts = []
    for k in range(1, len(dag.nodes)):
        live = [n for n in dag.nodes[:k] if last_use.get(n.name, 0) >= k]
        if any(n.name not in dag.constants and n.out_shape is None for n in live):
            continue               # an integer tensor (or a tuple of tensors) is live
        if any(first < k <= last for first, last in module_span.values()):
            continue
        tensors = [n for n in live if n.out_shape is not None]
        elements = sum(_numel(n.out_shape) for n in tensors)
        cuts.append(Cut(k, [n.name for n in tensors], elements))
    return cuts


def _numel(shape: tuple) -> int:
    out = 1
    for d in shape:
        out *= d
    return out


class Segment:
    """Nodes ``start`` to ``end`` of a DAG on one host: runs them on the tensors crossing
    the cut before them (``None`` on the first segment) and returns the tensors crossing
    the cut after them, or the model's output on the last segment."""

    def __init__(self, dag: OpDag, start: int, end: int):
        self.dag, self.start, self.end = dag, start, end
        names = {n.name for n in dag.nodes[start:end]}
        self.graph_nodes = [n for n in dag.module.graph.nodes if n.name in names]
        self.entering = dag.cut_at(start).live if start > 0 else []
        self.leaving = dag.cut_at(end).live if end < len(dag.nodes) else [dag.output]
        self.shapes = {n.name: n.out_shape for n in dag.nodes}
        self.modules = {n.target: dag.module.get_submodule(n.target)
                        for n in self.graph_nodes if n.op == "call_module"}
        self.attributes = {n.target: _attribute(dag.module, n.target)
                           for n in self.graph_nodes if n.op == "get_attr"}

    def parameters(self) -> list[torch.nn.Parameter]:
        params = [p for m in self.modules.values() for p in m.parameters()]
        params += [a for a in self.attributes.values() if isinstance(a, torch.nn.Parameter)]
        return params

    def entering_shapes(self) -> list[tuple]:
        return [self.shapes[name] for name in self.entering]

    def leaving_shapes(self) -> list[tuple]:
        return [self.shapes[name] for name in self.leaving]

    def run(self, inputs: dict[str, torch.Tensor], entering: list[torch.Tensor]):
        env = dict(self.dag.constants)
        env.update(inputs)
        env.update(zip(self.entering, entering))
        for n in self.graph_nodes:
            args = fx.node.map_arg(n.args, lambda a: env[a.name])
            kwargs = fx.node.map_arg(n.kwargs, lambda a: env[a.name])
            if n.op == "call_module":
                env[n.name] = self.modules[n.target](*args, **kwargs)
            elif n.op == "call_function":
                env[n.name] = n.target(*args, **kwargs)
            elif n.op == "call_method":
                env[n.name] = getattr(args[0], n.target)(*args[1:], **kwargs)
            else:
                env[n.name] = self.attributes[n.target]
        return [env[name] for name in self.leaving]


def _attribute(module: torch.nn.Module, target: str):
    value = module
    for part in target.split("."):
        value = getattr(value, part)
    return value
