"""PolicyUpdateInput (schemas/training.ts) parsed once into typed, frozen config objects with verl's names.

Which payload key each field is read from is the exported JSON Schema's fact, not this module's: a property's
`python` (its zod `.meta({ python })`, where verl's name differs) or else its key in snake_case. Defaults come from
the schema too, never from here. A new setting is one zod field and one dataclass field.
"""

from __future__ import annotations

import dataclasses
import re
import typing
from dataclasses import dataclass
from typing import Any, ClassVar

from .schemas import load_schema, validate, with_defaults


def _snake(key: str) -> str:
    return re.sub(r"(?<!^)([A-Z])", r"_\1", key).lower()


class _Section:
    """A part of the payload: `_path` is where it sits in PolicyUpdateInput (() for the payload itself)."""

    _path: ClassVar[tuple[str, ...]] = ()

    @classmethod
    def payload_keys(cls) -> dict[str, str]:
        """Python field name -> payload key, as the exported schema names them."""
        node = load_schema("PolicyUpdateInput")
        for key in cls._path:
            node = node["properties"][key]
        return {prop.get("python", _snake(key)): key for key, prop in node["properties"].items()}

    @classmethod
    def from_payload(cls, payload: dict):
        """Build the section from its validated part of the payload (nested sections too)."""
        keys = cls.payload_keys()
        hints = typing.get_type_hints(cls)
        values = {}
        for f in dataclasses.fields(cls):
            if f.name not in keys:
                where = "".join(f".{k}" for k in cls._path)
                raise KeyError(f"{cls.__name__}.{f.name}: no property of PolicyUpdateInput{where} is read into it")
            key = keys[f.name]
            section = _section_of(hints[f.name])
            if section is not None:
                values[f.name] = section.from_payload(payload[key]) if key in payload else None
            else:
                values[f.name] = payload[key]
        return cls(**values)


def _section_of(hint: Any) -> type[_Section] | None:
    """The section class a field's annotation names (`LoraConfig | None` names LoraConfig), else None."""
    return next((t for t in (hint, *typing.get_args(hint)) if isinstance(t, type) and issubclass(t, _Section)), None)


def ts_name(cls: type[_Section], python_name: str) -> str:
    """The payload key of a config field, for error messages that must name what the user wrote."""
    return cls.payload_keys()[python_name]


@dataclass(frozen=True)
class OptimizerConfig(_Section):
    """AdamW and gradient clipping (verl: actor.optim.*, actor.grad_clip)."""

    _path: ClassVar[tuple[str, ...]] = ("optimizer",)

    lr: float
    weight_decay: float
    betas: tuple[float, float]
    eps: float
    grad_clip: float

    def __post_init__(self):
        object.__setattr__(self, "betas", tuple(self.betas))



@dataclass(frozen=True)
class LossConfig(_Section):
    """The clipped policy loss and the group advantages (verl: actor.clip_ratio_*, loss_agg_mode, kl_loss_coef, entropy_coeff,
    algorithm.norm_adv_by_std_in_grpo; `epsilon` is the std offset of compute_grpo_outcome_advantage), and the
    off-policy correction (verl: algorithm.rollout_correction.rollout_is, rollout_is_threshold; here `rollout_is` is
    "none", or "tis": verl's rollout_is "token" in its decoupled mode, which truncates)."""

    _path: ClassVar[tuple[str, ...]] = ("loss",)

    clip_ratio_low: float
    clip_ratio_high: float
    kl_loss_coef: float
    kl_reference: str
    entropy_coeff: float
    norm_adv_by_std_in_grpo: bool
    epsilon: float
    pass_at_k: int | None
    unlikeliness: float
    loss_agg_mode: str
    rollout_is: str
    rollout_is_threshold: float

    @property
    def kl_to_base(self) -> bool:
        """Whether the KL term is to the base policy (its log-probs recomputed every step), not the ratio's reference."""
        return self.kl_reference == "base" and self.kl_loss_coef > 0

    @property
    def recomputes_old_log_prob(self) -> bool:
        """Whether the update recomputes the log-probs of its starting weights (π_prox) before its first step."""
        return self.rollout_is == "tis"



@dataclass(frozen=True)
class FsdpConfig(_Section):
    """How the update is sharded and what it saves (verl: actor.fsdp_config.optimizer_offload,
    model.enable_gradient_checkpointing, which may be "auto": on from a model size, see `gradient_checkpointing_for`;
    actor.ulysses_sequence_parallel_size). `replicate_across_nodes` is HSDP: verl's fsdp_config.fsdp_size set to the
    GPUs of a node."""

    _path: ClassVar[tuple[str, ...]] = ("fsdp",)

    enable_gradient_checkpointing: bool | str
    optimizer_offload: bool
    export_dtype: str
    ulysses_sequence_parallel_size: int
    replicate_across_nodes: bool


    def gradient_checkpointing_for(self, parameters: int) -> bool:
        """The setting for a model of `parameters` parameters ("auto": on from UpdateMemoryModel's threshold)."""
        if self.enable_gradient_checkpointing == "auto":
            threshold = load_schema("UpdateMemoryModel")["properties"]["autoCheckpointingParameters"]["const"]
            return parameters >= threshold
        return bool(self.enable_gradient_checkpointing)


@dataclass(frozen=True)
class RetentionConfig(_Section):
    """Which checkpoints stay on disk (schemas/training.ts CheckpointRetention)."""

    _path: ClassVar[tuple[str, ...]] = ("retention",)

    keep_last: int | None
    keep_exports: str
    export_every: int | None



@dataclass(frozen=True)
class CheckpointConfig(_Section):
    """How often the resumable state is written (schemas/training.ts CheckpointCadence; verl: trainer.save_freq)."""

    _path: ClassVar[tuple[str, ...]] = ("checkpoints",)

    save_freq: int


    def writes_resumable_state(self, step: int) -> bool:
        return step % self.save_freq == 0


@dataclass(frozen=True)
class LoraConfig(_Section):
    """LoRA adapters on the frozen base model (schemas/training.ts LoraConfig), with PEFT's LoraConfig names."""

    _path: ClassVar[tuple[str, ...]] = ("lora",)

    r: int
    lora_alpha: float
    lora_dropout: float
    target_modules: tuple[str, ...]

    def __post_init__(self):
        object.__setattr__(self, "target_modules", tuple(self.target_modules))



@dataclass(frozen=True)
class PolicyUpdateRequest(_Section):
    """One `policyUpdate` call. A forward pass on each rank holds at most micro_batch_tokens tokens and
    ppo_micro_batch_size_per_gpu episodes (None: no limit), packed into one sequence with use_remove_padding, else
    padded; a mini-batch is mini_batch_groups whole groups (verl's ppo_mini_batch_size counts prompts)."""

    _path: ClassVar[tuple[str, ...]] = ()

    campaign_id: str
    step: int
    batch_uri: str
    checkpoint_dir: str
    base_model: str
    optim: OptimizerConfig
    loss: LossConfig
    fsdp: FsdpConfig
    micro_batch_tokens: int
    ppo_micro_batch_size_per_gpu: int | None
    mini_batch_groups: int | None
    use_remove_padding: bool
    seed: int
    retention: RetentionConfig
    checkpoints: CheckpointConfig
    lora: LoraConfig | None
    needed_exports: tuple[int, ...]

    def __post_init__(self):
        object.__setattr__(self, "needed_exports", tuple(self.needed_exports))

    @property
    def shuffle_seed(self) -> str:
        """Seeds the mini-batch order: the same (seed, step) repeats its update exactly."""
        return f"{self.seed}:{self.step}"


def parse_policy_update_input(raw: Any, *, where: str = "policyUpdate input") -> PolicyUpdateRequest:
    """Validate against PolicyUpdateInput.schema.json (raising SchemaError) and build the typed request."""
    return PolicyUpdateRequest.from_payload(validate("PolicyUpdateInput", raw, where=where))


def loss_config(overrides: dict | None = None) -> LossConfig:
    """A LossConfig from TypeScript-named `overrides`, the rest from the schema's defaults (for tests and benchmarks)."""
    return LossConfig.from_payload(_defaults()["loss"] | (overrides or {}))


def lora_config(overrides: dict | None = None) -> LoraConfig:
    """A LoraConfig from TypeScript-named `overrides`, the rest from the schema's defaults."""
    return LoraConfig.from_payload(with_defaults("PolicyUpdateInput", _skeleton() | {"lora": overrides or {}})["lora"])


def optimizer_config(overrides: dict | None = None) -> OptimizerConfig:
    """An OptimizerConfig from TypeScript-named `overrides`, the rest from the schema's defaults."""
    return OptimizerConfig.from_payload(_defaults()["optimizer"] | (overrides or {}))


def fsdp_config(overrides: dict | None = None) -> FsdpConfig:
    """An FsdpConfig from TypeScript-named `overrides`, the rest from the schema's defaults."""
    return FsdpConfig.from_payload(_defaults()["fsdp"] | (overrides or {}))


def _skeleton() -> dict:
    return {"campaignId": "x", "step": 1, "batchUri": "x", "checkpointDir": "x", "baseModel": "x"}


def _defaults() -> dict:
    return with_defaults("PolicyUpdateInput", _skeleton())
