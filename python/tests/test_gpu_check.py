"""The CPU rehearsal of the GPU proof (infra/gpu-check.sh): python/benchmarks/gpu_check.py --cpu runs every part on a
tiny Qwen3 with gloo at 2 ranks, and prints the one table the GPU run prints."""

from __future__ import annotations

import subprocess
import sys

from torchrun import PACKAGE_ROOT, worker_env


def test_every_part_of_the_gpu_check_runs_on_the_cpu_and_prints_one_table():
    done = subprocess.run(
        [sys.executable, str(PACKAGE_ROOT / "benchmarks" / "gpu_check.py"), "--cpu"],
        env=worker_env(), capture_output=True, text=True, timeout=900,
    )  # fmt: skip
    print(done.stdout)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    rows = [line for line in done.stdout.splitlines() if line.startswith("| (")]
    assert [row.split(" | ")[0] for row in rows] == ["| (a) FSDP2 update, fp32, gloo", "| (b) (a) with optimizer offload, clipped", "| (c) sharded load"]
    assert all(row.split(" | ")[-1].startswith("ok") for row in rows), rows
