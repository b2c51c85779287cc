"""LoRA: PEFT adapters on the frozen base model, trained under FSDP2 like the full model.

The base model is wrapped with PEFT (`peft.get_peft_model`) on the meta device, before sharding: every target linear
layer gets `lora_A` / `lora_B`, every other parameter is frozen. FSDP2 shards both (sharding.py); only the adapter
parameters have gradients and AdamW state (the trainer's optimizer takes the parameters that require a gradient).
On CUDA the frozen base is kept in bf16, the compute dtype; the adapter is fp32 master weights, like the full mode's.

Names. Inside the wrapped model a base weight is `base_model.model.<hf name with .base_layer before .weight>` and an
adapter weight `base_model.model.<module>.lora_A.default.weight`. The adapter export is PEFT's `save_pretrained`
layout, which vLLM's `/v1/load_lora_adapter` and PEFT read: `adapter_config.json` and `adapter_model.safetensors`
with the adapter name left out (`base_model.model.<module>.lora_A.weight`).

The adapter starts as PEFT initialises it (lora_A Kaiming-uniform, lora_B zero: the wrapped model computes the base
model's function exactly), but from a generator seeded by the request's seed and each tensor's name, so one process
and any number of ranks, and a replay, start from the same adapter.
"""

from __future__ import annotations

import hashlib
import json
import math
from pathlib import Path

import torch
from peft import LoraConfig as PeftLoraConfig
from peft import PeftModel, get_peft_model

from ..config import LoraConfig

ADAPTER_NAME = "default"
ADAPTER_CONFIG = "adapter_config.json"
ADAPTER_WEIGHTS = "adapter_model.safetensors"
_PREFIX = "base_model.model."


class LoraTargetError(ValueError):
    """The adapter's target modules do not name layers of this model."""


def peft_config(config: LoraConfig, base_model: str | Path | None = None) -> PeftLoraConfig:
    return PeftLoraConfig(
        r=config.r,
        lora_alpha=config.lora_alpha,
        lora_dropout=config.lora_dropout,
        target_modules=list(config.target_modules),
        bias="none",
        task_type="CAUSAL_LM",
        base_model_name_or_path=str(base_model) if base_model is not None else None,
    )


def wrap(model: torch.nn.Module, config: LoraConfig, *, base_model: str | Path, frozen_dtype: torch.dtype) -> PeftModel:
    """`model` (on the meta device or not) with adapters on `config.target_modules`; the rest frozen in `frozen_dtype`."""
    try:
        wrapped = get_peft_model(model, peft_config(config, base_model), adapter_name=ADAPTER_NAME)
    except ValueError as err:  # PEFT: "Target modules {...} not found in the base model"
        raise LoraTargetError(f"lora.targetModules {list(config.target_modules)}: {err}") from err
    for parameter in wrapped.parameters():
        if not parameter.requires_grad:
            parameter.data = parameter.data.to(frozen_dtype)
    return wrapped


def base_name(name: str) -> str | None:
    """The Hugging Face name of a wrapped model's base weight (None for an adapter weight)."""
    if ".lora_" in name:
        return None
    return name.removeprefix(_PREFIX).replace(".base_layer.", ".")


def exported_name(name: str) -> str:
    """An adapter weight's name in PEFT's saved layout (no adapter name): what vLLM and PEFT load."""
    return name.replace(f".{ADAPTER_NAME}.weight", ".weight")


def initial_adapter(model: torch.nn.Module, seed: int) -> dict[str, torch.Tensor]:
    """The adapter's starting values, by wrapped-model name: lora_A ~ U(-1/sqrt(in), 1/sqrt(in)) (PEFT's
    Kaiming-uniform with a = sqrt(5)), lora_B = 0; fp32 on the CPU, each from its own seeded generator."""
    state = {}
    for name, parameter in model.named_parameters():
        if ".lora_A." in name:
            generator = torch.Generator().manual_seed(_name_seed(seed, name))
            bound = 1 / math.sqrt(parameter.shape[1])
            state[name] = (torch.rand(parameter.shape, generator=generator, dtype=torch.float32) * 2 - 1) * bound
        elif ".lora_B." in name:
            state[name] = torch.zeros(parameter.shape, dtype=torch.float32)
    return state


def _name_seed(seed: int, name: str) -> int:
    return int.from_bytes(hashlib.sha256(f"{seed}:{name}".encode()).digest()[:8], "little") & ((1 << 63) - 1)


def write_adapter_config(directory: Path, config: LoraConfig, base_model: str | Path) -> None:
    """adapter_config.json as PEFT's save_pretrained writes it."""
    peft_config(config, base_model).save_pretrained(str(directory))


def adapter_rank(directory: Path) -> int:
    return int(json.loads((directory / ADAPTER_CONFIG).read_text())["r"])
