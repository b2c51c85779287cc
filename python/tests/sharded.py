"""Test helpers for the sharded gpu worker: the single-process group and a checkpoint's training state."""

from __future__ import annotations

import tempfile
from pathlib import Path

import torch
from torch.distributed.checkpoint.format_utils import dcp_to_torch_save

from finalstate.gpu_worker.checkpoints import SHARDED_DIR
from finalstate.gpu_worker.process_group import ProcessGroups, start_process_groups


def cpu_groups() -> ProcessGroups:
    """World size 1 on the CPU, in this process (made once, like the gpu worker run without torchrun)."""
    return start_process_groups("cpu")


def flatten(state, prefix: str = "") -> dict:
    if isinstance(state, dict):
        out = {}
        for key, value in state.items():
            out.update(flatten(value, f"{prefix}{key}."))
        return out
    if isinstance(state, list):
        return flatten({str(i): v for i, v in enumerate(state)}, prefix)
    return {prefix[:-1]: state}


def training_state(step_dir: str | Path) -> dict:
    """The sharded fp32 model and AdamW state of a checkpoint, consolidated, as flat {"model.x": tensor, "optim.state.x.exp_avg": ...}."""
    with tempfile.TemporaryDirectory() as scratch:
        target = Path(scratch) / "state.pt"
        dcp_to_torch_save(Path(step_dir) / SHARDED_DIR, target)
        return flatten(torch.load(target, weights_only=False))
