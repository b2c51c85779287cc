"""Policy-server throughput: N concurrent requests (batched by the scheduler) against the same N one at a time.

  PYTHONPATH=python .venv/bin/python python/benchmarks/policy_server.py [--model DIR] [--requests 16]

Without --model it builds the tiny test model. Prints generated tokens per second both ways and their ratio.
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor

import torch

from finalstate.policy_server.engine import Engine, SamplingParams, load_policy
from finalstate.testing.tiny_model import save_tiny_model


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--model", default=None)
    parser.add_argument("--requests", type=int, default=16)
    parser.add_argument("--max-tokens", type=int, default=64)
    parser.add_argument("--prompt-tokens", type=int, default=48)
    args = parser.parse_args()
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    model_dir = args.model or save_tiny_model(tempfile.mkdtemp(prefix="policy-bench-"))
    engine = Engine(load_policy(model_dir, 0, device), device=device, max_batch_size=args.requests, batch_wait_s=0.01)
    vocab = engine.vocab_size
    prompts = [[(7 * i + 3 * k) % (vocab - 3) + 3 for k in range(args.prompt_tokens)] for i in range(args.requests)]
    params = [SamplingParams(max_tokens=args.max_tokens, temperature=1.0, seed=i, ignore_eos=True) for i in range(args.requests)]

    engine.submit(prompts[0], SamplingParams(max_tokens=4)).result()  # warm-up
    started = time.perf_counter()
    sequential = [engine.submit(p, s).result() for p, s in zip(prompts, params)]
    sequential_s = time.perf_counter() - started

    started = time.perf_counter()
    with ThreadPoolExecutor(args.requests) as pool:
        concurrent = list(pool.map(lambda ps: engine.submit(*ps).result(), zip(prompts, params)))
    concurrent_s = time.perf_counter() - started
    engine.close()

    tokens = sum(len(c.token_ids) for c in sequential)
    same = sum(a.token_ids == b.token_ids for a, b in zip(sequential, concurrent))
    print(json.dumps({
        "device": str(device),
        "model": str(model_dir),
        "requests": args.requests,
        "tokensPerRequest": args.max_tokens,
        "sequentialTokensPerSecond": round(tokens / sequential_s, 1),
        "concurrentTokensPerSecond": round(tokens / concurrent_s, 1),
        "speedup": round(sequential_s / concurrent_s, 2),
        "batchSizes": engine.batch_sizes[-4:],
        "identicalSamples": f"{same}/{args.requests}",
    }))


if __name__ == "__main__":
    main()
