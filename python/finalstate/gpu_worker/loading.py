"""Loading a policy into the FSDP2-sharded model without any rank holding the whole model.

As PyTorch's FSDP2 guide does: every rank builds the model on the meta device (parameters only; the small
buffers, such as the rotary frequencies, are real), shards it with `fully_shard`, and allocates its own shards
(`to_empty`). Then:
- from a Hugging Face directory (the base model), rank 0 maps the safetensors files (page cache, no copy) and
  `set_model_state_dict(..., broadcast_from_rank0=True)` sends one tensor at a time, each rank keeping its shard;
- from a checkpoint of this campaign, every rank reads its part of the sharded fp32 state (torch.distributed.checkpoint).
So a rank's memory holds its shard of the fp32 model (4 P / W bytes) plus one full tensor in flight, and rank 0's
node also caches the checkpoint file.
"""

from __future__ import annotations

import contextlib
import json
import mmap
from collections.abc import Callable
from pathlib import Path

import torch
from torch.distributed.checkpoint.state_dict import StateDictOptions, set_model_state_dict
from transformers import AutoConfig, AutoModelForCausalLM, GenerationConfig

from ..config import FsdpConfig
from .process_group import ProcessGroups
from .sharding import Meshes, shard_model

_DTYPES = {
    "F64": torch.float64, "F32": torch.float32, "F16": torch.float16, "BF16": torch.bfloat16,
    "I64": torch.int64, "I32": torch.int32, "I16": torch.int16, "I8": torch.int8, "U8": torch.uint8, "BOOL": torch.bool,
}  # fmt: skip


class UnloadableModelError(ValueError):
    """The directory's weights do not fit the model its config describes."""


def meta_model(source: Path) -> torch.nn.Module:
    """The fp32 causal LM of `source`'s config, its parameters on the meta device and its buffers real."""
    config = AutoConfig.from_pretrained(source)
    with parameters_on_meta():
        model = AutoModelForCausalLM.from_config(config, dtype=torch.float32)
    # Every registered parameter became a new meta tensor, tied ones too: tie them again.
    model.tie_weights()
    with contextlib.suppress(OSError):  # else the one from_config derived from the config
        model.generation_config = GenerationConfig.from_pretrained(source)
    return model


@contextlib.contextmanager
def parameters_on_meta():
    """Every parameter a module registers meanwhile is moved to the meta device as it is registered (so weight
    initialisation touches no memory); buffers stay real. What accelerate's init_empty_weights(include_buffers=False)
    does, here so that it works with transformers 4 and 5 alike (transformers 5.9 and later broke its import path)."""
    register = torch.nn.Module.register_parameter

    def on_meta(module: torch.nn.Module, name: str, parameter):
        register(module, name, parameter)
        if parameter is not None:
            registered = module._parameters[name]
            attributes = dict(registered.__dict__)
            module._parameters[name] = type(registered)(registered.to("meta"), requires_grad=registered.requires_grad)
            module._parameters[name].__dict__.update(attributes)

    torch.nn.Module.register_parameter = on_meta
    try:
        yield
    finally:
        torch.nn.Module.register_parameter = register


def sharded_meta_model(source: Path, meshes: Meshes, fsdp: FsdpConfig) -> torch.nn.Module:
    """`source`'s model sharded over `meshes`, each rank's shards allocated (uninitialised) on its device."""
    return shard_and_allocate(meta_model(source), meshes, fsdp)


def shard_and_allocate(model: torch.nn.Module, meshes: Meshes, fsdp: FsdpConfig) -> torch.nn.Module:
    """`model`, its parameters on the meta device, sharded over `meshes`, each rank's shards allocated
    (uninitialised) on its device and its buffers keeping their values."""
    buffers = {name: buffer.clone() for name, buffer in model.named_buffers()}
    parameters = sum(p.numel() for p in model.parameters())
    shard_model(model, meshes, fsdp, parameters=parameters)
    # to_empty allocates every parameter shard and buffer on its device; the buffers get their values back.
    model.to_empty(device=torch.device("cpu") if fsdp.optimizer_offload else meshes.ranks.device)
    with torch.no_grad():
        for name, buffer in model.named_buffers():
            buffer.copy_(buffers[name])
    return model


def mapped_safetensors(source: Path) -> dict[str, torch.Tensor]:
    """Every tensor of `source`'s safetensors files (one file, or several with an index), mapped, not read: the
    tensors are views of the page cache, so only what is touched is read and nothing is copied into the process."""
    index = source / "model.safetensors.index.json"
    files = sorted(set(json.loads(index.read_text())["weight_map"].values())) if index.is_file() else ["model.safetensors"]
    tensors: dict[str, torch.Tensor] = {}
    for name in files:
        path = source / name
        if not path.is_file():
            raise UnloadableModelError(f"{source}: {name} is missing (only safetensors weights are loaded)")
        with open(path, "rb") as handle:
            mapped = mmap.mmap(handle.fileno(), 0, access=mmap.ACCESS_COPY)  # private: never written back
        header_size = int.from_bytes(mapped[:8], "little")
        header = json.loads(mapped[8 : 8 + header_size])
        start = 8 + header_size
        for key, entry in header.items():
            if key == "__metadata__":
                continue
            begin, end = entry["data_offsets"]
            dtype = _DTYPES[entry["dtype"]]
            count = (end - begin) // dtype.itemsize
            flat = torch.frombuffer(mapped, dtype=dtype, count=count, offset=start + begin) if count else torch.empty(0, dtype=dtype)
            tensors[key] = flat.view(entry["shape"])
    return tensors


def _own_name(name: str) -> str | None:
    return name


def load_full_weights(
    model: torch.nn.Module,
    source: Path,
    groups: ProcessGroups,
    *,
    hf_name: Callable[[str], str | None] = _own_name,
    initial: Callable[[], dict[str, torch.Tensor]] = dict,
) -> None:
    """Collective: fill the sharded `model` with the weights of the Hugging Face directory `source`, read by rank 0
    alone and broadcast tensor by tensor (each rank keeps its shard, cast to the model's dtype). `hf_name` gives a
    model weight's name in `source`, None for a weight `source` does not hold (a LoRA adapter's, lora.base_name),
    whose starting value `initial()` gives by the model's name. Raises UnloadableModelError on every rank when the
    weights do not fit the model."""
    full: dict[str, torch.Tensor] = {}
    problem = None
    if groups.is_rank0:
        try:
            full = _full_state(model, source, hf_name, initial)
        except UnloadableModelError as err:
            problem = str(err)
    problem = groups.broadcast(problem)
    if problem is not None:
        raise UnloadableModelError(problem)
    set_model_state_dict(model, full, options=StateDictOptions(full_state_dict=True, broadcast_from_rank0=True))


def _full_state(
    model: torch.nn.Module, source: Path, hf_name: Callable[[str], str | None], initial: Callable[[], dict[str, torch.Tensor]]
) -> dict[str, torch.Tensor]:
    """The model's full state by its own names: the weights `source` holds, by their names there, and `initial()`'s."""
    full = mapped_safetensors(source)
    names = {name: hf_name(name) for name in model.state_dict()}
    expected = {hf for hf in names.values() if hf is not None}
    for name in expected - set(full):
        if (tied := _tied_to(model, name, hf_name)) in full:
            full[name] = full[tied]
    missing, unexpected = sorted(expected - set(full)), sorted(set(full) - expected)
    if missing or unexpected:
        raise UnloadableModelError(
            f"{source}: the weights do not match the model of its config.json "
            f"(missing {missing[:5]}{'...' if len(missing) > 5 else ''}, unexpected {unexpected[:5]}{'...' if len(unexpected) > 5 else ''})"
        )
    started = initial()
    return {name: full[hf] if hf is not None else started[name] for name, hf in names.items()}


def _tied_to(model: torch.nn.Module, name: str, hf_name: Callable[[str], str | None]) -> str | None:
    """The weight `name` shares its tensor with (a tied output layer is not saved separately)."""
    if not getattr(model.config, "tie_word_embeddings", False):
        return None
    if name == "lm_head.weight":
        return hf_name(next(n for n, p in model.named_parameters() if p is model.get_input_embeddings().weight))
    return None
