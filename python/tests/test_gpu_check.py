"""The CPU rehearsal of the GPU proof (infra/gpu-check.sh): python/benchmarks/gpu_check.py --cpu runs every part on a
tiny Qwen3 with gloo at 2 ranks (the packed part with its two ranks sharing each pass), and prints the one table the
GPU run prints."""

from __future__ import annotations

import json
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
    assert [row.split(" | ")[0] for row in rows] == [
        "| (a) FSDP2 update, fp32, gloo",
        "| (b) (a) with optimizer offload, clipped",
        "| (c) LoRA r16 on all linear layers, (a) otherwise",
        "| (d) packed passes of real-length episodes, chunked head, sequence parallel 2, gloo",
        "| (e) sharded load",
        "| (f) the adapter of (c) in vLLM",
    ]
    assert all(row.split(" | ")[-1].startswith("ok") for row in rows), rows


AUDIT = """
import ast, importlib, importlib.metadata, json, sys
from pathlib import Path
import torch, transformers
from transformers import AutoModelForCausalLM, Qwen3Config, Qwen3ForCausalLM
import peft
before = set(sys.modules)
modules = set()
for path in sys.argv[1:]:
    for node in ast.walk(ast.parse(Path(path).read_text())):
        if isinstance(node, ast.Import):
            modules.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0:
            modules.add(node.module)
for module in sorted(modules):
    importlib.import_module(module)
tops = {name.split(".")[0] for name in set(sys.modules) - before}
distributions = importlib.metadata.packages_distributions()
print(json.dumps(sorted({d for top in tops if top not in sys.stdlib_module_names for d in distributions.get(top, [top])})))
"""


def test_the_gpu_check_needs_only_pytorch_transformers_and_peft():
    """A GPU image has PyTorch, transformers and PEFT (and what they import), not jsonschema: everything else the
    check's parts import is this package or the benchmarks (docs/deploy.md names the image)."""
    benchmarks = PACKAGE_ROOT / "benchmarks"
    files = [benchmarks / "gpu_check.py", benchmarks / "sharded_load.py", benchmarks / "policy_update.py"]
    # the modules the parts import inside their functions
    files += [PACKAGE_ROOT / "finalstate" / "gpu_worker" / name for name in ("lora.py", "checkpoints.py", "loading.py", "sharding.py")]
    env = {**worker_env(), "PYTHONPATH": f"{benchmarks}:{worker_env().get('PYTHONPATH', '')}"}
    done = subprocess.run([sys.executable, "-c", AUDIT, *map(str, files)], env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    own = {"torch", "transformers", "peft", "finalstate", "gpu_check", "sharded_load", "policy_update"}
    beyond = set(json.loads(done.stdout.strip().splitlines()[-1])) - own
    assert not beyond, f"imported beyond torch, transformers and peft: {sorted(beyond)}"
