"""Parameter-server training: push gradients, pull parameters (see hosts/param_server.py).

Workers hold the model and compute gradients; the optimizer and its state live on the
server. The push/pull runs on the communication thread after backward, so it is all
exposed: with one synchronous server there is nothing to overlap it with.
"""
from __future__ import annotations

import torch

from hosts.param_server import ParameterServerClient
from hosts.strategies.base import Memory, Strategy, tensor_bytes


class ParameterServer(Strategy):
    name = "ps"

    def __init__(self, comm, server: str, timeout_s: float, lr=1e-3, weight_decay=0.01):
        super().__init__(comm, lr, weight_decay)
        self.client = ParameterServerClient(server, comm.rank, timeout_s)

    def setup(self, model) -> None:
        self.model = model
        self.params = [p for p in model.parameters() if p.requires_grad]
        flat = torch.cat([p.detach().reshape(-1) for p in self.params])
        self.client.hello(flat.numel(), self.lr, self.weight_decay,
                          flat if self.comm.rank == 0 else None)
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
                                               self.pulled, sent=nbytes, recv=nbytes))
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
