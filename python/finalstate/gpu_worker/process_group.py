"""The gpu worker's ranks: torch.distributed process groups under torchrun, or a single-process group without it.

Groups:
- the training group, with a finite timeout, so that a dead or stuck rank turns into an error instead of a hang. On
  CUDA it is NCCL for CUDA tensors and gloo for CPU tensors ("cpu:gloo,cuda:nccl"): with optimizer offload the
  shards, their gradients and what a checkpoint gathers from them are CPU tensors. NCCL's watchdog is set to abort
  the communicator on a timeout (TORCH_NCCL_ASYNC_ERROR_HANDLING=2) rather than kill the process, so that rank 0
  lives to report the failure;
- a gloo control group over which rank 0 hands each update to the other ranks. It waits between steps, which can
  take as long as the rollouts, so its timeout is long; a dead peer still breaks it at once (the connection closes);
- per loaded model, a gloo storage group whose timeout is sized to the checkpoint (`storage_group`): the ranks wait
  on it while the checkpoint is written, which may take longer than any collective of the update.
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


# Checkpoint storage is expected to write at least this fast, after a first STORAGE_GRACE (a shared filesystem's
# fsyncs and renames); a rank that waits longer on a checkpoint is presumed stuck.
MIN_STORAGE_BYTES_PER_S = 50e6
STORAGE_GRACE = timedelta(minutes=10)


@dataclass(frozen=True)
class ProcessGroups:
    rank: int
    world_size: int
    device: torch.device
    control: Any  # the gloo control group, or None at world size 1
    timeout: timedelta = timedelta(minutes=10)  # of the training group's collectives

    @property
    def local_world_size(self) -> int:
        return int(os.environ.get("LOCAL_WORLD_SIZE", self.world_size))

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

    def storage_group(self, checkpoint_bytes: float) -> Any:
        """Collective: a gloo group whose timeout covers writing `checkpoint_bytes` at MIN_STORAGE_BYTES_PER_S after
        STORAGE_GRACE, and at least the collective timeout (None at world size 1)."""
        if self.world_size == 1:
            return None
        timeout = max(self.timeout, STORAGE_GRACE) + timedelta(seconds=checkpoint_bytes / MIN_STORAGE_BYTES_PER_S)
        return dist.new_group(backend="gloo", timeout=timeout)

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
        return ProcessGroups(rank, world, _device(requested_device, int(os.environ.get("LOCAL_RANK", 0))), None, timeout)
    under_torchrun = "RANK" in os.environ and "WORLD_SIZE" in os.environ
    local_rank = int(os.environ.get("LOCAL_RANK", 0)) if under_torchrun else 0
    device = _device(requested_device, local_rank)
    backend = "cpu:gloo,cuda:nccl" if device.type == "cuda" else "gloo"
    os.environ.setdefault("TORCH_NCCL_ASYNC_ERROR_HANDLING", "2")
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
    groups = ProcessGroups(rank, world, device, control, timeout)
    log.info("gpu worker %s (backend %s, collective timeout %s)", groups, backend, timeout)
    return groups
