#!/usr/bin/env bash
# Installs ThinkingBox (Microsoft's agent evaluation framework: its session proxy, hydrator, test runner and judge)
# into its own venv, .venv-thinkingbox, for python/finalstate_thinkingbox: python/thinkingbox.lock (--no-deps), then
# ThinkingBox's three packages editable from a writable copy in .venv-thinkingbox/src/ (CI mounts ../shared
# read-only, editable installs write *.egg-info into the source, and a regular install leaves out the servers' seed
# data). Idempotent: seconds when neither the lock nor ThinkingBox's files changed. Called by infra/setup.sh.
# THINKINGBOX_HOME names the folder holding thinkingbox/ and thinkingbox-data/ (default ../shared/thinkingbox; a relative
# path is taken from the repository root).
# Without one, ThinkingBox environments are skipped, unless FINALSTATE_THINKINGBOX=required.
set -euo pipefail
cd "$(dirname "$0")/.."
venv=.venv-thinkingbox
lock=python/thinkingbox.lock
dest=$venv/src  # inside the venv: an install of its own, whatever data directory a stack uses
home=${THINKINGBOX_HOME:-}
if [ -z "$home" ] && [ -d ../shared/thinkingbox ]; then home=../shared/thinkingbox; fi
if [ -z "$home" ] || [ ! -d "$home/thinkingbox" ] || [ ! -d "$home/thinkingbox-data" ]; then
  if [ "${FINALSTATE_THINKINGBOX:-}" = required ]; then
    echo "setup: FINALSTATE_THINKINGBOX=required but no ThinkingBox at '${home:-../shared/thinkingbox}' (set THINKINGBOX_HOME to the folder holding thinkingbox/ and thinkingbox-data/)" >&2
    exit 1
  fi
  if [ -n "${THINKINGBOX_HOME:-}" ]; then
    echo "setup: THINKINGBOX_HOME=$THINKINGBOX_HOME holds no thinkingbox/ and thinkingbox-data/: ThinkingBox environments are skipped"
  else
    echo "setup: THINKINGBOX_HOME is not set (and ../shared/thinkingbox is absent): ThinkingBox environments are skipped"
  fi
  exit 0
fi

# The published copies carry no .git: their identity is the hash of every file's path and content (~0.1 s).
source_hash=$(cd "$home" && find thinkingbox thinkingbox-data -type f -not -path '*/__pycache__/*' -not -path '*.egg-info/*' -print0 \
  | sort -z | xargs -0 sha256sum | sha256sum | cut -d' ' -f1)
if [ "$(cat $dest/.source.sha256 2>/dev/null)" != "$source_hash" ]; then
  echo "setup: copying ThinkingBox from $home to $dest"
  rm -rf "$dest"
  mkdir -p "$dest"
  cp -r "$home/thinkingbox" "$home/thinkingbox-data" "$dest/"
  chmod -R u+w "$dest"  # the copy of a read-only mount is read-only too
  echo "$source_hash" > $dest/.source.sha256
fi

want=$( { cat python/thinkingbox-requirements.txt "$lock"; echo "$source_hash $dest"; } | sha256sum | cut -d' ' -f1)
if [ -x $venv/bin/python ] && [ "$(cat $venv/.setup.sha256 2>/dev/null)" = "$want" ]; then exit 0; fi
[ -x $venv/bin/python ] || python3 -m venv $venv
echo "setup: installing $lock and ThinkingBox (editable, from $dest) into $venv"
pins=$(sed 's/#.*//; s/[[:space:]]//g; /^$/d' "$lock")
build_backend=$(grep -iE '^(setuptools|wheel)==' <<<"$pins")
pip=($venv/bin/python -m pip install -q --no-deps --disable-pip-version-check)
# The build backend first: sly (odata-query's parser) is a source archive, and the editable installs build too, all
# without build isolation so that nothing outside the lock is fetched.
"${pip[@]}" --only-binary :all: $build_backend
# shellcheck disable=SC2086 # one pin per word
"${pip[@]}" --no-build-isolation --prefer-binary $pins
"${pip[@]}" --no-build-isolation -e "$dest/thinkingbox" -e "$dest/thinkingbox-data/servers/tb_business_ops_servers_202606" \
  -e "$dest/thinkingbox-data/servers/thinkingbox_tools"
$venv/bin/python -m pip check
echo "$want" > $venv/.setup.sha256
