"""The chunked log-prob head (grpo/log_probs.py): the log-probs, entropies and gradients of the full logits' log-softmax,
from the final hidden states and the output layer, without the logits of the pass (CPU)."""

from __future__ import annotations

import copy

import pytest
import torch
from torch.distributed.fsdp import fully_shard

import finalstate.grpo.log_probs as log_probs
from finalstate.grpo.log_probs import linear_log_probs
from finalstate.grpo.passes import pass_tensors
from finalstate.grpo.trainer import token_log_probs

from episodes import toy_batch
from sharded import cpu_groups


def reference(logits: torch.Tensor, targets: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """What the trainer computed before: the fp32 log-softmax of every logit."""
    all_log_probs = torch.log_softmax(logits.float(), dim=-1)
    return all_log_probs.gather(-1, targets[..., None]).squeeze(-1), -(all_log_probs.exp() * all_log_probs).sum(-1)


@pytest.mark.parametrize("entropy_bonus", [False, True])
@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16])
def test_the_head_gives_the_log_softmax_values_entropies_and_gradients_chunk_by_chunk(dtype, entropy_bonus, monkeypatch):
    monkeypatch.setattr(log_probs, "CHUNK_BYTES", 4 * 50 * 3)  # three rows a chunk: 14 rows make five chunks
    generator = torch.Generator().manual_seed(0)
    hidden = torch.randn(2, 7, 16, generator=generator).to(dtype).requires_grad_()
    weight = (torch.randn(50, 16, generator=generator) * 0.5).to(dtype).requires_grad_()
    targets = torch.randint(0, 50, (2, 7), generator=generator)
    upstream = torch.randn(2, 7, generator=generator)
    # An entropy bonus (loss.entropyCoef) puts a gradient on the entropies too; without one they get none.
    upstream_entropy = torch.randn(2, 7, generator=generator) if entropy_bonus else torch.zeros(2, 7)

    def objective(log_prob, entropy):
        return (log_prob * upstream).sum() + ((entropy * upstream_entropy).sum() if entropy_bonus else 0)

    log_prob, entropy = linear_log_probs(hidden, weight, targets)
    objective(log_prob, entropy).backward()
    ours = hidden.grad.clone(), weight.grad.clone()
    hidden.grad = weight.grad = None

    expected, expected_entropy = reference(hidden @ weight.T, targets)
    objective(expected, expected_entropy).backward()
    tolerance = 1e-6 if dtype == torch.float32 else 2e-2
    assert log_prob.dtype == entropy.dtype == torch.float32 and log_prob.shape == targets.shape
    assert torch.allclose(log_prob, expected, atol=tolerance, rtol=0)
    assert torch.allclose(entropy, expected_entropy.detach(), atol=tolerance, rtol=0)
    assert ours[0].dtype == ours[1].dtype == dtype
    for got, want in zip(ours, (hidden.grad, weight.grad)):
        # with the entropy's terms (larger, |log p + H| p), relative to the gradient's largest entry
        scale = max(1.0, float(want.float().abs().max())) if entropy_bonus else 1.0
        assert torch.allclose(got.float(), want.float(), atol=tolerance * scale, rtol=0), float((got.float() - want.float()).abs().max())


def _loss_and_grads(model, episodes, upstream, *, ours: bool):
    """sum(upstream x log-probs of the episodes' next tokens) and every parameter's gradient: through the chunked
    head (`ours`) or through the model's logits."""
    batch = pass_tensors(episodes, torch.zeros(len(episodes)), packed=False)
    if ours:
        log_prob, entropy = token_log_probs(model, batch)
    else:
        logits = model(input_ids=batch.input_ids, use_cache=False).logits
        log_prob, entropy = reference(logits, batch.targets)
    mask = batch.response_mask
    (log_prob * upstream * mask).sum().backward()
    grads = {}
    for name, p in model.named_parameters():
        grad = p.grad.full_tensor() if hasattr(p.grad, "full_tensor") else p.grad
        grads[name] = grad.detach().clone()
    return (log_prob * mask).detach(), (entropy * mask).detach(), grads


def test_the_model_without_its_output_layer_gives_the_full_logits_figures_tied_and_under_fsdp2(model):
    """The tiny model ties its output layer to the input embeddings: that one weight's gradient gathers both uses.
    Values and every gradient equal those of the model's own logits to 1e-6 (fp32), on the plain model and on the
    FSDP2-sharded one the gpu worker trains."""
    assert model.get_output_embeddings().weight is model.get_input_embeddings().weight
    episodes = toy_batch(model, model.config.vocab_size)
    upstream = torch.randn(len(episodes), max(len(e["tokenIds"]) for e in episodes), generator=torch.Generator().manual_seed(1))
    expected = _loss_and_grads(copy.deepcopy(model), episodes, upstream, ours=False)
    plain = _loss_and_grads(copy.deepcopy(model), episodes, upstream, ours=True)
    cpu_groups()
    sharded_model = copy.deepcopy(model)
    for layer in sharded_model.model.layers:
        fully_shard(layer)
    fully_shard(sharded_model)
    sharded = _loss_and_grads(sharded_model, episodes, upstream, ours=True)
    for got in (plain, sharded):
        assert torch.allclose(got[0], expected[0], atol=1e-6, rtol=0)
        # An entropy near log(300) = 5.7 sums 300 terms: a few ulps (4.8e-7 each) apart, so 1e-6 relative.
        assert torch.allclose(got[1], expected[1], atol=1e-6, rtol=1e-6)
        assert got[2].keys() == expected[2].keys()
        for name, grad in expected[2].items():
            assert torch.allclose(got[2][name], grad, atol=1e-6, rtol=1e-5), name
    assert expected[2]["model.embed_tokens.weight"].abs().max() > 1e-3
