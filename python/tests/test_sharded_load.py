"""Sharded loading at world size 2 (torchrun, gloo): the shards hold exactly the checkpoint's weights, and no rank
holds the whole fp32 model on the way (python/benchmarks/sharded_load.py, which prints the per-rank figures)."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from torchrun import PACKAGE_ROOT, free_port, worker_env

BENCH = PACKAGE_ROOT / "benchmarks" / "sharded_load.py"


def make(directory, preset, dtype):
    done = subprocess.run([sys.executable, str(BENCH), "--make-model", str(directory), "--preset", preset, "--dtype", dtype], env=worker_env(), capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout.strip().splitlines()[-1])["parameters"]


def load(directory, loader, *extra):
    command = [
        sys.executable, "-m", "torch.distributed.run", "--nproc-per-node", "2", "--master-addr", "127.0.0.1",
        "--master-port", str(free_port()), str(BENCH), "--model", str(directory), "--loader", loader, "--device", "cpu", *extra,
    ]  # fmt: skip
    done = subprocess.run(command, env=worker_env(), capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    reports = sorted((json.loads(line) for line in done.stdout.splitlines() if line.startswith("{")), key=lambda r: r["rank"])
    assert [r["rank"] for r in reports] == [0, 1]
    return reports


@pytest.mark.parametrize(("dtype", "offload"), [("bfloat16", False), ("float32", True)])
def test_the_shards_hold_exactly_the_checkpoints_weights_with_tied_embeddings(tmp_path, dtype, offload):
    make(tmp_path / "tiny", "tiny", dtype)
    reports = load(tmp_path / "tiny", "sharded", *(["--offload"] if offload else []))
    assert all(r["tied"] for r in reports), "the output layer is still the input embeddings"
    assert reports[0]["missing"] == [] and reports[0]["checkedTensors"] > 0
    assert reports[0]["maxAbsDiff"] == 0.0


def test_no_rank_holds_the_whole_fp32_model_while_loading(tmp_path):
    parameters = make(tmp_path / "large", "cpu-large", "bfloat16")
    whole = 4 * parameters
    before, after = load(tmp_path / "large", "full"), load(tmp_path / "large", "sharded")
    mib = 2**20
    for old, new in zip(before, after):
        print(
            f"rank {new['rank']}: loading added {old['addedRssBytes'] / mib:.0f} MiB of resident memory before "
            f"(peak {old['peakRssBytes'] / mib:.0f} MiB), {new['addedRssBytes'] / mib:.0f} MiB sharded (peak {new['peakRssBytes'] / mib:.0f} MiB); "
            f"the fp32 model is {whole / mib:.0f} MiB"
        )
    assert after[0]["maxAbsDiff"] == 0.0 and before[0]["maxAbsDiff"] == 0.0
    assert all(old["addedRssBytes"] >= whole for old in before), "before, every rank held the whole fp32 model"
    # Rank 1 holds its half of the fp32 shards and one tensor in flight; rank 0 also maps the bf16 file (half the
    # fp32 size) in the page cache.
    assert after[1]["addedRssBytes"] < 0.8 * whole
    assert after[0]["addedRssBytes"] < 1.2 * whole
