"""The unlikeliness reward (update.loss.unlikeliness, He et al., arXiv 2506.02355): within a group that both passed and
failed, a pass the rollout policy found likely is rewarded less than one it found unlikely, so GRPO's push goes most to
the rare ways of passing."""

import pytest
import torch

from finalstate.config import loss_config
from finalstate.grpo import PolicyTrainer, compute_grpo_outcome_advantage, unlikeliness_rewards
from finalstate.grpo.batch import episode_advantages, sequence_log_likelihood

from episodes import DEFAULT_OPTIMIZER, completion_logprob, on_policy_episode


def test_passes_are_rewarded_by_rank_and_the_rarest_pass_gets_the_largest_advantage():
    rewards = torch.tensor([1.0, 0.0, 1.0, 0.0, 1.0, 0.0, 0.0, 0.0])
    likelihoods = torch.tensor([-3.0, -1.0, -9.0, -2.0, -5.0, -20.0, -4.0, -6.0])
    # by likelihood, most likely first: 1 (fail), 3 (fail), 0 (pass, rank 2), 6, 4 (pass, rank 4), 7, 2 (pass, rank 6), 5
    shaped = unlikeliness_rewards(rewards, ["g"] * 8, likelihoods, beta=0.25)
    expected = [1 - 0.25 * 6 / 8, 0, 1 - 0.25 * 2 / 8, 0, 1 - 0.25 * 4 / 8, 0, 0, 0]
    assert torch.allclose(shaped, torch.tensor(expected, dtype=torch.float64))
    advantages = compute_grpo_outcome_advantage(shaped, ["g"] * 8)
    assert advantages[2] > advantages[4] > advantages[0] > 0 > advantages[1], advantages
    plain = compute_grpo_outcome_advantage(rewards, ["g"] * 8)
    assert plain[0] == plain[2] == plain[4], "GRPO gives every pass the same advantage, however likely"


def test_a_group_without_a_comparison_a_lone_pass_and_other_groups_are_left_alone():
    rewards = torch.tensor([1.0, 1.0, 1.0, 0.0, 0.0, 1.0, 0.0, 0.0])
    likelihoods = torch.tensor([-1.0, -2.0, -3.0, -1.0, -2.0, -9.0, -1.0, -5.0])
    groups = ["all", "all", "all", "none", "none", "one", "one", "one"]
    shaped = unlikeliness_rewards(rewards, groups, likelihoods, beta=0.5)
    assert torch.equal(shaped[:5], rewards[:5].double()), "all passed, or none: nothing to compare"
    assert shaped[5] == 1 - 0.5 * 1 / 3, "the least likely of three"
    # A lone pass's shaped reward only rescales its group, which the std normalisation undoes.
    assert torch.allclose(
        compute_grpo_outcome_advantage(shaped, groups)[5:], compute_grpo_outcome_advantage(rewards, groups)[5:], atol=1e-5
    )
    with pytest.raises(ValueError, match="outside \\[0, 1\\]"):
        unlikeliness_rewards(rewards, groups, likelihoods, beta=1.5)


def _episode(name: str, logprobs: list[float], reward: float) -> dict:
    return {
        "episodeId": name,
        "groupId": "g",
        "reward": reward,
        "lossMask": [0, 1, 1, 0, 1],
        "rolloutLogprobs": [0.0, *logprobs],
    }


def test_the_payload_setting_ranks_by_the_rollout_log_probs_of_the_policys_own_tokens():
    loss = loss_config({"unlikeliness": 0.25})
    assert loss.unlikeliness == 0.25 and loss_config().unlikeliness == 0, "off by default"
    likely = _episode("likely", [-0.1, -0.1, -50.0, -0.1], 1.0)  # -50 is on a user token (mask 0): not the policy's
    rare = _episode("rare", [-2.0, -2.0, 0.0, -2.0], 1.0)
    failed = _episode("failed", [-1.0, -1.0, 0.0, -1.0], 0.0)
    assert sequence_log_likelihood(likely) == pytest.approx(-0.3)
    got = episode_advantages([likely, rare, failed], eps=loss.epsilon, norm_adv_by_std_in_grpo=True, unlikeliness=loss.unlikeliness)
    assert got[1] > got[0] > 0 > got[2]
    with pytest.raises(ValueError, match="cannot be combined"):
        episode_advantages([likely, rare, failed], eps=1e-6, norm_adv_by_std_in_grpo=True, pass_at_k=2, unlikeliness=0.25)


def test_the_trainer_lifts_the_rare_pass_more_than_grpo_does(tiny_model_dir):
    from transformers import AutoModelForCausalLM

    def rise(loss: dict) -> tuple[float, float]:
        torch.manual_seed(0)
        model = AutoModelForCausalLM.from_pretrained(tiny_model_dir).float()
        prompt = [5, 17, 42, 8]
        candidates = [
            on_policy_episode(model, [*prompt, 60 + i, 61 + i, 62], len(prompt), reward=0.0, group="g", name=f"e{i}") for i in range(6)
        ]
        ordered = sorted(candidates, key=sequence_log_likelihood, reverse=True)
        common, rare = ordered[0], ordered[-1]
        group = [{**common, "reward": 1.0}, {**rare, "reward": 1.0}, *ordered[1:-1]]
        before = [completion_logprob(model, e) for e in (common, rare)]
        trainer = PolicyTrainer(model, DEFAULT_OPTIMIZER)
        trainer.train_step(group, loss_config=loss_config(loss), optimizer_config=DEFAULT_OPTIMIZER, micro_batch_size=6)
        after = [completion_logprob(trainer.model, e) for e in (common, rare)]
        return after[0] - before[0], after[1] - before[1]

    grpo_common, grpo_rare = rise({})
    unlikely_common, unlikely_rare = rise({"unlikeliness": 0.5})
    # Measured: GRPO lifts the common pass's log-likelihood by 0.71 and the rare one's by 1.48; β = 0.5, by 0.12 and 1.57.
    assert unlikely_common < grpo_common and unlikely_rare - unlikely_common > grpo_rare - grpo_common, (
        grpo_common,
        grpo_rare,
        unlikely_common,
        unlikely_rare,
    )
