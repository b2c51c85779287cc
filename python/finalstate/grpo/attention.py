"""The trainer's attention: causal within each episode of a packed row, and split across sequence-parallel ranks.

Registered with transformers' AttentionInterface as ATTENTION; the trainer switches the model to it
(`use_trainer_attention`) and passes an AttentionLayout with every forward (the `attention_layout` keyword, which the
model hands to each attention call). transformers builds no mask for an attention it does not know, so nothing of
size T x T is ever made:
- without segments (padded rows) every row is one causal sequence: right padding never reaches a real token;
- with segments (one packed row) each episode is its own causal sequence: SDPA once per episode (on CUDA its flash
  kernel; on the CPU its flash kernel too, exact), positions restarting at 0 in each;
- with sequence parallelism (Ulysses, as DeepSpeed-Ulysses and verl do) each rank holds a contiguous slice of the
  row's positions through the whole model; around attention an all-to-all trades it for all positions of 1/S of the
  heads, attention runs on the whole row, and a second all-to-all trades back. Gradients take the same two
  all-to-alls in reverse. Key/value heads that do not split S ways are repeated to the query heads first.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import torch
import torch.distributed as dist
import torch.nn.functional as F
from transformers import AttentionInterface

ATTENTION = "finalstate_varlen"


@dataclass(frozen=True)
class AttentionLayout:
    """What attention needs beyond q, k and v."""

    segments: tuple[int, ...] | None = None  # the episodes' lengths along a packed row (the whole row); None: padded rows
    group: Any = None  # the sequence-parallel process group (None: one rank holds the whole row)
    size: int = 1  # ranks in it


class _AllToAll(torch.autograd.Function):
    """Split dimension `scatter` into one part per rank, send part j to rank j, and concatenate what arrives, in rank
    order, along dimension `gather`. Its gradient is the same exchange with the two dimensions swapped."""

    @staticmethod
    def forward(ctx, x: torch.Tensor, group, scatter: int, gather: int) -> torch.Tensor:
        ctx.group, ctx.scatter, ctx.gather = group, scatter, gather
        return _all_to_all(x, group, scatter, gather)

    @staticmethod
    def backward(ctx, grad: torch.Tensor):
        return _all_to_all(grad.contiguous(), ctx.group, ctx.gather, ctx.scatter), None, None, None


def _all_to_all(x: torch.Tensor, group, scatter: int, gather: int) -> torch.Tensor:
    size = dist.get_world_size(group)
    send = torch.stack([part.contiguous() for part in x.chunk(size, dim=scatter)])
    received = torch.empty_like(send)
    # all_to_all_single, not all_to_all: gloo implements only the former (torch 2.9).
    dist.all_to_all_single(received, send, group=group)
    return torch.cat(received.unbind(0), dim=gather)


def _causal(query: torch.Tensor, key: torch.Tensor, value: torch.Tensor, scaling: float | None, dropout: float, segments) -> torch.Tensor:
    """[batch, heads, positions, head dim] attention, causal within each segment (the whole row without segments)."""
    gqa = key.shape[1] != query.shape[1]

    def attend(q, k, v):
        return F.scaled_dot_product_attention(q, k, v, dropout_p=dropout, is_causal=True, scale=scaling, enable_gqa=gqa)

    if segments is None or len(segments) == 1:
        return attend(query, key, value)
    parts, start = [], 0
    for length in segments:
        end = start + length
        parts.append(attend(query[:, :, start:end], key[:, :, start:end], value[:, :, start:end]))
        start = end
    return torch.cat(parts, dim=2)


def trainer_attention(
    module: torch.nn.Module,
    query: torch.Tensor,
    key: torch.Tensor,
    value: torch.Tensor,
    attention_mask: torch.Tensor | None,
    scaling: float | None = None,
    dropout: float = 0.0,
    sliding_window: int | None = None,
    attention_layout: AttentionLayout | None = None,
    **_kwargs,
) -> tuple[torch.Tensor, None]:
    """transformers' attention interface: q [batch, heads, positions, head dim], k and v with their own heads;
    returns [batch, positions, heads, head dim]."""
    if sliding_window is not None:
        raise ValueError(f"{type(module).__name__}: sliding-window attention is not supported by the trainer's attention")
    if attention_mask is not None:
        raise ValueError("the trainer's attention takes no mask: episodes are separated by their segments")
    layout = attention_layout or AttentionLayout()
    if layout.size > 1:
        heads, kv_heads = query.shape[1], key.shape[1]
        if heads % layout.size:
            raise ValueError(f"sequence parallelism {layout.size} needs attention heads divisible by it, not {heads}")
        if kv_heads % layout.size:
            key, value = (t.repeat_interleave(heads // kv_heads, dim=1) for t in (key, value))
        query, key, value = (_AllToAll.apply(t, layout.group, 1, 2) for t in (query, key, value))
    out = _causal(query, key, value, scaling, dropout, layout.segments)
    if layout.size > 1:
        out = _AllToAll.apply(out, layout.group, 2, 1)
    return out.transpose(1, 2).contiguous(), None


AttentionInterface.register(ATTENTION, trainer_attention)


def use_trainer_attention(model: torch.nn.Module) -> None:
    """Switch `model` (every layer reads its config) to the trainer's attention. The export's config.json does not
    record it: transformers keeps the attention implementation out of the saved config."""
    model.config._attn_implementation = ATTENTION
