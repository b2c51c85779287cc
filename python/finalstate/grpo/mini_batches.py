"""Cutting a GRPO batch into mini-batches of whole groups, one optimizer step each."""

from __future__ import annotations

import random

import numpy as np


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
    return any(np.any(episodes[i]["lossMask"]) for i in indices)


def plan_micro_batches(
    lengths: list[int], ranks: int, *, max_tokens: int | None, max_episodes: int | None, packed: bool = False
) -> list[list[list[int]]]:
    """Episode indices per rank, per forward/backward pass: `plan[rank][pass]`.

    The longest episodes are dealt first, each to the rank with the fewest tokens so far, so that the ranks' work is
    even. Each rank then fills passes of at most `max_tokens` tokens and `max_episodes` episodes, longest first:
    padded (rows times the longest row), the next episode joins the current pass or opens the next; packed (the sum
    of the lengths, grpo/passes.py), it joins the first pass it fits in. An episode longer than `max_tokens` makes a
    pass alone. None lifts a limit. Every rank computes the same plan from the same lengths, so no rank has to ask
    another."""
    if max_tokens is not None and max_tokens < 1:
        raise ValueError(f"micro-batch tokens must be at least 1, not {max_tokens}")
    if max_episodes is not None and max_episodes < 1:
        raise ValueError(f"micro-batch episodes must be at least 1, not {max_episodes}")
    order = sorted(range(len(lengths)), key=lambda i: (-lengths[i], i))
    shares: list[list[int]] = [[] for _ in range(ranks)]
    loads = [0] * ranks
    for index in order:
        rank = min(range(ranks), key=lambda r: (loads[r], r))
        shares[rank].append(index)
        loads[rank] += lengths[index]

    def fits(members: list[int], index: int) -> bool:
        rows = len(members) + 1
        tokens = sum(lengths[i] for i in members) + lengths[index] if packed else rows * lengths[members[0]]
        return (max_tokens is None or tokens <= max_tokens) and (max_episodes is None or rows <= max_episodes)

    plan = []
    for share in shares:
        passes: list[list[int]] = []
        for index in share:
            candidates = passes if packed else passes[-1:]
            target = next((members for members in candidates if fits(members, index)), None)
            if target is None:
                passes.append([index])
            else:
                target.append(index)
        plan.append(passes)
    return plan


def pass_count(plan: list[list[list[int]]]) -> int:
    """Passes every rank makes: each pass gathers parameters and reduces gradients together, so a rank whose share has
    run out makes passes that train on nothing."""
    return max(1, max(len(passes) for passes in plan))
