#!/usr/bin/env bash
# Installs TRL with OpenEnv's client into its own venv, .venv-trl, from python/trl.lock (python/trl-requirements.txt
# says why each pin): what examples/trl-openenv runs. transformers 5 and the rest are its own; torch, triton and the
# CUDA libraries are linked from the project's .venv, which pins the same versions (~7 GB not installed twice; from
# PyPI where .venv lacks them). Called by infra/setup.sh; idempotent: seconds when nothing changed.
set -euo pipefail
cd "$(dirname "$0")/.."
exec bash infra/setup-locked-venv.sh .venv-trl python/trl-requirements.txt python/trl.lock .venv
