"""Write `LogMetricsInput` payloads (schemas/tracking.ts) with the trackers' own client libraries.

TensorBoard: `tensorboard.summary.Writer` appends event files to `<dir>/<campaignId>`; a resumed campaign (a new
worker process) adds a new event file to the same run directory, which TensorBoard reads as one run.

Weights & Biases: each call opens the run whose id is derived from the campaign id with `resume="allow"`, logs at
the campaign's step, and finishes it, so nothing is left open when the worker exits and a resumed campaign continues
the same run. In offline mode nothing touches the network; `wandb sync <dir>/wandb/offline-run-*` uploads later.
"""

from __future__ import annotations

import hashlib
import os
import re
import threading
from pathlib import Path
from typing import Any

from ..schemas import validate


def wandb_run_id(campaign_id: str) -> str:
    """W&B run ids allow letters, digits, - and _ (at most 64 characters); keep the id readable and unique."""
    readable = re.sub(r"[^A-Za-z0-9_-]", "-", campaign_id)[:48]
    return f"{readable}-{hashlib.sha256(campaign_id.encode()).hexdigest()[:8]}"


class MetricsLogger:
    """One per worker process: TensorBoard writers stay open per campaign (flushed after every call)."""

    def __init__(self) -> None:
        self._writers: dict[str, Any] = {}
        self._lock = threading.Lock()

    def log(self, payload: dict) -> dict:
        request = validate("LogMetricsInput", payload, where="logMetrics input")
        campaign_id, step, scalars = request["campaignId"], request["step"], request["scalars"]
        tracking = request["tracking"]
        tensorboard_dir = None
        wandb_dir = None
        with self._lock:
            if tracking["tensorboard"] is not False:
                tensorboard_dir = self._log_tensorboard(tracking["tensorboard"], campaign_id, step, scalars)
            if tracking.get("wandb"):
                wandb_dir = self._log_wandb(tracking["wandb"], campaign_id, step, scalars)
        return {"scalars": len(scalars), "tensorboardDir": tensorboard_dir, "wandbRunDir": wandb_dir}

    def _log_tensorboard(self, config: dict, campaign_id: str, step: int, scalars: dict[str, float]) -> str:
        from tensorboard.summary import Writer

        if "dir" not in config:
            raise ValueError("logMetrics: tracking.tensorboard.dir is not set (finalstate campaign start fills it in)")
        run_dir = str(Path(config["dir"]) / campaign_id)
        writer = self._writers.get(run_dir)
        if writer is None:
            os.makedirs(run_dir, exist_ok=True)
            writer = self._writers[run_dir] = Writer(run_dir)
        for tag, value in sorted(scalars.items()):
            writer.add_scalar(tag, float(value), step)
        writer.flush()
        return run_dir

    def _log_wandb(self, config: dict, campaign_id: str, step: int, scalars: dict[str, float]) -> str:
        import wandb

        if "dir" not in config:
            raise ValueError("logMetrics: tracking.wandb.dir is not set (finalstate campaign start fills it in)")
        os.makedirs(config["dir"], exist_ok=True)
        run = wandb.init(
            project=config["project"],
            entity=config.get("entity"),
            id=wandb_run_id(campaign_id),
            name=campaign_id,
            resume="allow",
            mode=config["mode"],
            dir=config["dir"],
            tags=config.get("tags") or None,
            config={"campaignId": campaign_id},
            settings=wandb.Settings(silent=True, console="off"),
            reinit="finish_previous",
        )
        try:
            run.log(dict(scalars), step=step)
            return str(Path(run.dir).parent)
        finally:
            run.finish()

    def close(self) -> None:
        with self._lock:
            for writer in self._writers.values():
                writer.close()
            self._writers.clear()
