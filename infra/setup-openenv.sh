#!/usr/bin/env bash
# Installs OpenEnv (openenv-core: its server framework and client) into its own venv, .venv-openenv, from
# python/openenv.lock (--no-deps, wheels only), with python/ (finalstate_openenv) on its path. Idempotent: seconds
# when the lock did not change. Called by infra/setup.sh.
set -euo pipefail
cd "$(dirname "$0")/.."
venv=.venv-openenv
lock=python/openenv.lock
want=$(cat python/openenv-requirements.txt "$lock" | sha256sum | cut -d' ' -f1)
if [ -x $venv/bin/python ] && [ "$(cat $venv/.setup.sha256 2>/dev/null)" = "$want" ]; then exit 0; fi
[ -x $venv/bin/python ] || python3 -m venv $venv
echo "setup: installing $lock into $venv"
pins=$(sed 's/#.*//; s/[[:space:]]//g; /^$/d' "$lock")
# shellcheck disable=SC2086 # one pin per word
$venv/bin/python -m pip install -q --no-deps --disable-pip-version-check --only-binary :all: $pins
# finalstate_openenv is imported from python/ (the servers put it on PYTHONPATH), never installed.
$venv/bin/python -m pip check
echo "$want" > $venv/.setup.sha256
