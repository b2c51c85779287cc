"""A campaign's checkpoints: one directory per step, written atomically and marked complete last.

Layout of <checkpointDir>/step-000042/:
- a Hugging Face model dir (config.json, model.safetensors, tokenizer files): the consolidated weights in the export
  dtype, which policy servers load;
- sharded/: the fp32 model and AdamW state as torch.distributed.checkpoint wrote them, one file per rank, which a
  resumed update loads at any world size;
- trainer_state.json (campaign, step, metrics) and the COMPLETE marker.
Every rank writes its shards into one temporary directory (checkpoint storage is shared by the ranks); rank 0 adds
the export and renames it into place, so a step directory is complete or absent.
"""

from __future__ import annotations

import copy
import json
import re
import shutil
from pathlib import Path

import torch
import torch.distributed.checkpoint as dcp
from safetensors.torch import save_file
from torch.distributed.checkpoint.state_dict import StateDictOptions, get_model_state_dict, get_state_dict, set_state_dict

from ..atomic import begin_directory, commit_directory, is_complete
from .process_group import ProcessGroups

SHARDED_DIR = "sharded"
STATE_FILE = "trainer_state.json"
EXPORT_DTYPES = {"bfloat16": torch.bfloat16, "float32": torch.float32}
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

    def latest_complete(self) -> int | None:
        if not self.root.is_dir():
            return None
        steps = [int(m.group(1)) for p in self.root.iterdir() if (m := _STEP_DIR.match(p.name)) and is_complete(p)]
        return max(steps, default=None)

    def read_state(self, step: int) -> dict:
        return json.loads((self.path_for(step) / STATE_FILE).read_text())

    def remove_temporaries(self) -> None:
        """Drop what crashed writes left behind."""
        if self.root.is_dir():
            for path in self.root.iterdir():
                if _STEP_DIR.match(path.name.removeprefix(".tmp-").rsplit("-", 1)[0]) and path.name.startswith(".tmp-"):
                    shutil.rmtree(path, ignore_errors=True)

    def write(self, step: int, *, groups: ProcessGroups, trainer, tokenizer, state: dict, dtype: torch.dtype) -> Path:
        """Collective: every rank calls it. Returns the complete step directory."""
        final = self.path_for(step)
        temporary = Path(groups.broadcast(str(begin_directory(final)) if groups.is_rank0 else None))
        model_state, optimizer_state = get_state_dict(trainer.model, trainer.optimizer)
        dcp.save({"model": model_state, "optim": optimizer_state}, checkpoint_id=temporary / SHARDED_DIR)
        full = get_model_state_dict(trainer.model, options=StateDictOptions(full_state_dict=True, cpu_offload=True))
        failure: BaseException | None = None
        if groups.is_rank0:
            try:
                _write_export(temporary, trainer.model, full, tokenizer, dtype)
                (temporary / STATE_FILE).write_text(json.dumps({**state, "step": step}, indent=2) + "\n")
                commit_directory(temporary, final)
            except BaseException as err:
                shutil.rmtree(temporary, ignore_errors=True)
                failure = err
        if not trainer.ranks.all_true(failure is None):
            if failure is not None:
                raise failure
            raise RuntimeError(f"rank 0 could not write checkpoint {final}")
        return final

    @staticmethod
    def load_training_state(path: Path, trainer) -> None:
        """Collective: load the sharded fp32 model and AdamW state of `path` into `trainer` (already sharded)."""
        model_state, optimizer_state = get_state_dict(trainer.model, trainer.optimizer)
        loaded = {"model": model_state, "optim": optimizer_state}
        dcp.load(loaded, checkpoint_id=path / SHARDED_DIR)
        set_state_dict(trainer.model, trainer.optimizer, model_state_dict=loaded["model"], optim_state_dict=loaded["optim"])


def _write_export(directory: Path, model: torch.nn.Module, full_state: dict, tokenizer, dtype: torch.dtype) -> None:
    """The consolidated Hugging Face model dir: config, safetensors weights in `dtype`, tokenizer."""
    tied = {name for name in getattr(model, "_tied_weights_keys", None) or []} if model.config.tie_word_embeddings else set()
    weights = {name: tensor.to(dtype).contiguous() for name, tensor in full_state.items() if name not in tied}
    save_file(weights, str(directory / "model.safetensors"), metadata={"format": "pt"})
    config = copy.deepcopy(model.config)
    config.dtype = dtype
    config.save_pretrained(directory)
    if getattr(model, "generation_config", None) is not None:
        model.generation_config.save_pretrained(directory)
    if tokenizer is not None:
        tokenizer.save_pretrained(directory)
