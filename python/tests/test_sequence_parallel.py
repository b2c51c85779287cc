"""Sequence parallelism (fsdp.sequenceParallel, Ulysses) and HSDP (fsdp.replicateAcrossNodes) under torchrun: four gloo
ranks on the CPU train the steps of test_sharded_update.py and end with the weights and figures of the plain FSDP2
layout of the same four ranks. Two launches: one node of 4 ranks (FSDP over 4; sequence parallelism 2, packed and
padded), and two simulated nodes of 2 (HSDP 2 x 2, alone and with sequence parallelism 2)."""

from __future__ import annotations

import json
import subprocess

import pytest
from safetensors.torch import load_file

from sharded import STEPS, write_inputs
from torchrun import node_commands, worker_env

# As test_sharded_update.py: float sums in another order move the weights by a few ulps of the update.
ATOL = 1e-6
LAYOUTS = {
    "flat": ({}, {}),
    "sp": ({"sequenceParallel": 2}, {}),
    "sp-padded": ({"sequenceParallel": 2}, {"packing": False}),
    "hsdp": ({"replicateAcrossNodes": True}, {}),
    "hsdp-sp": ({"replicateAcrossNodes": True, "sequenceParallel": 2}, {}),
}


def run_nodes(nodes: int, nproc: int, files: list, timeout: float = 420) -> list[dict]:
    """The updates in `files` on `nodes` torchrun agents of `nproc` ranks each; rank 0's results."""
    agents = [
        subprocess.Popen(command, env=worker_env(), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        for command in node_commands(nodes, nproc, "--run-updates", *map(str, files))
    ]
    outputs = [agent.communicate(timeout=timeout) for agent in agents]
    for agent, (out, err) in zip(agents, outputs):
        assert agent.returncode == 0, out[-3000:] + err[-3000:]
    return [json.loads(line) for line in outputs[0][0].splitlines() if line.startswith("{")]


@pytest.fixture(scope="module")
def runs(tiny_model_dir, tmp_path_factory):
    root = tmp_path_factory.mktemp("layouts")
    files = {
        name: write_inputs(root / name, tiny_model_dir, root / name / "ckpt", fsdp, campaign=name, **update)
        for name, (fsdp, update) in LAYOUTS.items()
    }
    results = {}
    for nodes, nproc, names in ((1, 4, ["flat", "sp", "sp-padded"]), (2, 2, ["hsdp", "hsdp-sp"])):
        out = run_nodes(nodes, nproc, [files[name][step] for name in names for step in STEPS])
        for index, name in enumerate(names):
            results[name] = out[index * len(STEPS) : (index + 1) * len(STEPS)]
    return root, results


@pytest.mark.parametrize("layout", ["sp", "sp-padded", "hsdp", "hsdp-sp"])
def test_the_layout_ends_with_the_weights_and_figures_of_plain_fsdp2(runs, layout):
    root, results = runs
    assert [r["step"] for r in results[layout]] == list(STEPS)
    base = load_file(str(root / "flat" / "ckpt" / "step-000001" / "model.safetensors"))
    flat, other = (load_file(str(root / name / "ckpt" / f"step-{STEPS[-1]:06d}" / "model.safetensors")) for name in ("flat", layout))
    assert flat.keys() == other.keys()
    moved = max((flat[n] - base[n]).abs().max().item() for n in flat)
    worst = max((flat[n] - other[n]).abs().max().item() for n in flat)
    print(f"{layout} vs plain FSDP2 on 4 ranks: max weight difference {worst:.3g} after {len(STEPS)} steps (weights moved up to {moved:.3g})")
    assert moved > 1e-3 and worst <= ATOL
    for one, two in zip(results["flat"], results[layout]):
        assert one["metrics"].keys() == two["metrics"].keys()
        assert one["stalenessHistogram"] == two["stalenessHistogram"]
        for key in set(one["metrics"]) - {"tokensPerSecond"}:
            assert one["metrics"][key] == pytest.approx(two["metrics"][key], rel=1e-4, abs=1e-6), key
