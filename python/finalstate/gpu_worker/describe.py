"""What the update's memory depends on, as the gpu worker sees it: its ranks and their memory, and the shape of the
model (from its config, built on the meta device: nothing is loaded). The arithmetic is infra/update-memory.ts's."""

from __future__ import annotations

from pathlib import Path

import torch

from .loading import meta_model
from .process_group import ProcessGroups
from .sharding import decoder_layers


def host_memory_bytes() -> int:
    with open("/proc/meminfo") as handle:
        return next(int(line.split()[1]) * 1024 for line in handle if line.startswith("MemTotal:"))


def model_shape(source: str | Path) -> dict:
    """ModelShape (schemas/training.ts) of the Hugging Face causal LM in `source`."""
    source = Path(source)
    if not (source / "config.json").is_file():
        raise ValueError(f"baseModel {source} is not a Hugging Face model directory (no config.json)")
    model = meta_model(source)
    config = model.config
    embeddings = model.get_input_embeddings().weight
    output = model.get_output_embeddings()
    tied = output is not None and output.weight is embeddings
    heads = config.num_attention_heads
    return {
        "modelType": config.model_type,
        "parameters": sum(p.numel() for p in model.parameters()),
        "embeddingParameters": embeddings.numel() + (0 if tied or output is None else output.weight.numel()),
        "layers": len(decoder_layers(model)),
        "hidden": config.hidden_size,
        "intermediate": config.intermediate_size,
        "attentionHeads": heads,
        "kvHeads": getattr(config, "num_key_value_heads", None) or heads,
        "headDim": getattr(config, "head_dim", None) or config.hidden_size // heads,
        "vocabulary": config.vocab_size,
        "tiedEmbeddings": tied,
    }


def describe_update(groups: ProcessGroups, base_model: str) -> dict:
    """UpdateDescription: rank 0's view of the ranks (every rank has the same device) and the model's shape."""
    device = groups.device
    cuda = device.type == "cuda"
    return {
        "worker": {
            "worldSize": groups.world_size,
            "ranksPerNode": groups.local_world_size,
            "device": "cuda" if cuda else "cpu",
            "deviceName": torch.cuda.get_device_name(device) if cuda else "cpu",
            "gpuMemoryBytes": torch.cuda.get_device_properties(device).total_memory if cuda else None,
            "hostMemoryBytes": host_memory_bytes(),
            "collectiveTimeoutS": groups.timeout.total_seconds(),
        },
        "model": model_shape(base_model),
    }
