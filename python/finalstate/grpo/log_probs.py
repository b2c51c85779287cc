"""The log-prob head: token log-probabilities and entropies from the final hidden states, a chunk of positions at a
time, without the logits of the whole pass ("fused linear cross-entropy").

A causal LM's output layer turns each position's hidden state (h values) into a row of V logits. Materialising them
for a pass of T tokens costs c T V bytes, their gradient as much again, and an fp32 log-softmax 16 T V more: at a
152k vocabulary one 110k-token episode would hold some 67 GB. Here the forward computes the logits of a chunk of
positions, keeps the chunk's log-prob of its targets, entropy and log-sum-exp (4 bytes each per position), and drops
the chunk; the backward computes the chunk's logits again from the hidden states it kept and turns them straight
into the gradients of the hidden states and of the output layer. What stays per position is its hidden state
(c h bytes), never a vocabulary row; the scratch is two chunks of `CHUNK_BYTES` (infra/update-memory.ts counts
exactly that). The output layer's gradient is summed over the chunks in fp32 (4 bytes per output-layer parameter
while the head's backward runs, which the arithmetic counts with the root module's fp32 gradient).
"""

from __future__ import annotations

import torch

from ..schemas import load_schema

# One source with the memory arithmetic: the fp32 scratch of one chunk (schemas/training.ts UpdateMemoryModel).
CHUNK_BYTES: int = load_schema("UpdateMemoryModel")["properties"]["logitChunkBytes"]["const"]


def chunk_rows(vocabulary: int) -> int:
    """Positions per chunk: one fp32 row of logits is 4 x vocabulary bytes."""
    return max(1, CHUNK_BYTES // (4 * vocabulary))


class _LinearLogProbs(torch.autograd.Function):
    """(log p(target), entropy) of each row of `hidden` [N, h] under the output layer `weight` [V, h]; the logits are
    computed in `dtype` (the compute dtype of the output layer) and normalised in fp32. Both carry a gradient; the
    entropy's (an entropy bonus, loss.entropyCoef) costs nothing when the loss does not use it."""

    @staticmethod
    def forward(ctx, hidden: torch.Tensor, weight: torch.Tensor, targets: torch.Tensor, rows: int, dtype: torch.dtype):
        count = hidden.shape[0]
        log_prob = torch.empty(count, dtype=torch.float32, device=hidden.device)
        entropy = torch.empty_like(log_prob)
        normaliser = torch.empty_like(log_prob)  # log-sum-exp of each row, for the backward
        w = weight.to(dtype)
        for start in range(0, count, rows):
            end = min(start + rows, count)
            z = (hidden[start:end].to(dtype) @ w.T).float()
            lse = torch.logsumexp(z, dim=-1)
            z.sub_(lse[:, None])  # the log-softmax, in place
            log_prob[start:end] = z.gather(-1, targets[start:end, None]).squeeze(-1)
            entropy[start:end] = -z.exp().mul_(z).sum(dim=-1)
            normaliser[start:end] = lse
            del z
        ctx.save_for_backward(hidden, weight, targets, normaliser, entropy)
        ctx.rows, ctx.dtype = rows, dtype
        ctx.set_materialize_grads(False)  # an output the loss does not use has no gradient: None, not zeros
        return log_prob, entropy

    @staticmethod
    def backward(ctx, grad_log_prob: torch.Tensor | None, grad_entropy: torch.Tensor | None):
        hidden, weight, targets, normaliser, entropy = ctx.saved_tensors
        want_hidden, want_weight = ctx.needs_input_grad[0], ctx.needs_input_grad[1]
        grad_hidden = torch.empty_like(hidden) if want_hidden else None
        grad_weight = torch.zeros(weight.shape, dtype=torch.float32, device=weight.device) if want_weight else None
        w = weight.to(ctx.dtype)
        for start in range(0, hidden.shape[0], ctx.rows):
            end = min(start + ctx.rows, hidden.shape[0])
            h = hidden[start:end].to(ctx.dtype)
            g = None if grad_log_prob is None else grad_log_prob[start:end, None].float()
            z = (h @ w.T).float().sub_(normaliser[start:end, None])  # the chunk's log-softmax
            if grad_entropy is None:
                # d log p(t) / d z = onehot(t) - softmax(z), times the incoming gradient: in place of the logits.
                d = z.exp_().mul_(-g)
            else:
                # d H / d z_j = -p_j (log p_j + H); with the log-prob's term, two chunks of scratch in all.
                p = z.exp()
                d = z.add_(entropy[start:end, None]).mul_(p).mul_(-grad_entropy[start:end, None].float())
                if g is not None:
                    d.sub_(p.mul_(g))
                del p
            if g is not None:
                d.scatter_add_(-1, targets[start:end, None], g)
            d = d.to(ctx.dtype)  # both matmuls in the compute dtype (bf16 on CUDA: tensor cores)
            if want_hidden:
                grad_hidden[start:end] = (d @ w).to(hidden.dtype)
            if want_weight:
                if d.dtype == torch.float32:
                    grad_weight.addmm_(d.T, h)
                else:  # each chunk's product accumulates in fp32 inside the matmul, and the chunks add up in fp32
                    grad_weight.add_(d.T @ h)
            del d, z
        return grad_hidden, None if grad_weight is None else grad_weight.to(weight.dtype), None, None, None


def linear_log_probs(hidden: torch.Tensor, weight: torch.Tensor, targets: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """log p(targets[i] | position i) and the entropy of position i's distribution, both fp32, for hidden states
    [..., h] and targets [...] of the same leading shape, under the output layer `weight` [V, h].

    The logits are computed in the autocast dtype where autocast is on (a plain model on CUDA), else in the hidden
    states' dtype (the compute dtype of an FSDP2 model), as the output layer itself would."""
    dtype = torch.get_autocast_dtype(hidden.device.type) if torch.is_autocast_enabled(hidden.device.type) else hidden.dtype
    flat = hidden.reshape(-1, hidden.shape[-1])
    log_prob, entropy = _LinearLogProbs.apply(flat, weight, targets.reshape(-1), chunk_rows(weight.shape[0]), dtype)
    return log_prob.view(targets.shape), entropy.view(targets.shape)
