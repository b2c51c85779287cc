"""Sharding a Hugging Face causal LM with FSDP2: one FSDP unit per decoder layer, then the root; and the device meshes
of the update, made here and nowhere else.

On CUDA the unsharded parameters are bf16 during compute and gradients are reduced in fp32; the sharded master
weights and AdamW state stay fp32. On CPU (gloo) everything is fp32. With optimizer offload the shards live in host
memory (pinned on CUDA) and the AdamW step runs on the CPU.

The meshes (`make_meshes`):
- FSDP: every rank shards the parameters (1-D, the world), or with fsdp.replicateAcrossNodes (HSDP) a 2-D mesh
  (nodes x ranks per node): sharded within a node, one replica per node, so the per-layer all-gathers and
  reduce-scatters stay inside a node and the gradients are all-reduced across nodes once per pass;
- sequence parallelism (fsdp.sequenceParallel S): groups of S consecutive ranks, inside one node, that share each
  pass (grpo/attention.py). They still shard the parameters with every other rank: sequence parallelism splits the
  tokens, FSDP the state.
"""

from __future__ import annotations

from dataclasses import dataclass

import torch
from torch.distributed.device_mesh import DeviceMesh, init_device_mesh
from torch.distributed.fsdp import CPUOffloadPolicy, MixedPrecisionPolicy, OffloadPolicy, fully_shard

from ..config import FsdpConfig
from ..grpo.ranks import Ranks


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


@dataclass(frozen=True)
class Meshes:
    """What the update is spread over: the FSDP mesh the model is sharded on, and the ranks the trainer deals the
    episodes to (with this rank's sequence-parallel group)."""

    fsdp: DeviceMesh
    ranks: Ranks


def make_meshes(device: torch.device, world_size: int, ranks_per_node: int, config: FsdpConfig) -> Meshes:
    """Collective: the meshes of `config` over `world_size` ranks, `ranks_per_node` on each node (torchrun's
    LOCAL_WORLD_SIZE). Raises ValueError, naming the setting, when the ranks do not divide as `config` asks."""
    sequence = config.ulysses_sequence_parallel_size
    if world_size % ranks_per_node:
        raise ValueError(f"{world_size} ranks do not make whole nodes of {ranks_per_node}")
    if ranks_per_node % sequence:
        raise ValueError(
            f"fsdp.sequenceParallel {sequence} must divide the {ranks_per_node} ranks of a node (a sequence-parallel group stays on one node)"
        )
    if config.replicate_across_nodes:
        fsdp = init_device_mesh(device.type, (world_size // ranks_per_node, ranks_per_node), mesh_dim_names=("replicate", "shard"))
    else:
        fsdp = init_device_mesh(device.type, (world_size,))
    rank = torch.distributed.get_rank() if torch.distributed.is_initialized() else 0
    group = None
    if sequence > 1:
        group = init_device_mesh(device.type, (world_size // sequence, sequence), mesh_dim_names=("data", "sequence")).get_group("sequence")
    return Meshes(fsdp, Ranks(rank, world_size, device, sequence_parallel=sequence, sequence_group=group))


def check_sequence_parallel(model: torch.nn.Module, config: FsdpConfig) -> None:
    """Sequence parallelism splits the attention heads between the ranks of a group: they must divide."""
    sequence = config.ulysses_sequence_parallel_size
    heads = model.config.num_attention_heads
    if heads % sequence:
        raise ValueError(f"fsdp.sequenceParallel {sequence} must divide the model's {heads} attention heads")


def shard_model(model: torch.nn.Module, meshes: Meshes, config: FsdpConfig, *, parameters: int | None = None) -> torch.nn.Module:
    """Shard `model` in place over `meshes.fsdp` and return it.

    `model` is fp32, on the meta device (loading.py allocates the shards afterwards) or on the CPU: then each
    `fully_shard` call moves one layer to the device and keeps this rank's shard, so the whole model is never on
    the device. `parameters` (default: counted) decides "auto" activation checkpointing."""
    check_sequence_parallel(model, config)
    device = meshes.ranks.device
    count = parameters if parameters is not None else sum(p.numel() for p in model.parameters())
    if config.gradient_checkpointing_for(count):
        model.gradient_checkpointing_enable(gradient_checkpointing_kwargs={"use_reentrant": False})
    options = dict(
        mesh=meshes.fsdp,
        mp_policy=mixed_precision(device),
        offload_policy=CPUOffloadPolicy(pin_memory=device.type == "cuda") if config.optimizer_offload else OffloadPolicy(),
    )
    for layer in decoder_layers(model):
        fully_shard(layer, **options)
    fully_shard(model, **options)
    return model
