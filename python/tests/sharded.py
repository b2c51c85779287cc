"""Test helpers for the sharded gpu worker: the single-process group, the inputs of a few update steps and a
checkpoint's training state."""

from __future__ import annotations

import json
import tempfile
from pathlib import Path

import torch
from torch.distributed.checkpoint.format_utils import dcp_to_torch_save
from transformers import AutoModelForCausalLM

from finalstate.gpu_worker.checkpoints import SHARDED_DIR
from finalstate.gpu_worker.process_group import ProcessGroups, start_process_groups
from finalstate.grpo.batch import write_batch

from episodes import toy_batch

STEPS = (1, 2, 3)


def cpu_groups() -> ProcessGroups:
    """World size 1 on the CPU, in this process (made once, like the gpu worker run without torchrun)."""
    return start_process_groups("cpu")


def write_inputs(directory, tiny_model_dir, checkpoints, fsdp=None, every=None, *, campaign="sharded", steps=STEPS, **update):
    """Steps 1-3: step 2 in two mini-batches, step 3 with the off-policy correction; the tokens sampled by the
    versions one and two behind (the base policy for the first steps). `every`: the checkpoint cadence of each step
    (default every step resumable); `update`: more PolicyUpdateInput keys."""
    directory.mkdir(parents=True)
    model = AutoModelForCausalLM.from_pretrained(tiny_model_dir)
    files = {}
    for step in steps:
        batch = directory / f"batch-{step}.json"
        episodes = toy_batch(model, model.config.vocab_size, seed=step)
        write_batch(batch, [{**e, "rolloutVersions": [max(step - 2 - t % 2, 0) if m else -1 for t, m in enumerate(e["lossMask"])]} for e in episodes])
        request = {
            "campaignId": campaign,
            "step": step,
            "batchUri": batch.as_uri(),
            "checkpointDir": str(checkpoints),
            "baseModel": str(tiny_model_dir),
            "optimizer": {"lr": 1e-3, "eps": 1e-4},
            "loss": {"clipHigh": 0.28, "offPolicyCorrection": "tis" if step == 3 else "none"},
            "microBatchSize": 2,
            "miniBatchGroups": 1 if step == 2 else None,  # step 2 takes two AdamW steps
            "retention": {"keepLast": None},  # step 1's export is the reference the steps moved from
            "fsdp": fsdp or {},
            "checkpoints": {"every": (every or {}).get(step, 1)},
            **update,
        }
        files[step] = directory / f"update-{step}.json"
        files[step].write_text(json.dumps(request))
    return files


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
