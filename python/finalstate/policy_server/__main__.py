"""`python -m finalstate.policy_server --model DIR --port P`: serve a Hugging Face checkpoint for rollouts."""

from __future__ import annotations

import argparse
import logging
import signal
import threading
from pathlib import Path

import torch

from .api import PolicyServer
from .engine import Engine, load_policy
from .guard import TOKEN_ENV, admin_token


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m finalstate.policy_server", description=__doc__)
    parser.add_argument("--model", required=True, help="Hugging Face checkpoint directory")
    parser.add_argument("--port", type=int, default=8000)
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument(
        "--admin-token-file",
        default=None,
        help="bearer token of the admin routes (pause, resume, collective_rpc, reset_prefix_cache): read from this file, "
        f"or generated and written there (mode 0600) when it does not exist; {TOKEN_ENV} gives one instead. "
        "Without either, the admin routes are refused.",
    )
    parser.add_argument(
        "--allowed-host", action="append", default=[], metavar="NAME:PORT", help="a Host header value accepted besides the bind address"
    )
    parser.add_argument(
        "--allowed-origin", action="append", default=[], metavar="ORIGIN", help="an Origin accepted besides http://<an accepted host>"
    )
    parser.add_argument("--served-model-name", default=None, help="model id in the API (default: the directory name)")
    parser.add_argument("--policy-version", type=int, default=0)
    parser.add_argument("--device", default=None, help="torch device (default: cuda when available, else cpu)")
    parser.add_argument("--max-batch-size", type=int, default=32)
    parser.add_argument("--max-lora-rank", type=int, default=64, help="the highest rank of a LoRA adapter it loads (vLLM's flag)")
    parser.add_argument("--batch-wait-ms", type=float, default=5.0, help="how long the scheduler gathers requests into a batch")
    parser.add_argument(
        "--threads",
        type=int,
        default=None,
        help="torch intra-op threads on CPU (default: torch's). A tiny model on a busy small machine decodes fastest with 1: "
        "threads that wait on each other at every op stall whenever another process takes a core.",
    )
    args = parser.parse_args(argv)
    try:
        token = admin_token(args.admin_token_file)
    except (OSError, ValueError) as err:
        parser.error(str(err))
    if args.threads:
        torch.set_num_threads(args.threads)
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s")

    device = torch.device(args.device or ("cuda" if torch.cuda.is_available() else "cpu"))
    policy = load_policy(args.model, args.policy_version, device)
    engine = Engine(
        policy, device=device, max_batch_size=args.max_batch_size, batch_wait_s=args.batch_wait_ms / 1000, max_lora_rank=args.max_lora_rank
    )
    server = PolicyServer(
        (args.host, args.port),
        engine,
        args.served_model_name or Path(args.model).resolve().name,
        admin_token=token,
        allowed_hosts=tuple(args.allowed_host),
        allowed_origins=tuple(args.allowed_origin),
    )
    stop = threading.Event()
    for sig in (signal.SIGINT, signal.SIGTERM):
        signal.signal(sig, lambda *_: stop.set())
    threading.Thread(target=server.serve_forever, name="http", daemon=True).start()
    admin = f"admin routes need the token in {args.admin_token_file or TOKEN_ENV}" if token else "admin routes off (no token)"
    print(f"policy server ready on http://{args.host}:{server.server_address[1]} (policy version {policy.version}; {admin})", flush=True)
    stop.wait()
    server.shutdown()
    engine.close()


if __name__ == "__main__":
    main()
