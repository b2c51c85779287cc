"""Cutting a GRPO batch into mini-batches of whole groups, one optimizer step each."""

from __future__ import annotations

import random


def split_mini_batches(episodes: list[dict], groups_per_mini_batch: int | None, seed: str) -> list[list[int]]:
    """Episode indices per mini-batch. None: one mini-batch of the whole batch in its order. Otherwise the groups,
    in a random order drawn from `seed`, `groups_per_mini_batch` at a time; a group is never split, so every
    optimizer step sees both sides of each group's advantage."""
    if groups_per_mini_batch is None:
        return [list(range(len(episodes)))]
    if groups_per_mini_batch < 1:
        raise ValueError(f"groups per mini-batch must be at least 1, not {groups_per_mini_batch}")
    members: dict[str, list[int]] = {}
    for index, episode in enumerate(episodes):
        members.setdefault(episode["groupId"], []).append(index)
    order = list(members)
    random.Random(seed).shuffle(order)
    return [
        [index for group in order[start : start + groups_per_mini_batch] for index in members[group]]
        for start in range(0, len(order), groups_per_mini_batch)
    ]


def any_loss_tokens(episodes: list[dict], indices: list[int]) -> bool:
    return any(any(episodes[i]["lossMask"]) for i in indices)
