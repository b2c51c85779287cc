"""`python -m finalstate.base_model build --demos FILE.jsonl`: build (or find in the cache) the tiny base model."""

from __future__ import annotations

import argparse
import dataclasses
import json
import logging
import sys

from .build import BuildConfig, ModelShape, build
from .demonstrations import DemonstrationError
from .sft import SftConfig


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m finalstate.base_model", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)
    cmd = sub.add_parser("build", help="train tokenizer and model on rendered demonstrations (SftDemonstration JSONL)")
    cmd.add_argument("--demos", required=True, help="JSONL of SftDemonstration records")
    cmd.add_argument("--cache-dir", default=".data/models", help="where base-<hash> directories live")
    cmd.add_argument("--seed", type=int, default=BuildConfig.seed)
    cmd.add_argument("--steps", type=int, default=SftConfig.steps)
    cmd.add_argument("--batch-size", type=int, default=SftConfig.batch_size)
    cmd.add_argument("--lr", type=float, default=SftConfig.lr)
    cmd.add_argument("--context-weight", type=float, default=SftConfig.context_weight, help="loss weight of the non-assistant tokens (0: assistant tokens only)")
    cmd.add_argument("--vocab-size", type=int, default=BuildConfig.vocab_size)
    cmd.add_argument("--hidden-size", type=int, default=ModelShape.hidden_size)
    cmd.add_argument("--layers", type=int, default=ModelShape.num_hidden_layers)
    cmd.add_argument("--max-positions", type=int, default=ModelShape.max_position_embeddings, help="the model's context length (RoPE: no weight depends on it)")
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s", stream=sys.stderr)

    config = BuildConfig(
        vocab_size=args.vocab_size,
        seed=args.seed,
        model=dataclasses.replace(ModelShape(), hidden_size=args.hidden_size, num_hidden_layers=args.layers, max_position_embeddings=args.max_positions),
        sft=dataclasses.replace(SftConfig(), steps=args.steps, batch_size=args.batch_size, lr=args.lr, context_weight=args.context_weight, warmup_steps=min(SftConfig.warmup_steps, max(1, args.steps // 10))),
    )
    try:
        result = build(args.demos, args.cache_dir, config)
    except DemonstrationError as err:
        print(f"base model: {err}", file=sys.stderr)
        return 2
    report = {k: v for k, v in result.report.items() if k != "lossCurve"}
    print(json.dumps({"dir": str(result.directory.resolve()), "hash": result.content_hash, "cached": result.cached, "report": report}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
