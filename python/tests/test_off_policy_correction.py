"""The off-policy correction (loss offPolicyCorrection 'tis') and the per-step figures of staleness and sampler drift,
against reference computations written out here (CPU, fp32, the tiny random Qwen3)."""

import copy
import math
from dataclasses import replace

import numpy as np
import pytest
import torch

from finalstate.grpo import PolicyTrainer, compute_grpo_outcome_advantage, compute_policy_loss
from finalstate.grpo.batch import load_batch, write_batch
from finalstate.grpo.core_algos import compute_rollout_is_weights

from episodes import DEFAULT_LOSS, DEFAULT_OPTIMIZER, toy_batch, weights

TIS = replace(DEFAULT_LOSS, rollout_is="tis", rollout_is_threshold=2.0)
OPTIMIZER = replace(DEFAULT_OPTIMIZER, eps=1e-4)  # keeps Adam's first step continuous in g (see test_grpo_update.py)
# Added to the log-prob the sampler reported, token by token in turn: the sampler's policy differs from the trainer's.
OFFSETS = (-1.0, 0.4, 0.0, -0.3, 0.9, -0.05)


def off_policy(episodes: list[dict]) -> list[dict]:
    """`episodes` as if sampled by another policy: each loss token's rollout log-prob moved by the next of OFFSETS,
    so that some importance weights exceed the cap of 2 (e^0.9) and others fall below 1."""
    moved, k = [], 0
    for e in episodes:
        rollout = list(e["rolloutLogprobs"])
        for i, m in enumerate(e["lossMask"]):
            if m:
                rollout[i] = min(rollout[i] - OFFSETS[k % len(OFFSETS)], 0.0)
                k += 1
        moved.append({**e, "rolloutLogprobs": rollout})
    return moved


def test_importance_weights_truncation_and_the_corrected_loss_by_hand():
    cap = 2.0
    prox = [[-1.0, -2.0, -0.5], [-3.0, -0.2, -1.5]]
    rollout = [[-2.0, -1.0, -0.5], [-0.5, -0.3, -9.0]]  # the last token is padding
    ratios = [[1.5, 0.9, 1.3], [0.7, 1.1, 1.0]]  # π_θ / π_old
    advantage = [1.0, -1.0]
    mask = [[1, 1, 1], [1, 1, 0]]

    weights_by_hand, losses, truncated, tokens = [], [], 0, 0
    for row in range(2):
        for t in range(3):
            rho = math.exp(prox[row][t] - rollout[row][t])
            w = min(rho, cap) * mask[row][t]
            weights_by_hand.append(w)
            if mask[row][t]:
                tokens += 1
                truncated += rho > cap
                a, r = advantage[row], ratios[row][t]
                losses.append(max(-a * r, -a * min(max(r, 0.8), 1.2)) * w)
    expected_loss = sum(losses) / tokens

    as_tensor = lambda rows: torch.tensor(rows, dtype=torch.float32)  # noqa: E731
    old, behaviour, response_mask = as_tensor(prox), as_tensor(rollout), as_tensor(mask)
    rollout_is_weights, rollout_is_ratio = compute_rollout_is_weights(old, behaviour, response_mask, rollout_is_threshold=cap)
    assert rollout_is_weights.flatten().tolist() == pytest.approx(weights_by_hand, abs=1e-6)
    # exp(1) is truncated to the cap; the padded token's ratio exp(7.5) is there, its weight 0.
    assert rollout_is_ratio[0, 0].item() == pytest.approx(math.e) and rollout_is_weights[0, 0].item() == cap
    assert rollout_is_weights[1, 2].item() == 0.0
    assert float((rollout_is_ratio[response_mask.bool()] > cap).float().mean()) == pytest.approx(truncated / tokens) == 1 / 5

    new = old + torch.log(as_tensor(ratios))
    adv = torch.tensor(advantage)[:, None].expand(-1, 3)
    loss, clipfrac, _ = compute_policy_loss(old, new, adv, response_mask, rollout_is_weights=rollout_is_weights)
    assert loss.item() == pytest.approx(expected_loss, abs=1e-6)
    assert clipfrac.item() == pytest.approx(3 / 5)  # 1.5 and 1.3 (A = +1) clipped at 1.2, 0.7 (A = -1) at 0.8
    unweighted, _, _ = compute_policy_loss(old, new, adv, response_mask)
    assert unweighted.item() != pytest.approx(expected_loss, abs=1e-3)


def reference_update(model, episodes: list[dict], cap: float):
    """The 'tis' loss of `episodes` on `model`, written out: π_old recomputed without gradients, one sequence at a
    time, then per token max(-A r, -A clip(r)) * min(π_old / μ, cap) with r = π_θ / π_old, over the loss tokens."""
    advantages = compute_grpo_outcome_advantage(torch.tensor([e["reward"] for e in episodes]), [e["groupId"] for e in episodes])
    terms, ratios, drifts = [], [], []
    for episode, advantage in zip(episodes, advantages.tolist()):
        ids = torch.tensor([episode["tokenIds"]])
        log_prob = torch.log_softmax(model(input_ids=ids).logits[0, :-1].float(), dim=-1).gather(-1, ids[0, 1:, None]).squeeze(-1)
        old = log_prob.detach()
        for t, m in enumerate(episode["lossMask"][1:]):
            if not m:
                continue
            mu = float(episode["rolloutLogprobs"][t + 1])
            rho = math.exp(old[t].item() - mu)
            ratios.append(rho)
            drifts.append(abs(old[t].item() - mu))
            r = torch.exp(log_prob[t] - old[t])
            terms.append(torch.maximum(-advantage * r, -advantage * torch.clamp(r, 0.8, 1.2)) * min(rho, cap))
    loss = torch.stack(terms).sum() / len(terms)
    loss.backward()
    grads = {name: p.grad.detach().clone() for name, p in model.named_parameters() if p.grad is not None}
    return loss.item(), grads, np.array(ratios), np.array(drifts)


def test_the_tis_update_equals_the_reference_computation(model):
    episodes = off_policy(toy_batch(model, model.config.vocab_size))
    reference = copy.deepcopy(model)
    expected_loss, expected_grads, ratios, drifts = reference_update(reference, episodes, cap=2.0)
    assert (ratios > 2.0).any() and (ratios < 1.0).any(), "the batch exercises truncation and down-weighting"

    trainer = PolicyTrainer(copy.deepcopy(model), OPTIMIZER)
    metrics = trainer.accumulate_gradients(episodes, loss_config=TIS, micro_batch_size=2)
    assert metrics["loss"] == pytest.approx(expected_loss, abs=1e-6)
    for name, p in trainer.model.named_parameters():
        assert torch.allclose(p.grad, expected_grads[name], atol=1e-7, rtol=1e-5), name

    stepped = PolicyTrainer(copy.deepcopy(model), OPTIMIZER).train_step(episodes, loss_config=TIS, optimizer_config=OPTIMIZER, micro_batch_size=2)
    figures = {k: stepped[k] for k in ("isWeightMean", "isWeightMax", "isTruncatedFraction", "samplerDriftMean", "samplerDriftMax")}
    print(f"tis on the tiny model: {figures}")
    assert stepped["isWeightMean"] == pytest.approx(ratios.mean(), rel=1e-5)
    assert stepped["isWeightMax"] == pytest.approx(ratios.max(), rel=1e-5)
    assert stepped["isTruncatedFraction"] == pytest.approx((ratios > 2.0).mean())
    assert stepped["samplerDriftMean"] == pytest.approx(drifts.mean(), rel=1e-5)
    assert stepped["samplerDriftMax"] == pytest.approx(drifts.max(), rel=1e-5)
    # One mini-batch: the training forward reproduces the recompute exactly, so every PPO ratio is 1 and none clipped.
    assert stepped["clipFraction"] == 0.0 and stepped["approxKl"] == 0.0


def test_the_recompute_under_micro_and_mini_batches_gives_the_numbers_of_one_pass(model):
    first, second = toy_batch(model, model.config.vocab_size, seed=1), toy_batch(model, model.config.vocab_size, seed=2)
    episodes = off_policy(first + [{**e, "groupId": e["groupId"] + "b", "episodeId": e["episodeId"] + "b"} for e in second])
    figures = ("isWeightMean", "isWeightMax", "isTruncatedFraction", "samplerDriftMean", "samplerDriftMax")
    results = {}
    for micro, mini in ((None, None), (1, None), (2, 1), (3, 2)):
        trainer = PolicyTrainer(copy.deepcopy(model), OPTIMIZER)
        results[micro, mini] = trainer.train_step(
            episodes, loss_config=TIS, optimizer_config=OPTIMIZER, micro_batch_size=micro, mini_batch_groups=mini, shuffle_seed="4:2"
        )
    one_pass = results[None, None]
    for key, metrics in results.items():
        # π_old is the starting weights' for every mini-batch, whichever passes computed it.
        for figure in figures:
            assert metrics[figure] == pytest.approx(one_pass[figure], rel=1e-5, abs=1e-7), (key, figure)
    assert results[2, 1]["optimizerSteps"] == 4 and results[2, 1]["approxKl"] > 0, "later mini-batches moved off π_old"

    grads = {}
    for micro in (None, 3):
        trainer = PolicyTrainer(copy.deepcopy(model), OPTIMIZER)
        trainer.accumulate_gradients(episodes, loss_config=TIS, micro_batch_size=micro)
        grads[micro] = {name: p.grad.detach().clone() for name, p in trainer.model.named_parameters()}
    for micro in (3,):
        for name, value in grads[None].items():
            assert torch.allclose(grads[micro][name], value, atol=1e-7, rtol=1e-5), (micro, name)


def test_none_is_the_update_of_the_batch_without_versions_bitwise_and_reports_the_drift(model, tmp_path):
    """'none' trains exactly as before the correction existed: a batch file with the versions array and the same batch
    written without it (as before) give bitwise the same weights; only the newer one reports staleness."""
    episodes = off_policy(toy_batch(model, model.config.vocab_size))
    with_versions = [{**e, "rolloutVersions": [2 if m else -1 for m in e["lossMask"]]} for e in episodes]
    older = load_batch(str(write_batch(tmp_path / "older.json", episodes)))
    newer = load_batch(str(write_batch(tmp_path / "newer.json", with_versions)))
    assert "rolloutVersions" not in older[0] and "rolloutVersions" in newer[0]

    runs = {}
    for name, batch in (("older", older), ("newer", newer)):
        trainer = PolicyTrainer(copy.deepcopy(model), OPTIMIZER, step=2)
        runs[name] = (trainer.train_step(batch, loss_config=DEFAULT_LOSS, optimizer_config=OPTIMIZER, micro_batch_size=4), weights(trainer.model))
    (old_metrics, old_weights), (new_metrics, new_weights) = runs["older"], runs["newer"]
    for name, value in old_weights.items():
        assert torch.equal(new_weights[name], value), name
    same = ("loss", "gradNorm", "clipFraction", "entropy", "approxKl", "tokens", "samplerDriftMean", "samplerDriftMax")
    assert {k: new_metrics[k] for k in same} == {k: old_metrics[k] for k in same}
    assert "stalenessMean" not in old_metrics and "stalenessHistogram" not in old_metrics
    assert (new_metrics["stalenessMean"], new_metrics["stalenessMax"]) == (0.0, 0)
    assert "isWeightMean" not in new_metrics, "no importance weights without the correction"

    # The drift with 'none' comes from the first mini-batch's forward passes: here the whole batch, on the starting weights.
    _, _, _, drifts = reference_update(copy.deepcopy(model), episodes, cap=2.0)
    assert new_metrics["samplerDriftMean"] == pytest.approx(drifts.mean(), rel=1e-5)
    assert new_metrics["samplerDriftMax"] == pytest.approx(drifts.max(), rel=1e-5)


def test_the_staleness_histogram_counts_loss_tokens_by_versions_behind_the_starting_weights(model):
    episodes = toy_batch(model, model.config.vocab_size)
    start = 5  # the update makes version 6 from version 5
    versioned, expected = [], {}
    for index, e in enumerate(episodes):
        # Sampled by versions 3 to 5 (an episode spans publishes), the first episode's one version older still.
        versions = [5 - t % 3 - (index == 0) if m else -1 for t, m in enumerate(e["lossMask"])]
        for v, m in zip(versions, e["lossMask"]):
            if m:
                expected[start - v] = expected.get(start - v, 0) + 1
        versioned.append({**e, "rolloutVersions": versions})
    histogram = [expected.get(lag, 0) for lag in range(max(expected) + 1)]
    metrics = PolicyTrainer(copy.deepcopy(model), OPTIMIZER, step=start).train_step(
        versioned, loss_config=DEFAULT_LOSS, optimizer_config=OPTIMIZER, micro_batch_size=4
    )
    print(f"staleness histogram (loss tokens by lag): {metrics['stalenessHistogram']}")
    assert metrics["stalenessHistogram"] == histogram and sum(histogram) == metrics["tokens"]
    assert metrics["stalenessMean"] == pytest.approx(sum(lag * n for lag, n in enumerate(histogram)) / sum(histogram))
    assert metrics["stalenessMax"] == len(histogram) - 1 == 3
