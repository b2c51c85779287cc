"""The ranks an update runs on, and the few sums they agree on (which episodes each trains on: mini_batches.py).

Without a process group (tests, benchmarks, a plain model) it is one rank and every collective is the identity.
With sequence parallelism the ranks form groups of `sequence_parallel` consecutive ranks (gpu_worker/sharding.py
makes them): a group trains on the same episodes, each rank on its slice of their positions, so the episodes are
dealt to `data_size` groups, not to every rank.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import torch
import torch.distributed as dist


@dataclass(frozen=True)
class Ranks:
    rank: int
    size: int
    device: torch.device
    sequence_parallel: int = 1
    sequence_group: Any = None  # this rank's sequence-parallel group (None without sequence parallelism)

    @property
    def data_rank(self) -> int:
        """Which share of the episodes this rank trains on: its sequence-parallel group's."""
        return self.rank // self.sequence_parallel

    @property
    def data_size(self) -> int:
        return self.size // self.sequence_parallel

    @property
    def sequence_rank(self) -> int:
        """Which slice of a pass's positions this rank holds."""
        return self.rank % self.sequence_parallel

    @staticmethod
    def current(device: torch.device) -> Ranks:
        if dist.is_available() and dist.is_initialized():
            return Ranks(dist.get_rank(), dist.get_world_size(), device)
        return Ranks(0, 1, device)

    def sum(self, values: list[float]) -> list[float]:
        return self._reduce(values, dist.ReduceOp.SUM)

    def max(self, values: list[float]) -> list[float]:
        return self._reduce(values, dist.ReduceOp.MAX)

    def _reduce(self, values: list[float], op) -> list[float]:
        if self.size == 1:
            return values
        tensor = torch.tensor(values, dtype=torch.float64, device=self.device)
        dist.all_reduce(tensor, op=op)
        return tensor.tolist()

    def all_true(self, flag: bool) -> bool:
        if self.size == 1:
            return flag
        tensor = torch.tensor([1 if flag else 0], dtype=torch.int32, device=self.device)
        dist.all_reduce(tensor, op=dist.ReduceOp.MIN)
        return bool(tensor.item())
