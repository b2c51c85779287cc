"""Sharding a Hugging Face causal LM with FSDP2: one FSDP unit per decoder layer, then the root.

On CUDA the unsharded parameters are bf16 during compute and gradients are reduced in fp32; the sharded master
weights and AdamW state stay fp32. On CPU (gloo) everything is fp32. With optimizer offload the shards live in host
memory (pinned on CUDA) and the AdamW step runs on the CPU.
"""

from __future__ import annotations

import torch
from torch.distributed.device_mesh import init_device_mesh
from torch.distributed.fsdp import CPUOffloadPolicy, MixedPrecisionPolicy, OffloadPolicy, fully_shard

from ..config import FsdpConfig


def decoder_layers(model: torch.nn.Module) -> torch.nn.ModuleList:
    """The decoder stack of a Hugging Face causal LM (Qwen, Llama, Mistral, ...: model.model.layers), also inside a
    PEFT (LoRA) wrapper."""
    if (unwrap := getattr(model, "get_base_model", None)) is not None:
        model = unwrap()
    layers = getattr(getattr(model, "base_model", None), "layers", None)
    if not isinstance(layers, torch.nn.ModuleList):
        raise ValueError(f"{type(model).__name__} has no decoder layers at model.base_model.layers; cannot shard it per layer")
    return layers


def mixed_precision(device: torch.device) -> MixedPrecisionPolicy:
    if device.type == "cuda":
        return MixedPrecisionPolicy(param_dtype=torch.bfloat16, reduce_dtype=torch.float32)
    return MixedPrecisionPolicy()


def shard_model(
    model: torch.nn.Module, device: torch.device, world_size: int, config: FsdpConfig, *, parameters: int | None = None
) -> torch.nn.Module:
    """Shard `model` in place over `world_size` ranks and return it.

    `model` is fp32, on the meta device (loading.py allocates the shards afterwards) or on the CPU: then each
    `fully_shard` call moves one layer to the device and keeps this rank's shard, so the whole model is never on
    the device. `parameters` (default: counted) decides "auto" activation checkpointing."""
    count = parameters if parameters is not None else sum(p.numel() for p in model.parameters())
    if config.gradient_checkpointing_for(count):
        model.gradient_checkpointing_enable(gradient_checkpointing_kwargs={"use_reentrant": False})
    options = dict(
        mesh=init_device_mesh(device.type, (world_size,)),
        mp_policy=mixed_precision(device),
        offload_policy=CPUOffloadPolicy(pin_memory=device.type == "cuda") if config.optimizer_offload else OffloadPolicy(),
    )
    for layer in decoder_layers(model):
        fully_shard(layer, **options)
    fully_shard(model, **options)
    return model
