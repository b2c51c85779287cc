"""A campaign's checkpoints: one directory per step, written atomically and marked complete last, and pruned.

Layout of <checkpointDir>/step-000042/:
- a Hugging Face model dir (config.json, model.safetensors, tokenizer files): the consolidated weights in the export
  dtype, which policy servers load; with LoRA instead the adapter in PEFT's layout (adapter_config.json,
  adapter_model.safetensors: lora.py), which servers load beside the base model;
- sharded/: the fp32 model and AdamW state as torch.distributed.checkpoint wrote them, one file per rank, which a
  resumed update loads at any world size (with LoRA: the adapter and its AdamW state only; the frozen base is
  the base model's); written every `checkpoints.every` steps (the steps with resumable state);
- trainer_state.json (campaign, step, metrics, the step's whole input: what replaying it takes) and the COMPLETE
  marker.
Every rank writes its shards into one temporary directory (checkpoint storage is shared by the ranks); the ranks
gather the export to rank 0, which writes it and renames the directory into place, so a step directory is complete
or absent. While rank 0 writes, the others wait on the storage group, whose timeout is sized to the checkpoint,
not in a collective of the training group.

Once a step is complete, `prune` deletes what the campaign no longer needs (CheckpointRetention): older steps lose
their sharded state, or go whole when their export is not needed either. The newest resumable state and every step
after it stay whole: a restarted worker loads that state and replays those steps from their recorded inputs (whose
batches are the orchestrator's artifacts, which pruning never touches). Each deletion first renames what goes out
of the way (.trash-*), then removes it, so a crash mid-deletion leaves only trash that the next prune removes.
"""

from __future__ import annotations

import copy
import json
import logging
import os
import re
import shutil
import uuid
from collections.abc import Iterable
from pathlib import Path
from typing import Protocol

import torch
import torch.distributed as dist
import torch.distributed.checkpoint as dcp
from safetensors.torch import save_file
from torch.distributed.tensor import DTensor

from ..atomic import begin_directory, commit_directory, fsync_dir, is_complete
from ..config import RetentionConfig
from . import lora as lora_adapters
from .process_group import ProcessGroups


class ExportedState(Protocol):
    """What a checkpoint needs of the update's strategy (strategy.py): the training state it holds, what it exports."""

    def training_state(self, model: torch.nn.Module, optimizer: torch.optim.Optimizer) -> tuple[dict, dict]: ...

    def set_training_state(
        self, model: torch.nn.Module, optimizer: torch.optim.Optimizer, model_state: dict, optimizer_state: dict
    ) -> None: ...

    def gather_export(self, model: torch.nn.Module, dtype: torch.dtype, *, keep: bool) -> dict[str, torch.Tensor]: ...

    def write_export(self, directory: Path, model: torch.nn.Module, export: dict, tokenizer, dtype: torch.dtype) -> None: ...

log = logging.getLogger(__name__)
SHARDED_DIR = "sharded"
STATE_FILE = "trainer_state.json"
EXPORT_DTYPES = {"bfloat16": torch.bfloat16, "float32": torch.float32}
TRASH_PREFIX = ".trash-"
_STEP_DIR = re.compile(r"^step-(\d{6,})$")


def export_dtype(name: str, device: torch.device) -> torch.dtype:
    if name == "auto":
        return torch.bfloat16 if device.type == "cuda" else torch.float32
    return EXPORT_DTYPES[name]


class CheckpointStore:
    def __init__(self, root: str | Path):
        self.root = Path(root)

    def path_for(self, step: int) -> Path:
        return self.root / f"step-{step:06d}"

    def complete(self, step: int) -> Path | None:
        path = self.path_for(step)
        return path if is_complete(path) else None

    def complete_steps(self) -> list[int]:
        if not self.root.is_dir():
            return []
        return sorted(int(m.group(1)) for p in self.root.iterdir() if (m := _STEP_DIR.match(p.name)) and is_complete(p))

    def latest_complete(self) -> int | None:
        return max(self.complete_steps(), default=None)

    def has_training_state(self, step: int) -> bool:
        return (self.path_for(step) / SHARDED_DIR / ".metadata").is_file()

    def latest_resumable(self, newest: int) -> int | None:
        """The newest complete step up to `newest` that holds the sharded training state (None: none does)."""
        return max((s for s in self.complete_steps() if s <= newest and self.has_training_state(s)), default=None)

    def read_state(self, step: int) -> dict:
        return json.loads((self.path_for(step) / STATE_FILE).read_text())

    def remove_temporaries(self) -> None:
        """Drop what crashed writes and crashed deletions left behind."""
        if self.root.is_dir():
            for path in self.root.iterdir():
                crashed_write = path.name.startswith(".tmp-") and _STEP_DIR.match(path.name.removeprefix(".tmp-").rsplit("-", 1)[0])
                if crashed_write or path.name.startswith(TRASH_PREFIX):
                    shutil.rmtree(path, ignore_errors=True)

    def write(
        self,
        step: int,
        *,
        groups: ProcessGroups,
        storage,
        trainer,
        strategy: ExportedState,
        tokenizer,
        state: dict,
        dtype: torch.dtype,
        resumable: bool = True,
    ) -> Path:
        """Collective: every rank calls it. Returns the complete step directory; the sharded training state is in it
        when `resumable`. `strategy` (strategy.py) says what the training state holds and what is exported.

        `storage` is the group (ProcessGroups.storage_group) the ranks wait on while the checkpoint is written."""
        final = self.path_for(step)
        temporary = Path(groups.broadcast(str(begin_directory(final)) if groups.is_rank0 else None))
        if resumable:
            model_state, optimizer_state = strategy.training_state(trainer.model, trainer.optimizer)
            dcp.save({"model": model_state, "optim": optimizer_state}, checkpoint_id=temporary / SHARDED_DIR, process_group=storage)
        export = strategy.gather_export(trainer.model, dtype, keep=groups.is_rank0)
        failure: str | None = None
        if groups.is_rank0:
            try:
                strategy.write_export(temporary, trainer.model, export, tokenizer, dtype)
                (temporary / STATE_FILE).write_text(json.dumps({**state, "step": step}, indent=2) + "\n")
                commit_directory(temporary, final)
            except Exception as err:
                shutil.rmtree(temporary, ignore_errors=True)
                failure = f"rank 0 could not write checkpoint {final}: {err}"
        del export
        if storage is not None:
            box = [failure]
            dist.broadcast_object_list(box, src=0, group=storage)
            failure = box[0]
        if failure is not None:
            raise OSError(failure)
        return final

    def prune(self, newest: int, retention: RetentionConfig, needed_exports: Iterable[int]) -> list[str]:
        """Rank 0, once step `newest` is complete: delete the checkpoints the campaign no longer needs; return what
        went ("step-000003", "step-000004/sharded", ...). Idempotent: what is gone stays gone, and trash left by an
        interrupted prune is removed first."""
        self.remove_temporaries()
        steps = [s for s in self.complete_steps() if s <= newest]
        keep_whole = set(steps if retention.keep_last is None else steps[-retention.keep_last :]) | {newest}
        # What a restarted worker needs: the newest resumable state (or, before any, the base model) and the recorded
        # steps after it, which it replays.
        replay_from = self.latest_resumable(newest) or 0
        keep_whole |= {s for s in steps if s >= replay_from}
        needed = set(needed_exports)
        removed = []
        for step in steps:
            if step in keep_whole:
                continue
            path = self.path_for(step)
            keeps_export = (
                retention.keep_exports == "all"
                or step in needed
                or (retention.export_every is not None and step % retention.export_every == 0)
            )
            if not keeps_export:
                self._delete(path, f"{path.name}")
                removed.append(path.name)
            elif (path / SHARDED_DIR).exists():
                self._delete(path / SHARDED_DIR, f"{path.name}-{SHARDED_DIR}")
                removed.append(f"{path.name}/{SHARDED_DIR}")
        if removed:
            log.info("checkpoint retention after step %d: removed %s", newest, ", ".join(removed))
        return removed

    def _delete(self, path: Path, label: str) -> None:
        """Move `path` out of the way in one rename (so it is there whole or gone), then remove it."""
        trash = self.root / f"{TRASH_PREFIX}{label}-{uuid.uuid4().hex}"
        os.rename(path, trash)
        fsync_dir(path.parent)
        shutil.rmtree(trash)

    @staticmethod
    def load_training_state(path: Path, trainer, storage, strategy: ExportedState) -> None:
        """Collective: load the sharded fp32 model and AdamW state of `path` into `trainer` (already sharded)."""
        model_state, optimizer_state = strategy.training_state(trainer.model, trainer.optimizer)
        loaded = {"model": model_state, "optim": optimizer_state}
        dcp.load(loaded, checkpoint_id=path / SHARDED_DIR, process_group=storage)
        strategy.set_training_state(trainer.model, trainer.optimizer, loaded["model"], loaded["optim"])


def gather_export(model: torch.nn.Module, dtype: torch.dtype, *, keep: bool, trainable_only: bool = False) -> dict[str, torch.Tensor]:
    """Collective: the full weights in `dtype` on the CPU, one tensor gathered at a time; only where `keep` (rank 0)
    are they kept (its node holds the export once: 2 bytes per parameter in bf16). `trainable_only`: the weights
    that train (a LoRA model's adapter)."""
    export: dict[str, torch.Tensor] = {}
    gathered: dict[int, str] = {}  # a tied weight appears under two names: gathered once
    trainable = {name for name, p in model.named_parameters() if p.requires_grad} if trainable_only else None
    for name, tensor in model.state_dict().items():
        if trainable is not None and name not in trainable:
            continue
        if id(tensor) in gathered:
            if keep:
                export[name] = export[gathered[id(tensor)]]
            continue
        gathered[id(tensor)] = name
        full = tensor.full_tensor() if isinstance(tensor, DTensor) else tensor
        if keep:
            export[name] = full.detach().to(device="cpu", dtype=dtype)
        del full
    return export


def write_export(directory: Path, model: torch.nn.Module, full_state: dict, tokenizer, dtype: torch.dtype) -> None:
    """The consolidated Hugging Face model dir: config, safetensors weights in `dtype`, tokenizer. A tied LM head is
    written under its own name too (a copy: safetensors stores no shared tensors), unlike save_pretrained: vLLM's
    in-place reload_weights reprocesses only the layers the checkpoint names, and on the CPU it would otherwise go on
    computing logits with the head it packed before (docs/policy-stack.md)."""
    seen: set[int] = set()
    weights = {}
    for name, tensor in full_state.items():
        weights[name] = tensor.clone() if id(tensor) in seen else tensor.contiguous()
        seen.add(id(tensor))
    save_file(weights, str(directory / "model.safetensors"), metadata={"format": "pt"})
    config = copy.deepcopy(model.config)
    config.dtype = dtype
    config.save_pretrained(directory)
    if getattr(model, "generation_config", None) is not None:
        model.generation_config.save_pretrained(directory)
    if tokenizer is not None:
        tokenizer.save_pretrained(directory)


def write_adapter(directory: Path, model: torch.nn.Module, adapter: dict) -> None:
    """A LoRA step's export: PEFT's adapter layout (lora.py), which vLLM's /v1/load_lora_adapter and PEFT load."""
    weights = {lora_adapters.exported_name(name): tensor.contiguous() for name, tensor in adapter.items()}
    save_file(weights, str(directory / lora_adapters.ADAPTER_WEIGHTS), metadata={"format": "pt"})
    model.peft_config[lora_adapters.ADAPTER_NAME].save_pretrained(str(directory))
