"""Advantages and the clipped policy loss against values computed by hand."""

import math

import pytest
import torch

from finalstate.grpo import agg_loss, compute_grpo_outcome_advantage, compute_policy_loss
from finalstate.grpo.core_algos import AggNormaliser, kl_penalty_k3


def test_group_advantages_by_hand():
    rewards = torch.tensor([1.0, 0.0, 0.5, 2.0, 3.0, 3.0])
    groups = ["a", "a", "a", "b", "c", "c"]
    eps = 1e-6
    # group a: mean 0.5, unbiased std sqrt((0.25 + 0.25 + 0) / 2) = 0.5; b is alone; c has no spread.
    expected = torch.tensor([0.5 / (0.5 + eps), -0.5 / (0.5 + eps), 0.0, 0.0, 0.0, 0.0])
    assert torch.allclose(compute_grpo_outcome_advantage(rewards, groups, eps=eps), expected, atol=1e-7)
    unnormalised = compute_grpo_outcome_advantage(rewards, groups, eps=eps, norm_adv_by_std_in_grpo=False)
    assert torch.allclose(unnormalised, torch.tensor([0.5, -0.5, 0.0, 0.0, 0.0, 0.0]))


def _toy():
    """Two sequences: A=+1 with ratios 1.5, 0.9, 0.5; A=-1 with ratios 1.5, 0.5 and one padded position."""
    old = torch.log(torch.tensor([[0.2, 0.5, 0.4], [0.1, 0.6, 0.3]]))
    ratios = torch.tensor([[1.5, 0.9, 0.5], [1.5, 0.5, 7.0]])
    new = old + torch.log(ratios)
    adv = torch.tensor([[1.0] * 3, [-1.0] * 3])
    mask = torch.tensor([[1.0, 1.0, 1.0], [1.0, 1.0, 0.0]])
    return old, new, adv, mask


def test_clipped_loss_by_hand():
    old, new, adv, mask = _toy()
    # Per token max(-A r, -A clip(r, 0.8, 1.2)): seq 1 -> -1.2 (clipped), -0.9, -0.5; seq 2 -> 1.5, 0.8 (clipped).
    loss, clipfrac, ppo_kl = compute_policy_loss(old, new, adv, mask, clip_ratio_low=0.2, clip_ratio_high=0.2)
    assert loss.item() == pytest.approx((-1.2 - 0.9 - 0.5 + 1.5 + 0.8) / 5, abs=1e-6)
    assert clipfrac.item() == pytest.approx(2 / 5)
    expected_kl = -(math.log(1.5) + math.log(0.9) + math.log(0.5) + math.log(1.5) + math.log(0.5)) / 5
    assert ppo_kl.item() == pytest.approx(expected_kl, abs=1e-6)
    # A higher clip (DAPO clip-higher) lets the first token's ratio 1.5 count in full.
    loss_high, clipfrac_high, _ = compute_policy_loss(old, new, adv, mask, clip_ratio_low=0.2, clip_ratio_high=0.6)
    assert loss_high.item() == pytest.approx((-1.5 - 0.9 - 0.5 + 1.5 + 0.8) / 5, abs=1e-6)
    assert clipfrac_high.item() == pytest.approx(1 / 5)


def test_token_mean_and_sequence_mean_differ_as_expected():
    old, new, adv, mask = _toy()
    token_mean, _, _ = compute_policy_loss(old, new, adv, mask, loss_agg_mode="token-mean")
    seq_mean, _, _ = compute_policy_loss(old, new, adv, mask, loss_agg_mode="seq-mean-token-mean")
    per_seq = [(-1.2 - 0.9 - 0.5) / 3, (1.5 + 0.8) / 2]
    assert seq_mean.item() == pytest.approx(sum(per_seq) / 2, abs=1e-6)
    # token-mean weighs each sequence by its token count: (3 * m1 + 2 * m2) / 5 instead of (m1 + m2) / 2.
    assert token_mean.item() == pytest.approx((3 * per_seq[0] + 2 * per_seq[1]) / 5, abs=1e-6)
    assert token_mean.item() - seq_mean.item() == pytest.approx(
        (3 / 5 - 1 / 2) * per_seq[0] + (2 / 5 - 1 / 2) * per_seq[1], abs=1e-6
    )
    # With equal lengths the two agree.
    full = torch.ones_like(mask)
    a = agg_loss(torch.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]), full, "token-mean")
    b = agg_loss(torch.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]), full, "seq-mean-token-mean")
    assert a.item() == pytest.approx(b.item())


def test_global_normaliser_makes_micro_batches_add_up():
    old, new, adv, mask = _toy()
    for mode in ("token-mean", "seq-mean-token-mean"):
        whole = AggNormaliser.of(mask)
        full, _, _ = compute_policy_loss(old, new, adv, mask, loss_agg_mode=mode)
        parts = [compute_policy_loss(old[i : i + 1], new[i : i + 1], adv[i : i + 1], mask[i : i + 1], loss_agg_mode=mode, normaliser=whole)[0] for i in range(2)]
        assert (parts[0] + parts[1]).item() == pytest.approx(full.item(), abs=1e-6)
    # Without the global normaliser each micro-batch would be its own mean, which is a different loss.
    local = sum(compute_policy_loss(old[i : i + 1], new[i : i + 1], adv[i : i + 1], mask[i : i + 1])[0] for i in range(2))
    assert local.item() != pytest.approx(compute_policy_loss(old, new, adv, mask)[0].item(), abs=1e-3)


def test_k3_kl_is_zero_on_policy_and_positive_off_policy():
    logp = torch.log(torch.tensor([0.2, 0.5]))
    assert torch.allclose(kl_penalty_k3(logp, logp), torch.zeros(2))
    sampler = torch.log(torch.tensor([0.4, 0.25]))
    # r = p / q = 0.5 and 2.0; k3 = r - 1 - log r.
    expected = torch.tensor([0.5 - 1.0 - math.log(0.5), 2.0 - 1.0 - math.log(2.0)])
    assert torch.allclose(kl_penalty_k3(logp, sampler), expected, atol=1e-6)
