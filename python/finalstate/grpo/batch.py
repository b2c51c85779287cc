"""Loading a TrainingBatch file (schemas/training.ts) and checking its episodes (the tensors of a pass: passes.py)."""

from __future__ import annotations

import json
from pathlib import Path
from urllib.parse import unquote, urlparse

import numpy as np
import torch

from ..schemas import SchemaError, check_array_items, load_schema, validate
from .advantages import get_adv_estimator_fn, unlikeliness_rewards


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
    """The validated episodes of the TrainingBatch manifest at `uri`, each column a memory-mapped slice of the batch's
    arrays (so a batch far larger than one JSON string loads in bounded memory); every problem is an
    UnusableBatchError naming the file. An episode of a batch written before `rolloutVersions` existed has no such
    key: its versions are unknown."""
    path = uri_to_path(uri)
    try:
        raw = json.loads(path.read_text())
    except FileNotFoundError as err:
        raise UnusableBatchError(f"batch file {path} does not exist") from err
    except json.JSONDecodeError as err:
        raise UnusableBatchError(f"batch file {path} is not valid JSON: {err}") from err
    try:
        manifest = validate("TrainingBatch", raw, where=str(path))
        columns = {f: _load_column(path, f, manifest) for f in PER_TOKEN_FIELDS if f in manifest["arrays"]}
    except SchemaError as err:
        raise UnusableBatchError(str(err)) from err
    episodes = []
    for index, entry in enumerate(manifest["episodes"]):
        offset, length = entry.pop("offset"), entry.pop("length")
        if offset + length > manifest["tokens"]:
            raise UnusableBatchError(
                f"{path}: episode {index} ({entry['episodeId']}) ends at token {offset + length}, past the"
                f" {manifest['tokens']} tokens of the arrays"
            )
        episodes.append({**entry, **{f: column[offset : offset + length] for f, column in columns.items()}})
    check_episodes(episodes, where=str(path))
    return episodes


PER_TOKEN_FIELDS = ("tokenIds", "lossMask", "rolloutLogprobs", "rolloutVersions")


def _load_column(manifest_path: Path, field: str, manifest: dict) -> np.ndarray:
    """One per-token array, memory-mapped, checked against the manifest and TrainingEpisode's item bounds."""
    spec = manifest["arrays"][field]
    file = manifest_path.parent / spec["file"]
    try:
        array = np.load(file, mmap_mode="r", allow_pickle=False)
    except FileNotFoundError as err:
        raise SchemaError(f"{manifest_path}: array file {file} of {field} does not exist") from err
    except ValueError as err:
        raise SchemaError(f"{manifest_path}: array file {file} of {field} is not a .npy array: {err}") from err
    if array.ndim != 1 or array.dtype != np.dtype(spec["dtype"]).newbyteorder("<") or len(array) != manifest["tokens"]:
        raise SchemaError(
            f"{manifest_path}: {file.name} holds a {array.dtype} array of shape {array.shape}; the manifest says"
            f" {spec['dtype']} of ({manifest['tokens']},)"
        )
    items = load_schema("TrainingEpisode")["properties"][field]["items"]
    check_array_items(array, items, where=f"{manifest_path}: {field}")
    return array


def loss_tokens(episode: dict) -> int:
    return int(np.count_nonzero(episode["lossMask"]))


def check_episodes(episodes: list[dict], *, where: str, vocab_size: int | None = None) -> None:
    """What JSON Schema cannot say: aligned lengths, a non-empty loss mask, token ids inside the vocabulary."""
    total_loss_tokens = 0
    for index, episode in enumerate(episodes):
        n = len(episode["tokenIds"])
        label = f"{where}: episode {index} ({episode['episodeId']})"
        lengths = {f: len(episode[f]) for f in PER_TOKEN_FIELDS[1:] if f in episode}
        if any(length != n for length in lengths.values()):
            columns = ", ".join(f"{f} ({length})" for f, length in lengths.items())
            raise UnusableBatchError(f"{label}: {columns} must have one entry per token id ({n})")
        if episode["lossMask"][0] != 0:
            raise UnusableBatchError(f"{label}: lossMask[0] must be 0 (the first token has no prediction)")
        if vocab_size is not None:
            largest = int(np.max(episode["tokenIds"]))
            if largest >= vocab_size:
                raise UnusableBatchError(f"{label}: token id {largest} is outside the model's vocabulary ({vocab_size})")
        total_loss_tokens += loss_tokens(episode)
    if total_loss_tokens == 0:
        raise UnusableBatchError(f"{where}: the loss mask is empty (no episode has a token with lossMask 1)")


# The keys under which the trainer adds π_old's and the base policy's log-probs to an episode (aligned with tokenIds,
# as rolloutLogprobs).
OLD_LOG_PROBS = "oldLogprobs"
REF_LOG_PROBS = "refLogprobs"


def sequence_log_likelihood(episode: dict) -> float:
    """The rollout policy's log-likelihood of what the episode's policy wrote: its loss tokens' rollout log-probs."""
    mask = np.asarray(episode["lossMask"], dtype=bool)
    return float(np.asarray(episode["rolloutLogprobs"], dtype=np.float64)[mask].sum())


def episode_advantages(
    episodes: list[dict], *, eps: float, norm_adv_by_std_in_grpo: bool, pass_at_k: int | None = None, unlikeliness: float = 0.0
) -> torch.Tensor:
    """Each episode's advantage within its group: GRPO's ("grpo"), with `unlikeliness` above 0 on the unlikeliness
    reward's rewards, or with `pass_at_k` set the analytic pass@k advantage ("pass_at_k"; advantages.py)."""
    rewards = torch.tensor([float(e["reward"]) for e in episodes], dtype=torch.float64)
    groups = [e["groupId"] for e in episodes]
    if unlikeliness > 0:
        if pass_at_k is not None:
            raise ValueError("the unlikeliness reward and the pass@k advantage cannot be combined")
        likelihoods = torch.tensor([sequence_log_likelihood(e) for e in episodes], dtype=torch.float64)
        rewards = unlikeliness_rewards(rewards, groups, likelihoods, beta=unlikeliness)
    # The loss config names no estimator: passAtK null selects GRPO's, a k the pass@k one.
    estimator, options = ("grpo", {}) if pass_at_k is None else ("pass_at_k", {"k": pass_at_k})
    return get_adv_estimator_fn(estimator)(rewards, groups, eps=eps, norm_adv_by_std_in_grpo=norm_adv_by_std_in_grpo, **options)


ARRAY_FILES = {
    "tokenIds": ("token-ids", "int32"),
    "lossMask": ("loss-mask", "uint8"),
    "rolloutLogprobs": ("rollout-logprobs", "float32"),
    "rolloutVersions": ("rollout-versions", "int32"),
}


def write_batch(manifest_path: Path, episodes: list[dict]) -> Path:
    """A TrainingBatch manifest at `manifest_path` and its arrays beside it, as storage/training-batch.ts writes one
    (for tests and tools; the orchestrator writes the batches the trainer gets). Episodes without `rolloutVersions`
    make a batch without that array, as written before it existed."""
    offsets, entries = 0, []
    for episode in episodes:
        length = len(episode["tokenIds"])
        meta = {k: v for k, v in episode.items() if k not in PER_TOKEN_FIELDS}
        entries.append({**meta, "offset": offsets, "length": length})
        offsets += length
    arrays = {}
    for field, (suffix, dtype) in ARRAY_FILES.items():
        if not all(field in e for e in episodes):
            continue
        name = f"{manifest_path.stem}.{suffix}.npy"
        column = np.concatenate([np.asarray(e[field], dtype=dtype) for e in episodes])
        np.save(manifest_path.parent / name, column, allow_pickle=False)
        arrays[field] = {"file": name, "dtype": dtype, "length": int(column.size)}
    manifest = {"format": "finalstate-batch/1", "tokens": offsets, "episodes": entries, "arrays": arrays}
    manifest_path.write_text(json.dumps(manifest))
    return manifest_path
