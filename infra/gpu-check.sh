#!/usr/bin/env bash
# The GPU check of issue #15, for one CUDA GPU (sized for an H200, 141 GB; under 8 minutes), run from the repository
# root with the project's venv:
#   1. the FSDP2-sharded update at world size 1 (torchrun), bf16 compute / fp32 master weights, on a randomly
#      initialised Qwen3-architecture model of ~0.6B parameters, then ~4B (activation checkpointing): tokens/s,
#      MFU and peak memory (python/benchmarks/policy_update.py --sharded);
#   2. the policy server's engine on CUDA: batched against one-at-a-time generation (python/benchmarks/policy_server.py).
# Every part has its own timeout, so one that hangs cannot eat the others' time. Prints JSON lines; exits non-zero
# if a part failed.
set -uo pipefail
cd "$(dirname "$0")/.."
py=${PYTHON:-.venv/bin/python}
rc=0
part() { # part SECONDS NAME COMMAND...
  local seconds=$1 name=$2; shift 2
  echo "== $name"
  local started; started=$(date +%s)
  timeout --kill-after=10 "$seconds" "$@" || { echo "gpu-check: $name failed or timed out (exit $?)" >&2; rc=1; }
  echo "== $name: $(( $(date +%s) - started )) s"
}
"$py" -c 'import torch; assert torch.cuda.is_available(), "no CUDA device"; print(torch.cuda.get_device_name(0), torch.__version__)' || exit 1
torchrun=("$py" -m torch.distributed.run --standalone --nproc-per-node 1)
part 150 "sharded update, Qwen3-0.6B shape, world size 1" \
  "${torchrun[@]}" python/benchmarks/policy_update.py --sharded --preset mid --episodes 64 --length 1024 --prompt 256 --micro-batch-size 8 --steps 3
part 210 "sharded update, Qwen3-4B shape, world size 1, activation checkpointing" \
  "${torchrun[@]}" python/benchmarks/policy_update.py --sharded --preset 4b --episodes 32 --length 1024 --prompt 256 --micro-batch-size 4 --steps 2 --gradient-checkpointing
model_dir=$(mktemp -d /tmp/gpu-check-model-XXXXXX)
part 90 "policy server on CUDA, Qwen3-0.6B shape" bash -c "
  '$py' -c 'import sys, torch
from transformers import Qwen3Config, Qwen3ForCausalLM
from finalstate.testing.tiny_model import build_tiny_tokenizer
sys.path.insert(0, \"python/benchmarks\")
from policy_update import PRESETS
tokenizer = build_tiny_tokenizer()
config = Qwen3Config(max_position_embeddings=4096, tie_word_embeddings=True, eos_token_id=tokenizer.eos_token_id, pad_token_id=tokenizer.pad_token_id, **PRESETS[\"mid\"])
torch.manual_seed(0)
Qwen3ForCausalLM(config).to(torch.bfloat16).save_pretrained(sys.argv[1])
tokenizer.save_pretrained(sys.argv[1])' '$model_dir' &&
  '$py' python/benchmarks/policy_server.py --model '$model_dir' --requests 32 --max-tokens 128"
rm -rf "$model_dir"
exit $rc
