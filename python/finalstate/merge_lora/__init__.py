"""A LoRA checkpoint merged into its base model: a plain Hugging Face checkpoint for servers without LoRA.

The base model (the adapter config's base_model_name_or_path, or the one given) is loaded in fp32, the adapter
applied and merged (W + alpha / r * B A, PEFT's merge_and_unload) in fp32, and the result written in the dtype asked
for like the gpu worker's export (gpu_worker/checkpoints.py: the tied head under its own name too, the tokenizer and
generation config of the base), atomically. In fp32 the merged model serves the adapter's log-probs to within 1e-5
(python/tests/test_merge_lora.py); merging in bf16 is what NeMo-RL found to drift from the trainer.
"""

from __future__ import annotations

import json
import time
from pathlib import Path

import torch
from peft import PeftModel
from transformers import AutoModelForCausalLM, AutoTokenizer

from ..atomic import atomic_directory
from ..gpu_worker.checkpoints import EXPORT_DTYPES, write_export
from ..gpu_worker.lora import ADAPTER_CONFIG, ADAPTER_WEIGHTS


class MergeInputError(ValueError):
    """The checkpoint is not a LoRA adapter, or its base model cannot be found."""


def merge_lora(checkpoint: str | Path, out: str | Path, *, base_model: str | Path | None = None, dtype: str = "float32") -> dict:
    started = time.perf_counter()
    checkpoint, out = Path(checkpoint), Path(out)
    if not (checkpoint / ADAPTER_CONFIG).is_file() or not (checkpoint / ADAPTER_WEIGHTS).is_file():
        raise MergeInputError(f"{checkpoint} is not a LoRA checkpoint (it needs {ADAPTER_CONFIG} and {ADAPTER_WEIGHTS})")
    config = json.loads((checkpoint / ADAPTER_CONFIG).read_text())
    base = Path(base_model or config.get("base_model_name_or_path") or "")
    if not (base / "config.json").is_file():
        raise MergeInputError(f"the base model {str(base)!r} of {checkpoint} is not a Hugging Face model directory: give it with --base")
    if out.exists():
        raise MergeInputError(f"{out} exists: choose another --out")
    model = AutoModelForCausalLM.from_pretrained(base, dtype=torch.float32)
    merged = PeftModel.from_pretrained(model, str(checkpoint)).merge_and_unload()
    target = EXPORT_DTYPES[dtype]
    state = {name: tensor.detach().to(target) for name, tensor in merged.state_dict().items()}
    if getattr(merged.config, "tie_word_embeddings", False):  # one tensor under both names, as the gpu worker gathers it
        state["lm_head.weight"] = state["model.embed_tokens.weight"]
    with atomic_directory(out) as directory:
        write_export(directory, merged, state, AutoTokenizer.from_pretrained(base), target)
        (directory / "merged_from.json").write_text(json.dumps({"adapter": str(checkpoint.resolve()), "baseModel": str(base.resolve())}, indent=2) + "\n")
    return {
        "dir": str(out.resolve()),
        "adapter": str(checkpoint.resolve()),
        "baseModel": str(base.resolve()),
        "rank": int(config["r"]),
        "parameters": sum(p.numel() for p in merged.parameters()),
        "dtype": dtype,
        "seconds": round(time.perf_counter() - started, 2),
    }
