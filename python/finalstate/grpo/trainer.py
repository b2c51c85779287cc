"""The update of one GRPO step: one AdamW step per mini-batch, each computed in micro-batches whose accumulated
gradient equals the mini-batch gradient."""

from __future__ import annotations

import contextlib
import math
import time
from collections.abc import Callable

import torch

from .batch import EpisodeTensors, UnusableBatchError, check_episodes, episode_advantages, episodes_to_tensors
from .mini_batches import any_loss_tokens, split_mini_batches
from .core_algos import AggNormaliser, agg_loss, compute_policy_loss, entropy_from_logprobs, kl_penalty_k3

Progress = Callable[[int, int], None]


def autocast_for(device: torch.device):
    """bf16 autocast on CUDA (fp32 master weights and optimizer state); plain fp32 elsewhere."""
    if device.type == "cuda":
        return torch.autocast("cuda", dtype=torch.bfloat16)
    return contextlib.nullcontext()


def token_log_probs(model: torch.nn.Module, batch: EpisodeTensors) -> tuple[torch.Tensor, torch.Tensor]:
    """(log p(token i+1 | tokens <= i) as [batch, tokens-1], full-vocabulary log-probs [batch, tokens-1, vocab])."""
    logits = model(input_ids=batch.input_ids, attention_mask=batch.attention_mask, use_cache=False).logits
    log_probs_all = torch.log_softmax(logits[:, :-1].float(), dim=-1)
    targets = batch.input_ids[:, 1:].unsqueeze(-1)
    return log_probs_all.gather(-1, targets).squeeze(-1), log_probs_all


def build_optimizer(model: torch.nn.Module, config: dict) -> torch.optim.AdamW:
    return torch.optim.AdamW(
        [p for p in model.parameters() if p.requires_grad],
        lr=config["lr"],
        betas=tuple(config["betas"]),
        eps=config["eps"],
        weight_decay=config["weightDecay"],
    )


def apply_optimizer_config(optimizer: torch.optim.Optimizer, config: dict) -> None:
    """Hyper-parameters may change between steps (a schedule lives in the orchestrator)."""
    for group in optimizer.param_groups:
        group.update(lr=config["lr"], betas=tuple(config["betas"]), eps=config["eps"], weight_decay=config["weightDecay"])


class PolicyTrainer:
    """A causal LM and its AdamW optimizer, kept in memory across steps; `step` counts completed updates."""

    def __init__(self, model: torch.nn.Module, optimizer_config: dict, *, step: int = 0, device: torch.device | None = None):
        self.device = device or next(model.parameters()).device
        self.model = model.to(self.device)
        self.optimizer = build_optimizer(self.model, optimizer_config)
        self.step = step

    def train_step(
        self,
        episodes: list[dict],
        *,
        loss_config: dict,
        optimizer_config: dict,
        micro_batch_size: int,
        mini_batch_groups: int | None = None,
        shuffle_seed: str = "0",
        progress: Progress | None = None,
    ) -> dict:
        """Apply the update of one GRPO step on `episodes` (TrainingEpisode dicts); return the PolicyUpdateMetrics fields.

        With `mini_batch_groups` unset the whole batch is one AdamW step. Otherwise the groups are shuffled (seeded by
        `shuffle_seed`, so a replayed step repeats its update exactly) and cut into mini-batches of that many whole
        groups, one AdamW step each, as verl's ppo_mini_batch_size does: later mini-batches are off-policy and the
        clipped ratio bounds how far they move. Advantages are computed once, over the whole batch.

        Raises UnusableBatchError when the batch or its loss is unusable; its `weights_changed` says whether an
        earlier mini-batch had already been applied.
        """
        started = time.perf_counter()
        advantages = self._checked_advantages(episodes, loss_config)
        mini_batches = [m for m in split_mini_batches(episodes, mini_batch_groups, shuffle_seed) if any_loss_tokens(episodes, m)]
        micro_total = sum(math.ceil(len(m) / micro_batch_size) for m in mini_batches)
        micro_done = 0

        def micro_progress(done: int, _total: int) -> None:
            if progress:
                progress(micro_done + done, micro_total)

        apply_optimizer_config(self.optimizer, optimizer_config)
        totals = {"loss": 0.0, "clipFraction": 0.0, "entropy": 0.0, "approxKl": 0.0, "gradNorm": 0.0}
        all_tokens = 0
        for index, members in enumerate(mini_batches):
            part = [episodes[i] for i in members]
            try:
                metrics = self._accumulate(part, advantages[members], loss_config=loss_config, micro_batch_size=micro_batch_size, progress=micro_progress)
            except UnusableBatchError as err:
                err.weights_changed = index > 0
                raise
            grad_norm = float(torch.nn.utils.clip_grad_norm_(self.model.parameters(), optimizer_config["maxGradNorm"]))
            if not math.isfinite(grad_norm):
                self.optimizer.zero_grad(set_to_none=True)
                where = "" if len(mini_batches) == 1 else f" of mini-batch {index + 1}/{len(mini_batches)}"
                err = UnusableBatchError(f"the gradient norm{where} is {grad_norm} (not finite); no further update applied")
                err.weights_changed = index > 0
                raise err
            self.optimizer.step()
            self.optimizer.zero_grad(set_to_none=True)
            micro_done += math.ceil(len(part) / micro_batch_size)
            # Token-weighted over the whole batch, so one mini-batch gives the same figures as before mini-batches.
            weight = metrics["tokens"]
            for key in ("clipFraction", "entropy", "approxKl"):
                totals[key] += metrics[key] * weight
            totals["loss"] += metrics["loss"] / len(mini_batches)
            totals["gradNorm"] += grad_norm / len(mini_batches)
            all_tokens += metrics["allTokens"]
        if self.device.type == "cuda":
            torch.cuda.synchronize(self.device)
        elapsed = max(time.perf_counter() - started, 1e-9)
        self.step += 1
        loss_tokens = float(sum(sum(e["lossMask"]) for e in episodes))
        return {
            "loss": totals["loss"],
            "gradNorm": totals["gradNorm"],
            "clipFraction": totals["clipFraction"] / loss_tokens,
            "entropy": totals["entropy"] / loss_tokens,
            "approxKl": totals["approxKl"] / loss_tokens,
            "tokens": int(loss_tokens),
            "optimizerSteps": len(mini_batches),
            "tokensPerSecond": all_tokens / elapsed,
        }

    def accumulate_gradients(
        self, episodes: list[dict], *, loss_config: dict, micro_batch_size: int, progress: Progress | None = None
    ) -> dict:
        """Leave in .grad the gradient of the whole batch's loss, computed micro-batch by micro-batch."""
        advantages = self._checked_advantages(episodes, loss_config)
        return self._accumulate(episodes, advantages, loss_config=loss_config, micro_batch_size=micro_batch_size, progress=progress)

    def _checked_advantages(self, episodes: list[dict], loss_config: dict) -> torch.Tensor:
        """Reject a batch the model cannot train on, then compute each episode's advantage within its group."""
        check_episodes(episodes, where="batch", vocab_size=self.model.get_input_embeddings().weight.shape[0])
        return episode_advantages(episodes, eps=loss_config["eps"], normalize_std=loss_config["normalizeStd"])

    def _accumulate(
        self, episodes: list[dict], advantages: torch.Tensor, *, loss_config: dict, micro_batch_size: int, progress: Progress | None = None
    ) -> dict:
        chunks = [episodes[i : i + micro_batch_size] for i in range(0, len(episodes), micro_batch_size)]
        chunk_advantages = advantages.split(micro_batch_size)
        # The denominators of all of `episodes`, so that the micro-batch losses add up to their loss.
        whole = AggNormaliser(
            tokens=float(sum(sum(e["lossMask"]) for e in episodes)),
            sequences=float(sum(1 for e in episodes if any(e["lossMask"]))),
        )

        self.model.train()
        self.optimizer.zero_grad(set_to_none=True)
        totals = {"loss": 0.0, "clipped": 0.0, "entropy": 0.0, "kl": 0.0}
        all_tokens = 0
        for index, (chunk, chunk_adv) in enumerate(zip(chunks, chunk_advantages)):
            batch = episodes_to_tensors(chunk, chunk_adv).to(self.device)
            with autocast_for(self.device):
                log_prob, log_probs_all = token_log_probs(self.model, batch)
            pg_loss, clipfrac, _ = compute_policy_loss(
                batch.old_log_prob,
                log_prob,
                batch.advantages,
                batch.response_mask,
                clip_ratio_low=loss_config["clipLow"],
                clip_ratio_high=loss_config["clipHigh"],
                loss_agg_mode=loss_config["aggregation"],
                normaliser=whole,
            )
            kl = kl_penalty_k3(log_prob, batch.old_log_prob)
            loss = pg_loss
            if loss_config["klCoef"] > 0:
                loss = loss + loss_config["klCoef"] * agg_loss(kl, batch.response_mask, loss_config["aggregation"], whole)
            if not torch.isfinite(loss):
                self.optimizer.zero_grad(set_to_none=True)
                raise UnusableBatchError(f"the loss of micro-batch {index} is {loss.item()} (not finite); no update applied")
            loss.backward()
            with torch.no_grad():
                mask = batch.response_mask.bool()
                chunk_tokens = float(mask.sum())
                totals["loss"] += float(loss)
                totals["clipped"] += float(clipfrac) * chunk_tokens
                totals["kl"] += float(kl[mask].sum())
                totals["entropy"] += float(entropy_from_logprobs(log_probs_all[mask]).sum())
                all_tokens += int(batch.attention_mask.sum())
            del log_probs_all, log_prob, loss
            if progress:
                progress(index + 1, len(chunks))

        loss_tokens = max(whole.tokens, 1.0)
        return {
            "loss": totals["loss"],
            "clipFraction": totals["clipped"] / loss_tokens,
            "entropy": totals["entropy"] / loss_tokens,
            "approxKl": totals["kl"] / loss_tokens,
            "tokens": int(whole.tokens),
            "allTokens": all_tokens,
        }
