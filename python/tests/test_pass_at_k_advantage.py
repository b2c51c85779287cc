"""The analytic pass@k advantage (update.loss.passAtK) against its definition, enumerated: every k-subset of a group
scores 1 when any of its episodes passed, the subsets' scores are normalised, and an episode's advantage is the mean of
the subsets that hold it."""

import itertools
import math

import pytest
import torch

from finalstate.config import loss_config
from finalstate.grpo import PolicyTrainer, compute_grpo_outcome_advantage, compute_pass_at_k_advantage
from finalstate.grpo.batch import episode_advantages

from episodes import DEFAULT_OPTIMIZER, on_policy_episode, weights


def _enumerated(passed: list[int], k: int, eps: float) -> list[float]:
    subsets = list(itertools.combinations(range(len(passed)), k))
    scores = [float(any(passed[i] for i in s)) for s in subsets]
    mean = sum(scores) / len(scores)
    std = math.sqrt(sum((x - mean) ** 2 for x in scores) / len(scores))
    normalised = [(x - mean) / (std + eps) for x in scores]
    return [sum(a for s, a in zip(subsets, normalised) if i in s) / sum(1 for s in subsets if i in s) for i in range(len(passed))]


@pytest.mark.parametrize("k", [1, 2, 4, 8])
@pytest.mark.parametrize("passes", range(0, 9))
def test_the_analytic_form_is_the_mean_over_enumerated_subsets(k, passes):
    passed = [1] * passes + [0] * (8 - passes)
    got = compute_pass_at_k_advantage(torch.tensor(passed, dtype=torch.float32), ["g"] * 8, k=k, eps=1e-6)
    assert torch.allclose(got, torch.tensor(_enumerated(passed, k, 1e-6), dtype=torch.float32), atol=1e-5), (k, passes)


def test_k_1_is_grpo_with_the_population_std_and_a_larger_k_stops_pushing_a_task_solved_in_every_subset():
    rewards = torch.tensor([1.0, 1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0])
    centred = rewards - rewards.mean()
    assert torch.allclose(compute_pass_at_k_advantage(rewards, ["g"] * 8, k=1, eps=0.0), centred / rewards.std(unbiased=False))
    # GRPO and pass@1 disagree only in the std they divide by (verl's is the sample std).
    assert not torch.allclose(compute_grpo_outcome_advantage(rewards, ["g"] * 8), compute_pass_at_k_advantage(rewards, ["g"] * 8, k=1))
    # 6 passes of 8, k = 4: every 4-subset holds a pass, nothing to learn from this group.
    solved = torch.tensor([1.0] * 6 + [0.0] * 2)
    assert torch.equal(compute_pass_at_k_advantage(solved, ["g"] * 8, k=4), torch.zeros(8))
    assert compute_grpo_outcome_advantage(solved, ["g"] * 8)[0] > 0


def test_groups_are_apart_a_group_short_of_k_has_no_subset_and_a_non_binary_reward_is_refused():
    rewards = torch.tensor([1.0, 0.0, 1.0, 1.0, 0.0, 0.0, 0.0])
    got = compute_pass_at_k_advantage(rewards, ["a", "a", "b", "b", "c", "c", "d"], k=2)
    assert torch.equal(got, torch.zeros(7)), "a: the only 2-subset holds the pass; b all pass; c none; d alone"
    with pytest.raises(ValueError, match="every reward must be 0 or 1"):
        compute_pass_at_k_advantage(torch.tensor([0.5, 1.0]), ["a", "a"], k=1)
    short = compute_pass_at_k_advantage(torch.tensor([0.0, 1.0, 0.0, 0.0, 0.0, 1.0]), ["a", "a", "b", "b", "b", "b"], k=3)
    assert torch.equal(short[:2], torch.zeros(2)), "a has no 3-subset"
    assert short[5] > 0 > short[2], "b has"


def test_the_payload_setting_reaches_the_trainer_advantages():
    loss = loss_config({"passAtK": 4})
    assert loss.pass_at_k == 4
    episodes = [{"reward": float(i == 0), "groupId": "g"} for i in range(8)]
    got = episode_advantages(episodes, eps=loss.epsilon, norm_adv_by_std_in_grpo=True, pass_at_k=loss.pass_at_k)
    assert torch.allclose(got, torch.tensor(_enumerated([1] + [0] * 7, 4, loss.epsilon), dtype=torch.float32), atol=1e-5)
    assert loss_config().pass_at_k is None, "GRPO by default"


def test_the_trainer_reads_it_a_group_solved_in_every_subset_leaves_the_weights_unchanged(model):
    prompt = [5, 17, 42, 8]
    group = [
        on_policy_episode(model, [*prompt, 60 + i, 61, 62], len(prompt), reward=float(i < 2), group="g", name=f"e{i}")
        for i in range(3)
    ]
    before = weights(model)
    trainer = PolicyTrainer(model, DEFAULT_OPTIMIZER)
    metrics = trainer.train_step(group, loss_config=loss_config({"passAtK": 2}), optimizer_config=DEFAULT_OPTIMIZER, micro_batch_size=3)
    assert metrics["gradNorm"] == 0.0, "2 passes of 3: every 2-subset holds a pass"
    for name, value in weights(trainer.model).items():
        assert torch.equal(value, before[name]), name
    grpo = trainer.train_step(group, loss_config=loss_config(), optimizer_config=DEFAULT_OPTIMIZER, micro_batch_size=3)
    assert grpo["gradNorm"] > 0, "GRPO learns from the same group"
