"""PolicyUpdateInput (schemas/training.ts) parsed once into typed, frozen config objects with verl's names.

This module is the one place where the TypeScript names of the payload meet the Python (verl) names: each field's
`ts` metadata names the payload key it is read from. Defaults come from the exported JSON Schema, never from here.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Any

from .schemas import load_schema, validate, with_defaults


def _ts(name: str) -> Any:
    return field(metadata={"ts": name})


def _from_payload(cls, payload: dict, **nested):
    """Build `cls` from a validated payload, reading each field from the key its `ts` metadata names."""
    values = {}
    for f in dataclasses.fields(cls):
        if f.name in nested:
            values[f.name] = nested[f.name]
        else:
            values[f.name] = payload[f.metadata["ts"]]
    return cls(**values)


def ts_name(cls, python_name: str) -> str:
    """The payload key of a config field, for error messages that must name what the user wrote."""
    return next(f.metadata["ts"] for f in dataclasses.fields(cls) if f.name == python_name)


@dataclass(frozen=True)
class OptimizerConfig:
    """AdamW and gradient clipping (verl: actor.optim.*, actor.grad_clip)."""

    lr: float = _ts("lr")
    weight_decay: float = _ts("weightDecay")
    betas: tuple[float, float] = _ts("betas")
    eps: float = _ts("eps")
    grad_clip: float = _ts("maxGradNorm")

    def __post_init__(self):
        object.__setattr__(self, "betas", tuple(self.betas))

    @staticmethod
    def from_payload(payload: dict) -> OptimizerConfig:
        return _from_payload(OptimizerConfig, payload)


@dataclass(frozen=True)
class LossConfig:
    """The clipped policy loss and the group advantages (verl: actor.clip_ratio_*, loss_agg_mode, kl_loss_coef, entropy_coeff,
    algorithm.norm_adv_by_std_in_grpo; `epsilon` is the std offset of compute_grpo_outcome_advantage), and the
    off-policy correction (verl: algorithm.rollout_correction.rollout_is, rollout_is_threshold; here `rollout_is` is
    "none", or "tis": verl's rollout_is "token" in its decoupled mode, which truncates)."""

    clip_ratio_low: float = _ts("clipLow")
    clip_ratio_high: float = _ts("clipHigh")
    kl_loss_coef: float = _ts("klCoef")
    kl_reference: str = _ts("klReference")
    entropy_coeff: float = _ts("entropyCoef")
    norm_adv_by_std_in_grpo: bool = _ts("normalizeStd")
    epsilon: float = _ts("eps")
    pass_at_k: int | None = _ts("passAtK")
    unlikeliness: float = _ts("unlikeliness")
    loss_agg_mode: str = _ts("aggregation")
    rollout_is: str = _ts("offPolicyCorrection")
    rollout_is_threshold: float = _ts("isCap")

    @property
    def kl_to_base(self) -> bool:
        """Whether the KL term is to the base policy (its log-probs recomputed every step), not the ratio's reference."""
        return self.kl_reference == "base" and self.kl_loss_coef > 0

    @property
    def recomputes_old_log_prob(self) -> bool:
        """Whether the update recomputes the log-probs of its starting weights (π_prox) before its first step."""
        return self.rollout_is == "tis"

    @staticmethod
    def from_payload(payload: dict) -> LossConfig:
        return _from_payload(LossConfig, payload)


@dataclass(frozen=True)
class FsdpConfig:
    """How the update is sharded and what it saves (verl: actor.fsdp_config.optimizer_offload,
    model.enable_gradient_checkpointing, which may be "auto": on from a model size, see `gradient_checkpointing_for`;
    actor.ulysses_sequence_parallel_size). `replicate_across_nodes` is HSDP: verl's fsdp_config.fsdp_size set to the
    GPUs of a node."""

    enable_gradient_checkpointing: bool | str = _ts("activationCheckpointing")
    optimizer_offload: bool = _ts("optimizerOffload")
    export_dtype: str = _ts("exportDtype")
    ulysses_sequence_parallel_size: int = _ts("sequenceParallel")
    replicate_across_nodes: bool = _ts("replicateAcrossNodes")

    @staticmethod
    def from_payload(payload: dict) -> FsdpConfig:
        return _from_payload(FsdpConfig, payload)

    def gradient_checkpointing_for(self, parameters: int) -> bool:
        """The setting for a model of `parameters` parameters ("auto": on from UpdateMemoryModel's threshold)."""
        if self.enable_gradient_checkpointing == "auto":
            threshold = load_schema("UpdateMemoryModel")["properties"]["autoCheckpointingParameters"]["const"]
            return parameters >= threshold
        return bool(self.enable_gradient_checkpointing)


@dataclass(frozen=True)
class RetentionConfig:
    """Which checkpoints stay on disk (schemas/training.ts CheckpointRetention)."""

    keep_last: int | None = _ts("keepLast")
    keep_exports: str = _ts("keepExports")
    export_every: int | None = _ts("exportEvery")

    @staticmethod
    def from_payload(payload: dict) -> RetentionConfig:
        return _from_payload(RetentionConfig, payload)


@dataclass(frozen=True)
class CheckpointConfig:
    """How often the resumable state is written (schemas/training.ts CheckpointCadence; verl: trainer.save_freq)."""

    save_freq: int = _ts("every")

    @staticmethod
    def from_payload(payload: dict) -> CheckpointConfig:
        return _from_payload(CheckpointConfig, payload)

    def writes_resumable_state(self, step: int) -> bool:
        return step % self.save_freq == 0


@dataclass(frozen=True)
class LoraConfig:
    """LoRA adapters on the frozen base model (schemas/training.ts LoraConfig), with PEFT's LoraConfig names."""

    r: int = _ts("rank")
    lora_alpha: float = _ts("alpha")
    lora_dropout: float = _ts("dropout")
    target_modules: tuple[str, ...] = _ts("targetModules")

    def __post_init__(self):
        object.__setattr__(self, "target_modules", tuple(self.target_modules))

    @staticmethod
    def from_payload(payload: dict) -> LoraConfig:
        return _from_payload(LoraConfig, payload)


@dataclass(frozen=True)
class PolicyUpdateRequest:
    """One `policyUpdate` call. A forward pass on each rank holds at most micro_batch_tokens tokens and
    ppo_micro_batch_size_per_gpu episodes (None: no limit), packed into one sequence with use_remove_padding, else
    padded; ppo_mini_batch_size counts groups (verl counts prompts, and a group is one prompt's rollouts)."""

    campaign_id: str = _ts("campaignId")
    step: int = _ts("step")
    batch_uri: str = _ts("batchUri")
    checkpoint_dir: str = _ts("checkpointDir")
    base_model: str = _ts("baseModel")
    optim: OptimizerConfig = _ts("optimizer")
    loss: LossConfig = _ts("loss")
    fsdp: FsdpConfig = _ts("fsdp")
    micro_batch_tokens: int = _ts("microBatchTokens")
    ppo_micro_batch_size_per_gpu: int | None = _ts("microBatchSize")
    ppo_mini_batch_size: int | None = _ts("miniBatchGroups")
    use_remove_padding: bool = _ts("packing")
    seed: int = _ts("seed")
    retention: RetentionConfig = _ts("retention")
    checkpoints: CheckpointConfig = _ts("checkpoints")
    lora: LoraConfig | None = _ts("lora")
    needed_exports: tuple[int, ...] = _ts("neededExports")

    def __post_init__(self):
        object.__setattr__(self, "needed_exports", tuple(self.needed_exports))

    @property
    def shuffle_seed(self) -> str:
        """Seeds the mini-batch order: the same (seed, step) repeats its update exactly."""
        return f"{self.seed}:{self.step}"


def parse_policy_update_input(raw: Any, *, where: str = "policyUpdate input") -> PolicyUpdateRequest:
    """Validate against PolicyUpdateInput.schema.json (raising SchemaError) and build the typed request."""
    payload = validate("PolicyUpdateInput", raw, where=where)
    return _from_payload(
        PolicyUpdateRequest,
        payload,
        optim=OptimizerConfig.from_payload(payload["optimizer"]),
        loss=LossConfig.from_payload(payload["loss"]),
        fsdp=FsdpConfig.from_payload(payload["fsdp"]),
        retention=RetentionConfig.from_payload(payload["retention"]),
        checkpoints=CheckpointConfig.from_payload(payload["checkpoints"]),
        lora=LoraConfig.from_payload(payload["lora"]) if "lora" in payload else None,
    )


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
