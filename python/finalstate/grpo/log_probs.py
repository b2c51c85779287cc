"""Token log-probabilities and entropies from the logits, a chunk of positions at a time.

`log_softmax(logits.float())` over a whole micro-batch keeps an fp32 copy of every logit for the backward pass and
makes two more in it (about 16 bytes per token per vocabulary entry next to the bf16 logits): at a 152k vocabulary
and 8k tokens that is 20 GB. Here the fp32 values exist for one chunk of positions at a time, in the forward pass and
again in the backward pass; what stays per token and vocabulary entry is the logits and their gradient, in the
compute dtype (infra/update-memory.ts counts exactly that, plus the chunk).
"""

from __future__ import annotations

import torch

from ..schemas import load_schema

# One source with the memory arithmetic: the fp32 scratch of one chunk (schemas/training.ts UpdateMemoryModel).
CHUNK_BYTES: int = load_schema("UpdateMemoryModel")["properties"]["logitChunkBytes"]["const"]


def chunk_rows(vocabulary: int) -> int:
    """Positions per chunk: one fp32 row of logits is 4 x vocabulary bytes."""
    return max(1, CHUNK_BYTES // (4 * vocabulary))


class _TargetLogProbs(torch.autograd.Function):
    """(log p(target), entropy) per row of [rows, vocabulary] logits; only the log-probs carry a gradient."""

    @staticmethod
    def forward(ctx, logits: torch.Tensor, targets: torch.Tensor, rows: int):
        count = logits.shape[0]
        log_prob = torch.empty(count, dtype=torch.float32, device=logits.device)
        entropy = torch.empty_like(log_prob)
        for start in range(0, count, rows):
            end = min(start + rows, count)
            z = logits[start:end].float()
            z = z - torch.logsumexp(z, dim=-1, keepdim=True)  # log-softmax
            log_prob[start:end] = z.gather(-1, targets[start:end, None]).squeeze(-1)
            entropy[start:end] = -(z.exp() * z).sum(dim=-1)
        ctx.save_for_backward(logits, targets)
        ctx.rows = rows
        ctx.mark_non_differentiable(entropy)
        return log_prob, entropy

    @staticmethod
    def backward(ctx, grad_log_prob: torch.Tensor, _grad_entropy: torch.Tensor):
        logits, targets = ctx.saved_tensors
        grad = torch.empty_like(logits)
        for start in range(0, logits.shape[0], ctx.rows):
            end = min(start + ctx.rows, logits.shape[0])
            g = grad_log_prob[start:end, None].float()
            # d log p(t) / d z = onehot(t) - softmax(z)
            chunk = torch.softmax(logits[start:end].float(), dim=-1).mul_(-g)
            chunk.scatter_add_(-1, targets[start:end, None], g)
            grad[start:end] = chunk
        return grad, None, None


def next_token_log_probs(logits: torch.Tensor, input_ids: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """log p(token i+1 | tokens <= i) and the entropy of position i's distribution, both fp32 [batch, tokens-1].

    `logits` is the model's [batch, tokens, vocabulary] output in any float dtype (the softmax runs in fp32). Every
    position is computed, the last one against a dummy target and then dropped, so that the logits are used as they
    are: slicing them first would copy them."""
    targets = torch.zeros_like(input_ids)
    targets[:, :-1] = input_ids[:, 1:]
    flat = logits.reshape(-1, logits.shape[-1])
    log_prob, entropy = _TargetLogProbs.apply(flat, targets.reshape(-1), chunk_rows(flat.shape[-1]))
    return log_prob.view(targets.shape)[:, :-1], entropy.view(targets.shape)[:, :-1]
