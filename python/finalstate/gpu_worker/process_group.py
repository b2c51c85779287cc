"""The gpu worker's ranks: torch.distributed process groups under torchrun, or a single-process group without it.

Two groups: the training group (NCCL on CUDA, gloo on CPU) with a finite timeout, so a dead or stuck rank turns
into an error instead of a hang; and a gloo control group over which rank 0 hands each update to the other ranks.
The control group waits between steps, which can take as long as the rollouts, so its timeout is long; a dead
peer still breaks it at once (the connection closes).
"""

from __future__ import annotations

import logging
import os
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

import torch
import torch.distributed as dist

log = logging.getLogger(__name__)
CONTROL_TIMEOUT = timedelta(days=30)


class GroupFailure(RuntimeError):
    """A collective failed (a rank died, or did not answer within the timeout): this process group is unusable."""


@dataclass(frozen=True)
class ProcessGroups:
    rank: int
    world_size: int
    device: torch.device
    control: Any  # the gloo control group, or None at world size 1

    @property
    def is_rank0(self) -> bool:
        return self.rank == 0

    def broadcast(self, message: Any = None) -> Any:
        """Rank 0 sends `message`; every other rank returns it."""
        if self.world_size == 1:
            return message
        box = [message]
        dist.broadcast_object_list(box, src=0, group=self.control)
        return box[0]

    def __str__(self) -> str:
        return f"rank {self.rank}/{self.world_size} on {self.device}"


def _device(requested: str | None, local_rank: int) -> torch.device:
    device = torch.device(requested) if requested else torch.device("cuda") if torch.cuda.is_available() else torch.device("cpu")
    if device.type == "cuda":
        device = torch.device("cuda", local_rank if device.index is None else device.index)
        torch.cuda.set_device(device)
    return device


def _torchrun_store(timeout: timedelta):
    """torchrun's store, under a prefix of its own for each restart of the ranks.

    The store outlives a restart (torchrun's agent hosts it), and the keys through which the ranks find each other's
    gloo addresses have the same names every time: without the prefix a restarted rank can read its dead
    predecessor's address before the new rank 0 overwrites it, and fail to connect.
    """
    agent_store = os.environ.get("TORCHELASTIC_USE_AGENT_STORE") == "True"
    store = dist.TCPStore(
        os.environ["MASTER_ADDR"],
        int(os.environ["MASTER_PORT"]),
        int(os.environ["WORLD_SIZE"]),
        is_master=int(os.environ["RANK"]) == 0 and not agent_store,
        timeout=timeout,
    )
    return dist.PrefixStore(f"finalstate/restart-{os.environ.get('TORCHELASTIC_RESTART_COUNT', '0')}", store)


def start_process_groups(requested_device: str | None = None, *, timeout: timedelta = timedelta(minutes=10)) -> ProcessGroups:
    """Join torchrun's rendezvous (RANK, WORLD_SIZE, MASTER_ADDR, ... in the environment), or make a group of one."""
    if dist.is_initialized():
        rank, world = dist.get_rank(), dist.get_world_size()
        return ProcessGroups(rank, world, _device(requested_device, int(os.environ.get("LOCAL_RANK", 0))), None)
    under_torchrun = "RANK" in os.environ and "WORLD_SIZE" in os.environ
    local_rank = int(os.environ.get("LOCAL_RANK", 0)) if under_torchrun else 0
    device = _device(requested_device, local_rank)
    backend = "nccl" if device.type == "cuda" else "gloo"
    if under_torchrun:
        dist.init_process_group(
            backend,
            store=_torchrun_store(timeout),
            rank=int(os.environ["RANK"]),
            world_size=int(os.environ["WORLD_SIZE"]),
            timeout=timeout,
            device_id=device if device.type == "cuda" else None,
        )
    else:
        dist.init_process_group(backend, store=dist.HashStore(), rank=0, world_size=1, timeout=timeout)
    rank, world = dist.get_rank(), dist.get_world_size()
    control = dist.new_group(backend="gloo", timeout=CONTROL_TIMEOUT) if world > 1 else None
    groups = ProcessGroups(rank, world, device, control)
    log.info("gpu worker %s (backend %s, collective timeout %s)", groups, backend, timeout)
    return groups
