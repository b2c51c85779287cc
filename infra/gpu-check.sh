#!/usr/bin/env bash
# The GPU proof of issue #27, for one CUDA GPU (an H100 or H200; under 8 minutes), run from the repository root with
# the project's venv where there is one, else python3: python/benchmarks/gpu_check.py prints one table, predicted
# against measured:
#   (a) the FSDP2 update, bf16, NCCL, of a randomly initialised Qwen3-1.7B-shaped model at 4,096 tokens an episode:
#       peak memory against the preflight's prediction (infra/update-memory.ts), tokens/s and MFU;
#   (b) the same with optimizer offload, every step clipped;
#   (c) the same with LoRA (PEFT, rank 16 on every linear layer, the base frozen in bf16), its adapter written;
#   (d) the update of episodes whose lengths spread as real ones do, packed into passes (update.packing), through the
#       chunked log-prob head (no logits kept), sequence parallelism 1: peak memory, tokens/s and MFU (issue 36);
#   (e) the sharded load of that model from a bf16 safetensors file: peak device memory, and the load before;
#   (f) the adapter of (c) loaded into vLLM beside that model and sampled, when the image has vLLM.
# Nothing is downloaded; the predictions travel in python/benchmarks/gpu_check_plan.json. It runs on a GPU image's
# own Python (python3: no .venv there) with the image's PyTorch, transformers and PEFT (torch 2.11, transformers 5.x
# on the device image docs/deploy.md names): nothing it runs needs jsonschema, which such an image lacks
# (python/tests/test_gpu_check.py checks what it imports).
# Each part has its own timeout inside; this one bounds the whole. Exits non-zero if a part failed.
set -uo pipefail
cd "$(dirname "$0")/.."
py=${PYTHON:-$([[ -x .venv/bin/python ]] && echo .venv/bin/python || echo python3)}

"$py" -c 'import torch; assert torch.cuda.is_available(), "no CUDA device"; print(torch.cuda.get_device_name(0), torch.__version__)' || exit 1
PYTHONPATH=python${PYTHONPATH:+:$PYTHONPATH} timeout --kill-after=10 470 "$py" python/benchmarks/gpu_check.py "$@"
