"""Parameter-server training: push gradients, pull parameters (see hosts/param_server.py).

Workers hold the model and compute gradients; the optimizer and its state live on the
server. The push/pull runs on the communication thread after backward, so it is all
exposed: with one synchronous server there is nothing to overlap it with.
"""
from __future__ import annotations

import time

import torch

from hosts import shadow
from hosts.collectives.pattern import Collective
from hosts.collectives.timing import data_parallel
from hosts.param_server import ParameterServerClient
from hosts.strategies.base import Memory, Strategy, tensor_bytes
from hosts.strategies.registry import Service, StrategyInfo, register


class ParameterServer(Strategy):
    def __init__(self, comm, server: str, timeout_s: float, lr=1e-3, weight_decay=0.01):
        super().__init__(comm, lr, weight_decay)
        self.client = ParameterServerClient(server, comm.rank, timeout_s)

    def setup(self, model) -> None:
        self.model = model
        self.params = [p for p in model.parameters() if p.requires_grad]
        flat = torch.cat([p.detach().reshape(-1) for p in self.params])
        self.client.hello(flat.numel(), self.lr, self.weight_decay,
                          flat if self.comm.rank == 0 else None, self.update)
        self.pulled = torch.empty_like(flat)

    def _step(self, batch) -> float:
        x, y = batch
        for p in self.params:
            p.grad = None
        loss = self.model.loss(self.model(x), y)
        loss.backward()
        grad = torch.cat([p.grad.reshape(-1) for p in self.params])
        nbytes = grad.numel() * 4
        flat = self.comm.wait(self.comm.submit("push/pull", self.client.push_pull, grad,
                                               self.pulled, sent=nbytes, recv=nbytes,
                                               op="push-pull", route="server"))
        offset = 0
        with torch.no_grad():
            for p in self.params:
                p.copy_(flat[offset:offset + p.numel()].view_as(p))
                offset += p.numel()
        return loss.item()

    def memory(self) -> Memory:
        return Memory(tensor_bytes(self.params) + tensor_bytes([self.pulled]),
                      tensor_bytes(p.grad for p in self.params), 0)

    def close(self) -> None:
        self.client.close()
        super().close()


class ShadowPS(shadow.ShadowStrategy):
    """The push/pull of a nominal model's buffer after the whole step's compute."""

    def __init__(self, context):
        super().__init__(context)
        self.client = ParameterServerClient(context.service, self.comm.rank, context.timeout_s)

    def setup(self, model=None) -> None:
        super().setup()
        self.pulled = torch.empty_like(self.buffer)
        self.client.hello(self.elements, 0.0, 0.0, self.buffer if self.comm.rank == 0 else None)

    def _step(self, batch) -> None:
        time.sleep(self.compute_s)
        nbytes = self.elements * 4
        self.comm.wait(self.comm.submit("push/pull", self.client.push_pull, self.buffer,
                                        self.pulled, sent=nbytes, recv=nbytes,
                                        op="push-pull", route="server"))

    def close(self) -> None:
        self.client.close()
        super().close()


def pattern(model_bytes: float, world: int, layers: int | None) -> list[Collective]:
    """Each worker pushes M and pulls M; the server's link carries N x M each way."""
    return [Collective("push", model_bytes, "server"), Collective("pull", model_bytes, "server")]


def memory(params: float, world: int, layers: int | None) -> Memory:
    """The working parameters and gradients; the optimizer state is the server's."""
    whole = shadow.adam_memory(params)
    return Memory(whole.params_bytes, whole.grads_bytes, 0)


def server_options(c) -> dict:
    return {"port": c.port, "bind": c.address, "workers": c.workers, "timeout": c.timeout_s}


INFO = register(StrategyInfo(
    name="ps",
    description="parameter server: workers push gradients to a server host that holds the "
                "optimizer and pull the parameters back",
    real=lambda c: ParameterServer(c.comm, c.service, c.timeout_s, lr=c.lr),
    shadow=ShadowPS,
    pattern=pattern,
    memory=memory,
    timing=lambda world: data_parallel(world),   # push, then pull, after the compute
    gloo=False,
    service=Service(role="server", label="parameter server", module="hosts.param_server",
                    options=server_options, port_offset=1)))
