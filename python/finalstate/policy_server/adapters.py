"""LoRA adapters served beside the base model, as vLLM serves them (`--enable-lora`, `/v1/load_lora_adapter`).

An adapter directory is PEFT's layout (adapter_config.json, adapter_model.safetensors), what the gpu worker writes for
a LoRA campaign. Before the model is touched, the whole adapter is read and checked against it: the config parses,
its rank is at most the server's maximum, and every weight names a linear layer of the model with the shapes
`lora_A [r, in]` and `lora_B [out, r]`. So a missing or corrupt file, a rank too high or target modules the model
lacks are refused with the reason, and the server goes on serving what it had. Sequences of different adapters
(and of the base model) share one batch: PEFT's mixed-batch forward applies each row's adapter (`adapter_names`).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path

import torch
from safetensors.torch import load_file

CONFIG = "adapter_config.json"
WEIGHTS = "adapter_model.safetensors"
BASE_ROWS = "__base__"  # PEFT's name for a row of a mixed batch that no adapter applies to
_KEY = re.compile(r"^base_model\.model\.(.+)\.(lora_A|lora_B)\.weight$")
_VERSION = re.compile(r"-v(\d+)$")


class AdapterError(ValueError):
    """The adapter cannot be served by this model; nothing was changed."""


@dataclass(frozen=True)
class Adapter:
    name: str
    path: Path
    rank: int
    version: int


def version_of(name: str, default: int) -> int:
    """The policy version an adapter serves: its name's `-v<step>` (`<campaign>-v<step>`), else `default`."""
    match = _VERSION.search(name)
    return int(match.group(1)) if match else default


def check_adapter(model: torch.nn.Module, path: Path, max_rank: int) -> int:
    """Read and check the adapter at `path` against `model` (see the module docstring); its rank, or AdapterError."""
    if not (path / CONFIG).is_file() or not (path / WEIGHTS).is_file():
        raise FileNotFoundError(f"no adapter at {path} (it needs {CONFIG} and {WEIGHTS})")
    try:
        config = json.loads((path / CONFIG).read_text())
        rank = int(config["r"])
    except (ValueError, KeyError, TypeError) as err:
        raise AdapterError(f"{path / CONFIG} is not a LoRA adapter config: {err}") from err
    if rank > max_rank:
        raise AdapterError(f"adapter {path} has rank {rank}, above this server's --max-lora-rank {max_rank}")
    try:
        weights = load_file(str(path / WEIGHTS))
    except Exception as err:  # safetensors raises its own error types for a truncated or garbled file
        raise AdapterError(f"{path / WEIGHTS} cannot be read: {err}") from err
    if not weights:
        raise AdapterError(f"{path / WEIGHTS} holds no weights")
    base = model.base_model.model if hasattr(model, "peft_config") else model  # a PeftModel: the model it wraps
    modules = dict(base.named_modules())
    for key, tensor in weights.items():
        match = _KEY.match(key)
        if match is None:
            raise AdapterError(f"{path}: weight {key!r} is not a LoRA weight (base_model.model.<module>.lora_A|lora_B.weight)")
        module = modules.get(match.group(1))
        layer = getattr(module, "base_layer", module)
        if not isinstance(layer, torch.nn.Linear):
            raise AdapterError(f"{path}: the model has no linear layer {match.group(1)!r} for {key!r} (target modules the model lacks)")
        expected = (rank, layer.in_features) if match.group(2) == "lora_A" else (layer.out_features, rank)
        if tuple(tensor.shape) != expected:
            raise AdapterError(f"{path}: {key} has shape {list(tensor.shape)}, the model needs {list(expected)}")
    return rank
