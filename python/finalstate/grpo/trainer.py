"""The update of one GRPO step: one AdamW step per mini-batch, each computed in micro-batches whose accumulated
gradient equals the mini-batch gradient. Under a process group (FSDP2, gpu_worker/sharding.py) each rank trains on
its share of every mini-batch and the loss is normalised over the whole mini-batch, so W ranks compute the
gradient one process would. Micro-batches are cut by tokens (and optionally by episodes): the memory of a pass grows
with its tokens, not its episodes; a pass is padded or packed (grpo/passes.py), and with sequence parallelism a
group of ranks shares each pass, every rank holding a slice of its positions (grpo/attention.py). The log-probs come
from the final hidden states through the chunked head (grpo/log_probs.py): no pass holds its logits. With the
off-policy correction (loss offPolicyCorrection 'tis') the update first recomputes π_old, the log-probs of its
starting weights, without gradients. The loss of each pass, its terms chosen by name, is core_algos.compute_loss."""

from __future__ import annotations

import contextlib
import math
import time
from collections.abc import Callable
from dataclasses import dataclass

import torch
from torch.distributed.fsdp import FSDPModule

from ..config import LossConfig, OptimizerConfig
from .attention import AttentionLayout, use_trainer_attention
from .batch import OLD_LOG_PROBS, REF_LOG_PROBS, UnusableBatchError, check_episodes, episode_advantages
from .batch import loss_tokens as count_loss_tokens
from .clipping import clip_grad_norm
from .core_algos import AggNormaliser, compute_loss, compute_rollout_is_weights
from .log_probs import linear_log_probs
from .mini_batches import any_loss_tokens, pass_count, plan_micro_batches, split_mini_batches
from .passes import PassTensors, pass_tensors, write_back
from .ranks import Ranks
from .reference import BasePolicy
from .staleness import staleness_histogram, staleness_metrics

Progress = Callable[[int, int], None]


def autocast_for(device: torch.device, model: torch.nn.Module):
    """bf16 autocast on CUDA for a plain model (fp32 master weights); an FSDP2 model casts through its
    MixedPrecisionPolicy instead; plain fp32 elsewhere."""
    if device.type == "cuda" and not isinstance(model, FSDPModule):
        return torch.autocast("cuda", dtype=torch.bfloat16)
    return contextlib.nullcontext()


def token_log_probs(model: torch.nn.Module, batch: PassTensors, ranks: Ranks | None = None) -> tuple[torch.Tensor, torch.Tensor]:
    """(log p(target of position i | its episode's tokens <= i), the entropy of position i's distribution), both fp32
    and shaped like the pass's tensors. `batch` is this rank's share of the pass (PassTensors.shard) when `ranks`
    are sequence-parallel.

    The model runs without its output layer: a hook hands the output layer the final hidden states of no position
    and keeps them all for the chunked head, which computes the logits chunk by chunk (grpo/log_probs.py). The model
    itself still runs whole, so that FSDP2 gathers and reduces its root parameters (the output layer among them)
    as it does for any forward."""
    use_trainer_attention(model)
    head = model.get_output_embeddings()
    kept: list[torch.Tensor] = []

    def keep_hidden(_module, args):
        kept.append(args[0])
        return (args[0][..., :0, :], *args[1:])

    sequence = ranks if ranks is not None and ranks.sequence_parallel > 1 else None
    layout = AttentionLayout(
        segments=batch.segments,
        group=sequence.sequence_group if sequence else None,
        size=sequence.sequence_parallel if sequence else 1,
    )
    hook = head.register_forward_pre_hook(keep_hidden)
    try:
        model(input_ids=batch.input_ids, position_ids=batch.position_ids, use_cache=False, attention_layout=layout)
    finally:
        hook.remove()
    return linear_log_probs(kept[0], head.weight, batch.targets)


def build_optimizer(model: torch.nn.Module, config: OptimizerConfig) -> torch.optim.AdamW:
    return torch.optim.AdamW(
        [p for p in model.parameters() if p.requires_grad],
        lr=config.lr,
        betas=config.betas,
        eps=config.eps,
        weight_decay=config.weight_decay,
    )


def apply_optimizer_config(optimizer: torch.optim.Optimizer, config: OptimizerConfig) -> None:
    """Hyper-parameters may change between steps (a schedule lives in the orchestrator)."""
    for group in optimizer.param_groups:
        group.update(lr=config.lr, betas=config.betas, eps=config.eps, weight_decay=config.weight_decay)


def _without_loss(episode: dict) -> dict:
    """A copy of `episode` that trains on nothing: the pass a rank makes when its share has run out."""
    n = len(episode["tokenIds"])
    return {**episode, "lossMask": [0] * n, "rolloutLogprobs": [0.0] * n}


@dataclass(frozen=True)
class _Plan:
    """The passes of a mini-batch: episode indices per data-parallel group, per pass; and their layout."""

    passes: list[list[list[int]]]
    packed: bool


class PolicyTrainer:
    """A causal LM and its AdamW optimizer, kept in memory across steps; `step` counts completed updates."""

    def __init__(
        self,
        model: torch.nn.Module,
        optimizer_config: OptimizerConfig,
        *,
        step: int = 0,
        device: torch.device | None = None,
        ranks: Ranks | None = None,
        base_policy: BasePolicy | None = None,
    ):
        """`ranks`: the ranks and their sequence-parallel groups (gpu_worker/sharding.py); default every rank of the
        process group, without sequence parallelism. `base_policy`: what a loss with klReference "base" keeps the
        policy near (grpo/reference.py)."""
        self.device = device or next(model.parameters()).device
        self.model = model if isinstance(model, FSDPModule) else model.to(self.device)
        use_trainer_attention(self.model)
        self.optimizer = build_optimizer(self.model, optimizer_config)
        self.ranks = ranks or Ranks.current(self.device)
        self.step = step
        self.base_policy = base_policy

    def train_step(
        self,
        episodes: list[dict],
        *,
        loss_config: LossConfig,
        optimizer_config: OptimizerConfig,
        micro_batch_tokens: int | None = None,
        micro_batch_size: int | None = None,
        mini_batch_groups: int | None = None,
        packed: bool = False,
        shuffle_seed: str = "0",
        progress: Progress | None = None,
    ) -> dict:
        """Apply the update of one GRPO step on `episodes` (TrainingEpisode dicts); return the PolicyUpdateMetrics fields,
        plus "stalenessHistogram" when the batch records versions.

        Every rank is given the whole batch and trains on its share. A forward/backward pass holds at most
        `micro_batch_tokens` tokens on each rank (padded, or `packed`: grpo/passes.py) and `micro_batch_size`
        episodes (None: no limit); an episode longer than the token limit is a pass of its own. With sequence
        parallelism S ranks share a pass, which then holds up to S x `micro_batch_tokens` tokens. With `mini_batch_groups` unset the whole batch is one AdamW step.
        Otherwise the groups are shuffled (seeded by `shuffle_seed`, so a replayed step repeats its update exactly)
        and cut into mini-batches of that many whole groups, one AdamW step each, as verl's ppo_mini_batch_size
        does: later mini-batches are off-policy and the clipped ratio bounds how far they move. Advantages are
        computed once, over the whole batch.

        With `loss_config.rollout_is` "tis", the log-probs of the starting weights (π_old) are recomputed first, in
        the passes that will train on them, and the loss is the truncated-importance-weighted one (core_algos.py).

        Raises UnusableBatchError when the batch or its loss is unusable (on every rank alike); its
        `weights_changed` says whether an earlier mini-batch had already been applied.
        """
        started = time.perf_counter()
        advantages = self._checked_advantages(episodes, loss_config)
        mini_batches = [m for m in split_mini_batches(episodes, mini_batch_groups, shuffle_seed) if any_loss_tokens(episodes, m)]
        plans = [self._plan([episodes[i] for i in m], micro_batch_tokens, micro_batch_size, packed) for m in mini_batches]
        training_passes = sum(pass_count(plan.passes) for plan in plans)
        recompute = loss_config.recomputes_old_log_prob
        micro_total = training_passes * (1 + recompute + loss_config.kl_to_base)
        micro_done = 0

        def micro_progress(done: int, _total: int) -> None:
            if progress:
                progress(micro_done + done, micro_total)

        apply_optimizer_config(self.optimizer, optimizer_config)
        histogram = staleness_histogram(episodes, self.step)
        off_policy: dict = {}
        if recompute:
            episodes, off_policy = self._recompute_old_log_prob(episodes, mini_batches, plans, loss_config, progress=micro_progress)
            micro_done = training_passes
        if loss_config.kl_to_base:
            episodes = self._base_log_probs(episodes, mini_batches, plans, progress=micro_progress)
            micro_done += training_passes
        totals = {"loss": 0.0, "clipFraction": 0.0, "entropy": 0.0, "approxKl": 0.0, "gradNorm": 0.0}
        all_tokens = 0
        for index, (members, plan) in enumerate(zip(mini_batches, plans)):
            part = [episodes[i] for i in members]
            # Without the recompute, the first mini-batch's passes are the only ones that run on the starting weights.
            measure_drift = index == 0 and not recompute
            try:
                metrics = self._accumulate(
                    part, advantages[members], plan, loss_config=loss_config, progress=micro_progress, measure_drift=measure_drift
                )
            except UnusableBatchError as err:
                err.weights_changed = index > 0
                raise
            grad_norm = clip_grad_norm(self.model.parameters(), optimizer_config.grad_clip, self.ranks)
            if not math.isfinite(grad_norm):
                self.optimizer.zero_grad(set_to_none=True)
                where = "" if len(mini_batches) == 1 else f" of mini-batch {index + 1}/{len(mini_batches)}"
                err = UnusableBatchError(f"the gradient norm{where} is {grad_norm} (not finite); no further update applied")
                err.weights_changed = index > 0
                raise err
            self.optimizer.step()
            self.optimizer.zero_grad(set_to_none=True)
            micro_done += pass_count(plan.passes)
            if measure_drift:
                off_policy = {"samplerDriftMean": metrics["drift"] / max(metrics["tokens"], 1), "samplerDriftMax": metrics["driftMax"]}
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
        loss_tokens = float(sum(map(count_loss_tokens, episodes)))
        return {
            "loss": totals["loss"],
            "gradNorm": totals["gradNorm"],
            "clipFraction": totals["clipFraction"] / loss_tokens,
            "entropy": totals["entropy"] / loss_tokens,
            "approxKl": totals["approxKl"] / loss_tokens,
            "tokens": int(loss_tokens),
            "optimizerSteps": len(mini_batches),
            "tokensPerSecond": all_tokens / elapsed,
            **staleness_metrics(histogram),
            **off_policy,
            **({} if histogram is None else {"stalenessHistogram": histogram}),
        }

    def accumulate_gradients(
        self,
        episodes: list[dict],
        *,
        loss_config: LossConfig,
        micro_batch_tokens: int | None = None,
        micro_batch_size: int | None = None,
        packed: bool = False,
        progress: Progress | None = None,
    ) -> dict:
        """Leave in .grad the gradient of the whole batch's loss, computed micro-batch by micro-batch (after the
        recompute of π_old, with the off-policy correction)."""
        advantages = self._checked_advantages(episodes, loss_config)
        plan = self._plan(episodes, micro_batch_tokens, micro_batch_size, packed)
        if loss_config.recomputes_old_log_prob:
            episodes, _ = self._recompute_old_log_prob(episodes, [list(range(len(episodes)))], [plan], loss_config)
        if loss_config.kl_to_base:
            episodes = self._base_log_probs(episodes, [list(range(len(episodes)))], [plan])
        return self._accumulate(episodes, advantages, plan, loss_config=loss_config, progress=progress)

    def _plan(self, episodes: list[dict], micro_batch_tokens: int | None, micro_batch_size: int | None, packed: bool) -> _Plan:
        """The passes of each sequence-parallel group (of each rank without sequence parallelism): a group's pass
        holds sequence_parallel x micro_batch_tokens tokens, split between its ranks."""
        lengths = [len(e["tokenIds"]) for e in episodes]
        budget = None if micro_batch_tokens is None else micro_batch_tokens * self.ranks.sequence_parallel
        passes = plan_micro_batches(lengths, self.ranks.data_size, max_tokens=budget, max_episodes=micro_batch_size, packed=packed)
        return _Plan(passes, packed)

    def _checked_advantages(self, episodes: list[dict], loss_config: LossConfig) -> torch.Tensor:
        """Reject a batch the model cannot train on, then compute each episode's advantage within its group."""
        check_episodes(episodes, where="batch", vocab_size=self.model.get_input_embeddings().weight.shape[0])
        return episode_advantages(
            episodes,
            eps=loss_config.epsilon,
            norm_adv_by_std_in_grpo=loss_config.norm_adv_by_std_in_grpo,
            pass_at_k=loss_config.pass_at_k,
            unlikeliness=loss_config.unlikeliness,
        )

    def _passes(self, episodes: list[dict], plan: _Plan, advantages: torch.Tensor | None = None):
        """This rank's passes over `episodes` in `plan`: (members: indices into `episodes`, the episodes, this rank's
        PassTensors on the device) per pass, every rank making the common number of passes (FSDP gathers the
        parameters in each); a pass past this group's share trains on a copy of the shortest episode without loss
        tokens. `advantages`: one per episode of `episodes` (None: zeros, for a pass without a loss)."""
        mine = plan.passes[self.ranks.data_rank]
        for index in range(pass_count(plan.passes)):
            members = mine[index] if index < len(mine) else []
            chunk = [episodes[i] for i in members] or [_without_loss(min(episodes, key=lambda e: len(e["tokenIds"])))]
            chunk_adv = advantages[members] if members and advantages is not None else torch.zeros(len(chunk))
            batch = pass_tensors(chunk, chunk_adv, packed=plan.packed).shard(self.ranks.sequence_rank, self.ranks.sequence_parallel)
            yield members, chunk, batch.to(self.device)

    def _write_per_pass(
        self, episodes: list[dict], mini_batches: list[list[int]], plans: list[_Plan], key: str, compute, progress: Progress | None = None
    ) -> list[dict]:
        """Copies of `episodes` with `key` a per-token column of `compute(batch)` (computed without gradients), for
        each episode this rank trains on, in the passes that will train them: the same plan, model mode and layout,
        and with sequence parallelism this rank's own slice of their positions, so no rank needs another rank's."""
        written = list(episodes)
        done, total = 0, sum(pass_count(plan.passes) for plan in plans)
        for mini_batch, plan in zip(mini_batches, plans):
            part = [episodes[i] for i in mini_batch]
            for members, chunk, batch in self._passes(part, plan):
                with torch.no_grad():
                    values = compute(batch)
                for member, episode in zip(members, write_back(values, batch, chunk, key)):
                    written[mini_batch[member]] = episode
                del values
                done += 1
                if progress:
                    progress(done, total)
        return written

    def _base_log_probs(self, episodes: list[dict], mini_batches: list[list[int]], plans: list[_Plan], progress: Progress | None = None) -> list[dict]:
        """The base policy's log-probs (REF_LOG_PROBS) added to each episode this rank trains on, for the KL to the
        base (loss klReference "base")."""
        if self.base_policy is None:
            raise ValueError('the loss has klReference "base" but the trainer was given no base policy (grpo/reference.py)')
        base = self.base_policy

        def base_log_prob(batch: PassTensors) -> torch.Tensor:
            with base.model() as model, autocast_for(self.device, model):
                return token_log_probs(model, batch, self.ranks)[0]

        return self._write_per_pass(episodes, mini_batches, plans, REF_LOG_PROBS, base_log_prob, progress)

    def _recompute_old_log_prob(
        self,
        episodes: list[dict],
        mini_batches: list[list[int]],
        plans: list[_Plan],
        loss_config: LossConfig,
        progress: Progress | None = None,
    ) -> tuple[list[dict], dict]:
        """π_old: the log-probs of the weights the update starts from, added to each episode this rank trains on
        (OLD_LOG_PROBS), and the figures of the correction (PolicyUpdateMetrics samplerDrift*, isWeight*). Computed
        in the passes that will train them, so the training forward of the first mini-batch gives exactly these
        numbers."""
        self.model.train()
        threshold = loss_config.rollout_is_threshold
        sums = {"drift": 0.0, "ratio": 0.0, "truncated": 0.0}
        maxima = {"drift": 0.0, "ratio": 0.0}

        def old_log_prob(batch: PassTensors) -> torch.Tensor:
            with autocast_for(self.device, self.model):
                log_prob, _ = token_log_probs(self.model, batch, self.ranks)
            mask = batch.response_mask.bool()
            if mask.any():
                _, ratio = compute_rollout_is_weights(log_prob, batch.rollout_log_prob, batch.response_mask, rollout_is_threshold=threshold)
                drift = (log_prob - batch.rollout_log_prob).abs()[mask]
                sums["drift"] += float(drift.sum())
                sums["ratio"] += float(ratio[mask].sum())
                sums["truncated"] += float((ratio[mask] > threshold).sum())
                maxima["drift"] = max(maxima["drift"], float(drift.max()))
                maxima["ratio"] = max(maxima["ratio"], float(ratio[mask].max()))
            return log_prob

        with_old = self._write_per_pass(episodes, mini_batches, plans, OLD_LOG_PROBS, old_log_prob, progress)
        drift_sum, ratio_sum, truncated = self.ranks.sum([sums["drift"], sums["ratio"], sums["truncated"]])
        drift_max, ratio_max = self.ranks.max([maxima["drift"], maxima["ratio"]])
        tokens = max(float(sum(map(count_loss_tokens, episodes))), 1.0)
        return with_old, {
            "samplerDriftMean": drift_sum / tokens,
            "samplerDriftMax": drift_max,
            "isWeightMean": ratio_sum / tokens,
            "isWeightMax": ratio_max,
            "isTruncatedFraction": truncated / tokens,
        }

    def _accumulate(
        self,
        episodes: list[dict],
        advantages: torch.Tensor,
        plan: _Plan,
        *,
        loss_config: LossConfig,
        progress: Progress | None = None,
        measure_drift: bool = False,
    ) -> dict:
        passes = pass_count(plan.passes)
        # The denominators of all of `episodes` (every rank's share), so that the micro-batch losses add up to their loss.
        whole = AggNormaliser(
            tokens=float(sum(map(count_loss_tokens, episodes))),
            sequences=float(sum(1 for e in episodes if count_loss_tokens(e) > 0)),
        )

        self.model.train()
        self.optimizer.zero_grad(set_to_none=True)
        totals = {"loss": 0.0, "clipped": 0.0, "entropy": 0.0, "kl": 0.0, "tokens": 0.0, "drift": 0.0}
        drift_max = 0.0
        for index, (members, _chunk, batch) in enumerate(self._passes(episodes, plan, advantages)):
            filler = not members
            with autocast_for(self.device, self.model):
                log_prob, entropy = token_log_probs(self.model, batch, self.ranks)
            loss, clipfrac, kl = compute_loss(batch, log_prob, entropy, loss_config, whole)
            if not self.ranks.all_true(bool(torch.isfinite(loss))):
                self.optimizer.zero_grad(set_to_none=True)
                raise UnusableBatchError(f"the loss of micro-batch {index} is not finite on some rank (here {loss.item()}); no update applied")
            # FSDP averages gradients over the ranks; each rank's loss is its part of the whole sum.
            (loss * self.ranks.size).backward()
            with torch.no_grad():
                mask = batch.response_mask.bool()
                totals["loss"] += float(loss)
                totals["clipped"] += float(clipfrac) * float(mask.sum())
                totals["kl"] += float(kl[mask].sum())
                totals["entropy"] += float(entropy[mask].sum())
                if not filler:
                    totals["tokens"] += float(batch.real.sum())
                if measure_drift and mask.any():
                    drift = (log_prob.detach() - batch.rollout_log_prob)[mask].abs()
                    totals["drift"] += float(drift.sum())
                    drift_max = max(drift_max, float(drift.max()))
            del log_prob, entropy, loss
            if progress:
                progress(index + 1, passes)

        keys = ("loss", "clipped", "kl", "entropy", "tokens", "drift")
        loss_sum, clipped, kl_sum, entropy_sum, all_tokens, drift_sum = self.ranks.sum([totals[k] for k in keys])
        loss_tokens = max(whole.tokens, 1.0)
        return {
            "loss": loss_sum,
            "clipFraction": clipped / loss_tokens,
            "entropy": entropy_sum / loss_tokens,
            "approxKl": kl_sum / loss_tokens,
            "tokens": int(whole.tokens),
            "allTokens": int(all_tokens),
            "drift": drift_sum,
            "driftMax": self.ranks.max([drift_max])[0] if measure_drift else 0.0,
        }
