"""Log-probs of a token sequence under a checkpoint, as the trainer computes them: the reference that served
log-probs are compared with once a checkpoint is published. A LoRA checkpoint (adapter_config.json) is applied to
the base model it names, as PEFT computes it."""

from __future__ import annotations

import json
from pathlib import Path

import torch
from peft import PeftModel
from transformers import AutoModelForCausalLM

from finalstate.grpo.passes import pass_tensors
from finalstate.grpo.trainer import token_log_probs


def score(request: dict) -> dict:
    checkpoint = Path(request["checkpointDir"])
    adapter = checkpoint / "adapter_config.json"
    if adapter.is_file():
        base = AutoModelForCausalLM.from_pretrained(json.loads(adapter.read_text())["base_model_name_or_path"], dtype=torch.float32)
        model = PeftModel.from_pretrained(base, str(checkpoint))
    else:
        model = AutoModelForCausalLM.from_pretrained(checkpoint, dtype=torch.float32)
    model.eval()
    n = len(request["tokenIds"])
    episode = {"tokenIds": request["tokenIds"], "lossMask": [0] * n, "rolloutLogprobs": [0.0] * n}
    with torch.no_grad():
        logprobs, _ = token_log_probs(model, pass_tensors([episode], torch.zeros(1), packed=False))
    # logprobs[i] scores token i + 1 (the last position predicts nothing): the completion starts at token promptTokens.
    return {"logprobs": logprobs[0, request["promptTokens"] - 1 : n - 1].tolist()}
