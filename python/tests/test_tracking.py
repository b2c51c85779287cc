"""logMetrics with the real trackers: TensorBoard event files read back with TensorBoard's event accumulator, and a
Weights & Biases offline run written without a network."""

from __future__ import annotations

import os
import re
import socket
from pathlib import Path

import pytest

from finalstate.schemas import SchemaError
from finalstate.tracking import MetricsLogger, wandb_run_id
from finalstate.tracking.read_back import read_scalars


def payload(tmp_path: Path, step: int, scalars: dict, **tracking) -> dict:
    return {
        "campaignId": "camp-1",
        "step": step,
        "scalars": scalars,
        "tracking": {"tensorboard": {"dir": str(tmp_path / "tb")}, **tracking},
    }


def test_scalars_read_back_from_the_event_files_and_a_resumed_logger_continues_the_run(tmp_path):
    first = MetricsLogger()
    out = first.log(payload(tmp_path, 1, {"train/mean_reward": 0.25, "train/loss": -0.5}))
    first.log(payload(tmp_path, 2, {"train/mean_reward": 0.5, "train/loss": -0.25}))
    first.close()
    assert out == {"scalars": 2, "tensorboardDir": str(tmp_path / "tb" / "camp-1"), "wandbRunDir": None}
    # A new worker process (the campaign resumed) writes a new event file into the same run directory.
    second = MetricsLogger()
    second.log(payload(tmp_path, 3, {"train/mean_reward": 0.75, "train/loss": 0.125}))
    second.close()

    scalars = read_scalars(str(tmp_path / "tb" / "camp-1"))
    assert scalars["train/mean_reward"] == [[1, 0.25], [2, 0.5], [3, 0.75]]
    assert scalars["train/loss"] == [[1, -0.5], [2, -0.25], [3, 0.125]]
    assert len(list((tmp_path / "tb" / "camp-1").glob("events.out.tfevents.*"))) == 2


def test_tensorboard_off_writes_nothing_and_bad_payloads_name_the_field(tmp_path):
    logger = MetricsLogger()
    out = logger.log({"campaignId": "c", "step": 0, "scalars": {"eval/pass@1": 0.5}, "tracking": {"tensorboard": False}})
    assert out == {"scalars": 1, "tensorboardDir": None, "wandbRunDir": None}
    assert not (tmp_path / "tb").exists()
    with pytest.raises(SchemaError, match=r"LogMetricsInput .* at step"):
        logger.log({"campaignId": "c", "step": -1, "scalars": {}, "tracking": {}})
    with pytest.raises(ValueError, match=r"tracking\.tensorboard\.dir is not set"):
        logger.log({"campaignId": "c", "step": 0, "scalars": {}, "tracking": {}})


def test_wandb_offline_writes_a_run_directory_without_a_network(tmp_path, monkeypatch):
    monkeypatch.setenv("WANDB_MODE", "offline")
    monkeypatch.setenv("WANDB_DIR", str(tmp_path / "wandb-env"))
    monkeypatch.setenv("WANDB_SILENT", "true")
    connections: list = []
    real_connect = socket.socket.connect

    def guarded_connect(self, address):
        # In this process, local IPC with wandb's service is allowed and anything leaving the machine is recorded;
        # the service process itself is kept offline by mode=offline (WANDB_MODE too).
        if isinstance(address, tuple) and address[0] not in ("127.0.0.1", "localhost", "::1"):
            connections.append(address)
            raise OSError(f"network call to {address} blocked by the test")
        return real_connect(self, address)

    monkeypatch.setattr(socket.socket, "connect", guarded_connect)
    wandb_config = {"project": "finalstate-test", "mode": "offline", "dir": str(tmp_path / "wandb")}
    logger = MetricsLogger()
    first = logger.log(payload(tmp_path, 1, {"train/mean_reward": 0.5}, wandb=wandb_config))
    second = logger.log(payload(tmp_path, 2, {"train/mean_reward": 0.75}, wandb=wandb_config))
    logger.close()

    assert connections == []
    run_id = wandb_run_id("camp-1")
    # wandb names an offline run directory by the second it started; a second start within the same second gets a
    # numeric suffix ("…-<id>-1"), still under the same run id.
    runs = sorted((tmp_path / "wandb" / "wandb").glob(f"offline-run-*-{run_id}*"))
    assert first["wandbRunDir"] and Path(first["wandbRunDir"]) in runs and Path(second["wandbRunDir"]) in runs
    # Each offline run directory holds the run's data file, which `wandb sync` uploads later, under the same run id.
    for run in runs:
        assert (run / f"run-{run_id}.wandb").stat().st_size > 0
    assert os.path.basename(str(runs[0])).endswith(run_id)
    assert all(re.search(rf"-{run_id}(-\d+)?$", str(run)) for run in runs)
