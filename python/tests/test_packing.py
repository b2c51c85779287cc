"""Packed passes (grpo/passes.py, update.packing): several episodes in one row, each with its own positions and
attention that never crosses into another, give the padded passes' loss, gradients and figures (CPU, fp32)."""

from __future__ import annotations

import copy
from dataclasses import replace

import pytest
import torch

from finalstate.grpo import PolicyTrainer
from finalstate.grpo.mini_batches import plan_micro_batches
from finalstate.grpo.passes import pass_tensors
from finalstate.grpo.trainer import token_log_probs

from episodes import DEFAULT_LOSS, DEFAULT_OPTIMIZER, toy_batch, weights


def grads(model):
    return {name: p.grad.detach().clone() for name, p in model.named_parameters()}


def test_packed_passes_hold_every_episode_once_within_the_token_limit_without_padding():
    lengths = [7, 30, 12, 12, 5, 41, 9, 3, 18, 25]
    for ranks in (1, 2):
        for max_tokens, max_episodes in ((None, None), (40, None), (24, 3), (10, None)):
            plan = plan_micro_batches(lengths, ranks, max_tokens=max_tokens, max_episodes=max_episodes, packed=True)
            seen = sorted(i for share in plan for passes in share for i in passes)
            assert seen == list(range(len(lengths)))
            for share in plan:
                for members in share:
                    if max_tokens is not None and len(members) > 1:
                        assert sum(lengths[i] for i in members) <= max_tokens, members
                    if max_episodes is not None:
                        assert len(members) <= max_episodes
    # First fit, longest first: 41 | 30 + 9 | 25 + 12 + 3 | 18 + 12 + 7 | 5, where padding needs six passes.
    packed = plan_micro_batches(lengths, 1, max_tokens=40, max_episodes=None, packed=True)[0]
    assert [[lengths[i] for i in members] for members in packed] == [[41], [30, 9], [25, 12, 3], [18, 12, 7], [5]]
    assert len(plan_micro_batches(lengths, 1, max_tokens=40, max_episodes=None)[0]) == 6


def test_a_packed_episode_sees_only_itself(model):
    """Position ids restart at 0 in each episode and attention stops at its boundaries: an episode's log-probs in a
    packed row are those it has alone."""
    episodes = toy_batch(model, model.config.vocab_size)
    packed = pass_tensors(episodes, torch.zeros(len(episodes)), packed=True)
    assert packed.input_ids.shape == (1, sum(len(e["tokenIds"]) for e in episodes))
    assert packed.segments == tuple(len(e["tokenIds"]) for e in episodes)
    with torch.no_grad():
        together, _ = token_log_probs(model, packed)
        start = 0
        for episode in episodes:
            n = len(episode["tokenIds"])
            alone, _ = token_log_probs(model, pass_tensors([episode], torch.zeros(1), packed=False))
            assert torch.allclose(together[0, start : start + n - 1], alone[0, : n - 1], atol=1e-6, rtol=0)
            start += n


@pytest.mark.parametrize("aggregation", ["token-mean", "seq-mean-token-mean"])
@pytest.mark.parametrize("correction", ["none", "tis"])
def test_packed_and_padded_give_the_same_loss_gradients_and_figures(model, aggregation, correction):
    """The whole batch padded in one pass against packed passes of at most 24 and 12 tokens (and one pass), with
    the recompute of π_old ('tis') and without; both aggregations."""
    episodes = toy_batch(model, model.config.vocab_size)
    loss = replace(DEFAULT_LOSS, loss_agg_mode=aggregation, rollout_is=correction)
    padded = PolicyTrainer(copy.deepcopy(model), DEFAULT_OPTIMIZER)
    expected_metrics = padded.accumulate_gradients(episodes, loss_config=loss)
    expected = grads(padded.model)
    assert max(g.abs().max().item() for g in expected.values()) > 1e-3
    for budget in (None, 24, 12):
        trainer = PolicyTrainer(copy.deepcopy(model), DEFAULT_OPTIMIZER)
        metrics = trainer.accumulate_gradients(episodes, loss_config=loss, micro_batch_tokens=budget, packed=True)
        got = grads(trainer.model)
        for name, grad in expected.items():
            assert torch.allclose(got[name], grad, atol=1e-6, rtol=1e-5), (budget, name)
        for key in ("loss", "clipFraction", "entropy", "approxKl"):
            assert metrics[key] == pytest.approx(expected_metrics[key], abs=1e-6), (budget, key)
        assert metrics["tokens"] == expected_metrics["tokens"] and metrics["allTokens"] == expected_metrics["allTokens"]


def test_a_packed_step_in_mini_batches_ends_with_the_padded_weights(model):
    episodes = toy_batch(model, model.config.vocab_size, seed=1)
    optimizer = replace(DEFAULT_OPTIMIZER, eps=1e-4)  # Adam's step continuous in g (test_grpo_update.py)
    after = {}
    for packed in (False, True):
        trainer = PolicyTrainer(copy.deepcopy(model), optimizer)
        trainer.train_step(episodes, loss_config=DEFAULT_LOSS, optimizer_config=optimizer, micro_batch_tokens=16, mini_batch_groups=1, packed=packed)
        after[packed] = weights(trainer.model)
    before = weights(model)
    assert any(not torch.equal(after[True][n], before[n]) for n in before)
    for name in before:
        assert torch.allclose(after[True][name], after[False][name], atol=2e-7, rtol=1e-6), name
