"""Gradient-norm clipping for sharded parameters, wherever their shards live.

`torch.nn.utils.clip_grad_norm_` on FSDP2 parameters reduces the per-tensor norms as DTensors on the device of the
gradients. Under optimizer offload that device is the CPU, which an NCCL-only process group cannot reduce on. Here
each rank sums the squares of its own shards, and one all-reduce on the training device adds the ranks' sums; the
gradients are then scaled in place where they are.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable

import torch
from torch.distributed.tensor import DTensor, Replicate, Shard

from .ranks import Ranks


def _local(grad: torch.Tensor) -> tuple[torch.Tensor, int | None]:
    """The part of `grad` this rank holds, and how many ranks hold that same part (None: not sharded, every rank
    holds the whole). Shards are disjoint; a replicated mesh dimension (HSDP: one replica per node) repeats them."""
    if isinstance(grad, DTensor):
        copies = 1
        for size, placement in zip(grad.device_mesh.shape, grad.placements):
            if isinstance(placement, Replicate):
                copies *= size
            elif not isinstance(placement, Shard):
                raise ValueError(f"clip_grad_norm: a gradient with placements {grad.placements} is neither sharded nor replicated")
        return grad.to_local(), copies
    return grad, None


def clip_grad_norm(parameters: Iterable[torch.nn.Parameter], max_norm: float, ranks: Ranks) -> float:
    """Scale the gradients so that their total L2 norm is at most `max_norm`; return the norm before scaling
    (inf or nan when a gradient is not finite, in which case nothing is scaled)."""
    grads = [p.grad for p in parameters if p.grad is not None]
    if not grads:
        return 0.0
    parts = [_local(g) for g in grads]
    copies = {n for _, n in parts}
    if len(copies) > 1:
        raise ValueError("clip_grad_norm: the gradients are not all sharded alike")
    (replicas,) = copies
    by_device: dict[tuple[torch.device, torch.dtype], list[torch.Tensor]] = defaultdict(list)
    for local, _ in parts:
        if local.numel() > 0:
            by_device[(local.device, local.dtype)].append(local)
    squares = torch.zeros((), dtype=torch.float64, device=ranks.device)
    for tensors in by_device.values():
        norms = torch._foreach_norm(tensors, 2.0)
        squares += torch.stack(norms).double().square().sum().to(ranks.device)
    total_squares = float(squares) if replicas is None else ranks.sum([float(squares) / replicas])[0]
    total = total_squares**0.5
    if not torch.isfinite(torch.tensor(total)):
        return total
    scale = min(max_norm / (total + 1e-6), 1.0)
    if scale < 1.0:
        for (device, _dtype), tensors in by_device.items():
            torch._foreach_mul_(tensors, torch.tensor(scale, device=device, dtype=tensors[0].dtype))
    return total
