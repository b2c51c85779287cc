"""Log-probs of a token sequence under a checkpoint, as the trainer computes them: the reference that served
log-probs are compared with once a checkpoint is published."""

from __future__ import annotations

import torch
from transformers import AutoModelForCausalLM

from finalstate.grpo.batch import EpisodeTensors
from finalstate.grpo.trainer import token_log_probs


def score(request: dict) -> dict:
    model = AutoModelForCausalLM.from_pretrained(request["checkpointDir"], dtype=torch.float32)
    model.eval()
    ids = torch.tensor([request["tokenIds"]], dtype=torch.long)
    zeros = torch.zeros(ids.shape[0], ids.shape[1] - 1)
    batch = EpisodeTensors(ids, torch.ones_like(ids), zeros, zeros, zeros, zeros)
    with torch.no_grad():
        logprobs, _ = token_log_probs(model, batch)
    # logprobs[i] scores token i + 1: the completion starts at token promptTokens.
    return {"logprobs": logprobs[0, request["promptTokens"] - 1 :].tolist()}
