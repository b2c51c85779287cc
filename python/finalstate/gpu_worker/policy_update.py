"""The policy update of one (campaign, step): idempotent, resumable, with the model kept in memory between steps.

Independent of Temporal, so it is tested directly; activity.py wraps it.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import torch
from transformers import AutoModelForCausalLM, AutoTokenizer

from ..grpo import PolicyTrainer, UnusableBatchError
from ..grpo.batch import load_batch
from ..schemas import SchemaError, validate
from .checkpoints import CheckpointStore

log = logging.getLogger(__name__)
Heartbeat = Callable[[dict], None]


class UnusableInputError(ValueError):
    """The activity input or the campaign's state cannot lead to an update; retrying will not help."""


@dataclass
class _Session:
    campaign_id: str
    checkpoint_dir: Path
    trainer: PolicyTrainer
    tokenizer: object | None


def default_device() -> torch.device:
    return torch.device("cuda") if torch.cuda.is_available() else torch.device("cpu")


class PolicyUpdater:
    """Holds one campaign's model and optimizer; a different campaign or an unexpected step reloads from disk."""

    def __init__(self, device: torch.device | None = None):
        self.device = device or default_device()
        self._session: _Session | None = None

    def run(self, raw_input: dict, heartbeat: Heartbeat = lambda _details: None) -> dict:
        try:
            request = validate("PolicyUpdateInput", raw_input, where="policyUpdate input")
        except SchemaError as err:
            raise UnusableInputError(str(err)) from err
        step = request["step"]
        store = CheckpointStore(request["checkpointDir"])
        stored = store.complete(step)
        if stored is not None:
            state = store.read_state(step)
            self._check_campaign(state, request, stored)
            log.info("policyUpdate %s step %d: complete checkpoint found, returning it", request["campaignId"], step)
            return _result(stored, step, state["metrics"], reused=True)

        heartbeat({"phase": "loading batch"})
        episodes = load_batch(request["batchUri"])
        session = self._session_at(request, store, step - 1)
        heartbeat({"phase": "training", "microBatches": 0})
        try:
            metrics = session.trainer.train_step(
                episodes,
                loss_config=request["loss"],
                optimizer_config=request["optimizer"],
                micro_batch_size=request["microBatchSize"],
                mini_batch_groups=request["miniBatchGroups"],
                shuffle_seed=f"{request['seed']}:{step}",
                progress=lambda done, total: heartbeat({"phase": "training", "microBatches": done, "of": total}),
            )
        except UnusableBatchError as err:
            if err.weights_changed:
                self._session = None  # part of the update was applied: reload step - 1 from its checkpoint next time
            raise
        except BaseException:
            self._session = None
            raise
        heartbeat({"phase": "writing checkpoint"})
        try:
            path = store.write(
                step,
                model=session.trainer.model,
                optimizer=session.trainer.optimizer,
                tokenizer=session.tokenizer,
                state={"campaignId": request["campaignId"], "batchUri": request["batchUri"], "metrics": metrics},
            )
        except BaseException:
            self._session = None  # the weights moved on but no checkpoint says so: reload on the next call
            raise
        return _result(path, step, metrics, reused=False)

    def _session_at(self, request: dict, store: CheckpointStore, step: int) -> _Session:
        """The trainer with `step` updates applied: the one in memory, the checkpoint of that step, or the base model."""
        checkpoint_dir = Path(request["checkpointDir"]).resolve()
        current = self._session
        if current and current.campaign_id == request["campaignId"] and current.checkpoint_dir == checkpoint_dir and current.trainer.step == step:
            return current
        self._session = None
        store.remove_temporaries()
        latest = store.latest_complete()
        if step == 0 and latest is None:
            source = Path(request["baseModel"])
            if not (source / "config.json").is_file():
                raise UnusableInputError(f"baseModel {source} is not a Hugging Face model directory (no config.json)")
        elif latest == step:
            source = store.path_for(step)
            self._check_campaign(store.read_state(step), request, source)
        else:
            have = "no checkpoint" if latest is None else f"its latest complete checkpoint is step {latest}"
            raise UnusableInputError(
                f"campaign {request['campaignId']}: step {step + 1} needs the checkpoint of step {step} in "
                f"{request['checkpointDir']}, but {have}"
            )
        log.info("loading policy from %s onto %s", source, self.device)
        model = AutoModelForCausalLM.from_pretrained(source, dtype=torch.float32)
        trainer = PolicyTrainer(model, request["optimizer"], step=step, device=self.device)
        if step > 0:
            store.load_optimizer_state(source, trainer.optimizer)
        tokenizer = _load_tokenizer(source)
        self._session = _Session(request["campaignId"], checkpoint_dir, trainer, tokenizer)
        return self._session

    @staticmethod
    def _check_campaign(state: dict, request: dict, path: Path) -> None:
        if state.get("campaignId") != request["campaignId"]:
            raise UnusableInputError(
                f"checkpoint {path} belongs to campaign {state.get('campaignId')!r}, not {request['campaignId']!r}"
            )


def _load_tokenizer(source: Path):
    """Checkpoints carry the tokenizer so the policy server can load them; a model dir without one is allowed."""
    try:
        return AutoTokenizer.from_pretrained(source)
    except (OSError, ValueError) as err:
        log.warning("no tokenizer in %s (%s); checkpoints will hold the model only", source, err)
        return None


def _result(path: Path, step: int, metrics: dict, *, reused: bool) -> dict:
    result = {"checkpointUri": path.resolve().as_uri(), "step": step, "reused": reused, "metrics": metrics}
    return validate("PolicyUpdateResult", result, where="policyUpdate result")
