"""Loading a TrainingBatch file (schemas/training.ts) and turning its episodes into padded tensors."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import unquote, urlparse

import torch

from ..schemas import SchemaError, check_array_items, load_schema, validate
from .advantages import compute_grpo_outcome_advantage


class UnusableBatchError(ValueError):
    """The batch cannot be trained on (bad shape, no loss tokens, non-finite loss): retrying will not help.

    `weights_changed` is True when earlier mini-batches of the same update had already been applied."""

    weights_changed: bool = False


def uri_to_path(uri: str) -> Path:
    """A file:// URI or a plain path as a local path."""
    parsed = urlparse(uri)
    if parsed.scheme == "file":
        return Path(unquote(parsed.path))
    if parsed.scheme in ("", None) or len(parsed.scheme) == 1:  # a Windows drive letter reads as a scheme
        return Path(uri)
    raise UnusableBatchError(f"batch URI {uri!r}: only file:// URIs and plain paths are supported")


def load_batch(uri: str) -> list[dict]:
    """The validated episodes of the TrainingBatch at `uri`; every problem is an UnusableBatchError naming the file."""
    path = uri_to_path(uri)
    try:
        raw = json.loads(path.read_text())
    except FileNotFoundError as err:
        raise UnusableBatchError(f"batch file {path} does not exist") from err
    except json.JSONDecodeError as err:
        raise UnusableBatchError(f"batch file {path} is not valid JSON: {err}") from err
    try:
        episodes = validate_training_batch(raw, where=str(path))
    except SchemaError as err:
        raise UnusableBatchError(str(err)) from err
    check_episodes(episodes, where=str(path))
    return episodes


PER_TOKEN_FIELDS = ("tokenIds", "lossMask", "rolloutLogprobs")


def validate_training_batch(raw, *, where: str) -> list[dict]:
    """Validate against TrainingBatch.schema.json. The per-token arrays reach jsonschema cut to their minimum
    length (so minItems and the first items are still checked there); all their items are checked in bulk
    against the same schema's `items`."""
    episodes = raw.get("episodes") if isinstance(raw, dict) else None
    if not isinstance(episodes, list) or not all(isinstance(e, dict) for e in episodes):
        return validate("TrainingBatch", raw, where=where)["episodes"]  # reports the shape error
    item_schemas = load_schema("TrainingBatch")["properties"]["episodes"]["items"]["properties"]
    keep = {f: max(1, item_schemas[f].get("minItems", 0)) for f in PER_TOKEN_FIELDS}
    skeleton = {
        **raw,
        "episodes": [{**e, **{f: e[f][: keep[f]] for f in PER_TOKEN_FIELDS if isinstance(e.get(f), list)}} for e in episodes],
    }
    validated = validate("TrainingBatch", skeleton, where=where)["episodes"]
    for index, (episode, full) in enumerate(zip(validated, episodes)):
        for f in PER_TOKEN_FIELDS:
            check_array_items(full[f], item_schemas[f]["items"], where=f"TrainingBatch in {where} at episodes/{index}/{f}")
            episode[f] = full[f]
    return validated


def check_episodes(episodes: list[dict], *, where: str, vocab_size: int | None = None) -> None:
    """What JSON Schema cannot say: aligned lengths, a non-empty loss mask, token ids inside the vocabulary."""
    total_loss_tokens = 0
    for index, episode in enumerate(episodes):
        n = len(episode["tokenIds"])
        label = f"{where}: episode {index} ({episode['episodeId']})"
        if len(episode["lossMask"]) != n or len(episode["rolloutLogprobs"]) != n:
            raise UnusableBatchError(
                f"{label}: lossMask ({len(episode['lossMask'])}) and rolloutLogprobs ({len(episode['rolloutLogprobs'])})"
                f" must have one entry per token id ({n})"
            )
        if episode["lossMask"][0] != 0:
            raise UnusableBatchError(f"{label}: lossMask[0] must be 0 (the first token has no prediction)")
        if vocab_size is not None:
            too_big = [t for t in episode["tokenIds"] if t >= vocab_size]
            if too_big:
                raise UnusableBatchError(f"{label}: token id {too_big[0]} is outside the model's vocabulary ({vocab_size})")
        total_loss_tokens += sum(episode["lossMask"])
    if total_loss_tokens == 0:
        raise UnusableBatchError(f"{where}: the loss mask is empty (no episode has a token with lossMask 1)")


@dataclass
class EpisodeTensors:
    """Right-padded [batch, tokens] tensors, each position describing the prediction of token i from tokens < i."""

    input_ids: torch.Tensor
    attention_mask: torch.Tensor
    response_mask: torch.Tensor  # [batch, tokens-1]: 1 where token i+1 is trained on
    old_log_prob: torch.Tensor  # [batch, tokens-1]
    advantages: torch.Tensor  # [batch, tokens-1], the episode's advantage on every position

    def to(self, device: torch.device) -> EpisodeTensors:
        return EpisodeTensors(*(t.to(device) for t in (self.input_ids, self.attention_mask, self.response_mask, self.old_log_prob, self.advantages)))


def episodes_to_tensors(episodes: list[dict], advantages: torch.Tensor) -> EpisodeTensors:
    length = max(len(e["tokenIds"]) for e in episodes)
    size = (len(episodes), length)
    input_ids = torch.zeros(size, dtype=torch.long)
    attention_mask = torch.zeros(size, dtype=torch.long)
    loss_mask = torch.zeros(size, dtype=torch.float32)
    old_log_prob = torch.zeros(size, dtype=torch.float32)
    for row, episode in enumerate(episodes):
        n = len(episode["tokenIds"])
        input_ids[row, :n] = torch.tensor(episode["tokenIds"], dtype=torch.long)
        attention_mask[row, :n] = 1
        loss_mask[row, :n] = torch.tensor(episode["lossMask"], dtype=torch.float32)
        old_log_prob[row, :n] = torch.tensor(episode["rolloutLogprobs"], dtype=torch.float32)
    return EpisodeTensors(
        input_ids=input_ids,
        attention_mask=attention_mask,
        response_mask=loss_mask[:, 1:],
        old_log_prob=old_log_prob[:, 1:],
        advantages=advantages.to(torch.float32)[:, None].expand(-1, length - 1).contiguous(),
    )


def episode_advantages(episodes: list[dict], *, eps: float, norm_adv_by_std_in_grpo: bool) -> torch.Tensor:
    rewards = torch.tensor([float(e["reward"]) for e in episodes], dtype=torch.float64)
    return compute_grpo_outcome_advantage(rewards, [e["groupId"] for e in episodes], eps=eps, norm_adv_by_std_in_grpo=norm_adv_by_std_in_grpo)
