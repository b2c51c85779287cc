"""Update tokens/s of the FSDP2-sharded update at world size 1 and 2 on the CPU (gloo), and their ratio, in one run.

  .venv/bin/python python/benchmarks/sharded_update.py [--preset cpu] [--episodes 32] [--length 256]

Each world size runs python/benchmarks/policy_update.py --sharded under torchrun (one thread per rank), one warm-up
step and then the measured steps; the figure is the whole batch's tokens over the mean step time.
"""

from __future__ import annotations

import argparse
import json
import os
import socket
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def measure(world_size: int, args: argparse.Namespace) -> dict:
    command = [
        sys.executable, "-m", "torch.distributed.run", "--nproc-per-node", str(world_size),
        "--master-addr", "127.0.0.1", "--master-port", str(free_port()),
        str(HERE / "policy_update.py"), "--sharded", "--device", "cpu", "--preset", args.preset,
        "--episodes", str(args.episodes), "--length", str(args.length), "--prompt", str(args.length // 4),
        "--micro-batch-size", str(args.micro_batch_size), "--steps", str(args.steps),
    ]  # fmt: skip
    done = subprocess.run(command, env={**os.environ, "OMP_NUM_THREADS": "1"}, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise SystemExit(f"world size {world_size} failed:\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}")
    return json.loads([line for line in done.stdout.splitlines() if line.startswith("{")][-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--preset", default="cpu")
    parser.add_argument("--episodes", type=int, default=32)
    parser.add_argument("--length", type=int, default=256)
    parser.add_argument("--micro-batch-size", type=int, default=4)
    parser.add_argument("--steps", type=int, default=2)
    args = parser.parse_args()
    one, two = measure(1, args), measure(2, args)
    for summary in (one, two):
        print(json.dumps({k: summary[k] for k in ("worldSize", "params", "episodes", "length", "secondsPerStep", "tokensPerSecond")}))
    print(json.dumps({"tokensPerSecondRatio2to1": round(two["tokensPerSecond"] / one["tokensPerSecond"], 3), "cpus": os.cpu_count()}))


if __name__ == "__main__":
    main()
