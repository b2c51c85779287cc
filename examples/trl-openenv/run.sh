#!/usr/bin/env bash
# TRL's GRPOTrainer trains finalstate's tiny model on a finalstate domain served over OpenEnv (README.md beside it):
#
#   bash examples/trl-openenv/run.sh [--domain D] [--demos N] [--sft-steps N] [--model DIR] [--max-sessions N]
#                                    [--output FILE] [TRAIN OPTIONS]
#
# 1. .venv-trl: TRL, transformers 5 and OpenEnv's client (infra/setup-trl.sh; seconds when installed);
# 2. the local stack's PostgreSQL (`finalstate dev up` unless it is up): every episode's database;
# 3. the tiny base model, unless --model: `finalstate model build-base` on the first --demos training tasks of the
#    domain's mini profile, --sft-steps SFT steps, the whole transcript weighed (cached by content hash under
#    .data/models). Trained on finalstate's rendering, it is prompted the same way: the tools as the server lists them
#    (--tool-schemas server) and no send_message tool (finalstate's agent messages the user in plain text);
# 4. `finalstate env serve --openenv --domain D --split train --profile mini --max-sessions N` (default 32: TRL holds
#    one session per rollout of a step for the whole run) with a token file of its own;
# 5. train.py in .venv-trl with the TRAIN OPTIONS (--steps, --generations, --tasks-per-step, ...: its --help); the
#    run's figures go to --output (default .data/trl-openenv/run-<time>.json). The server stops at the end.
set -euo pipefail
cd "$(dirname "$0")/../.."
domain=retail demos=300 sft_steps=800 model="" sessions=32 output="" train=()
while [ $# -gt 0 ]; do
  case $1 in
    --domain) domain=$2; shift 2 ;;
    --demos) demos=$2; shift 2 ;;
    --sft-steps) sft_steps=$2; shift 2 ;;
    --model) model=$2; shift 2 ;;
    --max-sessions) sessions=$2; shift 2 ;;
    --output) output=$2; shift 2 ;;
    *) train+=("$1"); shift ;;
  esac
done
work=.data/trl-openenv
mkdir -p "$work"
output=${output:-$work/run-$(date +%Y%m%d-%H%M%S).json}
t0=$(date +%s)
say() { echo "trl-openenv: $* ($(($(date +%s) - t0)) s)" >&2; }
json() { node -e 'const v=JSON.parse(require("fs").readFileSync(0,"utf8"));console.log(process.argv[1].split(".").reduce((o,k)=>o[k],v))' "$1"; }

bash infra/setup-trl.sh
say ".venv-trl ready"
node bin/finalstate.js dev status >/dev/null 2>&1 || node bin/finalstate.js dev up >&2
serve=$(mktemp -d "$work/serve.XXXXXX") server=""
stop() {
  if [ -n "$server" ]; then kill -TERM "$server" 2>/dev/null && wait "$server" 2>/dev/null; fi
  rm -rf "$serve"
}
trap stop EXIT
if [ -z "$model" ]; then
  node bin/finalstate.js model build-base --dir "tasks/$domain" --max-demos "$demos" --steps "$sft_steps" \
    --context-weight 1 --extra-seeds '' --json > "$serve/model.json"
  model=$(json checkpointDir < "$serve/model.json")
  train=(--tool-schemas server --no-send-message ${train[@]+"${train[@]}"})
fi
say "model $model"

node bin/finalstate.js env serve --openenv --domain "$domain" --split train --profile mini --token-file "$serve/token" \
  --max-sessions "$sessions" > "$serve/out.json" 2> "$serve/err.log" &
server=$!
for _ in $(seq 1 120); do
  grep -q "}" "$serve/out.json" 2>/dev/null && break
  kill -0 "$server" 2>/dev/null || { cat "$serve/err.log" >&2; exit 1; }
  sleep 0.5
done
url=$(json url < "$serve/out.json")
say "serving $domain over OpenEnv at $url"

.venv-trl/bin/python examples/trl-openenv/train.py --url "$url" --token-file "$serve/token" --model "$model" \
  --output "$output" ${train[@]+"${train[@]}"}
say "done; figures in $output"
