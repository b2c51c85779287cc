"""`python -m finalstate.merge_lora CHECKPOINT --out DIR [--base DIR] [--dtype float32|bfloat16]`: merge a LoRA
checkpoint into its base model. Prints one JSON line, the MergeLoraResult (schemas/model-import.ts); exit 2 on bad
input."""

from __future__ import annotations

import argparse
import json
import sys

from . import MergeInputError, merge_lora


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m finalstate.merge_lora", description=__doc__)
    parser.add_argument("checkpoint", help="a LoRA step directory (adapter_config.json, adapter_model.safetensors)")
    parser.add_argument("--out", required=True, help="the merged Hugging Face checkpoint directory (must not exist)")
    parser.add_argument("--base", default=None, help="the base model (default: the adapter config's base_model_name_or_path)")
    parser.add_argument("--dtype", choices=["float32", "bfloat16"], default="float32")
    args = parser.parse_args(argv)
    try:
        result = merge_lora(args.checkpoint, args.out, base_model=args.base, dtype=args.dtype)
    except MergeInputError as err:
        print(f"merge-lora: {err}", file=sys.stderr)
        return 2
    print(json.dumps(result))
    return 0


if __name__ == "__main__":
    sys.exit(main())
