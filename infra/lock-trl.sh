#!/usr/bin/env bash
# Regenerates python/trl.lock from python/trl-requirements.txt (infra/lock-venv.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
exec bash infra/lock-venv.sh python/trl-requirements.txt python/trl.lock
