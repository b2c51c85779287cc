"""Bytes a step writes, full fine-tuning against LoRA, measured in one run: one policy update of each on the same base
model and the same batch (one process, CPU), and the size of each step directory (the export servers load, the
resumable state, the rest).

  .venv/bin/python python/benchmarks/lora_bytes.py --base-model DIR --batch BATCH_URI [--rank 16] [--keep DIR]

`--keep DIR` leaves both step directories there (the full export and the adapter: bench/lora-publish.ts publishes them).
"""

from __future__ import annotations

import argparse
import json
import shutil
import tempfile
import time
from pathlib import Path

from finalstate.gpu_worker.policy_update import PolicyUpdater
from finalstate.gpu_worker.process_group import start_process_groups


def size(path: Path) -> int:
    return sum(f.stat().st_size for f in path.rglob("*") if f.is_file()) if path.is_dir() else path.stat().st_size


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--base-model", required=True)
    parser.add_argument("--batch", required=True, help="a TrainingBatch manifest (file:// URI or path)")
    parser.add_argument("--rank", type=int, default=16)
    parser.add_argument("--keep", help="copy both step directories here")
    args = parser.parse_args()
    updater = PolicyUpdater(start_process_groups("cpu"))
    figures = {}
    with tempfile.TemporaryDirectory(prefix="lora-bytes-") as scratch:
        for mode in ("full", "lora"):
            request = {
                "campaignId": f"bytes-{mode}", "step": 1, "batchUri": args.batch, "checkpointDir": str(Path(scratch) / mode),
                "baseModel": args.base_model, "optimizer": {"lr": 1e-5}, "microBatchSize": 1,
            } | ({"lora": {"rank": args.rank}} if mode == "lora" else {})  # fmt: skip
            started = time.perf_counter()
            result = updater.run(request)
            step = Path(scratch) / mode / "step-000001"
            sharded = size(step / "sharded")
            exported = sum(size(p) for p in step.iterdir() if p.suffix == ".safetensors")
            figures[mode] = {"stepBytes": size(step), "exportBytes": exported, "resumableBytes": sharded, "seconds": round(time.perf_counter() - started, 1), "loss": result["metrics"]["loss"]}
            if args.keep:
                shutil.copytree(step, Path(args.keep) / mode, dirs_exist_ok=True)
    ratio = figures["full"]["stepBytes"] / figures["lora"]["stepBytes"]
    print(json.dumps({"baseModel": args.base_model, "rank": args.rank, **figures, "fullOverLora": round(ratio, 1)}))


if __name__ == "__main__":
    main()
