"""The tensors of one forward/backward pass, padded or packed, and a sequence-parallel rank's share of them.

Every tensor is [rows, positions], and position j of a row describes the prediction of its target: the next token of
the same episode. Two layouts:
- padded: one episode a row, right-padded to the longest. Causal attention alone keeps every real token from the
  padding after it, so no attention mask is needed;
- packed: the episodes back to back in one row, each with positions from 0, and attention kept inside each episode
  (`segments`, grpo/attention.py): no padding at all.
The last position of each episode (and every padding position) has no target: its mask is 0. `episode` and `token`
say where each position comes from, so that per-token results can be written back to the episodes (the recomputed
π_old, the base policy's log-probs) and the sequence-mean aggregation can divide by each episode's loss tokens (`sequence_tokens`).
"""

from __future__ import annotations

from dataclasses import dataclass, fields, replace

import numpy as np
import torch

from .batch import OLD_LOG_PROBS, REF_LOG_PROBS


@dataclass(frozen=True)
class PassTensors:
    input_ids: torch.Tensor
    position_ids: torch.Tensor
    targets: torch.Tensor  # the token each position predicts; 0 where there is none
    response_mask: torch.Tensor  # 1 where the target is trained on (its lossMask)
    old_log_prob: torch.Tensor  # the ratio's reference: π_old (OLD_LOG_PROBS) or the rollout's
    rollout_log_prob: torch.Tensor  # what the sampler returned (old_log_prob itself without π_old)
    advantages: torch.Tensor  # the episode's advantage on every position
    sequence_tokens: torch.Tensor  # the loss tokens of the position's episode
    episode: torch.Tensor  # index of the position's episode in the pass, -1 on padding
    token: torch.Tensor  # index of the position's token in its episode
    segments: tuple[int, ...] | None = None  # packed: the lengths of the episodes along the row, in order
    ref_log_prob: torch.Tensor | None = None  # the base policy's (REF_LOG_PROBS), when the episodes carry them

    @property
    def real(self) -> torch.Tensor:
        """1 on the positions of an episode's tokens, 0 on padding."""
        return self.episode >= 0

    def to(self, device: torch.device) -> PassTensors:
        moved = {f.name: getattr(self, f.name).to(device) for f in fields(self) if isinstance(getattr(self, f.name), torch.Tensor)}
        if self.rollout_log_prob is self.old_log_prob:
            moved["rollout_log_prob"] = moved["old_log_prob"]
        return replace(self, **moved)

    def shard(self, rank: int, size: int) -> PassTensors:
        """Sequence-parallel rank `rank` of `size`: its contiguous slice of every row's positions, the rows padded to
        a multiple of `size` first. `segments` keeps describing the whole row (attention sees it whole)."""
        if size == 1:
            return self
        length = self.input_ids.shape[1]
        padded = -(-length // size) * size
        extra = padded - length
        step = padded // size

        def part(tensor: torch.Tensor, fill) -> torch.Tensor:
            if extra:
                tensor = torch.cat([tensor, tensor.new_full((tensor.shape[0], extra), fill)], dim=1)
            return tensor[:, rank * step : (rank + 1) * step]

        fills = {"episode": -1, "position_ids": 0}
        sliced = {f.name: part(getattr(self, f.name), fills.get(f.name, 0)) for f in fields(self) if isinstance(getattr(self, f.name), torch.Tensor)}
        if self.rollout_log_prob is self.old_log_prob:
            sliced["rollout_log_prob"] = sliced["old_log_prob"]
        segments = self.segments if self.segments is None or not extra else (*self.segments, extra)
        return replace(self, **sliced, segments=segments)


def _columns(episode: dict, index: int, advantage: float, recomputed: bool, referenced: bool) -> dict[str, np.ndarray]:
    """One episode's positions: position j predicts token j + 1."""
    ids = np.asarray(episode["tokenIds"], dtype=np.int64)
    n = len(ids)

    def shifted(values, dtype) -> np.ndarray:
        out = np.zeros(n, dtype=dtype)
        out[:-1] = np.asarray(values, dtype=dtype)[1:]
        return out

    mask = shifted(episode["lossMask"], np.float32)
    columns = {
        "input_ids": ids,
        "position_ids": np.arange(n, dtype=np.int64),
        "targets": shifted(ids, np.int64),
        "response_mask": mask,
        "rollout_log_prob": shifted(episode["rolloutLogprobs"], np.float32),
        "advantages": np.full(n, advantage, dtype=np.float32),
        "sequence_tokens": np.full(n, mask.sum(), dtype=np.float32),
        "episode": np.full(n, index, dtype=np.int64),
        "token": np.arange(n, dtype=np.int64),
    }
    if recomputed:
        columns["old_log_prob"] = shifted(episode[OLD_LOG_PROBS], np.float32)
    if referenced:
        columns["ref_log_prob"] = shifted(episode[REF_LOG_PROBS], np.float32)
    return columns


def pass_tensors(episodes: list[dict], advantages: torch.Tensor, *, packed: bool) -> PassTensors:
    """The pass of `episodes` (each with its advantage), packed into one row or padded one episode a row."""
    recomputed = all(OLD_LOG_PROBS in e for e in episodes)
    referenced = all(REF_LOG_PROBS in e for e in episodes)
    per_episode = [_columns(e, i, float(a), recomputed, referenced) for i, (e, a) in enumerate(zip(episodes, advantages.tolist()))]
    lengths = [len(c["input_ids"]) for c in per_episode]
    names = per_episode[0].keys()
    if packed:
        rows = {name: torch.from_numpy(np.concatenate([c[name] for c in per_episode]))[None] for name in names}
        segments = tuple(lengths)
    else:
        width = max(lengths)
        rows = {}
        for name in names:
            fill = -1 if name == "episode" else 0
            row = np.full((len(episodes), width), fill, dtype=per_episode[0][name].dtype)
            for r, c in enumerate(per_episode):
                row[r, : lengths[r]] = c[name]
            rows[name] = torch.from_numpy(row)
        segments = None
    if not recomputed:
        rows["old_log_prob"] = rows["rollout_log_prob"]
    return PassTensors(**rows, segments=segments)


def write_back(values: torch.Tensor, batch: PassTensors, episodes: list[dict], key: str) -> list[dict]:
    """Copies of `episodes` (the pass's, in its order) with `key` a per-token column aligned with tokenIds: the value
    of the position that predicts token i at i, 0 where this rank computed none (the first token, another
    sequence-parallel rank's positions)."""
    values = values.detach().float().cpu().numpy().reshape(-1)
    episode = batch.episode.cpu().numpy().reshape(-1)
    token = batch.token.cpu().numpy().reshape(-1)
    written = []
    for index, source in enumerate(episodes):
        n = len(source["tokenIds"])
        column = np.zeros(n, dtype=np.float32)
        at = (episode == index) & (token + 1 < n)
        column[token[at] + 1] = values[at]
        written.append({**source, key: column})
    return written
