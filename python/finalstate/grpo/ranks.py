"""The ranks an update runs on: which episodes each one trains on, and the few sums they agree on.

Without a process group (tests, benchmarks, a plain model) it is one rank and every collective is the identity.
"""

from __future__ import annotations

from dataclasses import dataclass

import torch
import torch.distributed as dist


@dataclass(frozen=True)
class Ranks:
    rank: int
    size: int
    device: torch.device

    @staticmethod
    def current(device: torch.device) -> Ranks:
        if dist.is_available() and dist.is_initialized():
            return Ranks(dist.get_rank(), dist.get_world_size(), device)
        return Ranks(0, 1, device)

    def share(self, count: int) -> list[int]:
        """This rank's indices of `count` items, dealt round-robin (so lengths spread evenly)."""
        return list(range(self.rank, count, self.size))

    def passes(self, count: int, micro_batch_size: int) -> int:
        """Forward/backward passes each rank makes over its share: the same on every rank, since each pass gathers
        parameters and reduces gradients together; a rank with fewer episodes makes passes that train on nothing."""
        most = -(-count // self.size)
        return -(-most // micro_batch_size)

    def sum(self, values: list[float]) -> list[float]:
        if self.size == 1:
            return values
        tensor = torch.tensor(values, dtype=torch.float64, device=self.device)
        dist.all_reduce(tensor, op=dist.ReduceOp.SUM)
        return tensor.tolist()

    def all_true(self, flag: bool) -> bool:
        if self.size == 1:
            return flag
        tensor = torch.tensor([1 if flag else 0], dtype=torch.int32, device=self.device)
        dist.all_reduce(tensor, op=dist.ReduceOp.MIN)
        return bool(tensor.item())
