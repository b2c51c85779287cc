"""Test helpers: TrainingEpisode dicts with on-policy rollout log-probs from a given model."""

from __future__ import annotations

import torch

from finalstate.config import loss_config, optimizer_config

DEFAULT_LOSS = loss_config({"clipLow": 0.2, "clipHigh": 0.2, "klCoef": 0.0, "normalizeStd": True, "eps": 1e-6, "aggregation": "token-mean"})
DEFAULT_OPTIMIZER = optimizer_config({"lr": 1e-3, "weightDecay": 0.0, "betas": [0.9, 0.999], "eps": 1e-8, "maxGradNorm": 1.0})


@torch.no_grad()
def on_policy_episode(model, token_ids: list[int], prompt_len: int, *, reward: float, group: str, name: str) -> dict:
    ids = torch.tensor([token_ids])
    log_probs = torch.log_softmax(model(input_ids=ids).logits[0, :-1].float(), dim=-1)
    token_lp = log_probs.gather(-1, ids[0, 1:, None]).squeeze(-1)
    mask = [0] * prompt_len + [1] * (len(token_ids) - prompt_len)
    rollout = [0.0] + [float(lp) if m else 0.0 for lp, m in zip(token_lp.tolist(), mask[1:])]
    return {
        "episodeId": name,
        "taskId": f"task-{group}",
        "groupId": group,
        "tokenIds": token_ids,
        "lossMask": mask,
        "rolloutLogprobs": rollout,
        "reward": reward,
    }


def toy_batch(model, vocab_size: int, *, seed: int = 0) -> list[dict]:
    """Two groups of three episodes with different lengths and rewards."""
    generator = torch.Generator().manual_seed(seed)
    episodes = []
    for group, rewards in (("g0", [1.0, 0.0, 0.5]), ("g1", [0.0, 1.0, 1.0])):
        prompt = torch.randint(3, vocab_size, (4,), generator=generator).tolist()
        for index, reward in enumerate(rewards):
            completion = torch.randint(3, vocab_size, (3 + 2 * index,), generator=generator).tolist()
            episodes.append(on_policy_episode(model, prompt + completion, len(prompt), reward=reward, group=group, name=f"{group}-{index}"))
    return episodes


def completion_logprob(model, episode: dict) -> float:
    """Sum of the current model's log-probs of the episode's loss tokens."""
    fresh = on_policy_episode(model, episode["tokenIds"], episode["lossMask"].index(1), reward=0, group="x", name="x")
    return sum(fresh["rolloutLogprobs"])


def weights(model) -> dict:
    return {name: p.detach().clone() for name, p in model.named_parameters()}
