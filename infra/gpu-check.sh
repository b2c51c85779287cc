#!/usr/bin/env bash
# The GPU proof of issue #27, for one CUDA GPU (an H100 or H200; under 8 minutes), run from the repository root with
# the project's venv: python/benchmarks/gpu_check.py prints one table, predicted against measured:
#   (a) the FSDP2 update, bf16, NCCL, of a randomly initialised Qwen3-1.7B-shaped model at 4,096 tokens an episode:
#       peak memory against the preflight's prediction (infra/update-memory.ts), tokens/s and MFU;
#   (b) the same with optimizer offload, every step clipped;
#   (c) the update of episodes whose lengths spread as real ones do, packed into passes (update.packing), through the
#       chunked log-prob head (no logits kept), sequence parallelism 1: peak memory, tokens/s and MFU (issue 36);
#   (d) the sharded load of that model from a bf16 safetensors file: peak device memory, and the load before.
# Nothing is downloaded (PyTorch and transformers only); the predictions travel in python/benchmarks/gpu_check_plan.json.
# The project's package also needs jsonschema (finalstate/schemas.py fills the configs' defaults from the exported
# schemas): on a machine without it, `infra/gpu-check.sh --wheels` run beforehand where pip can reach PyPI saves the
# CARRIED wheels (the versions of python/requirements.lock, for CPython 3.12 on x86-64 Linux) in .gpu-check-wheels/,
# to carry with the working tree; the check installs them into a scratch directory when jsonschema is missing.
# Each part has its own timeout inside; this one bounds the whole. Exits non-zero if a part failed.
set -uo pipefail
cd "$(dirname "$0")/.."
py=${PYTHON:-.venv/bin/python}
# Beyond PyTorch and transformers (python/tests/test_gpu_check.py checks that nothing else is imported).
CARRIED="attrs jsonschema jsonschema-specifications referencing rpds-py"
WHEELS=.gpu-check-wheels

if [[ ${1:-} == --wheels ]]; then
  mkdir -p "$WHEELS"
  for name in $CARRIED; do
    pin=$(grep -i "^$name==" python/requirements.lock) || { echo "gpu-check: $name is not in python/requirements.lock" >&2; exit 1; }
    "$py" -m pip download -q --no-deps --only-binary=:all: --python-version 3.12 --implementation cp \
      --platform manylinux_2_17_x86_64 --platform manylinux2014_x86_64 -d "$WHEELS" "$pin" || exit 1
  done
  ls "$WHEELS"
  exit 0
fi

"$py" -c 'import torch; assert torch.cuda.is_available(), "no CUDA device"; print(torch.cuda.get_device_name(0), torch.__version__)' || exit 1
if ! "$py" -c 'import jsonschema' 2>/dev/null; then
  [[ -d $WHEELS ]] || { echo "gpu-check: no jsonschema here and no $WHEELS/: run infra/gpu-check.sh --wheels where pip reaches PyPI" >&2; exit 1; }
  site=$(mktemp -d)
  "$py" -m pip install -q --no-index --no-deps --no-compile --target "$site" "$WHEELS"/*.whl || exit 1
  export PYTHONPATH=$site${PYTHONPATH:+:$PYTHONPATH}
fi
PYTHONPATH=python${PYTHONPATH:+:$PYTHONPATH} timeout --kill-after=10 470 "$py" python/benchmarks/gpu_check.py "$@"
