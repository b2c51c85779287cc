"""What an update trains: the whole model (full fine-tuning) or a LoRA adapter on the frozen base (lora.py).

The two differ in how the model is built and loaded, what its resumable state holds, what a checkpoint exports for
the policy servers, and what the base policy of a KL to the base is. `update_strategy` picks one from the request's
update.lora, once per update; the update and its checkpoints then ask the strategy instead of asking update.lora.
"""

from __future__ import annotations

import logging
from abc import ABC, abstractmethod
from pathlib import Path

import torch
from torch.distributed.checkpoint.state_dict import StateDictOptions, get_state_dict, set_state_dict

from ..config import FsdpConfig, LoraConfig, PolicyUpdateRequest
from ..grpo import BasePolicy
from . import checkpoints
from . import lora as lora_adapters
from .loading import load_full_weights, meta_model, shard_and_allocate, sharded_meta_model
from .process_group import ProcessGroups
from .sharding import Meshes

log = logging.getLogger(__name__)


class UpdateStrategy(ABC):
    name: str  # what the update is called in messages
    # What a resumable checkpoint's model state holds (None: every weight).
    state_options: StateDictOptions | None = None

    def __init__(self, base_model: Path):
        self.base_model = base_model

    @abstractmethod
    def model_dir(self, source: Path) -> Path:
        """The Hugging Face directory whose config the model is built from and whose weights it starts from, given
        the `source` of the policy (the base model, or a checkpoint with resumable state)."""

    @abstractmethod
    def sharded_model(self, model_dir: Path, meshes: Meshes, fsdp: FsdpConfig) -> torch.nn.Module:
        """The model to train, sharded and allocated but not loaded (loading.py)."""

    @abstractmethod
    def load_weights(self, model: torch.nn.Module, model_dir: Path, groups: ProcessGroups, *, resume: bool) -> None:
        """Collective: the weights the model holds before a resumed training state, if any, is loaded over them."""

    @abstractmethod
    def base_policy(self, model: torch.nn.Module, meshes: Meshes, fsdp: FsdpConfig, groups: ProcessGroups) -> BasePolicy:
        """The base policy of a loss with klReference "base" (grpo/reference.py)."""

    @abstractmethod
    def foreign_export(self, checkpoint: Path) -> str | None:
        """What the step directory `checkpoint` holds when the other strategy wrote it; None when this one did."""

    @abstractmethod
    def gather_export(self, model: torch.nn.Module, dtype: torch.dtype, *, keep: bool) -> dict[str, torch.Tensor]:
        """Collective: the weights a checkpoint exports (checkpoints.gather_export)."""

    @abstractmethod
    def write_export(self, directory: Path, model: torch.nn.Module, export: dict, tokenizer, dtype: torch.dtype) -> None:
        """Rank 0: write the gathered export in the layout the policy servers load."""

    def training_state(self, model: torch.nn.Module, optimizer: torch.optim.Optimizer) -> tuple[dict, dict]:
        """The model and optimizer state a resumable checkpoint holds."""
        return get_state_dict(model, optimizer, options=self.state_options)

    def set_training_state(
        self, model: torch.nn.Module, optimizer: torch.optim.Optimizer, model_state: dict, optimizer_state: dict
    ) -> None:
        set_state_dict(model, optimizer, model_state_dict=model_state, optim_state_dict=optimizer_state, options=self.state_options)


class FullFineTuning(UpdateStrategy):
    name = "full fine-tuning"

    def model_dir(self, source: Path) -> Path:
        return source

    def sharded_model(self, model_dir: Path, meshes: Meshes, fsdp: FsdpConfig) -> torch.nn.Module:
        return sharded_meta_model(model_dir, meshes, fsdp)

    def load_weights(self, model: torch.nn.Module, model_dir: Path, groups: ProcessGroups, *, resume: bool) -> None:
        if not resume:  # else the training state holds every weight
            load_full_weights(model, model_dir, groups)

    def base_policy(self, model: torch.nn.Module, meshes: Meshes, fsdp: FsdpConfig, groups: ProcessGroups) -> BasePolicy:
        """A frozen copy of the base model, sharded as the trained model is."""
        log.info("%s: loading the base policy for the KL to it from %s", groups, self.base_model)
        frozen = sharded_meta_model(self.base_model, meshes, fsdp)
        load_full_weights(frozen, self.base_model, groups)
        return BasePolicy(frozen=frozen)

    def foreign_export(self, checkpoint: Path) -> str | None:
        return "a LoRA adapter" if is_adapter(checkpoint) else None

    def gather_export(self, model: torch.nn.Module, dtype: torch.dtype, *, keep: bool) -> dict[str, torch.Tensor]:
        return checkpoints.gather_export(model, dtype, keep=keep)

    def write_export(self, directory: Path, model: torch.nn.Module, export: dict, tokenizer, dtype: torch.dtype) -> None:
        checkpoints.write_export(directory, model, export, tokenizer, dtype)


class LoraAdapter(UpdateStrategy):
    """Only the adapter trains, is resumable state and is exported: the frozen base is always the base model's."""

    name = "LoRA"
    state_options = StateDictOptions(ignore_frozen_params=True, strict=False)

    def __init__(self, base_model: Path, config: LoraConfig, seed: int):
        super().__init__(base_model)
        self.config = config
        self.seed = seed  # of the adapter's starting values (lora.initial_adapter)

    def model_dir(self, source: Path) -> Path:
        return self.base_model

    def sharded_model(self, model_dir: Path, meshes: Meshes, fsdp: FsdpConfig) -> torch.nn.Module:
        frozen = torch.bfloat16 if meshes.ranks.device.type == "cuda" else torch.float32
        wrapped = lora_adapters.wrap(meta_model(model_dir), self.config, base_model=model_dir, frozen_dtype=frozen)
        return shard_and_allocate(wrapped, meshes, fsdp)

    def load_weights(self, model: torch.nn.Module, model_dir: Path, groups: ProcessGroups, *, resume: bool) -> None:
        load_full_weights(
            model, model_dir, groups, hf_name=lora_adapters.base_name, initial=lambda: lora_adapters.initial_adapter(model, self.seed)
        )

    def base_policy(self, model: torch.nn.Module, meshes: Meshes, fsdp: FsdpConfig, groups: ProcessGroups) -> BasePolicy:
        """The trained model with its adapter disabled: the base at no extra memory."""
        return BasePolicy(adapters_of=model)

    def foreign_export(self, checkpoint: Path) -> str | None:
        return None if is_adapter(checkpoint) else "a whole model"

    def gather_export(self, model: torch.nn.Module, dtype: torch.dtype, *, keep: bool) -> dict[str, torch.Tensor]:
        return checkpoints.gather_export(model, dtype, keep=keep, trainable_only=True)

    def write_export(self, directory: Path, model: torch.nn.Module, export: dict, tokenizer, dtype: torch.dtype) -> None:
        checkpoints.write_adapter(directory, model, export)

    def training_state(self, model: torch.nn.Module, optimizer: torch.optim.Optimizer) -> tuple[dict, dict]:
        """ignore_frozen_params leaves out frozen parameters by their first name only, so the tied output layer (a
        second name of the frozen embeddings) is dropped here."""
        model_state, optimizer_state = super().training_state(model, optimizer)
        trained = {name for name, p in model.named_parameters() if p.requires_grad}
        return {name: value for name, value in model_state.items() if name in trained}, optimizer_state


def update_strategy(request: PolicyUpdateRequest) -> UpdateStrategy:
    base_model = Path(request.base_model)
    if request.lora is None:
        return FullFineTuning(base_model)
    return LoraAdapter(base_model, request.lora, request.seed)


def is_adapter(path: Path) -> bool:
    """Whether a step directory holds a LoRA adapter rather than a whole model."""
    return (path / lora_adapters.ADAPTER_CONFIG).is_file()
