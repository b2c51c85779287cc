#!/usr/bin/env bash
# Installs OpenEnv (openenv-core: its server framework and client) into its own venv, .venv-openenv, from
# python/openenv.lock (infra/setup-locked-venv.sh: --no-deps, wheels only), with python/ (finalstate_openenv) on its
# path: finalstate_openenv is imported from python/ (the servers put it on PYTHONPATH), never installed. Idempotent:
# seconds when the lock did not change. Called by infra/setup.sh.
set -euo pipefail
cd "$(dirname "$0")/.."
exec bash infra/setup-locked-venv.sh .venv-openenv python/openenv-requirements.txt python/openenv.lock
