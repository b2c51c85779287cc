"""The policy update of one (campaign, step): idempotent, resumable, with the model kept in memory between steps.

Rank 0 decides (input, idempotency, where the policy comes from, the batch), then hands the update to every rank;
all ranks run it in lockstep on the FSDP2-sharded model. Independent of Temporal, so it is tested directly;
activity.py wraps it.

Each step's checkpoint records the step's whole input (trainer_state.json), and the resumable state is written every
`checkpoints.every` steps. A worker that has not got step - 1 in memory loads the newest resumable state before it
(or the base model) and replays the steps since from their recorded inputs and batches: the same updates in the same
order, so the same weights.
"""

from __future__ import annotations

import contextlib
import logging
import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from transformers import AutoTokenizer

from ..config import PolicyUpdateRequest, parse_policy_update_input
from ..grpo import PolicyTrainer, UnusableBatchError
from ..grpo.batch import load_batch
from ..schemas import SchemaError, validate
from .checkpoints import SHARDED_DIR, STATE_FILE, CheckpointStore, export_dtype
from .loading import UnloadableModelError
from .process_group import GroupFailure, ProcessGroups
from .sharding import make_meshes
from .strategy import UpdateStrategy, update_strategy

log = logging.getLogger(__name__)
Heartbeat = Callable[[dict], None]  # reports the phase the update is in (activity.py heartbeats the latest)


class UnusableInputError(ValueError):
    """The activity input or the campaign's state cannot lead to an update; retrying will not help."""


@dataclass
class _Session:
    campaign_id: str
    checkpoint_dir: Path
    trainer: PolicyTrainer
    strategy: UpdateStrategy  # the one the model was built by
    tokenizer: object | None
    storage: Any  # the gloo group the ranks wait on while a checkpoint is written (None at world size 1)


@dataclass(frozen=True)
class _Replay:
    """A step re-run from what its checkpoint recorded, to rebuild the weights after the last resumable state."""

    request: PolicyUpdateRequest
    episodes: list[dict]
    recorded: dict  # the metrics the step reported when it first ran


@dataclass(frozen=True)
class _Plan:
    """What rank 0 sends every rank: the update, and where the policy of `step - 1` comes from."""

    request: PolicyUpdateRequest
    strategy: UpdateStrategy
    payload: dict  # the validated input, defaults filled in: what the checkpoint records to replay the step
    episodes: list[dict]
    source: str | None  # None: the session in memory; else a base-model or checkpoint directory
    resume: bool  # load the sharded training state of `source`
    replays: tuple[_Replay, ...] = ()  # then re-run these steps, in order, before this one


class PolicyUpdater:
    """Holds one campaign's sharded model and optimizer; a different campaign or an unexpected step reloads from disk."""

    def __init__(self, groups: ProcessGroups):
        self.groups = groups
        self.device = groups.device
        self._session: _Session | None = None

    # ---- rank 0 -------------------------------------------------------------------------------------------------

    def run(self, raw_input: dict, heartbeat: Heartbeat = lambda _details: None) -> dict:
        """Rank 0: one policyUpdate call. Raises UnusableInputError / UnusableBatchError (not retryable) and
        GroupFailure (a rank failed: retry once the ranks have restarted)."""
        try:
            payload = validate("PolicyUpdateInput", raw_input, where="policyUpdate input")
            request = parse_policy_update_input(payload)
        except SchemaError as err:
            raise UnusableInputError(str(err)) from err
        store = CheckpointStore(request.checkpoint_dir)
        stored = store.complete(request.step)
        if stored is not None:
            state = store.read_state(request.step)
            self._check_campaign(state, request, stored)
            log.info("policyUpdate %s step %d: complete checkpoint found, returning it", request.campaign_id, request.step)
            # A retried or replayed step may have stopped between its checkpoint and its pruning.
            store.prune(request.step, request.retention, request.needed_exports)
            return _result(stored, request.step, state["metrics"], state.get("stalenessHistogram"), reused=True)

        heartbeat({"phase": "loading batch"})
        episodes = load_batch(request.batch_uri)
        strategy = update_strategy(request)
        source, resume, replays = self._source(request, strategy, store)
        return self._execute(_Plan(request, strategy, payload, episodes, source, resume, replays), heartbeat)

    def stop_followers(self) -> None:
        """Rank 0: tell the other ranks to exit (a clean shutdown)."""
        if self.groups.world_size > 1:
            self.groups.broadcast(None)

    def _source(
        self, request: PolicyUpdateRequest, strategy: UpdateStrategy, store: CheckpointStore
    ) -> tuple[str | None, bool, tuple[_Replay, ...]]:
        """Where the policy of step - 1 comes from: memory; or the newest resumable state up to it (else the base
        model) and the steps after that state, to replay."""
        step = request.step - 1
        current = self._session
        if current and self._holds(current, request, step):
            return None, False, ()
        store.remove_temporaries()
        latest = store.latest_complete()
        if latest != step and not (step == 0 and latest is None):
            have = "no checkpoint" if latest is None else f"its latest complete checkpoint is step {latest}"
            raise UnusableInputError(
                f"campaign {request.campaign_id}: step {step + 1} needs the checkpoint of step {step} in "
                f"{request.checkpoint_dir}, but {have}"
            )
        if step > 0:
            self._check_campaign(store.read_state(step), request, store.path_for(step))
            if (held := strategy.foreign_export(store.path_for(step))) is not None:
                raise UnusableInputError(
                    f"campaign {request.campaign_id}: step {step + 1} asks for {strategy.name}, but the checkpoint of step {step} "
                    f"({store.path_for(step)}) holds {held}: a campaign keeps update.lora as it started"
                )
        origin = store.latest_resumable(step)  # None: no resumable state yet, the steps replay from the base model
        replays = tuple(self._replay(store, replayed, request) for replayed in range((origin or 0) + 1, step + 1))
        if origin is not None:
            return str(store.path_for(origin)), True, replays
        source = Path(request.base_model)
        if not (source / "config.json").is_file():
            raise UnusableInputError(f"baseModel {source} is not a Hugging Face model directory (no config.json)")
        return str(source), False, replays

    def _replay(self, store: CheckpointStore, step: int, request: PolicyUpdateRequest) -> _Replay:
        """Step `step` as its checkpoint recorded it: its input and its batch, checked before anything is loaded."""
        path = store.path_for(step)
        if store.complete(step) is None:
            raise UnusableInputError(
                f"campaign {request.campaign_id}: step {request.step} replays step {step} (no resumable state since), "
                f"but {path} is not a complete checkpoint"
            )
        state = store.read_state(step)
        self._check_campaign(state, request, path)
        if "input" not in state:
            raise UnusableInputError(
                f"checkpoint {path} has no sharded training state ({SHARDED_DIR}/) and records no input to replay its "
                "step from: it was written before the sharded update; continue from it with a fresh campaign whose "
                "baseModel is this directory"
            )
        try:
            recorded = parse_policy_update_input(state["input"], where=f"{path}/{STATE_FILE} input")
            episodes = load_batch(recorded.batch_uri)
        except (SchemaError, UnusableBatchError) as err:
            raise UnusableInputError(f"campaign {request.campaign_id}: step {request.step} cannot replay step {step}: {err}") from err
        return _Replay(recorded, episodes, state["metrics"])

    # ---- every rank ---------------------------------------------------------------------------------------------

    def follow(self) -> None:
        """Ranks 1..N-1: run each update rank 0 hands over, until it says stop (or the group breaks)."""
        while True:
            plan = self.groups.broadcast()
            if plan is None:
                return
            # Every rank saw the same input; rank 0 reports it.
            with contextlib.suppress(UnusableBatchError, UnusableInputError):
                self._execute(plan, lambda _details: None)

    def _execute(self, plan: _Plan, heartbeat: Heartbeat) -> dict:
        groups = self.groups
        if groups.is_rank0:
            groups.broadcast(plan)
        request = plan.request
        try:
            heartbeat({"phase": "loading policy"})
            session = self._session_for(plan)
            for replay in plan.replays:
                heartbeat({"phase": "replaying", "step": replay.request.step})
                self._replay_step(session, replay)
            heartbeat({"phase": "training", "microBatches": 0})
            if groups.is_rank0:
                log.info("policyUpdate %s step %d: %d episodes on %d rank(s)", request.campaign_id, request.step, len(plan.episodes), groups.world_size)
            log.info("rank %d (pid %d): training step %d", groups.rank, os.getpid(), request.step)
            metrics = _train(
                session.trainer,
                request,
                plan.episodes,
                progress=lambda done, total: heartbeat({"phase": "training", "microBatches": done, "of": total}),
            )
            histogram = metrics.pop("stalenessHistogram", None)
            if plan.replays:
                metrics["replayedSteps"] = len(plan.replays)
            heartbeat({"phase": "writing checkpoint"})
            store = CheckpointStore(request.checkpoint_dir)
            state = {"campaignId": request.campaign_id, "batchUri": request.batch_uri, "metrics": metrics, "input": plan.payload}
            path = store.write(
                request.step,
                groups=groups,
                storage=session.storage,
                trainer=session.trainer,
                strategy=session.strategy,
                tokenizer=session.tokenizer,
                state=state if histogram is None else {**state, "stalenessHistogram": histogram},
                dtype=export_dtype(request.fsdp.export_dtype, self.device),
                resumable=request.checkpoints.writes_resumable_state(request.step),
            )
            if groups.is_rank0:
                heartbeat({"phase": "pruning checkpoints"})
                store.prune(request.step, request.retention, request.needed_exports)
        except UnusableBatchError as err:
            if err.weights_changed:
                self._session = None  # part of the update was applied: reload step - 1 from its checkpoint next time
            raise
        except UnusableInputError:
            self._session = None
            raise
        except BaseException as err:
            self._session = None  # the weights may have moved on without a checkpoint saying so: reload next time
            if groups.world_size > 1 and isinstance(err, Exception):
                raise GroupFailure(f"{groups}: the sharded update of step {request.step} failed: {err}") from err
            raise
        return _result(path, request.step, metrics, histogram, reused=False)

    def _replay_step(self, session: _Session, replay: _Replay) -> None:
        """Re-run a recorded step on the session's trainer. Its figures should repeat what it reported: a difference
        means the update is not reproducible here (another device or kernels), so it is logged, not fatal."""
        step = replay.request.step
        log.info("%s: replaying step %d from %s", self.groups, step, replay.request.batch_uri)
        try:
            metrics = _train(session.trainer, replay.request, replay.episodes)
        except UnusableBatchError as err:
            raise UnusableInputError(f"replaying step {step} failed: {err}") from err
        differs = {k: (metrics[k], replay.recorded.get(k)) for k in REPRODUCED_METRICS if metrics[k] != replay.recorded.get(k)}
        if differs and self.groups.is_rank0:
            log.warning("replayed step %d reports other figures than when it ran (replayed, recorded): %s", step, differs)

    def _session_for(self, plan: _Plan) -> _Session:
        request = plan.request
        if plan.source is None:
            current = self._session
            if current is None or not self._holds(current, request, request.step - 1):
                raise GroupFailure(f"{self.groups}: rank 0 holds the policy of step {request.step - 1} in memory but this rank does not")
            return current
        self._session = None
        source, strategy = Path(plan.source), plan.strategy
        model_dir = strategy.model_dir(source)
        log.info("%s: loading policy from %s", self.groups, source)
        try:
            meshes = make_meshes(self.device, self.groups.world_size, self.groups.local_world_size, request.fsdp)
            model = strategy.sharded_model(model_dir, meshes, request.fsdp)
        except ValueError as err:
            raise UnusableInputError(str(err)) from err
        trained = sum(p.numel() for p in model.parameters() if p.requires_grad)
        export_bytes = export_dtype(request.fsdp.export_dtype, self.device).itemsize * trained
        storage = self.groups.storage_group(12 * trained / self.groups.world_size + export_bytes)
        start = plan.replays[0].request.step - 1 if plan.replays else request.step - 1
        trainer = PolicyTrainer(model, request.optim, step=start, device=self.device, ranks=meshes.ranks)
        try:
            strategy.load_weights(model, model_dir, self.groups, resume=plan.resume)
            if request.loss.kl_to_base:
                trainer.base_policy = strategy.base_policy(model, meshes, request.fsdp, self.groups)
        except UnloadableModelError as err:
            raise UnusableInputError(str(err)) from err
        if plan.resume:
            CheckpointStore.load_training_state(source, trainer, storage, strategy)
        self._session = _Session(
            request.campaign_id, Path(request.checkpoint_dir).resolve(), trainer, strategy, _load_tokenizer(model_dir), storage
        )
        return self._session

    @staticmethod
    def _holds(session: _Session, request: PolicyUpdateRequest, step: int) -> bool:
        return (
            session.campaign_id == request.campaign_id
            and session.checkpoint_dir == Path(request.checkpoint_dir).resolve()
            and session.trainer.step == step
        )

    @staticmethod
    def _check_campaign(state: dict, request: PolicyUpdateRequest, path: Path) -> None:
        if state.get("campaignId") != request.campaign_id:
            raise UnusableInputError(
                f"checkpoint {path} belongs to campaign {state.get('campaignId')!r}, not {request.campaign_id!r}"
            )


def _load_tokenizer(source: Path):
    """Checkpoints carry the tokenizer so the policy server can load them; a model dir without one is allowed."""
    try:
        return AutoTokenizer.from_pretrained(source)
    except (OSError, ValueError) as err:
        log.warning("no tokenizer in %s (%s); checkpoints will hold the model only", source, err)
        return None


# The figures a replayed step must repeat exactly when the update is reproducible (not its speed).
REPRODUCED_METRICS = ("loss", "gradNorm", "clipFraction", "entropy", "approxKl", "tokens", "optimizerSteps")


def _train(trainer: PolicyTrainer, request: PolicyUpdateRequest, episodes: list[dict], progress=None) -> dict:
    return trainer.train_step(
        episodes,
        loss_config=request.loss,
        optimizer_config=request.optim,
        micro_batch_tokens=request.micro_batch_tokens,
        micro_batch_size=request.ppo_micro_batch_size_per_gpu,
        mini_batch_groups=request.mini_batch_groups,
        packed=request.use_remove_padding,
        shuffle_seed=request.shuffle_seed,
        progress=progress,
    )


def _result(path: Path, step: int, metrics: dict, histogram: list[int] | None, *, reused: bool) -> dict:
    result = {"checkpointUri": path.resolve().as_uri(), "step": step, "reused": reused, "metrics": metrics}
    if histogram is not None:
        result["stalenessHistogram"] = histogram
    return validate("PolicyUpdateResult", result, where="policyUpdate result")
