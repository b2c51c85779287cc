#!/usr/bin/env bash
# The GPU proof of issue #27, for one CUDA GPU (an H100 or H200; under 8 minutes), run from the repository root with
# the project's venv: python/benchmarks/gpu_check.py prints one table, predicted against measured:
#   (a) the FSDP2 update, bf16, NCCL, of a randomly initialised Qwen3-1.7B-shaped model at 4,096 tokens an episode:
#       peak memory against the preflight's prediction (infra/update-memory.ts), tokens/s and MFU;
#   (b) the same with optimizer offload, every step clipped;
#   (c) the sharded load of that model from a bf16 safetensors file: peak device memory, and the load before.
# Nothing is downloaded (PyTorch and transformers only); the predictions travel in python/benchmarks/gpu_check_plan.json.
# Each part has its own timeout inside; this one bounds the whole. Exits non-zero if a part failed.
set -uo pipefail
cd "$(dirname "$0")/.."
py=${PYTHON:-.venv/bin/python}
"$py" -c 'import torch; assert torch.cuda.is_available(), "no CUDA device"; print(torch.cuda.get_device_name(0), torch.__version__)' || exit 1
PYTHONPATH=python${PYTHONPATH:+:$PYTHONPATH} timeout --kill-after=10 470 "$py" python/benchmarks/gpu_check.py "$@"
