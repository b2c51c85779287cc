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


def plan_micro_batches(lengths: list[int], ranks: int, *, max_tokens: int | None, max_episodes: int | None) -> list[list[list[int]]]:
    """Episode indices per rank, per forward/backward pass: `plan[rank][pass]`.

    The longest episodes are dealt first, each to the rank with the fewest tokens so far, so that the ranks' work is
    even. Each rank then packs its episodes, longest first, into passes of at most `max_tokens` padded tokens (rows
    times the longest row) and `max_episodes` episodes; an episode longer than `max_tokens` makes a pass alone.
    None lifts a limit. Every rank computes the same plan from the same lengths, so no rank has to ask another."""
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
    plan = []
    for share in shares:
        passes: list[list[int]] = []
        for index in share:
            current = passes[-1] if passes else None
            if current is not None:
                rows = len(current) + 1
                fits_tokens = max_tokens is None or rows * lengths[current[0]] <= max_tokens
                fits_rows = max_episodes is None or rows <= max_episodes
                if fits_tokens and fits_rows:
                    current.append(index)
                    continue
            passes.append([index])
        plan.append(passes)
    return plan


def pass_count(plan: list[list[list[int]]]) -> int:
    """Passes every rank makes: each pass gathers parameters and reduces gradients together, so a rank whose share has
    run out makes passes that train on nothing."""
    return max(1, max(len(passes) for passes in plan))
