"""The checkpoint comparison behind the resumed-campaign test: it reads every tensor, and one flipped bit shows."""

from __future__ import annotations

import shutil
import warnings

import torch
import torch.distributed.checkpoint as dcp
from safetensors.torch import save_file

from finalstate.testing.compare_checkpoints import compare


def write_step(directory, exp_avg: torch.Tensor) -> None:
    directory.mkdir(parents=True)
    weight = torch.arange(6, dtype=torch.float32).reshape(2, 3)
    save_file({"w": weight}, directory / "model.safetensors")
    state = {
        "model": {"w": weight},
        "optim": {"state": {"w": {"exp_avg": exp_avg, "step": torch.tensor(3.0)}}, "param_groups": [{"lr": 1e-3, "params": ["w"]}]},
    }
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # no process group: dcp saves as a single process
        dcp.save(state, checkpoint_id=directory / "sharded")


def test_equal_checkpoints_compare_every_tensor_and_value(tmp_path):
    write_step(tmp_path / "a", torch.full((2, 3), 0.25))
    shutil.copytree(tmp_path / "a", tmp_path / "b")
    result = compare(tmp_path / "a", tmp_path / "b")
    assert result["differing"] == [] and result["onlyInA"] == [] and result["onlyInB"] == []
    assert result["tensors"] == 4  # the export's w, the sharded model's w, exp_avg, step
    assert result["optimizerTensors"] == 2
    assert result["elements"] == 6 + 6 + 6 + 1
    assert result["values"] >= 2  # lr and the param name


def test_one_flipped_bit_of_the_optimizer_state_differs(tmp_path):
    exp_avg = torch.full((2, 3), 0.25)
    write_step(tmp_path / "a", exp_avg)
    flipped = exp_avg.clone()
    flipped.view(torch.int32)[1, 2] ^= 1  # the lowest mantissa bit of one element
    assert flipped[1, 2].item() != 0.25
    write_step(tmp_path / "b", flipped)
    assert compare(tmp_path / "a", tmp_path / "b")["differing"] == ["sharded.optim.state.w.exp_avg"]


def test_negative_zero_is_not_bitwise_equal_to_zero(tmp_path):
    write_step(tmp_path / "a", torch.zeros(2, 3))
    negative = torch.zeros(2, 3)
    negative[0, 0] = -0.0
    write_step(tmp_path / "b", negative)
    assert compare(tmp_path / "a", tmp_path / "b")["differing"] == ["sharded.optim.state.w.exp_avg"]
