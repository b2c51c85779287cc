#!/usr/bin/env bash
# Regenerates python/openenv.lock from python/openenv-requirements.txt (infra/lock-venv.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
exec bash infra/lock-venv.sh python/openenv-requirements.txt python/openenv.lock
