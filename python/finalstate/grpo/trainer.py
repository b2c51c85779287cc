"""One GRPO update over a whole batch, in micro-batches whose accumulated gradient equals the full-batch gradient."""

from __future__ import annotations

import contextlib
import math
import time
from collections.abc import Callable

import torch

from .batch import EpisodeTensors, UnusableBatchError, check_episodes, episode_advantages, episodes_to_tensors
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
        progress: Progress | None = None,
    ) -> dict:
        """Apply one update on `episodes` (TrainingEpisode dicts); return the PolicyUpdateMetrics fields.

        Raises UnusableBatchError before touching the weights when the batch or its loss is unusable.
        """
        started = time.perf_counter()
        metrics = self.accumulate_gradients(episodes, loss_config=loss_config, micro_batch_size=micro_batch_size, progress=progress)
        apply_optimizer_config(self.optimizer, optimizer_config)
        grad_norm = float(torch.nn.utils.clip_grad_norm_(self.model.parameters(), optimizer_config["maxGradNorm"]))
        if not math.isfinite(grad_norm):
            self.optimizer.zero_grad(set_to_none=True)
            raise UnusableBatchError(f"the gradient norm is {grad_norm} (not finite); no update applied")
        self.optimizer.step()
        self.optimizer.zero_grad(set_to_none=True)
        if self.device.type == "cuda":
            torch.cuda.synchronize(self.device)
        elapsed = max(time.perf_counter() - started, 1e-9)
        self.step += 1
        all_tokens = metrics.pop("allTokens")
        return {**metrics, "gradNorm": grad_norm, "tokensPerSecond": all_tokens / elapsed}

    def accumulate_gradients(
        self, episodes: list[dict], *, loss_config: dict, micro_batch_size: int, progress: Progress | None = None
    ) -> dict:
        """Leave in .grad the gradient of the whole batch's loss, computed micro-batch by micro-batch."""
        vocab_size = self.model.get_input_embeddings().weight.shape[0]
        check_episodes(episodes, where="batch", vocab_size=vocab_size)
        advantages = episode_advantages(episodes, eps=loss_config["eps"], normalize_std=loss_config["normalizeStd"])
        chunks = [episodes[i : i + micro_batch_size] for i in range(0, len(episodes), micro_batch_size)]
        chunk_advantages = advantages.split(micro_batch_size)
        # The whole batch's denominators, so that the micro-batch losses add up to the full-batch loss.
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
